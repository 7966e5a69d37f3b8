"""Charge client against a scripted service on 127.0.0.1: 401 handling, errors, validation."""

from __future__ import annotations

import asyncio
import copy
import email.utils
import itertools
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
import pytest_asyncio
from aiohttp import web
from pydantic import SecretStr

from checkout_desktop.domain.enums import ChargeStatus
from checkout_desktop.domain.reasons import Reason, ReasonCode
from checkout_desktop.domain.wire import ChargeAuthorizationRequest
from checkout_desktop.gateway.client import ChargeClient
from checkout_desktop.gateway.errors import (
    BadRequest,
    ChargeNotFound,
    ClockSkew,
    ConnectionLost,
    GatewayError,
    InvalidReply,
    NonJsonReply,
    ReplyTimeout,
    RequestInvalid,
    ServerError,
    ServiceUnreachable,
    Unauthorized,
)
from checkout_desktop.gateway.profiles import Endpoints
from checkout_desktop.gateway.tokens import TokenManager
from checkout_desktop.secrets import FixedCredentials
from tests.unit import wire_examples as ex

logger = logging.getLogger(__name__)

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
MCID = ex.CHARGE_REQUEST["merchantChargeId"]


class FakeService:
    """Token endpoint plus charge API; tests script the API's replies."""

    def __init__(self) -> None:
        self.token_requests = 0
        self.api_requests: list[tuple[str, str, dict[str, Any] | None, str]] = []
        self.tokens = itertools.count(1)
        self.valid: set[str] = set()
        self.handler: Handler | None = None
        self.refuse_all_tokens = False
        self.date: datetime | None = None
        self.url = ""

    async def token(self, request: web.Request) -> web.StreamResponse:
        self.token_requests += 1
        n = next(self.tokens)
        value = f"hdr{n}.body{n}.sig{n}"
        self.valid.add(value)
        response = web.json_response(
            {"access_token": value, "expires_in": 300, "token_type": "Bearer", "scope": "c"}
        )
        if self.date is not None:
            response.headers["Date"] = email.utils.format_datetime(self.date, usegmt=True)
        return response

    async def api(self, request: web.Request) -> web.StreamResponse:
        body = await request.json() if request.can_read_body else None
        auth = request.headers.get("Authorization", "")
        self.api_requests.append((request.method, request.path, body, auth))
        if self.refuse_all_tokens or auth.removeprefix("Bearer ") not in self.valid:
            return web.json_response({"message": "token expired or invalid"}, status=401)
        if self.handler is not None:
            return await self.handler(request)
        reply = copy.deepcopy(ex.CHARGE_REPLY)
        return web.json_response(reply)

    def expire_all(self) -> None:
        self.valid.clear()


@pytest_asyncio.fixture
async def service() -> AsyncIterator[FakeService]:
    fake = FakeService()
    app = web.Application()
    app.router.add_post("/oauth2/token", fake.token)
    app.router.add_route("*", "/api/v1/{tail:.*}", fake.api)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    fake.url = f"http://127.0.0.1:{runner.addresses[0][1]}"
    try:
        yield fake
    finally:
        await runner.cleanup()


@pytest_asyncio.fixture
async def client(service: FakeService) -> AsyncIterator[ChargeClient]:
    async with httpx.AsyncClient(trust_env=False) as http:
        endpoints = Endpoints(base_url=service.url, auth_url=service.url)
        tokens = TokenManager(
            http=http,
            token_url=endpoints.token_url,
            client_id="terminal-1",
            credentials=FixedCredentials(SecretStr("abc123"), SecretStr("t"), SecretStr("w")),
        )
        yield ChargeClient(http=http, endpoints=endpoints, tokens=tokens, timeout_s=1.0)


def request() -> ChargeAuthorizationRequest:
    return ChargeAuthorizationRequest.model_validate(ex.CHARGE_REQUEST)


def scripted(status: int, body: Any = None, *, text: str | None = None, ctype: str = "") -> Handler:
    async def handler(req: web.Request) -> web.StreamResponse:
        if text is not None:
            return web.Response(text=text, status=status, content_type=ctype or "text/plain")
        return web.json_response(body, status=status)

    return handler


