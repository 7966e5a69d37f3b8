"""Service variants: each open question about the real service, played every way it may go."""

from __future__ import annotations

import copy
from typing import Any

import bcrypt
import httpx
import pytest

from checkout_desktop.domain.enums import ChargeStatus
from checkout_desktop.domain.timestamps import Timestamp
from checkout_desktop.domain.wire import PaymentEnvelope, PaymentFlat, parse_webhook
from checkout_desktop.sandbox.server import SandboxServer
from checkout_desktop.sandbox.variants import (
    CHOICES,
    VARIANT_NAMES,
    ServiceVariants,
    VariantError,
    parse_cli_variants,
)
from tests.integration.test_sandbox_fixtures import (
    Api,
    SdkClient,
    WebhookReceiver,
    access_token,
    card_body,
    charge_body,
)

pytest_plugins = ["tests.integration.test_sandbox_fixtures"]

VALID_CNPJ = "11222333000181"
Wired = tuple[SandboxServer, WebhookReceiver]


def error_of(response: httpx.Response) -> dict[str, Any]:
    body = response.json()
    assert isinstance(body, dict)
    # The documented error body: nothing more, nothing less.
    assert set(body) == {"message", "success", "businessCode", "errors"}, body
    assert body["success"] is False
    for item in body["errors"]:
        assert set(item) == {"message", "field"}
    return body


# ---------------------------------------------------------------------------------------------
# Names, values, command line


def test_every_variant_has_its_default_first_and_the_defaults_follow_the_evidence() -> None:
    defaults = ServiceVariants().as_dict()
    assert list(defaults) == list(VARIANT_NAMES)
    assert defaults == {name: CHOICES[name][0] for name in VARIANT_NAMES}
    assert defaults["token-field"] == "temporatyCardToken"
    assert defaults["not-found"] == "400"
    assert defaults["require"] == "phone,device"


def test_cli_items_repeat_and_are_checked() -> None:
    variants = parse_cli_variants(
        ["require=device, phone", "not-found=404", "not-found=400", "token-field=BOTH"]
    )
    assert variants.require == "phone,device"
    assert variants.not_found == "400"
    assert variants.token_field == "both"
    assert parse_cli_variants(["require=none"]).require == "none"
    assert parse_cli_variants(["require=email, phone"]).require == "phone,email"
    with pytest.raises(VariantError, match="any of phone, device, email"):
        parse_cli_variants(["require=address"])
    with pytest.raises(VariantError, match=r"use any\|no-cnpj"):
        parse_cli_variants(["customer-document=strict"])
    with pytest.raises(VariantError, match="NAME=VALUE"):
        parse_cli_variants(["loud"])


def test_a_bad_change_changes_nothing() -> None:
    variants = ServiceVariants()
    with pytest.raises(VariantError, match="unknown variant"):
        variants.update({"not-found": "404", "colour": "red"})
    with pytest.raises(VariantError, match="partial-refund"):
        variants.update({"not-found": "404", "partial-refund": "HALF"})
    with pytest.raises(VariantError, match="text value"):
        variants.update({"not-found": 404})
    assert variants.not_found == "400"


@pytest.mark.asyncio
async def test_the_admin_endpoint_reads_and_changes_variants(
    sandbox: SandboxServer, http: httpx.AsyncClient
) -> None:
    url = sandbox.base_url + "/_sandbox/variants"
    admin = {"X-Sandbox-Admin-Token": sandbox.admin_token}
    assert (await http.get(url)).status_code == 401
    assert (await http.get(url, headers=admin)).json() == ServiceVariants().as_dict()
    changed = await http.patch(url, json={"not-found": "404", "require": "none"}, headers=admin)
    assert changed.status_code == 200
    assert changed.json()["not-found"] == "404"
    assert sandbox.variants.require == "none"
    refused = await http.patch(url, json={"timestamps": "utc"}, headers=admin)
    assert refused.status_code == 400
    assert "offset|naive-brt" in error_of(refused)["message"]
    assert sandbox.info()["variants"] == sandbox.variants.as_dict()


