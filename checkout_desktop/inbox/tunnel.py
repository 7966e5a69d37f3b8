"""Tunnel supervisor: the public HTTPS address that forwards the service's deliveries here.

Modes: `none` (no public address), `manual` (the merchant's own HTTPS URL forwarding to the
listener), `cloudflared` (a quick tunnel started and watched here: its URL is read from its
output, a dead process is restarted with bounded backoff) and `ngrok` (an agent the user runs;
its URL is read from the agent's local API). Whenever the notification URL differs from the one
registered in the merchant panel, a blocking TunnelUrlChanged is published: until the panel is
updated, the service delivers to a dead address.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import signal
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import httpx

from checkout_desktop.domain.events import EventBus
from checkout_desktop.domain.inbox_events import TunnelState, TunnelStateChanged, TunnelUrlChanged
from checkout_desktop.inbox.url_rules import (
    NotificationUrlError,
    notification_url,
    validate_notification_url,
)
from checkout_desktop.settings import TunnelSettings
from checkout_desktop.texts import QT_TRANSLATE_NOOP, WordedError, Words

logger = logging.getLogger(__name__)

CLOUDFLARED_URL = re.compile(
    r"https://[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9-]+)*"
    r"\.trycloudflare\.com\b",
    re.IGNORECASE,
)
_LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
_TAIL_LINES = 5


class TunnelConfigError(WordedError, ValueError):
    """The tunnel settings cannot work; the message says which setting and why."""


@dataclass(frozen=True)
class Backoff:
    """Delays between restarts of a dead tunnel: doubling, capped, reset after a stable run."""

    initial_s: float = 1.0
    factor: float = 2.0
    maximum_s: float = 60.0
    stable_after_s: float = 60.0

    def delay(self, failures: int) -> float:
        return float(min(self.initial_s * self.factor ** max(failures, 0), self.maximum_s))


@dataclass(frozen=True)
class TunnelStatus:
    mode: str
    state: TunnelState
    public_url: str | None
    notification_url: str | None
    reason: str | None
    restarts: int


def check_agent_api_url(url: str) -> str:
    """The ngrok agent API must be on this machine (plain http on loopback)."""
    parts = urlsplit(url)
    if parts.scheme not in {"http", "https"} or (parts.hostname or "") not in _LOOPBACK_HOSTS:
        raise TunnelConfigError(
            Words(
                QT_TRANSLATE_NOOP(
                    "Tunnel",
                    "the ngrok agent API address {url} must be {expected} (the agent's local "
                    "API on this machine)",
                ),
                url=repr(url),
                expected="http://127.0.0.1:PORT/api/tunnels",
            )
        )
    return url


def pick_ngrok_url(payload: Any, local_port: int) -> str | None:
    """The https public URL of the agent's tunnel to our port (or its only https tunnel)."""
    tunnels = payload.get("tunnels") if isinstance(payload, Mapping) else None
    if not isinstance(tunnels, list):
        return None
    https: list[tuple[str, str]] = []
    for tunnel in tunnels:
        if not isinstance(tunnel, Mapping):
            continue
        public = tunnel.get("public_url")
        if not isinstance(public, str) or not public.startswith("https://"):
            continue
        config = tunnel.get("config")
        addr = config.get("addr") if isinstance(config, Mapping) else None
        https.append((public, str(addr) if addr is not None else ""))
    for public, addr in https:
        if re.search(rf"(^|:){local_port}/?$", addr):
            return public
    return https[0][0] if len(https) == 1 else None


