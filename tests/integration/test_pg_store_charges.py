"""The charge repository's tests, run again on the shared PostgreSQL store.

The same test functions as `test_store_charges.py` (imported, so they cannot drift apart), with
this module's `repo` — a PgChargeRepository on a fresh database — and its transactions. Left
out are the three that look at SQLite itself (its file's bytes, its query plans, a second
connection to its file); their PostgreSQL counterparts follow.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest

from checkout_desktop.store.postgres import db
from checkout_desktop.store.postgres.address import StoreAddress
from checkout_desktop.store.postgres.charges import PgChargeRepository
from tests.integration import test_store_charges as base
from tests.integration.test_store_charges import (  # noqa: F401 - collected again here
    Clock,
    test_a_notification_first_creates_the_charge,
    test_a_reply_resolves_the_attempt_and_fills_the_charge,
    test_apply_update_runs_in_the_callers_transaction,
    test_attempt_pages_by_keyset,
    test_attempt_records_returned_by_writes_are_what_the_store_holds,
    test_checks_are_scheduled_by_status_and_notification,
    test_out_of_order_and_duplicate_inputs_keep_the_latest_state,
    test_resolved_attempts_never_change_again,
    test_three_ds_results_find_their_charge_by_either_id,
    test_writes_outside_a_transaction_are_refused,
)

pytestmark = pytest.mark.pg


@pytest.fixture
def pg(pg_url: str) -> Iterator[psycopg.Connection[Any]]:
    conn = db.connect(StoreAddress.parse(pg_url), None, autocommit=True)
    try:
        yield conn
    finally:
        conn.close()


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def repo(pg: psycopg.Connection[Any], clock: Clock) -> PgChargeRepository:
    return PgChargeRepository(pg, clock=clock)


@pytest.fixture(autouse=True)
def _pg_transactions(monkeypatch: pytest.MonkeyPatch) -> None:
    """`transaction(repo.conn)` in the shared tests: a PostgreSQL transaction on the same
    connection (the repository's `conn` is its sqlite3-shaped view of it)."""

    @contextlib.contextmanager
    def transaction(conn: Any) -> Iterator[Any]:
        with conn.pg.transaction():
            yield conn

    monkeypatch.setattr(base, "transaction", transaction)


def test_an_attempt_is_recorded_once_and_seen_by_other_connections(
    repo: PgChargeRepository, pg_url: str
) -> None:
    base.record(repo, "charge-000001")
    with pytest.raises(base.RepositoryError, match="never reused"):
        base.record(repo, "charge-000001")
    # The refused insert left the connection usable (its savepoint was rolled back).
    base.record(repo, "charge-000009")
    with psycopg.connect(pg_url, autocommit=True) as other:
        assert PgChargeRepository(other).attempt("charge-000001") is not None
        assert PgChargeRepository(other).attempt("charge-000009") is not None


def test_card_data_in_a_reply_never_reaches_the_database(
    repo: PgChargeRepository, pg: psycopg.Connection[Any]
) -> None:
    body = base.reply("charge-000004", "PAID")
    credit = body["transactions"][0]["credit"]
    credit["cardNumber"] = base.PAN
    credit["cvv"] = "123"
    body["temporaryCardToken"] = "card_t/abcdefghijklmnop"
    with pg.transaction():
        base.ledger(repo).apply_update(
            base.update(body), source="reply", source_ref=None, body=body
        )
    stored = repo.timeline("charge-000004").items[-1].body
    assert stored is not None
    assert stored["transactions"][0]["credit"]["cardNumber"] == "411111******1111"
    # Every text the database holds, table by table.
    for table in ("charge", "charge_attempt", "charge_transaction", "charge_timeline"):
        dump = pg.execute(f"SELECT string_agg(t::text, ' ') FROM {table} t").fetchone()  # noqa: S608 - constant names
        assert dump is not None
        text = dump[0] or ""
        assert base.PAN not in text, table
        assert "card_t/abcdefghijklmnop" not in text, table
        assert '"cvv"' not in text, table
