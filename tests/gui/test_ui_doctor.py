"""The connection check on screen, in pt-BR: the "Test connection" button of Settings, and the
status bar's service field fed by the periodic reachability probe (real connections on
127.0.0.1; every visible text through the pt_BR catalogue, see tests/gui/pseudo.py)."""

from __future__ import annotations

import asyncio
import logging
import socket
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import qasync
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from checkout_desktop.doctor.checks import Target
from checkout_desktop.doctor.probe import (
    Reachability,
    ReachabilityProbe,
    ServiceReachabilityChanged,
)
from checkout_desktop.doctor.report import CheckName, Report
from checkout_desktop.domain.events import EventBus
from checkout_desktop.paths import AppPaths
from checkout_desktop.settings import Settings
from checkout_desktop.ui.adapter import QtEventAdapter
from checkout_desktop.ui.connection_test import ConnectionTest
from checkout_desktop.ui.settings_panel import SettingsPanel
from checkout_desktop.ui.status_bar import TerminalStatusBar
from tests.gui.pseudo import MarkingTranslator, english_on_screen, untranslated

logger = logging.getLogger(__name__)

# Shown as they are in every language: the languages' own names and the tunnel programs.
FIXED = ("Português (Brasil)", "English", "cloudflared", "ngrok")


def doctor_data(report: Report | None) -> tuple[str, ...]:
    """What a report shows that is data, not words: names, hosts, scopes, reply field names."""
    if report is None:
        return ()
    values: list[str] = []
    for result in report.results:
        for value in result.args.values():
            if isinstance(value, str):
                values.append(value)
            elif isinstance(value, tuple):
                values.extend(str(item) for item in value)
    return tuple(values)


@pytest.fixture
def marked(qapp: QApplication) -> Iterator[MarkingTranslator]:
    with MarkingTranslator.installed(qapp) as translator:
        yield translator


def test_the_settings_test_connection_button_shows_each_check_in_portuguese(
    marked: MarkingTranslator,
    qtbot: QtBot,
    qloop: qasync.QEventLoop,
    tmp_path: Path,
) -> None:
    paths = AppPaths(tmp_path / "c", tmp_path / "d", tmp_path / "l").ensure()
    settings = Settings(first_run_done=True)
    settings.listener.port = 0
    tester = ConnectionTest(paths)
    saved: list[Settings] = []
    panel = SettingsPanel(settings, secrets=None, persist=saved.append, tester=tester)
    qtbot.addWidget(panel)
    panel.show()
    try:
        assert panel.connection.isVisible()
        assert not panel.test_results.isVisible()
        qtbot.mouseClick(panel.test_button, Qt.MouseButton.LeftButton)
        assert not panel.test_button.isEnabled()  # one test at a time
        qtbot.waitUntil(lambda: panel.test_button.isEnabled(), timeout=60_000)
        lines = [panel.test_results.item(i).text() for i in range(panel.test_results.count())]
        assert len(lines) == len(CheckName), lines
        assert all(line.startswith("✔ ") for line in lines), lines
        assert tester.report is not None and tester.report.can_charge
        assert "⟦" in panel.test_summary.text()
        data = (*FIXED, *doctor_data(tester.report), *(p.label for p in settings.profiles.values()))
        problems = english_on_screen(panel, data)
        assert not problems, "\n".join(problems)
        # Nothing was saved by testing; the learned shape waits in the panel's copy.
        assert saved == []
        assert panel.settings.profile.not_found_shape == tester.report.not_found_shape
    finally:
        tester.release()


def test_without_a_tester_the_settings_have_no_connection_box(
    qtbot: QtBot, qloop: qasync.QEventLoop
) -> None:
    panel = SettingsPanel(Settings(), secrets=None, persist=lambda _s: None)
    qtbot.addWidget(panel)
    panel.show()
    assert not panel.connection.isVisible()
    panel.test_connection()  # does nothing, says nothing
    assert not panel.test_results.isVisible()


@pytest.fixture
def bar(qtbot: QtBot, marked: MarkingTranslator) -> Iterator[tuple[EventBus, TerminalStatusBar]]:
    bus = EventBus()
    adapter = QtEventAdapter(bus)

    async def no_open_attempts() -> int:
        return 0

    status = TerminalStatusBar(
        adapter, environment="Sandbox", unresolved_count=no_open_attempts, show_tunnel=False
    )
    qtbot.addWidget(status)
    status.show()
    try:
        yield bus, status
    finally:
        adapter.close()


def _tooltip_words(text: str, data: tuple[str, ...]) -> list[str]:
    return [word for line in text.splitlines() for word in untranslated(line, data)]


def test_the_status_bar_says_when_the_service_cannot_be_reached(
    bar: tuple[EventBus, TerminalStatusBar],
    qloop: qasync.QEventLoop,
    arun: Callable[..., Any],
) -> None:
    bus, status = bar
    assert untranslated(status.service.text()) == []
    assert "verificando" in status.service.text()
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))  # bound, never listening: connections are refused
        port = closed.getsockname()[1]
        probe = ReachabilityProbe(
            bus=bus,
            api=Target("api.localhost", port, None, connect_to="127.0.0.1"),
            sdk=None,
            timeout_s=2.0,
        )
        event = arun(probe.probe_now(), timeout=10_000)
    assert event.level == Reachability.UNREACHABLE
    assert event.next_probe_s == probe.retry_first_s
    assert "inacessível" in status.service.text()
    assert untranslated(status.service.text()) == []
    data = ("api.localhost", "ECONNREFUSED", "Sandbox")
    tooltip = status.service.toolTip()
    assert "api.localhost" in tooltip and "ECONNREFUSED" in tooltip
    assert _tooltip_words(tooltip, data) == [], tooltip
    assert english_on_screen(status, data) == []


