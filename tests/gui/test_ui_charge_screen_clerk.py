"""The charge screen as a clerk meets it: every refusal says why, every amount typed away is
explained, stale notes go, focused buttons take Enter, and the card form's button is in view.

Its own window on the built-in sandbox (the end-to-end module's shop): a split sale needs a card
tokenized by the real card page.
"""

from __future__ import annotations

import json
import logging
import time

import pytest
from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QLabel, QPushButton, QWidget

from checkout_desktop.domain.enums import ChargeStatus
from checkout_desktop.ui.charge_form import MIN_INSTALLMENT
from checkout_desktop.ui.charge_screen import ChargeScreen
from checkout_desktop.ui.formatting import format_money
from tests.gui.test_app_e2e import Shop, shop, spin_until

logger = logging.getLogger(__name__)

pytest_plugins = ["tests.gui.card_fixtures"]
pytestmark = [pytest.mark.webengine, pytest.mark.slow]

__all__ = ["shop"]  # the module-scoped fixture, used here by name


def charge_screen(shop: Shop) -> ChargeScreen:
    window = shop.window
    window.tabs.setCurrentIndex(window.charge_tab)
    window.activateWindow()
    screen = window.charge_screen
    spin_until(lambda: screen.card_page.sdk_ready, "the card page's SDK")
    return screen


def shown_texts(screen: ChargeScreen) -> str:
    """Every label the clerk can see on the charge screen now."""
    return "\n".join(
        label.text() for label in screen.findChildren(QLabel) if label.isVisible() and label.text()
    )


def add_card(shop: Shop, screen: ChargeScreen, amount: int, number: str) -> None:
    """One card of a split sale, added with the card form's own button."""
    before = len(screen.cards)
    screen.next_card_amount.set_centavos(amount)
    shop.type_card(number)
    screen.card_page.submit()
    spin_until(lambda: len(screen.cards) == before + 1, "the card to be added")


