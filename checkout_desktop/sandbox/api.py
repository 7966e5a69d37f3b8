"""The sandbox's REST side: the token endpoint, the charge API and the sandbox's own controls."""

from __future__ import annotations

import base64
import binascii
import hmac
import json
import logging
import re
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl

from aiohttp import web

from checkout_desktop.sandbox.faults import FaultSettingError
from checkout_desktop.sandbox.httpkit import (
    BodyProblem,
    HttpError,
    after_each_request,
    error_middleware,
    json_response,
    read_json_object,
)
from checkout_desktop.sandbox.variants import VariantError

if TYPE_CHECKING:
    from checkout_desktop.sandbox.server import SandboxServer

logger = logging.getLogger(__name__)

SERVER_KEY = web.AppKey("sandbox_server", object)
ADMIN_HEADER = "X-Sandbox-Admin-Token"
TOKEN_SCOPE = "openid checkout.charge checkout.charge.read checkout.charge.refund"

_CLIENT_ID = re.compile(r"^[\w\-]+$")
_CLIENT_SECRET = re.compile(r"^[\w]+$")


def server_of(request: web.Request) -> SandboxServer:
    server: SandboxServer = request.app[SERVER_KEY]  # type: ignore[assignment]
    return server


# ---------------------------------------------------------------------------------------------
# Error bodies


def oauth_error(status: int, error: str, description: str) -> HttpError:
    """The token endpoint's error: OAuth's `error`/`error_description` inside the service's
    documented body, so a client reading either shape finds what went wrong."""
    headers = {"Cache-Control": "no-store", "Pragma": "no-cache"}
    if status == 401:
        headers["WWW-Authenticate"] = 'Basic realm="checkout", error="invalid_client"'
    body = error_body(description, BUSINESS_CODES.get(error, error.upper()))
    body.update({"error": error, "error_description": description})
    return HttpError(status, body, headers)


# The service publishes no table of business codes; these are the sandbox's own, each naming
# what went wrong in the service's style (a client must show an unknown one as it comes).
INVALID_REQUEST = "INVALID_REQUEST"
CHARGE_NOT_FOUND = "CHARGE_NOT_FOUND"
DUPLICATE_MERCHANT_CHARGE_ID = "DUPLICATE_MERCHANT_CHARGE_ID"
INVALID_CHARGE_STATE = "INVALID_CHARGE_STATE"
AMOUNT_ABOVE_LIMIT = "AMOUNT_ABOVE_LIMIT"
INVALID_CARD_TOKEN = "INVALID_CARD_TOKEN"
CARD_TOKEN_MISSING = "CARD_TOKEN_MISSING"
REQUIRED_FIELD_MISSING = "REQUIRED_FIELD_MISSING"
INVALID_DOCUMENT = "INVALID_DOCUMENT"
ACQUIRER_UNAVAILABLE = "ACQUIRER_UNAVAILABLE"
BUSINESS_CODES = {
    "invalid_client": "INVALID_CLIENT",
    "invalid_request": INVALID_REQUEST,
    "unsupported_grant_type": "UNSUPPORTED_GRANT_TYPE",
    "server_error": "INTERNAL_ERROR",
}
_STATUS_CODES = {
    400: INVALID_REQUEST,
    401: "UNAUTHORIZED",
    404: "RESOURCE_NOT_FOUND",
    405: "METHOD_NOT_ALLOWED",
    408: "REQUEST_TIMEOUT",
    413: "PAYLOAD_TOO_LARGE",
    415: "UNSUPPORTED_MEDIA_TYPE",
    500: "INTERNAL_ERROR",
    503: "SERVICE_UNAVAILABLE",
}


def status_business_code(status: int) -> str:
    return _STATUS_CODES.get(status, "INTERNAL_ERROR" if status >= 500 else INVALID_REQUEST)


