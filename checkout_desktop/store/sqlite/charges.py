"""Repository of charge attempts, charges, transactions, money operations and timelines.

Every write method runs inside the caller's open transaction (`write()`, or
`db.transaction`) and never begins or commits one itself, so a caller can commit an input
together with its own records (the inbox commits a notification and its merge in one durable
step). What an input means for a charge (the merge, the next check) is the ledger's business
(`charges/ledger.py`); this module only reads and writes rows.
"""

from __future__ import annotations

import contextlib
import json
import logging
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

from checkout_desktop.domain.enums import ChargeStatus
from checkout_desktop.domain.money_ops import (
    UNRESOLVED_MONEY_STATES,
    Figures,
    MoneyOpKind,
    MoneyOpState,
)
from checkout_desktop.domain.reasons import Reason, ReasonCode
from checkout_desktop.domain.records import (
    CARD,
    LAST_FOUR,
    TIMELINE_SOURCES,
    AttemptRecord,
    ChargeRecord,
    MoneyOpRecord,
    Page,
    SweepRecord,
    TenderSummary,
    TimelineRecord,
    stored_tender,
)
from checkout_desktop.domain.search import ChargeQuery, CustomerRecord, name_key
from checkout_desktop.domain.shown_status import NEVER_CHARGED_ATTEMPTS, shown_status
from checkout_desktop.domain.state import (
    UNRESOLVED_ATTEMPT_STATES,
    AttemptState,
    ChargeState,
    Outcome,
)
from checkout_desktop.domain.timestamps import utc_now
from checkout_desktop.domain.wire import mask_card_number
from checkout_desktop.store.errors import (
    ChargeNotKnown,
    MoneyOperationOpen,
    NotInTransaction,
    RepositoryError,
)
from checkout_desktop.store.sqlite.bound import Positional, positional
from checkout_desktop.store.sqlite.charge_search import Rows, matching_charge, search_charges
from checkout_desktop.store.sqlite.customers import recent_customers, remember_customer
from checkout_desktop.store.sqlite.db import transaction
from checkout_desktop.store.sqlite.three_ds import ThreeDsRows

logger = logging.getLogger(__name__)
# Made once: json.dumps with options builds an encoder on every call.
_TEXT_JSON = json.JSONEncoder(ensure_ascii=False)

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


