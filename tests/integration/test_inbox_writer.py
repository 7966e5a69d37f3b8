"""The group-commit writer on a real SQLite file: batches, isolation of a bad row, stop."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from checkout_desktop.charges.ledger import inbox_applier
from checkout_desktop.domain.deliveries import Delivery, EventFilter, NewEvent
from checkout_desktop.domain.enums import Verdict
from checkout_desktop.domain.events import EventBus
from checkout_desktop.domain.inbox_events import WebhookStored
from checkout_desktop.domain.reasons import ReasonCode
from checkout_desktop.inbox.intake import Intake, body_digest
from checkout_desktop.inbox.writer import InboxUnavailable, InboxWriter, WriteResult
from checkout_desktop.store.sqlite import db
from checkout_desktop.store.sqlite.charges import ChargeRepository
from checkout_desktop.store.sqlite.events import EventRepository
from checkout_desktop.store.sqlite.writer import SqliteDeliveryBatches
from tests.integration import test_store_charges as charges_tests

logger = logging.getLogger(__name__)


def intake(n: int, *, naive: bool = False) -> Intake:
    body = f'{{"type": "PAYOUT", "n": {n}}}'.encode()
    moment = datetime(2026, 3, 1, 12, 0, n)
    return Intake(
        event=NewEvent(
            received_at=moment if naive else moment.replace(tzinfo=UTC),
            verdict=Verdict.UNKNOWN,
            body=body,
            body_sha256=body_digest(body),
            headers={"event-type": "PayoutMessage"},
            body_type="PAYOUT",
        )
    )


@pytest.mark.asyncio
async def test_one_bad_row_does_not_sink_its_batch(tmp_path: Path) -> None:
    bus = EventBus()
    published: list[WebhookStored] = []
    bus.subscribe(WebhookStored, published.append)
    writer = InboxWriter(tmp_path / "store.sqlite3", bus=bus)
    await writer.start()
    try:
        # Queued in one go, so they share one batch.
        outcomes = await asyncio.gather(
            *(writer.submit(intake(n, naive=n == 2)) for n in range(5)), return_exceptions=True
        )
    finally:
        await writer.close()
    assert isinstance(outcomes[2], InboxUnavailable)
    assert "naive datetime" in str(outcomes[2])
    stored = [o for o in outcomes if isinstance(o, WriteResult)]
    assert len(stored) == 4
    assert writer.stats.largest_batch == 1  # the shared batch failed; rows went one by one
    assert writer.stats.failed_batches == 2
    conn = db.connect(tmp_path / "store.sqlite3")
    try:
        rows = list(EventRepository(conn).iter_full())
    finally:
        conn.close()
    assert [r.id for r in rows] == [o.event_id for o in stored]
    assert [e.event_id for e in published] == [o.event_id for o in stored]


@pytest.mark.asyncio
async def test_close_commits_what_is_queued_and_refuses_more(tmp_path: Path) -> None:
    writer = InboxWriter(tmp_path / "store.sqlite3", max_batch=2)
    await writer.start()
    pending = [asyncio.ensure_future(writer.submit(intake(n))) for n in range(7)]
    await asyncio.sleep(0)
    await writer.close()
    results = await asyncio.gather(*pending)
    assert sorted(r.event_id for r in results) == list(range(1, 8))
    assert writer.stats.largest_batch == 2
    with pytest.raises(InboxUnavailable, match="not accepting"):
        await writer.submit(intake(9))
    assert not writer.running


@pytest.mark.asyncio
async def test_a_full_queue_is_refused_not_buffered_without_bound(tmp_path: Path) -> None:
    writer = InboxWriter(tmp_path / "store.sqlite3", max_queue=3)
    await writer.start()
    try:
        tasks = [asyncio.ensure_future(writer.submit(intake(n))) for n in range(6)]
        outcomes = await asyncio.gather(*tasks, return_exceptions=True)
    finally:
        await writer.close()
    refused = [o for o in outcomes if isinstance(o, InboxUnavailable)]
    assert refused, "every delivery fit in a queue of 3"
    assert "waiting for the disk" in str(refused[0])
    assert len([o for o in outcomes if isinstance(o, WriteResult)]) >= 3


@pytest.mark.asyncio
async def test_the_search_index_is_filled_when_the_inbox_is_quiet(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite3"
    # A writer that never finds the inbox quiet: whatever it indexes rode on a delivery.
    busy = InboxWriter(path, index_idle_s=3600)
    await busy.start()
    try:
        results = await asyncio.gather(*(busy.submit(intake(n)) for n in range(20)))
    finally:
        await busy.close()
    assert busy.stats.indexed_batches == 0
    conn = db.connect(path)
    try:
        assert EventRepository(conn).indexed_through() == 0
    finally:
        conn.close()
    # An inbox that is quiet indexes what the store holds (in the background, after a moment).
    writer = InboxWriter(path)
    await writer.start()
    try:
        for _ in range(200):
            if writer.stats.indexed_batches:
                break
            await asyncio.sleep(0.05)
    finally:
        await writer.close()
    conn = db.connect(path)
    try:
        repo = EventRepository(conn)
        assert repo.indexed_through() == max(r.event_id for r in results)
        found = repo.page(EventFilter(text='"n": 1'), limit=100).rows
        assert sorted(row.id for row in found) == sorted(
            r.event_id for n, r in enumerate(results) if str(n).startswith("1")
        )
    finally:
        conn.close()


class CountingBatches(SqliteDeliveryBatches):
    """Another store's half of the group commit, as the writer sees it: here SQLite's, counted."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.batches: list[int] = []

    async def commit(self, deliveries: Sequence[Delivery], applier: Any = None) -> list[Any]:
        self.batches.append(len(deliveries))
        return await super().commit(deliveries, applier)


