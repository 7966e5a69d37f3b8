"""The read side the widgets use: history pages, a charge, its timeline, counts and day totals.

Widgets read charges only through `ChargeViews`, never through a repository or SQL, so that
the store behind it can change (and its reads move off the GUI thread) without touching them.
"""

from __future__ import annotations

import logging
from datetime import datetime, tzinfo

from checkout_desktop.domain.enums import ChargeStatus
from checkout_desktop.domain.records import (
    ChargeRecord,
    DayTotals,
    MoneyOpRecord,
    Page,
    TimelineRecord,
)
from checkout_desktop.store.charges import ChargeRepository
from checkout_desktop.store.errors import ReportUnavailable
from checkout_desktop.store.reports import day_totals

logger = logging.getLogger(__name__)

UNRESOLVED_SHOWN = 1000
"""Unresolved attempts are counted up to this many (the status bar says "1000+" beyond)."""


class ChargeViews:
    """Read-only views of the charges for the window's widgets."""

    def __init__(self, store: ChargeRepository) -> None:
        self._store = store

    def charge(self, merchant_charge_id: str) -> ChargeRecord | None:
        """The charge as stored now, or None when the store has never seen it."""
        return self._store.charge(merchant_charge_id)

    def list_charges(
        self, *, before: int | None = None, limit: int = 50, status: ChargeStatus | None = None
    ) -> Page[ChargeRecord]:
        """A page of the history, newest first (keyset-paged: pass `next_cursor` as `before`)."""
        return self._store.list_charges(before=before, limit=limit, status=status)

    def timeline(
        self, merchant_charge_id: str, *, after: int | None = None, limit: int = 200
    ) -> Page[TimelineRecord]:
        """A page of a charge's timeline, oldest first (pass `next_cursor` as `after`)."""
        return self._store.timeline(merchant_charge_id, after=after, limit=limit)

    def open_money_operation(self, merchant_charge_id: str) -> MoneyOpRecord | None:
        """The charge's refund, capture or cancel whose outcome is not known yet, if any."""
        return self._store.open_money_operation(merchant_charge_id)

    def unresolved_count(self) -> int:
        """Attempts whose outcome is not known yet (counted up to UNRESOLVED_SHOWN)."""
        return len(self._store.unresolved_attempts(limit=UNRESOLVED_SHOWN))

    def day_totals(
        self, *, start: datetime, end: datetime, profile: str, zone: tzinfo
    ) -> DayTotals:
        """The day's sales by status, brand and hour (raises ReportUnavailable)."""
        return day_totals(self._store, start=start, end=end, profile=profile, zone=zone)


__all__ = ["UNRESOLVED_SHOWN", "ChargeViews", "DayTotals", "ReportUnavailable"]
