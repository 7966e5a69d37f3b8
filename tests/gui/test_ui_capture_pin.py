"""The history's capture asks for the supervisor PIN only for an earlier day's charge, and the
service itself checks the PIN it is given."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from PySide6.QtWidgets import QApplication

from checkout_desktop.charges.authority import Authority, hash_pin
from checkout_desktop.charges.service import ChargeService
from checkout_desktop.charges.views import ChargeViews
from checkout_desktop.domain.enums import ChargeStatus
from checkout_desktop.domain.events import EventBus
from checkout_desktop.domain.timestamps import utc_now
from checkout_desktop.gateway.client import ChargeClient, DeviceIdentity
from checkout_desktop.gateway.profiles import Endpoints
from checkout_desktop.gateway.tokens import TokenManager
from checkout_desktop.sandbox.server import SandboxConfig, SandboxServer
from checkout_desktop.store.sqlite.db import connect
from checkout_desktop.store.sqlite.store import SqliteStore
from checkout_desktop.ui.adapter import QtEventAdapter
from checkout_desktop.ui.history_panel import HistoryPanel
from checkout_desktop.ui.i18n import Translations
from tests.integration.charging_support import (
    APPROVED,
    SandboxAccess,
    card_token,
    charge_request,
    visa,
)

logger = logging.getLogger(__name__)

PIN = "2468"


@pytest.fixture
def translations(qapp: QApplication) -> Iterator[Translations]:
    installed = Translations()
    yield installed
    installed.remove()


def test_the_capture_of_an_earlier_days_charge_asks_for_the_supervisor_pin(
    arun: Callable[..., Any], qtbot: Any, tmp_path: Path, translations: Translations
) -> None:
    sandbox = SandboxServer(SandboxConfig(api_port=0, sdk_port=0))
    arun(sandbox.start())
    access = SandboxAccess.of_server(sandbox)
    conn = connect(tmp_path / "s.sqlite3")
    http = httpx.AsyncClient(trust_env=False)
    sent: list[str] = []

    async def note(request: httpx.Request) -> None:
        if request.url.path.endswith(("/refund", "/capture")):
            sent.append(request.url.path.rsplit("/", 1)[-1])

    http.event_hooks["request"].append(note)
    bus = EventBus()
    endpoints = Endpoints(base_url=access.api_url, auth_url=access.api_url)
    tokens = TokenManager(
        http=http,
        token_url=endpoints.token_url,
        client_id=access.client_id,
        credentials=access.credentials(),
    )
    pin_hash = hash_pin(PIN)
    service = ChargeService(
        store=SqliteStore(conn),
        client=ChargeClient(
            http=http, endpoints=endpoints, tokens=tokens, device=DeviceIdentity("terminal-test")
        ),
        profile="builtin-sandbox",
        events=bus,
        authority=Authority(pin_hash),
    )
    adapter = QtEventAdapter(bus)
    history = HistoryPanel(
        service=service,
        views=ChargeViews(SqliteStore(conn)),
        adapter=adapter,
        pin_hash=lambda: pin_hash,
    )
    qtbot.addWidget(history)
    try:
        token = arun(card_token(access, APPROVED))
        outcome = arun(
            service.charge(
                sale_id="sale-1",
                request=charge_request(token, amount=1500, late_capture=True),
                tenders=visa("1111"),
            )
        )
        mcid = outcome.merchant_charge_id
        assert outcome.record is not None
        assert outcome.record.status == ChargeStatus.PRE_AUTHORIZED
        assert history.select_charge(mcid)
        qtbot.waitUntil(lambda: history.capture_button.isEnabled(), timeout=5000)

        # Captured the same day: the sale going on, no PIN asked.
        history.ask_capture()
        assert history.dialog is not None and history.dialog.pin.isHidden()
        history.dialog.reject()

        # The same charge seen tomorrow: the dialog asks, and a wrong PIN sends nothing.
        service.authority = Authority(pin_hash, clock=lambda: utc_now() + timedelta(days=1))
        history.ask_capture()
        dialog = history.dialog
        assert dialog is not None and not dialog.pin.isHidden()
        dialog.pin.setText("1111")
        dialog.accept()
        assert dialog.error.text() and dialog.isVisible()
        assert sent == []

        # The right PIN is passed on to the service, which checks it again and captures.
        dialog.pin.setText(PIN)
        with qtbot.waitSignal(history.action_finished, timeout=10000):
            dialog.accept()
        assert sent == ["capture"]
        assert sandbox.state.charges[mcid].status == "PAID"
    finally:
        adapter.close()
        arun(http.aclose())
        conn.close()
        arun(sandbox.stop())
