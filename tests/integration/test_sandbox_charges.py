"""The sandbox's charge API over real HTTP: every test card, capture, refund and state rules."""

from __future__ import annotations

import asyncio
import logging

import httpx
import pytest

from checkout_desktop.domain.enums import ChargeStatus, TransactionStatus
from checkout_desktop.domain.wire import ApiErrorBody, ChargeReply
from checkout_desktop.sandbox.server import SandboxServer
from tests.integration.test_sandbox_fixtures import (
    Api,
    SdkClient,
    access_token,
    charge_body,
    new_charge_id,
)

pytest_plugins = ["tests.integration.test_sandbox_fixtures"]

logger = logging.getLogger(__name__)

APPROVED_CARDS = [
    ("4111111111111111", "VISA"),
    ("5555555555554444", "MASTERCARD"),
    ("6362970000457013", "ELO"),
    ("378282246310005", "AMEX"),
    ("6062825624254001", "HIPERCARD"),
]


def reply_of(response: httpx.Response) -> ChargeReply:
    assert response.status_code == 200, response.text
    return ChargeReply.model_validate(response.json())


def error_of(response: httpx.Response) -> ApiErrorBody:
    assert response.headers["content-type"].startswith("application/json")
    return ApiErrorBody.model_validate(response.json())


@pytest.mark.asyncio
@pytest.mark.parametrize(("number", "brand"), APPROVED_CARDS)
async def test_approved_cards_are_paid(api: Api, sdk: SdkClient, number: str, brand: str) -> None:
    token = await sdk.tokenize(number)
    body = charge_body(token, amount=2599)
    reply = reply_of(await api.authorize(body))
    assert reply.chargeStatus == ChargeStatus.PAID
    assert reply.merchantChargeId == body["merchantChargeId"]
    assert reply.amount == reply.originalAmount == 2599
    assert reply.refundedAmount == 0
    (txn,) = reply.transactions
    assert txn.transactionStatus == TransactionStatus.PAID
    assert txn.credit is not None
    assert txn.credit.brand == brand
    assert txn.credit.last_four == number[-4:]
    assert txn.credit.cardNumber == f"{number[:6]}******{number[-4:]}"
    assert txn.credit.authorizationCode
    assert txn.createdAt is not None and txn.createdAt.has_offset


@pytest.mark.asyncio
async def test_late_capture_gives_pre_authorized_then_capture_pays(
    api: Api, sdk: SdkClient
) -> None:
    token = await sdk.tokenize("4111111111111111")
    body = charge_body(token, amount=5000, late_capture=True)
    reply = reply_of(await api.authorize(body))
    assert reply.chargeStatus == ChargeStatus.PRE_AUTHORIZED
    assert reply.transactions[0].transactionStatus == TransactionStatus.PRE_AUTHORIZED
    captured = reply_of(await api.capture(body["merchantChargeId"], 4000))
    assert captured.chargeStatus == ChargeStatus.PAID
    assert captured.amount == 4000
    assert captured.originalAmount == 5000
    again = await api.capture(body["merchantChargeId"], 1000)
    assert again.status_code == 400
    assert "already captured" in error_of(again).describe()


@pytest.mark.asyncio
async def test_capture_without_body_captures_everything(api: Api, sdk: SdkClient) -> None:
    body = charge_body(await sdk.tokenize("5555555555554444"), amount=777, late_capture=True)
    reply_of(await api.authorize(body))
    captured = reply_of(await api.capture(body["merchantChargeId"]))
    assert captured.chargeStatus == ChargeStatus.PAID
    assert captured.amount == 777


@pytest.mark.asyncio
async def test_capture_above_authorized_amount_is_refused(api: Api, sdk: SdkClient) -> None:
    body = charge_body(await sdk.tokenize("4111111111111111"), amount=1000, late_capture=True)
    reply_of(await api.authorize(body))
    response = await api.capture(body["merchantChargeId"], 1001)
    assert response.status_code == 400
    assert "above the authorized amount 1000" in error_of(response).describe()
    still = reply_of(await api.get(body["merchantChargeId"]))
    assert still.chargeStatus == ChargeStatus.PRE_AUTHORIZED


