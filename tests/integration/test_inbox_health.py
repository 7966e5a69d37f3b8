"""Inbox health: a self-test posted through the public URL over HTTPS and seen arriving."""

from __future__ import annotations

import asyncio
import logging
import ssl
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
import trustme
from aiohttp import web
from pydantic import SecretStr

from checkout_desktop.domain.deliveries import EventFilter
from checkout_desktop.domain.enums import Verdict
from checkout_desktop.domain.events import EventBus
from checkout_desktop.domain.inbox_events import HealthLevel, ListenerHealthChanged, WebhookStored
from checkout_desktop.domain.reasons import Reason, ReasonCode
from checkout_desktop.inbox.health import HealthMonitor
from checkout_desktop.inbox.listener import WebhookListener
from checkout_desktop.inbox.tunnel import TunnelSupervisor
from checkout_desktop.inbox.writer import InboxWriter
from checkout_desktop.settings import ListenerSettings, TunnelSettings
from checkout_desktop.store.sqlite import db
from checkout_desktop.store.sqlite.events import EventRepository

logger = logging.getLogger(__name__)

TOKEN = "whk_health_0123456789abcdef"


@dataclass
class Rig:
    bus: EventBus
    listener: WebhookListener
    db_path: Path
    ca: trustme.CA
    server_ctx: ssl.SSLContext
    client_ctx: ssl.SSLContext
    changes: list[ListenerHealthChanged]

    @property
    def public_url(self) -> str:
        """The listener as a tunnel would expose it: https, a host name, no IPv4 literal."""
        return f"https://localhost:{self.listener.port}/webhooks/checkout"

    def monitor(
        self, tunnel: TunnelSupervisor | None, token: str = TOKEN, **kw: Any
    ) -> HealthMonitor:
        return HealthMonitor(
            listener=self.listener,
            token=SecretStr(token),
            bus=self.bus,
            tunnel=tunnel,
            verify=self.client_ctx,
            timeout_s=kw.pop("timeout_s", 5.0),
            **kw,
        )

    def manual(self, url: str) -> TunnelSupervisor:
        settings = TunnelSettings(mode="manual", public_url=url)
        port = self.listener.port
        assert port is not None
        return TunnelSupervisor(
            settings, local_port=port, listener_path="/webhooks/checkout", bus=self.bus
        )

    def self_tests(self) -> int:
        conn = db.connect(self.db_path)
        try:
            page = EventRepository(conn).page(EventFilter(verdicts=(Verdict.SELF_TEST,)))
            return len(page.rows)
        finally:
            conn.close()


@pytest_asyncio.fixture
async def rig(tmp_path: Path) -> AsyncIterator[Rig]:
    ca = trustme.CA()
    server_ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("localhost", "127.0.0.1").configure_cert(server_ctx)
    client_ctx = ssl.create_default_context()
    ca.configure_trust(client_ctx)
    bus = EventBus()
    changes: list[ListenerHealthChanged] = []
    bus.subscribe(ListenerHealthChanged, changes.append)
    db_path = tmp_path / "store.sqlite3"
    applied: list[str] = []
    writer = InboxWriter(db_path, bus=bus, applier=lambda _c, _u, ref: applied.append(ref) or None)
    listener = WebhookListener(
        ListenerSettings(port=0),
        token=SecretStr(TOKEN),
        writer=writer,
        bus=bus,
        ssl_context=server_ctx,
    )
    await listener.start()
    yield Rig(bus, listener, db_path, ca, server_ctx, client_ctx, changes)
    await listener.stop()
    assert applied == [], "a self-test reached the charge state machine"


@pytest.mark.asyncio
async def test_healthy_when_the_self_test_arrives_through_the_public_url(rig: Rig) -> None:
    tunnel = rig.manual(rig.public_url)
    await tunnel.start()
    monitor = rig.monitor(tunnel)
    status = await monitor.check_now()
    assert status.level == HealthLevel.HEALTHY, status.reason
    assert status.reason == Reason.of(ReasonCode.HEALTH_OK, url=rig.public_url)
    assert status.reason.english() == f"self-test through {rig.public_url} arrived"
    assert status.round_trip_s is not None
    since = status.since
    again = await monitor.check_now()
    assert again.level == HealthLevel.HEALTHY
    assert again.since == since
    assert rig.self_tests() == 2
    # One published change (down "not checked yet" → healthy), not one per heartbeat.
    assert [c.level for c in rig.changes] == [HealthLevel.HEALTHY]


@pytest.mark.asyncio
async def test_no_public_url_is_degraded_after_a_local_self_test(rig: Rig) -> None:
    status = await rig.monitor(None).check_now()
    assert status.level == HealthLevel.DEGRADED
    assert status.reason == Reason.of(ReasonCode.HEALTH_NO_PUBLIC_URL)
    assert rig.self_tests() == 1


