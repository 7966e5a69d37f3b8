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
from datetime import datetime, timedelta
from typing import Any, Literal, TextIO

from checkout_desktop.domain.timestamps import parse_timestamp, utc_now
from checkout_desktop.inbox.intake import credential_marker
from checkout_desktop.store.events import StoredEvent

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
        return parse_timestamp(value)
    except ValueError:
        raise ExportError(
            f"{text!r} is not a time: use an ISO 8601 date or time (e.g. 2026-03-01 or "
            "2026-03-01T09:00:00-03:00; UTC when no offset is given) or a span such as 90m, "
            "12h, 7d or 2w"
        ) from None


def _safe_headers(headers: dict[str, str]) -> dict[str, str]:
    return {
        name: (
            value
            if name.lower() not in _CREDENTIALS or value.startswith("[not stored")
            else credential_marker(name, value)
        )
        for name, value in headers.items()
    }


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


def write_jsonl(events: Iterable[StoredEvent], out: TextIO) -> int:
    count = 0
    for event in events:
        out.write(json.dumps(event_record(event), ensure_ascii=False) + "\n")
        count += 1
    return count


def _cell(value: Any) -> str:
    if value is None:
        return ""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    if text.startswith(_FORMULA_START):
        return "'" + text
    return text


def write_csv(events: Iterable[StoredEvent], out: TextIO) -> int:
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    count = 0
    for event in events:
        record = event_record(event)
        body = event.body.decode("utf-8", errors="replace")
        row = [record.get(column) for column in CSV_COLUMNS[:-1]]
        writer.writerow([str(v) if isinstance(v, int) else _cell(v) for v in row] + [_cell(body)])
        count += 1
    return count


def write_events(events: Iterable[StoredEvent], out: TextIO, fmt: ExportFormat) -> int:
    """Write every event in the chosen format; returns how many were written."""
    if fmt == "jsonl":
        return write_jsonl(events, out)
    if fmt == "csv":
        return write_csv(events, out)
    raise ExportError(f"unknown export format {fmt!r}; use jsonl or csv")


__all__ = [
    "CSV_COLUMNS",
    "ExportError",
    "ExportFormat",
    "event_record",
    "parse_when",
    "write_csv",
    "write_events",
    "write_jsonl",
]
