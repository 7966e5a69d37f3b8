"""SIGKILL a terminal after its QR request was sent and before the reply: at the next start the
sale shows the QR's real state, and no second QR charge exists for that sale."""

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

from checkout_desktop.domain.qr import QrPhase, qr_phase, qr_transaction
from checkout_desktop.domain.reasons import ReasonCode
from checkout_desktop.domain.records import PIX, WALLET
from checkout_desktop.domain.state import AttemptState
from checkout_desktop.sandbox.api import ADMIN_HEADER
from checkout_desktop.sandbox.process import SandboxProcess, start_sandbox_process
from tests.integration.charging_support import SandboxAccess, charging_stack, new_charge_id
from tests.integration.qr_support import pay

logger = logging.getLogger(__name__)

CHILD = Path(__file__).with_name("qr_crash_child.py")


@pytest.fixture
def sandbox_process() -> Iterator[SandboxProcess]:
    # The QR's reply comes 20 s after the QR is made: the child is killed long before.
    process = start_sandbox_process(
        ["--fault", "qr-reply-delay=20"], stderr=subprocess.DEVNULL, exit_with_parent=True
    )
    try:
        yield process
    finally:
        process.stop()


async def qr_charges_at_service(access: SandboxAccess, admin_token: str) -> list[dict[str, object]]:
    async with httpx.AsyncClient(trust_env=False, timeout=10) as http:
        reply = await http.get(f"{access.api_url}/_sandbox/qr", headers={ADMIN_HEADER: admin_token})
    assert reply.status_code == 200
    charges: list[dict[str, object]] = reply.json()["charges"]
    return charges


async def kill_after_sending(
    access: SandboxAccess, admin_token: str, db: Path, mcid: str, sale: str, kind: str
) -> list[str]:
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
        "kind": kind,
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
        # Killed only once the service holds the QR: the request certainly went out.
        for _ in range(200):
            held = await qr_charges_at_service(access, admin_token)
            if any(c["merchantChargeId"] == mcid for c in held):
                break
            await asyncio.sleep(0.05)
        else:
            pytest.fail("the sandbox never received the QR request")
    finally:
        if child.returncode is None:
            child.send_signal(signal.SIGKILL)
        await child.wait()
    assert child.returncode == -signal.SIGKILL
    return said


@pytest.mark.asyncio
@pytest.mark.parametrize("kind", [WALLET, PIX])
async def test_killed_while_waiting_for_the_qr_reply_shows_the_qr_and_never_makes_a_second(
    sandbox_process: SandboxProcess, tmp_path: Path, kind: str
) -> None:
    info = sandbox_process.info
    access = SandboxAccess.of_info(info.raw)
    db = tmp_path / "store.sqlite3"
    mcid = new_charge_id()
    sale = f"sale-crash-{kind}"
    said = await kill_after_sending(access, info.admin_token, db, mcid, sale, kind)
    assert said == [f"RECORDED {mcid}", f"SENDING {mcid}"]

    requests: list[tuple[str, str]] = []
    async with charging_stack(access, db) as stack:

        async def note(request: httpx.Request) -> None:
            requests.append((request.method, request.url.path))

        stack.http.event_hooks["request"].append(note)
        service = stack.service
        attempt = service.store.repo.attempt(mcid)
        assert attempt is not None and attempt.state == AttemptState.RECORDED
        assert not await service.can_start_charge(sale)

        report = await service.reconcile_unresolved()
        assert (report.attempts_checked, report.attempts_resolved) == (1, 1)
        attempt = service.store.repo.attempt(mcid)
        assert attempt is not None and attempt.state == AttemptState.CREATED
        charges = service.store.repo.charges_for_sale(sale)
        assert [c.merchant_charge_id for c in charges] == [mcid]
        # Its real state: a QR awaiting payment, with its code and image, holding the sale.
        state = charges[0].state
        assert qr_phase(state) == QrPhase.AWAITING
        txn = qr_transaction(state)
        assert txn is not None and txn.qr_code and txn.qr_image and txn.expires_at
        check = await service.can_start_charge(sale)
        assert not check and check.reason is not None
        assert check.reason.code == ReasonCode.START_QR_WAITING
        assert ("POST", f"/api/v1/charge/{kind}") not in requests
        assert ("GET", f"/api/v1/charge/{mcid}") in requests

        # The customer pays the QR shown before the crash: the terminal learns it by asking.
        assert (await pay(access.api_url, info.admin_token, mcid)).is_success
        paid = await service.refresh(mcid)
        assert qr_phase(paid.state) == QrPhase.PAID
    held = await qr_charges_at_service(access, info.admin_token)
    assert [c["merchantChargeId"] for c in held] == [mcid]