@pytest.mark.asyncio
async def test_the_writer_commits_through_whichever_store_half_it_is_given(
    tmp_path: Path,
) -> None:
    batches = CountingBatches(tmp_path / "store.sqlite3")
    writer = InboxWriter(batches, max_batch=3)
    await writer.start()
    try:
        results = await asyncio.gather(*(writer.submit(intake(n)) for n in range(5)))
    finally:
        await writer.close()
    assert sorted(r.event_id for r in results) == [1, 2, 3, 4, 5]
    assert sum(batches.batches) == 5 and max(batches.batches) <= 3
    assert not batches.opened  # the writer closed it


class LoggingBatches(SqliteDeliveryBatches):
    """SQLite's half of the group commit, noting when each batch's statements begin."""

    def __init__(self, path: Path, log: list[str]) -> None:
        super().__init__(path)
        self.log = log

    async def commit(self, deliveries: Sequence[Delivery], applier: Any = None) -> list[Any]:
        self.log.append(f"batch of {len(deliveries)}")
        return await super().commit(deliveries, applier)


@pytest.mark.asyncio
async def test_a_committed_batch_is_answered_before_the_next_batch_holds_the_loop(
    tmp_path: Path,
) -> None:
    # The next batch's statements run on the loop for milliseconds; the senders whose rows are
    # already durable get their answers first (and can send again, joining a later batch).
    log: list[str] = []
    writer = InboxWriter(LoggingBatches(tmp_path / "store.sqlite3", log), max_batch=2)
    await writer.start()

    async def send(n: int) -> None:
        await writer.submit(intake(n))
        log.append(f"answered {n}")

    try:
        await asyncio.gather(*(send(n) for n in range(5)))
    finally:
        await writer.close()
    assert log == [
        "batch of 2",
        "answered 0",
        "answered 1",
        "batch of 2",
        "answered 2",
        "answered 3",
        "batch of 1",
        "answered 4",
    ]


def _payment(n: int, mcid: str) -> Delivery:
    body = f'{{"type": "PAYMENT", "n": {n}}}'.encode()
    event = NewEvent(
        received_at=datetime(2026, 3, 1, 12, 0, n, tzinfo=UTC),
        verdict=Verdict.ACCEPTED,
        body=body,
        body_sha256=body_digest(body),
        headers={"event-type": "TransactionUpdateMessage"},
        body_type="PAYMENT",
        merchant_charge_id=mcid,
    )
    return Delivery(event, charges_tests.webhook(mcid, "PAID", "2026-03-01T12:00:05Z"))


@pytest.mark.expected_errors("the charge state machine failed on webhook event")
@pytest.mark.asyncio
async def test_a_merge_failing_mid_batch_undoes_only_its_own_writes(tmp_path: Path) -> None:
    calls: list[str] = []

    async def failing_for_b(charges: Any, update: Any, ref: str) -> Any:
        calls.append(update.merchant_charge_id)
        applied = await inbox_applier(charges, update, ref)
        if update.merchant_charge_id == "charge-b":
            raise RuntimeError("state machine bug")  # after its writes
        return applied

    batches = SqliteDeliveryBatches(tmp_path / "store.sqlite3")
    await batches.open()
    try:
        results = await batches.commit(
            [_payment(1, "charge-a"), _payment(2, "charge-b"), _payment(3, "charge-c")],
            failing_for_b,
        )
    finally:
        await batches.close()
    outcomes = [r.merge_outcome.code if r.merge_outcome else None for r in results]
    # No attempt names these charges: the merges that held say so (this terminal never made them).
    assert outcomes == [
        ReasonCode.INBOX_UNMADE_FIRST,
        ReasonCode.INBOX_NOT_APPLIED,
        ReasonCode.INBOX_UNMADE_FIRST,
    ]
    assert [r.event_id for r in results] == [1, 2, 3]
    assert "charge-b" in calls
    # Each merge that held was written once, the failed one not at all, whatever ran again.
    repo = ChargeRepository(db.connect(tmp_path / "store.sqlite3"))
    try:
        assert [len(repo.timeline(m).items) for m in ("charge-a", "charge-b", "charge-c")] == [
            1,
            0,
            1,
        ]
        assert repo.charge("charge-b") is None
        stored = [r.merge_outcome for r in EventRepository(repo.conn).iter_full()]
        assert stored[1] == "not applied: RuntimeError: state machine bug"
        assert stored[0] is not None and stored[0].startswith("first news of a charge")
    finally:
        repo.conn.close()
