"""The QR panel and the customer display as widgets: images in every form the sources use, the
phases in plain words (pt-BR too), the countdown, and a display that survives its screen going."""

from __future__ import annotations

import logging
from datetime import timedelta

import pytest
from PySide6.QtWidgets import QAbstractButton, QLineEdit
from pytestqt.qtbot import QtBot

from checkout_desktop.domain.enums import ChargeStatus, PaymentType, TransactionStatus
from checkout_desktop.domain.qr import QrPhase
from checkout_desktop.domain.records import ChargeRecord
from checkout_desktop.domain.state import ChargeState, TransactionState
from checkout_desktop.domain.timestamps import utc_now
from checkout_desktop.sandbox.qr import qr_image
from checkout_desktop.ui.customer_display import CustomerDisplay, CustomerView
from checkout_desktop.ui.qr_panel import QrPanel, QrView, qr_pixmap, qr_png_bytes

logger = logging.getLogger(__name__)

CODE = "00020101021226800014br.gov.bcb.pix2558pix.sandbox.invalid/qr/v2/abc6304ABCD"


def record(
    *,
    status: str = "PRE_AUTHORIZED",
    txn_status: str = "PENDING",
    image: str | None = None,
    kind: PaymentType = PaymentType.PIX,
    expires_in_s: float = 300,
) -> ChargeRecord:
    now = utc_now()
    state = ChargeState(
        merchant_charge_id="sale00000001-01",
        status=ChargeStatus(status),
        amount=2590,
        refunded_amount=0,
        transactions=(
            TransactionState(
                key="tx-1",
                payment_type=kind,
                status=TransactionStatus(txn_status),
                amount=2590,
                created_at=now,
                expires_at=now + timedelta(seconds=expires_in_s),
                qr_code=CODE,
                qr_image=image,
            ),
        ),
    )
    return ChargeRecord(
        id=1,
        merchant_charge_id=state.merchant_charge_id,
        charge_id="ch-1",
        sale_id="sale00000001",
        status=state.status,
        amount=2590,
        refunded_amount=0,
        three_ds_status=None,
        state=state,
        created_at=now,
        updated_at=now,
        last_webhook_at=None,
        last_checked_at=None,
        checks=0,
        next_check_at=None,
        check_reason=None,
    )


@pytest.mark.parametrize("data_uri", [False, True])
def test_the_image_is_read_as_raw_base64_or_a_data_uri(qtbot: QtBot, data_uri: bool) -> None:
    image = qr_image(CODE, data_uri=data_uri)
    assert qr_png_bytes(image) is not None
    pixmap = qr_pixmap(image, None)
    assert pixmap is not None and not pixmap.isNull()


def test_an_unreadable_image_falls_back_to_the_code_and_nothing_is_nothing(qtbot: QtBot) -> None:
    assert qr_png_bytes("not base64 at all!") is None
    assert qr_png_bytes("data:image/png,plain") is None
    assert qr_png_bytes("aGVsbG8=") is None  # base64, but not a PNG
    drawn = qr_pixmap("garbage", CODE)
    assert drawn is not None and not drawn.isNull()
    assert qr_pixmap(None, None) is None


