"""The SQLite half of the inbox's group commit: one write connection and the thread it commits on.

A batch's statements (inserts, the state machine's reads and writes) run on the event loop,
between two requests, and only its COMMIT — the fsync — runs on this half's own thread, so the
loop never waits for the disk. Running the statements on the thread too cost more than it
saved: each statement hands the GIL to the loop and waits (up to the interpreter's 5 ms switch
interval) to get it back, and measured at 50 connections the thread spent two thirds of its
time waiting for the GIL. The inbox writer (`inbox/writer.py`) bounds a batch, so one batch
holds the loop for a few milliseconds at most.

The free-text search index is filled on the thread too, in batches the writer asks for when no
delivery is waiting.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import sqlite3
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

from checkout_desktop.domain.deliveries import Applied, Delivery, IndexProgress, WriteResult
from checkout_desktop.domain.enums import Verdict
from checkout_desktop.domain.event_status import with_stored_expiry
from checkout_desktop.domain.reasons import Reason, ReasonCode
from checkout_desktop.domain.wire import ChargeUpdate, ThreeDsUpdate
from checkout_desktop.store.errors import StoreUnavailable
from checkout_desktop.store.ports import ChargeApplier
from checkout_desktop.store.sqlite import db
from checkout_desktop.store.sqlite.charges import ChargeRepository
from checkout_desktop.store.sqlite.events import EventRepository
from checkout_desktop.store.sqlite.store import SqliteCharges

logger = logging.getLogger(__name__)

_MAX_OUTCOME = 300
_CACHE_KIB = 32 * 1024
# How long a batch waits for another connection's write transaction to end (on the thread; on
# the loop a batch never waits for a lock, it hands the wait to the thread instead).
_BUSY_TIMEOUT_MS = 5000
# Errors that one delivery's data can cause; anything else is the store's trouble.
_ONE_BAD_ROW = (sqlite3.IntegrityError, sqlite3.DataError, sqlite3.InterfaceError, ValueError)
# Of those, the ones that come from what was read out of a body (text that is not Unicode, a
# value SQLite cannot bind): the body's bytes themselves can still be kept.
_UNSTORABLE = (UnicodeError, OverflowError, sqlite3.DataError, sqlite3.InterfaceError)


class _ApplyFailed(Exception):
    """The charge applier failed on a delivery of a batch run without savepoints."""


class SqliteDeliveryBatches:
    """Owns the inbox's write connection and the thread its commits run on (`DeliveryBatches`
    of the store ports)."""

    def __init__(self, path: Path) -> None:
        self._path = path
        self._executor: ThreadPoolExecutor | None = None
        self._conn: sqlite3.Connection | None = None

    async def open(self) -> IndexProgress:
        """Open the connection on the thread; the search index's progress."""
        loop = asyncio.get_running_loop()
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="inbox-writer")
        try:
            self._conn = await loop.run_in_executor(self._executor, self._open)
            return await loop.run_in_executor(self._executor, self._index_progress)
        except BaseException:
            self._executor.shutdown(wait=False)
            self._executor = None
            raise

    @property
    def opened(self) -> bool:
        return self._conn is not None and self._executor is not None

    def _open(self) -> sqlite3.Connection:
        conn = db.connect(self._path)
        # Every delivery touches a few random index pages (body hash, charge ids); a larger
        # page cache keeps them in memory as the store grows toward millions of rows.
        conn.execute(f"PRAGMA cache_size = {-_CACHE_KIB}")
        # A WAL left large by a crash or a full disk is folded in and cut back first.
        try:
            db.checkpoint(conn)
        except sqlite3.Error as exc:
            logger.warning("the inbox's WAL could not be checkpointed at start (%s)", exc)
        # A transaction begun on the loop must never sleep there waiting for a lock.
        conn.execute("PRAGMA busy_timeout = 0")
        return conn

    def _index_progress(self) -> IndexProgress:
        assert self._conn is not None
        repo = EventRepository(self._conn)
        if not repo.has_search_index():
            return IndexProgress(False, 0, 0)
        return IndexProgress(True, repo.indexed_through(), repo.latest_id())

    async def durability(self) -> tuple[str, int]:
        """The write connection's journal mode and synchronous level ("wal", 2 = FULL)."""
        conn, executor = self._conn, self._executor
        if conn is None or executor is None:
            raise StoreUnavailable("the inbox's store connection is not open")

        def read() -> tuple[str, int]:
            mode = conn.execute("PRAGMA journal_mode").fetchone()[0]
            level = conn.execute("PRAGMA synchronous").fetchone()[0]
            return str(mode), int(level)

        return await asyncio.get_running_loop().run_in_executor(executor, read)

    async def close(self) -> None:
        loop = asyncio.get_running_loop()
        if self._conn is not None and self._executor is not None:
            await loop.run_in_executor(self._executor, self._conn.close)
            self._conn = None
        if self._executor is not None:
            self._executor.shutdown(wait=True)
            self._executor = None

    # -- one batch: statements on the loop, COMMIT on the thread --------------------------------

    def one_bad_row(self, exc: BaseException) -> bool:
        """The failure can come from one delivery's data (the others of its batch may be
        fine)."""
        return isinstance(exc, _ONE_BAD_ROW)

    def unstorable(self, exc: BaseException) -> bool:
        """The store refused what was read from a body (its bytes can still be kept)."""
        return isinstance(exc, _UNSTORABLE)

    async def commit(
        self, deliveries: Sequence[Delivery], applier: ChargeApplier | None = None
    ) -> list[WriteResult]:
        """Store the deliveries (applying the accepted ones) in one durable commit.

        Raises what the store raised; nothing of the batch is then stored. After a failure for
        want of disk space the WAL is checkpointed, so the space it holds is free for the next.
        """
        conn, executor = self._conn, self._executor
        assert conn is not None
        assert executor is not None
        loop = asyncio.get_running_loop()
        try:
            guarded = False
            while True:
                try:
                    conn.execute("BEGIN IMMEDIATE")
                except sqlite3.OperationalError:
                    # Another connection is writing: wait for it on the thread, not on the loop.
                    await loop.run_in_executor(executor, self._begin_waiting)
                try:
                    # The store's coroutines never suspend on SQLite: the batch runs to its end
                    # on the loop without letting anything else touch the connection meanwhile.
                    results = [await self._store(conn, d, applier, guarded) for d in deliveries]
                except _ApplyFailed:
                    # The state machine failed on a delivery, and no savepoint can undo only
                    # its writes: the batch runs again from the start, each merge guarded.
                    if conn.in_transaction:
                        conn.execute("ROLLBACK")
                    guarded = True
                    continue
                except BaseException:
                    conn.execute("ROLLBACK")
                    raise
                break
            await loop.run_in_executor(executor, self._commit)
        except Exception as exc:
            if "full" in str(exc).lower():
                await loop.run_in_executor(executor, self._checkpoint_after_failure)
            raise
        return results

    def _begin_waiting(self) -> None:
        """BEGIN IMMEDIATE with the busy timeout (on the thread)."""
        conn = self._conn
        assert conn is not None
        conn.execute(f"PRAGMA busy_timeout = {_BUSY_TIMEOUT_MS}")
        try:
            conn.execute("BEGIN IMMEDIATE")
        finally:
            conn.execute("PRAGMA busy_timeout = 0")

    def _commit(self) -> None:
        """The durable step (on the thread): COMMIT with synchronous=FULL, or roll back."""
        conn = self._conn
        assert conn is not None
        try:
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                # A failed COMMIT (disk full, I/O error) leaves the transaction open.
                conn.execute("ROLLBACK")
            raise

    def _checkpoint_after_failure(self) -> None:
        """After a commit failed for want of disk space: fold the WAL in and truncate it, so
        the space it holds is free for the next commit (best effort, on the thread)."""
        conn = self._conn
        assert conn is not None
        try:
            conn.execute(f"PRAGMA busy_timeout = {_BUSY_TIMEOUT_MS}")
            db.checkpoint(conn)
        except sqlite3.Error as exc:
            logger.debug("checkpoint after a failed commit did not run (%s)", exc)
        finally:
            conn.execute("PRAGMA busy_timeout = 0")

    async def _store(
        self,
        conn: sqlite3.Connection,
        delivery: Delivery,
        applier: ChargeApplier | None,
        guarded: bool,
    ) -> WriteResult:
        repo = EventRepository(conn)
        event = with_stored_expiry(delivery.event, delivery.update, repo.charge_state_json)
        if event.verdict == Verdict.QUARANTINED:
            event_id = repo.insert(event)
        else:
            # Nearly every delivery is a body's first: one statement checks and inserts; a
            # duplicate (refused by the first-delivery index) is looked up and stored as such.
            first_id = repo.insert_first(event)
            if first_id is None:
                first = repo.first_delivery_of(event.body_sha256)
                if first is None:
                    raise sqlite3.IntegrityError("a delivery's row was refused, not as a duplicate")
                event = replace(event, verdict=Verdict.DUPLICATE, duplicate_of=first)
                event_id = repo.insert(event)
            else:
                event_id = first_id
        if event.verdict == Verdict.SELF_TEST:
            repo.prune_self_tests()
        applied: Applied | None = None
        if event.verdict == Verdict.ACCEPTED and delivery.update is not None and applier:
            applied = await self._apply(conn, applier, delivery.update, event_id, guarded)
            repo.set_merge_outcome(event_id, applied.outcome)
        return WriteResult(
            event_id=event_id,
            verdict=event.verdict,
            duplicate_of=event.duplicate_of,
            merge_outcome=None if applied is None else applied.outcome,
            published=() if applied is None else applied.events,
        )

    async def _apply(
        self,
        conn: sqlite3.Connection,
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
        try:
            returned = applier(
                SqliteCharges(ChargeRepository(conn)), update, f"webhook_event:{event_id}"
            )
            if inspect.isawaitable(returned):
                returned = await returned
        except Exception as exc:
            if not guarded:
                # Nearly every merge succeeds, and a savepoint around each one costs every
                # delivery two statements: a batch runs without them first, and only a
                # failure makes it run again with them (`commit`).
                raise _ApplyFailed from exc
            conn.execute("ROLLBACK TO apply_update")
            conn.execute("RELEASE apply_update")
            logger.exception("the charge state machine failed on webhook event %d", event_id)
            error = f"{type(exc).__name__}: {exc}"[:_MAX_OUTCOME]
            return Applied(Reason.of(ReasonCode.INBOX_NOT_APPLIED, error=error))
        if guarded:
            conn.execute("RELEASE apply_update")
        if returned is None:
            return Applied(Reason.of(ReasonCode.INBOX_APPLIED_BARE))
        if isinstance(returned, Reason):
            return Applied(returned)
        return returned

    # -- the search index ------------------------------------------------------------------------

    async def index_some(self, rows: int) -> tuple[int, int]:
        """Add up to `rows` stored deliveries to the search index (one job on the thread);
        returns the ids the index now holds up to and the newest stored."""
        assert self._executor is not None
        return await asyncio.get_running_loop().run_in_executor(
            self._executor, self._index_job, rows
        )

    def _index_job(self, rows: int) -> tuple[int, int]:
        conn = self._conn
        assert conn is not None
        started = time.perf_counter()
        # The index is derived from committed rows: atomic is enough, no fsync of its own.
        conn.execute("PRAGMA synchronous = NORMAL")
        try:
            self._begin_waiting()
            try:
                progress = EventRepository(conn).index_for_search(rows)
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
        finally:
            conn.execute("PRAGMA synchronous = FULL")
        logger.debug(
            "search index through id %d of %d (%.1f ms)",
            progress[0],
            progress[1],
            (time.perf_counter() - started) * 1000,
        )
        return progress


__all__ = ["SqliteDeliveryBatches"]
