"""The webhook inbox as one service: writer, listener, tunnel and health, started together.

The terminal's window and `checkout-desktop listen` both run this one assembly. The listener's
web stack is imported only when the inbox starts: the terminal starts it after the card page.
"""

from __future__ import annotations

import logging
import ssl
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from checkout_desktop.domain.start_problems import StartProblem, StartProblemKind

if TYPE_CHECKING:
    from pydantic import SecretStr

    from checkout_desktop.domain.events import DomainEvent, EventBus
    from checkout_desktop.inbox.health import HealthMonitor
    from checkout_desktop.inbox.listener import WebhookListener
    from checkout_desktop.inbox.tunnel import TunnelSupervisor
    from checkout_desktop.inbox.writer import ChargeApplier
    from checkout_desktop.settings import ListenerSettings, TunnelSettings
    from checkout_desktop.store.ports import DeliveryBatches

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class ListenerTls:
    """The listener serves HTTPS with `server`; its health checks trust it through `client`."""

    server: ssl.SSLContext
    client: ssl.SSLContext


@dataclass(frozen=True)
class Registration:
    """The notification URL the service was told, and the token it now signs deliveries with."""

    url: str
    token: SecretStr


Registrar = Callable[[int], Awaitable[Registration]]
"""Tells the service's merchant panel the listener's URL, given its port (the built-in sandbox
offers this; a real service's panel is set by the merchant)."""


