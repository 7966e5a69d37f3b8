"""The event repository on a real SQLite file: dedupe key, keyset pages, filters, query plans."""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from checkout_desktop.domain.deliveries import EventFilter, NewEvent
from checkout_desktop.domain.enums import Verdict
from checkout_desktop.domain.event_status import EVENT_STATUS_CHOICES, status_walks
from checkout_desktop.inbox.intake import body_digest
from checkout_desktop.store.sqlite import db
from checkout_desktop.store.sqlite.events import EventRepository

logger = logging.getLogger(__name__)

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


@pytest.fixture
def conn(tmp_path: Path) -> Iterator[sqlite3.Connection]:
    connection = db.connect(tmp_path / "store.sqlite3")
    yield connection
    connection.close()


def new(
    n: int,
    *,
    verdict: Verdict = Verdict.ACCEPTED,
    status: str = "PAID",
    mcid: str | None = None,
    event_type: str = "TransactionUpdateMessage",
    body: bytes | None = None,
    charge_id: str | None = None,
) -> NewEvent:
    raw = body if body is not None else f'{{"n": {n}, "note": "row {n}"}}'.encode()
    return NewEvent(
        received_at=T0 + timedelta(seconds=n),
        verdict=verdict,
        body=raw,
        body_sha256=body_digest(raw),
        headers={"Authorization": "[not stored: bare token]", "event-type": event_type},
        event_type=event_type,
        body_type="PAYMENT",
        merchant_charge_id=mcid or f"order-{n % 3}",
        charge_id=charge_id or f"charge-{n % 3}",
        status=status,
    )


def fill(conn: sqlite3.Connection, events: list[NewEvent]) -> list[int]:
    repo = EventRepository(conn)
    with db.transaction(conn):
        return [repo.insert(e) for e in events]


def test_insert_and_get_round_trip(conn: sqlite3.Connection) -> None:
    (event_id,) = fill(conn, [new(1)])
    repo = EventRepository(conn)
    stored = repo.get(event_id)
    assert stored is not None
    assert stored.received_at == T0 + timedelta(seconds=1)
    assert stored.headers["Authorization"] == "[not stored: bare token]"
    assert stored.body_json() == {"n": 1, "note": "row 1"}
    assert repo.get(event_id + 1) is None
    assert repo.latest_id() == event_id


def test_dedupe_key_is_the_first_delivery_of_a_body(conn: sqlite3.Connection) -> None:
    repo = EventRepository(conn)
    first = new(1, body=b'{"same": true}')
    (first_id,) = fill(conn, [first])
    assert repo.first_delivery_of(first.body_sha256) == first_id
    with db.transaction(conn):
        dup_id = repo.insert(
            NewEvent(**{**first.__dict__, "verdict": Verdict.DUPLICATE, "duplicate_of": first_id})
        )
    assert repo.first_delivery_of(first.body_sha256) == first_id
    assert dup_id != first_id
    # A second "first delivery" of the same body is refused by the partial unique index.
    with pytest.raises(sqlite3.IntegrityError), db.transaction(conn):
        repo.insert(first)
    # Quarantined copies are never the dedupe key: a bad body is kept each time it comes.
    bad = new(2, verdict=Verdict.QUARANTINED, body=b"{bad")
    fill(conn, [bad, bad])
    assert repo.first_delivery_of(bad.body_sha256) is None


def test_insert_first_stores_a_body_once_and_says_when_it_was_stored_before(
    conn: sqlite3.Connection,
) -> None:
    repo = EventRepository(conn)
    first = new(1, body=b'{"once": true}')
    with db.transaction(conn):
        first_id = repo.insert_first(first)
        assert first_id is not None
        # The same body again (in the same transaction, as in one batch): nothing inserted.
        assert repo.insert_first(first) is None
    with db.transaction(conn):
        assert repo.insert_first(new(2, body=b'{"once": true}')) is None
    assert repo.latest_id() == first_id
    assert repo.first_delivery_of(first.body_sha256) == first_id
    # Other constraints still raise: a conflict is only ever the first-delivery index.
    with pytest.raises(sqlite3.IntegrityError), db.transaction(conn):
        repo.insert_first(replace(new(3), body=None))  # type: ignore[arg-type]
    # Quarantined rows and known duplicates are not first deliveries.
    with pytest.raises(ValueError, match="first"), db.transaction(conn):
        repo.insert_first(new(4, verdict=Verdict.QUARANTINED))
    with pytest.raises(ValueError, match="first"), db.transaction(conn):
        repo.insert_first(replace(new(5), verdict=Verdict.DUPLICATE, duplicate_of=first_id))


