"""The shared store on a real PostgreSQL: schema and migrations, durable sessions, plain errors."""

from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import quote

import psycopg
import pytest
from pydantic import SecretStr

from checkout_desktop.store.postgres import db, schema
from checkout_desktop.store.postgres.address import StoreAddress
from checkout_desktop.store.postgres.db import SharedStoreError, StoreProblem
from tests.conftest import MemoryKeyring

pytestmark = pytest.mark.pg

PASSWORD = "s3nha-da-loja-42"
TABLES = {
    "charge",
    "charge_attempt",
    "charge_sweep",
    "charge_timeline",
    "charge_transaction",
    "checkout_schema",
    "customer",
    "customer_name",
    "inbox_holder",
    "money_operation",
    "three_ds_flow",
    "shop_counter",
    "shop_setting",
    "webhook_event",
}


def _address(url: str) -> StoreAddress:
    """The test database as a store address (the superuser: no password over the socket)."""
    return StoreAddress.parse(url)


@pytest.fixture
def shop_role(pg_url: str) -> StoreAddress:
    """A login role with a password owning the test database, as a shop's would be."""
    with psycopg.connect(pg_url, autocommit=True) as admin:
        dbname = admin.execute("SELECT current_database()").fetchone()
        assert dbname is not None
        role = f"shop_{dbname[0]}"
        admin.execute(f"CREATE ROLE {role} LOGIN PASSWORD '{PASSWORD}'")
        admin.execute(f'ALTER DATABASE "{dbname[0]}" OWNER TO {role}')
        admin.execute(f"GRANT ALL ON SCHEMA public TO {role}")
    superuser = _address(pg_url)
    host = superuser.host
    return StoreAddress.parse(
        f"postgresql:///{superuser.dbname}?host={quote(host, safe='')}&user={role}"
    )


def _tables(url: str) -> set[str]:
    with psycopg.connect(url) as conn:
        cursor = conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
        return {str(r[0]) for r in cursor.fetchall()}


def test_a_new_database_gets_the_whole_schema_once(pg_url: str) -> None:
    address = _address(pg_url)
    conn = db.connect(address, None)
    try:
        cursor = conn.execute("SELECT application, version FROM checkout_schema")
        assert cursor.fetchall() == [(schema.APPLICATION, schema.SCHEMA_VERSION)]
        assert db.has_search_index(conn)
    finally:
        conn.close()
    assert _tables(pg_url) == TABLES
    again = db.connect(address, None)
    again.close()
    assert _tables(pg_url) == TABLES


def test_counters_starting_together_migrate_once(pg_url: str) -> None:
    address = _address(pg_url)
    with ThreadPoolExecutor(4) as pool:
        conns = list(pool.map(lambda _: db.connect(address, None), range(4)))
    for conn in conns:
        conn.close()
    assert _tables(pg_url) == TABLES


def test_commits_are_durable_whatever_the_database_default(pg_url: str) -> None:
    with psycopg.connect(pg_url, autocommit=True) as admin:
        name = admin.execute("SELECT current_database()").fetchone()
        assert name is not None
        admin.execute(f'ALTER DATABASE "{name[0]}" SET synchronous_commit = off')
    with psycopg.connect(pg_url) as plain:
        assert plain.execute("SHOW synchronous_commit").fetchone() == ("off",)
    conn = db.connect(_address(pg_url), None)
    try:
        cursor = conn.execute("SHOW synchronous_commit")
        assert cursor.fetchone() == ("on",)
    finally:
        conn.close()
    pool = db.open_pool(_address(pg_url), None, min_size=2, max_size=2)
    try:
        for _ in range(3):
            with pool.connection() as pooled:
                cursor = pooled.execute("SHOW synchronous_commit")
                assert cursor.fetchone() == ("on",)
    finally:
        pool.close()


