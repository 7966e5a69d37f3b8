"""The QR panel: a wallet or PIX QR waiting for the customer, its code, amount and countdown.

It shows the QR image the service sent (`qrCodeBase64`: raw base64 PNG or a `data:` URI, as the
sources differ; drawn from the code when neither decodes), the copy-and-paste code with a Copy
button, the amount and the time left, and where the QR stands: awaiting payment, paid, expired
or cancelled. The clerk may cancel it, ask for a new QR once it expired, or (in the sandbox)
play the customer paying it. The panel holds no business logic: the charge screen acts on its
signals, and it is told the charge's record whenever it changes.
"""

from __future__ import annotations

import base64
import binascii
import io
import logging
from dataclasses import dataclass
from datetime import datetime

from PySide6.QtCore import QCoreApplication, Qt, QTimer, Signal
from PySide6.QtGui import QGuiApplication, QPixmap
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from checkout_desktop.domain.enums import PaymentType
from checkout_desktop.domain.qr import QrPhase, qr_phase, qr_transaction
from checkout_desktop.domain.records import ChargeRecord
from checkout_desktop.domain.timestamps import utc_now
from checkout_desktop.ui.formatting import format_money

logger = logging.getLogger(__name__)

QR_SIDE = 240
"""How many pixels the QR image takes on the shop's screen."""


def qr_png_bytes(image: str | None) -> bytes | None:
    """The PNG bytes of a `qrCodeBase64` (raw base64 or a data: URI), or None when it is not one."""
    if not image:
        return None
    text = image.strip()
    if text.startswith("data:"):
        header, _, text = text.partition(",")
        if ";base64" not in header:
            return None
    try:
        raw = base64.b64decode("".join(text.split()), validate=True)
    except (binascii.Error, ValueError):
        return None
    return raw if raw.startswith(b"\x89PNG\r\n\x1a\n") else None


def qr_pixmap(image: str | None, code: str | None, side: int = QR_SIDE) -> QPixmap | None:
    """The QR to show: the service's image, else one drawn from its code; None when neither."""
    pixmap = QPixmap()
    raw = qr_png_bytes(image)
    if raw is None or not pixmap.loadFromData(raw, "PNG"):
        if not code:
            return None
        import segno

        buffer = io.BytesIO()
        segno.make(code, error="m", micro=False).save(buffer, kind="png", scale=6, border=2)
        if not pixmap.loadFromData(buffer.getvalue(), "PNG"):
            return None
    # Nearest-neighbour scaling keeps the modules sharp enough to scan.
    return pixmap.scaled(
        side,
        side,
        Qt.AspectRatioMode.KeepAspectRatio,
        Qt.TransformationMode.FastTransformation,
    )


@dataclass(frozen=True)
class QrView:
    """What a screen shows of a QR charge (the shop's panel and the customer's display)."""

    merchant_charge_id: str
    kind: PaymentType | None
    phase: QrPhase
    amount: int | None
    code: str | None
    image: str | None
    expires_at: datetime | None
    end_to_end_id: str | None

    @classmethod
    def of(cls, record: ChargeRecord) -> QrView | None:
        phase = qr_phase(record.state)
        txn = qr_transaction(record.state)
        if phase is None or txn is None:
            return None
        return cls(
            merchant_charge_id=record.merchant_charge_id,
            kind=txn.payment_type,
            phase=phase,
            amount=record.amount if record.amount is not None else txn.amount,
            code=txn.qr_code,
            image=txn.qr_image,
            expires_at=txn.expires_at,
            end_to_end_id=txn.end_to_end_id,
        )

    def seconds_left(self, now: datetime) -> int | None:
        if self.expires_at is None:
            return None
        return max(0, int((self.expires_at - now).total_seconds()))


def countdown_text(seconds: int | None) -> str:
    if seconds is None:
        return ""
    minutes, rest = divmod(seconds, 60)
    return QCoreApplication.translate("QrPanel", "Expires in {time}").format(
        time=f"{minutes:d}:{rest:02d}"
    )


