"""Moving a shop from its embedded SQLite store to a shared PostgreSQL one, verified.

Everything is copied in one PostgreSQL transaction: charges, attempts, transactions, money
operations, timelines, sweeps and every stored delivery, ids kept. Before the commit the copy
is read back and compared with the source table by table — the row count and a SHA-256 over
every row in key order — and any difference rolls the whole copy back. The SQLite file is only
read. The target must hold no charge, attempt or delivery yet (a copy never merges two shops).
"""

from __future__ import annotations

import hashlib
import logging
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import SecretStr

from checkout_desktop.store.postgres import db
from checkout_desktop.store.postgres.address import StoreAddress
from checkout_desktop.store.postgres.db import SharedStoreError, StoreProblem
from checkout_desktop.store.postgres.events import fold
from checkout_desktop.store.sqlite import db as sqlite_db
from checkout_desktop.texts import QT_TRANSLATE_NOOP, Words

if TYPE_CHECKING:
    import psycopg

logger = logging.getLogger(__name__)

# Parents before children (foreign keys); each with the key its rows are compared in.
TABLES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("charge_attempt", ("merchant_charge_id",)),
    ("charge", ("id",)),
    ("charge_transaction", ("merchant_charge_id", "txn_key")),
    ("money_operation", ("id",)),
    ("charge_timeline", ("id",)),
    ("charge_sweep", ("id",)),
    ("webhook_event", ("id",)),
    ("customer", ("document",)),
    ("customer_name", ("document", "name_key")),
    ("three_ds_flow", ("merchant_charge_id",)),
)
_IDENTITY_COLUMNS = (
    ("charge", "id"),
    ("money_operation", "id"),
    ("charge_timeline", "id"),
    ("charge_sweep", "id"),
    ("webhook_event", "id"),
    ("charge_attempt", "seq"),
)
_BATCH = 2000


class MigrationRefused(SharedStoreError):
    """The copy was not made (or was rolled back); the message says why."""


class TargetNotEmpty(MigrationRefused):
    """The shared store already holds a history (another folder's copy, or counters' sales)."""


@dataclass(frozen=True)
class TableCopy:
    table: str
    rows: int
    sha256: str


def _text_key(column: str, *, postgres: bool) -> str:
    # Text keys are compared byte by byte on both sides (SQLite's BINARY, PostgreSQL's "C"),
    # whatever collation the server's database has.
    if postgres and column != "id":
        return f'{column} COLLATE "C"'
    return column


def _order(keys: Sequence[str], *, postgres: bool) -> str:
    return ", ".join(_text_key(k, postgres=postgres) for k in keys)


def _row_digest(digest: Any, row: Sequence[Any]) -> None:
    digest.update(repr(tuple(bytes(v) if isinstance(v, memoryview) else v for v in row)).encode())


def _sqlite_columns(conn: sqlite3.Connection, table: str) -> list[str]:
    return [str(r[1]) for r in conn.execute(f"PRAGMA table_info({table})")]


def _sqlite_rows(
    conn: sqlite3.Connection, table: str, columns: Sequence[str], keys: Sequence[str]
) -> Iterator[tuple[Any, ...]]:
    cursor = conn.execute(
        f"SELECT {', '.join(columns)} FROM {table} ORDER BY {_order(keys, postgres=False)}"  # noqa: S608 - names from TABLES and the schema
    )
    while True:
        batch = cursor.fetchmany(_BATCH)
        if not batch:
            return
        for row in batch:
            yield tuple(row)


def _search_text(columns: Sequence[str], row: Sequence[Any]) -> str:
    values = dict(zip(columns, row, strict=True))
    parts = [
        values.get(name)
        for name in (
            "merchant_charge_id",
            "charge_id",
            "event_ref",
            "event_type",
            "body_type",
            "status",
            "reason",
        )
    ]
    body = values.get("body")
    text = bytes(body).decode("utf-8", errors="replace") if body is not None else None
    return fold("\n".join(str(v) for v in [*parts, text] if v)).replace("\x00", "")


def _target_is_empty(conn: psycopg.Connection[Any], address: StoreAddress) -> None:
    held = {}
    for table in ("charge_attempt", "charge", "webhook_event"):
        row = conn.execute(f"SELECT count(*) FROM {table}").fetchone()  # noqa: S608 - constant
        held[table] = int(row[0]) if row else 0
    if any(held.values()):
        raise TargetNotEmpty(
            StoreProblem.REFUSED,
            Words(
                QT_TRANSLATE_NOOP(
                    "SharedStore",
                    "the shared store ({where}) already holds {charges} charges, {attempts} "
                    "attempts and {deliveries} deliveries; a copy goes into an empty store only "
                    "(it never merges two shops' histories). Nothing was copied.",
                ),
                where=address.described(),
                charges=held["charge"],
                attempts=held["charge_attempt"],
                deliveries=held["webhook_event"],
            ),
            address=address,
        )


