"""The card bridge without a browser: strict payloads, card data refused, calls held until ready."""

from __future__ import annotations

import json
import logging

import pytest
from PySide6.QtCore import QCoreApplication, QEvent
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from checkout_desktop.domain.enums import CardBrand
from checkout_desktop.ui.bridge import CardBridge, CardToken, SdkFailure, find_card_data

logger = logging.getLogger(__name__)

# Public test numbers (the SDK's README card, a Mastercard test number), never real cards.
VISA = "4111111111111111"
MASTERCARD = "5500000000000004"
TOKEN = "card_t/AIChh82EgN440hTW8vQqHcPC82EwBW"


def _token_message(**changes: object) -> str:
    body: dict[str, object] = {
        "token": TOKEN,
        "brand": "Visa",
        "lastFour": "1111",
        "holderName": "Joao da Silva",
    }
    body.update(changes)
    return json.dumps(body)


def _ready_message(**changes: object) -> str:
    body: dict[str, object] = {"protocol": 1, "sdk": "ready", "language": "pt-BR", "reason": None}
    body.update(changes)
    return json.dumps(body)


@pytest.fixture
def bridge(qapp: QApplication) -> CardBridge:
    return CardBridge()


def test_a_valid_token_message_becomes_a_card_token(bridge: CardBridge, qtbot: QtBot) -> None:
    with qtbot.waitSignal(bridge.events.token_received, timeout=1000) as blocker:
        assert bridge.tokenCreated(_token_message()) is True
    token = blocker.args[0]
    assert isinstance(token, CardToken)
    assert token.token == TOKEN
    assert token.brand is CardBrand.VISA  # "Visa" from the SDK is the known member
    assert token.last_four == "1111"
    assert token.holder_name == "Joao da Silva"
    # The repr (what a log line or a failing assert would print) does not spell the token out.
    assert TOKEN not in repr(token)


@pytest.mark.parametrize(
    "token",
    [
        # The SDK's alphabet (`^[a-zA-Z0-9./_+-]*$`) makes, by chance, what reads like an expiry
        # ("05-27", "11_2030") or a code after letters ("cid1234") inside a random token.
        "card_t/AIChh82Eg05-27hTW8vQqHcPC82EwBW",
        "card_t/x11_2030yQqHcPC82EwBWAIChh82EgN",
        "card_t/AIChhcid1234QqHcPC82EwBW",
        "card_t/3f2a0b12-34ab-4c5d-9e8f-0a1b2c3d4e5f",
    ],
)
def test_a_random_token_is_not_mistaken_for_an_expiry_or_a_code(
    bridge: CardBridge, qtbot: QtBot, caplog: pytest.LogCaptureFixture, token: str
) -> None:
    """A token is opaque: only a card number in it is refused (a leak a script cannot make
    look random); an expiry or a code pattern in random letters is chance, and refusing it
    would refuse a good card now and then with a false security event."""
    caplog.set_level(logging.WARNING)
    with qtbot.waitSignal(bridge.events.token_received, timeout=1000) as blocker:
        assert bridge.tokenCreated(_token_message(token=token)) is True
    assert blocker.args[0].token == token
    assert "security event" not in caplog.text


@pytest.mark.parametrize(
    ("changes", "why"),
    [
        ({"token": "tok_123456"}, "not a card_t/ token"),
        ({"token": "card_t/"}, "empty card_t/ token"),
        ({"token": "card_t/abc def"}, "space in the token"),
        ({"lastFour": "111"}, "three digits"),
        ({"lastFour": "11111"}, "five digits"),
        ({"lastFour": "11a1"}, "a letter"),
        ({"lastFour": 1111}, "a number, not a string"),
        ({"brand": "<script>"}, "brand is not a brand name"),
        ({"brand": ""}, "empty brand"),
        ({"holderName": "   "}, "blank holder name"),
        ({"holderName": "Joao 2"}, "digits in the holder name"),
        ({"extra": "x"}, "an unknown field"),
    ],
)
def test_malformed_token_messages_are_refused(
    bridge: CardBridge, qtbot: QtBot, changes: dict[str, object], why: str
) -> None:
    with (
        qtbot.assertNotEmitted(bridge.events.token_received),
        qtbot.waitSignal(bridge.events.message_refused, timeout=1000) as refused,
    ):
        assert bridge.tokenCreated(_token_message(**changes)) is False, why
    assert refused.args == ["tokenCreated"]


