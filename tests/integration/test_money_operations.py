"""Refunds, captures and cancels as money operations, against the sandbox over loopback."""

from __future__ import annotations

import asyncio
import logging
from datetime import timedelta
from pathlib import Path

import httpx
import pytest

from checkout_desktop.charges.service import MoneyOperationBusy, MoneyOperationRefused
from checkout_desktop.domain.charge_events import ChargeChanged, MoneyOperationChanged
from checkout_desktop.domain.enums import ChargeStatus
from checkout_desktop.domain.money_ops import Figures, MoneyOpKind, MoneyOpState, money_reason
from checkout_desktop.domain.reasons import Reason, ReasonCode
from checkout_desktop.domain.wire import ChargeUpdate
from checkout_desktop.gateway.errors import ServerError
from checkout_desktop.sandbox.api import ADMIN_HEADER
from checkout_desktop.sandbox.server import SandboxServer
from checkout_desktop.store.errors import MoneyOperationOpen
from checkout_desktop.store.sqlite.charges import ChargeRepository
from checkout_desktop.store.sqlite.db import transaction
from tests.integration import sandbox_support
from tests.integration.charging_support import (
    APPROVED,
    SandboxAccess,
    Stack,
    card_token,
    charge_request,
    charging_stack,
    visa,
)
from tests.ledger_support import SyncLedger

logger = logging.getLogger(__name__)

sandbox = sandbox_support.sandbox
"""The sandbox of the default variants (a fixture)."""


async def paid(
    stack: Stack, access: SandboxAccess, *, late: bool = False, sale: str = "sale-1"
) -> str:
    outcome = await stack.service.charge(
        sale_id=sale,
        request=charge_request(await card_token(access, APPROVED), amount=1500, late_capture=late),
        tenders=visa("1111"),
    )
    return outcome.merchant_charge_id


def money_requests(stack: Stack) -> list[str]:
    """Every refund or capture request the stack sends, recorded from now on."""
    sent: list[str] = []

    async def note(request: httpx.Request) -> None:
        if request.method == "POST" and request.url.path.endswith(("/refund", "/capture")):
            sent.append(request.url.path.rsplit("/", 1)[-1])

    stack.http.event_hooks["request"].append(note)
    return sent


async def admin_refund(sandbox: SandboxServer, mcid: str, amount: int) -> None:
    async with httpx.AsyncClient(trust_env=False, timeout=10) as http:
        reply = await http.post(
            f"{sandbox.api_url}/_sandbox/charges/{mcid}/refund",
            json={"amount": amount},
            headers={ADMIN_HEADER: sandbox.admin_token},
        )
    assert reply.status_code == 200, reply.text


@pytest.mark.asyncio
async def test_a_lost_refund_reply_is_settled_by_asking_never_by_sending_again(
    sandbox: SandboxServer, tmp_path: Path
) -> None:
    access = SandboxAccess.of_server(sandbox)
    async with charging_stack(access, tmp_path / "s.sqlite3", timeout_s=0.5) as stack:
        mcid = await paid(stack, access)
        sent = money_requests(stack)
        sandbox.faults.money_reply_delay_s = 3.0
        record = await stack.service.refund(mcid, 400)
        assert (record.status, record.refunded_amount) == (ChargeStatus.PARTIAL, 400)
        assert sent == ["refund"]
        (op,) = stack.service.store.repo.money_operations(mcid)
        assert (op.kind, op.amount, op.state) == (MoneyOpKind.REFUND, 400, MoneyOpState.CONFIRMED)
        assert op.base == Figures(ChargeStatus.PAID, 1500, 0)
        steps = [
            (e.source, e.reason_data)
            for e in stack.service.store.repo.timeline(mcid).items
            if e.source_ref == op.ref
        ]
        # Requested, sent, unknown, resolved by a query, and how: each a row on the timeline.
        assert [s for s, _ in steps] == [
            "request",
            "request",
            "reply",
            "reconciliation",
            "reconciliation",
        ]
        refund = MoneyOpKind.REFUND
        assert steps[0][1] == money_reason(refund, 400, "requested")
        assert steps[1][1] == money_reason(refund, 400, "sent")
        unknown = steps[2][1]
        assert unknown is not None and unknown.code == ReasonCode.MONEY_STEP_DETAIL
        assert unknown.args["step"] == Reason.of(ReasonCode.STEP_UNKNOWN)
        timeout = unknown.args["detail"]
        assert isinstance(timeout, Reason) and timeout.code == ReasonCode.REPLY_TIMEOUT
        assert timeout.args["seconds"] == "0.5"
        asked = steps[3][1]
        assert asked is not None and asked.code == ReasonCode.WITH_CONTEXT
        assert asked.args["context"] == Reason.of(
            ReasonCode.ASKED_SERVICE, trigger=Reason.of(ReasonCode.TRIGGER_AFTER_REPLY)
        )
        assert steps[4][1] == money_reason(
            refund, 400, "confirmed", Figures(ChargeStatus.PARTIAL, 1500, 400).reason()
        )
    assert sandbox.state.charges[mcid].refunded_amount == 400


