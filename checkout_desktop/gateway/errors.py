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

from checkout_desktop.domain.wire import ApiErrorBody, OAuthErrorBody
from checkout_desktop.logsetup import redact

logger = logging.getLogger(__name__)

_TITLE = re.compile(r"<title[^>]*>(.*?)</title>", re.IGNORECASE | re.DOTALL)


class GatewayError(Exception):
    """Any failure talking to the service."""

    sent: bool | None = None
    """False: the request certainly never reached the service. True: it did. None: unknown."""

    def __init__(self, message: str, *, operation: str, status: int | None = None) -> None:
        super().__init__(message)
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
        self, message: str, *, operation: str, status: int, body: ApiErrorBody | None = None
    ) -> None:
        super().__init__(message, operation=operation, status=status)
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

    def __init__(self, message: str, *, operation: str, skew_s: float) -> None:
        super().__init__(message, operation=operation, status=401)
        self.skew_s = skew_s


# ---------------------------------------------------------------------------------------------
# Builders of readable messages


def describe_validation(exc: ValidationError) -> str:
    """Which fields are wrong and why, without echoing any value (values may be card data)."""
    parts = []
    for error in exc.errors(include_input=False, include_url=False)[:5]:
        where = ".".join(str(p) for p in error["loc"]) or "body"
        parts.append(f"{where}: {error['msg']}")
    more = exc.error_count() - len(parts)
    if more > 0:
        parts.append(f"and {more} more")
    return "; ".join(parts)


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
    if title or "html" in kind:
        shown = f' ("{title}")' if title else ""
        message = (
            f"{operation}: the service answered HTTP {status} with an HTML page{shown} instead "
            "of JSON, usually a firewall or proxy block page; the service may refuse calls from "
            "this network or country, or the base URL points at a web site"
        )
    elif not text.strip():
        message = f"{operation}: the service answered HTTP {status} with an empty body"
    else:
        message = f"{operation}: the service answered HTTP {status} with {kind}, not JSON"
    return NonJsonReply(message, operation=operation, status=status)


def api_error(operation: str, status: int, body: dict[str, Any] | None) -> ApiError:
    parsed: ApiErrorBody | None = None
    detail = "no error detail in the reply"
    if body is not None:
        try:
            parsed = ApiErrorBody.model_validate(body)
            # The service's own words, but never a card number or token it might echo back.
            detail = redact(parsed.describe())
        except ValidationError:
            detail = "an error body of an unknown shape"
    kinds: dict[int, tuple[type[ApiError], str]] = {
        400: (BadRequest, "refused the request"),
        401: (Unauthorized, "refused the access token"),
        404: (ChargeNotFound, "has no such charge"),
        415: (UnsupportedMediaType, "refused the content type"),
    }
    kind, what = kinds.get(
        status,
        (ServerError, "failed") if status >= 500 else (ApiError, "answered with an error"),
    )
    return kind(
        f"{operation}: the service {what} (HTTP {status}): {detail}",
        operation=operation,
        status=status,
        body=parsed,
    )


def oauth_error(operation: str, status: int, body: dict[str, Any] | None) -> TokenError:
    detail = "no error detail in the reply"
    code = None
    if body is not None:
        try:
            parsed = OAuthErrorBody.model_validate(body)
            detail = redact(parsed.describe())
            code = parsed.error
        except ValidationError:
            detail = "an error body of an unknown shape"
    if status == 401 or code in {"invalid_client", "unauthorized_client", "invalid_grant"}:
        return InvalidCredentials(
            f"{operation}: the service refused the client id or secret (HTTP {status}: "
            f"{detail}). Check them in Settings → Credentials; a secret stops working 7 days "
            "after a new one is generated in the merchant panel, and sandbox and production "
            "credentials differ",
            operation=operation,
            status=status,
        )
    return TokenError(
        f"{operation}: the token server answered HTTP {status}: {detail}",
        operation=operation,
        status=status,
    )