# ---------------------------------------------------------------------------------------------
# The charge request


def _respell(body: dict[str, Any], spelling: str) -> dict[str, Any]:
    body = copy.deepcopy(body)
    for txn in body["transactions"]:
        credit = txn["credit"]
        token = credit.pop("temporatyCardToken", None) or credit.pop("temporaryCardToken")
        credit[spelling] = token
    return body


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("variant", "accepted"),
    [
        ("temporatyCardToken", {"temporatyCardToken"}),
        ("temporaryCardToken", {"temporaryCardToken"}),
        ("both", {"temporatyCardToken", "temporaryCardToken"}),
    ],
)
async def test_token_field(api: Api, sdk: SdkClient, variant: str, accepted: set[str]) -> None:
    api.server.variants.update({"token-field": variant})
    for spelling in ("temporatyCardToken", "temporaryCardToken"):
        body = _respell(charge_body(await sdk.tokenize("4111111111111111")), spelling)
        response = await api.authorize(body)
        if spelling in accepted:
            assert response.status_code == 200, response.text
            continue
        assert response.status_code == 400
        error = error_of(response)
        assert error["businessCode"] == "CARD_TOKEN_MISSING"
        assert "card token" in error["errors"][0]["message"]
        assert error["errors"][0]["field"].endswith("credit." + variant)
        assert body["merchantChargeId"] not in api.server.state.charges


@pytest.mark.asyncio
async def test_require_names_the_missing_field(api: Api, sdk: SdkClient) -> None:
    bare = charge_body(await sdk.tokenize("4111111111111111"))
    del bare["customer"]["phone"]
    del bare["deviceInformation"]
    response = await api.authorize(bare)
    assert response.status_code == 400
    fields = [e["field"] for e in error_of(response)["errors"]]
    assert fields == ["customer.phone", "deviceInformation"]
    api.server.variants.update({"require": "device"})
    fields = [e["field"] for e in error_of(await api.authorize(bare))["errors"]]
    assert fields == ["deviceInformation"]
    api.server.variants.update({"require": "phone"})
    fields = [e["field"] for e in error_of(await api.authorize(bare))["errors"]]
    assert fields == ["customer.phone"]
    api.server.variants.update({"require": "none"})
    assert (await api.authorize(bare)).status_code == 200


@pytest.mark.asyncio
async def test_customer_document_no_cnpj_applies_the_documented_regex(
    api: Api, sdk: SdkClient
) -> None:
    def cnpj_body(token: str) -> dict[str, Any]:
        body = charge_body(token)
        body["customer"].update(documentType="CNPJ", document=VALID_CNPJ)
        return body

    assert (await api.authorize(cnpj_body(await sdk.tokenize("4111111111111111")))).is_success
    api.server.variants.update({"customer-document": "no-cnpj"})
    refused = await api.authorize(cnpj_body(await sdk.tokenize("4111111111111111")))
    assert refused.status_code == 400
    error = error_of(refused)
    assert error["businessCode"] == "INVALID_DOCUMENT"
    assert error["errors"][0]["field"] == "customer.document"
    # An 11-digit CPF matches the documented regex.
    assert (await api.authorize(charge_body(await sdk.tokenize("4111111111111111")))).is_success


@pytest.mark.asyncio
@pytest.mark.parametrize("variant", ["required", "optional"])
async def test_query_content_type(api: Api, sdk: SdkClient, variant: str) -> None:
    api.server.variants.update({"query-content-type": variant})
    body = charge_body(await sdk.tokenize("4111111111111111"))
    assert (await api.authorize(body)).is_success
    url = f"{api.server.base_url}/api/v1/charge/{body['merchantChargeId']}"
    bare = await api.client.get(url, headers=api.headers)
    if variant == "required":
        assert bare.status_code == 415
        assert error_of(bare)["businessCode"] == "UNSUPPORTED_MEDIA_TYPE"
    else:
        assert bare.status_code == 200
    assert (await api.get(body["merchantChargeId"])).status_code == 200


