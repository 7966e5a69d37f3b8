"""Helpers for the QR tests: wallet and PIX requests, the sandbox's payer, reading a QR image."""

from __future__ import annotations

import base64
import logging
from typing import Any

import httpx

from checkout_desktop.domain.records import PIX, WALLET, QrSummary
from checkout_desktop.domain.wire import QrChargeRequest
from checkout_desktop.sandbox.api import ADMIN_HEADER
from tests.integration.charging_support import HOLDER_DOCUMENT, new_charge_id

logger = logging.getLogger(__name__)

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def qr_request(
    kind: str, *, amount: int = 2590, expiration_s: int = 600, merchant_charge_id: str | None = None
) -> QrChargeRequest:
    transaction: dict[str, Any] = {
        "paymentType": kind.upper(),
        "amount": amount,
        "softDescriptor": "LOJA TESTE",
    }
    if kind == PIX:
        transaction["pix"] = {"expiration": expiration_s}
    return QrChargeRequest.model_validate(
        {
            "merchantChargeId": merchant_charge_id or new_charge_id(),
            "customer": {
                "name": "Maria Silva",
                "email": "maria@example.com",
                "documentType": "CPF",
                "document": HOLDER_DOCUMENT,
                "phone": {"countryCode": "55", "areaCode": "11", "number": "987654321"},
            },
            "transactions": [transaction],
        }
    )


def qr_tenders(kind: str, expiration_s: int = 600) -> list[QrSummary]:
    return [QrSummary(PIX, expiration_s) if kind == PIX else QrSummary(WALLET)]


def png_of(image: str) -> bytes:
    """The PNG bytes of a `qrCodeBase64`, raw base64 or a data: URI."""
    text = image.strip()
    if text.startswith("data:"):
        text = text.partition(",")[2]
    return base64.b64decode(text, validate=True)


async def admin_post(api_url: str, admin_token: str, path: str) -> httpx.Response:
    async with httpx.AsyncClient(trust_env=False, timeout=10) as http:
        return await http.post(f"{api_url}{path}", headers={ADMIN_HEADER: admin_token})


async def pay(api_url: str, admin_token: str, mcid: str, *, late: bool = False) -> httpx.Response:
    """The simulated customer's app pays the QR (`late`: even one expired or cancelled, as a
    payment sent just before it ended)."""
    return await admin_post(
        api_url, admin_token, f"/_sandbox/pay/{mcid}" + ("?late=1" if late else "")
    )


async def expire(api_url: str, admin_token: str, mcid: str) -> httpx.Response:
    return await admin_post(api_url, admin_token, f"/_sandbox/expire/{mcid}")
