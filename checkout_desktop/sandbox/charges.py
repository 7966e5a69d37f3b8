"""The charge API of the sandbox: authorization, query, capture and refund, with state rules."""

from __future__ import annotations

import logging
import re
import secrets
import string
import uuid
from typing import TYPE_CHECKING, Any, NoReturn

from aiohttp import web

from checkout_desktop.domain.enums import ChargeStatus, TransactionStatus, WebhookEventType
from checkout_desktop.sandbox import qr as qr_charges
from checkout_desktop.sandbox.api import (
    AMOUNT_ABOVE_LIMIT,
    CARD_TOKEN_MISSING,
    CHARGE_NOT_FOUND,
    DUPLICATE_MERCHANT_CHARGE_ID,
    INVALID_CARD_TOKEN,
    INVALID_CHARGE_STATE,
    INVALID_DOCUMENT,
    REQUIRED_FIELD_MISSING,
    api_error,
    apply_faults,
    field_error,
    require_admin,
    require_bearer,
)
from checkout_desktop.sandbox.api import server_of as _server
from checkout_desktop.sandbox.cards import CardBehaviour
from checkout_desktop.sandbox.httpkit import BodyProblem, json_response, read_json_object
from checkout_desktop.sandbox.render import (
    charge_reply,
    payment_notification,
    three_ds_notification,
)
from checkout_desktop.sandbox.state import (
    CardToken,
    SandboxCharge,
    SandboxTransaction,
    ThreeDsResult,
)

if TYPE_CHECKING:
    from pydantic import ValidationError

    from checkout_desktop.domain.wire import ChargeAuthorizationRequest
    from checkout_desktop.sandbox.server import SandboxServer

# The request models (pydantic) are imported by the handlers, at the first charge: building them
# is a third of the sandbox's start-up, which the terminal waits for, and the token server does
# not need them.

logger = logging.getLogger(__name__)

CHARGE_PATH = "/api/v1/charge/{merchantChargeId}"
_RAW_CARD_FIELDS = frozenset(
    {"cardNumber", "cvv", "expirationMonth", "expirationYear", "cardholderName", "number"}
)
THREE_DS_APPROVED = ThreeDsResult(status="Approved", pares_status="Y", eci="05")
THREE_DS_REJECTED = ThreeDsResult(status="Rejected", pares_status="N", eci="07")
ISSUER_REQUIRES_3DS = frozenset({CardBehaviour.THREE_DS_CHALLENGE, CardBehaviour.THREE_DS_REJECTED})


# ---------------------------------------------------------------------------------------------
# Request checks


def _location(loc: tuple[int | str, ...]) -> str:
    path = ""
    for part in loc:
        if isinstance(part, int):
            path += f"[{part}]"
        else:
            path += f".{part}" if path else str(part)
    return path


def validation_errors(exc: ValidationError) -> list[dict[str, Any]]:
    """Field-level errors without the offending values (they may be card data)."""
    items = []
    for error in exc.errors(include_input=False, include_url=False):
        field = _location(tuple(error["loc"]))
        message = str(error["msg"]).removeprefix("Value error, ")
        last = str(error["loc"][-1]) if error["loc"] else ""
        if error["type"] == "extra_forbidden" and last in _RAW_CARD_FIELDS:
            message = (
                "raw card data is not accepted; tokenize the card with the SDK and send "
                "credit.temporaryCardToken"
            )
        elif error["type"] == "extra_forbidden":
            message = "unknown field"
        items.append(field_error(field or None, message))
    return items


def _require_json(request: web.Request) -> None:
    if request.content_type != "application/json":
        raise api_error(
            415,
            f"Content-Type {request.content_type or 'missing'} is not supported; "
            "send application/json",
        )


async def _json_body(request: web.Request) -> dict[str, Any]:
    _require_json(request)
    try:
        return await read_json_object(request)
    except BodyProblem as exc:
        raise api_error(400, str(exc)) from None


def _charge_or_not_found(server: SandboxServer, request: web.Request) -> SandboxCharge:
    """The charge named in the path, or "not found" as the `not-found` variant answers it."""
    merchant_charge_id = request.match_info["merchantChargeId"]
    charge = server.state.charges.get(merchant_charge_id)
    if charge is None:
        raise api_error(
            server.variants.not_found_status,
            "Charge not found.",
            [field_error("merchantChargeId", f"charge {merchant_charge_id[:40]} not found")],
            business_code=CHARGE_NOT_FOUND,
        )
    return charge


# ---------------------------------------------------------------------------------------------
# Notifications


