"""3-D Secure's pure rules: when the policy applies, what the service's words mean, the strict
browser model and the challenge's repr."""

from __future__ import annotations

import logging

import pytest
from pydantic import ValidationError

from checkout_desktop.domain.three_ds import (
    AuthenticationResult,
    BrowserInfo,
    Challenge,
    ThreeDsPolicy,
    notified_result,
    status_result,
)

logger = logging.getLogger(__name__)

BROWSER = {
    "httpAcceptBrowserValue": "text/html",
    "httpAcceptContent": "text/html",
    "httpBrowserJavaEnabled": False,
    "httpBrowserJavaScriptEnabled": True,
    "httpBrowserColorDepth": 24,
    "httpBrowserScreenHeight": 768,
    "httpBrowserScreenWidth": 1366,
    "httpBrowserTimeDifference": 180,
    "httpBrowserLanguage": "pt-BR",
    "userAgentBrowserValue": "QtWebEngine",
}


@pytest.mark.parametrize(
    ("policy", "amount", "cards", "applies"),
    [
        (ThreeDsPolicy(), 10_000, 1, False),
        (ThreeDsPolicy(mode="always"), 1, 1, True),
        (ThreeDsPolicy(mode="always"), 10_000, 2, False),
        (ThreeDsPolicy(mode="above", above_centavos=5_000), 4_999, 1, False),
        (ThreeDsPolicy(mode="above", above_centavos=5_000), 5_000, 1, True),
    ],
)
def test_when_the_policy_applies(
    policy: ThreeDsPolicy, amount: int, cards: int, applies: bool
) -> None:
    assert policy.applies(amount, cards) is applies


def test_the_service_words_for_a_result() -> None:
    assert status_result("CREATED") is None
    assert status_result("AUTHENTICATED") == AuthenticationResult.AUTHENTICATED
    assert status_result("rejected") == AuthenticationResult.REJECTED
    assert status_result("FAILED") == AuthenticationResult.FAILED
    # A word the docs do not list means "not decided yet": the flow keeps waiting.
    assert status_result("PROCESSING") is None
    assert notified_result("Approved") == AuthenticationResult.AUTHENTICATED
    assert notified_result("Rejected") == AuthenticationResult.REJECTED
    assert notified_result("Challenged") is None
    assert notified_result(None) is None


def test_the_browser_model_is_strict() -> None:
    assert BrowserInfo.model_validate(BROWSER).httpBrowserScreenWidth == 1366
    for change in (
        {"httpBrowserScreenWidth": "1366"},
        {"httpBrowserColorDepth": 0},
        {"httpBrowserLanguage": "pt BR"},
        {"cardNumber": "4111111111111111"},
    ):
        with pytest.raises(ValidationError) as caught:
            BrowserInfo.model_validate({**BROWSER, **change})
        assert "4111111111111111" not in str(caught.value)


def test_a_challenge_keeps_its_access_token_out_of_logs() -> None:
    challenge = Challenge("t-1", "https://acs.example/step-up", "eyJ.secret.sig", 390, 400)
    assert "eyJ.secret.sig" not in repr(challenge)
    assert "390x400" in repr(challenge)
