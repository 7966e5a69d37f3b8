"""The store ports (`store/ports.py`) on one SQLite file: inline, since the disk is local.

Statements run on the caller's thread (the event loop): a local SQLite read takes microseconds
and the write lock is short, so a thread hop would cost more than it saves. The durable commit
of the inbox's group commit, the one place an fsync would stall the loop, runs on the inbox
writer's own thread (`store/sqlite/writer.py`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from datetime import datetime, timedelta, tzinfo
from pathlib import Path
from typing import Any

from checkout_desktop.domain.deliveries import (
    EventFilter,
    EventPage,
    EventSummary,
    NewEvent,
    StoredEvent,
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
from checkout_desktop.domain.timestamps import utc_now
from checkout_desktop.store.ports import Store
from checkout_desktop.store.sqlite import db
from checkout_desktop.store.sqlite.charges import ChargeRepository
from checkout_desktop.store.sqlite.events import EventRepository
from checkout_desktop.store.sqlite.reports import day_totals
from checkout_desktop.store.sqlite.shop import ShopRepository

logger = logging.getLogger(__name__)

WATCH_INTERVAL_S = 0.25
"""How often `watch` looks for deliveries another connection (or process) committed."""


class SqliteCharges:
    """`ChargeStore` over a ChargeRepository (the same methods, as coroutines)."""

    def __init__(self, repo: ChargeRepository) -> None:
        self.repo = repo

    # -- reads -------------------------------------------------------------------------------

    async def charge(self, merchant_charge_id: str) -> ChargeRecord | None:
        return self.repo.charge(merchant_charge_id)

    async def charge_by_service_id(self, charge_id: str) -> ChargeRecord | None:
        return self.repo.charge_by_service_id(charge_id)

    async def find_charge(
        self, *, merchant_charge_id: str | None, charge_id: str | None
    ) -> ChargeRecord | None:
        return self.repo.find_charge(merchant_charge_id=merchant_charge_id, charge_id=charge_id)

    async def charges_for_sale(self, sale_id: str) -> list[ChargeRecord]:
        return self.repo.charges_for_sale(sale_id)

    async def attempt(self, merchant_charge_id: str) -> AttemptRecord | None:
        return self.repo.attempt(merchant_charge_id)

    async def attempts_for_sale(self, sale_id: str) -> list[AttemptRecord]:
        return self.repo.attempts_for_sale(sale_id)

    async def unresolved_attempts(
        self, limit: int = 100, *, profile: str | None = None
    ) -> list[AttemptRecord]:
        return self.repo.unresolved_attempts(limit, profile=profile)

    async def unresolved_attempt_for_sale(self, sale_id: str) -> AttemptRecord | None:
        return self.repo.unresolved_attempt_for_sale(sale_id)

    async def money_operation(self, op_id: int) -> MoneyOpRecord | None:
        return self.repo.money_operation(op_id)

    async def open_money_operation(self, merchant_charge_id: str) -> MoneyOpRecord | None:
        return self.repo.open_money_operation(merchant_charge_id)

    async def unresolved_money_operations(
        self, limit: int = 100, *, profile: str | None = None
    ) -> list[MoneyOpRecord]:
        return self.repo.unresolved_money_operations(limit, profile=profile)

    async def money_operations(self, merchant_charge_id: str) -> list[MoneyOpRecord]:
        return self.repo.money_operations(merchant_charge_id)

    async def due_checks(
        self, *, now: datetime, limit: int = 50, profile: str | None = None
    ) -> list[ChargeRecord]:
        return self.repo.due_checks(now=now, limit=limit, profile=profile)

    async def timeline(
        self, merchant_charge_id: str, *, after: int | None = None, limit: int = 200
    ) -> Page[TimelineRecord]:
        return self.repo.timeline(merchant_charge_id, after=after, limit=limit)

    async def list_charges(
        self, *, before: int | None = None, limit: int = 50, status: ChargeStatus | None = None
    ) -> Page[ChargeRecord]:
        return self.repo.list_charges(before=before, limit=limit, status=status)

    async def list_attempts(
        self, *, before: int | None = None, limit: int = 50
    ) -> Page[AttemptRecord]:
        return self.repo.list_attempts(before=before, limit=limit)

    async def changed_since(self, since: datetime, *, limit: int = 500) -> list[str]:
        return self.repo.changed_since(since, limit=limit)

    async def last_sweep(self) -> SweepRecord | None:
        return self.repo.last_sweep()

    async def sweep_batch(
        self, sweep: SweepRecord, limit: int, *, profile: str | None = None
    ) -> list[ChargeRecord]:
        return self.repo.sweep_batch(sweep, limit, profile=profile)

    async def search_charges(
        self, query: ChargeQuery, *, before: int | None = None, limit: int = 100
    ) -> Page[ChargeRecord]:
        return self.repo.search_charges(query, before=before, limit=limit)

    async def matching_charge(
        self, query: ChargeQuery, merchant_charge_id: str
    ) -> ChargeRecord | None:
        return self.repo.matching_charge(query, merchant_charge_id)

    async def recent_customers(
        self, *, limit: int = 20, profile: str | None = None
    ) -> list[CustomerRecord]:
        return self.repo.recent_customers(limit=limit, profile=profile)

    async def day_totals(
        self, *, start: datetime, end: datetime, profile: str, zone: tzinfo
    ) -> DayTotals:
        return day_totals(self.repo, start=start, end=end, profile=profile, zone=zone)

    # -- writes (inside a unit of work) ------------------------------------------------------

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
        return self.repo.record_attempt(
            merchant_charge_id=merchant_charge_id,
            sale_id=sale_id,
            profile=profile,
            amount=amount,
            tenders=tenders,
            late_capture=late_capture,
            customer_document=customer_document,
            customer_name=customer_name,
        )

    async def remember_customer(
        self,
        *,
        document_type: str,
        document: str,
        name: str,
        email: str | None,
        phone: str | None = None,
    ) -> None:
        self.repo.remember_customer(
            document_type=document_type, document=document, name=name, email=email, phone=phone
        )

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
        return self.repo.move_attempt(
            current,
            new_state,
            source=source,
            reason=reason,
            detail=detail,
            count_query=count_query,
            answered=answered,
        )

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
        return self.repo.set_attempt_state(
            merchant_charge_id,
            new_state,
            source=source,
            reason=reason,
            detail=detail,
            count_query=count_query,
            answered=answered,
        )

    async def record_money_operation(
        self,
        merchant_charge_id: str,
        kind: MoneyOpKind,
        amount: int,
        base: Figures,
        *,
        counter: str | None = None,
    ) -> MoneyOpRecord:
        return self.repo.record_money_operation(
            merchant_charge_id, kind, amount, base, counter=counter
        )

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
        return self.repo.move_money_operation(
            op,
            new_state,
            source=source,
            reason=reason,
            outcome=outcome,
            source_ref=source_ref,
            detail=detail,
            count_query=count_query,
            answered=answered,
        )

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
        self.repo.save_charge(
            merchant_charge_id,
            state,
            sale_id=sale_id,
            source=source,
            new=new,
            changed=changed,
            checks=checks,
            next_check_at=next_check_at,
            check_reason=check_reason,
        )

    async def set_checked(
        self,
        merchant_charge_id: str,
        *,
        checks: int,
        next_check_at: datetime | None,
        check_reason: Reason | None,
    ) -> None:
        self.repo.set_checked(
            merchant_charge_id,
            checks=checks,
            next_check_at=next_check_at,
            check_reason=check_reason,
        )

    async def schedule_check(
        self, merchant_charge_id: str, *, reason: Reason, at: datetime
    ) -> None:
        self.repo.schedule_check(merchant_charge_id, reason=reason, at=at)

    async def claim_due_checks(
        self,
        limit: int,
        owner: str,
        *,
        now: datetime,
        lease: timedelta,
        profile: str | None = None,
    ) -> list[ChargeRecord]:
        return self.repo.claim_due_checks(limit, owner, now=now, lease=lease, profile=profile)

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
        return self.repo.add_timeline(
            merchant_charge_id,
            source=source,
            outcome=outcome,
            reason=reason,
            source_ref=source_ref,
            input_status=input_status,
            occurred_at=occurred_at,
            previous_status=previous_status,
            new_status=new_status,
            changes=changes,
            body=body,
        )

    async def start_sweep(self, *, window_from: datetime, window_to: datetime) -> SweepRecord:
        return self.repo.start_sweep(window_from=window_from, window_to=window_to)

    async def advance_sweep(
        self, sweep: SweepRecord, *, after_id: int, checked: int, changed: int, finished: bool
    ) -> SweepRecord:
        return self.repo.advance_sweep(
            sweep, after_id=after_id, checked=checked, changed=changed, finished=finished
        )

    # -- 3DS flows -------------------------------------------------------------------------------

    async def three_ds_flow(self, merchant_charge_id: str) -> ThreeDsFlowRecord | None:
        return self.repo.three_ds_flow(merchant_charge_id)

    async def open_three_ds_flows(self, limit: int = 100) -> list[ThreeDsFlowRecord]:
        return self.repo.open_three_ds_flows(limit)

    async def record_three_ds(self, merchant_charge_id: str, sale_id: str) -> ThreeDsFlowRecord:
        return self.repo.record_three_ds(merchant_charge_id, sale_id)

    async def move_three_ds(
        self, merchant_charge_id: str, step: ThreeDsStep, **fields: Any
    ) -> ThreeDsFlowRecord:
        return self.repo.move_three_ds(merchant_charge_id, step, **fields)


class SqliteEvents:
    """`EventStore` over an EventRepository."""

    def __init__(self, repo: EventRepository) -> None:
        self.repo = repo

    async def get(self, event_id: int) -> StoredEvent | None:
        return self.repo.get(event_id)

    async def latest_id(self) -> int:
        return self.repo.latest_id()

    async def page(
        self,
        where: EventFilter | None = None,
        *,
        before: int | None = None,
        limit: int = 100,
        floor: int | None = None,
    ) -> EventPage:
        return self.repo.page(where, before=before, limit=limit, floor=floor)

    async def newer(
        self, where: EventFilter | None = None, *, after: int, limit: int = 100
    ) -> list[EventSummary]:
        return self.repo.newer(where, after=after, limit=limit)

    async def iter_full(
        self, where: EventFilter | None = None, *, batch: int = 500
    ) -> AsyncIterator[StoredEvent]:
        for event in self.repo.iter_full(where, batch=batch):
            yield event

    async def first_delivery_of(self, body_sha256: str) -> int | None:
        return self.repo.first_delivery_of(body_sha256)

    async def insert(self, event: NewEvent) -> int:
        return self.repo.insert(event)

    async def set_merge_outcome(self, event_id: int, outcome: Reason) -> None:
        self.repo.set_merge_outcome(event_id, outcome)

    async def prune_self_tests(self) -> int:
        return self.repo.prune_self_tests()


class SqliteShop:
    """`ShopStore` over a ShopRepository."""

    def __init__(self, repo: ShopRepository) -> None:
        self.repo = repo

    async def settings(self) -> dict[str, str]:
        return self.repo.settings()

    async def counter_of(self, terminal_id: str) -> str | None:
        return self.repo.counter_of(terminal_id)

    async def set_setting(self, key: str, value: str | None, *, by: str) -> None:
        self.repo.set_setting(key, value, by=by)

    async def register_counter(self, counter_id: str, terminal_id: str, host: str) -> str:
        return self.repo.register_counter(counter_id, terminal_id, host)


class SqliteUnit:
    """One SQLite transaction, as a `UnitOfWork`."""

    def __init__(self, store: SqliteStore) -> None:
        self._store = store
        self._savepoints = 0

    @property
    def charges(self) -> SqliteCharges:
        return self._store.charges

    @property
    def events(self) -> SqliteEvents:
        return self._store.events

    @property
    def shop(self) -> SqliteShop:
        return self._store.shop

    @contextlib.asynccontextmanager
    async def savepoint(self) -> AsyncIterator[None]:
        self._savepoints += 1
        name = f"step_{self._savepoints}"
        conn = self._store.conn
        conn.execute(f"SAVEPOINT {name}")
        try:
            yield
        except BaseException:
            conn.execute(f"ROLLBACK TO {name}")
            conn.execute(f"RELEASE {name}")
            raise
        conn.execute(f"RELEASE {name}")


class SqliteStore:
    """The `Store` ports on one SQLite connection (the terminal's; the inbox has its own)."""

    def __init__(
        self, conn: sqlite3.Connection, *, clock: Callable[[], datetime] = utc_now
    ) -> None:
        self.conn = conn
        self.repo = ChargeRepository(conn, clock=clock)
        """The repository itself, for tools and tests that read rows as they are."""
        self._charges = SqliteCharges(self.repo)
        self._events = SqliteEvents(EventRepository(conn))
        self._shop = SqliteShop(ShopRepository(conn, clock=clock))
        self._writing = asyncio.Lock()
        self._closed = asyncio.Event()
        self._news = asyncio.Event()

    @classmethod
    def open(cls, path: Path, *, clock: Callable[[], datetime] = utc_now) -> SqliteStore:
        """Open (creating or migrating) the store file; StoreError says why it cannot be."""
        return cls(db.connect(path), clock=clock)

    @property
    def charges(self) -> SqliteCharges:
        return self._charges

    @property
    def events(self) -> SqliteEvents:
        return self._events

    @property
    def shop(self) -> SqliteShop:
        return self._shop

    @contextlib.asynccontextmanager
    async def unit_of_work(self, *, durable: bool = True) -> AsyncIterator[SqliteUnit]:
        # One unit at a time on the connection: a second one waits on the loop, not on the
        # file lock (which would block the loop inside BEGIN IMMEDIATE).
        async with self._writing:
            with self.repo.write(relaxed=not durable):
                yield SqliteUnit(self)
        self._news.set()

    def notify(self) -> None:
        """Wake `watch` now (the in-process inbox writer committed)."""
        self._news.set()

    async def watch(self, *, after: int = 0) -> AsyncIterator[int]:
        last = after
        while not self._closed.is_set():
            for event_id in self._events.repo.ids_after(last):
                last = event_id
                yield event_id
            self._news.clear()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(WATCH_INTERVAL_S):
                    await self._news.wait()

    async def close(self) -> None:
        self._closed.set()
        async with self._writing:
            with contextlib.suppress(sqlite3.Error):
                self.conn.close()


def open_store(path: Path, *, clock: Callable[[], datetime] = utc_now) -> Store:
    """The store ports on the SQLite file at `path` (created or migrated as needed)."""
    return SqliteStore.open(path, clock=clock)


__all__ = [
    "SqliteCharges",
    "SqliteEvents",
    "SqliteShop",
    "SqliteStore",
    "SqliteUnit",
    "open_store",
]
