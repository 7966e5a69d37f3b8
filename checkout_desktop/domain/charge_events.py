"""Typed domain events of charging: token state, attempts, charge changes and reconciliation."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum

from checkout_desktop.domain.events import DomainEvent
from checkout_desktop.domain.reasons import Reason
from checkout_desktop.domain.records import MergeResult, MoneyOpRecord
from checkout_desktop.domain.state import AttemptState

logger = logging.getLogger(__name__)


class TokenStatus(StrEnum):
    NONE = "none"
    """No token requested yet."""
    REFRESHING = "refreshing"
    VALID = "valid"
    EXPIRED = "expired"
    FAILED = "failed"


@dataclass(frozen=True, kw_only=True)
class TokenStateChanged(DomainEvent):
    """The access token was obtained, renewed, rejected or could not be obtained."""

    status: TokenStatus
    valid_until: datetime | None
    seconds_left: float | None
    token_requests: int
    error: Reason | None = None
    """Why the last token request failed (rendered in the UI language)."""
    clock_skew_s: float | None = None


@dataclass(frozen=True, kw_only=True)
class AttemptChanged(DomainEvent):
    """A charge attempt was recorded or moved on (published after its commit)."""

    merchant_charge_id: str
    sale_id: str
    state: AttemptState
    reason: Reason


@dataclass(frozen=True, kw_only=True)
class ChargeChanged(DomainEvent):
    """An input changed a charge (published after its commit)."""

    merchant_charge_id: str
    sale_id: str | None
    status: str | None
    previous_status: str | None
    source: str
    reason: Reason
    changes: tuple[Reason, ...] = field(default_factory=tuple)


@dataclass(frozen=True, kw_only=True)
class MoneyOperationChanged(DomainEvent):
    """A refund, capture or cancel was recorded or moved on (published after its commit)."""

    merchant_charge_id: str
    operation_id: int
    kind: str
    amount: int
    state: str


CHARGE = "charge"
"""`Interrupted.kind` of a sale's charge attempt."""


@dataclass(frozen=True, kw_only=True)
class Interrupted:
    """A charge attempt or money operation left open by a terminal that stopped before its reply
    was recorded (a crash, a power cut), as the start-up pass that asked about it left it."""

    merchant_charge_id: str
    kind: str
    """"charge" for a sale's charge attempt; else the operation's kind (refund, capture,
    cancel)."""
    amount: int
    state: str
    """The attempt's or the operation's state after asking (still unresolved, or settled)."""
    status: str | None = None
    """The charge's status at the service, when it holds the charge."""
    operation_id: int | None = None
    """The money operation's id (None for a charge attempt)."""

    @property
    def is_charge(self) -> bool:
        return self.kind == CHARGE


@dataclass(frozen=True, kw_only=True)
class ReconciliationFinished(DomainEvent):
    """One reconciliation pass: what was asked, what changed, what failed."""

    trigger: str
    attempts_checked: int
    attempts_resolved: int
    charges_checked: int
    charges_changed: int
    still_unknown: tuple[str, ...]
    errors: tuple[str, ...]
    operations_checked: int = 0
    operations_resolved: int = 0
    swept: int = 0
    interrupted: tuple[Interrupted, ...] = ()
    """At start-up: this counter's attempts, and the money operations, that a stopped terminal
    left open (made before this run), as this pass left them."""


def charge_changed(result: MergeResult, *, source: str) -> ChargeChanged:
    """The event to publish after committing a merge (`charges.ledger.Ledger.apply_update`)."""
    return ChargeChanged(
        merchant_charge_id=result.merchant_charge_id,
        sale_id=result.sale_id,
        status=None if result.current.status is None else str(result.current.status),
        previous_status=(
            None
            if result.previous is None or result.previous.status is None
            else str(result.previous.status)
        ),
        source=source,
        reason=result.reason,
        changes=result.changes,
    )


def operation_changed(op: MoneyOpRecord) -> MoneyOperationChanged:
    """The event of a money operation as it now stands (published after its commit)."""
    return MoneyOperationChanged(
        merchant_charge_id=op.merchant_charge_id,
        operation_id=op.id,
        kind=str(op.kind),
        amount=op.amount,
        state=str(op.state),
    )


__all__ = [
    "CHARGE",
    "AttemptChanged",
    "ChargeChanged",
    "Interrupted",
    "MoneyOperationChanged",
    "ReconciliationFinished",
    "TokenStateChanged",
    "TokenStatus",
    "charge_changed",
    "operation_changed",
]
