"""QR charges told in plain words on a charge's timeline: created, paid, expired, cancelled."""

from __future__ import annotations

import logging
from typing import Any

from PySide6.QtCore import QCoreApplication

from checkout_desktop.domain.enums import PaymentType
from checkout_desktop.domain.reasons import ReasonCode
from checkout_desktop.domain.records import TimelineRecord
from checkout_desktop.ui.qr_panel import kind_text

logger = logging.getLogger(__name__)

_QR_TYPES = (PaymentType.WALLET.value, PaymentType.PIX.value)


def qr_kind(body: Any) -> PaymentType | None:
    """The QR tender a reply's or notification's body carries (None for a card's)."""
    if not isinstance(body, dict):
        return None
    data = body.get("data") if isinstance(body.get("data"), dict) else body
    transactions = data.get("transactions") if isinstance(data, dict) else None
    if not isinstance(transactions, list):
        return None
    for txn in transactions:
        kind = txn.get("paymentType") if isinstance(txn, dict) else None
        if isinstance(kind, str) and kind.upper() in _QR_TYPES:
            return PaymentType(kind.upper())
    return None


def _transaction_status(item: TimelineRecord) -> str | None:
    """The transaction status the line brought, from its changes."""
    for change in item.changes_data or ():
        if change.code in (
            ReasonCode.CHANGE_TRANSACTION_NEW,
            ReasonCode.CHANGE_TRANSACTION_STATUS,
        ):
            status = change.args.get("status")
            if isinstance(status, str):
                return status.upper()
    return None


def _kind_from_changes(item: TimelineRecord) -> PaymentType | None:
    """The QR tender a line's changes name (a notification's line keeps no body)."""
    for change in item.changes_data or ():
        kind = change.args.get("payment_type")
        if isinstance(kind, str) and kind.upper() in _QR_TYPES:
            return PaymentType(kind.upper())
    return None


def qr_sentence(item: TimelineRecord) -> str | None:
    """One sentence for a line that moved a QR charge's transaction, or None to say it the
    usual way (a card charge, a refund, a line that changed nothing)."""
    if item.outcome != "applied":
        return None
    kind = qr_kind(item.body) or _kind_from_changes(item)
    if kind is None:
        return None
    status = _transaction_status(item)
    name = kind_text(kind)
    if status in ("PENDING", "PRE_AUTHORIZED", "AUTHORIZED"):
        return QCoreApplication.translate(
            "Timeline", "The {kind} QR was created; it awaits the customer's payment."
        ).format(kind=name)
    if status in ("PAID", "CAPTURED"):
        return QCoreApplication.translate("Timeline", "The customer paid the {kind} QR.").format(
            kind=name
        )
    if status == "EXPIRED":
        return QCoreApplication.translate("Timeline", "The {kind} QR expired unpaid.").format(
            kind=name
        )
    if status == "CANCELED":
        return QCoreApplication.translate(
            "Timeline", "The {kind} QR was cancelled; nothing was paid."
        ).format(kind=name)
    return None


__all__ = ["qr_kind", "qr_sentence"]
