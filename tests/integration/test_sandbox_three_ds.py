"""The sandbox's 3DS over real HTTP: setup, enrollment, status, the ACS page, authorization."""

from __future__ import annotations

import logging
import re
from typing import Any

import httpx
import pytest

from checkout_desktop.domain.enums import ChargeStatus
from checkout_desktop.domain.wire import ChargeReply
from tests.integration.test_sandbox_fixtures import BROWSER, Api, SdkClient, charge_body

pytest_plugins = ["tests.integration.test_sandbox_fixtures"]

logger = logging.getLogger(__name__)

FRICTIONLESS = "4000000000003063"
CHALLENGE = "4000000000003220"
REJECTED = "4000008400001629"
UNAVAILABLE = "4000000000001042"
GATEWAY_ERROR = "4000000000000119"
SLOW = "4000000000009995"
DENIED = "4000000000000002"


def authorization_body(charge_id: str, auth_id: str, *, capture: bool = True) -> dict[str, Any]:
    return {
        "chargeId": charge_id,
        "capture": capture,
        "transactions": [
            {
                "installmentNumber": 1,
                "installmentType": "NONE",
                "card": {"cardholderAuthenticationId": auth_id},
            }
        ],
    }


async def status_of(api: Api, charge_id: str) -> dict[str, Any]:
    response = await api.three_ds_status(charge_id)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


@pytest.mark.asyncio
async def test_frictionless_card_is_authenticated_then_paid_once(api: Api, sdk: SdkClient) -> None:
    charge_id, auth_id, enrolled = await api.authenticate(await sdk.tokenize(FRICTIONLESS))
    assert enrolled["status_code"] == 200
    assert enrolled["transactions"][0]["cardholderAuthenticationStatus"] == "Approved"
    assert await status_of(api, charge_id) == {"status": "AUTHENTICATED", "hasChallenged": False}
    paid = await api.three_ds("authorization", authorization_body(charge_id, auth_id))
    assert paid.status_code == 200, paid.text
    reply = ChargeReply.model_validate(paid.json())
    assert reply.chargeStatus == ChargeStatus.PAID
    mcid = api.server.state.three_ds[charge_id].merchant_charge_id
    assert reply.merchantChargeId == mcid
    # A second authorization of the same authentication creates nothing.
    again = await api.three_ds("authorization", authorization_body(charge_id, auth_id))
    assert again.status_code == 400
    assert list(api.server.state.charges) == [mcid]
    found = await api.get(mcid)
    assert ChargeReply.model_validate(found.json()).chargeStatus == ChargeStatus.PAID


@pytest.mark.asyncio
async def test_wrapped_reply_variant_and_late_capture(api: Api, sdk: SdkClient) -> None:
    api.server.variants.update({"three-ds-reply": "wrapped"})
    charge_id, auth_id, _ = await api.authenticate(await sdk.tokenize(FRICTIONLESS))
    reply = await api.three_ds(
        "authorization", authorization_body(charge_id, auth_id, capture=False)
    )
    assert reply.status_code == 200
    body = reply.json()
    assert set(body) == {"charge"}
    assert body["charge"]["chargeStatus"] == "PRE_AUTHORIZED"
    assert ChargeReply.model_validate(body).chargeStatus == ChargeStatus.PRE_AUTHORIZED


@pytest.mark.asyncio
async def test_status_of_an_unknown_charge_id_is_404(api: Api) -> None:
    response = await api.three_ds_status("00000000-0000-0000-0000-000000000000")
    assert response.status_code == 404
    assert response.json()["businessCode"] == "THREE_DS_NOT_FOUND"


