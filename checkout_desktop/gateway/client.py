"""Charge operations on the service's REST API: authorize, query, capture, refund.

Every request is built from a validated domain model and every reply is validated before it
is used. A 401 renews the token once (shared with every caller refused at the same time) and
retries once; a second 401 is an error. Failures come back as the typed errors of
`gateway.errors`, which say whether the request may have reached the service.
"""

from __future__ import annotations

import logging
import socket
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

import httpx
from pydantic import ValidationError

from checkout_desktop.domain.enums import TokenFieldSpelling
from checkout_desktop.domain.reasons import Reason, ReasonCode, operation_reason
from checkout_desktop.domain.timestamps import utc_now
from checkout_desktop.domain.wire import (
    MERCHANT_CHARGE_ID_PATTERN,
    MISSING_WORDS,
    CaptureRequest,
    ChargeAuthorizationRequest,
    ChargeReply,
    ChargeUpdate,
    DeviceInformation,
    QrChargeRequest,
    RefundRequest,
)
from checkout_desktop.gateway.errors import (
    BadRequest,
    ConnectionLost,
    GatewayError,
    InvalidReply,
    ReplyTimeout,
    RequestInvalid,
    ServiceUnreachable,
    Unauthorized,
    api_error,
    describe_validation,
    non_json_message,
)
from checkout_desktop.gateway.profiles import Endpoints
from checkout_desktop.gateway.replies import json_object
from checkout_desktop.gateway.tokens import AccessToken, TokenManager

logger = logging.getLogger(__name__)

_MCID_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-")


@dataclass(frozen=True)
class DeviceIdentity:
    """What `deviceInformation` says about this terminal: its address and a stable id."""

    terminal_id: str
    ip: str = "127.0.0.1"

    def information(self, session_id: str | None) -> DeviceInformation:
        return DeviceInformation(ip=self.ip, id=self.terminal_id, sessionId=session_id)


def local_address_towards(url: str) -> str:
    """This machine's address on the route to `url`'s host (blocking: run it in a thread).

    A UDP socket's connect picks the route without sending anything. Loopback, or no route or
    name: 127.0.0.1.
    """
    host = urlsplit(url).hostname or ""
    if host in ("", "localhost") or host.startswith("127.") or host == "::1":
        return "127.0.0.1"
    try:
        info = socket.getaddrinfo(host, 443, type=socket.SOCK_DGRAM)
        family, _, _, _, address = info[0]
        with socket.socket(family, socket.SOCK_DGRAM) as probe:
            probe.connect(address)
            return str(probe.getsockname()[0])
    except (OSError, IndexError, UnicodeError):
        return "127.0.0.1"


@dataclass(frozen=True)
class ServiceReply:
    """A validated charge reply with the JSON it came in (the service masks card numbers)."""

    reply: ChargeReply
    body: dict[str, Any]
    http_status: int
    received_at: datetime
    notes: tuple[Reason, ...] = ()
    """What the client did on the way (a card-token spelling learned), for the timeline."""

    def update(self, *, source: str) -> ChargeUpdate:
        return self.reply.update(source=source, received_at=self.received_at)


def check_merchant_charge_id(value: str) -> str:
    """The service's rule for merchantChargeId: 6 to 36 letters, digits or hyphens."""
    if not 6 <= len(value) <= 36 or not set(value) <= _MCID_CHARS:
        raise RequestInvalid(
            Reason.of(
                ReasonCode.BAD_MERCHANT_CHARGE_ID,
                value=value,
                pattern=MERCHANT_CHARGE_ID_PATTERN,
            ),
            operation="charge request",
        )
    return value