def test_pages_are_keyset_newest_first(conn: sqlite3.Connection) -> None:
    ids = fill(conn, [new(n) for n in range(25)])
    repo = EventRepository(conn)
    seen: list[int] = []
    before = None
    while True:
        page = repo.page(before=before, limit=10)
        seen += [row.id for row in page.rows]
        if page.next_before is None:
            break
        before = page.next_before
    assert seen == sorted(ids, reverse=True)
    assert repo.newer(after=ids[20], limit=3) == [
        repo.page(before=ids[i] + 1, limit=1).rows[0] for i in (21, 22, 23)
    ]


def test_filters(conn: sqlite3.Connection) -> None:
    events = [new(n) for n in range(12)]
    events.append(new(100, status="DENIED", mcid="special_100%"))
    events.append(new(101, verdict=Verdict.UNKNOWN, event_type="RefundUpdateMessage"))
    events.append(new(102, verdict=Verdict.QUARANTINED, body=b"{oops"))
    fill(conn, events)
    repo = EventRepository(conn)

    def ids(where: EventFilter) -> list[int]:
        return [row.id for row in repo.page(where, limit=100).rows]

    assert len(ids(EventFilter(statuses=("DENIED",)))) == 1
    assert len(ids(EventFilter(types=("RefundUpdateMessage",)))) == 1
    assert len(ids(EventFilter(types=("PAYMENT",)))) == 15
    assert len(ids(EventFilter(verdicts=(Verdict.QUARANTINED, Verdict.UNKNOWN)))) == 2
    assert len(ids(EventFilter(charge="charge-1"))) == 5
    assert len(ids(EventFilter(charge="order-2"))) == 5
    # Free text: LIKE wildcards in the query are literal characters.
    assert len(ids(EventFilter(text="special_100%"))) == 1
    assert ids(EventFilter(text="l_100%")) == ids(EventFilter(text="special"))
    assert ids(EventFilter(text="_1%x")) == []
    assert len(ids(EventFilter(text="ROW 7"))) == 1
    assert len(ids(EventFilter(text="oops"))) == 1
    window = EventFilter(since=T0 + timedelta(seconds=3), until=T0 + timedelta(seconds=6))
    assert len(ids(window)) == 3
    assert ids(EventFilter(since=T0 + timedelta(days=1))) == []
    assert ids(EventFilter(until=T0)) == []
    # order-0 from n = 6 and 9, and the quarantined row 102 (which also says PAID).
    both = EventFilter(statuses=("PAID",), charge="order-0", since=T0 + timedelta(seconds=6))
    assert len(ids(both)) == 3


def test_time_window_is_exact_when_arrival_and_id_order_differ(conn: sqlite3.Connection) -> None:
    # A slow body stamped early can be stored after a later one; a clock can step back.
    late, early = new(10), new(5)
    ids = fill(conn, [late, early, new(1), new(20)])
    repo = EventRepository(conn)
    window = EventFilter(since=T0 + timedelta(seconds=5), until=T0 + timedelta(seconds=15))
    assert sorted(row.id for row in repo.page(window).rows) == [ids[0], ids[1]]
    assert [e.id for e in repo.iter_full(window)] == [ids[0], ids[1]]
    # A window nobody is in yet still sees the rows stored later.
    future = EventFilter(since=T0 + timedelta(days=1))
    assert repo.page(future).rows == []
    (later,) = fill(conn, [new(86_400 + 7)])
    assert [row.id for row in repo.newer(future, after=ids[-1])] == [later]
    assert [row.id for row in repo.page(future).rows] == [later]


def test_only_the_newest_self_tests_are_kept(conn: sqlite3.Connection) -> None:
    events = []
    for n in range(30):
        events.append(new(n, verdict=Verdict.SELF_TEST, body=f'{{"self": {n}}}'.encode()))
        events.append(new(100 + n))
    ids = fill(conn, events)
    repo = EventRepository(conn)
    with db.transaction(conn):
        assert repo.prune_self_tests(keep=5) == 25
        assert repo.prune_self_tests(keep=5) == 0
    left = repo.page(EventFilter(verdicts=(Verdict.SELF_TEST,)), limit=100).rows
    assert [row.id for row in left] == ids[-2::-2][:5]
    assert len(repo.page(EventFilter(verdicts=(Verdict.ACCEPTED,)), limit=100).rows) == 30


def test_iter_full_reads_everything_in_batches(conn: sqlite3.Connection) -> None:
    ids = fill(conn, [new(n) for n in range(23)])
    repo = EventRepository(conn)
    assert [e.id for e in repo.iter_full(batch=5)] == ids
    assert [e.id for e in repo.iter_full(EventFilter(charge="order-1"), batch=2)] == ids[1::3]


