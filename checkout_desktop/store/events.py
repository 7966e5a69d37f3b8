"""Repository of stored webhook deliveries: insert, dedupe lookup, keyset paging and export."""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

logger = logging.getLogger(__name__)

MAX_PAGE = 1000
SELF_TESTS_KEPT = 200


class Verdict(StrEnum):
    """What the inbox decided about one authenticated delivery."""

    ACCEPTED = "accepted"
    """A known notification, fed to the charge state machine."""
    DUPLICATE = "duplicate"
    """The exact body of an earlier delivery; stored, acknowledged, not applied again."""
    UNKNOWN = "unknown"
    """A JSON object of a type nobody has published yet: stored and shown, never rejected."""
    SELF_TEST = "self_test"
    """The health monitor's own round trip through the public URL; not a charge event."""
    QUARANTINED = "quarantined"
    """A body the inbox could not accept (bad JSON, bad shape, wrong type, too big, too slow)."""


def format_instant(moment: datetime) -> str:
    """The stored form of an instant: UTC, microseconds, so text order is time order."""
    if moment.tzinfo is None:
        raise ValueError("a naive datetime has no defined instant")
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


@dataclass(frozen=True)
class NewEvent:
    """A delivery about to be stored (the verdict may still turn into DUPLICATE)."""

    received_at: datetime
    verdict: Verdict
    body: bytes
    body_sha256: str
    headers: Mapping[str, str]
    reason: str | None = None
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
        """The body as JSON, or None when it is not valid JSON (quarantined bodies)."""
        try:
            return json.loads(self.body)
        except (UnicodeDecodeError, json.JSONDecodeError):
            return None


@dataclass(frozen=True)
class EventFilter:
    """Filters of the event list; empty fields filter nothing.

    `types` matches the event-type header or the body's `type`; `charge` matches the merchant
    charge id or the service's charge id; `text` is a case-insensitive substring of the ids,
    types, status, reason or body (a scan: fast when matches are common, as it stops after a page).
    """

    types: tuple[str, ...] = ()
    statuses: tuple[str, ...] = ()
    verdicts: tuple[Verdict, ...] = ()
    charge: str | None = None
    text: str | None = None
    since: datetime | None = None
    until: datetime | None = None

    def where(self) -> tuple[list[str], dict[str, Any]]:
        clauses: list[str] = []
        params: dict[str, Any] = {}
        if self.types:
            names = _bind(params, "type", self.types)
            clauses.append(f"(event_type IN ({names}) OR body_type IN ({names}))")
        if self.statuses:
            clauses.append(f"status IN ({_bind(params, 'status', self.statuses)})")
        if self.verdicts:
            values = [Verdict(v).value for v in self.verdicts]
            clauses.append(f"verdict IN ({_bind(params, 'verdict', values)})")
        if self.charge:
            params["charge"] = self.charge
            clauses.append("(merchant_charge_id = :charge OR charge_id = :charge)")
        if self.text:
            params["text"] = "%" + _escape_like(self.text) + "%"
            columns = (
                "merchant_charge_id",
                "charge_id",
                "event_ref",
                "event_type",
                "body_type",
                "status",
                "reason",
                "CAST(body AS TEXT)",
            )
            clauses.append("(" + " OR ".join(f"{c} LIKE :text ESCAPE '\\'" for c in columns) + ")")
        if self.since is not None:
            params["since"] = format_instant(self.since)
            clauses.append("received_at >= :since")
        if self.until is not None:
            params["until"] = format_instant(self.until)
            clauses.append("received_at < :until")
        return clauses, params


def _bind(params: dict[str, Any], prefix: str, values: Sequence[str]) -> str:
    names = []
    for i, value in enumerate(values):
        key = f"{prefix}{i}"
        params[key] = str(value)
        names.append(f":{key}")
    return ", ".join(names)


def _escape_like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


@dataclass(frozen=True)
class EventPage:
    """One page, newest first; pass `next_before` to get the following (older) page."""

    rows: list[EventSummary] = field(default_factory=list)
    next_before: int | None = None


_SUMMARY_COLUMNS = (
    "id, received_at, verdict, reason, event_type, body_type, layout, event_ref, "
    "merchant_charge_id, charge_id, status, duplicate_of, merge_outcome"
)
_FULL_COLUMNS = _SUMMARY_COLUMNS + ", body_sha256, content_type, remote, headers_json, body"


