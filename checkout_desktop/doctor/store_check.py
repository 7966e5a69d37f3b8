"""Choosing the shop's shared store in Settings and the wizard: its address from the form's
fields, its password into the keychain, and a test that connects without changing anything."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from urllib.parse import quote

from pydantic import SecretStr

from checkout_desktop.secrets import KeychainUnavailable, SecretStore
from checkout_desktop.store.errors import (
    ForeignStore,
    SchemaTooNew,
    StoreCorrupt,
    StoreError,
    StoreNotWritable,
)
from checkout_desktop.store.postgres import db
from checkout_desktop.store.postgres.address import (
    DEFAULT_PORT,
    SSL_MODES,
    HostProblem,
    StoreAddress,
    StoreAddressError,
    StoreHostError,
    host_problem,
    is_ipv6,
)
from checkout_desktop.store.postgres.db import SharedStoreError, StoreProblem

logger = logging.getLogger(__name__)

DEFAULT_SSL_MODE = "prefer"


@dataclass(frozen=True)
class StoreFields:
    """What the form holds about the shared store (never its password)."""

    host: str
    port: int
    database: str
    user: str
    sslmode: str = DEFAULT_SSL_MODE

    @classmethod
    def of_url(cls, url: str | None) -> StoreFields:
        """The fields of a stored address (empty ones for none, or one that does not parse)."""
        if url:
            try:
                address = StoreAddress.parse(url)
            except StoreAddressError:
                logger.warning("the shared store's address in settings cannot be read")
            else:
                return cls(
                    host=address.get("host") or address.get("hostaddr") or "",
                    port=address.port,
                    database=address.dbname,
                    user=address.user,
                    sslmode=address.get("sslmode") or DEFAULT_SSL_MODE,
                )
        return cls(host="", port=DEFAULT_PORT, database="", user="")

    def problems(self) -> list[str]:
        """Which fields are missing (their English names; the form says them its own way)."""
        return [
            name
            for name, value in (
                ("host", self.host),
                ("database", self.database),
                ("user", self.user),
            )
            if not value.strip()
        ]

    def host_problem(self) -> HostProblem | None:
        """What keeps the Server field from being a server's name, an IP address or a socket
        folder (a user and password typed into it, say); None when it is one, or empty."""
        return host_problem(self.host.strip())

    def url(self) -> str:
        """The address as settings keep it; StoreAddressError when it is not a valid one
        (StoreHostError for the server's name, whose text it never repeats)."""
        if self.sslmode not in SSL_MODES:
            raise StoreAddressError(f"sslmode {self.sslmode!r} is not one of {SSL_MODES}")
        problem = self.host_problem()
        if problem is not None:
            raise StoreHostError(problem)
        host = self.host.strip()
        if host.startswith("[") and host.endswith("]"):
            host = host[1:-1]
        query = [f"sslmode={self.sslmode}"]
        netloc_host = host
        if host.startswith("/"):
            # A Unix socket folder travels as a parameter, not in the URL's host part.
            query.append(f"host={quote(host, safe='')}")
            netloc_host = ""
        elif is_ipv6(host):
            netloc_host = f"[{host}]"
        text = (
            f"postgresql://{quote(self.user.strip(), safe='')}@{netloc_host}:{int(self.port)}/"
            f"{quote(self.database.strip(), safe='')}?{'&'.join(query)}"
        )
        return StoreAddress.parse(text).url()


@dataclass(frozen=True)
class StoreTest:
    """What testing the shared store found; `problem` is a `StoreProblem` value when it failed."""

    ok: bool
    problem: str | None = None
    detail: str = ""
    server_version: str = ""
    schema_version: int = 0
    tls: bool = False


def _try(address: StoreAddress, password: SecretStr | None) -> StoreTest:
    conn = db.connect(address, password, migrate_schema=False)
    try:
        row = conn.execute("SHOW server_version").fetchone()
        version = db.check_version(conn, address)
        return StoreTest(
            ok=True,
            server_version="" if row is None else str(row[0]),
            schema_version=version,
            tls=bool(conn.pgconn.ssl_in_use),
        )
    finally:
        conn.close()


async def try_store(url: str, password: SecretStr | None) -> StoreTest:
    """Connect to the shared store as this terminal would, and read its schema version; writes
    nothing (a new database gets its tables at the terminal's next start)."""
    try:
        address = StoreAddress.parse(url)
    except StoreAddressError as exc:
        return StoreTest(ok=False, problem="address", detail=str(exc))
    try:
        return await asyncio.to_thread(_try, address, password)
    except db.SharedStoreError as exc:
        return StoreTest(ok=False, problem=exc.problem.value, detail=str(exc))
    except StoreError as exc:
        return StoreTest(ok=False, problem="refused", detail=str(exc))


def saved_password(url: str, secrets: SecretStore) -> SecretStr | None:
    """The password the keychain keeps for the store at `url` (None: none, or no keychain)."""
    try:
        return db.keychain_password(StoreAddress.parse(url), secrets)
    except (StoreAddressError, KeychainUnavailable):
        return None


def keep_password(url: str, password: SecretStr, secrets: SecretStore) -> None:
    """Keep the store's password in the OS keychain (KeychainUnavailable says why not)."""
    db.save_password(StoreAddress.parse(url), password, secrets)


# The window names the store's problems through this module, never the store itself
# (tests/unit/test_layering.py): the errors it words are re-exported here.
__all__ = [
    "DEFAULT_SSL_MODE",
    "SSL_MODES",
    "ForeignStore",
    "HostProblem",
    "SchemaTooNew",
    "SharedStoreError",
    "StoreAddressError",
    "StoreCorrupt",
    "StoreError",
    "StoreFields",
    "StoreNotWritable",
    "StoreProblem",
    "StoreTest",
    "keep_password",
    "saved_password",
    "try_store",
]
