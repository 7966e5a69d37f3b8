"""Start-up problems in the status bar: a short line, the whole text on hover and on a click."""

from __future__ import annotations

from PySide6.QtWidgets import QMainWindow
from pytestqt.qtbot import QtBot

from checkout_desktop.ui.start_problems import show_start_problems

PORT_TAKEN = (
    "cannot listen on 127.0.0.1:8787: error while attempting to bind on address "
    "('127.0.0.1', 8787): address already in use; close the other program or choose another "
    "port in Settings"
)
NO_KEYCHAIN = (
    "no usable keychain: install and unlock a Secret Service provider (gnome-keyring or "
    "KWallet); the keyring library said: No recommended backend was available"
)


def test_a_start_problem_is_short_in_the_bar_and_whole_on_hover_and_click(qtbot: QtBot) -> None:
    window = QMainWindow()
    qtbot.addWidget(window)
    window.resize(1024, 600)
    window.statusBar()  # as the main window has it, before it is shown
    window.show()
    shown = show_start_problems(window.statusBar(), [PORT_TAKEN])
    assert shown.isVisible()
    assert shown.text() == "⚠ Notifications are off: the listener's port is in use."
    assert "127.0.0.1" not in shown.text()
    # Whole, not cut off: it fits the bar, and the full words are on hover.
    assert shown.width() < window.width()
    assert PORT_TAKEN in shown.toolTip()
    box = shown.show_details()
    qtbot.addWidget(box)
    assert PORT_TAKEN in box.detailedText()
    box.reject()

    # A later problem (the inbox starts after the window) joins the same field.
    again = show_start_problems(window.statusBar(), [NO_KEYCHAIN])
    assert again is shown
    assert shown.text() == "⚠ The terminal started with 2 problems: notifications may be off."
    assert PORT_TAKEN in shown.toolTip() and NO_KEYCHAIN in shown.toolTip()
    assert window.statusBar().currentMessage() == ""