@pytest.mark.asyncio
async def test_denied_card_is_http_200_with_denied_statuses(api: Api, sdk: SdkClient) -> None:
    body = charge_body(await sdk.tokenize("4000000000000002"))
    reply = reply_of(await api.authorize(body))
    assert reply.chargeStatus == ChargeStatus.DENIED
    assert reply.transactions[0].transactionStatus == TransactionStatus.DENIED
    assert reply.transactions[0].credit is not None
    assert reply.transactions[0].credit.authorizationCode is None
    capture = await api.capture(body["merchantChargeId"], 100)
    assert capture.status_code == 400
    assert "denied charge cannot be captured" in error_of(capture).describe()
    refund = await api.refund(body["merchantChargeId"], 100)
    assert refund.status_code == 400


@pytest.mark.asyncio
async def test_gateway_error_card_gives_500_and_no_charge(api: Api, sdk: SdkClient) -> None:
    token = await sdk.tokenize("4000000000000119")
    body = charge_body(token)
    response = await api.authorize(body)
    assert response.status_code == 500
    assert "no charge was created" in error_of(response).describe()
    missing = await api.get(body["merchantChargeId"])
    assert missing.status_code == 400
    assert missing.json()["businessCode"] == "CHARGE_NOT_FOUND"
    assert body["merchantChargeId"] not in api.server.state.charges
    # Nothing happened, so the merchantChargeId is still free (and the token unspent).
    again = await api.authorize(body)
    assert again.status_code == 500


@pytest.mark.asyncio
async def test_slow_card_reply_is_late_but_charge_is_paid(api: Api, sdk: SdkClient) -> None:
    api.server.config.slow_card_delay_s = 5.0
    body = charge_body(await sdk.tokenize("4000000000009995"))
    with pytest.raises(httpx.ReadTimeout):
        await api.authorize(body, timeout=httpx.Timeout(10.0, read=0.3))
    # The client gave up, yet the charge exists and is paid: only a query can tell.
    found = reply_of(await api.get(body["merchantChargeId"]))
    assert found.chargeStatus == ChargeStatus.PAID
    retry = await api.authorize(body)
    assert retry.status_code == 400
    assert "already used" in error_of(retry).describe()
    assert len([c for c in api.server.state.charges if c == body["merchantChargeId"]]) == 1


@pytest.mark.asyncio
async def test_slow_card_reply_arrives_after_the_configured_delay(api: Api, sdk: SdkClient) -> None:
    api.server.config.slow_card_delay_s = 0.2
    body = charge_body(await sdk.tokenize("4000000000009995"))
    loop = asyncio.get_running_loop()
    started = loop.time()
    reply = reply_of(await api.authorize(body))
    assert loop.time() - started >= 0.2
    assert reply.chargeStatus == ChargeStatus.PAID


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("number", "final"),
    [
        ("4000000000003063", ChargeStatus.PAID),
        ("4000000000003220", ChargeStatus.DENIED),
        ("4000008400001629", ChargeStatus.DENIED),
        ("4000000000001042", ChargeStatus.PAID),
    ],
)
async def test_three_ds_cards_on_the_plain_authorization_are_decided_at_once(
    api: Api, sdk: SdkClient, number: str, final: ChargeStatus
) -> None:
    # No public source shows a deferred challenge on /charge/authorization: a card whose issuer
    # insists on 3DS is denied there, the others are charged without it. Never PENDING.
    body = charge_body(await sdk.tokenize(number))
    reply = reply_of(await api.authorize(body))
    assert reply.chargeStatus == final
    assert reply.transactions[0].transactionStatus == final.value
    settled = reply_of(await api.get(body["merchantChargeId"]))
    assert settled.chargeStatus == final
    assert api.server.state.charges[body["merchantChargeId"]].three_ds is None


