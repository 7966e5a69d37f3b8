"""The sandbox's 3-D Secure: setup, enrollment, status, 3DS authorization and an ACS page.

It plays the flow the service documents under `/api/v1/charge/3ds/`. The issuer's challenge
is a page the sandbox serves itself over HTTPS on its SDK host (the one the terminal already
maps to the sandbox): the customer types a code, `1234` approves and anything else rejects.
`POST /_sandbox/3ds/{chargeId}/complete` decides a challenge without a browser. What the
public material leaves open (does setup take the token, is the reply wrapped, is a notification
sent) is played by the service variants `three-ds-card`, `three-ds-reply` and
`three-ds-notification`.
"""

from __future__ import annotations

import base64
import html
import json
import logging
import secrets
import uuid
from typing import TYPE_CHECKING, Any

from aiohttp import web

from checkout_desktop.domain.enums import ChargeStatus, TransactionStatus, WebhookEventType
from checkout_desktop.sandbox.api import (
    DUPLICATE_MERCHANT_CHARGE_ID,
    INVALID_CARD_TOKEN,
    INVALID_CHARGE_STATE,
    REQUIRED_FIELD_MISSING,
    api_error,
    apply_faults,
    field_error,
    require_admin,
    require_bearer,
)
from checkout_desktop.sandbox.api import server_of as _server
from checkout_desktop.sandbox.cards import CardBehaviour
from checkout_desktop.sandbox.charges import (
    THREE_DS_APPROVED,
    THREE_DS_REJECTED,
    _digits,
    _json_body,
    _settle,
    decide_card,
    late_card_reply,
    notify_payment,
    refuse_unanswered,
    validation_errors,
)
from checkout_desktop.sandbox.httpkit import BodyProblem, json_response, read_json_object
from checkout_desktop.sandbox.render import charge_reply, without_offset
from checkout_desktop.sandbox.sdk_backend import _server as _sdk_server
from checkout_desktop.sandbox.state import (
    CardToken,
    SandboxCharge,
    SandboxTransaction,
    ThreeDsResult,
    ThreeDsSession,
)

if TYPE_CHECKING:
    from checkout_desktop.sandbox.server import SandboxServer

logger = logging.getLogger(__name__)

ACS_PATH = "/3ds/acs/challenge"
ACS_ANSWER_PATH = "/3ds/acs/answer"
APPROVING_CODE = "1234"
CHALLENGE_WIDTH = 390
CHALLENGE_HEIGHT = 400
_TOKEN_FIELDS = ("temporaryCardToken", "temporatyCardToken", "token")
_RAW_CARD = frozenset({"cardNumber", "number", "cvv", "expirationMonth", "expirationYear"})
_UNAVAILABLE = "3DS_PROVIDER_UNAVAILABLE"
THREE_DS_NOT_FOUND = "THREE_DS_NOT_FOUND"


def _session(
    server: SandboxServer, charge_id: object, *, where: str = "chargeId"
) -> ThreeDsSession:
    session = server.state.three_ds.get(charge_id) if isinstance(charge_id, str) else None
    if session is None:
        raise api_error(
            404,
            "3DS authentication not found.",
            [field_error(where, f"no 3DS authentication {str(charge_id)[:40]}")],
            business_code=THREE_DS_NOT_FOUND,
        )
    return session


def _notify(server: SandboxServer, session: ThreeDsSession, result: ThreeDsResult) -> None:
    if server.variants.three_ds_notification == "never":
        return
    body = {
        "type": "THREE_DS_CHALLENGE",
        "eventDate": without_offset(server.clock.now()),
        "merchantDocument": server.state.credentials.merchant_document,
        "id": str(uuid.uuid4()),
        "merchantCode": "sandbox",
        "data": {
            "status": result.status,
            "paresStatus": result.pares_status,
            "eciRaw": result.eci,
            "merchantChargeId": session.merchant_charge_id,
            "chargeId": session.charge_id,
        },
    }
    server.webhooks.enqueue(WebhookEventType.CHALLENGE_3DS_UPDATE, body, session.merchant_charge_id)


