"""The event list's status filter: each choice names the words a row is shown with, and finds
exactly the rows shown so.

Pure logic, no I/O. The list shows a card charge's notification by its status and a QR
charge's (PicPay wallet or PIX: its charge holds a QR transaction) as the clerk means it
(`ui/qr_texts.py` `qr_event_status_text`): a new QR's PENDING or PRE_AUTHORIZED as awaiting
payment, a paid wallet's AUTHORIZED or CAPTURED as paid, an ended QR's CANCELED or EXPIRED as
expired, cancelled or just ended by what its transaction says. A choice is a set of matches on
what a row holds: its stored status, whether its charge is a QR charge, and for an ended QR the
status of its QR transaction. The stores turn them into SQL and walk each stored status on its
own index (`status_walks`), so a page stays an index walk over a million deliveries.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from checkout_desktop.domain.deliveries import EventFilter

logger = logging.getLogger(__name__)


class Tender(StrEnum):
    """Which rows a match holds for, by their charge's tender."""

    ANY = "any"
    CARD = "card"
    """Rows whose charge holds no QR transaction (a card's, or a charge not known here)."""
    QR = "qr"


QR_ENDED = ("EXPIRED", "CANCELED")
"""A QR charge's statuses (and its transaction's) that say the QR has ended."""
OTHER = "OTHER"
"""An ended QR whose transaction says neither EXPIRED nor CANCELED (the list says "Ended")."""


@dataclass(frozen=True)
class StatusMatch:
    """Rows with this stored status, of this tender; for an ended QR, whose QR transaction
    says `qr_transaction` (EXPIRED, CANCELED, or OTHER for anything else or nothing)."""

    status: str
    tender: Tender = Tender.ANY
    qr_transaction: str | None = None


_CARD, _QR = Tender.CARD, Tender.QR


def _ended(qr_transaction: str) -> tuple[StatusMatch, ...]:
    return tuple(StatusMatch(status, _QR, qr_transaction) for status in QR_ENDED)


EVENT_STATUS_CHOICES: dict[str, tuple[StatusMatch, ...]] = {
    "AWAITING_PAYMENT": (StatusMatch("PENDING", _QR), StatusMatch("PRE_AUTHORIZED", _QR)),
    "PENDING": (StatusMatch("PENDING", _CARD),),
    "PRE_AUTHORIZED": (StatusMatch("PRE_AUTHORIZED", _CARD),),
    "AUTHORIZED": (StatusMatch("AUTHORIZED", _CARD),),
    "PAID": (
        StatusMatch("PAID"),
        StatusMatch("CAPTURED", _QR),
        StatusMatch("AUTHORIZED", _QR),
    ),
    "CAPTURED": (StatusMatch("CAPTURED", _CARD),),
    "PARTIAL": (StatusMatch("PARTIAL"), StatusMatch("PARTIALLY_REFUNDED")),
    "REFUNDED": (StatusMatch("REFUNDED"),),
    "CANCELED": (StatusMatch("CANCELED", _CARD), *_ended("CANCELED")),
    "EXPIRED": (StatusMatch("EXPIRED", _CARD), *_ended("EXPIRED")),
    "ENDED": _ended(OTHER),
    "DENIED": (StatusMatch("DENIED"),),
    "ERROR": (StatusMatch("ERROR"),),
    "CHARGEBACK": (StatusMatch("CHARGEBACK"),),
    "Approved": (StatusMatch("Approved"),),
    "Challenged": (StatusMatch("Challenged"),),
    "Rejected": (StatusMatch("Rejected"),),
}
"""Each choice of the list's status filter (in the order offered) and the rows it finds."""


def status_walks(where: EventFilter | None) -> list[EventFilter | None]:
    """The filter as one filter per stored status its choice looks at, each a keyset walk down
    that status's own index (newest first), whose pages the store merges by id. A status index
    serves one status at a time in id order: several in one condition would be sorted whole."""
    if where is None or len({match.status for match in where.shown}) < 2:
        return [where]
    by_status: dict[str, list[StatusMatch]] = {}
    for match in where.shown:
        by_status.setdefault(match.status, []).append(match)
    return [replace(where, shown=tuple(matches)) for matches in by_status.values()]


__all__ = [
    "EVENT_STATUS_CHOICES",
    "OTHER",
    "QR_ENDED",
    "StatusMatch",
    "Tender",
    "status_walks",
]