@pytest.mark.asyncio
async def test_card_outside_the_table_is_approved(api: Api, sdk: SdkClient) -> None:
    # A Luhn-valid Visa number that is not a test card.
    token = await sdk.tokenize("4012888888881881")
    reply = reply_of(await api.authorize(charge_body(token)))
    assert reply.chargeStatus == ChargeStatus.PAID


@pytest.mark.asyncio
async def test_two_cards_in_one_charge(api: Api, sdk: SdkClient) -> None:
    tokens = [await sdk.tokenize("4111111111111111"), await sdk.tokenize("5555555555554444")]
    body = charge_body(tokens, amount=1000)
    reply = reply_of(await api.authorize(body))
    assert reply.chargeStatus == ChargeStatus.PAID
    assert reply.amount == 2000
    assert [t.credit.brand for t in reply.transactions if t.credit] == ["VISA", "MASTERCARD"]


@pytest.mark.asyncio
async def test_one_denied_card_voids_the_other(api: Api, sdk: SdkClient) -> None:
    tokens = [await sdk.tokenize("4111111111111111"), await sdk.tokenize("4000000000000002")]
    reply = reply_of(await api.authorize(charge_body(tokens)))
    assert reply.chargeStatus == ChargeStatus.DENIED
    assert [t.transactionStatus for t in reply.transactions] == ["CANCELED", "DENIED"]


@pytest.mark.asyncio
async def test_the_same_token_twice_in_one_charge_is_refused(api: Api, sdk: SdkClient) -> None:
    token = await sdk.tokenize("4111111111111111")
    response = await api.authorize(charge_body([token, token]))
    assert response.status_code == 400
    fields = [e.field for e in error_of(response).errors or []]
    assert fields == ["transactions[1].credit.temporaryCardToken"]


@pytest.mark.asyncio
async def test_card_token_is_single_use(api: Api, sdk: SdkClient) -> None:
    token = await sdk.tokenize("4111111111111111")
    reply_of(await api.authorize(charge_body(token)))
    response = await api.authorize(charge_body(token))
    assert response.status_code == 400
    assert "already used" in error_of(response).describe()


@pytest.mark.asyncio
async def test_card_token_expires(api: Api, sdk: SdkClient) -> None:
    token = await sdk.tokenize("4111111111111111")
    api.server.clock.advance(api.server.config.card_token_lifetime_s + 1)
    # The access token has expired as well by now; fetch a fresh one.
    api.token = await access_token(api.client, api.server)
    response = await api.authorize(charge_body(token))
    assert response.status_code == 400
    assert "expired" in error_of(response).describe()


@pytest.mark.asyncio
async def test_unknown_card_token_is_refused(api: Api) -> None:
    response = await api.authorize(charge_body("card_t/NotIssuedByTheSandbox"))
    assert response.status_code == 400
    (item,) = error_of(response).errors or []
    assert item.field == "transactions[0].credit.temporaryCardToken"
    assert item.message == "unknown temporary card token"


@pytest.mark.asyncio
async def test_by_default_only_the_spec_spelling_temporaty_card_token_is_read(
    api: Api, sdk: SdkClient
) -> None:
    body = charge_body(await sdk.tokenize("4111111111111111"))
    credit = body["transactions"][0]["credit"]
    credit["temporaryCardToken"] = credit.pop("temporatyCardToken")
    refused = await api.authorize(body)
    assert refused.status_code == 400
    assert refused.json()["businessCode"] == "CARD_TOKEN_MISSING"
    (item,) = refused.json()["errors"]
    assert item["field"] == "transactions[0].credit.temporatyCardToken"
    # Nothing was created: the same merchantChargeId and card token work with the other spelling.
    credit["temporatyCardToken"] = credit.pop("temporaryCardToken")
    assert reply_of(await api.authorize(body)).chargeStatus == ChargeStatus.PAID


