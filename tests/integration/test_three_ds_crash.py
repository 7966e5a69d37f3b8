"""SIGKILL a terminal at each step of a 3DS charge, start again: one charge or none, as the
service says, and the sale either settled or free."""

from __future__ import annotations

import asyncio
import json
import logging
import signal
import sys
from pathlib import Path

import httpx
import pytest

from checkout_desktop.domain.enums import ChargeStatus
from checkout_desktop.domain.reasons import ReasonCode
from checkout_desktop.domain.state import AttemptState
from checkout_desktop.domain.three_ds import ThreeDsStep
from checkout_desktop.sandbox.server import SandboxServer
from tests.integration import sandbox_support
from tests.integration.charging_support import (
    THREE_DS_CHALLENGE,
    THREE_DS_FRICTIONLESS,
    SandboxAccess,
    card_token,
    charging_stack,
    new_charge_id,
)
from tests.integration.test_charging_three_ds import not_charged_row

logger = logging.getLogger(__name__)

sandbox = sandbox_support.sandbox
"""The sandbox of the default variants (a fixture)."""

CHILD = Path(__file__).with_name("three_ds_crash_child.py")


async def kill_at(
    sandbox: SandboxServer, db: Path, mcid: str, number: str, stop_at: str
) -> list[str]:
    """Run the child terminal to `stop_at`, SIGKILL it; return what it said."""
    access = SandboxAccess.of_server(sandbox)
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        str(CHILD),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
    )
    assert child.stdin is not None
    assert child.stdout is not None
    job = {
        "api_url": access.api_url,
        "client_id": access.client_id,
        "client_secret": access.client_secret,
        "db": str(db),
        "sale_id": "sale-3ds",
        "merchant_charge_id": mcid,
        "card_token": await card_token(access, number),
        "stop_at": stop_at,
    }
    child.stdin.write((json.dumps(job) + "\n").encode())
    await child.stdin.drain()
    said: list[str] = []
    try:
        while not said or not said[-1].startswith("AT "):
            line = await asyncio.wait_for(child.stdout.readline(), timeout=60)
            assert line, f"the child exited early after saying {said}"
            said.append(line.decode().strip())
        if stop_at == "sent":
            # Killed only once the service holds the charge: the request certainly went out.
            for _ in range(400):
                if mcid in sandbox.state.charges:
                    break
                await asyncio.sleep(0.05)
            else:
                pytest.fail("the sandbox never received the 3DS authorization")
    finally:
        if child.returncode is None:
            child.send_signal(signal.SIGKILL)
        await child.wait()
    assert child.returncode == -signal.SIGKILL
    return said


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("number", "stop_at", "left_at"),
    [
        (THREE_DS_FRICTIONLESS, "enrollment", ThreeDsStep.ENROLLMENT),
        (THREE_DS_FRICTIONLESS, "enrolled", ThreeDsStep.ENROLLMENT),
        (THREE_DS_CHALLENGE, "challenge", ThreeDsStep.CHALLENGE),
    ],
)
async def test_killed_before_the_money_step_ends_the_sale_cleanly(
    sandbox: SandboxServer, tmp_path: Path, number: str, stop_at: str, left_at: ThreeDsStep
) -> None:
    db = tmp_path / "store.sqlite3"
    mcid = new_charge_id()
    said = await kill_at(sandbox, db, mcid, number, stop_at)
    assert said == [f"RECORDED {mcid}", f"AT {stop_at}"]
    if stop_at == "challenge":
        # The customer answers the bank after the terminal died: still nobody charges it.
        (charge_id,) = sandbox.state.three_ds
        from checkout_desktop.sandbox.three_ds import decide

        decide(sandbox, sandbox.state.three_ds[charge_id], approve=True)

    requests: list[tuple[str, str]] = []
    async with charging_stack(SandboxAccess.of_server(sandbox), db) as stack:

        async def note(request: httpx.Request) -> None:
            requests.append((request.method, request.url.path))

        stack.http.event_hooks["request"].append(note)
        flow = stack.service.store.repo.three_ds_flow(mcid)
        assert flow is not None and flow.step == left_at
        assert not await stack.service.can_start_charge("sale-3ds")

        await stack.service.reconcile_unresolved()

        flow = stack.service.store.repo.three_ds_flow(mcid)
        assert flow is not None and flow.step == ThreeDsStep.ENDED
        attempt = stack.service.store.repo.attempt(mcid)
        assert attempt is not None and attempt.state == AttemptState.REJECTED
        reasons = [e.reason_data for e in stack.service.store.repo.timeline(mcid).items]
        assert any(r is not None and r.code == ReasonCode.TDS_INTERRUPTED for r in reasons)
        assert await stack.service.can_start_charge("sale-3ds")
        # The setup had opened a charge at the service: the history keeps the sale, not charged.
        not_charged_row(stack, mcid)
        # Nothing was sent on restart: no 3DS call, no charge.
        assert not [r for r in requests if "/3ds/" in r[1] or r[1].endswith("/authorization")]
    # The terminal says "not charged", and so does the service.
    assert sandbox.state.charges == {}


@pytest.mark.asyncio
async def test_killed_after_the_3ds_authorization_was_sent_finds_the_one_charge(
    sandbox: SandboxServer, tmp_path: Path
) -> None:
    sandbox.faults.update(money_reply_delay_s=30.0)
    db = tmp_path / "store.sqlite3"
    mcid = new_charge_id()
    said = await kill_at(sandbox, db, mcid, THREE_DS_FRICTIONLESS, "sent")
    assert said == [f"RECORDED {mcid}", "AT sent"]
    sandbox.faults.update(money_reply_delay_s=0.0)

    requests: list[tuple[str, str]] = []
    async with charging_stack(SandboxAccess.of_server(sandbox), db) as stack:

        async def note(request: httpx.Request) -> None:
            requests.append((request.method, request.url.path))

        stack.http.event_hooks["request"].append(note)
        flow = stack.service.store.repo.three_ds_flow(mcid)
        assert flow is not None and flow.step == ThreeDsStep.AUTHORIZATION
        assert not await stack.service.can_start_charge("sale-3ds")

        report = await stack.service.reconcile_unresolved()

        assert report.attempts_resolved == 1
        attempt = stack.service.store.repo.attempt(mcid)
        assert attempt is not None and attempt.state == AttemptState.CREATED
        charges = stack.service.store.repo.charges_for_sale("sale-3ds")
        assert [(c.merchant_charge_id, c.status) for c in charges] == [(mcid, ChargeStatus.PAID)]
        flow = stack.service.store.repo.three_ds_flow(mcid)
        assert flow is not None and flow.step == ThreeDsStep.DONE
        # Settled by asking; the 3DS authorization was never sent again.
        assert ("POST", "/api/v1/charge/3ds/authorization") not in requests
        assert ("GET", f"/api/v1/charge/{mcid}") in requests
        blocked = await stack.service.can_start_charge("sale-3ds")
        assert not blocked
    assert list(sandbox.state.charges) == [mcid]
    assert sandbox.state.charges[mcid].status == ChargeStatus.PAID