@pytest.mark.asyncio
async def test_authorize_sends_the_validated_body_and_parses_the_reply(
    service: FakeService, client: ChargeClient
) -> None:
    reply = await client.authorize(request())
    assert reply.reply.chargeStatus == ChargeStatus.PAID
    assert reply.http_status == 200
    method, path, body, auth = service.api_requests[0]
    assert (method, path) == ("POST", "/api/v1/charge/authorization")
    assert auth.startswith("Bearer hdr1.")
    assert body is not None
    credit = body["transactions"][0]["credit"]
    assert credit["temporaryCardToken"].startswith("card_t/")
    assert body["merchantChargeId"] == MCID
    update = reply.update(source="reply")
    assert update.status == ChargeStatus.PAID
    assert update.transactions[0].credit is not None
    assert update.transactions[0].credit.last_four == "1111"


@pytest.mark.asyncio
async def test_the_profile_decides_the_token_field_spelling(
    service: FakeService, client: ChargeClient
) -> None:
    client.token_field = "temporatyCardToken"
    await client.authorize(request())
    body = service.api_requests[0][2]
    assert body is not None
    assert set(body["transactions"][0]["credit"]) >= {"temporatyCardToken"}
    assert "temporaryCardToken" not in body["transactions"][0]["credit"]


@pytest.mark.asyncio
async def test_query_capture_refund_paths_and_bodies(
    service: FakeService, client: ChargeClient
) -> None:
    await client.query(MCID)
    await client.capture(MCID, 1500)
    await client.refund(MCID, 700)
    assert [(m, p, b) for m, p, b, _ in service.api_requests] == [
        ("GET", f"/api/v1/charge/{MCID}", None),
        ("POST", f"/api/v1/charge/{MCID}/capture", {"amount": 1500}),
        ("POST", f"/api/v1/charge/{MCID}/refund", {"amount": 700}),
    ]
    assert service.token_requests == 1


@pytest.mark.asyncio
async def test_bad_requests_never_leave_the_terminal(
    service: FakeService, client: ChargeClient
) -> None:
    with pytest.raises(RequestInvalid, match="at least 1"):
        await client.refund(MCID, 0)
    with pytest.raises(RequestInvalid, match="6 to 36 letters"):
        await client.query("abc")
    with pytest.raises(RequestInvalid, match="6 to 36 letters"):
        await client.query("../../oauth2/token")
    assert service.api_requests == []
    assert service.token_requests == 0


@pytest.mark.asyncio
async def test_a_401_renews_the_token_once_and_retries_once(
    service: FakeService, client: ChargeClient
) -> None:
    await client.query(MCID)
    service.expire_all()
    reply = await client.query(MCID)
    assert reply.reply.merchantChargeId == MCID
    assert service.token_requests == 2
    assert len(service.api_requests) == 3
    assert service.api_requests[-1][3].startswith("Bearer hdr2.")


@pytest.mark.asyncio
async def test_concurrent_401s_share_one_renewal(
    service: FakeService, client: ChargeClient
) -> None:
    await client.query(MCID)
    service.expire_all()
    await asyncio.gather(*(client.query(MCID) for _ in range(30)))
    assert service.token_requests == 2


@pytest.mark.asyncio
async def test_a_second_401_is_a_clear_error(service: FakeService, client: ChargeClient) -> None:
    service.refuse_all_tokens = True
    with pytest.raises(Unauthorized) as caught:
        await client.query(MCID)
    reason = caught.value.reason
    assert reason.code == ReasonCode.TOKEN_REFUSED_AGAIN
    detail = reason.args["detail"]
    assert isinstance(detail, Reason) and detail.code == ReasonCode.API_TOKEN_REFUSED
    assert detail.args["detail"] == Reason.of(
        ReasonCode.SERVICE_SAID, words="token expired or invalid"
    )
    assert service.token_requests == 2
    assert len(service.api_requests) == 2


