"""Typing cards into the real SDK page against the built-in sandbox: brand, tokens, SDK errors."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest
from pydantic import SecretStr
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from checkout_desktop.domain.enums import CardBrand
from checkout_desktop.gateway.profiles import sandbox_credentials
from checkout_desktop.settings import default_profiles
from checkout_desktop.ui.card_page import CardPage, SdkCredentialSource
from checkout_desktop.ui.webview import CardPageConfig

if TYPE_CHECKING:
    from tests.gui.card_fixtures import CardUi, PageDriver, PageRecorder, SandboxRun

    PageParts = tuple[CardPage, PageDriver, PageRecorder]

pytest_plugins = ["tests.gui.card_fixtures"]
pytestmark = pytest.mark.webengine

logger = logging.getLogger(__name__)

# The sandbox's published test cards (checkout_desktop/sandbox/TEST_CARDS.md).
VISA = "4111111111111111"
MASTERCARD = "5555555555554444"


@pytest.fixture(scope="module")
def sandbox_page(card_ui: CardUi, card_sandbox: SandboxRun) -> Iterator[PageParts]:
    info = card_sandbox.info
    source = SdkCredentialSource(
        merchant_document=info.credentials.merchant_document,
        credentials=sandbox_credentials(info.credentials),
    )
    config = CardPageConfig.from_profile(default_profiles()["builtin-sandbox"], language="pt-BR")
    parts = card_ui.open_page(config, credentials=source)
    yield parts
    card_ui.close_page(parts[0])


@pytest.fixture
def page(sandbox_page: PageParts) -> Iterator[PageParts]:
    """The module's page, with an empty form before and after each test."""
    card_page, driver, _ = sandbox_page
    card_page.clear()
    driver.wait_until(lambda: driver.all_field_values() == [""] * 6, "an empty form")
    yield sandbox_page
    card_page.clear()


def test_brand_appears_once_six_digits_are_typed(page: PageParts) -> None:
    card_page, driver, _ = page
    assert card_page.sdk_ready
    driver.js("document.getElementById('number').focus(); true")
    keys = card_page.view.focusProxy()
    QTest.keyClicks(keys, "41111")
    driver.wait_until(lambda: driver.value("number") == "4111 1", "five digits, grouped")
    assert driver.text("brand") == ""
    QTest.keyClick(keys, Qt.Key.Key_1)
    assert driver.wait_text("brand", bool, "a brand after the sixth digit") == "VISA"
    QTest.keyClicks(keys, "1111111111")
    driver.wait_until(lambda: driver.value("number") == "4111 1111 1111 1111", "grouped by four")
    # A complete number with a valid check digit moves on to the holder's name.
    driver.wait_until(lambda: driver.js("document.activeElement.id") == "holder-name", "moved on")
    # Back in the number, a correction keeps the grouping and the brand.
    driver.js(
        "var n = document.getElementById('number'); n.focus();"
        " n.setSelectionRange(n.value.length, n.value.length); true"
    )
    QTest.keyClick(keys, Qt.Key.Key_Backspace)
    driver.wait_until(lambda: driver.value("number") == "4111 1111 1111 111", "one digit less")
    assert driver.text("brand") == "VISA"


def test_the_customer_as_holder_fills_and_skips_the_holder_fields(page: PageParts) -> None:
    card_page, driver, _ = page

    def tab_indexes() -> list[int]:
        return list(
            json.loads(
                driver.js(
                    "JSON.stringify([document.getElementById('holder-name').tabIndex,"
                    " document.getElementById('holder-document').tabIndex])"
                )
            )
        )

    card_page.fill_holder("Ana Souza", "39053344705")
    try:
        driver.wait_until(lambda: driver.value("holder-name") == "Ana Souza", "the holder's name")
        assert driver.value("holder-document") == "39053344705"
        assert tab_indexes() == [-1, -1]
        # A clear (the next card) keeps the holder while it is still the customer.
        card_page.clear()
        driver.wait_until(lambda: driver.value("number") == "", "a cleared form")
        assert driver.value("holder-name") == "Ana Souza"
    finally:
        # Someone else's card: the fields are the clerk's again, empty and in the Tab order.
        card_page.fill_holder("", "")
    driver.wait_until(lambda: driver.value("holder-name") == "", "the holder's name cleared")
    assert driver.value("holder-document") == ""
    assert tab_indexes() == [0, 0]


