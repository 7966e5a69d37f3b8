"""Errors of the service client, each with a message a shop assistant or support can act on.

The classes also say what a failure means for money: whether the request certainly never
reached the service (`sent=False`, safe to try again with a new attempt), certainly was
refused, or may have been processed (`OutcomeUnknown`: resolve by querying, never resend).
No message ever carries a secret, a token or a card number.
"""

from __future__ import annotations

import html
import logging
import re
from typing import Any

from pydantic import ValidationError

from checkout_desktop.domain.reasons import (
    Reason,
    ReasonCode,
    business_reason,
    operation_reason,
)
from checkout_desktop.domain.wire import ApiErrorBody, OAuthErrorBody, validation_reasons
from checkout_desktop.logsetup import redact

logger = logging.getLogger(__name__)

_TITLE = re.compile(r"<title[^>]*>(.*?)</title>", re.IGNORECASE | re.DOTALL)


class GatewayError(Exception):
    """Any failure talking to the service."""

    sent: bool | None = None
    """False: the request certainly never reached the service. True: it did. None: unknown."""

    notes: tuple[Reason, ...] = ()
    """What the client did on the way (a card-token spelling retried), for the timeline."""

    def __init__(self, reason: Reason, *, operation: str, status: int | None = None) -> None:
        message = reason.english()
        super().__init__(message)
        self.reason = reason
        """Why, for the screen (rendered in the UI language); `message` is its English."""
        self.message = message
        self.operation = operation
        self.status = status

    def __str__(self) -> str:
        return self.message


class RequestInvalid(GatewayError):
    """The terminal refused to send a request that breaks the service's rules."""

    sent = False


class ServiceUnreachable(GatewayError):
    """No connection could be made: the request never left the terminal."""

    sent = False


class OutcomeUnknown(GatewayError):
    """The request may have been processed, but no reply arrived. Query; never resend."""

    sent = None


class ReplyTimeout(OutcomeUnknown):
    pass


class ConnectionLost(OutcomeUnknown):
    pass


class ReplyUnreadable(GatewayError):
    """The service answered, but not with the body its format requires."""

    sent = True


class NonJsonReply(ReplyUnreadable):
    """A reply that is not JSON, such as a firewall's HTML block page."""


class InvalidReply(ReplyUnreadable):
    """JSON that does not match the documented reply."""


class ApiError(GatewayError):
    """The service answered with an error status."""

    sent = True

    def __init__(
        self, reason: Reason, *, operation: str, status: int, body: ApiErrorBody | None = None
    ) -> None:
        super().__init__(reason, operation=operation, status=status)
        self.body = body


class BadRequest(ApiError):
    """400: the service refused the request's content; nothing was created."""


class Unauthorized(ApiError):
    """401 even with a freshly issued token."""


class UnsupportedMediaType(ApiError):
    pass


class ChargeNotFound(ApiError):
    """The service has no charge with this merchantChargeId."""


class ServerError(ApiError):
    """5xx: the service failed while handling the request."""


class TokenError(GatewayError):
    """No access token could be obtained; no charge request was sent."""

    sent = False


class InvalidCredentials(TokenError):
    """The token server refused the client id or secret (wrong, or revoked)."""


class CredentialsUnavailable(TokenError):
    """The client secret could not be read (keychain missing or locked, secret not entered)."""


class ClockSkew(TokenError):
    """The computer's clock is far from the service's, and a fresh token was refused."""

    def __init__(self, reason: Reason, *, operation: str, skew_s: float) -> None:
        super().__init__(reason, operation=operation, status=401)
        self.skew_s = skew_s


# ---------------------------------------------------------------------------------------------
# Builders of readable messages


# A field's name or the parser's message each, as a reason keeps it.
_MAX_FIELD_TEXT = 120


def _clip_field(text: str) -> str:
    text = redact(text)
    return text if len(text) <= _MAX_FIELD_TEXT else text[: _MAX_FIELD_TEXT - 1] + "…"


def describe_validation(exc: ValidationError) -> tuple[Reason, ...]:
    """Which fields are missing or wrong, as reasons a screen says in its language (the
    parser's own words kept in their English, for the log); never a value (values may be card
    data)."""
    return validation_reasons(exc, clip=_clip_field)


def page_title(text: str) -> str | None:
    match = _TITLE.search(text)
    if not match:
        return None
    title = " ".join(html.unescape(match.group(1)).split())
    return redact(title[:80]) or None


