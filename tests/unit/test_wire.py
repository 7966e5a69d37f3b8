"""Every example body parses into the wire models, round-trips, and bad input names its field."""

from __future__ import annotations

import copy
import json
from datetime import UTC, datetime, timedelta, timezone

import pytest
from pydantic import ValidationError

from checkout_desktop.domain.enums import (
    CardBrand,
    ChargeStatus,
    InstallmentType,
    ThreeDsStatus,
    TransactionStatus,
)
from checkout_desktop.domain.wire import (
    ApiErrorBody,
    CaptureRequest,
    ChargeAuthorizationRequest,
    ChargeReply,
    OAuthErrorBody,
    PaymentEnvelope,
    PaymentFlat,
    RefundRequest,
    SdkErrorBody,
    ThreeDsChallenge,
    TokenRequest,
    TokenResponse,
    UnknownWebhook,
    WireFormatError,
    mask_card_number,
    parse_webhook,
    payment_update,
    three_ds_update,
)
from tests.unit import wire_examples as ex

NOW = datetime(2026, 1, 1, tzinfo=UTC)


def _locs(error: ValidationError) -> list[str]:
    return [".".join(str(p) for p in e["loc"]) for e in error.errors()]


@pytest.mark.parametrize(
    ("model", "body"),
    [
        (TokenResponse, ex.TOKEN_RESPONSE),
        (TokenResponse, ex.TOKEN_RESPONSE_MINIMAL),
        (ChargeReply, ex.CHARGE_REPLY),
        (SdkErrorBody, ex.SDK_ERROR_CVV),
        (SdkErrorBody, ex.SDK_ERROR_BIN),
        (SdkErrorBody, ex.SDK_ERROR_NETWORK),
        (ApiErrorBody, ex.API_ERROR),
        (OAuthErrorBody, ex.OAUTH_ERROR),
    ],
)
def test_inbound_examples_round_trip(model: type, body: dict[str, object]) -> None:
    parsed = model.model_validate(body)
    assert parsed.to_wire() == body
    again = model.model_validate_json(json.dumps(parsed.to_wire()))
    assert again.to_wire() == body


@pytest.mark.parametrize(
    ("body", "kind"),
    [
        (ex.WEBHOOK_FLAT_CREDIT, PaymentFlat),
        (ex.WEBHOOK_ENVELOPE_WALLET, PaymentEnvelope),
        (ex.WEBHOOK_3DS, ThreeDsChallenge),
    ],
)
def test_webhook_examples_parse_by_layout_and_round_trip(
    body: dict[str, object], kind: type
) -> None:
    parsed = parse_webhook(json.dumps(body).encode())
    assert isinstance(parsed, kind)
    assert parsed.to_wire() == body


def test_flat_layout_carries_denied_and_captured_transactions() -> None:
    parsed = parse_webhook(ex.WEBHOOK_FLAT_CREDIT)
    assert isinstance(parsed, PaymentFlat)
    update = payment_update(parsed, received_at=NOW)
    assert update.status == ChargeStatus.PAID
    assert update.merchant_charge_id == ex.WEBHOOK_FLAT_CREDIT["merchantChargeId"]
    statuses = [t.effective_status for t in update.transactions]
    assert statuses == [TransactionStatus.DENIED, TransactionStatus.CAPTURED]
    # no offset in layout A's example: read in Brasília time (19:00 there is 22:00 UTC);
    # nine fractional digits truncate to micro
    assert update.occurred_at == datetime(2024, 7, 1, 22, 0, 3, 123456, tzinfo=UTC)
    assert update.transactions[1].credit is not None
    assert update.transactions[1].credit.brand == CardBrand.VISA


def test_envelope_layout_uses_event_date_with_offset() -> None:
    parsed = parse_webhook(ex.WEBHOOK_ENVELOPE_WALLET)
    assert isinstance(parsed, PaymentEnvelope)
    update = payment_update(parsed, received_at=NOW)
    assert update.status == ChargeStatus.AUTHORIZED
    assert update.occurred_at == datetime(2024, 7, 1, 16, tzinfo=timezone(timedelta(hours=-3)))
    # The envelope's top-level id names the notification, never the charge.
    assert parsed.notification_id == ex.WEBHOOK_ENVELOPE_WALLET["id"]
    assert update.charge_id is None
    wallet = update.transactions[0].wallet
    assert wallet is not None and wallet.expiresAt is not None


def test_three_ds_update() -> None:
    parsed = parse_webhook(ex.WEBHOOK_3DS)
    assert isinstance(parsed, ThreeDsChallenge)
    update = three_ds_update(parsed, received_at=NOW)
    assert update.status == ThreeDsStatus.APPROVED
    assert update.pares_status == "Y"
    assert update.charge_id == ex.WEBHOOK_3DS["data"]["chargeId"]  # type: ignore[index]


