"""Repository of stored webhook deliveries: insert, dedupe lookup, keyset paging and export."""

from __future__ import annotations

import contextlib
import json
import logging
import sqlite3
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from checkout_desktop.domain.deliveries import (
    MAX_PAGE,
    EventFilter,
    EventPage,
    EventSummary,
    NewEvent,
    StoredEvent,
    page_of_walks,
)
from checkout_desktop.domain.enums import Verdict
from checkout_desktop.domain.reasons import Reason
from checkout_desktop.store.errors import StoreUnavailable
from checkout_desktop.store.sqlite import db
from checkout_desktop.store.sqlite.bound import positional

logger = logging.getLogger(__name__)

SELF_TESTS_KEPT = 200
SEARCH_MIN_CHARS = 3
"""A text of at least this many characters is looked up in the search index (trigrams); a
shorter one is scanned for (it is common enough that a page fills fast)."""
INDEX_BATCH = 500
"""Rows the inbox writer adds to the search index in one transaction."""
MAX_REASON_TEXT = 600
"""A stored reason's English text is cut here (its code and arguments are kept whole)."""

# The columns a text search looks in, as the search index holds them: keep in step with
# filter_clauses() and schema_inbox.SEARCH_INDEX.
_SEARCH_VALUES = (
    "merchant_charge_id, charge_id, event_ref, event_type, body_type, status, reason, "
    "CAST(body AS TEXT)"
)
_SEARCH_COLUMNS = _SEARCH_VALUES.replace("CAST(body AS TEXT)", "body")
# Trigrams are counted up to this many rows to find the rarest ones; those are intersected.
_GRAM_COUNT_CAP = 20_000
# Made once: json.dumps with options builds an encoder on every call (one per delivery).
_TEXT_JSON = json.JSONEncoder(ensure_ascii=False)
_GRAMS_PROBED = 16
_GRAMS_USED = 3
_FIRST_CANDIDATES = 256
_MAX_CANDIDATES = 4096


def format_instant(moment: datetime) -> str:
    """The stored form of an instant: UTC, microseconds, so text order is time order."""
    if moment.tzinfo is None:
        raise ValueError("a naive datetime has no defined instant")
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


def filter_clauses(chosen: EventFilter) -> tuple[list[str], dict[str, Any]]:
    """The filter as SQL clauses over `webhook_event` and their parameters."""
    clauses: list[str] = []
    params: dict[str, Any] = {}
    if chosen.types:
        names = _bind(params, "type", chosen.types)
        clauses.append(f"(event_type IN ({names}) OR body_type IN ({names}))")
    if chosen.exclude_types:
        names = _bind(params, "not_type", chosen.exclude_types)
        clauses.append(
            f"NOT (COALESCE(event_type, '') IN ({names}) OR COALESCE(body_type, '') IN ({names}))"
        )
    if chosen.statuses:
        clauses.append(f"status IN ({_bind(params, 'status', chosen.statuses)})")
    if chosen.shown:
        clauses.append(_shown_clause(chosen.shown, params))
    if chosen.verdicts:
        values = [Verdict(v).value for v in chosen.verdicts]
        clauses.append(f"verdict IN ({_bind(params, 'verdict', values)})")
    if chosen.charge:
        params["charge"] = chosen.charge
        clauses.append("(merchant_charge_id = :charge OR charge_id = :charge)")
    if chosen.text:
        params["text"] = "%" + _escape_like(chosen.text) + "%"
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
    if chosen.since is not None:
        params["since"] = format_instant(chosen.since)
        clauses.append("received_at >= :since")
    if chosen.until is not None:
        params["until"] = format_instant(chosen.until)
        clauses.append("received_at < :until")
    return clauses, params


def _shown_clause(shown: Sequence[str], params: dict[str, Any]) -> str:
    """Rows the list shows with these words (their stored shown status). One value is one walk
    down `webhook_event_shown` (the page walks each on its own: `status_walks`)."""
    names = _bind(params, "shown", shown)
    return f"shown_status = {names}" if len(shown) == 1 else f"shown_status IN ({names})"


