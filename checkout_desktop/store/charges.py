"""Repository of charge attempts, charges, transactions and per-charge timelines.

Every write method runs inside the caller's open transaction (`store.db.transaction`) and never
begins or commits one itself, so a caller can commit an input together with its own records
(the inbox commits a notification and its merge in one durable step).
"""

from __future__ import annotations

import json
import logging
import re
import sqlite3
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any, Generic, TypeVar

from checkout_desktop.domain import state as sm
from checkout_desktop.domain.enums import ChargeStatus
from checkout_desktop.domain.money_ops import (
    UNRESOLVED_MONEY_STATES,
    Figures,
    MoneyOpKind,
    MoneyOpState,
    is_done,
    money_reason,
)
from checkout_desktop.domain.reasons import Reason, ReasonCode
from checkout_desktop.domain.state import (
    UNRESOLVED_ATTEMPT_STATES,
    AttemptState,
    ChargeState,
    Outcome,
)
from checkout_desktop.domain.timestamps import utc_now
from checkout_desktop.domain.wire import ChargeUpdate, ThreeDsUpdate, mask_card_number

logger = logging.getLogger(__name__)

T = TypeVar("T")

TIMELINE_SOURCES = frozenset({"request", "reply", "webhook", "reconciliation", "3ds", "system"})

_LAST_FOUR = re.compile(r"^\d{4}$")
# Keys whose values are card data or single-use card credentials: never stored, even masked.
_DROPPED_KEYS = frozenset(
    {
        "cvv",
        "cvc",
        "securitycode",
        "expirationmonth",
        "expirationyear",
        "expirydate",
        "expiry",
        "temporarycardtoken",
        "temporatycardtoken",
        "cardtoken",
        "accesstoken",
        "clientsecret",
    }
)


def _normal_key(key: object) -> str:
    return str(key).replace("-", "").replace("_", "").lower()


# Whether a key names card data, per key text: replies repeat the same few dozen keys.
_KEY_DROPPED: dict[str, bool] = {}


class RepositoryError(RuntimeError):
    """The store refused an operation; the message says which charge and why."""


class NotInTransaction(RepositoryError):
    def __init__(self, what: str) -> None:
        super().__init__(
            f"{what} writes to the store and must run inside `with transaction(conn):` "
            "(the repository never begins or commits by itself)"
        )


class ChargeNotKnown(RepositoryError, LookupError):
    """An input names a charge the store has never seen and cannot be filed under a charge."""

    def __init__(self, why: str | Reason) -> None:
        super().__init__(str(why))
        self.reason = why if isinstance(why, Reason) else None
        """Why, for the screen, where the refusal is one a clerk can meet."""


def ts(moment: datetime) -> str:
    """A fixed-width UTC text form: sorts as time does, so SQL can compare it."""
    if moment.tzinfo is None:
        raise ValueError("a naive datetime has no defined instant")
    utc = moment.astimezone(UTC)
    if utc.year < 1000:
        # isoformat pads the year to four digits where strftime("%Y") does not.
        return utc.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    # The same text as strftime("%Y-%m-%dT%H:%M:%S.%fZ"), several times faster.
    return utc.replace(tzinfo=None).isoformat(timespec="microseconds") + "Z"


def from_ts(text: str | None) -> datetime | None:
    if text is None:
        return None
    if len(text) == 27 and text[-1] == "Z":
        # Every stored instant has this shape; fromisoformat reads it in C (strptime is ~20x
        # slower and ran several times per attempt read).
        return datetime.fromisoformat(text[:-1]).replace(tzinfo=UTC)
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)


def mask_json(value: Any) -> Any:
    """Defensive second masking of anything card-like before it is stored.

    Replies and notifications carry masked card numbers already; a whole number, a CVV, an
    expiry or a card token must still never reach the file if the service ever sent one.
    """
    kind = type(value)
    if kind is str:
        return mask_card_number(value)
    if kind is dict or (kind is not list and isinstance(value, Mapping)):
        masked: dict[str, Any] = {}
        for k, v in value.items():
            key = str(k)
            dropped = _KEY_DROPPED.get(key)
            if dropped is None:
                dropped = _normal_key(key) in _DROPPED_KEYS
                if len(_KEY_DROPPED) < 4096:
                    _KEY_DROPPED[key] = dropped
            if not dropped:
                masked[key] = mask_json(v)
        return masked
    if kind is list or isinstance(value, list | tuple):
        return [mask_json(v) for v in value]
    if isinstance(value, str):
        return mask_card_number(value)
    return value


@dataclass(frozen=True)
class CardSummary:
    """What the terminal may know about a card: its brand and last four digits, nothing else."""

    brand: str | None
    last_four: str | None
    installments: int = 1

    def __post_init__(self) -> None:
        if self.last_four is not None and not _LAST_FOUR.match(self.last_four):
            raise ValueError("a card summary keeps exactly the last four digits of the card")
        if self.installments < 1:
            raise ValueError("a card is charged in at least one installment")

    def to_json(self) -> dict[str, Any]:
        return {"brand": self.brand, "last_four": self.last_four, "installments": self.installments}

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


@dataclass(frozen=True)
class AttemptRecord:
    merchant_charge_id: str
    sale_id: str
    profile: str
    amount: int
    late_capture: bool
    cards: tuple[CardSummary, ...]
    state: AttemptState
    created_at: datetime
    updated_at: datetime
    resolved_at: datetime | None
    queries: int
    detail: str | None
    answered: bool = False
    """The service answered the request (even with an error): its handling has ended, so a
    charge that is not there now will never appear."""

    @property
    def unresolved(self) -> bool:
        return self.state in UNRESOLVED_ATTEMPT_STATES


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


