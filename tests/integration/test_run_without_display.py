"""`checkout-desktop run` over SSH (no display): options first, then one plain sentence.

Qt aborts the process (SIGABRT, exit 134) when no platform plugin can start; the command must
check its options and the display before anything creates a QApplication, and exit with one
of the README's codes.
"""

from __future__ import annotations

import logging
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from checkout_desktop.paths import app_paths
from checkout_desktop.settings import Settings, save_settings
from checkout_desktop.ui.display import display_missing, x_server_answers

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
    def answers(display: str) -> bool:
        return True

    assert display_missing(env, platform="linux", answers=answers) is missing
    assert display_missing(env, platform="win32", answers=answers) is False
    assert display_missing(env, platform="darwin", answers=answers) is False


def _free_display_number() -> int:
    """An X display number no server answers on here (neither its socket file nor abstract)."""
    for number in range(150, 400):
        if not Path(f"/tmp/.X11-unix/X{number}").exists() and not x_server_answers(f":{number}"):
            return number
    raise AssertionError("no free display number")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="X11 only")
def test_a_display_whose_server_is_gone_is_one_plain_sentence_and_exit_1(tmp_path: Path) -> None:
    home = tmp_path / "shop"
    save_settings(Settings(first_run_done=True), app_paths(home).ensure())
    gone = f":{_free_display_number()}"
    for extra in ({}, {"QT_QPA_PLATFORM": "xcb"}):
        result = _run(home, "run", DISPLAY=gone, **extra)
        assert result.returncode == 1, (extra, result.returncode, result.stderr)
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1, result.stderr
        assert gone in lines[0] and "does not answer" in lines[0], lines[0]
        assert "platform plugin" not in result.stderr


def _listening_unix_socket(address: str | bytes) -> socket.socket:
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(address)
    server.listen(16)  # the probes are never accepted: room for each of them
    return server


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="X11 only")
def test_an_x_server_is_found_by_its_socket(tmp_path: Path) -> None:
    number = _free_display_number()
    assert not x_server_answers(f":{number}", socket_dir=tmp_path)
    assert not x_server_answers(f"unix:{number}.0", socket_dir=tmp_path)
    with _listening_unix_socket(str(tmp_path / f"X{number}")):
        assert x_server_answers(f":{number}", socket_dir=tmp_path)
        assert x_server_answers(f":{number}.0", socket_dir=tmp_path)
        assert x_server_answers(f"unix:{number}", socket_dir=tmp_path)
        assert not x_server_answers(f":{number + 1}", socket_dir=tmp_path)
    # A socket file left behind by a server that died answers nothing.
    assert (tmp_path / f"X{number}").exists()
    assert not x_server_answers(f":{number}", socket_dir=tmp_path)
    # Linux's abstract socket (what Xorg and Xvfb also listen on).
    with _listening_unix_socket(f"\0{tmp_path}/X{number}".encode()):
        assert x_server_answers(f":{number}", socket_dir=tmp_path)


def test_an_x_server_over_tcp_on_this_machine() -> None:
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    with server:
        server.bind(("127.0.0.1", 0))
        port = server.getsockname()[1]
        if port < 6000:
            pytest.skip("the free port is below X's range")
        server.listen(1)
        assert x_server_answers(f"localhost:{port - 6000}.0")
        assert x_server_answers(f"127.0.0.1:{port - 6000}")
    assert not x_server_answers(f"127.0.0.1:{port - 6000}")
    # Another host, or a name this check cannot read, is left to Qt.
    assert x_server_answers("shop-pc.example:0")
    assert x_server_answers("nonsense")


def test_a_display_that_does_not_answer_counts_as_none() -> None:
    def dead(display: str) -> bool:
        return False

    assert display_missing({"DISPLAY": ":0"}, platform="linux", answers=dead) is True
    assert display_missing({"DISPLAY": ":0", "QT_QPA_PLATFORM": "xcb"}, "linux", dead) is True
    assert display_missing({"DISPLAY": ":0", "WAYLAND_DISPLAY": "w"}, "linux", dead) is False
    assert (
        display_missing({"DISPLAY": ":0", "QT_QPA_PLATFORM": "offscreen"}, "linux", dead) is False
    )
    assert display_missing({"DISPLAY": ":0"}, platform="win32", answers=dead) is False


def test_the_check_is_quick() -> None:
    gone = f":{_free_display_number()}"
    started = time.perf_counter()
    for _ in range(100):
        display_missing({"DISPLAY": gone}, platform="linux")
    assert (time.perf_counter() - started) / 100 < 0.005
