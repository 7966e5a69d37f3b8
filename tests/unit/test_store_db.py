"""The store: WAL + FULL durability, migrations by user_version, refusal of a newer schema."""

from __future__ import annotations

import sqlite3
import stat
from pathlib import Path

import pytest

from checkout_desktop.store.errors import SchemaTooNew
from checkout_desktop.store.sqlite.db import APPLICATION_ID, SCHEMA_VERSION, connect, transaction


def test_new_store_is_migrated_wal_full_and_owner_only(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite3"
    conn = connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    conn.close()
    again = connect(path)  # idempotent
    assert again.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    again.close()


def test_newer_schema_is_refused_and_untouched(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite3"
    raw = sqlite3.connect(path)
    raw.execute("CREATE TABLE future (x)")
    # A newer checkout-desktop's store: it carries the application id.
    raw.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    raw.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    raw.commit()
    raw.close()
    with pytest.raises(SchemaTooNew, match="newer checkout-desktop"):
        connect(path)
    with pytest.raises(SchemaTooNew):
        connect(path, readonly=True)
    check = sqlite3.connect(path)
    assert check.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION + 1
    check.close()


def test_transaction_rolls_back_on_error(tmp_path: Path) -> None:
    conn = connect(tmp_path / "s.sqlite3")
    conn.execute("CREATE TABLE t (x INTEGER)")
    with transaction(conn):
        conn.execute("INSERT INTO t VALUES (1)")

    def failing_write() -> None:
        with transaction(conn):
            conn.execute("INSERT INTO t VALUES (2)")
            raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        failing_write()
    assert [r[0] for r in conn.execute("SELECT x FROM t")] == [1]
    assert not conn.in_transaction


def test_readonly_connection_cannot_write(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite3"
    connect(path).close()
    ro = connect(path, readonly=True)
    with pytest.raises(sqlite3.OperationalError, match="readonly"):
        ro.execute("CREATE TABLE nope (x)")