def decide(server: SandboxServer, session: ThreeDsSession, approve: bool) -> None:
    """The customer answered the challenge: record it and notify once."""
    if session.status != "CREATED":
        return
    session.status = "AUTHENTICATED" if approve else "REJECTED"
    session.has_challenged = True
    session.access_token = None
    logger.info("3DS %s: challenge %s", session.charge_id, session.status)
    _notify(server, session, THREE_DS_APPROVED if approve else THREE_DS_REJECTED)


# ---------------------------------------------------------------------------------------------
# POST /api/v1/charge/3ds/setup


def _card_token(server: SandboxServer, card: dict[str, Any]) -> CardToken:
    where = "transactions[0].card"
    if set(card) & _RAW_CARD:
        raise api_error(
            400,
            "raw card data is not accepted by the sandbox; send the SDK's one-time token",
            [field_error(where, "raw card data")],
        )
    value = next((card[f] for f in _TOKEN_FIELDS if isinstance(card.get(f), str)), None)
    if server.variants.three_ds_card == "card-data":
        raise api_error(
            400,
            "Card data is required for 3DS authentication.",
            [field_error(where + ".cardNumber", "cardNumber is required")],
            business_code=REQUIRED_FIELD_MISSING,
        )
    if value is None:
        raise api_error(
            400,
            "Card data is missing: no card token.",
            [field_error(where + ".temporaryCardToken", "the card token is required")],
            business_code=REQUIRED_FIELD_MISSING,
        )
    token = server.state.card_tokens.get(value)
    problem = None
    if token is None:
        problem = "unknown temporary card token"
    elif token.used:
        problem = "this temporary card token was already used"
    elif server.clock.monotonic() >= token.expires_at:
        problem = "this temporary card token has expired"
    if problem is not None or token is None:
        raise api_error(
            400,
            "the 3DS setup has an invalid card token",
            [field_error(where + ".temporaryCardToken", problem or "invalid")],
            business_code=INVALID_CARD_TOKEN,
        )
    return token


async def setup(request: web.Request) -> web.Response:
    server = _server(request)
    await apply_faults(request)
    require_bearer(request)
    body = await _json_body(request)
    try:
        transactions = body.get("transactions")
        if not isinstance(transactions, list) or len(transactions) != 1:
            raise api_error(
                400,
                "the 3DS setup takes exactly one transaction",
                [field_error("transactions", "exactly one transaction")],
            )
        txn = transactions[0] if isinstance(transactions[0], dict) else {}
        amount = txn.get("amount")
        if not isinstance(amount, int) or isinstance(amount, bool) or amount < 1:
            raise api_error(
                400, "amount is invalid", [field_error("transactions[0].amount", "whole centavos")]
            )
        card = txn.get("card")
        if not isinstance(card, dict):
            raise api_error(
                400, "card is required", [field_error("transactions[0].card", "required")]
            )
        token = _card_token(server, card)
        mcid = body.get("merchantChargeId")
        if mcid is not None and not isinstance(mcid, str):
            raise api_error(400, "merchantChargeId must be text")
    finally:
        # The body may carry card data sent by mistake; drop it at once.
        body.clear()
    mcid = mcid or str(uuid.uuid4())
    if mcid in server.state.charges:
        raise api_error(
            400,
            f"merchantChargeId {mcid} was already used",
            [field_error("merchantChargeId", "already used")],
            business_code=DUPLICATE_MERCHANT_CHARGE_ID,
        )
    session = ThreeDsSession(
        charge_id=str(uuid.uuid4()),
        authentication_id=secrets.token_hex(16),
        merchant_charge_id=mcid,
        amount=amount,
        card=token,
    )
    server.state.three_ds[session.charge_id] = session
    logger.info("3DS setup %s for charge %s", session.charge_id, mcid)
    return json_response(
        {
            "chargeId": session.charge_id,
            "merchantChargeId": mcid,
            "transactions": [
                {"cardholderAuthenticationId": session.authentication_id, "amount": amount}
            ],
        }
    )


# ---------------------------------------------------------------------------------------------
# POST /api/v1/charge/3ds/enrollment


