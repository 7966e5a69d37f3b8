"""The window on the built-in sandbox (the first run's default) has the keychain: Settings can
keep a real environment's secrets and the shared store's password, and the start reads none."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import keyring
import pytest
import qasync
from pytestqt.qtbot import QtBot

from checkout_desktop.paths import app_paths
from checkout_desktop.settings import Settings
from checkout_desktop.ui.main_window import MainWindow
from checkout_desktop.ui.webview import register_schemes
from tests.conftest import MemoryKeyring
from tests.gui.conftest import shown_top_level

# Chromium fixes its scheme table when it starts: before any QApplication exists.
register_schemes()

pytestmark = [pytest.mark.webengine, pytest.mark.slow]


class CountingKeyring(MemoryKeyring):
    """The in-memory keyring, counting what is read from it."""

    def __init__(self) -> None:
        super().__init__()
        self.reads = 0

    def get_password(self, service: str, username: str) -> str | None:
        self.reads += 1
        return super().get_password(service, username)


def _window() -> MainWindow | None:
    return shown_top_level(MainWindow)


@pytest.fixture
def chromium_started_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Chromium takes its flags once per process, and this test process started it with the
    card tests' SDK slot (tests/gui/card_fixtures.py): the window opened here keeps those
    instead of asking for its own, which the engine would refuse. Nothing here needs the card
    page to reach its sandbox."""
    monkeypatch.setattr(
        "checkout_desktop.ui.chromium.apply_profile_flags", lambda *args, **kwargs: []
    )


def test_settings_on_the_builtin_sandbox_can_keep_a_real_environments_secrets(
    chromium_started_once: None,
    qtbot: QtBot,
    qloop: qasync.QEventLoop,
    arun: Callable[..., Any],
    tmp_path: Path,
) -> None:
    from checkout_desktop.ui.launch import run_window

    backend = CountingKeyring()
    previous = keyring.get_keyring()
    keyring.set_keyring(backend)
    try:
        settings = Settings(first_run_done=True)
        assert settings.profile.is_builtin_sandbox
        paths = app_paths(tmp_path / "caixa").ensure()
        task = asyncio.ensure_future(run_window(settings, paths, listener_port=0))
        qtbot.waitUntil(lambda: _window() is not None or task.done(), timeout=60_000)
        window = _window()
        assert window is not None
        qtbot.waitUntil(lambda: hasattr(window, "settings_panel"), timeout=60_000)
        # The sandbox needs no secret: its start read none.
        assert backend.reads == 0
        panel = window.settings_panel
        panel.profile.setCurrentIndex(panel.profile.findData("production"))
        panel.client_id.setText("prod-id")
        panel.merchant_document.setText("11.222.333/0001-81")
        panel.client_secret.setText("PRODSECRET_111")
        panel.sdk_token.setText("tk_PRODSDK_222")
        panel.webhook_token.setText("PRODWEBHOOK_333")
        panel.tunnel.setCurrentIndex(panel.tunnel.findData("manual"))
        panel.public_url.setText("https://loja.example.com/webhooks/checkout")
        saved = panel.save()
        assert "keychain" not in panel.message.text()
        assert saved, panel.message.text()
        assert "PRODSECRET_111" in backend.entries.values()
        window.close()
        assert arun(task, timeout=60_000) == 0
    finally:
        keyring.set_keyring(previous)


def _processes_naming(text: str) -> list[int]:
    """Live processes whose command line names `text` (a test's own folder)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if text in command and state != "Z":
            found.append(int(entry.name))
    return found


def test_a_start_that_fails_after_the_sandbox_started_stops_it(
    qtbot: QtBot,
    qloop: qasync.QEventLoop,
    arun: Callable[..., Any],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Chromium refusing its flags (it took others earlier in this process) ends the start; the
    # built-in sandbox it had launched must not outlive it.
    from checkout_desktop.ui.chromium import ChromiumFlagsError
    from checkout_desktop.ui.launch import run_window

    def refused(*args: object, **kwargs: object) -> list[str]:
        raise ChromiumFlagsError("QtWebEngine has already started with other Chromium flags")

    monkeypatch.setattr("checkout_desktop.ui.chromium.apply_profile_flags", refused)
    paths = app_paths(tmp_path / "caixa").ensure()
    with pytest.raises(ChromiumFlagsError):
        arun(run_window(Settings(first_run_done=True), paths, listener_port=0), timeout=60_000)
    assert _processes_naming(str(paths.data_dir)) == []
