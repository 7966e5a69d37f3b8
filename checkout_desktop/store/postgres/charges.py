"""Attempts, charges, money operations, timelines and sweeps on PostgreSQL: the same repository.

The embedded store's `ChargeRepository` holds the rules of every row (what is written, what a
resolved attempt refuses, what is masked); its SQL is plain enough to run on PostgreSQL as it
is, through a connection that speaks sqlite3's small dialect: `:name` placeholders, a row
readable by column name, `lastrowid`, `in_transaction`. The few phrases that differ are
rewritten on the way (a two-argument MAX, an integer used as a condition, `IS` between two
values), and the methods whose behaviour must differ are overridden here: a refused insert
inside a savepoint (PostgreSQL aborts the whole transaction otherwise), attempts paged by their
insertion sequence (PostgreSQL has no rowid), and claims of due checks with
`FOR UPDATE SKIP LOCKED`, so that several counters never ask about one charge twice.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from checkout_desktop.domain.money_ops import Figures, MoneyOpKind
from checkout_desktop.domain.records import (
    AttemptRecord,
    ChargeRecord,
    MoneyOpRecord,
    Page,
    TenderSummary,
)
from checkout_desktop.domain.timestamps import utc_now
from checkout_desktop.store.errors import MoneyOperationOpen, NotInTransaction, RepositoryError
from checkout_desktop.store.sqlite.charges import ChargeRepository, _attempt, _charge, ts

if TYPE_CHECKING:
    import psycopg

logger = logging.getLogger(__name__)

WRITE_LOCK = 0x43484B44_0003
"""The store-wide advisory lock a unit of work takes first: writers run one at a time, as on
SQLite (`BEGIN IMMEDIATE`), so ids grow in commit order and `watch` never skips one."""

_ID_TABLES = frozenset({"charge", "charge_timeline", "money_operation", "charge_sweep"})
_NAMED = re.compile(r"(?<![:\w]):([A-Za-z_]\w*)")
_INSERT = re.compile(r"^\s*INSERT\s+INTO\s+(\w+)", re.IGNORECASE)
_MAX2 = re.compile(r"\bMAX\((\w+),\s*(:\w+)\)")
_CASE_PARAM = re.compile(r"CASE WHEN (:\w+) THEN")
_IS_VALUE = re.compile(r"(\b\w+\.\w+) IS (excluded\.\w+)")


@functools.lru_cache(maxsize=1024)
def translate(sql: str) -> tuple[str, str | None]:
    """The embedded store's SQL in PostgreSQL's words, and the table whose new id to return.

    Kept per statement text (the repository says a small set of statements over and over; the
    cache bounds the rest): five regular expressions, ≈ 50 µs, on every statement the inbox
    ran cost it about half a millisecond per delivery."""
    sql = _MAX2.sub(r"GREATEST(\1, \2)", sql)
    sql = _CASE_PARAM.sub(r"CASE WHEN \1 <> 0 THEN", sql)
    sql = _IS_VALUE.sub(r"\1 IS NOT DISTINCT FROM \2", sql)
    returning = None
    match = _INSERT.match(sql)
    if match and match.group(1) in _ID_TABLES and "RETURNING" not in sql.upper():
        returning = match.group(1)
        sql += " RETURNING id"
    return _NAMED.sub(r"%(\1)s", sql.replace("%", "%%")), returning


class Row(tuple[Any, ...]):
    """A row readable like sqlite3.Row: by position (and unpacking) and by column name."""

    _names: dict[str, int]

    def __new__(cls, values: Sequence[Any], names: dict[str, int]) -> Row:
        row = super().__new__(cls, values)
        row._names = names
        return row

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str):
            return super().__getitem__(self._names[key])
        return super().__getitem__(key)

    def keys(self) -> list[str]:
        return list(self._names)


def _row_factory(cursor: psycopg.Cursor[Any]) -> Callable[[Sequence[Any]], Row]:
    names = {column.name: i for i, column in enumerate(cursor.description or ())}
    return lambda values: Row(values, names)


class _Cursor:
    """What the repository reads from sqlite3's cursor: rows by name, `lastrowid`, `rowcount`."""

    def __init__(self, rows: list[Row], lastrowid: int | None, rowcount: int) -> None:
        self._rows = rows
        self.lastrowid = lastrowid
        self.rowcount = rowcount

    def fetchone(self) -> Row | None:
        return self._rows.pop(0) if self._rows else None

    def fetchall(self) -> list[Row]:
        rows, self._rows = self._rows, []
        return rows

    def __iter__(self) -> Iterator[Row]:
        return iter(self.fetchall())


class SqliteDialect:
    """A psycopg connection seen through the part of sqlite3's interface the repository uses."""

    def __init__(self, conn: psycopg.Connection[Any]) -> None:
        self.pg = conn

    @property
    def in_transaction(self) -> bool:
        from psycopg.pq import TransactionStatus

        return self.pg.info.transaction_status != TransactionStatus.IDLE

    def execute(self, sql: str, params: Mapping[str, Any] | Sequence[Any] = ()) -> _Cursor:
        text, returning = translate(sql)
        with self.pg.cursor(row_factory=_row_factory) as cursor:
            cursor.execute(text, params or None)
            rows = cursor.fetchall() if cursor.description is not None else []
            lastrowid = int(rows[0]["id"]) if returning and rows else None
            return _Cursor([] if returning else rows, lastrowid, cursor.rowcount)

    def executemany(self, sql: str, seq: Sequence[Mapping[str, Any]]) -> None:
        text, _ = translate(sql)
        with self.pg.cursor() as cursor:
            cursor.executemany(text, seq)