def _summary_fields(row: sqlite3.Row) -> dict[str, Any]:
    return {
        "id": row["id"],
        "received_at": datetime.fromisoformat(row["received_at"]),
        "verdict": Verdict(row["verdict"]),
        "reason": row["reason"],
        "event_type": row["event_type"],
        "body_type": row["body_type"],
        "layout": row["layout"],
        "event_ref": row["event_ref"],
        "merchant_charge_id": row["merchant_charge_id"],
        "charge_id": row["charge_id"],
        "status": row["status"],
        "duplicate_of": row["duplicate_of"],
        "merge_outcome": row["merge_outcome"],
    }


def _summary(row: sqlite3.Row) -> EventSummary:
    return EventSummary(**_summary_fields(row))


def _full(row: sqlite3.Row) -> StoredEvent:
    return StoredEvent(
        **_summary_fields(row),
        body_sha256=row["body_sha256"],
        content_type=row["content_type"],
        remote=row["remote"],
        headers=json.loads(row["headers_json"]),
        body=bytes(row["body"]),
    )


class EventRepository:
    """Reads and writes `webhook_event` on one connection.

    Writes run inside the caller's transaction (the inbox writer batches many deliveries into
    one durable commit); reads never use OFFSET, so a page costs the same at row 10 and at row
    1,000,000.
    """

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        self._since_floor: dict[str, int] = {}

    def sql_filter(self, where: EventFilter | None) -> tuple[list[str], dict[str, Any]]:
        """The filter's clauses, with a time window turned into an id range as well.

        Pages walk the primary key newest first; without an id range a narrow time window
        would make the last page scan every older row. The floor is exact (the smallest id of
        a row inside the window, whatever order the clock gave), found once through the time
        index and kept: rows stored later have larger ids, so it never moves down.
        """
        chosen = where or EventFilter()
        clauses, params = chosen.where()
        if chosen.since is not None:
            since = params["since"]
            floor = self._since_floor.get(since)
            if floor is None:
                row = self._conn.execute(
                    "SELECT min(id) FROM webhook_event INDEXED BY webhook_event_received "
                    "WHERE received_at >= :since",
                    {"since": since},
                ).fetchone()
                if row[0] is not None:
                    floor = self._since_floor[since] = int(row[0])
                else:
                    # Nothing inside the window yet: only rows stored from now on can be.
                    floor = self.latest_id() + 1
            params["since_floor"] = floor
            clauses.append("id >= :since_floor")
        if chosen.until is not None:
            row = self._conn.execute(
                "SELECT max(id) FROM webhook_event INDEXED BY webhook_event_received "
                "WHERE received_at < :until",
                {"until": params["until"]},
            ).fetchone()
            params["until_ceiling"] = int(row[0] or 0)
            clauses.append("id <= :until_ceiling")
        return clauses, params

    # -- writes (inside the caller's transaction) ---------------------------------------------

    def first_delivery_of(self, body_sha256: str) -> int | None:
        """Id of the first stored delivery with this exact body, if any (the dedupe lookup)."""
        row = self._conn.execute(
            "SELECT id FROM webhook_event WHERE body_sha256 = :sha "
            "AND duplicate_of IS NULL AND verdict != 'quarantined'",
            {"sha": body_sha256},
        ).fetchone()
        return None if row is None else int(row[0])

    def insert(self, event: NewEvent) -> int:
        cursor = self._conn.execute(
            "INSERT INTO webhook_event (received_at, verdict, reason, event_type, body_type, "
            "layout, event_ref, merchant_charge_id, charge_id, status, duplicate_of, "
            "body_sha256, content_type, remote, headers_json, body) VALUES (:received_at, "
            ":verdict, :reason, :event_type, :body_type, :layout, :event_ref, "
            ":merchant_charge_id, :charge_id, :status, :duplicate_of, :body_sha256, "
            ":content_type, :remote, :headers_json, :body)",
            {
                "received_at": format_instant(event.received_at),
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
                "body_sha256": event.body_sha256,
                "content_type": event.content_type,
                "remote": event.remote,
                "headers_json": json.dumps(dict(event.headers), ensure_ascii=False),
                "body": event.body,
            },
        )
        row_id = cursor.lastrowid
        assert row_id is not None
        return row_id

    def set_merge_outcome(self, event_id: int, outcome: str) -> None:
        self._conn.execute(
            "UPDATE webhook_event SET merge_outcome = :outcome WHERE id = :id",
            {"outcome": outcome, "id": event_id},
        )

    def prune_self_tests(self, keep: int = SELF_TESTS_KEPT) -> int:
        """Forget all but the newest `keep` self-test rows; returns how many went.

        Self-tests are the health monitor's own probes, one per heartbeat: kept for a while to
        show the inbox working, never worth a row a minute forever. Service deliveries are
        never deleted.
        """
        row = self._conn.execute(
            "SELECT id FROM webhook_event WHERE verdict = 'self_test' "
            "ORDER BY id DESC LIMIT 1 OFFSET :keep",
            {"keep": keep},
        ).fetchone()
        if row is None:
            return 0
        cursor = self._conn.execute(
            "DELETE FROM webhook_event WHERE verdict = 'self_test' AND id <= :cutoff",
            {"cutoff": int(row[0])},
        )
        return cursor.rowcount

    # -- reads ----------------------------------------------------------------------------------

    def get(self, event_id: int) -> StoredEvent | None:
        row = self._conn.execute(
            f"SELECT {_FULL_COLUMNS} FROM webhook_event WHERE id = :id",  # noqa: S608 - constants
            {"id": event_id},
        ).fetchone()
        return None if row is None else _full(row)

    def latest_id(self) -> int:
        """The newest row's id (0 when empty): where a live list starts listening."""
        row = self._conn.execute("SELECT max(id) FROM webhook_event").fetchone()
        return int(row[0] or 0)

    def page(
        self,
        where: EventFilter | None = None,
        *,
        before: int | None = None,
        limit: int = 100,
        floor: int | None = None,
    ) -> EventPage:
        """One page of summaries, newest first, strictly older than `before` when given.

        `floor` bounds the scan from below (ids at or above it): a slow filter, such as a rare
        text search, can then be run window by window without stalling its caller.
        """
        limit = _check_limit(limit)
        clauses, params = self.sql_filter(where)
        if before is not None:
            clauses.append("id < :before")
            params["before"] = before
        if floor is not None:
            clauses.append("id >= :floor")
            params["floor"] = floor
        params["limit"] = limit + 1
        sql = (
            f"SELECT {_SUMMARY_COLUMNS} FROM webhook_event"  # noqa: S608 - built from constants
            + _where_sql(clauses)
            + " ORDER BY id DESC LIMIT :limit"
        )
        rows = [_summary(r) for r in self._conn.execute(sql, params)]
        more = len(rows) > limit
        rows = rows[:limit]
        return EventPage(rows=rows, next_before=rows[-1].id if more and rows else None)

    def newer(
        self, where: EventFilter | None = None, *, after: int, limit: int = 100
    ) -> list[EventSummary]:
        """Summaries strictly newer than `after`, oldest first (a live list's incremental fetch)."""
        limit = _check_limit(limit)
        clauses, params = self.sql_filter(where)
        clauses.append("id > :after")
        params["after"] = after
        params["limit"] = limit
        sql = (
            f"SELECT {_SUMMARY_COLUMNS} FROM webhook_event"  # noqa: S608 - built from constants
            + _where_sql(clauses)
            + " ORDER BY id ASC LIMIT :limit"
        )
        return [_summary(r) for r in self._conn.execute(sql, params)]

    def iter_full(
        self, where: EventFilter | None = None, *, batch: int = 500
    ) -> Iterator[StoredEvent]:
        """Every matching delivery, oldest first, read in keyset batches (for export)."""
        batch = _check_limit(batch)
        after = 0
        # The time window is resolved once for the whole export, not once per batch.
        base_clauses, base_params = self.sql_filter(where)
        while True:
            clauses = [*base_clauses, "id > :after"]
            params = {**base_params, "after": after, "limit": batch}
            sql = (
                f"SELECT {_FULL_COLUMNS} FROM webhook_event"  # noqa: S608 - from constants
                + _where_sql(clauses)
                + " ORDER BY id ASC LIMIT :limit"
            )
            rows = [_full(r) for r in self._conn.execute(sql, params)]
            yield from rows
            if len(rows) < batch:
                return
            after = rows[-1].id

    def for_charge(self, charge: str, *, limit: int = MAX_PAGE) -> list[EventSummary]:
        """A charge's deliveries in arrival order (its timeline's webhook side)."""
        page = self.page(EventFilter(charge=charge), limit=limit)
        return list(reversed(page.rows))


def _check_limit(limit: int) -> int:
    if not 1 <= limit <= MAX_PAGE:
        raise ValueError(f"a page holds 1 to {MAX_PAGE} rows, not {limit}")
    return limit


def _where_sql(clauses: list[str]) -> str:
    return (" WHERE " + " AND ".join(clauses)) if clauses else ""


__all__ = [
    "MAX_PAGE",
    "SELF_TESTS_KEPT",
    "EventFilter",
    "EventPage",
    "EventRepository",
    "EventSummary",
    "NewEvent",
    "StoredEvent",
    "Verdict",
    "format_instant",
]
