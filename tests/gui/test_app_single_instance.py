"""A second `checkout-desktop` on the same instance folder raises the first window and exits."""

from __future__ import annotations

import os
import pty
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMainWindow
from pytestqt.qtbot import QtBot

from checkout_desktop.paths import app_paths, hold_data_folder, let_go_of_data_folder
from checkout_desktop.settings import Settings, UiSettings, save_settings
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


@pytest.fixture
def x_display() -> Iterator[str]:
    """A private X server: a dialog there is a real window that xdotool can find and close."""
    if shutil.which("Xvfb") is None or shutil.which("xdotool") is None:
        pytest.skip("needs Xvfb and xdotool")
    read, write = os.pipe()
    server = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write), "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
        pass_fds=(write,),
        stderr=subprocess.DEVNULL,
    )
    os.close(write)
    try:
        with os.fdopen(read) as announced:
            number = announced.readline().strip()
        assert number, "Xvfb did not start"
        yield f":{number}"
    finally:
        server.terminate()
        server.wait(timeout=10)


def _windows_named(display: str, name: str) -> list[str]:
    found = subprocess.run(
        ["xdotool", "search", "--onlyvisible", "--name", name],
        env=dict(os.environ, DISPLAY=display),
        capture_output=True,
        text=True,
        check=False,
    )
    return found.stdout.split()


def test_a_terminal_that_does_not_answer_is_said_in_a_dialog_without_a_console(
    tmp_path: Path, x_display: str
) -> None:
    # Launched from the desktop's menu (no terminal to print to) while the folder's terminal
    # is stuck: the owner sees a dialog, not nothing; the exit code stays 1.
    home = tmp_path / "home"
    paths = app_paths(home).ensure()
    save_settings(Settings(ui=UiSettings(locale="pt_BR")), paths)
    held = hold_data_folder(paths.data_dir)  # held by this process, which never answers
    assert held is not None
    try:
        second = subprocess.Popen(
            [sys.executable, "-m", "checkout_desktop.cli", "--listener-port", "0"],
            env=dict(
                os.environ,
                CHECKOUT_DESKTOP_HOME=str(home),
                DISPLAY=x_display,
                QT_QPA_PLATFORM="xcb",
            ),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            _wait_for(
                lambda: (
                    _windows_named(x_display, "^checkout-desktop$") or second.poll() is not None
                ),
                "the dialog of the second launch",
                30,
            )
            assert second.poll() is None, second.communicate()
            (dialog,) = _windows_named(x_display, "^checkout-desktop$")
            # Enter is its OK (xdotool may then complain that the closed window is gone).
            subprocess.run(
                ["xdotool", "key", "--window", dialog, "Return"],
                env=dict(os.environ, DISPLAY=x_display),
                stderr=subprocess.DEVNULL,
                check=False,
            )
            _, err = second.communicate(timeout=30)
        finally:
            if second.poll() is None:
                second.kill()
                second.wait()
    finally:
        let_go_of_data_folder(held)
    assert second.returncode == 1, err
    assert f"(processo {os.getpid()})" in err and "não respondeu" in err
    log = (paths.log_dir / "checkout-desktop.log").read_text()
    assert "the terminal already running did not answer; said in a dialog" in log


def test_a_terminal_that_does_not_answer_is_only_printed_on_a_console(
    tmp_path: Path, x_display: str
) -> None:
    # From a terminal window the sentence on standard error is enough: no dialog to close.
    home = tmp_path / "home"
    paths = app_paths(home).ensure()
    save_settings(Settings(ui=UiSettings(locale="en")), paths)
    held = hold_data_folder(paths.data_dir)
    assert held is not None
    console, terminal = pty.openpty()
    try:
        second = subprocess.run(
            [sys.executable, "-m", "checkout_desktop.cli", "--listener-port", "0"],
            env=dict(
                os.environ,
                CHECKOUT_DESKTOP_HOME=str(home),
                DISPLAY=x_display,
                QT_QPA_PLATFORM="xcb",
            ),
            stdout=subprocess.DEVNULL,
            stderr=terminal,
            timeout=30,
            check=False,
        )
        os.close(terminal)
        printed = b""
        while True:
            try:
                chunk = os.read(console, 4096)
            except OSError:
                break
            if not chunk:
                break
            printed += chunk
    finally:
        os.close(console)
        let_go_of_data_folder(held)
    assert second.returncode == 1
    assert b"did not answer" in printed
    log = (paths.log_dir / "checkout-desktop.log").read_text()
    assert "said in a dialog" not in log


def test_bringing_forward_keeps_a_maximised_window_maximised(qtbot: QtBot) -> None:
    window = QMainWindow()
    qtbot.addWidget(window)
    window.setWindowState(Qt.WindowState.WindowMaximized | Qt.WindowState.WindowMinimized)
    bring_to_front(window)
    assert window.windowState() & Qt.WindowState.WindowMaximized
    assert not window.windowState() & Qt.WindowState.WindowMinimized
    assert window.isVisible()


def test_the_no_answer_dialog_speaks_the_owners_language(qtbot: QtBot, tmp_path: Path) -> None:
    from checkout_desktop.ui.i18n import install_settings_language
    from checkout_desktop.ui.instance_bell import no_answer_box

    paths = app_paths(tmp_path / "home").ensure()
    save_settings(Settings(ui=UiSettings(locale="pt_BR")), paths)
    translations = install_settings_language(paths)
    try:
        box = no_answer_box("another terminal (process 42) is using /x and did not answer")
        qtbot.addWidget(box)
        assert (
            box.text() == "O checkout-desktop já está aberto neste computador, mas não respondeu."
        )
        assert "atrás de outra" in box.informativeText()
        assert box.detailedText() == (
            "Detalhe técnico: another terminal (process 42) is using /x and did not answer"
        )
    finally:
        translations.remove()
