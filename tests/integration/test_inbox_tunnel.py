"""The tunnel supervisor with stand-in cloudflared executables and a stand-in ngrok agent API."""

from __future__ import annotations

import asyncio
import logging
import os
import stat
import sys
import textwrap
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest
import pytest_asyncio
from aiohttp import web

from checkout_desktop.domain.events import DomainEvent, EventBus
from checkout_desktop.domain.inbox_events import TunnelState, TunnelStateChanged, TunnelUrlChanged
from checkout_desktop.inbox.tunnel import (
    Backoff,
    TunnelConfigError,
    TunnelSupervisor,
    check_agent_api_url,
    pick_ngrok_url,
)
from checkout_desktop.inbox.url_rules import NotificationUrlError
from checkout_desktop.settings import TunnelSettings

logger = logging.getLogger(__name__)

PORT = 48123
PATH = "/webhooks/checkout"
FAST = Backoff(initial_s=0.05, factor=2.0, maximum_s=0.2, stable_after_s=60.0)
E = TypeVar("E", bound=DomainEvent)


class Recorder:
    """Collects the bus's events and lets a test await the first one that matches."""

    def __init__(self, bus: EventBus) -> None:
        self.events: list[DomainEvent] = []
        self._waiters: list[tuple[Callable[[DomainEvent], bool], asyncio.Future[DomainEvent]]] = []
        bus.subscribe(DomainEvent, self._on_event)

    def _on_event(self, event: DomainEvent) -> None:
        self.events.append(event)
        for check, future in list(self._waiters):
            if not future.done() and check(event):
                future.set_result(event)

    async def wait(self, kind: type[E], check: Callable[[E], bool] = lambda _e: True) -> E:
        def matches(event: DomainEvent) -> bool:
            return isinstance(event, kind) and check(event)

        for event in self.events:
            if matches(event):
                assert isinstance(event, kind)
                return event
        future: asyncio.Future[DomainEvent] = asyncio.get_running_loop().create_future()
        self._waiters.append((matches, future))
        # A bound on the wait so a broken supervisor fails the test instead of hanging it.
        found = await asyncio.wait_for(future, timeout=20)
        assert isinstance(found, kind)
        return found

    def of(self, kind: type[E]) -> list[E]:
        return [e for e in self.events if isinstance(e, kind)]


def stand_in(tmp_path: Path, name: str, body: str) -> Path:
    """Write an executable Python script that plays cloudflared."""
    script = tmp_path / name
    header = f"#!{sys.executable}\nimport pathlib, sys, time\nHERE = pathlib.Path(__file__)\n"
    counter = (
        "runs = HERE.with_suffix('.runs')\n"
        "n = int(runs.read_text()) + 1 if runs.exists() else 1\n"
        "runs.write_text(str(n))\n"
        "HERE.with_suffix('.argv').write_text('\\n'.join(sys.argv[1:]))\n"
        "def say(line):\n"
        "    print('2026-03-01T12:00:00Z INF ' + line, file=sys.stderr, flush=True)\n"
        "say('Thank you for trying Cloudflare Tunnel. See https://www.cloudflare.com/terms')\n"
        "say('Requesting new quick Tunnel on trycloudflare.com...')\n"
    )
    script.write_text(header + counter + textwrap.dedent(body), encoding="utf-8")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script


def settings_for(script: Path | str, **extra: Any) -> TunnelSettings:
    return TunnelSettings(mode="cloudflared", cloudflared_path=str(script), **extra)


@pytest_asyncio.fixture
async def bus() -> AsyncIterator[EventBus]:
    yield EventBus()


def supervisor(settings: TunnelSettings, bus: EventBus, **kw: Any) -> TunnelSupervisor:
    return TunnelSupervisor(
        settings, local_port=PORT, listener_path=PATH, bus=bus, backoff=FAST, **kw
    )


@pytest.mark.asyncio
async def test_cloudflared_url_is_read_and_the_process_is_stopped(
    tmp_path: Path, bus: EventBus
) -> None:
    script = stand_in(
        tmp_path,
        "cloudflared",
        """
        say('+--------------------------------------------------------+')
        say('|  https://quiet-river-sample-word.trycloudflare.com      |')
        time.sleep(120)
        """,
    )
    events = Recorder(bus)
    tunnel = supervisor(settings_for(script), bus)
    await tunnel.start()
    try:
        up = await events.wait(TunnelStateChanged, lambda e: e.state == TunnelState.UP)
        assert up.public_url == "https://quiet-river-sample-word.trycloudflare.com"
        assert await tunnel.wait_for_url() == up.public_url
        assert tunnel.notification_url == up.public_url + PATH
        notice = await events.wait(TunnelUrlChanged)
        assert notice.blocking
        assert (notice.previous_url, notice.notification_url) == (None, up.public_url + PATH)
        assert not tunnel.url_is_registered
        args = script.with_suffix(".argv").read_text().split("\n")
        assert args == ["tunnel", "--no-autoupdate", "--url", f"http://127.0.0.1:{PORT}"]
        pid = tunnel.pid
        assert pid is not None
    finally:
        await tunnel.stop()
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    assert tunnel.status.state == TunnelState.OFF
    assert tunnel.pid is None


