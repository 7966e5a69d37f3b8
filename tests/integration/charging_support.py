"""Helpers for the charging tests: sandbox card tokens, charge requests and a wired-up service.

Test code may see test card numbers (the sandbox's published table); the terminal's code
under test never does: it only receives the `card_t/…` token the SDK backend returns.
"""

from __future__ import annotations

import logging
import sqlite3
import ssl
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
from pydantic import SecretStr

from checkout_desktop.charges.reconciler import CheckPolicy
from checkout_desktop.charges.service import ChargeOutcome, ChargeService
from checkout_desktop.domain.enums import TokenFieldSpelling
from checkout_desktop.domain.events import EventBus
from checkout_desktop.domain.records import CardSummary
from checkout_desktop.domain.three_ds import BrowserInfo
from checkout_desktop.domain.timestamps import utc_now
from checkout_desktop.domain.wire import ChargeAuthorizationRequest
from checkout_desktop.gateway.client import ChargeClient, DeviceIdentity
from checkout_desktop.gateway.profiles import Endpoints, sandbox_credentials
from checkout_desktop.gateway.tokens import TokenManager
from checkout_desktop.secrets import Credentials, FixedCredentials, SecretName, SecretStore
from checkout_desktop.settings import Profile, ProfileKind, Settings
from checkout_desktop.store.sqlite.db import connect
from checkout_desktop.store.sqlite.store import SqliteStore

logger = logging.getLogger(__name__)

APPROVED = "4111111111111111"
DENIED = "4000000000000002"
GATEWAY_ERROR = "4000000000000119"
SLOW = "4000000000009995"
THREE_DS_FRICTIONLESS = "4000000000003063"
THREE_DS_CHALLENGE = "4000000000003220"
THREE_DS_REJECTED = "4000008400001629"
THREE_DS_UNAVAILABLE = "4000000000001042"

HOLDER_DOCUMENT = "65844359038"

BROWSER = BrowserInfo(
    httpAcceptBrowserValue="text/html,application/xhtml+xml",
    httpAcceptContent="text/html,application/xhtml+xml",
    httpBrowserJavaEnabled=False,
    httpBrowserJavaScriptEnabled=True,
    httpBrowserColorDepth=24,
    httpBrowserScreenHeight=768,
    httpBrowserScreenWidth=1366,
    httpBrowserTimeDifference=180,
    httpBrowserLanguage="pt-BR",
    userAgentBrowserValue="Mozilla/5.0 (X11; Linux x86_64) QtWebEngine",
)
"""What the card page reports of the shopper's browser (enrollment's `browser`)."""


@dataclass(frozen=True)
class SandboxAccess:
    """What a test needs to reach a sandbox, in-process or in a subprocess."""

    api_url: str
    sdk_port: int
    sdk_cert_pem: str
    client_id: str
    client_secret: str
    merchant_document: str
    transparent_token: str
    webhook_token: str

    async def ask_charge(self, mcid: str) -> httpx.Response:
        """The service's reply to a query of the charge, asked directly (not through the
        terminal, with a token of its own)."""
        async with httpx.AsyncClient(trust_env=False, timeout=10) as http:
            token = await http.post(
                f"{self.api_url}/oauth2/token",
                json={
                    "grant_type": "client_credentials",
                    "client_id": self.client_id,
                    "client_secret": self.client_secret,
                },
            )
            return await http.get(
                f"{self.api_url}/api/v1/charge/{mcid}",
                headers={
                    "Authorization": f"Bearer {token.json()['access_token']}",
                    "Content-Type": "application/json",
                },
            )

    @classmethod
    def of_server(cls, server: Any) -> SandboxAccess:
        creds = server.credentials
        return cls(
            api_url=server.api_url,
            sdk_port=server.sdk_port,
            sdk_cert_pem=server.sdk_cert_pem,
            client_id=creds.client_id,
            client_secret=creds.client_secret,
            merchant_document=creds.merchant_document,
            transparent_token=creds.transparent_token,
            webhook_token=creds.webhook_token,
        )

    @classmethod
    def of_info(cls, info: dict[str, Any]) -> SandboxAccess:
        creds = info["credentials"]
        return cls(
            api_url=info["base_url"],
            sdk_port=int(info["sdk"]["port"]),
            sdk_cert_pem=info["sdk"]["cert_pem"],
            client_id=creds["client_id"],
            client_secret=creds["client_secret"],
            merchant_document=creds["merchant_document"],
            transparent_token=creds["transparent_token"],
            webhook_token=creds["webhook_token"],
        )

    def credentials(self) -> Credentials:
        return sandbox_credentials(self)

    def tls(self) -> ssl.SSLContext:
        # Trust exactly the sandbox's own certificate; it names the SDK host, not 127.0.0.1.
        context = ssl.create_default_context(cadata=self.sdk_cert_pem)
        context.check_hostname = False
        return context


