"""The read side the widgets use: history pages, a charge, its timeline, counts and day totals.

Widgets read charges only through `ChargeViews`, never through a repository or SQL. Every read
is a coroutine on the store ports, so a network database answers without holding the GUI:
widgets run them with `ui.loop.read`, which finishes a read at once when the store does not
wait (the local SQLite file) and otherwise on the loop.
"""

from __future__ import annotations

import logging
from collections.abc import Collection
from datetime import datetime, tzinfo

from checkout_desktop.charges.service import MoneyView, StartCheck, judge_start, shown_charge
from checkout_desktop.domain.enums import ChargeStatus
from checkout_desktop.domain.qr import holds_sale
from checkout_desktop.domain.records import (
    AttemptRecord,
    ChargeRecord,
    DayTotals,
    MoneyOpRecord,
    Page,
    TimelineRecord,
)
from checkout_desktop.domain.search import ChargeQuery, CustomerRecord
from checkout_desktop.store.errors import ReportUnavailable, StoreError
from checkout_desktop.store.ports import Store

logger = logging.getLogger(__name__)

AWAITING_QRS_READ = 50
"""How many of the newest charges of each unpaid status are looked at for QRs still waiting (a
QR waits minutes, so the waiting ones are among the newest)."""
_UNPAID_QR_STATUSES = (ChargeStatus.PENDING, ChargeStatus.PRE_AUTHORIZED)
"""What the service calls a new, unpaid QR charge (the sources differ)."""

UNRESOLVED_SHOWN = 1000
"""Unresolved attempts are counted up to this many (the status bar says "1000+" beyond)."""


