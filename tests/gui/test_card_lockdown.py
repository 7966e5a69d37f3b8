"""The card page in real QtWebEngine without a card service: lockdown, texts, failure states."""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWebEngineCore import QWebEnginePage

from checkout_desktop.domain.reasons import Reason, ReasonCode
from checkout_desktop.settings import default_profiles
from checkout_desktop.ui.card_page import CardPage
from checkout_desktop.ui.chromium import FLAGS_ENV
from checkout_desktop.ui.webview import CardPageConfig

if TYPE_CHECKING:
    from tests.gui.card_fixtures import CardUi, PageDriver, PageRecorder

    PageParts = tuple[CardPage, PageDriver, PageRecorder]

pytest_plugins = ["tests.gui.card_fixtures"]
pytestmark = pytest.mark.webengine

logger = logging.getLogger(__name__)


@pytest.fixture(scope="module")
def production_page(card_ui: CardUi) -> Iterator[PageParts]:
    """The production SDK build, whose backend cannot resolve in tests: nothing leaves."""
    # The plugin set these flags before QtWebEngine started; without them this page could
    # reach the real production host, so refuse to run rather than risk it.
    assert card_ui.isolation_rules in os.environ[FLAGS_ENV]
    config = CardPageConfig.from_profile(default_profiles()["production"], language="pt-BR")
    parts = card_ui.open_page(config)
    yield parts
    card_ui.close_page(parts[0])


def test_the_sdk_loads_from_our_scheme_in_an_off_the_record_profile(
    production_page: PageParts,
) -> None:
    card_page, driver, recorder = production_page
    assert card_page.sdk_ready and recorder.ready == 1
    assert driver.state()["sdk"] == "ready"
    assert driver.hidden("sdk-state")
    assert card_page.page.url().toString() == "checkout-desktop://card/index.html"
    assert card_page.page.profile().isOffTheRecord()
    # The page sees the channel transport and, through it, one object: the card bridge.
    assert driver.js("JSON.stringify(Object.keys(window.qt))") == '["webChannelTransport"]'


def test_navigation_away_and_new_windows_are_refused(
    production_page: PageParts, caplog: pytest.LogCaptureFixture
) -> None:
    card_page, driver, recorder = production_page
    caplog.set_level(logging.INFO)
    before = len(recorder.navigation_refused)
    driver.js("window.location.href = 'https://example.org/?n=4111111111111111'; true")
    driver.wait_until(lambda: len(recorder.navigation_refused) > before, "the navigation refusal")
    driver.js("window.location.href = 'checkout-desktop://card/card.js'; true")
    driver.wait_until(lambda: len(recorder.navigation_refused) > before + 1, "the second refusal")
    assert recorder.navigation_refused[before:] == [
        "https://example.org",
        "checkout-desktop://card",
    ]
    assert card_page.page.url().toString() == "checkout-desktop://card/index.html"
    assert driver.state()["sdk"] == "ready"  # still the same, live page
    # The query string (which could carry what was typed) never reaches the log.
    assert "4111111111111111" not in caplog.text and "?n=" not in caplog.text

    assert driver.js("window.open('checkout-desktop://card/index.html') === null") is True
    refused = card_page.page.createWindow(QWebEnginePage.WebWindowType.WebBrowserTab)
    assert refused is None


@pytest.mark.expected_errors(r"card page console: .*Content Security Policy")
def test_csp_blocks_eval_inline_and_foreign_hosts(production_page: PageParts) -> None:
    _, driver, _ = production_page
    result = driver.js(
        "(function () { try { eval('1'); return 'eval ran'; } catch (e) { return e.name; } }())"
    )
    assert result == "EvalError"
    driver.js(
        "window.__violations = [];"
        "document.addEventListener('securitypolicyviolation', function (e) {"
        "  window.__violations.push(e.effectiveDirective); });"
        "var s = document.createElement('script'); s.src = 'https://example.org/x.js';"
        "document.head.appendChild(s);"
        "var i = document.createElement('script'); i.textContent = 'window.__inline = 1';"
        "document.head.appendChild(i);"
        "fetch('https://example.org/').catch(function () {}); true"
    )
    driver.wait_until(
        lambda: len(json.loads(str(driver.js("JSON.stringify(window.__violations)")))) >= 3,
        "three CSP violation reports",
    )
    violations = json.loads(str(driver.js("JSON.stringify(window.__violations)")))
    assert sorted(set(violations)) == ["connect-src", "script-src-elem"]
    assert driver.js("typeof window.__inline") == "undefined"


