"""`checkout-desktop --store URL store …` against a real PostgreSQL, and --store elsewhere."""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime
from urllib.parse import quote

import psycopg
import pytest
from pydantic import SecretStr

from checkout_desktop import cli
from checkout_desktop.domain.deliveries import NewEvent
from checkout_desktop.domain.enums import Verdict
from checkout_desktop.store.postgres import db, schema
from checkout_desktop.store.postgres.address import StoreAddress
from checkout_desktop.store.postgres.events import PgEventRepository
from checkout_desktop.store.postgres.inbox_lock import InboxLock
from tests.conftest import MemoryKeyring

pytestmark = pytest.mark.pg

PASSWORD = "s3nha-do-caixa-7"


@pytest.fixture
def shop_url(pg_url: str) -> str:
    """The test database owned by a password-protected role; its address has no password."""
    with psycopg.connect(pg_url, autocommit=True) as admin:
        row = admin.execute("SELECT current_database()").fetchone()
        assert row is not None
        role = f"caixa_{row[0]}"
        admin.execute(f"CREATE ROLE {role} LOGIN PASSWORD '{PASSWORD}'")
        admin.execute(f'ALTER DATABASE "{row[0]}" OWNER TO {role}')
        admin.execute(f"GRANT ALL ON SCHEMA public TO {role}")
    superuser = StoreAddress.parse(pg_url)
    return f"postgresql:///{superuser.dbname}?host={quote(superuser.host, safe='')}&user={role}"


def test_password_is_kept_in_the_keychain_and_checked(
    shop_url: str,
    memory_keyring: MemoryKeyring,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(PASSWORD + "\n"))
    assert cli.main(["--store", shop_url, "store", "password"]) == 0
    out = capsys.readouterr()
    assert "kept in the OS keychain" in out.out
    assert f"schema {schema.SCHEMA_VERSION}" in out.out
    assert "0 charges, 0 webhook deliveries" in out.out
    assert PASSWORD not in out.out + out.err
    assert list(memory_keyring.entries.values()) == [PASSWORD]

    assert cli.main(["--store", shop_url, "store", "check"]) == 0
    out = capsys.readouterr().out
    assert "trigram index" in out
    assert "inbox: no counter holds it" in out
    lock = InboxLock(StoreAddress.parse(shop_url), SecretStr(PASSWORD), counter="caixa-3")
    try:
        lock.try_take()
        assert cli.main(["--store", shop_url, "store", "check"]) == 0
        assert "inbox: held by caixa-3" in capsys.readouterr().out
    finally:
        lock.release()

    assert cli.main(["--store", shop_url, "store", "password", "--forget"]) == 0
    assert memory_keyring.entries == {}
    assert cli.main(["--store", shop_url, "store", "check"]) == 3
    err = capsys.readouterr().err
    assert "keychain holds none" in err
    assert "store password" in err


def test_a_wrong_password_is_tried_first_and_never_kept(
    shop_url: str,
    memory_keyring: MemoryKeyring,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(PASSWORD + "\n"))
    assert cli.main(["--store", shop_url, "store", "password"]) == 0
    capsys.readouterr()
    monkeypatch.setattr("sys.stdin", io.StringIO("errada-123\n"))
    assert cli.main(["--store", shop_url, "store", "password"]) == 3
    out = capsys.readouterr()
    assert "refused the login" in out.err
    assert "not kept" in out.err
    assert "kept in the OS keychain" not in out.out
    assert "errada-123" not in out.out + out.err
    # The password that works stays where it was.
    assert list(memory_keyring.entries.values()) == [PASSWORD]


def test_an_address_with_a_password_is_refused_before_anything_runs(
    memory_keyring: MemoryKeyring, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"postgresql://caixa:{PASSWORD}@db.example.test/loja"
    assert cli.main(["--store", url, "store", "check"]) == 2
    err = capsys.readouterr().err
    assert "keychain" in err
    assert PASSWORD not in err
    assert memory_keyring.entries == {}


def test_commands_that_do_not_read_the_shared_store_refuse_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert cli.main(["--store", "postgresql://caixa@db.example.test/loja", "doctor"]) == 2
    assert "--store is not supported by this command yet" in capsys.readouterr().err


def test_events_exports_the_shared_stores_deliveries(
    shop_url: str,
    memory_keyring: MemoryKeyring,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(PASSWORD + "\n"))
    assert cli.main(["--store", shop_url, "store", "password"]) == 0
    address = StoreAddress.parse(shop_url)
    with db.connect(address, SecretStr(PASSWORD), autocommit=True) as conn, conn.transaction():
        repo = PgEventRepository(conn)
        for n in range(3):
            body = f'{{"type": "PAYMENT", "n": {n}}}'.encode()
            repo.insert(
                NewEvent(
                    received_at=datetime(2026, 3, 1, 12, n, tzinfo=UTC),
                    verdict=Verdict.UNKNOWN,
                    body=body,
                    body_sha256=f"{n:064x}",
                    headers={},
                    merchant_charge_id=f"caixa2-{n}",
                )
            )
    capsys.readouterr()
    assert cli.main(["--store", shop_url, "events", "--format", "jsonl"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [json.loads(line)["merchant_charge_id"] for line in lines] == [
        "caixa2-0",
        "caixa2-1",
        "caixa2-2",
    ]
    monkeypatch.setattr(db, "keychain_password", lambda *a: SecretStr("errada-123"))
    assert cli.main(["--store", shop_url, "events"]) == 3
    assert "refused the login" in capsys.readouterr().err
