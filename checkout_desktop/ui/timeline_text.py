"""A charge's timeline in plain words: who spoke, what happened, and (on request) the raw detail."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable

from PySide6.QtCore import QCoreApplication

from checkout_desktop.domain.enums import PaymentType
from checkout_desktop.domain.reasons import Reason, ReasonCode
from checkout_desktop.domain.records import TimelineRecord
from checkout_desktop.ui.formatting import format_instant, format_instant_precise
from checkout_desktop.ui.labels import outcome_label, source_label, source_ref_label, status_label
from checkout_desktop.ui.qr_panel import kind_text
from checkout_desktop.ui.qr_texts import qr_sentence, qr_status_text, transaction_status_of
from checkout_desktop.ui.reasons import reason_text

logger = logging.getLogger(__name__)

# Statuses of a charge (the rest a timeline shows are states of an attempt).
_CHARGE_STATUSES = frozenset(
    {
        "PENDING",
        "PRE_AUTHORIZED",
        "AUTHORIZED",
        "PAID",
        "PARTIAL",
        "DENIED",
        "ERROR",
        "CANCELED",
        "REFUNDED",
        "CHARGEBACK",
        "EXPIRED",
    }
)


def who_label(source: str) -> str:
    """Where a timeline line came from, as a clerk would say it."""
    labels = {
        "request": QCoreApplication.translate("Timeline", "This terminal"),
        "reply": QCoreApplication.translate("Timeline", "Service's reply"),
        "webhook": QCoreApplication.translate("Timeline", "Notification"),
        "reconciliation": QCoreApplication.translate("Timeline", "Terminal asked the service"),
        "3ds": QCoreApplication.translate("Timeline", "3DS check"),
        "system": QCoreApplication.translate("Timeline", "This terminal"),
    }
    return labels.get(source, source)


def _sentence(text: str) -> str:
    text = text.strip()
    if not text:
        return ""
    text = text[0].upper() + text[1:]
    return text if text.endswith((".", "!", "?", "…")) else text + "."


def _status_words(qr: PaymentType | None) -> Callable[[str | None], str]:
    """How a charge status reads on a line: a QR charge's as the clerk means it."""
    return status_label if qr is None else qr_status_text


def what_happened(item: TimelineRecord, *, qr: PaymentType | None = None) -> str:
    """One plain sentence for a timeline line (no codes, arrows or empty-set signs); `qr`: the
    charge is a QR of that tender (its lines say awaiting payment, not pre-authorized)."""
    words = _status_words(qr)
    reason = reason_text(item.reason_data, item.reason)
    first = reason.splitlines()[0] if reason else ""
    charge_row = item.new_status in _CHARGE_STATUSES or item.new_status is None
    is_operation = bool(item.source_ref and item.source_ref.startswith("operation"))
    status_moved = bool(item.new_status and item.previous_status != item.new_status)
    resolved = item.reason_data
    if qr is not None and resolved is not None and resolved.code == ReasonCode.ATTEMPT_RESOLVED:
        status = resolved.args.get("status")
        return QCoreApplication.translate(
            "Timeline", "The service has this {kind} QR ({status}); attempt resolved."
        ).format(
            kind=kind_text(qr), status=qr_status_text(status if isinstance(status, str) else None)
        )
    if (is_operation and not (status_moved and charge_row and item.outcome == "applied")) or (
        not charge_row
    ):
        # Refunds, captures and attempts already say in words what step they reached.
        return _sentence(first)
    if resolved is not None and resolved.code.startswith("three_ds.") and not status_moved:
        # A 3-D Secure step moves no charge status: its own words say what happened.
        return _sentence(first)
    if item.source == "system" and not (item.new_status or item.input_status):
        # The terminal's own note on the way (a card-token spelling retried and kept): it
        # carries no news of the charge, only what it says.
        return _sentence(first)
    after = words(item.new_status) if item.new_status else ""
    told = qr_sentence(item)
    if told is not None:
        # A QR's charge status says little (a new and an expired QR may both read
        # pre-authorized): its transaction tells what happened.
        context = _context(item)
        if context is None:
            return told
        return QCoreApplication.translate("Timeline", "{context}: {what}").format(
            context=_sentence(context).rstrip("."), what=told[:1].lower() + told[1:]
        )
    if item.outcome == "applied":
        if item.new_status and item.previous_status != item.new_status:
            if item.previous_status and item.previous_status in _CHARGE_STATUSES:
                moved: str = QCoreApplication.translate(
                    "Timeline", "The charge went from {before} to {after}."
                ).format(before=words(item.previous_status), after=after)
            else:
                moved = QCoreApplication.translate("Timeline", "The charge is {status}.").format(
                    status=after
                )
            context = _context(item)
            if context is None:
                return moved
            # What the line answered (a capture, a query) before what it did to the charge.
            return QCoreApplication.translate("Timeline", "{context}: {what}").format(
                context=_sentence(context).rstrip("."), what=moved[:1].lower() + moved[1:]
            )
        return QCoreApplication.translate(
            "Timeline", "More details of the charge arrived; its status stays {status}."
        ).format(status=after or "—")
    if item.outcome == "duplicate":
        said = words(item.input_status or item.new_status)
        return QCoreApplication.translate(
            "Timeline", "Nothing new: the charge was already {status}."
        ).format(status=said)
    if item.outcome == "ignored":
        return QCoreApplication.translate(
            "Timeline", "Older news than what the terminal already knew; set aside."
        )
    return _sentence(first)


