"""What the terminal keeps about a charge: attempts, charges, money operations, timelines.

Plain records, read from and written to the store but defined here, below it, so that events,
the use case and the widgets can hold them without importing the store.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from checkout_desktop.domain.enums import ChargeStatus
from checkout_desktop.domain.events import DomainEvent
from checkout_desktop.domain.money_ops import (
    UNRESOLVED_MONEY_STATES,
    Figures,
    MoneyOpKind,
    MoneyOpState,
    is_done,
    money_reason,
)
from checkout_desktop.domain.qr_order import is_qr_type
from checkout_desktop.domain.reasons import Reason, ReasonCode
from checkout_desktop.domain.shown_status import never_charged
from checkout_desktop.domain.state import (
    UNRESOLVED_ATTEMPT_STATES,
    AttemptState,
    ChargeState,
    Outcome,
    TransactionState,
)

logger = logging.getLogger(__name__)

T = TypeVar("T")

TIMELINE_SOURCES = frozenset({"request", "reply", "webhook", "reconciliation", "3ds", "system"})
"""Where a timeline row's input came from."""

LAST_FOUR = re.compile(r"^\d{4}$")
"""The only card digits the terminal may keep."""


class TenderSummary(Protocol):
    """What the store keeps of one tender of a sale (`domain/tenders.py`): its kind and what
    may be shown of it, never a token or a card number."""

    @property
    def kind(self) -> str: ...

    def to_json(self) -> dict[str, Any]:
        """The stored form: a JSON object whose "kind" names the tender."""
        ...

    def reason(self) -> Reason:
        """The tender as a reason any screen can render (a card's brand and last four)."""
        ...


CARD = "card"
"""The kind of a card tender (and of every stored tender written before kinds were kept)."""


def stored_tender(data: Mapping[str, Any]) -> TenderSummary:
    """A stored tender read back; an object without a kind is a card (the stored card list).

    ValueError for a kind this terminal does not know (a newer checkout-desktop wrote it).
    """
    kind = str(data.get("kind") or CARD)
    if kind == CARD:
        return CardSummary.from_json(data)
    if kind in (WALLET, PIX):
        return QrSummary.from_json(data)
    raise ValueError(f"a tender of kind {kind!r}, which this checkout-desktop does not know")


@dataclass(frozen=True)
class CardSummary:
    """What the terminal may know about a card: its brand and last four digits, nothing else."""

    kind: ClassVar[str] = CARD
    brand: str | None
    last_four: str | None
    installments: int = 1

    def __post_init__(self) -> None:
        if self.last_four is not None and not LAST_FOUR.match(self.last_four):
            raise ValueError("a card summary keeps exactly the last four digits of the card")
        if self.installments < 1:
            raise ValueError("a card is charged in at least one installment")

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "brand": self.brand,
            "last_four": self.last_four,
            "installments": self.installments,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> CardSummary:
        return cls(
            brand=data.get("brand"),
            last_four=data.get("last_four"),
            installments=int(data.get("installments", 1)),
        )

    def reason(self) -> Reason:
        """Brand, last four and installments, as a reason any screen can render."""
        brand: str | Reason = self.brand or Reason.of(ReasonCode.CARD_UNKNOWN_BRAND)
        card = (
            Reason.of(ReasonCode.CARD, brand=brand, last_four=self.last_four)
            if self.last_four
            else Reason.of(ReasonCode.CARD_BRAND_ONLY, brand=brand)
        )
        if self.installments > 1:
            return Reason.of(
                ReasonCode.CARD_INSTALLMENTS, card=card, installments=self.installments
            )
        return card

    def describe(self) -> str:
        return self.reason().english()


WALLET = "wallet"
"""The kind of a PicPay wallet QR tender."""
PIX = "pix"
"""The kind of a PIX QR tender."""


@dataclass(frozen=True)
class QrSummary:
    """A QR tender as recorded: wallet or PIX and, for PIX, the expiration asked for (seconds)."""

    kind: str
    expiration_s: int | None = None

    def __post_init__(self) -> None:
        if self.kind not in (WALLET, PIX):
            raise ValueError(f"a QR tender is {WALLET!r} or {PIX!r}, not {self.kind!r}")
        if self.expiration_s is not None and self.expiration_s < 1:
            raise ValueError("a QR's expiration is at least one second")

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"kind": self.kind}
        if self.expiration_s is not None:
            data["expiration_s"] = self.expiration_s
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> QrSummary:
        expiration = data.get("expiration_s")
        return cls(
            kind=str(data["kind"]), expiration_s=None if expiration is None else int(expiration)
        )

    def reason(self) -> Reason:
        return Reason.of(ReasonCode.TENDER_PIX if self.kind == PIX else ReasonCode.TENDER_WALLET)

    def describe(self) -> str:
        return self.reason().english()