def _bind(params: dict[str, Any], prefix: str, values: Sequence[str]) -> str:
    names = []
    n = 0
    for value in values:
        # A prefix may be bound more than once in one filter (a status choice's parts).
        while (key := f"{prefix}{n}") in params:
            n += 1
        params[key] = str(value)
        names.append(f":{key}")
    return ", ".join(names)


def _fts_string(text: str) -> str:
    """`text` as one FTS5 string token (quoted; a quote inside doubled)."""
    return '"' + text.replace('"', '""') + '"'


def _escape_like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


# A QR charge's tender, for the words of the list's reasons: one lookup by the transaction
# table's primary key per row read (only the rows of a page, never a scan). The shared
# PostgreSQL store reads the same columns (`store/postgres/events.py`).
_QR_COLUMNS = (
    "(SELECT t.payment_type FROM charge_transaction AS t "
    "WHERE t.merchant_charge_id = webhook_event.merchant_charge_id "
    "AND t.payment_type IN ('WALLET', 'PIX') ORDER BY t.txn_key LIMIT 1) AS qr_tender"
)
SUMMARY_COLUMNS = (
    "id, received_at, verdict, reason, event_type, body_type, layout, event_ref, "
    "merchant_charge_id, charge_id, status, duplicate_of, merge_outcome, reason_code, "
    "reason_args, merge_code, merge_args, shown_status, " + _QR_COLUMNS
)
FULL_COLUMNS = SUMMARY_COLUMNS + ", body_sha256, content_type, remote, headers_json, body"


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
        "reason_data": Reason.from_stored(row["reason_code"], row["reason_args"]),
        "merge_data": Reason.from_stored(row["merge_code"], row["merge_args"]),
        "qr_tender": row["qr_tender"],
        "shown_status": row["shown_status"],
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
        self._has_index: bool | None = None
        self._grams: dict[str, str] = {}

    def sql_filter(self, where: EventFilter | None) -> tuple[list[str], dict[str, Any]]:
        """The filter's clauses, with a time window turned into an id range as well.

        Pages walk the primary key newest first; without an id range a narrow time window
        would make the last page scan every older row. The floor is exact (the smallest id of
        a row inside the window, whatever order the clock gave), found once through the time
        index and kept: rows stored later have larger ids, so it never moves down.
        """
        chosen = where or EventFilter()
        clauses, params = filter_clauses(chosen)
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

    def charge_state_json(self, merchant_charge_id: str) -> str | None:
        """A stored charge's state as stored (a QR's expiry, which a notification may not
        carry, tells what its word is: `domain/event_status.py` `with_stored_expiry`)."""
        row = self._conn.execute(
            "SELECT state_json FROM charge WHERE merchant_charge_id = :m", {"m": merchant_charge_id}
        ).fetchone()
        return None if row is None else str(row[0])

    def insert(self, event: NewEvent) -> int:
        cursor = self._conn.execute(_INSERT_EVENT.sql, _INSERT_EVENT.values(event_columns(event)))
        row_id = cursor.lastrowid
        assert row_id is not None
        return row_id

    def insert_first(self, event: NewEvent) -> int | None:
        """Insert `event` as the first delivery of its body; None, and nothing inserted, when
        a first delivery of the same body is stored already (then it is a duplicate).

        The dedupe lookup and the insert in one statement: the unique index on first deliveries
        answers both. Only for an event that is neither quarantined nor a known duplicate.
        """
        if event.verdict == Verdict.QUARANTINED or event.duplicate_of is not None:
            raise ValueError("only a delivery that may be a first one is inserted as such")
        cursor = self._conn.execute(
            _INSERT_FIRST_EVENT.sql, _INSERT_FIRST_EVENT.values(event_columns(event))
        )
        if cursor.rowcount == 0:
            return None
        row_id = cursor.lastrowid
        assert row_id is not None
        return row_id

    def set_merge_outcome(self, event_id: int, outcome: Reason) -> None:
        self._conn.execute(
            "UPDATE webhook_event SET merge_outcome = :outcome, merge_code = :code, "
            "merge_args = :args WHERE id = :id",
            {
                "outcome": clip_reason(outcome.english()),
                "code": outcome.code.value,
                "args": outcome.args_json(),
                "id": event_id,
            },
        )

    def index_for_search(self, max_rows: int = INDEX_BATCH) -> tuple[int, int]:
        """Add the next rows (up to `max_rows` ids) to the search index, in the caller's
        transaction; returns (indexed through id, newest id). Nothing to do without the index.
        """
        latest = self.latest_id()
        if not self.has_search_index():
            return latest, latest
        done = self.indexed_through()
        if done >= latest:
            return done, latest
        upto = min(latest, done + max_rows)
        self._conn.execute(
            f"INSERT INTO webhook_event_fts (rowid, {_SEARCH_COLUMNS}) "  # noqa: S608 - constants
            f"SELECT id, {_SEARCH_VALUES} FROM webhook_event WHERE id > :done AND id <= :upto",
            {"done": done, "upto": upto},
        )
        self._conn.execute(
            "UPDATE webhook_event_search SET indexed_through = :upto WHERE id = 1", {"upto": upto}
        )
        return upto, latest

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
        if self.has_search_index():
            # An external-content index forgets a row only when told the text it indexed.
            self._conn.execute(
                f"INSERT INTO webhook_event_fts (webhook_event_fts, rowid, {_SEARCH_COLUMNS}) "  # noqa: S608
                f"SELECT 'delete', id, {_SEARCH_VALUES} FROM webhook_event "
                "WHERE verdict = 'self_test' AND id <= :cutoff "
                "AND id <= (SELECT indexed_through FROM webhook_event_search WHERE id = 1)",
                {"cutoff": int(row[0])},
            )
        cursor = self._conn.execute(
            "DELETE FROM webhook_event WHERE verdict = 'self_test' AND id <= :cutoff",
            {"cutoff": int(row[0])},
        )
        return cursor.rowcount

    # -- reads ----------------------------------------------------------------------------------

    def get(self, event_id: int) -> StoredEvent | None:
        row = self._conn.execute(
            f"SELECT {FULL_COLUMNS} FROM webhook_event WHERE id = :id",  # noqa: S608 - constants
            {"id": event_id},
        ).fetchone()
        return None if row is None else _full(row)

    def has_search_index(self) -> bool:
        """The store has the free-text index (this SQLite could create it)."""
        if self._has_index is None:
            row = self._conn.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'webhook_event_fts'"
            ).fetchone()
            self._has_index = row is not None
        return self._has_index

    def indexed_through(self) -> int:
        """Every row up to this id is in the search index (0: none yet, or no index)."""
        if not self.has_search_index():
            return 0
        row = self._conn.execute(
            "SELECT indexed_through FROM webhook_event_search WHERE id = 1"
        ).fetchone()
        return 0 if row is None else int(row[0])

    def latest_id(self) -> int:
        """The newest row's id (0 when empty): where a live list starts listening."""
        row = self._conn.execute("SELECT max(id) FROM webhook_event").fetchone()
        return int(row[0] or 0)

    def ids_after(self, after: int, limit: int = MAX_PAGE) -> list[int]:
        """Ids of the deliveries stored after `after`, in order (what `watch` yields)."""
        rows = self._conn.execute(
            "SELECT id FROM webhook_event WHERE id > :after ORDER BY id LIMIT :limit",
            {"after": after, "limit": limit},
        )
        return [int(row[0]) for row in rows]

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
        return page_of_walks(
            where,
            _check_limit(limit),
            lambda walk, want: self._walk(walk, before=before, floor=floor, want=want),
        )

    def _walk(
        self, where: EventFilter | None, *, before: int | None, floor: int | None, want: int
    ) -> list[EventSummary]:
        """Up to `want` matching rows in [floor, before), newest first."""
        clauses, params = self.sql_filter(where)
        text = where.text if where is not None else None
        if text and len(text) >= SEARCH_MIN_CHARS and self.has_search_index():
            return self._search(text, clauses, params, before=before, floor=floor, want=want)
        return self._newest(clauses, params, before=before, floor=floor, want=want)

    def _newest(
        self,
        clauses: list[str],
        params: dict[str, Any],
        *,
        before: int | None,
        floor: int | None,
        want: int,
    ) -> list[EventSummary]:
        """Matching rows in [floor, before), newest first, at most `want` (a keyset walk)."""
        clauses = list(clauses)
        params = dict(params)
        if before is not None:
            clauses.append("id < :before")
            params["before"] = before
        if floor is not None:
            clauses.append("id >= :floor")
            params["floor"] = floor
        params["limit"] = want
        sql = (
            f"SELECT {SUMMARY_COLUMNS} FROM webhook_event"  # noqa: S608 - built from constants
            + _where_sql(clauses)
            + " ORDER BY id DESC LIMIT :limit"
        )
        return [_summary(r) for r in self._conn.execute(sql, params)]

    def _search(
        self,
        text: str,
        clauses: list[str],
        params: dict[str, Any],
        *,
        before: int | None,
        floor: int | None,
        want: int,
    ) -> list[EventSummary]:
        """A text search: the rows not indexed yet are scanned, the rest come from the index.

        Both parts check every row with the same clauses (the LIKE included), so the result is
        exactly what a scan would return; the index only chooses which rows to look at. The
        two id ranges are split at the index's high-water mark read once here, so a batch the
        writer indexes meanwhile can neither be missed nor counted twice.
        """
        indexed = self.indexed_through()
        found: list[EventSummary] = []
        if before is None or before > indexed + 1:
            tail_floor = indexed + 1 if floor is None else max(floor, indexed + 1)
            found = self._newest(clauses, params, before=before, floor=tail_floor, want=want)
        low = 1 if floor is None else max(1, floor)
        if len(found) >= want or low > indexed:
            return found
        query = self._index_query(text)
        if query is None:
            return found
        upper = indexed + 1 if before is None else min(before, indexed + 1)
        step = _FIRST_CANDIDATES
        while len(found) < want:
            candidates = [
                int(r[0])
                for r in self._conn.execute(
                    "SELECT rowid FROM webhook_event_fts WHERE webhook_event_fts MATCH :q "
                    "AND rowid >= :low AND rowid < :upper ORDER BY rowid DESC LIMIT :n",
                    {"q": query, "low": low, "upper": upper, "n": step},
                )
            ]
            if not candidates:
                break
            checked = dict(params)
            checked["candidates"] = json.dumps(candidates)
            checked["limit"] = want - len(found)
            sql = (
                f"SELECT {SUMMARY_COLUMNS} FROM webhook_event"  # noqa: S608 - from constants
                + _where_sql([*clauses, "id IN (SELECT value FROM json_each(:candidates))"])
                + " ORDER BY id DESC LIMIT :limit"
            )
            found.extend(_summary(r) for r in self._conn.execute(sql, checked))
            if len(candidates) < step:
                break
            upper = candidates[-1]
            step = min(step * 4, _MAX_CANDIDATES)
        return found

    def _index_query(self, text: str) -> str | None:
        """The index query for rows that may hold `text`; None when none can.

        A row holding the text holds each of its trigrams, so any set of them finds a superset
        of the matches (the LIKE then decides). Intersecting a trigram found in most rows costs
        more than it narrows (measured at 1,000,000 rows: all eleven trigrams of a charge id
        46 ms, its digit trigrams 9 ms), so the few rarest are chosen, by counting each one's
        rows up to a cap (a common trigram reaches the cap within a few pages).
        """
        cached = self._grams.get(text)
        if cached is not None:
            return cached
        grams = sorted({text[i : i + SEARCH_MIN_CHARS] for i in range(len(text) - 2)})
        if len(grams) > _GRAMS_PROBED:
            # A long text (a pasted body) needs no more candidates to choose from than this.
            step = len(grams) / _GRAMS_PROBED
            grams = [grams[int(i * step)] for i in range(_GRAMS_PROBED)]
        counts: dict[str, int] = {}
        for gram in grams:
            counts[gram] = int(
                self._conn.execute(
                    "SELECT count(*) FROM (SELECT 1 FROM webhook_event_fts "
                    "WHERE webhook_event_fts MATCH :g LIMIT :cap)",
                    {"g": _fts_string(gram), "cap": _GRAM_COUNT_CAP},
                ).fetchone()[0]
            )
            if counts[gram] == 0:
                # Not cached: rows indexed later may hold it.
                return None
        rarest = sorted(grams, key=counts.__getitem__)[:_GRAMS_USED]
        query = " AND ".join(_fts_string(g) for g in sorted(rarest))
        if len(self._grams) >= 64:
            self._grams.clear()
        self._grams[text] = query
        return query

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
            f"SELECT {SUMMARY_COLUMNS} FROM webhook_event"  # noqa: S608 - built from constants
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
                f"SELECT {FULL_COLUMNS} FROM webhook_event"  # noqa: S608 - from constants
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


