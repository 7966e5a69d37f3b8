"""Stored webhook deliveries on PostgreSQL: insert, dedupe lookup, keyset paging, search, export.

The same repository as the embedded store's (`store/events.py`), row for row: the same
filters, the same newest-first keyset pages that never use OFFSET, the same dedupe key. Free
text is looked up in `search_text` through a trigram index (pg_trgm) that PostgreSQL keeps up
to date in the delivery's own transaction, so there is no unindexed tail to scan.
"""

from __future__ import annotations

import contextlib
import functools
import json
import logging
import re
from collections.abc import Iterator, Mapping
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from checkout_desktop.domain.deliveries import (
    EventFilter,
    EventPage,
    EventSummary,
    NewEvent,
    StoredEvent,
    page_of_walks,
)
from checkout_desktop.domain.enums import Verdict
from checkout_desktop.domain.reasons import Reason
from checkout_desktop.store.sqlite.events import (
    FULL_COLUMNS,
    MAX_PAGE,
    SELF_TESTS_KEPT,
    SUMMARY_COLUMNS,
    clip_reason,
    event_columns,
    filter_clauses,
)

if TYPE_CHECKING:
    import psycopg

logger = logging.getLogger(__name__)

_NAMED = re.compile(r"(?<![:\w]):([A-Za-z_]\w*)")


@functools.lru_cache(maxsize=1024)
def pg_params(sql: str) -> str:
    """`:name` placeholders (the embedded store's style, which EventFilter writes) as psycopg's
    `%(name)s`; `::type` casts are left alone."""
    return _NAMED.sub(r"%(\1)s", sql.replace("%", "%%"))


def search_text(event: NewEvent) -> str:
    """What a free-text search looks in: the searched columns and the body as text, lower-cased.

    Keep in step with EventFilter's text columns. PostgreSQL text cannot hold NUL, so a body
    that has one is searched without it. Letters are folded as SQLite's LIKE folds them.
    """
    values = (
        event.merchant_charge_id,
        event.charge_id,
        event.event_ref,
        event.event_type,
        event.body_type,
        event.status,
        None if event.reason is None else clip_reason(event.reason.english()),
        event.body.decode("utf-8", errors="replace"),
    )
    return fold("\n".join(v for v in values if v)).replace("\x00", "")


# SQLite's LIKE folds ASCII letters only; folding the same way here keeps a search's answer
# the same on both stores (an "É" does not find an "é").
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def fold(text: str) -> str:
    """`text` with ASCII letters in lower case, everything else as it is."""
    return text.translate(_ASCII_LOWER)


def _escape_like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _summary_fields(row: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "id": int(row["id"]),
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
        "reason_data": Reason.from_stored(row["reason_code"], row["reason_args"]),
        "merge_data": Reason.from_stored(row["merge_code"], row["merge_args"]),
        "qr_tender": row["qr_tender"],
        "shown_status": row["shown_status"],
    }


def _summary(row: Mapping[str, Any]) -> EventSummary:
    return EventSummary(**_summary_fields(row))


def _full(row: Mapping[str, Any]) -> StoredEvent:
    return StoredEvent(
        **_summary_fields(row),
        body_sha256=row["body_sha256"],
        content_type=row["content_type"],
        remote=row["remote"],
        headers=json.loads(row["headers_json"]),
        body=bytes(row["body"]),
    )


def _check_limit(limit: int) -> int:
    if not 1 <= limit <= MAX_PAGE:
        raise ValueError(f"a page holds 1 to {MAX_PAGE} rows, not {limit}")
    return limit


def _where_sql(clauses: list[str]) -> str:
    return (" WHERE " + " AND ".join(clauses)) if clauses else ""


