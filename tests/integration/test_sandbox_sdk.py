"""The SDK backend over real HTTPS, as the published SDK calls it: BIN, temporary card, CORS."""

from __future__ import annotations

import logging
import re
import ssl
from datetime import UTC, datetime

import httpx
import pytest

from checkout_desktop.domain.wire import TEMPORARY_CARD_TOKEN_PATTERN, SdkErrorBody
from checkout_desktop.sandbox.server import SandboxServer
from tests.integration.test_sandbox_fixtures import SdkClient, card_body

pytest_plugins = ["tests.integration.test_sandbox_fixtures"]

logger = logging.getLogger(__name__)


def sdk_errors(response: httpx.Response) -> list[tuple[int | None, str, str | None]]:
    body = SdkErrorBody.model_validate(response.json())
    return [(item.errorCode, item.message, item.field) for item in body.items]


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("bin6", "brand"),
    [
        ("411111", "VISA"),
        ("555555", "MASTERCARD"),
        ("636297", "ELO"),
        ("378282", "AMEX"),
        ("606282", "HIPERCARD"),
        ("400000", "VISA"),
        ("400008", "VISA"),
        ("222300", "MASTERCARD"),
        ("509123", "ELO"),
        ("341111", "AMEX"),
        ("384100", "HIPERCARD"),
    ],
)
async def test_bin_lookup_names_the_brand(sdk: SdkClient, bin6: str, brand: str) -> None:
    response = await sdk.card_bin(bin6)
    assert response.status_code == 200
    assert response.json() == {"cardBrand": brand}


@pytest.mark.asyncio
async def test_bin_lookup_errors_are_in_the_sdk_shape(sdk: SdkClient) -> None:
    missing = await sdk.card_bin(None)
    assert missing.status_code == 400
    assert sdk_errors(missing) == [(1, "Propriedade 'CardBin' está ausente.", "CardBin")]
    empty = await sdk.card_bin("")
    assert sdk_errors(empty) == sdk_errors(missing)
    for bad in ("4111", "41111a", "4111111"):
        response = await sdk.card_bin(bad)
        assert response.status_code == 400
        ((code, message, field),) = sdk_errors(response)
        assert (code, field) == (2, "CardBin")
        assert message.startswith("Propriedade 'CardBin' inválida")
    unknown = await sdk.card_bin("999999")
    assert unknown.status_code == 400
    assert sdk_errors(unknown) == [(4, "Bandeira não encontrada para o BIN informado.", "CardBin")]


@pytest.mark.asyncio
async def test_temporary_card_returns_a_card_token(sdk: SdkClient) -> None:
    response = await sdk.temporary_card(card_body("4111111111111111"))
    assert response.status_code == 200
    token = response.json()["cardToken"]
    assert re.fullmatch(TEMPORARY_CARD_TOKEN_PATTERN, token)
    kept = sdk.server.state.card_tokens[token]
    assert (kept.brand, kept.bin6, kept.last_four) == ("VISA", "411111", "1111")
    # Only the BIN and the last four remain: no full number, CVV or expiry anywhere.
    assert "4111111111111111" not in repr(kept)
    assert not hasattr(kept, "cvv")
    assert not hasattr(kept, "expiration_month")


@pytest.mark.asyncio
async def test_every_token_is_new(sdk: SdkClient) -> None:
    tokens = {await sdk.tokenize("4111111111111111") for _ in range(5)}
    assert len(tokens) == 5


@pytest.mark.asyncio
async def test_brand_is_matched_case_insensitively(sdk: SdkClient) -> None:
    for brand in ("Visa", "visa", "VISA"):
        response = await sdk.temporary_card(card_body("4111111111111111", brand=brand))
        assert response.status_code == 200, brand
    response = await sdk.temporary_card(card_body("5555555555554444", brand="MasterCard"))
    assert response.status_code == 200


@pytest.mark.asyncio
async def test_missing_cvv_gives_the_documented_error(sdk: SdkClient) -> None:
    body = card_body("4111111111111111")
    del body["cvv"]
    response = await sdk.temporary_card(body)
    assert response.status_code == 400
    assert response.json() == {
        "errors": [{"errorCode": 1, "message": "Propriedade 'Cvv' está ausente.", "field": "Cvv"}]
    }


