"""The store ports (`store/ports.py`) on a shared PostgreSQL database, for several counters.

Every statement runs on a worker thread with a pooled connection, so a slow network never
stalls the event loop (the GUI's): the repositories are the synchronous ones of this package,
and each port method is the same call, awaited. A unit of work holds one connection for its
whole block: its first statement takes the store-wide write lock (writers one at a time, as on
SQLite, so ids grow in commit order), and its block ends with a commit that is durable at the
server (`synchronous_commit = on`) before the unit returns. `watch` listens (LISTEN/NOTIFY)
and reads ids after its watermark, so deliveries any counter commits reach every terminal.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, tzinfo
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, cast

from pydantic import SecretStr

from checkout_desktop.domain.deliveries import EventFilter, StoredEvent
from checkout_desktop.domain.records import DayTotals
from checkout_desktop.domain.timestamps import utc_now
from checkout_desktop.store.day_figures import read_day
from checkout_desktop.store.errors import ReportUnavailable
from checkout_desktop.store.ports import (
    ChargeReads,
    ChargeStore,
    EventReads,
    EventStore,
    ShopReads,
    ShopStore,
)
from checkout_desktop.store.postgres import db, schema
from checkout_desktop.store.postgres.address import StoreAddress
from checkout_desktop.store.postgres.charges import (
    PgChargeRepository,
    SqliteDialect,
    begin_write,
)
from checkout_desktop.store.postgres.events import PgEventRepository
from checkout_desktop.store.postgres.live import Watcher
from checkout_desktop.store.sqlite.shop import ShopRepository

if TYPE_CHECKING:
    import psycopg
    import psycopg_pool

logger = logging.getLogger(__name__)

T = TypeVar("T")

POOL_SIZE = 4
RESYNC_S = 5.0
"""`watch` also reads after its watermark this often, should a notification never come."""


class _Threaded:
    """A repository's methods as coroutines, each run on the store's threads."""

    def __init__(self, store: PgStore, make: Callable[[psycopg.Connection[Any]], Any]) -> None:
        self._store = store
        self._make = make

    def __getattr__(self, name: str) -> Callable[..., Any]:
        async def call(*args: Any, **kwargs: Any) -> Any:
            return await self._store.run(
                lambda conn: getattr(self._make(conn), name)(*args, **kwargs)
            )

        return call


class _ChargeReads(_Threaded):
    async def day_totals(
        self, *, start: datetime, end: datetime, profile: str, zone: tzinfo
    ) -> DayTotals:
        return await self._store.run(
            lambda conn: day_totals(conn, start=start, end=end, profile=profile, zone=zone)
        )


class _EventReads(_Threaded):
    async def iter_full(
        self, where: EventFilter | None = None, *, batch: int = 500
    ) -> AsyncIterator[StoredEvent]:
        after = 0
        while True:
            rows: list[StoredEvent] = await self._store.run(
                functools.partial(_full_after, where=where, after=after, batch=batch)
            )
            for row in rows:
                yield row
            if len(rows) < batch:
                return
            after = rows[-1].id


class PgUnit:
    """One transaction on one connection, as a `UnitOfWork`."""

    def __init__(self, store: PgStore, conn: psycopg.Connection[Any]) -> None:
        self._store = store
        self._conn = conn
        self._savepoints = 0
        clock = store.clock
        self._charges = BoundRepository(store, PgChargeRepository(conn, clock=clock))
        self._events = BoundRepository(store, PgEventRepository(conn))
        self._shop = BoundRepository(store, _shop_repository(conn, clock))

    @property
    def shop(self) -> ShopStore:
        return cast(ShopStore, self._shop)

    @property
    def charges(self) -> ChargeStore:
        return cast(ChargeStore, self._charges)

    @property
    def events(self) -> EventStore:
        return cast(EventStore, self._events)

    @contextlib.asynccontextmanager
    async def savepoint(self) -> AsyncIterator[None]:
        self._savepoints += 1
        name = f"step_{self._savepoints}"
        conn = self._conn
        await self._store.call(conn.execute, f"SAVEPOINT {name}")
        try:
            yield
        except BaseException:
            await self._store.call(conn.execute, f"ROLLBACK TO SAVEPOINT {name}")
            await self._store.call(conn.execute, f"RELEASE SAVEPOINT {name}")
            raise
        await self._store.call(conn.execute, f"RELEASE SAVEPOINT {name}")


class Caller(Protocol):
    """Where a bound repository's calls run: a thread that may talk to the server."""

    async def call(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T: ...


class BoundRepository:
    """A repository bound to one connection (a unit of work's), its methods as coroutines."""

    def __init__(self, caller: Caller, repo: Any) -> None:
        self._caller = caller
        self._repo = repo

    def __getattr__(self, name: str) -> Callable[..., Any]:
        method = getattr(self._repo, name)

        async def call(*args: Any, **kwargs: Any) -> Any:
            return await self._caller.call(method, *args, **kwargs)

        return call


class PgStore:
    """The `Store` ports on a PostgreSQL database shared by a shop's counters."""

    def __init__(
        self,
        address: StoreAddress,
        password: SecretStr | None,
        pool: psycopg_pool.ConnectionPool[Any],
        *,
        clock: Callable[[], datetime] = utc_now,
        pool_size: int = POOL_SIZE,
    ) -> None:
        self.address = address
        self._password = password
        self.pool = pool
        self._pool_size = pool_size
        self.clock = clock
        self._executor = ThreadPoolExecutor(
            max_workers=pool_size + 1, thread_name_prefix="pg-store"
        )
        self._charges = _ChargeReads(self, lambda c: PgChargeRepository(c, clock=clock))
        self._events = _EventReads(self, PgEventRepository)
        self._shop = _Threaded(self, lambda c: _shop_repository(c, clock))
        self._closed = asyncio.Event()
        self._wakers: set[asyncio.Event] = set()
        self._units = 0
        self._idle = asyncio.Event()
        self._idle.set()

    @classmethod
    async def open(
        cls,
        address: StoreAddress,
        password: SecretStr | None,
        *,
        clock: Callable[[], datetime] = utc_now,
        pool_size: int = POOL_SIZE,
    ) -> PgStore:
        """Connect (creating or migrating the schema); SharedStoreError says why it cannot."""
        pool = await asyncio.to_thread(
            functools.partial(db.open_pool, address, password, min_size=1, max_size=pool_size)
        )
        return cls(address, password, pool, clock=clock, pool_size=pool_size)

    # -- running statements off the loop ----------------------------------------------------

    async def call(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """`fn(*args, **kwargs)` on the store's threads; driver errors become store errors."""
        import psycopg

        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(
                self._executor, functools.partial(fn, *args, **kwargs)
            )
        except psycopg.OperationalError as exc:
            raise db.describe_error(self.address, exc) from None

    async def run(self, work: Callable[[psycopg.Connection[Any]], T]) -> T:
        """`work(conn)` with a pooled connection, as one read that sees committed data."""

        def pooled() -> T:
            with self.pool.connection() as conn:
                return work(conn)

        return await self.call(pooled)

    # -- the ports ---------------------------------------------------------------------------

    @property
    def charges(self) -> ChargeReads:
        return cast(ChargeReads, self._charges)

    @property
    def events(self) -> EventReads:
        return cast(EventReads, self._events)

    @property
    def shop(self) -> ShopReads:
        return cast(ShopReads, self._shop)

    @contextlib.asynccontextmanager
    async def unit_of_work(self, *, durable: bool = True) -> AsyncIterator[PgUnit]:
        if self._closed.is_set():
            raise db.SharedStoreError(
                db.StoreProblem.REFUSED, "the shared store is closed", address=self.address
            )
        self._units += 1
        self._idle.clear()
        try:
            # Inside the count's try: a pool that lends no connection (the server down) must
            # not leave a unit counted forever, or closing the store would wait for it.
            conn = await self.call(self.pool.getconn)
            try:
                await self.call(begin_write, conn, relaxed=not durable)
                try:
                    yield PgUnit(self, conn)
                except BaseException:
                    await self.call(conn.rollback)
                    raise
                await self.call(conn.commit)
            finally:
                self.pool.putconn(conn)
        finally:
            self._units -= 1
            if not self._units:
                self._idle.set()

    async def watch(self, *, after: int = 0) -> AsyncIterator[int]:
        loop = asyncio.get_running_loop()
        news = asyncio.Event()
        self._wakers.add(news)
        watcher = Watcher(
            self.address,
            self._password,
            lambda notice: news.set(),
            loop=loop,
            channels=(schema.EVENTS_CHANNEL,),
        )
        await self.call(watcher.start)
        last = after
        try:
            while not self._closed.is_set():
                news.clear()
                ids: list[int] = await self.run(functools.partial(_ids_after, after=last))
                for event_id in ids:
                    last = event_id
                    yield event_id
                if ids:
                    continue
                # A notice, the store closing, or now and then anyway (a lost notice only
                # delays: the read after the watermark finds what it announced).
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(RESYNC_S):
                        await news.wait()
        finally:
            self._wakers.discard(news)
            await self.call(watcher.stop)

    async def renew_pool(self) -> None:
        """The server answers again after an outage: a fresh pool takes the place of the one
        whose connections died with it and whose reconnection attempts, backing off through
        the outage, may still be tens of seconds away. The old pool closes in the background
        (a connection lent from it is closed when it comes back). SharedStoreError when the
        server does not take a connection after all."""
        fresh = await asyncio.to_thread(
            functools.partial(
                db.open_pool, self.address, self._password, min_size=1, max_size=self._pool_size
            )
        )
        old, self.pool = self.pool, fresh
        closing = asyncio.get_running_loop().run_in_executor(None, old.close)
        closing.add_done_callback(_log_close_failure)

    async def close(self) -> None:
        self._closed.set()
        for waker in self._wakers:
            waker.set()
        await self._idle.wait()
        await asyncio.to_thread(self.pool.close)
        self._executor.shutdown(wait=True)


def _shop_repository(
    conn: psycopg.Connection[Any], clock: Callable[[], datetime]
) -> ShopRepository:
    return ShopRepository(SqliteDialect(conn), clock=clock)  # type: ignore[arg-type]


def _full_after(
    conn: psycopg.Connection[Any], *, where: EventFilter | None, after: int, batch: int
) -> list[StoredEvent]:
    return PgEventRepository(conn).full_after(where, after=after, batch=batch)


def _ids_after(conn: psycopg.Connection[Any], *, after: int) -> list[int]:
    return PgEventRepository(conn).ids_after(after)


def day_totals(
    conn: psycopg.Connection[Any], *, start: datetime, end: datetime, profile: str, zone: tzinfo
) -> DayTotals:
    """The day's figures from the shared store (the same rules as the embedded store's)."""
    import psycopg

    try:
        return read_day(conn, style="pyformat", start=start, end=end, profile=profile, zone=zone)
    except psycopg.OperationalError:
        raise  # the server went away: the store says so (`PgStore.call`), as for any read
    except psycopg.Error as exc:
        raise ReportUnavailable(f"the day's totals could not be read: {exc}") from exc


async def open_store(
    address: StoreAddress,
    password: SecretStr | None,
    *,
    clock: Callable[[], datetime] = utc_now,
) -> PgStore:
    """The store ports on the shared PostgreSQL store at `address`."""
    return await PgStore.open(address, password, clock=clock)


def _log_close_failure(done: asyncio.Future[None]) -> None:
    if not done.cancelled() and done.exception() is not None:
        logger.warning("the shared store's earlier pool did not close: %s", done.exception())


__all__ = ["BoundRepository", "PgStore", "PgUnit", "day_totals", "open_store"]
