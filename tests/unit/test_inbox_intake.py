"""Classifying deliveries: verdicts, index fields, updates, header redaction, never raising."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime
from typing import Any

import pytest

from checkout_desktop.domain.enums import ChargeStatus, ThreeDsStatus, Verdict
from checkout_desktop.domain.reasons import Reason, ReasonCode
from checkout_desktop.domain.wire import ChargeUpdate, ThreeDsUpdate
from checkout_desktop.inbox.intake import (
    SELF_TEST_BODY_TYPE,
    Received,
    body_digest,
    classify,
    credential_marker,
    event_type_of,
    safe_headers,
)

logger = logging.getLogger(__name__)

AT = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
MCID = "order-0001-abcdef"
CHARGE = "0b7e6a3c-8d1f-4d4e-9a51-3f0c2a9d1e77"


def flat(status: str = "PAID", **extra: Any) -> dict[str, Any]:
    return {
        "type": "PAYMENT",
        "id": CHARGE,
        "merchantChargeId": MCID,
        "status": status,
        "amount": 1500,
        "originalAmount": 1500,
        "refundedAmount": 0,
        "merchantCode": "12345",
        "merchantDocument": "30155515000121",
        "paymentSource": "GATEWAY",
        "lateCapture": False,
        "transactions": [
            {
                "transactionId": "t-1",
                "paymentType": "CREDIT",
                "status": "CAPTURED",
                "amount": 1500,
                "createdAt": "2026-03-01T08:59:59.123456789",
                "credit": {"brand": "VISA", "cardholderName": "J*** S***"},
            }
        ],
        **extra,
    }


def envelope(status: str = "PAID") -> dict[str, Any]:
    body = flat(status)
    data = {k: v for k, v in body.items() if k not in {"type", "id", "merchantCode"}}
    data.pop("merchantDocument")
    return {
        "type": "PAYMENT",
        "eventDate": "2026-03-01T09:00:00-03:00",
        "merchantDocument": "30155515000121",
        "id": "evt-77",
        "merchantCode": "12345",
        "data": {**data, "chargeId": CHARGE},
    }


def three_ds(status: str = "Approved") -> dict[str, Any]:
    return {
        "type": "THREE_DS_CHALLENGE",
        "eventDate": "2025-04-16T11:30:04.157929932",
        "merchantDocument": "30155515000121",
        "id": "evt-3ds",
        "merchantCode": "12345",
        "data": {
            "status": status,
            "paresStatus": "Y",
            "eciRaw": "05",
            "merchantChargeId": MCID,
            "chargeId": CHARGE,
        },
    }


def received(body: bytes | dict[str, Any], event_type: str | None = None) -> Received:
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    return Received(
        body=raw,
        headers={"Content-Type": "application/json", "Authorization": "[not stored: bare token]"},
        received_at=AT,
        event_type=event_type,
        content_type="application/json",
        remote="127.0.0.1",
    )


def test_flat_payment_is_accepted_with_its_update() -> None:
    intake = classify(received(flat(), "TransactionUpdateMessage"))
    event = intake.event
    assert event.verdict == Verdict.ACCEPTED
    assert (event.body_type, event.layout, event.status) == ("PAYMENT", "flat", "PAID")
    assert (event.merchant_charge_id, event.charge_id, event.event_ref) == (MCID, CHARGE, CHARGE)
    assert event.reason is None
    assert isinstance(intake.update, ChargeUpdate)
    assert intake.update.status == ChargeStatus.PAID
    assert intake.update.received_at == AT
    assert intake.update.source == "webhook"
    assert event.body_sha256 == body_digest(event.body)


def test_envelope_payment_is_accepted() -> None:
    intake = classify(received(envelope("AUTHORIZED"), "TransactionUpdateMessage"))
    assert intake.event.layout == "envelope"
    assert intake.event.event_ref == "evt-77"
    assert intake.event.charge_id == CHARGE
    assert isinstance(intake.update, ChargeUpdate)
    assert intake.update.status == ChargeStatus.AUTHORIZED
    assert intake.update.occurred_at == datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def test_three_ds_result_is_accepted() -> None:
    intake = classify(received(three_ds(), "Challenge3dsUpdateMessage"))
    assert intake.event.verdict == Verdict.ACCEPTED
    assert intake.event.body_type == "THREE_DS_CHALLENGE"
    assert intake.event.status == "Approved"
    assert isinstance(intake.update, ThreeDsUpdate)
    assert intake.update.status == ThreeDsStatus.APPROVED


def test_unknown_status_is_accepted_not_rejected() -> None:
    intake = classify(received(flat("PARTIALLY_CAPTURED_SOMEHOW")))
    assert intake.event.verdict == Verdict.ACCEPTED
    assert intake.event.status == "PARTIALLY_CAPTURED_SOMEHOW"
    assert isinstance(intake.update, ChargeUpdate)
    assert not intake.update.status.is_known


def test_unknown_type_is_stored_and_shown() -> None:
    body = {"type": "REFUND_NOTICE", "id": "r-1", "data": {"merchantChargeId": MCID, "status": "X"}}
    intake = classify(received(body, "RefundUpdateMessage"))
    event = intake.event
    assert event.verdict == Verdict.UNKNOWN
    assert (event.body_type, event.event_type) == ("REFUND_NOTICE", "RefundUpdateMessage")
    assert (event.merchant_charge_id, event.status, event.event_ref) == (MCID, "X", "r-1")
    assert event.reason == Reason.of(ReasonCode.INBOX_UNKNOWN_TYPE, type="REFUND_NOTICE")
    assert intake.update is None


def test_object_without_type_is_unknown() -> None:
    intake = classify(received({"hello": "world"}))
    assert intake.event.verdict == Verdict.UNKNOWN
    assert intake.event.reason == Reason.of(ReasonCode.INBOX_UNKNOWN_NO_TYPE)


@pytest.mark.parametrize(
    ("body", "code", "needle"),
    [
        (b"{not json", ReasonCode.INBOX_NOT_JSON, None),
        (b"\xff\xfe\x00", ReasonCode.INBOX_NOT_JSON, None),
        (b"[1, 2]", ReasonCode.INBOX_NOT_OBJECT, None),
        (b"", ReasonCode.INBOX_NOT_JSON, None),
        (
            json.dumps({"type": "PAYMENT", "id": CHARGE}).encode(),
            ReasonCode.INBOX_TYPE_NOT_FORMAT,
            "merchantChargeId",
        ),
        (
            json.dumps({"type": "THREE_DS_CHALLENGE", "data": {"status": "Approved"}}).encode(),
            ReasonCode.INBOX_TYPE_NOT_FORMAT,
            "neither merchantChargeId nor chargeId",
        ),
        (
            json.dumps({**flat(), "amount": "lots"}).encode(),
            ReasonCode.INBOX_TYPE_NOT_FORMAT,
            "amount",
        ),
        (json.dumps({"type": 5}).encode(), ReasonCode.INBOX_NOT_FORMAT, "type"),
    ],
)
def test_bad_bodies_are_quarantined_with_a_reason(
    body: bytes, code: ReasonCode, needle: str | None
) -> None:
    intake = classify(received(body))
    assert intake.event.verdict == Verdict.QUARANTINED
    assert intake.event.body == body
    reason = intake.event.reason
    assert reason is not None and reason.code == code
    if needle is not None:
        # The validation details (which field, why) are data of the reason, never the values.
        assert needle in str(reason.args["details"])
    assert intake.update is None


def test_quarantine_reason_never_echoes_values() -> None:
    body = {**flat(), "amount": "4111 1111 1111 1111"}
    intake = classify(received(body))
    assert intake.event.verdict == Verdict.QUARANTINED
    assert intake.event.reason is not None
    assert "4111" not in intake.event.reason.english()
    assert "4111" not in intake.event.reason.args_json()


def test_header_body_mismatch_is_noted_and_the_body_decides() -> None:
    intake = classify(received(three_ds(), "TransactionUpdateMessage"))
    assert intake.event.verdict == Verdict.ACCEPTED
    assert isinstance(intake.update, ThreeDsUpdate)
    assert intake.event.reason == Reason.of(
        ReasonCode.INBOX_HEADER_MISMATCH,
        header="TransactionUpdateMessage",
        body="THREE_DS_CHALLENGE",
    )


def test_self_test_has_its_own_verdict_and_no_update() -> None:
    intake = classify(received({"type": SELF_TEST_BODY_TYPE, "nonce": "n-1"}))
    assert intake.event.verdict == Verdict.SELF_TEST
    assert intake.self_test_nonce == "n-1"
    assert intake.update is None
    no_nonce = classify(received({"type": SELF_TEST_BODY_TYPE}))
    assert no_nonce.event.verdict == Verdict.QUARANTINED


def test_credential_headers_are_replaced_by_a_marker() -> None:
    stored = safe_headers(
        [
            ("Authorization", "Bearer s3cr3t-token"),
            ("Content-Type", "application/json"),
            ("Cookie", "a=b"),
            ("X-Forwarded-For", "198.51.100.1"),
            ("X-Forwarded-For", "10.0.0.1"),
        ]
    )
    assert stored == {
        "Authorization": "[not stored: Bearer scheme]",
        "Content-Type": "application/json",
        "Cookie": "[not stored]",
        "X-Forwarded-For": "198.51.100.1, 10.0.0.1",
    }
    assert "s3cr3t" not in json.dumps(stored)


@pytest.mark.parametrize(
    ("value", "marker"),
    [
        ("tok", "[not stored: bare token]"),
        ("bearer tok", "[not stored: Bearer scheme]"),
        ("Weird tok en", "[not stored: unrecognised scheme]"),
        ("", "[not stored: empty]"),
    ],
)
def test_authorization_marker_keeps_only_the_shape(value: str, marker: str) -> None:
    assert credential_marker("authorization", value) == marker


def test_event_type_header_in_both_spellings() -> None:
    assert event_type_of({"event-type": "TransactionUpdateMessage"}) == "TransactionUpdateMessage"
    assert event_type_of({"event_type": " Challenge3dsUpdateMessage "}) == (
        "Challenge3dsUpdateMessage"
    )
    assert event_type_of({"Content-Type": "application/json"}) is None