def _context(item: TimelineRecord) -> str | None:
    """Why the input was asked for (a refund's step, a query at start-up), if it says."""
    data = item.reason_data
    if data is None or data.code != ReasonCode.WITH_CONTEXT:
        return None
    context = data.args.get("context")
    return reason_text(context) if isinstance(context, Reason) else None


def status_after(item: TimelineRecord, *, qr: PaymentType | None = None) -> str:
    """The charge's status after this line, only when the line changed it (the steps of an
    attempt or a refund are told by the line's sentence); a QR's as the clerk means it."""
    if item.new_status in _CHARGE_STATUSES and item.previous_status != item.new_status:
        if qr is not None:
            return qr_status_text(item.new_status, transaction_status_of(item))
        return status_label(item.new_status)
    return ""


def plain_detail(item: TimelineRecord, *, qr: PaymentType | None = None) -> str:
    """The detail a clerk reads: when, from where, what happened and why."""
    lines = [
        f"{format_instant(item.recorded_at)} · {who_label(item.source)}",
        what_happened(item, qr=qr),
    ]
    reason = reason_text(item.reason_data, item.reason)
    if reason and _sentence(reason.splitlines()[0]) != lines[-1]:
        lines.append(QCoreApplication.translate("Timeline", "Why: {reason}").format(reason=reason))
    if item.occurred_at is not None:
        lines.append(
            QCoreApplication.translate("Timeline", "At the service: {at}").format(
                at=format_instant(item.occurred_at)
            )
        )
    return "\n".join(lines)


def developer_detail(item: TimelineRecord) -> str:
    """Everything stored about the line, for support: raw source, outcome, changes, body."""
    lines = [
        f"{format_instant_precise(item.recorded_at)} · {source_label(item.source)} · "
        f"{outcome_label(item.outcome)}",
        reason_text(item.reason_data, item.reason),
    ]
    if item.occurred_at is not None:
        lines.append(
            QCoreApplication.translate("Timeline", "occurred at the service: {at}").format(
                at=format_instant_precise(item.occurred_at)
            )
        )
    if item.input_status:
        lines.append(
            QCoreApplication.translate("Timeline", "input: {status}").format(
                status=item.input_status
            )
        )
    if item.previous_status or item.new_status:
        lines.append(
            QCoreApplication.translate(
                "Timeline", "status before: {before}; after: {after}"
            ).format(before=item.previous_status or "—", after=item.new_status or "—")
        )
    if item.source_ref:
        lines.append(
            QCoreApplication.translate("Timeline", "source: {ref}").format(
                ref=source_ref_label(item.source_ref)
            )
        )
    if item.changes:
        shown = (
            ", ".join(reason_text(c) for c in item.changes_data)
            if item.changes_data is not None
            else ", ".join(item.changes)
        )
        lines.append(
            QCoreApplication.translate("Timeline", "changes: {changes}").format(changes=shown)
        )
    if item.body is not None:
        lines.append(json.dumps(item.body, indent=2, ensure_ascii=False))
    return "\n".join(lines)


__all__ = ["developer_detail", "plain_detail", "status_after", "what_happened", "who_label"]