class ChargeClient:
    """One environment's charge API, authenticated by a TokenManager."""

    def __init__(
        self,
        *,
        http: httpx.AsyncClient,
        endpoints: Endpoints,
        tokens: TokenManager,
        timeout_s: float = 30.0,
        token_field: TokenFieldSpelling = "temporaryCardToken",
        on_token_field: Callable[[TokenFieldSpelling], None] | None = None,
        device: DeviceIdentity | None = None,
    ) -> None:
        self._http = http
        self.endpoints = endpoints
        self.tokens = tokens
        self.timeout_s = timeout_s
        self.token_field = token_field
        self.on_token_field = on_token_field
        """Told once when the service shows it reads the other spelling (to keep it)."""
        self.token_field_settled = False
        """A card charge went through with `token_field`: no spelling is retried any more."""
        self.device = device
        """Sent as `deviceInformation` on a charge that carries none (docs list it; public
        integrations send it; the service may require it)."""

    def with_device(
        self, request: ChargeAuthorizationRequest, session_id: str | None
    ) -> ChargeAuthorizationRequest:
        """The request with this terminal's `deviceInformation` (sessionId: the sale)."""
        if request.deviceInformation is not None or self.device is None:
            return request
        return request.model_copy(update={"deviceInformation": self.device.information(session_id)})

    async def authorize(
        self, request: ChargeAuthorizationRequest, *, session_id: str | None = None
    ) -> ServiceReply:
        """POST charge/authorization. Raises OutcomeUnknown when the reply did not arrive.

        The spelling of the card-token field is not settled by the service's public material.
        Until one charge has gone through, a 400 that names the card token as missing is
        answered by sending the same request once more under the other spelling, with the
        same merchantChargeId: a refused request created nothing, and a merchantChargeId can
        never create a second charge. The spelling that works is kept for every later charge.
        """
        mcid = check_merchant_charge_id(request.merchantChargeId)
        request = self.with_device(request, session_id)
        tried = self.token_field
        try:
            reply = await self._authorize_as(request, mcid, tried)
        except BadRequest as exc:
            if exc.body is None or not exc.body.names_card_token_missing():
                raise
            if self.token_field_settled and self.token_field == tried:
                # The spelling that already went through was refused: not a spelling matter.
                raise
            # Not settled yet, or settled on the other spelling by a charge that was sent at
            # the same time as this one.
            other = other_spelling(tried)
            logger.info(
                "charge %s: the service found no card token under %s; retrying once as %s",
                mcid,
                tried,
                other,
            )
            retry = Reason.of(ReasonCode.TOKEN_FIELD_RETRY, tried=tried, spelling=other)
            try:
                reply = await self._authorize_as(request, mcid, other)
            except BadRequest as again:
                if _says_missing(again) and not _says_missing(exc):
                    # Neither spelling helped, and the first refusal says more (an expired or
                    # used token, say) than "no card token" under the other spelling.
                    exc.notes = (*exc.notes, retry)
                    raise exc from None
                again.notes = (*again.notes, retry)
                raise
            except GatewayError as again:
                again.notes = (*again.notes, retry)
                raise
            if self.token_field_settled and self.token_field == other:
                return replace(reply, notes=(*reply.notes, retry))
            self._learn(other)
            learned = Reason.of(ReasonCode.TOKEN_FIELD_LEARNED, spelling=other)
            return replace(reply, notes=(*reply.notes, retry, learned))
        if not self.token_field_settled and self.token_field == tried:
            self.token_field_settled = True
        return reply

    def _learn(self, spelling: TokenFieldSpelling) -> None:
        self.token_field = spelling
        self.token_field_settled = True
        if self.on_token_field is not None:
            try:
                self.on_token_field(spelling)
            except Exception:
                # Keeping it in the profile is a convenience; the charge went through.
                logger.exception("could not keep the card-token spelling %s", spelling)

    async def _authorize_as(
        self, request: ChargeAuthorizationRequest, mcid: str, spelling: TokenFieldSpelling
    ) -> ServiceReply:
        body = request.to_wire(spelling)
        return await self._charge_call(
            "charge authorization", "POST", "charge/authorization", mcid, body
        )

    async def charge_qr(
        self, request: QrChargeRequest, *, session_id: str | None = None
    ) -> ServiceReply:
        """POST charge/wallet or charge/pix: one QR for the customer to pay.

        Sent once: a lost reply is settled by a query of its merchantChargeId, never by asking
        for a second QR (the caller records the attempt before this call).
        """
        mcid = check_merchant_charge_id(request.merchantChargeId)
        if request.deviceInformation is None and self.device is not None:
            request = request.model_copy(
                update={"deviceInformation": self.device.information(session_id)}
            )
        pix = request.path == "charge/pix"
        return await self._charge_call(
            "pix charge" if pix else "wallet charge", "POST", request.path, mcid, request.to_wire()
        )

    async def query(self, merchant_charge_id: str) -> ServiceReply:
        """GET charge/{merchantChargeId}. Raises ChargeNotFound when the service has none."""
        mcid = check_merchant_charge_id(merchant_charge_id)
        return await self._charge_call("charge query", "GET", f"charge/{mcid}", mcid, None)

    async def capture(self, merchant_charge_id: str, amount: int) -> ServiceReply:
        """POST charge/{id}/capture for a late-capture (PRE_AUTHORIZED) charge."""
        mcid = check_merchant_charge_id(merchant_charge_id)
        body = _amount_body(CaptureRequest, amount, "capture")
        return await self._charge_call(
            "charge capture", "POST", f"charge/{mcid}/capture", mcid, body
        )

    async def refund(self, merchant_charge_id: str, amount: int) -> ServiceReply:
        """POST charge/{id}/refund, full or partial (cancels a charge not yet captured)."""
        mcid = check_merchant_charge_id(merchant_charge_id)
        body = _amount_body(RefundRequest, amount, "refund")
        return await self._charge_call("charge refund", "POST", f"charge/{mcid}/refund", mcid, body)

    # -- internals -----------------------------------------------------------------------------

    async def _charge_call(
        self,
        operation: str,
        method: str,
        path: str,
        merchant_charge_id: str,
        body: dict[str, Any] | None,
    ) -> ServiceReply:
        response = await self._authorized(operation, method, path, body)
        data = json_object(response)
        if data is None:
            raise non_json_message(
                operation,
                response.status_code,
                response.headers.get("content-type"),
                response.text,
            )
        if response.status_code >= 300:
            raise api_error(operation, response.status_code, data)
        try:
            reply = ChargeReply.model_validate(data)
        except ValidationError as exc:
            raise InvalidReply(
                Reason.of(
                    ReasonCode.REPLY_NOT_DOCUMENTED,
                    operation=operation_reason(operation),
                    details=describe_validation(exc),
                ),
                operation=operation,
                status=response.status_code,
            ) from None
        if reply.merchantChargeId != merchant_charge_id:
            raise InvalidReply(
                Reason.of(
                    ReasonCode.REPLY_OTHER_CHARGE,
                    operation=operation_reason(operation),
                    got=reply.merchantChargeId,
                    expected=merchant_charge_id,
                ),
                operation=operation,
                status=response.status_code,
            )
        return ServiceReply(reply, data, response.status_code, utc_now())

    async def _authorized(
        self, operation: str, method: str, path: str, body: dict[str, Any] | None
    ) -> httpx.Response:
        # The token must outlive the whole request, so it cannot expire while it is in flight.
        token = await self.tokens.token(min_life_s=self.timeout_s)
        response = await self._send(operation, method, path, body, token)
        if response.status_code != 401:
            return response
        # A 401 means the service did not process the request (it checks the token first), so
        # sending the same request again with a new token cannot charge twice.
        logger.info("%s: token refused (HTTP 401); renewing it once and retrying", operation)
        renewed = await self.tokens.refresh(rejected=token)
        response = await self._send(operation, method, path, body, renewed)
        if response.status_code != 401:
            return response
        skew = self.tokens.skew_problem()
        if skew is not None:
            raise skew
        error = api_error(operation, 401, json_object(response))
        raise Unauthorized(
            Reason.of(
                ReasonCode.TOKEN_REFUSED_AGAIN,
                operation=operation_reason(operation),
                detail=error.reason,
            ),
            operation=operation,
            status=401,
            body=getattr(error, "body", None),
        )

    async def _send(
        self,
        operation: str,
        method: str,
        path: str,
        body: dict[str, Any] | None,
        token: AccessToken,
    ) -> httpx.Response:
        # Content-Type on every call, queries too: the find-charge page lists 415 among its
        # answers, and public integrations send it on every request.
        headers = {
            "Accept": "application/json",
            "Content-Type": "application/json",
            "Authorization": token.authorization(),
        }
        try:
            return await self._http.request(
                method,
                self.endpoints.api(path),
                json=body,
                headers=headers,
                timeout=self.timeout_s,
            )
        except (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout) as exc:
            raise ServiceUnreachable(
                Reason.of(
                    ReasonCode.UNREACHABLE,
                    operation=operation_reason(operation),
                    url=self.endpoints.base_url,
                    error=type(exc).__name__,
                ),
                operation=operation,
            ) from None
        except httpx.TimeoutException:
            raise ReplyTimeout(
                Reason.of(
                    ReasonCode.REPLY_TIMEOUT,
                    operation=operation_reason(operation),
                    seconds=f"{self.timeout_s:g}",
                ),
                operation=operation,
            ) from None
        except httpx.HTTPError as exc:
            raise ConnectionLost(
                Reason.of(
                    ReasonCode.CONNECTION_LOST,
                    operation=operation_reason(operation),
                    error=type(exc).__name__,
                ),
                operation=operation,
            ) from None


def _says_missing(error: BadRequest) -> bool:
    body = error.body
    if body is None:
        return False
    texts = [body.message or "", *((item.message or "") for item in body.errors or [])]
    return any(MISSING_WORDS.search(text) for text in texts)


def other_spelling(spelling: TokenFieldSpelling) -> TokenFieldSpelling:
    return "temporatyCardToken" if spelling == "temporaryCardToken" else "temporaryCardToken"


def _amount_body(
    kind: type[CaptureRequest] | type[RefundRequest], amount: int, what: str
) -> dict[str, Any]:
    try:
        return kind(amount=amount).model_dump(mode="json")
    except ValidationError:
        raise RequestInvalid(
            Reason.of(ReasonCode.BAD_AMOUNT, value=repr(amount)),
            operation=f"charge {what}",
        ) from None


__all__ = [
    "ChargeClient",
    "GatewayError",
    "ServiceReply",
    "check_merchant_charge_id",
]
