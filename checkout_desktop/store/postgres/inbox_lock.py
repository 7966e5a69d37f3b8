"""Who receives the shop's notifications: one inbox per shared store, decided by an advisory lock.

The service sends every notification of an account to one URL, so one counter (or a box
running `checkout-desktop listen`) holds the inbox. Holding it is a session-level advisory
lock on a connection of its own: the server releases it the moment that connection ends — a
clean stop, a crash, a SIGKILL or a pulled cable (once the server notices) — and another
counter that keeps asking takes it over. The `inbox_holder` row says who took it, so the
others can show it; it counts only while the lock is really held.
"""

from __future__ import annotations

import logging
import os
import socket
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from pydantic import SecretStr

from checkout_desktop.domain.timestamps import utc_now
from checkout_desktop.store.postgres import db
from checkout_desktop.store.postgres.address import StoreAddress
from checkout_desktop.store.sqlite.events import format_instant

if TYPE_CHECKING:
    import psycopg

logger = logging.getLogger(__name__)

INBOX_LOCK = 0x43484B44_0002
"""The advisory lock key whose holder is the shop's inbox."""


@dataclass(frozen=True)
class HolderInfo:
    """The counter holding the inbox."""

    counter: str
    host: str
    pid: int
    since: datetime


def _lock_held_sql() -> str:
    # A bigint advisory key shows in pg_locks split in two 32-bit halves (objsubid 1).
    return (
        "SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted "
        "AND database = (SELECT oid FROM pg_database WHERE datname = current_database()) "
        "AND classid = %(high)s AND objid = %(low)s AND objsubid = 1)"
    )


def _key_halves() -> dict[str, int]:
    return {"high": (INBOX_LOCK >> 32) & 0xFFFFFFFF, "low": INBOX_LOCK & 0xFFFFFFFF}


def current_holder(conn: psycopg.Connection[Any]) -> HolderInfo | None:
    """Who holds the inbox now (None: nobody, e.g. its holder stopped or died)."""
    held = conn.execute(_lock_held_sql(), _key_halves()).fetchone()
    if not held or not held[0]:
        return None
    row = conn.execute("SELECT counter, host, pid, since FROM inbox_holder WHERE id = 1").fetchone()
    if row is None:
        return None
    return HolderInfo(
        counter=str(row[0]),
        host=str(row[1]),
        pid=int(row[2]),
        since=datetime.fromisoformat(str(row[3])),
    )


class InboxLock:
    """This counter's claim on the shop's inbox (one connection, kept while holding)."""

    def __init__(self, address: StoreAddress, password: SecretStr | None, counter: str) -> None:
        self._address = address
        self._password = password
        self.counter = counter
        self._conn: psycopg.Connection[Any] | None = None

    @property
    def held(self) -> bool:
        return self._conn is not None and not self._conn.closed

    def try_take(self) -> HolderInfo | None:
        """Take the inbox if nobody holds it; returns who holds it afterwards (maybe us)."""
        if self.held:
            assert self._conn is not None
            return current_holder(self._conn)
        conn = db.connect(self._address, self._password, migrate_schema=False, autocommit=True)
        try:
            got = conn.execute("SELECT pg_try_advisory_lock(%s)", (INBOX_LOCK,)).fetchone()
            if not got or not got[0]:
                holder = current_holder(conn)
                conn.close()
                return holder
            conn.execute(
                "INSERT INTO inbox_holder (id, counter, host, pid, since) "
                "VALUES (1, %(counter)s, %(host)s, %(pid)s, %(since)s) ON CONFLICT (id) DO UPDATE "
                "SET counter = EXCLUDED.counter, host = EXCLUDED.host, pid = EXCLUDED.pid, "
                "since = EXCLUDED.since",
                {
                    "counter": self.counter,
                    "host": socket.gethostname(),
                    "pid": os.getpid(),
                    "since": format_instant(utc_now()),
                },
            )
        except BaseException:
            conn.close()
            raise
        self._conn = conn
        logger.info("this counter (%s) now holds the shop's inbox", self.counter)
        return current_holder(conn)

    def release(self) -> None:
        """Give the inbox up (closing the connection releases the lock)."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None


__all__ = ["INBOX_LOCK", "HolderInfo", "InboxLock", "current_holder"]
