"""Keystrokes for one sale, counted: real key presses from the amount to the Charge shortcut.

Its own window on the built-in sandbox (the end-to-end module's shop), so that no earlier test's
focus or popups change the path. The clerk's path: the amount, Tab, the installments (one digit
moves on), the customer's CPF (a known customer's first digits and Enter; a new one's whole CPF,
which moves on, the name, Tab and the whole phone, which moves on to the card), then the card
page's own fields, each moving on when complete (the number at its brand's length with a valid
check digit, the month, a two-digit year), the CVV and Ctrl+Enter. The holder's name and CPF come from the customer. The keys go to whichever
widget has the focus, as a keyboard's do; the card's digits stay in the page (Qt delivers the
key events to the web view, never to Python code).
"""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QApplication

from checkout_desktop.charges.service import ChargeOutcome
from checkout_desktop.domain.enums import ChargeStatus
from tests.gui.test_app_e2e import Shop, sandbox_requires, shop, spin_until

logger = logging.getLogger(__name__)

pytest_plugins = ["tests.gui.card_fixtures"]
pytestmark = [pytest.mark.webengine, pytest.mark.slow]

__all__ = ["shop"]  # the module-scoped fixture, used here by name

NEW_CUSTOMER_BOUND = 63
"""With the phone every public integration sends (11 digits): 63, three over the issue's 60,
which was set before the phone was asked for. A whole CPF and a whole phone move on by
themselves, so the digits are the keys; what is left is the name's Tab."""
NEW_CUSTOMER_NO_PHONE_BOUND = 60
"""The same sale on a profile that does not ask for the phone (the issue's target): 52."""
KNOWN_CUSTOMER_BOUND = 35


class Keyboard:
    """Real key presses to whichever widget has the keyboard focus, counted."""

    def __init__(self) -> None:
        self.count = 0

    def focused(self) -> Any:
        # As Qt routes a real keyboard: to an open popup (the customers list) first.
        widget = QApplication.activePopupWidget() or QApplication.focusWidget()
        assert widget is not None, "nothing has the keyboard focus"
        return widget

    def type(self, text: str) -> None:
        from PySide6.QtTest import QTest

        for char in text:
            QTest.keyClick(self.focused(), char)
            self.count += 1
            QCoreApplication.processEvents()

    def press(self, key: Any, modifier: Any = None) -> None:
        from PySide6.QtCore import Qt
        from PySide6.QtTest import QTest

        QTest.keyClick(self.focused(), key, modifier or Qt.KeyboardModifier.NoModifier)
        self.count += 1
        QCoreApplication.processEvents()


def keyboard_sale(
    shop: Shop, *, known_customer: bool, phone: bool = True, cpf: str = "39053344705"
) -> tuple[int, ChargeOutcome]:
    """One 3-installment sale of R$ 150,00 typed from the keyboard, from the new sale's empty
    screen to the Charge shortcut; returns the keys pressed and the outcome."""
    from PySide6.QtCore import Qt

    window = shop.window
    window.tabs.setCurrentIndex(window.charge_tab)
    window.activateWindow()
    screen = window.charge_screen
    screen.new_sale()
    form = screen.form
    spin_until(lambda: QApplication.focusWidget() is form.amount, "the amount to have the focus")
    spin_until(lambda: screen.card_page.sdk_ready, "the card page's SDK")
    keys = Keyboard()
    keys.type("15000")
    keys.press(Qt.Key.Key_Tab)
    spin_until(lambda: form.installments.hasFocus(), "the installments")
    keys.type("3")  # no 30 installments: on to the customer
    spin_until(lambda: form.customer_document.hasFocus(), "the CPF after the installments")
    if known_customer:
        spin_until(lambda: form.customer_completer.model().rowCount() > 0, "recent customers")
        keys.type("390")
        # The only recent customer whose CPF starts so: Enter takes it.
        keys.press(Qt.Key.Key_Return)
        assert form.customer_name.text() == "Ana Souza"
        assert form.customer_phone.text() == "(11) 98765-4321"
    else:
        # A whole, valid CPF moves on to the name by itself.
        keys.type(cpf)
        assert keys.focused() is form.customer_name
        keys.type("Ana Souza")
        if phone:
            keys.press(Qt.Key.Key_Tab)
            assert keys.focused() is form.customer_phone
            # A whole mobile number moves on to the card by itself.
            keys.type("11987654321")
        else:
            keys.press(Qt.Key.Key_Return)
    # The customer's fields done: the caret goes to the card number.
    spin_until(lambda: shop.js("document.activeElement.id") == "number", "the card number")
    keys.type("4111111111111111")
    # A complete, valid number moves on; the holder came from the customer, so to the month.
    spin_until(lambda: shop.js("document.activeElement.id") == "exp-month", "the expiry month")
    keys.type("12")
    spin_until(lambda: shop.js("document.activeElement.id") == "exp-year", "the expiry year")
    keys.type("31")
    spin_until(lambda: shop.js("document.activeElement.id") == "cvv", "the CVV")
    keys.type("123")
    holder = shop.js(
        "JSON.stringify([document.getElementById('holder-name').value,"
        " document.getElementById('holder-document').value])"
    )
    assert json.loads(holder) == ["Ana Souza", cpf]
    outcomes: list[ChargeOutcome] = []
    screen.charge_finished.connect(outcomes.append)
    try:
        keys.press(Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
        spin_until(lambda: bool(outcomes), "the charge started from the keyboard", 30)
    finally:
        screen.charge_finished.disconnect(outcomes.append)
    return keys.count, outcomes[0]


def test_a_sale_takes_few_keystrokes_new_customer_then_known(shop: Shop) -> None:
    new_count, first = keyboard_sale(shop, known_customer=False)
    assert first.status == ChargeStatus.PAID, first
    record = shop.record(first.merchant_charge_id)
    assert record.amount == 15000
    assert record.state.transactions[0].installments == 3
    known_count, second = keyboard_sale(shop, known_customer=True)
    assert second.status == ChargeStatus.PAID, second
    logger.info(
        "keystrokes for one sale: new customer %d, known customer %d", new_count, known_count
    )
    assert new_count <= NEW_CUSTOMER_BOUND, new_count
    assert known_count <= KNOWN_CUSTOMER_BOUND, known_count


def test_a_new_customer_without_a_phone_takes_the_target_keystrokes(shop: Shop) -> None:
    # A service that turns out not to need the phone, and a profile that stops asking for it.
    form = shop.window.charge_screen.form
    sandbox_requires(shop, "device")
    form.set_phone_required(False)
    try:
        count, outcome = keyboard_sale(shop, known_customer=False, phone=False, cpf="52998224725")
    finally:
        form.set_phone_required(True)
        sandbox_requires(shop, "phone,device")
    assert outcome.status == ChargeStatus.PAID, outcome
    record = shop.record(outcome.merchant_charge_id)
    assert record.amount == 15000
    logger.info("keystrokes for one sale, new customer, no phone asked: %d", count)
    assert count <= NEW_CUSTOMER_NO_PHONE_BOUND, count