class ChargeViews:
    """Read-only views of the charges for the window's widgets."""

    def __init__(self, store: Store) -> None:
        self._store = store

    async def charge(self, merchant_charge_id: str) -> ChargeRecord | None:
        """The charge as stored now, or None when the store has never seen it (a card the
        service named without its last four digits shows the card the sale was tried with,
        where that is certain)."""
        return await shown_charge(self._store, merchant_charge_id)

    async def list_charges(
        self, *, before: int | None = None, limit: int = 50, status: ChargeStatus | None = None
    ) -> Page[ChargeRecord]:
        """A page of the history, newest first (keyset-paged: pass `next_cursor` as `before`)."""
        return await self._store.charges.list_charges(before=before, limit=limit, status=status)

    async def search(
        self, query: ChargeQuery, *, before: int | None = None, limit: int = 100
    ) -> Page[ChargeRecord]:
        """A page of the history's search, newest first, each charge with its customer."""
        return await self._store.charges.search_charges(query, before=before, limit=limit)

    async def matching_charge(
        self, query: ChargeQuery, merchant_charge_id: str
    ) -> ChargeRecord | None:
        """One charge with its customer, if it matches the search (a row kept up to date)."""
        return await self._store.charges.matching_charge(query, merchant_charge_id)

    async def recent_customers(
        self, *, limit: int = 20, profile: str | None = None
    ) -> list[CustomerRecord]:
        """The customers charged most recently, newest first, only `profile`'s when given (none
        when the store cannot be read: offering them is a convenience, the sale goes on
        without)."""
        try:
            return await self._store.charges.recent_customers(limit=limit, profile=profile)
        except Exception as exc:  # whatever the backend raised: the form simply offers none
            logger.warning("the recent customers could not be read: %s", exc)
            return []

    async def timeline(
        self, merchant_charge_id: str, *, after: int | None = None, limit: int = 200
    ) -> Page[TimelineRecord]:
        """A page of a charge's timeline, oldest first (pass `next_cursor` as `after`)."""
        return await self._store.charges.timeline(merchant_charge_id, after=after, limit=limit)

    async def open_money_operation(self, merchant_charge_id: str) -> MoneyOpRecord | None:
        """The charge's refund, capture or cancel whose outcome is not known yet, if any."""
        return await self._store.charges.open_money_operation(merchant_charge_id)

    async def money_operations(self, merchant_charge_id: str) -> list[MoneyOpRecord]:
        """The charge's refunds, captures and cancels as recorded, oldest first."""
        return await self._store.charges.money_operations(merchant_charge_id)

    async def unresolved_attempts(
        self, *, limit: int = 50, profile: str | None = None
    ) -> list[AttemptRecord]:
        """Attempts whose outcome is not known yet, oldest first (only `profile`'s when
        given)."""
        return await self._store.charges.unresolved_attempts(limit=limit, profile=profile)

    async def attempt(self, merchant_charge_id: str) -> AttemptRecord | None:
        """One charge attempt as stored now."""
        return await self._store.charges.attempt(merchant_charge_id)

    async def money_view(self, merchant_charge_id: str) -> MoneyView | None:
        """What may be refunded or captured now; None for a charge the store has not seen."""
        record = await self._store.charges.charge(merchant_charge_id)
        if record is None:
            return None
        # The attempt too: a row holding only a 3DS result shows its sale's amount and card,
        # and whether the sale ended before any charge (nothing to ask the service about).
        attempt = await self._store.charges.attempt(merchant_charge_id)
        pending = await self._store.charges.open_money_operation(merchant_charge_id)
        return MoneyView.of(record.with_attempt(attempt), pending)

    async def can_start_charge(self, sale_id: str) -> StartCheck:
        """Whether the sale may be charged now (the service checks again when it charges)."""
        charges = self._store.charges
        return judge_start(
            sale_id,
            await charges.unresolved_attempt_for_sale(sale_id),
            await charges.charges_for_sale(sale_id),
        )

    async def unresolved_count(
        self, *, profile: str | None = None, excluding: Collection[str] = ()
    ) -> int:
        """Attempts whose outcome is not known yet (counted up to UNRESOLVED_SHOWN); only
        `profile`'s when given (the status bar counts its own environment's), leaving out
        `excluding` (the charge the screen is still sending or authenticating: not unknown)."""
        attempts = await self._store.charges.unresolved_attempts(
            limit=UNRESOLVED_SHOWN + len(excluding), profile=profile
        )
        return min(
            UNRESOLVED_SHOWN,
            sum(1 for attempt in attempts if attempt.merchant_charge_id not in excluding),
        )

    async def awaiting_qrs(self, *, profile: str, now: datetime) -> list[ChargeRecord]:
        """`profile`'s QR charges the customer may still pay (awaiting, not past their expiry
        and its grace), newest first, among the most recent unpaid charges."""
        found: list[ChargeRecord] = []
        for status in _UNPAID_QR_STATUSES:
            page = await self._store.charges.list_charges(limit=AWAITING_QRS_READ, status=status)
            found.extend(
                record
                for record in page.items
                if record.profile == profile and holds_sale(record.state, now)
            )
        return sorted(found, key=lambda record: record.id, reverse=True)

    async def day_totals(
        self, *, start: datetime, end: datetime, profile: str, zone: tzinfo
    ) -> DayTotals:
        """The day's sales by status, brand and hour (raises ReportUnavailable)."""
        return await self._store.charges.day_totals(
            start=start, end=end, profile=profile, zone=zone
        )


def store_problem(exc: BaseException) -> str | None:
    """Why the store failed a read or a write, for the screen to say in the clerk's words: the
    shared store's kind of problem ("unreachable", "credentials", … as `StoreProblem` names
    them), "store" for any other failure of the store; None when `exc` is not the store's."""
    if isinstance(exc, StoreError):
        return str(getattr(exc, "problem", None) or "store")
    if isinstance(exc, ReportUnavailable):
        return "store"
    return None


__all__ = [
    "UNRESOLVED_SHOWN",
    "ChargeQuery",
    "ChargeViews",
    "CustomerRecord",
    "DayTotals",
    "ReportUnavailable",
    "store_problem",
]
