"""The service's 3DS calls: setup, enrollment, status and the 3DS authorization.

Same rules as every other call (`gateway/client.py`): the token manager authenticates it, a
401 renews the token once, failures are the typed errors of `gateway.errors`, and every reply
is validated before it is used. The 3DS authorization's reply is a charge (possibly wrapped as
`{"charge": {…}}`, which `ChargeReply` reads) and must name the charge's merchantChargeId.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from checkout_desktop.domain.reasons import Reason, ReasonCode, operation_reason
from checkout_desktop.domain.three_ds import (
    BrowserInfo,
    EnrollmentReply,
    SetupReply,
    StatusReply,
    ThreeDsAuthorizationRequest,
    enrollment_body,
)
from checkout_desktop.domain.wire import ChargeAuthorizationRequest
from checkout_desktop.gateway.client import ChargeClient, ServiceReply, check_merchant_charge_id
from checkout_desktop.gateway.errors import (
    InvalidReply,
    api_error,
    describe_validation,
    non_json_message,
)
from checkout_desktop.gateway.replies import json_object

logger = logging.getLogger(__name__)

M = TypeVar("M", bound=BaseModel)

SETUP = "3DS setup"
ENROLLMENT = "3DS enrollment"
STATUS = "3DS status query"
AUTHORIZATION = "3DS authorization"


class ThreeDsClient:
    """The 3DS calls of one environment, on the charge client's connection and token."""

    def __init__(self, client: ChargeClient) -> None:
        self.client = client

    def card(self, request: ChargeAuthorizationRequest) -> dict[str, str]:
        """The 3DS calls' card: the charge's one SDK token, never card data."""
        if len(request.transactions) != 1:
            raise ValueError("3DS setup takes exactly one card")
        return {self.client.token_field: request.transactions[0].credit.temporaryCardToken}

    async def setup(self, request: ChargeAuthorizationRequest) -> SetupReply:
        """POST charge/3ds/setup with the charge's one card token (never card data)."""
        mcid = check_merchant_charge_id(request.merchantChargeId)
        card = self.card(request)
        body: dict[str, Any] = {
            "paymentSource": request.paymentSource.value,
            "merchantChargeId": mcid,
            "transactions": [
                {"amount": request.transactions[0].amount, "paymentType": "CREDIT", "card": card}
            ],
        }
        return await self._call(SETUP, "POST", "charge/3ds/setup", body, SetupReply)

    async def enroll(
        self,
        charge_id: str,
        customer: Mapping[str, Any],
        browser: BrowserInfo,
        request: ChargeAuthorizationRequest,
    ) -> EnrollmentReply:
        """POST charge/3ds/enrollment with the customer, the shopper's browser data and the
        card setup named (its token again)."""
        body = enrollment_body(
            charge_id, customer, browser, request.total_amount, self.card(request)
        )
        return await self._call(ENROLLMENT, "POST", "charge/3ds/enrollment", body, EnrollmentReply)

    async def status(self, charge_id: str) -> StatusReply:
        """GET charge/3ds/{chargeId}/status. ChargeNotFound for an id the service lacks."""
        path = f"charge/3ds/{_path_part(charge_id)}/status"
        return await self._call(STATUS, "GET", path, None, StatusReply)

    async def authorize(
        self, merchant_charge_id: str, request: ThreeDsAuthorizationRequest
    ) -> ServiceReply:
        """POST charge/3ds/authorization: the call that moves money (a charge is created)."""
        return await self.client._charge_call(
            AUTHORIZATION,
            "POST",
            "charge/3ds/authorization",
            merchant_charge_id,
            request.model_dump(mode="json"),
        )

    async def _call(
        self,
        operation: str,
        method: str,
        path: str,
        body: dict[str, Any] | None,
        model: type[M],
    ) -> M:
        response = await self.client._authorized(operation, method, path, body)
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
            return model.model_validate(data)
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


def _path_part(value: str) -> str:
    # A chargeId from the service goes into a path: only characters that need no quoting.
    if not value or not all(c.isalnum() or c in "-_." for c in value):
        raise ValueError(f"a 3DS chargeId has unexpected characters: {value[:40]!r}")
    return value


__all__ = ["ThreeDsClient"]