def _copy_table(
    source: sqlite3.Connection,
    target: psycopg.Connection[Any],
    table: str,
    keys: Sequence[str],
) -> TableCopy:
    columns = _sqlite_columns(source, table)
    extra = {"webhook_event": ["search_text"], "charge_attempt": ["seq"]}.get(table, [])
    digest = hashlib.sha256()
    count = 0
    names = ", ".join([*columns, *extra])
    # Attempts keep their insertion order (SQLite's rowid) as their sequence.
    selected = [*columns, "rowid"] if table == "charge_attempt" else columns
    with target.cursor() as cursor, cursor.copy(f"COPY {table} ({names}) FROM STDIN") as copy:
        for full in _sqlite_rows(source, table, selected, keys):
            row = full[: len(columns)]
            _row_digest(digest, row)
            count += 1
            values: list[Any] = list(full)
            if table == "webhook_event":
                values.append(_search_text(columns, row))
            copy.write_row(values)
    return TableCopy(table, count, digest.hexdigest())


def _read_back(
    target: psycopg.Connection[Any], table: str, columns: Sequence[str], keys: Sequence[str]
) -> TableCopy:
    digest = hashlib.sha256()
    count = 0
    with target.cursor(name=f"verify_{table}") as cursor:
        cursor.itersize = _BATCH
        cursor.execute(
            f"SELECT {', '.join(columns)} FROM {table} "  # noqa: S608 - names from the schema
            f"ORDER BY {_order(keys, postgres=True)}"
        )
        for row in cursor:
            _row_digest(digest, row)
            count += 1
    return TableCopy(table, count, digest.hexdigest())


def copy_store(
    source_path: Path,
    address: StoreAddress,
    password: SecretStr | None,
    *,
    progress: Callable[[TableCopy], None] | None = None,
) -> list[TableCopy]:
    """Copy the SQLite store at `source_path` into the empty shared store, verified, at once."""
    source = sqlite_db.connect(source_path, readonly=True)
    try:
        version = int(source.execute("PRAGMA user_version").fetchone()[0])
        if version != sqlite_db.SCHEMA_VERSION:
            raise MigrationRefused(
                StoreProblem.REFUSED,
                f"the store {source_path} has schema {version}, not {sqlite_db.SCHEMA_VERSION}: "
                "open it once with this checkout-desktop (it brings it up to date), then copy",
                address=address,
            )
        target = db.connect(address, password)
        try:
            return _copy_all(source, target, address, progress)
        finally:
            target.close()
    finally:
        source.close()


def _copy_all(
    source: sqlite3.Connection,
    target: psycopg.Connection[Any],
    address: StoreAddress,
    progress: Callable[[TableCopy], None] | None,
) -> list[TableCopy]:
    import psycopg

    copied: list[TableCopy] = []
    try:
        # The source is read in one SQLite read transaction: a terminal still running on it
        # cannot make the copy see half a commit.
        source.execute("BEGIN")
        with target.transaction():
            _target_is_empty(target, address)
            # Other counters must not write while the shop moves in.
            target.execute(f"LOCK TABLE {', '.join(t for t, _ in TABLES)} IN EXCLUSIVE MODE")
            for table, keys in TABLES:
                done = _copy_table(source, target, table, keys)
                copied.append(done)
                if progress is not None:
                    progress(done)
            for table, column in _IDENTITY_COLUMNS:
                target.execute(
                    f"SELECT setval(pg_get_serial_sequence('{table}', '{column}'), "  # noqa: S608
                    f"COALESCE((SELECT max({column}) FROM {table}), 0) + 1, false)"
                )
            _verify(source, target, copied, address)
    except psycopg.Error as exc:
        raise db.describe_error(address, exc) from None
    finally:
        source.execute("ROLLBACK")
    return copied


def _verify(
    source: sqlite3.Connection,
    target: psycopg.Connection[Any],
    copied: Iterable[TableCopy],
    address: StoreAddress,
) -> None:
    keys = dict(TABLES)
    for done in copied:
        columns = _sqlite_columns(source, done.table)
        back = _read_back(target, done.table, columns, keys[done.table])
        if back != done:
            sums = "equal" if back.sha256 == done.sha256 else "differ"
            raise MigrationRefused(
                StoreProblem.REFUSED,
                f"the copy of {done.table} does not match its source ({back.rows} rows read "
                f"back, {done.rows} copied; checksums {sums}); "
                "the whole copy was rolled back and the shared store is as it was",
                address=address,
            )


__all__ = ["TABLES", "MigrationRefused", "TableCopy", "copy_store"]