@dataclass(frozen=True)
class AttemptRecord:
    merchant_charge_id: str
    sale_id: str
    profile: str
    amount: int
    late_capture: bool
    tenders: tuple[TenderSummary, ...]
    """What pays the sale (for a card: brand, last four, installments), as recorded."""
    state: AttemptState
    created_at: datetime
    updated_at: datetime
    resolved_at: datetime | None
    queries: int
    detail: str | None
    answered: bool = False
    """The service answered the request (even with an error): its handling has ended, so a
    charge that is not there now will never appear."""
    customer_document: str | None = None
    """The sale's customer (CPF/CNPJ digits), for the history's search; None before it was kept."""

    @property
    def cards(self) -> tuple[CardSummary, ...]:
        """The card tenders of the attempt."""
        return tuple(t for t in self.tenders if isinstance(t, CardSummary))

    @property
    def unresolved(self) -> bool:
        return self.state in UNRESOLVED_ATTEMPT_STATES

    @property
    def qr(self) -> QrSummary | None:
        """The attempt's QR tender, when it is a QR charge."""
        for tender in self.tenders:
            if isinstance(tender, QrSummary):
                return tender
        return None


@dataclass(frozen=True)
class MoneyOpRecord:
    """A refund, capture or cancel of a charge, recorded before it was sent."""

    id: int
    merchant_charge_id: str
    kind: MoneyOpKind
    amount: int
    state: MoneyOpState
    base: Figures
    """The service's figures just before the operation was sent (its baseline)."""
    created_at: datetime
    updated_at: datetime
    resolved_at: datetime | None
    answered: bool
    """The service answered the request (even with an error): its handling has ended."""
    queries: int
    detail: str | None
    counter: str | None = None
    """The counter that recorded it, where counters share a store (None: a terminal alone on
    its store, or recorded before operations kept their counter)."""

    @property
    def unresolved(self) -> bool:
        return self.state in UNRESOLVED_MONEY_STATES

    def done_by(self, figures: Figures) -> bool:
        return is_done(self.kind, self.amount, self.base.refunded, figures)

    def reason(self, step: str, detail: str | Reason | None = None) -> Reason:
        return money_reason(self.kind, self.amount, step, detail)

    @property
    def ref(self) -> str:
        return f"operation {self.id}"


@dataclass(frozen=True)
class SweepRecord:
    """One daily sweep: every charge created in [window_from, window_to) is asked about once."""

    id: int
    started_at: datetime
    window_from: datetime
    window_to: datetime
    after_id: int
    """The last charge id asked about (the sweep resumes after it, also after a restart)."""
    checked: int
    changed: int
    finished_at: datetime | None


@dataclass(frozen=True)
class ChargeRecord:
    id: int
    merchant_charge_id: str
    charge_id: str | None
    sale_id: str | None
    status: ChargeStatus | None
    amount: int | None
    refunded_amount: int | None
    three_ds_status: str | None
    state: ChargeState
    created_at: datetime
    updated_at: datetime
    last_webhook_at: datetime | None
    last_checked_at: datetime | None
    checks: int
    next_check_at: datetime | None
    check_reason: str | None
    check_reason_data: Reason | None = None
    """Why the next check is planned, as a reason (None for rows from before reasons)."""
    profile: str | None = None
    """The profile (service environment) whose service holds the charge: the one its attempt
    was sent to; None for a charge this terminal never attempted (only notifications told of
    it), which no service is ever asked about."""
    customer_document: str | None = None
    customer_name: str | None = None
    """Filled by the history's search, which looks the customer up."""
    sale_amount: int | None = None
    """The amount the sale's attempt asked for, filled by the history's reads (a row that holds
    only a 3DS result has no amount of its own); None for a charge this terminal never attempted."""
    attempt_state: AttemptState | None = None
    """Where the sale's attempt stands, filled by the history's reads."""
    attempt_tenders: tuple[TenderSummary, ...] = ()
    """What the sale's attempt was to be paid with, filled by the history's reads."""

    def with_attempt(self, attempt: AttemptRecord | None) -> ChargeRecord:
        """The charge with what its sale's attempt asked for (none for a charge this terminal
        never attempted)."""
        if attempt is None:
            return self
        return replace(
            self,
            sale_amount=attempt.amount,
            attempt_state=attempt.state,
            attempt_tenders=attempt.tenders,
        )

    @property
    def never_charged(self) -> bool:
        """A row that holds only what was heard before a charge (a 3DS result) for a sale whose
        attempt ended with no charge at the service: there is nothing there to ask about."""
        return never_charged(self.status, self.attempt_state)


