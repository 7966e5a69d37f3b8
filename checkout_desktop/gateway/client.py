"""Charge operations on the service's REST API: authorize, query, capture, refund.

Every request is built from a validated domain model and every reply is validated before it
is used. A 401 renews the token once (shared with every caller refused at the same time) and
retries once; a second 401 is an error. Failures come back as the typed errors of
`gateway.errors`, which say whether the request may have reached the service.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import httpx
from pydantic import ValidationError

from checkout_desktop.domain.enums import TokenFieldSpelling
from checkout_desktop.domain.reasons import Reason, ReasonCode, operation_reason
from checkout_desktop.domain.timestamps import utc_now
from checkout_desktop.domain.wire import (
    MERCHANT_CHARGE_ID_PATTERN,
    CaptureRequest,
    ChargeAuthorizationRequest,
    ChargeReply,
    ChargeUpdate,
    RefundRequest,
)
from checkout_desktop.gateway.errors import (
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
class ServiceReply:
    """A validated charge reply with the JSON it came in (the service masks card numbers)."""

    reply: ChargeReply
    body: dict[str, Any]
    http_status: int
    received_at: datetime

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
    ) -> None:
        self._http = http
        self.endpoints = endpoints
        self.tokens = tokens
        self.timeout_s = timeout_s
        self.token_field = token_field

    async def authorize(self, request: ChargeAuthorizationRequest) -> ServiceReply:
        """POST charge/authorization. Raises OutcomeUnknown when the reply did not arrive."""
        mcid = check_merchant_charge_id(request.merchantChargeId)
        body = request.to_wire(self.token_field)
        return await self._charge_call(
            "charge authorization", "POST", "charge/authorization", mcid, body
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
        headers = {"Accept": "application/json", "Authorization": token.authorization()}
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
