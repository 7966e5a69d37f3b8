"""The sandbox's QR charges: PicPay wallet and PIX, their expiry, refunds and a simulated payer.

`POST /api/v1/charge/wallet` and `POST /api/v1/charge/pix` create a charge whose one transaction
carries a QR: its text (for PIX a BR Code "copia e cola" with a valid CRC16) and a real PNG of
it. The charge waits for a payer: `POST /_sandbox/pay/{merchantChargeId}` (admin) pays it as a
customer's app would, and `--qr-autopay S` pays every QR that many seconds after it is made.
A QR not paid by its expiry expires, with its notification. The query, refund and capture
endpoints of `charges.py` hand QR charges to this module.

What the public evidence leaves open is played as variants (`variants.py`): the unpaid
transaction's status, how a paid wallet is reported, what an expired QR's charge says, whether
the refund endpoint cancels an unpaid QR, and whether `qrCodeBase64` is raw base64 or a data:
URI.
"""

from __future__ import annotations

import base64
import contextlib
import io
import logging
import secrets
import string
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from aiohttp import web

from checkout_desktop.domain.enums import ChargeStatus, TransactionStatus, WebhookEventType
from checkout_desktop.sandbox.api import (
    AMOUNT_ABOVE_LIMIT,
    DUPLICATE_MERCHANT_CHARGE_ID,
    INVALID_CHARGE_STATE,
    api_error,
    apply_faults,
    field_error,
    require_admin,
    require_bearer,
)
from checkout_desktop.sandbox.api import server_of as _server
from checkout_desktop.sandbox.httpkit import (
    BodyProblem,
    HttpError,
    json_response,
    read_json_object,
)
from checkout_desktop.sandbox.render import mask_document, stamper, without_offset
from checkout_desktop.sandbox.state import MERCHANT_CODE, Tracked

if TYPE_CHECKING:
    from checkout_desktop.sandbox.server import SandboxServer

logger = logging.getLogger(__name__)

WALLET = "WALLET"
PIX = "PIX"
WALLET_LIFETIME = timedelta(minutes=4)
"""A wallet QR's life: the documentation's example has expiresAt 4 minutes after eventDate."""
PIX_KEY_HOST = "pix.sandbox.invalid"
"""Where the sandbox's dynamic PIX payloads point (a reserved name: never a real bank)."""
MERCHANT_NAME = "LOJA SANDBOX"
MERCHANT_CITY = "SAO PAULO"
SANDBOX_ISPB = "22896431"
"""The 8-digit institution code in the sandbox's end-to-end ids."""


# ---------------------------------------------------------------------------------------------
# Payloads and images


def crc16_ccitt(data: bytes) -> int:
    """CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF), as the BR Code's field 63 uses."""
    crc = 0xFFFF
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else crc << 1
            crc &= 0xFFFF
    return crc


def _tlv(tag: str, value: str) -> str:
    if len(value) > 99:
        raise ValueError(f"BR Code field {tag} is longer than 99 characters")
    return f"{tag}{len(value):02d}{value}"


def pix_payload(*, amount: int, location: str, name: str, city: str) -> str:
    """A dynamic PIX BR Code ("copia e cola") for `amount` centavos, with its CRC16."""
    account = _tlv("00", "br.gov.bcb.pix") + _tlv("25", location)
    body = (
        _tlv("00", "01")
        + _tlv("01", "12")
        + _tlv("26", account)
        + _tlv("52", "0000")
        + _tlv("53", "986")
        + _tlv("54", f"{amount // 100}.{amount % 100:02d}")
        + _tlv("58", "BR")
        + _tlv("59", name[:25])
        + _tlv("60", city[:15])
        + _tlv("62", _tlv("05", "***"))
        + "6304"
    )
    return body + f"{crc16_ccitt(body.encode('ascii')):04X}"


def check_br_code(payload: str) -> bool:
    """Whether a BR Code's last four characters are the CRC16 of everything before them."""
    if len(payload) < 8 or payload[-8:-4] != "6304":
        return False
    return f"{crc16_ccitt(payload[:-4].encode('ascii')):04X}" == payload[-4:].upper()


def wallet_payload(charge_id: str) -> str:
    """What the PicPay app scans for a wallet charge (the sandbox's own deep link)."""
    return f"picpay://picpay/checkout/{charge_id}"


def qr_png(payload: str) -> bytes:
    import segno

    buffer = io.BytesIO()
    segno.make(payload, error="m", micro=False).save(buffer, kind="png", scale=6, border=2)
    return buffer.getvalue()


