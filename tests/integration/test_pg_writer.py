"""The inbox's PostgreSQL half: a batch in one durable commit, acknowledged only after it."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import psycopg
import pytest

from checkout_desktop.charges.ledger import inbox_applier
from checkout_desktop.domain.deliveries import Delivery, NewEvent
from checkout_desktop.domain.enums import Verdict
from checkout_desktop.domain.reasons import ReasonCode
from checkout_desktop.domain.records import CardSummary
from checkout_desktop.inbox.intake import Intake, body_digest
from checkout_desktop.inbox.writer import InboxUnavailable, InboxWriter
from checkout_desktop.store.postgres import db
from checkout_desktop.store.postgres.address import StoreAddress
from checkout_desktop.store.postgres.charges import PgChargeRepository
from checkout_desktop.store.postgres.writer import PgDeliveryBatches
from tests import pg_cluster
from tests.integration import test_store_charges as charges_tests

pytestmark = pytest.mark.pg

CHILD = Path(__file__).with_name("pg_batches_child.py")
NOW = datetime(2026, 5, 4, 10, 0, tzinfo=UTC)


@pytest.fixture
def address(pg_url: str) -> StoreAddress:
    address = StoreAddress.parse(pg_url)
    db.connect(address, None).close()
    return address


def _event(body: bytes, verdict: Verdict = Verdict.ACCEPTED, mcid: str | None = None) -> NewEvent:
    return NewEvent(
        received_at=NOW,
        verdict=verdict,
        body=body,
        body_sha256=str(abs(hash(body))).rjust(64, "0"),
        headers={"event-type": "TransactionUpdateMessage"},
        merchant_charge_id=mcid,
    )


@pytest.mark.asyncio
async def test_a_batch_is_stored_deduped_and_applied_in_one_commit(
    address: StoreAddress, pg_url: str
) -> None:
    with psycopg.connect(pg_url, autocommit=True) as setup, setup.transaction():
        PgChargeRepository(setup).record_attempt(
            merchant_charge_id="charge-000007",
            sale_id="sale-7",
            profile="builtin-sandbox",
            amount=1500,
            tenders=[CardSummary("VISA", "1111")],
        )
    batches = PgDeliveryBatches(address, None)
    progress = await batches.open()
    assert not progress.searchable
    try:
        assert await batches.durability() == ("postgresql", 2)
        update = charges_tests.webhook("charge-000007", "PAID", "2026-05-04T10:00:05Z")
        first = _event(b'{"a": 1}', mcid="charge-000007")
        results = await batches.commit(
            [
                Delivery(first, update),
                Delivery(first, update),
                Delivery(_event(b"{bad", Verdict.QUARANTINED), None),
            ],
            inbox_applier,
        )
        assert [r.verdict for r in results] == [
            Verdict.ACCEPTED,
            Verdict.DUPLICATE,
            Verdict.QUARANTINED,
        ]
        assert results[1].duplicate_of == results[0].event_id
        assert results[0].merge_outcome is not None
        assert results[0].merge_outcome.code == ReasonCode.INBOX_APPLIED
        with psycopg.connect(pg_url) as other:
            stored = other.execute("SELECT count(*) FROM webhook_event").fetchone()
            charge = PgChargeRepository(other).charge("charge-000007")
        assert stored == (3,)
        assert charge is not None
        assert str(charge.status) == "PAID"
    finally:
        await batches.close()


@pytest.mark.asyncio
@pytest.mark.expected_errors(r"the charge state machine failed")
async def test_a_failing_merge_keeps_the_delivery(address: StoreAddress, pg_url: str) -> None:
    def broken(*args: object) -> None:
        raise RuntimeError("the state machine broke")

    batches = PgDeliveryBatches(address, None)
    await batches.open()
    try:
        update = charges_tests.webhook("charge-000008", "PAID", "2026-05-04T10:00:05Z")
        (result,) = await batches.commit(
            [Delivery(_event(b'{"b": 2}'), update)],
            broken,  # type: ignore[arg-type]
        )
        assert result.merge_outcome is not None
        assert result.merge_outcome.code == ReasonCode.INBOX_NOT_APPLIED
        with psycopg.connect(pg_url) as other:
            assert other.execute("SELECT count(*) FROM webhook_event").fetchone() == (1,)
    finally:
        await batches.close()


@pytest.mark.asyncio
@pytest.mark.expected_errors(r"the charge state machine failed")
async def test_a_merge_failing_mid_batch_undoes_only_its_own_writes(
    address: StoreAddress, pg_url: str
) -> None:
    async def failing_for_b(charges: Any, update: Any, ref: str) -> Any:
        applied = await inbox_applier(charges, update, ref)
        if update.merchant_charge_id == "charge-b":
            raise RuntimeError("state machine bug")  # after its writes
        return applied

    def delivery(n: int, mcid: str) -> Delivery:
        update = charges_tests.webhook(mcid, "PAID", "2026-05-04T10:00:05Z")
        return Delivery(_event(f'{{"n": {n}}}'.encode(), mcid=mcid), update)

    batches = PgDeliveryBatches(address, None)
    await batches.open()
    try:
        results = await batches.commit(
            [delivery(1, "charge-a"), delivery(2, "charge-b"), delivery(3, "charge-c")],
            failing_for_b,
        )
        # No attempt names these charges: the merges that held say so (never made here).
        assert [r.merge_outcome.code if r.merge_outcome else None for r in results] == [
            ReasonCode.INBOX_UNMADE_FIRST,
            ReasonCode.INBOX_NOT_APPLIED,
            ReasonCode.INBOX_UNMADE_FIRST,
        ]
        with psycopg.connect(pg_url) as other:
            repo = PgChargeRepository(other)
            # Each merge that held was written once, the failed one not at all.
            assert [len(repo.timeline(m).items) for m in ("charge-a", "charge-b", "charge-c")] == [
                1,
                0,
                1,
            ]
            assert repo.charge("charge-b") is None
            assert other.execute("SELECT count(*) FROM webhook_event").fetchone() == (3,)
    finally:
        await batches.close()


def test_every_acknowledged_delivery_survives_a_sigkill_mid_burst(
    address: StoreAddress, pg_url: str
) -> None:
    child = subprocess.Popen(
        [sys.executable, str(CHILD), address.url()],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])},
    )
    acked: list[int] = []
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "ready"
        while len(acked) < 500:
            line = child.stdout.readline()
            assert line.startswith("ack "), line
            acked.append(int(line.split()[1]))
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
        # Lines already written before the kill are acknowledgements too.
        acked += [int(line.split()[1]) for line in child.stdout.read().splitlines() if line]
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        if child.stdout is not None:
            child.stdout.close()
    with psycopg.connect(pg_url) as other:
        stored = {int(r[0]) for r in other.execute("SELECT id FROM webhook_event")}
    assert len(acked) >= 500
    assert set(acked) <= stored
    # Whole batches only: the killed batch left nothing half-written.
    assert len(stored) % 20 == 0


@pytest.mark.asyncio
@pytest.mark.expected_errors(r"the charge state machine failed")
async def test_an_applier_that_waits_for_more_than_the_store_is_refused_not_run_later(
    address: StoreAddress, pg_url: str
) -> None:
    # The batch holds the shop's write lock: an applier may wait for its store and nothing
    # else. One that would suspend is stopped there; its delivery is kept, marked not applied.
    async def waits(charges: Any, update: Any, ref: str) -> None:
        await asyncio.sleep(0)

    batches = PgDeliveryBatches(address, None)
    await batches.open()
    try:
        update = charges_tests.webhook("charge-000009", "PAID", "2026-05-04T10:00:05Z")
        (result,) = await batches.commit([Delivery(_event(b'{"c": 3}'), update)], waits)
        assert result.merge_outcome is not None
        assert result.merge_outcome.code == ReasonCode.INBOX_NOT_APPLIED
        assert "waited for something other than the store" in str(result.merge_outcome.args)
        with psycopg.connect(pg_url) as other:
            assert other.execute("SELECT count(*) FROM webhook_event").fetchone() == (1,)
            assert PgChargeRepository(other).charge("charge-000009") is None
    finally:
        await batches.close()


def _intake(n: int) -> Intake:
    body = f'{{"type": "PAYOUT", "n": {n}}}'.encode()
    return Intake(
        event=NewEvent(
            received_at=NOW,
            verdict=Verdict.UNKNOWN,
            body=body,
            body_sha256=body_digest(body),
            headers={"event-type": "PayoutMessage"},
            body_type="PAYOUT",
        )
    )


@pytest.fixture
def own_server() -> Iterator[pg_cluster.Cluster]:
    """A private cluster this test may restart (the shared test server stays up)."""
    root = Path(tempfile.mkdtemp(prefix="checkout-pg-restart-", dir="/tmp"))
    try:
        yield pg_cluster.start(root)
    finally:
        pg_cluster.stop(root)


@pytest.mark.asyncio
async def test_after_the_server_restarts_the_next_delivery_is_stored_not_refused(
    own_server: pg_cluster.Cluster,
) -> None:
    # The shop's server restarted while no delivery came: the inbox's connection is gone,
    # and the next delivery (a sale's notification a minute later) must still be stored.
    address = StoreAddress.parse(own_server.url)
    writer = InboxWriter(PgDeliveryBatches(address, None))
    await writer.start()
    try:
        before = await writer.submit(_intake(1))
        await asyncio.to_thread(pg_cluster.restart, own_server.root)
        after = await writer.submit(_intake(2))
        assert await writer.durability() == ("postgresql", 2)
    finally:
        await writer.close()
    with psycopg.connect(own_server.url) as other:
        stored = [r[0] for r in other.execute("SELECT id FROM webhook_event ORDER BY id")]
    assert stored == [before.event_id, after.event_id]


@pytest.mark.asyncio
async def test_the_inbox_reconnects_once_the_shared_store_answers_again(
    address: StoreAddress, pg_url: str, pg_server: str
) -> None:
    dbname = address.dbname
    writer = InboxWriter(PgDeliveryBatches(address, None))
    await writer.start()
    acknowledged: list[int] = []
    try:
        acknowledged.append((await writer.submit(_intake(1))).event_id)
        with psycopg.connect(pg_server, autocommit=True) as admin:
            # The server takes no connection to the shop's database and drops the open ones.
            admin.execute(f'ALTER DATABASE "{dbname}" ALLOW_CONNECTIONS false')
            admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s",
                (dbname,),
            )
        # Down: refused at once (the sender retries), never acknowledged.
        for n in (2, 3):
            with pytest.raises(InboxUnavailable, match="does not answer"):
                await asyncio.wait_for(writer.submit(_intake(n)), 15)
        with psycopg.connect(pg_server, autocommit=True) as admin:
            admin.execute(f'ALTER DATABASE "{dbname}" ALLOW_CONNECTIONS true')
        # Back: within seconds the sender's next retry is stored.
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 10
        while True:
            try:
                acknowledged.append((await writer.submit(_intake(3))).event_id)
                break
            except InboxUnavailable:
                assert loop.time() < deadline, "the inbox did not reconnect"
                await asyncio.sleep(0.2)
        acknowledged.append((await writer.submit(_intake(4))).event_id)
        assert await writer.durability() == ("postgresql", 2)
    finally:
        await writer.close()
    with psycopg.connect(pg_url) as other:
        stored = [r[0] for r in other.execute("SELECT id FROM webhook_event ORDER BY id")]
    assert stored == acknowledged
