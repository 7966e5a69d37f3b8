"""The shop's day in figures: sales, refunds and net, by brand and by hour, for one environment.

Read-only queries over the charge tables. A charge counts on the day it was created (in the
shop's time zone, which the caller turns into a UTC range), and only for the environment whose
attempt created it, so test sales of a sandbox never add to production's day.
"""

from __future__ import annotations

import json
import sqlite3
from collections import defaultdict
from datetime import datetime, tzinfo

from checkout_desktop.domain.records import BrandTotal, DayTotals
from checkout_desktop.store.errors import ReportUnavailable
from checkout_desktop.store.sqlite.charges import ChargeRepository, from_ts, ts

# Statuses of a charge that took the customer's money at some point (a refunded sale was a sale).
_SOLD = ("PAID", "AUTHORIZED", "PARTIAL", "REFUNDED", "CHARGEBACK")
# Approved but not captured yet: money held, not taken.
_HELD = ("PRE_AUTHORIZED",)
_DENIED = ("DENIED", "ERROR")


def day_totals(
    repo: ChargeRepository, *, start: datetime, end: datetime, profile: str, zone: tzinfo
) -> DayTotals:
    """Totals of the charges `profile` created in [start, end) (aware datetimes)."""
    try:
        return _day_totals(repo.conn, start=start, end=end, profile=profile, zone=zone)
    except sqlite3.Error as exc:
        raise ReportUnavailable(f"the day's totals could not be read: {exc}") from exc


def _day_totals(
    conn: sqlite3.Connection, *, start: datetime, end: datetime, profile: str, zone: tzinfo
) -> DayTotals:
    rows = conn.execute(
        "SELECT c.merchant_charge_id, c.status, COALESCE(c.amount, a.amount) AS amount, "
        "COALESCE(c.refunded_amount, 0) AS refunded, c.created_at, "
        "EXISTS (SELECT 1 FROM charge_transaction t WHERE t.merchant_charge_id = "
        "c.merchant_charge_id AND t.payment_type IN ('WALLET', 'PIX')) AS qr "
        "FROM charge c JOIN charge_attempt a ON a.merchant_charge_id = c.merchant_charge_id "
        "WHERE a.profile = :profile AND c.created_at >= :start AND c.created_at < :end",
        {"profile": profile, "start": ts(start), "end": ts(end)},
    ).fetchall()
    totals = DayTotals(start=start, end=end)
    sold: list[str] = []
    hours: dict[int, list[int]] = defaultdict(lambda: [0, 0])
    for mcid, status, amount, refunded, created, qr in rows:
        value = int(amount or 0)
        if qr and status in _HELD:
            # A QR awaiting payment (or expired while its charge still says PRE_AUTHORIZED)
            # holds no money: only a paid QR counts, as a sale.
            continue
        if status in _SOLD:
            totals.sales += 1
            totals.gross += value
            totals.refunds += int(refunded)
            sold.append(mcid)
            moment = from_ts(created)
            assert moment is not None
            hour = hours[moment.astimezone(zone).hour]
            hour[0] += 1
            hour[1] += value
        elif status in _HELD:
            totals.held_count += 1
            totals.held_amount += value
        elif status in _DENIED:
            totals.denied += 1
    totals.by_hour = {hour: (count, amount) for hour, (count, amount) in sorted(hours.items())}
    totals.by_brand = _by_brand(conn, sold)
    return totals


def _by_brand(conn: sqlite3.Connection, charges: list[str]) -> list[BrandTotal]:
    brands: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    # One parameter however many charges: SQLite caps the number of parameters of a statement.
    for brand, amount in conn.execute(
        "SELECT COALESCE(brand, payment_type, ''), COALESCE(amount, 0) FROM charge_transaction "
        "WHERE merchant_charge_id IN (SELECT value FROM json_each(:ids))",
        {"ids": json.dumps(charges)},
    ):
        entry = brands[brand or "?"]
        entry[0] += 1
        entry[1] += int(amount)
    return sorted(
        (BrandTotal(brand, count, amount) for brand, (count, amount) in brands.items()),
        key=lambda total: (-total.amount, total.brand),
    )
