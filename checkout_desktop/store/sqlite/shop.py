"""The shop's shared facts: settings every counter must agree on, and the counters' ids.

Kept in the store rather than in each counter's settings file, so that on a shared store one
supervisor PIN (its hash) and one shop name hold for every counter, and no two counters take
the same id. The SQL is plain enough to run on PostgreSQL through its sqlite3-like dialect.
"""

from __future__ import annotations

import logging
import re
import sqlite3
from collections.abc import Callable
from datetime import datetime

from checkout_desktop.domain.learned import LEARNED_FLAGS, LEARNED_PREFIX
from checkout_desktop.domain.timestamps import utc_now
from checkout_desktop.store.errors import NotInTransaction, RepositoryError
from checkout_desktop.store.sqlite.charges import ts
from checkout_desktop.store.sqlite.schema_shop import SHOP_SCHEMA

logger = logging.getLogger(__name__)


SHOP_KEYS = frozenset({"supervisor_pin_hash", "shop_name"})
"""The settings the counters of one shop share; every other setting stays per counter
(besides these, the service's learned rules: `is_shop_key`)."""
MAX_VALUE = 4096
_LEARNED_KEY = re.compile(
    rf"^{re.escape(LEARNED_PREFIX)}[a-z0-9][a-z0-9@-]{{0,79}}/({'|'.join(LEARNED_FLAGS)})$"
)


def is_shop_key(key: str) -> bool:
    """A setting the shop's counters share: the PIN, the shop's name, or a rule an environment's
    service taught a counter (`learned/<environment>/<flag>`)."""
    return key in SHOP_KEYS or _LEARNED_KEY.match(key) is not None


class ShopRepository:
    """Shop settings and counter ids on one connection (sqlite3 or the PostgreSQL dialect)."""

    def __init__(
        self, conn: sqlite3.Connection, *, clock: Callable[[], datetime] = utc_now
    ) -> None:
        self.conn = conn
        self._clock = clock

    def _require_transaction(self, what: str) -> None:
        if not self.conn.in_transaction:
            raise NotInTransaction(what)

    def settings(self) -> dict[str, str]:
        """The shop's shared settings (key → value); a key never set is absent."""
        rows = self.conn.execute("SELECT key, value FROM shop_setting ORDER BY key").fetchall()
        return {str(row["key"]): str(row["value"]) for row in rows}

    def set_setting(self, key: str, value: str | None, *, by: str) -> None:
        """Set (or, with None, clear) one shared setting; `by` names the counter."""
        self._require_transaction("set_setting")
        if not is_shop_key(key):
            raise RepositoryError(f"{key!r} is not a setting the shop's counters share")
        if value is None:
            self.conn.execute("DELETE FROM shop_setting WHERE key = :key", {"key": key})
            return
        if len(value) > MAX_VALUE:
            raise RepositoryError(f"the shop setting {key!r} is longer than {MAX_VALUE}")
        self.conn.execute(
            "INSERT INTO shop_setting (key, value, updated_at, updated_by) "
            "VALUES (:key, :value, :now, :by) ON CONFLICT (key) DO UPDATE SET "
            "value = excluded.value, updated_at = excluded.updated_at, "
            "updated_by = excluded.updated_by",
            {"key": key, "value": value, "now": ts(self._clock()), "by": by},
        )

    def counter_of(self, terminal_id: str) -> str | None:
        """The counter id registered for this terminal, or None."""
        row = self.conn.execute(
            "SELECT counter_id FROM shop_counter WHERE terminal_id = :t", {"t": terminal_id}
        ).fetchone()
        return None if row is None else str(row["counter_id"])

    def register_counter(self, counter_id: str, terminal_id: str, host: str) -> str:
        """Keep `counter_id` for this terminal unless another terminal has it; the terminal's
        counter id as now registered (an earlier registration of the terminal wins)."""
        self._require_transaction("register_counter")
        mine = self.counter_of(terminal_id)
        if mine is not None:
            return mine
        taken = self.conn.execute(
            "SELECT terminal_id FROM shop_counter WHERE counter_id = :c", {"c": counter_id}
        ).fetchone()
        if taken is not None:
            raise RepositoryError(f"the counter id {counter_id!r} belongs to another terminal")
        self.conn.execute(
            "INSERT INTO shop_counter (counter_id, terminal_id, host, registered_at) "
            "VALUES (:c, :t, :h, :now)",
            {"c": counter_id, "t": terminal_id, "h": host[:255], "now": ts(self._clock())},
        )
        return counter_id


__all__ = ["SHOP_KEYS", "SHOP_SCHEMA", "ShopRepository", "is_shop_key"]