class PgChargeRepository(ChargeRepository):
    """The charge repository on one psycopg connection (one unit of work at a time)."""

    INDEX_HINTS = False
    """SQLite's planner hints (a unary '+' on a text column) are no PostgreSQL."""
    BIND_BY_POSITION = False
    """The dialect's placeholders are `:name` only."""

    def __init__(
        self, conn: psycopg.Connection[Any], *, clock: Callable[[], datetime] = utc_now
    ) -> None:
        super().__init__(SqliteDialect(conn), clock=clock)  # type: ignore[arg-type]
        self.pg = conn

    @contextlib.contextmanager
    def write(self, *, relaxed: bool = False) -> Iterator[None]:
        """One write transaction, serialized store-wide; durable unless `relaxed`."""
        with self.pg.transaction():
            begin_write(self.pg, relaxed=relaxed)
            yield

    def require_transaction(self, what: str) -> None:
        if not self.conn.in_transaction:
            raise NotInTransaction(what)

    def record_attempt(
        self,
        *,
        merchant_charge_id: str,
        sale_id: str,
        profile: str,
        amount: int,
        tenders: Sequence[TenderSummary],
        late_capture: bool = False,
        customer_document: str | None = None,
        customer_name: str | None = None,
    ) -> AttemptRecord:
        import psycopg

        self.require_transaction("record_attempt")
        try:
            with self.pg.transaction():
                return super().record_attempt(
                    merchant_charge_id=merchant_charge_id,
                    sale_id=sale_id,
                    profile=profile,
                    amount=amount,
                    tenders=tenders,
                    late_capture=late_capture,
                    customer_document=customer_document,
                    customer_name=customer_name,
                )
        except psycopg.errors.UniqueViolation:
            raise RepositoryError(
                f"charge {merchant_charge_id} was already attempted; a merchantChargeId is "
                "never reused (the service refuses a second charge under the same id)"
            ) from None

    def record_money_operation(
        self,
        merchant_charge_id: str,
        kind: MoneyOpKind,
        amount: int,
        base: Figures,
        *,
        counter: str | None = None,
    ) -> MoneyOpRecord:
        import psycopg

        self.require_transaction("record_money_operation")
        try:
            with self.pg.transaction():
                return super().record_money_operation(
                    merchant_charge_id, kind, amount, base, counter=counter
                )
        except psycopg.errors.UniqueViolation:
            open_op = self.open_money_operation(merchant_charge_id)
            if open_op is None:
                raise RepositoryError(
                    f"charge {merchant_charge_id}: the operation could not be recorded"
                ) from None
            raise MoneyOperationOpen(
                f"charge {merchant_charge_id} has a {open_op.kind} ({open_op.ref}) whose outcome "
                "is not known yet"
            ) from None

    def claim_due_checks(
        self,
        limit: int,
        owner: str,
        *,
        now: datetime,
        lease: timedelta,
        profile: str | None = None,
    ) -> list[ChargeRecord]:
        """Take the due charges no other counter holds, most overdue first, for `owner`.

        Rows another transaction has locked are skipped, not waited for (SKIP LOCKED); the
        claimed ones move their next check to `now + lease`, so nobody takes them again before
        the lease ends. Returns them as they were before the claim. Only `profile`'s when given.
        """
        self.require_transaction("claim_due_checks")
        mine = "AND profile = :profile " if profile is not None else ""
        rows = self.conn.execute(
            "SELECT * FROM charge WHERE next_check_at IS NOT NULL AND next_check_at <= :now "  # noqa: S608 - constant conditions
            f"{mine}ORDER BY next_check_at LIMIT :limit FOR UPDATE SKIP LOCKED",
            {"now": ts(now), "limit": limit, "profile": profile},
        ).fetchall()
        due = [_charge(r) for r in rows]
        if due:
            until = ts(now + lease)
            self.conn.execute(
                "UPDATE charge SET next_check_at = :until, check_owner = :owner, "
                "check_claimed_until = :until WHERE id = ANY(:ids)",
                {"until": until, "owner": owner, "ids": [record.id for record in due]},
            )
            logger.debug("%s claimed %d due check(s)", owner, len(due))
        return due

    def list_attempts(self, *, before: int | None = None, limit: int = 50) -> Page[AttemptRecord]:
        """Newest attempts first, keyset-paged by their insertion sequence."""
        if limit < 1:
            raise ValueError("a page holds at least one row")
        rows = self.conn.execute(
            "SELECT * FROM charge_attempt WHERE seq < :before ORDER BY seq DESC LIMIT :limit",
            {"before": before if before is not None else 2**62, "limit": limit + 1},
        ).fetchall()
        items = [_attempt(r) for r in rows[:limit]]
        cursor = int(rows[limit - 1]["seq"]) if len(rows) > limit else None
        return Page(items, cursor)


def begin_write(conn: psycopg.Connection[Any], *, relaxed: bool) -> None:
    """The first statements of a writing unit of work (inside its transaction)."""
    conn.execute("SELECT pg_advisory_xact_lock(%s)", (WRITE_LOCK,))
    if relaxed:
        # Atomic, and survives a crash of this process; a crash of the server may lose it.
        conn.execute("SET LOCAL synchronous_commit = off")


__all__ = ["WRITE_LOCK", "PgChargeRepository", "SqliteDialect", "begin_write", "translate"]
