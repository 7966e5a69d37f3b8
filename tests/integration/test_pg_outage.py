"""The shop's shared store goes down and comes back: the first read after it answers, and a
counter that was not listening learns every charge another counter changed meanwhile."""

from __future__ import annotations

import asyncio
import time

import psycopg
import pytest
from psycopg.conninfo import conninfo_to_dict

from checkout_desktop.store.postgres.address import StoreAddress
from checkout_desktop.store.postgres.store import PgStore

pytestmark = pytest.mark.pg

HANG_S = 60.0  # a bound on a hang, never a speed claim
OTHER_COUNTER = "caixa-2"
"""The application name of the counter whose connections a partial cut keeps."""


def cut(pg_url: str, *, allowed: bool, keep: str | None = None) -> None:
    """The shop's database stops taking connections and drops the open ones (the server went
    down under the counter, or its network did), or takes them again. `keep` names the
    application whose open connections stay (a counter that kept its network)."""
    dbname = str(conninfo_to_dict(pg_url)["dbname"])
    admin_url = pg_url.replace(f"/{dbname}?", "/postgres?")
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(f'ALTER DATABASE "{dbname}" ALLOW_CONNECTIONS {str(allowed).lower()}')
        if not allowed:
            admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = %s AND application_name IS DISTINCT FROM %s",
                (dbname, keep),
            )


async def until(predicate: object, what: str, timeout_s: float = HANG_S) -> None:
    deadline = time.monotonic() + timeout_s
    while not predicate():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.05)


@pytest.mark.asyncio
async def test_the_first_read_after_the_store_answers_again_is_answered(pg_url: str) -> None:
    """The pool's connections died with the server: none of them is lent out again."""
    address = StoreAddress.parse(pg_url)
    store = await PgStore.open(address, None)
    try:
        # Every pooled connection in use once, so that the pool holds several.
        await asyncio.gather(*(store.events.latest_id() for _ in range(4)))
        cut(pg_url, allowed=False)
        cut(pg_url, allowed=True)
        for _ in range(4):
            assert await store.events.latest_id() == 0
    finally:
        await store.close()
