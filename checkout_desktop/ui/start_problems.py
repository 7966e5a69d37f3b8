"""The problems a start ran into (a listener port in use, no webhook token, no keychain) in the
status bar: one short line in the screen's language, chosen by each problem's kind, and the
whole technical text on hover and on a click."""

from __future__ import annotations

import logging

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QMessageBox, QStatusBar, QToolButton, QWidget

from checkout_desktop.domain.start_problems import StartProblem, StartProblemKind

logger = logging.getLogger(__name__)


def _one_line(kind: StartProblemKind) -> str:
    if kind is StartProblemKind.LISTENER_PORT_TAKEN:
        return QCoreApplication.translate(
            "StartProblems", "Notifications are off: the listener's port is in use."
        )
    if kind is StartProblemKind.LISTENER_CANNOT_BIND:
        return QCoreApplication.translate(
            "StartProblems", "Notifications are off: the listener cannot use its address or port."
        )
    if kind is StartProblemKind.LISTENER_SETTINGS:
        return QCoreApplication.translate(
            "StartProblems", "Notifications are off: the listener must listen on this computer."
        )
    if kind is StartProblemKind.INBOX_STORE:
        return QCoreApplication.translate(
            "StartProblems", "Notifications are off: the inbox cannot open its store."
        )
    if kind is StartProblemKind.WEBHOOK_TOKEN_MISSING:
        return QCoreApplication.translate(
            "StartProblems", "Notifications wait for the webhook token: enter it in Settings."
        )
    if kind is StartProblemKind.KEYCHAIN_UNAVAILABLE:
        return QCoreApplication.translate(
            "StartProblems", "No keychain can be used: notifications are off."
        )
    if kind is StartProblemKind.TUNNEL_SETTINGS:
        return QCoreApplication.translate(
            "StartProblems",
            "Notifications cannot reach this computer: check the tunnel in Settings.",
        )
    return QCoreApplication.translate(
        "StartProblems", "The terminal started with a problem: notifications may be off."
    )


def short_text(problems: list[StartProblem]) -> str:
    """One short line for the status bar, from the problems' kinds (never their English)."""
    if len(problems) == 1:
        return _one_line(problems[0].kind)
    return QCoreApplication.translate(
        "StartProblems", "The terminal started with {count} problems: notifications may be off."
    ).format(count=len(problems))


def _whole_text(problems: list[StartProblem]) -> str:
    return "\n\n".join(
        QCoreApplication.translate("Launch", "Technical detail: {detail}").format(
            detail=problem.detail
        )
        for problem in problems
    )


class StartProblems(QToolButton):
    """A flat button in the status bar: the short line, the whole text on hover, and a dialog
    with everything on a click. Stays until the window closes (a status message would go)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("startProblems")
        self.setAutoRaise(True)
        self.setStyleSheet("color: #b3261e;")
        self.problems: list[StartProblem] = []
        self.clicked.connect(self.show_details)
        self.hide()

    def add(self, problems: list[StartProblem]) -> None:
        if not problems:
            return
        self.problems.extend(problems)
        self.setText("⚠ " + short_text(self.problems))
        self.setToolTip(_whole_text(self.problems))
        self.show()

    def show_details(self) -> QMessageBox:
        box = QMessageBox(self.window())
        box.setObjectName("startProblemsDetails")
        box.setIcon(QMessageBox.Icon.Warning)
        box.setWindowTitle("checkout-desktop")
        box.setText(short_text(self.problems))
        box.setInformativeText(
            QCoreApplication.translate(
                "StartProblems",
                "Sales can still be charged: the terminal asks the service for each result. "
                "The technical detail says what to fix (Settings, or the listener's port); the "
                "change applies at the next start.",
            )
        )
        box.setDetailedText(_whole_text(self.problems))
        box.open()
        return box


def show_start_problems(status_bar: QStatusBar, problems: list[StartProblem]) -> StartProblems:
    """Add `problems` to the status bar's start-up problems (made on the first call)."""
    found = status_bar.findChild(StartProblems, "startProblems")
    if found is None:
        found = StartProblems(status_bar)
        status_bar.addWidget(found)
    found.add(problems)
    return found


__all__ = ["StartProblems", "short_text", "show_start_problems"]