@pytest.mark.asyncio
async def test_timestamps_naive_brt_drops_the_offset_of_replies(api: Api, sdk: SdkClient) -> None:
    body = charge_body(await sdk.tokenize("4111111111111111"))
    with_offset = (await api.authorize(body)).json()["transactions"][0]["createdAt"]
    assert with_offset.endswith("-03:00")
    api.server.variants.update({"timestamps": "naive-brt"})
    naive = (await api.get(body["merchantChargeId"])).json()["transactions"][0]["createdAt"]
    assert not Timestamp(naive).has_offset
    # The same instant (to the millisecond the offset form keeps), as Brasília's wall clock.
    gap = Timestamp(naive).at - Timestamp(with_offset).at
    assert abs(gap.total_seconds()) < 0.001


# ---------------------------------------------------------------------------------------------
# Notifications


async def _one_charge(server: SandboxServer, http: httpx.AsyncClient) -> str:
    api = Api(server, http, await access_token(http, server))
    async with httpx.AsyncClient(verify=server.certificate.client_context(), timeout=10) as c:
        token = await SdkClient(server, c).tokenize("4111111111111111")
    body = charge_body(token)
    assert (await api.authorize(body)).is_success
    return str(body["merchantChargeId"])


@pytest.mark.asyncio
@pytest.mark.parametrize("variant", ["notification", "charge"])
async def test_envelope_id(wired: Wired, http: httpx.AsyncClient, variant: str) -> None:
    server, receiver = wired
    server.variants.update({"envelope-id": variant})
    mcid = await _one_charge(server, http)
    mcid2 = await _one_charge(server, http)
    first, second = await receiver.wait_for(2)
    ids = []
    for delivery, charge_id in ((first, mcid), (second, mcid2)):
        parsed = parse_webhook(delivery.body)
        assert isinstance(parsed, PaymentEnvelope)
        ids.append(parsed.id)
        if variant == "charge":
            assert parsed.id == server.state.charges[charge_id].id
        else:
            assert parsed.id != server.state.charges[charge_id].id
    assert ids[0] != ids[1]


@pytest.mark.asyncio
@pytest.mark.parametrize("variant", ["offset", "naive-brt"])
async def test_timestamps_of_notifications(
    wired: Wired, http: httpx.AsyncClient, variant: str
) -> None:
    server, receiver = wired
    server.variants.update({"timestamps": variant})
    server.configure_webhook(receiver.url, token="tok_1", layout="alternate")
    await _one_charge(server, http)
    await _one_charge(server, http)
    bodies = [parse_webhook(d.body) for d in await receiver.wait_for(2)]
    envelope = next(b for b in bodies if isinstance(b, PaymentEnvelope))
    flat = next(b for b in bodies if isinstance(b, PaymentFlat))
    assert envelope.eventDate is not None
    assert envelope.eventDate.has_offset == (variant == "offset")
    created = flat.transactions[0].createdAt
    assert created is not None and not created.has_offset  # the spec's layout A example


# ---------------------------------------------------------------------------------------------
# The card SDK's credentials


