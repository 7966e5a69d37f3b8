"""The shop's customers as charged (name, document, e-mail; never card data), for search and reuse.

A customer is remembered when a charge is attempted for them, inside the attempt's own
transaction, so the history can find charges by customer name and the charge form can offer
the people who bought recently. The SQL is plain enough for the PostgreSQL store to run too.
"""

from __future__ import annotations

import logging
import sqlite3
from datetime import UTC, datetime
from typing import Any

from checkout_desktop.domain.search import CustomerRecord, name_key
from checkout_desktop.domain.timestamps import utc_now

logger = logging.getLogger(__name__)

# The charge tables' fixed-width UTC form (store.sqlite.charges.ts), so the two sort alike;
# written here too because the charge repository uses this module.
_STAMP = "%Y-%m-%dT%H:%M:%S.%fZ"


def _ts(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime(_STAMP)


def _from_ts(text: str) -> datetime:
    return datetime.strptime(text, _STAMP).replace(tzinfo=UTC)


def remember_customer(
    conn: sqlite3.Connection,
    *,
    document_type: str,
    document: str,
    name: str,
    email: str | None,
    phone: str | None = None,
    at: datetime | None = None,
) -> None:
    """Add or refresh one customer (inside the caller's transaction); the newest details win,
    except that a sale without an e-mail or phone keeps the one already known."""
    now = _ts(at or utc_now())
    key = name_key(name)
    # Every name the document was charged under, for the history's search.
    conn.execute(
        "INSERT INTO customer_name (document, name_key, last_used_at) VALUES (:doc, :key, :now) "
        "ON CONFLICT (document, name_key) DO UPDATE SET last_used_at = excluded.last_used_at",
        {"doc": document, "key": key, "now": now},
    )
    conn.execute(
        "INSERT INTO customer (document, document_type, name, name_key, email, phone, "
        "first_used_at, last_used_at) VALUES (:doc, :type, :name, :key, :email, :phone, :now, "
        ":now) "
        "ON CONFLICT (document) DO UPDATE SET document_type = excluded.document_type, "
        "name = excluded.name, name_key = excluded.name_key, "
        "email = COALESCE(excluded.email, customer.email), "
        "phone = COALESCE(excluded.phone, customer.phone), "
        "last_used_at = excluded.last_used_at, uses = customer.uses + 1",
        {
            "doc": document,
            "type": document_type,
            "name": name,
            "key": key,
            "email": email or None,
            "phone": phone or None,
            "now": now,
        },
    )


def recent_customers(
    conn: sqlite3.Connection, *, limit: int = 20, profile: str | None = None
) -> list[CustomerRecord]:
    """The customers charged most recently, newest first (uses the last-used index); only
    those with a charge in `profile`'s environment when one is given, so a sandbox's test
    customers are never offered at a real sale (each customer's charges by the customer index)."""
    mine = (
        "WHERE EXISTS (SELECT 1 FROM charge WHERE charge.customer_document = customer.document "
        "AND charge.profile = :profile) "
        if profile is not None
        else ""
    )
    rows = conn.execute(
        f"SELECT * FROM customer {mine}"  # noqa: S608 - constant conditions
        "ORDER BY last_used_at DESC, document LIMIT :limit",
        {"limit": limit, "profile": profile},
    ).fetchall()
    return [_customer(r) for r in rows]


def name_pattern(text: str) -> str | None:
    """The LIKE pattern (escape '!') of a name search over name keys; None for no name."""
    key = name_key(text)
    if not key:
        return None
    return "%" + key.replace("!", "!!").replace("%", "!%").replace("_", "!_") + "%"


def documents_named(conn: sqlite3.Connection, text: str, *, limit: int = 500) -> list[str]:
    """Documents charged under a name containing `text` (case and accents ignored).

    The names table holds a row per person and name, far fewer than charges, so scanning it is
    cheap; the charges are then found through their customer index.
    """
    pattern = name_pattern(text)
    if pattern is None:
        return []
    rows = conn.execute(
        "SELECT document FROM customer_name WHERE name_key LIKE :p ESCAPE '!' "
        "GROUP BY document ORDER BY MAX(last_used_at) DESC LIMIT :limit",
        {"p": pattern, "limit": limit},
    ).fetchall()
    return [str(r[0]) for r in rows]


def _customer(row: Any) -> CustomerRecord:
    return CustomerRecord(
        document_type=row["document_type"],
        document=row["document"],
        name=row["name"],
        email=row["email"],
        phone=row["phone"],
        last_used_at=_from_ts(row["last_used_at"]),
        uses=int(row["uses"]),
    )


__all__ = ["documents_named", "name_pattern", "recent_customers", "remember_customer"]
