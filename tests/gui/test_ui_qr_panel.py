"""The QR panel and the customer display as widgets: images in every form the sources use, the
phases in plain words (pt-BR too), the countdown, and a display that survives its screen going."""

from __future__ import annotations

import logging

import pytest
from PySide6.QtWidgets import QAbstractButton, QLineEdit
from pytestqt.qtbot import QtBot

from checkout_desktop.domain.enums import ChargeStatus, PaymentType, TransactionStatus
from checkout_desktop.domain.qr import QrPhase
from checkout_desktop.domain.records import ChargeRecord
from checkout_desktop.sandbox.qr import qr_image
from checkout_desktop.ui.customer_display import CustomerDisplay, CustomerView
from checkout_desktop.ui.qr_panel import QrPanel, QrView, qr_pixmap, qr_png_bytes
from tests.gui.record_support import one_transaction_record

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
    return one_transaction_record(
        status=ChargeStatus(status),
        txn_status=TransactionStatus(txn_status),
        kind=kind,
        qr_code=CODE,
        qr_image=image,
        expires_in_s=expires_in_s,
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


def test_the_display_follows_the_sale(qtbot: QtBot) -> None:
    display = CustomerDisplay(shop_name="Loja Teste")
    qtbot.addWidget(display)
    assert display.message.text() == "Welcome"
    display.show_view(CustomerView("card", 2590))
    assert "card" in display.message.text()
    waiting = QrView.of(record(image=qr_image(CODE, data_uri=True)))
    assert waiting is not None
    display.show_view(CustomerView("qr", 2590, waiting))
    assert display.message.text() == "Scan the QR to pay"
    assert not display.image.isHidden() and not display.image.pixmap().isNull()
    assert display.image.pixmap().width() == display.image.width()
    assert display.countdown.text().startswith("Expires in ")
    paid = QrView.of(record(status="PAID", txn_status="PAID"))
    display.show_view(CustomerView("qr", 2590, paid))
    assert display.message.text() == "Paid — thank you!"
    assert display.image.isHidden()
    # No controls: nothing on it can be pressed or typed into.
    assert display.findChildren(QAbstractButton) == []
    assert display.findChildren(QLineEdit) == []


def test_on_the_shops_own_screen_the_display_is_not_opened(qtbot: QtBot) -> None:
    # One monitor (the offscreen platform has one): a window there would cover the clerk's
    # controls, so none is opened, not at the next view, nor when screens change; the customer
    # scans the QR on the shop's screen. (Second screens: test_customer_display_screens.py.)
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QGuiApplication
    from PySide6.QtWidgets import QWidget

    shop = QWidget()
    qtbot.addWidget(shop)
    display = CustomerDisplay(shop_name="Loja Teste", shop_window=shop)
    qtbot.addWidget(display)
    display.place()
    assert not display.isVisible()
    waiting = QrView.of(record(image=qr_image(CODE, data_uri=True)))
    display.show_view(CustomerView("qr", 2590, waiting))
    assert not display.isVisible()
    screen = QGuiApplication.primaryScreen()
    display._screens_changed(screen)
    qtbot.wait(50)
    assert not display.isVisible()
    assert display.message.text() == "Scan the QR to pay"  # painted, ready for a second screen
    assert display.windowFlags() & Qt.WindowType.WindowDoesNotAcceptFocus
    assert not display.windowFlags() & Qt.WindowType.WindowStaysOnTopHint


def test_closed_by_the_program_the_display_stays_closed(qtbot: QtBot) -> None:
    # Settings turning it off (or the terminal closing) close it from the program: that close
    # is obeyed, and the next view does not bring it back.
    display = CustomerDisplay(shop_name="Loja Teste")
    qtbot.addWidget(display)
    display.place()
    assert display.close()
    display.show_view(CustomerView("card", 2590))
    assert not display.isVisible()
    assert not display.opened


def test_settings_say_where_the_display_opens(qtbot: QtBot) -> None:
    from checkout_desktop.settings import QrSettings
    from checkout_desktop.ui.qr_settings import QrSettingsBox

    box = QrSettingsBox()
    qtbot.addWidget(box)
    box.load(QrSettings(customer_display=True))
    box.show()
    assert box.screens_note.isVisible()
    note = box.screens_note.text()
    assert "second screen" in note and "full screen" in note
    assert "scans the QR on the shop's screen" in note
    assert "small window" not in note
    box.display.setChecked(False)
    assert not box.screens_note.isVisible()


def test_the_pix_expiry_is_set_in_minutes_and_an_odd_kept_value_survives(qtbot: QtBot) -> None:
    from checkout_desktop.settings import QrSettings
    from checkout_desktop.ui.qr_settings import QrSettingsBox
    from tests.gui.pseudo import in_portuguese

    with in_portuguese():
        box = QrSettingsBox()
        qtbot.addWidget(box)
        box.load(QrSettings())
        # A shop owner reads "10 min", not "600 s"; the service's limits in the same unit.
        assert box.pix_expiration.text() == "10 min"
        assert (box.pix_expiration.minimum(), box.pix_expiration.maximum()) == (10, 1440)
        box.pix_expiration.setValue(15)
        assert box.collect(QrSettings()).pix_expiration_s == 900
        # A value kept in seconds that is no whole number of minutes (an edited file) is
        # shown rounded and kept as it was unless the owner changes it.
        box.load(QrSettings(pix_expiration_s=650))
        assert box.pix_expiration.text() == "11 min"
        assert box.collect(QrSettings()).pix_expiration_s == 650
        box.pix_expiration.setValue(12)
        assert box.collect(QrSettings()).pix_expiration_s == 720
