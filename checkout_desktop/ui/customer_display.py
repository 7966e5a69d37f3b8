"""The customer-facing display: a second window, without controls, that follows the sale live.

It shows the shop's name and the sale's amount; the QR while a wallet or PIX charge waits; a
card's amount while the card is keyed; "Paid — thank you!" once paid. It is for a screen facing
the customer: it opens full screen on a screen other than the shop's (the one chosen in
Settings, or the last one), and never on the shop's own screen, where it would cover the clerk's
controls (with one monitor the customer scans the QR on the shop's screen, in the QR panel). It
opens by itself when a second monitor is plugged in while the terminal runs and goes when that
monitor is unplugged. Only Settings (or the terminal closing) closes it: a ✕ or Alt+F4 on it is
ignored, and hidden some other way it is shown again at the next view. It never takes the shop's
focus. The charge screen says what to show (`CustomerView`); this window only paints.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from PySide6.QtCore import QEvent, Qt, QTimer
from PySide6.QtGui import QCloseEvent, QGuiApplication, QScreen
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from checkout_desktop.domain.qr import QrPhase
from checkout_desktop.domain.timestamps import utc_now
from checkout_desktop.ui.formatting import format_money
from checkout_desktop.ui.qr_panel import QrView, countdown_text, qr_pixmap

logger = logging.getLogger(__name__)

DISPLAY_QR_SIDE = 360


@dataclass(frozen=True)
class CustomerView:
    """What the customer sees now."""

    stage: str
    """idle | entering | card | charging | qr | paid | not_paid"""
    amount: int | None = None
    qr: QrView | None = None


IDLE = CustomerView("idle")


def customer_screen(name: str | None, shop: QScreen | None) -> QScreen | None:
    """The screen the display opens on: the one of that name, or else the last one, but never
    the shop's own screen (`shop`); None when there is no other screen."""
    others = [screen for screen in QGuiApplication.screens() if screen is not shop]
    if not others:
        return None
    for screen in others:
        if name is not None and screen.name() == name:
            return screen
    return others[-1]


FULL_SCREEN_RETRIES = 3
"""Per placement: how often a full screen the window manager dropped is put back."""


class CustomerDisplay(QWidget):
    """The customer's window: no buttons, no input; it only follows the shop's screen."""

    def __init__(
        self,
        *,
        shop_name: str,
        screen_name: str | None = None,
        shop_window: QWidget | None = None,
    ) -> None:
        super().__init__(None, Qt.WindowType.Window | Qt.WindowType.WindowDoesNotAcceptFocus)
        self.setObjectName("customerDisplay")
        self.setWindowTitle(self.tr("Customer display"))
        self.setAttribute(Qt.WidgetAttribute.WA_ShowWithoutActivating, True)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.setStyleSheet("QWidget#customerDisplay { background: #ffffff; }")
        self.screen_name = screen_name
        self.shop_window = shop_window
        """The shop's window: the display never opens on its screen."""
        self.opened = False
        """Placed once (Settings want it): from then on it follows the screens and comes back
        when hidden, until closed by the program."""
        self.view: CustomerView = IDLE
        self.shop = QLabel(shop_name, self)
        self.shop.setObjectName("displayShop")
        self.amount = QLabel(self)
        self.amount.setObjectName("displayAmount")
        self.message = QLabel(self)
        self.message.setObjectName("displayMessage")
        self.image = QLabel(self)
        self.image.setObjectName("displayQr")
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
        self._full_screen_again = 0
        """How many more times a full screen the window system took away is put back (a
        window manager that never allows it is not fought forever)."""
        self._timer = QTimer(self)
        self._timer.setInterval(1000)
        self._timer.timeout.connect(self._tick)
        app = QGuiApplication.instance()
        if isinstance(app, QGuiApplication):
            app.screenAdded.connect(self._screens_changed)
            app.screenRemoved.connect(self._screens_changed)
        self.show_view(IDLE)

    # -- placement --------------------------------------------------------------------------

    def place(self) -> None:
        """Open full screen on the customer's screen, or stay closed when the only screen is
        the shop's own (a window there would cover the clerk's controls)."""
        self.opened = True
        target = customer_screen(self.screen_name, self._shop_screen())
        if target is None:
            if self.isVisible():
                logger.info("no screen for the customer display beside the shop's; hidden")
                self.hide()
            return
        if (
            self.isVisible()
            and self.isFullScreen()
            and not self.isMinimized()
            and self.screen() is target
        ):
            return
        if not self.isVisible():
            self.winId()  # the native window, so that it opens on its screen
        handle = self.windowHandle()
        if handle is not None:
            handle.setScreen(target)
        self.setGeometry(target.geometry())
        self._full_screen_again = FULL_SCREEN_RETRIES
        self.showFullScreen()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if (
            event.type() == QEvent.Type.WindowStateChange
            and self.opened
            and self.isVisible()
            and not self.isFullScreen()
            and not self.isMinimized()
            and self._full_screen_again > 0
        ):
            # A window manager may map a window shown again before it takes the full-screen
            # state, and drop that state: the customer would see a framed window with a ✕.
            self._full_screen_again -= 1
            QTimer.singleShot(0, self, self._back_to_full_screen)

    def _back_to_full_screen(self) -> None:
        if self.opened and self.isVisible() and not self.isFullScreen():
            logger.info("the customer display lost its full screen; put back")
            self.showFullScreen()

    def _shop_screen(self) -> QScreen | None:
        shop = self.shop_window
        if shop is not None:
            return shop.screen()
        return QGuiApplication.primaryScreen()

    def _screens_changed(self, _screen: QScreen) -> None:
        # A monitor plugged in or unplugged: placed again once Qt has moved the windows of a
        # screen that went (the shop's own may have moved to another).
        if self.opened:
            QTimer.singleShot(0, self, self._replace)

    def _replace(self) -> None:
        if self.opened:
            logger.info("screens changed; placing the customer display again")
            self.place()

    def closeEvent(self, event: QCloseEvent) -> None:
        if event.spontaneous():
            # A ✕ or Alt+F4 from the window system: the customer's window stays; only
            # Settings (or the terminal closing) close it, from the program.
            logger.info("a close of the customer display from its window was ignored")
            event.ignore()
            return
        self.opened = False
        super().closeEvent(event)

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
                pixmap = qr_pixmap(qr.image, qr.code, DISPLAY_QR_SIDE)
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
        if self.opened and (not self.isVisible() or self.isMinimized()):
            # Hidden or minimised some other way: shown again where it belongs (or kept
            # closed when the only screen left is the shop's).
            self.place()

    def _tick(self) -> None:
        qr = self.view.qr if self.view.stage == "qr" else None
        if qr is None or qr.phase != QrPhase.AWAITING:
            self.countdown.clear()
            self._timer.stop()
            return
        self.countdown.setText(countdown_text(qr.seconds_left(utc_now())))


__all__ = ["IDLE", "CustomerDisplay", "CustomerView", "customer_screen"]
