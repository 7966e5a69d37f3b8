"""A QR the clerk moves on from, end to end on the built-in sandbox: New sale (F2) and closing
the window ask first while a QR still waits, a QR left payable has its payment told wherever
the screen is, a later start says the QRs still waiting, an ended QR leads back to its sale,
and the keyboard walks a QR sale to Charge, never into the hidden card form."""

from __future__ import annotations

import logging

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QMainWindow, QMessageBox, QPushButton

from checkout_desktop.domain.qr import QrPhase, qr_phase
from checkout_desktop.domain.records import CARD, PIX, WALLET
from checkout_desktop.settings import Settings
from checkout_desktop.ui.elided_label import ElidedLabel
from tests.gui.pseudo import in_portuguese
from tests.gui.test_app_e2e import Shop, admin, close_window, open_window, spin_until
from tests.gui.test_qr_e2e import (
    cancel_refused,
    notifications_late,
    qr_sale,
    shop,
    simulate_payment,
)

logger = logging.getLogger(__name__)

pytest_plugins = ["tests.gui.card_fixtures"]
pytestmark = [pytest.mark.webengine, pytest.mark.slow]

__all__ = ["cancel_refused", "notifications_late", "shop"]  # the fixtures, used here by name


def f2(shop: Shop) -> None:
    window = shop.window
    # A dialog closed before leaves no window active offscreen; the clerk's window is.
    window.activateWindow()
    spin_until(lambda: QApplication.activeWindow() is window, "the window to be active")
    QTest.keyClick(window.charge_screen, Qt.Key.Key_F2)


def asked(shop: Shop, name: str) -> list[QMessageBox]:
    return [box for box in shop.window.findChildren(QMessageBox, name) if box.isVisible()]


def question(shop: Shop, name: str) -> QMessageBox:
    spin_until(lambda: bool(asked(shop, name)), f"the {name} question")
    (box,) = asked(shop, name)
    return box


def answer(box: QMessageBox, button: str) -> None:
    chosen = box.findChild(QPushButton, button)
    assert chosen is not None, [b.objectName() for b in box.findChildren(QPushButton)]
    chosen.click()
    QApplication.processEvents()
    assert not box.isVisible()


def test_f2_with_a_waiting_qr_asks_and_cancels_it_before_the_new_sale(shop: Shop) -> None:
    screen = shop.window.charge_screen
    mcid = qr_sale(shop, WALLET, 3333).merchant_charge_id
    f2(shop)
    box = question(shop, "newSaleQrWaiting")
    assert "still waiting" in box.text() and "R$" in box.text(), box.text()
    # Kept: nothing changes.
    answer(box, "keepQr")
    assert screen.stack.currentWidget() is screen.qr_panel
    assert screen.current_charge == mcid and screen.form.amount.centavos() == 3333
    f2(shop)
    answer(question(shop, "newSaleQrWaiting"), "cancelQrNewSale")
    spin_until(lambda: screen.form.amount.centavos() == 0, "the new sale")
    assert qr_phase(shop.record(mcid).state) == QrPhase.CANCELED
    assert screen.stack.currentIndex() == 0 and screen.current_charge is None


def test_a_qr_left_payable_is_announced_when_paid_and_counted_at_a_later_start(
    shop: Shop, cancel_refused: list[Settings]
) -> None:
    window = shop.window
    screen = window.charge_screen
    screen.qr_panel.set_cancel_offered(False)
    mcid = qr_sale(shop, WALLET, 3434).merchant_charge_id
    f2(shop)
    box = question(shop, "newSaleQrWaiting")
    said = box.text()
    assert "stays payable" in said and "announced" in said, said
    assert box.findChild(QPushButton, "cancelQrNewSale") is None
    answer(box, "newSaleLeaveQr")
    assert screen.form.amount.centavos() == 0 and screen.current_charge is None
    # The status bar does not claim nothing is open while the QR may still be paid.
    spin_until(
        lambda: "1 QR awaiting payment" in window.status.attempts.text(), "the QR to be counted"
    )
    # Closing the window while it waits asks first.
    window.close()
    box = question(shop, "closeQrWaiting")
    said = box.text()
    assert "1 QR" in said and "built-in sandbox stops with the terminal" in said, said
    # The service does not cancel an unpaid QR: no cancel is offered.
    assert "does not cancel an unpaid QR" in said, said
    assert box.findChild(QPushButton, "cancelQrsAndClose") is None
    answer(box, "keepWindowOpen")
    assert window.isVisible()
    # A later start (another window on the same store) says it too.
    later = open_window(shop.settings, shop.terminal, load=False)
    try:
        spin_until(
            lambda: "1 QR awaiting payment" in later.status.attempts.text(),
            "the QR counted at start",
        )
    finally:
        later.request_close()  # a shutdown: nothing asked
        close_window(later)
    # The customer pays it while the clerk types the next sale: the window says so.
    shop.sale(1200)
    admin(shop, "POST", f"/_sandbox/pay/{mcid}")
    spin_until(
        lambda: mcid in window.statusBar().currentMessage(), "the payment of the QR left open"
    )
    assert "see the note" in window.statusBar().currentMessage()
    # Too long for the status line beside its fields: a note stays until the clerk reads it.
    notice = question(shop, "qrPaidNotice")
    assert mcid in notice.text() and "money is in" in notice.text()
    notice.accept()
    assert screen.form.amount.centavos() == 1200
    spin_until(lambda: "No open attempts" in window.status.attempts.text(), "no QR counted")


