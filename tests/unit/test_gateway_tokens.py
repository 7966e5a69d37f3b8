"""Token manager against a scripted token server on 127.0.0.1: single flight, cache, errors."""

from __future__ import annotations

import asyncio
import email.utils
import itertools
import json
import logging
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime, timedelta

import httpx
import pytest
import pytest_asyncio
from aiohttp import web
from pydantic import SecretStr

from checkout_desktop.domain.charge_events import TokenStateChanged, TokenStatus
from checkout_desktop.domain.events import EventBus
from checkout_desktop.domain.reasons import Reason, ReasonCode
from checkout_desktop.gateway.errors import (
    CredentialsUnavailable,
    InvalidCredentials,
    ServiceUnreachable,
    TokenError,
)
from checkout_desktop.gateway.tokens import TokenManager, TokenReplyUnreadable
from checkout_desktop.secrets import FixedCredentials, SecretMissing, SecretName

logger = logging.getLogger(__name__)

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

CLIENT_ID = "terminal-1"
SECRET = "s3cretValue42"


class TokenServer:
    """A real HTTP token endpoint whose replies each test scripts."""

    def __init__(self) -> None:
        self.requests: list[dict[str, object]] = []
        self.counter = itertools.count(1)
        self.expires_in = 300
        self.delay_s = 0.0
        self.handler: Handler | None = None
        self.url = ""

    async def handle(self, request: web.Request) -> web.StreamResponse:
        self.requests.append(await request.json())
        if self.delay_s:
            await asyncio.sleep(self.delay_s)
        if self.handler is not None:
            return await self.handler(request)
        n = next(self.counter)
        return web.json_response(
            {
                "access_token": f"header{n}.payload{n}.signature{n}",
                "expires_in": self.expires_in,
                "token_type": "Bearer",
                "scope": "checkout",
            }
        )


@pytest_asyncio.fixture
async def server() -> AsyncIterator[TokenServer]:
    stub = TokenServer()
    app = web.Application()
    app.router.add_post("/oauth2/token", stub.handle)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    stub.url = f"http://127.0.0.1:{port}/oauth2/token"
    try:
        yield stub
    finally:
        await runner.cleanup()


def credentials(secret: str = SECRET) -> FixedCredentials:
    return FixedCredentials(SecretStr(secret), SecretStr("tk_sdk"), SecretStr("wh"))


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest_asyncio.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(trust_env=False) as client:
        yield client


def manager(
    http: httpx.AsyncClient,
    server: TokenServer,
    *,
    clock: Clock | None = None,
    events: EventBus | None = None,
    creds: object | None = None,
) -> TokenManager:
    return TokenManager(
        http=http,
        token_url=server.url,
        client_id=CLIENT_ID,
        credentials=creds or credentials(),  # type: ignore[arg-type]
        events=events,
        timeout_s=2.0,
        monotonic=clock or Clock(),
    )


@pytest.mark.asyncio
async def test_many_waiters_share_one_request(http: httpx.AsyncClient, server: TokenServer) -> None:
    server.delay_s = 0.05
    tokens = manager(http, server)
    got = await asyncio.gather(*(tokens.token() for _ in range(60)))
    assert len(server.requests) == 1
    assert tokens.token_requests == 1
    assert {t.generation for t in got} == {1}
    assert server.requests[0] == {
        "grant_type": "client_credentials",
        "client_id": CLIENT_ID,
        "client_secret": SECRET,
    }
    # Cached afterwards.
    await tokens.token()
    assert len(server.requests) == 1


@pytest.mark.asyncio
async def test_renewed_shortly_before_expiry_and_when_a_caller_needs_more_life(
    http: httpx.AsyncClient, server: TokenServer
) -> None:
    clock = Clock()
    tokens = manager(http, server, clock=clock)
    first = await tokens.token()
    assert tokens.margin(300) == 30
    clock.now += 260  # 40 s left, 30 s margin: still good for a 10 s call
    assert (await tokens.token(min_life_s=10)).generation == first.generation
    # A 30 s charge must not start on a token with 40 s left and a 30 s margin.
    assert (await tokens.token(min_life_s=30)).generation == 2
    clock.now += 271  # 29 s left on token 2: inside the margin
    assert (await tokens.token()).generation == 3
    assert len(server.requests) == 3


