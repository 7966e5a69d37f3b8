"""The periodic reachability probe: can the service's API host and the card SDK's host be reached?

A cheap probe, by the first-contact check's own code (`checks.reach`): a connection (and a TLS
handshake where the host speaks TLS) to each host, bounded in time, nothing sent over it. It
runs every minute while both answer; while one does not, the wait doubles from 15 s up to
5 minutes, so an offline shop is neither flooded with attempts nor with log lines (one line
per change of state, never one per probe). What the terminal's own calls meet is weighed
against the last probe: a charge, a token request or the card form that found no connection
while it says "reachable", or got through while it says "unreachable", makes it look again at
once (never sooner than `POKE_GAP_S` after the last probe). A call that had its connection and
got no reply in time is something a probe cannot see: it is told at once as "not answering",
until a call is answered or for `NOT_ANSWERING_HOLD_S`. Each result is published on the bus
for the status bar; the window's clerk-facing banner may use the same event.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import TYPE_CHECKING, Literal

from checkout_desktop.doctor.checks import STEP_TIMEOUT_S, Reached, Target, api_target, reach
from checkout_desktop.doctor.report import Finding
from checkout_desktop.domain.charge_events import AttemptChanged, TokenStateChanged, TokenStatus
from checkout_desktop.domain.events import DomainEvent, EventBus
from checkout_desktop.domain.reasons import Reason, ReasonCode
from checkout_desktop.domain.state import AttemptState
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
POKE_GAP_S = 5.0
"""A call that contradicts the last probe makes a probe at once, but never sooner than this
after the last one (a burst of failures makes one probe)."""

_NO_CONNECTION = (
    ReasonCode.UNREACHABLE,
    ReasonCode.CONNECTION_LOST,
    ReasonCode.TOKEN_SERVER_UNREACHABLE,
    ReasonCode.TOKEN_SERVER_CONNECTION,
)
"""A call that found no connection, or lost it. (A reply that came too late had a connection:
the probe, which only connects, would find the host as it did.)"""

_NO_REPLY = (ReasonCode.REPLY_TIMEOUT, ReasonCode.TOKEN_SERVER_TIMEOUT)
"""A call that had its connection and got no reply in time."""

NOT_ANSWERING_HOLD_S = 120.0
"""How long a call left without a reply is told after it (unless a call is answered sooner):
the probe cannot tell, since it only connects."""


class Reachability(StrEnum):
    UNKNOWN = "unknown"
    """Not probed yet."""
    REACHABLE = "reachable"
    CARD_FORM_UNREACHABLE = "card-form-unreachable"
    """The API answers, the card SDK's host does not: no card can be typed."""
    UNREACHABLE = "unreachable"
    """The API host does not answer: nothing can be charged."""
    NOT_ANSWERING = "not-answering"
    """The API host takes connections, but the terminal's last call got no reply in time and
    none has been answered since: a charge may end with its result unknown."""


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
    unanswered: datetime | None = None
    """When the last call left without a reply ended, while that is still told."""


@dataclass(frozen=True, kw_only=True)
class ServiceCallEnded(DomainEvent):
    """A call to a host that no charge event reports ended, reaching it or not (the card form
    read a card, or could not reach the card service): the probe looks again at once when this
    contradicts what it last found."""

    host: Literal["api", "sdk"]
    reached: bool


def _says_no_connection(reason: Reason | None) -> bool:
    return reason is not None and any(reason.mentions(code) for code in _NO_CONNECTION)


