"""Refunds and captures in the clerk's words: pending, refused (with the figures), unclear.

Shared by the history panel and the charge screen's result (Capture now). The texts keep the
history panel's translation context, where they were first written.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from checkout_desktop.charges.service import (
    MoneyOperationBusy,
    MoneyOperationError,
    MoneyOperationNotStored,
    MoneyOperationRefused,
    MoneyOperationUnknown,
)
from checkout_desktop.domain.money_ops import Figures, MoneyOpKind
from checkout_desktop.ui.formatting import format_money
from checkout_desktop.ui.labels import status_label
from checkout_desktop.ui.reasons import reason_text


def pending_text(kind: MoneyOpKind | str) -> str:
    """The clerk's message while an earlier operation of the charge is being confirmed."""
    texts = {
        MoneyOpKind.REFUND: QCoreApplication.translate(
            "HistoryPanel",
            "The previous refund is still being confirmed with the service. Another refund or "
            "capture of this charge is refused until it is, so that money never moves twice.",
        ),
        MoneyOpKind.CAPTURE: QCoreApplication.translate(
            "HistoryPanel",
            "The previous capture is still being confirmed with the service. Another refund or "
            "capture of this charge is refused until it is, so that money never moves twice.",
        ),
        MoneyOpKind.CANCEL: QCoreApplication.translate(
            "HistoryPanel",
            "The previous cancellation is still being confirmed with the service. Another "
            "refund or capture of this charge is refused until it is, so that money never "
            "moves twice.",
        ),
    }
    return texts.get(MoneyOpKind(kind), texts[MoneyOpKind.REFUND])


def figures_text(figures: Figures | None) -> str:
    """Where the charge stands at the service: status, amount, refunded."""
    if figures is None:
        return QCoreApplication.translate(
            "HistoryPanel", "The service could not be asked; its figures will be fetched again."
        )
    if figures.awaiting:
        return QCoreApplication.translate(
            "HistoryPanel", "The service shows: awaiting payment, nothing paid yet."
        )
    return QCoreApplication.translate(
        "HistoryPanel", "The service shows: {status}, {amount} charged, {refunded} refunded."
    ).format(
        status=status_label(None if figures.status is None else str(figures.status)),
        amount=format_money(figures.amount),
        refunded=format_money(figures.refunded),
    )


def not_stored_text(exc: MoneyOperationNotStored) -> str:
    """The store failed during the operation: whether anything was sent, and what comes next."""
    if exc.sent:
        return QCoreApplication.translate(
            "HistoryPanel",
            "The request was sent, but the store could not record its answer. The terminal asks "
            "the service once the store answers and will not send it again; nothing else can be "
            "done with this charge until then.",
        )
    if exc.problem == "unreachable":
        return QCoreApplication.translate(
            "HistoryPanel",
            "Not done: the shop's shared store does not answer (the server is down, or the "
            "network is in the way), so it could not be recorded. Nothing was sent; try again "
            "once the store answers.",
        )
    return QCoreApplication.translate(
        "HistoryPanel",
        "Not done: the store could not record it. Nothing was sent; try again once the store "
        "answers.",
    )


def money_error_text(exc: MoneyOperationError) -> str:
    """A refused, pending or unclear refund/capture in the clerk's words, with the figures."""
    if isinstance(exc, MoneyOperationBusy):
        return pending_text(exc.kind if exc.pending is None else exc.pending.kind)
    if isinstance(exc, MoneyOperationUnknown):
        return QCoreApplication.translate(
            "HistoryPanel",
            "The request was sent but its answer was lost. The terminal is asking the service "
            "and will not send it again; nothing else can be done with this charge until then.",
        )
    if isinstance(exc, MoneyOperationNotStored):
        return not_stored_text(exc)
    assert isinstance(exc, MoneyOperationRefused)
    return (
        QCoreApplication.translate("HistoryPanel", "Not done: {why}.").format(
            why=reason_text(exc.why)
        )
        + " "
        + figures_text(exc.figures)
    )
