"""A stored charge of one transaction, as the store hands it to the screens, for widget tests."""

from __future__ import annotations

from datetime import timedelta

from checkout_desktop.domain.enums import ChargeStatus, PaymentType, TransactionStatus
from checkout_desktop.domain.records import ChargeRecord
from checkout_desktop.domain.state import ChargeState, TransactionState
from checkout_desktop.domain.timestamps import utc_now


def one_transaction_record(
    *,
    status: ChargeStatus,
    txn_status: TransactionStatus,
    kind: PaymentType,
    amount: int = 2590,
    merchant_charge_id: str = "sale00000001-01",
    qr_code: str | None = None,
    qr_image: str | None = None,
    expires_in_s: float | None = None,
) -> ChargeRecord:
    now = utc_now()
    state = ChargeState(
        merchant_charge_id=merchant_charge_id,
        status=status,
        amount=amount,
        refunded_amount=0,
        transactions=(
            TransactionState(
                key="tx-1",
                payment_type=kind,
                status=txn_status,
                amount=amount,
                created_at=now,
                expires_at=None if expires_in_s is None else now + timedelta(seconds=expires_in_s),
                qr_code=qr_code,
                qr_image=qr_image,
            ),
        ),
    )
    return ChargeRecord(
        id=1,
        merchant_charge_id=merchant_charge_id,
        charge_id="ch-1",
        sale_id=merchant_charge_id.rsplit("-", 1)[0],
        status=status,
        amount=amount,
        refunded_amount=0,
        three_ds_status=None,
        state=state,
        created_at=now,
        updated_at=now,
        last_webhook_at=None,
        last_checked_at=None,
        checks=0,
        next_check_at=None,
        check_reason=None,
    )
