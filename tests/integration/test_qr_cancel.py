"""Cancelling a QR only ever cancels an unpaid one, and needs no supervisor PIN.

The service's cancel of a QR is its refund endpoint for the whole amount, so a cancel sent for
a QR the customer has just paid would give the payment back. The terminal reads the service's
figures just before sending: a QR they show paid (or ended) is not cancelled, and nothing is
recorded or sent. Under every QR variant of the sandbox, over loopback.
"""

from __future__ import annotations

import logging
from pathlib import Path

import httpx
import pytest

from checkout_desktop.charges.authority import Authority, PinRefused, hash_pin
from checkout_desktop.charges.service import MoneyOperationRefused
from checkout_desktop.domain.enums import ChargeStatus
from checkout_desktop.domain.money_ops import MoneyOpKind, MoneyOpState
from checkout_desktop.domain.qr import QrPhase, qr_phase
from checkout_desktop.domain.reasons import ReasonCode
from checkout_desktop.domain.records import PIX, WALLET
from checkout_desktop.sandbox.server import SandboxServer
from tests.integration import sandbox_support
from tests.integration.charging_support import SandboxAccess, Stack, charging_stack
from tests.integration.qr_support import expire, pay, qr_request, qr_tenders

logger = logging.getLogger(__name__)

sandbox = sandbox_support.sandbox
"""The sandbox of the default variants (a fixture)."""

PIN = "4321"


def refund_requests(stack: Stack) -> list[str]:
    """The paths of the refund requests sent from now on (answered or not)."""
    sent: list[str] = []

    async def note(request: httpx.Request) -> None:
        if request.method == "POST" and request.url.path.endswith("/refund"):
            sent.append(request.url.path)

    stack.http.event_hooks["request"].append(note)
    return sent


async def waiting_qr(stack: Stack, kind: str, sale: str = "sale-q") -> str:
    outcome = await stack.service.charge(
        sale_id=sale, request=qr_request(kind), tenders=qr_tenders(kind)
    )
    assert outcome.awaiting_payment
    return outcome.merchant_charge_id


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("kind", "wallet_paid"), [(WALLET, "AUTHORIZED"), (WALLET, "PAID"), (PIX, "AUTHORIZED")]
)
@pytest.mark.parametrize("unpaid", ["PENDING", "PRE_AUTHORIZED"])
@pytest.mark.parametrize("qr_cancel", ["refund", "refused"])
@pytest.mark.parametrize("pin_set", [False, True])
async def test_a_qr_paid_just_before_its_cancel_is_not_cancelled_and_nothing_is_sent(
    sandbox: SandboxServer,
    tmp_path: Path,
    kind: str,
    wallet_paid: str,
    unpaid: str,
    qr_cancel: str,
    pin_set: bool,
) -> None:
    sandbox.variants.update(
        {"wallet-paid": wallet_paid, "qr-unpaid": unpaid, "qr-cancel": qr_cancel}
    )
    access = SandboxAccess.of_server(sandbox)
    async with charging_stack(access, tmp_path / "store.sqlite3") as stack:
        service = stack.service
        sent = refund_requests(stack)
        if pin_set:
            service.authority = Authority(hash_pin(PIN))
        mcid = await waiting_qr(stack, kind)
        # The customer pays; the terminal has not heard of it yet (no notification, no query).
        assert (await pay(access.api_url, sandbox.admin_token, mcid)).is_success
        stored = service.store.repo.charge(mcid)
        assert stored is not None and qr_phase(stored.state) == QrPhase.AWAITING
        with pytest.raises(MoneyOperationRefused) as refused:
            await service.cancel_qr(mcid)
        # Said as what it is: the customer paid; nothing was cancelled (no PIN asked first:
        # nothing would have been sent anyway).
        assert refused.value.why.code == ReasonCode.QR_CANCEL_PAID
        assert refused.value.kind == MoneyOpKind.CANCEL
        figures = refused.value.figures
        assert figures is not None and figures.status == ChargeStatus.PAID
        assert not figures.awaiting and figures.refunded == 0
        # Nothing recorded, nothing sent; the service still holds the payment.
        assert service.store.repo.money_operations(mcid) == []
        assert sent == []
        held = sandbox.state.qr_charges[mcid]
        assert held.paid_at is not None and held.refunded_amount == 0
        # The store took the figures it was judged by: the QR shows paid at once.
        stored = service.store.repo.charge(mcid)
        assert stored is not None and qr_phase(stored.state) == QrPhase.PAID
        assert not (await service.can_start_charge("sale-q")).allowed
        # Giving the money back is a refund, with its own PIN.
        if pin_set:
            with pytest.raises(PinRefused):
                await service.refund(mcid)
        refunded = await service.refund(mcid, pin=PIN if pin_set else None)
        assert qr_phase(refunded.state) == QrPhase.REFUNDED
        assert [op.kind for op in service.store.repo.money_operations(mcid)] == [MoneyOpKind.REFUND]