@pytest.mark.asyncio
async def test_a_second_401_with_a_wrong_clock_says_so(
    service: FakeService, client: ChargeClient
) -> None:
    service.date = datetime.now(UTC) - timedelta(hours=2)
    service.refuse_all_tokens = True
    with pytest.raises(ClockSkew) as caught:
        await client.query(MCID)
    assert caught.value.reason.code == ReasonCode.CLOCK_AHEAD
    assert caught.value.skew_s < -7000


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("handler", "error", "code", "text"),
    [
        (
            scripted(400, {"message": "invalid", "errors": [{"field": "amount", "message": "<1"}]}),
            BadRequest,
            ReasonCode.API_REFUSED,
            "invalid; amount: <1",
        ),
        (
            scripted(404, {"message": "charge not found"}),
            ChargeNotFound,
            ReasonCode.API_NO_CHARGE,
            "charge not found",
        ),
        (
            scripted(
                400,
                {"message": "card 4111 1111 1111 1111 refused, token a1b2c3d4e5.f6g7h8i9j0.k1l2m3"},
            ),
            BadRequest,
            ReasonCode.API_REFUSED,
            "card [card number] refused, token [token]",
        ),
        (
            scripted(500, {"error": {"message": "boom"}}),
            ServerError,
            ReasonCode.API_FAILED,
            "boom",
        ),
        (
            scripted(403, text="<html><title>Blocked</title></html>", ctype="text/html"),
            NonJsonReply,
            ReasonCode.REPLY_HTML_TITLED,
            "Blocked",
        ),
        (
            scripted(200, text="", ctype="text/plain"),
            NonJsonReply,
            ReasonCode.REPLY_EMPTY,
            None,
        ),
        (
            scripted(200, {"merchantChargeId": MCID}),
            InvalidReply,
            ReasonCode.REPLY_NOT_DOCUMENTED,
            "chargeStatus: Field required",
        ),
        (
            scripted(200, {**ex.CHARGE_REPLY, "merchantChargeId": "other-charge-1"}),
            InvalidReply,
            ReasonCode.REPLY_OTHER_CHARGE,
            "other-charge-1",
        ),
    ],
)
async def test_error_replies_become_typed_readable_errors(
    service: FakeService,
    client: ChargeClient,
    handler: Handler,
    error: type[GatewayError],
    code: ReasonCode,
    text: str | None,
) -> None:
    service.handler = handler
    with pytest.raises(error) as caught:
        await client.query(MCID)
    reason = caught.value.reason
    assert reason.code == code
    assert reason.args["operation"] == Reason.of(ReasonCode.OP_QUERY)
    if text is not None:
        # What the service said (its words, redacted), or the parser said of its reply, is data
        # of the reason: its English says it.
        assert text in reason.english(), reason
    assert caught.value.sent is True


@pytest.mark.asyncio
async def test_no_reply_in_time_is_an_unknown_outcome(
    service: FakeService, client: ChargeClient
) -> None:
    async def slow(req: web.Request) -> web.StreamResponse:
        await asyncio.sleep(3)
        return web.json_response(ex.CHARGE_REPLY)

    service.handler = slow
    client.timeout_s = 0.3
    with pytest.raises(ReplyTimeout, match=r"no reply within 0\.3 s") as caught:
        await client.authorize(request())
    assert caught.value.sent is None


@pytest.mark.asyncio
async def test_a_connection_dropped_before_the_reply_is_an_unknown_outcome(
    service: FakeService, client: ChargeClient
) -> None:
    async def drop(req: web.Request) -> web.StreamResponse:
        assert req.transport is not None
        req.transport.close()
        return web.Response()

    service.handler = drop
    with pytest.raises(ConnectionLost, match="outcome is unknown") as caught:
        await client.authorize(request())
    assert caught.value.sent is None


@pytest.mark.asyncio
async def test_an_unreachable_service_means_nothing_was_sent(service: FakeService) -> None:
    async with httpx.AsyncClient(trust_env=False) as http:
        endpoints = Endpoints(base_url="http://127.0.0.1:9", auth_url=service.url)
        tokens = TokenManager(
            http=http,
            token_url=endpoints.token_url,
            client_id="terminal-1",
            credentials=FixedCredentials(SecretStr("abc123"), SecretStr("t"), SecretStr("w")),
        )
        client = ChargeClient(http=http, endpoints=endpoints, tokens=tokens)
        with pytest.raises(ServiceUnreachable, match="nothing was sent") as caught:
            await client.authorize(request())
    assert caught.value.sent is False
