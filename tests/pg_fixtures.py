"""Fixtures for tests that need a real PostgreSQL server: one cluster per run, one database per test.

`pg_server` is the server's address. The test command (`scripts/test.sh`) starts a private
cluster and exports it as CHECKOUT_DESKTOP_TEST_PG; in a plain pytest run this fixture starts
one itself for the session. Either way a test that needs the server fails — never skips —
when it is not there: a green run must mean the PostgreSQL store was tested.
"""

from __future__ import annotations

import os
import secrets
import tempfile
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest

from tests import pg_cluster


def _check(url: str) -> str | None:
    """Why the server at `url` cannot be used, or None."""
    import psycopg

    try:
        with psycopg.connect(url, connect_timeout=10, autocommit=True) as conn:
            conn.execute("SELECT 1")
    except psycopg.Error as exc:
        return str(exc).strip()
    return None


@pytest.fixture(scope="session")
def pg_server() -> Iterator[str]:
    """The address of the test PostgreSQL server (its `postgres` database, as superuser)."""
    given = os.environ.get(pg_cluster.TEST_PG_ENV)
    if given:
        problem = _check(given)
        if problem is not None:
            pytest.fail(
                f"{pg_cluster.TEST_PG_ENV} is set but its server does not answer: {problem}"
            )
        yield given
        return
    root = Path(tempfile.mkdtemp(prefix="checkout-pg-"))
    try:
        cluster = pg_cluster.start(root)
    except (pg_cluster.ClusterError, OSError) as exc:
        pg_cluster.stop(root)
        pytest.fail(f"the test PostgreSQL server did not come up: {exc}")
    try:
        problem = _check(cluster.url)
        if problem is not None:
            pytest.fail(f"the test PostgreSQL server started but does not answer: {problem}")
        yield cluster.url
    finally:
        pg_cluster.stop(root)


def with_database(url: str, dbname: str) -> str:
    """`url` pointing at another database of the same server (as a libpq URL)."""
    from psycopg.conninfo import conninfo_to_dict

    params = conninfo_to_dict(url)
    params["dbname"] = dbname
    host = str(params.pop("host", ""))
    query = "&".join(f"{k}={quote(str(v), safe='')}" for k, v in params.items() if k != "dbname")
    return f"postgresql:///{dbname}?host={quote(host, safe='')}&{query}"


@pytest.fixture
def pg_url(pg_server: str) -> Iterator[str]:
    """A fresh, empty database for one test (dropped after it, connections and all)."""
    import psycopg

    name = "t_" + secrets.token_hex(6)
    with psycopg.connect(pg_server, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield with_database(pg_server, name)
    finally:
        with psycopg.connect(pg_server, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


SHOP_STORE_PASSWORD = "s3nha-certa-do-caixa"
"""The password of `shop_store`'s login role."""


@pytest.fixture
def shop_store(pg_url: str) -> str:
    """`pg_url`'s database owned by a login role that needs SHOP_STORE_PASSWORD, as the shop's
    address (which holds no password)."""
    import psycopg

    from checkout_desktop.store.postgres.address import StoreAddress

    with psycopg.connect(pg_url, autocommit=True) as admin:
        row = admin.execute("SELECT current_database()").fetchone()
        assert row is not None
        role = f"caixa_{row[0]}"
        admin.execute(f"CREATE ROLE {role} LOGIN PASSWORD '{SHOP_STORE_PASSWORD}'")
        admin.execute(f'ALTER DATABASE "{row[0]}" OWNER TO {role}')
    superuser = StoreAddress.parse(pg_url)
    return f"postgresql:///{superuser.dbname}?host={quote(superuser.host, safe='')}&user={role}"
