"""Counters sharing a store and the refunds, captures and cancels each left open: a counter
that stopped settles its own (and tells its clerk) when it starts again; another counter leaves
it to that one until the same grace an open charge attempt has, then settles it without
telling its own clerk about a refund they never asked for."""

from __future__ import annotations

from pathlib import Path

import pytest

from checkout_desktop.domain.enums import ChargeStatus
from checkout_desktop.domain.money_ops import Figures, MoneyOpKind, MoneyOpState
from checkout_desktop.sandbox.server import SandboxServer
from checkout_desktop.store.sqlite.charges import ChargeRepository
from checkout_desktop.store.sqlite.db import transaction
from tests.integration import sandbox_support
from tests.integration.charging_support import SandboxAccess, charging_stack
from tests.integration.test_money_operations import paid

sandbox = sandbox_support.sandbox
"""The sandbox of the default variants (a fixture)."""


@pytest.mark.asyncio
async def test_an_operation_left_open_is_its_own_counters_to_settle_and_to_tell(
    sandbox: SandboxServer, tmp_path: Path
) -> None:
    access = SandboxAccess.of_server(sandbox)
    db = tmp_path / "shared.sqlite3"
    figures = Figures(ChargeStatus.PAID, 1500, 0)
    async with charging_stack(access, db, counter="k1") as stack:
        # Three paid sales; a refund of each recorded and then the counters stopped before
        # sending it: k1's own, k2's, and one recorded before operations kept their counter.
        mine, theirs, older = [await paid(stack, access, sale=f"k1-s{n}") for n in range(3)]
        repo = ChargeRepository(stack.conn)
        with transaction(stack.conn):
            own = repo.record_money_operation(mine, MoneyOpKind.REFUND, 500, figures, counter="k1")
            other = repo.record_money_operation(
                theirs, MoneyOpKind.REFUND, 500, figures, counter="k2"
            )
            legacy = repo.record_money_operation(older, MoneyOpKind.REFUND, 500, figures)

    # k1 starts again while k2 may still be running (within the grace).
    async with charging_stack(access, db, counter="k1") as stack:
        report = await stack.service.reconcile_unresolved()
        told = {item.merchant_charge_id for item in report.interrupted}
        assert told == {mine, older}
        repo = ChargeRepository(stack.conn)
        for op in (own, legacy):
            # Asked about (the service does not show it yet: it stays open a while, in case
            # the service applies it late).
            asked = repo.money_operation(op.id)
            assert asked is not None and asked.queries == 1, asked
        untouched = repo.money_operation(other.id)
        assert untouched is not None and untouched.state == MoneyOpState.RECORDED
        assert untouched.queries == 0

    # k2 never came back: once the grace is over, k1 settles its refund too, and tells its own
    # clerk only of its own two (each start-up pass tells what this counter left open).
    async with charging_stack(access, db, counter="k1", unknown_grace_s=0.0) as stack:
        report = await stack.service.reconcile_unresolved()
        assert {item.merchant_charge_id for item in report.interrupted} == {mine, older}
        repo = ChargeRepository(stack.conn)
        for op in (own, other, legacy):
            settled = repo.money_operation(op.id)
            assert settled is not None and settled.state == MoneyOpState.NOT_APPLIED
    assert all(sandbox.state.charges[m].refunded_amount == 0 for m in (mine, theirs, older))


@pytest.mark.asyncio
async def test_a_refund_keeps_the_counter_that_sent_it(
    sandbox: SandboxServer, tmp_path: Path
) -> None:
    access = SandboxAccess.of_server(sandbox)
    async with charging_stack(access, tmp_path / "s.sqlite3", counter="k7") as stack:
        mcid = await paid(stack, access, sale="k7-s1")
        await stack.service.refund(mcid, 300)
        (op,) = ChargeRepository(stack.conn).money_operations(mcid)
        assert (op.state, op.counter) == (MoneyOpState.CONFIRMED, "k7")
