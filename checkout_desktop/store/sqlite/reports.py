"""The shop's day in figures: sales, refunds and net, by brand and by hour, for one environment.

Read-only queries over the charge tables; the day's rules are `store/day_figures.py`'s.
"""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime, tzinfo

from checkout_desktop.domain.records import DayTotals
from checkout_desktop.store.day_figures import (
    REFUNDS_OF_THE_DAY,
    SALES_OF_THE_DAY,
    brand_totals,
    tally,
)
from checkout_desktop.store.errors import ReportUnavailable
from checkout_desktop.store.sqlite.charges import ChargeRepository, from_ts, ts


def day_totals(
    repo: ChargeRepository, *, start: datetime, end: datetime, profile: str, zone: tzinfo
) -> DayTotals:
    """The day's figures of `profile` in [start, end) (aware datetimes; `store/day_figures.py`)."""
    try:
        return _day_totals(repo.conn, start=start, end=end, profile=profile, zone=zone)
    except sqlite3.Error as exc:
        raise ReportUnavailable(f"the day's totals could not be read: {exc}") from exc


def _day_totals(
    conn: sqlite3.Connection, *, start: datetime, end: datetime, profile: str, zone: tzinfo
) -> DayTotals:
    names = {"profile": ":profile", "start": ":start", "end": ":end"}
    params = {"profile": profile, "start": ts(start), "end": ts(end)}
    (made,) = conn.execute(REFUNDS_OF_THE_DAY.format(**names), params).fetchone()
    totals, sold = tally(
        conn.execute(SALES_OF_THE_DAY.format(**names), params).fetchall(),
        made,
        start=start,
        end=end,
        zone=zone,
        created=from_ts,
    )
    # One parameter however many charges: SQLite caps the number of parameters of a statement.
    totals.by_brand = brand_totals(
        conn.execute(
            "SELECT COALESCE(brand, payment_type, ''), COALESCE(amount, 0) FROM charge_transaction "
            "WHERE merchant_charge_id IN (SELECT value FROM json_each(:ids))",
            {"ids": json.dumps(sold)},
        )
    )
    return totals
