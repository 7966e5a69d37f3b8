"""The card SDK's backend as the published SDK calls it: BIN lookup and temporary card tokens.

Paths, headers and bodies follow the SDK's development build (`pp-transparent.js`):
- `GET /portalapi/v1/Card/Bin?bin=NNNNNN` (no credentials) → `{"cardBrand": "VISA"}`;
- `POST /payment/v2/temporary/card` with `Authorization: <transparentToken>` and
  `MerchantCredential: <CNPJ>`, body `{brand, cardNumber, cardholderName, cardholderDocument,
  expirationMonth, expirationYear, cvv}` → `{"cardToken": "card_t/…"}`.
The SDK reads `response.data.errors` on any non-2xx reply, so every error is
`{"errors": [{"errorCode", "message", "field"}]}` with the message in Portuguese.

errorCode catalogue (the service publishes none; these are the sandbox's):
1 property missing · 2 property invalid · 3 property not recognised · 4 card number or BIN not
accepted · 5 card expired · 6 merchant credentials missing or wrong · 7 body not a JSON object.

Card data stays in this module's locals for the length of one request: what is kept is the
brand, the BIN, the last four digits and masked holder data. Nothing here logs a body.
"""

from __future__ import annotations

import logging
import re
import secrets
from typing import TYPE_CHECKING, Any

from aiohttp import web

from checkout_desktop.domain.documents import DocumentError, luhn_valid, validate_tax_document
from checkout_desktop.domain.enums import CardBrand
from checkout_desktop.sandbox.cards import (
    CARD_LENGTHS,
    behaviour_of,
    brand_for_bin,
    cvv_length,
)
from checkout_desktop.sandbox.httpkit import (
    BodyProblem,
    Handler,
    HttpError,
    after_each_request,
    error_middleware,
    json_response,
    read_json_object,
)
from checkout_desktop.sandbox.state import CardToken

if TYPE_CHECKING:
    from checkout_desktop.sandbox.server import SandboxServer

logger = logging.getLogger(__name__)

SERVER_KEY = web.AppKey("sandbox_server", object)
BIN_PATH = "/portalapi/v1/Card/Bin"
TEMPORARY_CARD_PATH = "/payment/v2/temporary/card"

MISSING, INVALID, UNKNOWN_PROPERTY, CARD_REFUSED, EXPIRED, CREDENTIALS, BAD_BODY = range(1, 8)

# Body key → the property name the service's messages use.
CARD_FIELDS = {
    "brand": "Brand",
    "cardNumber": "CardNumber",
    "cardholderName": "CardholderName",
    "cardholderDocument": "CardholderDocument",
    "expirationMonth": "ExpirationMonth",
    "expirationYear": "ExpirationYear",
    "cvv": "Cvv",
}
ALLOWED_REQUEST_HEADERS = frozenset(
    {"authorization", "merchantcredential", "content-type", "accept"}
)
_HOLDER_NAME = re.compile(r"^[^\W\d_]+(?:[ '.\-][^\W\d_]+)*\.?$")


def _server(request: web.Request) -> SandboxServer:
    server: SandboxServer = request.app[SERVER_KEY]  # type: ignore[assignment]
    return server


def sdk_item(code: int, message: str, field: str | None) -> dict[str, Any]:
    return {"errorCode": code, "message": message, "field": field}


def sdk_error(status: int, items: list[dict[str, Any]]) -> HttpError:
    return HttpError(status, {"errors": items})


def missing(field: str) -> dict[str, Any]:
    return sdk_item(MISSING, f"Propriedade '{field}' está ausente.", field)


def invalid(field: str, why: str) -> dict[str, Any]:
    return sdk_item(INVALID, f"Propriedade '{field}' inválida: {why}", field)


def _render(request: web.Request, status: int, message: str) -> dict[str, Any]:
    # Generic failures (404, 405, 413, 500) in the SDK's shape, so the SDK shows a message.
    texts = {
        404: "Recurso não encontrado.",
        405: "Método não permitido.",
        413: "Corpo da requisição grande demais.",
        500: "Erro interno no sandbox.",
    }
    return {"errors": [sdk_item(status, texts.get(status, message), None)]}


# ---------------------------------------------------------------------------------------------
# CORS: the SDK runs in a page of another origin and sends custom headers (preflight).


@web.middleware
async def cors_middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
    origin = request.headers.get("Origin")
    if request.method == "OPTIONS":
        response: web.StreamResponse = _preflight(request)
    else:
        response = await handler(request)
    response.headers["Access-Control-Allow-Origin"] = origin or "*"
    response.headers["Vary"] = "Origin"
    return response


