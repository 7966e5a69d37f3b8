"""`store migrate --to URL`: a shop's SQLite history copied into PostgreSQL, exactly, or not at all."""

from __future__ import annotations

import json
import random
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import psycopg
import pytest

from checkout_desktop import cli
from checkout_desktop.store.postgres import migrate
from checkout_desktop.store.postgres.address import StoreAddress
from checkout_desktop.store.postgres.events import PgEventRepository
from checkout_desktop.store.postgres.migrate import MigrationRefused, copy_store
from checkout_desktop.store.sqlite import db as sqlite_db
from tests.conftest import MemoryKeyring

pytestmark = pytest.mark.pg


def _ts(n: int) -> str:
    return f"2026-03-{1 + n % 28:02d}T12:{n % 60:02d}:00.000000Z"


def make_store(path: Path, *, charges: int, events: int, seed: int = 7) -> None:
    """A store as a shop's looks after a while: every table, NULLs, odd text, raw bytes."""
    rng = random.Random(seed)
    conn = sqlite_db.connect(path)
    with sqlite_db.transaction(conn):
        for n in range(charges):
            mcid = f"caixa1-{n:06d}" if n % 5 else f"Caixa-ç-{n}"
            conn.execute(
                "INSERT INTO charge_attempt (merchant_charge_id, sale_id, profile, amount, "
                "cards_json, state, created_at, updated_at, answered, queries, detail) "
                "VALUES (?, ?, 'builtin-sandbox', ?, '[]', ?, ?, ?, ?, ?, ?)",
                (
                    mcid,
                    f"sale-{n // 2}",
                    rng.randint(1, 10**9),
                    rng.choice(["CHARGED", "DENIED", "UNKNOWN"]),
                    _ts(n),
                    _ts(n + 1),
                    n % 2,
                    n % 4,
                    None if n % 3 else "réplica perdida",
                ),
            )
            conn.execute(
                "INSERT INTO charge (merchant_charge_id, charge_id, sale_id, status, amount, "
                "refunded_amount, state_json, created_at, updated_at, checks, next_check_at, "
                "check_reason_code) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    mcid,
                    None if n % 7 == 0 else f"ch-{n}",
                    f"sale-{n // 2}",
                    rng.choice(["PAID", "DENIED", "REFUNDED", None]),
                    rng.randint(1, 10**9),
                    0,
                    json.dumps({"n": n, "ü": "ñ"}),
                    _ts(n),
                    _ts(n + 2),
                    n % 3,
                    None if n % 2 else _ts(n + 3),
                    "check.scheduled" if n % 2 else None,
                ),
            )
            conn.execute(
                "INSERT INTO charge_transaction (merchant_charge_id, txn_key, status, amount, "
                "brand, last_four, installments, updated_at) VALUES (?, 'tx0', 'PAID', ?, "
                "'VISA', '4242', 1, ?)",
                (mcid, n + 1, _ts(n)),
            )
            for step in range(2):
                conn.execute(
                    "INSERT INTO charge_timeline (merchant_charge_id, recorded_at, source, "
                    "outcome, reason, changes_json, reason_code, reason_args) "
                    "VALUES (?, ?, 'reply', 'applied', ?, '[]', 'merge.first_status', '{}')",
                    (mcid, _ts(n + step), f"passo {step} — ok"),
                )
            if n % 10 == 0:
                conn.execute(
                    "INSERT INTO money_operation (merchant_charge_id, kind, amount, state, "
                    "created_at, updated_at) VALUES (?, 'refund', ?, 'DONE', ?, ?)",
                    (mcid, 100, _ts(n), _ts(n)),
                )
        conn.execute(
            "INSERT INTO charge_sweep (started_at, window_from, window_to, checked) "
            "VALUES (?, ?, ?, 3)",
            (_ts(1), _ts(0), _ts(1)),
        )
        # Charges remember their environment and customer; the customers move with them.
        conn.execute(
            "UPDATE charge SET profile = 'production', customer_document = '65844359038' "
            "WHERE id % 2 = 0"
        )
        conn.execute(
            "INSERT INTO customer (document, document_type, name, name_key, email, phone, "
            "first_used_at, last_used_at, uses) VALUES ('65844359038', 'CPF', 'João Açaí', "
            "'joao acai', NULL, '11987654321', ?, ?, 3)",
            (_ts(0), _ts(1)),
        )
        # Each name the customer was charged under, and each sale's own.
        conn.executemany(
            "INSERT INTO customer_name (document, name_key, last_used_at) VALUES (?, ?, ?)",
            [("65844359038", "joao acai", _ts(1)), ("65844359038", "joao a. acai", _ts(0))],
        )
        conn.execute(
            "UPDATE charge_attempt SET customer_name = 'João Açaí', customer_name_key = "
            "'joao acai' WHERE merchant_charge_id IN (SELECT merchant_charge_id FROM charge "
            "WHERE id % 2 = 0)"
        )
        first_ids: list[int] = []
        for n in range(events):
            body = (
                b"\xff\x00 not json \x00"
                if n % 97 == 0
                else json.dumps({"n": n, "nota": "pagamento ✓"}).encode()
            )
            duplicate_of = first_ids[-1] if n % 13 == 0 and first_ids else None
            cursor = conn.execute(
                "INSERT INTO webhook_event (received_at, verdict, event_type, merchant_charge_id, "
                "status, duplicate_of, body_sha256, headers_json, body, reason_code) "
                "VALUES (?, ?, 'TransactionUpdateMessage', ?, 'PAID', ?, ?, '{}', ?, ?)",
                (
                    _ts(n),
                    "quarantined" if n % 97 == 0 else ("duplicate" if duplicate_of else "accepted"),
                    f"caixa1-{n % max(charges, 1):06d}",
                    duplicate_of,
                    f"sha-{n}",
                    body,
                    None if n % 2 else "inbox.bad_json",
                ),
            )
            if duplicate_of is None:
                assert cursor.lastrowid is not None
                first_ids.append(cursor.lastrowid)
    conn.close()