def qr_image(payload: str, *, data_uri: bool) -> str:
    raw = base64.b64encode(qr_png(payload)).decode("ascii")
    return f"data:image/png;base64,{raw}" if data_uri else raw


def end_to_end_id(at: datetime) -> str:
    """A PIX end-to-end id: E + ISPB + yyyyMMddHHmm + 11 letters or digits (32 characters)."""
    tail = "".join(secrets.choice(string.ascii_letters + string.digits) for _ in range(11))
    return f"E{SANDBOX_ISPB}{at.strftime('%Y%m%d%H%M')}{tail}"


# ---------------------------------------------------------------------------------------------
# State


@dataclass
class QrCharge(Tracked):
    """One wallet or PIX charge: one transaction whose QR waits for a payer."""

    id: str
    merchant_charge_id: str
    kind: str
    amount: int
    customer: dict[str, Any]
    soft_descriptor: str | None
    transaction_id: str
    created_at: datetime
    updated_at: datetime
    expires_at: datetime
    expiration_s: int | None
    qr_code: str
    qr_image: str
    status: ChargeStatus
    txn_status: TransactionStatus
    refunded_amount: int = 0
    end_to_end_id: str | None = None
    paid_at: datetime | None = None
    payment_source: str = "GATEWAY"
    refunds: list[dict[str, Any]] = field(default_factory=list)

    @property
    def awaiting(self) -> bool:
        return self.paid_at is None and self.txn_status in (
            TransactionStatus.PENDING,
            TransactionStatus.PRE_AUTHORIZED,
        )


def qr_charges(server: SandboxServer) -> dict[str, QrCharge]:
    return server.state.qr_charges


# ---------------------------------------------------------------------------------------------
# Rendering (the same envelope as card charges; the transaction carries pix or wallet)


def _qr_object(charge: QrCharge, stamp: Any) -> dict[str, Any]:
    data: dict[str, Any] = {"qrCode": charge.qr_code, "qrCodeBase64": charge.qr_image}
    if charge.kind == WALLET:
        data["expiresAt"] = stamp(charge.expires_at)
    elif charge.end_to_end_id is not None:
        data["endToEndId"] = charge.end_to_end_id
    return data


def _transaction(charge: QrCharge, stamp: Any, *, webhook: bool) -> dict[str, Any]:
    qr = _qr_object(charge, stamp)
    return {
        "paymentType": charge.kind,
        "transactionId": charge.transaction_id,
        ("status" if webhook else "transactionStatus"): charge.txn_status.value,
        "amount": charge.amount,
        "originalAmount": charge.amount,
        "refundedAmount": charge.refunded_amount,
        "softDescriptor": charge.soft_descriptor,
        "createdAt": stamp(charge.created_at),
        "updatedAt": stamp(charge.updated_at),
        "credit": None,
        "pix": qr if charge.kind == PIX else None,
        "wallet": qr if charge.kind == WALLET else None,
        **({} if webhook else {"errorMessage": None}),
    }


def qr_reply(server: SandboxServer, charge: QrCharge) -> dict[str, Any]:
    """Reply body of the create, query and refund calls for a QR charge."""
    expire_if_due(server, charge)
    stamp = stamper(server.variants.timestamps == "naive-brt")
    return {
        "merchantChargeId": charge.merchant_charge_id,
        "id": charge.id,
        "chargeStatus": charge.status.value,
        "amount": charge.amount,
        "originalAmount": charge.amount,
        "refundedAmount": charge.refunded_amount,
        "transactions": [_transaction(charge, stamp, webhook=False)],
    }


def _notification(server: SandboxServer, charge: QrCharge) -> dict[str, Any]:
    variants = server.variants
    layout = server.webhooks.next_layout()
    customer = charge.customer
    fields_stamp = (
        without_offset if layout == "flat" else stamper(variants.timestamps == "naive-brt")
    )
    data = {
        "status": charge.status.value,
        "amount": charge.amount,
        "originalAmount": charge.amount,
        "refundedAmount": charge.refunded_amount,
        "customer": {
            "document": mask_document(str(customer.get("document", ""))),
            "documentType": customer.get("documentType"),
            "email": customer.get("email"),
            "name": customer.get("name"),
        },
        "merchantChargeId": charge.merchant_charge_id,
        "smartCheckoutId": None,
        "paymentSource": charge.payment_source,
        "lateCapture": False,
        "transactions": [_transaction(charge, fields_stamp, webhook=True)],
    }
    merchant_document = server.state.credentials.merchant_document
    if layout == "flat":
        return {
            "type": "PAYMENT",
            "id": charge.id,
            "merchantCode": MERCHANT_CODE,
            "merchantDocument": merchant_document,
            **data,
        }
    return {
        "type": "PAYMENT",
        "eventDate": fields_stamp(server.clock.now()),
        "merchantDocument": merchant_document,
        "id": charge.id if variants.envelope_id == "charge" else str(uuid.uuid4()),
        "merchantCode": MERCHANT_CODE,
        "data": data,
    }