def _access_token(session: ThreeDsSession) -> str:
    def part(data: dict[str, Any]) -> str:
        raw = json.dumps(data, separators=(",", ":")).encode()
        return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()

    signature = base64.urlsafe_b64encode(secrets.token_bytes(24)).rstrip(b"=").decode()
    return ".".join(
        (part({"alg": "HS256", "typ": "JWT"}), part({"jti": secrets.token_hex(8)}), signature)
    )


async def enrollment(request: web.Request) -> web.Response:
    server = _server(request)
    await apply_faults(request)
    require_bearer(request)
    body = await _json_body(request)
    session = _session(server, body.get("chargeId"))
    customer = body.get("customer")
    phone = customer.get("phone") if isinstance(customer, dict) else None
    if not isinstance(phone, dict) or not phone.get("countryCode"):
        raise api_error(
            400,
            "Required fields are missing.",
            [field_error("customer.phone.countryCode", "customer.phone.countryCode is required")],
            business_code=REQUIRED_FIELD_MISSING,
        )
    # Imported here, at the first enrollment: the wire models (pydantic) would otherwise be
    # built at the sandbox's start, which the terminal waits for (as in `sandbox/charges.py`).
    from pydantic import ValidationError

    from checkout_desktop.domain.three_ds import BrowserInfo

    try:
        BrowserInfo.model_validate(body.get("browser"))
    except ValidationError as exc:
        errors = validation_errors(exc)
        for item in errors:
            item["field"] = "browser" + ("." + item["field"] if item["field"] else "")
        raise api_error(400, "the browser data is invalid", errors) from None
    _enrollment_card(session, body.get("transactions"))
    if session.enrolled:
        _state(session, "it was already enrolled")
    session.enrolled = True
    behaviour = session.card.behaviour
    reply_txn: dict[str, Any]
    if behaviour == CardBehaviour.THREE_DS_UNAVAILABLE:
        session.status = "FAILED"
        raise api_error(
            502,
            "The 3DS provider is unavailable.",
            [field_error(None, "authentication unavailable")],
            business_code=_UNAVAILABLE,
        )
    if behaviour == CardBehaviour.THREE_DS_CHALLENGE:
        session.access_token = _access_token(session)
        reply_txn = {
            "cardholderAuthenticationStatus": "Challenged",
            "accessToken": session.access_token,
            "stepUpUrl": f"https://{server.sdk_host}{ACS_PATH}",
            "widthChallenge": CHALLENGE_WIDTH,
            "heightChallenge": CHALLENGE_HEIGHT,
        }
    elif behaviour == CardBehaviour.THREE_DS_REJECTED:
        session.status = "REJECTED"
        reply_txn = {"cardholderAuthenticationStatus": "Rejected"}
        _notify(server, session, THREE_DS_REJECTED)
    else:
        # Frictionless: the issuer needs no challenge (every card outside the 3DS rows too).
        session.status = "AUTHENTICATED"
        reply_txn = {"cardholderAuthenticationStatus": "Approved"}
        _notify(server, session, THREE_DS_APPROVED)
    logger.info(
        "3DS enrollment %s: %s", session.charge_id, reply_txn["cardholderAuthenticationStatus"]
    )
    return json_response(
        {"chargeId": session.charge_id, "chargeStatus": "CREATED", "transactions": [reply_txn]}
    )


def _enrollment_card(session: ThreeDsSession, transactions: object) -> None:
    """Enrollment names its card as setup did: the same one-time token, never card data."""
    where = "transactions[0].card"
    txn = transactions[0] if isinstance(transactions, list) and transactions else None
    card = txn.get("card") if isinstance(txn, dict) else None
    if not isinstance(card, dict):
        raise api_error(
            400,
            "Required fields are missing.",
            [field_error(where, "the card (its temporary token) is required")],
            business_code=REQUIRED_FIELD_MISSING,
        )
    if set(card) & _RAW_CARD:
        card.clear()
        raise api_error(
            400,
            "raw card data is not accepted by the sandbox; send the SDK's one-time token",
            [field_error(where, "raw card data")],
        )
    value = next((card[f] for f in _TOKEN_FIELDS if isinstance(card.get(f), str)), None)
    if value != session.card.token:
        raise api_error(
            400,
            "the 3DS enrollment names another card than its setup",
            [field_error(where + ".temporaryCardToken", "not the card of this authentication")],
            business_code=INVALID_CARD_TOKEN,
        )


