"""The terminal's window on real shop screens: 1024×768 and 1366×768, with and without a WM.

Each case starts an Xvfb screen of that size (optionally with openbox as window manager),
launches `checkout-desktop` on it as a shop would, and reads the window's place on the screen
with `xwininfo`: the whole window, and so its status bar at the bottom, must lie on screen.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from checkout_desktop.paths import app_paths
from checkout_desktop.settings import Settings, save_settings

pytestmark = [pytest.mark.webengine, pytest.mark.slow]

_TITLE = "checkout-desktop —"


def _need(tool: str) -> str:
    found = shutil.which(tool)
    if found is None:
        pytest.fail(f"{tool} is not installed; scripts/setup.sh installs it")
    return found


@contextlib.contextmanager
def _xvfb(width: int, height: int) -> Iterator[str]:
    read, write = os.pipe()
    server = subprocess.Popen(
        [
            _need("Xvfb"),
            "-displayfd",
            str(write),
            "-screen",
            "0",
            f"{width}x{height}x24",
            "-nolisten",
            "tcp",
        ],
        pass_fds=(write,),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.close(write)
    try:
        with os.fdopen(read) as pipe:
            number = pipe.readline().strip()
        assert number.isdigit(), "Xvfb did not report its display"
        yield f":{number}"
    finally:
        server.terminate()
        server.wait(timeout=10)


@contextlib.contextmanager
def _window_manager(display: str) -> Iterator[None]:
    wm = subprocess.Popen(
        [_need("openbox"), "--sm-disable"],
        env={**os.environ, "DISPLAY": display},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        # openbox has taken the screen once it owns the WM selection of screen 0.
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            probe = subprocess.run(
                [_need("xprop"), "-root", "_NET_SUPPORTING_WM_CHECK"],
                env={**os.environ, "DISPLAY": display},
                capture_output=True,
                text=True,
                check=False,
            )
            if "window id" in probe.stdout:
                break
            time.sleep(0.1)
        else:
            pytest.fail("openbox did not start")
        yield
    finally:
        wm.terminate()
        wm.wait(timeout=10)


def _window_geometry(display: str) -> tuple[int, int, int, int] | None:
    """(x, y, width, height) of the terminal's main window, absolute on the screen."""
    env = {**os.environ, "DISPLAY": display}
    tree = subprocess.run(
        [_need("xwininfo"), "-root", "-tree"], env=env, capture_output=True, text=True, check=False
    ).stdout
    for line in tree.splitlines():
        if _TITLE in line:
            window_id = line.split()[0]
            info = subprocess.run(
                [_need("xwininfo"), "-id", window_id],
                env=env,
                capture_output=True,
                text=True,
                check=False,
            ).stdout
            if "IsViewable" not in info:
                continue
            fields = {
                key: int(value)
                for key, value in re.findall(
                    r"(Absolute upper-left X|Absolute upper-left Y|Width|Height):\s+(-?\d+)", info
                )
            }
            return (
                fields["Absolute upper-left X"],
                fields["Absolute upper-left Y"],
                fields["Width"],
                fields["Height"],
            )
    return None


@pytest.mark.parametrize("screen", [(1024, 768), (1366, 768)], ids=["1024x768", "1366x768"])
@pytest.mark.parametrize("with_wm", [False, True], ids=["no-wm", "openbox"])
def test_the_window_opens_inside_the_screen(
    tmp_path: Path, screen: tuple[int, int], with_wm: bool
) -> None:
    width, height = screen
    home = tmp_path / "home"
    paths = app_paths(home).ensure()
    save_settings(Settings(first_run_done=True), paths)
    with contextlib.ExitStack() as stack:
        display = stack.enter_context(_xvfb(width, height))
        if with_wm:
            stack.enter_context(_window_manager(display))
        env = {
            **os.environ,
            "CHECKOUT_DESKTOP_HOME": str(home),
            "DISPLAY": display,
            "QT_QPA_PLATFORM": "xcb",
        }
        console = stack.enter_context((tmp_path / "console.txt").open("w"))
        terminal = subprocess.Popen(
            [sys.executable, "-m", "checkout_desktop.cli", "--listener-port", "0"],
            env=env,
            stdout=console,
            stderr=subprocess.STDOUT,
        )
        try:
            log = paths.log_dir / "checkout-desktop.log"
            deadline = time.monotonic() + 90
            geometry = None
            while time.monotonic() < deadline:
                if terminal.poll() is not None:
                    pytest.fail(f"the terminal exited: {(tmp_path / 'console.txt').read_text()}")
                if log.exists() and "card page ready" in log.read_text():
                    geometry = _window_geometry(display)
                    if geometry is not None:
                        break
                time.sleep(0.2)
            assert geometry is not None, "the terminal's window never appeared"
            # A window manager may still be settling the maximised state: read it again.
            time.sleep(0.5)
            geometry = _window_geometry(display) or geometry
        finally:
            terminal.send_signal(signal.SIGTERM)
            try:
                terminal.wait(timeout=30)
            except subprocess.TimeoutExpired:
                terminal.kill()
                terminal.wait(timeout=10)
    x, y, w, h = geometry
    assert x >= 0
    assert y >= 0
    assert x + w <= width, f"the window's right edge is off-screen: {geometry} on {screen}"
    # The status bar is the window's bottom row: the bottom edge must be on screen.
    assert y + h <= height, f"the window's bottom (status bar) is off-screen: {geometry}"
    # And the window uses the screen: a small screen gets (nearly) all of it.
    assert w >= min(width, 1240) * 0.9
