"""A charge's status as the history shows it to the clerk, as one category the search can find.

Pure logic, no I/O. A card charge shows the service's status, except that a paid charge with
money refunded shows as refunded in part (or in full), as it would if the service said PARTIAL
(or REFUNDED). A QR charge shows what its transaction means (`domain/qr.py`): awaiting payment
while its charge says PENDING or PRE_AUTHORIZED, paid once paid (a paid wallet's charge says
AUTHORIZED), expired when its transaction expired, cancelled or refunded as the money went. A
row with no charge status (a 3DS result, or the charge a 3DS setup opened) for a sale whose
attempt ended with no charge at the service was never charged. The store keeps the category
beside the charge (written with every charge), so the history's status filter finds exactly the
rows shown with the words the clerk chose.
"""

from __future__ import annotations

import logging

from checkout_desktop.domain.enums import ChargeStatus, OpenStrEnum
from checkout_desktop.domain.qr import QrPhase, effective_status, qr_phase
from checkout_desktop.domain.state import AttemptState, ChargeState

logger = logging.getLogger(__name__)


class ShownStatus(OpenStrEnum):
    """What the history shows as a charge's status. A status the service has not published is
    kept (and shown) as it came, as a pseudo-member."""

    AWAITING_PAYMENT = "AWAITING_PAYMENT"
    """A QR created and not paid yet (its charge says PENDING or PRE_AUTHORIZED)."""
    PENDING = "PENDING"
    PRE_AUTHORIZED = "PRE_AUTHORIZED"
    AUTHORIZED = "AUTHORIZED"
    PAID = "PAID"
    PARTIAL = "PARTIAL"
    REFUNDED = "REFUNDED"
    CANCELED = "CANCELED"
    EXPIRED = "EXPIRED"
    """A QR that expired unpaid."""
    DENIED = "DENIED"
    ERROR = "ERROR"
    CHARGEBACK = "CHARGEBACK"
    NOT_CHARGED = "NOT_CHARGED"
    """A sale whose attempt ended with no charge at the service (3DS refused it, say)."""


NEVER_CHARGED_ATTEMPTS = frozenset({AttemptState.REJECTED, AttemptState.NOT_FOUND})
"""Attempt states that leave a row with no charge status with nothing at the service."""

_AWAITING_SAYS = frozenset({ChargeStatus.PENDING, ChargeStatus.PRE_AUTHORIZED})
# A QR not paid by its transaction's word whose charge still says it is paid (a wallet's charge
# says AUTHORIZED once paid, before its transaction says CAPTURED).
_PAID_SAYS = frozenset({ChargeStatus.AUTHORIZED, ChargeStatus.PAID, "CAPTURED"})


def never_charged(status: ChargeStatus | None, attempt: AttemptState | None) -> bool:
    """A row with no charge status whose sale's attempt ended with no charge at the service."""
    return status is None and attempt in NEVER_CHARGED_ATTEMPTS


def _of(status: ChargeStatus | None) -> ShownStatus | None:
    return None if status is None else ShownStatus(str(status))


def shown_status(state: ChargeState, attempt: AttemptState | None = None) -> ShownStatus | None:
    """The category the history shows for a charge in `state` whose sale's attempt stands at
    `attempt` (None: no attempt here, or not known); None when it shows no status at all."""
    if never_charged(state.status, attempt):
        return ShownStatus.NOT_CHARGED
    phase = qr_phase(state)
    if phase == QrPhase.AWAITING:
        status = state.status
        if status in _AWAITING_SAYS:
            return ShownStatus.AWAITING_PAYMENT
        if status is not None and str(status).upper() in _PAID_SAYS:
            return ShownStatus.PAID
        return _of(status)
    if phase == QrPhase.EXPIRED:
        return ShownStatus.EXPIRED
    return _of(_money_status(state, phase))


def money_status(state: ChargeState) -> ChargeStatus | None:
    """The status that says what the charge's money did, as the history and receipts show it:
    a QR's as its transaction means (`effective_status`), a card's as the service says, except
    a paid card charge with money refunded, which is refunded in part (or in full)."""
    return _money_status(state, qr_phase(state))


def _money_status(state: ChargeState, phase: QrPhase | None) -> ChargeStatus | None:
    if phase is not None:
        return effective_status(state)
    refunded = state.refunded_amount or 0
    if state.status == ChargeStatus.PAID and refunded > 0:
        # Whether the service says PARTIAL after a partial refund or keeps PAID is not known
        # (the sandbox plays both): the clerk and the customer read the same words.
        whole = state.amount is not None and refunded >= state.amount
        return ChargeStatus.REFUNDED if whole else ChargeStatus.PARTIAL
    return state.status


__all__ = [
    "NEVER_CHARGED_ATTEMPTS",
    "ShownStatus",
    "money_status",
    "never_charged",
    "shown_status",
]
