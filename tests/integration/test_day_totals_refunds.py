"""The day's figures as a till reads them: a refund counts on the day its money went back,
so a closed day never changes and today's net holds today's refunds of earlier sales."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import pytest_asyncio

from checkout_desktop.domain import state as sm
from checkout_desktop.domain.enums import ChargeStatus
from checkout_desktop.domain.money_ops import Figures, MoneyOpKind, MoneyOpState
from checkout_desktop.domain.reasons import Reason, ReasonCode
from checkout_desktop.domain.records import CardSummary, DayTotals
from checkout_desktop.domain.wire import ChargeUpdate
from checkout_desktop.store.ports import Store
from checkout_desktop.store.sqlite.store import SqliteStore

logger = logging.getLogger(__name__)

YESTERDAY = datetime(2026, 5, 3, tzinfo=UTC)
TODAY = YESTERDAY + timedelta(days=1)
WHY = Reason.of(ReasonCode.CHECK_SCHEDULED)


class Clock:
    def __init__(self) -> None:
        self.now = YESTERDAY

    def __call__(self) -> datetime:
        return self.now


@pytest_asyncio.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.pg)])
async def shop(request: pytest.FixtureRequest) -> AsyncIterator[tuple[Store, Clock]]:
    clock = Clock()
    if request.param == "sqlite":
        tmp_path: Path = request.getfixturevalue("tmp_path")
        store: Store = SqliteStore.open(tmp_path / "day.sqlite3", clock=clock)
    else:
        from checkout_desktop.store.postgres.address import StoreAddress
        from checkout_desktop.store.postgres.store import PgStore

        url = request.getfixturevalue("pg_url")
        store = await PgStore.open(StoreAddress.parse(url), None, clock=clock)
    try:
        yield store, clock
    finally:
        await store.close()


async def sale(store: Store, mcid: str, amount: int, *, refunded: int = 0) -> None:
    """A paid card sale made now (by the store's clock); `refunded` as the service reports."""
    status = ChargeStatus.PARTIAL if refunded else ChargeStatus.PAID
    state = sm.merge(None, ChargeUpdate(mcid, f"svc-{mcid}", status, amount, refunded)).state
    async with store.unit_of_work() as uow:
        await uow.charges.record_attempt(
            merchant_charge_id=mcid,
            sale_id=f"sale-{mcid}",
            profile="production",
            amount=amount,
            tenders=[CardSummary("VISA", "1111")],
        )
        await uow.charges.save_charge(
            mcid,
            state,
            sale_id=f"sale-{mcid}",
            source="reply",
            new=True,
            changed=True,
            checks=0,
            next_check_at=None,
            check_reason=None,
        )


async def refund(store: Store, mcid: str, amount: int, *, refunded_after: int) -> None:
    """A refund this terminal made now, confirmed, and the charge's figures after it."""
    record = await store.charges.charge(mcid)
    assert record is not None
    async with store.unit_of_work() as uow:
        op = await uow.charges.record_money_operation(
            mcid, MoneyOpKind.REFUND, amount, Figures.of(record.state)
        )
        await uow.charges.move_money_operation(
            op, MoneyOpState.CONFIRMED, source="reply", reason=WHY
        )
        update = ChargeUpdate(
            mcid, record.charge_id, ChargeStatus.PARTIAL, record.amount, refunded_after
        )
        await uow.charges.save_charge(
            mcid,
            sm.merge(record.state, update).state,
            sale_id=record.sale_id,
            source="reply",
            new=False,
            changed=True,
            checks=0,
            next_check_at=None,
            check_reason=None,
        )


async def day(store: Store, start: datetime) -> DayTotals:
    return await store.charges.day_totals(
        start=start, end=start + timedelta(days=1), profile="production", zone=UTC
    )


@pytest.mark.asyncio
async def test_a_refund_counts_on_the_day_its_money_went_back(
    shop: tuple[Store, Clock],
) -> None:
    store, clock = shop
    clock.now = YESTERDAY.replace(hour=10)
    await sale(store, "charge-a", 20000)
    closed = await day(store, YESTERDAY)
    assert (closed.sales, closed.gross, closed.refunds, closed.net) == (1, 20000, 0, 20000)

    # Today: R$ 50,00 of yesterday's sale goes back, and a new sale of R$ 50,00 whose R$ 10,00
    # refund only the service's figures tell (made elsewhere): that one stays on its sale's day.
    clock.now = TODAY.replace(hour=11)
    await refund(store, "charge-a", 5000, refunded_after=5000)
    clock.now = TODAY.replace(hour=12)
    await sale(store, "charge-b", 5000, refunded=1000)

    again = await day(store, YESTERDAY)
    assert (again.sales, again.gross, again.refunds, again.net) == (1, 20000, 0, 20000)
    today = await day(store, TODAY)
    assert (today.sales, today.gross) == (1, 5000)
    assert today.refunds == 5000 + 1000
    assert today.net == 5000 - 6000
