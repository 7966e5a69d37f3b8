"""QR charges (PicPay wallet and PIX): where one stands, read from its transaction, not its charge.

Pure logic, no I/O. The public evidence says a new, unpaid QR charge is PRE_AUTHORIZED (the
status a card keeps while its money is held), a paid wallet is reported AUTHORIZED with its
transaction CAPTURED, a paid PIX is PAID, and an expired QR says EXPIRED or CANCELED at the
transaction while its charge status is unknown. So a QR charge's phase comes from its
transaction's status first: paid is PAID or CAPTURED there, expired or cancelled is EXPIRED or
CANCELED there, whatever the charge says (a QR called CANCELED once its time ran out expired);
the charge status only adds what the transaction cannot (a refund the transaction list does not
show yet).
"""

from __future__ import annotations

import logging
from dataclasses import replace
from datetime import datetime, timedelta
from enum import StrEnum

from checkout_desktop.domain.enums import ChargeStatus, PaymentType, TransactionStatus
from checkout_desktop.domain.qr_order import is_qr_type
from checkout_desktop.domain.state import ChargeState, TransactionState

logger = logging.getLogger(__name__)

PIX_MIN_EXPIRATION_S = 600
"""The public integration's minimum (and default) PIX expiration, in seconds."""
PIX_MAX_EXPIRATION_S = 86_400

EXPIRY_GRACE = timedelta(seconds=30)
"""After a QR's expiry, how long a payment may still be on its way (a payer who scanned at the
last second) before an unanswered QR stops holding its sale."""
CHECK_BEFORE_EXPIRY = timedelta(seconds=15)
CHECK_AFTER_EXPIRY = timedelta(seconds=10)


class QrPhase(StrEnum):
    """Where a QR charge stands for the shop."""

    AWAITING = "awaiting"
    """Created, not paid yet: neither approved nor money held beyond its expiry."""
    PAID = "paid"
    EXPIRED = "expired"
    CANCELED = "canceled"
    PARTIALLY_REFUNDED = "partially_refunded"
    REFUNDED = "refunded"
    FAILED = "failed"
    """Denied or in error: nothing was paid."""


_PAID_TXN = frozenset({TransactionStatus.PAID, TransactionStatus.CAPTURED})


def qr_transaction(state: ChargeState) -> TransactionState | None:
    """The charge's QR transaction, when it is a QR charge (one wallet or PIX transaction)."""
    for txn in state.transactions:
        if is_qr_type(txn.payment_type):
            return txn
    return None


def qr_phase(state: ChargeState) -> QrPhase | None:
    """The QR's phase; None for a charge that is not a QR charge."""
    txn = qr_transaction(state)
    if txn is None:
        return None
    status, tstatus = state.status, txn.status
    if status in (ChargeStatus.DENIED, ChargeStatus.ERROR) or tstatus in (
        TransactionStatus.DENIED,
        TransactionStatus.ERROR,
    ):
        return QrPhase.FAILED
    if status == ChargeStatus.REFUNDED or tstatus == TransactionStatus.REFUNDED:
        return QrPhase.REFUNDED
    if status == ChargeStatus.PARTIAL or tstatus == TransactionStatus.PARTIALLY_REFUNDED:
        return QrPhase.PARTIALLY_REFUNDED
    if tstatus == TransactionStatus.EXPIRED:
        return QrPhase.EXPIRED
    if tstatus == TransactionStatus.CANCELED or status == ChargeStatus.CANCELED:
        deadline, ended = txn.expires_at, txn.status_at
        if deadline is not None and ended is not None and ended >= deadline:
            # Called CANCELED when its time ran out (a service may report an expiry so): it
            # expired; nobody cancelled it.
            return QrPhase.EXPIRED
        return QrPhase.CANCELED
    if tstatus in _PAID_TXN or status == ChargeStatus.PAID:
        if (state.refunded_amount or 0) > 0 or (txn.refunded_amount or 0) > 0:
            return QrPhase.PARTIALLY_REFUNDED
        return QrPhase.PAID
    return QrPhase.AWAITING


def effective_status(state: ChargeState) -> ChargeStatus | None:
    """The charge status that means for the money what the QR's phase means.

    A card charge keeps its own status. A QR charge that is paid counts as PAID (a wallet says
    AUTHORIZED, which would otherwise read as uncaptured), one expired or cancelled as CANCELED
    (its charge may still say PRE_AUTHORIZED), one awaiting payment keeps the service's
    status (PRE_AUTHORIZED: a cancel is the refund of the whole amount).
    """
    phase = qr_phase(state)
    if phase is None or phase == QrPhase.AWAITING:
        return state.status
    if phase == QrPhase.PAID:
        return ChargeStatus.PAID
    if phase in (QrPhase.EXPIRED, QrPhase.CANCELED):
        return ChargeStatus.CANCELED
    if phase == QrPhase.PARTIALLY_REFUNDED:
        return ChargeStatus.PARTIAL
    if phase == QrPhase.REFUNDED:
        return ChargeStatus.REFUNDED
    return state.status


def awaiting_payment(state: ChargeState) -> bool:
    return qr_phase(state) == QrPhase.AWAITING


def expires_at(state: ChargeState) -> datetime | None:
    txn = qr_transaction(state)
    return None if txn is None else txn.expires_at


def holds_sale(state: ChargeState, now: datetime) -> bool:
    """Whether an awaiting QR still holds its sale: until its expiry (plus a grace for a payment
    on its way); with no known expiry, until the service says where it stands."""
    if not awaiting_payment(state):
        return False
    deadline = expires_at(state)
    return deadline is None or now < deadline + EXPIRY_GRACE


def with_expiry(state: ChargeState, expiration_s: int | None) -> ChargeState:
    """The state with its PIX expiry filled from the expiration the request asked for, when the
    service's reply gives none (public code computes it as createdAt + expiration)."""
    if expiration_s is None:
        return state
    changed = False
    transactions = []
    for txn in state.transactions:
        if (
            txn.payment_type == PaymentType.PIX
            and txn.expires_at is None
            and txn.created_at is not None
        ):
            txn = replace(txn, expires_at=txn.created_at + timedelta(seconds=expiration_s))
            changed = True
        transactions.append(txn)
    return replace(state, transactions=tuple(transactions)) if changed else state


def next_qr_check(state: ChargeState, now: datetime) -> datetime | None:
    """When to ask about an awaiting QR: shortly before its expiry, then shortly after, so a
    missed notification cannot leave it waiting. None when it is not awaiting or has no expiry."""
    if not awaiting_payment(state):
        return None
    deadline = expires_at(state)
    if deadline is None:
        return None
    before = deadline - CHECK_BEFORE_EXPIRY
    if now < before:
        return before
    after = deadline + CHECK_AFTER_EXPIRY
    if now < after:
        return after
    return None


def qr_settled(state: ChargeState) -> bool:
    """A QR charge nothing more is expected of without a clerk's action (expired, cancelled,
    paid, refunded, failed)."""
    phase = qr_phase(state)
    return phase is not None and phase != QrPhase.AWAITING


__all__ = [
    "CHECK_AFTER_EXPIRY",
    "CHECK_BEFORE_EXPIRY",
    "EXPIRY_GRACE",
    "PIX_MAX_EXPIRATION_S",
    "PIX_MIN_EXPIRATION_S",
    "QrPhase",
    "awaiting_payment",
    "effective_status",
    "expires_at",
    "holds_sale",
    "next_qr_check",
    "qr_phase",
    "qr_settled",
    "qr_transaction",
    "with_expiry",
]
