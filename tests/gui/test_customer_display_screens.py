"""The customer display on real X screens (Xvfb, with and without a window manager): never on
the shop's own screen, where it would cover the clerk's controls; full screen on a second one,
opened when that screen is plugged in while the terminal runs and gone when it is unplugged; a ✕
on it (or Alt+F4) does not close it, and hidden it comes back at the next view.

The shop's screen is Xvfb's 1366×768; the customer's is a RandR monitor of 1024×768 on its right,
added and removed live with `xrandr --setmonitor` / `--delmonitor` (Qt sees it as a screen).
Xvfb cannot grow its frame buffer, so that monitor lies past it: nothing is drawn there, but Qt,
the window manager and the display place windows on it as on a real one."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.gui.test_window_geometry import _need, _window_manager, _xvfb

pytestmark = [pytest.mark.slow]

CHILD = Path(__file__).with_name("display_screens_child.py")


@pytest.mark.parametrize("with_wm", [False, True], ids=["no-wm", "openbox"])
def test_the_display_opens_only_on_a_second_screen_and_stays_there(with_wm: bool) -> None:
    with contextlib.ExitStack() as stack:
        display = stack.enter_context(_xvfb(1366, 768))
        env = {**os.environ, "DISPLAY": display, "QT_QPA_PLATFORM": "xcb"}
        _need("xrandr")
        if with_wm:
            stack.enter_context(_window_manager(display))
        child = subprocess.run(
            [sys.executable, str(CHILD)],
            env={**env, "PYTHONPATH": str(CHILD.parents[2])},
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    assert child.returncode == 0, child.stdout + child.stderr
    seen = json.loads(child.stdout.strip().splitlines()[-1])
    # One screen: nothing is opened over the shop's window, not even at the next view.
    assert seen["one_screen_visible"] is False, seen
    assert seen["one_screen_visible_after_view"] is False, seen
    # The customer's monitor plugged in: opened there, full screen, clear of the shop's.
    assert seen["second_screen_opened"], seen
    assert seen["display_screen"] == "customer", seen
    assert seen["shop_screen"] == "screen", seen
    assert seen["display_full_screen"], seen
    assert seen["display_geometry"] == [1366, 0, 1024, 768], seen
    # A ✕ / Alt+F4 does not close it; hidden, it is back at the next view, showing it.
    assert seen["after_close_pressed"], seen
    assert seen["back_at_next_view"], seen
    assert seen["back_message"] == "Paid — thank you!", seen
    # Unplugged: gone, and not brought back onto the shop's screen by the next view.
    assert seen["after_unplug_visible"] is False, seen
    assert seen["after_unplug_view_visible"] is False, seen
    # Plugged in again: back; Settings (a close from the program) still closes it.
    assert seen["replugged_opened"], seen
    assert seen["closed_from_settings"] is True, seen
    assert seen["closed_visible"] is False, seen