@pytest.mark.asyncio
async def test_a_short_lived_token_is_still_used_once_fetched(
    http: httpx.AsyncClient, server: TokenServer
) -> None:
    server.expires_in = 4
    tokens = manager(http, server)
    token = await tokens.token(min_life_s=30)
    assert token.expires_in == 4
    assert tokens.margin(4) == 2  # never more than half the life
    assert len(server.requests) == 1


@pytest.mark.asyncio
async def test_callers_refused_together_share_one_renewal(
    http: httpx.AsyncClient, server: TokenServer
) -> None:
    tokens = manager(http, server)
    rejected = await tokens.token()
    server.delay_s = 0.05
    renewed = await asyncio.gather(*(tokens.refresh(rejected=rejected) for _ in range(40)))
    assert {t.generation for t in renewed} == {2}
    assert len(server.requests) == 2
    # A caller that reports the old token late gets the new one without another request.
    late = await tokens.refresh(rejected=rejected)
    assert late.generation == 2
    assert len(server.requests) == 2


@pytest.mark.asyncio
async def test_state_events_and_the_secret_is_read_at_each_fetch(
    http: httpx.AsyncClient, server: TokenServer
) -> None:
    bus = EventBus()
    seen: list[TokenStateChanged] = []
    bus.subscribe(TokenStateChanged, seen.append)
    secrets = iter(["firstSecret1", "secondSecret2"])
    reads: list[str] = []

    class Rotating:
        def client_secret(self) -> SecretStr:
            value = next(secrets)
            reads.append(value)
            return SecretStr(value)

        def sdk_merchant_token(self) -> SecretStr:
            raise AssertionError("not needed")

        def webhook_token(self) -> SecretStr:
            raise AssertionError("not needed")

    tokens = manager(http, server, events=bus, creds=Rotating())
    assert tokens.snapshot().status == TokenStatus.NONE
    token = await tokens.token()
    assert [e.status for e in seen] == [TokenStatus.REFRESHING, TokenStatus.VALID]
    assert seen[-1].token_requests == 1
    assert seen[-1].seconds_left is not None and 0 < seen[-1].seconds_left <= 300
    assert seen[-1].valid_until is not None
    assert seen[-1].valid_until > datetime.now(UTC) + timedelta(seconds=200)
    await tokens.refresh(rejected=token)
    assert [r["client_secret"] for r in server.requests] == ["firstSecret1", "secondSecret2"]
    assert reads == ["firstSecret1", "secondSecret2"]
    # Nothing that describes the token shows its value.
    value = token.value.get_secret_value()
    assert value not in repr(token)
    assert value not in repr(tokens.snapshot())


@pytest.mark.asyncio
async def test_refused_credentials_give_a_clear_error_without_the_secret(
    http: httpx.AsyncClient, server: TokenServer
) -> None:
    async def refuse(request: web.Request) -> web.StreamResponse:
        return web.json_response(
            {"error": "invalid_client", "error_description": "Invalid client credentials"},
            status=401,
        )

    server.handler = refuse
    bus = EventBus()
    seen: list[TokenStateChanged] = []
    bus.subscribe(TokenStateChanged, seen.append)
    tokens = manager(http, server, events=bus)
    with pytest.raises(InvalidCredentials) as caught:
        await tokens.token()
    reason = caught.value.reason
    assert reason.code == ReasonCode.CREDENTIALS_REFUSED
    # The service's own words are kept as they came; the secret never is.
    assert reason.args["detail"] == "invalid_client: Invalid client credentials"
    assert SECRET not in str(caught.value) and SECRET not in reason.args_json()
    assert seen[-1].status == TokenStatus.FAILED
    assert seen[-1].error == reason
    # The failure is not cached: the next caller asks again.
    with pytest.raises(InvalidCredentials):
        await tokens.token()
    assert len(server.requests) == 2


