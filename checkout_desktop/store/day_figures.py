"""The day's figures from rows either store reads: the rules of the day, written once.

A sale counts on the day its charge was created (in the shop's time zone, which the caller
turns into a UTC range), and only for the environment whose attempt created it, so test sales
of a sandbox never add to production's day. A refund counts on the day its money went back, as
a till reads it: a refund this shop's terminals made counts on the day the service confirmed
it, so a closed day never changes and today's net holds today's refunds of earlier sales.
Money the service reports refunded beyond those (a refund made elsewhere, or one whose outcome
is still being settled) has no day of its own here: it counts on its sale's day. A
pre-authorization one of the terminals captured is a sale on the day of its capture (the money
is taken then), and stays money held on the day it was authorized.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable
from datetime import datetime, tzinfo
from typing import Any, Literal

from checkout_desktop.domain.records import BrandTotal, DayTotals
from checkout_desktop.store.sqlite.charges import from_ts, ts

# Statuses of a charge that took the customer's money at some point (a refunded sale was a sale).
_SOLD = ("PAID", "AUTHORIZED", "PARTIAL", "REFUNDED", "CHARGEBACK")
# Approved but not captured yet: money held, not taken.
_HELD = ("PRE_AUTHORIZED",)
_DENIED = ("DENIED", "ERROR")

SALES_OF_THE_DAY = (
    "SELECT c.merchant_charge_id, c.status, COALESCE(c.amount, a.amount) AS amount, "
    "COALESCE(c.refunded_amount, 0) AS refunded, "
    "COALESCE((SELECT SUM(o.amount) FROM money_operation o WHERE o.merchant_charge_id = "
    "c.merchant_charge_id AND o.kind = 'refund' AND o.state = 'CONFIRMED'), 0) AS made, "
    "c.created_at, "
    "(SELECT MIN(o.resolved_at) FROM money_operation o WHERE o.merchant_charge_id = "
    "c.merchant_charge_id AND o.kind = 'capture' AND o.state = 'CONFIRMED') AS captured_at, "
    "EXISTS (SELECT 1 FROM charge_transaction t WHERE t.merchant_charge_id = "
    "c.merchant_charge_id AND t.payment_type IN ('WALLET', 'PIX')) AS qr "
    "FROM charge c JOIN charge_attempt a ON a.merchant_charge_id = c.merchant_charge_id "
    "WHERE a.profile = {profile} AND ((c.created_at >= {start} AND c.created_at < {end}) "
    "OR c.merchant_charge_id IN (SELECT o.merchant_charge_id FROM money_operation o "
    "WHERE o.kind = 'capture' AND o.state = 'CONFIRMED' AND o.resolved_at >= {start} "
    "AND o.resolved_at < {end}))"
)
"""Each charge the environment created in the range or captured in it, with the refunds its
terminals made and the moment one of them captured it (placeholders in the store's own
parameter style)."""

REFUNDS_OF_THE_DAY = (
    "SELECT COALESCE(SUM(o.amount), 0) FROM money_operation o "
    "JOIN charge_attempt a ON a.merchant_charge_id = o.merchant_charge_id "
    "WHERE a.profile = {profile} AND o.kind = 'refund' AND o.state = 'CONFIRMED' "
    "AND o.resolved_at >= {start} AND o.resolved_at < {end}"
)
"""The refunds the environment's terminals made that the service confirmed in the range."""


def tally(
    sales: Iterable[Any],
    refunds_made: int,
    *,
    start: datetime,
    end: datetime,
    zone: tzinfo,
    created: Any,
) -> tuple[DayTotals, list[str]]:
    """The day's figures from `SALES_OF_THE_DAY`'s rows and `REFUNDS_OF_THE_DAY`'s sum, and the
    charges sold (for `brand_totals`). `created` reads a row's stored creation time."""
    totals = DayTotals(start=start, end=end)
    totals.refunds = int(refunds_made)
    sold: list[str] = []
    hours: dict[int, list[int]] = defaultdict(lambda: [0, 0])
    for mcid, status, amount, refunded, made, created_at, captured_at, qr in sales:
        value = int(amount or 0)
        if qr and status in _HELD:
            # A QR awaiting payment (or expired while its charge still says PRE_AUTHORIZED)
            # holds no money: only a paid QR counts, as a sale.
            continue
        moment = created(created_at)
        captured = None if captured_at is None else created(captured_at)
        if captured is not None and status in _SOLD and not start <= captured < end:
            # Authorized this day and captured on a later one: this day it was money held.
            totals.held_count += 1
            totals.held_amount += value
            continue
        if status in _SOLD:
            totals.sales += 1
            totals.gross += value
            # What the service reports refunded beyond the refunds made here: its sale's day.
            totals.refunds += max(0, int(refunded) - int(made))
            sold.append(mcid)
            # A sale this shop's terminals captured counts in the hour its money was taken.
            moment = captured or moment
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
    return totals, sold


def brand_totals(transactions: Iterable[tuple[str | None, int | None]]) -> list[BrandTotal]:
    """Each brand's (or QR kind's) transactions of the day's sales, largest amount first."""
    brands: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for brand, amount in transactions:
        entry = brands[brand or "?"]
        entry[0] += 1
        entry[1] += int(amount or 0)
    return sorted(
        (BrandTotal(brand, count, amount) for brand, (count, amount) in brands.items()),
        key=lambda total: (-total.amount, total.brand),
    )


# The day's sales' transactions, by brand: SQLite caps a statement's parameters, so the ids
# go as one JSON array there; PostgreSQL takes them as one array parameter.
_BRANDS = {
    "named": (
        "SELECT COALESCE(brand, payment_type, ''), COALESCE(amount, 0) FROM charge_transaction "
        "WHERE merchant_charge_id IN (SELECT value FROM json_each(:ids))"
    ),
    "pyformat": (
        "SELECT COALESCE(brand, payment_type, ''), COALESCE(amount, 0) FROM charge_transaction "
        "WHERE merchant_charge_id = ANY(%(ids)s)"
    ),
}


def read_day(
    conn: Any,
    *,
    style: Literal["named", "pyformat"],
    start: datetime,
    end: datetime,
    profile: str,
    zone: tzinfo,
) -> DayTotals:
    """The day's figures of `profile` in [start, end) (aware datetimes) from either store's
    connection; `style` is its parameters' (SQLite's `:name`, psycopg's `%(name)s`)."""
    names = {
        name: f":{name}" if style == "named" else f"%({name})s"
        for name in ("profile", "start", "end")
    }
    params = {"profile": profile, "start": ts(start), "end": ts(end)}
    made = conn.execute(REFUNDS_OF_THE_DAY.format(**names), params).fetchone()
    totals, sold = tally(
        conn.execute(SALES_OF_THE_DAY.format(**names), params).fetchall(),
        0 if made is None else made[0],
        start=start,
        end=end,
        zone=zone,
        created=from_ts,
    )
    ids: object = json.dumps(sold) if style == "named" else sold
    totals.by_brand = brand_totals(conn.execute(_BRANDS[style], {"ids": ids}))
    return totals


__all__ = ["read_day"]