def notify(server: SandboxServer, charge: QrCharge) -> None:
    server.webhooks.enqueue(
        WebhookEventType.TRANSACTION_UPDATE,
        _notification(server, charge),
        charge.merchant_charge_id,
    )


# ---------------------------------------------------------------------------------------------
# Life of a QR: paid, expired, cancelled, refunded


def expire_if_due(server: SandboxServer, charge: QrCharge) -> bool:
    """Expire an unpaid QR whose time has come (with its notification); True if it did now."""
    if not charge.awaiting or server.clock.now() < charge.expires_at:
        return False
    expired = server.variants.qr_expired
    charge.txn_status = (
        TransactionStatus.CANCELED if expired == "canceled" else TransactionStatus.EXPIRED
    )
    if expired != "expired-stays":
        charge.status = ChargeStatus.CANCELED
    charge.updated_at = server.clock.now()
    logger.info("QR charge %s expired", charge.merchant_charge_id)
    notify(server, charge)
    return True


class PayRefused(Exception):
    """The simulated payer could not pay (expired, cancelled, already paid)."""


def pay(server: SandboxServer, charge: QrCharge, *, late: bool = False) -> None:
    """The customer's app pays the QR now. `late`: a payment the app sent just before the QR
    expired or was cancelled, which lands after it (the service takes the money anyway)."""
    expire_if_due(server, charge)
    if charge.paid_at is not None:
        raise PayRefused(f"QR charge {charge.merchant_charge_id} is already paid")
    if not charge.awaiting and not late:
        raise PayRefused(
            f"QR charge {charge.merchant_charge_id} can no longer be paid "
            f"({charge.txn_status.value})"
        )
    now = server.clock.now()
    charge.paid_at = now
    charge.updated_at = now
    if charge.kind == WALLET and server.variants.wallet_paid == "AUTHORIZED":
        charge.status = ChargeStatus.AUTHORIZED
        charge.txn_status = TransactionStatus.CAPTURED
    else:
        charge.status = ChargeStatus.PAID
        charge.txn_status = TransactionStatus.PAID
    if charge.kind == PIX:
        charge.end_to_end_id = end_to_end_id(now)
    logger.info("QR charge %s paid", charge.merchant_charge_id)
    notify(server, charge)


def _state_error(charge: QrCharge, action: str, why: str) -> HttpError:
    return api_error(
        400,
        f"cannot {action} charge {charge.merchant_charge_id}: {why}",
        [field_error("chargeStatus", why)],
        business_code=INVALID_CHARGE_STATE,
    )


def refund_qr(server: SandboxServer, charge: QrCharge, amount: int) -> None:
    """Cancel an unpaid QR (in full) or refund a paid one (in full or part), and notify."""
    expire_if_due(server, charge)
    now = server.clock.now()
    if charge.awaiting:
        if server.variants.qr_cancel == "refused":
            raise _state_error(
                charge, "refund", "an unpaid QR cannot be cancelled; it expires by itself"
            )
        if amount != charge.amount:
            raise api_error(
                400,
                f"an unpaid QR is cancelled in full (amount {charge.amount})",
                [field_error("amount", f"must be {charge.amount}")],
                business_code=INVALID_CHARGE_STATE,
            )
        charge.status = ChargeStatus.CANCELED
        charge.txn_status = TransactionStatus.CANCELED
    elif charge.paid_at is not None and charge.refunded_amount < charge.amount:
        refundable = charge.amount - charge.refunded_amount
        if amount > refundable:
            raise api_error(
                400,
                f"refund of {amount} is above the {refundable} still refundable",
                [field_error("amount", f"at most {refundable}")],
                business_code=AMOUNT_ABOVE_LIMIT,
            )
        charge.refunded_amount += amount
        charge.refunds.append({"amount": amount, "createdAt": now.isoformat()})
        if charge.refunded_amount == charge.amount:
            charge.status = ChargeStatus.REFUNDED
            charge.txn_status = TransactionStatus.REFUNDED
        else:
            charge.txn_status = TransactionStatus.PARTIALLY_REFUNDED
            if server.variants.partial_refund == "PARTIAL":
                charge.status = ChargeStatus.PARTIAL
    else:
        why = (
            "it is already fully refunded"
            if charge.paid_at is not None
            else f"the QR was never paid ({charge.txn_status.value})"
        )
        raise _state_error(charge, "refund", why)
    charge.updated_at = now
    logger.info("QR charge %s refund: %s", charge.merchant_charge_id, charge.status.value)
    notify(server, charge)


