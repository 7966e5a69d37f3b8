"""Webhook deliveries as the inbox stores them: a new delivery, a summary, a whole one, filters.

Plain records, defined below the store so that the event list, export and the store's backends
share them without importing one another.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from checkout_desktop.domain.enums import Verdict
from checkout_desktop.domain.event_status import status_walks
from checkout_desktop.domain.events import DomainEvent
from checkout_desktop.domain.reasons import Reason
from checkout_desktop.domain.wire import ChargeUpdate, ThreeDsUpdate

logger = logging.getLogger(__name__)

MAX_PAGE = 1000
"""The most deliveries one read returns (a page, a burst, an export batch)."""


@dataclass(frozen=True)
class NewEvent:
    """A delivery about to be stored (the verdict may still turn into DUPLICATE)."""

    received_at: datetime
    verdict: Verdict
    body: bytes
    body_sha256: str
    headers: Mapping[str, str]
    reason: Reason | None = None
    event_type: str | None = None
    body_type: str | None = None
    layout: str | None = None
    event_ref: str | None = None
    merchant_charge_id: str | None = None
    charge_id: str | None = None
    status: str | None = None
    content_type: str | None = None
    remote: str | None = None
    duplicate_of: int | None = None
    shown_status: str | None = None
    """The status the list shows it with (`domain/event_status.py` `event_shown_status`: a QR
    notification's in the History's words); None: its `status`."""


@dataclass(frozen=True)
class EventSummary:
    """One row of the event list: everything but the headers and the body."""

    id: int
    received_at: datetime
    verdict: Verdict
    reason: str | None
    event_type: str | None
    body_type: str | None
    layout: str | None
    event_ref: str | None
    merchant_charge_id: str | None
    charge_id: str | None
    status: str | None
    duplicate_of: int | None
    merge_outcome: str | None
    reason_data: Reason | None
    """`reason` as a code and arguments (None on rows stored before reasons were kept so)."""
    merge_data: Reason | None
    """`merge_outcome` likewise."""
    qr_tender: str | None
    """WALLET or PIX when the charge is ours and was a QR (its transaction's payment type),
    else None: the charge status a QR's notification carries means something else to a clerk."""
    shown_status: str | None
    """The status the list shows (`domain/event_status.py`): a QR notification's in the words
    the History uses for the state it describes, any other's as it came."""


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not strict JSON")


@dataclass(frozen=True)
class StoredEvent(EventSummary):
    """A whole stored delivery, as received (the Authorization value was never kept)."""

    body_sha256: str
    content_type: str | None
    remote: str | None
    headers: dict[str, str]
    body: bytes

    def body_text(self) -> str:
        return self.body.decode("utf-8", errors="replace")

    def body_json(self) -> Any | None:
        """The body as JSON, or None when it is not valid, strict JSON (quarantined bodies:
        broken, nested too deep, a number too long, NaN or Infinity)."""
        try:
            return json.loads(self.body, parse_constant=_refuse_constant)
        except (ValueError, RecursionError):
            # ValueError covers UnicodeDecodeError, JSONDecodeError and integers past
            # Python's digit limit.
            return None


@dataclass(frozen=True)
class EventFilter:
    """Filters of the event list; empty fields filter nothing.

    `types` matches the event-type header or the body's `type`; `charge` matches the merchant
    charge id or the service's charge id; `text` is a case-insensitive substring of the ids,
    types, status, reason or body (`page` looks it up in the search index where the store has
    one and the text has 3+ characters, and scans the rows the index does not hold yet; a scan
    is fast when matches are common, as it stops after a page).
    """

    types: tuple[str, ...] = ()
    exclude_types: tuple[str, ...] = ()
    """Types left out (the inbox's own health self-tests, unless asked for)."""
    statuses: tuple[str, ...] = ()
    """Stored statuses, as the service sent them."""
    shown: tuple[str, ...] = ()
    """Statuses as the list shows them (`domain/event_status.py` EVENT_STATUS_CHOICES): a QR
    charge's notifications in the QR's words, a card's in its own."""
    verdicts: tuple[Verdict, ...] = ()
    charge: str | None = None
    text: str | None = None
    since: datetime | None = None
    until: datetime | None = None


@dataclass(frozen=True)
class EventPage:
    """One page, newest first; pass `next_before` to get the following (older) page."""

    rows: list[EventSummary] = field(default_factory=list)
    next_before: int | None = None


def page_of_walks(
    where: EventFilter | None,
    limit: int,
    walk: Callable[[EventFilter | None, int], list[EventSummary]],
) -> EventPage:
    """One page, newest first, from `walk(filter, want)` (up to `want` matching rows, newest
    first): once per stored status a status choice looks at (`status_walks`), each down its own
    index, the rows merged by id. Both stores page their event lists through this."""
    walks = status_walks(where)
    rows = walk(walks[0], limit + 1)
    if len(walks) > 1:
        for each in walks[1:]:
            rows += walk(each, limit + 1)
        rows = sorted(rows, key=lambda row: -row.id)[: limit + 1]
    more = len(rows) > limit
    rows = rows[:limit]
    return EventPage(rows=rows, next_before=rows[-1].id if more and rows else None)


@dataclass(frozen=True)
class Delivery:
    """One delivery of an inbox batch: its row, and the update to apply when it is accepted."""

    event: NewEvent
    update: ChargeUpdate | ThreeDsUpdate | None


@dataclass(frozen=True)
class IndexProgress:
    """The search index's progress: whether there is one, the last id it holds, the newest."""

    searchable: bool
    indexed: int
    latest: int


@dataclass(frozen=True)
class Applied:
    """What the charge state machine did with one delivery."""

    outcome: Reason
    """What the merge did, kept with the event (its code, arguments and English text)."""
    events: tuple[DomainEvent, ...] = ()
    """Domain events to publish once the delivery's transaction has committed."""


@dataclass(frozen=True)
class WriteResult:
    """What the store holds for one delivery after its commit."""

    event_id: int
    verdict: Verdict
    duplicate_of: int | None
    merge_outcome: Reason | None
    published: tuple[DomainEvent, ...] = ()


__all__ = [
    "MAX_PAGE",
    "Applied",
    "Delivery",
    "EventFilter",
    "EventPage",
    "EventSummary",
    "IndexProgress",
    "NewEvent",
    "StoredEvent",
    "Verdict",
    "WriteResult",
    "page_of_walks",
]
