"""The access-token manager (spec 5.1): one request in flight, cached, renewed ahead of expiry.

However many callers need a token at once, at most one token request is on the wire; the rest
wait for its result. A token is reused until shortly before `expires_in` runs out, and a caller
states how long it needs the token to live (a charge asks for its whole timeout), so a token
never expires in the middle of a charge. The token lives only in memory, as a SecretStr.
"""

from __future__ import annotations

import asyncio
import email.utils
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

import httpx
from pydantic import SecretStr, ValidationError

from checkout_desktop.domain.charge_events import TokenStateChanged, TokenStatus
from checkout_desktop.domain.events import EventBus
from checkout_desktop.domain.reasons import Reason, ReasonCode, operation_reason
from checkout_desktop.domain.timestamps import utc_now
from checkout_desktop.domain.wire import TokenRequest, TokenResponse
from checkout_desktop.gateway.errors import (
    ClockSkew,
    CredentialsUnavailable,
    GatewayError,
    ServiceUnreachable,
    TokenError,
    describe_validation,
    non_json_message,
    oauth_error,
)
from checkout_desktop.gateway.replies import json_object
from checkout_desktop.logsetup import forget_secret, register_secret
from checkout_desktop.secrets import Credentials, KeychainUnavailable, SecretMissing

logger = logging.getLogger(__name__)

OPERATION = "token request"
_OP = operation_reason(OPERATION)


class TokenReplyUnreadable(TokenError):
    """The token server answered with something other than a valid token body."""


class ServiceUnreachableToken(TokenError, ServiceUnreachable):
    """The token server could not be reached: nothing was sent."""


@dataclass(frozen=True)
class AccessToken:
    """One access token; `repr` never shows its value."""

    value: SecretStr
    token_type: str
    generation: int
    expires_in: int
    obtained_at: float
    """Monotonic time the request for it was sent (its life is counted from there)."""
    valid_until: datetime
    scopes: tuple[str, ...]

    @property
    def expires_at(self) -> float:
        return self.obtained_at + self.expires_in

    def authorization(self) -> str:
        # Token types come back as "Bearer"/"bearer"; the header scheme is always Bearer.
        return f"Bearer {self.value.get_secret_value()}"


