"""The sandbox's webhook sender over real HTTPS to a local receiver: bodies, retries, faults."""

from __future__ import annotations

import logging
from datetime import UTC, datetime

import httpx
import pytest

from checkout_desktop.domain.enums import ChargeStatus
from checkout_desktop.domain.wire import (
    PaymentEnvelope,
    PaymentFlat,
    ThreeDsChallenge,
    parse_webhook,
)
from checkout_desktop.sandbox.api import ADMIN_HEADER
from checkout_desktop.sandbox.errors import NotificationUrlError
from checkout_desktop.sandbox.server import SandboxServer
from tests.integration.test_sandbox_fixtures import (
    Api,
    SdkClient,
    WebhookReceiver,
    access_token,
    charge_body,
    fast_config,
)

pytest_plugins = ["tests.integration.test_sandbox_fixtures"]

logger = logging.getLogger(__name__)

Wired = tuple[SandboxServer, WebhookReceiver]


async def clients(server: SandboxServer, http: httpx.AsyncClient) -> tuple[Api, SdkClient]:
    sdk_http = httpx.AsyncClient(verify=server.certificate.client_context(), timeout=10)
    return Api(server, http, await access_token(http, server)), SdkClient(server, sdk_http)


async def charge(
    server: SandboxServer, http: httpx.AsyncClient, number: str, **kwargs: object
) -> str:
    api, sdk = await clients(server, http)
    try:
        body = charge_body(await sdk.tokenize(number), **kwargs)  # type: ignore[arg-type]
    finally:
        await sdk.client.aclose()
    reply = await api.authorize(body)
    assert reply.status_code == 200, reply.text
    merchant_charge_id = body["merchantChargeId"]
    assert isinstance(merchant_charge_id, str)
    return merchant_charge_id


def statuses(receiver: WebhookReceiver) -> list[str]:
    found = []
    for body in receiver.bodies():
        parsed = parse_webhook(body)
        if isinstance(parsed, ThreeDsChallenge):
            found.append(f"3DS:{parsed.data.status}")
        else:
            assert isinstance(parsed, PaymentFlat | PaymentEnvelope)
            found.append(parsed.payment.status.value)
    return found


@pytest.mark.asyncio
async def test_a_paid_charge_is_notified_with_the_documented_headers(
    wired: Wired, http: httpx.AsyncClient
) -> None:
    server, receiver = wired
    charge_id = await charge(server, http, "4111111111111111", amount=4321)
    (delivery,) = await receiver.wait_for(1)
    assert delivery.headers["Authorization"] == "whk_test_token_123"
    assert delivery.headers["event-type"] == "TransactionUpdateMessage"
    assert delivery.headers["Content-Type"] == "application/json"
    parsed = parse_webhook(delivery.body)
    assert isinstance(parsed, PaymentEnvelope)
    assert parsed.data.status == ChargeStatus.PAID
    assert parsed.data.merchantChargeId == charge_id
    assert parsed.data.amount == 4321
    assert parsed.merchantDocument == server.credentials.merchant_document
    assert parsed.eventDate is not None and parsed.eventDate.has_offset
    # The envelope's id names the notification (variant envelope-id=notification).
    assert parsed.id is not None and parsed.id != server.state.charges[charge_id].id
    (txn,) = parsed.data.transactions
    assert txn.status == "PAID"
    assert txn.credit is not None and txn.credit.brand == "VISA"
    # Card-holder data arrive masked.
    assert txn.credit.cardholderName == "J*** d* S****"
    assert txn.credit.cardholderDocument == "658********"
    assert parsed.data.customer is not None
    assert parsed.data.customer.document == "658********"
    await server.webhooks_idle()
    outcomes = [(r.outcome, r.status) for r in server.state.deliveries]
    assert outcomes == [("delivered", 200)]


@pytest.mark.asyncio
async def test_flat_layout(wired: Wired, http: httpx.AsyncClient) -> None:
    server, receiver = wired
    server.config.webhook_layout = "flat"
    charge_id = await charge(server, http, "5555555555554444")
    (delivery,) = await receiver.wait_for(1)
    parsed = parse_webhook(delivery.body)
    assert isinstance(parsed, PaymentFlat)
    assert parsed.merchantChargeId == charge_id
    assert parsed.status == ChargeStatus.PAID
    assert "eventDate" not in delivery.body
    created = parsed.transactions[0].createdAt
    # Layout A: no offset and nine fractional digits, written in UTC.
    assert created is not None and not created.has_offset
    assert len(created.raw.rsplit(".", 1)[1]) == 9
    assert abs((created.at - datetime.now(UTC)).total_seconds()) < 600