@pytest.mark.asyncio
async def test_challenge_is_answered_on_the_acs_page(api: Api, sdk: SdkClient) -> None:
    charge_id, auth_id, enrolled = await api.authenticate(await sdk.tokenize(CHALLENGE))
    answer = enrolled["transactions"][0]
    assert answer["cardholderAuthenticationStatus"] == "Challenged"
    assert answer["stepUpUrl"] == f"https://{sdk.server.sdk_host}/3ds/acs/challenge"
    assert (answer["widthChallenge"], answer["heightChallenge"]) == (390, 400)
    assert await status_of(api, charge_id) == {"status": "CREATED", "hasChallenged": False}
    early = await api.three_ds("authorization", authorization_body(charge_id, auth_id))
    assert early.status_code == 400
    assert "not AUTHENTICATED" in early.json()["message"]
    page = await sdk.request("POST", "/3ds/acs/challenge", data={"JWT": answer["accessToken"]})
    assert page.status_code == 200
    assert "id='acs-code'" in page.text
    assert re.search(r"frame-ancestors", page.headers["Content-Security-Policy"])
    done = await sdk.request(
        "POST", "/3ds/acs/answer", data={"JWT": answer["accessToken"], "code": "1234"}
    )
    assert "data-result='AUTHENTICATED'" in done.text
    assert await status_of(api, charge_id) == {"status": "AUTHENTICATED", "hasChallenged": True}
    # The token is spent once the customer answered.
    replay = await sdk.request("POST", "/3ds/acs/challenge", data={"JWT": answer["accessToken"]})
    assert replay.status_code == 400
    paid = await api.three_ds("authorization", authorization_body(charge_id, auth_id))
    assert ChargeReply.model_validate(paid.json()).chargeStatus == ChargeStatus.PAID


@pytest.mark.asyncio
async def test_a_wrong_code_rejects_and_the_card_cannot_be_authorized(
    api: Api, sdk: SdkClient
) -> None:
    charge_id, auth_id, enrolled = await api.authenticate(await sdk.tokenize(CHALLENGE))
    token = enrolled["transactions"][0]["accessToken"]
    done = await sdk.request("POST", "/3ds/acs/answer", data={"JWT": token, "code": "9999"})
    assert "data-result='REJECTED'" in done.text
    assert await status_of(api, charge_id) == {"status": "REJECTED", "hasChallenged": True}
    refused = await api.three_ds("authorization", authorization_body(charge_id, auth_id))
    assert refused.status_code == 400
    assert api.server.state.charges == {}


@pytest.mark.asyncio
async def test_admin_completes_a_challenge_without_a_browser(api: Api, sdk: SdkClient) -> None:
    charge_id, _, _ = await api.authenticate(await sdk.tokenize(CHALLENGE))
    bad = await api.complete_challenge(charge_id, "maybe")
    assert bad.status_code == 400
    done = await api.complete_challenge(charge_id, "reject")
    assert done.json() == {"status": "REJECTED", "hasChallenged": True}
    twice = await api.complete_challenge(charge_id, "approve")
    assert twice.status_code == 400
    assert (await status_of(api, charge_id))["status"] == "REJECTED"


@pytest.mark.asyncio
async def test_rejected_and_unavailable_cards(api: Api, sdk: SdkClient) -> None:
    charge_id, _, enrolled = await api.authenticate(await sdk.tokenize(REJECTED))
    assert enrolled["transactions"][0]["cardholderAuthenticationStatus"] == "Rejected"
    assert (await status_of(api, charge_id))["status"] == "REJECTED"
    charge_id, _, enrolled = await api.authenticate(await sdk.tokenize(UNAVAILABLE))
    assert enrolled["status_code"] == 502
    assert enrolled["businessCode"] == "3DS_PROVIDER_UNAVAILABLE"
    assert (await status_of(api, charge_id))["status"] == "FAILED"


@pytest.mark.asyncio
async def test_setup_refuses_a_token_under_the_card_data_variant(api: Api, sdk: SdkClient) -> None:
    api.server.variants.update({"three-ds-card": "card-data"})
    token = await sdk.tokenize(FRICTIONLESS)
    response = await api.three_ds(
        "setup",
        {
            "paymentSource": "GATEWAY",
            "transactions": [
                {"amount": 100, "paymentType": "CREDIT", "card": {"temporaryCardToken": token}}
            ],
        },
    )
    assert response.status_code == 400
    assert response.json()["errors"][0]["field"] == "transactions[0].card.cardNumber"
    assert api.server.state.three_ds == {}


@pytest.mark.asyncio
async def test_setup_refuses_raw_card_data_and_unknown_tokens(api: Api) -> None:
    for card in ({"cardNumber": "4111111111111111", "cvv": "123"}, {"temporaryCardToken": "x"}):
        response = await api.three_ds(
            "setup",
            {"transactions": [{"amount": 100, "paymentType": "CREDIT", "card": card}]},
        )
        assert response.status_code == 400
        assert "4111111111111111" not in response.text
    assert api.server.state.three_ds == {}