def ctrl_enter(widget: QWidget) -> None:
    QTest.keyClick(widget, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    QCoreApplication.processEvents()


def test_ctrl_enter_without_an_amount_says_to_type_it(shop: Shop) -> None:
    screen = charge_screen(shop)
    screen.new_sale()
    form = screen.form
    spin_until(form.amount.hasFocus, "the amount to have the focus")
    assert form.amount.centavos() == 0 and not screen.charge_button.isEnabled()
    ctrl_enter(form.amount)
    spin_until(lambda: "Type the amount." in form.errors.text(), "the reason to be shown")
    assert form.errors.isVisible()


def test_cards_above_a_lowered_amount_say_why_charge_is_greyed(shop: Shop) -> None:
    screen = charge_screen(shop)
    shop.sale(9000)
    add_card(shop, screen, 4000, "5555555555554444")
    screen.form.amount.set_centavos(3000)  # now below the R$ 40,00 card
    assert not screen.charge_button.isEnabled()
    reason = "The cards add up to more than the sale."
    # Said as soon as the button greys, not only once the clerk tries.
    assert reason in shown_texts(screen)
    ctrl_enter(screen.form.amount)
    assert reason in shown_texts(screen)
    screen.new_sale()
    assert reason not in shown_texts(screen)


def test_a_digit_refused_in_the_next_card_amount_is_explained(shop: Shop) -> None:
    screen = charge_screen(shop)
    shop.sale(10000)
    edit = screen.next_card_amount
    edit.setFocus(Qt.FocusReason.TabFocusReason)
    spin_until(edit.hasFocus, "the next card's amount to have the focus")
    QTest.keyClicks(edit, "20000")  # R$ 200,00 where R$ 100,00 is left: the last 0 is refused
    assert edit.centavos() == 2000
    assert "At most" in shown_texts(screen)
    # A digit taken again: the refusal is no longer the news.
    QTest.keyClick(edit, Qt.Key.Key_Backspace)
    assert "At most" not in shown_texts(screen)


def test_removing_the_only_card_drops_its_added_note(shop: Shop) -> None:
    screen = charge_screen(shop)
    shop.sale(9000)
    add_card(shop, screen, 4000, "5555555555554444")
    assert "4444 added" in screen.card_state.text()
    screen.remove_card_button.click()
    assert screen.cards == [] and screen.next_card_amount.centavos() == 9000
    assert "added" not in screen.card_state.text(), screen.card_state.text()
    assert screen.card_state.text()  # the hint is back


@pytest.mark.parametrize("key", [Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Space])
def test_the_focused_new_sale_button_takes_enter(shop: Shop, key: Qt.Key) -> None:
    screen = charge_screen(shop)
    shop.sale(1990)
    # The result of a sale, as a charge leaves it: the focus on "New sale (F2)".
    screen.stack.setCurrentWidget(screen.result)
    button = screen.result.new_sale_button
    button.setFocus(Qt.FocusReason.OtherFocusReason)
    spin_until(button.hasFocus, "the New sale button to have the focus")
    QTest.keyClick(button, key)
    QCoreApplication.processEvents()
    assert screen.stack.currentIndex() == 0
    assert screen.form.amount.centavos() == 0


def test_every_button_of_the_charge_screen_takes_enter(shop: Shop) -> None:
    screen = charge_screen(shop)
    buttons = [
        b for b in screen.findChildren(QPushButton) if b.focusPolicy() != Qt.FocusPolicy.NoFocus
    ]
    assert buttons
    assert [b.objectName() for b in buttons if not (b.autoDefault() or b.isDefault())] == []


def assert_add_card_in_view(shop: Shop) -> None:
    view = shop.window.charge_screen.card_page.view
    spin_until(
        lambda: shop.js("window.innerHeight") == view.height(),
        "the card page to take its height",
    )
    top, bottom, height = json.loads(
        shop.js(
            "(function () { var r = document.getElementById('submit').getBoundingClientRect();"
            " return JSON.stringify([r.top, r.bottom, window.innerHeight]); })()"
        )
    )
    logger.info("the card form's button: %s to %s of %s px", top, bottom, height)
    assert top >= 0 and bottom <= height, f"'Add card' lies at {top}-{bottom} of {height} px"


@pytest.mark.parametrize("width", [1366, 1024])
def test_the_card_form_button_is_in_view_on_a_768_line_screen(shop: Shop, width: int) -> None:
    screen = charge_screen(shop)
    window = shop.window
    before = window.size()
    try:
        # The window's client area on a 768-line shop screen as ui/geometry.py places it
        # (maximised), less the frame a window manager adds (its allowance for the title bar).
        window.resize(width, 768 - 40)
        shop.sale(9000)
        assert_add_card_in_view(shop)
        # The first card of a split sale added: the list of cards takes its line, and the
        # button is still in view for the next card.
        add_card(shop, screen, 4000, "5555555555554444")
        assert screen.card_list.isVisible()
        assert_add_card_in_view(shop)
    finally:
        window.resize(before)


def test_each_card_of_a_split_sale_pays_whole_installments(shop: Shop) -> None:
    # R$ 90,00 in 3x is fine; a card of R$ 0,02 of it in 3x is not (an installment of R$ 0,00).
    screen = charge_screen(shop)
    shop.sale(9000, installments=3)
    assert screen.charge_button.isEnabled()
    add_card(shop, screen, 2, "5555555555554444")
    reason = f"In 3x each card must pay at least {format_money(3 * MIN_INSTALLMENT)}."
    assert reason in shown_texts(screen)
    assert not screen.charge_button.isEnabled()
    screen.form.installments.setValue(2)  # R$ 0,02 in 2x: R$ 0,01 each
    assert "each card must pay" not in shown_texts(screen)
    assert screen.charge_button.isEnabled()
    screen.new_sale()


# A CPF typed twice into the card form's holder field: 18 digits, refused by the page itself.
TOO_LONG_DOCUMENT = "529982247255299822"


def type_holder_document(shop: Shop, text: str) -> None:
    shop.js(
        "(function (t) { var e = document.getElementById('holder-document'); e.focus();"
        " e.value = t; e.dispatchEvent(new Event('input', {bubbles: true})); return true; }"
        f"({json.dumps(text)}))"
    )


def refused_by_the_card_form(shop: Shop, screen: ChargeScreen) -> None:
    """A R$ 10,00 sale whose card the page refuses on its own (the holder's CPF is too long)
    after Charge was pressed: nothing reached the card service."""
    shop.sale(1000)
    shop.type_card("4111111111111111")
    type_holder_document(shop, TOO_LONG_DOCUMENT)
    assert screen.charge_button.isEnabled(), screen.form.errors.text()
    screen.charge_button.click()
    spin_until(
        lambda: bool(shop.js("document.getElementById('holder-document-error').textContent")),
        "the card form to mark the holder's document",
    )
    spin_until(
        lambda: shop.js("window.checkoutCard.state().busy") is False, "the card form to settle"
    )


def test_a_field_the_card_form_refused_is_said_beside_charge(shop: Shop, pt_br: None) -> None:
    screen = charge_screen(shop)
    refused_by_the_card_form(shop, screen)
    # Not "Checking the card…" for ever: the clerk is told what to do, in the shop's language.
    spin_until(
        lambda: screen.card_state.text().startswith(
            "Corrija os campos marcados no formulário do cartão."
        ),
        f"the refusal to be said (the line says {screen.card_state.text()!r})",
        timeout_s=5,
    )
    assert "Nada foi cobrado" in screen.card_state.text()
    assert screen.cards == [] and not screen.in_flight
    assert screen.charge_button.isEnabled()  # Charge again, once the field is right
    screen.new_sale()


def test_adding_the_card_after_a_refusal_charges_nothing_until_charge_is_pressed(
    shop: Shop,
) -> None:
    screen = charge_screen(shop)
    refused_by_the_card_form(shop, screen)
    started: list[str] = []
    outcomes: list[object] = []
    screen.charge_started.connect(started.append)
    screen.charge_finished.connect(outcomes.append)
    try:
        # The clerk corrects the CPF and adds the card with the form's own button: only that.
        type_holder_document(shop, "52998224725")
        shop.js("document.getElementById('submit').click(); true")
        spin_until(lambda: len(screen.cards) == 1, "the card to be added")
        deadline = time.monotonic() + 1.5
        spin_until(lambda: bool(started) or time.monotonic() > deadline, "a moment to pass")
        assert started == [], "adding the card charged the sale"
        assert not screen.in_flight and screen.stack.currentIndex() == 0
        assert "1111 added" in screen.card_state.text()
        # Charge, pressed now, charges the card added.
        screen.charge_button.click()
        spin_until(lambda: bool(outcomes), "the charge")
        assert len(started) == 1
        assert getattr(outcomes[0], "status", None) == ChargeStatus.PAID
    finally:
        screen.charge_started.disconnect(started.append)
        screen.charge_finished.disconnect(outcomes.append)
    screen.new_sale()
