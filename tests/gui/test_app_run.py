"""`checkout-desktop` as a shop runs it: starts on the built-in sandbox, stops cleanly on SIGTERM."""

from __future__ import annotations

import json
import logging
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import IO

import pytest

from checkout_desktop.paths import AppPaths, app_paths
from checkout_desktop.settings import Settings, save_settings

logger = logging.getLogger(__name__)

pytestmark = [pytest.mark.webengine, pytest.mark.slow]


def _wait_for(predicate: object, what: str, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while not predicate():  # type: ignore[operator]
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout_s:g} s waiting for {what}")
        time.sleep(0.1)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}").exists() and "zombie" not in _state(pid)


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/status").read_text().lower()
    except OSError:
        return "zombie"


def _launch(
    tmp_path: Path, settings: Settings
) -> tuple[subprocess.Popen[bytes], AppPaths, IO[str]]:
    """Start `checkout-desktop` as a user would, in its own home; its folders and console."""
    home = tmp_path / "home"
    paths = app_paths(home).ensure()
    save_settings(settings, paths)
    env = dict(os.environ, CHECKOUT_DESKTOP_HOME=str(home), QT_QPA_PLATFORM="offscreen")
    # Output to a file, not a pipe: a full pipe would block the terminal's logging.
    console = (tmp_path / "console.txt").open("w")
    process = subprocess.Popen(
        [sys.executable, "-m", "checkout_desktop.cli", "--listener-port", "0"],
        env=env,
        stdout=console,
        stderr=subprocess.STDOUT,
    )
    return process, paths, console


def test_the_terminal_starts_on_the_sandbox_and_stops_cleanly_on_sigterm(tmp_path: Path) -> None:
    process, paths, console = _launch(tmp_path, Settings(first_run_done=True))
    log = paths.log_dir / "checkout-desktop.log"
    try:
        _wait_for(
            lambda: log.exists() and "card page ready" in log.read_text(),
            "the card page to be ready",
            60,
        )
        _wait_for(lambda: "access token #1 obtained" in log.read_text(), "the token warm-up", 30)
        # The inbox starts right after the card page is ready.
        _wait_for(
            lambda: "webhook listener on https://127.0.0.1:" in log.read_text(),
            "the webhook listener",
            30,
        )
        # Then what start-up built is set aside from the collections that run under load.
        _wait_for(
            lambda: re.search(r"start-up settled: \d{4,} objects", log.read_text()) is not None,
            "start-up to settle",
            30,
        )
        text = log.read_text()
        sandbox = re.search(r"sandbox process (\d+) ready", text)
        assert sandbox is not None, text[-2000:]
        sandbox_pid = int(sandbox.group(1))
        assert _alive(sandbox_pid)
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        console.close()
    output = (tmp_path / "console.txt").read_text()
    assert process.returncode == 0, output[-3000:]
    _wait_for(lambda: not _alive(sandbox_pid), "the sandbox process to exit", 10)
    text = log.read_text()
    assert "sandbox process stopped" in text
    assert (paths.data_dir / "checkout.sqlite3").exists()
    saved = json.loads(paths.settings_file.read_text())
    assert saved["first_run_done"] is True
    assert "secret" not in json.dumps(saved).lower()


def test_a_real_profile_that_cannot_start_says_why_before_anything_else(tmp_path: Path) -> None:
    # Production chosen but never set up (no client id): the terminal must not just exit, nor
    # silently reopen the setup; it says why and offers the setup (in-process test below).
    settings = Settings(first_run_done=True, active_profile="production")
    process, paths, console = _launch(tmp_path, settings)
    log = paths.log_dir / "checkout-desktop.log"
    try:
        _wait_for(
            lambda: log.exists() and "the production profile cannot start" in log.read_text(),
            "the start-up problem to be logged",
            60,
        )
        assert "no client id" in log.read_text()
        _wait_for(
            lambda: "start-up problem shown" in log.read_text(), "the start-up problem dialog", 30
        )
        assert "setup wizard open" not in log.read_text()  # only once the user asks for it
        process.send_signal(signal.SIGTERM)  # as Quit: the dialog closes, the run ends
        process.wait(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        console.close()
    assert process.returncode == 1, (tmp_path / "console.txt").read_text()[-3000:]
