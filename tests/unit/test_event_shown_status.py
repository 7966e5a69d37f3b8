"""A stored notification's listed status: a QR's in the History's words for what that one
notification said, under every way the service may report an expiry; a card's as it came."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from checkout_desktop.domain import event_status
from checkout_desktop.domain.enums import PaymentType
from checkout_desktop.domain.event_status import (
    event_shown_status,
    needs_stored_expiry,
    stored_event_shown_status,
    stored_qr_expiry,
)
from checkout_desktop.domain.state import ChargeState, TransactionState
from checkout_desktop.domain.wire import PaymentFlat, payment_update, validate_webhook_json

logger = logging.getLogger(__name__)

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
EXPIRY = T0 + timedelta(minutes=10)


def _body(
    charge: str, txn: str, kind: str = "PIX", *, at: datetime = T0, wallet_expiry: bool = True
) -> dict[str, Any]:
    qr: dict[str, Any] = {"qrCode": "000201...6304ABCD"}
    if kind == "WALLET" and wallet_expiry:
        qr["expiresAt"] = EXPIRY.isoformat()
    return {
        "type": "PAYMENT",
        "id": "c-1",
        "merchantChargeId": "order-1",
        "status": charge,
        "amount": 2590,
        "transactions": [
            {
                "paymentType": kind,
                "transactionId": "t-1",
                "status": txn,
                "amount": 2590,
                "createdAt": T0.isoformat(),
                "updatedAt": at.isoformat(),
                kind.lower(): qr,
            }
        ],
    }


def _shown(body: dict[str, Any], stored_expiry: datetime | None = None) -> str | None:
    parsed = validate_webhook_json(json.dumps(body).encode())
    assert isinstance(parsed, PaymentFlat)
    return event_shown_status(payment_update(parsed, received_at=T0), stored_expiry)


LATER = EXPIRY + timedelta(seconds=3)


@pytest.mark.parametrize("kind", ["PIX", "WALLET"])
@pytest.mark.parametrize(
    ("charge", "txn", "at", "shown"),
    [
        ("PRE_AUTHORIZED", "PENDING", T0, "AWAITING_PAYMENT"),
        ("PRE_AUTHORIZED", "PRE_AUTHORIZED", T0, "AWAITING_PAYMENT"),
        # qr-expired=expired-canceled and expired-stays: the transaction says so.
        ("CANCELED", "EXPIRED", LATER, "EXPIRED"),
        ("PRE_AUTHORIZED", "EXPIRED", LATER, "EXPIRED"),
        # qr-expired=canceled, once its time ran out: expired; before it, cancelled.
        ("CANCELED", "CANCELED", LATER, "EXPIRED"),
        ("CANCELED", "CANCELED", T0 + timedelta(minutes=1), "CANCELED"),
        ("PAID", "PAID", LATER, "PAID"),
        ("AUTHORIZED", "CAPTURED", LATER, "PAID"),
    ],
)
def test_a_qr_notification_reads_as_the_history_reads_what_it_said(
    kind: str, charge: str, txn: str, at: datetime, shown: str
) -> None:
    # A PIX notification carries no expiry: the stored charge's stands in for it.
    assert _shown(_body(charge, txn, kind, at=at), EXPIRY if kind == "PIX" else None) == shown


def test_a_pix_called_canceled_needs_the_stored_expiry_and_reads_cancelled_without_it() -> None:
    body = _body("CANCELED", "CANCELED", at=LATER)
    parsed = validate_webhook_json(json.dumps(body).encode())
    assert isinstance(parsed, PaymentFlat)
    update = payment_update(parsed, received_at=T0)
    assert needs_stored_expiry(update)
    assert event_shown_status(update) == "CANCELED"
    assert event_shown_status(update, EXPIRY) == "EXPIRED"
    # An expiry or a payment says what it is by itself.
    for charge, txn in (("PRE_AUTHORIZED", "EXPIRED"), ("PAID", "PAID")):
        parsed = validate_webhook_json(json.dumps(_body(charge, txn, at=LATER)).encode())
        assert isinstance(parsed, PaymentFlat)
        assert not needs_stored_expiry(payment_update(parsed, received_at=T0))


def test_a_card_notification_keeps_its_status() -> None:
    body = _body("PAID", "PAID", "CREDIT")
    del body["transactions"][0]["credit"]
    assert _shown(body) == "PAID"
    assert _shown(_body("PRE_AUTHORIZED", "PRE_AUTHORIZED", "CREDIT")) == "PRE_AUTHORIZED"


@pytest.mark.parametrize("charge", ["PAID", "CANCELED", "PRE_AUTHORIZED"])
def test_a_card_notification_is_listed_without_building_its_state(
    charge: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Nearly every delivery is a card's: the inbox asks both questions of each one (the handler
    # and the writer), and a card's answers need no charge state built from it.
    parsed = validate_webhook_json(json.dumps(_body(charge, charge, "CREDIT")).encode())
    assert isinstance(parsed, PaymentFlat)
    update = payment_update(parsed, received_at=T0)

    def built(*_args: object) -> ChargeState:
        raise AssertionError("a card notification's state was built")

    monkeypatch.setattr(event_status, "_notification_state", built)
    assert not needs_stored_expiry(update)
    assert event_shown_status(update) == charge
    assert event_shown_status(update, EXPIRY) == charge


def test_a_stored_body_is_read_with_its_charges_stored_expiry() -> None:
    state = ChargeState(
        merchant_charge_id="order-1",
        transactions=(
            TransactionState(key="t-1", payment_type=PaymentType.PIX, expires_at=EXPIRY),
        ),
    )
    stored = json.dumps(state.to_json())
    assert stored_qr_expiry(stored) == EXPIRY
    body = json.dumps(_body("CANCELED", "CANCELED", at=LATER)).encode()
    assert stored_event_shown_status(body, "CANCELED", stored) == "EXPIRED"
    assert stored_event_shown_status(body, "CANCELED", None) == "CANCELED"
    # Anything not read as a payment notification keeps its status.
    assert stored_event_shown_status(b"{not json", "PAID", stored) == "PAID"
    assert stored_event_shown_status(b'{"type": "SELF_TEST"}', None, None) is None
    assert stored_qr_expiry("{broken") is None
