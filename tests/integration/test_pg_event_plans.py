"""The shared store's event list stays cheap as it grows: index walks in id order, trigram search."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import psycopg
import pytest

from checkout_desktop.domain.deliveries import EventFilter
from checkout_desktop.domain.enums import Verdict
from checkout_desktop.domain.event_status import EVENT_STATUS_CHOICES, status_walks
from checkout_desktop.store.postgres import db
from checkout_desktop.store.postgres.address import StoreAddress
from checkout_desktop.store.postgres.events import PgEventRepository, pg_params
from tests.pg_fixtures import with_database

pytestmark = pytest.mark.pg

ROWS = 20_000


@pytest.fixture(scope="module")
def filled(pg_server: str) -> Iterator[psycopg.Connection[Any]]:
    """A store of 20,000 deliveries with realistic spreads, analysed (made once: it is read)."""
    with psycopg.connect(pg_server, autocommit=True) as admin:
        admin.execute('DROP DATABASE IF EXISTS "plans" WITH (FORCE)')
        admin.execute('CREATE DATABASE "plans"')
    url = with_database(pg_server, "plans")
    conn = db.connect(StoreAddress.parse(url), None, autocommit=True)
    try:
        conn.execute(
            "INSERT INTO webhook_event (received_at, verdict, event_type, body_type, "
            "merchant_charge_id, charge_id, status, body_sha256, headers_json, body, "
            "search_text) SELECT to_char(timestamp '2026-03-01' + n * interval '1 second', "
            "'YYYY-MM-DD\"T\"HH24:MI:SS.US+00:00'), "
            "CASE WHEN n %% 997 = 0 THEN 'quarantined' ELSE 'accepted' END, "
            "'TransactionUpdateMessage', 'PAYMENT', 'order-' || (n / 4), 'c-' || (n / 4), "
            "CASE WHEN n %% 1000 = 0 THEN 'DENIED' ELSE 'PAID' END, md5(n::text), '{}', "
            "convert_to('{\"n\": ' || n || '}', 'UTF8'), "
            "'order-' || (n / 4) || E'\\nc-' || (n / 4) || E'\\npaid\\n{\"n\": ' || n || '}' "
            "FROM generate_series(1, %s) AS n",
            (ROWS,),
        )
        conn.execute("ANALYZE webhook_event")
        yield conn
    finally:
        conn.close()
        with psycopg.connect(pg_server, autocommit=True) as admin:
            admin.execute('DROP DATABASE IF EXISTS "plans" WITH (FORCE)')


def _plan(conn: psycopg.Connection[Any], where: EventFilter) -> str:
    repo = PgEventRepository(conn)
    clauses, params = repo.sql_filter(where)
    clauses.append("id < :before")
    sql = (
        "SELECT id FROM webhook_event WHERE "  # noqa: S608 - built from constants
        + " AND ".join(clauses)
        + " ORDER BY id DESC LIMIT 100"
    )
    rows = conn.execute(
        "EXPLAIN " + pg_params(sql),  # type: ignore[arg-type]
        {**params, "before": 10**9},
    ).fetchall()
    return " | ".join(str(r[0]) for r in rows)


@pytest.mark.parametrize(
    ("where", "expected"),
    [
        (EventFilter(), "Scan Backward using webhook_event_pkey"),
        (EventFilter(statuses=("DENIED",)), "webhook_event_status"),
        (EventFilter(verdicts=(Verdict.QUARANTINED,)), "webhook_event_verdict"),
        (EventFilter(charge="order-77"), "webhook_event_charge"),
    ],
)
def test_each_filter_walks_an_index(
    filled: psycopg.Connection[Any], where: EventFilter, expected: str
) -> None:
    plan = _plan(filled, where)
    assert expected in plan, plan
    assert "Seq Scan" not in plan, plan


@pytest.mark.parametrize("choice", list(EVENT_STATUS_CHOICES))
def test_each_status_choice_walks_an_index_in_id_order(
    filled: psycopg.Connection[Any], choice: str
) -> None:
    # Each stored status the choice looks at is its own keyset walk: down the status index
    # (a rare status) or the primary key (a common one), never a scan or a sort of its rows.
    for walk in status_walks(EventFilter(shown=EVENT_STATUS_CHOICES[choice])):
        assert walk is not None
        plan = _plan(filled, walk)
        assert "Scan Backward using webhook_event_" in plan, plan
        assert "Seq Scan on webhook_event" not in plan, plan
        assert "Sort" not in plan, plan


def test_a_text_search_can_use_the_trigram_index(filled: psycopg.Connection[Any]) -> None:
    # At 20,000 rows a scan still costs the planner less; what matters here is that the
    # search's condition is one the trigram index serves (at a million rows it is chosen).
    with filled.transaction():
        filled.execute("SET LOCAL enable_seqscan = off")
        plan = _plan(filled, EventFilter(text="order-4321"))
    assert "Bitmap Index Scan on webhook_event_search" in plan, plan


def test_a_rare_text_is_found(filled: psycopg.Connection[Any]) -> None:
    page = PgEventRepository(filled).page(EventFilter(text="ORDER-4321"), limit=10)
    assert [row.merchant_charge_id for row in page.rows] == ["order-4321"] * 4
