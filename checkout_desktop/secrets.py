"""The only module that touches the OS keychain: client secret, SDK token, webhook token."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Protocol

from pydantic import SecretStr

from checkout_desktop.logsetup import register_secret
from checkout_desktop.texts import QT_TRANSLATE_NOOP, WordedError, Words, translate

if TYPE_CHECKING:
    import keyring.backend

# keyring itself is imported at the first keychain access: loading it costs ~40 ms at every
# start, and the built-in sandbox profile never uses the keychain.

logger = logging.getLogger(__name__)

SERVICE_NAME = "checkout-desktop"
STORE_PASSWORD = "store_password"

_REFUSED_BACKENDS = ("keyring.backends.fail", "keyring.backends.null", "keyrings.alt")

KEYCHAIN_HELP = QT_TRANSLATE_NOOP(
    "Keychain",
    "checkout-desktop keeps its secrets only in the operating system's keychain and found none it "
    "can use. On Linux install and unlock a Secret Service provider (Debian/Ubuntu: "
    "`apt-get install gnome-keyring`, then log in to a desktop session, or run it under "
    "`dbus-run-session` with `gnome-keyring-daemon --unlock`); KWallet also works. Windows "
    "Credential Manager and the macOS Keychain work out of the box. Secrets are never written to "
    "a plain file.",
)


class SecretName(StrEnum):
    CLIENT_SECRET = "client_secret"
    SDK_MERCHANT_TOKEN = "sdk_merchant_token"
    WEBHOOK_TOKEN = "webhook_token"


_LABELS = {
    SecretName.CLIENT_SECRET: "the API client secret",
    SecretName.SDK_MERCHANT_TOKEN: "the card SDK's merchant token",
    SecretName.WEBHOOK_TOKEN: "the webhook authentication token",
}


def _secret_words(name: SecretName) -> str:
    """A secret's name in the owner's language (`_LABELS` names the keychain's items)."""
    if name is SecretName.CLIENT_SECRET:
        return translate("Keychain", "the API client secret")
    if name is SecretName.SDK_MERCHANT_TOKEN:
        return translate("Keychain", "the card SDK's merchant token")
    return translate("Keychain", "the webhook authentication token")


class KeychainUnavailable(WordedError, RuntimeError):
    """No usable keychain backend; the message says what to install or enable (English in
    `str()` and the logs, the owner's language in `shown()`), then the technical detail."""

    def __init__(self, detail: Words) -> None:
        super().__init__(
            Words(
                QT_TRANSLATE_NOOP("Keychain", "{help} ({detail})"),
                help=Words(KEYCHAIN_HELP),
                detail=detail,
            )
        )


class SecretMissing(LookupError):
    """A secret the current profile needs has not been entered yet."""

    def __init__(self, profile: str, name: SecretName) -> None:
        super().__init__(
            translate(
                "Keychain",
                "{secret} for profile {profile} is not in the keychain; enter it in Settings → "
                "Credentials (it is shown only once in the merchant panel)",
            ).format(secret=_secret_words(name), profile=repr(profile))
        )
        self.profile = profile
        self.name = name


def _check_backend(backend: keyring.backend.KeyringBackend) -> keyring.backend.KeyringBackend:
    module = type(backend).__module__
    if module.startswith(_REFUSED_BACKENDS):
        raise KeychainUnavailable(
            Words(
                QT_TRANSLATE_NOOP("Keychain", "backend found: {backend}"),
                backend=f"{module}.{type(backend).__name__}",
            )
        )
    chained = getattr(backend, "backends", None)
    if chained is not None and not chained:
        raise KeychainUnavailable(Words(QT_TRANSLATE_NOOP("Keychain", "no backend in the chain")))
    return backend


def _keychain_error(exc: Exception) -> KeychainUnavailable:
    return KeychainUnavailable(
        Words(QT_TRANSLATE_NOOP("Keychain", "keychain error: {error}"), error=type(exc).__name__)
    )


class SecretStore:
    """Reads and writes one profile's secrets; values come back as SecretStr and are redacted."""

    def __init__(self, backend: keyring.backend.KeyringBackend | None = None) -> None:
        self._backend = backend

    def backend(self) -> keyring.backend.KeyringBackend:
        if self._backend is None:
            import keyring

            self._backend = _check_backend(keyring.get_keyring())
        return self._backend

    @staticmethod
    def _account(profile: str, name: SecretName) -> str:
        return f"{profile}/{name.value}"

    def get(self, profile: str, name: SecretName) -> SecretStr | None:
        return self._get(self._account(profile, name))

    def _get(self, account: str) -> SecretStr | None:
        import keyring.errors

        try:
            value = self.backend().get_password(SERVICE_NAME, account)
        except keyring.errors.KeyringError as exc:
            raise _keychain_error(exc) from None
        if value is None:
            return None
        register_secret(value)
        return SecretStr(value)

    def require(self, profile: str, name: SecretName) -> SecretStr:
        value = self.get(profile, name)
        if value is None:
            raise SecretMissing(profile, name)
        return value

    def set(self, profile: str, name: SecretName, value: SecretStr | str) -> None:
        self._set(self._account(profile, name), _LABELS[name], value)
        logger.info("stored %s for profile %s in the keychain", _LABELS[name], profile)

    def _set(self, account: str, label: str, value: SecretStr | str) -> None:
        import keyring.errors

        plain = value.get_secret_value() if isinstance(value, SecretStr) else value
        if not plain.strip():
            raise ValueError(f"{label} is empty")
        register_secret(plain)
        try:
            self.backend().set_password(SERVICE_NAME, account, plain)
        except keyring.errors.KeyringError as exc:
            raise _keychain_error(exc) from None

    def delete(self, profile: str, name: SecretName) -> bool:
        return self._delete(self._account(profile, name))

    # The shared store's database password belongs to the store (its address), not to a
    # service profile: it is kept under "<address key>/store_password".

    def store_password(self, store_key: str) -> SecretStr | None:
        return self._get(f"{store_key}/{STORE_PASSWORD}")

    def set_store_password(self, store_key: str, value: SecretStr | str) -> None:
        self._set(f"{store_key}/{STORE_PASSWORD}", "the shared store's password", value)
        logger.info("stored the shared store's password in the keychain")

    def delete_store_password(self, store_key: str) -> bool:
        return self._delete(f"{store_key}/{STORE_PASSWORD}")

    def _delete(self, account: str) -> bool:
        import keyring.errors

        try:
            self.backend().delete_password(SERVICE_NAME, account)
        except keyring.errors.PasswordDeleteError:
            return False
        except keyring.errors.KeyringError as exc:
            raise _keychain_error(exc) from None
        return True


class Credentials(Protocol):
    """Where the charge service and the card page get secrets, at the moment of use."""

    def client_secret(self) -> SecretStr: ...

    def sdk_merchant_token(self) -> SecretStr: ...

    def webhook_token(self) -> SecretStr: ...


@dataclass(frozen=True)
class KeychainCredentials:
    """A real profile's secrets, read from the keychain each time they are needed."""

    store: SecretStore
    profile: str

    def client_secret(self) -> SecretStr:
        return self.store.require(self.profile, SecretName.CLIENT_SECRET)

    def sdk_merchant_token(self) -> SecretStr:
        return self.store.require(self.profile, SecretName.SDK_MERCHANT_TOKEN)

    def webhook_token(self) -> SecretStr:
        return self.store.require(self.profile, SecretName.WEBHOOK_TOKEN)


@dataclass(frozen=True)
class FixedCredentials:
    """The built-in sandbox's public test values: never stored, since they protect nothing."""

    client_secret_value: SecretStr
    sdk_merchant_token_value: SecretStr
    webhook_token_value: SecretStr

    def client_secret(self) -> SecretStr:
        return self.client_secret_value

    def sdk_merchant_token(self) -> SecretStr:
        return self.sdk_merchant_token_value

    def webhook_token(self) -> SecretStr:
        return self.webhook_token_value
