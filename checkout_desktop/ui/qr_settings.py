"""Settings for QR tenders: how long a PIX QR may be paid, and the customer-facing display."""

from __future__ import annotations

import logging

from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QLabel,
    QSpinBox,
    QWidget,
)

from checkout_desktop.domain.qr import PIX_MAX_EXPIRATION_S, PIX_MIN_EXPIRATION_S
from checkout_desktop.settings import QrSettings

logger = logging.getLogger(__name__)


class QrSettingsBox(QGroupBox):
    """PIX expiry (seconds, 600 at least), the display toggle and the screen it opens on."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setTitle(self.tr("PIX, PicPay and customer display"))
        self.pix_expiration = QSpinBox(self)
        self.pix_expiration.setObjectName("settingsPixExpiration")
        # In minutes, as a shop owner thinks of it; kept in seconds, as the service takes it.
        self.pix_expiration.setRange(PIX_MIN_EXPIRATION_S // 60, PIX_MAX_EXPIRATION_S // 60)
        self.pix_expiration.setSuffix(" min")
        self.pix_expiration.setToolTip(
            self.tr("How long the customer has to pay a PIX QR (10 minutes at least).")
        )
        self._kept_expiration_s = PIX_MIN_EXPIRATION_S
        """The seconds as loaded: kept as they were while the minutes shown are not changed."""
        self.display = QCheckBox(self.tr("Show a customer display window"), self)
        self.display.setObjectName("settingsCustomerDisplay")
        self.screen_choice = QComboBox(self)
        self.screen_choice.setObjectName("settingsDisplayScreen")
        self.screen_choice.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.screen_choice.setMinimumContentsLength(16)
        # Where it opens, said before it surprises: never over the shop's own screen.
        self.screens_note = QLabel(
            self.tr(
                "The customer display opens full screen on a second screen facing the "
                "customer, by itself as soon as one is connected, and only this option closes "
                "it. With only one screen it is not opened: the customer scans the QR on the "
                "shop's screen."
            ),
            self,
        )
        self.screens_note.setObjectName("settingsDisplayScreensNote")
        self.screens_note.setWordWrap(True)
        form = QFormLayout(self)
        form.addRow(self.tr("PIX QR valid for"), self.pix_expiration)
        form.addRow("", self.display)
        form.addRow(self.tr("On screen"), self.screen_choice)
        form.addRow("", self.screens_note)
        self.display.toggled.connect(self.screen_choice.setEnabled)
        self.display.toggled.connect(self.screens_note.setVisible)

    def _fill_screens(self, chosen: str | None) -> None:
        self.screen_choice.clear()
        self.screen_choice.addItem(self.tr("The last screen (a second monitor)"), None)
        for screen in QGuiApplication.screens():
            self.screen_choice.addItem(screen.name() or self.tr("Unnamed screen"), screen.name())
        if chosen is not None and self.screen_choice.findData(chosen) < 0:
            # Chosen earlier, not plugged in now: kept, and said so.
            self.screen_choice.addItem(
                self.tr("{name} (not connected)").format(name=chosen), chosen
            )
        self.screen_choice.setCurrentIndex(max(self.screen_choice.findData(chosen), 0))

    def load(self, settings: QrSettings) -> None:
        self._kept_expiration_s = settings.pix_expiration_s
        self.pix_expiration.setValue(round(settings.pix_expiration_s / 60))
        self.display.setChecked(settings.customer_display)
        self._fill_screens(settings.customer_display_screen)
        self.screen_choice.setEnabled(settings.customer_display)
        self.screens_note.setVisible(settings.customer_display)

    def _expiration_s(self) -> int:
        minutes = self.pix_expiration.value()
        if minutes == round(self._kept_expiration_s / 60):
            return self._kept_expiration_s
        return minutes * 60

    def collect(self, settings: QrSettings) -> QrSettings:
        return settings.model_copy(
            update={
                "pix_expiration_s": self._expiration_s(),
                "customer_display": self.display.isChecked(),
                "customer_display_screen": self.screen_choice.currentData(),
            }
        )


__all__ = ["QrSettingsBox"]
