"""Broken, foreign and odd stores at start-up: refused plainly, never modified.

A foreign SQLite file was adopted and migrated in place, a 0400 database and a symlink's
target were chmodded, a corrupt charge table went unnoticed, and most start-up failures of the
store ended in a raw traceback. Each case now gets a typed error with a plain message (and the
command line its documented exit code), and the file is left as it was.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sqlite3
import stat
from pathlib import Path

import pytest

from checkout_desktop import cli
from checkout_desktop.store.sqlite import db
from tests.log_support import release_log_files  # noqa: F401 - applies to every test here


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _foreign(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)")
    conn.execute("INSERT INTO notes (text) VALUES ('someone else''s data')")
    conn.commit()
    conn.close()


def test_a_foreign_sqlite_file_is_left_byte_for_byte_untouched(tmp_path: Path) -> None:
    store = tmp_path / "data" / "checkout.sqlite3"
    _foreign(store)
    before = _digest(store)
    mode = stat.S_IMODE(store.stat().st_mode)
    with pytest.raises(db.ForeignStore, match=r"another program's database.*untouched"):
        db.connect(store)
    with pytest.raises(db.ForeignStore):
        db.connect(store, readonly=True)
    assert _digest(store) == before
    assert stat.S_IMODE(store.stat().st_mode) == mode
    assert sorted(p.name for p in store.parent.iterdir()) == ["checkout.sqlite3"]


def test_a_file_that_is_not_a_database_is_refused_untouched(tmp_path: Path) -> None:
    store = tmp_path / "checkout.sqlite3"
    store.write_bytes(b"these are someone's notes, not a database\n" * 10)
    before = _digest(store)
    with pytest.raises(db.ForeignStore, match="not an SQLite database"):
        db.connect(store)
    assert _digest(store) == before


def test_a_new_store_carries_the_application_id(tmp_path: Path) -> None:
    conn = db.connect(tmp_path / "checkout.sqlite3")
    try:
        assert conn.execute("PRAGMA application_id").fetchone()[0] == db.APPLICATION_ID
    finally:
        conn.close()


def test_a_store_from_before_the_application_id_is_still_ours(tmp_path: Path) -> None:
    store = tmp_path / "checkout.sqlite3"
    conn = db.connect(store)
    conn.execute("PRAGMA application_id = 0")
    conn.close()
    conn = db.connect(store)
    try:
        assert conn.execute("PRAGMA application_id").fetchone()[0] == db.APPLICATION_ID
    finally:
        conn.close()


def test_a_failing_migration_leaves_nothing_half_done(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = tmp_path / "checkout.sqlite3"
    broken = [*db.MIGRATIONS[:-1], (db.MIGRATIONS[-1][0], "broken", "CREATE TABLE (;")]
    monkeypatch.setattr(db, "MIGRATIONS", broken)
    with pytest.raises(db.StoreError):
        db.connect(store)
    conn = sqlite3.connect(store)
    try:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master")]
        version = conn.execute("PRAGMA user_version").fetchone()[0]
    finally:
        conn.close()
    assert (tables, version) == ([], 0)


def test_a_corrupt_page_is_found_at_start(tmp_path: Path) -> None:
    store = tmp_path / "checkout.sqlite3"
    conn = db.connect(store)
    with db.transaction(conn):
        for n in range(400):
            conn.execute(
                "INSERT INTO webhook_event (received_at, verdict, body_sha256, headers_json, body)"
                " VALUES ('2026-01-01', 'unknown', :sha, '{}', :body)",
                {"sha": f"{n:064x}", "body": b"x" * 300},
            )
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    root = conn.execute(
        "SELECT rootpage FROM sqlite_master WHERE name = 'webhook_event_charge'"
    ).fetchone()[0]
    conn.close()
    with store.open("r+b") as handle:
        handle.seek((root - 1) * page_size)
        handle.write(b"\xa5" * page_size)
    with pytest.raises(db.StoreCorrupt, match="integrity check"):
        db.connect(store)


def test_a_read_only_store_is_not_chmodded_and_says_so(tmp_path: Path) -> None:
    store = tmp_path / "checkout.sqlite3"
    db.connect(store).close()
    (tmp_path / "checkout.sqlite3-wal").unlink(missing_ok=True)
    (tmp_path / "checkout.sqlite3-shm").unlink(missing_ok=True)
    store.chmod(0o400)
    if os.access(store, os.W_OK):
        pytest.skip("running as a user that can write any file")
    with pytest.raises(db.StoreNotWritable, match="cannot be written"):
        db.connect(store)
    assert stat.S_IMODE(store.stat().st_mode) == 0o400


def test_a_read_only_store_keeps_its_mode_even_as_root(tmp_path: Path) -> None:
    """Root can write a 0400 file; the terminal still must not loosen its mode."""
    store = tmp_path / "checkout.sqlite3"
    db.connect(store).close()
    store.chmod(0o400)
    with contextlib.suppress(db.StoreNotWritable):
        db.connect(store).close()
    assert stat.S_IMODE(store.stat().st_mode) == 0o400


def test_a_symlinks_target_is_not_chmodded(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    target = elsewhere / "shared.sqlite3"
    db.connect(target).close()
    target.chmod(0o644)
    data = tmp_path / "data"
    data.mkdir(mode=0o700)
    (data / "checkout.sqlite3").symlink_to(target)
    db.connect(data / "checkout.sqlite3").close()
    assert stat.S_IMODE(target.stat().st_mode) == 0o644


def test_wal_and_shm_are_owner_only_from_the_start(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        conn = db.connect(tmp_path / "checkout.sqlite3")
        with db.transaction(conn):
            conn.execute("PRAGMA user_version")
        for name in ("checkout.sqlite3", "checkout.sqlite3-wal", "checkout.sqlite3-shm"):
            path = tmp_path / name
            assert path.exists(), name
            assert stat.S_IMODE(path.stat().st_mode) == 0o600, name
        conn.close()
    finally:
        os.umask(old)


def _home_with_store(tmp_path: Path, make: str) -> Path:
    home = tmp_path / "home"
    (home / "data").mkdir(parents=True, mode=0o700)
    home.chmod(0o700)
    store = home / "data" / "checkout.sqlite3"
    if make == "foreign":
        _foreign(store)
    elif make == "garbage":
        store.write_bytes(b"not a database at all\n" * 50)
    elif make == "folder":
        store.mkdir()
    elif make == "newer":
        db.connect(store).close()
        conn = sqlite3.connect(store)
        conn.execute("PRAGMA user_version = 99")
        conn.close()
    return home


def _token_file(tmp_path: Path) -> Path:
    path = tmp_path / "token"
    path.write_text("whk_store_token_0123456789")
    path.chmod(0o600)
    return path


@pytest.mark.expected_errors("the webhook listener did not start")
@pytest.mark.parametrize("make", ["foreign", "garbage", "folder", "newer"])
def test_listen_says_plainly_and_exits_3(
    tmp_path: Path, make: str, capsys: pytest.CaptureFixture[str]
) -> None:
    home = _home_with_store(tmp_path, make)
    code = cli.main(
        [
            "--data-dir",
            str(home),
            "listen",
            "--port",
            "0",
            "--no-tunnel",
            "--token-file",
            str(_token_file(tmp_path)),
        ]
    )
    err = capsys.readouterr().err
    assert code == 3, err
    assert "Traceback" not in err
    assert "checkout.sqlite3" in err
    assert "another program" not in err or make == "foreign"  # never blamed on the port


@pytest.mark.parametrize("make", ["foreign", "garbage", "newer"])
def test_events_says_plainly_and_exits_3(
    tmp_path: Path, make: str, capsys: pytest.CaptureFixture[str]
) -> None:
    home = _home_with_store(tmp_path, make)
    code = cli.main(["--data-dir", str(home), "events", "--format", "jsonl"])
    err = capsys.readouterr().err
    assert code == 3, err
    assert "Traceback" not in err
    assert "checkout.sqlite3" in err


def test_data_being_a_file_is_plain(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    (home / "data").write_text("a file where a folder belongs")
    code = cli.main(["--data-dir", str(home), "events", "--format", "jsonl"])
    err = capsys.readouterr().err
    assert code in {1, 2, 3}
    assert "Traceback" not in err
