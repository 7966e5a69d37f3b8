"""Money operations on a charge (refund, capture, cancel): states, and settling one by the figures.

Pure logic, no I/O. A money operation is recorded before it is sent, like a charge attempt;
when its reply is lost it is settled only by what the service's figures show (the refunded
amount, the status and the transactions), compared with what was asked and with the figures
the service showed just before it was sent. The reasons the timeline shows are all built by
`money_reason`, one template per step.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from enum import StrEnum

from checkout_desktop.domain.enums import ChargeStatus
from checkout_desktop.domain.qr import awaiting_payment, effective_status
from checkout_desktop.domain.reasons import Reason, ReasonCode
from checkout_desktop.domain.state import ChargeState, charge_stage

logger = logging.getLogger(__name__)


class MoneyOpKind(StrEnum):
    REFUND = "refund"
    """Part or all of a captured (PAID) charge goes back to the card."""
    CAPTURE = "capture"
    """A PRE_AUTHORIZED charge is charged."""
    CANCEL = "cancel"
    """A PRE_AUTHORIZED charge is released in full (sent as a refund of the whole amount)."""


class MoneyOpState(StrEnum):
    RECORDED = "RECORDED"
    """Committed durably before sending; it may or may not have left the terminal."""
    SENT = "SENT"
    """Handed to the network; the reply has not been read."""
    UNKNOWN = "UNKNOWN"
    """Sent without a usable reply: settled only by querying the charge, never by resending."""
    CONFIRMED = "CONFIRMED"
    """The service did it (its reply, or its figures, say so)."""
    REJECTED = "REJECTED"
    """The service refused it, or it never reached the service: nothing was moved."""
    NOT_APPLIED = "NOT_APPLIED"
    """After an unclear outcome, the service's figures show it did not happen, once it could
    no longer happen (the service answered, or the grace period passed)."""


UNRESOLVED_MONEY_STATES = frozenset(
    {MoneyOpState.RECORDED, MoneyOpState.SENT, MoneyOpState.UNKNOWN}
)


@dataclass(frozen=True)
class Figures:
    """What the service shows of a charge: the numbers an operation is judged by."""

    status: ChargeStatus | None
    amount: int | None
    refunded: int
    awaiting: bool = False
    """A QR not paid yet: its amount is what it asks for, not what was charged."""

    @classmethod
    def of(cls, state: ChargeState) -> Figures:
        refunded = state.refunded_amount
        if refunded is None:
            refunded = sum(t.refunded_amount or 0 for t in state.transactions)
        # A QR charge's figures carry the status its transaction means (a paid wallet says
        # AUTHORIZED, an expired QR may still say PRE_AUTHORIZED); a card's its own.
        return cls(effective_status(state), state.amount, refunded, awaiting_payment(state))

    def reason(self) -> Reason:
        """The figures as a reason (status, refunded, amount), for the timeline and the clerk."""
        status = None if self.status is None else str(self.status)
        if self.amount is None:
            return Reason.of(
                ReasonCode.FIGURES_NO_AMOUNT, status=status, refunded_amount=self.refunded
            )
        return Reason.of(
            ReasonCode.FIGURES, status=status, refunded_amount=self.refunded, amount=self.amount
        )

    def describe(self) -> str:
        return self.reason().english()


def is_done(kind: MoneyOpKind, amount: int, base_refunded: int, figures: Figures) -> bool:
    """Whether the service's figures show the operation done.

    A refund is done once the refunded amount reached what it was before the refund plus the
    refund; a cancel once the charge is CANCELED (or REFUNDED); a capture once the charge is
    PAID or anything later in its life except a cancellation.
    """
    if kind == MoneyOpKind.REFUND:
        return figures.refunded >= base_refunded + amount
    if kind == MoneyOpKind.CANCEL:
        return figures.status in (ChargeStatus.CANCELED, ChargeStatus.REFUNDED)
    if figures.status in (ChargeStatus.CANCELED, ChargeStatus.DENIED, ChargeStatus.ERROR):
        return False
    return charge_stage(figures.status) >= charge_stage(ChargeStatus.PAID)


# One reason per step of an operation's life, as the timeline shows it.
MONEY_STEPS: dict[str, ReasonCode] = {
    "requested": ReasonCode.STEP_REQUESTED,
    "sent": ReasonCode.STEP_SENT,
    "confirmed": ReasonCode.STEP_CONFIRMED,
    "unknown": ReasonCode.STEP_UNKNOWN,
    "refused": ReasonCode.STEP_REFUSED,
    "not_sent": ReasonCode.STEP_NOT_SENT,
    "not_applied": ReasonCode.STEP_NOT_APPLIED,
    "waiting": ReasonCode.STEP_WAITING,
}
_KINDS = {
    MoneyOpKind.REFUND: ReasonCode.REFUND_OF,
    MoneyOpKind.CAPTURE: ReasonCode.CAPTURE_OF,
    MoneyOpKind.CANCEL: ReasonCode.CANCEL_OF,
}


def money_operation(kind: MoneyOpKind | str, amount: int) -> Reason:
    """ "refund of 500 centavos", as a reason."""
    return Reason.of(_KINDS[MoneyOpKind(kind)], amount=amount)


def money_reason(
    kind: MoneyOpKind | str, amount: int, step: str, detail: str | Reason | None = None
) -> Reason:
    """The timeline's reason for one step of one operation."""
    operation = money_operation(kind, amount)
    phrase = Reason.of(MONEY_STEPS[step])
    if (
        MoneyOpKind(kind) == MoneyOpKind.CAPTURE
        and isinstance(detail, Reason)
        and detail.code == ReasonCode.FIGURES
        and detail.args.get("refunded_amount") == 0
    ):
        # A capture refunds nothing: "refunded 0 of 5000" beside it is noise.
        detail = Reason.of(
            ReasonCode.FIGURES_NOTHING_REFUNDED,
            status=detail.args.get("status"),
            amount=detail.args.get("amount"),
        )
    if detail is None or detail == "":
        return Reason.of(ReasonCode.MONEY_STEP, operation=operation, step=phrase)
    return Reason.of(ReasonCode.MONEY_STEP_DETAIL, operation=operation, step=phrase, detail=detail)


__all__ = [
    "MONEY_STEPS",
    "UNRESOLVED_MONEY_STATES",
    "Figures",
    "MoneyOpKind",
    "MoneyOpState",
    "is_done",
    "money_operation",
    "money_reason",
]
