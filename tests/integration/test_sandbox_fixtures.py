"""Shared fixtures and helpers for the sandbox tests: a running sandbox, clients, a receiver."""

from __future__ import annotations

import asyncio
import json
import logging
import ssl
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest_asyncio
import trustme
from aiohttp import web

from checkout_desktop.sandbox.api import ADMIN_HEADER
from checkout_desktop.sandbox.faults import FaultSettings
from checkout_desktop.sandbox.server import SandboxConfig, SandboxServer

logger = logging.getLogger(__name__)

VALID_CPF = "65844359038"
HOLDER = "Joao da Silva"


def fast_config(**overrides: Any) -> SandboxConfig:
    """Sandbox settings with every delay short, so tests stay fast."""
    values: dict[str, Any] = {
        "slow_card_delay_s": 0.3,
        "webhook_timeout_s": 2.0,
        "webhook_backoff_s": 0.02,
        "webhook_backoff_max_s": 0.1,
        "webhook_max_attempts": 4,
        "faults": FaultSettings(webhook_reorder_window_s=0.3),
    }
    values.update(overrides)
    return SandboxConfig(**values)


@pytest_asyncio.fixture
async def sandbox() -> AsyncIterator[SandboxServer]:
    server = SandboxServer(fast_config())
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


@pytest_asyncio.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(timeout=10.0) as client:
        yield client