class MoneyOperationOpen(RepositoryError):
    """A second operation for a charge while one is still unresolved (never written)."""


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
class CheckPolicy:
    """When the reconciler looks at a charge again (from the settings' reconcile interval)."""

    interval: timedelta = timedelta(seconds=60)
    max_interval: timedelta = timedelta(hours=1)
    notification_grace: timedelta = timedelta(minutes=5)

    def backoff(self, checks: int) -> timedelta:
        factor: int = 1 << min(max(checks, 0), 10)
        return min(self.interval * factor, self.max_interval)

    def schedule(
        self, state: ChargeState, *, source: str, checks: int, now: datetime
    ) -> tuple[datetime | None, Reason | None]:
        """The next time to query the charge and why; None when nothing is expected."""
        if state.status is None:
            return now + self.interval, Reason.of(ReasonCode.CHECK_NO_STATUS)
        status = str(state.status)
        if not state.is_final:
            return now + self.backoff(checks), Reason.of(ReasonCode.CHECK_NOT_FINAL, status=status)
        if state.awaiting_notification and source != "reconciliation":
            return (
                now + self.notification_grace,
                Reason.of(ReasonCode.CHECK_EXPECT_NOTIFICATION, status=status),
            )
        return None, None


class ChargeRepository:
    """Attempts, charges, transactions and timelines on one connection (one writer)."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        *,
        policy: CheckPolicy | None = None,
        clock: Callable[[], datetime] = utc_now,
    ) -> None:
        self.conn = conn
        self.policy = policy or CheckPolicy()
        self._clock = clock

    def now(self) -> datetime:
        return self._clock()

    def _writing(self, what: str) -> None:
        if not self.conn.in_transaction:
            raise NotInTransaction(what)

    # -- attempts ------------------------------------------------------------------------------

    def record_attempt(
        self,
        *,
        merchant_charge_id: str,
        sale_id: str,
        profile: str,
        amount: int,
        cards: Sequence[CardSummary],
        late_capture: bool = False,
    ) -> AttemptRecord:
        """Record an attempt before its request is sent (commit before sending)."""
        self._writing("record_attempt")
        if amount <= 0:
            raise RepositoryError(f"charge {merchant_charge_id}: the amount must be positive")
        if not cards:
            raise RepositoryError(
                f"charge {merchant_charge_id}: an attempt charges at least one card"
            )
        now = ts(self.now())
        try:
            self.conn.execute(
                "INSERT INTO charge_attempt (merchant_charge_id, sale_id, profile, amount, "
                "late_capture, cards_json, state, created_at, updated_at) VALUES (:mcid, :sale, "
                ":profile, :amount, :late, :cards, :state, :now, :now)",
                {
                    "mcid": merchant_charge_id,
                    "sale": sale_id,
                    "profile": profile,
                    "amount": amount,
                    "late": int(late_capture),
                    "cards": json.dumps([c.to_json() for c in cards]),
                    "state": AttemptState.RECORDED.value,
                    "now": now,
                },
            )
        except sqlite3.IntegrityError:
            raise RepositoryError(
                f"charge {merchant_charge_id} was already attempted; a merchantChargeId is "
                "never reused (the service refuses a second charge under the same id)"
            ) from None
        self.add_timeline(
            merchant_charge_id,
            source="request",
            outcome="recorded",
            reason=Reason.of(
                ReasonCode.ATTEMPT_RECORDED_LATE_CAPTURE
                if late_capture
                else ReasonCode.ATTEMPT_RECORDED,
                sale=sale_id,
                amount=amount,
                cards=tuple(c.reason() for c in cards),
            ),
        )
        # The row as inserted (what reading it back would give, without the read).
        at = _required_ts(now)
        return AttemptRecord(
            merchant_charge_id=merchant_charge_id,
            sale_id=sale_id,
            profile=profile,
            amount=amount,
            late_capture=bool(late_capture),
            cards=tuple(CardSummary.from_json(c.to_json()) for c in cards),
            state=AttemptState.RECORDED,
            created_at=at,
            updated_at=at,
            resolved_at=None,
            queries=0,
            detail=None,
            answered=False,
        )

    def set_attempt_state(
        self,
        merchant_charge_id: str,
        new_state: AttemptState,
        *,
        source: str,
        reason: Reason,
        detail: str | None = None,
        count_query: bool = False,
        answered: bool = False,
    ) -> AttemptRecord:
        """Move an unresolved attempt on; a resolved attempt never changes again."""
        self._writing("set_attempt_state")
        current = self.attempt(merchant_charge_id)
        if current is None:
            raise ChargeNotKnown(f"no attempt with merchantChargeId {merchant_charge_id}")
        return self._move_attempt(
            current,
            new_state,
            source=source,
            reason=reason,
            detail=detail,
            count_query=count_query,
            answered=answered,
        )

    def _move_attempt(
        self,
        current: AttemptRecord,
        new_state: AttemptState,
        *,
        source: str,
        reason: Reason,
        detail: str | None = None,
        count_query: bool = False,
        answered: bool = False,
    ) -> AttemptRecord:
        """set_attempt_state for an attempt just read in this transaction."""
        merchant_charge_id = current.merchant_charge_id
        now = ts(self.now())
        if not current.unresolved:
            if count_query:
                self.conn.execute(
                    "UPDATE charge_attempt SET queries = queries + 1 WHERE merchant_charge_id = :m",
                    {"m": merchant_charge_id},
                )
            self.add_timeline(
                merchant_charge_id,
                source=source,
                outcome=Outcome.IGNORED.value,
                reason=Reason.of(ReasonCode.ATTEMPT_ALREADY, state=current.state.value, why=reason),
                input_status=new_state.value,
            )
            return replace(current, queries=current.queries + int(count_query))
        resolved = new_state not in UNRESOLVED_ATTEMPT_STATES
        self.conn.execute(
            "UPDATE charge_attempt SET state = :state, updated_at = :now, "
            "resolved_at = CASE WHEN :resolved THEN :now ELSE resolved_at END, "
            "queries = queries + :q, detail = COALESCE(:detail, detail), "
            "answered = MAX(answered, :answered) WHERE merchant_charge_id = :m",
            {
                "answered": int(answered),
                "state": new_state.value,
                "now": now,
                "resolved": int(resolved),
                "q": int(count_query),
                "detail": detail,
                "m": merchant_charge_id,
            },
        )
        changed = new_state != current.state
        self.add_timeline(
            merchant_charge_id,
            source=source,
            outcome=Outcome.APPLIED.value if changed else Outcome.DUPLICATE.value,
            reason=reason,
            input_status=new_state.value,
            previous_status=current.state.value,
            new_status=new_state.value,
        )
        # The row as the UPDATE above left it (what reading it back would give).
        at = _required_ts(now)
        return replace(
            current,
            state=new_state,
            updated_at=at,
            resolved_at=at if resolved else current.resolved_at,
            queries=current.queries + int(count_query),
            detail=current.detail if detail is None else detail,
            answered=current.answered or answered,
        )

    def attempt(self, merchant_charge_id: str) -> AttemptRecord | None:
        row = self.conn.execute(
            "SELECT * FROM charge_attempt WHERE merchant_charge_id = :m",
            {"m": merchant_charge_id},
        ).fetchone()
        return None if row is None else _attempt(row)

    def unresolved_attempts(self, limit: int = 100) -> list[AttemptRecord]:
        """Attempts whose outcome is not known, oldest first (uses a partial index)."""
        rows = self.conn.execute(
            "SELECT * FROM charge_attempt WHERE state IN ('RECORDED', 'UNKNOWN') "
            "ORDER BY created_at, merchant_charge_id LIMIT :limit",
            {"limit": limit},
        ).fetchall()
        return [_attempt(r) for r in rows]

    def unresolved_attempt_for_sale(self, sale_id: str) -> AttemptRecord | None:
        row = self.conn.execute(
            "SELECT * FROM charge_attempt WHERE sale_id = :sale AND state IN "
            "('RECORDED', 'UNKNOWN') ORDER BY created_at LIMIT 1",
            {"sale": sale_id},
        ).fetchone()
        return None if row is None else _attempt(row)

    def attempts_for_sale(self, sale_id: str) -> list[AttemptRecord]:
        rows = self.conn.execute(
            "SELECT * FROM charge_attempt WHERE sale_id = :sale ORDER BY created_at",
            {"sale": sale_id},
        ).fetchall()
        return [_attempt(r) for r in rows]

    # -- money operations ----------------------------------------------------------------------

    def record_money_operation(
        self, merchant_charge_id: str, kind: MoneyOpKind, amount: int, base: Figures
    ) -> MoneyOpRecord:
        """Record a refund, capture or cancel before it is sent (commit before sending).

        Raises MoneyOperationOpen while the charge has an unresolved operation.
        """
        self._writing("record_money_operation")
        if amount <= 0:
            raise RepositoryError(f"charge {merchant_charge_id}: the amount must be positive")
        now = ts(self.now())
        try:
            cursor = self.conn.execute(
                "INSERT INTO money_operation (merchant_charge_id, kind, amount, state, "
                "base_status, base_amount, base_refunded, created_at, updated_at) VALUES "
                "(:m, :kind, :amount, :state, :bs, :ba, :br, :now, :now)",
                {
                    "m": merchant_charge_id,
                    "kind": kind.value,
                    "amount": amount,
                    "state": MoneyOpState.RECORDED.value,
                    "bs": None if base.status is None else str(base.status),
                    "ba": base.amount,
                    "br": base.refunded,
                    "now": now,
                },
            )
        except sqlite3.IntegrityError:
            open_op = self.open_money_operation(merchant_charge_id)
            if open_op is None:
                raise
            raise MoneyOperationOpen(
                f"charge {merchant_charge_id} has a {open_op.kind} ({open_op.ref}) whose outcome "
                "is not known yet"
            ) from None
        op_id = cursor.lastrowid
        assert op_id is not None
        at = _required_ts(now)
        record = MoneyOpRecord(
            id=op_id,
            merchant_charge_id=merchant_charge_id,
            kind=kind,
            amount=amount,
            state=MoneyOpState.RECORDED,
            base=base,
            created_at=at,
            updated_at=at,
            resolved_at=None,
            answered=False,
            queries=0,
            detail=None,
        )
        self.add_timeline(
            merchant_charge_id,
            source="request",
            outcome="recorded",
            reason=record.reason("requested"),
            source_ref=record.ref,
            input_status=MoneyOpState.RECORDED.value,
        )
        return record

    def move_money_operation(
        self,
        op: MoneyOpRecord,
        new_state: MoneyOpState,
        *,
        source: str,
        reason: Reason,
        outcome: str | None = None,
        source_ref: str | None = None,
        detail: str | None = None,
        count_query: bool = False,
        answered: bool = False,
    ) -> MoneyOpRecord:
        """Move an unresolved operation on (a resolved one never changes again)."""
        self._writing("move_money_operation")
        current = self.money_operation(op.id)
        if current is None:
            raise RepositoryError(f"no money operation {op.id}")
        now = ts(self.now())
        if not current.unresolved:
            if count_query:
                self.conn.execute(
                    "UPDATE money_operation SET queries = queries + 1 WHERE id = :id",
                    {"id": op.id},
                )
            return replace(current, queries=current.queries + int(count_query))
        resolved = new_state not in UNRESOLVED_MONEY_STATES
        self.conn.execute(
            "UPDATE money_operation SET state = :state, updated_at = :now, "
            "resolved_at = CASE WHEN :resolved THEN :now ELSE resolved_at END, "
            "queries = queries + :q, detail = COALESCE(:detail, detail), "
            "answered = MAX(answered, :answered) WHERE id = :id",
            {
                "state": new_state.value,
                "now": now,
                "resolved": int(resolved),
                "q": int(count_query),
                "detail": detail,
                "answered": int(answered),
                "id": op.id,
            },
        )
        changed = new_state != current.state
        self.add_timeline(
            current.merchant_charge_id,
            source=source,
            outcome=outcome or (Outcome.APPLIED.value if changed else Outcome.DUPLICATE.value),
            reason=reason,
            source_ref=source_ref or current.ref,
            input_status=new_state.value,
            previous_status=current.state.value,
            new_status=new_state.value,
        )
        at = _required_ts(now)
        return replace(
            current,
            state=new_state,
            updated_at=at,
            resolved_at=at if resolved else None,
            queries=current.queries + int(count_query),
            detail=current.detail if detail is None else detail,
            answered=current.answered or answered,
        )

    def money_operation(self, op_id: int) -> MoneyOpRecord | None:
        row = self.conn.execute(
            "SELECT * FROM money_operation WHERE id = :id", {"id": op_id}
        ).fetchone()
        return None if row is None else _money_op(row)

    def open_money_operation(self, merchant_charge_id: str) -> MoneyOpRecord | None:
        """The charge's unresolved operation, if any (there is at most one)."""
        row = self.conn.execute(
            "SELECT * FROM money_operation WHERE merchant_charge_id = :m "
            "AND state IN ('RECORDED', 'SENT', 'UNKNOWN')",
            {"m": merchant_charge_id},
        ).fetchone()
        return None if row is None else _money_op(row)

    def unresolved_money_operations(self, limit: int = 100) -> list[MoneyOpRecord]:
        """Operations whose outcome is not known, oldest first."""
        rows = self.conn.execute(
            "SELECT * FROM money_operation WHERE state IN ('RECORDED', 'SENT', 'UNKNOWN') "
            "ORDER BY id LIMIT :limit",
            {"limit": limit},
        ).fetchall()
        return [_money_op(r) for r in rows]

    def money_operations(self, merchant_charge_id: str) -> list[MoneyOpRecord]:
        rows = self.conn.execute(
            "SELECT * FROM money_operation WHERE merchant_charge_id = :m ORDER BY id",
            {"m": merchant_charge_id},
        ).fetchall()
        return [_money_op(r) for r in rows]

    # -- the daily sweep -----------------------------------------------------------------------

    def last_sweep(self) -> SweepRecord | None:
        row = self.conn.execute("SELECT * FROM charge_sweep ORDER BY id DESC LIMIT 1").fetchone()
        return None if row is None else _sweep(row)

    def start_sweep(self, *, window_from: datetime, window_to: datetime) -> SweepRecord:
        self._writing("start_sweep")
        now = self.now()
        cursor = self.conn.execute(
            "INSERT INTO charge_sweep (started_at, window_from, window_to) VALUES (:now, :wf, :wt)",
            {"now": ts(now), "wf": ts(window_from), "wt": ts(window_to)},
        )
        sweep_id = cursor.lastrowid
        assert sweep_id is not None
        return SweepRecord(sweep_id, now, window_from, window_to, 0, 0, 0, None)

    def sweep_batch(self, sweep: SweepRecord, limit: int) -> list[ChargeRecord]:
        """The next charges of the sweep's window, by id (uses the created_at index)."""
        rows = self.conn.execute(
            "SELECT * FROM charge WHERE created_at >= :wf AND created_at < :wt AND id > :after "
            "ORDER BY id LIMIT :limit",
            {
                "wf": ts(sweep.window_from),
                "wt": ts(sweep.window_to),
                "after": sweep.after_id,
                "limit": limit,
            },
        ).fetchall()
        return [_charge(r) for r in rows]

    def advance_sweep(
        self, sweep: SweepRecord, *, after_id: int, checked: int, changed: int, finished: bool
    ) -> SweepRecord:
        self._writing("advance_sweep")
        now = self.now()
        self.conn.execute(
            "UPDATE charge_sweep SET after_id = :after, checked = checked + :checked, "
            "changed = changed + :changed, finished_at = :fin WHERE id = :id",
            {
                "after": after_id,
                "checked": checked,
                "changed": changed,
                "fin": ts(now) if finished else None,
                "id": sweep.id,
            },
        )
        return replace(
            sweep,
            after_id=after_id,
            checked=sweep.checked + checked,
            changed=sweep.changed + changed,
            finished_at=now if finished else None,
        )

    # -- charges -------------------------------------------------------------------------------

    def apply_update(
        self,
        update: ChargeUpdate | ThreeDsUpdate,
        *,
        source: str,
        source_ref: str | None,
        body: Mapping[str, Any] | None = None,
        context: Reason | None = None,
    ) -> MergeResult:
        """Merge one input into its charge, write the timeline row and return what changed.

        Runs inside the caller's open transaction. A charge update for a charge the store has
        never seen creates it (a notification may be the first news of a charge); a 3DS result
        that names only an unknown service charge id raises ChargeNotKnown. `context` (why the
        input was asked for, e.g. by the reconciler) prefixes the timeline's reason.
        """
        self._writing("apply_update")
        if source not in TIMELINE_SOURCES:
            raise RepositoryError(
                f"unknown timeline source {source!r}; use one of {sorted(TIMELINE_SOURCES)}"
            )
        row = self._find_row(update)
        mcid = self._merchant_charge_id(update, row)
        previous = None if row is None else ChargeState.from_json(json.loads(row["state_json"]))
        result = sm.merge(previous, update)
        state = result.state
        now_dt = self.now()
        now = ts(now_dt)
        attempt = self.attempt(mcid)
        sale_id = row["sale_id"] if row is not None else (attempt.sale_id if attempt else None)

        status_moved = previous is None or (
            previous.status != state.status or previous.refunded_amount != state.refunded_amount
        )
        checks = 0 if status_moved or row is None else int(row["checks"])
        if source == "reconciliation" and not status_moved:
            checks += 1
        next_check, check_reason = self.policy.schedule(
            state, source=source, checks=checks, now=now_dt
        )
        params = {
            "mcid": mcid,
            "cid": state.charge_id,
            "sale": sale_id,
            "status": None if state.status is None else str(state.status),
            "amount": state.amount,
            "refunded": state.refunded_amount,
            "tds": None if state.three_ds is None else str(state.three_ds.status),
            "state": json.dumps(state.to_json()),
            "now": now,
            "webhook": now if source == "webhook" else None,
            "checked": now if source == "reconciliation" else None,
            "checks": checks,
            "next": None if next_check is None else ts(next_check),
            "why": None if check_reason is None else check_reason.english(),
            "why_code": None if check_reason is None else check_reason.code.value,
            "why_args": None if check_reason is None else check_reason.args_json(),
        }
        if row is None:
            self.conn.execute(
                "INSERT INTO charge (merchant_charge_id, charge_id, sale_id, status, amount, "
                "refunded_amount, three_ds_status, state_json, created_at, updated_at, "
                "last_webhook_at, last_checked_at, checks, next_check_at, check_reason, "
                "check_reason_code, check_reason_args) VALUES "
                "(:mcid, :cid, :sale, :status, :amount, :refunded, :tds, :state, :now, :now, "
                ":webhook, :checked, :checks, :next, :why, :why_code, :why_args)",
                params,
            )
        else:
            self.conn.execute(
                "UPDATE charge SET charge_id = :cid, sale_id = COALESCE(sale_id, :sale), "
                "status = :status, amount = :amount, refunded_amount = :refunded, "
                "three_ds_status = :tds, state_json = :state, "
                "updated_at = CASE WHEN :changed THEN :now ELSE updated_at END, "
                "last_webhook_at = COALESCE(:webhook, last_webhook_at), "
                "last_checked_at = COALESCE(:checked, last_checked_at), checks = :checks, "
                "next_check_at = :next, check_reason = :why, check_reason_code = :why_code, "
                "check_reason_args = :why_args WHERE merchant_charge_id = :mcid",
                {**params, "changed": int(result.changed)},
            )
        self._write_transactions(mcid, state, now)
        timeline_id = self.add_timeline(
            mcid,
            source=source,
            source_ref=source_ref,
            outcome=result.entry.outcome.value,
            reason=(
                result.entry.reason
                if context is None
                else Reason.of(ReasonCode.WITH_CONTEXT, context=context, why=result.entry.reason)
            ),
            input_status=result.entry.input_status,
            occurred_at=result.entry.occurred_at,
            previous_status=result.entry.previous_status,
            new_status=result.entry.new_status,
            changes=result.entry.changes,
            body=body,
        )
        attempt_resolved = False
        if attempt is not None and attempt.unresolved and isinstance(update, ChargeUpdate):
            # Any news of the charge from the service proves it exists: the attempt is settled
            # without ever sending it again.
            self._move_attempt(
                attempt,
                AttemptState.CREATED,
                source=source,
                reason=Reason.of(ReasonCode.ATTEMPT_RESOLVED, status=str(state.status)),
            )
            attempt_resolved = True
        confirmed: tuple[int, ...] = ()
        if isinstance(update, ChargeUpdate):
            confirmed = self._confirm_by_figures(mcid, state, source=source, source_ref=source_ref)
        return MergeResult(
            merchant_charge_id=mcid,
            outcome=result.entry.outcome,
            reason=result.entry.reason,
            previous=previous,
            current=state,
            changes=result.entry.changes,
            timeline_id=timeline_id,
            sale_id=sale_id,
            attempt_resolved=attempt_resolved,
            confirmed_operations=confirmed,
        )

    def _confirm_by_figures(
        self, mcid: str, state: ChargeState, *, source: str, source_ref: str | None
    ) -> tuple[int, ...]:
        """Settle the charge's open money operation when the service's figures show it done."""
        op = self.open_money_operation(mcid)
        if op is None:
            return ()
        figures = Figures.of(state)
        if not op.done_by(figures):
            return ()
        self.move_money_operation(
            op,
            MoneyOpState.CONFIRMED,
            source=source,
            reason=op.reason("confirmed", figures.reason()),
            source_ref=source_ref,
        )
        return (op.id,)

    def _find_row(self, update: ChargeUpdate | ThreeDsUpdate) -> sqlite3.Row | None:
        row: sqlite3.Row | None = None
        if update.merchant_charge_id is not None:
            # The merchant's id is authoritative; the service's id only finds a charge for an
            # input that names nothing else (a 3DS result with only `chargeId`).
            row = self.conn.execute(
                "SELECT * FROM charge WHERE merchant_charge_id = :m",
                {"m": update.merchant_charge_id},
            ).fetchone()
            return row
        if update.charge_id is not None:
            row = self.conn.execute(
                "SELECT * FROM charge WHERE charge_id = :c ORDER BY id LIMIT 1",
                {"c": update.charge_id},
            ).fetchone()
        return row

    @staticmethod
    def _merchant_charge_id(update: ChargeUpdate | ThreeDsUpdate, row: sqlite3.Row | None) -> str:
        if row is not None:
            return str(row["merchant_charge_id"])
        if update.merchant_charge_id is not None:
            return update.merchant_charge_id
        raise ChargeNotKnown(
            f"a 3DS result names only the service's charge id {update.charge_id!r}, which no "
            "stored charge has; it cannot be filed under a charge"
        )

    def _write_transactions(self, mcid: str, state: ChargeState, now: str) -> None:
        for txn in state.transactions:
            last_four = txn.last_four if txn.last_four and _LAST_FOUR.match(txn.last_four) else None
            self.conn.execute(
                "INSERT INTO charge_transaction (merchant_charge_id, txn_key, transaction_id, "
                "payment_type, status, amount, refunded_amount, brand, last_four, nsu, "
                "authorization_code, installments, updated_at) VALUES (:m, :k, :tid, :pt, :st, "
                ":amount, :refunded, :brand, :last4, :nsu, :auth, :inst, :now) "
                "ON CONFLICT (merchant_charge_id, txn_key) DO UPDATE SET "
                "transaction_id = excluded.transaction_id, payment_type = excluded.payment_type, "
                "status = excluded.status, amount = excluded.amount, "
                "refunded_amount = excluded.refunded_amount, brand = excluded.brand, "
                "last_four = excluded.last_four, nsu = excluded.nsu, "
                "authorization_code = excluded.authorization_code, "
                "installments = excluded.installments, "
                "updated_at = CASE WHEN charge_transaction.status IS excluded.status "
                "AND charge_transaction.refunded_amount IS excluded.refunded_amount "
                "THEN charge_transaction.updated_at ELSE excluded.updated_at END",
                {
                    "m": mcid,
                    "k": txn.key,
                    "tid": txn.transaction_id,
                    "pt": None if txn.payment_type is None else str(txn.payment_type),
                    "st": None if txn.status is None else str(txn.status),
                    "amount": txn.amount,
                    "refunded": txn.refunded_amount,
                    "brand": txn.brand,
                    "last4": last_four,
                    "nsu": txn.nsu,
                    "auth": txn.authorization_code,
                    "inst": txn.installments,
                    "now": now,
                },
            )

    def charge(self, merchant_charge_id: str) -> ChargeRecord | None:
        row = self.conn.execute(
            "SELECT * FROM charge WHERE merchant_charge_id = :m", {"m": merchant_charge_id}
        ).fetchone()
        return None if row is None else _charge(row)

    def charge_by_service_id(self, charge_id: str) -> ChargeRecord | None:
        row = self.conn.execute(
            "SELECT * FROM charge WHERE charge_id = :c ORDER BY id LIMIT 1", {"c": charge_id}
        ).fetchone()
        return None if row is None else _charge(row)

    def transactions(self, merchant_charge_id: str) -> list[sqlite3.Row]:
        return list(
            self.conn.execute(
                "SELECT * FROM charge_transaction WHERE merchant_charge_id = :m ORDER BY txn_key",
                {"m": merchant_charge_id},
            ).fetchall()
        )

    def charges_for_sale(self, sale_id: str) -> list[ChargeRecord]:
        rows = self.conn.execute(
            "SELECT * FROM charge WHERE sale_id = :s ORDER BY id", {"s": sale_id}
        ).fetchall()
        return [_charge(r) for r in rows]

    def due_checks(self, *, now: datetime | None = None, limit: int = 50) -> list[ChargeRecord]:
        """Charges the reconciler should query now, most overdue first (uses a partial index)."""
        rows = self.conn.execute(
            "SELECT * FROM charge WHERE next_check_at IS NOT NULL AND next_check_at <= :now "
            "ORDER BY next_check_at LIMIT :limit",
            {"now": ts(now or self.now()), "limit": limit},
        ).fetchall()
        return [_charge(r) for r in rows]

    def mark_checked(self, merchant_charge_id: str, *, found: bool, reason: Reason) -> None:
        """Record a reconciler query that did not change the charge, and schedule the next one."""
        self._writing("mark_checked")
        row = self.conn.execute(
            "SELECT * FROM charge WHERE merchant_charge_id = :m", {"m": merchant_charge_id}
        ).fetchone()
        if row is None:
            raise ChargeNotKnown(f"no charge with merchantChargeId {merchant_charge_id}")
        record = _charge(row)
        now = self.now()
        checks = record.checks + 1
        next_check, why = self.policy.schedule(
            record.state, source="reconciliation", checks=checks, now=now
        )
        self.conn.execute(
            "UPDATE charge SET last_checked_at = :now, checks = :checks, next_check_at = :next, "
            "check_reason = :why, check_reason_code = :why_code, check_reason_args = :why_args "
            "WHERE merchant_charge_id = :m",
            {
                "now": ts(now),
                "checks": checks,
                "next": None if next_check is None else ts(next_check),
                "why": None if why is None else why.english(),
                "why_code": None if why is None else why.code.value,
                "why_args": None if why is None else why.args_json(),
                "m": merchant_charge_id,
            },
        )
        self.add_timeline(
            merchant_charge_id,
            source="reconciliation",
            outcome=Outcome.DUPLICATE.value if found else Outcome.IGNORED.value,
            reason=reason,
            input_status=None if record.status is None else str(record.status),
        )

    def schedule_check(self, merchant_charge_id: str, *, reason: Reason, at: datetime) -> None:
        """Ask the reconciler to query a charge at `at` (sooner than planned, never later)."""
        self._writing("schedule_check")
        self.conn.execute(
            "UPDATE charge SET next_check_at = CASE WHEN next_check_at IS NULL "
            "OR next_check_at > :at THEN :at ELSE next_check_at END, check_reason = :why, "
            "check_reason_code = :why_code, check_reason_args = :why_args "
            "WHERE merchant_charge_id = :m",
            {
                "at": ts(at),
                "why": reason.english(),
                "why_code": reason.code.value,
                "why_args": reason.args_json(),
                "m": merchant_charge_id,
            },
        )

    # -- timeline ------------------------------------------------------------------------------

    def add_timeline(
        self,
        merchant_charge_id: str,
        *,
        source: str,
        outcome: str,
        reason: Reason,
        source_ref: str | None = None,
        input_status: str | None = None,
        occurred_at: datetime | None = None,
        previous_status: str | None = None,
        new_status: str | None = None,
        changes: Iterable[Reason] = (),
        body: Mapping[str, Any] | None = None,
    ) -> int:
        self._writing("add_timeline")
        if source not in TIMELINE_SOURCES:
            raise RepositoryError(
                f"unknown timeline source {source!r}; use one of {sorted(TIMELINE_SOURCES)}"
            )
        cursor = self.conn.execute(
            "INSERT INTO charge_timeline (merchant_charge_id, recorded_at, source, source_ref, "
            "input_status, occurred_at, outcome, previous_status, new_status, reason, "
            "reason_code, reason_args, changes_json, body_json) VALUES (:m, :now, :source, :ref, "
            ":input, :occurred, :outcome, :prev, :new, :reason, :code, :args, :changes, :body)",
            {
                "m": merchant_charge_id,
                "now": ts(self.now()),
                "source": source,
                "ref": source_ref,
                "input": input_status,
                "occurred": None if occurred_at is None else occurred_at.isoformat(),
                "outcome": outcome,
                "prev": previous_status,
                "new": new_status,
                "reason": reason.english(),
                "code": reason.code.value,
                "args": reason.args_json(),
                # Each change as {"code", "args", "text"}: the text is its English, for exports.
                "changes": json.dumps(
                    [{**c.to_json(), "text": c.english()} for c in changes], ensure_ascii=False
                ),
                "body": None if body is None else json.dumps(mask_json(body)),
            },
        )
        rowid = cursor.lastrowid
        assert rowid is not None
        return rowid

    def timeline(
        self, merchant_charge_id: str, *, after: int | None = None, limit: int = 200
    ) -> Page[TimelineRecord]:
        """A charge's timeline in order, keyset-paged by row id (never OFFSET)."""
        rows = self.conn.execute(
            "SELECT * FROM charge_timeline WHERE merchant_charge_id = :m AND id > :after "
            "ORDER BY id LIMIT :limit",
            {"m": merchant_charge_id, "after": after or 0, "limit": limit + 1},
        ).fetchall()
        items = [_timeline(r) for r in rows[:limit]]
        return Page(items, items[-1].id if len(rows) > limit else None)

    # -- history -------------------------------------------------------------------------------

    def list_charges(
        self,
        *,
        before: int | None = None,
        limit: int = 50,
        status: ChargeStatus | None = None,
    ) -> Page[ChargeRecord]:
        """Newest charges first, keyset-paged by id (cost independent of the store's size)."""
        if limit < 1:
            raise ValueError("a page holds at least one row")
        clauses = ["id < :before"]
        params: dict[str, Any] = {"before": before if before is not None else 2**62}
        if status is not None:
            clauses.append("status = :status")
            params["status"] = str(status)
        params["limit"] = limit + 1
        rows = self.conn.execute(
            f"SELECT * FROM charge WHERE {' AND '.join(clauses)} "  # noqa: S608 - fixed clauses
            "ORDER BY id DESC LIMIT :limit",
            params,
        ).fetchall()
        items = [_charge(r) for r in rows[:limit]]
        return Page(items, items[-1].id if len(rows) > limit else None)

    def list_attempts(self, *, before: int | None = None, limit: int = 50) -> Page[AttemptRecord]:
        """Newest attempts first, keyset-paged by rowid."""
        if limit < 1:
            raise ValueError("a page holds at least one row")
        rows = self.conn.execute(
            "SELECT rowid AS rid, * FROM charge_attempt WHERE rowid < :before "
            "ORDER BY rowid DESC LIMIT :limit",
            {"before": before if before is not None else 2**62, "limit": limit + 1},
        ).fetchall()
        items = [_attempt(r) for r in rows[:limit]]
        cursor = int(rows[limit - 1]["rid"]) if len(rows) > limit else None
        return Page(items, cursor)


