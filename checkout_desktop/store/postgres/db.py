"""Connections to the shared PostgreSQL store: durable sessions, plain errors, versioned schema.

The store's reads and writes are synchronous, as the embedded store's are (the inbox writer
and the charge service call them from their own thread or between awaits); only `watch`
(LISTEN/NOTIFY) is asynchronous, and a widget's reader runs a query in a worker thread.

Every connection runs with `synchronous_commit = on` (asked for explicitly, whatever the
server's or the role's default), so a commit returns only once the server has flushed it: the
inbox acknowledges a delivery, and a charge is sent, only after that. Every failure to reach
or use the server becomes a `SharedStoreError` whose `problem` says which kind it is (the
window shows it in the shop's language) and whose message names the database, never the
password.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from pydantic import SecretStr

from checkout_desktop.secrets import SecretStore
from checkout_desktop.store.errors import StoreError
from checkout_desktop.store.postgres import schema
from checkout_desktop.store.postgres.address import StoreAddress
from checkout_desktop.texts import QT_TRANSLATE_NOOP, Words

if TYPE_CHECKING:
    import psycopg
    import psycopg_pool

logger = logging.getLogger(__name__)

CONNECT_TIMEOUT_S = 10
APPLICATION_NAME = "checkout-desktop"
MIGRATION_LOCK = 0x43484B44_0001
"""Advisory lock held while a counter migrates the schema, so two counters starting together
do not both try."""


class StoreProblem(StrEnum):
    """What kind of problem keeps the shared store from being used (values are stable)."""

    UNREACHABLE = "unreachable"
    CREDENTIALS = "credentials"
    PASSWORD_MISSING = "password_missing"
    NO_DATABASE = "no_database"
    TLS = "tls"
    SCHEMA_NEWER = "schema_newer"
    FOREIGN = "foreign"
    REFUSED = "refused"


class SharedStoreError(StoreError):
    """The shared store cannot be used; `problem` says why, the message what to do."""

    def __init__(
        self, problem: StoreProblem, message: str | Words, *, address: StoreAddress
    ) -> None:
        super().__init__(message)
        self.problem = problem
        self.address = address


# Server error codes (SQLSTATE) of a refused login and a missing database.
_CREDENTIAL_STATES = frozenset({"28P01", "28000"})
_NO_DATABASE_STATE = "3D000"
_TLS_WORDS = ("ssl", "certificate", "tls")
_CREDENTIAL_WORDS = (
    "password authentication failed",
    "no password supplied",
    "authentication failed",
    "pg_hba.conf",
    'role "',
)


def describe_error(address: StoreAddress, exc: BaseException) -> SharedStoreError:
    """A plain SharedStoreError for what libpq or the server said."""
    import psycopg

    if isinstance(exc, SharedStoreError):
        return exc
    text = " ".join(str(exc).split())
    lowered = text.lower()
    state = exc.sqlstate if isinstance(exc, psycopg.Error) else None
    where = address.described()
    if state in _CREDENTIAL_STATES or any(w in lowered for w in _CREDENTIAL_WORDS):
        return SharedStoreError(
            StoreProblem.CREDENTIALS,
            Words(
                QT_TRANSLATE_NOOP(
                    "SharedStore",
                    "the shared store refused the login ({where}): the user or the password is "
                    "wrong, or the server does not let this computer in; check the user in the "
                    "address and the password in the keychain ({command}), and the server's "
                    "pg_hba.conf. The server said: {said}",
                ),
                where=where,
                command="`checkout-desktop --store URL store password`",
                said=text,
            ),
            address=address,
        )
    if state == _NO_DATABASE_STATE or ("database" in lowered and "does not exist" in lowered):
        return SharedStoreError(
            StoreProblem.NO_DATABASE,
            Words(
                QT_TRANSLATE_NOOP(
                    "SharedStore",
                    "the shared store's server has no database {database}; create it ({command}) "
                    "or correct the address",
                ),
                database=repr(address.dbname),
                command=f"createdb -O {address.user} {address.dbname}",
            ),
            address=address,
        )
    if any(w in lowered for w in _TLS_WORDS):
        return SharedStoreError(
            StoreProblem.TLS,
            Words(
                QT_TRANSLATE_NOOP(
                    "SharedStore",
                    "the secure connection to the shared store failed ({where}); check sslmode "
                    "and the server's certificate (sslrootcert). The server said: {said}",
                ),
                where=where,
                said=text,
            ),
            address=address,
        )
    if isinstance(exc, psycopg.OperationalError | OSError | TimeoutError):
        return SharedStoreError(
            StoreProblem.UNREACHABLE,
            Words(
                QT_TRANSLATE_NOOP(
                    "SharedStore",
                    "the shared store does not answer ({where}): the server is down, or the "
                    "network or a firewall is in the way. The terminal keeps what it shows and "
                    "takes no payment until it can record it. Details: {said}",
                ),
                where=where,
                said=text,
            ),
            address=address,
        )
    return SharedStoreError(
        StoreProblem.REFUSED,
        Words(
            QT_TRANSLATE_NOOP(
                "SharedStore", "the shared store refused a request ({where}): {said}"
            ),
            where=where,
            said=text,
        ),
        address=address,
    )


def keychain_password(address: StoreAddress, store: SecretStore | None = None) -> SecretStr | None:
    """The store's password from the OS keychain (None: none kept, e.g. a trusted socket)."""
    return (store or SecretStore()).store_password(address.keychain_key)


