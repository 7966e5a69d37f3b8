"""The sandbox's OAuth token endpoint over real HTTP (spec 2.2, 2.3, 4.1)."""

from __future__ import annotations

import base64
import logging
from typing import Any

import httpx
import pytest

from checkout_desktop.domain.wire import OAuthErrorBody, TokenRequest, TokenResponse
from checkout_desktop.sandbox.server import SandboxServer
from tests.integration.test_sandbox_fixtures import Api, charge_body

pytest_plugins = ["tests.integration.test_sandbox_fixtures"]

logger = logging.getLogger(__name__)


def good_body(server: SandboxServer) -> dict[str, Any]:
    creds = server.credentials
    return {
        "grant_type": "client_credentials",
        "client_id": creds.client_id,
        "client_secret": creds.client_secret,
    }


def oauth_error(response: httpx.Response) -> OAuthErrorBody:
    assert response.headers["content-type"].startswith("application/json")
    return OAuthErrorBody.model_validate(response.json())


@pytest.mark.asyncio
async def test_token_reply_matches_the_spec(
    sandbox: SandboxServer, http: httpx.AsyncClient
) -> None:
    # The terminal's own request model produces a body the sandbox accepts.
    request = TokenRequest(
        client_id=sandbox.credentials.client_id,
        client_secret=sandbox.credentials.client_secret,  # type: ignore[arg-type]
    )
    response = await http.post(sandbox.auth_url + "/oauth2/token", json=request.to_wire())
    assert response.status_code == 200
    assert response.headers["Cache-Control"] == "no-store"
    reply = TokenResponse.model_validate(response.json())
    assert reply.expires_in == 300
    assert reply.token_type == "Bearer"
    assert reply.refresh_expires_in == 0
    assert reply.not_before_policy == 0
    assert "checkout.charge" in reply.scopes
    assert reply.merchant_document == sandbox.credentials.merchant_document
    assert len(reply.access_token.get_secret_value().split(".")) == 3
    assert sandbox.state.token_requests == 1


@pytest.mark.asyncio
async def test_every_token_is_different(sandbox: SandboxServer, http: httpx.AsyncClient) -> None:
    tokens = set()
    for _ in range(20):
        response = await http.post(sandbox.auth_url + "/oauth2/token", json=good_body(sandbox))
        tokens.add(TokenResponse.model_validate(response.json()).access_token.get_secret_value())
    assert len(tokens) == 20


@pytest.mark.asyncio
async def test_form_body_and_basic_credentials_are_accepted(
    sandbox: SandboxServer, http: httpx.AsyncClient
) -> None:
    url = sandbox.auth_url + "/oauth2/token"
    form = await http.post(url, data=good_body(sandbox))
    assert form.status_code == 200
    creds = sandbox.credentials
    basic = base64.b64encode(f"{creds.client_id}:{creds.client_secret}".encode()).decode()
    response = await http.post(
        url, json={"grant_type": "client_credentials"}, headers={"Authorization": f"Basic {basic}"}
    )
    assert response.status_code == 200


@pytest.mark.asyncio
@pytest.mark.parametrize(
    "changes",
    [
        {"client_secret": "wrong_secret"},
        {"client_id": "someone-else"},
        {"client_id": "SANDBOX-TERMINAL"},
    ],
)
async def test_bad_credentials_are_401(
    sandbox: SandboxServer, http: httpx.AsyncClient, changes: dict[str, str]
) -> None:
    response = await http.post(
        sandbox.auth_url + "/oauth2/token", json={**good_body(sandbox), **changes}
    )
    assert response.status_code == 401
    assert oauth_error(response).error == "invalid_client"
    assert "WWW-Authenticate" in response.headers


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("changes", "error", "text"),
    [
        ({"grant_type": "password"}, "unsupported_grant_type", "client_credentials"),
        ({"grant_type": None}, "invalid_request", "grant_type is required"),
        ({"client_id": ""}, "invalid_request", "client_id is required"),
        ({"client_secret": None}, "invalid_request", "client_secret is required"),
        ({"client_id": "with space"}, "invalid_request", "client_id has characters"),
        ({"client_secret": "dash-not-allowed"}, "invalid_request", "client_secret has characters"),
        ({"client_id": 12345}, "invalid_request", "client_id must be a string"),
        ({"client_secret": ["a"]}, "invalid_request", "client_secret must be a string"),
        ({"audience": "x"}, "invalid_request", "unknown field(s): audience"),
    ],
)
async def test_bad_bodies_are_400(
    sandbox: SandboxServer, http: httpx.AsyncClient, changes: dict[str, Any], error: str, text: str
) -> None:
    body = {**good_body(sandbox), **changes}
    body = {k: v for k, v in body.items() if v is not None}
    response = await http.post(sandbox.auth_url + "/oauth2/token", json=body)
    assert response.status_code == 400
    parsed = oauth_error(response)
    assert parsed.error == error
    assert text in parsed.describe()


@pytest.mark.asyncio
async def test_malformed_token_requests(sandbox: SandboxServer, http: httpx.AsyncClient) -> None:
    url = sandbox.auth_url + "/oauth2/token"
    json_type = {"Content-Type": "application/json"}
    for payload in (b"{", b"[]", b"null", b"", b"\x80abc"):
        response = await http.post(url, content=payload, headers=json_type)
        assert response.status_code == 400, payload
        assert oauth_error(response).error == "invalid_request"
    plain = await http.post(url, content=b"hello", headers={"Content-Type": "text/plain"})
    assert plain.status_code == 415
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    twice = await http.post(url, content=b"client_id=a&client_id=b", headers=form)
    assert twice.status_code == 400
    wrong_method = await http.get(url)
    assert wrong_method.status_code == 405
    assert oauth_error(wrong_method).describe()


@pytest.mark.asyncio
async def test_configured_lifetime_and_expiry(http: httpx.AsyncClient) -> None:
    from tests.integration.test_sandbox_fixtures import fast_config

    async with SandboxServer(fast_config(token_lifetime_s=60)) as server:
        response = await http.post(server.auth_url + "/oauth2/token", json=good_body(server))
        assert response.json()["expires_in"] == 60
        api = Api(server, http, response.json()["access_token"])
        assert (await api.get("abcdef")).json()["businessCode"] == "CHARGE_NOT_FOUND"
        server.clock.advance(59)
        assert (await api.get("abcdef")).json()["businessCode"] == "CHARGE_NOT_FOUND"
        server.clock.advance(1)
        expired = await api.get("abcdef")
        assert expired.status_code == 401
        assert "expired" in expired.json()["message"]
        assert (await api.authorize(charge_body("card_t/abcdef"))).status_code == 401
