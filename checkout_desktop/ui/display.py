"""Whether a window can be shown at all, asked before anything creates a QApplication.

Without a display (a session over SSH, a system service) Qt cannot load its xcb or Wayland
platform plugin and aborts the process (SIGABRT) instead of raising. The check is deliberately
narrow: it says "missing" only on X11/Wayland systems where no platform Qt would try can work
(no DISPLAY, no WAYLAND_DISPLAY or WAYLAND_SOCKET, and QT_QPA_PLATFORM unset or naming only
xcb or Wayland). Any other platform (offscreen, minimal, vnc, eglfs…) is left to Qt.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping


def display_missing(environ: Mapping[str, str] = os.environ, platform: str = sys.platform) -> bool:
    """True when no window can be shown here (see the module's rule)."""
    if platform.startswith(("win", "darwin", "cygwin")):
        return False
    x11 = bool(environ.get("DISPLAY"))
    wayland = bool(environ.get("WAYLAND_DISPLAY") or environ.get("WAYLAND_SOCKET"))
    chosen = [p.strip() for p in environ.get("QT_QPA_PLATFORM", "").split(";") if p.strip()]
    if not chosen:
        return not (x11 or wayland)
    for name in chosen:  # Qt tries each in turn
        plugin = name.split(":", 1)[0].lower()
        if plugin == "xcb":
            if x11:
                return False
        elif plugin.startswith("wayland"):
            if wayland:
                return False
        else:
            return False
    return True


__all__ = ["display_missing"]