def test_the_status_bar_says_when_the_service_answers(
    bar: tuple[EventBus, TerminalStatusBar],
    qloop: qasync.QEventLoop,
    arun: Callable[..., Any],
) -> None:
    bus, status = bar
    with socket.socket() as api, socket.socket() as card_form:
        api.bind(("127.0.0.1", 0))
        api.listen(8)
        card_form.bind(("127.0.0.1", 0))  # not listening
        probe = ReachabilityProbe(
            bus=bus,
            api=Target("api.localhost", api.getsockname()[1], None, connect_to="127.0.0.1"),
            sdk=Target("sdk.localhost", card_form.getsockname()[1], None, connect_to="127.0.0.1"),
            timeout_s=2.0,
        )
        first = arun(probe.probe_now(), timeout=10_000)
        assert first.level == Reachability.CARD_FORM_UNREACHABLE
        assert "formulário de cartão" in status.service.text()
        card_form.listen(8)
        second = arun(probe.probe_now(), timeout=10_000)
    assert second.level == Reachability.REACHABLE
    assert second.next_probe_s == probe.interval_s
    assert "acessível" in status.service.text()
    data = ("api.localhost", "sdk.localhost", "Sandbox")
    assert _tooltip_words(status.service.toolTip(), data) == []
    assert english_on_screen(status, data) == []


def test_the_status_bar_says_when_the_service_takes_calls_but_leaves_them_unanswered(
    bar: tuple[EventBus, TerminalStatusBar],
    qloop: qasync.QEventLoop,
    arun: Callable[..., Any],
    qtbot: QtBot,
) -> None:
    # It said "Serviço: acessível" while every charge ended without a reply: the probe only
    # connects, and a host that takes connections and never answers passes it.
    from checkout_desktop.domain.charge_events import AttemptChanged
    from checkout_desktop.domain.reasons import Reason, ReasonCode
    from checkout_desktop.domain.state import AttemptState

    bus, status = bar
    no_reply = Reason.of(ReasonCode.REPLY_TIMEOUT, operation="charge", seconds="30")
    with socket.socket() as api:
        api.bind(("127.0.0.1", 0))
        api.listen(8)  # takes connections; nothing ever answers on it
        probe = ReachabilityProbe(
            bus=bus,
            api=Target("api.localhost", api.getsockname()[1], None, connect_to="127.0.0.1"),
            sdk=None,
            interval_s=3600,
            timeout_s=2.0,
        )

        async def a_charge_without_a_reply() -> None:
            probed = asyncio.Event()
            bus.subscribe(ServiceReachabilityChanged, lambda _e: probed.set())
            probe.start()
            try:
                await asyncio.wait_for(probed.wait(), 10)
                assert probe.last is not None
                assert probe.last.level == Reachability.REACHABLE
                bus.publish(
                    AttemptChanged(
                        merchant_charge_id="s-01",
                        sale_id="s",
                        state=AttemptState.UNKNOWN,
                        reason=Reason.of(ReasonCode.OUTCOME_UNKNOWN, error=no_reply),
                    )
                )
            finally:
                await probe.stop()

        arun(a_charge_without_a_reply(), timeout=10_000)
    qtbot.waitUntil(lambda: "sem resposta" in status.service.text(), timeout=5000)
    assert probe.last is not None and probe.last.level == Reachability.NOT_ANSWERING
    assert untranslated(status.service.text()) == []
    tooltip = status.service.toolTip()
    assert "ficou sem resposta" in tooltip, tooltip
    data = ("api.localhost", "Sandbox")
    assert _tooltip_words(tooltip, data) == [], tooltip
    assert english_on_screen(status, data) == []


def test_the_running_terminal_is_checked_through_its_own_sandbox_and_inbox(
    qloop: qasync.QEventLoop, arun: Callable[..., Any], tmp_path: Path
) -> None:
    from checkout_desktop.sandbox.link import start_sandbox
    from checkout_desktop.terminal import Terminal

    paths = AppPaths(tmp_path / "c", tmp_path / "d", tmp_path / "l").ensure()
    settings = Settings(first_run_done=True)
    link = start_sandbox(paths)
    try:
        terminal = arun(Terminal.start(settings, paths, sandbox=link, listener_port=0), 30_000)
        try:
            tester = ConnectionTest(paths, running=terminal)
            results = arun(tester(settings.model_copy(deep=True)), 30_000)
            assert all(r.ok and not r.warning for r in results), results
            report = tester.report
            assert report is not None and report.can_charge
            trip = report.result(CheckName.ROUND_TRIP)
            assert trip is not None
            # Through the running inbox's own address, with no second sandbox started.
            assert trip.facts["url"] == terminal.notification_url
            assert tester.sandbox is None
            # The terminal's own access token was left alone (the check asked for its own).
            assert terminal.tokens.token_requests == 0
        finally:
            arun(terminal.stop(), 30_000)
    finally:
        link.stop()