@pytest.mark.asyncio
async def test_url_not_in_the_merchant_panel_is_down(rig: Rig, tmp_path: Path) -> None:
    agent_app = web.Application()

    async def tunnels(_request: web.Request) -> web.Response:
        public = f"https://localhost:{rig.listener.port}"
        return web.json_response({"tunnels": [{"public_url": public, "proto": "https"}]})

    agent_app.router.add_get("/api/tunnels", tunnels)
    runner = web.AppRunner(agent_app)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    api = f"http://127.0.0.1:{runner.addresses[0][1]}/api/tunnels"
    port = rig.listener.port
    assert port is not None
    tunnel = TunnelSupervisor(
        TunnelSettings(mode="ngrok", ngrok_api_url=api),
        local_port=port,
        listener_path="/webhooks/checkout",
        bus=rig.bus,
        poll_interval_s=0.05,
    )
    await tunnel.start()
    try:
        await tunnel.wait_for_url()
        monitor = rig.monitor(tunnel)
        status = await monitor.check_now()
        assert status.level == HealthLevel.DOWN
        assert status.reason == Reason.of(ReasonCode.HEALTH_NO_URL_REGISTERED, url=rig.public_url)
        tunnel.acknowledge()
        assert (await monitor.check_now()).level == HealthLevel.HEALTHY
    finally:
        await tunnel.stop()
        await runner.cleanup()


@pytest.mark.asyncio
async def test_public_url_reaching_another_server_is_down(rig: Rig) -> None:
    other = web.Application()

    async def swallow(_request: web.Request) -> web.Response:
        return web.json_response({"ok": True})

    other.router.add_post("/webhooks/checkout", swallow)
    runner = web.AppRunner(other)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0, ssl_context=rig.server_ctx).start()
    elsewhere = f"https://localhost:{runner.addresses[0][1]}/webhooks/checkout"
    try:
        tunnel = rig.manual(elsewhere)
        await tunnel.start()
        status = await rig.monitor(tunnel, timeout_s=0.5).check_now()
        assert status.level == HealthLevel.DOWN
        assert status.reason == Reason.of(
            ReasonCode.HEALTH_PUBLIC_FAILED,
            url=elsewhere,
            problem=Reason.of(ReasonCode.SELF_TEST_NOT_STORED, seconds="0.5"),
        )
    finally:
        await runner.cleanup()


@pytest.mark.asyncio
async def test_wrong_token_or_dead_url_is_down(rig: Rig) -> None:
    tunnel = rig.manual(rig.public_url)
    await tunnel.start()
    wrong = await rig.monitor(tunnel, token="not-the-token").check_now()
    assert wrong.level == HealthLevel.DOWN
    assert wrong.reason.args["problem"] == Reason.of(ReasonCode.SELF_TEST_HTTP, http_code=401)
    dead = rig.manual("https://localhost:1/webhooks/checkout")
    await dead.start()
    unreachable = await rig.monitor(dead).check_now()
    assert unreachable.level == HealthLevel.DOWN
    problem = unreachable.reason.args["problem"]
    assert isinstance(problem, Reason) and problem.code == ReasonCode.SELF_TEST_FAILED
    assert "ConnectError" in str(problem.args["error"])
    assert rig.self_tests() == 0


@pytest.mark.asyncio
async def test_stopped_listener_is_down_and_since_moves(rig: Rig) -> None:
    tunnel = rig.manual(rig.public_url)
    await tunnel.start()
    monitor = rig.monitor(tunnel)
    healthy = await monitor.check_now()
    assert healthy.level == HealthLevel.HEALTHY
    await rig.listener.stop()
    down = await monitor.check_now()
    assert down.level == HealthLevel.DOWN
    assert down.reason == Reason.of(ReasonCode.HEALTH_LISTENER_DOWN)
    assert down.since > healthy.since
    assert [c.level for c in rig.changes] == [HealthLevel.HEALTHY, HealthLevel.DOWN]


@pytest.mark.asyncio
async def test_heartbeat_runs_until_stopped(rig: Rig) -> None:
    tunnel = rig.manual(rig.public_url)
    await tunnel.start()
    monitor = rig.monitor(tunnel, interval_s=0.05)
    three: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    seen: list[WebhookStored] = []

    def count(event: WebhookStored) -> None:
        if event.verdict == Verdict.SELF_TEST:
            seen.append(event)
            if len(seen) == 3 and not three.done():
                three.set_result(None)

    rig.bus.subscribe(WebhookStored, count)
    await monitor.start()
    try:
        await asyncio.wait_for(three, timeout=20)
    finally:
        await monitor.stop()
    assert monitor.status.level == HealthLevel.HEALTHY
    stored = rig.self_tests()
    assert stored >= 3
    assert len({e.self_test_nonce for e in seen}) == len(seen)
