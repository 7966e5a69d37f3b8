"""The inbox's single writer: group commit of concurrent deliveries, durable before any ack.

Every delivery waits for the commit of the batch it joined; a batch is whatever arrived while
the previous commit was being made durable. One fsync then covers many deliveries (measured:
one commit per request ≈ 1,800/s, a group-commit writer ≈ 4,000/s), and no delivery is
acknowledged before its row is on disk.

Where the work runs: a batch's statements (inserts, the state machine's reads and writes) run
on the event loop, between two requests, and only its COMMIT — the fsync — runs on the
writer's own thread, so the loop never waits for the disk. Running the statements on the
thread too cost more than it saved: each statement hands the GIL to the loop and waits (up to
the interpreter's 5 ms switch interval) to get it back, and measured at 50 connections the
thread spent two thirds of its time waiting for the GIL. A batch's statements are bounded
(`max_batch`), so one batch holds the loop for a few milliseconds at most.

The free-text search index is filled here too, off the delivery path: when no delivery is
waiting and none came for a moment, the thread adds the next rows to the index in one
statement; under a long flood it keeps the unindexed tail bounded with small batches between
deliveries. A search scans the tail, so results never depend on how far the index has got.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path

from checkout_desktop.domain.enums import Verdict
from checkout_desktop.domain.events import DomainEvent, EventBus
from checkout_desktop.domain.inbox_events import WebhookStored
from checkout_desktop.domain.reasons import Reason, ReasonCode
from checkout_desktop.domain.wire import ChargeUpdate, ThreeDsUpdate
from checkout_desktop.inbox.intake import Intake, unstorable
from checkout_desktop.store import db
from checkout_desktop.store.events import INDEX_BATCH, EventRepository

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Applied:
    """What the charge state machine did with one delivery."""

    outcome: Reason
    """What the merge did, kept with the event (its code, arguments and English text)."""
    events: tuple[DomainEvent, ...] = ()
    """Domain events to publish once the delivery's transaction has committed."""


ChargeApplier = Callable[
    [sqlite3.Connection, ChargeUpdate | ThreeDsUpdate, str], Applied | Reason | None
]
"""Feeds one accepted update to the charge state machine inside the writer's open transaction
(it must not begin or commit); gets the store connection, the update and a source reference
("webhook_event:<id>"); returns what it did (an Applied, or just an outcome reason), or None."""

DEFAULT_MAX_BATCH = 64
DEFAULT_MAX_QUEUE = 4096
_MAX_OUTCOME = 300
_CACHE_KIB = 32 * 1024
# How long a batch waits for another connection's write transaction to end (on the thread; on
# the loop a batch never waits for a lock, it hands the wait to the thread instead).
_BUSY_TIMEOUT_MS = 5000
# The search index is filled once no delivery has come for this long...
INDEX_IDLE_S = 0.25
# ...or, during a flood, whenever more rows than this wait for it, a few at a time so that a
# delivery arriving meanwhile waits for little. Until then a search scans the unindexed tail
# (about 1 us a row: 50,000 rows ≈ 50 ms), and a flood of minutes is not a shop's normal day;
# indexing costs ≈ 47 us a row of 0.7 KB (on the thread, without the GIL), better spent after.
_INDEX_BACKLOG = 50_000
_INDEX_BUSY_BATCH = 100
# After a failed index batch (disk full, a lock held too long), wait before trying again.
_INDEX_RETRY_S = 5.0
# Errors that one delivery's data can cause; anything else is the store's trouble.
_ONE_BAD_ROW = (sqlite3.IntegrityError, sqlite3.DataError, sqlite3.InterfaceError, ValueError)
# Of those, the ones that come from what was read out of a body (text that is not Unicode, a
# value SQLite cannot bind): the body's bytes themselves can still be kept.
_UNSTORABLE = (UnicodeError, OverflowError, sqlite3.DataError, sqlite3.InterfaceError)


class InboxUnavailable(RuntimeError):
    """The delivery could not be made durable; the sender must retry (the listener says 503)."""