def save_password(
    address: StoreAddress, password: SecretStr, store: SecretStore | None = None
) -> None:
    """Keep the store's password in the OS keychain under the store's address."""
    (store or SecretStore()).set_store_password(address.keychain_key, password)


def _login_error(
    address: StoreAddress, password: SecretStr | None, exc: BaseException
) -> Exception:
    error = describe_error(address, exc)
    if error.problem is StoreProblem.CREDENTIALS and password is None:
        return SharedStoreError(
            StoreProblem.PASSWORD_MISSING,
            Words(
                QT_TRANSLATE_NOOP(
                    "SharedStore",
                    "the shared store asks for a password ({where}) and the keychain holds none "
                    "for it; store it with {command}",
                ),
                where=address.described(),
                command="`checkout-desktop --store URL store password`",
            ),
            address=address,
        )
    return error


def connect_kwargs(address: StoreAddress, password: SecretStr | None) -> dict[str, Any]:
    """libpq parameters for `address`, the password among them only as an argument."""
    kwargs: dict[str, Any] = dict(address.params)
    kwargs.setdefault("connect_timeout", str(CONNECT_TIMEOUT_S))
    kwargs.setdefault("application_name", APPLICATION_NAME)
    if password is not None:
        kwargs["password"] = password.get_secret_value()
    return kwargs


def configure_session(conn: psycopg.Connection[Any]) -> None:
    """Per-connection settings every store session relies on."""
    conn.execute("SET synchronous_commit = on")
    conn.execute("SET TIME ZONE 'UTC'")
    conn.commit()


def connect(
    address: StoreAddress,
    password: SecretStr | None,
    *,
    migrate_schema: bool = True,
    autocommit: bool = False,
) -> psycopg.Connection[Any]:
    """One durable connection to the store, its schema brought up to date (or refused)."""
    import psycopg

    try:
        conn = psycopg.Connection.connect(
            **connect_kwargs(address, password), autocommit=autocommit
        )
    except psycopg.Error as exc:
        raise _login_error(address, password, exc) from None
    try:
        configure_session(conn)
        if migrate_schema:
            migrate(conn, address)
        else:
            check_version(conn, address)
    except BaseException as exc:
        conn.close()
        if isinstance(exc, psycopg.Error):
            raise describe_error(address, exc) from None
        raise
    return conn


def open_pool(
    address: StoreAddress,
    password: SecretStr | None,
    *,
    min_size: int = 1,
    max_size: int = 4,
) -> psycopg_pool.ConnectionPool[Any]:
    """A connection pool on the store (schema migrated first, durable sessions)."""
    import psycopg
    from psycopg_pool import ConnectionPool, PoolTimeout

    connect(address, password).close()
    configure: Callable[[psycopg.Connection[Any]], None] = configure_session
    pool: ConnectionPool[Any] = ConnectionPool(
        kwargs=connect_kwargs(address, password),
        min_size=min_size,
        max_size=max_size,
        configure=configure,
        # A connection the server dropped while it sat in the pool (the server restarted, the
        # network was cut) is found and replaced before it is lent out, so the first reads
        # after the store answers again do not fail on it (one short round trip per lending).
        check=ConnectionPool.check_connection,
        open=False,
        name="checkout-store",
        timeout=CONNECT_TIMEOUT_S,
    )
    try:
        pool.open(wait=True, timeout=CONNECT_TIMEOUT_S)
    except (PoolTimeout, psycopg.Error) as exc:
        pool.close()
        raise describe_error(address, exc) from None
    return pool


def _schema_row(conn: psycopg.Connection[Any]) -> tuple[str, int] | None:
    # A catalog query rather than to_regclass(): the latter answers from this session's cache,
    # which may not yet know a table that another counter's migration just committed.
    cursor = conn.execute(
        "SELECT 1 FROM pg_catalog.pg_tables "
        "WHERE schemaname = current_schema() AND tablename = 'checkout_schema'"
    )
    if cursor.fetchone() is None:
        return None
    cursor = conn.execute("SELECT application, version FROM checkout_schema WHERE id = 1")
    row = cursor.fetchone()
    return None if row is None else (str(row[0]), int(row[1]))