@pytest.mark.asyncio
async def test_dead_tunnel_is_restarted_and_a_new_url_raises_a_notice(
    tmp_path: Path, bus: EventBus
) -> None:
    script = stand_in(
        tmp_path,
        "cloudflared",
        """
        say(f'|  https://run-{n}-abc.trycloudflare.com  |')
        if n < 3:
            say('ERR connection to the edge lost')
            sys.exit(1)
        time.sleep(120)
        """,
    )
    events = Recorder(bus)
    first = f"https://run-1-abc.trycloudflare.com{PATH}"
    tunnel = supervisor(settings_for(script), bus, registered_url=first)
    await tunnel.start()
    try:
        await events.wait(
            TunnelStateChanged, lambda e: e.public_url is not None and "run-3" in e.public_url
        )
        restarting = [e for e in events.of(TunnelStateChanged) if e.state == TunnelState.RESTARTING]
        assert len(restarting) == 2
        assert restarting[0].reason is not None
        assert "exited with code 1: " in restarting[0].reason
        assert "connection to the edge lost" in restarting[0].reason
        assert tunnel.status.restarts == 2
        notices = [e.notification_url for e in events.of(TunnelUrlChanged)]
        # run-1 is the registered URL: no notice; run-2 and run-3 each changed it.
        assert notices == [
            f"https://run-2-abc.trycloudflare.com{PATH}",
            f"https://run-3-abc.trycloudflare.com{PATH}",
        ]
        assert tunnel.acknowledge() == f"https://run-3-abc.trycloudflare.com{PATH}"
        assert tunnel.url_is_registered
    finally:
        await tunnel.stop()


@pytest.mark.asyncio
async def test_tunnel_without_a_url_is_restarted_after_the_timeout(
    tmp_path: Path, bus: EventBus
) -> None:
    script = stand_in(tmp_path, "cloudflared", "time.sleep(120)\n")
    events = Recorder(bus)
    tunnel = supervisor(settings_for(script), bus, url_timeout_s=0.3)
    await tunnel.start()
    try:
        event = await events.wait(TunnelStateChanged, lambda e: e.state == TunnelState.RESTARTING)
        assert event.reason is not None and "no public URL within 0.3 s" in event.reason
        await events.wait(TunnelStateChanged, lambda e: e.restarts >= 2)
    finally:
        await tunnel.stop()
    assert int(script.with_suffix(".runs").read_text()) >= 2


@pytest.mark.asyncio
async def test_missing_executable_is_reported_and_retried(tmp_path: Path, bus: EventBus) -> None:
    events = Recorder(bus)
    tunnel = supervisor(settings_for(tmp_path / "no-such-cloudflared"), bus)
    await tunnel.start()
    try:
        event = await events.wait(TunnelStateChanged, lambda e: e.restarts >= 2)
        assert event.reason is not None
        assert "cannot start" in event.reason and "install cloudflared" in event.reason
    finally:
        await tunnel.stop()


def test_backoff_doubles_and_is_capped() -> None:
    backoff = Backoff(initial_s=1, factor=2, maximum_s=10)
    assert [backoff.delay(n) for n in range(6)] == [1, 2, 4, 8, 10, 10]


# -- ngrok ---------------------------------------------------------------------------------------


class Agent:
    """A stand-in for the ngrok agent's local API."""

    def __init__(self) -> None:
        self.tunnels: list[dict[str, Any]] = []
        self.runner: web.AppRunner | None = None
        self.url = ""

    async def start(self) -> None:
        app = web.Application()
        app.router.add_get("/api/tunnels", self._tunnels)
        self.runner = web.AppRunner(app)
        await self.runner.setup()
        site = web.TCPSite(self.runner, "127.0.0.1", 0)
        await site.start()
        self.url = f"http://127.0.0.1:{self.runner.addresses[0][1]}/api/tunnels"

    async def stop(self) -> None:
        if self.runner is not None:
            await self.runner.cleanup()
            self.runner = None

    async def _tunnels(self, request: web.Request) -> web.Response:
        return web.json_response({"tunnels": self.tunnels, "uri": "/api/tunnels"})


