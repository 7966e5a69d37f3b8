"""The client reads the service as its public evidence shows it, in every shape still open."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from pydantic import ValidationError

from checkout_desktop.domain.reasons import Reason, ReasonCode, business_reason
from checkout_desktop.domain.wire import ApiErrorBody, PaymentEnvelope, TokenResponse
from checkout_desktop.gateway.errors import BadRequest, ChargeNotFound, api_error
from checkout_desktop.settings import Profile, ProfileKind

TOKEN = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl"


def _body(**kwargs: Any) -> dict[str, Any]:
    return {"success": False, **kwargs}


@pytest.mark.parametrize(
    "body",
    [
        _body(message="Charge not found.", businessCode="CHARGE_NOT_FOUND"),
        _body(message="Invalid", errors=[{"field": "merchantChargeId", "message": "not found"}]),
        _body(message="x", errors=[{"field": "data.chargeId", "message": "Não encontrada"}]),
        _body(message="Cobrança não encontrada", businessCode=4004),
        _body(message="The charge does not exist"),
        {"message": "no charge found for merchantChargeId abc"},
    ],
)
def test_a_400_naming_the_charge_as_not_found_is_charge_not_found(body: dict[str, Any]) -> None:
    assert ApiErrorBody.model_validate(body).says_charge_not_found()
    error = api_error("charge query", 400, body)
    assert isinstance(error, ChargeNotFound)
    assert error.status == 400
    assert error.reason.code == ReasonCode.API_NO_CHARGE


@pytest.mark.parametrize(
    "body",
    [
        # The documented example: a missing token is not a missing charge.
        _body(message="Authorization token not found."),
        _body(message="Invalid request", errors=[{"field": "amount", "message": "not found"}]),
        _body(message="merchantChargeId must be a well-formed UUID string"),
        _body(message="Bad request", businessCode="VALIDATION_ERROR"),
    ],
)
def test_other_400s_stay_refusals(body: dict[str, Any]) -> None:
    assert not ApiErrorBody.model_validate(body).says_charge_not_found()
    assert type(api_error("charge query", 400, body)) is BadRequest


def test_not_found_is_read_only_on_calls_about_one_charge() -> None:
    body = _body(message="Charge not found.", businessCode="CHARGE_NOT_FOUND")
    assert isinstance(api_error("charge refund", 400, body), ChargeNotFound)
    assert type(api_error("charge authorization", 400, body)) is BadRequest
    assert isinstance(api_error("charge query", 404, {}), ChargeNotFound)


def test_the_business_code_is_shown_in_plain_words_or_as_it_came() -> None:
    known = api_error(
        "charge capture", 400, _body(message="No.", businessCode="INVALID_CHARGE_STATE")
    )
    detail = known.reason.args["detail"]
    assert detail == Reason.of(
        ReasonCode.SERVICE_SAID_CODED,
        words="No.",
        business=Reason.of(ReasonCode.BUSINESS_INVALID_STATE),
    )
    assert "the charge's state does not allow this: No." in known.message
    raw = api_error("charge capture", 400, _body(message="No.", businessCode=90210))
    assert "service code 90210: No." in raw.message
    plain = api_error("charge capture", 400, {"message": "No."})
    assert plain.reason.args["detail"] == Reason.of(ReasonCode.SERVICE_SAID, words="No.")
    assert business_reason(None) is None
    assert business_reason("charge_not_found") == Reason.of(ReasonCode.BUSINESS_CHARGE_NOT_FOUND)


@pytest.mark.parametrize(
    ("body", "names"),
    [
        (_body(errors=[{"field": "transactions[0].credit.temporatyCardToken"}]), True),
        (_body(message="Card token is required"), True),
        (_body(message="Os dados do cartão são obrigatórios"), True),
        (_body(message="Card data is missing"), True),
        (_body(errors=[{"field": "customer.phone", "message": "required"}]), False),
        (_body(message="merchantChargeId already used"), False),
    ],
)
def test_a_400_naming_the_card_token(body: dict[str, Any], names: bool) -> None:
    assert ApiErrorBody.model_validate(body).names_card_token_missing() is names


@pytest.mark.parametrize(
    ("body", "names"),
    [
        (_body(businessCode="INVALID_DOCUMENT", message="The customer document is invalid."), True),
        (_body(errors=[{"field": "customer.document", "message": "must match ^\\d{11}$"}]), True),
        (_body(errors=[{"field": "Customer.DocumentType", "message": "invalid"}]), True),
        (_body(errors=[{"field": "customer.phone", "message": "required"}]), False),
        (_body(message="The document of the merchant is invalid"), False),
    ],
)
def test_a_400_refusing_the_customers_document(body: dict[str, Any], names: bool) -> None:
    assert ApiErrorBody.model_validate(body).names_customer_document() is names
    detail = api_error("charge authorization", 400, body).reason.args["detail"]
    assert isinstance(detail, Reason)
    assert (detail.code == ReasonCode.CUSTOMER_DOCUMENT_REFUSED) is names


@pytest.mark.parametrize(
    ("body", "names"),
    [
        (_body(errors=[{"field": "transactions[0].card.cardNumber", "message": "required"}]), True),
        (_body(errors=[{"field": "card.cvv", "message": "required"}]), True),
        (_body(errors=[{"field": "card.expirationYear", "message": "required"}]), True),
        (_body(errors=[{"field": "card.temporaryCardToken", "message": "required"}]), False),
        (_body(errors=[{"field": "customer.phone.number", "message": "required"}]), False),
        (_body(errors=[{"field": "billingAddress.number", "message": "required"}]), False),
        (_body(message="Card data is missing: no card token."), False),
    ],
)
def test_a_400_asking_for_the_cards_own_data(body: dict[str, Any], names: bool) -> None:
    assert ApiErrorBody.model_validate(body).names_card_data_required() is names


def test_an_odd_optional_value_in_the_token_reply_never_blocks(
    caplog: pytest.LogCaptureFixture,
) -> None:
    reply = {
        "access_token": TOKEN,
        "expires_in": 300,
        "token_type": "Bearer",
        "scope": "openid checkout",
        "merchant-document": "30.155.515/0001-21",
        "acquirer-terminal-id": 12345,
        "not-before-policy": 0,
        "authorization_details": [
            {"type": "checkout", "display_name": "Loja & Cia.", "account_id": "a b"},
            "not an object",
        ],
    }
    with caplog.at_level(logging.WARNING):
        parsed = TokenResponse.model_validate(reply)
    assert parsed.merchant_document == "30.155.515/0001-21"
    assert parsed.acquirer_terminal_id == "12345"
    assert parsed.authorization_details is not None
    assert parsed.authorization_details[0] is not None
    assert parsed.authorization_details[0].display_name == "Loja & Cia."
    assert "display_name" in caplog.text and "merchant_document" in caplog.text
    # The value itself is not logged, only that it breaks the pattern.
    assert "Loja & Cia." not in caplog.text


@pytest.mark.parametrize(
    "broken",
    [{"access_token": "not-three-parts"}, {"expires_in": 0}, {"token_type": None}, {"scope": 7}],
)
def test_the_required_token_fields_are_still_checked(broken: dict[str, Any]) -> None:
    reply = {"access_token": TOKEN, "expires_in": 300, "token_type": "Bearer", "scope": "openid"}
    with pytest.raises(ValidationError, match="validation error for TokenResponse"):
        TokenResponse.model_validate({**reply, **broken})


def test_the_envelope_id_is_the_notification_id() -> None:
    body = {
        "type": "PAYMENT",
        "id": "21b91897-0000-4000-8000-000000000000",
        "data": {"status": "PAID", "merchantChargeId": "abc123"},
    }
    parsed = PaymentEnvelope.model_validate(body)
    assert parsed.notification_id == body["id"]
    assert parsed.charge_id is None
    body["data"]["chargeId"] = "charge-9"  # type: ignore[index]
    assert PaymentEnvelope.model_validate(body).charge_id == "charge-9"


def test_profile_settings_for_the_open_questions() -> None:
    profile = Profile(name="p", label="p", kind=ProfileKind.CUSTOM)
    assert profile.time_zone == "America/Sao_Paulo"
    assert profile.phone_required is True
    assert profile.sdk_credential == "transparent"
    profile.sdk_credential = "merchant"
    profile.time_zone = "UTC"
    with pytest.raises(ValueError, match="unknown time zone"):
        profile.time_zone = "Nowhere/Special"
    with pytest.raises(ValidationError, match="sdk_credential"):
        profile.sdk_credential = "password"  # type: ignore[assignment]