def phase_text(phase: QrPhase) -> str:
    texts = {
        QrPhase.AWAITING: QCoreApplication.translate("QrPanel", "Awaiting payment…"),
        QrPhase.PAID: QCoreApplication.translate("QrPanel", "Paid"),
        QrPhase.EXPIRED: QCoreApplication.translate("QrPanel", "Expired"),
        QrPhase.CANCELED: QCoreApplication.translate("QrPanel", "Cancelled"),
        QrPhase.PARTIALLY_REFUNDED: QCoreApplication.translate("QrPanel", "Partially refunded"),
        QrPhase.REFUNDED: QCoreApplication.translate("QrPanel", "Refunded"),
        QrPhase.FAILED: QCoreApplication.translate("QrPanel", "Not paid: refused"),
    }
    return texts[phase]


_PHASE_COLOURS = {
    QrPhase.AWAITING: "#7a5c00",
    QrPhase.PAID: "#1b6e20",
    QrPhase.EXPIRED: "#b3261e",
    QrPhase.CANCELED: "#b3261e",
    QrPhase.FAILED: "#b3261e",
}


_IMAGE_STYLE = "background: white;"
_COVER_STYLE = "background: #eeeeee; color: #b3261e; font-size: 20pt; font-weight: bold;"
"""An ended QR's place: its phase in large letters where the QR was."""


def kind_text(kind: PaymentType | None) -> str:
    if kind == PaymentType.PIX:
        return QCoreApplication.translate("QrPanel", "PIX")
    return QCoreApplication.translate("QrPanel", "PicPay")