@pytest.mark.asyncio
async def test_reused_merchant_charge_id_fails(api: Api, sdk: SdkClient) -> None:
    charge_id = new_charge_id()
    first = charge_body(await sdk.tokenize("4111111111111111"), merchant_charge_id=charge_id)
    reply_of(await api.authorize(first))
    second = charge_body(await sdk.tokenize("5555555555554444"), merchant_charge_id=charge_id)
    response = await api.authorize(second)
    assert response.status_code == 400
    (item,) = error_of(response).errors or []
    assert item.field == "merchantChargeId"
    # The refused attempt did not spend its card token.
    token = second["transactions"][0]["credit"]["temporatyCardToken"]
    assert not api.server.state.card_tokens[token].used


@pytest.mark.asyncio
async def test_concurrent_requests_with_one_merchant_charge_id_make_one_charge(
    api: Api, sdk: SdkClient
) -> None:
    charge_id = new_charge_id()
    bodies = [
        charge_body(await sdk.tokenize("4111111111111111"), merchant_charge_id=charge_id)
        for _ in range(5)
    ]
    replies = await asyncio.gather(*(api.authorize(b) for b in bodies))
    assert sorted(r.status_code for r in replies) == [200, 400, 400, 400, 400]


@pytest.mark.asyncio
@pytest.mark.parametrize("variant", ["PARTIAL", "PAID"])
async def test_full_and_partial_refunds(api: Api, sdk: SdkClient, variant: str) -> None:
    api.server.variants.update({"partial-refund": variant})
    body = charge_body(await sdk.tokenize("4111111111111111"), amount=10_000)
    charge_id = body["merchantChargeId"]
    reply_of(await api.authorize(body))
    partial = reply_of(await api.refund(charge_id, 2_500))
    assert partial.chargeStatus == ChargeStatus(variant)
    assert reply_of(await api.get(charge_id)).chargeStatus == ChargeStatus(variant)
    assert partial.refundedAmount == 2_500
    assert partial.transactions[0].transactionStatus == TransactionStatus.PARTIALLY_REFUNDED
    too_much = await api.refund(charge_id, 7_501)
    assert too_much.status_code == 400
    assert "7500 still refundable" in error_of(too_much).describe()
    rest = reply_of(await api.refund(charge_id, 7_500))
    assert rest.chargeStatus == ChargeStatus.REFUNDED
    assert rest.refundedAmount == 10_000
    assert rest.transactions[0].transactionStatus == TransactionStatus.REFUNDED
    again = await api.refund(charge_id, 1)
    assert again.status_code == 400
    assert "already fully refunded" in error_of(again).describe()


@pytest.mark.asyncio
async def test_refund_of_a_pre_authorization_cancels_it_in_full_only(
    api: Api, sdk: SdkClient
) -> None:
    body = charge_body(await sdk.tokenize("4111111111111111"), amount=3_000, late_capture=True)
    charge_id = body["merchantChargeId"]
    reply_of(await api.authorize(body))
    partial = await api.refund(charge_id, 1_000)
    assert partial.status_code == 400
    canceled = reply_of(await api.refund(charge_id, 3_000))
    assert canceled.chargeStatus == ChargeStatus.CANCELED
    capture = await api.capture(charge_id)
    assert capture.status_code == 400
    assert "CANCELED charge cannot be captured" in error_of(capture).describe()


@pytest.mark.asyncio
async def test_refund_needs_an_amount(api: Api, sdk: SdkClient) -> None:
    body = charge_body(await sdk.tokenize("4111111111111111"))
    reply_of(await api.authorize(body))
    for payload in (None, 0, -5, "10", 1.5):
        response = await api.client.post(
            f"{api.server.base_url}/api/v1/charge/{body['merchantChargeId']}/refund",
            json=None if payload is None else {"amount": payload},
            headers=api.headers,
        )
        assert response.status_code == 400, payload
        assert error_of(response).errors


@pytest.mark.asyncio
@pytest.mark.parametrize("status", [400, 404])
async def test_unknown_charge_is_not_found_in_the_documented_body(api: Api, status: int) -> None:
    api.server.variants.update({"not-found": str(status)})
    for response in (
        await api.get("does-not-exist"),
        await api.capture("does-not-exist"),
        await api.refund("does-not-exist", 10),
    ):
        assert response.status_code == status
        body = response.json()
        assert body["success"] is False
        assert body["businessCode"] == "CHARGE_NOT_FOUND"
        assert body["errors"] == [
            {"message": "charge does-not-exist not found", "field": "merchantChargeId"}
        ]
        assert "Charge not found." in error_of(response).describe()


