"""Translated display names of statuses, verdicts and timeline sources (stored values unchanged)."""

from __future__ import annotations

import logging

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QComboBox, QWidget

from checkout_desktop.settings import Profile, ProfileKind, default_profiles
from checkout_desktop.ui.translated_tables import TranslatedTable

logger = logging.getLogger(__name__)


def status_label(status: str | None) -> str:
    """A charge or transaction status as staff read it; an unpublished one is shown verbatim."""
    if not status:
        return "—"
    return _status_labels().get(status, status)


def _build_status_labels() -> dict[str, str]:
    return {
        "PENDING": QCoreApplication.translate("Labels", "Pending"),
        "PRE_AUTHORIZED": QCoreApplication.translate("Labels", "Pre-authorized"),
        "AUTHORIZED": QCoreApplication.translate("Labels", "Authorized"),
        "PAID": QCoreApplication.translate("Labels", "Paid"),
        "CAPTURED": QCoreApplication.translate("Labels", "Captured"),
        "PARTIAL": QCoreApplication.translate("Labels", "Partially refunded"),
        "PARTIALLY_REFUNDED": QCoreApplication.translate("Labels", "Partially refunded"),
        "DENIED": QCoreApplication.translate("Labels", "Denied"),
        "ERROR": QCoreApplication.translate("Labels", "Error"),
        "CANCELED": QCoreApplication.translate("Labels", "Canceled"),
        "REFUNDED": QCoreApplication.translate("Labels", "Refunded"),
        "CHARGEBACK": QCoreApplication.translate("Labels", "Chargeback"),
        "EXPIRED": QCoreApplication.translate("Labels", "Expired"),
        "Approved": QCoreApplication.translate("Labels", "3DS approved"),
        "Challenged": QCoreApplication.translate("Labels", "3DS challenged"),
        "Rejected": QCoreApplication.translate("Labels", "3DS rejected"),
        # Attempt states, as the timeline records them.
        "RECORDED": QCoreApplication.translate("Labels", "Recorded before sending"),
        "UNKNOWN": QCoreApplication.translate("Labels", "Outcome unknown"),
        "CREATED": QCoreApplication.translate("Labels", "Created at the service"),
        "REJECTED": QCoreApplication.translate("Labels", "Refused, not charged"),
        "NOT_FOUND": QCoreApplication.translate("Labels", "Not found, not charged"),
        "ENDED": QCoreApplication.translate("Labels", "Ended by a supervisor"),
        # Refund, capture and cancel states (domain/money_ops.MoneyOpState).
        "SENT": QCoreApplication.translate("Labels", "Sent to the service"),
        "CONFIRMED": QCoreApplication.translate("Labels", "Confirmed by the service"),
        "NOT_APPLIED": QCoreApplication.translate("Labels", "Not done"),
    }


# Every row of the event list and the history shows a status or two.
_status_labels = TranslatedTable("Labels", "Paid", _build_status_labels)


def sdk_kind_box(parent: QWidget) -> QComboBox:
    """A choice of the card SDK's credential kind (its data: the profile's `sdk_credential`)."""
    box = QComboBox(parent)
    # Its long item texts must not set the width of the window (the screen may be 1024 wide).
    box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    box.setMinimumContentsLength(16)
    box.addItem(QCoreApplication.translate("Labels", "Transparent token (tk_…)"), "transparent")
    box.addItem(
        QCoreApplication.translate("Labels", "Merchant token (the SDK hashes it with the CNPJ)"),
        "merchant",
    )
    box.setToolTip(
        QCoreApplication.translate(
            "Labels",
            "Which token the merchant panel gave for the card SDK: a transparent token starts "
            "with tk_; the documentation's setCredentials example uses a merchant token.",
        )
    )
    return box