def test_an_ended_qr_leads_back_to_its_sale_kept(shop: Shop) -> None:
    screen = shop.window.charge_screen
    panel = screen.qr_panel
    mcid = qr_sale(shop, PIX, 1234).merchant_charge_id
    admin(shop, "POST", f"/_sandbox/expire/{mcid}")
    spin_until(lambda: panel.status.text() == "Expired", "the expiry")
    assert panel.back_button.isVisible()
    panel.back_button.click()
    assert screen.stack.currentIndex() == 0
    assert screen.form.amount.centavos() == 1234
    assert screen.form.customer_name.text() == "Maria da Silva"
    assert screen.charge_button.isEnabled()
    # Ctrl+1 on an ended QR: back to the sale, with a card.
    second = qr_sale(shop, PIX, 4321).merchant_charge_id
    panel.cancel_button.click()
    spin_until(lambda: panel.status.text() == "Cancelled", "the cancel")
    QTest.keyClick(screen, Qt.Key.Key_1, Qt.KeyboardModifier.ControlModifier)
    assert screen.tender_bar.kind == CARD
    assert screen.stack.currentIndex() == 0 and screen.cards_box.isVisible()
    assert screen.form.amount.centavos() == 4321
    assert screen.form.customer_phone.text() == "(11) 98765-4321"
    assert qr_phase(shop.record(second).state) == QrPhase.CANCELED


def test_enter_with_a_qr_tender_goes_on_to_charge_not_the_hidden_card(shop: Shop) -> None:
    window = shop.window
    screen = window.charge_screen
    form = screen.form
    window.activateWindow()
    spin_until(lambda: QApplication.activeWindow() is window, "the window to be active")
    screen.new_sale()
    form.amount.set_centavos(1111)
    QTest.keyClick(screen, Qt.Key.Key_3, Qt.KeyboardModifier.ControlModifier)
    assert screen.tender_bar.kind == PIX
    form.customer_document.setText("529.982.247-25")
    form.customer_name.setFocus()
    QTest.keyClicks(form.customer_name, "Maria da Silva")
    QTest.keyClick(form.customer_name, Qt.Key.Key_Return)
    QApplication.processEvents()
    # The phone is needed next (the sandbox's profile asks for it), then Charge.
    focused = QApplication.focusWidget()
    assert focused is not None and focused.isVisible(), focused
    assert focused is form.customer_phone or focused is screen.charge_button, focused
    form.customer_phone.setFocus()
    QTest.keyClicks(form.customer_phone, "11987654321")
    QApplication.processEvents()
    focused = QApplication.focusWidget()
    assert focused is not None and focused.isVisible(), focused
    assert not screen.card_page.isAncestorOf(focused)
    # Ctrl+3 with the focus in the card form: the focus comes back to the sale.
    QTest.keyClick(screen, Qt.Key.Key_1, Qt.KeyboardModifier.ControlModifier)
    screen.card_page.setFocus()
    QTest.keyClick(screen, Qt.Key.Key_3, Qt.KeyboardModifier.ControlModifier)
    QApplication.processEvents()
    focused = QApplication.focusWidget()
    assert focused is not None and focused.isVisible() and screen.isAncestorOf(focused), focused
    assert focused is not window.tabs.tabBar()
    screen.new_sale()


def test_a_paid_qr_needs_no_question(shop: Shop) -> None:
    screen = shop.window.charge_screen
    mcid = qr_sale(shop, WALLET, 1500).merchant_charge_id
    simulate_payment(shop, mcid)
    f2(shop)
    QApplication.processEvents()
    assert asked(shop, "newSaleQrWaiting") == []
    assert screen.form.amount.centavos() == 0


def _leave_qr(shop: Shop, kind: str, amount: int) -> str:
    """A QR sale, then the next sale started with the QR left waiting (as a new sale the
    service would not let cancel it leaves it)."""
    mcid = qr_sale(shop, kind, amount).merchant_charge_id
    shop.window.charge_screen.new_sale()
    return mcid