def test_the_panel_says_where_the_qr_stands(qtbot: QtBot) -> None:
    panel = QrPanel()
    qtbot.addWidget(panel)
    panel.simulation_available = True
    view = panel.show_record(record(image=qr_image(CODE, data_uri=False)))
    assert view is not None and view.phase == QrPhase.AWAITING
    assert panel.status.text() == "Awaiting payment…"
    assert panel.countdown.text().startswith("Expires in 4:") or panel.countdown.text().startswith(
        "Expires in 5:"
    )
    assert panel.code.text() == CODE
    assert not panel.cancel_button.isHidden() and not panel.simulate_button.isHidden()
    assert panel.new_qr_button.isHidden()
    cancelled: list[str] = []
    panel.cancel_requested.connect(cancelled.append)
    panel.cancel_button.click()
    panel.cancel_button.click()  # a second click while the first runs does nothing
    assert cancelled == ["sale00000001-01"]
    panel.cancel_finished()

    panel.show_record(record(status="CANCELED", txn_status="EXPIRED"))
    assert panel.status.text() == "Expired"
    assert panel.cancel_button.isHidden() and not panel.new_qr_button.isHidden()
    assert panel.countdown.text() == ""
    panel.show_record(record(status="CANCELED", txn_status="CANCELED"))
    assert panel.status.text() == "Cancelled"
    panel.show_record(record(status="AUTHORIZED", txn_status="CAPTURED", kind=PaymentType.WALLET))
    assert panel.status.text() == "Paid"
    assert not panel.receipt_button.isHidden()


def test_the_display_follows_the_sale_and_survives_its_screen_going(qtbot: QtBot) -> None:
    display = CustomerDisplay(shop_name="Loja Teste")
    qtbot.addWidget(display)
    display.place()
    assert display.isVisible()
    assert display.message.text() == "Welcome"
    display.show_view(CustomerView("card", 2590))
    assert "card" in display.message.text()
    waiting = QrView.of(record(image=qr_image(CODE, data_uri=True)))
    assert waiting is not None
    display.show_view(CustomerView("qr", 2590, waiting))
    assert display.message.text() == "Scan the QR to pay"
    assert not display.image.isHidden() and not display.image.pixmap().isNull()
    assert display.countdown.text().startswith("Expires in ")
    paid = QrView.of(record(status="PAID", txn_status="PAID"))
    display.show_view(CustomerView("qr", 2590, paid))
    assert display.message.text() == "Paid — thank you!"
    assert display.image.isHidden()
    # Its screen removed: it moves to a screen left, and keeps showing the sale.
    screen = display.screen()
    assert screen is not None
    display._screen_removed(screen)
    assert display.isVisible()
    assert display.message.text() == "Paid — thank you!"
    # No controls: nothing on it can be pressed or typed into.
    assert display.findChildren(QAbstractButton) == []
    assert display.findChildren(QLineEdit) == []


def test_on_the_shops_own_screen_the_display_stays_on_top_in_a_corner_without_focus(
    qtbot: QtBot,
) -> None:
    # One monitor (the offscreen platform has one): the display shares the shop's screen, so
    # it is kept above the shop's maximised window, small, in its corner, and never takes the
    # keyboard from the clerk.
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QGuiApplication

    display = CustomerDisplay(shop_name="Loja Teste")
    qtbot.addWidget(display)
    display.place()
    assert display.isVisible()
    flags = display.windowFlags()
    assert flags & Qt.WindowType.WindowStaysOnTopHint
    assert flags & Qt.WindowType.WindowDoesNotAcceptFocus
    screen = QGuiApplication.primaryScreen().availableGeometry()
    frame = display.geometry()
    assert screen.contains(frame)
    # A corner: the right edge, low on the screen; a third of its width at most.
    assert frame.right() == screen.right()
    assert frame.bottom() > screen.center().y()
    assert frame.width() <= screen.width() // 3 + 1
    # The QR still fits it whole.
    waiting = QrView.of(record(image=qr_image(CODE, data_uri=True)))
    assert waiting is not None
    display.show_view(CustomerView("qr", 2590, waiting))
    assert display.image.width() <= frame.width()
    assert display.image.pixmap().width() == display.image.width()


def test_settings_say_the_display_wants_a_second_screen(qtbot: QtBot) -> None:
    from checkout_desktop.settings import QrSettings
    from checkout_desktop.ui.qr_settings import QrSettingsBox

    box = QrSettingsBox()
    qtbot.addWidget(box)
    box.load(QrSettings(customer_display=True))
    box.show()
    assert box.one_screen.isVisible()
    assert "second" in box.one_screen.text()