class TokenManager:
    """Gets, caches and renews the access token of one client id."""

    def __init__(
        self,
        *,
        http: httpx.AsyncClient,
        token_url: str,
        client_id: str,
        credentials: Credentials,
        events: EventBus | None = None,
        timeout_s: float = 30.0,
        margin_s: float = 30.0,
        margin_ratio: float = 0.1,
        skew_limit_s: float = 60.0,
        monotonic: Callable[[], float] = time.monotonic,
        wall: Callable[[], datetime] = utc_now,
    ) -> None:
        self._http = http
        self._token_url = token_url
        self._client_id = client_id
        self._credentials = credentials
        self._events = events
        self._timeout_s = timeout_s
        self._margin_s = margin_s
        self._margin_ratio = margin_ratio
        self._skew_limit_s = skew_limit_s
        self._monotonic = monotonic
        self._wall = wall
        self._current: AccessToken | None = None
        self._inflight: asyncio.Task[AccessToken] | None = None
        self._generation = 0
        self._requests = 0
        self._status = TokenStatus.NONE
        self._error: Reason | None = None
        self.clock_skew_s: float | None = None
        """Service clock minus local clock, from the token reply's Date header."""

    # -- public --------------------------------------------------------------------------------

    @property
    def token_requests(self) -> int:
        """How many token requests were sent since start."""
        return self._requests

    @property
    def current(self) -> AccessToken | None:
        return self._current

    def margin(self, expires_in: float) -> float:
        """Renew this long before expiry: 30 s or 10 %, but never more than half the life."""
        return min(max(self._margin_s, expires_in * self._margin_ratio), expires_in / 2)

    def seconds_left(self, token: AccessToken | None = None) -> float | None:
        token = token or self._current
        if token is None:
            return None
        return token.expires_at - self._monotonic()

    def snapshot(self) -> TokenStateChanged:
        """The token's state for display: valid until when, seconds left, requests made."""
        token = self._current
        left = self.seconds_left(token)
        status = self._status
        if status == TokenStatus.VALID and (left is None or left <= 0):
            status = TokenStatus.EXPIRED
        return TokenStateChanged(
            status=status,
            valid_until=None if token is None else token.valid_until,
            seconds_left=None if left is None else max(left, 0.0),
            token_requests=self._requests,
            error=self._error,
            clock_skew_s=self.clock_skew_s,
        )

    async def token(self, *, min_life_s: float = 0.0) -> AccessToken:
        """A token that stays valid for at least `min_life_s` more seconds (plus the margin).

        A freshly fetched token is returned even if the service grants a shorter life than
        asked: it is the best there is, and asking again would not help.
        """
        current = self._current
        if current is not None and self._usable(current, min_life_s):
            return current
        return await self._shared_fetch()

    async def refresh(self, rejected: AccessToken | None = None) -> AccessToken:
        """Renew after the service refused `rejected`; callers refused together share one renewal.

        If the current token is already newer than the refused one, another caller renewed it
        and it is returned without a new request.
        """
        current = self._current
        if (
            rejected is not None
            and current is not None
            and current.generation > rejected.generation
        ):
            return current
        if self._inflight is None:
            self._drop(current)
        return await self._shared_fetch()

    def forget(self) -> None:
        """Drop the cached token (for example when the credentials change)."""
        self._drop(self._current)
        self._status = TokenStatus.NONE
        self._publish()

    def skew_problem(self) -> ClockSkew | None:
        """A ClockSkew error when the local clock is too far off to explain a refused token."""
        skew = self.clock_skew_s
        if skew is None or abs(skew) <= self._skew_limit_s:
            return None
        return ClockSkew(
            Reason.of(
                ReasonCode.CLOCK_BEHIND if skew > 0 else ReasonCode.CLOCK_AHEAD,
                seconds=f"{abs(skew):.0f}",
            ),
            operation=OPERATION,
            skew_s=skew,
        )

    # -- internals -----------------------------------------------------------------------------

    def _usable(self, token: AccessToken, min_life_s: float) -> bool:
        left = token.expires_at - self._monotonic()
        return left - self.margin(token.expires_in) >= min_life_s

    def _drop(self, token: AccessToken | None) -> None:
        if token is not None and self._current is token:
            self._current = None
            forget_secret(token.value.get_secret_value())

    async def _shared_fetch(self) -> AccessToken:
        task = self._inflight
        if task is None:
            task = asyncio.get_running_loop().create_task(self._fetch(), name="token-request")
            self._inflight = task
            task.add_done_callback(self._fetch_done)
        # shield: a caller that gives up must not cancel the request the others wait for.
        return await asyncio.shield(task)

    def _fetch_done(self, task: asyncio.Task[AccessToken]) -> None:
        if self._inflight is task:
            self._inflight = None
        if not task.cancelled():
            task.exception()  # retrieved here so an unawaited failure is never reported twice

    async def _fetch(self) -> AccessToken:
        self._requests += 1
        self._status = TokenStatus.REFRESHING
        self._publish()
        try:
            token = await self._request()
        except TokenError as exc:
            self._status = TokenStatus.FAILED
            self._error = exc.reason
            self._publish()
            raise
        previous = self._current
        self._current = token
        if previous is not None:
            forget_secret(previous.value.get_secret_value())
        self._status = TokenStatus.VALID
        self._error = None
        self._publish()
        logger.info(
            "access token #%d obtained, valid for %d s (token requests so far: %d)",
            token.generation,
            token.expires_in,
            self._requests,
        )
        return token

    async def _request(self) -> AccessToken:
        try:
            secret = self._credentials.client_secret()
        except (SecretMissing, KeychainUnavailable) as exc:
            raise CredentialsUnavailable(
                Reason.of(ReasonCode.SECRET_UNREADABLE, operation=_OP, error=str(exc)),
                operation=OPERATION,
            ) from None
        try:
            body = TokenRequest(client_id=self._client_id, client_secret=secret).to_wire()
        except ValidationError as exc:
            raise TokenError(
                Reason.of(
                    ReasonCode.CREDENTIALS_BREAK_RULES,
                    operation=_OP,
                    details=describe_validation(exc),
                ),
                operation=OPERATION,
            ) from None
        sent_at = self._monotonic()
        wall_sent = self._wall()
        try:
            response = await self._http.post(
                self._token_url,
                json=body,
                headers={"Accept": "application/json"},
                timeout=self._timeout_s,
            )
        except (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout) as exc:
            raise ServiceUnreachableToken(
                Reason.of(
                    ReasonCode.TOKEN_SERVER_UNREACHABLE,
                    operation=_OP,
                    url=self._token_url,
                    error=type(exc).__name__,
                ),
                operation=OPERATION,
            ) from None
        except httpx.TimeoutException:
            raise TokenError(
                Reason.of(
                    ReasonCode.TOKEN_SERVER_TIMEOUT, operation=_OP, seconds=f"{self._timeout_s:g}"
                ),
                operation=OPERATION,
            ) from None
        except httpx.HTTPError as exc:
            raise TokenError(
                Reason.of(
                    ReasonCode.TOKEN_SERVER_CONNECTION, operation=_OP, error=type(exc).__name__
                ),
                operation=OPERATION,
            ) from None
        self._note_skew(response)
        data = json_object(response)
        if data is None and response.status_code not in (400, 401):
            # An HTML block page, an empty body, a proxy's error text: say so, never crash.
            reply = non_json_message(
                OPERATION, response.status_code, response.headers.get("content-type"), response.text
            )
            raise TokenReplyUnreadable(reply.reason, operation=OPERATION, status=reply.status)
        if response.status_code != 200 or data is None:
            raise oauth_error(OPERATION, response.status_code, data)
        try:
            parsed = TokenResponse.model_validate(data)
        except ValidationError as exc:
            raise TokenReplyUnreadable(
                Reason.of(
                    ReasonCode.TOKEN_REPLY_NOT_DOCUMENTED,
                    operation=_OP,
                    details=describe_validation(exc),
                ),
                operation=OPERATION,
                status=response.status_code,
            ) from None
        value = parsed.access_token.get_secret_value()
        register_secret(value)
        self._generation += 1
        return AccessToken(
            value=parsed.access_token,
            token_type=parsed.token_type,
            generation=self._generation,
            expires_in=parsed.expires_in,
            obtained_at=sent_at,
            valid_until=wall_sent + timedelta(seconds=parsed.expires_in),
            scopes=tuple(parsed.scopes),
        )

    def _note_skew(self, response: httpx.Response) -> None:
        header = response.headers.get("date")
        if not header:
            return
        try:
            server = email.utils.parsedate_to_datetime(header)
        except (TypeError, ValueError):
            return
        if server.tzinfo is None:
            return
        self.clock_skew_s = (server - self._wall()).total_seconds()
        if abs(self.clock_skew_s) > self._skew_limit_s:
            logger.warning(
                "this computer's clock differs from the service's by %.0f s", self.clock_skew_s
            )

    def _publish(self) -> None:
        if self._events is not None:
            self._events.publish(self.snapshot())


__all__ = [
    "AccessToken",
    "GatewayError",
    "ServiceUnreachableToken",
    "TokenManager",
    "TokenReplyUnreadable",
]