class Inbox:
    """Receives the service's notifications: the listener and its group-commit writer, the
    tunnel that makes it reachable, and the health checks that go through the tunnel.

    Built complete but idle; `start` brings it up, `stop` takes it down in reverse order.
    """

    def __init__(
        self,
        *,
        store: Path | DeliveryBatches,
        listener_settings: ListenerSettings,
        token: SecretStr,
        bus: EventBus,
        tunnel_settings: TunnelSettings | None,
        heartbeat_interval_s: float,
        tls: Callable[[], ListenerTls] | None = None,
        register: Registrar | None = None,
        applier: ChargeApplier | None = None,
        strict_tunnel: bool = False,
        allow_remote: bool = False,
    ) -> None:
        """`tls` is asked for the listener's TLS contexts when the inbox starts (plain HTTP
        without it); `register`, when given, tells the service the listener's URL, and the health
        checks then go through that URL. A tunnel that cannot be configured is reported in
        `problems` and the rest runs without it, or with `strict_tunnel` raises
        TunnelConfigError (the listener then runs: `stop` the inbox). `allow_remote` lets the
        listener bind an address that is not loopback (`listen --allow-remote` only). `applier`
        feeds each accepted notification to the charges (the ledger's `inbox_applier`); without
        it deliveries are stored and not applied."""
        self.store = store
        self.listener_settings = listener_settings
        self.token = token
        self.bus = bus
        self.tunnel_settings = tunnel_settings
        self.heartbeat_interval_s = heartbeat_interval_s
        self._tls = tls
        self._applier = applier
        self._register = register
        self._strict_tunnel = strict_tunnel
        self._allow_remote = allow_remote
        self.listener: WebhookListener | None = None
        """None until `start`; then set even if it failed to bind (`listener.running` says)."""
        self.tunnel: TunnelSupervisor | None = None
        self.health: HealthMonitor | None = None
        self.problems: list[StartProblem] = []
        """What did not start (the tunnel, say), for the window to show."""

    @property
    def started(self) -> bool:
        return self.listener is not None

    @property
    def notification_url(self) -> str | None:
        """Where the service should deliver: the tunnel's public URL, else the listener's."""
        if self.tunnel is not None:
            return self.tunnel.notification_url
        return None if self.listener is None else self.listener.url

    async def start(self) -> str:
        """Start the listener, register its URL, then the tunnel and the health checks.

        Returns the listener's URL; ListenerError when it cannot bind (nothing else starts).
        """
        if self.listener is not None:
            raise RuntimeError("the inbox has already been started")
        from checkout_desktop.inbox.health import HealthMonitor
        from checkout_desktop.inbox.listener import WebhookListener
        from checkout_desktop.inbox.tunnel import TunnelConfigError, TunnelSupervisor
        from checkout_desktop.inbox.writer import InboxWriter
        from checkout_desktop.settings import TunnelSettings

        ssl_context: ssl.SSLContext | None = None
        verify: ssl.SSLContext | bool = True
        if self._tls is not None:
            tls = self._tls()
            ssl_context, verify = tls.server, tls.client
        writer = InboxWriter(self.store, bus=self.bus, applier=self._applier)
        self.listener = WebhookListener(
            self.listener_settings,
            token=self.token,
            writer=writer,
            bus=self.bus,
            ssl_context=ssl_context,
            allow_remote=self._allow_remote,
        )
        url = await self.listener.start()
        port = self.listener.port
        assert port is not None
        tunnel_settings = self.tunnel_settings
        if tunnel_settings is not None and tunnel_settings.mode == "none":
            tunnel_settings = None
        registered: str | None = None
        if self._register is not None:
            registration = await self._register(port)
            self.token = registration.token
            self.listener.set_token(registration.token)
            # The service's panel now holds this URL: health checks go through it.
            tunnel_settings = TunnelSettings(mode="manual", public_url=registration.url)
            registered = registration.url
        if tunnel_settings is not None:
            try:
                self.tunnel = TunnelSupervisor(
                    tunnel_settings,
                    local_port=port,
                    listener_path=self.listener_settings.path,
                    bus=self.bus,
                    registered_url=registered,
                )
            except TunnelConfigError as exc:
                if self._strict_tunnel:
                    raise
                self.problems.append(StartProblem(StartProblemKind.TUNNEL_SETTINGS, str(exc)))
            else:
                await self.tunnel.start()
        self.health = HealthMonitor(
            listener=self.listener,
            token=self.token,
            bus=self.bus,
            tunnel=self.tunnel,
            interval_s=self.heartbeat_interval_s,
            verify=verify,
        )
        await self.health.start()
        return url

    def acknowledge_url(self, url: str) -> None:
        """The merchant updated the panel's notification URL (the tunnel's notice)."""
        if self.tunnel is not None:
            self.tunnel.acknowledge(url)
            if self.health is not None:
                self.health.poke()

    def current_state(self, reason: str | None = None) -> list[DomainEvent]:
        """The listener, tunnel and health states as events, for a window built later.

        `reason` explains a listener that failed to start.
        """
        from checkout_desktop.domain.inbox_events import (
            ListenerHealthChanged,
            ListenerState,
            ListenerStateChanged,
            TunnelStateChanged,
        )

        state: list[DomainEvent] = []
        if self.listener is None:
            state.append(ListenerStateChanged(state=ListenerState.STARTING, url=None))
        elif self.listener.running:
            state.append(ListenerStateChanged(state=ListenerState.LISTENING, url=self.listener.url))
        else:
            state.append(ListenerStateChanged(state=ListenerState.FAILED, url=None, reason=reason))
        if self.tunnel is not None:
            status = self.tunnel.status
            state.append(
                TunnelStateChanged(
                    mode=status.mode,
                    state=status.state,
                    public_url=status.public_url,
                    reason=status.reason,
                    restarts=status.restarts,
                )
            )
        if self.health is not None:
            health = self.health.status
            state.append(
                ListenerHealthChanged(level=health.level, reason=health.reason, since=health.since)
            )
        return state

    async def stop(self) -> None:
        """Stop the health checks, the tunnel and the listener; each runs even if one fails."""
        for name, part in (
            ("health monitor", self.health),
            ("tunnel", self.tunnel),
            ("listener", self.listener),
        ):
            if part is None:
                continue
            try:
                await part.stop()
            except Exception:
                logger.exception("stopping the %s failed", name)