def test_context_menu_and_dev_tools_are_off(
    production_page: PageParts, caplog: pytest.LogCaptureFixture
) -> None:
    card_page, _, _ = production_page
    caplog.set_level(logging.WARNING)
    assert card_page.view.contextMenuPolicy() == Qt.ContextMenuPolicy.NoContextMenu
    for action in (QWebEnginePage.WebAction.InspectElement, QWebEnginePage.WebAction.ViewSource):
        card_page.page.triggerAction(action)
    assert "refused the InspectElement action" in caplog.text
    assert "refused the ViewSource action" in caplog.text
    assert card_page.page.url().toString() == "checkout-desktop://card/index.html"


def test_console_messages_reach_the_log_redacted(
    production_page: PageParts, caplog: pytest.LogCaptureFixture
) -> None:
    _, driver, _ = production_page
    caplog.set_level(logging.INFO, logger="checkout_desktop.ui.webview")
    driver.js("console.log('probe 4111 1111 1111 1111 and tk_abcdef123'); true")
    driver.wait_until(lambda: "probe" in caplog.text, "the console message in the log")
    line = next(r.getMessage() for r in caplog.records if "probe" in r.getMessage())
    assert "[card number]" in line and "tk_[redacted]" in line
    assert "4111" not in line and "abcdef123" not in line


def test_unreachable_service_shows_a_clear_state(production_page: PageParts) -> None:
    card_page, driver, recorder = production_page
    # Six digits only (a BIN): the brand lookup is the call that fails to connect.
    driver.type_into("number", "411111")
    driver.wait_until(lambda: bool(recorder.sdk_errors), "the SDK's error callback")
    failure = recorder.sdk_errors[-1]
    assert failure.stage == "brand" and failure.network
    assert failure.errors[0].message == "Network Error"
    assert not driver.hidden("service-state")
    assert driver.text("service-state").startswith("Sem contato com o serviço de cartões")
    assert driver.text("brand") == ""

    card_page.set_language("en")
    driver.wait_text("service-state", lambda t: t.startswith("Cannot reach"), "in English")
    assert driver.text("submit") == "Add card"
    assert driver.js("document.querySelector('label[for=cvv]').textContent") == (
        "Security code (CVV)"
    )
    assert driver.js("document.documentElement.lang") == "en"
    card_page.clear()
    driver.wait_until(lambda: driver.value("number") == "", "the form to clear")
    card_page.set_language("pt-BR")
    driver.wait_text("submit", lambda t: t == "Adicionar cartão", "back in Portuguese")


def test_fields_are_labelled_and_tab_follows_the_card(production_page: PageParts) -> None:
    card_page, driver, _ = production_page
    labels = json.loads(
        str(
            driver.js(
                "JSON.stringify(Array.prototype.map.call(document.querySelectorAll('input'),"
                " function (i) { var l = document.querySelector('label[for=' + i.id + ']');"
                " return [i.id, l ? l.textContent : null,"
                " i.getAttribute('aria-describedby') || '']; }))"
            )
        )
    )
    assert [(name, label) for name, label, _ in labels] == [
        ("number", "Número do cartão"),
        ("holder-name", "Nome impresso no cartão"),
        ("holder-document", "CPF ou CNPJ do titular"),
        ("exp-month", "Mês (MM)"),
        ("exp-year", "Ano (AA)"),
        ("cvv", "Código de segurança (CVV)"),
    ]
    assert all(f"{name}-error" in described for name, _, described in labels)
    driver.js("document.getElementById('number').focus(); true")
    order = [str(driver.js("document.activeElement.id"))]
    for _ in range(6):
        QTest.keyClick(card_page.view.focusProxy(), Qt.Key.Key_Tab)
        driver.wait_until(
            lambda: driver.js("document.activeElement.id") != order[-1], "focus to move"
        )
        order.append(str(driver.js("document.activeElement.id")))
    assert order == [
        "number",
        "holder-name",
        "holder-document",
        "exp-month",
        "exp-year",
        "cvv",
        "submit",
    ]


