"""How the sandbox writes charges: API replies and the two webhook body layouts."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from typing import Any, Literal

from checkout_desktop.sandbox.state import (
    MERCHANT_CODE,
    SandboxCharge,
    SandboxTransaction,
    ThreeDsResult,
)

logger = logging.getLogger(__name__)

BRASILIA = timezone(timedelta(hours=-3), "BRT")
ACQUIRER_NAME = "SANDBOX"


def with_offset(moment: datetime) -> str:
    """`2024-07-01T16:00:00.123-03:00`: the API replies' and layout B's form."""
    return moment.astimezone(BRASILIA).isoformat(timespec="milliseconds")


def without_offset(moment: datetime) -> str:
    """`2024-07-01T16:00:00.123456000`: layout A's and the 3DS notification's form (no offset,
    nine fractional digits), in Brasília time as every documented offset is -03:00."""
    return moment.astimezone(BRASILIA).strftime("%Y-%m-%dT%H:%M:%S.%f") + "000"


def stamper(naive: bool) -> Callable[[datetime], str]:
    """How a reply writes its times: with the offset, or (variant `timestamps=naive-brt`) not."""
    return without_offset if naive else with_offset


def mask_document(document: str) -> str:
    return document[:3] + "*" * max(0, len(document) - 3)


def _credit_reply(txn: SandboxTransaction) -> dict[str, Any]:
    return {
        "nsu": txn.nsu,
        "cardNumber": txn.card.masked_number,
        "authorizationCode": txn.authorization_code,
        "authorizationResponseCode": txn.response_code,
        "brand": txn.card.brand.value,
        "cardholderName": txn.card.holder_name_masked,
        "cardholderDocument": txn.card.holder_document_masked,
        "installmentNumber": txn.installment_number,
        "installmentType": txn.installment_type,
        "reasonCode": txn.response_code,
        "reasonMessage": txn.reason_message,
        "acquirerName": ACQUIRER_NAME,
    }


def _transaction_reply(txn: SandboxTransaction, stamp: Callable[[datetime], str]) -> dict[str, Any]:
    return {
        "paymentType": "CREDIT",
        "transactionId": txn.transaction_id,
        "transactionStatus": txn.status.value,
        "amount": txn.amount,
        "originalAmount": txn.original_amount,
        "refundedAmount": txn.refunded_amount,
        "numberOfInstallments": txn.installment_number,
        "softDescriptor": txn.soft_descriptor,
        "createdAt": stamp(txn.created_at),
        "updatedAt": stamp(txn.updated_at),
        "credit": _credit_reply(txn),
        "pix": None,
        "wallet": None,
        "errorMessage": txn.reason_message,
    }


def charge_reply(charge: SandboxCharge, *, naive: bool = False) -> dict[str, Any]:
    """Reply body of authorization, query, capture and refund."""
    stamp = stamper(naive)
    return {
        "merchantChargeId": charge.merchant_charge_id,
        "id": charge.id,
        "chargeStatus": charge.status.value,
        "amount": charge.amount,
        "originalAmount": charge.original_amount,
        "refundedAmount": charge.refunded_amount,
        "transactions": [_transaction_reply(t, stamp) for t in charge.transactions],
    }


def _webhook_transaction(txn: SandboxTransaction, stamp: Any) -> dict[str, Any]:
    return {
        "transactionId": txn.transaction_id,
        "paymentType": "CREDIT",
        "status": txn.status.value,
        "amount": txn.amount,
        "originalAmount": txn.original_amount,
        "refundedAmount": txn.refunded_amount,
        "numberOfInstallments": txn.installment_number,
        "softDescriptor": txn.soft_descriptor,
        "createdAt": stamp(txn.created_at),
        "updatedAt": stamp(txn.updated_at),
        "credit": {
            "cardholderName": txn.card.holder_name_masked,
            "cardholderDocument": txn.card.holder_document_masked,
            "brand": txn.card.brand.value,
            "nsu": txn.nsu,
            "authorizationCode": txn.authorization_code,
            "authorizationResponseCode": txn.response_code,
            "acquirerName": ACQUIRER_NAME,
            "installmentType": txn.installment_type,
        },
        "wallet": None,
    }


def _charge_fields(charge: SandboxCharge, stamp: Any) -> dict[str, Any]:
    customer = charge.customer
    return {
        "status": charge.status.value,
        "amount": charge.amount,
        "originalAmount": charge.original_amount,
        "refundedAmount": charge.refunded_amount,
        "customer": {
            "document": mask_document(str(customer.get("document", ""))),
            "documentType": customer.get("documentType"),
            "email": customer.get("email"),
            "name": customer.get("name"),
        },
        "merchantChargeId": charge.merchant_charge_id,
        "smartCheckoutId": charge.smart_checkout_id,
        "paymentSource": charge.payment_source,
        "lateCapture": charge.late_capture,
        "transactions": [_webhook_transaction(t, stamp) for t in charge.transactions],
    }


def payment_notification(
    charge: SandboxCharge,
    layout: Literal["flat", "envelope"],
    merchant_document: str,
    event_at: datetime,
    *,
    naive: bool = False,
    envelope_id: Literal["notification", "charge"] = "notification",
) -> dict[str, Any]:
    """A TransactionUpdateMessage body: layout A (flat) or layout B (envelope), spec 2.4.

    The envelope's top-level `id` names the notification unless the `envelope-id` variant says
    it is the charge's id; the flat layout's `id` is the charge's (spec 2.4).
    """
    if layout == "flat":
        return {
            "type": "PAYMENT",
            "id": charge.id,
            "merchantCode": MERCHANT_CODE,
            "merchantDocument": merchant_document,
            **_charge_fields(charge, without_offset),
        }
    stamp = stamper(naive)
    return {
        "type": "PAYMENT",
        "eventDate": stamp(event_at),
        "merchantDocument": merchant_document,
        "id": charge.id if envelope_id == "charge" else str(uuid.uuid4()),
        "merchantCode": MERCHANT_CODE,
        "data": _charge_fields(charge, stamp),
    }


def three_ds_notification(
    charge: SandboxCharge, result: ThreeDsResult, merchant_document: str, event_at: datetime
) -> dict[str, Any]:
    """A Challenge3dsUpdateMessage body (spec 2.5); its eventDate has no offset, as seen."""
    return {
        "type": "THREE_DS_CHALLENGE",
        "eventDate": without_offset(event_at),
        "merchantDocument": merchant_document,
        "id": str(uuid.uuid4()),
        "merchantCode": MERCHANT_CODE,
        "data": {
            "status": result.status,
            "paresStatus": result.pares_status,
            "eciRaw": result.eci,
            "merchantChargeId": charge.merchant_charge_id,
            "chargeId": charge.id,
        },
    }