def test_a_missing_field_and_non_json_are_refused(bridge: CardBridge, qtbot: QtBot) -> None:
    body = json.loads(_token_message())
    del body["lastFour"]
    with qtbot.assertNotEmitted(bridge.events.token_received):
        assert bridge.tokenCreated(json.dumps(body)) is False
        assert bridge.tokenCreated("not json") is False
        assert bridge.tokenCreated("[]") is False
        assert bridge.tokenCreated("x" * 20_000) is False


@pytest.mark.parametrize(
    ("payload", "slot"),
    [
        # A full card number anywhere: in a field of its own, inside another field, grouped.
        (_token_message(holderName=f"JOAO {VISA}"), "tokenCreated"),
        (_token_message(token=f"card_t/{MASTERCARD}"), "tokenCreated"),
        (
            json.dumps(
                {
                    "stage": "token",
                    "network": False,
                    "errors": [{"message": "cartão 4111 1111 1111 1111 recusado"}],
                }
            ),
            "sdkFailed",
        ),
        (json.dumps({"purpose": "createTemporaryCard", "n": "4111-1111-1111-1111"}), "c"),
        # A CVV or expiry field, whatever its value and however it is spelled.
        (_token_message(cvv="123"), "tokenCreated"),
        (_token_message(CVV="123"), "tokenCreated"),
        (_token_message(security_code="1234"), "tokenCreated"),
        (json.dumps({"stage": "token", "network": False, "errors": [], "card": {"Cvv": ""}}), "s"),
        (_token_message(expirationYear="2030"), "tokenCreated"),
        (_token_message(cardNumber="x"), "tokenCreated"),
    ],
)
def test_card_data_in_any_message_is_a_security_event_logged_without_digits(
    bridge: CardBridge,
    qtbot: QtBot,
    caplog: pytest.LogCaptureFixture,
    payload: str,
    slot: str,
) -> None:
    call = {
        "tokenCreated": bridge.tokenCreated,
        "sdkFailed": bridge.sdkFailed,
        "s": bridge.sdkFailed,
        "c": bridge.credentialsNeeded,
    }[slot]
    caplog.set_level(logging.DEBUG)
    with (
        qtbot.assertNotEmitted(bridge.events.token_received),
        qtbot.assertNotEmitted(bridge.events.sdk_failed),
        qtbot.assertNotEmitted(bridge.events.credentials_requested),
        qtbot.waitSignal(bridge.events.security_event, timeout=1000) as event,
    ):
        assert call(payload) is False
    security = [r for r in caplog.records if "security event" in r.getMessage()]
    assert len(security) == 1
    logged = "\n".join(r.getMessage() for r in caplog.records) + event.args[0]
    for secret in (VISA, MASTERCARD, "4111 1111", "4111-1111", "123", "1234", "2030"):
        assert secret not in logged


def test_the_screen_finds_numbers_but_not_ordinary_digits() -> None:
    assert find_card_data(json.dumps({"lastFour": "1111", "errorCode": 1})) is None
    assert find_card_data(json.dumps({"token": TOKEN})) is None
    # Twelve digits failing the Luhn check are not a card number...
    assert find_card_data(json.dumps({"m": "123456789012"})) is None
    # ...but a run too long to be anything else is refused, since a number may hide in it.
    assert find_card_data(json.dumps({"m": "1" * 25})) is not None
    assert find_card_data(json.dumps({"m": VISA})) == "a card number"
    assert find_card_data(json.dumps([{"deep": [{"cvc": 1}]}])) == "a field named 'cvc'"


