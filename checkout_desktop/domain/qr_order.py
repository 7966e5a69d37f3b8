"""Where a QR charge's statuses stand in its life: a payment that lands after an expiry or a
cancel still counts, because the payer's money moved.

A card's cancellation (CANCELED) comes after its authorization, so a card orders CANCELED late
in its life. A QR's CANCELED or EXPIRED means the QR ended unpaid; a payment the service reports
after that (the customer's app sent it just before the cancel took effect) is later in the
QR's life, and is shown so it can be refunded. A refund of a paid QR is REFUNDED, later still.
Used by the state machine (`domain/state.py`) for any charge with a wallet or PIX transaction.
"""

from __future__ import annotations

import logging

from checkout_desktop.domain.enums import ChargeStatus, PaymentType, TransactionStatus

logger = logging.getLogger(__name__)

QR_TYPES = frozenset({PaymentType.WALLET, PaymentType.PIX})

QR_CHARGE_STAGE: dict[ChargeStatus, int] = {
    ChargeStatus.PENDING: 0,
    ChargeStatus.PRE_AUTHORIZED: 1,
    # Expired or cancelled unpaid: before any payment the service may still report.
    ChargeStatus.CANCELED: 2,
    # A paid wallet is reported AUTHORIZED (its transaction CAPTURED), a paid PIX PAID.
    ChargeStatus.AUTHORIZED: 3,
    ChargeStatus.PAID: 4,
    ChargeStatus.PARTIAL: 5,
    ChargeStatus.REFUNDED: 6,
    ChargeStatus.CHARGEBACK: 7,
    ChargeStatus.ERROR: 8,
    ChargeStatus.DENIED: 9,
}

QR_TRANSACTION_STAGE: dict[TransactionStatus, int] = {
    TransactionStatus.PENDING: 0,
    TransactionStatus.PRE_AUTHORIZED: 1,
    TransactionStatus.AUTHORIZED: 1,
    TransactionStatus.EXPIRED: 2,
    TransactionStatus.CANCELED: 2,
    TransactionStatus.PAID: 3,
    TransactionStatus.CAPTURED: 3,
    TransactionStatus.PARTIALLY_REFUNDED: 4,
    TransactionStatus.REFUNDED: 5,
    TransactionStatus.CHARGEBACK: 6,
    TransactionStatus.ERROR: 7,
    TransactionStatus.DENIED: 8,
}


def is_qr_type(payment_type: object) -> bool:
    """Whether a transaction's payment type is a QR's (wallet or PIX)."""
    return payment_type in QR_TYPES


__all__ = ["QR_CHARGE_STAGE", "QR_TRANSACTION_STAGE", "QR_TYPES", "is_qr_type"]