class SdkClient:
    """Talks to the sandbox's SDK backend as the browser does: HTTPS to the SDK's host name."""

    def __init__(self, server: SandboxServer, client: httpx.AsyncClient) -> None:
        self.server = server
        self.client = client

    def url(self, path: str) -> str:
        return f"https://127.0.0.1:{self.server.sdk_port}{path}"

    async def request(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        headers = {"Host": self.server.sdk_host, **kwargs.pop("headers", {})}
        return await self.client.request(
            method,
            self.url(path),
            headers=headers,
            extensions={"sni_hostname": self.server.sdk_host},
            **kwargs,
        )

    async def card_bin(self, value: str | None) -> httpx.Response:
        params = {} if value is None else {"bin": value}
        return await self.request("GET", "/portalapi/v1/Card/Bin", params=params)

    def credentials_headers(self) -> dict[str, str]:
        creds = self.server.credentials
        return {
            "Authorization": creds.transparent_token,
            "MerchantCredential": creds.merchant_document,
        }

    async def temporary_card(
        self, card: dict[str, Any] | None = None, headers: dict[str, str] | None = None, **kw: Any
    ) -> httpx.Response:
        return await self.request(
            "POST",
            "/payment/v2/temporary/card",
            json=card,
            headers=self.credentials_headers() if headers is None else headers,
            **kw,
        )

    async def tokenize(self, number: str, **fields: str) -> str:
        reply = await self.temporary_card(card_body(number, **fields))
        assert reply.status_code == 200, reply.text
        token = reply.json()["cardToken"]
        assert isinstance(token, str)
        return token


@pytest_asyncio.fixture
async def sdk(sandbox: SandboxServer) -> AsyncIterator[SdkClient]:
    async with httpx.AsyncClient(verify=sandbox.certificate.client_context(), timeout=10) as c:
        yield SdkClient(sandbox, c)


def card_body(number: str, **fields: str) -> dict[str, Any]:
    """The body the published SDK sends for a card (its keys, all strings)."""
    from checkout_desktop.sandbox.cards import brand_for_bin

    brand = brand_for_bin(number[:6])
    body: dict[str, Any] = {
        "brand": brand.value if brand else "VISA",
        "cardNumber": number,
        "cardholderName": HOLDER,
        "cardholderDocument": VALID_CPF,
        "expirationMonth": "12",
        "expirationYear": "2031",
        "cvv": "1234" if number.startswith(("34", "37")) else "123",
    }
    body.update(fields)
    return body


async def access_token(http: httpx.AsyncClient, server: SandboxServer) -> str:
    creds = server.credentials
    reply = await http.post(
        server.auth_url + "/oauth2/token",
        json={
            "grant_type": "client_credentials",
            "client_id": creds.client_id,
            "client_secret": creds.client_secret,
        },
    )
    assert reply.status_code == 200, reply.text
    token = reply.json()["access_token"]
    assert isinstance(token, str)
    return token


def new_charge_id() -> str:
    return "t-" + uuid.uuid4().hex[:20]


def charge_body(
    tokens: list[str] | str,
    *,
    merchant_charge_id: str | None = None,
    amount: int = 1500,
    late_capture: bool = False,
) -> dict[str, Any]:
    card_tokens = [tokens] if isinstance(tokens, str) else tokens
    return {
        "paymentSource": "GATEWAY",
        "merchantChargeId": merchant_charge_id or new_charge_id(),
        "lateCapture": late_capture,
        "customer": {
            "name": "Maria Souza",
            "email": "maria@example.com",
            "documentType": "CPF",
            "document": VALID_CPF,
            "phone": {"countryCode": "55", "areaCode": "11", "number": "987654321"},
        },
        "deviceInformation": {"ip": "127.0.0.1", "id": "terminal-test", "sessionId": "sale-1"},
        "transactions": [
            {
                "paymentType": "CREDIT",
                "amount": amount,
                "softDescriptor": "LOJA TESTE",
                "credit": {
                    "temporatyCardToken": token,
                    "installmentNumber": 1,
                    "installmentType": "NONE",
                },
            }
            for token in card_tokens
        ],
    }


class Api:
    """The REST side, authenticated."""

    def __init__(self, server: SandboxServer, client: httpx.AsyncClient, token: str) -> None:
        self.server = server
        self.client = client
        self.token = token

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}

    async def authorize(self, body: dict[str, Any], **kwargs: Any) -> httpx.Response:
        return await self.client.post(
            self.server.base_url + "/api/v1/charge/authorization",
            json=body,
            headers=self.headers,
            **kwargs,
        )

    async def get(self, merchant_charge_id: str) -> httpx.Response:
        return await self.client.get(
            f"{self.server.base_url}/api/v1/charge/{merchant_charge_id}",
            headers={**self.headers, "Content-Type": "application/json"},
        )

    async def capture(self, merchant_charge_id: str, amount: int | None = None) -> httpx.Response:
        url = f"{self.server.base_url}/api/v1/charge/{merchant_charge_id}/capture"
        if amount is None:
            return await self.client.post(url, headers=self.headers)
        return await self.client.post(url, json={"amount": amount}, headers=self.headers)

    async def refund(self, merchant_charge_id: str, amount: int | None) -> httpx.Response:
        url = f"{self.server.base_url}/api/v1/charge/{merchant_charge_id}/refund"
        body = {} if amount is None else {"amount": amount}
        return await self.client.post(url, json=body, headers=self.headers)

    async def three_ds(self, step: str, body: dict[str, Any]) -> httpx.Response:
        """POST /api/v1/charge/3ds/{setup|enrollment|authorization}."""
        url = f"{self.server.base_url}/api/v1/charge/3ds/{step}"
        return await self.client.post(url, json=body, headers=self.headers)

    async def three_ds_status(self, charge_id: str) -> httpx.Response:
        url = f"{self.server.base_url}/api/v1/charge/3ds/{charge_id}/status"
        return await self.client.get(
            url, headers={**self.headers, "Content-Type": "application/json"}
        )

    async def complete_challenge(self, charge_id: str, result: str) -> httpx.Response:
        return await self.client.post(
            f"{self.server.base_url}/_sandbox/3ds/{charge_id}/complete",
            json={"result": result},
            headers={ADMIN_HEADER: self.server.admin_token},
        )

    async def authenticate(
        self, token: str, *, amount: int = 1500
    ) -> tuple[str, str, dict[str, Any]]:
        """Setup then enrollment for one card token: (chargeId, authentication id, enrollment)."""
        mcid = new_charge_id()
        setup = await self.three_ds(
            "setup",
            {
                "paymentSource": "GATEWAY",
                "merchantChargeId": mcid,
                "transactions": [
                    {
                        "amount": amount,
                        "paymentType": "CREDIT",
                        "card": {"temporaryCardToken": token},
                    }
                ],
            },
        )
        assert setup.status_code == 200, setup.text
        charge_id = setup.json()["chargeId"]
        auth_id = setup.json()["transactions"][0]["cardholderAuthenticationId"]
        enrolled = await self.three_ds(
            "enrollment",
            {
                "chargeId": charge_id,
                "customer": charge_body("x")["customer"],
                "browser": BROWSER,
                "transactions": [{"amount": amount, "card": {"temporaryCardToken": token}}],
            },
        )
        return charge_id, auth_id, {"status_code": enrolled.status_code, **enrolled.json()}


