"""Run under Xvfb by test_customer_display_screens.py: a maximised shop window and the customer
display, while the test's monitors come and go. It prints one JSON line of what it saw."""

from __future__ import annotations

import ctypes
import json
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QApplication, QWidget

from checkout_desktop.ui.customer_display import CustomerDisplay, CustomerView

CUSTOMER_MONITOR = "1024/270x768/200+1366+0"


def _wait(until: Callable[[], bool], seconds: float = 10) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        QCoreApplication.processEvents()
        if until():
            return True
        time.sleep(0.02)
    QCoreApplication.processEvents()
    return until()


def _settle(seconds: float = 0.6) -> None:
    _wait(lambda: False, seconds)


class _ClientMessage(ctypes.Structure):
    _fields_ = [
        ("type", ctypes.c_int),
        ("serial", ctypes.c_ulong),
        ("send_event", ctypes.c_int),
        ("display", ctypes.c_void_p),
        ("window", ctypes.c_ulong),
        ("message_type", ctypes.c_ulong),
        ("format", ctypes.c_int),
        ("data", ctypes.c_long * 5),
    ]


class _Event(ctypes.Union):
    _fields_ = [("client", _ClientMessage), ("pad", ctypes.c_long * 24)]


def _press_close(window_id: int) -> None:
    """What a title bar's ✕ (or Alt+F4) does: the window manager sends the window
    WM_DELETE_WINDOW; here it is sent straight, so it works with and without one."""
    x11 = ctypes.CDLL("libX11.so.6")
    x11.XOpenDisplay.restype = ctypes.c_void_p
    x11.XOpenDisplay.argtypes = [ctypes.c_char_p]
    x11.XInternAtom.restype = ctypes.c_ulong
    x11.XInternAtom.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
    x11.XSendEvent.argtypes = [
        ctypes.c_void_p,
        ctypes.c_ulong,
        ctypes.c_int,
        ctypes.c_long,
        ctypes.POINTER(_Event),
    ]
    x11.XFlush.argtypes = [ctypes.c_void_p]
    x11.XCloseDisplay.argtypes = [ctypes.c_void_p]
    connection = x11.XOpenDisplay(None)
    assert connection, "no X display"
    event = _Event()
    event.client.type = 33  # ClientMessage
    event.client.window = window_id
    event.client.message_type = x11.XInternAtom(connection, b"WM_PROTOCOLS", 0)
    event.client.format = 32
    event.client.data[0] = x11.XInternAtom(connection, b"WM_DELETE_WINDOW", 0)
    event.client.data[1] = 0  # CurrentTime
    x11.XSendEvent(connection, window_id, 0, 0, ctypes.byref(event))
    x11.XFlush(connection)
    x11.XCloseDisplay(connection)


def _xrandr(*args: str) -> None:
    subprocess.run(["xrandr", *args], check=True, capture_output=True)


def main() -> None:
    app = QApplication(sys.argv[:1])
    seen: dict[str, Any] = {}
    shop = QWidget()
    shop.setWindowTitle("shop")
    shop.showMaximized()
    display = CustomerDisplay(shop_name="Loja Teste", shop_window=shop)
    display.show_view(CustomerView("card", 2590))
    display.place()
    _settle()
    seen["one_screen_visible"] = display.isVisible()
    display.show_view(CustomerView("charging", 2590))
    _settle(0.2)
    seen["one_screen_visible_after_view"] = display.isVisible()

    # A monitor facing the customer is plugged in while the terminal runs.
    _xrandr("--setmonitor", "customer", CUSTOMER_MONITOR, "none")
    seen["second_screen_opened"] = _wait(display.isVisible)
    _settle()
    seen["screens"] = [screen.name() for screen in app.screens()]
    seen["display_screen"] = display.screen().name() if display.screen() else None
    seen["display_geometry"] = display.geometry().getRect()
    seen["display_full_screen"] = display.isFullScreen()
    seen["shop_screen"] = shop.screen().name() if shop.screen() else None

    # The customer or the clerk presses its ✕ (or Alt+F4): it stays.
    _press_close(int(display.winId()))
    _settle()
    seen["after_close_pressed"] = display.isVisible()
    # Hidden some other way: it comes back with the next view.
    display.hide()
    display.show_view(CustomerView("paid", 2590))
    _wait(display.isVisible, 3)
    _settle()
    seen["back_at_next_view"] = display.isVisible() and display.isFullScreen()
    seen["back_state"] = [display.isVisible(), display.isFullScreen(), display.geometry().getRect()]
    seen["back_message"] = display.message.text()

    # The customer's monitor is unplugged: the display goes with it, never onto the shop's.
    _xrandr("--delmonitor", "customer")
    _wait(lambda: not display.isVisible(), 5)
    _settle()
    seen["after_unplug_visible"] = display.isVisible()
    display.show_view(CustomerView("idle"))
    _settle(0.2)
    seen["after_unplug_view_visible"] = display.isVisible()

    # Plugged in again: back on it. Settings turning it off closes it for good.
    _xrandr("--setmonitor", "customer", CUSTOMER_MONITOR, "none")
    seen["replugged_opened"] = _wait(display.isVisible)
    seen["closed_from_settings"] = display.close()
    _settle(0.2)
    seen["closed_visible"] = display.isVisible()
    shop.close()
    print(json.dumps(seen), flush=True)
    app.quit()


if __name__ == "__main__":
    main()
