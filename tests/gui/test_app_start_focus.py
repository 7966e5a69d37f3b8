"""At start the keyboard is the amount's: the card page loading behind it does not take it.

A clerk who opens the terminal and types the amount at once must see it in Valor; the card
form's page finishes loading a moment later and used to take the keyboard as it did (the
first digits went into the card number, and Tab walked the card form).
"""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QApplication

from tests.gui.test_app_e2e import Shop, shop, spin_until

pytest_plugins = ["tests.gui.card_fixtures"]
pytestmark = [pytest.mark.webengine, pytest.mark.slow]

__all__ = ["shop"]  # the module-scoped fixture, used here by name


def test_the_amount_keeps_the_keyboard_while_the_card_page_loads(shop: Shop) -> None:
    window = shop.window
    screen = window.charge_screen
    # The fixture hands the window over once the card page's SDK is ready: the load is done.
    assert screen.card_page.sdk_ready
    window.activateWindow()
    spin_until(lambda: QApplication.activeWindow() is window, "the window to be active")
    assert QApplication.focusWidget() is screen.form.amount, QApplication.focusWidget()
    # A reload of the card form (a new environment, a failed load tried again) leaves the
    # keyboard where the clerk is, too.
    screen.form.customer_name.setFocus()
    spin_until(lambda: screen.form.customer_name.hasFocus(), "the name field's focus")
    screen.card_page.load()
    assert not screen.card_page.sdk_ready
    spin_until(lambda: screen.card_page.sdk_ready, "the card page again", 30)
    assert QApplication.focusWidget() is screen.form.customer_name, QApplication.focusWidget()
