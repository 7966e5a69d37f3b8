"""The status a stored notification is listed with, and the event list's status filter.

Pure logic, no I/O. A QR charge's notification (PicPay wallet or PIX: its charge holds a QR
transaction) is listed in the words the History uses for a charge in the state that
notification describes (`domain/shown_status.py`): its own transactions say what happened, not
the charge status beside them nor the charge's later news. A new QR's notification says
awaiting payment, a paid one paid, an expired one expired whether the service's charge stays
PRE_AUTHORIZED or says CANCELED, and one the service calls CANCELED once the QR's time had run
out expired as well (a PIX notification carries no expiry: the stored charge's is used, see
`needs_stored_expiry`). Any other notification (a card's, a 3DS result, one not understood) is
listed by the status it carries.

The store keeps that word beside the delivery (`webhook_event.shown_status`, written with the
row), so each choice of the status filter is a set of those values, each walked down the
column's own index newest first (`status_walks`): a page stays an index walk over a million
deliveries, and finds exactly the rows shown with the chosen words.
"""

from __future__ import annotations

import json
import logging
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING

from pydantic import ValidationError

from checkout_desktop.domain.enums import ChargeStatus, TransactionStatus
from checkout_desktop.domain.qr import qr_transaction
from checkout_desktop.domain.shown_status import shown_status
from checkout_desktop.domain.state import ChargeState, transaction_from_info
from checkout_desktop.domain.wire import (
    ChargeUpdate,
    PaymentEnvelope,
    PaymentFlat,
    payment_update,
    validate_webhook_json,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    from checkout_desktop.domain.deliveries import EventFilter, NewEvent

logger = logging.getLogger(__name__)


EVENT_STATUS_CHOICES: dict[str, tuple[str, ...]] = {
    "AWAITING_PAYMENT": ("AWAITING_PAYMENT",),
    "PENDING": ("PENDING",),
    "PRE_AUTHORIZED": ("PRE_AUTHORIZED",),
    "AUTHORIZED": ("AUTHORIZED",),
    "PAID": ("PAID",),
    "CAPTURED": ("CAPTURED",),
    "PARTIAL": ("PARTIAL", "PARTIALLY_REFUNDED"),
    "REFUNDED": ("REFUNDED",),
    "CANCELED": ("CANCELED",),
    "EXPIRED": ("EXPIRED",),
    "DENIED": ("DENIED",),
    "ERROR": ("ERROR",),
    "CHARGEBACK": ("CHARGEBACK",),
    "Approved": ("Approved",),
    "Challenged": ("Challenged",),
    "Rejected": ("Rejected",),
}
"""Each choice of the list's status filter (in the order offered) and the stored shown statuses
it finds (a partly refunded charge may be said PARTIAL or PARTIALLY_REFUNDED: one word)."""


def _notification_state(update: ChargeUpdate) -> ChargeState:
    """The charge as this one notification describes it, on its own."""
    return ChargeState(
        merchant_charge_id=update.merchant_charge_id,
        charge_id=update.charge_id,
        status=update.status,
        status_at=update.occurred_at,
        amount=update.amount,
        refunded_amount=update.refunded_amount,
        transactions=tuple(
            transaction_from_info(info, index) for index, info in enumerate(update.transactions)
        ),
    )


def needs_stored_expiry(update: ChargeUpdate) -> bool:
    """Whether the notification's word depends on the QR's expiry it does not carry: a QR the
    service calls CANCELED (transaction or charge) may have expired, which only its expiry
    tells, and a PIX notification carries none (the stored charge has it: `event_shown_status`)."""
    if not update.names_a_qr:
        # A card's (nearly every delivery, asked about by the listener and by the writer):
        # no state is built from it.
        return False
    txn = qr_transaction(_notification_state(update))
    if txn is None or txn.expires_at is not None:
        return False
    return txn.status == TransactionStatus.CANCELED or (
        update.status == ChargeStatus.CANCELED and txn.status != TransactionStatus.EXPIRED
    )


def event_shown_status(update: ChargeUpdate, stored_expiry: datetime | None = None) -> str | None:
    """The status a payment notification is listed with: a QR's as the History would show a
    charge in the state the notification describes, with `stored_expiry` (the stored charge's
    QR expiry) standing in for an expiry the notification does not carry; a card's as it came.
    """
    if not update.names_a_qr:
        return str(update.status)  # a card's: nothing to build
    state = _notification_state(update)
    txn = qr_transaction(state)
    if txn is None:
        return str(update.status)
    if txn.expires_at is None and stored_expiry is not None:
        filled = tuple(
            replace(t, expires_at=stored_expiry) if t is txn else t for t in state.transactions
        )
        state = replace(state, transactions=filled)
    shown = shown_status(state)
    return str(update.status) if shown is None else str(shown)


def with_stored_expiry(
    event: NewEvent, update: object, charge_state_json: Callable[[str], str | None]
) -> NewEvent:
    """The delivery about to be stored, its shown status read again with the stored charge's QR
    expiry (`charge_state_json(merchant_charge_id)`: its state as stored) when its word depends
    on an expiry it does not carry; else as it is (no read)."""
    if not isinstance(update, ChargeUpdate) or not needs_stored_expiry(update):
        return event
    expiry = stored_qr_expiry(charge_state_json(update.merchant_charge_id))
    return replace(event, shown_status=event_shown_status(update, expiry))


def stored_qr_expiry(state_json: str | None) -> datetime | None:
    """A stored charge's QR expiry (its state as stored), or None when it has none or its
    state cannot be read."""
    if not state_json:
        return None
    try:
        txn = qr_transaction(ChargeState.from_json(json.loads(state_json)))
    except (ValueError, TypeError, KeyError, AttributeError):
        return None
    return None if txn is None else txn.expires_at


def stored_event_shown_status(
    body: bytes | None, status: str | None, charge_state_json: str | None
) -> str | None:
    """The status a stored delivery is listed with, from its body as stored (a schema step fills
    the rows stored before the column): a payment notification's as `event_shown_status`, with
    the stored charge's QR expiry; anything else (or a body no longer read) by its status."""
    if not body:
        return status
    try:
        parsed = validate_webhook_json(bytes(body))
        if not isinstance(parsed, PaymentFlat | PaymentEnvelope):
            return status
        update = payment_update(parsed, received_at=datetime.min)
        expiry = stored_qr_expiry(charge_state_json) if needs_stored_expiry(update) else None
        return event_shown_status(update, expiry)
    except (ValidationError, ValueError, TypeError, KeyError, AttributeError):
        # A body this version no longer reads is listed by its status: an upgrade never stops
        # on one odd row.
        return status


def status_walks(where: EventFilter | None) -> list[EventFilter | None]:
    """The filter as one filter per shown status its choice looks at, each a keyset walk down
    that status's own index (newest first), whose pages the store merges by id. A status index
    serves one status at a time in id order: several in one condition would be sorted whole."""
    if where is None or len(set(where.shown)) < 2:
        return [where]
    return [replace(where, shown=(shown,)) for shown in dict.fromkeys(where.shown)]


__all__ = [
    "EVENT_STATUS_CHOICES",
    "event_shown_status",
    "needs_stored_expiry",
    "status_walks",
    "stored_event_shown_status",
    "stored_qr_expiry",
    "with_stored_expiry",
]
