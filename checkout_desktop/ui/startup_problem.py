"""The window's way of saying why the terminal cannot start: one dialog with the plain message."""

from __future__ import annotations

import logging

from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication, QMessageBox

logger = logging.getLogger(__name__)

# Platforms with no screen to show a dialog on (tests, CI, a service): the message then goes
# to standard error only, where the command line prints it anyway.
_HEADLESS = frozenset({"offscreen", "minimal"})


def show_startup_problem(message: str) -> bool:
    """Show `message` (a broken store, settings file or folder) in a modal dialog before the
    terminal exits; returns whether a dialog was shown."""
    app = QApplication.instance() or QApplication([])
    if QGuiApplication.platformName() in _HEADLESS:
        return False
    box = QMessageBox()
    box.setIcon(QMessageBox.Icon.Critical)
    box.setWindowTitle("checkout-desktop")  # the product's name, the same in every language
    box.setText(QCoreApplication.translate("StartupProblem", "The terminal cannot start."))
    box.setInformativeText(message)
    box.setStandardButtons(QMessageBox.StandardButton.Ok)
    box.exec()
    del app
    return True


__all__ = ["show_startup_problem"]