def _state(session: ThreeDsSession, why: str) -> None:
    raise api_error(
        400,
        f"3DS authentication {session.charge_id}: {why}",
        [field_error("chargeId", why)],
        business_code=INVALID_CHARGE_STATE,
    )


# ---------------------------------------------------------------------------------------------
# GET /api/v1/charge/3ds/{chargeId}/status


async def status(request: web.Request) -> web.Response:
    server = _server(request)
    await apply_faults(request)
    require_bearer(request)
    session = _session(server, request.match_info["chargeId"])
    return json_response({"status": session.status, "hasChallenged": session.has_challenged})


# ---------------------------------------------------------------------------------------------
# POST /api/v1/charge/3ds/authorization


async def authorization(request: web.Request) -> web.Response:
    server = _server(request)
    await apply_faults(request)
    require_bearer(request)
    body = await _json_body(request)
    session = _session(server, body.get("chargeId"))
    capture = body.get("capture")
    transactions = body.get("transactions")
    if not isinstance(capture, bool):
        raise api_error(400, "capture is required", [field_error("capture", "true or false")])
    if not isinstance(transactions, list) or len(transactions) != 1:
        raise api_error(
            400, "exactly one transaction", [field_error("transactions", "exactly one")]
        )
    txn_body = transactions[0] if isinstance(transactions[0], dict) else {}
    raw_card = txn_body.get("card")
    card: dict[str, Any] = raw_card if isinstance(raw_card, dict) else {}
    if card.get("cardholderAuthenticationId") != session.authentication_id:
        raise api_error(
            400,
            "cardholderAuthenticationId does not match the 3DS setup",
            [field_error("transactions[0].card.cardholderAuthenticationId", "unknown")],
        )
    installments = txn_body.get("installmentNumber", 1)
    kind = txn_body.get("installmentType", "NONE")
    if not isinstance(installments, int) or not 1 <= installments <= 12:
        raise api_error(400, "installmentNumber is 1 to 12")
    if session.authorized or session.merchant_charge_id in server.state.charges:
        _state(session, "it was already authorized; a charge is created once")
    if session.status != "AUTHENTICATED":
        _state(session, f"authentication is {session.status}, not AUTHENTICATED")
    if session.card.used:
        raise api_error(
            400,
            "this temporary card token was already used",
            [field_error("transactions[0].card", "card token already used")],
            business_code=INVALID_CARD_TOKEN,
        )
    # The test cards' rules hold here as on the plain authorization (one place for them).
    refuse_unanswered(session.merchant_charge_id, [session.card])
    # From here to the insert there is no await: a concurrent request sees all or nothing.
    session.authorized = True
    session.card.used = True
    now = server.clock.now()
    txn = SandboxTransaction(
        transaction_id=str(uuid.uuid4()),
        amount=session.amount,
        original_amount=session.amount,
        soft_descriptor=None,
        installment_number=installments,
        installment_type=str(kind),
        card=session.card,
        status=TransactionStatus.PENDING,
        created_at=now,
        updated_at=now,
        nsu=_digits(9),
        authorization_code=None,
        response_code="",
        reason_message="",
    )
    decide_card(txn, session.card, late_capture=not capture, authenticated=True)
    charge = SandboxCharge(
        id=session.charge_id,
        merchant_charge_id=session.merchant_charge_id,
        status=ChargeStatus.DENIED,
        late_capture=not capture,
        payment_source="GATEWAY",
        smart_checkout_id=None,
        customer={},
        transactions=[txn],
        created_at=now,
        updated_at=now,
        three_ds=THREE_DS_APPROVED,
    )
    _settle(charge)
    server.state.charges[charge.merchant_charge_id] = charge
    logger.info("3DS authorization %s: %s", charge.merchant_charge_id, charge.status.value)
    notify_payment(server, charge)
    reply = charge_reply(charge, naive=server.variants.timestamps == "naive-brt")
    if server.variants.three_ds_reply == "wrapped":
        reply = {"charge": reply}
    await late_card_reply(server, [session.card])
    delay = server.config.faults.money_reply_delay_s
    # The charge exists; only the reply is late (the ambiguous case).
    if delay > 0 and not await server.sleep_unless_stopping(delay):
        raise api_error(503, "the sandbox is stopping")
    return json_response(reply)


