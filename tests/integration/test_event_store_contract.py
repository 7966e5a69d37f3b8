"""One contract for the event repository, held by both stores: the embedded SQLite file and the
shop's shared PostgreSQL database give the same answers to the same deliveries."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest

from checkout_desktop.domain.deliveries import EventFilter, NewEvent
from checkout_desktop.domain.enums import Verdict
from checkout_desktop.inbox.intake import body_digest
from checkout_desktop.store.postgres import db as pg_db
from checkout_desktop.store.postgres.address import StoreAddress
from checkout_desktop.store.postgres.events import PgEventRepository
from checkout_desktop.store.sqlite import db
from checkout_desktop.store.sqlite.events import EventRepository

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


@dataclass
class Backend:
    name: str
    repo: Any
    transaction: Callable[[], contextlib.AbstractContextManager[Any]]
    integrity_error: type[Exception]
    query: Callable[[str], list[tuple[Any, ...]]]
    run: Callable[[str], None]
    """Runs one statement that returns no rows (outside a transaction: it commits)."""


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.pg)])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    if request.param == "sqlite":
        conn = db.connect(tmp_path / "store.sqlite3")
        try:
            yield Backend(
                "sqlite",
                EventRepository(conn),
                lambda: db.transaction(conn),
                sqlite3.IntegrityError,
                lambda sql: [tuple(r) for r in conn.execute(sql).fetchall()],
                lambda sql: conn.execute(sql).close(),
            )
        finally:
            conn.close()
        return
    url = request.getfixturevalue("pg_url")
    pg = pg_db.connect(StoreAddress.parse(url), None, autocommit=True)
    try:
        yield Backend(
            "postgres",
            PgEventRepository(pg),
            pg.transaction,
            psycopg.IntegrityError,
            lambda sql: [tuple(r) for r in pg.execute(sql).fetchall()],
            lambda sql: pg.execute(sql.encode()).close(),
        )
    finally:
        pg.close()


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


def fill(store: Backend, events: list[NewEvent]) -> list[int]:
    with store.transaction():
        return [store.repo.insert(e) for e in events]


def test_insert_and_get_round_trip(backend: Backend) -> None:
    (event_id,) = fill(backend, [new(1)])
    stored = backend.repo.get(event_id)
    assert stored is not None
    assert stored.received_at == T0 + timedelta(seconds=1)
    assert stored.headers["Authorization"] == "[not stored: bare token]"
    assert stored.body_json() == {"n": 1, "note": "row 1"}
    assert backend.repo.get(event_id + 1) is None
    assert backend.repo.latest_id() == event_id


def test_dedupe_key_is_the_first_delivery_of_a_body(backend: Backend) -> None:
    repo = backend.repo
    first = new(1, body=b'{"same": true}')
    (first_id,) = fill(backend, [first])
    assert repo.first_delivery_of(first.body_sha256) == first_id
    with backend.transaction():
        dup_id = repo.insert(
            NewEvent(**{**first.__dict__, "verdict": Verdict.DUPLICATE, "duplicate_of": first_id})
        )
    assert repo.first_delivery_of(first.body_sha256) == first_id
    assert dup_id != first_id
    with pytest.raises(backend.integrity_error), backend.transaction():
        repo.insert(first)
    bad = new(2, verdict=Verdict.QUARANTINED, body=b"{bad")
    fill(backend, [bad, bad])
    assert repo.first_delivery_of(bad.body_sha256) is None


def test_pages_are_keyset_newest_first(backend: Backend) -> None:
    ids = fill(backend, [new(n) for n in range(25)])
    repo = backend.repo
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


def test_filters(backend: Backend) -> None:
    events = [new(n) for n in range(12)]
    events.append(new(100, status="DENIED", mcid="special_100%"))
    events.append(new(101, verdict=Verdict.UNKNOWN, event_type="RefundUpdateMessage"))
    events.append(new(102, verdict=Verdict.QUARANTINED, body=b"{oops"))
    fill(backend, events)

    def ids(where: EventFilter) -> list[int]:
        return [row.id for row in backend.repo.page(where, limit=100).rows]

    assert len(ids(EventFilter(statuses=("DENIED",)))) == 1
    assert len(ids(EventFilter(types=("RefundUpdateMessage",)))) == 1
    assert len(ids(EventFilter(types=("PAYMENT",)))) == 15
    assert len(ids(EventFilter(exclude_types=("RefundUpdateMessage",)))) == 14
    assert len(ids(EventFilter(verdicts=(Verdict.QUARANTINED, Verdict.UNKNOWN)))) == 2
    assert len(ids(EventFilter(charge="charge-1"))) == 5
    assert len(ids(EventFilter(charge="order-2"))) == 5
    assert len(ids(EventFilter(text="special_100%"))) == 1
    assert ids(EventFilter(text="l_100%")) == ids(EventFilter(text="special"))
    assert ids(EventFilter(text="_1%x")) == []
    assert len(ids(EventFilter(text="ROW 7"))) == 1
    assert len(ids(EventFilter(text="oops"))) == 1
    window = EventFilter(since=T0 + timedelta(seconds=3), until=T0 + timedelta(seconds=6))
    assert len(ids(window)) == 3
    assert ids(EventFilter(since=T0 + timedelta(days=1))) == []
    assert ids(EventFilter(until=T0)) == []
    both = EventFilter(statuses=("PAID",), charge="order-0", since=T0 + timedelta(seconds=6))
    assert len(ids(both)) == 3


def test_time_window_is_exact_when_arrival_and_id_order_differ(backend: Backend) -> None:
    late, early = new(10), new(5)
    ids = fill(backend, [late, early, new(1), new(20)])
    repo = backend.repo
    window = EventFilter(since=T0 + timedelta(seconds=5), until=T0 + timedelta(seconds=15))
    assert sorted(row.id for row in repo.page(window).rows) == [ids[0], ids[1]]
    assert [e.id for e in repo.iter_full(window)] == [ids[0], ids[1]]
    future = EventFilter(since=T0 + timedelta(days=1))
    assert repo.page(future).rows == []
    (later,) = fill(backend, [new(86_400 + 7)])
    assert [row.id for row in repo.newer(future, after=ids[-1])] == [later]
    assert [row.id for row in repo.page(future).rows] == [later]


def test_only_the_newest_self_tests_are_kept(backend: Backend) -> None:
    events = []
    for n in range(30):
        events.append(new(n, verdict=Verdict.SELF_TEST, body=f'{{"self": {n}}}'.encode()))
        events.append(new(100 + n))
    ids = fill(backend, events)
    repo = backend.repo
    with backend.transaction():
        assert repo.prune_self_tests(keep=5) == 25
        assert repo.prune_self_tests(keep=5) == 0
    left = repo.page(EventFilter(verdicts=(Verdict.SELF_TEST,)), limit=100).rows
    assert [row.id for row in left] == ids[-2::-2][:5]
    assert len(repo.page(EventFilter(verdicts=(Verdict.ACCEPTED,)), limit=100).rows) == 30


def test_iter_full_reads_everything_in_batches(backend: Backend) -> None:
    ids = fill(backend, [new(n) for n in range(23)])
    repo = backend.repo
    assert [e.id for e in repo.iter_full(batch=5)] == ids
    assert [e.id for e in repo.iter_full(EventFilter(charge="order-1"), batch=2)] == ids[1::3]


def test_quarantine_view_lists_only_quarantined(backend: Backend) -> None:
    fill(backend, [new(1), new(2, verdict=Verdict.QUARANTINED, body=b"<xml/>")])
    rows = backend.query("SELECT body FROM webhook_quarantine")
    assert [bytes(r[0]) for r in rows] == [b"<xml/>"]


def test_page_limits_are_checked(backend: Backend) -> None:
    with pytest.raises(ValueError, match="1 to 1000 rows"):
        backend.repo.page(limit=0)
    with pytest.raises(ValueError, match="1 to 1000 rows"):
        backend.repo.newer(after=0, limit=5000)


def _index_all(store: Backend) -> None:
    while True:
        with store.transaction():
            done, latest = store.repo.index_for_search(7)
        if done >= latest:
            return


def _search_all(repo: Any, text: str, *, window: int | None = None) -> list[int]:
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


def test_search_finds_exactly_what_a_scan_finds(backend: Backend) -> None:
    events = [new(n, mcid=f"order-{n % 7:03d}-{n}") for n in range(60)]
    events += [
        new(100, body=b'{"note": "abc bcd"}'),
        new(101, body=b'{"note": "xxABCDyy"}'),
        new(102, body='{"note": "Éclair"}'.encode()),
        new(103, body='{"note": "éclair"}'.encode()),
        new(104, verdict=Verdict.QUARANTINED, body=b"\xff\xfe not json with 50% off_x"),
        new(105, mcid='quote"d-id'),
        new(106, body=b'{"note": "nul \\u0000 inside"}'),
    ]
    fill(backend, events)
    repo = backend.repo
    assert repo.has_search_index()
    rows = list(repo.iter_full())
    texts = ["order-003", "abcd", "ABCD", "éclair", "Éclair", "50% off_", 'te"d-i', "row 4", "zzz"]
    texts += ['{"n": 42, "note": "row 42"}', "u0000 ins"]
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
    assert len(expected["u0000 ins"]) == 1
    assert {t: _search_all(repo, t) for t in texts} == expected
    _index_all(backend)
    assert repo.indexed_through() == repo.latest_id()
    assert {t: _search_all(repo, t) for t in texts} == expected
    assert {t: _search_all(repo, t, window=9) for t in texts} == expected
    (newer,) = fill(backend, [new(200, mcid="order-003-new")])
    assert _search_all(repo, "order-003") == [newer, *expected["order-003"]]