def _rows_sqlite(path: Path, table: str, order: str) -> list[tuple[Any, ...]]:
    conn = sqlite3.connect(path)
    try:
        columns = [r[1] for r in conn.execute(f"PRAGMA table_info({table})")]
        return [
            tuple(r)
            for r in conn.execute(f"SELECT {', '.join(columns)} FROM {table} ORDER BY {order}")  # noqa: S608 - table names from the schema
        ]
    finally:
        conn.close()


def _rows_pg(url: str, table: str, columns_from: Path, order: str) -> list[tuple[Any, ...]]:
    conn = sqlite3.connect(columns_from)
    columns = [r[1] for r in conn.execute(f"PRAGMA table_info({table})")]
    conn.close()
    with psycopg.connect(url) as pg:
        return [
            tuple(bytes(v) if isinstance(v, memoryview) else v for v in r)
            for r in pg.execute(f"SELECT {', '.join(columns)} FROM {table} ORDER BY {order}")  # noqa: S608 - table names from the schema
        ]


def test_the_copy_is_exact_and_the_store_goes_on_from_it(pg_url: str, tmp_path: Path) -> None:
    source = tmp_path / "checkout.sqlite3"
    make_store(source, charges=120, events=900)
    address = StoreAddress.parse(pg_url)
    copied = copy_store(source, address, None)
    assert {c.table: c.rows for c in copied} == {
        "charge_attempt": 120,
        "charge": 120,
        "charge_transaction": 120,
        "money_operation": 12,
        "charge_timeline": 240,
        "charge_sweep": 1,
        "webhook_event": 900,
        "customer": 1,
        "customer_name": 2,
        "three_ds_flow": 0,
    }
    for table, keys in migrate.TABLES:
        order = ", ".join(keys)
        pg_order = ", ".join(k if k == "id" else f'{k} COLLATE "C"' for k in keys)
        assert _rows_pg(pg_url, table, source, pg_order) == _rows_sqlite(source, table, order), (
            table
        )
    # Attempts keep their insertion order (the history pages them by it).
    assert _rows_pg(pg_url, "charge_attempt", source, "seq") == _rows_sqlite(
        source, "charge_attempt", "rowid"
    )
    with psycopg.connect(pg_url) as pg:
        repo = PgEventRepository(pg)
        assert repo.latest_id() == 900
        # The searchable text was made for every copied delivery.
        assert len(repo.for_charge("caixa1-000007")) == 8
        row = pg.execute(
            "INSERT INTO charge_sweep (started_at, window_from, window_to) "
            "VALUES ('a', 'b', 'c') RETURNING id"
        ).fetchone()
        assert row == (2,)


def test_a_shared_store_that_holds_a_history_is_left_alone(pg_url: str, tmp_path: Path) -> None:
    source = tmp_path / "checkout.sqlite3"
    make_store(source, charges=3, events=5)
    address = StoreAddress.parse(pg_url)
    copy_store(source, address, None)
    with pytest.raises(MigrationRefused, match="empty store only"):
        copy_store(source, address, None)
    with psycopg.connect(pg_url) as pg:
        assert pg.execute("SELECT count(*) FROM webhook_event").fetchone() == (5,)