# ---------------------------------------------------------------------------------------------
# The ACS page (on the SDK host, over HTTPS) and the admin control

_PAGE = """<!doctype html>
<html lang="pt-BR"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width">
<title>Sandbox ACS</title>
<style>body{{font-family:sans-serif;margin:16px}}input,button{{font-size:18px}}</style>
</head><body>
{content}
</body></html>"""


def _page(content: str, status: int = 200) -> web.Response:
    return web.Response(
        text=_PAGE.format(content=content),
        status=status,
        content_type="text/html",
        headers={
            "Cache-Control": "no-store",
            "Content-Security-Policy": (
                "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; "
                "frame-ancestors *"
            ),
        },
    )


def _by_token(server: SandboxServer, token: str) -> ThreeDsSession | None:
    if not token:
        return None
    for session in server.state.three_ds.values():
        if session.access_token is not None and secrets.compare_digest(session.access_token, token):
            return session
    return None


async def acs_challenge(request: web.Request) -> web.Response:
    """The step-up: a form posting `JWT` lands here; the customer is asked for a code."""
    server = _sdk_server(request)
    form = await request.post()
    token = str(form.get("JWT", ""))
    session = _by_token(server, token)
    if session is None:
        return _page("<p id='acs-error'>Desafio inválido ou expirado.</p>", status=400)
    return _page(
        "<h1>Banco Sandbox</h1>"
        f"<p>Compra de R$ {session.amount // 100},{session.amount % 100:02d}.</p>"
        "<p>Digite o código enviado ao seu celular (no sandbox: 1234 aprova).</p>"
        f"<form id='acs-form' method='post' action='{ACS_ANSWER_PATH}'>"
        f"<input type='hidden' name='JWT' value='{html.escape(token, quote=True)}'>"
        "<input id='acs-code' name='code' inputmode='numeric' autocomplete='off' autofocus>"
        "<button id='acs-submit' type='submit'>Confirmar</button></form>"
    )


async def acs_answer(request: web.Request) -> web.Response:
    server = _sdk_server(request)
    form = await request.post()
    session = _by_token(server, str(form.get("JWT", "")))
    if session is None:
        return _page("<p id='acs-error'>Desafio inválido ou expirado.</p>", status=400)
    approved = secrets.compare_digest(str(form.get("code", "")).strip(), APPROVING_CODE)
    decide(server, session, approved)
    message = "Autenticação concluída." if approved else "Autenticação recusada."
    return _page(f"<p id='acs-done' data-result='{session.status}'>{message}</p>")


async def admin_complete(request: web.Request) -> web.Response:
    """Decide a pending challenge without a browser: `{"result": "approve" | "reject"}`."""
    server = require_admin(request)
    session = _session(server, request.match_info["chargeId"])
    try:
        body = await read_json_object(request)
    except BodyProblem as exc:
        raise api_error(400, str(exc)) from None
    result = body.get("result")
    if set(body) - {"result"} or result not in ("approve", "reject"):
        raise api_error(400, 'send {"result": "approve"} or {"result": "reject"}')
    if session.status != "CREATED" or session.access_token is None:
        _state(session, f"no challenge is pending (status {session.status})")
    decide(server, session, result == "approve")
    return json_response({"status": session.status, "hasChallenged": session.has_challenged})


def add_three_ds_routes(api: web.Application) -> None:
    api.router.add_post("/api/v1/charge/3ds/setup", setup)
    api.router.add_post("/api/v1/charge/3ds/enrollment", enrollment)
    api.router.add_get("/api/v1/charge/3ds/{chargeId}/status", status)
    api.router.add_post("/api/v1/charge/3ds/authorization", authorization)
    api.router.add_post("/_sandbox/3ds/{chargeId}/complete", admin_complete)


def add_acs_routes(sdk: web.Application) -> None:
    sdk.router.add_post(ACS_PATH, acs_challenge)
    sdk.router.add_post(ACS_ANSWER_PATH, acs_answer)
