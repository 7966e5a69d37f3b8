"""SQLite connections, durable transactions and schema migrations by PRAGMA user_version."""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
import stat
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from checkout_desktop.domain.event_status import stored_event_shown_status
from checkout_desktop.paths import tighten
from checkout_desktop.store.errors import (
    ForeignStore,
    SchemaTooNew,
    StoreCorrupt,
    StoreError,
    StoreNotWritable,
    StoreUnavailable,
)
from checkout_desktop.store.sqlite import schema_charges, schema_inbox, schema_shop
from checkout_desktop.store.sqlite import three_ds as three_ds_schema
from checkout_desktop.texts import QT_TRANSLATE_NOOP, Words

logger = logging.getLogger(__name__)

# Each component owns its own migration steps; the order here is the schema's history and is
# append-only once released: never edit or reorder a step that has shipped.
MIGRATIONS: list[tuple[int, str, str]] = [
    (1, "charges, attempts, transactions, timeline", schema_charges.V1),
    (2, "webhook inbox: events, quarantine, dedupe", schema_inbox.V2),
    (3, "money operations recorded before sending; the daily sweep", schema_charges.V3),
    (4, "timeline and check reasons kept as codes", schema_charges.REASONS),
    (5, "inbox reasons kept as codes", schema_inbox.REASONS),
    (6, "attempts keep their tenders (card list migrated)", schema_charges.TENDERS),
    (7, "charges remember their environment and customer; customers", schema_charges.ENVIRONMENTS),
    (9, "3DS flows, each step written before its call", three_ds_schema.SCHEMA),
    (10, "the shop's shared settings and counter ids", schema_shop.SHOP_SCHEMA),
    (11, "charges keep the status the history shows", schema_charges.SHOWN_STATUS),
    (
        12,
        "the status the history shows, read anew (refunds kept as paid, QRs that ran out)",
        schema_charges.SHOWN_STATUS_AGAIN,
    ),
    (13, "sales keep the customer's name they were charged under", schema_charges.CUSTOMER_NAMES),
    (
        14,
        "deliveries keep the status the event list shows (a QR's in the History's words)",
        schema_inbox.EVENT_SHOWN_STATUS,
    ),
    (
        15,
        "refunds, captures and cancels keep the counter that sent them",
        schema_charges.MONEY_OP_COUNTERS,
    ),
]
SCHEMA_VERSION = MIGRATIONS[-1][0]


APPLICATION_ID = 0x43484B44
"""`PRAGMA application_id` of a checkout-desktop store ("CHKD"): a file without it is not ours."""
WAL_SIZE_LIMIT = 1024 * 1024
"""Bytes of WAL kept after a checkpoint (SQLite truncates the file down to this)."""
QUICK_CHECK_BUDGET_S = 2.0
"""The start-up integrity check stops after this long (a huge store is not checked whole)."""
_SQLITE_NOTADB = 26
"""SQLite's result code for a file that is not a database."""
# Tables a store written before application_id existed already holds: such a file is ours.
_OWN_TABLES = frozenset({"webhook_event", "charge"})


def _describe(path: Path, exc: BaseException) -> StoreError:
    """A plain StoreError for what sqlite3 or the OS said while opening the store."""
    text = str(exc)
    lowered = text.lower()
    if isinstance(exc, StoreError):
        return exc
    if "not a database" in lowered or "malformed" in lowered:
        return StoreCorrupt(
            Words(
                QT_TRANSLATE_NOOP(
                    "Store",
                    "the store {path} is damaged or not a database ({detail}); the file is left "
                    "as it is: move it away (the terminal then starts a new, empty store) and "
                    "keep it for support",
                ),
                path=path,
                detail=text,
            )
        )
    if "readonly" in lowered or "read-only" in lowered or isinstance(exc, PermissionError):
        return StoreNotWritable(
            Words(
                QT_TRANSLATE_NOOP(
                    "Store",
                    "the store {path} cannot be written ({detail}); check that the file and its "
                    "folder belong to this user and are writable (chmod u+w), and that the disk "
                    "is not mounted read-only",
                ),
                path=path,
                detail=text,
            )
        )
    if "disk is full" in lowered or "no space" in lowered:
        return StoreUnavailable(
            Words(
                QT_TRANSLATE_NOOP(
                    "Store",
                    "the disk holding the store {path} is full; free some space and start again",
                ),
                path=path,
            )
        )
    if isinstance(exc, NotADirectoryError | FileExistsError):
        return StoreUnavailable(
            Words(
                QT_TRANSLATE_NOOP(
                    "Store",
                    "the store's folder {folder} is not a folder (a file has its name); move "
                    "that file away and start again",
                ),
                folder=path.parent,
            )
        )
    if isinstance(exc, IsADirectoryError):
        return StoreUnavailable(
            Words(
                QT_TRANSLATE_NOOP(
                    "Store", "the store {path} is a folder, not a file; move it away"
                ),
                path=path,
            )
        )
    return StoreUnavailable(
        Words(
            QT_TRANSLATE_NOOP("Store", "the store {path} cannot be opened: {detail}"),
            path=path,
            detail=text,
        )
    )


