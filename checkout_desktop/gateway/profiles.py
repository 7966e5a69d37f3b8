"""Turning a settings profile into the service's addresses (and, for the sandbox, its secrets)."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Protocol

from pydantic import SecretStr

from checkout_desktop.secrets import FixedCredentials
from checkout_desktop.settings import Profile, ProfileKind

logger = logging.getLogger(__name__)

TOKEN_PATH = "/oauth2/token"
API_PREFIX = "/api/v1"


class ProfileError(ValueError):
    """A profile that cannot be used as it is; the message says what to fill in."""


@dataclass(frozen=True)
class Endpoints:
    """Where the token server and the REST API of one environment live."""

    base_url: str
    auth_url: str

    def __post_init__(self) -> None:
        for name in ("base_url", "auth_url"):
            value = getattr(self, name)
            if not value.startswith(("https://", "http://127.0.0.1", "http://localhost")):
                raise ProfileError(
                    f"{name} {value!r} must be an https:// address (plain http only on loopback)"
                )
            object.__setattr__(self, name, value.rstrip("/"))

    @property
    def token_url(self) -> str:
        return self.auth_url + TOKEN_PATH

    def api(self, path: str) -> str:
        """The address of an API path such as `charge/authorization`."""
        return f"{self.base_url}{API_PREFIX}/{path.lstrip('/')}"


class SandboxCredentialsLike(Protocol):
    @property
    def client_id(self) -> str: ...

    @property
    def client_secret(self) -> str: ...

    @property
    def transparent_token(self) -> str: ...

    @property
    def webhook_token(self) -> str: ...


class RunningSandbox(Protocol):
    """What the gateway needs from a running built-in sandbox (in-process or a subprocess)."""

    @property
    def api_url(self) -> str: ...


def resolve_endpoints(profile: Profile, *, sandbox: RunningSandbox | None = None) -> Endpoints:
    """The addresses of a profile; the built-in sandbox's come from the running sandbox."""
    if profile.kind == ProfileKind.BUILTIN_SANDBOX:
        if sandbox is None:
            raise ProfileError(
                f"profile {profile.name!r} is the built-in sandbox, whose address is known only "
                "once it runs; start the sandbox first"
            )
        return Endpoints(base_url=sandbox.api_url, auth_url=sandbox.api_url)
    if not profile.base_url:
        raise ProfileError(
            f"profile {profile.name!r} has no base URL; set the service's API address "
            "(for example https://checkout-api-sandbox.picpay.com) in Settings → Profiles"
        )
    return Endpoints(base_url=profile.base_url, auth_url=profile.auth_url or profile.base_url)


def client_id_of(profile: Profile, *, sandbox_client_id: str | None = None) -> str:
    """The client id to use: the sandbox's own for the built-in sandbox, else the profile's."""
    if profile.kind == ProfileKind.BUILTIN_SANDBOX and sandbox_client_id:
        return sandbox_client_id
    if not profile.client_id:
        raise ProfileError(
            f"profile {profile.name!r} has no client id; copy it from the merchant panel "
            "(Integrations → Checkout) into Settings → Credentials"
        )
    return profile.client_id


def sandbox_credentials(
    credentials: SandboxCredentialsLike, sdk_credential: str = "transparent"
) -> FixedCredentials:
    """The built-in sandbox's public test secrets, kept in memory only (they protect nothing).

    The card SDK gets the transparent token, or the merchant token when the profile says so.
    """
    sdk_token = (
        str(getattr(credentials, "merchant_token"))  # noqa: B009 - only some sources have it
        if sdk_credential == "merchant"
        else credentials.transparent_token
    )
    return FixedCredentials(
        client_secret_value=SecretStr(credentials.client_secret),
        sdk_merchant_token_value=SecretStr(sdk_token),
        webhook_token_value=SecretStr(credentials.webhook_token),
    )


__all__ = [
    "Endpoints",
    "ProfileError",
    "RunningSandbox",
    "client_id_of",
    "resolve_endpoints",
    "sandbox_credentials",
]
