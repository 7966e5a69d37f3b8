"""SIGKILL a terminal after it sent a refund or capture and before it read the reply.

The service's notification is lost too (the sandbox has no notification URL here). After the
restart the store must equal the service's record, found by asking, without any refund or
capture sent again; and a second refund attempted before that is refused.
"""

from __future__ import annotations

import asyncio
import json
import logging
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from checkout_desktop.charges.service import MoneyOperationBusy
from checkout_desktop.domain.enums import ChargeStatus
from checkout_desktop.domain.money_ops import (
    MoneyOpKind,
    MoneyOpState,
    money_operation,
    money_reason,
)
from checkout_desktop.domain.reasons import Reason, ReasonCode
from checkout_desktop.domain.state import merge_charge_update
from checkout_desktop.sandbox.process import SandboxProcess, start_sandbox_process
from tests.integration.charging_support import (
    APPROVED,
    SandboxAccess,
    Stack,
    card_token,
    charge_request,
    charging_stack,
    visa,
)

logger = logging.getLogger(__name__)

CHILD = Path(__file__).with_name("money_crash_child.py")


@pytest.fixture
def sandbox_process() -> Iterator[SandboxProcess]:
    # Refund and capture replies come 30 s after the money moved: the child is killed first.
    process = start_sandbox_process(
        ["--fault", "money-reply-delay=30"], stderr=subprocess.DEVNULL, exit_with_parent=True
    )
    try:
        yield process
    finally:
        process.stop()


async def service_charge(access: SandboxAccess, mcid: str) -> dict[str, object]:
    """The charge as the service holds it, asked directly (not through the terminal)."""
    reply = await access.ask_charge(mcid)
    assert reply.status_code == 200, reply.text
    body = reply.json()
    assert isinstance(body, dict)
    return body


async def store_equals_service(stack: Stack, mcid: str) -> None:
    reply = await stack.client.query(mcid)
    service = merge_charge_update(None, reply.update(source="reconciliation")).state
    record = stack.service.store.repo.charge(mcid)
    assert record is not None
    assert record.state.summary() == service.summary()


async def kill_while_waiting(
    access: SandboxAccess, db: Path, mcid: str, kind: str, amount: int | None, moved: str
) -> list[str]:
    """Run the child until its request is out and the service moved the money; SIGKILL it."""
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        str(CHILD),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
    )
    assert child.stdin is not None and child.stdout is not None
    job = {
        "api_url": access.api_url,
        "client_id": access.client_id,
        "client_secret": access.client_secret,
        "db": str(db),
        "merchant_charge_id": mcid,
        "kind": kind,
        "amount": amount,
        "timeout_s": 60,
    }
    child.stdin.write((json.dumps(job) + "\n").encode())
    await child.stdin.drain()
    said: list[str] = []
    try:
        while not said or not said[-1].startswith("SENDING"):
            line = await asyncio.wait_for(child.stdout.readline(), timeout=30)
            assert line, f"the child exited early after saying {said}"
            said.append(line.decode().strip())
        # Killed only once the service did it: the reply is what gets lost.
        for _ in range(200):
            if (await service_charge(access, mcid))["chargeStatus"] == moved:
                break
            await asyncio.sleep(0.05)
        else:
            pytest.fail(f"the sandbox never moved the charge to {moved}")
    finally:
        if child.returncode is None:
            child.send_signal(signal.SIGKILL)
        await child.wait()
    assert child.returncode == -signal.SIGKILL
    return said


CASES = [
    # kind, amount asked, late capture, status at the service after it, refunded after it
    pytest.param("refund", None, False, "REFUNDED", 2500, id="full-refund"),
    pytest.param("refund", 900, False, "PARTIAL", 900, id="partial-refund"),
    pytest.param("capture", None, True, "PAID", 0, id="capture"),
]


@pytest.mark.asyncio
@pytest.mark.parametrize(("kind", "amount", "late", "moved", "refunded"), CASES)
async def test_killed_between_sending_and_the_reply_ends_equal_to_the_service(
    sandbox_process: SandboxProcess,
    tmp_path: Path,
    kind: str,
    amount: int | None,
    late: bool,
    moved: str,
    refunded: int,
) -> None:
    access = SandboxAccess.of_info(sandbox_process.info.raw)
    db = tmp_path / "store.sqlite3"
    async with charging_stack(access, db) as stack:
        outcome = await stack.service.charge(
            sale_id="sale-1",
            request=charge_request(
                await card_token(access, APPROVED), amount=2500, late_capture=late
            ),
            tenders=visa("1111"),
        )
        mcid = outcome.merchant_charge_id
    said = await kill_while_waiting(access, db, mcid, kind, amount, moved)
    assert said[-1].startswith("SENDING ") and said[-1].endswith(f"/{kind}")

    requests: list[tuple[str, str]] = []
    async with charging_stack(access, db) as stack:

        async def note(request: httpx.Request) -> None:
            requests.append((request.method, request.url.path))

        stack.http.event_hooks["request"].append(note)
        # The store still shows the charge as before; the operation is open.
        (op,) = stack.service.store.repo.money_operations(mcid)
        assert op.state in (MoneyOpState.RECORDED, MoneyOpState.SENT)
        assert op.kind == MoneyOpKind(kind)
        before = stack.service.store.repo.charge(mcid)
        assert before is not None and before.refunded_amount in (None, 0)
        # A second refund meanwhile is refused, before anything is sent.
        view = await stack.service.money_view(mcid)
        assert view.busy
        with pytest.raises(MoneyOperationBusy, match="still being confirmed"):
            await stack.service.refund(mcid, 100)
        assert requests == []

        report = await stack.service.reconcile_unresolved()

        assert (report.operations_checked, report.operations_resolved) == (1, 1)
        (op,) = stack.service.store.repo.money_operations(mcid)
        assert op.state == MoneyOpState.CONFIRMED
        record = stack.service.store.repo.charge(mcid)
        assert record is not None
        assert (record.status, record.refunded_amount or 0) == (ChargeStatus(moved), refunded)
        # Found by asking; nothing was sent again.
        assert [r for r in requests if r[1].startswith("/api/") and r[0] == "POST"] == []
        assert ("GET", f"/api/v1/charge/{mcid}") in requests
        reasons = [e.reason_data for e in stack.service.store.repo.timeline(mcid).items]
        confirmed = Reason.of(ReasonCode.STEP_CONFIRMED)
        assert any(
            r is not None
            and r.args.get("operation") == money_operation(op.kind, op.amount)
            and r.args.get("step") == confirmed
            for r in reasons
        )
        assert money_reason(op.kind, op.amount, "sent") in reasons
        await store_equals_service(stack, mcid)
        # Settled: the clerk may act again, on the service's figures.
        assert not (await stack.service.money_view(mcid)).busy
    service = await service_charge(access, mcid)
    assert (service["chargeStatus"], service["refundedAmount"]) == (moved, refunded)