def test_unknown_statuses_and_types_are_kept_not_rejected() -> None:
    body = copy.deepcopy(ex.WEBHOOK_ENVELOPE_WALLET)
    body["data"]["status"] = "UNDER_REVIEW"  # type: ignore[index]
    body["data"]["transactions"][0]["status"] = "HELD"  # type: ignore[index]
    parsed = parse_webhook(body)
    assert isinstance(parsed, PaymentEnvelope)
    assert parsed.data.status.value == "UNDER_REVIEW"
    assert not parsed.data.status.is_known
    assert parsed.data.transactions[0].effective_status == "HELD"
    assert parsed.to_wire() == body
    other = parse_webhook({"type": "REFUND_NOTICE", "payload": {"a": 1}})
    assert isinstance(other, UnknownWebhook)
    assert other.to_wire() == {"type": "REFUND_NOTICE", "payload": {"a": 1}}


def test_known_statuses_match_case_insensitively() -> None:
    assert CardBrand("Visa") is CardBrand.VISA
    assert ThreeDsStatus("APPROVED") is ThreeDsStatus.APPROVED
    assert ChargeStatus("paid") is ChargeStatus.PAID


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        (b"{not json", "not valid JSON"),
        (b"[1, 2]", "not an object"),
        (b"\xff\xfe", "not valid JSON"),
    ],
)
def test_malformed_webhook_bodies_raise_wire_format_error(payload: bytes, message: str) -> None:
    with pytest.raises(WireFormatError, match=message):
        parse_webhook(payload)


def test_webhook_missing_field_names_it() -> None:
    body = copy.deepcopy(ex.WEBHOOK_ENVELOPE_WALLET)
    del body["data"]["merchantChargeId"]  # type: ignore[attr-defined]
    with pytest.raises(ValidationError) as info:
        parse_webhook(body)
    assert "envelope.data.merchantChargeId" in _locs(info.value)


def test_webhook_wrong_type_names_the_field() -> None:
    body = copy.deepcopy(ex.WEBHOOK_FLAT_CREDIT)
    body["amount"] = "a lot"
    with pytest.raises(ValidationError) as info:
        parse_webhook(body)
    assert "flat.amount" in _locs(info.value)


def test_3ds_without_any_charge_reference_is_refused() -> None:
    body = copy.deepcopy(ex.WEBHOOK_3DS)
    del body["data"]["merchantChargeId"]  # type: ignore[attr-defined]
    del body["data"]["chargeId"]  # type: ignore[attr-defined]
    with pytest.raises(ValidationError, match="names neither"):
        parse_webhook(body)


def test_bad_timestamp_names_the_field() -> None:
    body = copy.deepcopy(ex.WEBHOOK_3DS)
    body["eventDate"] = "yesterday"
    with pytest.raises(ValidationError) as info:
        parse_webhook(body)
    assert "three_ds.eventDate" in _locs(info.value)


def test_charge_request_parses_both_token_spellings_and_sends_the_chosen_one() -> None:
    request = ChargeAuthorizationRequest.model_validate(ex.CHARGE_REQUEST)
    credit = request.transactions[0].credit
    assert credit.temporaryCardToken.startswith("card_t/")
    assert request.to_wire("temporatyCardToken") == ex.CHARGE_REQUEST
    sent = request.to_wire("temporaryCardToken")
    assert "temporatyCardToken" not in sent["transactions"][0]["credit"]
    assert sent["transactions"][0]["credit"]["temporaryCardToken"] == credit.temporaryCardToken
    reparsed = ChargeAuthorizationRequest.model_validate(sent)
    assert reparsed == request
    assert request.total_amount == 1500


def _request_with(**changes: object) -> dict[str, object]:
    body = copy.deepcopy(ex.CHARGE_REQUEST)
    for path, value in changes.items():
        target: object = body
        keys = path.split("__")
        for key in keys[:-1]:
            target = target[int(key)] if key.isdigit() else target[key]  # type: ignore[index]
        target[keys[-1]] = value  # type: ignore[index]
    return body


@pytest.mark.parametrize(
    ("changes", "loc"),
    [
        ({"merchantChargeId": "abc"}, "merchantChargeId"),
        ({"merchantChargeId": "has space 123"}, "merchantChargeId"),
        ({"customer__document": "12345678900"}, "customer"),
        ({"customer__email": "not-an-email"}, "customer.email"),
        ({"customer__name": "Robert'); DROP"}, "customer.name"),
        ({"transactions__0__amount": 0}, "transactions.0.amount"),
        ({"transactions__0__softDescriptor": "A" * 14}, "transactions.0.softDescriptor"),
        (
            {"transactions__0__credit__temporatyCardToken": "4111111111111111"},
            "transactions.0.credit.temporatyCardToken",
        ),
        (
            {"transactions__0__credit__installmentNumber": 13},
            "transactions.0.credit.installmentNumber",
        ),
        ({"transactions__0__credit__installmentNumber": 3}, "transactions.0.credit"),
        (
            {"transactions__0__credit__billingAddress__state": "XX"},
            "transactions.0.credit.billingAddress.state",
        ),
        (
            {"transactions__0__credit__billingAddress__zipCode": "123"},
            "transactions.0.credit.billingAddress.zipCode",
        ),
        ({"transactions": []}, "transactions"),
        ({"surprise": 1}, "surprise"),
    ],
)
def test_bad_charge_requests_name_the_field(changes: dict[str, object], loc: str) -> None:
    with pytest.raises(ValidationError) as info:
        ChargeAuthorizationRequest.model_validate(_request_with(**changes))
    assert loc in _locs(info.value), _locs(info.value)


