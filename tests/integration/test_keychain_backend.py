"""The test keychain is a real Secret Service, not a plaintext, null or failing stand-in."""

from __future__ import annotations

import logging
import uuid

import keyring
import keyring.backend
import keyring.errors
import pytest
from keyring.backends import SecretService

logger = logging.getLogger(__name__)

pytestmark = pytest.mark.keychain


def test_backend_is_secret_service(real_keyring: keyring.backend.KeyringBackend) -> None:
    assert type(real_keyring) is SecretService.Keyring
    assert keyring.get_keyring() is real_keyring
    assert SecretService.Keyring.priority >= 1  # viable, and preferred over file stores


def test_set_get_delete_round_trip(real_keyring: keyring.backend.KeyringBackend) -> None:
    service = f"checkout-desktop-test-{uuid.uuid4().hex}"
    secret = f"s3cr3t-{uuid.uuid4().hex}"
    assert keyring.get_password(service, "client_secret") is None

    keyring.set_password(service, "client_secret", secret)
    try:
        # A second backend instance talks to the daemon afresh, so this proves the secret
        # reached the keychain rather than sitting in a Python object.
        assert SecretService.Keyring().get_password(service, "client_secret") == secret
        assert keyring.get_password(service, "other-name") is None
    finally:
        keyring.delete_password(service, "client_secret")

    assert real_keyring.get_password(service, "client_secret") is None
    with pytest.raises(keyring.errors.PasswordDeleteError):
        keyring.delete_password(service, "client_secret")