@pytest.mark.asyncio
async def test_every_missing_property_is_named(sdk: SdkClient) -> None:
    response = await sdk.temporary_card({})
    assert response.status_code == 400
    fields = [field for _, _, field in sdk_errors(response)]
    assert fields == [
        "Brand",
        "CardNumber",
        "CardholderName",
        "CardholderDocument",
        "ExpirationMonth",
        "ExpirationYear",
        "Cvv",
    ]
    assert all(code == 1 for code, _, _ in sdk_errors(response))


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("changes", "code", "field"),
    [
        ({"cvv": "12"}, 2, "Cvv"),
        ({"cvv": "12a"}, 2, "Cvv"),
        ({"cvv": "1234"}, 2, "Cvv"),
        ({"cardNumber": "4111111111111112"}, 4, "CardNumber"),
        ({"cardNumber": "4111-1111"}, 2, "CardNumber"),
        ({"cardNumber": "9999999999999995"}, 4, "CardNumber"),
        ({"brand": "MASTERCARD"}, 2, "Brand"),
        ({"expirationYear": "2020"}, 5, "ExpirationYear"),
        ({"expirationYear": "31"}, 2, "ExpirationYear"),
        ({"expirationMonth": "13"}, 2, "ExpirationMonth"),
        ({"expirationYear": "2099"}, 2, "ExpirationYear"),
        ({"cardholderDocument": "12345678900"}, 2, "CardholderDocument"),
        ({"cardholderName": "R2D2"}, 2, "CardholderName"),
        ({"cvv": 123}, 2, "Cvv"),
        ({"cardNumber": ["4111111111111111"]}, 2, "CardNumber"),
        ({"extra": "x"}, 3, "extra"),
    ],
)
async def test_invalid_cards_name_the_field(
    sdk: SdkClient, changes: dict[str, object], code: int, field: str
) -> None:
    body = card_body("4111111111111111")
    body.update(changes)
    response = await sdk.temporary_card(body)
    assert response.status_code == 400
    errors = sdk_errors(response)
    assert [(c, f) for c, _, f in errors] == [(code, field)], errors
    assert "4111111111111111" not in response.text


def _set_date(sdk: SdkClient, month: int, day: int) -> datetime:
    """Move the sandbox's clock forward to that day of next year (it only moves forward)."""
    clock = sdk.server.clock
    now = clock.now()
    target = datetime(now.year + 1, month, day, 12, tzinfo=UTC)
    clock.advance((target - now).total_seconds())
    assert (clock.now().year, clock.now().month) == (target.year, month)
    return target


@pytest.mark.asyncio
async def test_expired_this_year_names_the_month(sdk: SdkClient) -> None:
    today = _set_date(sdk, 7, 15)
    body = card_body("4111111111111111", expirationMonth="06", expirationYear=str(today.year))
    response = await sdk.temporary_card(body)
    assert sdk_errors(response) == [(5, "Cartão expirado.", "ExpirationMonth")]


@pytest.mark.asyncio
async def test_in_january_last_december_names_the_year(sdk: SdkClient) -> None:
    today = _set_date(sdk, 1, 15)
    body = card_body("4111111111111111", expirationMonth="12", expirationYear=str(today.year - 1))
    response = await sdk.temporary_card(body)
    assert sdk_errors(response) == [(5, "Cartão expirado.", "ExpirationYear")]
    still_valid = card_body(
        "4111111111111111", expirationMonth="01", expirationYear=str(today.year)
    )
    assert (await sdk.temporary_card(still_valid)).status_code == 200


@pytest.mark.asyncio
async def test_amex_needs_four_cvv_digits(sdk: SdkClient) -> None:
    ok = await sdk.temporary_card(card_body("378282246310005", cvv="1234"))
    assert ok.status_code == 200
    short = await sdk.temporary_card(card_body("378282246310005", cvv="123"))
    assert sdk_errors(short) == [(2, "Propriedade 'Cvv' inválida: deve ter 4 dígitos.", "Cvv")]


@pytest.mark.asyncio
async def test_numeric_expiry_and_a_cnpj_holder_are_accepted(sdk: SdkClient) -> None:
    body = card_body("5555555555554444", cardholderDocument="12.345.678/0001-95")
    body["expirationMonth"] = 7
    body["expirationYear"] = 2030
    response = await sdk.temporary_card(body)
    assert response.status_code == 200, response.text