def test_installments_above_one_need_merchant_or_issuer() -> None:
    body = _request_with(
        transactions__0__credit__installmentNumber=3,
        transactions__0__credit__installmentType="MERCHANT",
    )
    request = ChargeAuthorizationRequest.model_validate(body)
    assert request.transactions[0].credit.installmentType == InstallmentType.MERCHANT


def test_cnpj_customer_is_accepted() -> None:
    body = _request_with(customer__documentType="CNPJ", customer__document="30.155.515/0001-21")
    request = ChargeAuthorizationRequest.model_validate(body)
    assert request.customer.document == "30155515000121"


def test_token_request_reveals_secret_only_on_the_wire() -> None:
    request = TokenRequest(client_id="client-1", client_secret="s3cr3tValue")  # type: ignore[arg-type]
    assert "s3cr3tValue" not in repr(request)
    assert "s3cr3tValue" not in str(request.model_dump())
    assert request.to_wire()["client_secret"] == "s3cr3tValue"
    with pytest.raises(ValidationError) as info:
        TokenRequest(client_id="client 1", client_secret="x")  # type: ignore[arg-type]
    assert "client_id" in _locs(info.value)
    with pytest.raises(ValidationError, match="client_secret"):
        TokenRequest(client_id="c", client_secret="has-dash")  # type: ignore[arg-type]


def test_token_response_hides_the_access_token() -> None:
    parsed = TokenResponse.model_validate(ex.TOKEN_RESPONSE)
    assert ex.TOKEN_RESPONSE["access_token"] not in repr(parsed)
    assert ex.TOKEN_RESPONSE["access_token"] not in parsed.model_dump_json()
    assert parsed.scopes == ["openid", "checkout.charge", "checkout-read"]
    with pytest.raises(ValidationError, match="three-part"):
        TokenResponse.model_validate({**ex.TOKEN_RESPONSE_MINIMAL, "access_token": "opaque"})
    with pytest.raises(ValidationError) as info:
        TokenResponse.model_validate({**ex.TOKEN_RESPONSE_MINIMAL, "expires_in": 0})
    assert "expires_in" in _locs(info.value)


def test_capture_and_refund_bodies() -> None:
    assert CaptureRequest(amount=100).model_dump() == {"amount": 100}
    assert RefundRequest(amount=1).model_dump() == {"amount": 1}
    with pytest.raises(ValidationError):
        RefundRequest(amount=0)
    with pytest.raises(ValidationError):
        RefundRequest.model_validate({"amount": 10, "reason": "x"})


def test_charge_reply_unwraps_the_3ds_shape_and_masks_any_full_card_number() -> None:
    wrapped = {"charge": copy.deepcopy(ex.CHARGE_REPLY)}
    wrapped["charge"]["transactions"][0]["credit"]["cardNumber"] = "4111 1111 1111 1111"  # type: ignore[index]
    reply = ChargeReply.model_validate(wrapped)
    credit = reply.transactions[0].credit
    assert credit is not None
    assert credit.cardNumber == "411111******1111"
    assert credit.last_four == "1111"
    update = reply.update(source="api", received_at=NOW)
    assert update.status == ChargeStatus.PAID
    assert update.charge_id == ex.CHARGE_REPLY["id"]


def test_mask_card_number_leaves_masked_and_short_values() -> None:
    assert mask_card_number("5555555555554444") == "555555******4444"
    assert mask_card_number("411111******1111") == "411111******1111"
    assert mask_card_number("1234") == "1234"


def test_sdk_error_shapes() -> None:
    cvv = SdkErrorBody.model_validate(ex.SDK_ERROR_CVV)
    assert not cvv.is_network_failure
    assert [(i.field, i.errorCode) for i in cvv.items] == [("Cvv", 1)]
    network = SdkErrorBody.model_validate(ex.SDK_ERROR_NETWORK)
    assert network.is_network_failure
    assert network.items[0].message == "Network Error"
    with pytest.raises(ValidationError):
        SdkErrorBody.model_validate({"errors": "boom"})


def test_error_bodies_describe_themselves() -> None:
    assert ApiErrorBody.model_validate(ex.API_ERROR).describe() == (
        "Invalid request; customer.document: invalid document"
    )
    assert OAuthErrorBody.model_validate(ex.OAUTH_ERROR).describe() == (
        "invalid_client: Invalid client credentials"
    )
    assert ApiErrorBody().describe() == "no error detail in the reply"


def test_validation_errors_never_repeat_a_card_number() -> None:
    body = _request_with(transactions__0__credit__temporatyCardToken="4111111111111111")
    with pytest.raises(ValidationError) as info:
        ChargeAuthorizationRequest.model_validate(body)
    assert "4111111111111111" not in str(info.value)
    assert "4111111111111111" not in repr(info.value.errors(include_input=False))
