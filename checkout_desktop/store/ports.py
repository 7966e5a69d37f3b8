"""What the core needs from a store, as Protocols: SQLite today (`store/sqlite/`), PostgreSQL next.

The charge use case (`charges/`), the inbox and the widgets' readers depend on these Protocols
only, never on a driver. Conventions every backend keeps:

- **Async.** Every read and write is a coroutine, so a network database never blocks the event
  loop (the GUI's). A backend on a local file may run its statements inline, as SQLite does:
  a coroutine that never suspends costs no more than a call.
- **Writes only in a unit of work.** `async with store.unit_of_work() as uow:` opens one
  transaction; everything written through `uow.charges` and `uow.events` commits together when
  the block ends normally, and nothing of it when the block raises. Reads through `uow` see the
  unit's own writes. Units of work that write are serialized per store: each runs as if no
  other wrote meanwhile (SQLite: `BEGIN IMMEDIATE`; a server database takes a store-wide
  transaction lock, e.g. `pg_advisory_xact_lock`, at the unit's first statement). Keep them
  short: never await the network inside one.
- **Durability.** A unit of work with `durable=True` (the default) is on stable storage when its
  block has ended (SQLite `synchronous=FULL`; PostgreSQL `synchronous_commit=on`). With
  `durable=False` it is atomic and survives a crash of the process, but a power cut may lose it
  (SQLite WAL with `synchronous=NORMAL`; PostgreSQL `SET LOCAL synchronous_commit = off`): only
  for rows whose loss the reconciler settles by asking the service.
- **Reads outside a unit of work** (`store.charges`, `store.events`) each see data committed
  before the call; two reads are not one snapshot.
- **Instants** are timezone-aware `datetime`s (stored as UTC, microseconds kept). **Ids** are
  integers that grow with insertion (a keyset paged on them never skips a row). **Records**
  are the frozen dataclasses of `domain/records.py` and `domain/deliveries.py`; every method
  returns what reading the row back would return.
- **Refusals** raise the errors of `store/errors.py` (`RepositoryError` and its kinds, the
  `StoreError` family when the store as a whole cannot be used), never a driver's exception.
- **Card data** never reaches a store: timeline and event bodies are masked by the caller's
  rules (`mask_json`) before they are written.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from datetime import datetime, timedelta, tzinfo
from typing import Any, Protocol

from checkout_desktop.domain.deliveries import (
    Applied,
    Delivery,
    EventFilter,
    EventPage,
    EventSummary,
    IndexProgress,
    NewEvent,
    StoredEvent,
    WriteResult,
)
from checkout_desktop.domain.enums import ChargeStatus
from checkout_desktop.domain.money_ops import Figures, MoneyOpKind, MoneyOpState
from checkout_desktop.domain.reasons import Reason
from checkout_desktop.domain.records import (
    AttemptRecord,
    ChargeRecord,
    DayTotals,
    MoneyOpRecord,
    Page,
    SweepRecord,
    TenderSummary,
    TimelineRecord,
)
from checkout_desktop.domain.search import ChargeQuery, CustomerRecord
from checkout_desktop.domain.state import AttemptState, ChargeState
from checkout_desktop.domain.three_ds import ThreeDsFlowRecord, ThreeDsStep
from checkout_desktop.domain.wire import ChargeUpdate, ThreeDsUpdate

logger = logging.getLogger(__name__)


class ChargeReads(Protocol):
    """Reading attempts, charges, money operations, timelines and the sweep."""

    async def charge(self, merchant_charge_id: str) -> ChargeRecord | None:
        """The charge with this merchantChargeId, or None."""
        ...

    async def charge_by_service_id(self, charge_id: str) -> ChargeRecord | None:
        """The oldest charge the service knows by `charge_id` (its own id), or None."""
        ...

    async def find_charge(
        self, *, merchant_charge_id: str | None, charge_id: str | None
    ) -> ChargeRecord | None:
        """The charge an input names: by `merchant_charge_id` when given (authoritative; the
        service's id is then not consulted), else by `charge_id`; None when neither finds one."""
        ...

    async def charges_for_sale(self, sale_id: str) -> list[ChargeRecord]:
        """A sale's charges, oldest first."""
        ...

    async def attempt(self, merchant_charge_id: str) -> AttemptRecord | None:
        """The attempt recorded under this merchantChargeId, or None."""
        ...

    async def attempts_for_sale(self, sale_id: str) -> list[AttemptRecord]:
        """A sale's attempts, oldest first."""
        ...

    async def unresolved_attempts(
        self, limit: int = 100, *, profile: str | None = None
    ) -> list[AttemptRecord]:
        """Attempts RECORDED or UNKNOWN, oldest first (by created_at, then merchantChargeId);
        only those sent to `profile`'s service when given (environments are kept apart: a
        service is never asked about another environment's charges)."""
        ...

    async def unresolved_attempt_for_sale(self, sale_id: str) -> AttemptRecord | None:
        """The sale's oldest attempt that is RECORDED or UNKNOWN, or None."""
        ...

    async def money_operation(self, op_id: int) -> MoneyOpRecord | None:
        """The refund, capture or cancel with this id, or None."""
        ...

    async def open_money_operation(self, merchant_charge_id: str) -> MoneyOpRecord | None:
        """The charge's operation that is RECORDED, SENT or UNKNOWN (at most one), or None."""
        ...

    async def unresolved_money_operations(
        self, limit: int = 100, *, profile: str | None = None
    ) -> list[MoneyOpRecord]:
        """Operations RECORDED, SENT or UNKNOWN, oldest (lowest id) first; only those on
        charges of `profile` when given."""
        ...

    async def money_operations(self, merchant_charge_id: str) -> list[MoneyOpRecord]:
        """A charge's operations, oldest first."""
        ...

    async def due_checks(
        self, *, now: datetime, limit: int = 50, profile: str | None = None
    ) -> list[ChargeRecord]:
        """Charges whose `next_check_at` is at or before `now`, most overdue first (only
        `profile`'s when given). A read: it claims nothing (see `ChargeStore.claim_due_checks`
        where several terminals share a store)."""
        ...

    async def timeline(
        self, merchant_charge_id: str, *, after: int | None = None, limit: int = 200
    ) -> Page[TimelineRecord]:
        """A charge's timeline rows with id > `after`, in id order (the order they were
        written), at most `limit`; `next_cursor` is the last id when more rows follow."""
        ...

    async def list_charges(
        self, *, before: int | None = None, limit: int = 50, status: ChargeStatus | None = None
    ) -> Page[ChargeRecord]:
        """Charges with id < `before`, newest (highest id) first, optionally of one status;
        `next_cursor` is the last id when more follow. Cost independent of the store's size."""
        ...

    async def list_attempts(
        self, *, before: int | None = None, limit: int = 50
    ) -> Page[AttemptRecord]:
        """Attempts inserted before the cursor, newest first; `next_cursor` when more follow."""
        ...

    async def changed_since(self, since: datetime, *, limit: int = 500) -> list[str]:
        """The merchant charge ids of the charges and attempts changed at or after `since`
        (as their writers' clocks said), most recently changed first, at most `limit`."""
        ...

    async def last_sweep(self) -> SweepRecord | None:
        """The latest daily sweep (finished or not), or None before the first."""
        ...

    async def sweep_batch(
        self, sweep: SweepRecord, limit: int, *, profile: str | None = None
    ) -> list[ChargeRecord]:
        """The sweep's next charges: created in [window_from, window_to), id > after_id, by id
        (only `profile`'s when given)."""
        ...

    async def search_charges(
        self, query: ChargeQuery, *, before: int | None = None, limit: int = 100
    ) -> Page[ChargeRecord]:
        """The history's search (`domain/search.py` for each filter's meaning): matching
        charges with id < `before`, newest first, each with `customer_name` filled;
        `next_cursor` is the last id when more follow. Every filter starts from an index:
        cost independent of the store's size."""
        ...

    async def matching_charge(
        self, query: ChargeQuery, merchant_charge_id: str
    ) -> ChargeRecord | None:
        """One charge with its customer's name, if it matches `query` (a shown row kept up to
        date), else None."""
        ...

    async def recent_customers(
        self, *, limit: int = 20, profile: str | None = None
    ) -> list[CustomerRecord]:
        """The customers charged most recently, newest first; only those charged in
        `profile`'s environment when one is given."""
        ...

    async def day_totals(
        self, *, start: datetime, end: datetime, profile: str, zone: tzinfo
    ) -> DayTotals:
        """Totals of the charges whose attempt `profile` made, created or captured in
        [start, end), and the refunds confirmed in it (`store/day_figures.py`); hours in
        `zone`. Raises ReportUnavailable when the store cannot be read."""
        ...

    async def three_ds_flow(self, merchant_charge_id: str) -> ThreeDsFlowRecord | None:
        """The charge's 3DS flow, if it went through 3-D Secure."""
        ...

    async def open_three_ds_flows(self, limit: int = 100) -> list[ThreeDsFlowRecord]:
        """3DS flows neither DONE nor ENDED, oldest first."""
        ...


class ChargeStore(ChargeReads, Protocol):
    """Writing attempts, charges, money operations, timelines and the sweep (in a unit of work).

    Every write raises NotInTransaction outside a unit of work. What an input *means* for a
    charge (the merge, the next check, which attempt it settles) is the ledger's business
    (`charges/ledger.py`); these methods store what they are given.
    """

    async def record_attempt(
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
        """Insert a RECORDED attempt and its timeline row ("recorded", source "request").
        A charge saved later under this merchantChargeId takes the attempt's `profile` and
        `customer_document` (a charge with no attempt has neither); the history shows the sale
        with `customer_name`, the name it was charged under, and finds it by that name.

        `tenders` (what pays the sale, `domain/tenders.py`) are kept as JSON objects with their
        "kind", read back with `domain.records.stored_tender`. Raises RepositoryError for a
        merchantChargeId already attempted (never reused), an amount that is not positive, or no
        tender. Commit before the request is sent."""
        ...

    async def remember_customer(
        self,
        *,
        document_type: str,
        document: str,
        name: str,
        email: str | None,
        phone: str | None = None,
    ) -> None:
        """Add or refresh a customer (newest details win; a missing e-mail or phone keeps the
        known one) and count the use; written with the sale's attempt. `phone` is the area
        code and number, digits only."""
        ...

    async def move_attempt(
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
        """Move an unresolved attempt (as read in this unit) to `new_state` and write the
        timeline row; a resolved attempt never changes: only its query count moves and an
        "ignored" row is written. `answered` is sticky (once true, stays true). Returns the
        attempt as now stored."""
        ...

    async def set_attempt_state(
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
        """`move_attempt` for an attempt named by id; ChargeNotKnown when there is none."""
        ...

    async def record_money_operation(
        self,
        merchant_charge_id: str,
        kind: MoneyOpKind,
        amount: int,
        base: Figures,
        *,
        counter: str | None = None,
    ) -> MoneyOpRecord:
        """Insert a RECORDED refund, capture or cancel with the service's figures before it
        (`base`), the counter that sends it (where counters share a store) and its timeline
        row. Raises MoneyOperationOpen while the charge has an unresolved operation (at most one
        per charge, enforced by the store itself)."""
        ...

    async def move_money_operation(
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
        """Move an unresolved operation on and write its timeline row (a resolved one never
        changes; only its query count moves, and no row is written). Returns it as stored."""
        ...

    async def save_charge(
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
        """Insert (`new`) or update the charge and its transactions as `state` holds them.

        On update: `updated_at` moves only when `changed`; a stored sale id is never replaced;
        source "webhook" stamps `last_webhook_at`, "reconciliation" `last_checked_at`. Only the
        last four digits of a card are kept (anything else is dropped)."""
        ...

    async def set_checked(
        self,
        merchant_charge_id: str,
        *,
        checks: int,
        next_check_at: datetime | None,
        check_reason: Reason | None,
    ) -> None:
        """Record a query that changed nothing: `last_checked_at` now, the count, the next."""
        ...

    async def schedule_check(
        self, merchant_charge_id: str, *, reason: Reason, at: datetime
    ) -> None:
        """Bring the charge's next check forward to `at` (never later than already planned)."""
        ...

    async def claim_due_checks(
        self,
        limit: int,
        owner: str,
        *,
        now: datetime,
        lease: timedelta,
        profile: str | None = None,
    ) -> list[ChargeRecord]:
        """Take up to `limit` charges due at `now` (most overdue first) for `owner` (a
        terminal's name), moving their `next_check_at` to `now + lease` so that no other
        terminal sharing the store takes them before the lease ends; `set_checked` or
        `save_charge` then plans the real next check. Charges another owner holds under an
        unexpired lease are skipped, never waited for (PostgreSQL: `FOR UPDATE SKIP LOCKED`).
        Only `profile`'s charges when given.
        Returns the charges as they were before the claim."""
        ...

    async def add_timeline(
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
        """Append a timeline row (reason kept as code, arguments and English text; `body`
        masked by `mask_json`) and return its id. RepositoryError for an unknown `source`
        (one of `domain.records.TIMELINE_SOURCES`)."""
        ...

    async def start_sweep(self, *, window_from: datetime, window_to: datetime) -> SweepRecord:
        """Begin a daily sweep of the charges created in [window_from, window_to)."""
        ...

    async def advance_sweep(
        self, sweep: SweepRecord, *, after_id: int, checked: int, changed: int, finished: bool
    ) -> SweepRecord:
        """Record the sweep's progress (counts added; finished stamps `finished_at`)."""
        ...

    async def record_three_ds(self, merchant_charge_id: str, sale_id: str) -> ThreeDsFlowRecord:
        """A new 3DS flow at step SETUP, for an attempt recorded in the same unit of work."""
        ...

    async def move_three_ds(
        self, merchant_charge_id: str, step: ThreeDsStep, **fields: Any
    ) -> ThreeDsFlowRecord:
        """Move an open 3DS flow to `step`, setting charge_id, authentication_id, result,
        step_up_url, width or height; a DONE or ENDED flow never moves again."""
        ...


class EventReads(Protocol):
    """Reading the inbox's stored deliveries (the event list, export, a charge's deliveries)."""

    async def get(self, event_id: int) -> StoredEvent | None:
        """One whole delivery (headers and body as received, never its Authorization)."""
        ...

    async def latest_id(self) -> int:
        """The newest delivery's id, 0 when there is none."""
        ...

    async def page(
        self,
        where: EventFilter | None = None,
        *,
        before: int | None = None,
        limit: int = 100,
        floor: int | None = None,
    ) -> EventPage:
        """Summaries matching `where` with id < `before` (and ≥ `floor`), newest first; a text
        filter matches case-insensitively anywhere in the ids, types, status, reason or body."""
        ...

    async def newer(
        self, where: EventFilter | None = None, *, after: int, limit: int = 100
    ) -> list[EventSummary]:
        """Summaries matching `where` with id > `after`, oldest first (a live list's fetch)."""
        ...

    def iter_full(
        self, where: EventFilter | None = None, *, batch: int = 500
    ) -> AsyncIterator[StoredEvent]:
        """Every matching delivery, oldest first, read `batch` at a time (for export)."""
        ...


class EventStore(EventReads, Protocol):
    """Writing deliveries (in a unit of work: the inbox's group commit)."""

    async def first_delivery_of(self, body_sha256: str) -> int | None:
        """The id of the first non-quarantined delivery with this body hash, or None."""
        ...

    async def insert(self, event: NewEvent) -> int:
        """Store one delivery (reason cut to a bounded English text; code and arguments whole)
        and return its id. Ids grow in commit order of their units of work."""
        ...

    async def set_merge_outcome(self, event_id: int, outcome: Reason) -> None:
        """Keep what the ledger did with the delivery beside it."""
        ...

    async def prune_self_tests(self) -> int:
        """Drop the oldest health self-test deliveries beyond the kept few; how many."""
        ...


class ShopReads(Protocol):
    """The facts a shop's counters share: settings that must agree, and the counters' ids."""

    async def settings(self) -> dict[str, str]:
        """The shared settings (`store.sqlite.shop.SHOP_KEYS`), key → value; unset ones absent."""
        ...

    async def counter_of(self, terminal_id: str) -> str | None:
        """The counter id registered for the terminal with this device id, or None."""
        ...


class ShopStore(ShopReads, Protocol):
    """Writing the shop's shared facts (in a unit of work)."""

    async def set_setting(self, key: str, value: str | None, *, by: str) -> None:
        """Set (None: clear) one shared setting; `by` names the counter. RepositoryError for a
        key the counters do not share."""
        ...

    async def register_counter(self, counter_id: str, terminal_id: str, host: str) -> str:
        """Register `counter_id` for the terminal; returns the terminal's counter id (one it
        registered before wins). RepositoryError when another terminal holds `counter_id`."""
        ...


_Applied = Applied | Reason | None
ChargeApplier = Callable[
    [ChargeStore, ChargeUpdate | ThreeDsUpdate, str], Awaitable[_Applied] | _Applied
]
"""Feeds one accepted notification to the charges inside the inbox batch's transaction (it must
not begin or commit): gets the batch's charge store, the update and a source reference
("webhook_event:<id>"); returns (or resolves to) what it did (an Applied, or just an outcome
reason), or None. It must wait for nothing but the store: the batch holds the write lock."""


class DeliveryBatches(Protocol):
    """The store's half of the inbox's group commit (`inbox/writer.py` keeps the queue, the
    batching and the acknowledgements; a backend keeps its connection and how it commits)."""

    @property
    def opened(self) -> bool: ...

    async def open(self) -> IndexProgress:
        """Connect (and prepare the store); where the search index stands."""
        ...

    async def commit(
        self, deliveries: Sequence[Delivery], applier: ChargeApplier | None = None
    ) -> list[WriteResult]:
        """Store the deliveries in one durable transaction, in order: each is marked DUPLICATE
        when its body's hash was stored before (not quarantined), and an accepted one is fed to
        `applier`; a failing merge loses only its own writes (the delivery is kept, with why).
        Returns only once the commit is on stable storage; raises what the store raised, and
        then none of the batch is stored."""
        ...

    def one_bad_row(self, exc: BaseException) -> bool:
        """`commit`'s failure may come from one delivery's data: retry them one by one."""
        ...

    def unstorable(self, exc: BaseException) -> bool:
        """The store refused what was read from a body: keep its bytes, quarantined."""
        ...

    async def index_some(self, rows: int) -> tuple[int, int]:
        """Add up to `rows` stored deliveries to the text search index (a backend without one
        returns at once); the id indexed through and the newest id."""
        ...

    async def durability(self) -> tuple[str, int]:
        """How commits are made durable, for the health check (SQLite: journal mode and
        synchronous level, e.g. ("wal", 2))."""
        ...

    async def close(self) -> None:
        """Release the connection once the last commit has ended."""
        ...


class UnitOfWork(Protocol):
    """One transaction over the whole store (see the module's conventions)."""

    @property
    def charges(self) -> ChargeStore: ...

    @property
    def events(self) -> EventStore: ...

    @property
    def shop(self) -> ShopStore: ...

    def savepoint(self) -> AbstractAsyncContextManager[None]:
        """A nested step: when its block raises, only its own writes are undone and the unit
        goes on (the inbox keeps a delivery whose merge failed)."""
        ...


class Store(Protocol):
    """One store: its readers, its units of work, and the stream of committed deliveries."""

    @property
    def charges(self) -> ChargeReads:
        """Reads outside a unit of work, each seeing what was committed before it."""
        ...

    @property
    def events(self) -> EventReads: ...

    @property
    def shop(self) -> ShopReads:
        """The shop's shared settings and counter ids."""
        ...

    def unit_of_work(self, *, durable: bool = True) -> AbstractAsyncContextManager[UnitOfWork]:
        """Open a transaction; commit when the block ends, roll back when it raises. Returns
        only after the commit is as durable as asked (see the module's conventions)."""
        ...

    def watch(self, *, after: int = 0) -> AsyncIterator[int]:
        """Ids of deliveries as their units of work commit, in increasing order, starting
        after `after`: none skipped, none repeated, whichever process (or terminal) wrote
        them. A backend whose notifications can be lost re-reads by id, so a lost one only
        delays. Ends when the store is closed."""
        ...

    async def close(self) -> None:
        """Wait for open units of work to end, then release every connection."""
        ...


__all__ = [
    "ChargeApplier",
    "ChargeReads",
    "ChargeStore",
    "DeliveryBatches",
    "EventReads",
    "EventStore",
    "ShopReads",
    "ShopStore",
    "Store",
    "UnitOfWork",
]