def _preflight(request: web.Request) -> web.Response:
    headers = {
        "Access-Control-Allow-Methods": "GET, POST, OPTIONS",
        "Access-Control-Max-Age": "600",
        "Allow": "GET, POST, OPTIONS",
    }
    wanted = request.headers.get("Access-Control-Request-Headers", "")
    names = [h.strip() for h in wanted.split(",") if h.strip()]
    allowed = [h for h in names if h.lower() in ALLOWED_REQUEST_HEADERS]
    headers["Access-Control-Allow-Headers"] = ", ".join(
        allowed or ["Authorization", "MerchantCredential", "Content-Type"]
    )
    # Chromium's Private Network Access: a page reaching a loopback address asks first.
    if request.headers.get("Access-Control-Request-Private-Network", "").lower() == "true":
        headers["Access-Control-Allow-Private-Network"] = "true"
    return web.Response(status=204, headers=headers)


# ---------------------------------------------------------------------------------------------
# GET /portalapi/v1/Card/Bin?bin=


async def card_bin(request: web.Request) -> web.Response:
    value = request.query.get("bin", "").strip()
    if not value:
        raise sdk_error(400, [missing("CardBin")])
    if not value.isdigit() or len(value) != 6:
        raise sdk_error(400, [invalid("CardBin", "informe os 6 primeiros dígitos do cartão.")])
    brand = brand_for_bin(value)
    if brand is None:
        raise sdk_error(
            400,
            [sdk_item(CARD_REFUSED, "Bandeira não encontrada para o BIN informado.", "CardBin")],
        )
    return json_response({"cardBrand": brand.value})


# ---------------------------------------------------------------------------------------------
# POST /payment/v2/temporary/card


def _check_credentials(request: web.Request) -> None:
    server = _server(request)
    expected = server.state.credentials
    authorization = request.headers.get("Authorization", "").strip()
    merchant = request.headers.get("MerchantCredential", "").strip()
    problems: list[dict[str, Any]] = []
    if not authorization:
        problems.append(
            sdk_item(CREDENTIALS, "Credencial ausente: cabeçalho 'Authorization'.", "Authorization")
        )
    if not merchant:
        problems.append(
            sdk_item(
                CREDENTIALS,
                "Credencial ausente: cabeçalho 'MerchantCredential'.",
                "MerchantCredential",
            )
        )
    if problems:
        raise sdk_error(401, problems)
    variant = server.variants.sdk_credential
    legacy = authorization.startswith(("$2a$", "$2b$", "$2y$"))
    if legacy and variant == "transparent":
        raise _refused_kind("aceita apenas o transparentToken (tk_…); o merchantToken não")
    if not legacy and variant == "merchant":
        raise _refused_kind("aceita apenas o merchantToken; o transparentToken não")
    document_ok = secrets.compare_digest(merchant.encode(), expected.merchant_document.encode())
    if legacy:
        token_ok = _bcrypt_matches(
            expected.merchant_document + expected.merchant_token, authorization
        )
    else:
        token_ok = secrets.compare_digest(
            authorization.encode(), expected.transparent_token.encode()
        )
    if not (token_ok and document_ok):
        raise sdk_error(
            401,
            [sdk_item(CREDENTIALS, "Credenciais do lojista inválidas.", "Authorization")],
        )


def _refused_kind(what: str) -> HttpError:
    return sdk_error(401, [sdk_item(CREDENTIALS, f"Este lojista {what}.", "Authorization")])


def _bcrypt_matches(secret: str, hashed: str) -> bool:
    """The published SDK's legacy credential: bcrypt of the CNPJ followed by the merchant token."""
    import bcrypt

    try:
        return bool(bcrypt.checkpw(secret.encode(), hashed.encode("ascii")))
    except (ValueError, UnicodeEncodeError):
        return False


def _text(body: dict[str, Any], key: str, errors: list[dict[str, Any]]) -> str | None:
    field = CARD_FIELDS[key]
    value = body.get(key)
    if value is None or (isinstance(value, str) and not value.strip()):
        errors.append(missing(field))
        return None
    if isinstance(value, bool) or not isinstance(value, str | int):
        errors.append(invalid(field, "deve ser um texto."))
        return None
    if isinstance(value, int) and key not in ("expirationMonth", "expirationYear"):
        errors.append(invalid(field, "deve ser um texto."))
        return None
    return str(value).strip()