@pytest.mark.asyncio
async def test_enrollment_needs_the_phone_country_code_and_the_browser(
    api: Api, sdk: SdkClient
) -> None:
    token = await sdk.tokenize(FRICTIONLESS)
    setup = await api.three_ds(
        "setup",
        {
            "transactions": [
                {"amount": 100, "paymentType": "CREDIT", "card": {"temporaryCardToken": token}}
            ]
        },
    )
    charge_id = setup.json()["chargeId"]
    customer = charge_body("x")["customer"]
    no_phone = {k: v for k, v in customer.items() if k != "phone"}
    response = await api.three_ds(
        "enrollment", {"chargeId": charge_id, "customer": no_phone, "browser": BROWSER}
    )
    assert response.status_code == 400
    assert response.json()["errors"][0]["field"] == "customer.phone.countryCode"
    browser = {k: v for k, v in BROWSER.items() if k != "httpBrowserColorDepth"}
    response = await api.three_ds(
        "enrollment", {"chargeId": charge_id, "customer": customer, "browser": browser}
    )
    assert response.status_code == 400
    assert response.json()["errors"][0]["field"] == "browser.httpBrowserColorDepth"
    unknown = await api.three_ds("enrollment", {"chargeId": "nope", "customer": customer})
    assert unknown.status_code == 404


@pytest.mark.asyncio
async def test_enrollment_names_the_setup_card_by_its_token(api: Api, sdk: SdkClient) -> None:
    token = await sdk.tokenize(FRICTIONLESS)
    other = await sdk.tokenize(FRICTIONLESS)
    setup = await api.three_ds(
        "setup",
        {
            "transactions": [
                {"amount": 100, "paymentType": "CREDIT", "card": {"temporaryCardToken": token}}
            ]
        },
    )
    charge_id = setup.json()["chargeId"]
    asked = {"chargeId": charge_id, "customer": charge_body("x")["customer"], "browser": BROWSER}

    def with_card(card: dict[str, Any] | None) -> dict[str, Any]:
        txn: dict[str, Any] = {"amount": 100}
        if card is not None:
            txn["card"] = card
        return {**asked, "transactions": [txn]}

    refused = [
        (None, "transactions[0].card"),
        ({"number": FRICTIONLESS, "cvv": "123"}, "transactions[0].card"),
        ({"temporaryCardToken": other}, "transactions[0].card.temporaryCardToken"),
    ]
    for card, field in refused:
        response = await api.three_ds("enrollment", with_card(card))
        assert response.status_code == 400, (card, response.text)
        assert response.json()["errors"][0]["field"] == field
        assert FRICTIONLESS not in response.text
    # Refusals spend nothing: the setup's own token still enrolls it.
    enrolled = await api.three_ds("enrollment", with_card({"temporaryCardToken": token}))
    assert enrolled.status_code == 200, enrolled.text
    assert enrolled.json()["transactions"][0]["cardholderAuthenticationStatus"] == "Approved"


@pytest.mark.asyncio
async def test_the_3ds_authorization_applies_the_test_cards_rules(api: Api, sdk: SdkClient) -> None:
    # The test-card table holds with 3DS too: the gateway-error card creates no charge (500),
    # the denied card is denied, the slow card is PAID but its reply comes late.
    charge_id, auth_id, enrolled = await api.authenticate(await sdk.tokenize(GATEWAY_ERROR))
    assert enrolled["transactions"][0]["cardholderAuthenticationStatus"] == "Approved"
    failed = await api.three_ds("authorization", authorization_body(charge_id, auth_id))
    assert failed.status_code == 500, failed.text
    session = api.server.state.three_ds[charge_id]
    assert api.server.state.charges == {}
    # Nothing happened: the authentication and its card are still unspent.
    assert not session.authorized and not session.card.used

    charge_id, auth_id, _ = await api.authenticate(await sdk.tokenize(DENIED))
    denied = await api.three_ds("authorization", authorization_body(charge_id, auth_id))
    assert denied.status_code == 200
    assert ChargeReply.model_validate(denied.json()).chargeStatus == ChargeStatus.DENIED

    api.server.config.slow_card_delay_s = 5.0
    charge_id, auth_id, _ = await api.authenticate(await sdk.tokenize(SLOW))
    mcid = api.server.state.three_ds[charge_id].merchant_charge_id
    with pytest.raises(httpx.ReadTimeout):
        await api.client.post(
            f"{api.server.base_url}/api/v1/charge/3ds/authorization",
            json=authorization_body(charge_id, auth_id),
            headers=api.headers,
            timeout=0.5,
        )
    # The charge exists and is PAID: only its reply was late (the ambiguous case).
    assert api.server.state.charges[mcid].status == ChargeStatus.PAID
