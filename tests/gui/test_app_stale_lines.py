"""Lines that stop being true go away: the card page's "card added" note and the loading hint.

Its own window on the built-in sandbox (the end-to-end module's shop), as a clerk meets them: a
card added for a split sale, then the next sale.
"""

from __future__ import annotations

import logging

import pytest

from tests.gui.test_app_e2e import Shop, shop, spin_until

logger = logging.getLogger(__name__)

pytest_plugins = ["tests.gui.card_fixtures"]
pytestmark = [pytest.mark.webengine, pytest.mark.slow]

__all__ = ["shop"]  # the module-scoped fixture, used here by name


def test_a_new_sale_clears_the_card_added_note_and_the_loading_hint_goes(shop: Shop) -> None:
    window = shop.window
    window.tabs.setCurrentIndex(window.charge_tab)
    screen = window.charge_screen
    spin_until(lambda: screen.card_page.sdk_ready, "the card page's SDK")
    loading = screen.tr("Loading the card form…")
    assert screen.card_state.text() and screen.card_state.text() != loading

    def page_note() -> str:
        return str(shop.js("document.getElementById('status').textContent"))

    shop.sale(3000)
    screen.next_card_amount.set_centavos(1000)
    shop.type_card("5555555555554444")
    screen.card_page.submit()  # the card form's own button: one card of a split sale
    spin_until(lambda: len(screen.cards) == 1, "the first card")
    spin_until(lambda: "4444" in page_note(), "the page's note that the card was added")
    assert screen.card_list.isVisibleTo(screen)

    screen.new_sale()
    spin_until(lambda: page_note() == "", "the note to go with the sale it belonged to")
    assert len(screen.cards) == 0 and not screen.card_list.isVisibleTo(screen)
    assert screen.card_state.text() and screen.card_state.text() != loading
    assert screen.form.amount.centavos() == 0