@dataclass(frozen=True)
class TimelineRecord:
    id: int
    merchant_charge_id: str
    recorded_at: datetime
    source: str
    source_ref: str | None
    input_status: str | None
    occurred_at: datetime | None
    outcome: str
    previous_status: str | None
    new_status: str | None
    reason: str
    changes: tuple[str, ...]
    """What the input changed, in English (as stored)."""
    body: Any
    reason_data: Reason | None = None
    """`reason` as a code and arguments; None for a row written before reasons were kept so
    (such a row is shown as its stored text)."""
    changes_data: tuple[Reason, ...] | None = None
    """`changes` as reasons; None for a row written before they were kept so."""


@dataclass(frozen=True)
class MergeResult:
    """What one input did: the states before and after, and the timeline row written."""

    merchant_charge_id: str
    outcome: Outcome
    reason: Reason
    previous: ChargeState | None
    current: ChargeState
    changes: tuple[Reason, ...]
    timeline_id: int
    sale_id: str | None
    attempt_resolved: bool = False
    """The input resolved an attempt that was RECORDED or UNKNOWN (the service has the charge)."""
    confirmed_operations: tuple[int, ...] = ()
    """Money operations whose outcome was open and which the input's figures show done."""
    made_here: bool = True
    """This terminal attempted the charge; False for one only notifications told of (stored
    with no profile, listed by the History apart, read only)."""
    events: tuple[DomainEvent, ...] = ()
    """Domain events to publish once the input's transaction has committed."""

    def with_events(self, events: tuple[DomainEvent, ...]) -> MergeResult:
        return replace(self, events=events)

    @property
    def changed(self) -> bool:
        return self.outcome == Outcome.APPLIED

    @property
    def status_changed(self) -> bool:
        before = None if self.previous is None else self.previous.status
        return before != self.current.status


@dataclass(frozen=True)
class Page(Generic[T]):
    """One page of a keyset-paged list; pass `next_cursor` back to get the next page."""

    items: list[T]
    next_cursor: int | None


@dataclass(frozen=True)
class BrandTotal:
    brand: str
    count: int
    amount: int


@dataclass
class DayTotals:
    """Figures in centavos; `by_hour` maps the local hour (0–23) to (sales, amount)."""

    start: datetime
    end: datetime
    sales: int = 0
    gross: int = 0
    refunds: int = 0
    held_count: int = 0
    held_amount: int = 0
    denied: int = 0
    by_brand: list[BrandTotal] = field(default_factory=list)
    by_hour: dict[int, tuple[int, int]] = field(default_factory=dict)

    @property
    def net(self) -> int:
        return self.gross - self.refunds


def unnamed_card(txn: TransactionState) -> bool:
    """A card transaction the service told of without its last four digits."""
    return txn.last_four is None and txn.qr_code is None and not is_qr_type(txn.payment_type)


def with_tried_cards(record: ChargeRecord) -> ChargeRecord:
    """The charge with each card the service named without its last four digits (a
    notification without the card's number, its reply lost) shown as the card the sale was
    tried with, where that card is certain: the only card of its brand the sale was tried with.
    What the service said is kept; `attempt_tenders` must be filled; nothing is stored."""
    tried = [t for t in record.attempt_tenders if isinstance(t, CardSummary) and t.last_four]
    if not tried:
        return record

    def same_brand(brand: str | None, other: str | None) -> bool:
        return brand is None or other is None or brand.upper() == other.upper()

    shown = []
    changed = False
    for txn in record.state.transactions:
        if unnamed_card(txn):
            candidates = [card for card in tried if same_brand(card.brand, txn.brand)]
            if len(candidates) == 1:
                card = candidates[0]
                txn = replace(txn, last_four=card.last_four, brand=txn.brand or card.brand)
                changed = True
        shown.append(txn)
    if not changed:
        return record
    return replace(record, state=replace(record.state, transactions=tuple(shown)))


__all__ = [
    "CARD",
    "LAST_FOUR",
    "PIX",
    "TIMELINE_SOURCES",
    "WALLET",
    "AttemptRecord",
    "BrandTotal",
    "CardSummary",
    "ChargeRecord",
    "DayTotals",
    "MergeResult",
    "MoneyOpRecord",
    "Page",
    "QrSummary",
    "SweepRecord",
    "TenderSummary",
    "TimelineRecord",
    "stored_tender",
    "unnamed_card",
    "with_tried_cards",
]
