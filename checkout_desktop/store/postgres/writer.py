"""The PostgreSQL half of the inbox's group commit: a batch of deliveries, one durable commit.

The same job as the SQLite half (`store/sqlite/writer.py`), with the same interface, for the
counter that holds the shop's inbox on a shared store. A whole batch — its statements, the
charge applier's reads and writes, and its COMMIT — runs as one job on this half's own thread,
where each statement's round trip to the server waits without holding the event loop; the
loop awaits the job once. (A job per statement, a dozen per delivery, took about twice the
CPU per delivery and half the throughput: `benchmarks/webhook_inbox.py --pg auto`.) The
applier is a coroutine function of the store ports; on the thread it runs to its end at once,
over the batch's connection, since it waits for nothing but that connection (as
`ChargeApplier` requires).
The commit returns only once the server has made it durable (`synchronous_commit = on`), and
only then is any delivery of the batch acknowledged. The batch takes the store-wide write lock
first, as every unit of work does, so ids grow in commit order and `watch` on every counter
sees each delivery once.

PostgreSQL keeps its trigram search index up to date in the batch's own transaction: there is
no index to fill afterwards.

A connection the server dropped (a restart, a lost link) is replaced: the batch that found it
dead runs once more on a new one, and while the server does not answer each batch is refused
at once (its senders retry after the 503) and a new connection is tried again after a short,
growing pause (`RECONNECT_FIRST_S` up to `RECONNECT_MAX_S`). Running a batch again cannot store
a delivery twice as new: had the lost commit been made, its deliveries are found there and
kept as duplicates, which are never applied again; nothing is acknowledged before a commit
returns.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import logging
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import TYPE_CHECKING, Any, TypeVar, cast

from pydantic import SecretStr

from checkout_desktop.domain.deliveries import Applied, Delivery, IndexProgress, WriteResult
from checkout_desktop.domain.enums import Verdict
from checkout_desktop.domain.event_status import with_stored_expiry
from checkout_desktop.domain.reasons import Reason, ReasonCode
from checkout_desktop.domain.wire import ChargeUpdate, ThreeDsUpdate
from checkout_desktop.store.errors import StoreUnavailable
from checkout_desktop.store.ports import ChargeApplier, ChargeStore
from checkout_desktop.store.postgres import db
from checkout_desktop.store.postgres.address import StoreAddress
from checkout_desktop.store.postgres.charges import PgChargeRepository, begin_write
from checkout_desktop.store.postgres.events import PgEventRepository

if TYPE_CHECKING:
    import psycopg

logger = logging.getLogger(__name__)

T = TypeVar("T")

_MAX_OUTCOME = 300
RECONNECT_FIRST_S = 0.5
"""After a failed reconnection, batches are refused at once for this long, then twice as long
after each further failure..."""
RECONNECT_MAX_S = 5.0
"""...up to this: the inbox is back within seconds of the server."""


def one_bad_row(exc: BaseException) -> bool:
    """The failure can come from one delivery's data (the others of its batch may be fine)."""
    import psycopg

    return isinstance(exc, psycopg.IntegrityError | psycopg.DataError | ValueError)


def unstorable(exc: BaseException) -> bool:
    """The server refused what was read from a body (a NUL in text, text that is not Unicode):
    its bytes can still be kept."""
    import psycopg

    return isinstance(exc, UnicodeError | OverflowError | psycopg.DataError)


class _ApplyFailed(Exception):
    """The charge applier failed on a delivery of a batch run without savepoints."""