class QrPanel(QWidget):
    """A QR charge on the shop's screen: image, code, amount, countdown and where it stands."""

    cancel_requested = Signal(str)
    """merchantChargeId of the QR the clerk wants cancelled."""
    simulate_requested = Signal(str)
    """merchantChargeId of the QR to pay as the sandbox's simulated customer."""
    new_qr_requested = Signal()
    back_to_sale_requested = Signal()
    """Back to the sale's form (its amount and customer kept), to take a card or cash."""
    cancel_ended = Signal(str)
    """merchantChargeId of a QR whose cancel request has its answer (whatever it was)."""
    new_sale_requested = Signal()
    receipt_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.view: QrView | None = None
        self._pixmap: QPixmap | None = None
        """The QR drawn while it may be paid (an ended one is covered by its phase)."""
        self._clock = utc_now
        self.title = QLabel(self)
        self.title.setObjectName("qrTitle")
        title_font = self.title.font()
        title_font.setPointSizeF(title_font.pointSizeF() * 1.3)
        title_font.setBold(True)
        self.title.setFont(title_font)
        self.image = QLabel(self)
        self.image.setObjectName("qrImage")
        self.image.setFixedSize(QR_SIDE, QR_SIDE)
        self.image.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.image.setWordWrap(True)
        self.image.setStyleSheet(_IMAGE_STYLE)
        self.amount = QLabel(self)
        self.amount.setObjectName("qrAmount")
        amount_font = self.amount.font()
        amount_font.setPointSizeF(amount_font.pointSizeF() * 1.6)
        amount_font.setBold(True)
        self.amount.setFont(amount_font)
        self.status = QLabel(self)
        self.status.setObjectName("qrStatus")
        status_font = self.status.font()
        status_font.setPointSizeF(status_font.pointSizeF() * 1.4)
        status_font.setBold(True)
        self.status.setFont(status_font)
        self.countdown = QLabel(self)
        self.countdown.setObjectName("qrCountdown")
        self.detail = QLabel(self)
        self.detail.setObjectName("qrDetail")
        self.detail.setWordWrap(True)
        self.detail.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.code = QLineEdit(self)
        self.code.setObjectName("qrCode")
        self.code.setReadOnly(True)
        self.code_label = QLabel(self.tr("Copy and paste code"), self)
        self.copy_button = QPushButton(self.tr("C&opy"), self)
        self.copy_button.setObjectName("qrCopy")
        # Not Alt+C: the Charge tab takes it.
        self.cancel_button = QPushButton(self.tr("Cancel Q&R"), self)
        self.cancel_button.setObjectName("qrCancel")
        self.simulate_button = QPushButton(self.tr("Simulate the customer's payment"), self)
        self.simulate_button.setObjectName("qrSimulate")
        self.simulate_button.hide()
        self.new_qr_button = QPushButton(self.tr("New &QR"), self)
        self.new_qr_button.setObjectName("qrNew")
        self.back_button = QPushButton(self.tr("&Back to the sale"), self)
        self.back_button.setObjectName("qrBackToSale")
        self.receipt_button = QPushButton(self.tr("&Receipt"), self)
        self.receipt_button.setObjectName("qrReceipt")
        self.new_sale_button = QPushButton(self.tr("&New sale (F2)"), self)
        self.new_sale_button.setObjectName("qrNewSale")
        self.simulation_available = False
        """The sandbox plays the customer (training): the simulate button may show."""

        code_row = QHBoxLayout()
        code_row.addWidget(self.code, 1)
        code_row.addWidget(self.copy_button)
        info = QVBoxLayout()
        info.addWidget(self.title)
        info.addWidget(self.amount)
        info.addWidget(self.status)
        info.addWidget(self.countdown)
        info.addSpacing(8)
        info.addWidget(self.code_label)
        info.addLayout(code_row)
        info.addWidget(self.detail)
        info.addStretch(1)
        body = QHBoxLayout()
        body.addWidget(self.image, 0, Qt.AlignmentFlag.AlignTop)
        body.addLayout(info, 1)
        buttons = QHBoxLayout()
        for button in (
            self.cancel_button,
            self.simulate_button,
            self.new_qr_button,
            self.back_button,
            self.receipt_button,
        ):
            buttons.addWidget(button)
        buttons.addStretch(1)
        buttons.addWidget(self.new_sale_button)
        layout = QVBoxLayout(self)
        layout.addLayout(body, 1)
        layout.addLayout(buttons)

        self._timer = QTimer(self)
        self._timer.setInterval(1000)
        self._timer.timeout.connect(self._tick)
        self.copy_button.clicked.connect(self.copy_code)
        self.cancel_button.clicked.connect(self._cancel)
        self.simulate_button.clicked.connect(self._simulate)
        self.new_qr_button.clicked.connect(self.new_qr_requested)
        self.back_button.clicked.connect(self.back_to_sale_requested)
        self.new_sale_button.clicked.connect(self.new_sale_requested)
        self.receipt_button.clicked.connect(self.receipt_requested)
        self.cancelling = False
        self.cancel_offered = True
        """The service cancels an unpaid QR; False once it refused to (the QR only expires)."""

    # -- showing ----------------------------------------------------------------------------

    def show_record(self, record: ChargeRecord) -> QrView | None:
        """Show a QR charge as it stands now; None (nothing shown) when it is not a QR charge."""
        view = QrView.of(record)
        if view is None:
            return None
        changed_charge = (
            self.view is None or self.view.merchant_charge_id != view.merchant_charge_id
        )
        self.view = view
        if changed_charge:
            self.cancelling = False
            self._pixmap = qr_pixmap(view.image, view.code)
        self.title.setText(
            self.tr("{kind} QR · charge {id}").format(
                kind=kind_text(view.kind), id=view.merchant_charge_id
            )
        )
        self.amount.setText(format_money(view.amount))
        self.code.setText(view.code or "")
        self.code.setCursorPosition(0)
        self._render()
        return view

    def _render(self) -> None:
        view = self.view
        if view is None:
            return
        phase = view.phase
        self.status.setText(phase_text(phase))
        colour = _PHASE_COLOURS.get(phase)
        self.status.setStyleSheet("" if colour is None else f"color: {colour};")
        waiting = phase == QrPhase.AWAITING
        ended = phase in (QrPhase.EXPIRED, QrPhase.CANCELED, QrPhase.FAILED)
        self._draw(phase)
        self.image.setEnabled(waiting)
        self.code.setEnabled(waiting)
        self.copy_button.setEnabled(waiting and bool(view.code))
        self.cancel_button.setVisible(waiting and self.cancel_offered)
        self.cancel_button.setEnabled(waiting and not self.cancelling)
        self.simulate_button.setVisible(waiting and self.simulation_available)
        self.new_qr_button.setVisible(ended)
        self.back_button.setVisible(ended)
        self.receipt_button.setVisible(
            phase in (QrPhase.PAID, QrPhase.PARTIALLY_REFUNDED, QrPhase.REFUNDED)
        )
        if phase == QrPhase.PAID and view.end_to_end_id:
            self.detail.setText(self.tr("End-to-end id {id}").format(id=view.end_to_end_id))
        elif phase == QrPhase.EXPIRED:
            self.detail.setText(
                self.tr(
                    "The QR expired unpaid. The sale is free: make a new QR, or go back to the "
                    "sale to take a card (Ctrl+1) or cash."
                )
            )
        elif phase == QrPhase.CANCELED:
            self.detail.setText(
                self.tr(
                    "The QR was cancelled unpaid. The sale is free: make a new QR, or go back to "
                    "the sale to take a card (Ctrl+1) or cash."
                )
            )
        elif waiting:
            how = (
                self.tr("Show the QR to the customer; the screen changes when the payment lands.")
                if view.kind != PaymentType.PIX
                else self.tr(
                    "The customer scans the QR or pastes the code in their bank's app; the screen "
                    "changes when the payment lands."
                )
            )
            if not self.cancel_offered:
                how += " " + self.no_cancel_text()
            self.detail.setText(how)
        else:
            self.detail.clear()
        if waiting:
            if not self._timer.isActive():
                self._timer.start()
        else:
            self._timer.stop()
        self._tick()

    def _draw(self, phase: QrPhase) -> None:
        """The QR while it may be paid (and once paid); an ended one is covered by its phase,
        so nobody scans a QR that can no longer be paid."""
        if phase in (QrPhase.EXPIRED, QrPhase.CANCELED, QrPhase.FAILED):
            self.image.clear()
            self.image.setStyleSheet(_COVER_STYLE)
            self.image.setText(phase_text(phase))
            return
        self.image.setStyleSheet(_IMAGE_STYLE)
        if self._pixmap is None:
            self.image.clear()
            self.image.setText(self.tr("No QR image"))
        else:
            self.image.setPixmap(self._pixmap)

    def _tick(self) -> None:
        view = self.view
        if view is None or view.phase != QrPhase.AWAITING:
            self.countdown.clear()
            return
        left = view.seconds_left(self._clock())
        if left == 0:
            self.countdown.setText(self.tr("Expiring — asking the service…"))
        else:
            self.countdown.setText(countdown_text(left))

    def set_cancel_offered(self, offered: bool) -> None:
        """Whether the service cancels an unpaid QR (learned from its refusal)."""
        self.cancel_offered = offered
        self._render()

    def no_cancel_text(self) -> str:
        return self.tr(
            "This service does not cancel an unpaid QR: it expires by itself. If the customer "
            "pays before that, refund it from the History tab."
        )

    def set_note(self, text: str) -> None:
        """A line from the charge screen (a cancel refused, a simulation that failed)."""
        self.detail.setText(text)

    # -- actions ----------------------------------------------------------------------------

    def copy_code(self) -> None:
        if self.view is not None and self.view.code:
            QGuiApplication.clipboard().setText(self.view.code)
            self.copy_button.setText(self.tr("Copied"))
            # Bound to the panel: the call is dropped if the panel is gone by then.
            QTimer.singleShot(1500, self, self._copy_label_back)

    def _copy_label_back(self) -> None:
        self.copy_button.setText(self.tr("C&opy"))

    def _cancel(self) -> None:
        if self.view is not None and self.view.phase == QrPhase.AWAITING and not self.cancelling:
            self.cancelling = True
            self.cancel_button.setEnabled(False)
            self.cancel_requested.emit(self.view.merchant_charge_id)

    def request_cancel(self) -> None:
        """Cancel the QR on screen, as its Cancel QR button does."""
        self._cancel()

    def cancel_finished(self) -> None:
        self.cancelling = False
        self._render()
        if self.view is not None:
            self.cancel_ended.emit(self.view.merchant_charge_id)

    def _simulate(self) -> None:
        if self.view is not None and self.view.phase == QrPhase.AWAITING:
            self.simulate_requested.emit(self.view.merchant_charge_id)

    def clear(self) -> None:
        self.view = None
        self._pixmap = None
        self._timer.stop()
        self.image.clear()
        self.code.clear()
        self.countdown.clear()
        self.detail.clear()
        self.status.clear()


__all__ = [
    "QR_SIDE",
    "QrPanel",
    "QrView",
    "countdown_text",
    "kind_text",
    "phase_text",
    "qr_pixmap",
    "qr_png_bytes",
]