def test_malformed_messages_are_logged_without_their_values(
    bridge: CardBridge, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    assert (
        bridge.tokenCreated(_token_message(lastFour="98765", holderName="Maria Secreta")) is False
    )
    text = "\n".join(r.getMessage() for r in caplog.records)
    assert "lastFour" in text  # says where the problem is...
    assert "98765" not in text and "Maria Secreta" not in text  # ...not what was sent


def test_sdk_failures_are_parsed_and_passed_on(bridge: CardBridge, qtbot: QtBot) -> None:
    payload = {
        "stage": "token",
        "network": False,
        "errors": [{"errorCode": 1, "message": "Propriedade 'Cvv' está ausente.", "field": "Cvv"}],
    }
    with qtbot.waitSignal(bridge.events.sdk_failed, timeout=1000) as blocker:
        assert bridge.sdkFailed(json.dumps(payload)) is True
    failure = blocker.args[0]
    assert isinstance(failure, SdkFailure)
    assert failure.errors[0].field == "Cvv"
    assert failure.errors[0].message == "Propriedade 'Cvv' está ausente."
    with qtbot.assertNotEmitted(bridge.events.sdk_failed):
        bad = dict(payload, stage="somewhere")
        assert bridge.sdkFailed(json.dumps(bad)) is False


def test_python_calls_wait_for_the_page_handshake(bridge: CardBridge, qtbot: QtBot) -> None:
    seen: list[tuple[str, object]] = []
    bridge.languageChanged.connect(lambda lang: seen.append(("language", lang)))
    bridge.credentialsProvided.connect(lambda doc, tok: seen.append(("credentials", doc)))
    bridge.clearRequested.connect(lambda: seen.append(("clear", None)))

    bridge.set_language("en")
    bridge.provide_credentials("30155515000121", "tk_test")
    bridge.clear_form()
    assert seen == []  # nothing reaches a page that has not said it is ready

    assert bridge.pageReady(_ready_message(protocol=2)) is False  # wrong protocol: still held
    assert seen == []
    with qtbot.waitSignal(bridge.events.page_ready, timeout=1000):
        assert bridge.pageReady(_ready_message()) is True
    assert seen == [("language", "en"), ("credentials", "30155515000121"), ("clear", None)]

    bridge.submitRequested.connect(lambda: seen.append(("submit", None)))
    bridge.submit()  # ready now: goes at once
    assert seen[-1] == ("submit", None)

    bridge.page_reset()  # a reload: held again until the new page is ready
    bridge.clear_form()
    assert seen[-1] == ("submit", None)
    bridge.pageReady(_ready_message())
    assert seen[-1] == ("clear", None)


def test_the_page_cannot_delete_the_bridge(bridge: CardBridge, qtbot: QtBot) -> None:
    # QWebChannel publishes QObject.deleteLater to the page; calling it must be harmless.
    with qtbot.waitSignal(bridge.events.security_event, timeout=1000):
        bridge.deleteLater()
        QCoreApplication.sendPostedEvents(bridge, QEvent.Type.DeferredDelete)
    assert bridge.objectName() == ""  # still alive: a deleted object would raise here
    assert bridge.tokenCreated(_token_message()) is True


@pytest.mark.parametrize("step", ["busy", "sdk", "fields", "brand", "credentials", "token"])
def test_a_submit_the_page_refused_is_passed_on_by_its_step(
    bridge: CardBridge, qtbot: QtBot, step: str
) -> None:
    with qtbot.waitSignal(bridge.events.submit_refused, timeout=1000) as blocker:
        assert bridge.submitRefused(json.dumps({"step": step})) is True
    assert blocker.args == [step]


@pytest.mark.parametrize(
    "body",
    [
        {"step": "somewhere"},
        {"step": "fields", "field": "holder-document"},  # the step only, nothing about fields
        {"step": "fields", "value": "52998224725"},
        {"step": VISA},
        {"step": "fields", "number": VISA},
        {"step": "fields", "cvv": "123"},
        {},
        [],
    ],
)
def test_a_refusal_carries_nothing_but_its_step(
    bridge: CardBridge, qtbot: QtBot, caplog: pytest.LogCaptureFixture, body: object
) -> None:
    caplog.set_level(logging.DEBUG)
    with qtbot.assertNotEmitted(bridge.events.submit_refused):
        assert bridge.submitRefused(json.dumps(body)) is False
    assert VISA not in caplog.text and "52998224725" not in caplog.text


def test_a_token_message_the_terminal_refused_ends_the_submit(
    bridge: CardBridge, qtbot: QtBot
) -> None:
    # The page then holds no card and the terminal no token: whatever waited for one stops.
    with qtbot.waitSignal(bridge.events.submit_refused, timeout=1000) as blocker:
        assert bridge.tokenCreated(_token_message(lastFour="98765")) is False
    assert blocker.args == ["token"]
    with qtbot.waitSignal(bridge.events.submit_refused, timeout=1000) as blocker:
        assert bridge.tokenCreated(_token_message(holderName=f"JOAO {VISA}")) is False
    assert blocker.args == ["token"]


def test_a_credentials_request_the_terminal_refused_ends_the_submit(
    bridge: CardBridge, qtbot: QtBot
) -> None:
    request = json.dumps({"purpose": "createTemporaryCard"})
    bridge.provide_credentials("30155515000121", "tk_sdk_merchant_token")
    with qtbot.waitSignal(bridge.events.submit_refused, timeout=1000) as blocker:
        assert bridge.credentialsNeeded(request) is False  # handed over already
    assert blocker.args == ["credentials"]
