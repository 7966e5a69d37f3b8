"""A history panel over a real store and a charge service on a running sandbox: what the
history's tests of refunds, captures, receipts, timelines and ended charges all start from."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from checkout_desktop.charges.authority import Authority
from checkout_desktop.charges.service import ChargeService
from checkout_desktop.charges.views import ChargeViews
from checkout_desktop.domain.events import EventBus
from checkout_desktop.gateway.client import ChargeClient, DeviceIdentity
from checkout_desktop.gateway.profiles import Endpoints
from checkout_desktop.gateway.tokens import TokenManager
from checkout_desktop.sandbox.server import SandboxConfig, SandboxServer
from checkout_desktop.store.sqlite.db import connect
from checkout_desktop.store.sqlite.store import SqliteStore
from checkout_desktop.ui.adapter import QtEventAdapter
from checkout_desktop.ui.history_panel import HistoryPanel
from tests.integration.charging_support import SandboxAccess


@dataclass
class HistoryShop:
    """The sandbox, the store's connection, the service and the HTTP client it sends with."""

    service: ChargeService
    sandbox: SandboxServer
    access: SandboxAccess
    conn: sqlite3.Connection
    http: httpx.AsyncClient
    bus: EventBus
    qtbot: Any
    adapters: list[QtEventAdapter] = field(default_factory=list)

    def open_panel(self, pin_hash: Callable[[], str | None] = lambda: None) -> HistoryPanel:
        """A history panel over the store (a second one is the terminal started again)."""
        adapter = QtEventAdapter(self.bus)
        self.adapters.append(adapter)
        panel = HistoryPanel(
            service=self.service,
            views=ChargeViews(SqliteStore(self.conn)),
            adapter=adapter,
            pin_hash=pin_hash,
        )
        self.qtbot.addWidget(panel)
        return panel


@contextmanager
def history_shop(
    arun: Callable[..., Any], qtbot: Any, tmp_path: Path, *, authority: Authority | None = None
) -> Iterator[HistoryShop]:
    """A charge service on a sandbox of its own, over a store in `tmp_path`; all closed after."""
    sandbox = SandboxServer(SandboxConfig(api_port=0, sdk_port=0))
    arun(sandbox.start())
    access = SandboxAccess.of_server(sandbox)
    conn = connect(tmp_path / "s.sqlite3")
    http = httpx.AsyncClient(trust_env=False)
    bus = EventBus()
    endpoints = Endpoints(base_url=access.api_url, auth_url=access.api_url)
    tokens = TokenManager(
        http=http,
        token_url=endpoints.token_url,
        client_id=access.client_id,
        credentials=access.credentials(),
    )
    extra: dict[str, Any] = {} if authority is None else {"authority": authority}
    service = ChargeService(
        store=SqliteStore(conn),
        client=ChargeClient(
            http=http, endpoints=endpoints, tokens=tokens, device=DeviceIdentity("terminal-test")
        ),
        profile="builtin-sandbox",
        events=bus,
        **extra,
    )
    shop = HistoryShop(service, sandbox, access, conn, http, bus, qtbot)
    try:
        yield shop
    finally:
        for adapter in shop.adapters:
            adapter.close()
        arun(http.aclose())
        conn.close()
        arun(sandbox.stop())


__all__ = ["HistoryShop", "history_shop"]