# ---------------------------------------------------------------------------------------------
# Row mapping


def _required_ts(text: str) -> datetime:
    value = from_ts(text)
    assert value is not None
    return value


def _attempt(row: sqlite3.Row) -> AttemptRecord:
    return AttemptRecord(
        merchant_charge_id=row["merchant_charge_id"],
        sale_id=row["sale_id"],
        profile=row["profile"],
        amount=int(row["amount"]),
        late_capture=bool(row["late_capture"]),
        cards=tuple(CardSummary.from_json(c) for c in json.loads(row["cards_json"])),
        state=AttemptState(row["state"]),
        created_at=_required_ts(row["created_at"]),
        updated_at=_required_ts(row["updated_at"]),
        resolved_at=from_ts(row["resolved_at"]),
        queries=int(row["queries"]),
        detail=row["detail"],
        answered=bool(row["answered"]),
    )


def _charge(row: sqlite3.Row) -> ChargeRecord:
    return ChargeRecord(
        id=int(row["id"]),
        merchant_charge_id=row["merchant_charge_id"],
        charge_id=row["charge_id"],
        sale_id=row["sale_id"],
        status=None if row["status"] is None else ChargeStatus(row["status"]),
        amount=row["amount"],
        refunded_amount=row["refunded_amount"],
        three_ds_status=row["three_ds_status"],
        state=ChargeState.from_json(json.loads(row["state_json"])),
        created_at=_required_ts(row["created_at"]),
        updated_at=_required_ts(row["updated_at"]),
        last_webhook_at=from_ts(row["last_webhook_at"]),
        last_checked_at=from_ts(row["last_checked_at"]),
        checks=int(row["checks"]),
        next_check_at=from_ts(row["next_check_at"]),
        check_reason=row["check_reason"],
        check_reason_data=Reason.from_stored(row["check_reason_code"], row["check_reason_args"]),
    )