@pytest.mark.asyncio
@pytest.mark.parametrize("kind", [WALLET, PIX])
@pytest.mark.parametrize("expired", ["expired-canceled", "expired-stays", "canceled"])
async def test_an_ended_qr_is_not_cancelled_and_nothing_is_sent(
    sandbox: SandboxServer, tmp_path: Path, kind: str, expired: str
) -> None:
    sandbox.variants.update({"qr-expired": expired})
    access = SandboxAccess.of_server(sandbox)
    async with charging_stack(access, tmp_path / "store.sqlite3") as stack:
        sent = refund_requests(stack)
        mcid = await waiting_qr(stack, kind)
        assert (await expire(access.api_url, sandbox.admin_token, mcid)).is_success
        with pytest.raises(MoneyOperationRefused) as refused:
            await stack.service.cancel_qr(mcid)
        assert refused.value.why.code == ReasonCode.QR_CANCEL_NOT_AWAITING
        assert stack.service.store.repo.money_operations(mcid) == []
        assert sent == []


@pytest.mark.asyncio
@pytest.mark.parametrize("kind", [WALLET, PIX])
@pytest.mark.parametrize("unpaid", ["PENDING", "PRE_AUTHORIZED"])
async def test_an_unpaid_qr_is_cancelled_without_the_supervisor_pin(
    sandbox: SandboxServer, tmp_path: Path, kind: str, unpaid: str
) -> None:
    sandbox.variants.update({"qr-unpaid": unpaid})
    access = SandboxAccess.of_server(sandbox)
    async with charging_stack(access, tmp_path / "store.sqlite3") as stack:
        service = stack.service
        service.authority = Authority(hash_pin(PIN))
        sent = refund_requests(stack)
        mcid = await waiting_qr(stack, kind)
        # Moving no money, the cancel needs no PIN.
        cancelled = await service.cancel_qr(mcid)
        assert qr_phase(cancelled.state) == QrPhase.CANCELED
        (op,) = service.store.repo.money_operations(mcid)
        assert (op.kind, op.amount, op.state) == (
            MoneyOpKind.CANCEL,
            2590,
            MoneyOpState.CONFIRMED,
        )
        assert sent == [f"/api/v1/charge/{mcid}/refund"]
        assert (await service.can_start_charge("sale-q")).allowed


@pytest.mark.asyncio
async def test_a_cancel_the_service_refuses_is_said_without_asking_for_the_pin(
    sandbox: SandboxServer, tmp_path: Path
) -> None:
    sandbox.variants.update({"qr-cancel": "refused"})
    access = SandboxAccess.of_server(sandbox)
    async with charging_stack(access, tmp_path / "store.sqlite3") as stack:
        service = stack.service
        service.authority = Authority(hash_pin(PIN))
        mcid = await waiting_qr(stack, PIX)
        with pytest.raises(MoneyOperationRefused) as refused:
            await service.cancel_qr(mcid)
        assert refused.value.why.code == ReasonCode.QR_CANCEL_REFUSED
        assert refused.value.figures is not None and refused.value.figures.awaiting
        (op,) = service.store.repo.money_operations(mcid)
        assert (op.kind, op.state) == (MoneyOpKind.CANCEL, MoneyOpState.REJECTED)


@pytest.mark.asyncio
async def test_a_lost_cancel_reply_is_settled_by_asking_never_by_sending_again(
    sandbox: SandboxServer, tmp_path: Path
) -> None:
    access = SandboxAccess.of_server(sandbox)
    async with charging_stack(access, tmp_path / "store.sqlite3", timeout_s=0.5) as stack:
        service = stack.service
        sent = refund_requests(stack)
        mcid = await waiting_qr(stack, PIX)
        sandbox.faults.money_reply_delay_s = 3.0
        cancelled = await service.cancel_qr(mcid)
        assert qr_phase(cancelled.state) == QrPhase.CANCELED
        (op,) = service.store.repo.money_operations(mcid)
        assert (op.kind, op.state) == (MoneyOpKind.CANCEL, MoneyOpState.CONFIRMED)
        steps = [
            e.source for e in service.store.repo.timeline(mcid).items if e.source_ref == op.ref
        ]
        # Recorded before sending, sent once, its outcome unknown, then settled by a query.
        assert steps[:3] == ["request", "request", "reply"] and "reconciliation" in steps[3:]
        assert sent == [f"/api/v1/charge/{mcid}/refund"]