def test_the_expiry_moves_on_when_complete(page: PageParts) -> None:
    card_page, driver, _ = page
    driver.js("document.getElementById('exp-month').focus(); true")
    keys = card_page.view.focusProxy()
    QTest.keyClick(keys, Qt.Key.Key_1)
    assert driver.js("document.activeElement.id") == "exp-month"  # 1 could begin 10, 11, 12
    QTest.keyClick(keys, Qt.Key.Key_2)
    driver.wait_until(lambda: driver.js("document.activeElement.id") == "exp-year", "the year")
    # "20" could begin 2031: a past two-digit year waits for more digits.
    QTest.keyClicks(keys, "20")
    assert driver.js("document.activeElement.id") == "exp-year"
    QTest.keyClicks(keys, "31")
    driver.wait_until(lambda: driver.js("document.activeElement.id") == "cvv", "the CVV")
    assert driver.value("exp-year") == "2031"


def test_a_typed_test_card_becomes_a_token_and_the_form_clears(page: PageParts) -> None:
    _, driver, recorder = page
    before = len(recorder.tokens)
    driver.fill(number=VISA, holder_name="Joao da Silva")
    driver.wait_text("brand", lambda t: t == "VISA", "the brand")
    driver.press_submit()
    driver.wait_until(lambda: len(recorder.tokens) > before, "a token in Python")
    token = recorder.tokens[-1]
    assert token.token.startswith("card_t/")
    assert token.brand is CardBrand.VISA
    assert (token.last_four, token.holder_name) == ("1111", "Joao da Silva")
    driver.wait_until(lambda: not driver.state()["busy"], "the page to settle")
    assert driver.all_field_values() == [""] * 6
    assert driver.text("brand") == ""
    assert driver.text("status") == "Cartão VISA final 1111 adicionado."
    assert driver.js("document.activeElement.id") == "number"  # ready for the next card


def test_two_cards_for_one_sale_give_two_tokens(page: PageParts) -> None:
    card_page, driver, recorder = page
    before = len(recorder.tokens)
    for number in (VISA, MASTERCARD):
        count = len(recorder.tokens)
        driver.fill(number=number, holder_name="Maria Souza", month="01", year="2031")
        card_page.submit()  # the charge screen's button, through the bridge
        driver.wait_until(lambda n=count: len(recorder.tokens) > n, f"a token for {number[:4]}")
        driver.wait_until(lambda: driver.all_field_values() == [""] * 6, "the form to clear")
    first, second = recorder.tokens[before:]
    assert first.token != second.token
    assert (first.brand, first.last_four) == (CardBrand.VISA, "1111")
    assert (second.brand, second.last_four) == (CardBrand.MASTERCARD, "4444")
    assert driver.state()["credentialsSet"] is True


def test_sdk_errors_show_next_to_the_field_they_name(
    page: PageParts, card_sandbox: SandboxRun
) -> None:
    card_page, driver, recorder = page
    # A Luhn-valid number whose BIN the service does not know: the BIN lookup names CardBin.
    before = len(recorder.sdk_errors)
    driver.type_into("number", "9999990000000003")
    driver.wait_until(lambda: len(recorder.sdk_errors) > before, "the BIN lookup's error")
    failure = recorder.sdk_errors[-1]
    assert (failure.stage, failure.network) == ("brand", False)
    assert failure.errors[0].field == "CardBin"
    assert driver.text("number-error") == failure.errors[0].message
    assert failure.errors[0].message.startswith("Bandeira não encontrada")

    # The SDK itself called without a CVV (the form would not let it through): the service's
    # Cvv error lands next to the CVV field, in the service's words.
    credentials = card_sandbox.info.credentials
    card_page.set_credentials(
        credentials.merchant_document, SecretStr(credentials.transparent_token)
    )
    driver.wait_until(lambda: driver.state()["credentialsSet"], "the SDK credentials")
    before = len(recorder.sdk_errors)
    card = {
        "brand": "VISA",
        "number": VISA,
        "holderName": "Joao da Silva",
        "holderDocument": "65844359038",
        "expirationMonth": "12",
        "expirationYear": "2030",
        "cvv": "",
    }
    driver.js(
        "CheckoutTransparent.createTemporaryCard({card: " + json.dumps(card) + ", "
        "success: function () {}, error: checkoutCard.sdkErrorHandler('token')}); true"
    )
    driver.wait_until(lambda: len(recorder.sdk_errors) > before, "the Cvv error")
    failure = recorder.sdk_errors[-1]
    assert [(e.field, e.message) for e in failure.errors] == [
        ("Cvv", "Propriedade 'Cvv' está ausente.")
    ]
    assert driver.text("cvv-error") == "Propriedade 'Cvv' está ausente."
    assert driver.js("document.getElementById('cvv').getAttribute('aria-invalid')") == "true"
    assert driver.js("document.activeElement.id") == "cvv"
    assert driver.text("number-error") == ""


