"""The shop's day in figures: sales, refunds and net, by brand and by hour, for one environment.

Read-only queries over the charge tables; the day's rules are `store/day_figures.py`'s.
"""

from __future__ import annotations

import sqlite3
from datetime import datetime, tzinfo

from checkout_desktop.domain.records import DayTotals
from checkout_desktop.store.day_figures import read_day
from checkout_desktop.store.errors import ReportUnavailable
from checkout_desktop.store.sqlite.charges import ChargeRepository


def day_totals(
    repo: ChargeRepository, *, start: datetime, end: datetime, profile: str, zone: tzinfo
) -> DayTotals:
    """The day's figures of `profile` in [start, end) (aware datetimes; `store/day_figures.py`)."""
    try:
        return read_day(repo.conn, style="named", start=start, end=end, profile=profile, zone=zone)
    except sqlite3.Error as exc:
        raise ReportUnavailable(f"the day's totals could not be read: {exc}") from exc