def test_local_checks_run_before_any_sdk_call(production_page: PageParts) -> None:
    card_page, driver, recorder = production_page
    credentials_asked: list[bool] = []
    card_page.credentials_needed.connect(lambda: credentials_asked.append(True))
    # Luhn fails (last digit changed), CPF check digits wrong, month 13, CVV short.
    before_typing = len(recorder.sdk_errors)
    driver.fill(number="4111111111111112", holder_document="65844359039", month="13", cvv="12")
    # Six digits in, the page looked the brand up (and could not reach the service here).
    driver.wait_until(lambda: len(recorder.sdk_errors) > before_typing, "the brand lookup")
    errors_before = len(recorder.sdk_errors)
    refusals_before = len(recorder.refusals)
    driver.press_submit()
    errors = {
        field: driver.text(f"{field}-error")
        for field in ("number", "holder-document", "exp-month", "cvv")
    }
    assert errors == {
        "number": "Este número de cartão não é válido; confira os dígitos.",
        "holder-document": "Digite um CPF (11 dígitos) ou CNPJ (14 dígitos) válido.",
        "exp-month": "Digite um mês de 01 a 12.",
        "cvv": "Digite o código de 3 dígitos (4 no American Express).",
    }
    assert driver.js("document.getElementById('number').getAttribute('aria-invalid')") == "true"
    assert driver.js("document.activeElement.id") == "number"  # focus on the first problem
    assert driver.text("holder-name-error") == ""
    driver.wait_until(lambda: not driver.state()["busy"], "the form to settle")
    assert credentials_asked == [] and len(recorder.sdk_errors) == errors_before
    # The terminal hears that the form refused the card (which step, never a field's value).
    driver.wait_until(lambda: len(recorder.refusals) > refusals_before, "the refusal")
    assert recorder.refusals[refusals_before:] == ["fields"]
    card_page.clear()
    driver.wait_until(lambda: driver.all_field_values() == [""] * 6, "the form to clear")


@pytest.fixture(scope="module")
def page_without_sdk(
    card_ui: CardUi, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[PageParts]:
    missing = tmp_path_factory.mktemp("no-sdk") / "pp-transparent.js"
    config = CardPageConfig(
        resources=CardPageConfig.from_profile(default_profiles()["production"]).resources,
        backend_host="checkout.picpay.com",
        sdk_file=Path(missing),
        language="en",
    )
    parts = card_ui.open_page(config)
    yield parts
    card_ui.close_page(parts[0])


def test_a_missing_sdk_script_shows_a_clear_state(page_without_sdk: PageParts) -> None:
    card_page, driver, recorder = page_without_sdk
    assert recorder.unavailable == [Reason.of(ReasonCode.SDK_LOAD)]
    assert recorder.ready == 0 and not card_page.sdk_ready
    assert not driver.hidden("sdk-state")
    assert driver.text("sdk-state").startswith("The card service script could not be loaded.")
    assert driver.js("document.getElementById('card-fields').disabled") is True
    assert driver.state()["sdk"] == "unavailable"
    # A submit the page cannot make is refused aloud, not dropped.
    card_page.submit()
    driver.wait_until(lambda: recorder.refusals == ["sdk"], "the refusal")


def test_developer_mode_allows_the_inspector(card_ui: CardUi) -> None:
    config = CardPageConfig.from_profile(
        default_profiles()["production"], language="en", developer=True
    )
    card_page, driver, _ = card_ui.open_page(config)
    try:
        assert card_page.view.contextMenuPolicy() == Qt.ContextMenuPolicy.DefaultContextMenu
        card_page.page.triggerAction(QWebEnginePage.WebAction.InspectElement)
        driver.wait_until(lambda: card_page.page.devToolsPage() is not None, "the inspector")
        assert card_page.view.dev_tools is not None and card_page.view.dev_tools.isVisible()
    finally:
        card_ui.close_page(card_page)


def test_an_unreachable_service_is_not_called_an_unknown_brand(
    production_page: PageParts,
) -> None:
    _, driver, recorder = production_page
    refusals = list(recorder.refusals)
    errors = len(recorder.sdk_errors)
    driver.fill(number="4111111111111111")
    driver.press_submit()
    # The brand lookup cannot connect: the page says so, and only so.
    driver.wait_until(lambda: len(recorder.sdk_errors) > errors, "the SDK's error callback")
    driver.wait_until(lambda: not driver.state()["busy"], "the submit to end")
    # The failure told the terminal already: no second word contradicts it.
    driver.js("true")
    assert recorder.refusals == refusals
    assert not driver.hidden("service-state")
    assert driver.text("service-state").startswith("Sem contato com o serviço de cartões")
    assert "bandeira" not in driver.text("number-error")


def test_an_unreachable_service_is_said_once_and_the_line_by_the_button_says_what_became_of_the_card(
    production_page: PageParts,
) -> None:
    # The banner's sentence was repeated word for word under the button.
    _, driver, recorder = production_page
    errors = len(recorder.sdk_errors)
    driver.fill(number="4111111111111111")
    driver.press_submit()
    driver.wait_until(lambda: len(recorder.sdk_errors) > errors, "the SDK's error callback")
    driver.wait_until(lambda: not driver.state()["busy"], "the submit to end")
    banner = driver.text("service-state")
    assert banner.startswith("Sem contato com o serviço de cartões")
    assert (
        driver.text("status") == "O cartão não foi enviado; tente de novo quando a conexão voltar."
    )