@pytest.mark.asyncio
async def test_credentials_are_required_and_checked(sdk: SdkClient) -> None:
    creds = sdk.server.credentials
    body = card_body("4111111111111111")
    none = await sdk.temporary_card(body, headers={})
    assert none.status_code == 401
    assert [f for _, _, f in sdk_errors(none)] == ["Authorization", "MerchantCredential"]
    wrong_token = await sdk.temporary_card(
        body, headers={"Authorization": "tk_wrong", "MerchantCredential": creds.merchant_document}
    )
    assert sdk_errors(wrong_token) == [(6, "Credenciais do lojista inválidas.", "Authorization")]
    wrong_cnpj = await sdk.temporary_card(
        body,
        headers={"Authorization": creds.transparent_token, "MerchantCredential": "11222333000181"},
    )
    assert wrong_cnpj.status_code == 401
    legacy = await sdk.temporary_card(
        body,
        headers={"Authorization": "$2a$10$abcdefghijklmnopqrstuv", "MerchantCredential": "x"},
    )
    assert legacy.status_code == 401
    assert sdk_errors(legacy) == [(6, "Credenciais do lojista inválidas.", "Authorization")]


@pytest.mark.asyncio
async def test_non_json_bodies_are_refused_in_the_sdk_shape(sdk: SdkClient) -> None:
    headers = {**sdk.credentials_headers(), "Content-Type": "text/plain"}
    wrong_type = await sdk.request(
        "POST", "/payment/v2/temporary/card", content=b"cvv=123", headers=headers
    )
    assert wrong_type.status_code == 415
    assert [f for _, _, f in sdk_errors(wrong_type)] == ["Content-Type"]
    headers["Content-Type"] = "application/json"
    for payload in (b"{not json", b"[1, 2]", b"", b'"text"', b"\xff\xfe"):
        response = await sdk.request(
            "POST", "/payment/v2/temporary/card", content=payload, headers=headers
        )
        assert response.status_code == 400, payload
        assert sdk_errors(response)[0][0] == 7


@pytest.mark.asyncio
async def test_cors_preflight_allows_the_sdk_headers(sdk: SdkClient) -> None:
    response = await sdk.request(
        "OPTIONS",
        "/payment/v2/temporary/card",
        headers={
            "Origin": "qrc://card-page",
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization,content-type,merchantcredential",
            "Access-Control-Request-Private-Network": "true",
        },
    )
    assert response.status_code == 204
    assert response.headers["Access-Control-Allow-Origin"] == "qrc://card-page"
    assert "POST" in response.headers["Access-Control-Allow-Methods"]
    allowed = {
        h.strip().lower() for h in response.headers["Access-Control-Allow-Headers"].split(",")
    }
    assert {"authorization", "content-type", "merchantcredential"} <= allowed
    assert response.headers["Access-Control-Allow-Private-Network"] == "true"


@pytest.mark.asyncio
async def test_cors_headers_are_on_success_and_error_replies(sdk: SdkClient) -> None:
    origin = {"Origin": "null"}
    ok = await sdk.request(
        "GET", "/portalapi/v1/Card/Bin", params={"bin": "411111"}, headers=origin
    )
    error = await sdk.request("GET", "/portalapi/v1/Card/Bin", headers=origin)
    unknown = await sdk.request("GET", "/nothing-here", headers=origin)
    for response in (ok, error, unknown):
        assert response.headers["Access-Control-Allow-Origin"] == "null"
    assert unknown.status_code == 404
    assert sdk_errors(unknown)[0][1] == "Recurso não encontrado."


@pytest.mark.asyncio
async def test_certificate_is_for_the_sdk_host_only(sandbox: SandboxServer) -> None:
    context = sandbox.certificate.client_context()
    async with httpx.AsyncClient(verify=context) as client:
        good = await client.get(
            f"https://127.0.0.1:{sandbox.sdk_port}/portalapi/v1/Card/Bin?bin=411111",
            extensions={"sni_hostname": sandbox.sdk_host},
        )
        assert good.status_code == 200
    # A new client: the first one would reuse its verified connection.
    async with httpx.AsyncClient(verify=context) as client:
        with pytest.raises(httpx.ConnectError):
            await client.get(
                f"https://127.0.0.1:{sandbox.sdk_port}/portalapi/v1/Card/Bin?bin=411111",
                extensions={"sni_hostname": "other.example.com"},
            )
    async with httpx.AsyncClient(verify=ssl.create_default_context()) as client:
        with pytest.raises(httpx.ConnectError):
            await client.get(
                f"https://127.0.0.1:{sandbox.sdk_port}/portalapi/v1/Card/Bin?bin=411111",
                extensions={"sni_hostname": sandbox.sdk_host},
            )