@pytest.mark.asyncio
async def test_every_charge_call_needs_a_valid_bearer_token(
    sandbox: SandboxServer, http: httpx.AsyncClient
) -> None:
    base = sandbox.base_url
    calls = [
        ("POST", "/api/v1/charge/authorization"),
        ("GET", "/api/v1/charge/abcdef"),
        ("POST", "/api/v1/charge/abcdef/capture"),
        ("POST", "/api/v1/charge/abcdef/refund"),
    ]
    for header in (None, "Bearer", "Basic abc", "Bearer not.a.token", "token-without-scheme"):
        headers = {} if header is None else {"Authorization": header}
        for method, path in calls:
            response = await http.request(method, base + path, headers=headers, json={})
            assert response.status_code == 401, (header, path)
            assert response.headers["WWW-Authenticate"].startswith("Bearer")
            assert error_of(response).errors


@pytest.mark.asyncio
async def test_expired_access_token_is_401(api: Api, sdk: SdkClient) -> None:
    token = await sdk.tokenize("4111111111111111")
    api.server.clock.advance(api.server.config.token_lifetime_s)
    response = await api.authorize(charge_body(token))
    assert response.status_code == 401
    assert "expired" in error_of(response).describe()


@pytest.mark.asyncio
async def test_wrong_content_type_is_415(api: Api) -> None:
    response = await api.client.post(
        api.server.base_url + "/api/v1/charge/authorization",
        content=b"merchantChargeId=abc",
        headers={**api.headers, "Content-Type": "application/x-www-form-urlencoded"},
    )
    assert response.status_code == 415
    assert "application/json" in error_of(response).describe()


@pytest.mark.asyncio
async def test_bad_charge_bodies_get_field_errors(api: Api, sdk: SdkClient) -> None:
    token = await sdk.tokenize("4111111111111111")
    cases: list[tuple[str, object, str]] = [
        ("merchantChargeId", "abc", "merchantChargeId"),
        ("merchantChargeId", "has spaces here", "merchantChargeId"),
        ("lateCapture", "maybe", "lateCapture"),
        ("transactions", [], "transactions"),
        # The e-mail may be left out (the terminal omits an empty one); a bad one is refused.
        ("customer", {"name": "X"}, "customer.document"),
        (
            "customer",
            {
                "name": "X",
                "email": "not-an-address",
                "documentType": "CPF",
                "document": "52998224725",
            },
            "customer.email",
        ),
        ("unexpected", 1, "unexpected"),
    ]
    for key, value, field in cases:
        body = charge_body(token)
        body[key] = value
        response = await api.authorize(body)
        assert response.status_code == 400, (key, value)
        fields = [e.field for e in error_of(response).errors or []]
        assert field in fields, (key, fields)
    body = charge_body(token)
    body["customer"]["document"] = "11111111111"
    response = await api.authorize(body)
    assert response.status_code == 400
    assert "not a valid CPF" in error_of(response).describe()
    body = charge_body(token)
    body["transactions"][0]["amount"] = 0
    response = await api.authorize(body)
    assert [e.field for e in error_of(response).errors or []] == ["transactions[0].amount"]


@pytest.mark.asyncio
async def test_raw_card_data_in_the_charge_is_refused_by_name(api: Api, sdk: SdkClient) -> None:
    body = charge_body(await sdk.tokenize("4111111111111111"))
    body["transactions"][0]["credit"]["cardNumber"] = "4111111111111111"
    body["transactions"][0]["credit"]["cvv"] = "123"
    response = await api.authorize(body)
    assert response.status_code == 400
    text = response.text
    assert "4111111111111111" not in text
    assert "tokenize the card with the SDK" in text
    assert "transactions[0].credit.cvv" in text