def non_json_message(
    operation: str, status: int, content_type: str | None, text: str
) -> NonJsonReply:
    kind = (content_type or "no content type").split(";")[0].strip()
    title = page_title(text) if "html" in kind or "<html" in text[:500].lower() else None
    op = operation_reason(operation)
    if title:
        reason = Reason.of(
            ReasonCode.REPLY_HTML_TITLED, operation=op, http_code=status, title=title
        )
    elif "html" in kind:
        reason = Reason.of(ReasonCode.REPLY_HTML, operation=op, http_code=status)
    elif not text.strip():
        reason = Reason.of(ReasonCode.REPLY_EMPTY, operation=op, http_code=status)
    else:
        reason = Reason.of(
            ReasonCode.REPLY_NOT_JSON, operation=op, http_code=status, content_type=kind
        )
    return NonJsonReply(reason, operation=operation, status=status)


_ABOUT_ONE_CHARGE = frozenset({"charge query", "charge capture", "charge refund"})


def service_detail(parsed: ApiErrorBody) -> Reason:
    """What an error body says: the service's own words (never a card number or token it might
    echo back), led by its business code in plain words when it gives one."""
    words = redact(parsed.describe())
    business = business_reason(parsed.business_code)
    if business is None:
        return Reason.of(ReasonCode.SERVICE_SAID, words=words)
    return Reason.of(ReasonCode.SERVICE_SAID_CODED, words=words, business=business)


def api_error(operation: str, status: int, body: dict[str, Any] | None) -> ApiError:
    parsed: ApiErrorBody | None = None
    detail: str | Reason = Reason.of(ReasonCode.NO_ERROR_DETAIL)
    if body is not None:
        try:
            parsed = ApiErrorBody.model_validate(body)
            detail = service_detail(parsed)
            if status == 400 and parsed.names_customer_email_missing():
                detail = Reason.of(ReasonCode.CUSTOMER_EMAIL_REQUIRED, words=detail)
            elif status == 400 and parsed.names_customer_document():
                # The service's own words after the plain ones (its business code for this
                # says no more than they do).
                detail = Reason.of(
                    ReasonCode.CUSTOMER_DOCUMENT_REFUSED, words=redact(parsed.describe())
                )
        except ValidationError:
            detail = Reason.of(ReasonCode.UNKNOWN_ERROR_BODY)
    if (
        status == 400
        and parsed is not None
        and operation in _ABOUT_ONE_CHARGE
        and parsed.says_charge_not_found()
    ):
        # The find-charge page documents no 404: "not found" may come as a 400 naming the charge.
        status_kind: tuple[type[ApiError], ReasonCode] | None = (
            ChargeNotFound,
            ReasonCode.API_NO_CHARGE,
        )
    else:
        status_kind = None
    kinds: dict[int, tuple[type[ApiError], ReasonCode]] = {
        400: (BadRequest, ReasonCode.API_REFUSED),
        401: (Unauthorized, ReasonCode.API_TOKEN_REFUSED),
        404: (ChargeNotFound, ReasonCode.API_NO_CHARGE),
        415: (UnsupportedMediaType, ReasonCode.API_MEDIA_REFUSED),
    }
    kind, code = status_kind or kinds.get(
        status,
        (ServerError, ReasonCode.API_FAILED) if status >= 500 else (ApiError, ReasonCode.API_ERROR),
    )
    return kind(
        Reason.of(code, operation=operation_reason(operation), http_code=status, detail=detail),
        operation=operation,
        status=status,
        body=parsed,
    )


def error_detail(error: ApiError) -> str | Reason:
    """What the service said in an error reply (its words, or why there are none)."""
    detail = error.reason.args.get("detail")
    return detail if isinstance(detail, str | Reason) else Reason.of(ReasonCode.NO_ERROR_DETAIL)


def oauth_error(operation: str, status: int, body: dict[str, Any] | None) -> TokenError:
    detail: str | Reason = Reason.of(ReasonCode.NO_ERROR_DETAIL)
    code = None
    if body is not None:
        try:
            parsed = OAuthErrorBody.model_validate(body)
            detail = redact(parsed.describe())
            code = parsed.error
        except ValidationError:
            detail = Reason.of(ReasonCode.UNKNOWN_ERROR_BODY)
    op = operation_reason(operation)
    if status == 401 or code in {"invalid_client", "unauthorized_client", "invalid_grant"}:
        return InvalidCredentials(
            Reason.of(
                ReasonCode.CREDENTIALS_REFUSED, operation=op, http_code=status, detail=detail
            ),
            operation=operation,
            status=status,
        )
    return TokenError(
        Reason.of(ReasonCode.TOKEN_SERVER_ERROR, operation=op, http_code=status, detail=detail),
        operation=operation,
        status=status,
    )
