"""State of the sandbox: credentials, issued tokens, charges and the delivery log.

Everything lives in memory; with `--state-file` the charges are also kept on disk
(`sandbox/statefile.py`), which learns that a charge changed from `charge_changes()`.
"""

from __future__ import annotations

import base64
import json
import logging
import secrets
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from checkout_desktop.domain.enums import CardBrand, ChargeStatus, TransactionStatus
from checkout_desktop.sandbox.cards import CardBehaviour
from checkout_desktop.sandbox.credentials import SandboxCredentials

if TYPE_CHECKING:
    from checkout_desktop.sandbox.qr import QrCharge

logger = logging.getLogger(__name__)

MERCHANT_CODE = "1000001"


class SandboxClock:
    """Wall and monotonic time with an offset tests can advance (expiry without sleeping)."""

    def __init__(self) -> None:
        self._offset = 0.0

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError("the sandbox clock only moves forward")
        self._offset += seconds

    def monotonic(self) -> float:
        return time.monotonic() + self._offset

    def now(self) -> datetime:
        return datetime.now(UTC) + timedelta(seconds=self._offset)


class _ChargeChanges:
    count = 0


def charge_changes() -> int:
    """How many times a field of any charge or transaction was set in this process.

    The state file compares it with the count at its last save to know whether to write.
    """
    return _ChargeChanges.count


class Tracked:
    """Base of the records the state file keeps: setting any of their fields counts a change.

    Every change to a charge sets one of its fields or of its transactions' (creating one sets
    them all), so the state file learns of each change without every place that makes one
    having to report it, and a new way of changing a charge cannot be forgotten. A list or dict
    a charge holds (its refunds, its customer) is only ever changed together with a field.
    """

    __slots__ = ()
    revision: int
    """`charge_changes()` right after this record's last change: the state file re-encodes
    only the charges whose records moved on since it last wrote them."""

    def __setattr__(self, name: str, value: Any) -> None:
        # Straight into the instance's dict (its fields are plain attributes): this runs for
        # every field of every charge loaded at start, where super() would double the cost.
        values = self.__dict__
        values[name] = value
        _ChargeChanges.count += 1
        values["revision"] = _ChargeChanges.count


@dataclass
class AccessToken:
    token: str
    client_id: str
    issued_at: float
    expires_at: float
    revoked: bool = False


@dataclass
class CardToken:
    """What remains of a card after tokenizing: never the full number, CVV or expiry."""

    token: str
    brand: CardBrand
    bin6: str
    last_four: str
    holder_name_masked: str
    holder_document_masked: str
    behaviour: CardBehaviour
    expires_at: float
    used: bool = False

    @property
    def masked_number(self) -> str:
        return f"{self.bin6}******{self.last_four}"


@dataclass
class SandboxTransaction(Tracked):
    transaction_id: str
    amount: int
    original_amount: int
    soft_descriptor: str | None
    installment_number: int
    installment_type: str
    card: CardToken
    status: TransactionStatus
    created_at: datetime
    updated_at: datetime
    nsu: str
    authorization_code: str | None
    response_code: str
    reason_message: str
    refunded_amount: int = 0
    merchant_transaction_id: str | None = None


@dataclass
class ThreeDsResult:
    status: str
    pares_status: str
    eci: str


@dataclass
class ThreeDsSession:
    """One 3DS authentication the sandbox plays: from setup to the 3DS authorization."""

    charge_id: str
    authentication_id: str
    merchant_charge_id: str
    amount: int
    card: CardToken
    status: str = "CREATED"
    """What the status endpoint answers: CREATED, AUTHENTICATED, REJECTED or FAILED."""
    enrolled: bool = False
    has_challenged: bool = False
    access_token: str | None = None
    authorized: bool = False


@dataclass
class SandboxCharge(Tracked):
    id: str
    merchant_charge_id: str
    status: ChargeStatus
    late_capture: bool
    payment_source: str
    smart_checkout_id: str | None
    customer: dict[str, Any]
    transactions: list[SandboxTransaction]
    created_at: datetime
    updated_at: datetime
    three_ds: ThreeDsResult | None = None

    @property
    def original_amount(self) -> int:
        return sum(t.original_amount for t in self.transactions)

    @property
    def last_revision(self) -> int:
        """The latest `revision` of the charge and its transactions."""
        revision = self.revision
        for txn in self.transactions:
            if txn.revision > revision:
                revision = txn.revision
        return revision

    @property
    def amount(self) -> int:
        return sum(t.amount for t in self.transactions)

    @property
    def refunded_amount(self) -> int:
        return sum(t.refunded_amount for t in self.transactions)


@dataclass
class DeliveryRecord:
    """One attempt (or a decision not to attempt) to deliver one notification."""

    notification_id: str
    event_type: str
    body_type: str
    merchant_charge_id: str | None
    attempt: int
    outcome: str  # delivered | http_error | timeout | connection_error | dropped | gave_up | ...
    status: int | None = None
    detail: str = ""
    at: datetime = field(default_factory=lambda: datetime.now(UTC))

    def as_json(self) -> dict[str, Any]:
        return {
            "notification_id": self.notification_id,
            "event_type": self.event_type,
            "body_type": self.body_type,
            "merchant_charge_id": self.merchant_charge_id,
            "attempt": self.attempt,
            "outcome": self.outcome,
            "status": self.status,
            "detail": self.detail,
            "at": self.at.isoformat(),
        }