def test_no_bridge_message_carried_card_data(page: PageParts) -> None:
    _, _, recorder = page
    assert recorder.raw_messages, "the tests above sent messages over the bridge"
    assert recorder.security_events == []
    for slot, raw in recorder.raw_messages:
        for secret in (VISA, MASTERCARD, "65844359038", '"cvv"', "2030", "2031"):
            assert secret not in raw, f"{slot} carried {secret[:2]}…"


def _variants(run: SandboxRun, **changes: str) -> None:
    import httpx

    reply = httpx.patch(
        run.info.base_url + "/_sandbox/variants",
        json={name.replace("_", "-"): value for name, value in changes.items()},
        headers={"X-Sandbox-Admin-Token": run.info.admin_token},
    )
    assert reply.status_code == 200, reply.text


@pytest.mark.parametrize("variant", ["merchant", "both"])
def test_a_merchant_token_is_given_to_the_sdk_which_hashes_it(
    card_ui: CardUi, card_sandbox: SandboxRun, variant: str
) -> None:
    info = card_sandbox.info
    _variants(card_sandbox, sdk_credential=variant)
    source = SdkCredentialSource(
        merchant_document=info.credentials.merchant_document,
        credentials=sandbox_credentials(info.credentials, "merchant"),
        kind="merchant",
    )
    config = CardPageConfig.from_profile(default_profiles()["builtin-sandbox"], language="pt-BR")
    card_page, driver, recorder = card_ui.open_page(config, credentials=source)
    try:
        driver.fill(number=VISA, holder_name="Joao da Silva")
        driver.wait_text("brand", lambda t: t == "VISA", "the brand")
        driver.press_submit()
        driver.wait_until(lambda: bool(recorder.tokens), "a token from the merchant credential")
        assert recorder.tokens[-1].token.startswith("card_t/")
    finally:
        _variants(card_sandbox, sdk_credential="both")
        card_ui.close_page(card_page)


def test_a_service_taking_only_the_merchant_token_refuses_the_transparent_one(
    page: PageParts, card_sandbox: SandboxRun
) -> None:
    _, driver, recorder = page
    _variants(card_sandbox, sdk_credential="merchant")
    try:
        before = len(recorder.sdk_errors)
        driver.fill(number=VISA, holder_name="Joao da Silva")
        driver.wait_text("brand", lambda t: t == "VISA", "the brand")
        driver.press_submit()
        driver.wait_until(lambda: len(recorder.sdk_errors) > before, "the refusal")
        assert recorder.sdk_errors[-1].stage == "token"
    finally:
        _variants(card_sandbox, sdk_credential="both")


def test_a_card_the_service_could_not_be_reached_for_is_said_not_sent(page: PageParts) -> None:
    # The brand known, the card's own call finds no connection (the request errors as a
    # refused connection does): the banner says the service cannot be reached, and the line by
    # the button says what became of the card instead of repeating the banner.
    _, driver, recorder = page
    driver.fill(number=VISA, holder_name="Joao da Silva")
    driver.wait_text("brand", lambda t: t == "VISA", "the brand")
    driver.js(
        "window.__send = XMLHttpRequest.prototype.send;"
        "XMLHttpRequest.prototype.send = function () { var x = this;"
        " setTimeout(function () { x.dispatchEvent(new ProgressEvent('error'));"
        " if (x.onerror) { x.onerror(new ProgressEvent('error')); } }, 0); }; true"
    )
    errors = len(recorder.sdk_errors)
    try:
        driver.press_submit()
        driver.wait_until(lambda: len(recorder.sdk_errors) > errors, "the SDK's error callback")
        driver.wait_until(lambda: not driver.state()["busy"], "the page to settle")
        failure = recorder.sdk_errors[-1]
        assert (failure.stage, failure.network) == ("token", True)
        assert driver.text("service-state").startswith("Sem contato com o serviço de cartões")
        assert driver.text("status") == (
            "O cartão não foi enviado; tente de novo quando a conexão voltar."
        )
    finally:
        driver.js("XMLHttpRequest.prototype.send = window.__send; delete window.__send; true")
