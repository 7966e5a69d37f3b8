"""Wallet and PIX charges against the sandbox over loopback, under every QR variant.

Awaiting payment is neither approved nor money held beyond its expiry; paid comes from the
transaction; expired or cancelled frees the sale; a lost reply is settled by a query and never
by a second QR; refunds go back in full or in part.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from checkout_desktop.charges.service import MoneyOperationRefused
from checkout_desktop.domain.enums import ChargeStatus, TransactionStatus
from checkout_desktop.domain.money_ops import MoneyOpKind
from checkout_desktop.domain.qr import (
    QrPhase,
    effective_status,
    expires_at,
    qr_phase,
    qr_transaction,
)
from checkout_desktop.domain.reasons import ReasonCode
from checkout_desktop.domain.records import PIX, WALLET
from checkout_desktop.domain.state import AttemptState
from checkout_desktop.sandbox.qr import check_br_code
from checkout_desktop.sandbox.server import SandboxConfig, SandboxServer
from tests.integration import sandbox_support
from tests.integration.charging_support import SandboxAccess, charging_stack
from tests.integration.qr_support import (
    PNG_MAGIC,
    expire,
    pay,
    png_of,
    qr_request,
    qr_tenders,
)

logger = logging.getLogger(__name__)

sandbox = sandbox_support.sandbox
"""The sandbox of the default variants (a fixture)."""


@pytest.mark.asyncio
@pytest.mark.parametrize("unpaid", ["PENDING", "PRE_AUTHORIZED"])
@pytest.mark.parametrize("wallet_paid", ["AUTHORIZED", "PAID"])
@pytest.mark.parametrize("image", ["as-sources", "raw", "data-uri"])
async def test_a_wallet_qr_waits_is_paid_and_refunded_in_part_then_in_full(
    sandbox: SandboxServer, tmp_path: Path, unpaid: str, wallet_paid: str, image: str
) -> None:
    sandbox.variants.update({"qr-unpaid": unpaid, "wallet-paid": wallet_paid, "qr-image": image})
    access = SandboxAccess.of_server(sandbox)
    async with charging_stack(access, tmp_path / "store.sqlite3") as stack:
        service = stack.service
        outcome = await service.charge(
            sale_id="sale-w", request=qr_request(WALLET), tenders=qr_tenders(WALLET)
        )
        mcid = outcome.merchant_charge_id
        # Created, awaiting the customer: not approved, and the sale is held by the live QR.
        assert outcome.attempt == AttemptState.CREATED
        assert outcome.awaiting_payment and not outcome.approved
        assert outcome.message.code == ReasonCode.OUTCOME_QR_AWAITING
        record = outcome.record
        assert record is not None and qr_phase(record.state) == QrPhase.AWAITING
        txn = qr_transaction(record.state)
        assert txn is not None and txn.expires_at is not None and txn.qr_code
        assert txn.qr_image is not None and png_of(txn.qr_image).startswith(PNG_MAGIC)
        check = await service.can_start_charge("sale-w")
        assert not check and check.reason is not None
        assert check.reason.code == ReasonCode.START_QR_WAITING
        # A QR is never captured.
        with pytest.raises(MoneyOperationRefused) as refused:
            await service.capture(mcid)
        assert refused.value.why.code == ReasonCode.MONEY_QR_NO_CAPTURE

        assert (await pay(access.api_url, sandbox.admin_token, mcid)).status_code == 200
        paid = await service.refresh(mcid)
        assert paid.status == ChargeStatus(wallet_paid)
        assert qr_phase(paid.state) == QrPhase.PAID
        assert effective_status(paid.state) == ChargeStatus.PAID
        check = await service.can_start_charge("sale-w")
        assert not check and check.reason is not None
        assert check.reason.code == ReasonCode.START_MONEY_HELD
        view = await service.money_view(mcid)
        assert view.refundable == 2590 and not view.capturable

        after_part = await service.refund(mcid, 590)
        assert qr_phase(after_part.state) == QrPhase.PARTIALLY_REFUNDED
        assert after_part.refunded_amount == 590
        after_all = await service.refund(mcid)
        assert qr_phase(after_all.state) == QrPhase.REFUNDED
        assert after_all.refunded_amount == 2590
        ops = stack.service.store.repo.money_operations(mcid)
        assert [op.kind for op in ops] == [MoneyOpKind.REFUND, MoneyOpKind.REFUND]
        assert (await service.can_start_charge("sale-w")).allowed
    assert [c for c in stack.calls if c[1].endswith("/charge/wallet")] == [
        ("POST", "/api/v1/charge/wallet", 200)
    ]


@pytest.mark.asyncio
@pytest.mark.parametrize("expired", ["expired-canceled", "expired-stays", "canceled"])
async def test_an_expired_pix_frees_the_sale_for_a_second_qr_which_is_paid(
    sandbox: SandboxServer, tmp_path: Path, expired: str
) -> None:
    sandbox.variants.update({"qr-expired": expired})
    access = SandboxAccess.of_server(sandbox)
    async with charging_stack(access, tmp_path / "store.sqlite3") as stack:
        service = stack.service
        first = await service.charge(
            sale_id="sale-p", request=qr_request(PIX), tenders=qr_tenders(PIX)
        )
        assert first.awaiting_payment
        record = first.record
        assert record is not None
        txn = qr_transaction(record.state)
        assert txn is not None and txn.qr_code is not None and check_br_code(txn.qr_code)
        # The service sends no expiry for PIX: the terminal counts createdAt + expiration.
        assert txn.created_at is not None and txn.expires_at is not None
        assert (txn.expires_at - txn.created_at).total_seconds() == 600
        assert txn.qr_image is not None and png_of(txn.qr_image).startswith(PNG_MAGIC)
        assert not await service.can_start_charge("sale-p")

        assert (
            await expire(access.api_url, sandbox.admin_token, first.merchant_charge_id)
        ).is_success
        gone = await service.refresh(first.merchant_charge_id)
        assert qr_phase(gone.state) in (QrPhase.EXPIRED, QrPhase.CANCELED)
        assert (await service.can_start_charge("sale-p")).allowed
        # The expired QR can no longer be paid.
        late = await pay(access.api_url, sandbox.admin_token, first.merchant_charge_id)
        assert late.status_code == 409

        second = await service.charge(
            sale_id="sale-p", request=qr_request(PIX), tenders=qr_tenders(PIX)
        )
        assert second.awaiting_payment
        assert (
            await pay(access.api_url, sandbox.admin_token, second.merchant_charge_id)
        ).is_success
        paid = await service.refresh(second.merchant_charge_id)
        assert qr_phase(paid.state) == QrPhase.PAID and paid.status == ChargeStatus.PAID
        paid_txn = qr_transaction(paid.state)
        assert paid_txn is not None and paid_txn.end_to_end_id is not None
        assert len(paid_txn.end_to_end_id) == 32 and paid_txn.end_to_end_id.startswith("E")
        # The first QR stays expired whatever arrives later.
        again = await service.refresh(first.merchant_charge_id)
        assert qr_phase(again.state) == qr_phase(gone.state)


@pytest.mark.asyncio
async def test_a_qr_cancelled_before_payment_is_cancelled_at_the_service(
    sandbox: SandboxServer, tmp_path: Path
) -> None:
    access = SandboxAccess.of_server(sandbox)
    async with charging_stack(access, tmp_path / "store.sqlite3") as stack:
        service = stack.service
        waiting = await service.charge(
            sale_id="sale-c", request=qr_request(PIX), tenders=qr_tenders(PIX)
        )
        mcid = waiting.merchant_charge_id
        cancelled = await service.refund(mcid)
        assert qr_phase(cancelled.state) == QrPhase.CANCELED
        assert [op.kind for op in stack.service.store.repo.money_operations(mcid)] == [
            MoneyOpKind.CANCEL
        ]
        assert (await service.can_start_charge("sale-c")).allowed
        # The customer's app can no longer pay it.
        assert (await pay(access.api_url, sandbox.admin_token, mcid)).status_code == 409
        assert sandbox.state.qr_charges[mcid].txn_status == TransactionStatus.CANCELED
    assert [c[1] for c in stack.calls if c[0] == "POST" and "/refund" in c[1]] == [
        f"/api/v1/charge/{mcid}/refund"
    ]


@pytest.mark.asyncio
async def test_when_the_service_cannot_cancel_an_unpaid_qr_a_later_payment_shows_and_is_refundable(
    sandbox: SandboxServer, tmp_path: Path
) -> None:
    sandbox.variants.update({"qr-cancel": "refused"})
    access = SandboxAccess.of_server(sandbox)
    async with charging_stack(access, tmp_path / "store.sqlite3") as stack:
        service = stack.service
        waiting = await service.charge(
            sale_id="sale-r", request=qr_request(WALLET), tenders=qr_tenders(WALLET)
        )
        mcid = waiting.merchant_charge_id
        with pytest.raises(MoneyOperationRefused) as refused:
            await service.refund(mcid)
        # Said as what it is: the service does not cancel an unpaid QR (it expires by
        # itself), with figures that say it awaits payment rather than that it was charged.
        assert refused.value.why.code == ReasonCode.QR_CANCEL_REFUSED
        assert refused.value.figures is not None and refused.value.figures.awaiting
        assert (await pay(access.api_url, sandbox.admin_token, mcid)).is_success
        paid = await service.refresh(mcid)
        assert qr_phase(paid.state) == QrPhase.PAID
        assert (await service.money_view(mcid)).refundable == 2590
        refunded = await service.refund(mcid)
        assert qr_phase(refunded.state) == QrPhase.REFUNDED


@pytest.mark.asyncio
@pytest.mark.parametrize("kind", [WALLET, PIX])
@pytest.mark.parametrize("ended", ["cancelled", "expired"])
async def test_a_payment_landing_after_a_cancel_or_an_expiry_is_shown_and_refundable(
    sandbox: SandboxServer, tmp_path: Path, kind: str, ended: str
) -> None:
    access = SandboxAccess.of_server(sandbox)
    async with charging_stack(access, tmp_path / "store.sqlite3") as stack:
        service = stack.service
        waiting = await service.charge(
            sale_id="sale-l", request=qr_request(kind), tenders=qr_tenders(kind)
        )
        mcid = waiting.merchant_charge_id
        if ended == "cancelled":
            gone = await service.refund(mcid)
        else:
            assert (await expire(access.api_url, sandbox.admin_token, mcid)).is_success
            gone = await service.refresh(mcid)
        assert qr_phase(gone.state) in (QrPhase.CANCELED, QrPhase.EXPIRED)
        assert (await service.can_start_charge("sale-l")).allowed
        # The customer's app had sent the payment just before: the service takes the money.
        assert (await pay(access.api_url, sandbox.admin_token, mcid, late=True)).is_success
        paid = await service.refresh(mcid)
        assert qr_phase(paid.state) == QrPhase.PAID
        assert effective_status(paid.state) == ChargeStatus.PAID
        # The money is there: the sale is paid, and the payment can go back to the payer.
        assert not await service.can_start_charge("sale-l")
        assert (await service.money_view(mcid)).refundable == 2590
        refunded = await service.refund(mcid)
        assert qr_phase(refunded.state) == QrPhase.REFUNDED
        assert sandbox.state.qr_charges[mcid].refunded_amount == 2590


@pytest.mark.asyncio
@pytest.mark.parametrize("kind", [WALLET, PIX])
async def test_a_lost_qr_reply_is_settled_by_a_query_never_by_a_second_qr(
    sandbox: SandboxServer, tmp_path: Path, kind: str
) -> None:
    sandbox.faults.update(qr_reply_delay_s=3.0)
    access = SandboxAccess.of_server(sandbox)
    async with charging_stack(access, tmp_path / "store.sqlite3", timeout_s=0.5) as stack:
        outcome = await stack.service.charge(
            sale_id="sale-l", request=qr_request(kind), tenders=qr_tenders(kind)
        )
        assert outcome.attempt == AttemptState.CREATED
        assert outcome.awaiting_payment and not outcome.approved
        assert outcome.error is not None
        creates = [c for c in stack.calls if c[1] == f"/api/v1/charge/{kind.lower()}"]
        # The one request timed out (no reply recorded by the client hook); it was never resent.
        assert creates == []
        queries = [c for c in stack.calls if c[1] == f"/api/v1/charge/{outcome.merchant_charge_id}"]
        assert queries and all(c[2] == 200 for c in queries)
    assert list(sandbox.state.qr_charges) == [outcome.merchant_charge_id]


@pytest.mark.asyncio
async def test_autopay_pays_every_qr_and_a_notification_says_so(tmp_path: Path) -> None:
    server = SandboxServer(SandboxConfig(api_port=0, sdk_port=0, qr_autopay_s=0.2))
    await server.start()
    try:
        access = SandboxAccess.of_server(server)
        async with charging_stack(access, tmp_path / "store.sqlite3") as stack:
            outcome = await stack.service.charge(
                sale_id="sale-a", request=qr_request(PIX), tenders=qr_tenders(PIX)
            )
            charge = server.state.qr_charges[outcome.merchant_charge_id]
            for _ in range(100):
                if charge.paid_at is not None:
                    break
                await server.sleep_unless_stopping(0.05)
            assert charge.paid_at is not None
            paid = await stack.service.refresh(outcome.merchant_charge_id)
            assert qr_phase(paid.state) == QrPhase.PAID
        statuses = [
            n.body["data"]["transactions"][0]["status"]
            for n in server.state.notifications
            if n.merchant_charge_id == outcome.merchant_charge_id
        ]
        assert statuses == ["PENDING", "PAID"]
    finally:
        await server.stop()


@pytest.mark.asyncio
@pytest.mark.parametrize("kind", [WALLET, PIX])
async def test_a_qr_whose_expiry_notification_never_comes_is_asked_about_around_its_expiry(
    sandbox: SandboxServer, tmp_path: Path, kind: str
) -> None:
    # The terminal runs on the sandbox's clock, which the test moves on: no listener takes the
    # sandbox's notifications here, so only the terminal's own checks can learn of the expiry.
    clock = sandbox.clock
    access = SandboxAccess.of_server(sandbox)
    async with charging_stack(access, tmp_path / "store.sqlite3", clock=clock.now) as stack:
        service = stack.service
        waiting = await service.charge(
            sale_id="sale-e", request=qr_request(kind), tenders=qr_tenders(kind)
        )
        mcid = waiting.merchant_charge_id
        assert waiting.record is not None
        deadline = expires_at(waiting.record.state)
        assert deadline is not None

        def queries() -> int:
            # Answered queries: an access token outlived by the moved clock is refused once
            # (401) and the query sent again with a new one.
            return stack.calls.count(("GET", f"/api/v1/charge/{mcid}", 200))

        checks: list[tuple[datetime, ReasonCode, QrPhase | None]] = []
        for _ in range(12):
            record = service.store.repo.charge(mcid)
            assert record is not None
            if record.next_check_at is None:
                break
            assert record.check_reason_data is not None
            # Nothing is asked before the check's time...
            clock.advance((record.next_check_at - clock.now()).total_seconds() - 1)
            asked = queries()
            await service.reconcile(trigger="schedule", due_only=True)
            assert queries() == asked
            # ...and it is asked once at that time (the daily sweep may ask about it too).
            clock.advance(1)
            report = await service.reconcile(trigger="schedule", due_only=True)
            assert report.charges_checked == 1 and queries() == asked + 1 + report.swept
            after = service.store.repo.charge(mcid)
            assert after is not None
            checks.append(
                (record.next_check_at, record.check_reason_data.code, qr_phase(after.state))
            )
        # Asked shortly before the expiry (still waiting, the sale still held) and shortly after,
        # when the service says the QR expired; then nothing more is asked and the sale is free.
        around = [(at, phase) for at, code, phase in checks if code == ReasonCode.CHECK_QR_EXPIRY]
        assert around == [
            (deadline - timedelta(seconds=15), QrPhase.AWAITING),
            (deadline + timedelta(seconds=10), QrPhase.EXPIRED),
        ]
        assert checks[-1][0] == deadline + timedelta(seconds=10)
        assert all(phase == QrPhase.AWAITING for _, _, phase in checks[:-1])
        assert (await service.can_start_charge("sale-e")).allowed
    assert list(sandbox.state.qr_charges) == [mcid]


@pytest.mark.asyncio
@pytest.mark.parametrize("kind", [WALLET, PIX])
async def test_the_sandbox_expires_a_qr_by_itself_when_its_time_runs_out_and_says_so(
    sandbox: SandboxServer, tmp_path: Path, kind: str
) -> None:
    access = SandboxAccess.of_server(sandbox)
    async with charging_stack(access, tmp_path / "store.sqlite3") as stack:
        waiting = await stack.service.charge(
            sale_id="sale-t", request=qr_request(kind), tenders=qr_tenders(kind)
        )
        mcid = waiting.merchant_charge_id
        charge = sandbox.state.qr_charges[mcid]
        # Not a moment early: a second before its time the QR still waits.
        sandbox.clock.advance((charge.expires_at - sandbox.clock.now()).total_seconds() - 1)
        await sandbox.sleep_unless_stopping(0.5)
        assert charge.awaiting
        # Its time runs out: the sandbox ends it alone (no admin call) and notifies.
        sandbox.clock.advance(1)
        for _ in range(100):
            if not charge.awaiting:
                break
            await sandbox.sleep_unless_stopping(0.05)
        assert not charge.awaiting and charge.txn_status == TransactionStatus.EXPIRED
        statuses = [
            n.body["data"]["transactions"][0]["status"]
            for n in sandbox.state.notifications
            if n.merchant_charge_id == mcid
        ]
        assert statuses == ["PENDING", "EXPIRED"]
        gone = await stack.service.refresh(mcid)
        assert qr_phase(gone.state) == QrPhase.EXPIRED
        assert (await stack.service.can_start_charge("sale-t")).allowed
