"""Start-up problems in the status bar: a short line, the whole text on hover and on a click."""

from __future__ import annotations

from PySide6.QtWidgets import QMainWindow
from pytestqt.qtbot import QtBot

from checkout_desktop.domain.start_problems import StartProblem, StartProblemKind
from checkout_desktop.ui.start_problems import short_text, show_start_problems

PORT_TAKEN = StartProblem(
    StartProblemKind.LISTENER_PORT_TAKEN,
    "cannot listen on 127.0.0.1:8787: error while attempting to bind on address "
    "('127.0.0.1', 8787): address already in use; close the other program or choose another "
    "port in Settings",
)
NO_KEYCHAIN = StartProblem(
    StartProblemKind.KEYCHAIN_UNAVAILABLE,
    "no usable keychain: install and unlock a Secret Service provider (gnome-keyring or "
    "KWallet); the keyring library said: No recommended backend was available",
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
    assert PORT_TAKEN.detail in shown.toolTip()
    box = shown.show_details()
    qtbot.addWidget(box)
    assert PORT_TAKEN.detail in box.detailedText()
    box.reject()

    # A later problem (the inbox starts after the window) joins the same field.
    again = show_start_problems(window.statusBar(), [NO_KEYCHAIN])
    assert again is shown
    assert shown.text() == "⚠ The terminal started with 2 problems: notifications may be off."
    assert PORT_TAKEN.detail in shown.toolTip() and NO_KEYCHAIN.detail in shown.toolTip()
    assert window.statusBar().currentMessage() == ""


def test_each_kind_has_its_own_line_whatever_the_detail_says() -> None:
    """The line comes from the kind: a detail's English words never pick it."""
    # A tunnel problem whose detail happens to mention a port in use and the keychain.
    misleading = "address already in use; the token is not in the keychain"
    lines = {kind: short_text([StartProblem(kind, misleading)]) for kind in StartProblemKind}
    assert lines[StartProblemKind.TUNNEL_SETTINGS] == (
        "Notifications cannot reach this computer: check the tunnel in Settings."
    )
    assert lines[StartProblemKind.LISTENER_CANNOT_BIND] == (
        "Notifications are off: the listener cannot use its address or port."
    )
    assert lines[StartProblemKind.WEBHOOK_TOKEN_MISSING] == (
        "Notifications wait for the webhook token: enter it in Settings."
    )
    # Every kind but the catch-all says something of its own.
    general = lines.pop(StartProblemKind.INBOX_FAILED)
    assert len(set(lines.values())) == len(lines)
    assert general not in lines.values()