def notify_payment(server: SandboxServer, charge: SandboxCharge) -> None:
    variants = server.variants
    body = payment_notification(
        charge,
        server.webhooks.next_layout(),
        server.state.credentials.merchant_document,
        server.clock.now(),
        naive=variants.timestamps == "naive-brt",
        envelope_id="charge" if variants.envelope_id == "charge" else "notification",
    )
    server.webhooks.enqueue(WebhookEventType.TRANSACTION_UPDATE, body, charge.merchant_charge_id)


def notify_three_ds(server: SandboxServer, charge: SandboxCharge, result: ThreeDsResult) -> None:
    body = three_ds_notification(
        charge, result, server.state.credentials.merchant_document, server.clock.now()
    )
    server.webhooks.enqueue(WebhookEventType.CHALLENGE_3DS_UPDATE, body, charge.merchant_charge_id)


# ---------------------------------------------------------------------------------------------
# POST /api/v1/charge/authorization


def _resolve_tokens(
    server: SandboxServer, request_model: ChargeAuthorizationRequest
) -> list[CardToken]:
    """Each transaction's card token, checked: known, unused, unexpired, one per card."""
    now = server.clock.monotonic()
    errors: list[dict[str, Any]] = []
    cards: list[CardToken] = []
    seen: set[str] = set()
    for index, txn in enumerate(request_model.transactions):
        where = f"transactions[{index}].credit.temporaryCardToken"
        value = txn.credit.temporaryCardToken
        token = server.state.card_tokens.get(value)
        if value in seen:
            errors.append(field_error(where, "the same card token appears twice; one per card"))
        elif token is None:
            errors.append(field_error(where, "unknown temporary card token"))
        elif token.used:
            errors.append(field_error(where, "this temporary card token was already used"))
        elif now >= token.expires_at:
            errors.append(field_error(where, "this temporary card token has expired"))
        else:
            cards.append(token)
        seen.add(value)
    if errors:
        raise api_error(
            400,
            "the charge request has invalid card tokens",
            errors,
            business_code=INVALID_CARD_TOKEN,
        )
    return cards


def _digits(count: int) -> str:
    return "".join(secrets.choice(string.digits) for _ in range(count))


def _auth_code() -> str:
    return "".join(secrets.choice(string.ascii_uppercase + string.digits) for _ in range(6))


def _approve(txn: SandboxTransaction, late_capture: bool) -> None:
    txn.status = TransactionStatus.PRE_AUTHORIZED if late_capture else TransactionStatus.PAID
    txn.authorization_code = _auth_code()
    txn.response_code = "00"
    txn.reason_message = "APROVADA"


def _deny(txn: SandboxTransaction, message: str = "NAO AUTORIZADA") -> None:
    txn.status = TransactionStatus.DENIED
    txn.authorization_code = None
    txn.response_code = "05"
    txn.reason_message = message


def _settle(charge: SandboxCharge) -> None:
    """The charge's status from its transactions; one denied card voids the others."""
    statuses = {t.status for t in charge.transactions}
    if TransactionStatus.DENIED in statuses:
        for txn in charge.transactions:
            if txn.status in (TransactionStatus.PAID, TransactionStatus.PRE_AUTHORIZED):
                txn.status = TransactionStatus.CANCELED
                txn.reason_message = "CANCELADA: outro cartao da cobranca foi negado"
        charge.status = ChargeStatus.DENIED
    elif charge.late_capture:
        charge.status = ChargeStatus.PRE_AUTHORIZED
    else:
        charge.status = ChargeStatus.PAID


# -- the test cards' rules, for every call that charges a card (plain or after 3DS) ------------


def refuse_unanswered(merchant_charge_id: str, cards: list[CardToken]) -> None:
    """The gateway-error card: HTTP 500 before anything is created. No charge exists after it
    and the card tokens stay usable: nothing happened."""
    if any(card.behaviour == CardBehaviour.GATEWAY_ERROR for card in cards):
        logger.info("charge %s: gateway error (test card)", merchant_charge_id)
        raise api_error(500, "gateway error: the acquirer did not answer; no charge was created")


def decide_card(
    txn: SandboxTransaction, card: CardToken, *, late_capture: bool, authenticated: bool
) -> None:
    """A card's answer by its test number: denied, or approved (PAID or PRE_AUTHORIZED). A
    card whose issuer insists on 3DS is denied unless it was `authenticated` by the 3DS flow."""
    if card.behaviour == CardBehaviour.DENIED:
        _deny(txn)
    elif card.behaviour in ISSUER_REQUIRES_3DS and not authenticated:
        # Public sources show no deferred challenge on the plain path: an issuer that insists
        # on authentication denies the card there (the 3DS flow is its own calls).
        _deny(txn, "NEGADA: o emissor exige autenticacao 3DS")
    else:
        _approve(txn, late_capture)