async def card_token(access: SandboxAccess, number: str, *, brand: str = "VISA") -> str:
    """Tokenize a test card through the sandbox's SDK backend, as the card page's SDK does."""
    async with httpx.AsyncClient(verify=access.tls(), trust_env=False) as http:
        response = await http.post(
            f"https://127.0.0.1:{access.sdk_port}/payment/v2/temporary/card",
            headers={
                "Authorization": access.transparent_token,
                "MerchantCredential": access.merchant_document,
            },
            json={
                "brand": brand,
                "cardNumber": number,
                "cardholderName": "MARIA SILVA",
                "cardholderDocument": HOLDER_DOCUMENT,
                "expirationMonth": "12",
                "expirationYear": "2031",
                "cvv": "123",
            },
        )
    assert response.status_code == 200, response.text
    token = response.json()["cardToken"]
    assert isinstance(token, str) and token.startswith("card_t/")
    return token


def new_charge_id() -> str:
    return f"t-{uuid.uuid4().hex[:30]}"


def charge_request(
    token: str,
    *,
    merchant_charge_id: str | None = None,
    amount: int = 1500,
    late_capture: bool = False,
) -> ChargeAuthorizationRequest:
    return ChargeAuthorizationRequest.model_validate(
        {
            "paymentSource": "GATEWAY",
            "merchantChargeId": merchant_charge_id or new_charge_id(),
            "lateCapture": late_capture,
            "customer": {
                "name": "Maria Silva",
                "email": "maria@example.com",
                "documentType": "CPF",
                "document": HOLDER_DOCUMENT,
                "phone": {"countryCode": "55", "areaCode": "11", "number": "987654321"},
            },
            "transactions": [
                {
                    "paymentType": "CREDIT",
                    "amount": amount,
                    "softDescriptor": "LOJA TESTE",
                    "credit": {
                        "temporaryCardToken": token,
                        "installmentNumber": 1,
                        "installmentType": "NONE",
                    },
                }
            ],
        }
    )


def visa(last_four: str) -> list[CardSummary]:
    return [CardSummary("VISA", last_four)]


@dataclass
class Stack:
    """A charge service wired to a sandbox, as the app builds it."""

    http: httpx.AsyncClient
    tokens: TokenManager
    client: ChargeClient
    service: ChargeService
    conn: sqlite3.Connection
    events: EventBus
    statuses: list[int]
    calls: list[tuple[str, str, int]]
    """Every reply: (method, path, status)."""


NOWHERE = "http://127.0.0.1:9"
"""A closed loopback port: a request there fails, after its hooks have seen it."""


def offline_service(
    store: Any,
    http: httpx.AsyncClient,
    *,
    profile: str,
    events: EventBus | None = None,
    counter: str | None = None,
) -> ChargeService:
    """A charge service over `store` whose client reaches nowhere (`NOWHERE`): for a panel
    that only reads the store, or a test that checks nothing is sent (`http`'s hooks see
    every request it tries)."""
    endpoints = Endpoints(base_url=NOWHERE, auth_url=NOWHERE)
    secret = SecretStr("x")
    tokens = TokenManager(
        http=http,
        token_url=endpoints.token_url,
        client_id="unused",
        credentials=FixedCredentials(secret, secret, secret),
    )
    client = ChargeClient(
        http=http, endpoints=endpoints, tokens=tokens, device=DeviceIdentity("terminal-test")
    )
    return ChargeService(
        store=store, client=client, profile=profile, events=events, counter=counter
    )


