"""Several counters on one shared store: checks claimed once across the shop, deliveries seen live."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import pytest
import pytest_asyncio

from checkout_desktop.domain import state as sm
from checkout_desktop.domain.deliveries import NewEvent
from checkout_desktop.domain.enums import ChargeStatus, Verdict
from checkout_desktop.domain.reasons import Reason, ReasonCode
from checkout_desktop.domain.wire import ChargeUpdate
from checkout_desktop.store.postgres.address import StoreAddress
from checkout_desktop.store.postgres.store import PgStore

pytestmark = pytest.mark.pg

NOW = datetime(2026, 5, 4, 10, 0, tzinfo=UTC)
COUNTERS = 3
CHARGES = 30
WAIT_S = 30  # a bound on a hang, not a speed claim


@pytest_asyncio.fixture
async def counters(pg_url: str) -> AsyncIterator[list[PgStore]]:
    address = StoreAddress.parse(pg_url)
    stores = [await PgStore.open(address, None, clock=lambda: NOW) for _ in range(COUNTERS)]
    try:
        yield stores
    finally:
        for store in stores:
            await store.close()


@pytest.mark.asyncio
async def test_each_due_charge_is_claimed_by_one_counter_once(counters: list[PgStore]) -> None:
    why = Reason.of(ReasonCode.CHECK_SCHEDULED)
    async with counters[0].unit_of_work() as uow:
        for n in range(CHARGES):
            mcid = f"caixa1-{n:06d}"
            merged = sm.merge(None, ChargeUpdate(mcid, None, ChargeStatus.PENDING, 1500, 0)).state
            await uow.charges.save_charge(
                mcid,
                merged,
                sale_id=f"sale-{n}",
                source="reply",
                new=True,
                changed=True,
                checks=0,
                next_check_at=NOW - timedelta(seconds=n),
                check_reason=why,
            )

    async def claim_all(store: PgStore, owner: str) -> list[str]:
        taken: list[str] = []
        while True:
            async with store.unit_of_work() as uow:
                batch = await uow.charges.claim_due_checks(
                    4, owner, now=NOW, lease=timedelta(minutes=2)
                )
            if not batch:
                return taken
            taken += [record.merchant_charge_id for record in batch]

    claimed = await asyncio.wait_for(
        asyncio.gather(*(claim_all(s, f"caixa-{i}") for i, s in enumerate(counters))), WAIT_S
    )
    every = [mcid for taken in claimed for mcid in taken]
    assert sorted(every) == sorted(f"caixa1-{n:06d}" for n in range(CHARGES))
    assert len(set(every)) == CHARGES
    # Nothing is due again before the lease ends; the reads agree on every counter.
    for store in counters:
        assert await store.charges.due_checks(now=NOW + timedelta(minutes=1)) == []


@pytest.mark.asyncio
async def test_a_delivery_one_counter_stores_reaches_every_counters_watch(
    counters: list[PgStore],
) -> None:
    watches = [store.watch(after=0) for store in counters]
    firsts = [asyncio.ensure_future(anext(w)) for w in watches]
    # Give every watch its first (empty) read, so it waits on its notifications.
    await asyncio.sleep(0)
    async with counters[1].unit_of_work() as uow:
        stored = await uow.events.insert(
            NewEvent(
                received_at=NOW,
                verdict=Verdict.UNKNOWN,
                body=b'{"n": 1}',
                body_sha256="1" * 64,
                headers={},
            )
        )
    seen = await asyncio.wait_for(asyncio.gather(*firsts), WAIT_S)
    assert seen == [stored] * COUNTERS
    for watch in watches:
        await watch.aclose()
