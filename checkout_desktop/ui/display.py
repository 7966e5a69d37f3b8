"""Whether a window can be shown at all, asked before anything creates a QApplication.

Without a display (a session over SSH, a system service) Qt cannot load its xcb or Wayland
platform plugin and aborts the process (SIGABRT) instead of raising; so it does when DISPLAY
names an X server that is gone (the desktop session ended, an SSH forwarding closed). The check
is deliberately narrow: it says "missing" only on X11/Wayland systems where no platform Qt would
try can work (no DISPLAY whose server answers, no WAYLAND_DISPLAY or WAYLAND_SOCKET, and
QT_QPA_PLATFORM unset or naming only xcb or Wayland). Any other platform (offscreen, minimal,
vnc, eglfs…) is left to Qt.

Whether an X server answers is a connection to its socket, as Xlib makes it, and nothing sent:
for a display on this machine (":0", "unix:0", "localhost:10.0") the Linux abstract socket or
the socket file in /tmp/.X11-unix, or TCP port 6000+N on the loopback. Such a connection is
made or refused at once (tens of microseconds); a display on another host is left to Qt.
"""

from __future__ import annotations

import os
import re
import socket
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

X11_SOCKET_DIR = Path("/tmp/.X11-unix")  # noqa: S108 - where X servers put their sockets
X11_TCP_BASE = 6000
_LOCAL_HOSTS = frozenset({"", "unix", "localhost", "127.0.0.1", "::1"})
_DISPLAY = re.compile(r"(?P<host>.*):(?P<number>\d+)(?:\.\d+)?")
_TIMEOUT_S = 0.5
"""Only a loopback connection is tried: it never waits, but a stuck server must not hang us."""


def x_server_answers(display: str, socket_dir: Path = X11_SOCKET_DIR) -> bool:
    """False only when `display` names an X server on this machine that no socket answers for.

    A display this check cannot read, or one on another host, counts as answering (Qt decides).
    """
    found = _DISPLAY.fullmatch(display.strip())
    if found is None:
        return True
    host = found["host"]
    number = int(found["number"])
    if host.startswith("/") or host.lower() not in _LOCAL_HOSTS:
        return True  # macOS launchd's socket path, or another machine: Qt's to decide
    if host in ("", "unix"):
        path = str(socket_dir / f"X{number}")
        addresses: list[str | bytes] = [path]
        if sys.platform.startswith("linux"):
            addresses.insert(0, b"\0" + path.encode())
        return any(_connects(socket.AF_UNIX, address) for address in addresses)
    family = socket.AF_INET6 if host == "::1" else socket.AF_INET
    loopback = "::1" if host == "::1" else "127.0.0.1"
    return _connects(family, (loopback, X11_TCP_BASE + number))


def _connects(family: socket.AddressFamily, address: str | bytes | tuple[str, int]) -> bool:
    try:
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.settimeout(_TIMEOUT_S)
            probe.connect(address)
    except (OSError, ValueError):
        return False
    return True


def display_missing(
    environ: Mapping[str, str] = os.environ,
    platform: str = sys.platform,
    answers: Callable[[str], bool] = x_server_answers,
) -> bool:
    """True when no window can be shown here (see the module's rule); `answers(DISPLAY)` says
    whether its X server is there."""
    if platform.startswith(("win", "darwin", "cygwin")):
        return False
    wayland = bool(environ.get("WAYLAND_DISPLAY") or environ.get("WAYLAND_SOCKET"))
    display = environ.get("DISPLAY", "")

    def x11() -> bool:
        # Asked only when Qt would come to X11: a Wayland or offscreen start pays nothing.
        return bool(display) and answers(display)

    chosen = [p.strip() for p in environ.get("QT_QPA_PLATFORM", "").split(";") if p.strip()]
    if not chosen:
        return not (wayland or x11())
    for name in chosen:  # Qt tries each in turn
        plugin = name.split(":", 1)[0].lower()
        if plugin == "xcb":
            if x11():
                return False
        elif plugin.startswith("wayland"):
            if wayland:
                return False
        else:
            return False
    return True


__all__ = ["X11_SOCKET_DIR", "display_missing", "x_server_answers"]