def error_body(
    message: str, business_code: str, errors: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    """The service's documented error body: `{message, success, businessCode, errors}`."""
    return {
        "message": message,
        "success": False,
        "businessCode": business_code,
        "errors": errors or [],
    }


def api_error(
    status: int,
    message: str,
    errors: list[dict[str, Any]] | None = None,
    headers: dict[str, str] | None = None,
    *,
    business_code: str | None = None,
) -> HttpError:
    """An error reply of the REST API in the documented body shape."""
    code = business_code or status_business_code(status)
    return HttpError(status, error_body(message, code, errors), headers)


def field_error(field: str | None, message: str) -> dict[str, Any]:
    """One item of `errors`: `{message, field}`, as documented."""
    return {"message": message, "field": field}


def _render(request: web.Request, status: int, message: str) -> dict[str, Any]:
    body = error_body(message, status_business_code(status))
    if request.path.startswith("/oauth2"):
        body["error"] = "server_error" if status >= 500 else "invalid_request"
        body["error_description"] = message
    return body


# ---------------------------------------------------------------------------------------------
# Faults and authentication shared by every API call


async def apply_faults(request: web.Request, *, oauth: bool = False) -> None:
    """Injected latency, then an injected 500 with the configured probability."""
    server = server_of(request)
    faults = server.config.faults
    if faults.latency_s > 0 and not await server.sleep_unless_stopping(faults.latency_s):
        raise api_error(503, "the sandbox is stopping")
    if server.dice.fail_this_request():
        message = "internal error (injected by the sandbox's error-rate fault)"
        if oauth:
            raise oauth_error(500, "server_error", message)
        raise api_error(500, message)


def reply_faults(server: SandboxServer) -> Any:
    """The ``reply_drop_field`` fault: a successful JSON reply of the service leaves that field
    out (the sandbox's own controls keep theirs). What the call did is done all the same."""

    @web.middleware
    async def middleware(
        request: web.Request,
        handler: Callable[[web.Request], Awaitable[web.StreamResponse]],
    ) -> web.StreamResponse:
        response = await handler(request)
        name = server.config.faults.reply_drop_field
        if (
            not name
            or request.path.startswith("/_sandbox/")
            or not 200 <= response.status < 300
            or not isinstance(response, web.Response)
            or response.content_type != "application/json"
        ):
            return response
        try:
            body = json.loads(response.text or "")
        except ValueError:
            return response
        if not isinstance(body, dict) or name not in body:
            return response
        del body[name]
        logger.info("reply fault: %s left out of the reply to %s", name, request.path)
        headers = {
            key: value
            for key, value in response.headers.items()
            if key.lower() not in ("content-type", "content-length")
        }
        return json_response(body, response.status, headers)

    return middleware


def require_bearer(request: web.Request) -> str:
    """The client id of a valid Bearer token, or a 401."""
    server = server_of(request)
    header = request.headers.get("Authorization", "")
    scheme, _, value = header.strip().partition(" ")
    if not header:
        raise _unauthorized("the Authorization header is missing; send Bearer <access_token>")
    if scheme.lower() != "bearer" or not value.strip():
        raise _unauthorized("the Authorization header must be 'Bearer <access_token>'")
    if server.config.faults.token_expiry_now:
        server.config.faults.token_expiry_now = False
        server.expire_tokens_now()
    token = value.strip()
    problem = server.state.check_access_token(token)
    if problem is not None:
        raise _unauthorized(problem)
    return server.state.access_tokens[token].client_id


def _unauthorized(message: str) -> HttpError:
    return api_error(
        401,
        message,
        [field_error("Authorization", message)],
        {"WWW-Authenticate": 'Bearer error="invalid_token"'},
    )


# ---------------------------------------------------------------------------------------------
# POST /oauth2/token


async def _token_body(request: web.Request) -> dict[str, Any]:
    kind = request.content_type
    if kind == "application/json":
        try:
            return await read_json_object(request)
        except BodyProblem as exc:
            raise oauth_error(400, "invalid_request", str(exc)) from None
    if kind == "application/x-www-form-urlencoded":
        raw = await request.read()
        try:
            pairs = parse_qsl(raw.decode("utf-8"), keep_blank_values=True, strict_parsing=True)
        except (UnicodeDecodeError, ValueError):
            raise oauth_error(400, "invalid_request", "the form body is malformed") from None
        body: dict[str, Any] = {}
        for key, value in pairs:
            if key in body:
                raise oauth_error(400, "invalid_request", f"the field {key} appears twice")
            body[key] = value
        return body
    raise oauth_error(
        415,
        "invalid_request",
        f"Content-Type {kind or 'missing'} is not supported; send application/json",
    )


def _basic_credentials(request: web.Request) -> tuple[str, str] | None:
    header = request.headers.get("Authorization", "")
    scheme, _, value = header.partition(" ")
    if scheme.lower() != "basic" or not value:
        return None
    try:
        decoded = base64.b64decode(value.strip(), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        raise oauth_error(401, "invalid_client", "the Basic credentials are malformed") from None
    client_id, sep, secret = decoded.partition(":")
    if not sep:
        raise oauth_error(401, "invalid_client", "the Basic credentials are malformed")
    return client_id, secret


async def token(request: web.Request) -> web.Response:
    server = server_of(request)
    server.state.token_requests += 1
    await apply_faults(request, oauth=True)
    body = await _token_body(request)
    basic = _basic_credentials(request)
    if basic is not None and "client_id" not in body and "client_secret" not in body:
        body = {**body, "client_id": basic[0], "client_secret": basic[1]}
    unknown = sorted(set(body) - {"grant_type", "client_id", "client_secret", "scope"})
    if unknown:
        raise oauth_error(400, "invalid_request", f"unknown field(s): {', '.join(unknown)}")
    for name in ("grant_type", "client_id", "client_secret"):
        value = body.get(name)
        if value is None or value == "":
            raise oauth_error(400, "invalid_request", f"{name} is required")
        if not isinstance(value, str):
            raise oauth_error(400, "invalid_request", f"{name} must be a string")
    if body["grant_type"] != "client_credentials":
        raise oauth_error(
            400, "unsupported_grant_type", "only grant_type client_credentials is supported"
        )
    if not _CLIENT_ID.fullmatch(body["client_id"]):
        raise oauth_error(400, "invalid_request", "client_id has characters outside [A-Za-z0-9_-]")
    if not _CLIENT_SECRET.fullmatch(body["client_secret"]):
        raise oauth_error(
            400, "invalid_request", "client_secret has characters outside [A-Za-z0-9_]"
        )
    expected = server.state.credentials
    id_ok = hmac.compare_digest(body["client_id"].encode(), expected.client_id.encode())
    secret_ok = hmac.compare_digest(body["client_secret"].encode(), expected.client_secret.encode())
    if not (id_ok and secret_ok):
        raise oauth_error(401, "invalid_client", "client authentication failed")
    lifetime = server.config.token_lifetime_s
    issued = server.state.issue_access_token(body["client_id"], lifetime)
    reply = {
        "access_token": issued.token,
        "expires_in": max(1, round(lifetime)),
        "refresh_expires_in": 0,
        "token_type": "Bearer",
        "not-before-policy": 0,
        "scope": TOKEN_SCOPE,
        "merchant-document": expected.merchant_document,
        "authorization_details": [
            {"type": "checkout", "account_id": "sandbox-account", "fingerprint": "sandbox"}
        ],
    }
    return json_response(reply, headers={"Cache-Control": "no-store", "Pragma": "no-cache"})


# ---------------------------------------------------------------------------------------------
# The sandbox's own controls (not part of the service): faults, token expiry, webhook, log


def require_admin(request: web.Request) -> SandboxServer:
    server = server_of(request)
    given = request.headers.get(ADMIN_HEADER, "")
    if not hmac.compare_digest(given.encode(), server.admin_token.encode()):
        raise api_error(401, f"the {ADMIN_HEADER} header is missing or wrong")
    return server


async def admin_get_faults(request: web.Request) -> web.Response:
    server = require_admin(request)
    return json_response(server.config.faults.as_dict())


async def admin_patch_faults(request: web.Request) -> web.Response:
    server = require_admin(request)
    try:
        changes = await read_json_object(request)
    except BodyProblem as exc:
        raise api_error(400, str(exc)) from None
    try:
        server.config.faults.update(**changes)
    except (FaultSettingError, TypeError) as exc:
        raise api_error(400, str(exc)) from None
    logger.info("faults changed: %s", ", ".join(sorted(changes)))
    return json_response(server.config.faults.as_dict())


async def admin_get_variants(request: web.Request) -> web.Response:
    server = require_admin(request)
    return json_response(server.variants.as_dict())


async def admin_patch_variants(request: web.Request) -> web.Response:
    """Change variants while the sandbox runs: `{"not-found": "404", "require": "none"}`."""
    server = require_admin(request)
    try:
        changes = await read_json_object(request)
    except BodyProblem as exc:
        raise api_error(400, str(exc)) from None
    try:
        server.variants.update(changes)
    except VariantError as exc:
        raise api_error(400, str(exc)) from None
    logger.info(
        "variants changed: %s", ", ".join(f"{k}={server.variants.as_dict()[k]}" for k in changes)
    )
    return json_response(server.variants.as_dict())


async def admin_expire_tokens(request: web.Request) -> web.Response:
    server = require_admin(request)
    return json_response({"expired": server.expire_tokens_now()})


async def admin_webhook(request: web.Request) -> web.Response:
    server = require_admin(request)
    try:
        body = await read_json_object(request)
    except BodyProblem as exc:
        raise api_error(400, str(exc)) from None
    unknown = sorted(set(body) - {"url", "layout"})
    if unknown:
        raise api_error(400, f"unknown field(s): {', '.join(unknown)}")
    url = body.get("url")
    layout = body.get("layout")
    if url is not None and not isinstance(url, str):
        raise api_error(400, "url must be a string or null")
    if layout is not None and not isinstance(layout, str):
        raise api_error(400, "layout must be a string")
    from checkout_desktop.sandbox.errors import SandboxConfigError

    try:
        token_value = server.configure_webhook(url, layout=layout)  # type: ignore[arg-type]
    except SandboxConfigError as exc:
        raise api_error(400, str(exc)) from None
    # Shown once, as the merchant panel does.
    return json_response({"url": url, "token": token_value, "layout": server.config.webhook_layout})


async def admin_deliveries(request: web.Request) -> web.Response:
    server = require_admin(request)
    return json_response([record.as_json() for record in server.state.deliveries])


def build_api_app(server: SandboxServer) -> web.Application:
    """The token and admin routes; the charge module adds its own (it builds on this one)."""
    app = web.Application(
        # Inside the error middleware: should saving fail unexpectedly, the reply is a JSON 500
        # rather than a success the state file does not hold.
        middlewares=[
            error_middleware(_render, "sandbox-api"),
            after_each_request(server.save_if_changed),
            reply_faults(server),
        ],
        client_max_size=server.config.max_api_body_bytes,
    )
    app[SERVER_KEY] = server
    app.router.add_post("/oauth2/token", token)
    app.router.add_get("/_sandbox/faults", admin_get_faults)
    app.router.add_patch("/_sandbox/faults", admin_patch_faults)
    app.router.add_get("/_sandbox/variants", admin_get_variants)
    app.router.add_patch("/_sandbox/variants", admin_patch_variants)
    app.router.add_post("/_sandbox/tokens/expire", admin_expire_tokens)
    app.router.add_put("/_sandbox/webhook", admin_webhook)
    app.router.add_get("/_sandbox/deliveries", admin_deliveries)
    return app