class PgEventRepository:
    """Reads and writes `webhook_event` on one psycopg connection.

    Writes run inside the caller's transaction (the inbox writer batches deliveries into one
    durable commit). Rows are read as mappings through cursors of their own, so the connection
    is left as it was given.
    """

    def __init__(self, conn: psycopg.Connection[Any]) -> None:
        self._conn = conn
        self._since_floor: dict[str, int] = {}

    def _cursor(self) -> psycopg.Cursor[dict[str, Any]]:
        from psycopg.rows import dict_row

        return self._conn.cursor(row_factory=dict_row)

    def _rows(self, sql: str, params: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
        with self._cursor() as cursor:
            return cursor.execute(pg_params(sql), params or {}).fetchall()

    def _one(self, sql: str, params: Mapping[str, Any] | None = None) -> dict[str, Any] | None:
        with self._cursor() as cursor:
            return cursor.execute(pg_params(sql), params or {}).fetchone()

    def sql_filter(self, where: EventFilter | None) -> tuple[list[str], dict[str, Any]]:
        """The filter's clauses (`:name` style), with a time window also as an id range."""
        chosen = where or EventFilter()
        clauses, params = filter_clauses(replace(chosen, text=None))
        if chosen.text:
            params["text"] = "%" + _escape_like(fold(chosen.text)) + "%"
            clauses.append("search_text LIKE :text ESCAPE '\\'")
        if chosen.since is not None:
            since = params["since"]
            floor = self._since_floor.get(since)
            if floor is None:
                row = self._one(
                    "SELECT min(id) AS id FROM webhook_event WHERE received_at >= :since",
                    {"since": since},
                )
                if row is not None and row["id"] is not None:
                    floor = self._since_floor[since] = int(row["id"])
                else:
                    floor = self.latest_id() + 1
            params["since_floor"] = floor
            clauses.append("id >= :since_floor")
        if chosen.until is not None:
            row = self._one(
                "SELECT max(id) AS id FROM webhook_event WHERE received_at < :until",
                {"until": params["until"]},
            )
            params["until_ceiling"] = int((row or {}).get("id") or 0)
            clauses.append("id <= :until_ceiling")
        return clauses, params

    # -- writes (inside the caller's transaction) ---------------------------------------------

    def first_delivery_of(self, body_sha256: str) -> int | None:
        row = self._one(
            "SELECT id FROM webhook_event WHERE body_sha256 = :sha "
            "AND duplicate_of IS NULL AND verdict <> 'quarantined'",
            {"sha": body_sha256},
        )
        return None if row is None else int(row["id"])

    def charge_state_json(self, merchant_charge_id: str) -> str | None:
        """A stored charge's state as stored (`domain/event_status.py` `with_stored_expiry`)."""
        row = self._one(
            "SELECT state_json FROM charge WHERE merchant_charge_id = :m", {"m": merchant_charge_id}
        )
        return None if row is None else str(row["state_json"])

    def insert(self, event: NewEvent) -> int:
        row = self._one(
            "INSERT INTO webhook_event (received_at, verdict, reason, reason_code, reason_args, "
            "event_type, body_type, layout, event_ref, merchant_charge_id, charge_id, status, "
            "shown_status, duplicate_of, body_sha256, content_type, remote, headers_json, body, "
            "search_text) VALUES (:received_at, :verdict, :reason, :reason_code, :reason_args, "
            ":event_type, :body_type, :layout, :event_ref, :merchant_charge_id, :charge_id, "
            ":status, :shown_status, :duplicate_of, :body_sha256, :content_type, :remote, "
            ":headers_json, :body, :search_text) RETURNING id",
            {**event_columns(event), "search_text": search_text(event)},
        )
        assert row is not None
        return int(row["id"])

    def set_merge_outcome(self, event_id: int, outcome: Reason) -> None:
        self._conn.execute(
            pg_params(
                "UPDATE webhook_event SET merge_outcome = :outcome, merge_code = :code, "
                "merge_args = :args WHERE id = :id"
            ),
            {
                "outcome": clip_reason(outcome.english()),
                "code": outcome.code.value,
                "args": outcome.args_json(),
                "id": event_id,
            },
        )

    def index_for_search(self, max_rows: int = 0) -> tuple[int, int]:
        """Nothing to do: PostgreSQL indexes each row in the transaction that stores it."""
        latest = self.latest_id()
        return latest, latest

    def prune_self_tests(self, keep: int = SELF_TESTS_KEPT) -> int:
        """Forget all but the newest `keep` self-test rows; returns how many went."""
        row = self._one(
            "SELECT id FROM webhook_event WHERE verdict = 'self_test' "
            "ORDER BY id DESC LIMIT 1 OFFSET :keep",
            {"keep": keep},
        )
        if row is None:
            return 0
        cursor = self._conn.execute(
            pg_params("DELETE FROM webhook_event WHERE verdict = 'self_test' AND id <= :cutoff"),
            {"cutoff": int(row["id"])},
        )
        return cursor.rowcount

    # -- reads ----------------------------------------------------------------------------------

    def get(self, event_id: int) -> StoredEvent | None:
        row = self._one(
            f"SELECT {FULL_COLUMNS} FROM webhook_event WHERE id = :id",  # noqa: S608 - constants
            {"id": event_id},
        )
        return None if row is None else _full(row)

    def has_search_index(self) -> bool:
        row = self._one("SELECT to_regclass('webhook_event_search') IS NOT NULL AS found")
        return bool(row and row["found"])

    def indexed_through(self) -> int:
        """Every stored row is searchable through the index as soon as it is committed."""
        return self.latest_id()

    def latest_id(self) -> int:
        row = self._one("SELECT max(id) AS id FROM webhook_event")
        return int((row or {}).get("id") or 0)

    def page(
        self,
        where: EventFilter | None = None,
        *,
        before: int | None = None,
        limit: int = 100,
        floor: int | None = None,
    ) -> EventPage:
        """One page of summaries, newest first, strictly older than `before` when given."""
        return page_of_walks(
            where,
            _check_limit(limit),
            lambda walk, want: self._walk(walk, before=before, floor=floor, want=want),
        )

    def _walk(
        self, where: EventFilter | None, *, before: int | None, floor: int | None, want: int
    ) -> list[EventSummary]:
        """Up to `want` matching rows in [floor, before), newest first (a keyset walk)."""
        clauses, params = self.sql_filter(where)
        if before is not None:
            clauses.append("id < :before")
            params["before"] = before
        if floor is not None:
            clauses.append("id >= :floor")
            params["floor"] = floor
        params["limit"] = want
        return [
            _summary(r)
            for r in self._rows(
                f"SELECT {SUMMARY_COLUMNS} FROM webhook_event"  # noqa: S608 - from constants
                + _where_sql(clauses)
                + " ORDER BY id DESC LIMIT :limit",
                params,
            )
        ]

    def newer(
        self, where: EventFilter | None = None, *, after: int, limit: int = 100
    ) -> list[EventSummary]:
        """Summaries strictly newer than `after`, oldest first (a live list's incremental fetch)."""
        limit = _check_limit(limit)
        clauses, params = self.sql_filter(where)
        clauses.append("id > :after")
        params["after"] = after
        params["limit"] = limit
        return [
            _summary(r)
            for r in self._rows(
                f"SELECT {SUMMARY_COLUMNS} FROM webhook_event"  # noqa: S608 - from constants
                + _where_sql(clauses)
                + " ORDER BY id ASC LIMIT :limit",
                params,
            )
        ]

    def iter_full(
        self, where: EventFilter | None = None, *, batch: int = 500
    ) -> Iterator[StoredEvent]:
        """Every matching delivery, oldest first, read in keyset batches (for export)."""
        batch = _check_limit(batch)
        after = 0
        base_clauses, base_params = self.sql_filter(where)
        while True:
            rows = [
                _full(r)
                for r in self._rows(
                    f"SELECT {FULL_COLUMNS} FROM webhook_event"  # noqa: S608 - from constants
                    + _where_sql([*base_clauses, "id > :after"])
                    + " ORDER BY id ASC LIMIT :limit",
                    {**base_params, "after": after, "limit": batch},
                )
            ]
            yield from rows
            if len(rows) < batch:
                return
            after = rows[-1].id

    def full_after(
        self, where: EventFilter | None = None, *, after: int, batch: int = 500
    ) -> list[StoredEvent]:
        """One export batch: whole deliveries with id > `after`, oldest first."""
        batch = _check_limit(batch)
        clauses, params = self.sql_filter(where)
        return [
            _full(r)
            for r in self._rows(
                f"SELECT {FULL_COLUMNS} FROM webhook_event"  # noqa: S608 - from constants
                + _where_sql([*clauses, "id > :after"])
                + " ORDER BY id ASC LIMIT :limit",
                {**params, "after": after, "limit": batch},
            )
        ]

    def ids_after(self, after: int, limit: int = MAX_PAGE) -> list[int]:
        """Ids of the deliveries stored after `after`, in order (what `watch` yields)."""
        rows = self._rows(
            "SELECT id FROM webhook_event WHERE id > :after ORDER BY id LIMIT :limit",
            {"after": after, "limit": limit},
        )
        return [int(row["id"]) for row in rows]

    def for_charge(self, charge: str, *, limit: int = MAX_PAGE) -> list[EventSummary]:
        """A charge's deliveries in arrival order (its timeline's webhook side)."""
        page = self.page(EventFilter(charge=charge), limit=limit)
        return list(reversed(page.rows))


@contextlib.contextmanager
def reading(url: str) -> Iterator[PgEventRepository]:
    """The deliveries of the shared store at `url` (password from the keychain), for reading
    (`checkout-desktop --store URL events`). SharedStoreError says why it cannot be read."""
    import psycopg

    from checkout_desktop.store.postgres import db
    from checkout_desktop.store.postgres.address import StoreAddress

    address = StoreAddress.parse(url)
    conn = db.connect(address, db.keychain_password(address), migrate_schema=False)
    try:
        yield PgEventRepository(conn)
    except psycopg.Error as exc:
        raise db.describe_error(address, exc) from None
    finally:
        conn.close()


__all__ = ["PgEventRepository", "fold", "pg_params", "reading", "search_text"]
