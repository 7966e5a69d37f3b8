"""Secrets live only in the keychain: refused backends, clear errors, redaction on fetch."""

from __future__ import annotations

import keyring
import keyring.backends.fail
import keyring.backends.null
import pytest
from pydantic import SecretStr

from checkout_desktop.logsetup import redact
from checkout_desktop.secrets import (
    SERVICE_NAME,
    FixedCredentials,
    KeychainCredentials,
    KeychainUnavailable,
    SecretMissing,
    SecretName,
    SecretStore,
)
from tests.conftest import MemoryKeyring


def test_round_trip_and_redaction(memory_keyring: MemoryKeyring) -> None:
    store = SecretStore()
    store.set("production", SecretName.CLIENT_SECRET, SecretStr("Sup3rSecretValue"))
    assert memory_keyring.entries == {
        (SERVICE_NAME, "production/client_secret"): "Sup3rSecretValue"
    }
    value = store.require("production", SecretName.CLIENT_SECRET)
    assert value.get_secret_value() == "Sup3rSecretValue"
    assert "Sup3rSecretValue" not in repr(value)
    assert redact("secret is Sup3rSecretValue here") == "secret is [secret] here"
    assert store.delete("production", SecretName.CLIENT_SECRET) is True
    assert store.delete("production", SecretName.CLIENT_SECRET) is False
    assert store.get("production", SecretName.CLIENT_SECRET) is None


def test_missing_secret_says_what_to_do(memory_keyring: MemoryKeyring) -> None:
    credentials = KeychainCredentials(SecretStore(), "production")
    with pytest.raises(SecretMissing, match=r"webhook authentication token.*Settings"):
        credentials.webhook_token()


def test_empty_secret_is_refused(memory_keyring: MemoryKeyring) -> None:
    with pytest.raises(ValueError, match="empty"):
        SecretStore().set("p", SecretName.WEBHOOK_TOKEN, "   ")
    assert memory_keyring.entries == {}


@pytest.mark.parametrize(
    "backend", [keyring.backends.fail.Keyring(), keyring.backends.null.Keyring()]
)
def test_unusable_backends_are_refused_with_guidance(
    backend: keyring.backend.KeyringBackend,
) -> None:
    previous = keyring.get_keyring()
    keyring.set_keyring(backend)
    try:
        with pytest.raises(KeychainUnavailable, match="gnome-keyring"):
            SecretStore().get("production", SecretName.CLIENT_SECRET)
    finally:
        keyring.set_keyring(previous)


def test_fixed_credentials_are_the_public_sandbox_values() -> None:
    creds = FixedCredentials(SecretStr("a"), SecretStr("b"), SecretStr("c"))
    assert (creds.client_secret().get_secret_value(), creds.webhook_token().get_secret_value()) == (
        "a",
        "c",
    )


@pytest.mark.keychain
def test_real_keychain_round_trip(real_keyring: keyring.backend.KeyringBackend) -> None:
    store = SecretStore(real_keyring)
    store.set("ci-profile", SecretName.SDK_MERCHANT_TOKEN, "tk_realKeychainValue1")
    try:
        credentials = KeychainCredentials(store, "ci-profile")
        assert credentials.sdk_merchant_token().get_secret_value() == "tk_realKeychainValue1"
    finally:
        assert store.delete("ci-profile", SecretName.SDK_MERCHANT_TOKEN)
    assert store.get("ci-profile", SecretName.SDK_MERCHANT_TOKEN) is None
