"""The day's figures as a till reads them: a refund counts on the day its money went back,
so a closed day never changes and today's net holds today's refunds of earlier sales."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

import pytest

from checkout_desktop.domain.enums import ChargeStatus, TransactionStatus
from checkout_desktop.domain.money_ops import Figures, MoneyOpKind, MoneyOpState
from checkout_desktop.domain.reasons import Reason, ReasonCode
from checkout_desktop.domain.records import DayTotals
from checkout_desktop.store.ports import Store
from tests.integration.test_store_environments import (  # noqa: F401 - backend is a fixture
    T0,
    Clock,
    backend,
    card_update,
    merge,
    sell,
)

logger = logging.getLogger(__name__)

YESTERDAY = T0.replace(hour=0)
TODAY = YESTERDAY + timedelta(days=1)


async def operation_made(
    store: Store,
    clock: Clock,
    mcid: str,
    kind: MoneyOpKind,
    amount: int,
    *,
    says: ChargeStatus,
    total_refunded: int = 0,
) -> None:
    """A refund or capture this terminal made now, confirmed, and the service's figures after."""
    record = await store.charges.charge(mcid)
    assert record is not None and record.amount is not None
    async with store.unit_of_work() as uow:
        op = await uow.charges.record_money_operation(mcid, kind, amount, Figures.of(record.state))
        await uow.charges.move_money_operation(
            op, MoneyOpState.CONFIRMED, source="reply", reason=Reason.of(ReasonCode.CHECK_SCHEDULED)
        )
    update = card_update(
        mcid, says, TransactionStatus.PAID, amount=record.amount, refunded=total_refunded
    )
    await merge(store, clock, update, source="reply")


async def day(store: Store, start: datetime) -> DayTotals:
    return await store.charges.day_totals(
        start=start, end=start + timedelta(days=1), profile="production", zone=start.tzinfo
    )


@pytest.mark.asyncio
async def test_a_refund_counts_on_the_day_its_money_went_back(
    backend: tuple[Store, Clock],  # noqa: F811 - the fixture imported above
) -> None:
    store, clock = backend
    clock.now = YESTERDAY.replace(hour=10)
    await sell(store, clock, "charge-a", amount=20000)
    closed = await day(store, YESTERDAY)
    assert (closed.sales, closed.gross, closed.refunds, closed.net) == (1, 20000, 0, 20000)

    # Today: R$ 50,00 of yesterday's sale goes back, and a new sale of R$ 50,00 whose R$ 10,00
    # refund only the service's figures tell (made elsewhere): that one stays on its sale's day.
    clock.now = TODAY.replace(hour=11)
    await operation_made(
        store,
        clock,
        "charge-a",
        MoneyOpKind.REFUND,
        5000,
        says=ChargeStatus.PARTIAL,
        total_refunded=5000,
    )
    clock.now = TODAY.replace(hour=12)
    await sell(store, clock, "charge-b", amount=5000)
    elsewhere = card_update(
        "charge-b", ChargeStatus.PARTIAL, TransactionStatus.PAID, amount=5000, refunded=1000
    )
    await merge(store, clock, elsewhere, source="webhook")

    again = await day(store, YESTERDAY)
    assert (again.sales, again.gross, again.refunds, again.net) == (1, 20000, 0, 20000)
    today = await day(store, TODAY)
    assert (today.sales, today.gross) == (1, 5000)
    assert today.refunds == 5000 + 1000
    assert today.net == 5000 - 6000


@pytest.mark.asyncio
async def test_a_capture_counts_as_a_sale_on_the_day_the_money_was_taken(
    backend: tuple[Store, Clock],  # noqa: F811 - the fixture imported above
) -> None:
    # Authorized yesterday (money held), captured today: yesterday closed with it held, and
    # stays so; today's sales hold it, in the hour of its capture.
    store, clock = backend
    clock.now = YESTERDAY.replace(hour=18)
    await sell(store, clock, "held", amount=7000, status=ChargeStatus.PRE_AUTHORIZED)
    closed = await day(store, YESTERDAY)
    assert (closed.sales, closed.held_count, closed.held_amount) == (0, 1, 7000)
    clock.now = TODAY.replace(hour=9, minute=30)
    await operation_made(store, clock, "held", MoneyOpKind.CAPTURE, 7000, says=ChargeStatus.PAID)
    again = await day(store, YESTERDAY)
    assert (again.sales, again.gross, again.held_count, again.held_amount) == (0, 0, 1, 7000)
    assert again.by_hour == {}
    today = await day(store, TODAY)
    assert (today.sales, today.gross, today.held_count) == (1, 7000, 0)
    assert today.by_hour == {9: (1, 7000)}
    assert [(b.brand, b.count, b.amount) for b in today.by_brand] == [("VISA", 1, 7000)]