@pytest.mark.asyncio
async def test_a_second_refund_while_the_first_is_in_flight_is_refused(
    sandbox: SandboxServer, tmp_path: Path
) -> None:
    access = SandboxAccess.of_server(sandbox)
    async with charging_stack(access, tmp_path / "s.sqlite3") as stack:
        mcid = await paid(stack, access)
        sent = money_requests(stack)
        sandbox.faults.money_reply_delay_s = 0.5
        seen: list[MoneyOperationChanged] = []
        sent_event = asyncio.Event()

        def note(event: MoneyOperationChanged) -> None:
            seen.append(event)
            if event.state == "SENT":
                sent_event.set()

        stack.events.subscribe(MoneyOperationChanged, note)
        first = asyncio.ensure_future(stack.service.refund(mcid, 1500))
        await asyncio.wait_for(sent_event.wait(), timeout=10)
        view = await stack.service.money_view(mcid)
        assert view.busy and view.refundable == 0
        with pytest.raises(MoneyOperationBusy) as busy:
            await stack.service.refund(mcid, 1500)
        assert busy.value.pending is not None and busy.value.pending.amount == 1500
        with pytest.raises(MoneyOperationBusy):
            await stack.service.capture(mcid)
        record = await first
        assert record.status == ChargeStatus.REFUNDED
        assert sent == ["refund"]
        assert [e.state for e in seen] == ["RECORDED", "SENT", "CONFIRMED"]
    assert sandbox.state.charges[mcid].refunded_amount == 1500


@pytest.mark.asyncio
async def test_a_5xx_is_settled_by_one_query_and_frees_the_charge(
    sandbox: SandboxServer, tmp_path: Path
) -> None:
    access = SandboxAccess.of_server(sandbox)
    async with charging_stack(access, tmp_path / "s.sqlite3") as stack:
        mcid = await paid(stack, access)
        sent = money_requests(stack)

        async def fail_refunds(request: httpx.Request) -> None:
            sandbox.faults.error_rate = 1.0 if request.url.path.endswith("/refund") else 0.0

        stack.http.event_hooks["request"].append(fail_refunds)
        with pytest.raises(ServerError):
            await stack.service.refund(mcid, 300)
        (op,) = stack.service.store.repo.money_operations(mcid)
        # The service answered (500): its handling ended, and its figures show no refund.
        assert op.state == MoneyOpState.NOT_APPLIED and op.answered
        stack.http.event_hooks["request"].remove(fail_refunds)
        sandbox.faults.error_rate = 0.0
        record = await stack.service.refund(mcid, 300)
        assert record.refunded_amount == 300
        assert sent == ["refund", "refund"]
    assert sandbox.state.charges[mcid].refunded_amount == 300


@pytest.mark.asyncio
async def test_already_refunded_at_the_service_shows_the_services_figures(
    sandbox: SandboxServer, tmp_path: Path
) -> None:
    access = SandboxAccess.of_server(sandbox)
    async with charging_stack(access, tmp_path / "s.sqlite3") as stack:
        mcid = await paid(stack, access)

        async def refund_elsewhere_first(request: httpx.Request) -> None:
            # The merchant panel refunds everything between the terminal's check and its send.
            if request.url.path.endswith("/refund"):
                await admin_refund(sandbox, mcid, 1500)

        stack.http.event_hooks["request"].append(refund_elsewhere_first)
        with pytest.raises(MoneyOperationRefused) as refused:
            await stack.service.refund(mcid, 1000)
        assert refused.value.figures == Figures(ChargeStatus.REFUNDED, 1500, 1500)
        assert "already fully refunded" in str(refused.value)
        (op,) = stack.service.store.repo.money_operations(mcid)
        assert op.state == MoneyOpState.REJECTED
        record = stack.service.store.repo.charge(mcid)
        assert record is not None and record.status == ChargeStatus.REFUNDED
        assert (await stack.service.money_view(mcid)).refundable == 0
    assert sandbox.state.charges[mcid].refunded_amount == 1500