async def late_card_reply(server: SandboxServer, cards: list[CardToken]) -> None:
    """The slow card: the charge exists and is settled; only the reply is late (the ambiguous
    case), after `slow_card_delay_s`."""
    slow = any(card.behaviour == CardBehaviour.SLOW for card in cards)
    if slow and not await server.sleep_unless_stopping(server.config.slow_card_delay_s):
        raise api_error(503, "the sandbox is stopping")


_TOKEN_SPELLINGS = ("temporatyCardToken", "temporaryCardToken")
_DOCUMENTED_DOCUMENT = re.compile(r"^\d{9}$|^\d{11}$|^[A-Z0-9]{9}$")


def _check_variants(server: SandboxServer, body: dict[str, Any]) -> None:
    """What the variants in force demand of a charge the wire model already accepted."""
    variants = server.variants
    wanted = [s for s in _TOKEN_SPELLINGS if variants.accepts_token_field(s)]
    missing = []
    for index, txn in enumerate(body.get("transactions") or []):
        credit = txn.get("credit") if isinstance(txn, dict) else None
        if isinstance(credit, dict) and not any(credit.get(s) for s in wanted):
            missing.append(
                field_error(
                    f"transactions[{index}].credit.{wanted[0]}",
                    f"the card token is required ({' or '.join(wanted)}); card data is missing",
                )
            )
    if missing:
        raise api_error(
            400, "Card data is missing: no card token.", missing, business_code=CARD_TOKEN_MISSING
        )
    raw_customer = body.get("customer")
    customer: dict[str, Any] = raw_customer if isinstance(raw_customer, dict) else {}
    required = []
    if variants.requires_phone and not customer.get("phone"):
        required.append(field_error("customer.phone", "customer.phone is required"))
    if variants.requires_email and not customer.get("email"):
        required.append(field_error("customer.email", "customer.email is required"))
    if variants.requires_device and not body.get("deviceInformation"):
        required.append(field_error("deviceInformation", "deviceInformation is required"))
    if required:
        raise api_error(
            400,
            "Required fields are missing.",
            required,
            business_code=REQUIRED_FIELD_MISSING,
        )
    document = str(customer.get("document", ""))
    if variants.customer_document == "no-cnpj" and not _DOCUMENTED_DOCUMENT.match(document):
        raise api_error(
            400,
            "The customer document is invalid.",
            [field_error("customer.document", "must match ^\\d{9}$|^\\d{11}$|^[A-Z0-9]{9}$")],
            business_code=INVALID_DOCUMENT,
        )


async def authorize(request: web.Request) -> web.Response:
    server = _server(request)
    await apply_faults(request)
    require_bearer(request)
    body = await _json_body(request)
    from pydantic import ValidationError

    from checkout_desktop.domain.wire import ChargeAuthorizationRequest

    try:
        # Strict, from the JSON text: a string is not a number, a number is not a boolean.
        wanted = ChargeAuthorizationRequest.model_validate_json(await request.read(), strict=True)
        _check_variants(server, body)
    except ValidationError as exc:
        raise api_error(400, "the charge request is invalid", validation_errors(exc)) from None
    finally:
        # The body may carry raw card data sent by mistake; drop it at once.
        body.clear()
    if wanted.merchantChargeId in server.state.charges or (
        wanted.merchantChargeId in server.state.qr_charges
    ):
        raise api_error(
            400,
            f"merchantChargeId {wanted.merchantChargeId} was already used; a new charge needs "
            "a new merchantChargeId",
            [field_error("merchantChargeId", "already used")],
            business_code=DUPLICATE_MERCHANT_CHARGE_ID,
        )
    cards = _resolve_tokens(server, wanted)
    refuse_unanswered(wanted.merchantChargeId, cards)

    # From here to the insert there is no await: a concurrent request with the same
    # merchantChargeId sees either nothing or the whole charge.
    now = server.clock.now()
    transactions = []
    for txn_request, card in zip(wanted.transactions, cards, strict=True):
        card.used = True
        txn = SandboxTransaction(
            transaction_id=txn_request.transactionId or str(uuid.uuid4()),
            amount=txn_request.amount,
            original_amount=txn_request.amount,
            soft_descriptor=txn_request.softDescriptor,
            installment_number=txn_request.credit.installmentNumber,
            installment_type=txn_request.credit.installmentType.value,
            card=card,
            status=TransactionStatus.PENDING,
            created_at=now,
            updated_at=now,
            nsu=_digits(9),
            authorization_code=None,
            response_code="",
            reason_message="PENDENTE",
        )
        decide_card(txn, card, late_capture=wanted.lateCapture, authenticated=False)
        transactions.append(txn)
    charge = SandboxCharge(
        id=str(uuid.uuid4()),
        merchant_charge_id=wanted.merchantChargeId,
        status=ChargeStatus.PENDING,
        late_capture=wanted.lateCapture,
        payment_source=wanted.paymentSource.value,
        smart_checkout_id=str(wanted.smartCheckoutId) if wanted.smartCheckoutId else None,
        customer=wanted.customer.model_dump(mode="json", exclude_none=True),
        transactions=transactions,
        created_at=now,
        updated_at=now,
    )
    _settle(charge)
    server.state.charges[charge.merchant_charge_id] = charge
    logger.info("charge %s: %s", charge.merchant_charge_id, charge.status.value)
    notify_payment(server, charge)
    reply = charge_reply(charge, naive=server.variants.timestamps == "naive-brt")
    await late_card_reply(server, cards)
    return json_response(reply)