def ngrok_tunnel(public: str, port: int = PORT) -> dict[str, Any]:
    proto = public.split(":", 1)[0]
    return {
        "name": "command_line",
        "public_url": public,
        "proto": proto,
        "config": {"addr": f"http://localhost:{port}", "inspect": True},
    }


@pytest.mark.asyncio
async def test_ngrok_url_is_read_from_the_agent_and_changes_are_noticed(bus: EventBus) -> None:
    agent = Agent()
    await agent.start()
    events = Recorder(bus)
    agent.tunnels = [
        ngrok_tunnel("http://a1b2.ngrok-free.app"),
        ngrok_tunnel("https://a1b2.ngrok-free.app"),
    ]
    settings = TunnelSettings(mode="ngrok", ngrok_api_url=agent.url)
    tunnel = supervisor(settings, bus, poll_interval_s=0.05)
    await tunnel.start()
    try:
        up = await events.wait(TunnelStateChanged, lambda e: e.state == TunnelState.UP)
        assert up.public_url == "https://a1b2.ngrok-free.app"
        assert tunnel.notification_url == f"https://a1b2.ngrok-free.app{PATH}"
        tunnel.acknowledge()
        agent.tunnels = [ngrok_tunnel("https://c3d4.ngrok-free.app")]
        notice = await events.wait(TunnelUrlChanged, lambda e: "c3d4" in e.public_url)
        assert notice.previous_url == f"https://a1b2.ngrok-free.app{PATH}"
        agent.tunnels = [ngrok_tunnel("https://other.ngrok-free.app", port=9999)] * 2
        none = await events.wait(TunnelStateChanged, lambda e: e.state == TunnelState.DOWN)
        assert none.reason == f"the ngrok agent has no https tunnel to 127.0.0.1:{PORT}"
        await agent.stop()
        gone = await events.wait(
            TunnelStateChanged, lambda e: e.reason is not None and "does not answer" in e.reason
        )
        assert "ngrok http 127.0.0.1" in (gone.reason or "")
    finally:
        await tunnel.stop()
        await agent.stop()


def test_pick_ngrok_url_prefers_our_port() -> None:
    payload = {
        "tunnels": [
            ngrok_tunnel("https://other.ngrok.app", port=3000),
            ngrok_tunnel("https://ours.ngrok.app"),
        ]
    }
    assert pick_ngrok_url(payload, PORT) == "https://ours.ngrok.app"
    assert pick_ngrok_url({"tunnels": [ngrok_tunnel("https://x.ngrok.app", 1)]}, PORT) == (
        "https://x.ngrok.app"
    )
    assert pick_ngrok_url({"tunnels": "nope"}, PORT) is None
    assert pick_ngrok_url([], PORT) is None


def test_agent_api_must_be_on_this_machine() -> None:
    assert check_agent_api_url("http://127.0.0.1:4040/api/tunnels")
    with pytest.raises(TunnelConfigError, match="on this machine"):
        check_agent_api_url("http://203.0.113.9:4040/api/tunnels")


# -- manual and none -----------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_manual_url_is_checked_against_the_rules(bus: EventBus) -> None:
    events = Recorder(bus)
    good = "https://shop.example.com/hooks/checkout"
    tunnel = supervisor(TunnelSettings(mode="manual", public_url=good), bus)
    await tunnel.start()
    assert tunnel.status.state == TunnelState.UP
    assert tunnel.notification_url == good
    assert tunnel.url_is_registered
    assert events.of(TunnelUrlChanged) == []
    await tunnel.stop()

    bad = supervisor(TunnelSettings(mode="manual", public_url="http://203.0.113.9/x?a=1"), bus)
    await bad.start()
    status = bad.status
    assert status.state == TunnelState.DOWN
    assert status.reason is not None
    for rule in ("'https'", "'no query parameters'", "'no IPv4 address'"):
        assert rule in status.reason
    with pytest.raises(NotificationUrlError):
        bad.acknowledge("http://shop.example.com/x")
    await bad.stop()


def test_manual_mode_needs_a_url() -> None:
    with pytest.raises(TunnelConfigError, match="public notification URL"):
        TunnelSupervisor(TunnelSettings(mode="manual"), local_port=PORT, listener_path=PATH)


@pytest.mark.asyncio
async def test_mode_none_is_off_with_a_reason(bus: EventBus) -> None:
    tunnel = supervisor(TunnelSettings(mode="none"), bus)
    await tunnel.start()
    assert tunnel.status.state == TunnelState.OFF
    assert tunnel.status.reason is not None and "cannot reach" in tunnel.status.reason
    assert tunnel.notification_url is None
    with pytest.raises(TunnelConfigError, match="no public URL"):
        tunnel.acknowledge()
    await tunnel.stop()
