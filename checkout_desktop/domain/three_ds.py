"""3-D Secure as the service documents it: the policy, the flow's steps and its wire models.

The service runs 3DS as calls of their own under `/api/v1/charge/3ds/`: setup (the SDK's
one-time card token), enrollment (the customer and the shopper's `browser` data), an issuer
challenge when enrollment says `Challenged`, the result by notification or by the status
endpoint, then the 3DS authorization, which is the call that moves money. Pure models and
rules here; the flow that sends them is `charges/three_ds.py`.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from checkout_desktop.domain.reasons import Reason, ReasonCode
from checkout_desktop.domain.three_ds_policy import ThreeDsFallback, ThreeDsMode, ThreeDsPolicy
from checkout_desktop.domain.wire import Inbound, Outbound

logger = logging.getLogger(__name__)


class ThreeDsStep(StrEnum):
    """Where one 3DS flow stands; each step is written before the call it names is sent."""

    SETUP = "SETUP"
    """Setup recorded; it may have been sent (it moves no money)."""
    ENROLLMENT = "ENROLLMENT"
    """Setup answered (the service's chargeId is known); enrollment may have been sent."""
    CHALLENGE = "CHALLENGE"
    """Enrollment said `Challenged`: the customer answers the issuer's challenge."""
    AUTHORIZATION = "AUTHORIZATION"
    """Authenticated; the 3DS authorization (the money call) may have been sent."""
    FALLBACK = "FALLBACK"
    """Authentication failed and the policy charges without 3DS: the plain authorization may
    have been sent."""
    DONE = "DONE"
    """The money call was answered or settled by asking: the attempt says the rest."""
    ENDED = "ENDED"
    """Ended before any money call was sent: nothing was charged."""


MONEY_STEPS = frozenset({ThreeDsStep.AUTHORIZATION, ThreeDsStep.FALLBACK})
"""Steps whose call may have moved money: a lost reply is settled by asking, never resent."""
OPEN_STEPS = frozenset(
    {
        ThreeDsStep.SETUP,
        ThreeDsStep.ENROLLMENT,
        ThreeDsStep.CHALLENGE,
        ThreeDsStep.AUTHORIZATION,
        ThreeDsStep.FALLBACK,
    }
)


class AuthenticationResult(StrEnum):
    """How the customer's authentication ended, as the terminal sees it."""

    AUTHENTICATED = "AUTHENTICATED"
    REJECTED = "REJECTED"
    FAILED = "FAILED"
    """The service could not authenticate (unavailable, refused the setup, an error)."""
    CANCELLED = "CANCELLED"
    """The clerk closed the challenge."""
    TIMED_OUT = "TIMED_OUT"
    """No result arrived in time, by notification or by asking."""
    NAVIGATION_REFUSED = "NAVIGATION_REFUSED"
    """The bank's page tried to take the customer to an address the challenge view refuses."""


FALLBACK_RESULTS = frozenset({AuthenticationResult.FAILED})
"""The only ends after which the `without` fallback may charge the card without 3DS: the
service could not authenticate at all (unavailable, a setup or enrollment it refused, no
browser data). A bank that rejected the customer, a confirmation cancelled at the counter, one
nobody answered, or a bank page that tried to send the customer elsewhere never moves money
without 3DS: each may be the card's holder saying no, or someone who is not its holder."""


@dataclass(frozen=True)
class ThreeDsFlowRecord:
    """One 3DS flow as stored (never the challenge's access token: it is a credential)."""

    merchant_charge_id: str
    sale_id: str
    step: ThreeDsStep
    charge_id: str | None
    authentication_id: str | None
    result: str | None
    step_up_url: str | None
    width: int | None
    height: int | None
    created_at: datetime
    updated_at: datetime

    @property
    def open(self) -> bool:
        return self.step in OPEN_STEPS


# -- the status endpoint's and the notification's words --------------------------------------

STATUS_RESULTS: Mapping[str, AuthenticationResult | None] = {
    "CREATED": None,
    "AUTHENTICATED": AuthenticationResult.AUTHENTICATED,
    "REJECTED": AuthenticationResult.REJECTED,
    "FAILED": AuthenticationResult.FAILED,
}
"""`GET …/3ds/{chargeId}/status` → result (None: not decided yet)."""

NOTIFIED_RESULTS: Mapping[str, AuthenticationResult | None] = {
    "Approved": AuthenticationResult.AUTHENTICATED,
    "Rejected": AuthenticationResult.REJECTED,
    "Challenged": None,
}
"""A `THREE_DS_CHALLENGE` notification's `data.status` → result (None: not decided yet)."""

NOTIFIED_WORDS: Mapping[AuthenticationResult, str] = {
    result: word for word, result in NOTIFIED_RESULTS.items() if result is not None
}
"""The notification's word for a decided result (FAILED, say, has none)."""


_WHY = {
    AuthenticationResult.AUTHENTICATED: ReasonCode.TDS_WHY_AUTHENTICATED,
    AuthenticationResult.REJECTED: ReasonCode.TDS_WHY_REJECTED,
    AuthenticationResult.FAILED: ReasonCode.TDS_WHY_FAILED,
    AuthenticationResult.CANCELLED: ReasonCode.TDS_WHY_CANCELLED,
    AuthenticationResult.TIMED_OUT: ReasonCode.TDS_WHY_TIMED_OUT,
    AuthenticationResult.NAVIGATION_REFUSED: ReasonCode.TDS_WHY_NAVIGATION_REFUSED,
}


def result_reason(result: AuthenticationResult) -> Reason:
    """How an authentication ended, in words (the `why` of the flow's reasons)."""
    return Reason.of(_WHY[result])


def status_result(status: str) -> AuthenticationResult | None:
    """The result a status-endpoint answer means; an unknown word means not decided yet."""
    return STATUS_RESULTS.get(status.upper())


def notified_result(status: str | None) -> AuthenticationResult | None:
    return None if status is None else NOTIFIED_RESULTS.get(status)


# -- wire models -------------------------------------------------------------------------------

_Text = Annotated[str, StringConstraints(min_length=1, max_length=2048)]


class BrowserInfo(BaseModel):
    """The shopper's browser, as enrollment asks for it; the card page collects it itself.

    It comes over the page's bridge, so it is strict: only these fields, each in its range.
    """

    model_config = ConfigDict(extra="forbid", strict=True, hide_input_in_errors=True)

    httpAcceptBrowserValue: _Text
    httpAcceptContent: _Text
    httpBrowserJavaEnabled: bool
    httpBrowserJavaScriptEnabled: bool
    httpBrowserColorDepth: Annotated[int, Field(ge=1, le=64)]
    httpBrowserScreenHeight: Annotated[int, Field(ge=1, le=100_000)]
    httpBrowserScreenWidth: Annotated[int, Field(ge=1, le=100_000)]
    httpBrowserTimeDifference: Annotated[int, Field(ge=-900, le=900)]
    """Minutes from UTC, as JavaScript's getTimezoneOffset gives them."""
    httpBrowserLanguage: Annotated[
        str, StringConstraints(pattern=r"^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8}){0,3}$")
    ]
    userAgentBrowserValue: _Text


class SetupTransactionReply(Inbound):
    cardholderAuthenticationId: Annotated[str, StringConstraints(min_length=1, max_length=200)]


class SetupReply(Inbound):
    chargeId: Annotated[str, StringConstraints(min_length=1, max_length=200)]
    transactions: Annotated[list[SetupTransactionReply], Field(min_length=1)]


class EnrollmentTransactionReply(Inbound):
    cardholderAuthenticationStatus: str
    accessToken: str | None = None
    stepUpUrl: str | None = None
    widthChallenge: int | None = None
    heightChallenge: int | None = None


class EnrollmentReply(Inbound):
    chargeId: str | None = None
    chargeStatus: str | None = None
    transactions: Annotated[list[EnrollmentTransactionReply], Field(min_length=1)]


class StatusReply(Inbound):
    status: str
    hasChallenged: bool | None = None


class AuthorizationCard(Outbound):
    cardholderAuthenticationId: str


class AuthorizationTransaction(Outbound):
    installmentNumber: int
    installmentType: str
    card: AuthorizationCard


class ThreeDsAuthorizationRequest(Outbound):
    chargeId: str
    capture: bool
    transactions: Annotated[list[AuthorizationTransaction], Field(min_length=1, max_length=1)]


@dataclass(frozen=True)
class Challenge:
    """What the issuer's challenge needs on screen: where to post, the JWT, the frame's size."""

    merchant_charge_id: str
    step_up_url: str
    access_token: str
    width: int
    height: int

    def __repr__(self) -> str:
        # The access token is a credential for the challenge: kept out of logs.
        return (
            f"Challenge({self.merchant_charge_id}, {self.step_up_url}, {self.width}x{self.height})"
        )


def enrollment_body(
    charge_id: str,
    customer: Mapping[str, Any],
    browser: BrowserInfo,
    amount: int,
    card: Mapping[str, str],
) -> dict[str, Any]:
    """The enrollment request: the card is the one setup named, by its token, never a number."""
    return {
        "chargeId": charge_id,
        "customer": dict(customer),
        "browser": browser.model_dump(mode="json"),
        "transactions": [{"amount": amount, "card": dict(card)}],
    }


__all__ = [
    "FALLBACK_RESULTS",
    "MONEY_STEPS",
    "OPEN_STEPS",
    "AuthenticationResult",
    "BrowserInfo",
    "Challenge",
    "EnrollmentReply",
    "SetupReply",
    "StatusReply",
    "ThreeDsAuthorizationRequest",
    "ThreeDsFallback",
    "ThreeDsFlowRecord",
    "ThreeDsMode",
    "ThreeDsPolicy",
    "ThreeDsStep",
    "enrollment_body",
    "notified_result",
    "result_reason",
    "status_result",
]
