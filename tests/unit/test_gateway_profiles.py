"""Profiles to endpoints: built-in sandbox from the running sandbox, the service's hosts, custom."""

from __future__ import annotations

import logging
from dataclasses import dataclass

import pytest

from checkout_desktop.gateway.profiles import (
    Endpoints,
    ProfileError,
    client_id_of,
    resolve_endpoints,
    sandbox_credentials,
)
from checkout_desktop.settings import BUILTIN_SANDBOX, Profile, ProfileKind, default_profiles

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class RunningSandbox:
    api_url: str


@dataclass(frozen=True)
class SandboxCreds:
    client_id: str = "sandbox-terminal"
    client_secret: str = "sandbox_secret_1"
    transparent_token: str = "tk_abc"
    webhook_token: str = "wh_1"


def test_the_builtin_sandbox_takes_its_address_from_the_running_sandbox() -> None:
    profile = default_profiles()[BUILTIN_SANDBOX]
    endpoints = resolve_endpoints(profile, sandbox=RunningSandbox("http://127.0.0.1:43210/"))
    assert endpoints == Endpoints("http://127.0.0.1:43210", "http://127.0.0.1:43210")
    assert endpoints.token_url == "http://127.0.0.1:43210/oauth2/token"
    assert endpoints.api("charge/authorization") == (
        "http://127.0.0.1:43210/api/v1/charge/authorization"
    )
    with pytest.raises(ProfileError, match="start the sandbox first"):
        resolve_endpoints(profile)


def test_the_service_profiles_use_the_published_hosts() -> None:
    profiles = default_profiles()
    sandbox = resolve_endpoints(profiles["service-sandbox"])
    assert sandbox.token_url == "https://checkout-api-sandbox.picpay.com/oauth2/token"
    production = resolve_endpoints(profiles["production"])
    assert production.api("/charge/abc-123456") == (
        "https://checkout-api.picpay.com/api/v1/charge/abc-123456"
    )


def test_custom_profiles_need_a_base_url_and_default_the_auth_url_to_it() -> None:
    bare = Profile(name="mine", label="Mine", kind=ProfileKind.CUSTOM)
    with pytest.raises(ProfileError, match="has no base URL"):
        resolve_endpoints(bare)
    custom = Profile(
        name="mine", label="Mine", kind=ProfileKind.CUSTOM, base_url="https://api.example.com/"
    )
    assert resolve_endpoints(custom) == Endpoints(
        "https://api.example.com", "https://api.example.com"
    )
    split = Profile(
        name="split",
        label="Split",
        kind=ProfileKind.CUSTOM,
        base_url="https://api.example.com",
        auth_url="https://auth.example.com",
    )
    assert resolve_endpoints(split).token_url == "https://auth.example.com/oauth2/token"


def test_plain_http_is_refused_off_loopback() -> None:
    with pytest.raises(ProfileError, match="must be an https:// address"):
        Endpoints("http://api.example.com", "https://api.example.com")


def test_client_ids_and_sandbox_secrets() -> None:
    profiles = default_profiles()
    assert client_id_of(profiles[BUILTIN_SANDBOX], sandbox_client_id="sandbox-terminal") == (
        "sandbox-terminal"
    )
    with pytest.raises(ProfileError, match="has no client id"):
        client_id_of(profiles["production"])
    shop = profiles["production"].model_copy(update={"client_id": "shop-1"})
    assert client_id_of(shop) == "shop-1"
    creds = sandbox_credentials(SandboxCreds())
    assert creds.client_secret().get_secret_value() == "sandbox_secret_1"
    assert creds.sdk_merchant_token().get_secret_value() == "tk_abc"
    assert "sandbox_secret_1" not in repr(creds)
