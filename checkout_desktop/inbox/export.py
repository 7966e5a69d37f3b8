"""Stored webhook deliveries as JSON Lines or CSV, for accounting and support.

Credential headers never leave: they were stored as markers, and the export masks any header
named like a credential again, whatever wrote the row.
"""

from __future__ import annotations

import base64
import csv
import json
import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Literal, TextIO

from checkout_desktop.domain.deliveries import StoredEvent
from checkout_desktop.domain.timestamps import Timestamp, utc_now
from checkout_desktop.inbox.intake import credential_marker
from checkout_desktop.texts import translate

logger = logging.getLogger(__name__)

ExportFormat = Literal["jsonl", "csv"]

CSV_COLUMNS = (
    "id",
    "received_at",
    "verdict",
    "reason",
    "event_type",
    "body_type",
    "layout",
    "event_ref",
    "merchant_charge_id",
    "charge_id",
    "status",
    "tender",
    "duplicate_of",
    "merge_outcome",
    "content_type",
    "remote",
    "body_sha256",
    "headers",
    "body",
)

_CREDENTIALS = frozenset({"authorization", "proxy-authorization", "cookie"})
_RELATIVE = re.compile(r"^(\d+)\s*([smhdw])$", re.IGNORECASE)
_UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days", "w": "weeks"}
# A spreadsheet runs a cell that starts with one of these as a formula.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


class ExportError(ValueError):
    """An export option cannot be used; the message says which and why."""


@dataclass
class ExportStats:
    """What an export wrote: every row, and how many of them only as raw bytes."""

    rows: int = 0
    raw_rows: int = 0


def parse_when(text: str, *, now: datetime | None = None) -> datetime:
    """`--since`/`--until`: an ISO 8601 date or time (UTC unless it has an offset) or a span
    back from now such as 90m, 12h, 7d, 2w."""
    value = text.strip()
    match = _RELATIVE.match(value)
    if match:
        amount, unit = int(match[1]), match[2].lower()
        return (now or utc_now()) - timedelta(**{_UNITS[unit]: amount})
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        value += "T00:00:00"
    try:
        stamp = Timestamp(value)
    except ValueError:
        raise ExportError(
            translate(
                "EventsCommand",
                "{text} is not a time: use an ISO 8601 date or time (e.g. 2026-03-01 or "
                "2026-03-01T09:00:00-03:00; UTC when no offset is given) or a span such as 90m, "
                "12h, 7d or 2w",
            ).format(text=repr(text))
        ) from None
    # The service's naive times are read in the profile's zone; the command's are UTC, as it says.
    return stamp.at if stamp.has_offset else stamp.at.replace(tzinfo=UTC)


def _safe_headers(headers: dict[str, str]) -> dict[str, str]:
    return {
        name: (
            value
            if name.lower() not in _CREDENTIALS or value.startswith("[not stored")
            else credential_marker(name, value)
        )
        for name, value in headers.items()
    }


def tender_of(body: Any) -> str | None:
    """How the charge a notification names was paid: its transactions' payment types
    (CREDIT, WALLET, PIX), as the body says; None for a body without transactions."""
    if not isinstance(body, dict):
        return None
    data = body.get("data") if isinstance(body.get("data"), dict) else body
    transactions = data.get("transactions") if isinstance(data, dict) else None
    if not isinstance(transactions, list):
        return None
    kinds = []
    for txn in transactions:
        kind = txn.get("paymentType") if isinstance(txn, dict) else None
        if isinstance(kind, str) and kind and kind not in kinds:
            kinds.append(kind[:20])
    return ",".join(kinds) or None