def _legacy_credential(server: SandboxServer, prefix: str = "$2a$") -> str:
    creds = server.credentials
    secret = (creds.merchant_document + creds.merchant_token).encode()
    hashed = bcrypt.hashpw(secret, bcrypt.gensalt(rounds=4)).decode()
    return prefix + hashed[4:]


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("variant", "transparent_ok", "merchant_ok"),
    [("both", True, True), ("transparent", True, False), ("merchant", False, True)],
)
async def test_sdk_credential(
    sdk: SdkClient, variant: str, transparent_ok: bool, merchant_ok: bool
) -> None:
    server = sdk.server
    server.variants.update({"sdk-credential": variant})
    document = server.credentials.merchant_document
    transparent = await sdk.temporary_card(card_body("4111111111111111"))
    assert transparent.is_success == transparent_ok, transparent.text
    for prefix in ("$2a$", "$2b$"):
        legacy = await sdk.temporary_card(
            card_body("4111111111111111"),
            headers={
                "Authorization": _legacy_credential(server, prefix),
                "MerchantCredential": document,
            },
        )
        assert legacy.is_success == merchant_ok, legacy.text
    # A hash of anything else is refused whatever the variant.
    creds = server.credentials
    forged = bcrypt.hashpw((document + "guess").encode(), bcrypt.gensalt(rounds=4)).decode()
    wrong = await sdk.temporary_card(
        card_body("4111111111111111"),
        headers={"Authorization": forged, "MerchantCredential": creds.merchant_document},
    )
    assert wrong.status_code == 401


# ---------------------------------------------------------------------------------------------
# Every error in the documented body


@pytest.mark.asyncio
async def test_every_api_error_uses_the_documented_body(
    api: Api, sdk: SdkClient, http: httpx.AsyncClient
) -> None:
    server = api.server
    base = server.base_url
    body = charge_body(await sdk.tokenize("4111111111111111"))
    assert (await api.authorize(body)).is_success
    mcid = body["merchantChargeId"]
    replies = {
        "duplicate": await api.authorize(body),
        "not found": await api.get("no-such-charge"),
        "bad token": await http.get(
            f"{base}/api/v1/charge/{mcid}", headers={"Authorization": "Bearer nope"}
        ),
        "no path": await http.get(f"{base}/api/v9/nothing"),
        "state": await api.capture(mcid),
        "too much": await api.refund(mcid, 10**9),
        "not json": await http.post(
            f"{base}/api/v1/charge/authorization",
            content=b"{",
            headers={**api.headers, "Content-Type": "application/json"},
        ),
        "admin": await http.get(f"{base}/_sandbox/faults"),
        "oauth": await http.post(f"{base}/oauth2/token", json={"grant_type": "password"}),
    }
    codes = {}
    for name, response in replies.items():
        assert response.status_code >= 400, name
        data = response.json()
        if name == "oauth":
            # OAuth's own fields ride along for clients that read those.
            assert data["error"] == "invalid_request"
            data = {k: v for k, v in data.items() if k not in ("error", "error_description")}
            response = httpx.Response(response.status_code, json=data)
        codes[name] = error_of(response)["businessCode"]
    assert codes["duplicate"] == "DUPLICATE_MERCHANT_CHARGE_ID"
    assert codes["not found"] == "CHARGE_NOT_FOUND"
    assert codes["state"] == "INVALID_CHARGE_STATE"
    assert codes["too much"] == "AMOUNT_ABOVE_LIMIT"
    assert codes["bad token"] == "UNAUTHORIZED"
    assert codes["no path"] == "RESOURCE_NOT_FOUND"


@pytest.mark.asyncio
@pytest.mark.parametrize("variant", ["PARTIAL", "PAID"])
async def test_partial_refund(api: Api, sdk: SdkClient, variant: str) -> None:
    api.server.variants.update({"partial-refund": variant})
    body = charge_body(await sdk.tokenize("4111111111111111"), amount=1000)
    assert (await api.authorize(body)).is_success
    mcid = body["merchantChargeId"]
    first = (await api.refund(mcid, 100)).json()
    assert first["chargeStatus"] == variant
    # A partly refunded charge can be refunded again, down to nothing.
    second = (await api.refund(mcid, 200)).json()
    assert second["chargeStatus"] == variant
    assert second["refundedAmount"] == 300
    assert (await api.refund(mcid, 700)).json()["chargeStatus"] == ChargeStatus.REFUNDED