def _change_text(change: Any) -> str:
    return str(change["text"]) if isinstance(change, dict) else str(change)


def _change_reasons(changes: list[Any]) -> tuple[Reason, ...] | None:
    """The changes as reasons, or None for a row from before they were kept so (strings)."""
    if not all(isinstance(c, dict) for c in changes):
        return None
    try:
        return tuple(Reason.from_json(c) for c in changes)
    except (ValueError, KeyError, TypeError):
        return None


def _sweep(row: sqlite3.Row) -> SweepRecord:
    return SweepRecord(
        id=int(row["id"]),
        started_at=_required_ts(row["started_at"]),
        window_from=_required_ts(row["window_from"]),
        window_to=_required_ts(row["window_to"]),
        after_id=int(row["after_id"]),
        checked=int(row["checked"]),
        changed=int(row["changed"]),
        finished_at=from_ts(row["finished_at"]),
    )


def _money_op(row: sqlite3.Row) -> MoneyOpRecord:
    return MoneyOpRecord(
        id=int(row["id"]),
        merchant_charge_id=row["merchant_charge_id"],
        kind=MoneyOpKind(row["kind"]),
        amount=int(row["amount"]),
        state=MoneyOpState(row["state"]),
        base=Figures(
            status=None if row["base_status"] is None else ChargeStatus(row["base_status"]),
            amount=row["base_amount"],
            refunded=int(row["base_refunded"]),
        ),
        created_at=_required_ts(row["created_at"]),
        updated_at=_required_ts(row["updated_at"]),
        resolved_at=from_ts(row["resolved_at"]),
        answered=bool(row["answered"]),
        queries=int(row["queries"]),
        detail=row["detail"],
    )