class ChargeRepository(ThreeDsRows):
    """Attempts, charges, transactions and timelines on one connection (one writer)."""

    INDEX_HINTS = True
    """The history's search may steer SQLite's planner (`store/sqlite/charge_search.py`)."""
    BIND_BY_POSITION = True
    """The merge's statements bind their values by position (`store/sqlite/bound.py`)."""

    def __init__(
        self, conn: sqlite3.Connection, *, clock: Callable[[], datetime] = utc_now
    ) -> None:
        self.conn = conn
        self._clock = clock

    def now(self) -> datetime:
        return self._clock()

    @contextlib.contextmanager
    def write(self, *, relaxed: bool = False) -> Iterator[None]:
        """One write transaction: BEGIN IMMEDIATE … COMMIT, rolled back on any exception.

        Its commit is durable (fsynced, synchronous=FULL) unless `relaxed`: then it is atomic
        and survives a crash of the process, not a power cut (WAL, synchronous=NORMAL) — for
        rows whose loss a power cut would leave settled by asking the service.
        """
        if relaxed:
            self.conn.execute("PRAGMA synchronous = NORMAL")
        try:
            with transaction(self.conn):
                yield
        finally:
            if relaxed:
                self.conn.execute("PRAGMA synchronous = FULL")

    def _bound(self, statement: Positional, params: Mapping[str, Any]) -> sqlite3.Cursor:
        if self.BIND_BY_POSITION:
            return self.conn.execute(statement.sql, statement.values(params))
        return self.conn.execute(statement.named, params)

    def require_transaction(self, what: str) -> None:
        """Raise NotInTransaction unless a write transaction is open."""
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
        tenders: Sequence[TenderSummary],
        late_capture: bool = False,
        customer_document: str | None = None,
        customer_name: str | None = None,
    ) -> AttemptRecord:
        """Record an attempt before its request is sent (commit before sending). A charge
        saved later under this merchantChargeId takes its profile and customer; the sale keeps
        the customer's name it was charged under."""
        self.require_transaction("record_attempt")
        if amount <= 0:
            raise RepositoryError(f"charge {merchant_charge_id}: the amount must be positive")
        if not tenders:
            raise RepositoryError(
                f"charge {merchant_charge_id}: an attempt is paid by at least one tender"
            )
        now = ts(self.now())
        try:
            self.conn.execute(
                "INSERT INTO charge_attempt (merchant_charge_id, sale_id, profile, amount, "
                "late_capture, cards_json, tenders_json, state, created_at, updated_at, "
                "customer_document, customer_name, customer_name_key) VALUES (:mcid, :sale, "
                ":profile, :amount, :late, :cards, :tenders, :state, :now, :now, :customer, "
                ":name, :name_key)",
                {
                    "customer": customer_document or None,
                    "name": customer_name or None,
                    "name_key": name_key(customer_name) if customer_name else None,
                    "mcid": merchant_charge_id,
                    "sale": sale_id,
                    "profile": profile,
                    "amount": amount,
                    "late": int(late_capture),
                    # The card list, as before tenders were kept: what an older reader knows.
                    "cards": json.dumps([t.to_json() for t in tenders if t.kind == CARD]),
                    "tenders": json.dumps([t.to_json() for t in tenders]),
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
                cards=tuple(t.reason() for t in tenders),
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
            tenders=tuple(stored_tender(t.to_json()) for t in tenders),
            state=AttemptState.RECORDED,
            created_at=at,
            updated_at=at,
            resolved_at=None,
            queries=0,
            detail=None,
            answered=False,
            customer_document=customer_document or None,
        )

    def remember_customer(
        self,
        *,
        document_type: str,
        document: str,
        name: str,
        email: str | None,
        phone: str | None = None,
    ) -> None:
        """Keep a sale's customer (inside its attempt's transaction), for search and reuse."""
        self.require_transaction("remember_customer")
        remember_customer(
            self.conn,
            document_type=document_type,
            document=document,
            name=name,
            email=email,
            phone=phone,
            at=self.now(),
        )

    def recent_customers(
        self, *, limit: int = 20, profile: str | None = None
    ) -> list[CustomerRecord]:
        """The customers charged most recently, newest first (only `profile`'s when given)."""
        return recent_customers(self.conn, limit=limit, profile=profile)

    def search_charges(
        self, query: ChargeQuery, *, before: int | None = None, limit: int = 100
    ) -> Page[ChargeRecord]:
        """One page of the history's search, newest first, each with its customer's name."""
        return search_charges(
            self.conn,
            query,
            rows=_SEARCH_ROWS,
            before=before,
            limit=limit,
            index_hints=self.INDEX_HINTS,
        )

    def matching_charge(self, query: ChargeQuery, merchant_charge_id: str) -> ChargeRecord | None:
        """One charge with its customer's name, if it matches `query`."""
        return matching_charge(
            self.conn,
            query,
            merchant_charge_id,
            rows=_SEARCH_ROWS,
            index_hints=self.INDEX_HINTS,
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
        self.require_transaction("set_attempt_state")
        current = self.attempt(merchant_charge_id)
        if current is None:
            raise ChargeNotKnown(f"no attempt with merchantChargeId {merchant_charge_id}")
        return self.move_attempt(
            current,
            new_state,
            source=source,
            reason=reason,
            detail=detail,
            count_query=count_query,
            answered=answered,
        )

    def move_attempt(
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
        """`set_attempt_state` for an attempt just read in this transaction."""
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
        if changed and new_state in NEVER_CHARGED_ATTEMPTS:
            self._attempt_ended_uncharged(merchant_charge_id, new_state)
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

    def _attempt_ended_uncharged(self, merchant_charge_id: str, state: AttemptState) -> None:
        """A row already holding only what was heard before a charge (a 3DS result) is now
        shown as never charged: its attempt ended with no charge at the service."""
        row = self.conn.execute(
            "SELECT state_json FROM charge WHERE merchant_charge_id = :m AND status IS NULL",
            {"m": merchant_charge_id},
        ).fetchone()
        if row is None:
            return
        shown = shown_status(ChargeState.from_json(json.loads(row["state_json"])), state)
        self.conn.execute(
            "UPDATE charge SET shown_status = :shown WHERE merchant_charge_id = :m",
            {"shown": None if shown is None else str(shown), "m": merchant_charge_id},
        )

    def attempt(self, merchant_charge_id: str) -> AttemptRecord | None:
        row = self.conn.execute(
            "SELECT * FROM charge_attempt WHERE merchant_charge_id = :m",
            {"m": merchant_charge_id},
        ).fetchone()
        return None if row is None else _attempt(row)

    def unresolved_attempts(
        self, limit: int = 100, *, profile: str | None = None
    ) -> list[AttemptRecord]:
        """Attempts whose outcome is not known, oldest first (uses a partial index); only
        those sent to `profile`'s service when one is given."""
        mine = "AND profile = :profile " if profile is not None else ""
        rows = self.conn.execute(
            "SELECT * FROM charge_attempt WHERE state IN ('RECORDED', 'UNKNOWN') "  # noqa: S608 - constant conditions
            f"{mine}ORDER BY created_at, merchant_charge_id LIMIT :limit",
            {"limit": limit, "profile": profile},
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
        self,
        merchant_charge_id: str,
        kind: MoneyOpKind,
        amount: int,
        base: Figures,
        *,
        counter: str | None = None,
    ) -> MoneyOpRecord:
        """Record a refund, capture or cancel before it is sent (commit before sending), with
        the counter that sends it (where counters share a store).

        Raises MoneyOperationOpen while the charge has an unresolved operation.
        """
        self.require_transaction("record_money_operation")
        if amount <= 0:
            raise RepositoryError(f"charge {merchant_charge_id}: the amount must be positive")
        now = ts(self.now())
        try:
            cursor = self.conn.execute(
                "INSERT INTO money_operation (merchant_charge_id, kind, amount, state, "
                "base_status, base_amount, base_refunded, created_at, updated_at, counter) "
                "VALUES (:m, :kind, :amount, :state, :bs, :ba, :br, :now, :now, :counter)",
                {
                    "m": merchant_charge_id,
                    "kind": kind.value,
                    "amount": amount,
                    "state": MoneyOpState.RECORDED.value,
                    "bs": None if base.status is None else str(base.status),
                    "ba": base.amount,
                    "br": base.refunded,
                    "now": now,
                    "counter": counter,
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
            counter=counter,
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
        self.require_transaction("move_money_operation")
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

    def unresolved_money_operations(
        self, limit: int = 100, *, profile: str | None = None
    ) -> list[MoneyOpRecord]:
        """Operations whose outcome is not known, oldest first; only those on charges of
        `profile`'s service when one is given."""
        mine = (
            "AND merchant_charge_id IN (SELECT merchant_charge_id FROM charge "
            "WHERE profile = :profile) "
            if profile is not None
            else ""
        )
        rows = self.conn.execute(
            "SELECT * FROM money_operation WHERE state IN ('RECORDED', 'SENT', 'UNKNOWN') "  # noqa: S608 - constant conditions
            f"{mine}ORDER BY id LIMIT :limit",
            {"limit": limit, "profile": profile},
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
        self.require_transaction("start_sweep")
        now = self.now()
        cursor = self.conn.execute(
            "INSERT INTO charge_sweep (started_at, window_from, window_to) VALUES (:now, :wf, :wt)",
            {"now": ts(now), "wf": ts(window_from), "wt": ts(window_to)},
        )
        sweep_id = cursor.lastrowid
        assert sweep_id is not None
        return SweepRecord(sweep_id, now, window_from, window_to, 0, 0, 0, None)

    def sweep_batch(
        self, sweep: SweepRecord, limit: int, *, profile: str | None = None
    ) -> list[ChargeRecord]:
        """The next charges of the sweep's window, by id (uses the created_at index); only
        `profile`'s when one is given."""
        mine = "AND profile = :profile " if profile is not None else ""
        rows = self.conn.execute(
            "SELECT * FROM charge WHERE created_at >= :wf AND created_at < :wt AND id > :after "  # noqa: S608 - constant conditions
            f"{mine}ORDER BY id LIMIT :limit",
            {
                "profile": profile,
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
        self.require_transaction("advance_sweep")
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

    def find_charge(
        self, *, merchant_charge_id: str | None, charge_id: str | None
    ) -> ChargeRecord | None:
        """The charge an input names: by the merchant's id when it has one (authoritative),
        else by the service's id (a 3DS result with only `chargeId`)."""
        if merchant_charge_id is not None:
            return self.charge(merchant_charge_id)
        if charge_id is not None:
            return self.charge_by_service_id(charge_id)
        return None

    def save_charge(
        self,
        merchant_charge_id: str,
        state: ChargeState,
        *,
        sale_id: str | None,
        source: str,
        new: bool,
        changed: bool,
        checks: int,
        next_check_at: datetime | None,
        check_reason: Reason | None,
    ) -> None:
        """Insert (`new`) or update a charge and its transactions as `state` has them.

        `updated_at` moves only when the input `changed` the charge; a notification or a query
        stamps `last_webhook_at` or `last_checked_at`; a stored sale id is never replaced.
        """
        self.require_transaction("save_charge")
        now = ts(self.now())
        params = {
            "mcid": merchant_charge_id,
            "cid": state.charge_id,
            "sale": sale_id,
            "status": None if state.status is None else str(state.status),
            "amount": state.amount,
            "refunded": state.refunded_amount,
            "tds": None if state.three_ds is None else str(state.three_ds.status),
            "state": json.dumps(state.to_json()),
            "shown": self._shown_status(merchant_charge_id, state),
            "now": now,
            "webhook": now if source == "webhook" else None,
            "checked": now if source == "reconciliation" else None,
            "checks": checks,
            "next": None if next_check_at is None else ts(next_check_at),
            "why": None if check_reason is None else check_reason.english(),
            "why_code": None if check_reason is None else check_reason.code.value,
            "why_args": None if check_reason is None else check_reason.args_json(),
        }
        if new:
            self._bound(_INSERT_CHARGE, params)
        else:
            params["changed"] = int(changed)
            self._bound(_UPDATE_CHARGE, params)
        self._write_transactions(merchant_charge_id, state, now)

    def _shown_status(self, merchant_charge_id: str, state: ChargeState) -> str | None:
        """The status the history shows for the charge as `state` has it. Only a row with no
        charge status depends on its attempt (a sale that ended uncharged), read then."""
        attempt = None
        if state.status is None:
            row = self.conn.execute(
                "SELECT state FROM charge_attempt WHERE merchant_charge_id = :m",
                {"m": merchant_charge_id},
            ).fetchone()
            attempt = None if row is None else _attempt_state(row["state"])
        shown = shown_status(state, attempt)
        return None if shown is None else str(shown)

    def _write_transactions(self, mcid: str, state: ChargeState, now: str) -> None:
        for txn in state.transactions:
            last_four = txn.last_four if txn.last_four and LAST_FOUR.match(txn.last_four) else None
            self._bound(
                _UPSERT_TRANSACTION,
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

    def due_checks(
        self, *, now: datetime | None = None, limit: int = 50, profile: str | None = None
    ) -> list[ChargeRecord]:
        """Charges the reconciler should query now, most overdue first (uses a partial index);
        only `profile`'s when one is given."""
        mine = "AND profile = :profile " if profile is not None else ""
        rows = self.conn.execute(
            "SELECT * FROM charge WHERE next_check_at IS NOT NULL AND next_check_at <= :now "  # noqa: S608 - constant conditions
            f"{mine}ORDER BY next_check_at LIMIT :limit",
            {"now": ts(now or self.now()), "limit": limit, "profile": profile},
        ).fetchall()
        return [_charge(r) for r in rows]

    def claim_due_checks(
        self,
        limit: int,
        owner: str,
        *,
        now: datetime,
        lease: timedelta,
        profile: str | None = None,
    ) -> list[ChargeRecord]:
        """Take the charges due at `now` (most overdue first) and move their next check to
        `now + lease`, so that a second claim before the lease ends does not take them again.

        A SQLite store serves one terminal, so `owner` is only logged; the lease is what keeps a
        slow query from being asked twice.
        """
        self.require_transaction("claim_due_checks")
        due = self.due_checks(now=now, limit=limit, profile=profile)
        if due:
            until = ts(now + lease)
            self.conn.executemany(
                "UPDATE charge SET next_check_at = :until WHERE id = :id",
                [{"until": until, "id": record.id} for record in due],
            )
            logger.debug("%s claimed %d due check(s)", owner, len(due))
        return due

    def set_checked(
        self,
        merchant_charge_id: str,
        *,
        checks: int,
        next_check_at: datetime | None,
        check_reason: Reason | None,
    ) -> None:
        """Record a query of the charge that changed nothing, and when to ask next."""
        self.require_transaction("set_checked")
        self.conn.execute(
            "UPDATE charge SET last_checked_at = :now, checks = :checks, next_check_at = :next, "
            "check_reason = :why, check_reason_code = :why_code, check_reason_args = :why_args "
            "WHERE merchant_charge_id = :m",
            {
                "now": ts(self.now()),
                "checks": checks,
                "next": None if next_check_at is None else ts(next_check_at),
                "why": None if check_reason is None else check_reason.english(),
                "why_code": None if check_reason is None else check_reason.code.value,
                "why_args": None if check_reason is None else check_reason.args_json(),
                "m": merchant_charge_id,
            },
        )

    def schedule_check(self, merchant_charge_id: str, *, reason: Reason, at: datetime) -> None:
        """Ask the reconciler to query a charge at `at` (sooner than planned, never later)."""
        self.require_transaction("schedule_check")
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
        self.require_transaction("add_timeline")
        if source not in TIMELINE_SOURCES:
            raise RepositoryError(
                f"unknown timeline source {source!r}; use one of {sorted(TIMELINE_SOURCES)}"
            )
        cursor = self._bound(
            _INSERT_TIMELINE,
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
                # Each change as {"code", "args", "text"}: the text is its English, for
                # exports.
                "changes": _TEXT_JSON.encode(
                    [{**c.to_json(), "text": c.english()} for c in changes]
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

    def changed_since(self, since: datetime, *, limit: int = 500) -> list[str]:
        """The ids of the charges and attempts whose rows changed at or after `since`, the most
        recently changed first (a counter that stopped hearing the store catches up with it)."""
        rows = self.conn.execute(
            "SELECT merchant_charge_id, MAX(updated_at) AS changed FROM ("
            "SELECT merchant_charge_id, updated_at FROM charge WHERE updated_at >= :since "
            "UNION ALL SELECT merchant_charge_id, updated_at FROM charge_attempt "
            "WHERE updated_at >= :since) AS changes "
            "GROUP BY merchant_charge_id ORDER BY changed DESC, merchant_charge_id LIMIT :limit",
            {"since": ts(since), "limit": limit},
        ).fetchall()
        return [str(row[0]) for row in rows]

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


# The statements a notification's merge runs, bound by position (`store/sqlite/bound.py`).
_INSERT_CHARGE = positional(
    "INSERT INTO charge (merchant_charge_id, charge_id, sale_id, status, amount, "
    "refunded_amount, three_ds_status, state_json, created_at, updated_at, "
    "last_webhook_at, last_checked_at, checks, next_check_at, check_reason, "
    "check_reason_code, check_reason_args, shown_status, profile, customer_document) VALUES "
    "(:mcid, :cid, :sale, :status, :amount, :refunded, :tds, :state, :now, :now, "
    ":webhook, :checked, :checks, :next, :why, :why_code, :why_args, :shown, "
    # The environment that made the charge is the one its attempt was sent to; a
    # charge this terminal never attempted has none.
    "(SELECT profile FROM charge_attempt WHERE merchant_charge_id = :mcid), "
    "(SELECT customer_document FROM charge_attempt WHERE merchant_charge_id = :mcid))"
)
_UPDATE_CHARGE = positional(
    "UPDATE charge SET charge_id = :cid, sale_id = COALESCE(sale_id, :sale), "
    "status = :status, amount = :amount, refunded_amount = :refunded, "
    "three_ds_status = :tds, state_json = :state, shown_status = :shown, "
    "updated_at = CASE WHEN :changed THEN :now ELSE updated_at END, "
    "last_webhook_at = COALESCE(:webhook, last_webhook_at), "
    "last_checked_at = COALESCE(:checked, last_checked_at), checks = :checks, "
    "next_check_at = :next, check_reason = :why, check_reason_code = :why_code, "
    "check_reason_args = :why_args WHERE merchant_charge_id = :mcid"
)
_UPSERT_TRANSACTION = positional(
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
    "THEN charge_transaction.updated_at ELSE excluded.updated_at END"
)
_INSERT_TIMELINE = positional(
    "INSERT INTO charge_timeline (merchant_charge_id, recorded_at, source, source_ref, "
    "input_status, occurred_at, outcome, previous_status, new_status, reason, "
    "reason_code, reason_args, changes_json, body_json) VALUES (:m, :now, :source, :ref, "
    ":input, :occurred, :outcome, :prev, :new, :reason, :code, :args, :changes, :body)"
)


# ---------------------------------------------------------------------------------------------
# Row mapping


def _required_ts(text: str) -> datetime:
    value = from_ts(text)
    assert value is not None
    return value


def _attempt_state(text: str) -> AttemptState | None:
    try:
        return AttemptState(text)
    except ValueError:
        return None  # written by a newer checkout-desktop


def _attempt(row: sqlite3.Row) -> AttemptRecord:
    return AttemptRecord(
        merchant_charge_id=row["merchant_charge_id"],
        sale_id=row["sale_id"],
        profile=row["profile"],
        amount=int(row["amount"]),
        late_capture=bool(row["late_capture"]),
        tenders=tuple(
            stored_tender(t) for t in json.loads(row["tenders_json"] or row["cards_json"])
        ),
        state=AttemptState(row["state"]),
        created_at=_required_ts(row["created_at"]),
        updated_at=_required_ts(row["updated_at"]),
        resolved_at=from_ts(row["resolved_at"]),
        queries=int(row["queries"]),
        detail=row["detail"],
        answered=bool(row["answered"]),
        customer_document=row["customer_document"],
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
        profile=row["profile"],
        customer_document=row["customer_document"],
    )


_SEARCH_ROWS = Rows(_charge, ts)


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
        counter=row["counter"],
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
    "ChargeNotKnown",
    "ChargeRepository",
    "MoneyOperationOpen",
    "NotInTransaction",
    "RepositoryError",
    "from_ts",
    "mask_json",
    "ts",
]