@contextlib.contextmanager
def reading(path: Path) -> Iterator[EventRepository]:
    """The deliveries of the store at `path`, read-only (for `checkout-desktop events`).

    StoreError when the store cannot be opened; a failure while reading is StoreUnavailable,
    saying which file could not be read.
    """
    conn = db.connect(path, readonly=True)
    try:
        yield EventRepository(conn)
    except sqlite3.Error as exc:
        raise StoreUnavailable(f"cannot read {path}: {exc}") from exc
    finally:
        conn.close()


_INSERT_EVENT_SQL = (
    "INSERT INTO webhook_event (received_at, verdict, reason, reason_code, reason_args, "
    "event_type, body_type, layout, event_ref, merchant_charge_id, charge_id, status, "
    "shown_status, duplicate_of, body_sha256, content_type, remote, headers_json, body) VALUES "
    "(:received_at, :verdict, :reason, :reason_code, :reason_args, :event_type, "
    ":body_type, :layout, :event_ref, :merchant_charge_id, :charge_id, :status, "
    ":shown_status, :duplicate_of, :body_sha256, :content_type, :remote, :headers_json, :body)"
)
# The only uniqueness a new row can break is the first-delivery index (body_sha256 of rows
# neither duplicate nor quarantined): a conflict means the body was stored before.
_INSERT_EVENT = positional(_INSERT_EVENT_SQL)
_INSERT_FIRST_EVENT = positional(_INSERT_EVENT_SQL + " ON CONFLICT DO NOTHING")


