"""The one Inbox the window and `listen` both run: what starts, in which order, and what stops."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from pydantic import SecretStr

from checkout_desktop.charges.ledger import inbox_applier
from checkout_desktop.domain.events import EventBus
from checkout_desktop.domain.inbox_events import (
    ListenerHealthChanged,
    ListenerState,
    ListenerStateChanged,
    TunnelStateChanged,
)
from checkout_desktop.inbox.service import Inbox, ListenerTls, Registration
from checkout_desktop.inbox.tunnel import TunnelConfigError
from checkout_desktop.sandbox import certs
from checkout_desktop.settings import ListenerSettings, TunnelSettings

logger = logging.getLogger(__name__)

TOKEN = SecretStr("inbox-service-test-token-0123456789")


def _inbox(tmp_path: Path, tunnel: TunnelSettings | None, **kwargs: object) -> Inbox:
    return Inbox(
        store=tmp_path / "checkout.sqlite3",
        listener_settings=ListenerSettings(port=0),
        token=TOKEN,
        bus=EventBus(),
        tunnel_settings=tunnel,
        heartbeat_interval_s=3600,
        applier=inbox_applier,
        **kwargs,  # type: ignore[arg-type]
    )


@pytest.mark.asyncio
async def test_an_idle_inbox_reports_starting_and_stops_without_having_started(
    tmp_path: Path,
) -> None:
    inbox = _inbox(tmp_path, None)
    assert not inbox.started
    assert inbox.notification_url is None
    (state,) = inbox.current_state()
    assert isinstance(state, ListenerStateChanged) and state.state == ListenerState.STARTING
    await inbox.stop()


@pytest.mark.asyncio
async def test_a_tunnel_that_cannot_be_configured_is_a_problem_and_the_rest_runs(
    tmp_path: Path,
) -> None:
    inbox = _inbox(tmp_path, TunnelSettings(mode="manual"))
    url = await inbox.start()
    try:
        assert inbox.listener is not None and inbox.listener.running
        assert inbox.tunnel is None
        assert inbox.health is not None
        assert len(inbox.problems) == 1 and "manual tunnel mode needs" in inbox.problems[0].detail
        assert inbox.notification_url == url
        with pytest.raises(RuntimeError, match="already been started"):
            await inbox.start()
    finally:
        await inbox.stop()
    assert not inbox.listener.running


@pytest.mark.asyncio
async def test_a_strict_inbox_raises_on_the_tunnel_with_the_listener_up_to_stop(
    tmp_path: Path,
) -> None:
    inbox = _inbox(tmp_path, TunnelSettings(mode="manual"), strict_tunnel=True)
    with pytest.raises(TunnelConfigError, match="manual tunnel mode needs"):
        await inbox.start()
    assert inbox.listener is not None and inbox.listener.running
    assert inbox.health is None
    await inbox.stop()
    assert not inbox.listener.running


@pytest.mark.asyncio
async def test_a_registered_url_and_its_new_token_carry_the_health_checks(tmp_path: Path) -> None:
    told: list[int] = []
    new_token = SecretStr("token-the-service-now-signs-with-42")
    asked_for_tls: list[bool] = []

    def tls() -> ListenerTls:
        asked_for_tls.append(True)
        cert = certs.load_or_create(tmp_path / "tls", "localhost")
        return ListenerTls(server=cert.server_context(), client=cert.client_context())

    async def register(port: int) -> Registration:
        told.append(port)
        return Registration(url=f"https://localhost:{port}/webhooks/checkout", token=new_token)

    # The tunnel set in settings gives way to the URL the service was told.
    inbox = _inbox(tmp_path, TunnelSettings(mode="cloudflared"), tls=tls, register=register)
    assert asked_for_tls == []
    await inbox.start()
    try:
        assert asked_for_tls == [True]
        assert inbox.listener is not None
        assert told == [inbox.listener.port]
        registered = f"https://localhost:{told[0]}/webhooks/checkout"
        assert inbox.tunnel is not None and inbox.tunnel.registered_url == registered
        assert inbox.notification_url == registered
        assert inbox.token is new_token
        assert inbox.health is not None
        status = await inbox.health.check_now()
        assert status.level.value == "healthy", status.reason
        kinds = [type(e) for e in inbox.current_state()]
        assert kinds == [ListenerStateChanged, TunnelStateChanged, ListenerHealthChanged]
    finally:
        await inbox.stop()