def _identify(path: Path) -> None:
    """Refuse a file that is not a checkout-desktop store, before anything writes to it."""
    try:
        info = path.stat()
    except FileNotFoundError:
        return
    if not stat.S_ISREG(info.st_mode):
        raise StoreUnavailable(
            Words(
                QT_TRANSLATE_NOOP("Store", "the store {path} is not a regular file; move it away"),
                path=path,
            )
        )
    if info.st_size == 0:
        return
    # SQLite itself reads the header: a descriptor of our own on the file, once closed, would
    # release every lock this process's other connections hold on it (POSIX drops them all on
    # any close), and another process could then delete the WAL they are still writing to.
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, isolation_level=None)
    try:
        app_id = int(conn.execute("PRAGMA application_id").fetchone()[0])
        tables = {
            str(r[0]) for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")
        }
    except sqlite3.DatabaseError as exc:
        if getattr(exc, "sqlite_errorcode", None) != _SQLITE_NOTADB:
            raise
        raise ForeignStore(
            Words(
                QT_TRANSLATE_NOOP(
                    "Store",
                    "the file {path} is not an SQLite database, so not a checkout-desktop "
                    "store; it is left untouched: move it away and start again",
                ),
                path=path,
            )
        ) from None
    finally:
        conn.close()
    if app_id == APPLICATION_ID:
        return
    if app_id == 0 and (not tables or tables & _OWN_TABLES):
        return
    raise ForeignStore(
        Words(
            QT_TRANSLATE_NOOP(
                "Store",
                "the file {path} is another program's database (application id {app_id}, "
                "{tables} tables), not a checkout-desktop store; it is left untouched: move it "
                "away and start again",
            ),
            path=path,
            app_id=f"{app_id:#x}",
            tables=len(tables),
        )
    )


def quick_check(
    conn: sqlite3.Connection, path: Path, budget_s: float = QUICK_CHECK_BUDGET_S
) -> None:
    """`PRAGMA quick_check`, stopped after `budget_s`; raises StoreCorrupt when it fails."""
    deadline = time.monotonic() + budget_s
    conn.set_progress_handler(lambda: int(time.monotonic() > deadline), 10_000)
    try:
        rows = [str(r[0]) for r in conn.execute("PRAGMA quick_check(5)")]
    except sqlite3.OperationalError as exc:
        if "interrupted" in str(exc).lower():
            logger.info("store %s: the integrity check took over %g s; skipped", path, budget_s)
            return
        raise
    finally:
        conn.set_progress_handler(None, 0)
    if rows != ["ok"]:
        raise StoreCorrupt(
            Words(
                QT_TRANSLATE_NOOP(
                    "Store",
                    "the store {path} failed its integrity check ({detail}); it is left as it "
                    "is: stop every checkout-desktop, move the file (and its -wal and -shm "
                    "files) away to keep for support, and start again with a new store",
                ),
                path=path,
                detail="; ".join(rows)[:300],
            )
        )


def connect(
    path: Path, *, readonly: bool = False, migrate_schema: bool = True
) -> sqlite3.Connection:
    """Open the store with WAL, full durability, foreign keys and a busy timeout.

    The connection is in autocommit mode; writes go through `transaction()`, which issues
    BEGIN IMMEDIATE so that one writer at a time holds the lock from the start. A file that is
    not a checkout-desktop store is refused before anything writes to it; every problem is a
    StoreError with a plain message.
    """
    try:
        return _connect(path, readonly=readonly, migrate_schema=migrate_schema)
    except (sqlite3.Error, OSError) as exc:
        raise _describe(path, exc) from None