def event_type_label(event_type: str | None) -> str:
    """A delivery's type in plain words; a type the terminal does not know is shown as sent."""
    if not event_type:
        return "—"
    payment = QCoreApplication.translate("Labels", "Payment update")
    three_ds = QCoreApplication.translate("Labels", "3DS result")
    self_test = QCoreApplication.translate("Labels", "Inbox health check")
    labels = {
        "TransactionUpdateMessage": payment,
        "PAYMENT": payment,
        "Challenge3dsUpdateMessage": three_ds,
        "THREE_DS_CHALLENGE": three_ds,
        "CheckoutDesktopSelfTest": self_test,
        "CHECKOUT_DESKTOP_SELF_TEST": self_test,
    }
    return labels.get(event_type, event_type)


def verdict_label(verdict: str | None) -> str:
    if not verdict:
        return "—"
    labels = {
        "accepted": QCoreApplication.translate("Labels", "Accepted"),
        "duplicate": QCoreApplication.translate("Labels", "Duplicate"),
        "unknown": QCoreApplication.translate("Labels", "Unknown type"),
        "self_test": QCoreApplication.translate("Labels", "Self-test"),
        "quarantined": QCoreApplication.translate("Labels", "Rejected"),
    }
    return labels.get(verdict, verdict)


def verdict_explanation(verdict: str) -> str:
    """One sentence on what the inbox did with a delivery of this verdict."""
    texts = {
        "accepted": QCoreApplication.translate(
            "Labels", "Accepted: stored and applied to its charge."
        ),
        "duplicate": QCoreApplication.translate(
            "Labels", "Duplicate: the same body arrived before; stored, not applied again."
        ),
        "unknown": QCoreApplication.translate(
            "Labels", "Unknown type: stored as received, not applied to any charge."
        ),
        "self_test": QCoreApplication.translate(
            "Labels", "Self-test: the inbox's own health check, not a charge event."
        ),
        "quarantined": QCoreApplication.translate(
            "Labels", "Rejected: the body could not be accepted; kept in quarantine."
        ),
    }
    return texts.get(verdict, verdict)


def source_label(source: str) -> str:
    """A timeline input's source."""
    labels = {
        "request": QCoreApplication.translate("Labels", "Request"),
        "reply": QCoreApplication.translate("Labels", "Reply"),
        "webhook": QCoreApplication.translate("Labels", "Notification"),
        "reconciliation": QCoreApplication.translate("Labels", "Reconciliation"),
        "3ds": QCoreApplication.translate("Labels", "3DS"),
        "system": QCoreApplication.translate("Labels", "System"),
    }
    return labels.get(source, source)


def outcome_label(outcome: str) -> str:
    labels = {
        "applied": QCoreApplication.translate("Labels", "applied"),
        "duplicate": QCoreApplication.translate("Labels", "no change"),
        "ignored": QCoreApplication.translate("Labels", "older, ignored"),
        "recorded": QCoreApplication.translate("Labels", "recorded"),
        "failed": QCoreApplication.translate("Labels", "failed"),
        "sent": QCoreApplication.translate("Labels", "sent"),
    }
    return labels.get(outcome, outcome)


def source_ref_label(ref: str) -> str:
    """What a timeline row came from: a stored notification or a money operation, by number."""
    kind, _, number = ref.replace(":", " ").partition(" ")
    if number.isdigit():
        if kind == "webhook_event":
            return QCoreApplication.translate("Labels", "notification #{id}").format(id=number)
        if kind == "operation":
            return QCoreApplication.translate("Labels", "refund or capture #{id}").format(id=number)
    return ref


def profile_label(profile: Profile) -> str:
    """An environment's name; the three built-in ones in the terminal's language."""
    defaults = default_profiles()
    known = defaults.get(profile.name)
    if known is None or known.label != profile.label:
        return profile.label
    labels = {
        ProfileKind.BUILTIN_SANDBOX: QCoreApplication.translate(
            "Labels", "Built-in sandbox (no account needed)"
        ),
        ProfileKind.SERVICE_SANDBOX: QCoreApplication.translate("Labels", "Service sandbox"),
        ProfileKind.PRODUCTION: QCoreApplication.translate("Labels", "Production"),
    }
    return labels.get(profile.kind, profile.label)


__all__ = [
    "outcome_label",
    "profile_label",
    "source_label",
    "source_ref_label",
    "status_label",
    "verdict_explanation",
    "verdict_label",
]