# ---------------------------------------------------------------------------------------------
# Handlers


async def create(request: web.Request) -> web.Response:
    """POST /api/v1/charge/wallet and /api/v1/charge/pix."""
    server = _server(request)
    await apply_faults(request)
    require_bearer(request)
    from pydantic import ValidationError

    from checkout_desktop.domain.wire import QrChargeRequest

    kind = PIX if request.path.endswith("/pix") else WALLET
    if request.content_type != "application/json":
        raise api_error(415, f"Content-Type {request.content_type or 'missing'} is not supported")
    try:
        body = await read_json_object(request)
    except BodyProblem as exc:
        raise api_error(400, str(exc)) from None
    try:
        wanted = QrChargeRequest.model_validate_json(await request.read(), strict=True)
    except ValidationError as exc:
        problems = [
            field_error(
                ".".join(str(part) for part in error["loc"]) or None,
                str(error["msg"]).removeprefix("Value error, "),
            )
            for error in exc.errors(include_input=False, include_url=False)
        ]
        raise api_error(400, "the charge request is invalid", problems) from None
    if wanted.payment_type.value != kind:
        raise api_error(
            400,
            f"this endpoint takes paymentType {kind}",
            [field_error("transactions[0].paymentType", f"must be {kind}")],
        )
    customer = body.get("customer")
    if server.variants.requires_phone and not (
        isinstance(customer, dict) and customer.get("phone")
    ):
        raise api_error(
            400, "Required fields are missing.", [field_error("customer.phone", "required")]
        )
    mcid = wanted.merchantChargeId
    if mcid in server.state.charges or mcid in qr_charges(server):
        raise api_error(
            400,
            f"merchantChargeId {mcid} was already used; a new charge needs a new merchantChargeId",
            [field_error("merchantChargeId", "already used")],
            business_code=DUPLICATE_MERCHANT_CHARGE_ID,
        )
    txn = wanted.transactions[0]
    now = server.clock.now()
    charge_id = str(uuid.uuid4())
    if kind == PIX:
        assert txn.pix is not None
        expiration_s: int | None = txn.pix.expiration
        lifetime = timedelta(seconds=txn.pix.expiration)
        payload = pix_payload(
            amount=txn.amount,
            location=f"{PIX_KEY_HOST}/qr/v2/{charge_id.replace('-', '')}",
            name=MERCHANT_NAME,
            city=MERCHANT_CITY,
        )
    else:
        expiration_s = None
        lifetime = WALLET_LIFETIME
        payload = wallet_payload(charge_id)
    images = server.variants.qr_image
    data_uri = images == "data-uri" or (images == "as-sources" and kind == WALLET)
    charge = QrCharge(
        id=charge_id,
        merchant_charge_id=mcid,
        kind=kind,
        amount=txn.amount,
        customer=wanted.customer.model_dump(mode="json", exclude_none=True),
        soft_descriptor=txn.softDescriptor,
        transaction_id=txn.transactionId or str(uuid.uuid4()),
        created_at=now,
        updated_at=now,
        expires_at=now + lifetime,
        expiration_s=expiration_s,
        qr_code=payload,
        qr_image=qr_image(payload, data_uri=data_uri),
        status=ChargeStatus.PRE_AUTHORIZED,
        txn_status=TransactionStatus(server.variants.qr_unpaid),
        payment_source=wanted.paymentSource.value,
    )
    qr_charges(server)[mcid] = charge
    logger.info("QR charge %s (%s) awaiting payment", mcid, kind)
    notify(server, charge)
    server.spawn(_watch(server, charge), f"sandbox-qr-{charge_id}")
    delay = server.config.faults.qr_reply_delay_s
    # The QR exists and is waiting; only the reply is late (the ambiguous case).
    if delay > 0 and not await server.sleep_unless_stopping(delay):
        raise api_error(503, "the sandbox is stopping")
    return json_response(qr_reply(server, charge))