def test_quarantine_view_lists_only_quarantined(conn: sqlite3.Connection) -> None:
    fill(conn, [new(1), new(2, verdict=Verdict.QUARANTINED, body=b"<xml/>")])
    rows = conn.execute("SELECT body FROM webhook_quarantine").fetchall()
    assert [bytes(r["body"]) for r in rows] == [b"<xml/>"]


def test_page_limits_are_checked(conn: sqlite3.Connection) -> None:
    repo = EventRepository(conn)
    with pytest.raises(ValueError, match="1 to 1000 rows"):
        repo.page(limit=0)
    with pytest.raises(ValueError, match="1 to 1000 rows"):
        repo.newer(after=0, limit=5000)


@pytest.mark.parametrize(
    ("where", "index"),
    [
        (EventFilter(), "INTEGER PRIMARY KEY"),
        (EventFilter(statuses=("DENIED",)), "webhook_event_status"),
        (EventFilter(verdicts=(Verdict.QUARANTINED,)), "webhook_event_verdict"),
        (EventFilter(charge="order-7"), "webhook_event_charge"),
        (EventFilter(since=T0 + timedelta(seconds=4990)), "PRIMARY KEY (rowid>? AND rowid<?)"),
        (EventFilter(until=T0 + timedelta(seconds=10)), "INTEGER PRIMARY KEY"),
    ],
)
def test_paging_plans_stay_bounded(
    conn: sqlite3.Connection, where: EventFilter, index: str
) -> None:
    """The plans that keep a page cheap at 1,000,000 rows: an index walk in id order, no OFFSET;
    a sort only over one charge's few rows."""
    # Enough rows, with realistic spreads, for ANALYZE to give the planner real statistics.
    events = [new(n, mcid=f"order-{n // 4}", charge_id=f"c-{n // 4}") for n in range(5000)]
    events += [new(n, status="DENIED", verdict=Verdict.QUARANTINED) for n in range(5000, 5003)]
    fill(conn, events)
    conn.execute("ANALYZE")
    plan = _page_plan(conn, where)
    assert index in plan, plan
    if where.charge is None:
        assert "TEMP B-TREE" not in plan, plan
    assert "SCAN webhook_event" not in plan.replace("SCAN webhook_event USING", ""), plan


_SUMMARY = "id, received_at, verdict, status"


def _page_plan(conn: sqlite3.Connection, where: EventFilter | None) -> str:
    """SQLite's plan for one page of `where`, newest first, below an id (a keyset walk)."""
    clauses, params = EventRepository(conn).sql_filter(where)
    clauses.append("id < :before")
    sql = (
        f"SELECT {_SUMMARY} FROM webhook_event WHERE "  # noqa: S608 - constants
        + " AND ".join(clauses)
        + " ORDER BY id DESC LIMIT 100"
    )
    return " | ".join(
        str(r["detail"])
        for r in conn.execute("EXPLAIN QUERY PLAN " + sql, {**params, "before": 10**9})
    )


@pytest.mark.parametrize("choice", list(EVENT_STATUS_CHOICES))
def test_each_status_choice_walks_the_shown_status_index(
    conn: sqlite3.Connection, choice: str
) -> None:
    """A status as the list shows it: each shown status it looks at is one walk down the shown
    status index in id order (never a scan, never a sort, no look-up into the charges)."""
    events = [new(n, mcid=f"order-{n // 4}", charge_id=f"c-{n // 4}") for n in range(5000)]
    events += [new(n, status="DENIED") for n in range(5000, 5003)]
    fill(conn, events)
    conn.execute("ANALYZE")
    walks = status_walks(EventFilter(shown=EVENT_STATUS_CHOICES[choice]))
    assert len(walks) == len(set(EVENT_STATUS_CHOICES[choice]))
    for walk in walks:
        plan = _page_plan(conn, walk)
        assert "webhook_event_shown (shown_status=? AND id<?)" in plan, plan
        assert "TEMP B-TREE" not in plan, plan
        assert "SCAN" not in plan, plan
        assert "charge_transaction" not in plan, plan


def _index_all(conn: sqlite3.Connection, batch: int = 7) -> None:
    repo = EventRepository(conn)
    while True:
        with db.transaction(conn):
            done, latest = repo.index_for_search(batch)
        if done >= latest:
            return


