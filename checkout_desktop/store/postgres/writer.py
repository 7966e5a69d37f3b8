"""The PostgreSQL half of the inbox's group commit: a batch of deliveries, one durable commit.

The same job as the SQLite half (`store/sqlite/writer.py`), with the same interface, for the
counter that holds the shop's inbox on a shared store. Each of a batch's statements and its
COMMIT runs on this half's own thread — each is a round trip to the server, which the event
loop must never wait for — while the loop awaits them and runs the charge applier through the
same connection; the commit returns only once the server has made it durable
(`synchronous_commit = on`), and only then is any delivery of the batch acknowledged.
The batch takes the store-wide write lock first, as every unit of work does, so ids grow in
commit order and `watch` on every counter sees each delivery once.

PostgreSQL keeps its trigram search index up to date in the batch's own transaction: there is
no index to fill afterwards.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import logging
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import TYPE_CHECKING, Any, TypeVar, cast

from pydantic import SecretStr

from checkout_desktop.domain.deliveries import Applied, Delivery, IndexProgress, WriteResult
from checkout_desktop.domain.enums import Verdict
from checkout_desktop.domain.reasons import Reason, ReasonCode
from checkout_desktop.domain.wire import ChargeUpdate, ThreeDsUpdate
from checkout_desktop.store.errors import StoreUnavailable
from checkout_desktop.store.ports import ChargeApplier, ChargeStore
from checkout_desktop.store.postgres import db
from checkout_desktop.store.postgres.address import StoreAddress
from checkout_desktop.store.postgres.charges import PgChargeRepository, begin_write
from checkout_desktop.store.postgres.events import PgEventRepository
from checkout_desktop.store.postgres.store import BoundRepository

if TYPE_CHECKING:
    import psycopg

logger = logging.getLogger(__name__)

T = TypeVar("T")

_MAX_OUTCOME = 300


def one_bad_row(exc: BaseException) -> bool:
    """The failure can come from one delivery's data (the others of its batch may be fine)."""
    import psycopg

    return isinstance(exc, psycopg.IntegrityError | psycopg.DataError | ValueError)


def unstorable(exc: BaseException) -> bool:
    """The server refused what was read from a body (a NUL in text, text that is not Unicode):
    its bytes can still be kept."""
    import psycopg

    return isinstance(exc, UnicodeError | OverflowError | psycopg.DataError)


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
        return self._conn is not None and self._executor is not None

    async def durability(self) -> tuple[str, int]:
        """What makes a commit durable here: ("postgresql", 2) when synchronous_commit is on
        (2 is SQLite's FULL, the level the inbox's health check asks for)."""
        conn, executor = self._conn, self._executor
        if conn is None or executor is None:
            raise StoreUnavailable("the inbox's store connection is not open")

        def read() -> tuple[str, int]:
            row = conn.execute("SHOW synchronous_commit").fetchone()
            conn.rollback()
            level = 2 if row is not None and row[0] in ("on", "remote_write", "remote_apply") else 0
            return "postgresql", level

        return await asyncio.get_running_loop().run_in_executor(executor, read)

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

        Raises what the store raised; nothing of the batch is then stored. Every statement is
        a job on this half's thread; the loop only awaits them (and runs the applier, which
        reads and writes through the same connection, inside the batch's transaction).
        """
        import psycopg

        conn = self._require()
        try:
            await self.call(begin_write, conn, relaxed=False)
            results = [await self._store(conn, delivery, applier) for delivery in deliveries]
            await self.call(conn.commit)
        except psycopg.OperationalError as exc:
            await self.call(_rollback_quietly, conn)
            raise db.describe_error(self._address, exc) from None
        except BaseException:
            await self.call(_rollback_quietly, conn)
            raise
        return results

    async def _store(
        self, conn: psycopg.Connection[Any], delivery: Delivery, applier: ChargeApplier | None
    ) -> WriteResult:
        repo = PgEventRepository(conn)
        event = delivery.event
        if event.verdict != Verdict.QUARANTINED:
            first = await self.call(repo.first_delivery_of, event.body_sha256)
            if first is not None:
                event = replace(event, verdict=Verdict.DUPLICATE, duplicate_of=first)
        event_id = await self.call(repo.insert, event)
        if event.verdict == Verdict.SELF_TEST:
            await self.call(repo.prune_self_tests)
        applied: Applied | None = None
        if event.verdict == Verdict.ACCEPTED and delivery.update is not None and applier:
            applied = await self._apply(conn, applier, delivery.update, event_id)
            await self.call(repo.set_merge_outcome, event_id, applied.outcome)
        return WriteResult(
            event_id=event_id,
            verdict=event.verdict,
            duplicate_of=event.duplicate_of,
            merge_outcome=None if applied is None else applied.outcome,
            published=() if applied is None else applied.events,
        )

    async def _apply(
        self,
        conn: psycopg.Connection[Any],
        applier: ChargeApplier,
        update: ChargeUpdate | ThreeDsUpdate,
        event_id: int,
    ) -> Applied:
        # A savepoint keeps the event row when the state machine fails on it: the delivery is
        # stored (and acknowledged), and the failure is recorded with it for a later replay.
        await self.call(conn.execute, "SAVEPOINT apply_update")
        charges = cast(ChargeStore, BoundRepository(self, PgChargeRepository(conn)))
        try:
            returned = applier(charges, update, f"webhook_event:{event_id}")
            if inspect.isawaitable(returned):
                returned = await returned
        except Exception as exc:
            await self.call(conn.execute, "ROLLBACK TO SAVEPOINT apply_update")
            await self.call(conn.execute, "RELEASE SAVEPOINT apply_update")
            logger.exception("the charge state machine failed on webhook event %d", event_id)
            error = f"{type(exc).__name__}: {exc}"[:_MAX_OUTCOME]
            return Applied(Reason.of(ReasonCode.INBOX_NOT_APPLIED, error=error))
        await self.call(conn.execute, "RELEASE SAVEPOINT apply_update")
        if returned is None:
            return Applied(Reason.of(ReasonCode.INBOX_APPLIED_BARE))
        if isinstance(returned, Reason):
            return Applied(returned)
        return returned

    async def index_some(self, rows: int) -> tuple[int, int]:
        """Nothing to fill: PostgreSQL indexes each delivery as it is stored."""
        conn, executor = self._conn, self._executor
        assert conn is not None
        assert executor is not None

        def latest() -> tuple[int, int]:
            newest = PgEventRepository(conn).latest_id()
            conn.rollback()
            return newest, newest

        return await asyncio.get_running_loop().run_in_executor(executor, latest)


def _rollback_quietly(conn: psycopg.Connection[Any]) -> None:
    try:
        conn.rollback()
    except Exception:  # the connection may be gone; the server rolled back then
        logger.debug("rollback after a failed batch did not run", exc_info=True)


__all__ = ["PgDeliveryBatches", "one_bad_row", "unstorable"]