def clip_reason(text: str) -> str:
    """A reason's English text cut to what the store keeps."""
    return text if len(text) <= MAX_REASON_TEXT else text[: MAX_REASON_TEXT - 1] + "…"


def event_columns(event: NewEvent) -> dict[str, Any]:
    """The `webhook_event` columns a new delivery fills, as named parameters (both stores)."""
    return {
        "received_at": format_instant(event.received_at),
        "verdict": event.verdict.value,
        "reason": None if event.reason is None else clip_reason(event.reason.english()),
        "reason_code": None if event.reason is None else event.reason.code.value,
        "reason_args": None if event.reason is None else event.reason.args_json(),
        "event_type": event.event_type,
        "body_type": event.body_type,
        "layout": event.layout,
        "event_ref": event.event_ref,
        "merchant_charge_id": event.merchant_charge_id,
        "charge_id": event.charge_id,
        "status": event.status,
        "shown_status": event.status if event.shown_status is None else event.shown_status,
        "duplicate_of": event.duplicate_of,
        "body_sha256": event.body_sha256,
        "content_type": event.content_type,
        "remote": event.remote,
        "headers_json": _TEXT_JSON.encode(dict(event.headers)),
        "body": event.body,
    }


__all__ = [
    "FULL_COLUMNS",
    "INDEX_BATCH",
    "MAX_PAGE",
    "SEARCH_MIN_CHARS",
    "SELF_TESTS_KEPT",
    "SUMMARY_COLUMNS",
    "EventFilter",
    "EventPage",
    "EventRepository",
    "EventSummary",
    "NewEvent",
    "StoredEvent",
    "Verdict",
    "clip_reason",
    "event_columns",
    "format_instant",
    "reading",
]