def _timeline(row: sqlite3.Row) -> TimelineRecord:
    occurred = row["occurred_at"]
    changes = json.loads(row["changes_json"])
    return TimelineRecord(
        id=int(row["id"]),
        merchant_charge_id=row["merchant_charge_id"],
        recorded_at=_required_ts(row["recorded_at"]),
        source=row["source"],
        source_ref=row["source_ref"],
        input_status=row["input_status"],
        occurred_at=None if occurred is None else datetime.fromisoformat(occurred),
        outcome=row["outcome"],
        previous_status=row["previous_status"],
        new_status=row["new_status"],
        reason=row["reason"],
        changes=tuple(_change_text(c) for c in changes),
        changes_data=_change_reasons(changes),
        body=None if row["body_json"] is None else json.loads(row["body_json"]),
        reason_data=Reason.from_stored(row["reason_code"], row["reason_args"]),
    )


__all__ = [
    "AttemptRecord",
    "CardSummary",
    "ChargeNotKnown",
    "ChargeRecord",
    "ChargeRepository",
    "CheckPolicy",
    "MergeResult",
    "MoneyOpRecord",
    "MoneyOperationOpen",
    "NotInTransaction",
    "Page",
    "RepositoryError",
    "SweepRecord",
    "TimelineRecord",
    "mask_json",
    "ts",
]