@pytest.mark.asyncio
async def test_an_html_block_page_becomes_a_readable_error(
    http: httpx.AsyncClient, server: TokenServer
) -> None:
    async def block(request: web.Request) -> web.StreamResponse:
        page = (
            "<!DOCTYPE html><html><head><title>Attention Required! | Cloudflare</title></head>"
            "<body><h1>Sorry, you have been blocked</h1></body></html>"
        )
        return web.Response(text=page, status=403, content_type="text/html")

    server.handler = block
    tokens = manager(http, server)
    with pytest.raises(TokenReplyUnreadable) as caught:
        await tokens.token()
    assert caught.value.reason == Reason.of(
        ReasonCode.REPLY_HTML_TITLED,
        operation=Reason.of(ReasonCode.OP_TOKEN),
        http_code=403,
        title="Attention Required! | Cloudflare",
    )
    assert caught.value.status == 403


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("status", "body", "content_type", "code", "expected"),
    [
        (200, "ok", "text/plain", ReasonCode.REPLY_NOT_JSON, "text/plain"),
        (502, "", "text/plain", ReasonCode.REPLY_EMPTY, None),
        (200, json.dumps([1, 2]), "application/json", ReasonCode.REPLY_NOT_JSON, None),
        (
            200,
            json.dumps({"expires_in": 300, "token_type": "Bearer", "scope": "x"}),
            "application/json",
            ReasonCode.TOKEN_REPLY_NOT_DOCUMENTED,
            "access_token: Field required",
        ),
        (
            200,
            json.dumps(
                {"access_token": "not-a-jwt", "expires_in": 300, "token_type": "B", "scope": "x"}
            ),
            "application/json",
            ReasonCode.TOKEN_REPLY_NOT_DOCUMENTED,
            "access_token is not a three-part token",
        ),
    ],
)
async def test_unusable_token_replies_are_named(
    http: httpx.AsyncClient,
    server: TokenServer,
    status: int,
    body: str,
    content_type: str,
    code: ReasonCode,
    expected: str | None,
) -> None:
    async def reply(request: web.Request) -> web.StreamResponse:
        return web.Response(text=body, status=status, content_type=content_type)

    server.handler = reply
    with pytest.raises(TokenError) as caught:
        await manager(http, server).token()
    reason = caught.value.reason
    assert reason.code == code
    if expected is not None:
        # The service's words, or the parser's on its reply, are in the reason's English.
        assert expected in reason.english(), reason
    assert "not-a-jwt" not in str(caught.value) and "not-a-jwt" not in reason.args_json()


@pytest.mark.asyncio
async def test_missing_secret_and_unreachable_server(
    http: httpx.AsyncClient, server: TokenServer
) -> None:
    class Missing:
        def client_secret(self) -> SecretStr:
            raise SecretMissing("shop", SecretName.CLIENT_SECRET)

        def sdk_merchant_token(self) -> SecretStr:
            raise AssertionError("not needed")

        def webhook_token(self) -> SecretStr:
            raise AssertionError("not needed")

    with pytest.raises(CredentialsUnavailable, match="client secret for profile 'shop'"):
        await manager(http, server, creds=Missing()).token()
    assert server.requests == []

    closed = TokenManager(
        http=http,
        token_url="http://127.0.0.1:9/oauth2/token",
        client_id=CLIENT_ID,
        credentials=credentials(),
        timeout_s=2.0,
    )
    with pytest.raises(ServiceUnreachable, match="cannot reach the token server") as caught:
        await closed.token()
    assert caught.value.sent is False


@pytest.mark.asyncio
async def test_clock_skew_is_measured_from_the_date_header(
    http: httpx.AsyncClient, server: TokenServer
) -> None:
    ahead = datetime.now(UTC) + timedelta(minutes=10)

    async def skewed(request: web.Request) -> web.StreamResponse:
        response = web.json_response(
            {"access_token": "a.b.c", "expires_in": 300, "token_type": "Bearer", "scope": "x"}
        )
        response.headers["Date"] = email.utils.format_datetime(ahead, usegmt=True)
        return response

    server.handler = skewed
    tokens = manager(http, server)
    await tokens.token()
    assert tokens.clock_skew_s is not None
    assert 590 <= tokens.clock_skew_s <= 610
    problem = tokens.skew_problem()
    assert problem is not None
    assert re.search(r"clock is (59\d|60\d) s behind the service's clock", str(problem))
    assert tokens.snapshot().clock_skew_s == tokens.clock_skew_s


@pytest.mark.asyncio
async def test_a_waiter_that_gives_up_does_not_cancel_the_shared_request(
    http: httpx.AsyncClient, server: TokenServer
) -> None:
    server.delay_s = 0.2
    tokens = manager(http, server)
    impatient = asyncio.ensure_future(tokens.token())
    patient = asyncio.ensure_future(tokens.token())
    await asyncio.sleep(0.05)
    impatient.cancel()
    token = await patient
    assert token.generation == 1
    assert impatient.cancelled()
    assert len(server.requests) == 1