@pytest.mark.asyncio
async def test_alternate_layout_switches_every_notification(
    wired: Wired, http: httpx.AsyncClient
) -> None:
    server, receiver = wired
    server.config.webhook_layout = "alternate"
    for _ in range(3):
        await charge(server, http, "4111111111111111")
    deliveries = await receiver.wait_for(3)
    kinds = [type(parse_webhook(d.body)).__name__ for d in deliveries]
    assert kinds == ["PaymentFlat", "PaymentEnvelope", "PaymentFlat"]


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("number", "answer", "expected"),
    [
        ("4000000000003220", "approve", ["3DS:Approved", "PAID"]),
        ("4000000000003220", "reject", ["3DS:Rejected"]),
        ("4000008400001629", None, ["3DS:Rejected"]),
        ("4000000000003063", None, ["3DS:Approved", "PAID"]),
    ],
)
async def test_three_ds_results_are_notified(
    wired: Wired, http: httpx.AsyncClient, number: str, answer: str | None, expected: list[str]
) -> None:
    server, receiver = wired
    api, sdk = await clients(server, http)
    try:
        token = await sdk.tokenize(number)
    finally:
        await sdk.client.aclose()
    charge_id, auth_id, _ = await api.authenticate(token)
    if answer is not None:
        assert (await api.complete_challenge(charge_id, answer)).status_code == 200
    if expected[-1] == "PAID":
        authorized = await api.three_ds(
            "authorization",
            {
                "chargeId": charge_id,
                "capture": True,
                "transactions": [
                    {
                        "installmentNumber": 1,
                        "installmentType": "NONE",
                        "card": {"cardholderAuthenticationId": auth_id},
                    }
                ],
            },
        )
        assert authorized.status_code == 200, authorized.text
    deliveries = await receiver.wait_for(len(expected))
    assert statuses(receiver) == expected
    challenge = deliveries[0]
    assert challenge.headers["event-type"] == "Challenge3dsUpdateMessage"
    parsed = parse_webhook(challenge.body)
    assert isinstance(parsed, ThreeDsChallenge)
    assert parsed.data.chargeId == charge_id
    assert parsed.data.merchantChargeId == server.state.three_ds[charge_id].merchant_charge_id
    assert parsed.data.paresStatus == ("Y" if expected[0] == "3DS:Approved" else "N")
    assert parsed.eventDate is not None and not parsed.eventDate.has_offset


@pytest.mark.asyncio
async def test_denied_capture_and_refund_each_notify(wired: Wired, http: httpx.AsyncClient) -> None:
    server, receiver = wired
    await charge(server, http, "4000000000000002")
    charge_id = await charge(server, http, "4111111111111111", amount=900, late_capture=True)
    api, sdk = await clients(server, http)
    await sdk.client.aclose()
    assert (await api.capture(charge_id)).status_code == 200
    assert (await api.refund(charge_id, 400)).status_code == 200
    assert (await api.refund(charge_id, 500)).status_code == 200
    await receiver.wait_for(5)
    assert statuses(receiver) == ["DENIED", "PRE_AUTHORIZED", "PAID", "PARTIAL", "REFUNDED"]
    partial = parse_webhook(receiver.received[3].body)
    assert isinstance(partial, PaymentEnvelope)
    assert partial.data.refundedAmount == 400
    assert partial.data.transactions[0].status == "PARTIALLY_REFUNDED"


@pytest.mark.asyncio
async def test_non_2xx_replies_are_retried_with_backoff(
    wired: Wired, http: httpx.AsyncClient
) -> None:
    server, receiver = wired
    receiver.statuses = [500, 503]
    await charge(server, http, "4111111111111111")
    await receiver.wait_for(3)
    await server.webhooks_idle()
    outcomes = [(r.attempt, r.outcome, r.status) for r in server.state.deliveries]
    assert outcomes == [(1, "http_error", 500), (2, "http_error", 503), (3, "delivered", 200)]
    bodies = receiver.bodies()
    assert bodies[0] == bodies[1] == bodies[2]


@pytest.mark.asyncio
async def test_a_receiver_that_hangs_times_out_and_is_retried(
    wired: Wired, http: httpx.AsyncClient
) -> None:
    server, receiver = wired
    server.config.webhook_timeout_s = 0.2
    receiver.hang_s = 1.0
    receiver.hang_count = 1
    await charge(server, http, "4111111111111111")
    await server.webhooks_idle()
    outcomes = [(r.attempt, r.outcome) for r in server.state.deliveries]
    assert outcomes == [(1, "timeout"), (2, "delivered")]


@pytest.mark.asyncio
async def test_retries_are_bounded(wired: Wired, http: httpx.AsyncClient) -> None:
    server, receiver = wired
    receiver.statuses = [500] * 10
    await charge(server, http, "4111111111111111")
    await server.webhooks_idle()
    attempts = server.config.webhook_max_attempts
    assert len(receiver.received) == attempts
    assert server.state.deliveries[-1].outcome == "gave_up"
    assert [r.outcome for r in server.state.deliveries[:-1]] == ["http_error"] * attempts


@pytest.mark.asyncio
async def test_an_untrusted_receiver_certificate_is_a_connection_error(
    receiver: WebhookReceiver, http: httpx.AsyncClient
) -> None:
    server = SandboxServer(fast_config(webhook_url=receiver.url, webhook_max_attempts=2))
    async with server:
        await charge(server, http, "4111111111111111")
        await server.webhooks_idle()
    assert receiver.received == []
    first = server.state.deliveries[0]
    assert first.outcome == "connection_error"
    assert "not trusted" in first.detail
    assert server.state.deliveries[-1].outcome == "gave_up"


