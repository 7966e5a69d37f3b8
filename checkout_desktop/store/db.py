"""SQLite connections, durable transactions and schema migrations by PRAGMA user_version."""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from checkout_desktop.store import schema_charges, schema_inbox

logger = logging.getLogger(__name__)

# Each component owns its own migration steps; the order here is the schema's history and is
# append-only once released: never edit or reorder a step that has shipped.
MIGRATIONS: list[tuple[int, str, str]] = [
    (1, "charges, attempts, transactions, timeline", schema_charges.V1),
    (2, "webhook inbox: events, quarantine, dedupe", schema_inbox.V2),
    (3, "money operations recorded before sending; the daily sweep", schema_charges.V3),
    (4, "timeline and check reasons kept as codes", schema_charges.REASONS),
    (5, "inbox reasons kept as codes", schema_inbox.REASONS),
]
SCHEMA_VERSION = MIGRATIONS[-1][0]


class StoreError(RuntimeError):
    """The store cannot be used; the message says which file and why."""


class SchemaTooNew(StoreError):
    pass


def connect(
    path: Path, *, readonly: bool = False, migrate_schema: bool = True
) -> sqlite3.Connection:
    """Open the store with WAL, full durability, foreign keys and a busy timeout.

    The connection is in autocommit mode; writes go through `transaction()`, which issues
    BEGIN IMMEDIATE so that one writer at a time holds the lock from the start.
    """
    if readonly:
        uri = f"file:{path}?mode=ro"
        conn = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
    else:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA busy_timeout = 5000")
    conn.execute("PRAGMA foreign_keys = ON")
    if not readonly:
        mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        if str(mode).lower() != "wal":
            logger.warning("the store at %s runs in %s mode, not WAL", path, mode)
        conn.execute("PRAGMA synchronous = FULL")
        if migrate_schema:
            migrate(conn, path)
            ensure_search_index(conn, path)
        path.chmod(0o600)
    else:
        _refuse_newer(conn, path)
    return conn


def _user_version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def _refuse_newer(conn: sqlite3.Connection, path: Path) -> int:
    current = _user_version(conn)
    if current > SCHEMA_VERSION:
        raise SchemaTooNew(
            f"the store {path} has schema version {current}, written by a newer checkout-desktop "
            f"(this one knows up to {SCHEMA_VERSION}); upgrade the terminal — the file is untouched"
        )
    return current


def migrate(conn: sqlite3.Connection, path: Path) -> int:
    """Apply every missing step, each in its own transaction; refuse a newer schema."""
    current = _refuse_newer(conn, path)
    for version, description, script in MIGRATIONS:
        if version <= current:
            continue
        logger.info("store %s: migrating to schema %d (%s)", path, version, description)
        conn.execute("BEGIN IMMEDIATE")
        try:
            for statement in _statements(script):
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {int(version)}")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
        current = version
    return current


def _statements(script: str) -> list[str]:
    # executescript() would commit implicitly; splitting keeps each step inside one transaction.
    parts: list[str] = []
    buffer = ""
    for line in script.splitlines(keepends=True):
        buffer += line
        if sqlite3.complete_statement(buffer):
            if buffer.strip():
                parts.append(buffer.strip())
            buffer = ""
    if buffer.strip():
        raise StoreError(f"incomplete SQL statement in a migration: {buffer.strip()[:80]!r}")
    return parts


def search_index_supported(conn: sqlite3.Connection) -> bool:
    """This SQLite has FTS5 with the trigram tokenizer (3.34+)."""
    try:
        conn.execute(
            "CREATE VIRTUAL TABLE temp.checkout_fts_probe USING fts5(x, tokenize='trigram')"
        )
    except sqlite3.OperationalError:
        return False
    conn.execute("DROP TABLE temp.checkout_fts_probe")
    return True


def ensure_search_index(conn: sqlite3.Connection, path: Path) -> bool:
    """Create the inbox's free-text index where it is missing and this SQLite can hold it.

    Part of schema 2; created here rather than in the migration's script so that a store whose
    SQLite lacks FTS5 still opens (its searches scan). The new index is empty and says so
    (`indexed_through` 0): the inbox writer fills it in the background, in batches, and
    searches scan whatever it does not hold yet. Returns whether the index exists.
    """
    exists = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'webhook_event_fts'"
    ).fetchone()
    if exists is not None:
        return True
    if _user_version(conn) < 2:
        return False
    if not search_index_supported(conn):
        logger.warning(
            "SQLite %s here has no FTS5 trigram tokenizer: event searches in %s will scan",
            sqlite3.sqlite_version,
            path,
        )
        return False
    conn.execute("BEGIN IMMEDIATE")
    try:
        for statement in _statements(schema_inbox.SEARCH_INDEX):
            conn.execute(statement)
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
    return True


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """BEGIN IMMEDIATE … COMMIT; rolls back on any exception. Commits are durable (FULL)."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
