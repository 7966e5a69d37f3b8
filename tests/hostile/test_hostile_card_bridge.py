"""A script in the card page trying to pass card data or tokens through the bridge.

Each spelling here once crossed the screen: JSON escapes, dots, underscores, slashes,
no-break spaces, fullwidth digits, a number split across fields, CVV and expiry as values, a
brand carrying digits, console messages with the number in a URL's query, and a page asking
for the SDK credentials again and again.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from checkout_desktop.paths import resources_dir
from checkout_desktop.ui.bridge import CardBridge, find_card_data
from checkout_desktop.ui.webview import console_text

# Public test numbers, never real cards.
VISA = "4111111111111111"
MASTERCARD = "5500000000000004"
TOKEN = "card_t/AIChh82EgN440hTW8vQqHcPC82EwBW"


def _escaped(number: str) -> str:
    return "".join(f"\\u{ord(c):04x}" for c in number)


def _fullwidth(number: str) -> str:
    return "".join(chr(0xFF10 + int(c)) for c in number)


def _sdk_failure(message: str) -> str:
    return json.dumps(
        {"stage": "token", "network": False, "errors": [{"message": message}]},
        ensure_ascii=False,
    )


def _escaped_failure(number: str) -> str:
    # Written by hand so the escapes reach the bridge as they would from JSON.stringify
    # of a string built with \\u escapes.
    return (
        '{"stage": "token", "network": false, "errors": [{"message": "x '
        + _escaped(number)
        + '"}]}'
    )


def _token(**changes: object) -> str:
    body: dict[str, object] = {
        "token": TOKEN,
        "brand": "Visa",
        "lastFour": "0004",
        "holderName": "Joao da Silva",
    }
    body.update(changes)
    return json.dumps(body, ensure_ascii=False)


HOSTILE: dict[str, tuple[str, str]] = {
    "JSON escapes": ("sdkFailed", _escaped_failure(MASTERCARD)),
    "dots": ("sdkFailed", _sdk_failure("5500.0000.0000.0004")),
    "underscores": ("sdkFailed", _sdk_failure("5500_0000_0000_0004")),
    "slashes": ("sdkFailed", _sdk_failure("5500/0000/0000/0004")),
    "no-break spaces": ("sdkFailed", _sdk_failure("5500\u00a00000\u00a00000\u00a00004")),
    "narrow no-break spaces": ("sdkFailed", _sdk_failure("5500\u202f0000\u202f0000\u202f0004")),
    "fullwidth digits": ("sdkFailed", _sdk_failure(_fullwidth(MASTERCARD))),
    "split across two errors": (
        "sdkFailed",
        json.dumps(
            {
                "stage": "token",
                "network": False,
                "errors": [{"message": "a 55000000"}, {"message": "b 00000004"}],
            }
        ),
    ),
    "split across holder and brand": ("tokenCreated", _token(holderName="Ana 5500000000000004")),
    "CVV as a value": ("sdkFailed", _sdk_failure("cvv: 123")),
    "CVV alone in a field": ("sdkFailed", _sdk_failure("737")),
    "expiry as a value": ("sdkFailed", _sdk_failure("12/2030")),
    "expiry with dashes": ("sdkFailed", _sdk_failure("validade 09-31")),
    "brand with digits": ("tokenCreated", _token(brand="Visa 123 12 2030")),
    "number inside the token": ("tokenCreated", _token(token=f"card_t/{MASTERCARD}")),
}


@pytest.fixture
def bridge(qapp: QApplication) -> CardBridge:
    return CardBridge()


def _slot(bridge: CardBridge, name: str) -> Callable[[str], bool]:
    slot: Callable[[str], bool] = getattr(bridge, name)
    return slot


@pytest.mark.parametrize("name", list(HOSTILE))
def test_card_data_in_any_spelling_is_refused(
    bridge: CardBridge, qtbot: QtBot, caplog: pytest.LogCaptureFixture, name: str
) -> None:
    slot, payload = HOSTILE[name]
    caplog.set_level(logging.DEBUG)
    with (
        qtbot.assertNotEmitted(bridge.events.sdk_failed),
        qtbot.assertNotEmitted(bridge.events.token_received),
    ):
        assert _slot(bridge, slot)(payload) is False
    logged = caplog.text
    for secret in (MASTERCARD, "5500", "0004", "2030", "123", "737", "09-31"):
        assert secret not in logged, (name, logged)


@pytest.mark.parametrize(
    "payload",
    [
        _token(),
        _token(brand="MASTERCARD", lastFour="4444"),
        _token(brand="elo"),
        _sdk_failure("Propriedade 'Cvv' está ausente."),
        _sdk_failure("Número do cartão inválido"),
        json.dumps(
            {
                "stage": "token",
                "network": False,
                "errors": [{"errorCode": 400, "message": "Erro", "field": "Cvv"}] * 3,
            }
        ),
    ],
)
def test_ordinary_messages_still_pass(payload: str) -> None:
    assert find_card_data(payload) is None


def test_brands_are_a_closed_set(bridge: CardBridge, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    assert bridge.tokenCreated(_token(brand="Visa")) is True
    assert bridge.tokenCreated(_token(brand="Supercard")) is False
    assert "Supercard" not in caplog.text


def test_credentials_are_handed_over_once_per_page_load(
    bridge: CardBridge, qtbot: QtBot, caplog: pytest.LogCaptureFixture
) -> None:
    asked: list[int] = []
    bridge.events.credentials_requested.connect(lambda: asked.append(1))
    given: list[str] = []
    bridge.credentialsProvided.connect(lambda doc, tok: given.append(tok))
    bridge.pageReady(json.dumps({"protocol": 1, "sdk": "ready", "language": "pt-BR"}))
    request = json.dumps({"purpose": "createTemporaryCard"})
    assert bridge.credentialsNeeded(request) is True
    bridge.provide_credentials("30155515000121", "tk_sdk_merchant_token")
    for _ in range(50):
        assert bridge.credentialsNeeded(request) is False
    assert asked == [1]
    assert given == ["tk_sdk_merchant_token"]
    assert "asked for the SDK credentials again" in caplog.text
    # A new page load (a new sale) may ask once more.
    bridge.page_reset()
    assert bridge.credentialsNeeded(request) is True
    assert asked == [1, 1]


def test_refused_requests_are_bounded(bridge: CardBridge) -> None:
    request = json.dumps({"purpose": "createTemporaryCard"})
    answers = [bridge.credentialsNeeded(request) for _ in range(20)]
    assert answers.count(True) == 5
    assert answers[5:] == [False] * 15


@pytest.mark.parametrize(
    "message",
    [
        "Refused to connect to 'https://evil.example/c?n=5500000000000004&x=1' because it "
        "violates the following Content Security Policy directive",
        "Refused to load https://evil.example/p.js#5500000000000004",
        f"typed {_fullwidth(MASTERCARD)}",
        "typed 5500.0000.0000.0004",
    ],
)
def test_console_messages_lose_queries_and_card_numbers(message: str) -> None:
    shown = console_text(message)
    assert "5500" not in shown
    assert "0004" not in shown
    if "https://" in message:
        assert "https://evil.example/" in shown
        assert "query dropped" in shown


def test_the_page_carries_no_second_csp() -> None:
    page = Path(resources_dir() / "card" / "index.html").read_text(encoding="utf-8")
    assert 'http-equiv="Content-Security-Policy"' not in page


def _browser(**changes: object) -> str:
    body: dict[str, object] = {
        "javaEnabled": False,
        "colorDepth": 24,
        "screenHeight": 768,
        "screenWidth": 1366,
        "timeDifference": 180,
        "language": "pt-BR",
    }
    body.update(changes)
    return json.dumps(body, ensure_ascii=False)


BROWSER_HOSTILE: dict[str, str] = {
    # Only numbers, flags and a language tag pass: no free text can ride on the 3DS message.
    "a card number as the language": _browser(language="pt-4111111111111111"),
    "a card number under an extra field": _browser(userAgent=f"Mozilla {MASTERCARD}"),
    "the CVV under an extra field": _browser(cvv="123"),
    "a screen size as text": _browser(screenWidth="1366"),
    "a number beyond any screen": _browser(screenHeight=10**12),
    "a time offset beyond any zone": _browser(timeDifference=5000),
    "not an object": json.dumps([MASTERCARD]),
}


@pytest.mark.parametrize("name", list(BROWSER_HOSTILE))
def test_the_browser_message_carries_nothing_but_its_measures(
    bridge: CardBridge, caplog: pytest.LogCaptureFixture, name: str
) -> None:
    caplog.set_level(logging.DEBUG)
    assert bridge.browserInfo(BROWSER_HOSTILE[name]) is False
    assert bridge.browser_report is None
    assert MASTERCARD not in caplog.text
    assert "4111111111111111" not in caplog.text


def test_a_plain_browser_message_is_kept_until_the_page_reloads(bridge: CardBridge) -> None:
    assert bridge.browserInfo(_browser()) is True
    report = bridge.browser_report
    assert report is not None
    assert (report.screenWidth, report.screenHeight, report.language) == (1366, 768, "pt-BR")
    bridge.page_reset()
    assert bridge.browser_report is None