def _says_no_reply(reason: Reason | None) -> bool:
    return reason is not None and any(reason.mentions(code) for code in _NO_REPLY)


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
        self.poke_gap_s = POKE_GAP_S
        self._probed_at: float | None = None
        self._unsubscribe: list[Callable[[], None]] = []
        self.probes = 0
        """How many probes ran (each opens at most one connection per host)."""
        self.last: ServiceReachabilityChanged | None = None
        self.monotonic: Callable[[], float] = time.monotonic
        """The probe's clock: the gap after a probe, and how long an unanswered call is told."""
        self.not_answering_hold_s = NOT_ANSWERING_HOLD_S
        self._unanswered: tuple[datetime, float] | None = None
        """The last call left without a reply: when (wall clock, monotonic)."""

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def start(self) -> None:
        if self._task is not None:
            raise RuntimeError("the reachability probe is already running")
        self._task = asyncio.get_running_loop().create_task(self._run(), name="reachability")
        # What the clerk just met says more than the next scheduled probe: a charge or a token
        # request that found no connection, or the card form that could not reach its service.
        self._unsubscribe = [
            self._bus.subscribe(ServiceCallEnded, lambda e: self._met(e.host, e.reached)),
            self._bus.subscribe(AttemptChanged, self._on_attempt),
            self._bus.subscribe(TokenStateChanged, self._on_token),
        ]

    def _on_attempt(self, event: AttemptChanged) -> None:
        if event.state != AttemptState.RECORDED:  # recorded: nothing was sent yet
            self._call_ended(event.reason)

    def _on_token(self, event: TokenStateChanged) -> None:
        if event.status == TokenStatus.VALID:
            self._call_ended(None)
        elif event.status == TokenStatus.FAILED:
            self._call_ended(event.error)

    def _call_ended(self, reason: Reason | None) -> None:
        """A call to the API host ended: with no connection, without a reply in time, or
        answered (`reason` None, or any other reason)."""
        connected = not _says_no_connection(reason)
        self._met("api", connected)
        if connected:
            self._replied(not _says_no_reply(reason))

    def _replied(self, answered: bool) -> None:
        """A call that had its connection was answered, or not in time: told at once when it
        changes what the status says (a probe would only connect)."""
        before = self._unanswered
        self._unanswered = None if answered else (utc_now(), self.monotonic())
        if (before is None) != (self._unanswered is None) and self.last is not None:
            last = self.last
            self._publish(last.api, last.sdk, last.next_probe_s)

    def _met(self, host: Literal["api", "sdk"], reached: bool) -> None:
        """A call just reached `host`, or did not: probe now if the last probe said otherwise
        (a red "unreachable" while charges go through is as wrong as the reverse)."""
        last = self.last
        if last is None:
            return
        said = last.api if host == "api" else last.sdk
        if said is not None and (said.failure is None) != reached:
            self.poke()

    async def stop(self) -> None:
        for unsubscribe in self._unsubscribe:
            unsubscribe()
        self._unsubscribe = []
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
        answered = api.failure is None and (sdk is None or sdk.failure is None)
        self._failures = 0 if answered else self._failures + 1
        return self._publish(
            HostState(host=self._api.host, failure=api.failure, error=api.error),
            None
            if sdk is None or self._sdk is None
            else HostState(host=self._sdk.host, failure=sdk.failure, error=sdk.error),
            self.next_delay(),
        )

    def _level(self, api: HostState, sdk: HostState | None) -> Reachability:
        if api.failure is not None:
            return Reachability.UNREACHABLE
        if self._unanswered is not None:
            return Reachability.NOT_ANSWERING
        if sdk is not None and sdk.failure is not None:
            return Reachability.CARD_FORM_UNREACHABLE
        return Reachability.REACHABLE

    def _publish(
        self, api: HostState, sdk: HostState | None, next_probe_s: float
    ) -> ServiceReachabilityChanged:
        unanswered = self._unanswered
        if unanswered is not None and self.monotonic() - unanswered[1] >= self.not_answering_hold_s:
            self._unanswered = None  # told long enough: nothing since says it still holds
        level = self._level(api, sdk)
        previous = self.last
        now = utc_now()
        event = ServiceReachabilityChanged(
            level=level,
            api=api,
            sdk=sdk,
            since=previous.since if previous is not None and previous.level == level else now,
            next_probe_s=next_probe_s,
            unanswered=None if self._unanswered is None else self._unanswered[0],
        )
        if previous is None or previous.level != level:
            # One line per change of state; a shop offline all day logs this once.
            log = logger.info if level == Reachability.REACHABLE else logger.warning
            log(
                "service %s (API %s: %s; card SDK %s: %s)",
                level.value,
                api.host,
                api.failure
                or (
                    "connects, the last call got no reply in time"
                    if self._unanswered
                    else "answers"
                ),
                "-" if sdk is None else sdk.host,
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
            self._probed_at = self.monotonic()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout=self.next_delay())
                # Poked: at once, unless the last probe was only just made.
                wait = self.poke_gap_s - (self.monotonic() - self._probed_at)
                if wait > 0:
                    await asyncio.sleep(wait)


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
    "ServiceCallEnded",
    "ServiceReachabilityChanged",
    "probe_for",
]
