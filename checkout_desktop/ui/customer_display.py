"""The customer-facing display: a second window, without controls, that follows the sale live.

It shows the shop's name and the sale's amount; the QR while a wallet or PIX charge waits; a
card's amount while the card is keyed; "Paid — thank you!" once paid. It opens on the screen
chosen in Settings: full screen when that is a second screen; on the shop's own screen (a PC
with one monitor) a small window kept above the shop's maximised one, in its bottom-right
corner, where the customer can see it and the clerk can drag it aside. When its screen is
removed (a monitor unplugged) it moves to the last screen left, never crashes and never takes
the shop's focus. The charge screen says what to show (`CustomerView`); this window only paints.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QGuiApplication, QScreen
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from checkout_desktop.domain.qr import QrPhase
from checkout_desktop.domain.timestamps import utc_now
from checkout_desktop.ui.formatting import format_money
from checkout_desktop.ui.qr_panel import QrView, countdown_text, qr_pixmap

logger = logging.getLogger(__name__)

DISPLAY_QR_SIDE = 360
SHARED_QR_SIDE = 240
"""The QR's side on the shop's own screen, in the small window beside the shop's."""
SHARED_WIDTH = 360
SHARED_HEIGHT = 470
SHARED_BOTTOM_MARGIN = 90
"""Kept clear below the small window on the shop's screen: the shop window's buttons and its
status line."""


@dataclass(frozen=True)
class CustomerView:
    """What the customer sees now."""

    stage: str
    """idle | entering | card | charging | qr | paid | not_paid"""
    amount: int | None = None
    qr: QrView | None = None


IDLE = CustomerView("idle")


def screen_named(name: str | None) -> QScreen | None:
    """The screen of that name, or the last one (a second monitor is usually added last)."""
    screens = QGuiApplication.screens()
    if not screens:
        return None
    for screen in screens:
        if name is not None and screen.name() == name:
            return screen
    return screens[-1]


