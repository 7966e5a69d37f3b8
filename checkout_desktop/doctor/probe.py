"""The periodic reachability probe: can the service's API host and the card SDK's host be reached?

A cheap probe, by the first-contact check's own code (`checks.reach`): a connection (and a TLS
handshake where the host speaks TLS) to each host, bounded in time, nothing sent over it. It
runs every minute while both answer; while one does not, the wait doubles from 15 s up to
5 minutes, so an offline shop is neither flooded with attempts nor with log lines (one line
per change of state, never one per probe). Each result is published on the bus for the status
bar; the window's clerk-facing banner may use the same event.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import TYPE_CHECKING

from checkout_desktop.doctor.checks import STEP_TIMEOUT_S, Reached, Target, api_target, reach
from checkout_desktop.doctor.report import Finding
from checkout_desktop.domain.events import DomainEvent, EventBus
from checkout_desktop.domain.timestamps import utc_now

if TYPE_CHECKING:
    from checkout_desktop.sandbox.link import SandboxLink
    from checkout_desktop.settings import Profile

logger = logging.getLogger(__name__)

INTERVAL_S = 60.0
"""Between probes while everything answers."""
RETRY_FIRST_S = 15.0
RETRY_MAX_S = 300.0
"""While something does not answer: 15 s, doubling, never more than this."""


class Reachability(StrEnum):
    UNKNOWN = "unknown"
    """Not probed yet."""
    REACHABLE = "reachable"
    CARD_FORM_UNREACHABLE = "card-form-unreachable"
    """The API answers, the card SDK's host does not: no card can be typed."""
    UNREACHABLE = "unreachable"
    """The API host does not answer: nothing can be charged."""


@dataclass(frozen=True, kw_only=True)
class HostState:
    """One host's last probe: `failure` is None when it answered."""

    host: str
    failure: Finding | None
    error: str = ""


@dataclass(frozen=True, kw_only=True)
class ServiceReachabilityChanged(DomainEvent):
    """The result of one probe (published after every probe; `since` says how long it holds)."""

    level: Reachability
    api: HostState
    sdk: HostState | None
    since: datetime
    next_probe_s: float


Reach = Callable[[Target, float], Awaitable[Reached]]


class ReachabilityProbe:
    """Probes the API host and the SDK host now and then; publishes each result."""

    def __init__(
        self,
        *,
        bus: EventBus,
        api: Target,
        sdk: Target | None,
        interval_s: float = INTERVAL_S,
        retry_first_s: float = RETRY_FIRST_S,
        retry_max_s: float = RETRY_MAX_S,
        timeout_s: float = STEP_TIMEOUT_S,
        reacher: Reach = reach,
    ) -> None:
        self._bus = bus
        self._api = api
        self._sdk = sdk
        self.interval_s = interval_s
        self.retry_first_s = retry_first_s
        self.retry_max_s = retry_max_s
        self.timeout_s = timeout_s
        self._reach = reacher
        self._task: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()
        self._failures = 0
        self.probes = 0
        """How many probes ran (each opens at most one connection per host)."""
        self.last: ServiceReachabilityChanged | None = None

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def start(self) -> None:
        if self._task is not None:
            raise RuntimeError("the reachability probe is already running")
        self._task = asyncio.get_running_loop().create_task(self._run(), name="reachability")

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    def poke(self) -> None:
        """Probe again now (a charge or a token request just failed, say)."""
        self._wake.set()

    def next_delay(self) -> float:
        """The wait before the next probe, from the failures in a row so far."""
        if self._failures == 0:
            return self.interval_s
        return float(min(self.retry_max_s, self.retry_first_s * 2.0 ** (self._failures - 1)))

    async def probe_now(self) -> ServiceReachabilityChanged:
        """One probe of both hosts (side by side), published and returned."""
        api_job = self._reach(self._api, self.timeout_s)
        if self._sdk is not None:
            api, sdk = await asyncio.gather(api_job, self._reach(self._sdk, self.timeout_s))
        else:
            api, sdk = await api_job, None
        self.probes += 1
        if api.failure is not None:
            level = Reachability.UNREACHABLE
        elif sdk is not None and sdk.failure is not None:
            level = Reachability.CARD_FORM_UNREACHABLE
        else:
            level = Reachability.REACHABLE
        self._failures = 0 if level == Reachability.REACHABLE else self._failures + 1
        previous = self.last
        now = utc_now()
        event = ServiceReachabilityChanged(
            level=level,
            api=HostState(host=self._api.host, failure=api.failure, error=api.error),
            sdk=None
            if sdk is None or self._sdk is None
            else HostState(host=self._sdk.host, failure=sdk.failure, error=sdk.error),
            since=previous.since if previous is not None and previous.level == level else now,
            next_probe_s=self.next_delay(),
        )
        if previous is None or previous.level != level:
            # One line per change of state; a shop offline all day logs this once.
            log = logger.info if level == Reachability.REACHABLE else logger.warning
            log(
                "service %s (API %s: %s; card SDK %s: %s)",
                level.value,
                self._api.host,
                api.failure or "answers",
                "-" if self._sdk is None else self._sdk.host,
                "-" if sdk is None else (sdk.failure or "answers"),
            )
        self.last = event
        self._bus.publish(event)
        return event

    async def _run(self) -> None:
        while True:
            self._wake.clear()
            try:
                await self.probe_now()
            except Exception:
                logger.exception("the reachability probe itself failed")
                self._failures += 1
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout=self.next_delay())


def probe_for(
    profile: Profile, bus: EventBus, *, base_url: str, sandbox: SandboxLink | None = None
) -> ReachabilityProbe:
    """The probe of a profile's API host (`base_url`) and card SDK host."""
    from checkout_desktop.doctor.checks import sdk_target

    return ReachabilityProbe(bus=bus, api=api_target(base_url), sdk=sdk_target(profile, sandbox))


__all__ = [
    "HostState",
    "Reachability",
    "ReachabilityProbe",
    "ServiceReachabilityChanged",
    "probe_for",
]