@dataclass
class Notification:
    """A webhook the sandbox decided to send (whether or not it was delivered)."""

    id: str
    event_type: str
    body: dict[str, Any]
    merchant_charge_id: str | None
    created_at: datetime

    @property
    def body_type(self) -> str:
        return str(self.body.get("type", ""))


class SandboxState:
    """Everything the sandbox remembers, in memory; gone when it stops unless a state file
    keeps the charges (`sandbox/statefile.py`: tokens, 3DS sessions and logs are never kept)."""

    MAX_EXPIRED_KEPT = 10_000
    MAX_LOG_ENTRIES = 20_000
    """Notifications and delivery records kept; the oldest half goes when this is reached."""

    def __init__(self, credentials: SandboxCredentials, clock: SandboxClock) -> None:
        self.credentials = credentials
        self.clock = clock
        self.access_tokens: dict[str, AccessToken] = {}
        self.card_tokens: dict[str, CardToken] = {}
        self.charges: dict[str, SandboxCharge] = {}
        self.three_ds: dict[str, ThreeDsSession] = {}
        """3DS authentications by the service's chargeId (`sandbox/three_ds.py`)."""
        self.qr_charges: dict[str, QrCharge] = {}
        """Wallet and PIX charges (`sandbox/qr.py`); their merchantChargeIds are unique across
        both dictionaries."""
        self.notifications: list[Notification] = []
        self.deliveries: list[DeliveryRecord] = []
        self.token_requests = 0
        self.tokens_issued = 0
        self.card_tokens_issued = 0

    # -- access tokens ---------------------------------------------------------------------

    def issue_access_token(self, client_id: str, lifetime_s: float) -> AccessToken:
        self._prune_access_tokens()
        now = self.clock.monotonic()
        token = AccessToken(
            token=_jwt_shaped_token(client_id, self.clock.now(), lifetime_s),
            client_id=client_id,
            issued_at=now,
            expires_at=now + lifetime_s,
        )
        self.access_tokens[token.token] = token
        self.tokens_issued += 1
        return token

    def expire_all_access_tokens(self) -> int:
        count = 0
        for token in self.access_tokens.values():
            if not token.revoked:
                token.revoked = True
                count += 1
        return count

    def check_access_token(self, value: str) -> str | None:
        """None when the token is usable, else why not (for the 401 body)."""
        token = self.access_tokens.get(value)
        if token is None:
            return "the access token is unknown"
        if token.revoked or self.clock.monotonic() >= token.expires_at:
            return "the access token has expired"
        return None

    def _prune_access_tokens(self) -> None:
        if len(self.access_tokens) < self.MAX_EXPIRED_KEPT:
            return
        now = self.clock.monotonic()
        for key in [k for k, t in self.access_tokens.items() if t.revoked or t.expires_at <= now]:
            del self.access_tokens[key]

    # -- temporary card tokens -------------------------------------------------------------

    def add_card_token(self, token: CardToken) -> None:
        self._prune_card_tokens()
        self.card_tokens[token.token] = token
        self.card_tokens_issued += 1

    def _prune_card_tokens(self) -> None:
        if len(self.card_tokens) < self.MAX_EXPIRED_KEPT:
            return
        now = self.clock.monotonic()
        for key in [k for k, t in self.card_tokens.items() if t.expires_at <= now]:
            del self.card_tokens[key]

    # -- notifications and deliveries (bounded, so a long training day cannot grow forever) ---

    def add_notification(self, note: Notification) -> None:
        self.notifications.append(note)
        if len(self.notifications) > self.MAX_LOG_ENTRIES:
            del self.notifications[: self.MAX_LOG_ENTRIES // 2]

    def add_delivery(self, record: DeliveryRecord) -> None:
        self.deliveries.append(record)
        if len(self.deliveries) > self.MAX_LOG_ENTRIES:
            del self.deliveries[: self.MAX_LOG_ENTRIES // 2]

    # -- charges ---------------------------------------------------------------------------

    def charge_by_id(self, charge_id: str) -> SandboxCharge | None:
        for charge in self.charges.values():
            if charge.id == charge_id:
                return charge
        return None


def _jwt_shaped_token(client_id: str, issued: datetime, lifetime_s: float) -> str:
    """A three-part token matching the spec's regex (header.payload.signature).

    The regex admits only word characters and '=' in the first two parts, so base64url (which
    may contain '-') cannot be used as is; see _word_b64.
    """
    header = _word_b64(b'{"alg":"HS256","typ":"JWT"}')
    claims = {
        "sub": client_id,
        "iat": int(issued.timestamp()),
        "exp": int(issued.timestamp() + lifetime_s),
        "jti": secrets.token_hex(12),
    }
    payload = _word_b64(json.dumps(claims, separators=(",", ":")).encode())
    signature = secrets.token_urlsafe(32)
    return f"{header}.{payload}.{signature}"


def _word_b64(raw: bytes) -> str:
    # Standard base64 with '+' and '/' mapped to word characters. The token is opaque to
    # clients (only the sandbox reads it, by lookup), so the mapping need not be reversible.
    text = base64.b64encode(raw).decode("ascii").rstrip("=")
    return text.replace("+", "_").replace("/", "0")
