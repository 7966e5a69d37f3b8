"""A reply of the service that does not match the documented format is said in the clerk's
language (which field is missing or wrong), the token reply's as well; the parser's own English
stays in the reason's English text, for the log."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest

from checkout_desktop.domain.reasons import ReasonCode
from checkout_desktop.gateway.client import ChargeClient, DeviceIdentity
from checkout_desktop.gateway.errors import GatewayError, InvalidReply
from checkout_desktop.gateway.profiles import Endpoints
from checkout_desktop.gateway.tokens import TokenManager, TokenReplyUnreadable
from checkout_desktop.sandbox.server import SandboxServer
from checkout_desktop.ui.reasons import error_text
from tests.integration.charging_support import SandboxAccess
from tests.integration.test_sandbox_fixtures import (
    Api,
    SdkClient,
    access_token,
    charge_body,
    fast_config,
)

logger = logging.getLogger(__name__)


@asynccontextmanager
async def terminal_client() -> AsyncIterator[tuple[SandboxServer, TokenManager, ChargeClient]]:
    """A sandbox, and the terminal's token manager and charge client talking to it."""
    async with SandboxServer(fast_config()) as server, httpx.AsyncClient(timeout=10) as http:
        access = SandboxAccess.of_server(server)
        endpoints = Endpoints(base_url=access.api_url, auth_url=access.api_url)
        tokens = TokenManager(
            http=http,
            token_url=endpoints.token_url,
            client_id=access.client_id,
            credentials=access.credentials(),
        )
        client = ChargeClient(
            http=http,
            endpoints=endpoints,
            tokens=tokens,
            timeout_s=5.0,
            device=DeviceIdentity("terminal-test"),
        )
        yield server, tokens, client


async def token_failure() -> GatewayError:
    async with terminal_client() as (server, tokens, _client):
        server.faults.reply_drop_field = "access_token"
        with pytest.raises(TokenReplyUnreadable) as caught:
            await tokens.token()
        return caught.value


async def query_failure() -> GatewayError:
    async with terminal_client() as (server, _tokens, client):
        async with httpx.AsyncClient(timeout=10) as http:
            api = Api(server, http, await access_token(http, server))
            async with httpx.AsyncClient(
                verify=server.certificate.client_context(), timeout=10
            ) as sdk_http:
                card = await SdkClient(server, sdk_http).tokenize("4111111111111111")
            body = charge_body(card)
            assert (await api.authorize(body)).status_code == 200
        server.faults.reply_drop_field = "chargeStatus"
        with pytest.raises(InvalidReply) as caught:
            await client.query(body["merchantChargeId"])
        return caught.value


@pytest.mark.parametrize(
    ("failure", "code", "field"),
    [
        (token_failure, ReasonCode.TOKEN_REPLY_NOT_DOCUMENTED, "access_token"),
        (query_failure, ReasonCode.REPLY_NOT_DOCUMENTED, "chargeStatus"),
    ],
)
def test_a_reply_out_of_format_says_the_missing_field_in_portuguese(
    arun: Callable[..., Any],
    pt_br: None,
    failure: Callable[[], Any],
    code: ReasonCode,
    field: str,
) -> None:
    exc = arun(failure(), timeout=20000)
    assert exc.reason.code == code
    shown = error_text(exc)
    logger.info("shown: %s", shown)
    assert f"falta o campo {field}" in shown, shown
    # Not pydantic's English.
    assert "Field required" not in shown, shown
    assert "a resposta" in shown, shown
    # The parser's words stay in the English text the log keeps.
    assert f"{field}: Field required" in exc.reason.english()
