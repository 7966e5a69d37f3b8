"""A profile that cannot start: the dialog says why and offers the setup, or quitting."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
import qasync
from PySide6.QtWidgets import QApplication, QMessageBox, QPushButton
from pytestqt.qtbot import QtBot

from checkout_desktop.settings import Settings
from checkout_desktop.ui.launch import ask_to_fix_profile


def _dialog() -> QMessageBox | None:
    for widget in QApplication.topLevelWidgets():
        named = isinstance(widget, QMessageBox) and widget.objectName() == "profileCannotStart"
        if named and widget.isVisible():
            assert isinstance(widget, QMessageBox)
            return widget
    return None


@pytest.mark.parametrize("choice", ["openSetup", "quit"])
def test_the_dialog_says_why_and_offers_the_setup(
    qtbot: QtBot, qloop: qasync.QEventLoop, arun: Callable[..., Any], choice: str
) -> None:
    settings = Settings(first_run_done=True, active_profile="production")
    task = asyncio.ensure_future(ask_to_fix_profile(settings, "the profile has no client id"))
    qtbot.waitUntil(lambda: _dialog() is not None, timeout=5000)
    box = _dialog()
    assert box is not None
    assert "cannot start" in box.text()
    assert box.detailedText() == "the profile has no client id"
    if choice == "openSetup":
        button = box.findChild(QPushButton, "openSetup")
        assert button is not None
        button.click()
        assert arun(task) is True
    else:
        box.reject()
        assert arun(task) is False