def _close_spied(shop: Shop, monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """The window's own close after the question, recorded instead of done (the shop's window
    serves the module's other tests)."""
    window = shop.window
    closed: list[bool] = []
    monkeypatch.setattr(window, "close", lambda: closed.append(True) or True)
    monkeypatch.setattr(window, "_qrs_asked", False)
    return closed


def _waiting_counted(shop: Shop, n: int) -> None:
    said = "1 QR awaiting payment" if n == 1 else f"{n} QRs awaiting payment"
    shop.window.status.refresh_attempts()
    spin_until(lambda: said in shop.window.status.attempts.text(), f"{n} QRs to be counted")


def test_closing_with_several_qrs_says_them_in_the_plural_and_cancels_them(
    shop: Shop, monkeypatch: pytest.MonkeyPatch
) -> None:
    window = shop.window
    first = _leave_qr(shop, PIX, 1111)
    second = qr_sale(shop, WALLET, 2222).merchant_charge_id
    _waiting_counted(shop, 2)
    QMainWindow.close(window)
    box = question(shop, "closeQrWaiting")
    said = box.text()
    assert box.windowTitle() == "QRs still waiting"
    assert "2 QRs are still awaiting payment" in said and first in said and second in said
    assert " it " not in said and "It " not in said, said
    # The built-in sandbox stops with the terminal: nobody can pay them meanwhile.
    assert "with the terminal closed too" not in said
    assert "built-in sandbox stops with the terminal" in said, said
    cancel = box.findChild(QPushButton, "cancelQrsAndClose")
    assert cancel is not None and cancel.text() == "&Cancel the QRs and close"
    answer(box, "keepWindowOpen")
    assert window.isVisible()
    closed = _close_spied(shop, monkeypatch)
    QMainWindow.close(window)
    answer(question(shop, "closeQrWaiting"), "cancelQrsAndClose")
    spin_until(lambda: bool(closed), "the window to close once both QRs are cancelled")
    for mcid in (first, second):
        assert qr_phase(shop.record(mcid).state) == QrPhase.CANCELED, mcid
    shop.window.charge_screen.new_sale()


def test_closing_with_one_qr_says_it_in_the_singular_and_as_the_service_keeps_it(
    shop: Shop, monkeypatch: pytest.MonkeyPatch
) -> None:
    window = shop.window
    mcid = _leave_qr(shop, PIX, 1212)
    _waiting_counted(shop, 1)
    QMainWindow.close(window)
    box = question(shop, "closeQrWaiting")
    assert box.windowTitle() == "A QR is still waiting"
    assert "1 QR is still awaiting payment" in box.text() and mcid in box.text()
    assert box.findChild(QPushButton, "cancelQrsAndClose").text() == "&Cancel the QR and close"
    answer(box, "keepWindowOpen")
    # On the real service a QR stays payable with the terminal closed.
    monkeypatch.setattr(window, "_on_builtin_sandbox", lambda: False)
    QMainWindow.close(window)
    box = question(shop, "closeQrWaiting")
    assert "stays payable until it expires, with the terminal closed too" in box.text()
    assert "sandbox" not in box.text()
    answer(box, "keepWindowOpen")
    assert window.isVisible()
    run_cancel(shop, mcid)


def run_cancel(shop: Shop, mcid: str) -> None:
    screen = shop.window.charge_screen
    shop.window.show_charge(mcid)
    history = shop.window.history_panel
    spin_until(history.refund_button.isEnabled, "the cancel button")
    history.refund_button.click()
    dialog = history.dialog
    assert dialog is not None
    dialog.accept()
    spin_until(lambda: qr_phase(shop.record(mcid).state) == QrPhase.CANCELED, "the cancel")
    shop.window.tabs.setCurrentIndex(shop.window.charge_tab)
    screen.new_sale()


def test_a_qr_paid_before_its_cancel_on_closing_keeps_the_window_open(
    shop: Shop, notifications_late: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    window = shop.window
    mcid = _leave_qr(shop, WALLET, 1313)
    _waiting_counted(shop, 1)
    closed = _close_spied(shop, monkeypatch)
    # The customer pays; the service's notification is still on its way.
    admin(shop, "POST", f"/_sandbox/pay/{mcid}")
    QMainWindow.close(window)
    answer(question(shop, "closeQrWaiting"), "cancelQrsAndClose")
    box = question(shop, "qrsNotCancelled")
    assert mcid in box.text() and "window stays open" in box.text(), box.text()
    assert not closed and window.isVisible()
    assert qr_phase(shop.record(mcid).state) == QrPhase.PAID
    box.accept()
    spin_until(lambda: bool(asked(shop, "qrPaidNotice")), "the payment's note")
    for notice in asked(shop, "qrPaidNotice"):
        notice.accept()


def test_a_qr_paid_off_screen_says_so_briefly_until_its_note_is_read(shop: Shop) -> None:
    window = shop.window
    status = window.statusBar()
    mcid = _leave_qr(shop, PIX, 2525)
    shop.sale(1200)
    with in_portuguese():
        admin(shop, "POST", f"/_sandbox/pay/{mcid}")
        spin_until(lambda: mcid in status.currentMessage(), "the payment of the QR left open")
        said = status.currentMessage()
        notice = question(shop, "qrPaidNotice")
    assert said == f"QR {mcid} pago — veja o aviso", said
    # It fits beside the status bar's fields on the shop's 1366 px screen.
    fields = [w for w in window.status.findChildren(ElidedLabel) if w.isVisible()]
    room = 1366 - sum(max(w.sizeHint().width(), w.width()) + 6 for w in fields) - 12
    assert status.fontMetrics().horizontalAdvance(said) <= room, (said, room)
    assert mcid in notice.text()
    notice.accept()
    QApplication.processEvents()
    assert status.currentMessage() == ""
    assert window.charge_screen.form.amount.centavos() == 1200
    window.charge_screen.new_sale()
