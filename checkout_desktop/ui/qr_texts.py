"""QR charges told in plain words: the timeline's lines (created, paid, expired, cancelled, a
payment that landed after the QR had ended), a QR's status as the clerk means it, the history's
refund action on a QR (a waiting one is cancelled; a paid one goes back to its payer), and the
window's notice of such a late payment."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QCoreApplication

from checkout_desktop.domain.enums import PaymentType
from checkout_desktop.domain.qr import QrPhase, qr_phase, qr_transaction
from checkout_desktop.domain.qr_order import is_qr_type
from checkout_desktop.domain.reasons import Reason, ReasonCode
from checkout_desktop.domain.records import ChargeRecord, TimelineRecord
from checkout_desktop.ui.labels import status_label
from checkout_desktop.ui.qr_panel import kind_text

logger = logging.getLogger(__name__)

_ENDED = ("EXPIRED", "CANCELED")
_PAID = ("PAID", "CAPTURED")


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
        if isinstance(kind, str) and is_qr_type(kind.upper()):
            return PaymentType(kind.upper())
    return None


def transaction_status_of(item: TimelineRecord) -> str | None:
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
        if isinstance(kind, str) and is_qr_type(kind.upper()):
            return PaymentType(kind.upper())
    return None


def _kind_from_attempt(item: TimelineRecord) -> PaymentType | None:
    """The QR tender the attempt's line recorded before sending (its first line)."""
    data = item.reason_data
    if data is None or data.code != ReasonCode.ATTEMPT_RECORDED:
        return None
    tenders = data.args.get("cards")
    if not isinstance(tenders, list):
        return None
    codes = {tender.code for tender in tenders if isinstance(tender, Reason)}
    if ReasonCode.TENDER_PIX in codes:
        return PaymentType.PIX
    if ReasonCode.TENDER_WALLET in codes:
        return PaymentType.WALLET
    return None


def qr_kind_of(items: Iterable[TimelineRecord]) -> PaymentType | None:
    """The QR tender a charge's timeline shows it was made with; None for a card's."""
    for item in items:
        kind = qr_kind(item.body) or _kind_from_changes(item) or _kind_from_attempt(item)
        if kind is not None:
            return kind
    return None


def qr_status_text(status: str | None, transaction_status: str | None = None) -> str:
    """A QR charge's status as the clerk means it: a new QR's charge says PRE_AUTHORIZED (or
    PENDING) and is awaiting payment, a paid wallet says AUTHORIZED and is paid, an expired one
    may say CANCELED. The transaction's status, when known, tells; refunds keep the charge's."""
    charge = (status or "").upper()
    txn = (transaction_status or "").upper()
    if charge in ("PARTIAL", "REFUNDED", "CHARGEBACK", "DENIED", "ERROR"):
        return status_label(charge)
    said = txn or charge
    if said in _PAID or said == "AUTHORIZED":
        return status_label("PAID")
    if said in _ENDED:
        return status_label(said)
    if said in ("PENDING", "PRE_AUTHORIZED"):
        return QCoreApplication.translate("Labels", "Awaiting payment")
    return status_label(status)


def qr_event_sentence(shown: str | None, kind: str | None, merge: Reason | None) -> str | None:
    """What a QR charge's notification did, in one sentence that names it with the word the list
    shows it with (`shown`: the History's word for the state it describes): created, paid, paid
    after the QR had ended (the merge kept what the History showed before), expired or
    cancelled. None when the notification changed nothing or is not a QR's (the usual words)."""
    if merge is None or merge.code != ReasonCode.INBOX_APPLIED or not kind:
        return None
    if not is_qr_type(kind.upper()):
        return None
    name = kind_text(PaymentType(kind.upper()))
    status = (shown or "").upper()
    word = (
        QCoreApplication.translate("Labels", "Awaiting payment")
        if status == "AWAITING_PAYMENT"
        else status_label(shown)
    )
    before = str(merge.args.get("shown_before") or "").upper()
    if status == "PAID" and before in _ENDED:
        text = QCoreApplication.translate(
            "EventList",
            "{status}: the customer's payment landed after the {kind} QR had ended; refund it if "
            "the sale was paid another way.",
        )
    elif status == "PAID":
        text = QCoreApplication.translate("EventList", "{status}: the customer paid the {kind} QR.")
    elif status == "AWAITING_PAYMENT":
        text = QCoreApplication.translate(
            "EventList", "{status}: the {kind} QR awaits the customer's payment."
        )
    elif status == "EXPIRED":
        text = QCoreApplication.translate("EventList", "{status}: the {kind} QR expired unpaid.")
    elif status == "CANCELED":
        text = QCoreApplication.translate(
            "EventList", "{status}: the {kind} QR was cancelled; nothing was paid."
        )
    else:
        return None
    return text.format(status=word, kind=name)


@dataclass(frozen=True)
class QrRefundWords:
    """How the history's refund action reads for a QR charge."""

    button: str | None
    """The button's text; None keeps the history's own ("Refund…")."""
    title: str
    explanation: str
    cancels: bool
    """A waiting QR: the whole amount, nothing was paid (no partial amount)."""