class PgDeliveryBatches:
    """Owns the inbox's connection to the shared store and the thread its batches run on."""

    one_bad_row = staticmethod(one_bad_row)
    unstorable = staticmethod(unstorable)

    def __init__(
        self,
        address: StoreAddress,
        password: SecretStr | None,
    ) -> None:
        self._address = address
        self._password = password
        self._executor: ThreadPoolExecutor | None = None
        self._conn: psycopg.Connection[Any] | None = None
        # While the server does not answer: why, and when a new connection is tried again.
        self._down: db.SharedStoreError | None = None
        self._retry_at = 0.0
        self._pause = 0.0

    async def open(self) -> IndexProgress:
        loop = asyncio.get_running_loop()
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="inbox-writer")
        try:
            self._conn = await loop.run_in_executor(
                self._executor, lambda: db.connect(self._address, self._password)
            )
            latest = await loop.run_in_executor(
                self._executor, lambda: PgEventRepository(self._require()).latest_id()
            )
        except BaseException:
            self._executor.shutdown(wait=False)
            self._executor = None
            raise
        # Indexed as it is stored: nothing for the writer to fill.
        return IndexProgress(False, latest, latest)

    def _require(self) -> psycopg.Connection[Any]:
        if self._conn is None:
            raise StoreUnavailable("the inbox's store connection is not open")
        return self._conn

    @property
    def opened(self) -> bool:
        """Opened and not closed (its connection may be down for a while: it is replaced)."""
        return self._executor is not None

    async def _connection(self) -> psycopg.Connection[Any]:
        """The open connection; a new one when the server dropped it (refused at once while
        the pause after a failed attempt runs)."""
        conn = self._conn
        if conn is not None and not conn.closed:
            return conn
        if self._executor is None:
            raise StoreUnavailable("the inbox's store connection is not open")
        if conn is not None:
            self._conn = None
            await self.call(_close_quietly, conn)
        loop = asyncio.get_running_loop()
        if self._down is not None and loop.time() < self._retry_at:
            raise db.SharedStoreError(self._down.problem, str(self._down), address=self._address)
        try:
            conn = await self.call(db.connect, self._address, self._password, migrate_schema=False)
        except db.SharedStoreError as exc:
            self._pause = min(max(self._pause * 2, RECONNECT_FIRST_S), RECONNECT_MAX_S)
            self._retry_at = loop.time() + self._pause
            if self._down is None:
                logger.warning("the inbox cannot reach the shared store; retrying: %s", exc)
            self._down = exc
            raise
        if self._down is not None:
            logger.info("the inbox's connection to the shared store is back")
        self._down, self._pause = None, 0.0
        self._conn = conn
        return conn

    def _lost(self, conn: psycopg.Connection[Any]) -> bool:
        """The server dropped `conn` (it is closed now without our asking)."""
        if not conn.closed:
            return False
        if self._conn is conn:
            self._conn = None
        logger.warning("the inbox's connection to the shared store was lost; reconnecting")
        return True

    async def durability(self) -> tuple[str, int]:
        """What makes a commit durable here: ("postgresql", 2) when synchronous_commit is on
        (2 is SQLite's FULL, the level the inbox's health check asks for)."""
        if self._executor is None:
            raise StoreUnavailable("the inbox's store connection is not open")
        conn, executor = await self._connection(), self._executor

        def read() -> tuple[str, int]:
            row = conn.execute("SHOW synchronous_commit").fetchone()
            conn.rollback()
            level = 2 if row is not None and row[0] in ("on", "remote_write", "remote_apply") else 0
            return "postgresql", level

        import psycopg

        try:
            return await asyncio.get_running_loop().run_in_executor(executor, read)
        except psycopg.OperationalError as exc:
            self._lost(conn)
            raise db.describe_error(self._address, exc) from None

    async def close(self) -> None:
        loop = asyncio.get_running_loop()
        if self._conn is not None and self._executor is not None:
            await loop.run_in_executor(self._executor, self._conn.close)
            self._conn = None
        if self._executor is not None:
            self._executor.shutdown(wait=True)
            self._executor = None

    async def call(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """`fn(*args, **kwargs)` on this half's thread (a round trip to the server)."""
        assert self._executor is not None
        return await asyncio.get_running_loop().run_in_executor(
            self._executor, functools.partial(fn, *args, **kwargs)
        )

    async def commit(
        self, deliveries: Sequence[Delivery], applier: ChargeApplier | None = None
    ) -> list[WriteResult]:
        """Store the deliveries (applying the accepted ones) in one durable commit.

        Raises what the store raised; nothing of the batch is then stored. The whole batch is
        one job on this half's thread; the loop only awaits it.
        """
        import psycopg

        conn = await self._connection()
        try:
            return await self.call(self._commit_here, conn, deliveries, applier)
        except psycopg.OperationalError as exc:
            if not self._lost(conn):
                raise db.describe_error(self._address, exc) from None
        # The server dropped the connection (it restarted since the last batch, say): the
        # batch once more on a new one (see the module's note on why that stores nothing twice).
        conn = await self._connection()
        try:
            return await self.call(self._commit_here, conn, deliveries, applier)
        except psycopg.OperationalError as exc:
            self._lost(conn)
            raise db.describe_error(self._address, exc) from None

    def _commit_here(
        self,
        conn: psycopg.Connection[Any],
        deliveries: Sequence[Delivery],
        applier: ChargeApplier | None,
    ) -> list[WriteResult]:
        guarded = False
        while True:
            try:
                begin_write(conn, relaxed=False)
                results = [self._store(conn, delivery, applier, guarded) for delivery in deliveries]
                conn.commit()
            except _ApplyFailed:
                # The state machine failed on a delivery, and no savepoint can undo only its
                # writes: the batch runs again from the start, each merge guarded.
                _rollback_quietly(conn)
                guarded = True
                continue
            except BaseException:
                _rollback_quietly(conn)
                raise
            return results

    def _store(
        self,
        conn: psycopg.Connection[Any],
        delivery: Delivery,
        applier: ChargeApplier | None,
        guarded: bool,
    ) -> WriteResult:
        repo = PgEventRepository(conn)
        event = with_stored_expiry(delivery.event, delivery.update, repo.charge_state_json)
        if event.verdict != Verdict.QUARANTINED:
            first = repo.first_delivery_of(event.body_sha256)
            if first is not None:
                event = replace(event, verdict=Verdict.DUPLICATE, duplicate_of=first)
        event_id = repo.insert(event)
        if event.verdict == Verdict.SELF_TEST:
            repo.prune_self_tests()
        applied: Applied | None = None
        if event.verdict == Verdict.ACCEPTED and delivery.update is not None and applier:
            applied = self._apply(conn, applier, delivery.update, event_id, guarded)
            repo.set_merge_outcome(event_id, applied.outcome)
        return WriteResult(
            event_id=event_id,
            verdict=event.verdict,
            duplicate_of=event.duplicate_of,
            merge_outcome=None if applied is None else applied.outcome,
            published=() if applied is None else applied.events,
        )

    def _apply(
        self,
        conn: psycopg.Connection[Any],
        applier: ChargeApplier,
        update: ChargeUpdate | ThreeDsUpdate,
        event_id: int,
        guarded: bool,
    ) -> Applied:
        if guarded:
            # A savepoint keeps the event row when the state machine fails on it: the delivery
            # is stored (and acknowledged), and the failure is recorded with it for a later
            # replay.
            conn.execute("SAVEPOINT apply_update")
        charges = cast(ChargeStore, _Direct(PgChargeRepository(conn)))
        try:
            returned = applier(charges, update, f"webhook_event:{event_id}")
            if inspect.isawaitable(returned):
                returned = _at_once(returned)
        except Exception as exc:
            if not guarded:
                # Nearly every merge succeeds, and a savepoint around each one costs every
                # delivery two round trips: a batch runs without them first, and only a
                # failure makes it run again with them (`_commit_here`).
                raise _ApplyFailed from exc
            conn.execute("ROLLBACK TO SAVEPOINT apply_update")
            conn.execute("RELEASE SAVEPOINT apply_update")
            logger.exception("the charge state machine failed on webhook event %d", event_id)
            error = f"{type(exc).__name__}: {exc}"[:_MAX_OUTCOME]
            return Applied(Reason.of(ReasonCode.INBOX_NOT_APPLIED, error=error))
        if guarded:
            conn.execute("RELEASE SAVEPOINT apply_update")
        if returned is None:
            return Applied(Reason.of(ReasonCode.INBOX_APPLIED_BARE))
        if isinstance(returned, Reason):
            return Applied(returned)
        return returned

    async def index_some(self, rows: int) -> tuple[int, int]:
        """Nothing to fill: PostgreSQL indexes each delivery as it is stored."""
        conn, executor = await self._connection(), self._executor
        assert executor is not None

        def latest() -> tuple[int, int]:
            newest = PgEventRepository(conn).latest_id()
            conn.rollback()
            return newest, newest

        return await asyncio.get_running_loop().run_in_executor(executor, latest)


class _Direct:
    """A repository's methods as coroutines that run at once, on the calling thread: the
    applier's store on the writer's thread, where waiting for the server is what it is for."""

    def __init__(self, repo: Any) -> None:
        self._repo = repo

    def __getattr__(self, name: str) -> Callable[..., Any]:
        method = getattr(self._repo, name)

        async def call(*args: Any, **kwargs: Any) -> Any:
            return method(*args, **kwargs)

        return call


async def _awaited(returned: Awaitable[T]) -> T:
    return await returned


def _at_once(returned: Awaitable[T]) -> T:
    """The applier's result, its coroutine run to the end here and now: over `_Direct` every
    await it makes completes at once, so it never suspends; one that would (it waits for
    something other than the store) is refused rather than left holding the write lock."""
    coro = _awaited(returned)
    try:
        coro.send(None)
    except StopIteration as done:
        return cast(T, done.value)
    coro.close()
    raise RuntimeError("the charge applier waited for something other than the store")


def _close_quietly(conn: psycopg.Connection[Any]) -> None:
    try:
        conn.close()
    except Exception:  # closing a dropped connection may fail; it is gone anyway
        logger.debug("closing the inbox's lost connection failed", exc_info=True)


def _rollback_quietly(conn: psycopg.Connection[Any]) -> None:
    try:
        conn.rollback()
    except Exception:  # the connection may be gone; the server rolled back then
        logger.debug("rollback after a failed batch did not run", exc_info=True)


__all__ = ["PgDeliveryBatches", "one_bad_row", "unstorable"]