def test_a_newer_schema_is_refused_and_left_untouched(pg_url: str) -> None:
    conn = db.connect(_address(pg_url), None)
    conn.close()
    with psycopg.connect(pg_url, autocommit=True) as admin:
        admin.execute("UPDATE checkout_schema SET version = 99")
        admin.execute("CREATE TABLE from_the_future (x int)")
    with pytest.raises(SharedStoreError) as caught:
        db.connect(_address(pg_url), None)
    assert caught.value.problem is StoreProblem.SCHEMA_NEWER
    assert "schema version 99" in str(caught.value)
    assert "upgrade" in str(caught.value)
    with psycopg.connect(pg_url, autocommit=True) as admin:
        assert admin.execute("SELECT version FROM checkout_schema").fetchone() == (99,)
    assert _tables(pg_url) == TABLES | {"from_the_future"}


def test_another_programs_database_is_refused(pg_url: str) -> None:
    with psycopg.connect(pg_url, autocommit=True) as admin:
        admin.execute("CREATE TABLE invoices (x int)")
    with pytest.raises(SharedStoreError) as caught:
        db.connect(_address(pg_url), None)
    assert caught.value.problem is StoreProblem.FOREIGN
    assert _tables(pg_url) == {"invoices"}


def test_the_password_from_the_keychain_logs_in(
    shop_role: StoreAddress, memory_keyring: MemoryKeyring
) -> None:
    db.save_password(shop_role, SecretStr(PASSWORD))
    assert memory_keyring.entries == {
        ("checkout-desktop", f"{shop_role.keychain_key}/store_password"): PASSWORD
    }
    conn = db.connect(shop_role, db.keychain_password(shop_role))
    try:
        cursor = conn.execute("SELECT current_user")
        assert cursor.fetchone() == (shop_role.user,)
    finally:
        conn.close()


def test_a_wrong_password_is_a_credentials_problem_that_never_shows_it(
    shop_role: StoreAddress, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    wrong = "n4o-e-esta-senha"
    with pytest.raises(SharedStoreError) as caught:
        db.connect(shop_role, SecretStr(wrong))
    assert caught.value.problem is StoreProblem.CREDENTIALS
    assert "password" in str(caught.value)
    assert wrong not in str(caught.value)
    assert caught.value.__cause__ is None
    assert caught.value.__suppress_context__
    assert wrong not in caplog.text


def test_no_password_in_the_keychain_says_how_to_store_one(
    shop_role: StoreAddress, memory_keyring: MemoryKeyring
) -> None:
    with pytest.raises(SharedStoreError) as caught:
        db.connect(shop_role, db.keychain_password(shop_role))
    assert caught.value.problem is StoreProblem.PASSWORD_MISSING
    assert "store password" in str(caught.value)


def test_a_server_that_is_not_there_is_unreachable(tmp_path: Path) -> None:
    address = StoreAddress.parse(
        f"postgresql:///caixa?host={quote(str(tmp_path), safe='')}&user=loja"
    )
    with pytest.raises(SharedStoreError) as caught:
        db.connect(address, SecretStr(PASSWORD))
    assert caught.value.problem is StoreProblem.UNREACHABLE
    assert "does not answer" in str(caught.value)
    assert PASSWORD not in str(caught.value)


def test_a_missing_database_says_how_to_create_it(pg_url: str) -> None:
    address = _address(pg_url)
    missing = StoreAddress.parse(address.url().replace(f"/{address.dbname}?", "/nao_existe?"))
    with pytest.raises(SharedStoreError) as caught:
        db.connect(missing, None)
    assert caught.value.problem is StoreProblem.NO_DATABASE
    assert "createdb" in str(caught.value)


def test_the_role_owning_the_database_migrates_it_without_superuser(
    shop_role: StoreAddress,
) -> None:
    conn = db.connect(shop_role, SecretStr(PASSWORD))
    try:
        cursor = conn.execute("SELECT rolsuper FROM pg_roles WHERE rolname = current_user")
        assert cursor.fetchone() == (False,)
        # pg_trgm is a trusted extension: the owner gets the search index too.
        assert db.has_search_index(conn)
    finally:
        conn.close()