class CustomerDisplay(QWidget):
    """The customer's window: no buttons, no input; it only follows the shop's screen."""

    def __init__(self, *, shop_name: str, screen_name: str | None = None) -> None:
        super().__init__(None, Qt.WindowType.Window | Qt.WindowType.WindowDoesNotAcceptFocus)
        self.setObjectName("customerDisplay")
        self.setWindowTitle(self.tr("Customer display"))
        self.setAttribute(Qt.WidgetAttribute.WA_ShowWithoutActivating, True)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.setStyleSheet("QWidget#customerDisplay { background: #ffffff; }")
        self.screen_name = screen_name
        self.view: CustomerView = IDLE
        self.shop = QLabel(shop_name, self)
        self.shop.setObjectName("displayShop")
        self.amount = QLabel(self)
        self.amount.setObjectName("displayAmount")
        self.message = QLabel(self)
        self.message.setObjectName("displayMessage")
        self.image = QLabel(self)
        self.image.setObjectName("displayQr")
        self._qr_side = DISPLAY_QR_SIDE
        self.image.setFixedSize(DISPLAY_QR_SIDE, DISPLAY_QR_SIDE)
        self.countdown = QLabel(self)
        self.countdown.setObjectName("displayCountdown")
        for label, scale, bold in (
            (self.shop, 1.6, True),
            (self.amount, 3.0, True),
            (self.message, 2.0, True),
            (self.countdown, 1.3, False),
        ):
            font = label.font()
            font.setPointSizeF(font.pointSizeF() * scale)
            font.setBold(bold)
            label.setFont(font)
            label.setAlignment(Qt.AlignmentFlag.AlignCenter)
            label.setWordWrap(True)
        self.image.setAlignment(Qt.AlignmentFlag.AlignCenter)
        layout = QVBoxLayout(self)
        layout.addWidget(self.shop)
        layout.addStretch(1)
        layout.addWidget(self.amount)
        layout.addWidget(self.image, 0, Qt.AlignmentFlag.AlignHCenter)
        layout.addWidget(self.message)
        layout.addWidget(self.countdown)
        layout.addStretch(1)
        self._qr_shown: str | None = None
        self._timer = QTimer(self)
        self._timer.setInterval(1000)
        self._timer.timeout.connect(self._tick)
        app = QGuiApplication.instance()
        if isinstance(app, QGuiApplication):
            app.screenRemoved.connect(self._screen_removed)
        self.show_view(IDLE)

    # -- placement --------------------------------------------------------------------------

    def place(self) -> None:
        """Open on the chosen screen: full screen on a second monitor; on the shop's own screen
        a small window kept on top in its bottom-right corner (a window created before the
        shop's maximised one would otherwise open behind it, and the customer never sees it)."""
        target = screen_named(self.screen_name)
        if target is None:
            return
        primary = QGuiApplication.primaryScreen()
        geometry = target.availableGeometry()
        handle = self.windowHandle()
        if handle is not None:
            handle.setScreen(target)
        if target is not primary and len(QGuiApplication.screens()) > 1:
            self._share_screen(False)
            self.setGeometry(geometry)
            self.showFullScreen()
        else:
            self._share_screen(True)
            width = min(SHARED_WIDTH, geometry.width() // 3)
            height = min(SHARED_HEIGHT, geometry.height())
            bottom = max(geometry.y() + height, geometry.bottom() + 1 - SHARED_BOTTOM_MARGIN)
            self.setGeometry(
                geometry.x() + geometry.width() - width, bottom - height, width, height
            )
            self.showNormal()
            self.raise_()

    def _share_screen(self, shared: bool) -> None:
        """Kept on top with a smaller QR on the shop's own screen; a plain window on its own."""
        on_top = bool(self.windowFlags() & Qt.WindowType.WindowStaysOnTopHint)
        if on_top != shared:
            # Changing a window's flags hides it; `place` shows it again.
            self.setWindowFlag(Qt.WindowType.WindowStaysOnTopHint, shared)
        side = SHARED_QR_SIDE if shared else DISPLAY_QR_SIDE
        if side != self._qr_side:
            self._qr_side = side
            self.image.setFixedSize(side, side)
            self._qr_shown = None  # drawn again at its new size
            self.show_view(self.view)

    def _screen_removed(self, screen: QScreen) -> None:
        # The monitor it was on is gone: move to a screen that is left (Qt would otherwise leave
        # the window on a screen that no longer exists).
        if not self.isVisible():
            return
        current = self.screen()
        if current is not None and current is not screen:
            return
        logger.info("the customer display's screen was removed; moving it")
        self.place()

    # -- painting ---------------------------------------------------------------------------

    def set_shop_name(self, name: str) -> None:
        self.shop.setText(name)

    def show_view(self, view: CustomerView) -> None:
        self.view = view
        stage = view.stage
        self.amount.setText("" if view.amount is None else format_money(view.amount))
        qr = view.qr if stage == "qr" else None
        if qr is None:
            self.image.clear()
            self.image.hide()
            self._qr_shown = None
            self.countdown.clear()
        else:
            if self._qr_shown != qr.merchant_charge_id:
                pixmap = qr_pixmap(qr.image, qr.code, self._qr_side)
                if pixmap is not None:
                    self.image.setPixmap(pixmap)
                self._qr_shown = qr.merchant_charge_id
            self.image.setVisible(qr.phase == QrPhase.AWAITING)
        messages = {
            "idle": self.tr("Welcome"),
            "entering": "",
            "card": self.tr("Insert or type your card on the shop's terminal"),
            "charging": self.tr("Processing…"),
            "paid": self.tr("Paid — thank you!"),
            "not_paid": self.tr("Not paid"),
        }
        if qr is not None:
            if qr.phase == QrPhase.AWAITING:
                text = self.tr("Scan the QR to pay")
            elif qr.phase == QrPhase.EXPIRED:
                text = self.tr("The QR expired")
            elif qr.phase == QrPhase.CANCELED:
                text = self.tr("The QR was cancelled")
            elif qr.phase in (QrPhase.PAID, QrPhase.PARTIALLY_REFUNDED, QrPhase.REFUNDED):
                text = self.tr("Paid — thank you!")
            else:
                text = self.tr("Not paid")
        else:
            text = messages.get(stage, "")
        self.message.setText(text)
        colour = "#1b6e20" if text == self.tr("Paid — thank you!") else "#202020"
        self.message.setStyleSheet(f"color: {colour};")
        if qr is not None and qr.phase == QrPhase.AWAITING and not self._timer.isActive():
            self._timer.start()
        self._tick()

    def _tick(self) -> None:
        qr = self.view.qr if self.view.stage == "qr" else None
        if qr is None or qr.phase != QrPhase.AWAITING:
            self.countdown.clear()
            self._timer.stop()
            return
        self.countdown.setText(countdown_text(qr.seconds_left(utc_now())))


__all__ = ["IDLE", "CustomerDisplay", "CustomerView", "screen_named"]