@pytest.mark.asyncio
async def test_an_unseen_operation_waits_for_the_grace_period_before_it_counts_as_not_done(
    sandbox: SandboxServer, tmp_path: Path
) -> None:
    access = SandboxAccess.of_server(sandbox)
    db = tmp_path / "s.sqlite3"
    async with charging_stack(access, db) as stack:
        mcid = await paid(stack, access)
        # As a crash leaves it: recorded and marked sent, the request lost on the way.
        repo = stack.service.store.repo
        with transaction(stack.conn):
            op = repo.record_money_operation(
                mcid, MoneyOpKind.REFUND, 700, Figures(ChargeStatus.PAID, 1500, 0)
            )
            repo.move_money_operation(
                op, MoneyOpState.SENT, source="request", reason=op.reason("sent")
            )
        with transaction(stack.conn), pytest.raises(MoneyOperationOpen):
            repo.record_money_operation(
                mcid, MoneyOpKind.REFUND, 1, Figures(ChargeStatus.PAID, 1500, 0)
            )
        report = await stack.service.reconcile_unresolved()
        assert report.operations_resolved == 0 and report.still_unknown == (mcid,)
        current = repo.money_operation(op.id)
        assert current is not None and current.state == MoneyOpState.UNKNOWN
        assert repo.timeline(mcid).items[-1].reason_data == money_reason(
            MoneyOpKind.REFUND, 700, "waiting", Figures(ChargeStatus.PAID, 1500, 0).reason()
        )
        # The English text is kept beside the code, for exports and logs.
        assert repo.timeline(mcid).items[-1].reason == (
            "refund of 700 centavos not visible at the service yet; it will be asked again, "
            "never sent again (PAID, refunded 0 of 1500 centavos)"
        )
    async with charging_stack(access, db, unknown_grace_s=0.0) as stack:
        report = await stack.service.reconcile_unresolved()
        assert report.operations_resolved == 1
        current = stack.service.store.repo.money_operation(op.id)
        assert current is not None and current.state == MoneyOpState.NOT_APPLIED
        assert not (await stack.service.money_view(mcid)).busy
    assert sandbox.state.charges[mcid].refunded_amount == 0


@pytest.mark.asyncio
async def test_a_notification_showing_the_refund_confirms_the_open_operation(
    sandbox: SandboxServer, tmp_path: Path
) -> None:
    access = SandboxAccess.of_server(sandbox)
    async with charging_stack(access, tmp_path / "s.sqlite3") as stack:
        mcid = await paid(stack, access)
        repo = ChargeRepository(stack.conn)
        with transaction(stack.conn):
            op = repo.record_money_operation(
                mcid, MoneyOpKind.REFUND, 1500, Figures(ChargeStatus.PAID, 1500, 0)
            )
        with transaction(stack.conn):
            result = SyncLedger(repo).apply_update(
                ChargeUpdate(mcid, None, ChargeStatus.PAID, 1500, 500),
                source="webhook",
                source_ref="evt-1",
            )
        assert result.confirmed_operations == ()
        with transaction(stack.conn):
            result = SyncLedger(repo).apply_update(
                ChargeUpdate(mcid, None, ChargeStatus.REFUNDED, 1500, 1500),
                source="webhook",
                source_ref="evt-2",
            )
        assert result.confirmed_operations == (op.id,)
        current = repo.money_operation(op.id)
        assert current is not None and current.state == MoneyOpState.CONFIRMED


@pytest.mark.asyncio
async def test_capture_and_cancel_are_planned_from_the_services_figures(
    sandbox: SandboxServer, tmp_path: Path
) -> None:
    access = SandboxAccess.of_server(sandbox)
    async with charging_stack(access, tmp_path / "s.sqlite3") as stack:
        late = await paid(stack, access, late=True)
        with pytest.raises(MoneyOperationRefused, match="canceled in full"):
            await stack.service.refund(late, 100)
        record = await stack.service.refund(late)
        assert record.status == ChargeStatus.CANCELED
        (op,) = stack.service.store.repo.money_operations(late)
        assert (op.kind, op.amount, op.state) == (MoneyOpKind.CANCEL, 1500, MoneyOpState.CONFIRMED)
        with pytest.raises(MoneyOperationRefused, match="only a pre-authorized charge"):
            await stack.service.capture(late)
        mcid = await paid(stack, access)
        with pytest.raises(MoneyOperationRefused, match="exceeds the 1500 centavos"):
            await stack.service.refund(mcid, 1501)
        assert stack.service.store.repo.money_operations(mcid) == []


