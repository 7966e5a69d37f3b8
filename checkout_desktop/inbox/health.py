"""End-to-end health of the inbox: a self-test delivery through the public URL, seen arriving.

Each heartbeat posts a self-test event (with the webhook token, as the service would) to the
notification URL and waits for the inbox to store it. The result is one state: healthy (it
arrived), degraded (it arrived only locally or slowly) or down (it did not arrive, or the
merchant panel points elsewhere), with the reason and since when.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import ssl
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from urllib.parse import urlsplit

import httpx
from pydantic import SecretStr

from checkout_desktop.domain.events import EventBus
from checkout_desktop.domain.inbox_events import (
    HealthLevel,
    ListenerHealthChanged,
    ListenerStateChanged,
    TunnelState,
    TunnelStateChanged,
    WebhookStored,
)
from checkout_desktop.domain.reasons import Reason, ReasonCode
from checkout_desktop.domain.shop_events import SharedStoreReachabilityChanged
from checkout_desktop.domain.timestamps import utc_now
from checkout_desktop.inbox.intake import SELF_TEST_BODY_TYPE, SELF_TEST_EVENT_TYPE
from checkout_desktop.inbox.listener import WebhookListener
from checkout_desktop.inbox.tunnel import TunnelSupervisor

logger = logging.getLogger(__name__)

_LOOPBACK = frozenset({"127.0.0.1", "::1", "localhost"})
STORE_BACK_RECHECK_S = 2.0
"""After the shared store answers again, how soon a check that still finds the inbox down is
repeated (its connection to the store may take a few seconds more to come back)."""
STORE_BACK_WINDOW_S = 30.0
"""For how long after the store's return the inbox is checked that often."""


@dataclass(frozen=True)
class HealthStatus:
    level: HealthLevel
    reason: Reason
    since: datetime
    checked_at: datetime | None = None
    round_trip_s: float | None = None


def self_test_body(nonce: str) -> bytes:
    return json.dumps(
        {"type": SELF_TEST_BODY_TYPE, "nonce": nonce, "sentAt": utc_now().isoformat()}
    ).encode("utf-8")