def _connect(path: Path, *, readonly: bool, migrate_schema: bool) -> sqlite3.Connection:
    if readonly:
        _identify(path)
        uri = f"file:{path}?mode=ro"
        conn = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
    else:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        _identify(path)
        if not os.path.lexists(path):
            # Created owner-only before SQLite opens it: SQLite gives the -wal and -shm files
            # the database file's permissions.
            with contextlib.suppress(FileExistsError):
                os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        if not os.access(path, os.W_OK) or not os.access(path.parent, os.W_OK):
            raise StoreNotWritable(
                Words(
                    QT_TRANSLATE_NOOP(
                        "Store",
                        "the store {path} cannot be written (the file or its folder is "
                        "read-only); make both writable by this user (chmod u+w), or start "
                        "with another --data-dir",
                    ),
                    path=path,
                )
            )
        conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    try:
        conn.row_factory = sqlite3.Row
        conn.execute("PRAGMA busy_timeout = 5000")
        conn.execute("PRAGMA foreign_keys = ON")
        if not readonly:
            mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                logger.warning("the store at %s runs in %s mode, not WAL", path, mode)
            conn.execute("PRAGMA synchronous = FULL")
            # After each checkpoint the WAL is cut back to this size: a burst does not leave
            # a large file behind on a small disk.
            conn.execute(f"PRAGMA journal_size_limit = {WAL_SIZE_LIMIT}")
            # Checkpoint every WAL_SIZE_LIMIT bytes rather than SQLite's 4 MB: on a small disk
            # a WAL that may not be checkpointed until it holds 4 MB fills the disk and stays.
            conn.execute(f"PRAGMA wal_autocheckpoint = {WAL_SIZE_LIMIT // 4096}")
            if migrate_schema:
                quick_check(conn, path)
                migrate(conn, path)
                ensure_search_index(conn, path)
            for suffix in ("", "-wal", "-shm"):
                tighten(Path(f"{path}{suffix}"))
        else:
            _refuse_newer(conn, path)
    except BaseException:
        conn.close()
        raise
    return conn


def _user_version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def _refuse_newer(conn: sqlite3.Connection, path: Path) -> int:
    current = _user_version(conn)
    if current > SCHEMA_VERSION:
        raise SchemaTooNew(
            Words(
                QT_TRANSLATE_NOOP(
                    "Store",
                    "the store {path} has schema version {version}, written by a newer "
                    "checkout-desktop (this one knows up to {known}); upgrade the terminal — the "
                    "file is untouched",
                ),
                path=path,
                version=current,
                known=SCHEMA_VERSION,
            )
        )
    return current


def migrate(conn: sqlite3.Connection, path: Path) -> int:
    """Apply every missing step in one transaction (all or none); refuse a newer schema."""
    current = _refuse_newer(conn, path)
    pending = [step for step in MIGRATIONS if step[0] > current]
    if not pending and _application_id(conn) == APPLICATION_ID:
        return current
    # A step may compute what it fills with the domain's own rules (one pass, in SQL).
    conn.create_function(
        schema_charges.SHOWN_STATUS_FUNCTION,
        3,
        schema_charges.stored_shown_status,
        deterministic=True,
    )
    conn.create_function(
        schema_inbox.EVENT_SHOWN_STATUS_FUNCTION,
        3,
        stored_event_shown_status,
        deterministic=True,
    )
    conn.execute("BEGIN IMMEDIATE")
    try:
        for version, description, script in pending:
            logger.info("store %s: migrating to schema %d (%s)", path, version, description)
            for statement in _statements(script):
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {int(version)}")
            current = version
        conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
    return current


def _application_id(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA application_id").fetchone()[0])


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


def checkpoint(conn: sqlite3.Connection) -> bool:
    """Copy the WAL into the database and truncate it; False when readers kept it from ending.

    Frees the disk space the WAL holds, so a disk that the WAL filled can take commits again.
    """
    row = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    return row is not None and int(row[0]) == 0


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