# ---------------------------------------------------------------------------------------------
# GET /api/v1/charge/{merchantChargeId}


async def query(request: web.Request) -> web.Response:
    server = _server(request)
    await apply_faults(request)
    require_bearer(request)
    if server.variants.query_content_type == "required":
        _require_json(request)
    qr = server.state.qr_charges.get(request.match_info["merchantChargeId"])
    if qr is not None:
        return qr_charges.query_qr(server, qr)
    return json_response(_reply(server, _charge_or_not_found(server, request)))


def _reply(server: SandboxServer, charge: SandboxCharge) -> dict[str, Any]:
    return charge_reply(charge, naive=server.variants.timestamps == "naive-brt")


# ---------------------------------------------------------------------------------------------
# POST …/capture and …/refund


async def _amount(request: web.Request, *, required: bool) -> int | None:
    raw = await request.read()
    if not raw.strip():
        if required:
            raise api_error(
                400, "amount is required", [field_error("amount", "amount is required")]
            )
        return None
    await _json_body(request)
    from pydantic import ValidationError

    from checkout_desktop.domain.wire import AmountRequest

    try:
        return AmountRequest.model_validate_json(raw, strict=True).amount
    except ValidationError as exc:
        raise api_error(400, "the amount is invalid", validation_errors(exc)) from None


def _state_error(charge: SandboxCharge, action: str, why: str) -> NoReturn:
    raise api_error(
        400,
        f"cannot {action} charge {charge.merchant_charge_id}: {why}",
        [field_error("chargeStatus", why)],
        business_code=INVALID_CHARGE_STATE,
    )


async def capture(request: web.Request) -> web.Response:
    server = _server(request)
    await apply_faults(request)
    require_bearer(request)
    qr = server.state.qr_charges.get(request.match_info["merchantChargeId"])
    if qr is not None:
        raise qr_charges.refuse_capture(qr)
    charge = _charge_or_not_found(server, request)
    amount = await _amount(request, required=False)
    if charge.status != ChargeStatus.PRE_AUTHORIZED:
        reasons = {
            ChargeStatus.PAID: "it is already captured (PAID)",
            ChargeStatus.DENIED: "a denied charge cannot be captured",
        }
        _state_error(
            charge,
            "capture",
            reasons.get(charge.status, f"a {charge.status.value} charge cannot be captured"),
        )
    authorized = charge.amount
    amount = authorized if amount is None else amount
    if amount > authorized:
        raise api_error(
            400,
            f"capture amount {amount} is above the authorized amount {authorized}",
            [field_error("amount", f"at most {authorized}")],
            business_code=AMOUNT_ABOVE_LIMIT,
        )
    now = server.clock.now()
    remaining = amount
    for txn in charge.transactions:
        if txn.status != TransactionStatus.PRE_AUTHORIZED:
            continue
        part = min(remaining, txn.amount)
        remaining -= part
        txn.amount = part
        # An authorization captured for less releases the rest; nothing captured: released.
        txn.status = TransactionStatus.PAID if part > 0 else TransactionStatus.CANCELED
        txn.updated_at = now
    charge.status = ChargeStatus.PAID
    charge.updated_at = now
    logger.info("charge %s captured", charge.merchant_charge_id)
    notify_payment(server, charge)
    await _late_money_reply(server)
    return json_response(_reply(server, charge))