class HealthMonitor:
    """Runs the heartbeat and keeps the current HealthStatus; publishes each change."""

    def __init__(
        self,
        *,
        listener: WebhookListener,
        token: SecretStr,
        bus: EventBus,
        tunnel: TunnelSupervisor | None = None,
        interval_s: float = 60.0,
        timeout_s: float = 10.0,
        slow_after_s: float = 3.0,
        verify: ssl.SSLContext | bool = True,
        client_factory: Callable[[], httpx.AsyncClient] | None = None,
    ) -> None:
        self._listener = listener
        self._token = token
        self._bus = bus
        self._tunnel = tunnel
        self._interval = interval_s
        self._timeout = timeout_s
        self._slow_after = slow_after_s
        self._client_factory = client_factory
        self._verify = verify
        self._status = HealthStatus(
            level=HealthLevel.DOWN, reason=Reason.of(ReasonCode.HEALTH_NOT_CHECKED), since=utc_now()
        )
        self._waiting: dict[str, asyncio.Future[WebhookStored]] = {}
        self._unsubscribe: list[Callable[[], None]] = []
        self._task: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()
        self._stopping = asyncio.Event()
        self._lock = asyncio.Lock()
        self._unavailable_seen = listener.stats.unavailable
        self._store_back_until = 0.0

    @property
    def status(self) -> HealthStatus:
        return self._status

    def set_token(self, token: SecretStr) -> None:
        self._token = token

    def poke(self) -> None:
        """Check again now (the tunnel or the listener changed)."""
        self._wake.set()

    async def start(self) -> None:
        if self._task is not None:
            raise RuntimeError("the health monitor is already running")
        self._stopping.clear()
        self._unsubscribe = [
            self._bus.subscribe(TunnelStateChanged, lambda _e: self.poke()),
            self._bus.subscribe(ListenerStateChanged, lambda _e: self.poke()),
            self._bus.subscribe(SharedStoreReachabilityChanged, self._on_store),
        ]
        self._task = asyncio.create_task(self._run(), name="inbox-health")

    async def stop(self) -> None:
        self._stopping.set()
        self._wake.set()
        for unsubscribe in self._unsubscribe:
            unsubscribe()
        self._unsubscribe = []
        task, self._task = self._task, None
        if task is not None:
            await task

    def _on_store(self, event: SharedStoreReachabilityChanged) -> None:
        """The shared store answers again: the deliveries refused while it did not (the
        store's own line said why) are no news of the inbox now; it is checked at once, and
        again shortly while it still finds itself down."""
        if not event.reachable:
            return
        self._unavailable_seen = self._listener.stats.unavailable
        self._store_back_until = asyncio.get_running_loop().time() + STORE_BACK_WINDOW_S
        self.poke()

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        while not self._stopping.is_set():
            self._wake.clear()
            try:
                await self.check_now()
            except Exception:
                logger.exception("the health check itself failed")
            wait = self._interval
            if self._status.level == HealthLevel.DOWN and loop.time() < self._store_back_until:
                wait = min(wait, STORE_BACK_RECHECK_S)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout=wait)

    def _on_stored(self, event: WebhookStored) -> None:
        if event.self_test_nonce is None:
            return
        future = self._waiting.get(event.self_test_nonce)
        if future is not None and not future.done():
            future.set_result(event)

    def _set(self, level: HealthLevel, reason: Reason, round_trip: float | None) -> HealthStatus:
        now = utc_now()
        previous = self._status
        since = previous.since if previous.level == level else now
        self._status = HealthStatus(
            level=level, reason=reason, since=since, checked_at=now, round_trip_s=round_trip
        )
        if (previous.level, previous.reason) != (level, reason):
            log = logger.info if level == HealthLevel.HEALTHY else logger.warning
            log("inbox health %s: %s", level.value, reason)
            self._bus.publish(ListenerHealthChanged(level=level, reason=reason, since=since))
        return self._status

    async def check_now(self) -> HealthStatus:
        """One heartbeat: decide the state from the listener, the tunnel and a self-test."""
        async with self._lock:
            local = self._listener.url
            if not self._listener.running or local is None:
                return self._set(HealthLevel.DOWN, Reason.of(ReasonCode.HEALTH_LISTENER_DOWN), None)
            # Deliveries answered 503 since the last check: the store does not take them, even
            # if the self-test (which touches no charge) may still get through.
            refused = self._listener.stats.unavailable - self._unavailable_seen
            self._unavailable_seen = self._listener.stats.unavailable
            if refused > 0:
                return self._set(
                    HealthLevel.DOWN,
                    Reason.of(
                        ReasonCode.HEALTH_STORE_REFUSING,
                        count=refused,
                        error=self._listener.last_unavailable,
                    ),
                    None,
                )
            tunnel = self._tunnel
            if tunnel is None or tunnel.mode == "none":
                problem, took = await self._self_test(local)
                if problem is not None:
                    return self._set(
                        HealthLevel.DOWN,
                        Reason.of(ReasonCode.HEALTH_LOCAL_FAILED, problem=problem),
                        None,
                    )
                return self._set(
                    HealthLevel.DEGRADED, Reason.of(ReasonCode.HEALTH_NO_PUBLIC_URL), took
                )
            target = tunnel.notification_url
            if tunnel.status.state != TunnelState.UP or target is None:
                # The tunnel's own words (its program's output), or its state.
                why = tunnel.status.reason or tunnel.status.state.value
                return self._set(
                    HealthLevel.DOWN, Reason.of(ReasonCode.HEALTH_TUNNEL_DOWN, why=why), None
                )
            problem, took = await self._self_test(target)
            if problem is not None:
                return self._set(
                    HealthLevel.DOWN,
                    Reason.of(ReasonCode.HEALTH_PUBLIC_FAILED, url=target, problem=problem),
                    None,
                )
            if not tunnel.url_is_registered:
                registered = tunnel.registered_url
                return self._set(
                    HealthLevel.DOWN,
                    Reason.of(ReasonCode.HEALTH_NO_URL_REGISTERED, url=target)
                    if registered is None
                    else Reason.of(
                        ReasonCode.HEALTH_URL_NOT_REGISTERED, registered=registered, url=target
                    ),
                    took,
                )
            assert took is not None
            if took > self._slow_after:
                return self._set(
                    HealthLevel.DEGRADED,
                    Reason.of(
                        ReasonCode.HEALTH_SLOW,
                        url=target,
                        seconds=f"{took:.1f}",
                        limit=f"{self._slow_after:g}",
                    ),
                    took,
                )
            return self._set(HealthLevel.HEALTHY, Reason.of(ReasonCode.HEALTH_OK, url=target), took)

    def _client(self, url: str) -> httpx.AsyncClient:
        if self._client_factory is not None:
            return self._client_factory()
        # A proxy from the environment may be how this machine reaches a public URL, but the
        # listener's own loopback address must be reached directly.
        host = urlsplit(url).hostname or ""
        return httpx.AsyncClient(
            timeout=self._timeout, verify=self._verify, trust_env=host not in _LOOPBACK
        )

    async def _self_test(self, url: str) -> tuple[Reason | None, float | None]:
        """Post one self-test and wait to see it stored: (problem, round trip in seconds)."""
        nonce = uuid.uuid4().hex
        loop = asyncio.get_running_loop()
        arrived: asyncio.Future[WebhookStored] = loop.create_future()
        self._waiting[nonce] = arrived
        unsubscribe = self._bus.subscribe(WebhookStored, self._on_stored)
        started = loop.time()
        try:
            async with self._client(url) as client:
                response = await client.post(
                    url,
                    content=self_test_body(nonce),
                    headers={
                        "Authorization": self._token.get_secret_value(),
                        "event-type": SELF_TEST_EVENT_TYPE,
                        "Content-Type": "application/json",
                    },
                    timeout=self._timeout,
                )
            if response.status_code // 100 != 2:
                return Reason.of(ReasonCode.SELF_TEST_HTTP, http_code=response.status_code), None
            await asyncio.wait_for(arrived, timeout=self._timeout)
        except TimeoutError:
            return Reason.of(ReasonCode.SELF_TEST_NOT_STORED, seconds=f"{self._timeout:g}"), None
        except httpx.HTTPError as exc:
            return Reason.of(
                ReasonCode.SELF_TEST_FAILED, error=f"{type(exc).__name__}: {exc}"
            ), None
        finally:
            unsubscribe()
            self._waiting.pop(nonce, None)
        return None, loop.time() - started


__all__ = ["HealthMonitor", "HealthStatus", "self_test_body"]
