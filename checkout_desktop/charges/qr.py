"""QR charges in the use case: when to ask about one, whether it holds its sale, what it came to.

The phase rules live in `domain/qr.py`; this module applies them where the charge service and
the reconciler decide (a check around the QR's expiry, a sale held only while its QR may still
be paid, an outcome that is never "approved" while the customer has not paid).
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from checkout_desktop.domain.qr import (
    QrPhase,
    expires_at,
    holds_sale,
    next_qr_check,
    qr_phase,
)
from checkout_desktop.domain.reasons import Reason, ReasonCode
from checkout_desktop.domain.records import ChargeRecord
from checkout_desktop.domain.state import ChargeState

logger = logging.getLogger(__name__)


def qr_schedule(
    state: ChargeState, *, now: datetime, backoff: timedelta
) -> tuple[datetime, Reason] | None:
    """The next check of an awaiting QR: the sooner of its usual back-off and the moments just
    before and just after its expiry. None for a charge that is not an awaiting QR."""
    if qr_phase(state) != QrPhase.AWAITING:
        return None
    around = next_qr_check(state, now)
    usual = now + backoff
    deadline = expires_at(state)
    if around is not None and around <= usual and deadline is not None:
        return around, Reason.of(ReasonCode.CHECK_QR_EXPIRY, expires_at=deadline.isoformat())
    return usual, Reason.of(ReasonCode.CHECK_NOT_FINAL, status=str(state.status))


def qr_blocks(sale_id: str, charge: ChargeRecord, now: datetime) -> Reason | None:
    """Why a QR charge keeps its sale from a new charge, or None when it does not.

    An awaiting QR holds the sale until its expiry (and a grace for a payment on its way); a
    paid one holds it as any paid charge; expired, cancelled, refunded or failed frees it.
    """
    phase = qr_phase(charge.state)
    if phase is None:
        raise ValueError(f"charge {charge.merchant_charge_id} is not a QR charge")
    if phase == QrPhase.AWAITING:
        if not holds_sale(charge.state, now):
            return None
        deadline = expires_at(charge.state)
        return Reason.of(
            ReasonCode.START_QR_WAITING,
            sale=sale_id,
            charge=charge.merchant_charge_id,
            expires_at=None if deadline is None else deadline.isoformat(),
        )
    if phase in (QrPhase.PAID, QrPhase.PARTIALLY_REFUNDED):
        return Reason.of(
            ReasonCode.START_MONEY_HELD,
            sale=sale_id,
            charge=charge.merchant_charge_id,
            status=str(charge.status),
        )
    return None


__all__ = ["qr_blocks", "qr_schedule"]