@dataclass(frozen=True)
class WriteResult:
    """What the store holds for one delivery after its commit."""

    event_id: int
    verdict: Verdict
    duplicate_of: int | None
    merge_outcome: Reason | None
    published: tuple[DomainEvent, ...] = ()


@dataclass
class WriterStats:
    batches: int = 0
    rows: int = 0
    largest_batch: int = 0
    failed_batches: int = 0
    indexed_batches: int = 0


_Item = tuple[Intake, "asyncio.Future[WriteResult]"]


class InboxWriter:
    """Owns the inbox's write connection and the thread its commits run on.

    `submit` returns only after the delivery's transaction has committed with
    synchronous=FULL; its WebhookStored event is published on `bus` right after.
    """

    def __init__(
        self,
        db_path: Path,
        *,
        bus: EventBus | None = None,
        applier: ChargeApplier | None = None,
        max_batch: int = DEFAULT_MAX_BATCH,
        max_queue: int = DEFAULT_MAX_QUEUE,
        index_idle_s: float = INDEX_IDLE_S,
    ) -> None:
        if max_batch < 1:
            raise ValueError("a batch holds at least one delivery")
        self._path = db_path
        self._bus = bus
        self._applier = applier
        self._max_batch = max_batch
        self._max_queue = max_queue
        self._pending: list[_Item] = []
        # Set while deliveries wait and the runner may be asleep; one wake-up per batch.
        self._wake = asyncio.Event()
        self._executor: ThreadPoolExecutor | None = None
        self._conn: sqlite3.Connection | None = None
        self._task: asyncio.Task[None] | None = None
        self._closing = False
        # The search index's progress (ids) and the newest stored id, kept here so that the
        # runner knows without a query whether the index has work.
        self._index_idle_s = index_idle_s
        self._searchable = True
        self._indexed = 0
        self._latest = 0
        self._last_arrival = 0.0
        self._index_retry_at = 0.0
        self.stats = WriterStats()

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    async def start(self) -> None:
        if self._task is not None:
            raise RuntimeError("the inbox writer is already started")
        loop = asyncio.get_running_loop()
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="inbox-writer")
        try:
            self._conn = await loop.run_in_executor(self._executor, self._open)
            self._indexed, self._latest = await loop.run_in_executor(
                self._executor, self._index_progress
            )
        except BaseException:
            self._executor.shutdown(wait=False)
            self._executor = None
            raise
        self._task = asyncio.create_task(self._run(), name="inbox-writer")

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

    def _index_progress(self) -> tuple[int, int]:
        assert self._conn is not None
        repo = EventRepository(self._conn)
        if not repo.has_search_index():
            self._searchable = False
            return 0, 0
        return repo.indexed_through(), repo.latest_id()

    async def durability(self) -> tuple[str, int]:
        """The write connection's journal mode and synchronous level ("wal", 2 = FULL)."""
        if self._conn is None or self._executor is None:
            raise InboxUnavailable("the inbox writer is not running")
        conn = self._conn

        def read() -> tuple[str, int]:
            mode = conn.execute("PRAGMA journal_mode").fetchone()[0]
            level = conn.execute("PRAGMA synchronous").fetchone()[0]
            return str(mode), int(level)

        return await asyncio.get_running_loop().run_in_executor(self._executor, read)

    async def submit(self, intake: Intake) -> WriteResult:
        """Store one delivery durably; raises InboxUnavailable when that is impossible."""
        if self._task is None or self._task.done() or self._closing:
            raise InboxUnavailable("the inbox is not accepting deliveries (it is stopping)")
        if len(self._pending) >= self._max_queue:
            raise InboxUnavailable(
                f"the inbox has {len(self._pending)} deliveries waiting for the disk"
            )
        loop = asyncio.get_running_loop()
        future: asyncio.Future[WriteResult] = loop.create_future()
        self._last_arrival = loop.time()
        self._pending.append((intake, future))
        self._wake.set()
        # A request cancelled while waiting cancels only this future: the delivery stays in
        # its batch and is stored; only the answer is lost (the sender retries; it dedupes).
        return await future

    async def close(self) -> None:
        """Stop taking deliveries, commit everything queued, close the connection."""
        if self._task is None:
            return
        self._closing = True
        self._wake.set()
        if not self._task.done():
            await self._task
        loop = asyncio.get_running_loop()
        if self._conn is not None and self._executor is not None:
            await loop.run_in_executor(self._executor, self._conn.close)
            self._conn = None
        if self._executor is not None:
            self._executor.shutdown(wait=True)
            self._executor = None

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            if not self._pending:
                if self._closing:
                    return
                backlog = self._latest - self._indexed if self._searchable else 0
                if backlog > 0 and loop.time() >= self._index_retry_at:
                    quiet = loop.time() - self._last_arrival
                    if quiet >= self._index_idle_s or backlog > _INDEX_BACKLOG:
                        batch = INDEX_BATCH if quiet >= self._index_idle_s else _INDEX_BUSY_BATCH
                        await self._index_some(batch)
                        continue
                    self._wake.clear()
                    # Come back when the store has been quiet long enough to index.
                    with contextlib.suppress(TimeoutError):
                        async with asyncio.timeout(self._index_idle_s - quiet):
                            await self._wake.wait()
                    continue
                self._wake.clear()
                await self._wake.wait()
                continue
            pairs = self._pending[: self._max_batch]
            del self._pending[: self._max_batch]
            intakes = [intake for intake, _ in pairs]
            try:
                outcomes = await self._write(intakes)
            except Exception as exc:
                logger.exception("the inbox writer failed a batch of %d", len(pairs))
                outcomes = [exc] * len(pairs)
            self._settle(pairs, outcomes)

    def _settle(
        self,
        pairs: list[tuple[Intake, asyncio.Future[WriteResult]]],
        outcomes: list[WriteResult | Exception],
    ) -> None:
        stored: list[tuple[Intake, WriteResult]] = []
        for (intake, future), outcome in zip(pairs, outcomes, strict=True):
            if isinstance(outcome, WriteResult):
                stored.append((intake, outcome))
                if not future.done():
                    future.set_result(outcome)
            elif not future.done():
                future.set_exception(
                    InboxUnavailable(f"the delivery could not be stored: {outcome}")
                )
        if self._bus is not None:
            for intake, result in stored:
                self._bus.publish(_stored_event(intake, result))
                for event in result.published:
                    self._bus.publish(event)

    # -- one batch: statements on the loop, COMMIT on the thread --------------------------------

    async def _write(self, intakes: list[Intake]) -> list[WriteResult | Exception]:
        conn = self._conn
        assert conn is not None
        assert self._executor is not None
        loop = asyncio.get_running_loop()
        try:
            try:
                conn.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError:
                # Another connection is writing: wait for it on the thread, not on the loop.
                await loop.run_in_executor(self._executor, self._begin_waiting)
            try:
                results: list[WriteResult | Exception] = [self._store(conn, i) for i in intakes]
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            await loop.run_in_executor(self._executor, self._commit)
        except Exception as exc:
            self.stats.failed_batches += 1
            if "full" in str(exc).lower():
                await loop.run_in_executor(self._executor, self._checkpoint_after_failure)
            if (
                len(intakes) == 1
                and isinstance(exc, _UNSTORABLE)
                and intakes[0].event.verdict != Verdict.QUARANTINED
            ):
                # The store refused what was read from the body: keep the bytes themselves in
                # the quarantine, so the delivery ends as a row rather than a 503 on every retry.
                logger.warning("a delivery could not be stored as read (%s); quarantined", exc)
                return await self._write([unstorable(intakes[0], exc)])
            if len(intakes) == 1 or not isinstance(exc, _ONE_BAD_ROW):
                # A busy, full or failing disk fails every delivery alike: no retry one by one
                # (each would wait out the busy timeout again); the senders retry after a 503.
                return [exc] * len(intakes)
            # One poisoned delivery must not sink the others: retry each in its own commit.
            logger.warning("a batch of %d failed (%s); storing one by one", len(intakes), exc)
            alone: list[WriteResult | Exception] = []
            for intake in intakes:
                alone.extend(await self._write([intake]))
            return alone
        self.stats.batches += 1
        self.stats.rows += len(intakes)
        self.stats.largest_batch = max(self.stats.largest_batch, len(intakes))
        for result in results:
            if isinstance(result, WriteResult) and result.event_id > self._latest:
                self._latest = result.event_id
        return results

    async def _index_some(self, rows: int) -> None:
        """Add up to `rows` stored deliveries to the search index (one job on the thread)."""
        assert self._executor is not None
        loop = asyncio.get_running_loop()
        try:
            self._indexed, self._latest = await loop.run_in_executor(
                self._executor, self._index_job, rows
            )
        except Exception as exc:
            # The index is a convenience: deliveries go on, searches scan the longer tail.
            logger.warning("the search index could not be extended (%s); retrying later", exc)
            self._index_retry_at = loop.time() + _INDEX_RETRY_S

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
        self.stats.indexed_batches += 1
        logger.debug(
            "search index through id %d of %d (%.1f ms)",
            progress[0],
            progress[1],
            (time.perf_counter() - started) * 1000,
        )
        return progress

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

    def _store(self, conn: sqlite3.Connection, intake: Intake) -> WriteResult:
        repo = EventRepository(conn)
        event = intake.event
        if event.verdict != Verdict.QUARANTINED:
            first = repo.first_delivery_of(event.body_sha256)
            if first is not None:
                event = replace(event, verdict=Verdict.DUPLICATE, duplicate_of=first)
        event_id = repo.insert(event)
        if event.verdict == Verdict.SELF_TEST:
            repo.prune_self_tests()
        applied: Applied | None = None
        if event.verdict == Verdict.ACCEPTED and intake.update is not None and self._applier:
            applied = self._apply(conn, intake.update, event_id)
            repo.set_merge_outcome(event_id, applied.outcome)
        return WriteResult(
            event_id=event_id,
            verdict=event.verdict,
            duplicate_of=event.duplicate_of,
            merge_outcome=None if applied is None else applied.outcome,
            published=() if applied is None else applied.events,
        )

    def _apply(
        self, conn: sqlite3.Connection, update: ChargeUpdate | ThreeDsUpdate, event_id: int
    ) -> Applied:
        assert self._applier is not None
        # A savepoint keeps the event row when the state machine fails on it: the delivery is
        # stored (and acknowledged), and the failure is recorded with it for a later replay.
        conn.execute("SAVEPOINT apply_update")
        try:
            returned = self._applier(conn, update, f"webhook_event:{event_id}")
        except Exception as exc:
            conn.execute("ROLLBACK TO apply_update")
            conn.execute("RELEASE apply_update")
            logger.exception("the charge state machine failed on webhook event %d", event_id)
            error = f"{type(exc).__name__}: {exc}"[:_MAX_OUTCOME]
            return Applied(Reason.of(ReasonCode.INBOX_NOT_APPLIED, error=error))
        conn.execute("RELEASE apply_update")
        if returned is None:
            return Applied(Reason.of(ReasonCode.INBOX_APPLIED_BARE))
        if isinstance(returned, Reason):
            return Applied(returned)
        return returned


def _stored_event(intake: Intake, result: WriteResult) -> WebhookStored:
    event = intake.event
    return WebhookStored(
        event_id=result.event_id,
        received_at=event.received_at,
        verdict=result.verdict,
        event_type=event.event_type,
        body_type=event.body_type,
        merchant_charge_id=event.merchant_charge_id,
        charge_id=event.charge_id,
        status=event.status,
        reason=event.reason,
        duplicate_of=result.duplicate_of,
        merge_outcome=result.merge_outcome,
        self_test_nonce=intake.self_test_nonce,
    )


__all__ = [
    "INDEX_IDLE_S",
    "Applied",
    "ChargeApplier",
    "InboxUnavailable",
    "InboxWriter",
    "WriteResult",
    "WriterStats",
]