async def refund(request: web.Request) -> web.Response:
    server = _server(request)
    await apply_faults(request)
    require_bearer(request)
    qr = server.state.qr_charges.get(request.match_info["merchantChargeId"])
    amount = await _amount(request, required=True)
    assert amount is not None
    if qr is not None:
        qr_charges.refund_qr(server, qr, amount)
        await _late_money_reply(server)
        return qr_charges.query_qr(server, qr)
    charge = _charge_or_not_found(server, request)
    refund_charge(server, charge, amount)
    await _late_money_reply(server)
    return json_response(_reply(server, charge))


async def _late_money_reply(server: SandboxServer) -> None:
    """The money moved; only the reply is late (the ambiguous case of a refund or capture)."""
    delay = server.config.faults.money_reply_delay_s
    if delay > 0 and not await server.sleep_unless_stopping(delay):
        raise api_error(503, "the sandbox is stopping")


def refund_charge(server: SandboxServer, charge: SandboxCharge, amount: int) -> None:
    """Refund (or, before capture, cancel) a charge and notify; an api_error when it cannot."""
    now = server.clock.now()
    if charge.status == ChargeStatus.PRE_AUTHORIZED:
        if amount != charge.amount:
            raise api_error(
                400,
                f"a pre-authorized charge is canceled in full (amount {charge.amount}); "
                "capture it first to refund part of it",
                [field_error("amount", f"must be {charge.amount}")],
                business_code=INVALID_CHARGE_STATE,
            )
        for txn in charge.transactions:
            if txn.status == TransactionStatus.PRE_AUTHORIZED:
                txn.status = TransactionStatus.CANCELED
                txn.updated_at = now
        charge.status = ChargeStatus.CANCELED
    elif charge.status in (ChargeStatus.PAID, ChargeStatus.PARTIAL):
        refundable = charge.amount - charge.refunded_amount
        if amount > refundable:
            raise api_error(
                400,
                f"refund of {amount} is above the {refundable} still refundable",
                [field_error("amount", f"at most {refundable}")],
                business_code=AMOUNT_ABOVE_LIMIT,
            )
        remaining = amount
        for txn in charge.transactions:
            open_part = txn.amount - txn.refunded_amount
            if remaining <= 0 or open_part <= 0 or txn.status not in _REFUNDABLE:
                continue
            part = min(remaining, open_part)
            remaining -= part
            txn.refunded_amount += part
            txn.status = (
                TransactionStatus.REFUNDED
                if txn.refunded_amount == txn.amount
                else TransactionStatus.PARTIALLY_REFUNDED
            )
            txn.updated_at = now
        if charge.refunded_amount == charge.amount:
            charge.status = ChargeStatus.REFUNDED
        elif server.variants.partial_refund == "PARTIAL":
            charge.status = ChargeStatus.PARTIAL
    else:
        reasons = {
            ChargeStatus.REFUNDED: "it is already fully refunded",
            ChargeStatus.DENIED: "a denied charge has nothing to refund",
        }
        _state_error(
            charge,
            "refund",
            reasons.get(charge.status, f"a {charge.status.value} charge cannot be refunded"),
        )
    charge.updated_at = now
    logger.info("charge %s refund: %s", charge.merchant_charge_id, charge.status.value)
    notify_payment(server, charge)


_REFUNDABLE = frozenset({TransactionStatus.PAID, TransactionStatus.PARTIALLY_REFUNDED})


async def admin_refund(request: web.Request) -> web.Response:
    """Refund a charge at the service itself, as the merchant panel does (not the terminal)."""
    server = require_admin(request)
    charge = _charge_or_not_found(server, request)
    try:
        body = await read_json_object(request)
    except BodyProblem as exc:
        raise api_error(400, str(exc)) from None
    amount = body.get("amount")
    if set(body) - {"amount"} or not isinstance(amount, int) or isinstance(amount, bool):
        raise api_error(400, 'send {"amount": <whole centavos>} and nothing else')
    if amount < 1:
        raise api_error(400, "amount must be at least 1")
    refund_charge(server, charge, amount)
    return json_response(_reply(server, charge))


def add_charge_routes(app: web.Application) -> None:
    app.router.add_post("/api/v1/charge/authorization", authorize)
    app.router.add_get(CHARGE_PATH, query)
    app.router.add_post(CHARGE_PATH + "/capture", capture)
    app.router.add_post(CHARGE_PATH + "/refund", refund)
    app.router.add_post("/_sandbox/charges/{merchantChargeId}/refund", admin_refund)
    qr_charges.add_qr_routes(app)
