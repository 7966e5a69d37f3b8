"""The shared store's address: checked, printable, and never holding a password."""

from __future__ import annotations

import pytest
from pydantic import SecretStr

from checkout_desktop.store.postgres.address import (
    StoreAddress,
    StoreAddressError,
    is_store_url,
)
from checkout_desktop.store.postgres.db import connect_kwargs


def test_a_url_with_tls_is_kept_as_given() -> None:
    address = StoreAddress.parse(
        "postgresql://loja@db.example.test:6543/caixa?sslmode=verify-full&sslrootcert=/etc/ca.pem"
    )
    assert address.user == "loja"
    assert address.host == "db.example.test"
    assert address.port == 6543
    assert address.dbname == "caixa"
    assert address.get("sslmode") == "verify-full"
    assert address.url() == (
        "postgresql://loja@db.example.test:6543/caixa"
        "?sslmode=verify-full&sslrootcert=%2Fetc%2Fca.pem"
    )
    assert StoreAddress.parse(address.url()) == address
    assert address.keychain_key == "store:loja@db.example.test:6543/caixa"


def test_a_socket_folder_round_trips_as_a_parameter() -> None:
    address = StoreAddress.parse("postgresql:///caixa?host=%2Ftmp%2Fsock&user=loja")
    assert address.host == "/tmp/sock"
    assert address.port == 5432
    assert StoreAddress.parse(address.url()) == address
    assert address.keychain_key == "store:loja@/tmp/sock:5432/caixa"


@pytest.mark.parametrize(
    "url",
    [
        "postgresql://loja:s3nha-secreta@db.example.test/caixa",
        "postgresql://loja@db.example.test/caixa?password=s3nha-secreta",
        "postgresql://loja@db.example.test/caixa?passfile=/home/loja/s3nha-secreta",
    ],
)
def test_an_address_carrying_a_secret_is_refused_without_repeating_it(url: str) -> None:
    with pytest.raises(StoreAddressError, match="keychain") as caught:
        StoreAddress.parse(url)
    assert "s3nha-secreta" not in str(caught.value)


@pytest.mark.parametrize(
    ("url", "words"),
    [
        ("postgresql://loja@db.example.test/caixa?sslmode=always", "sslmode"),
        ("postgresql://db.example.test/caixa", "no user"),
        ("postgresql://loja@db.example.test/", "no database"),
        ("postgresql://loja@db.example.test/caixa?options=-c%20x", "does not use"),
        ("mysql://loja@db.example.test/caixa", "postgresql://"),
        ("postgresql://loja@db.example.test:99999/caixa", "port"),
    ],
)
def test_a_bad_address_says_what_to_change(url: str, words: str) -> None:
    with pytest.raises(StoreAddressError, match=words):
        StoreAddress.parse(url)


def test_only_postgresql_urls_name_a_shared_store() -> None:
    assert is_store_url("postgresql://loja@h/caixa")
    assert is_store_url("  postgres://loja@h/caixa")
    assert not is_store_url("/home/loja/checkout.sqlite3")


def test_the_password_reaches_libpq_only_as_an_argument() -> None:
    address = StoreAddress.parse("postgresql://loja@db.example.test/caixa?sslmode=require")
    kwargs = connect_kwargs(address, SecretStr("s3nha-secreta"))
    assert kwargs["password"] == "s3nha-secreta"
    assert kwargs["sslmode"] == "require"
    assert "s3nha-secreta" not in address.url()
    assert "s3nha-secreta" not in repr(address)
    assert "password" not in connect_kwargs(address, None)


@pytest.mark.parametrize(
    "host",
    [
        "caixa:DBPASS_SEGREDO_444@servidor-da-loja",
        "caixa@servidor-da-loja",
        "servidor da loja",
        "servidor/loja",
        "servidor-da-loja:5432",
        "caixa:DBPASS_SEGREDO_444@/tmp/pg",
    ],
)
def test_a_server_field_holding_more_than_a_host_is_refused_without_echoing_it(
    host: str,
) -> None:
    from checkout_desktop.doctor.store_check import StoreFields

    fields = StoreFields(host=host, port=5432, database="loja4", user="caixa")
    with pytest.raises(StoreAddressError) as caught:
        fields.url()
    assert "DBPASS" not in str(caught.value) and host not in str(caught.value)
    assert fields.host_problem() is not None


def test_a_url_whose_host_hides_a_password_is_refused() -> None:
    # What an earlier version wrote into settings.json for "user:password@server".
    with pytest.raises(StoreAddressError) as caught:
        StoreAddress.parse(
            "postgresql://caixa@[caixa:DBPASS_SEGREDO_444@servidor-da-loja]:5432/loja4"
        )
    assert "DBPASS" not in str(caught.value)


@pytest.mark.parametrize(
    ("host", "netloc"),
    [
        ("::1", "[::1]"),
        ("fe80::1", "[fe80::1]"),
        ("[2001:db8::5]", "[2001:db8::5]"),
        ("192.168.0.10", "192.168.0.10"),
        ("servidor-da-loja", "servidor-da-loja"),
    ],
)
def test_ipv6_addresses_and_plain_names_are_accepted(host: str, netloc: str) -> None:
    from checkout_desktop.doctor.store_check import StoreFields

    fields = StoreFields(host=host, port=5432, database="loja4", user="caixa")
    assert fields.host_problem() is None
    assert fields.url().startswith(f"postgresql://caixa@{netloc}:5432/loja4")
