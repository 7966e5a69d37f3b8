"""SIGKILL a terminal in the middle of a charge, start again: one charge, or none, never two."""

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

from checkout_desktop.domain.enums import ChargeStatus
from checkout_desktop.domain.reasons import Reason, ReasonCode
from checkout_desktop.domain.state import AttemptState
from checkout_desktop.domain.wire import ApiErrorBody
from checkout_desktop.sandbox.process import SandboxProcess, start_sandbox_process
from tests.integration.charging_support import (
    SLOW,
    SandboxAccess,
    card_token,
    charging_stack,
    new_charge_id,
)

logger = logging.getLogger(__name__)

CHILD = Path(__file__).with_name("charging_crash_child.py")


@pytest.fixture
def sandbox_process() -> Iterator[SandboxProcess]:
    # The slow card's reply comes 20 s late: the child is killed long before it arrives.
    process = start_sandbox_process(
        ["--slow-card-delay", "20"], stderr=subprocess.DEVNULL, exit_with_parent=True
    )
    try:
        yield process
    finally:
        process.stop()


async def service_has(access: SandboxAccess, mcid: str) -> int:
    """The HTTP status of querying the charge directly: 200 found; 404 when the service says it
    has no such charge, however it says it (a 404, or a 400 naming the charge not found)."""
    reply = await access.ask_charge(mcid)
    if reply.status_code in (400, 404) and (
        ApiErrorBody.model_validate(reply.json()).says_charge_not_found()
    ):
        return 404
    return reply.status_code


async def run_child_until_killed(
    access: SandboxAccess, db: Path, mcid: str, sale: str, *, pause_before_send: bool
) -> list[str]:
    """Start the child terminal, wait for the right moment, SIGKILL it; return what it said."""
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
        "sale_id": sale,
        "merchant_charge_id": mcid,
        "card_token": await card_token(access, SLOW),
        "timeout_s": 60,
        "pause_before_send": pause_before_send,
    }
    child.stdin.write((json.dumps(job) + "\n").encode())
    await child.stdin.drain()
    said: list[str] = []
    try:
        while not said or not said[-1].startswith("SENDING"):
            line = await asyncio.wait_for(child.stdout.readline(), timeout=30)
            assert line, f"the child exited early after saying {said}"
            said.append(line.decode().strip())
        if not pause_before_send:
            # Killed only once the service holds the charge: the request certainly went out.
            for _ in range(200):
                if await service_has(access, mcid) == 200:
                    break
                await asyncio.sleep(0.05)
            else:
                pytest.fail("the sandbox never received the charge")
    finally:
        if child.returncode is None:
            child.send_signal(signal.SIGKILL)
        await child.wait()
    assert child.returncode == -signal.SIGKILL
    return said


@pytest.mark.asyncio
async def test_killed_after_sending_ends_as_exactly_one_charge(
    sandbox_process: SandboxProcess, tmp_path: Path
) -> None:
    access = SandboxAccess.of_info(sandbox_process.info.raw)
    db = tmp_path / "store.sqlite3"
    mcid = new_charge_id()
    said = await run_child_until_killed(access, db, mcid, "sale-crash", pause_before_send=False)
    assert said == [f"RECORDED {mcid}", f"SENDING {mcid}"]

    requests: list[tuple[str, str]] = []
    async with charging_stack(access, db) as stack:

        async def note(request: httpx.Request) -> None:
            requests.append((request.method, request.url.path))

        stack.http.event_hooks["request"].append(note)
        attempt = stack.service.store.repo.attempt(mcid)
        assert attempt is not None and attempt.state == AttemptState.RECORDED
        assert not await stack.service.can_start_charge("sale-crash")

        report = await stack.service.reconcile_unresolved()

        assert (report.attempts_checked, report.attempts_resolved) == (1, 1)
        attempt = stack.service.store.repo.attempt(mcid)
        assert attempt is not None and attempt.state == AttemptState.CREATED
        charges = stack.service.store.repo.charges_for_sale("sale-crash")
        assert [(c.merchant_charge_id, c.status, c.amount) for c in charges] == [
            (mcid, ChargeStatus.PAID, 2500)
        ]
        assert len(stack.service.store.repo.attempts_for_sale("sale-crash")) == 1
        # It was found by asking; nothing was sent again.
        assert ("POST", "/api/v1/charge/authorization") not in requests
        assert ("GET", f"/api/v1/charge/{mcid}") in requests
        reasons = [e.reason_data for e in stack.service.store.repo.timeline(mcid).items]
        asked = Reason.of(ReasonCode.ASKED_SERVICE, trigger=Reason.of(ReasonCode.TRIGGER_START_UP))
        assert any(
            r is not None and r.code == ReasonCode.WITH_CONTEXT and r.args["context"] == asked
            for r in reasons
        )
        again = await stack.service.can_start_charge("sale-crash")
        assert not again and again.reason is not None
        assert again.reason.code == ReasonCode.START_MONEY_HELD
    assert await service_has(access, mcid) == 200


@pytest.mark.asyncio
async def test_killed_before_sending_ends_as_no_charge_once_it_cannot_appear(
    sandbox_process: SandboxProcess, tmp_path: Path
) -> None:
    access = SandboxAccess.of_info(sandbox_process.info.raw)
    db = tmp_path / "store.sqlite3"
    mcid = new_charge_id()
    said = await run_child_until_killed(access, db, mcid, "sale-early", pause_before_send=True)
    assert said == [f"RECORDED {mcid}", f"SENDING {mcid}"]

    # Within the grace period "not found" proves nothing: the sale stays blocked.
    async with charging_stack(access, db) as stack:
        report = await stack.service.reconcile_unresolved()
        assert report.still_unknown == (mcid,)
        attempt = stack.service.store.repo.attempt(mcid)
        assert attempt is not None and attempt.state == AttemptState.UNKNOWN
        assert "no such charge yet" in stack.service.store.repo.timeline(mcid).items[-1].reason
        assert not await stack.service.can_start_charge("sale-early")

    # Past it, the charge can no longer appear: settled as not charged, the sale is free.
    async with charging_stack(access, db, unknown_grace_s=0.0) as stack:
        report = await stack.service.reconcile_unresolved()
        assert report.attempts_resolved == 1
        attempt = stack.service.store.repo.attempt(mcid)
        assert attempt is not None and attempt.state == AttemptState.NOT_FOUND
        assert "nothing was charged" in stack.service.store.repo.timeline(mcid).items[-1].reason
        assert await stack.service.can_start_charge("sale-early")
        assert stack.service.store.repo.charges_for_sale("sale-early") == []
    assert await service_has(access, mcid) == 404