def _validate_card(
    body: dict[str, Any], today: tuple[int, int]
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Errors in the SDK's shape, and the facts worth keeping about a valid card."""
    errors: list[dict[str, Any]] = []
    for key in sorted(set(body) - set(CARD_FIELDS)):
        name = key if len(key) <= 40 else key[:40] + "…"
        errors.append(sdk_item(UNKNOWN_PROPERTY, f"Propriedade '{name}' não é reconhecida.", name))
    values = {key: _text(body, key, errors) for key in CARD_FIELDS}

    number = values["cardNumber"]
    detected: CardBrand | None = None
    if number is not None:
        number = number.replace(" ", "").replace("-", "")
        if not number.isdigit() or not 12 <= len(number) <= 19:
            errors.append(invalid("CardNumber", "informe de 12 a 19 dígitos."))
            number = None
        elif not luhn_valid(number):
            errors.append(sdk_item(CARD_REFUSED, "Número do cartão inválido.", "CardNumber"))
            number = None
        else:
            detected = brand_for_bin(number[:6])
            if detected is None:
                errors.append(
                    sdk_item(CARD_REFUSED, "Bandeira do cartão não identificada.", "CardNumber")
                )
                number = None
            elif len(number) not in CARD_LENGTHS.get(detected, frozenset({len(number)})):
                errors.append(
                    invalid(
                        "CardNumber", f"um cartão {detected.value} não tem {len(number)} dígitos."
                    )
                )
                number = None

    brand_text = values["brand"]
    if brand_text is not None and detected is not None and CardBrand(brand_text) != detected:
        errors.append(
            invalid("Brand", f"não corresponde ao número do cartão (esperado {detected.value}).")
        )

    holder = values["cardholderName"]
    if holder is not None and (not 2 <= len(holder) <= 100 or not _HOLDER_NAME.match(holder)):
        errors.append(invalid("CardholderName", "use só letras e espaços (2 a 100 caracteres)."))

    document = values["cardholderDocument"]
    document_digits = None
    if document is not None:
        try:
            _, document_digits = validate_tax_document(document)
        except DocumentError:
            errors.append(invalid("CardholderDocument", "CPF ou CNPJ inválido."))

    month_text, year_text = values["expirationMonth"], values["expirationYear"]
    month = year = None
    if month_text is not None:
        if month_text.isdigit() and len(month_text) <= 2 and 1 <= int(month_text) <= 12:
            month = int(month_text)
        else:
            errors.append(invalid("ExpirationMonth", "informe o mês com dois dígitos (01 a 12)."))
    if year_text is not None:
        if year_text.isdigit() and len(year_text) == 4:
            year = int(year_text)
        else:
            errors.append(invalid("ExpirationYear", "informe o ano com quatro dígitos."))
    if month is not None and year is not None:
        if (year, month) < today:
            field = "ExpirationYear" if year < today[0] else "ExpirationMonth"
            errors.append(sdk_item(EXPIRED, "Cartão expirado.", field))
        elif year > today[0] + 20:
            errors.append(invalid("ExpirationYear", "ano de validade distante demais."))

    cvv = values["cvv"]
    if cvv is not None:
        wanted = cvv_length(detected) if detected is not None else None
        if not cvv.isdigit() or (len(cvv) != wanted if wanted else len(cvv) not in (3, 4)):
            digits = f"{wanted} dígitos" if wanted else "3 ou 4 dígitos"
            errors.append(invalid("Cvv", f"deve ter {digits}."))

    kept: dict[str, Any] = {}
    if not errors and number is not None and detected is not None and holder is not None:
        kept = {
            "brand": detected,
            "bin6": number[:6],
            "last_four": number[-4:],
            "behaviour": behaviour_of(number),
            "holder_name_masked": mask_name(holder),
            "holder_document_masked": mask_document(document_digits or ""),
        }
    return errors, kept


def mask_name(name: str) -> str:
    """`Joao da Silva` → `J*** d* S****` (the service masks card-holder data)."""
    return " ".join(word[0] + "*" * (len(word) - 1) for word in name.split())


def mask_document(digits: str) -> str:
    return digits[:3] + "*" * max(0, len(digits) - 3)


async def temporary_card(request: web.Request) -> web.Response:
    server = _server(request)
    _check_credentials(request)
    if request.content_type != "application/json":
        raise sdk_error(
            415,
            [
                sdk_item(
                    BAD_BODY,
                    "Content-Type deve ser application/json.",
                    "Content-Type",
                )
            ],
        )
    try:
        body = await read_json_object(request)
    except BodyProblem:
        raise sdk_error(
            400, [sdk_item(BAD_BODY, "Corpo da requisição inválido: envie um objeto JSON.", None)]
        ) from None
    now = server.clock.now()
    errors, kept = _validate_card(body, (now.year, now.month))
    # Drop the reference to the card data as soon as it has been checked.
    body.clear()
    del body
    if errors:
        raise sdk_error(400, errors)
    token = CardToken(
        token="card_t/" + secrets.token_urlsafe(24),
        expires_at=server.clock.monotonic() + server.config.card_token_lifetime_s,
        **kept,
    )
    server.state.add_card_token(token)
    logger.info("temporary card token issued for a %s card", token.brand.value)
    return json_response({"cardToken": token.token})


def build_sdk_app(server: SandboxServer) -> web.Application:
    app = web.Application(
        middlewares=[
            cors_middleware,
            error_middleware(_render, "sandbox-sdk"),
            after_each_request(server.save_if_changed),
        ],
        client_max_size=server.config.max_sdk_body_bytes,
    )
    app[SERVER_KEY] = server
    app.router.add_get(BIN_PATH, card_bin)
    app.router.add_post(TEMPORARY_CARD_PATH, temporary_card)
    return app
