"""Hostile and broken requests get a clear 4xx and never crash the sandbox; no card data is logged."""

from __future__ import annotations

import json
import logging
import re

import httpx
import pytest

from checkout_desktop.sandbox import charges
from checkout_desktop.sandbox.cards import TEST_CARDS
from checkout_desktop.sandbox.server import SandboxServer
from tests.integration.test_sandbox_fixtures import (
    Api,
    SdkClient,
    WebhookReceiver,
    access_token,
    card_body,
    charge_body,
)

pytest_plugins = ["tests.integration.test_sandbox_fixtures"]

logger = logging.getLogger(__name__)

UNUSUAL_CVV = "739"


async def still_serving(api: Api, sdk: SdkClient) -> None:
    token = await sdk.tokenize("4111111111111111")
    reply = await api.authorize(charge_body(token))
    assert reply.status_code == 200


@pytest.mark.asyncio
async def test_huge_bodies_are_413_with_json(api: Api, sdk: SdkClient) -> None:
    big = b'{"x":"' + b"a" * (api.server.config.max_api_body_bytes + 10) + b'"}'
    response = await api.client.post(
        api.server.base_url + "/api/v1/charge/authorization",
        content=big,
        headers={**api.headers, "Content-Type": "application/json"},
    )
    assert response.status_code == 413
    assert response.json()["message"] == "the request body is too large"
    sdk_big = b'{"cvv":"' + b"1" * (api.server.config.max_sdk_body_bytes + 10) + b'"}'
    response = await sdk.request(
        "POST",
        "/payment/v2/temporary/card",
        content=sdk_big,
        headers={**sdk.credentials_headers(), "Content-Type": "application/json"},
    )
    assert response.status_code == 413
    assert response.json()["errors"][0]["message"] == "Corpo da requisição grande demais."
    await still_serving(api, sdk)


@pytest.mark.asyncio
async def test_malformed_and_strange_json(api: Api, sdk: SdkClient) -> None:
    url = api.server.base_url + "/api/v1/charge/authorization"
    headers = {**api.headers, "Content-Type": "application/json"}
    payloads = [
        b"{",
        b"not json at all",
        b"[" * 50_000 + b"]" * 50_000,
        b'{"a":' * 20_000 + b"1" + b"}" * 20_000,
        b"\x00\x01\x02",
        b'{"merchantChargeId": "\xff\xfe"}',
        b"123",
        b'"just a string"',
        b'{"merchantChargeId": 1e999}',
        b'{"transactions": {"0": {}}}',
        b'{"customer": [], "transactions": "none"}',
        json.dumps(charge_body("card_t/abcdef") | {"lateCapture": "yes"}).encode(),
        json.dumps({"merchantChargeId": "x" * 5000}).encode(),
    ]
    for payload in payloads:
        response = await api.client.post(url, content=payload, headers=headers)
        assert response.status_code == 400, payload[:40]
        body = response.json()
        assert body["message"], payload[:40]
    await still_serving(api, sdk)


@pytest.mark.asyncio
async def test_wrong_types_name_each_field(api: Api) -> None:
    body = charge_body("card_t/abcdef")
    body["transactions"][0]["amount"] = "1500"
    body["transactions"][0]["credit"]["installmentNumber"] = 1.0
    body["lateCapture"] = 1
    response = await api.authorize(body)
    assert response.status_code == 400
    fields = sorted(e["field"] for e in response.json()["errors"])
    assert fields == [
        "lateCapture",
        "transactions[0].amount",
        "transactions[0].credit.installmentNumber",
    ]


@pytest.mark.asyncio
async def test_unknown_paths_and_methods_are_json(api: Api) -> None:
    base = api.server.base_url
    missing = await api.client.get(base + "/api/v2/everything")
    assert missing.status_code == 404
    assert missing.json()["message"] == "no such path: GET /api/v2/everything"
    wrong = await api.client.delete(base + "/api/v1/charge/authorization")
    assert wrong.status_code == 405
    assert "not allowed" in wrong.json()["message"]


@pytest.mark.expected_errors("unexpected RuntimeError handling GET /api/v1/charge/")
@pytest.mark.asyncio
async def test_an_unexpected_failure_is_a_500_that_logs_no_details(
    api: Api, sdk: SdkClient, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    token = await sdk.tokenize("4111111111111111")
    body = charge_body(token)
    assert (await api.authorize(body)).status_code == 200

    def broken(_: object, **__: object) -> dict[str, object]:
        raise RuntimeError("secret detail 4111111111111111")

    monkeypatch.setattr(charges, "charge_reply", broken)
    with caplog.at_level(logging.DEBUG):
        response = await api.get(body["merchantChargeId"])
    assert response.status_code == 500
    assert response.json() == {
        "message": "internal error in the sandbox",
        "success": False,
        "businessCode": "INTERNAL_ERROR",
        "errors": [],
    }
    assert "unexpected RuntimeError" in caplog.text
    assert "4111111111111111" not in caplog.text
    assert "secret detail" not in caplog.text
    monkeypatch.undo()
    assert (await api.get(body["merchantChargeId"])).status_code == 200


@pytest.mark.asyncio
async def test_no_card_number_or_cvv_in_logs(
    wired: tuple[SandboxServer, WebhookReceiver],
    http: httpx.AsyncClient,
    caplog: pytest.LogCaptureFixture,
) -> None:
    server, receiver = wired
    caplog.set_level(logging.DEBUG)
    api = Api(server, http, await access_token(http, server))
    async with httpx.AsyncClient(verify=server.certificate.client_context()) as sdk_http:
        sdk = SdkClient(server, sdk_http)
        for card in TEST_CARDS:
            cvv = UNUSUAL_CVV + ("1" if card.number.startswith("3") else "")
            await sdk.card_bin(card.number[:6])
            token = await sdk.tokenize(card.number, cvv=cvv)
            server.config.slow_card_delay_s = 0.01
            await api.authorize(charge_body(token, late_capture=card.number.endswith("1111")))
            # Refused cards go through the error paths, which must not log them either.
            await sdk.temporary_card(card_body(card.number, cvv="12"))
            await sdk.temporary_card(card_body(card.number[:-1] + "0", cvv=cvv))
        await api.authorize(
            charge_body("card_t/abcdef")
            | {"transactions": [{"amount": 1, "credit": {"cardNumber": TEST_CARDS[0].number}}]}
        )
    await server.webhooks_idle()
    assert len(caplog.records) > 10
    text = "\n".join(r.getMessage() + (r.exc_text or "") for r in caplog.records)
    for card in TEST_CARDS:
        assert card.number not in text
        assert card.number[:-1] + "0" not in text
    assert not re.search(rf"\b{UNUSUAL_CVV}\d?\b", text)
    # Deliveries carry masked card-holder data only.
    for delivery in receiver.received:
        raw = json.dumps(delivery.body)
        assert not any(card.number in raw for card in TEST_CARDS)
        assert "cvv" not in raw.lower()