async def _watch(server: SandboxServer, charge: QrCharge) -> None:
    """Pay it after the autopay delay (if set), and expire it when its time comes."""
    autopay = server.config.qr_autopay_s
    started = server.clock.monotonic()
    while charge.awaiting:
        if autopay is not None and server.clock.monotonic() - started >= autopay:
            with contextlib.suppress(PayRefused):
                pay(server, charge)
            break
        if expire_if_due(server, charge):
            break
        if not await server.sleep_unless_stopping(0.2):
            return
    # No request follows to save what this task changed.
    server.save_if_changed()


def watch_waiting(server: SandboxServer) -> None:
    """Watch every QR still waiting for its payer (at start, when none is watched yet).

    The QRs a state file brought back after a restart: one whose time ran out while the
    sandbox was down expires at once, with its notification; the others expire when due, or
    the simulated payer (`--qr-autopay`) pays them its delay after the restart.
    """
    for charge in list(qr_charges(server).values()):
        if charge.awaiting:
            server.spawn(_watch(server, charge), f"sandbox-qr-{charge.id}")


def query_qr(server: SandboxServer, charge: QrCharge) -> web.Response:
    return json_response(qr_reply(server, charge))


async def refund_endpoint(server: SandboxServer, charge: QrCharge, amount: int) -> web.Response:
    refund_qr(server, charge, amount)
    return json_response(qr_reply(server, charge))


def refuse_capture(charge: QrCharge) -> HttpError:
    return _state_error(charge, "capture", "a QR charge is paid by the customer, not captured")


async def admin_pay(request: web.Request) -> web.Response:
    """POST /_sandbox/pay/{merchantChargeId}: the customer's app pays the waiting QR.

    `?late=1`: the payment lands although the QR expired or was cancelled (it was sent just
    before), so a shop can see such a payment shown and refund it."""
    server = require_admin(request)
    mcid = request.match_info["merchantChargeId"]
    charge = qr_charges(server).get(mcid)
    if charge is None:
        raise api_error(404, f"no QR charge {mcid[:40]}")
    late = request.query.get("late", "") in ("1", "true")
    try:
        pay(server, charge, late=late)
    except PayRefused as exc:
        raise api_error(409, str(exc), business_code=INVALID_CHARGE_STATE) from None
    return json_response(qr_reply(server, charge))


async def admin_expire(request: web.Request) -> web.Response:
    """POST /_sandbox/expire/{merchantChargeId}: the QR's time runs out now (for tests)."""
    server = require_admin(request)
    mcid = request.match_info["merchantChargeId"]
    charge = qr_charges(server).get(mcid)
    if charge is None:
        raise api_error(404, f"no QR charge {mcid[:40]}")
    if not charge.awaiting:
        raise api_error(409, f"QR charge {mcid[:40]} is not waiting for payment")
    charge.expires_at = server.clock.now()
    expire_if_due(server, charge)
    return json_response(qr_reply(server, charge))


async def admin_list(request: web.Request) -> web.Response:
    """GET /_sandbox/qr: every QR charge and where it stands (for tests and demos)."""
    server = require_admin(request)
    return json_response(
        {
            "charges": [
                {
                    "merchantChargeId": c.merchant_charge_id,
                    "kind": c.kind,
                    "chargeStatus": c.status.value,
                    "transactionStatus": c.txn_status.value,
                    "amount": c.amount,
                    "refundedAmount": c.refunded_amount,
                }
                for c in qr_charges(server).values()
            ]
        }
    )


def add_qr_routes(app: web.Application) -> None:
    app.router.add_post("/api/v1/charge/wallet", create)
    app.router.add_post("/api/v1/charge/pix", create)
    app.router.add_post("/_sandbox/pay/{merchantChargeId}", admin_pay)
    app.router.add_post("/_sandbox/expire/{merchantChargeId}", admin_expire)
    app.router.add_get("/_sandbox/qr", admin_list)


__all__ = [
    "PayRefused",
    "QrCharge",
    "add_qr_routes",
    "check_br_code",
    "crc16_ccitt",
    "end_to_end_id",
    "pay",
    "pix_payload",
    "qr_image",
    "qr_png",
    "qr_reply",
    "refund_qr",
    "watch_waiting",
]
