"""Live across counters: what one terminal commits reaches the others through LISTEN/NOTIFY."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import psycopg
import pytest

from checkout_desktop.domain.deliveries import NewEvent
from checkout_desktop.domain.enums import Verdict
from checkout_desktop.inbox.intake import body_digest
from checkout_desktop.store.postgres import db, schema
from checkout_desktop.store.postgres.address import StoreAddress
from checkout_desktop.store.postgres.events import PgEventRepository
from checkout_desktop.store.postgres.live import Notice, Watcher, watch

pytestmark = pytest.mark.pg

WAIT_S = 30  # a bound on a hang, not a speed claim: each wait ends at its notice


def _event(n: int) -> NewEvent:
    body = f'{{"n": {n}}}'.encode()
    return NewEvent(
        received_at=datetime(2026, 3, 1, 12, 0, n, tzinfo=UTC),
        verdict=Verdict.ACCEPTED,
        body=body,
        body_sha256=body_digest(body),
        headers={},
        merchant_charge_id=f"order-{n}",
    )


def _store(conn: psycopg.Connection[object], n: int) -> int:
    with conn.transaction():
        return PgEventRepository(conn).insert(_event(n))


@pytest.fixture
def address(pg_url: str) -> StoreAddress:
    address = StoreAddress.parse(pg_url)
    db.connect(address, None).close()
    return address


@pytest.mark.asyncio
async def test_a_committed_delivery_reaches_a_watching_terminal(address: StoreAddress) -> None:
    other = db.connect(address, None, autocommit=True)
    try:
        async with watch(address, None, channels=(schema.EVENTS_CHANNEL,)) as notices:
            stored = _store(other, 1)
            notice = await asyncio.wait_for(anext(notices), WAIT_S)
            assert notice == Notice(schema.EVENTS_CHANNEL, str(stored))
            assert notice.event_id == stored
    finally:
        other.close()


@pytest.mark.asyncio
async def test_notices_come_at_commit_in_commit_order(address: StoreAddress) -> None:
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[Notice] = asyncio.Queue()
    watcher = Watcher(address, None, queue.put_nowait, loop=loop)
    await loop.run_in_executor(None, watcher.start)
    slow = db.connect(address, None, autocommit=True)
    fast = db.connect(address, None, autocommit=True)
    try:
        with slow.transaction():
            held = PgEventRepository(slow).insert(_event(1))
            quick = _store(fast, 2)
            notice = await asyncio.wait_for(queue.get(), WAIT_S)
            # The open transaction's row said nothing: the committed one came first.
            assert notice == Notice(schema.EVENTS_CHANNEL, str(quick))
        notice = await asyncio.wait_for(queue.get(), WAIT_S)
        assert notice == Notice(schema.EVENTS_CHANNEL, str(held))
        assert held < quick
        with fast.transaction():
            fast.execute(
                "INSERT INTO charge (merchant_charge_id, state_json, created_at, updated_at) "
                "VALUES ('order-9', '{}', 'x', 'x')"
            )
        notice = await asyncio.wait_for(queue.get(), WAIT_S)
        assert notice == Notice(schema.CHARGES_CHANNEL, "order-9")
    finally:
        slow.close()
        fast.close()
        await loop.run_in_executor(None, watcher.stop)


@pytest.mark.asyncio
async def test_after_a_lost_connection_the_watcher_resyncs(
    address: StoreAddress, pg_server: str
) -> None:
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[Notice] = asyncio.Queue()
    watcher = Watcher(address, None, queue.put_nowait, loop=loop)
    await loop.run_in_executor(None, watcher.start)
    other = db.connect(address, None, autocommit=True)
    try:
        with psycopg.connect(pg_server, autocommit=True) as admin:
            killed = admin.execute(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                "WHERE datname = %s AND query LIKE 'LISTEN%%'",
                (address.dbname,),
            ).fetchone()
        assert killed == (1,)
        notice = await asyncio.wait_for(queue.get(), WAIT_S)
        assert notice.resync
        stored = _store(other, 3)
        notice = await asyncio.wait_for(queue.get(), WAIT_S)
        assert notice == Notice(schema.EVENTS_CHANNEL, str(stored))
    finally:
        other.close()
        await loop.run_in_executor(None, watcher.stop)


@pytest.mark.asyncio
async def test_a_server_that_is_not_there_is_said_at_start(tmp_path: object) -> None:
    address = StoreAddress.parse(f"postgresql:///x?host=%2Fnonexistent-{id(tmp_path)}&user=u")
    watcher = Watcher(address, None, lambda n: None, loop=asyncio.get_running_loop())
    with pytest.raises(db.SharedStoreError) as caught:
        await asyncio.get_running_loop().run_in_executor(None, watcher.start)
    assert caught.value.problem is db.StoreProblem.UNREACHABLE