def event_record(event: StoredEvent) -> dict[str, Any]:
    """One delivery as a JSON object; the body as JSON when it is, else as text or base64."""
    record: dict[str, Any] = {
        "id": event.id,
        "received_at": event.received_at.isoformat(),
        "verdict": event.verdict.value,
        "reason": event.reason,
        "event_type": event.event_type,
        "body_type": event.body_type,
        "layout": event.layout,
        "event_ref": event.event_ref,
        "merchant_charge_id": event.merchant_charge_id,
        "charge_id": event.charge_id,
        "status": event.status,
        "tender": tender_of(event.body_json()),
        "duplicate_of": event.duplicate_of,
        "merge_outcome": event.merge_outcome,
        "content_type": event.content_type,
        "remote": event.remote,
        "body_sha256": event.body_sha256,
        "headers": _safe_headers(event.headers),
    }
    parsed = event.body_json()
    if parsed is not None or event.body.strip() == b"null":
        record["body"] = parsed
    else:
        try:
            record["body_text"] = event.body.decode("utf-8")
        except UnicodeDecodeError:
            record["body_base64"] = base64.b64encode(event.body).decode("ascii")
    return record


def raw_record(event: StoredEvent) -> dict[str, Any]:
    """A row that cannot be rendered as usual: its id, time and verdict, the body as base64,
    and a flag that says so; every field here is safe to write."""
    return {
        "id": event.id,
        "received_at": event.received_at.isoformat(),
        "verdict": event.verdict.value,
        "body_sha256": event.body_sha256,
        "unrenderable": True,
        "body_base64": base64.b64encode(event.body).decode("ascii"),
    }


def _jsonl_line(event: StoredEvent, stats: ExportStats) -> str:
    try:
        line = json.dumps(event_record(event), ensure_ascii=False, allow_nan=False)
        line.encode("utf-8")
    except UnicodeEncodeError:
        # A lone surrogate from a \\u escape: written escaped, still the same JSON.
        line = json.dumps(event_record(event), ensure_ascii=True, allow_nan=False)
    except (ValueError, TypeError, RecursionError):
        logger.warning("event %d cannot be rendered; exported raw", event.id)
        stats.raw_rows += 1
        line = json.dumps(raw_record(event))
    return line


def write_jsonl(
    events: Iterable[StoredEvent], out: TextIO, stats: ExportStats | None = None
) -> int:
    stats = stats if stats is not None else ExportStats()
    for event in events:
        out.write(_jsonl_line(event, stats) + "\n")
        stats.rows += 1
    return stats.rows


def _cell(value: Any) -> str:
    if value is None:
        return ""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    if text.startswith(_FORMULA_START):
        return "'" + text
    return text


def _csv_row(event: StoredEvent, stats: ExportStats) -> list[str]:
    try:
        record = event_record(event)
        body = event.body.decode("utf-8", errors="replace")
        row = [record.get(column) for column in CSV_COLUMNS[:-1]]
        cells = [str(v) if isinstance(v, int) else _cell(v) for v in row] + [_cell(body)]
        for cell in cells:
            cell.encode("utf-8")
    except (ValueError, TypeError, RecursionError):
        logger.warning("event %d cannot be rendered; exported raw", event.id)
        stats.raw_rows += 1
        raw = raw_record(event)
        cells = [str(raw.get(c, "")) for c in CSV_COLUMNS[:-1]]
        cells[CSV_COLUMNS.index("reason")] = "unrenderable: body as base64"
        cells.append(raw["body_base64"])
    return cells


def write_csv(events: Iterable[StoredEvent], out: TextIO, stats: ExportStats | None = None) -> int:
    stats = stats if stats is not None else ExportStats()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for event in events:
        writer.writerow(_csv_row(event, stats))
        stats.rows += 1
    return stats.rows


def write_events(
    events: Iterable[StoredEvent],
    out: TextIO,
    fmt: ExportFormat,
    stats: ExportStats | None = None,
) -> int:
    """Write every event in the chosen format; returns how many were written. A row that
    cannot be rendered is written raw (body as base64, flagged) and counted in `stats`."""
    if fmt == "jsonl":
        return write_jsonl(events, out, stats)
    if fmt == "csv":
        return write_csv(events, out, stats)
    raise ExportError(f"unknown export format {fmt!r}; use jsonl or csv")


__all__ = [
    "CSV_COLUMNS",
    "ExportError",
    "ExportFormat",
    "ExportStats",
    "event_record",
    "parse_when",
    "raw_record",
    "tender_of",
    "write_csv",
    "write_events",
    "write_jsonl",
]