def _search_all(repo: EventRepository, text: str, *, window: int | None = None) -> list[int]:
    """Every matching id, newest first, page by page (or id window by id window, as the live
    list scans)."""
    where = EventFilter(text=text)
    seen: list[int] = []
    before: int | None = None
    top = repo.latest_id() + 1
    while True:
        if window is None:
            page = repo.page(where, before=before, limit=3)
            seen += [row.id for row in page.rows]
            if page.next_before is None:
                return seen
            before = page.next_before
        else:
            floor = max(1, top - window)
            page = repo.page(where, before=top, floor=floor, limit=3)
            seen += [row.id for row in page.rows]
            if page.next_before is not None:
                top = page.next_before
            elif floor == 1:
                return seen
            else:
                top = floor


def _like(text: str, values: list[str | None]) -> bool:
    """SQLite's LIKE without wildcards: a substring, ASCII letters in either case."""
    folded = text.encode().lower()
    return any(v is not None and folded in v.encode().lower() for v in values)


def test_search_index_finds_exactly_what_a_scan_finds(conn: sqlite3.Connection) -> None:
    events = [new(n, mcid=f"order-{n % 7:03d}-{n}") for n in range(60)]
    events += [
        # Every trigram of "abcd" is here, but not "abcd": the index proposes, LIKE decides.
        new(100, body=b'{"note": "abc bcd"}'),
        new(101, body=b'{"note": "xxABCDyy"}'),
        # LIKE folds ASCII only; the index folds more, and must not widen the answer.
        new(102, body='{"note": "Éclair"}'.encode()),
        new(103, body='{"note": "éclair"}'.encode()),
        new(104, verdict=Verdict.QUARANTINED, body=b"\xff\xfe not json with 50% off_x"),
        new(105, mcid='quote"d-id'),
    ]
    fill(conn, events)
    repo = EventRepository(conn)
    assert repo.has_search_index()
    rows = list(repo.iter_full())
    texts = ["order-003", "abcd", "ABCD", "éclair", "Éclair", "50% off_", 'te"d-i', "row 4", "zzz"]
    texts.append('{"n": 42, "note": "row 42"}')  # longer than the trigrams the index counts
    expected = {
        t: [
            r.id
            for r in reversed(rows)
            if _like(
                t,
                [
                    r.merchant_charge_id,
                    r.charge_id,
                    r.event_ref,
                    r.event_type,
                    r.body_type,
                    r.status,
                    r.reason,
                    r.body.decode("utf-8", errors="replace"),
                ],
            )
        ]
        for t in texts
    }
    assert expected["abcd"] == expected["ABCD"] != []
    assert len(expected["éclair"]) == len(expected["Éclair"]) == 1
    assert expected["zzz"] == []

    def everything() -> dict[str, list[int]]:
        return {t: _search_all(repo, t) for t in texts}

    assert repo.indexed_through() == 0
    assert everything() == expected  # nothing indexed: all of it is the scanned tail
    with db.transaction(conn):
        assert repo.index_for_search(30) == (30, len(rows))
    assert everything() == expected  # half from the index, half scanned
    _index_all(conn)
    assert repo.indexed_through() == repo.latest_id()
    assert everything() == expected
    assert {t: _search_all(repo, t, window=9) for t in texts} == expected
    (newer,) = fill(conn, [new(200, mcid="order-003-new")])
    assert _search_all(repo, "order-003") == [newer, *expected["order-003"]]


def test_pruned_self_tests_leave_the_search_index(conn: sqlite3.Connection) -> None:
    events = [
        new(n, verdict=Verdict.SELF_TEST, body=f'{{"nonce": "probe-{n}"}}'.encode())
        for n in range(12)
    ]
    fill(conn, events)
    _index_all(conn)
    repo = EventRepository(conn)
    assert len(_search_all(repo, "probe-")) == 12
    with db.transaction(conn):
        assert repo.prune_self_tests(keep=4) == 8
    assert len(_search_all(repo, "probe-")) == 4
    # The external-content index agrees with the table, row for row.
    conn.execute(
        "INSERT INTO webhook_event_fts (webhook_event_fts, rank) VALUES ('integrity-check', 1)"
    )


def test_a_store_without_the_search_index_gets_it_on_open(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    conn = db.connect(path)
    fill(conn, [new(n) for n in range(5)])
    # As a store made before the index existed (or by an SQLite without FTS5) looks.
    conn.execute("DROP TABLE webhook_event_fts")
    conn.execute("DROP TABLE webhook_event_search")
    assert not EventRepository(conn).has_search_index()
    assert len(_search_all(EventRepository(conn), "row ")) == 5
    conn.close()
    again = db.connect(path)
    try:
        repo = EventRepository(again)
        assert repo.has_search_index()
        assert repo.indexed_through() == 0
        _index_all(again)
        assert len(_search_all(repo, "row ")) == 5
    finally:
        again.close()