@pytest.mark.asyncio
async def test_without_a_url_notifications_are_kept_but_not_sent(
    sandbox: SandboxServer, http: httpx.AsyncClient
) -> None:
    await charge(sandbox, http, "4111111111111111")
    await sandbox.webhooks_idle()
    assert len(sandbox.state.notifications) == 1
    assert [r.outcome for r in sandbox.state.deliveries] == ["not_configured"]


@pytest.mark.asyncio
async def test_duplicate_fault_delivers_twice(wired: Wired, http: httpx.AsyncClient) -> None:
    server, receiver = wired
    server.faults.webhook_duplicate = True
    await charge(server, http, "4111111111111111")
    first, second = await receiver.wait_for(2)
    assert first.body == second.body
    await server.webhooks_idle()
    assert [r.detail for r in server.state.deliveries] == ["", "duplicate"]


@pytest.mark.asyncio
async def test_delay_fault_holds_the_first_attempt(wired: Wired, http: httpx.AsyncClient) -> None:
    server, receiver = wired
    server.faults.webhook_delay_s = 0.2
    await charge(server, http, "4111111111111111")
    await receiver.wait_for(1)
    await server.webhooks_idle()
    delayed, delivered = server.state.deliveries
    assert delayed.outcome == "delayed"
    assert delivered.outcome == "delivered"
    assert (delivered.at - delayed.at).total_seconds() >= 0.2


@pytest.mark.asyncio
async def test_reorder_fault_sends_the_later_notification_first(
    wired: Wired, http: httpx.AsyncClient
) -> None:
    server, receiver = wired
    server.faults.webhook_reorder = True
    server.faults.webhook_reorder_window_s = 2.0
    charge_id = await charge(server, http, "4111111111111111", late_capture=True)
    api, sdk = await clients(server, http)
    await sdk.client.aclose()
    assert (await api.capture(charge_id)).status_code == 200
    await receiver.wait_for(2)
    assert statuses(receiver) == ["PAID", "PRE_AUTHORIZED"]


@pytest.mark.asyncio
async def test_drop_then_retry_fault(wired: Wired, http: httpx.AsyncClient) -> None:
    server, receiver = wired
    server.faults.webhook_drop_first = 1
    await charge(server, http, "4111111111111111")
    await receiver.wait_for(1)
    await server.webhooks_idle()
    assert [(r.attempt, r.outcome) for r in server.state.deliveries] == [
        (1, "dropped"),
        (2, "delivered"),
    ]
    assert len(receiver.received) == 1


@pytest.mark.asyncio
async def test_admin_endpoint_sets_the_url_and_a_new_token(
    sandbox: SandboxServer, receiver: WebhookReceiver, http: httpx.AsyncClient
) -> None:
    sandbox.config.webhook_ca_file = receiver.ca_file
    url = sandbox.base_url + "/_sandbox/webhook"
    refused = await http.put(url, json={"url": receiver.url})
    assert refused.status_code == 401
    headers = {ADMIN_HEADER: sandbox.admin_token}
    bad = await http.put(url, json={"url": "https://127.0.0.1:9/hook"}, headers=headers)
    assert bad.status_code == 400
    assert "IPv4" in bad.json()["message"]
    reply = await http.put(url, json={"url": receiver.url, "layout": "flat"}, headers=headers)
    assert reply.status_code == 200
    token = reply.json()["token"]
    assert token and token != "sandbox_webhook_token_0001"
    await charge(sandbox, http, "4111111111111111")
    (delivery,) = await receiver.wait_for(1)
    assert delivery.headers["Authorization"] == token
    assert isinstance(parse_webhook(delivery.body), PaymentFlat)
    await sandbox.webhooks_idle()
    log = await http.get(sandbox.base_url + "/_sandbox/deliveries", headers=headers)
    assert [(r["outcome"], r["status"]) for r in log.json()] == [("delivered", 200)]


@pytest.mark.parametrize(
    "url",
    [
        "http://localhost/hook",
        "https://localhost/hook?x=1",
        "https://localhost/hook?",
        "https://127.0.0.1/hook",
        "https://10.1.2.3:8443/hook",
        "https://2130706433/hook",
        "https://user:pw@localhost/hook",
        "https://localhost/ho ok",
        "https://localhost/hook#frag",
        "ftp://localhost/hook",
        "",
        "https:///hook",
    ],
)
def test_notification_url_rules_refuse(url: str) -> None:
    with pytest.raises(NotificationUrlError):
        SandboxServer(fast_config(webhook_url=url))


@pytest.mark.parametrize(
    "url",
    ["https://localhost:8443/webhooks", "https://shop.example.com/hooks/picpay", "https://[::1]/h"],
)
def test_notification_url_rules_accept(url: str) -> None:
    assert SandboxServer(fast_config(webhook_url=url)).config.webhook_url == url