BROWSER: dict[str, Any] = {
    "httpAcceptBrowserValue": "text/html,application/xhtml+xml",
    "httpAcceptContent": "text/html,application/xhtml+xml",
    "httpBrowserJavaEnabled": False,
    "httpBrowserJavaScriptEnabled": True,
    "httpBrowserColorDepth": 24,
    "httpBrowserScreenHeight": 768,
    "httpBrowserScreenWidth": 1366,
    "httpBrowserTimeDifference": 180,
    "httpBrowserLanguage": "pt-BR",
    "userAgentBrowserValue": "Mozilla/5.0 (X11; Linux x86_64) QtWebEngine",
}
"""A shopper's browser as the card page reports it (enrollment's `browser` object)."""


@pytest_asyncio.fixture
async def api(sandbox: SandboxServer, http: httpx.AsyncClient) -> Api:
    return Api(sandbox, http, await access_token(http, sandbox))


# ---------------------------------------------------------------------------------------------
# A local HTTPS webhook receiver with a certificate from a test CA


@dataclass
class Received:
    headers: dict[str, str]
    body: dict[str, Any]


@dataclass
class WebhookReceiver:
    """Records every POST; answers with the queued statuses first, then 200."""

    ca: trustme.CA
    ca_file: str
    port: int = 0
    received: list[Received] = field(default_factory=list)
    statuses: list[int] = field(default_factory=list)
    hang_s: float = 0.0
    hang_count: int = 0
    _arrived: asyncio.Condition = field(default_factory=asyncio.Condition)

    @property
    def url(self) -> str:
        return f"https://localhost:{self.port}/webhooks/checkout"

    async def handle(self, request: web.Request) -> web.Response:
        body = await request.read()
        if self.hang_count > 0:
            self.hang_count -= 1
            await asyncio.sleep(self.hang_s)
        status = self.statuses.pop(0) if self.statuses else 200
        async with self._arrived:
            self.received.append(Received(dict(request.headers), json.loads(body)))
            self._arrived.notify_all()
        return web.Response(status=status, text="ok")

    async def wait_for(self, count: int, within_s: float = 10.0) -> list[Received]:
        async with self._arrived:
            await asyncio.wait_for(
                self._arrived.wait_for(lambda: len(self.received) >= count), within_s
            )
        return list(self.received)

    def bodies(self) -> list[dict[str, Any]]:
        return [r.body for r in self.received]


@pytest_asyncio.fixture
async def receiver(tmp_path: Any) -> AsyncIterator[WebhookReceiver]:
    ca = trustme.CA()
    leaf = ca.issue_cert("localhost")
    ca_file = tmp_path / "receiver-ca.pem"
    ca.cert_pem.write_to_path(str(ca_file))
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    leaf.configure_cert(context)
    rec = WebhookReceiver(ca=ca, ca_file=str(ca_file))
    app = web.Application()
    app.router.add_post("/webhooks/checkout", rec.handle)
    runner = web.AppRunner(app, access_log=None, shutdown_timeout=0.5)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0, ssl_context=context)
    await site.start()
    rec.port = next(a[1] for a in runner.addresses if isinstance(a, tuple))
    try:
        yield rec
    finally:
        await runner.cleanup()


@pytest_asyncio.fixture
async def wired(receiver: WebhookReceiver) -> AsyncIterator[tuple[SandboxServer, WebhookReceiver]]:
    """A sandbox that delivers its notifications to the local receiver."""
    server = SandboxServer(
        fast_config(
            webhook_url=receiver.url,
            webhook_ca_file=receiver.ca_file,
            webhook_token="whk_test_token_123",
        )
    )
    await server.start()
    try:
        yield server, receiver
    finally:
        await server.stop()


def test_fast_config_is_valid() -> None:
    config = fast_config()
    config.check()
    assert config.slow_card_delay_s < 1