def qr_refund_words(record: ChargeRecord) -> QrRefundWords | None:
    """The refund action's words for a QR charge: cancelling a QR still waiting for its payment
    (the service's cancel is its refund endpoint), or money going back to the customer who paid
    it; None for a card charge (its own words)."""
    phase = qr_phase(record.state)
    txn = qr_transaction(record.state)
    if phase is None or txn is None:
        return None
    kind = kind_text(txn.payment_type)
    if phase == QrPhase.AWAITING:
        return QrRefundWords(
            button=QCoreApplication.translate("QrRefund", "Cancel Q&R…"),
            title=QCoreApplication.translate("QrRefund", "Cancel QR"),
            explanation=QCoreApplication.translate(
                "QrRefund",
                "Cancel the {kind} QR of charge {id}: the customer can no longer pay it. "
                "Nothing was paid. A payment the customer sent just before would still show "
                "here and could be refunded.",
            ).format(kind=kind, id=record.merchant_charge_id),
            cancels=True,
        )
    return QrRefundWords(
        button=None,
        title=QCoreApplication.translate("QrRefund", "Refund"),
        explanation=QCoreApplication.translate(
            "QrRefund",
            "Refund charge {id}: the money goes back to the customer who paid the {kind} QR; "
            "this cannot be undone.",
        ).format(kind=kind, id=record.merchant_charge_id),
        cancels=False,
    )


def _qr_paid(
    changes: Iterable[Reason], codes: frozenset[ReasonCode], came_from: Callable[[str], bool]
) -> PaymentType | None:
    """The QR tender whose transaction became paid in these changes (of `codes`), from a
    status `came_from` accepts."""
    for change in changes:
        if change.code not in codes:
            continue
        kind = change.args.get("payment_type")
        before = str(change.args.get("previous_status") or "").upper()
        after = str(change.args.get("status") or "").upper()
        if (
            isinstance(kind, str)
            and is_qr_type(kind.upper())
            and after in _PAID
            and came_from(before)
        ):
            return PaymentType(kind.upper())
    return None


def late_payment(changes: Iterable[Reason]) -> PaymentType | None:
    """The QR tender whose transaction went from expired or cancelled to paid in these changes:
    a payment that landed after the QR had ended (the money is in)."""
    return _qr_paid(
        changes, frozenset({ReasonCode.CHANGE_TRANSACTION_STATUS}), lambda s: s in _ENDED
    )


def qr_payment(changes: Iterable[Reason]) -> PaymentType | None:
    """The QR tender whose transaction was paid in these changes (from whatever it said
    before: awaiting, expired, cancelled, or new)."""
    return _qr_paid(
        changes,
        frozenset({ReasonCode.CHANGE_TRANSACTION_STATUS, ReasonCode.CHANGE_TRANSACTION_NEW}),
        lambda s: s not in _PAID,
    )


def paid_off_screen_notice(merchant_charge_id: str, changes: Iterable[Reason]) -> str | None:
    """What the window says when a QR no longer on the charge screen (left waiting for the next
    sale, or from before a restart) is paid, or None."""
    kind = qr_payment(changes)
    if kind is None:
        return None
    return QCoreApplication.translate(
        "QrNotice",
        "The {kind} QR of charge {id}, no longer on screen, was paid: the money is in. Refund "
        "it from the History if the sale was paid another way.",
    ).format(kind=kind_text(kind), id=merchant_charge_id)


def late_payment_notice(merchant_charge_id: str, changes: Iterable[Reason]) -> str | None:
    """What the window says when a QR is paid after it expired or was cancelled, or None."""
    kind = late_payment(changes)
    if kind is None:
        return None
    return QCoreApplication.translate(
        "QrNotice",
        "The {kind} QR of charge {id} was paid after it had ended: the money is in. Refund it "
        "from the History if the sale was paid another way.",
    ).format(kind=kind_text(kind), id=merchant_charge_id)


def qr_sentence(item: TimelineRecord) -> str | None:
    """One sentence for a line that moved a QR charge's transaction, or None to say it the
    usual way (a card charge, a refund, a line that changed nothing)."""
    if item.outcome != "applied":
        return None
    kind = qr_kind(item.body) or _kind_from_changes(item)
    if kind is None:
        return None
    status = transaction_status_of(item)
    name = kind_text(kind)
    if late_payment(item.changes_data or ()) is not None:
        return QCoreApplication.translate(
            "Timeline",
            "The customer's payment landed after the {kind} QR had ended; refund it if the sale "
            "was paid another way.",
        ).format(kind=name)
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


__all__ = [
    "QrRefundWords",
    "late_payment",
    "late_payment_notice",
    "paid_off_screen_notice",
    "qr_event_sentence",
    "qr_kind",
    "qr_kind_of",
    "qr_payment",
    "qr_refund_words",
    "qr_sentence",
    "qr_status_text",
    "transaction_status_of",
]
