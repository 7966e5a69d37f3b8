"""The supervisor PIN is the charge service's rule, not only a dialog's: refunds and captures of
earlier days' charges are refused without it, before anything is recorded or sent."""

from __future__ import annotations

import logging
from datetime import timedelta
from pathlib import Path

import httpx
import pytest

from checkout_desktop.charges.authority import Authority, Guarded, PinRefused, hash_pin
from checkout_desktop.domain.enums import ChargeStatus
from checkout_desktop.domain.reasons import ReasonCode
from checkout_desktop.domain.timestamps import utc_now
from checkout_desktop.sandbox.server import SandboxServer
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

logger = logging.getLogger(__name__)

sandbox = sandbox_support.sandbox
"""The sandbox of the default variants (a fixture)."""

PIN = "2468"


def money_requests(stack: Stack) -> list[str]:
    sent: list[str] = []

    async def note(request: httpx.Request) -> None:
        if request.url.path.endswith(("/refund", "/capture")):
            sent.append(request.url.path.rsplit("/", 1)[-1])

    stack.http.event_hooks["request"].append(note)
    return sent


async def sale(stack: Stack, access: SandboxAccess, *, late: bool = False) -> str:
    outcome = await stack.service.charge(
        sale_id=f"sale-{late}",
        request=charge_request(await card_token(access, APPROVED), amount=1500, late_capture=late),
        tenders=visa("1111"),
    )
    return outcome.merchant_charge_id


@pytest.mark.asyncio
async def test_a_refund_needs_the_pin_once_one_is_set(
    sandbox: SandboxServer, tmp_path: Path
) -> None:
    access = SandboxAccess.of_server(sandbox)
    async with charging_stack(access, tmp_path / "s.sqlite3") as stack:
        stack.service.authority = Authority(hash_pin(PIN))
        mcid = await sale(stack, access)
        sent = money_requests(stack)
        for pin, code in ((None, ReasonCode.PIN_REFUND_REQUIRED), ("1357", ReasonCode.PIN_WRONG)):
            with pytest.raises(PinRefused) as refused:
                await stack.service.refund(mcid, 500, pin=pin)
            assert refused.value.reason.code == code
        assert sent == []
        assert stack.service.store.repo.money_operations(mcid) == []
        record = await stack.service.refund(mcid, 500, pin=PIN)
        assert record.refunded_amount == 500
        assert sent == ["refund"]
        # Without a PIN set, nothing is guarded.
        stack.service.authority.set_pin_hash(None)
        record = await stack.service.refund(mcid, 500)
        assert record.refunded_amount == 1000


@pytest.mark.asyncio
async def test_a_capture_of_an_earlier_days_charge_needs_the_pin(
    sandbox: SandboxServer, tmp_path: Path
) -> None:
    access = SandboxAccess.of_server(sandbox)
    async with charging_stack(access, tmp_path / "s.sqlite3") as stack:
        pin_hash = hash_pin(PIN)
        stack.service.authority = Authority(pin_hash)
        today = await sale(stack, access, late=True)
        record = stack.service.store.repo.charge(today)
        assert record is not None and record.status == ChargeStatus.PRE_AUTHORIZED
        assert not stack.service.authority.needs_pin(Guarded.CAPTURE, record)
        # The same charge seen tomorrow: its capture is a supervisor's decision.
        stack.service.authority = Authority(pin_hash, clock=lambda: utc_now() + timedelta(days=1))
        assert stack.service.authority.needs_pin(Guarded.CAPTURE, record)
        sent = money_requests(stack)
        with pytest.raises(PinRefused) as refused:
            await stack.service.capture(today)
        assert refused.value.reason.code == ReasonCode.PIN_CAPTURE_REQUIRED
        assert sent == [] and stack.service.store.repo.money_operations(today) == []
        captured = await stack.service.capture(today, pin=PIN)
        assert captured.status == ChargeStatus.PAID and sent == ["capture"]