@pytest.mark.asyncio
async def test_a_refund_made_at_the_service_appears_within_one_sweep(
    sandbox: SandboxServer, tmp_path: Path
) -> None:
    access = SandboxAccess.of_server(sandbox)
    async with charging_stack(access, tmp_path / "s.sqlite3") as stack:
        ids = [await paid(stack, access, sale=f"sale-{n}") for n in range(3)]
        # Settled charges: no check is due, so only the sweep will ever ask about them.
        for mcid in ids:
            with transaction(stack.conn):
                stack.conn.execute(
                    "UPDATE charge SET next_check_at = NULL WHERE merchant_charge_id = :m",
                    {"m": mcid},
                )
        await admin_refund(sandbox, ids[1], 600)
        stack.service.reconciler.sweep_batch = 2
        stack.service.reconciler.sweep_spacing = timedelta(0)
        changes: list[ChargeChanged] = []
        stack.events.subscribe(ChargeChanged, changes.append)

        first = await stack.service.reconcile(trigger="schedule", due_only=True)
        second = await stack.service.reconcile(trigger="schedule", due_only=True)
        assert (first.swept, second.swept) == (2, 1)
        sweep = stack.service.store.repo.last_sweep()
        assert sweep is not None and sweep.finished_at is not None
        assert (sweep.checked, sweep.changed) == (3, 1)
        record = stack.service.store.repo.charge(ids[1])
        assert record is not None and record.refunded_amount == 600
        assert [c.merchant_charge_id for c in changes] == [ids[1]]
        last = stack.service.store.repo.timeline(ids[1]).items[-1]
        assert last.source == "reconciliation"
        assert last.reason_data is not None
        assert last.reason_data.code == ReasonCode.WITH_CONTEXT
        assert last.reason_data.args["context"] == Reason.of(ReasonCode.CONTEXT_SWEEP)
        assert Reason.of(ReasonCode.CHANGE_REFUNDED, previous_amount=0, amount=600) in (
            last.changes_data or ()
        )
        # Once a day: the next pass starts no new sweep.
        third = await stack.service.reconcile(trigger="schedule", due_only=True)
        assert third.swept == 0
        assert stack.service.store.repo.last_sweep() == sweep


@pytest.mark.asyncio
async def test_a_store_failing_around_a_refund_says_whether_it_was_sent(
    sandbox: SandboxServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from checkout_desktop.charges.service import MoneyOperationNotStored
    from checkout_desktop.store.errors import StoreUnavailable

    access = SandboxAccess.of_server(sandbox)
    async with charging_stack(access, tmp_path / "s.sqlite3") as stack:
        mcid = await paid(stack, access)
        sent = money_requests(stack)
        ledger = stack.service.ledger

        async def store_fails(*_args: object, **_kwargs: object) -> None:
            raise StoreUnavailable("disk I/O error")

        # Before sending (the service's figures could not be stored): nothing goes.
        with monkeypatch.context() as patch:
            patch.setattr(ledger, "apply", store_fails)
            with pytest.raises(MoneyOperationNotStored) as before:
                await stack.service.refund(mcid, 400)
        assert not before.value.sent and before.value.problem == "store"
        assert sent == []
        assert stack.service.store.repo.money_operations(mcid) == []

        # After sending (its reply could not be stored): said sent, and left open in the store
        # to be settled by asking, never sent again.
        client = stack.service.client
        send_refund = client.refund
        with monkeypatch.context() as patch:

            async def refund_then_store_fails(*args: object, **kwargs: object) -> object:
                reply = await send_refund(*args, **kwargs)  # type: ignore[arg-type]
                patch.setattr(ledger, "apply_update", store_fails)
                return reply

            patch.setattr(client, "refund", refund_then_store_fails)
            with pytest.raises(MoneyOperationNotStored) as after:
                await stack.service.refund(mcid, 400)
        assert after.value.sent
        assert sent == ["refund"]
        (op,) = stack.service.store.repo.money_operations(mcid)
        assert op.state == MoneyOpState.SENT
        with pytest.raises(MoneyOperationBusy):
            await stack.service.refund(mcid, 400)
        assert sent == ["refund"]
