"""Fault settings of the REST side (latency, error rate, token expiry) and the admin controls."""

from __future__ import annotations

import asyncio
import logging

import httpx
import pytest

from checkout_desktop.domain.enums import ChargeStatus
from checkout_desktop.sandbox.api import ADMIN_HEADER
from checkout_desktop.sandbox.faults import FaultSettings
from checkout_desktop.sandbox.server import SandboxServer
from tests.integration.test_sandbox_fixtures import (
    Api,
    SdkClient,
    access_token,
    charge_body,
    fast_config,
)

pytest_plugins = ["tests.integration.test_sandbox_fixtures"]

logger = logging.getLogger(__name__)


async def status_sequence(seed: int, count: int, http: httpx.AsyncClient) -> list[int]:
    config = fast_config(faults=FaultSettings(error_rate=0.5, seed=seed))
    async with SandboxServer(config) as server:
        return [
            (await http.get(f"{server.base_url}/api/v1/charge/abcdef")).status_code
            for _ in range(count)
        ]


@pytest.mark.asyncio
async def test_error_rate_is_deterministic_for_a_seed(http: httpx.AsyncClient) -> None:
    first = await status_sequence(7, 30, http)
    second = await status_sequence(7, 30, http)
    other = await status_sequence(8, 30, http)
    assert first == second
    # Without a token, a request that is not failed by the fault is a 401.
    assert set(first) == {500, 401}
    assert first != other


@pytest.mark.asyncio
async def test_error_rate_one_fails_everything_and_creates_nothing(
    api: Api, sdk: SdkClient
) -> None:
    token = await sdk.tokenize("4111111111111111")
    api.server.faults.error_rate = 1.0
    body = charge_body(token)
    response = await api.authorize(body)
    assert response.status_code == 500
    assert "injected" in response.json()["message"]
    token_reply = await api.client.post(
        api.server.auth_url + "/oauth2/token", json={"grant_type": "client_credentials"}
    )
    assert token_reply.status_code == 500
    assert token_reply.json()["error"] == "server_error"
    api.server.faults.error_rate = 0.0
    assert api.server.state.charges == {}
    # The card token was not spent by the failed attempt.
    assert (await api.authorize(body)).status_code == 200


@pytest.mark.asyncio
async def test_reseeding_at_run_time_restarts_the_sequence(
    sandbox: SandboxServer, http: httpx.AsyncClient
) -> None:
    sandbox.faults.update(error_rate=0.5, seed=3)
    url = f"{sandbox.base_url}/api/v1/charge/abcdef"
    first = [(await http.get(url)).status_code for _ in range(12)]
    sandbox.faults.seed = 99
    third = [(await http.get(url)).status_code for _ in range(12)]
    sandbox.faults.seed = 3
    fourth = [(await http.get(url)).status_code for _ in range(12)]
    assert fourth == first
    assert third != first
    assert set(third) <= {401, 500}


@pytest.mark.asyncio
async def test_latency_delays_every_api_reply(
    sandbox: SandboxServer, http: httpx.AsyncClient, caplog: pytest.LogCaptureFixture
) -> None:
    sandbox.faults.latency_s = 0.4
    url = sandbox.auth_url + "/oauth2/token"
    with caplog.at_level(logging.INFO, logger="checkout_desktop.sandbox"):
        with pytest.raises(httpx.ReadTimeout):
            await http.post(url, json={}, timeout=httpx.Timeout(5.0, read=0.1))
        loop = asyncio.get_running_loop()
        started = loop.time()
        reply = await http.get(f"{sandbox.base_url}/api/v1/charge/abcdef")
    assert loop.time() - started >= 0.4
    assert reply.status_code == 401
    # The client that gave up is not a failure of the sandbox (and no error is logged for it).
    assert "the client went away during POST /oauth2/token" in caplog.text


@pytest.mark.asyncio
async def test_token_expiry_now_expires_tokens_once(api: Api, sdk: SdkClient) -> None:
    first_token = api.token
    api.server.faults.token_expiry_now = True
    response = await api.get("abcdef")
    assert response.status_code == 401
    assert "expired" in response.json()["message"]
    assert api.server.faults.token_expiry_now is False
    api.token = await access_token(api.client, api.server)
    assert api.token != first_token
    reply = await api.authorize(charge_body(await sdk.tokenize("4111111111111111")))
    assert reply.status_code == 200
    assert reply.json()["chargeStatus"] == ChargeStatus.PAID


@pytest.mark.asyncio
async def test_a_dropped_reply_field_leaves_the_services_replies_only(
    api: Api, sdk: SdkClient
) -> None:
    server = api.server
    admin = {ADMIN_HEADER: server.admin_token}
    changed = await api.client.patch(
        server.base_url + "/_sandbox/faults",
        json={"reply_drop_field": "chargeStatus"},
        headers=admin,
    )
    assert changed.status_code == 200
    # The sandbox's own controls keep every field.
    assert changed.json()["reply_drop_field"] == "chargeStatus"
    body = charge_body(await sdk.tokenize("4111111111111111"))
    reply = await api.authorize(body)
    assert reply.status_code == 200
    assert "chargeStatus" not in reply.json()
    assert reply.json()["merchantChargeId"] == body["merchantChargeId"]
    # The charge was made all the same; an error reply keeps its documented body.
    server.faults.reply_drop_field = ""
    assert (await api.get(body["merchantChargeId"])).json()["chargeStatus"] == ChargeStatus.PAID
    server.faults.reply_drop_field = "message"
    refused = await api.get("t-no-such-charge")
    assert refused.status_code >= 400
    assert "message" in refused.json()
    # The token endpoint's reply too.
    server.faults.reply_drop_field = "access_token"
    token_reply = await api.client.post(
        server.auth_url + "/oauth2/token",
        json={
            "grant_type": "client_credentials",
            "client_id": server.credentials.client_id,
            "client_secret": server.credentials.client_secret,
        },
    )
    assert token_reply.status_code == 200
    assert "access_token" not in token_reply.json()
    assert token_reply.json()["token_type"] == "Bearer"
    assert token_reply.headers["Cache-Control"] == "no-store"


@pytest.mark.asyncio
async def test_admin_controls(api: Api) -> None:
    server = api.server
    base = server.base_url + "/_sandbox"
    admin = {ADMIN_HEADER: server.admin_token}
    for method, path in (
        ("GET", "/faults"),
        ("PATCH", "/faults"),
        ("POST", "/tokens/expire"),
        ("GET", "/deliveries"),
    ):
        refused = await api.client.request(method, base + path, headers={ADMIN_HEADER: "wrong"})
        assert refused.status_code == 401, path
    current = await api.client.get(base + "/faults", headers=admin)
    assert current.json() == FaultSettings(webhook_reorder_window_s=0.3).as_dict()
    changed = await api.client.patch(
        base + "/faults", json={"latency_s": 0.01, "webhook_duplicate": True}, headers=admin
    )
    assert changed.status_code == 200
    assert server.faults.latency_s == 0.01
    assert server.faults.webhook_duplicate is True
    unknown = await api.client.patch(base + "/faults", json={"gremlins": 1}, headers=admin)
    assert unknown.status_code == 400
    assert "unknown fault setting(s) gremlins" in unknown.json()["message"]
    out_of_range = await api.client.patch(base + "/faults", json={"error_rate": 2}, headers=admin)
    assert out_of_range.status_code == 400
    assert server.faults.error_rate == 0.0
    expired = await api.client.post(base + "/tokens/expire", headers=admin)
    assert expired.json() == {"expired": 1}
    assert (await api.get("abcdef")).status_code == 401