@asynccontextmanager
async def charging_stack(
    access: SandboxAccess,
    db_path: Path,
    *,
    timeout_s: float = 10.0,
    credentials: Credentials | None = None,
    client_id: str | None = None,
    unknown_grace_s: float = 600.0,
    policy: CheckPolicy | None = None,
    token_field: TokenFieldSpelling = "temporaryCardToken",
    profile: str = "builtin-sandbox",
    clock: Callable[[], datetime] = utc_now,
    counter: str | None = None,
) -> AsyncIterator[Stack]:
    """A charge service on a sandbox. The card-token spelling starts as a new profile's does,
    unless a test gives the one a profile has learned already."""
    statuses: list[int] = []
    calls: list[tuple[str, str, int]] = []

    async def note(response: httpx.Response) -> None:
        statuses.append(response.status_code)
        calls.append((response.request.method, response.request.url.path, response.status_code))

    events = EventBus()
    conn = connect(db_path)
    endpoints = Endpoints(base_url=access.api_url, auth_url=access.api_url)
    async with httpx.AsyncClient(trust_env=False, event_hooks={"response": [note]}) as http:
        tokens = TokenManager(
            http=http,
            token_url=endpoints.token_url,
            client_id=client_id or access.client_id,
            credentials=credentials or access.credentials(),
            events=events,
            timeout_s=timeout_s,
        )
        client = ChargeClient(
            http=http,
            endpoints=endpoints,
            tokens=tokens,
            timeout_s=timeout_s,
            token_field=token_field,
            device=DeviceIdentity("terminal-test"),
        )
        service = ChargeService(
            store=SqliteStore(conn, clock=clock),
            client=client,
            profile=profile,
            events=events,
            policy=policy,
            unknown_grace_s=unknown_grace_s,
            clock=clock,
            counter=counter,
        )
        try:
            yield Stack(http, tokens, client, service, conn, events, statuses, calls)
        finally:
            await service.stop()
            conn.close()


SHOP_SERVICE = "shop-service"
"""The profile of `shared_service`: one service that every counter of a shop uses."""


def shared_service(info: Any) -> tuple[Settings, SecretStore]:
    """Settings on a service every counter shares, played by one running sandbox (`info`, its
    announcement): what a shop on the service's own sandbox or on production has. (The
    built-in sandbox is not that: each computer runs its own.) Its secrets are in the returned
    store, as a real profile's are in the keychain; give it to `Terminal.start`. (An in-memory
    keychain: the suite's real one stays for the tests of the keychain itself.)"""
    from tests.conftest import MemoryKeyring

    credentials = info.credentials
    settings = Settings(first_run_done=True)
    settings.profiles[SHOP_SERVICE] = Profile(
        name=SHOP_SERVICE,
        label="Shop's service",
        kind=ProfileKind.SERVICE_SANDBOX,
        base_url=info.base_url,
        auth_url=info.auth_url,
        client_id=credentials.client_id,
        merchant_document=credentials.merchant_document,
    )
    settings.active_profile = SHOP_SERVICE
    secrets = SecretStore(MemoryKeyring())
    secrets.set(SHOP_SERVICE, SecretName.CLIENT_SECRET, credentials.client_secret)
    secrets.set(SHOP_SERVICE, SecretName.SDK_MERCHANT_TOKEN, credentials.merchant_token)
    secrets.set(SHOP_SERVICE, SecretName.WEBHOOK_TOKEN, credentials.webhook_token)
    return settings, secrets


async def counter_on_shared_service(
    link: Any, paths: Any, store_url: str, *, locale: str | None = None
) -> Any:
    """A counter's terminal on the shop's shared store and on the one service every counter
    uses (`shared_service`, played by the sandbox `link`); its listener on a free port."""
    from checkout_desktop.terminal import Terminal

    settings, secrets = shared_service(link.info)
    if locale is not None:
        settings.ui.locale = locale
    return await Terminal.start(
        settings, paths, secrets=secrets, sandbox=link, listener_port=0, store_url=store_url
    )


async def sell_by_card(service: ChargeService, access: SandboxAccess) -> ChargeOutcome:
    """One new sale of `service`'s counter charged on an approved card (the sandbox's token)."""
    sale = service.new_sale()
    return await service.charge(
        sale_id=sale.sale_id,
        request=charge_request(
            await card_token(access, APPROVED), merchant_charge_id=f"{sale.sale_id}-01"
        ),
        tenders=visa("1111"),
    )