class TunnelSupervisor:
    """Keeps the public URL known and current; publishes its state and URL changes."""

    def __init__(
        self,
        settings: TunnelSettings,
        *,
        local_port: int,
        listener_path: str,
        bus: EventBus | None = None,
        registered_url: str | None = None,
        backoff: Backoff | None = None,
        url_timeout_s: float = 60.0,
        poll_interval_s: float = 5.0,
        client_factory: Callable[[], httpx.AsyncClient] | None = None,
    ) -> None:
        if settings.mode == "ngrok":
            check_agent_api_url(settings.ngrok_api_url)
        if settings.mode == "manual" and not settings.public_url:
            raise TunnelConfigError(
                Words(
                    QT_TRANSLATE_NOOP(
                        "Tunnel",
                        "manual tunnel mode needs the public notification URL that forwards to "
                        "this listener (Settings → Webhooks → public URL)",
                    )
                )
            )
        self._settings = settings
        self._port = local_port
        self._path = listener_path
        self._bus = bus
        self._registered = registered_url if registered_url is not None else settings.public_url
        self._backoff = backoff or Backoff()
        self._url_timeout = url_timeout_s
        self._poll_interval = poll_interval_s
        # The agent API is on this machine: never through a proxy from the environment.
        self._client_factory = client_factory or (
            lambda: httpx.AsyncClient(timeout=5.0, trust_env=False)
        )
        self._state = TunnelState.OFF
        self._public: str | None = None
        self._reason: str | None = None
        self._restarts = 0
        self._noticed: str | None = None
        self._task: asyncio.Task[None] | None = None
        self._stopping = asyncio.Event()
        self._process: asyncio.subprocess.Process | None = None
        self._url_seen = asyncio.Event()

    # -- public surface -------------------------------------------------------------------------

    @property
    def mode(self) -> str:
        return self._settings.mode

    @property
    def status(self) -> TunnelStatus:
        return TunnelStatus(
            mode=self.mode,
            state=self._state,
            public_url=self._public,
            notification_url=self.notification_url,
            reason=self._reason,
            restarts=self._restarts,
        )

    @property
    def public_url(self) -> str | None:
        return self._public

    @property
    def notification_url(self) -> str | None:
        """The URL the merchant panel must hold for deliveries to reach this listener."""
        if self._public is None:
            return None
        if self.mode == "manual":
            return self._public
        return notification_url(self._public, self._path)

    @property
    def registered_url(self) -> str | None:
        return self._registered

    @property
    def url_is_registered(self) -> bool:
        return self.notification_url is not None and self.notification_url == self._registered

    @property
    def pid(self) -> int | None:
        """The tunnel process's id while one runs (cloudflared mode)."""
        return self._process.pid if self._process is not None else None

    def acknowledge(self, url: str | None = None) -> str:
        """The merchant updated the panel: `url` (default: the current one) is now registered."""
        chosen = url or self.notification_url
        if chosen is None:
            raise TunnelConfigError(
                Words(QT_TRANSLATE_NOOP("Tunnel", "there is no public URL to acknowledge yet"))
            )
        validate_notification_url(chosen)
        self._registered = chosen
        self._noticed = None
        logger.info("notification URL registered: %s", chosen)
        return chosen

    async def wait_for_url(self) -> str:
        """Until the tunnel is up with a public URL (callers bound the wait)."""
        await self._url_seen.wait()
        assert self._public is not None
        return self._public

    async def start(self) -> None:
        if self._task is not None:
            raise RuntimeError("the tunnel supervisor is already running")
        self._stopping.clear()
        mode = self.mode
        if mode == "none":
            self._set(TunnelState.OFF, None, "no public URL: the service cannot reach the inbox")
            return
        if mode == "manual":
            assert self._settings.public_url is not None
            self._report_url(self._settings.public_url)
            return
        runner = self._run_cloudflared if mode == "cloudflared" else self._run_ngrok
        self._task = asyncio.create_task(runner(), name=f"tunnel-{mode}")

    async def stop(self) -> None:
        self._stopping.set()
        task, self._task = self._task, None
        if task is not None:
            await task
        self._set(TunnelState.OFF, self._public, "stopped")

    # -- state ----------------------------------------------------------------------------------

    def _set(self, state: TunnelState, public: str | None, reason: str | None) -> None:
        changed = (state, public, reason) != (self._state, self._public, self._reason)
        self._state, self._public, self._reason = state, public, reason
        if state == TunnelState.UP:
            self._url_seen.set()
        else:
            self._url_seen.clear()
        if changed:
            log = logger.info if state in (TunnelState.UP, TunnelState.OFF) else logger.warning
            log("tunnel (%s) %s: %s %s", self.mode, state.value, public or "-", reason or "")
            if self._bus is not None:
                self._bus.publish(
                    TunnelStateChanged(
                        mode=self.mode,
                        state=state,
                        public_url=public,
                        reason=reason,
                        restarts=self._restarts,
                    )
                )

    def _report_url(self, url: str) -> None:
        """A URL came from the settings, the tunnel's output or the agent: check and adopt it."""
        candidate = url if self.mode == "manual" else notification_url(url, self._path)
        try:
            validate_notification_url(candidate)
        except NotificationUrlError as exc:
            self._set(TunnelState.DOWN, None, str(exc))
            return
        self._set(TunnelState.UP, url, None)
        current = self.notification_url
        assert current is not None
        if current != self._registered and current != self._noticed:
            self._noticed = current
            logger.warning(
                "the notification URL is now %s; the merchant panel holds %s",
                current,
                self._registered or "nothing",
            )
            if self._bus is not None:
                self._bus.publish(
                    TunnelUrlChanged(
                        previous_url=self._registered, public_url=url, notification_url=current
                    )
                )

    async def _pause(self, seconds: float) -> bool:
        """Sleep unless stopped first; True when the supervisor is stopping."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._stopping.wait(), timeout=seconds)
        return self._stopping.is_set()

    # -- cloudflared ----------------------------------------------------------------------------

    async def _run_cloudflared(self) -> None:
        loop = asyncio.get_running_loop()
        failures = 0
        while not self._stopping.is_set():
            started = loop.time()
            reason = await self._cloudflared_once()
            if self._stopping.is_set():
                return
            if loop.time() - started >= self._backoff.stable_after_s:
                failures = 0
            delay = self._backoff.delay(failures)
            failures += 1
            self._restarts += 1
            self._set(TunnelState.RESTARTING, None, f"{reason}; restarting in {delay:g} s")
            if await self._pause(delay):
                return

    async def _cloudflared_once(self) -> str:
        """Run one cloudflared process until it dies; returns why it ended."""
        command = [
            self._settings.cloudflared_path,
            "tunnel",
            "--no-autoupdate",
            "--url",
            f"http://127.0.0.1:{self._port}",
        ]
        self._set(TunnelState.STARTING, None, None)
        try:
            process = await asyncio.create_subprocess_exec(
                *command,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.STDOUT,
                start_new_session=True,
            )
        except OSError as exc:
            return (
                f"cannot start {self._settings.cloudflared_path!r} ({exc.strerror}); install "
                "cloudflared or set its path in Settings → Webhooks"
            )
        self._process = process
        tail: deque[str] = deque(maxlen=_TAIL_LINES)
        got_url = asyncio.Event()
        reader = asyncio.create_task(self._read_output(process, tail, got_url))
        stopper = asyncio.create_task(self._stopping.wait())
        announced = asyncio.create_task(got_url.wait())
        timed_out = False
        try:
            done, _ = await asyncio.wait(
                {reader, stopper, announced},
                timeout=self._url_timeout,
                return_when=asyncio.FIRST_COMPLETED,
            )
            if not done:
                timed_out = True
            elif done == {announced}:
                done, _ = await asyncio.wait({reader, stopper}, return_when=asyncio.FIRST_COMPLETED)
            if timed_out or stopper in done:
                await self._end(process)
            await reader
            code = await process.wait()
        finally:
            for task in (stopper, announced, reader):
                task.cancel()
            await self._end(process)
            await asyncio.gather(stopper, announced, reader, return_exceptions=True)
            self._process = None
        if timed_out:
            return f"cloudflared reported no public URL within {self._url_timeout:g} s"
        last = f": {tail[-1]}" if tail else ""
        return f"cloudflared exited with code {code}{last}"

    async def _read_output(
        self, process: asyncio.subprocess.Process, tail: deque[str], got_url: asyncio.Event
    ) -> None:
        assert process.stdout is not None
        async for raw in process.stdout:
            line = raw.decode("utf-8", errors="replace").rstrip()
            if line:
                tail.append(line[-300:])
            if not got_url.is_set():
                match = CLOUDFLARED_URL.search(line)
                if match:
                    got_url.set()
                    self._report_url(match.group(0).lower())

    async def _end(self, process: asyncio.subprocess.Process) -> None:
        """Stop our own tunnel process: SIGTERM, then SIGKILL if it lingers."""
        if process.returncode is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            process.send_signal(signal.SIGTERM)
        try:
            await asyncio.wait_for(process.wait(), timeout=5.0)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            await process.wait()

    # -- ngrok ----------------------------------------------------------------------------------

    async def _run_ngrok(self) -> None:
        api = self._settings.ngrok_api_url
        async with self._client_factory() as client:
            while not self._stopping.is_set():
                try:
                    response = await client.get(api)
                    response.raise_for_status()
                    payload = response.json()
                except (httpx.HTTPError, ValueError) as exc:
                    self._set(
                        TunnelState.DOWN,
                        None,
                        f"the ngrok agent API at {api} does not answer ({type(exc).__name__}); "
                        "start ngrok with `ngrok http 127.0.0.1:"
                        f"{self._port}`",
                    )
                else:
                    url = pick_ngrok_url(payload, self._port)
                    if url is None:
                        self._set(
                            TunnelState.DOWN,
                            None,
                            f"the ngrok agent has no https tunnel to 127.0.0.1:{self._port}",
                        )
                    else:
                        self._report_url(url)
                if await self._pause(self._poll_interval):
                    return


__all__ = [
    "CLOUDFLARED_URL",
    "Backoff",
    "TunnelConfigError",
    "TunnelStatus",
    "TunnelSupervisor",
    "check_agent_api_url",
    "pick_ngrok_url",
]
