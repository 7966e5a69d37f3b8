"""`store migrate --to URL` at a shop's size: 10,000 charges and 100,000 deliveries, copied
exactly and verified row by row here, independently of the command's own checksums."""

from __future__ import annotations

import itertools
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from checkout_desktop import cli
from checkout_desktop.store.postgres import migrate
from checkout_desktop.store.postgres.events import PgEventRepository
from tests.conftest import MemoryKeyring
from tests.integration.test_pg_store_migrate import make_store

pytestmark = [pytest.mark.pg, pytest.mark.slow]

CHARGES = 10_000
EVENTS = 100_000
CHUNK = 5000


def _columns(source: Path, table: str) -> list[str]:
    conn = sqlite3.connect(source)
    try:
        return [str(r[1]) for r in conn.execute(f"PRAGMA table_info({table})")]
    finally:
        conn.close()


def _sqlite_rows(
    source: Path, table: str, columns: list[str], keys: str
) -> Iterator[tuple[Any, ...]]:
    conn = sqlite3.connect(source)
    try:
        cursor = conn.execute(f"SELECT {', '.join(columns)} FROM {table} ORDER BY {keys}")  # noqa: S608 - names from the schema
        while batch := cursor.fetchmany(CHUNK):
            yield from (tuple(r) for r in batch)
    finally:
        conn.close()


def _pg_rows(url: str, table: str, columns: list[str], keys: str) -> Iterator[tuple[Any, ...]]:
    with psycopg.connect(url) as conn, conn.cursor(name=f"check_{table}") as cursor:
        cursor.itersize = CHUNK
        cursor.execute(f"SELECT {', '.join(columns)} FROM {table} ORDER BY {keys}")  # noqa: S608 - names from the schema
        for row in cursor:
            yield tuple(bytes(v) if isinstance(v, memoryview) else v for v in row)


def test_a_shop_sized_store_is_copied_exactly(
    pg_url: str,
    tmp_path: Path,
    memory_keyring: MemoryKeyring,
    capsys: pytest.CaptureFixture[str],
) -> None:
    home = tmp_path / "home"
    (home / "data").mkdir(parents=True)
    source = home / "data" / "checkout.sqlite3"
    began = time.monotonic()
    make_store(source, charges=CHARGES, events=EVENTS)
    built = time.monotonic() - began

    began = time.monotonic()
    code = cli.main(["--data-dir", str(home), "store", "migrate", "--to", pg_url])
    took = time.monotonic() - began
    out = capsys.readouterr().out
    assert code == 0, out
    assert f"charge: {CHARGES} rows" in out
    assert f"webhook_event: {EVENTS} rows" in out
    assert "counts and SHA-256 checksums equal" in out

    # Every row of every table, compared value by value in key order (not by checksum).
    counts: dict[str, int] = {}
    for table, keys in migrate.TABLES:
        columns = _columns(source, table)
        sqlite_order = ", ".join(keys)
        pg_order = ", ".join(k if k == "id" else f'{k} COLLATE "C"' for k in keys)
        pairs = itertools.zip_longest(
            _sqlite_rows(source, table, columns, sqlite_order),
            _pg_rows(pg_url, table, columns, pg_order),
        )
        n = 0
        for n, (mine, copied) in enumerate(pairs, start=1):
            assert copied == mine, (table, n)
        counts[table] = n
    assert counts["charge"] == counts["charge_attempt"] == CHARGES
    assert counts["charge_transaction"] == CHARGES
    assert counts["charge_timeline"] == 2 * CHARGES
    assert counts["money_operation"] == CHARGES // 10
    assert counts["webhook_event"] == EVENTS

    # The copy is a working store: ids go on after the copied ones, search finds copied rows.
    with psycopg.connect(pg_url) as pg:
        repo = PgEventRepository(pg)
        assert repo.latest_id() == EVENTS
        assert len(repo.for_charge("caixa1-000007")) == EVENTS // CHARGES
        row = pg.execute(
            "INSERT INTO charge_timeline (merchant_charge_id, recorded_at, source, outcome, "
            "reason, changes_json) VALUES ('caixa1-000001', 'x', 'reply', 'applied', 'r', '[]') "
            "RETURNING id"
        ).fetchone()
        assert row == (2 * CHARGES + 1,)
        pg.rollback()
    print(
        f"\nstore migrate: built the source in {built:.1f} s, copied and verified in {took:.1f} s"
    )