def _foreign_tables(conn: psycopg.Connection[Any]) -> int:
    cursor = conn.execute(
        "SELECT count(*) FROM pg_catalog.pg_tables WHERE schemaname = current_schema()"
    )
    row = cursor.fetchone()
    return 0 if row is None else int(row[0])


def _refuse(address: StoreAddress, found: tuple[str, int] | None, tables: int) -> int:
    """The schema version found, or a SharedStoreError when it is not ours or too new."""
    if found is None:
        if tables:
            raise SharedStoreError(
                StoreProblem.FOREIGN,
                Words(
                    QT_TRANSLATE_NOOP(
                        "SharedStore",
                        "the {where} already holds {tables} tables of another program; "
                        "checkout-desktop keeps its store in a database of its own: create an "
                        "empty one and point --store at it",
                    ),
                    where=address.described(),
                    tables=tables,
                ),
                address=address,
            )
        return 0
    application, version = found
    if application != schema.APPLICATION:
        raise SharedStoreError(
            StoreProblem.FOREIGN,
            Words(
                QT_TRANSLATE_NOOP(
                    "SharedStore", "the {where} belongs to {application}, not checkout-desktop"
                ),
                where=address.described(),
                application=repr(application),
            ),
            address=address,
        )
    if version > schema.SCHEMA_VERSION:
        raise SharedStoreError(
            StoreProblem.SCHEMA_NEWER,
            Words(
                QT_TRANSLATE_NOOP(
                    "SharedStore",
                    "the shared store ({where}) has schema version {version}, written by a newer "
                    "checkout-desktop (this one knows up to {known}); upgrade this terminal — "
                    "nothing in the store was changed",
                ),
                where=address.described(),
                version=version,
                known=schema.SCHEMA_VERSION,
            ),
            address=address,
        )
    return version


def check_version(conn: psycopg.Connection[Any], address: StoreAddress) -> int:
    """The store's schema version; refuses a newer or foreign one. Writes nothing."""
    found = _schema_row(conn)
    tables = _foreign_tables(conn) if found is None else 0
    version = _refuse(address, found, tables)
    if not conn.autocommit:
        conn.rollback()
    return version


def migrate(conn: psycopg.Connection[Any], address: StoreAddress) -> int:
    """Apply every missing step in one transaction (all or none); refuse a newer schema.

    The version is read first without a lock (the common case: nothing to do); migrating
    takes an advisory lock, so counters starting together migrate once, one after the other.
    """
    if check_version(conn, address) == schema.SCHEMA_VERSION:
        return schema.SCHEMA_VERSION
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
        found = _schema_row(conn)
        tables = _foreign_tables(conn) if found is None else 0
        current = _refuse(address, found, tables)
        if found is None:
            conn.execute(schema.SCHEMA_TABLE)
            conn.execute(
                "INSERT INTO checkout_schema (id, application, version) VALUES (1, %s, 0)",
                (schema.APPLICATION,),
            )
        for version, description, script in schema.MIGRATIONS:
            if version <= current:
                continue
            logger.info(
                "shared store %s: migrating to schema %d (%s)", address, version, description
            )
            if isinstance(script, str):
                conn.execute(script.encode())
            else:
                script(conn)
            conn.execute(
                "UPDATE checkout_schema SET version = %s, migrated_at = now() WHERE id = 1",
                (version,),
            )
            current = version
        _ensure_search_index(conn, address)
    return current


def _ensure_search_index(conn: psycopg.Connection[Any], address: StoreAddress) -> bool:
    """The trigram index where the server has pg_trgm; without it searches scan."""
    import psycopg

    try:
        with conn.transaction():
            conn.execute(schema.SEARCH_EXTENSION)
            conn.execute(schema.SEARCH_INDEX)
    except psycopg.Error as exc:
        logger.warning(
            "shared store %s: no trigram search index (%s); event searches will scan",
            address,
            " ".join(str(exc).split()),
        )
        return False
    return True


def has_search_index(conn: psycopg.Connection[Any]) -> bool:
    cursor = conn.execute("SELECT to_regclass('webhook_event_search') IS NOT NULL")
    row = cursor.fetchone()
    return bool(row and row[0])


__all__ = [
    "SharedStoreError",
    "StoreProblem",
    "check_version",
    "connect",
    "connect_kwargs",
    "describe_error",
    "keychain_password",
    "migrate",
    "open_pool",
    "save_password",
]
