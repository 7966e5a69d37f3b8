"""A second `checkout-desktop` on the same instance folder raises the first window and exits."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMainWindow
from pytestqt.qtbot import QtBot

from checkout_desktop.settings import Settings
from checkout_desktop.ui.geometry import bring_to_front
from tests.gui.test_app_run import _launch, _wait_for

pytestmark = [pytest.mark.webengine, pytest.mark.slow]


def test_a_second_launch_raises_the_first_window_and_exits(tmp_path: Path) -> None:
    first, paths, console = _launch(tmp_path, Settings(first_run_done=True))
    log = paths.log_dir / "checkout-desktop.log"
    try:
        _wait_for(
            lambda: log.exists() and "card page ready" in log.read_text(),
            "the first terminal's card page",
            60,
        )
        home = paths.data_dir.parent
        started = time.monotonic()
        second = subprocess.run(
            [sys.executable, "-m", "checkout_desktop.cli", "--listener-port", "0"],
            env=dict(os.environ, CHECKOUT_DESKTOP_HOME=str(home), QT_QPA_PLATFORM="offscreen"),
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
        took = time.monotonic() - started
        assert second.returncode == 0, second.stderr
        assert "already running" in second.stderr
        assert f"process {first.pid}" in second.stderr
        assert took < 10, f"the second launch took {took:.1f} s to give way"
        _wait_for(
            lambda: "another launch asked for this window" in log.read_text(),
            "the first terminal to hear the second launch",
            10,
        )
        _wait_for(
            lambda: "brought forward: MainWindow" in log.read_text(),
            "the first terminal to bring its window forward",
            10,
        )
        assert first.poll() is None  # the first terminal goes on
        # Only one inbox, one sandbox: the second launch started nothing.
        assert log.read_text().count("webhook listener on https://") <= 1
        first.send_signal(signal.SIGTERM)
        first.wait(timeout=30)
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()
        console.close()
    assert first.returncode == 0


def _second_launch(home: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "checkout_desktop.cli", "--listener-port", "0"],
        env=dict(os.environ, CHECKOUT_DESKTOP_HOME=str(home), QT_QPA_PLATFORM="offscreen", **env),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_a_second_launch_while_the_setup_is_open_brings_the_setup_forward(tmp_path: Path) -> None:
    # The owner clicks the menu entry again because the first-run setup is behind a window:
    # the setup answers the bell and comes forward, and the second launch gives way.
    first, paths, console = _launch(tmp_path, Settings())
    log = paths.log_dir / "checkout-desktop.log"
    try:
        _wait_for(
            lambda: log.exists() and "setup wizard open" in log.read_text(),
            "the first terminal's setup",
            60,
        )
        second = _second_launch(paths.data_dir.parent)
        assert second.returncode == 0, second.stderr
        assert "already running" in second.stderr
        assert f"process {first.pid}" in second.stderr
        _wait_for(
            lambda: "brought forward: FirstRunWizard" in log.read_text(),
            "the first terminal to bring its setup forward",
            10,
        )
        assert first.poll() is None  # the setup goes on
        first.send_signal(signal.SIGTERM)  # as Cancel
        first.wait(timeout=30)
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()
        console.close()
    assert first.returncode == 0


def test_bringing_forward_keeps_a_maximised_window_maximised(qtbot: QtBot) -> None:
    window = QMainWindow()
    qtbot.addWidget(window)
    window.setWindowState(Qt.WindowState.WindowMaximized | Qt.WindowState.WindowMinimized)
    bring_to_front(window)
    assert window.windowState() & Qt.WindowState.WindowMaximized
    assert not window.windowState() & Qt.WindowState.WindowMinimized
    assert window.isVisible()
