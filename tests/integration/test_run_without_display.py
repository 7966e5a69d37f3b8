"""`checkout-desktop run` over SSH (no display): options first, then one plain sentence.

Qt aborts the process (SIGABRT, exit 134) when no platform plugin can start; the command must
check its options and the display before anything creates a QApplication, and exit with one
of the README's codes.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from checkout_desktop.paths import app_paths
from checkout_desktop.settings import Settings, save_settings
from checkout_desktop.ui.display import display_missing

logger = logging.getLogger(__name__)

_DISPLAY_VARIABLES = ("DISPLAY", "WAYLAND_DISPLAY", "WAYLAND_SOCKET", "QT_QPA_PLATFORM")


def _run(home: Path, *argv: str, **env: str) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if k not in _DISPLAY_VARIABLES}
    environment.update(env, LANG="C.UTF-8")
    return subprocess.run(
        [sys.executable, "-m", "checkout_desktop.cli", "--data-dir", str(home), *argv],
        capture_output=True,
        text=True,
        env=environment,
        check=False,
        timeout=120,
    )


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="X11/Wayland only")
def test_an_unknown_profile_is_reported_before_the_display(tmp_path: Path) -> None:
    result = _run(tmp_path / "shop", "run", "--profile", "producao")
    assert result.returncode == 2, result.stderr
    assert "there is no profile 'producao'" in result.stderr
    assert "display" not in result.stderr.lower()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="X11/Wayland only")
def test_no_display_is_one_plain_sentence_and_exit_1(tmp_path: Path) -> None:
    home = tmp_path / "shop"
    save_settings(Settings(first_run_done=True), app_paths(home).ensure())
    for argv in (["run"], ["run", "--profile", "production"], []):
        result = _run(home, *argv)
        assert result.returncode == 1, (argv, result.returncode, result.stderr)
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1, result.stderr
        assert "no screen" in lines[0]
        assert "platform plugin" not in result.stderr
    # The built-in sandbox was not left running, nor the instance folder held.
    again = _run(home, "run", QT_QPA_PLATFORM="xcb")
    assert again.returncode == 1


@pytest.mark.parametrize(
    ("env", "missing"),
    [
        ({}, True),
        ({"QT_QPA_PLATFORM": "xcb"}, True),
        ({"QT_QPA_PLATFORM": "wayland;xcb"}, True),
        ({"QT_QPA_PLATFORM": "offscreen"}, False),
        ({"QT_QPA_PLATFORM": "minimal"}, False),
        ({"QT_QPA_PLATFORM": "vnc:size=800x600"}, False),
        ({"DISPLAY": ":0"}, False),
        ({"WAYLAND_DISPLAY": "wayland-0"}, False),
        ({"DISPLAY": ":0", "QT_QPA_PLATFORM": "xcb"}, False),
        ({"WAYLAND_DISPLAY": "wayland-0", "QT_QPA_PLATFORM": "wayland"}, False),
        ({"DISPLAY": ":0", "QT_QPA_PLATFORM": "wayland"}, True),
        ({"DISPLAY": ":0", "QT_QPA_PLATFORM": "wayland;xcb"}, False),
    ],
)
def test_which_environments_have_no_display(env: dict[str, str], missing: bool) -> None:
    assert display_missing(env, platform="linux") is missing
    assert display_missing(env, platform="win32") is False
    assert display_missing(env, platform="darwin") is False