def test_a_copy_that_does_not_verify_is_rolled_back_whole(
    pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = tmp_path / "checkout.sqlite3"
    make_store(source, charges=10, events=30)
    real = migrate._read_back

    def one_row_short(target: Any, table: str, columns: Any, keys: Any) -> migrate.TableCopy:
        found = real(target, table, columns, keys)
        if table != "webhook_event":
            return found
        # As if a row had changed on the way: its checksum no longer matches.
        return migrate.TableCopy(table, found.rows, "0" * 64)

    monkeypatch.setattr(migrate, "_read_back", one_row_short)
    with pytest.raises(MigrationRefused, match="rolled back") as caught:
        copy_store(source, StoreAddress.parse(pg_url), None)
    assert "checksums differ" in str(caught.value)
    with psycopg.connect(pg_url) as pg:
        for table, _ in migrate.TABLES:
            assert pg.execute(f"SELECT count(*) FROM {table}").fetchone() == (0,), table  # noqa: S608 - table names from the schema


def test_the_command_copies_and_says_it_verified(
    pg_url: str,
    tmp_path: Path,
    memory_keyring: MemoryKeyring,
    capsys: pytest.CaptureFixture[str],
) -> None:
    home = tmp_path / "home"
    (home / "data").mkdir(parents=True)
    make_store(home / "data" / "checkout.sqlite3", charges=4, events=9)
    code = cli.main(["--data-dir", str(home), "store", "migrate", "--to", pg_url])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "webhook_event: 9 rows" in out
    assert "counts and SHA-256 checksums equal" in out
    assert (
        cli.main(["--data-dir", str(tmp_path / "nowhere"), "store", "migrate", "--to", pg_url]) == 2
    )
    assert "no store at" in capsys.readouterr().err


_HOLD_FOLDER = """
import sys, time
from pathlib import Path
from checkout_desktop.ui.single_instance import InstanceGuard
guard = InstanceGuard(Path(sys.argv[1]))
assert guard.acquire()
print("held", flush=True)
time.sleep(120)
"""


def _attempts_in(url: str) -> int:
    """The shared store's attempts (0 while it has no schema yet: untouched)."""
    with psycopg.connect(url) as pg:
        exists = pg.execute("SELECT to_regclass('charge_attempt') IS NOT NULL").fetchone()
        if not exists or not exists[0]:
            return 0
        row = pg.execute("SELECT count(*) FROM charge_attempt").fetchone()
    return 0 if row is None else int(row[0])


def test_the_command_refuses_while_a_terminal_runs_on_that_folder_and_then_says_what_next(
    pg_url: str,
    tmp_path: Path,
    memory_keyring: MemoryKeyring,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    home = tmp_path / "caixa3"
    (home / "data").mkdir(parents=True)
    make_store(home / "data" / "checkout.sqlite3", charges=4, events=9)
    # A terminal window holds its data folder (the single-instance lock) in another process.
    window = subprocess.Popen(
        [sys.executable, "-c", _HOLD_FOLDER, str(home / "data")],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert window.stdout is not None and window.stdout.readline().strip() == "held"
        code = cli.main(["--data-dir", str(home), "store", "migrate", "--to", pg_url])
        captured = capsys.readouterr()
        assert code == 1, captured
        assert f"process {window.pid}" in captured.err
        assert "Close it, then run store migrate again" in captured.err
        assert "copying" not in captured.out
        assert _attempts_in(pg_url) == 0
    finally:
        window.kill()
        window.wait(timeout=30)
        if window.stdout is not None:
            window.stdout.close()

    # While the copy runs, the folder is held: a terminal started then is refused.
    from checkout_desktop.ui.single_instance import InstanceGuard

    real_copy = migrate.copy_store
    during: list[bool] = []

    def copy_while_a_window_starts(*args: Any, **kwargs: Any) -> Any:
        late = InstanceGuard(home / "data")
        during.append(late.acquire())
        late.release()
        return real_copy(*args, **kwargs)

    monkeypatch.setattr(
        "checkout_desktop.store.postgres.cli.copy_store", copy_while_a_window_starts
    )
    code = cli.main(["--data-dir", str(home), "store", "migrate", "--to", pg_url])
    out = capsys.readouterr().out
    assert code == 0, out
    assert during == [False]
    last = out.strip().splitlines()[-1]
    # The owner is told what to do next: every counter on the shared store.
    assert f"--store {pg_url}" in last and "Settings" in last, out
    # Free again once the command ends.
    after = InstanceGuard(home / "data")
    assert after.acquire()
    after.release()

    # Another data folder of the same shop: refused (the store is no longer empty), with the
    # same next step.
    other = tmp_path / "caixa4"
    (other / "data").mkdir(parents=True)
    make_store(other / "data" / "checkout.sqlite3", charges=2, events=1, seed=3)
    code = cli.main(["--data-dir", str(other), "store", "migrate", "--to", pg_url])
    err = capsys.readouterr().err
    assert code == 3, err
    assert "empty store only" in err and f"--store {pg_url}" in err, err
    assert _attempts_in(pg_url) == 4
