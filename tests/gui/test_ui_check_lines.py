"""The connection test's lines as a shop owner reads them: the environment by its name on
screen, no empty "(-)", no template braces, and each line whole inside the list (wrapped)."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QListWidget
from pytestqt.qtbot import QtBot

from checkout_desktop.doctor.report import Finding
from checkout_desktop.ui.check_list import CheckResult, fill_list
from checkout_desktop.ui.doctor_text import render


def test_a_built_in_environment_is_named_as_the_settings_name_it() -> None:
    text = render(Finding.PROFILE_OK, {"profile": "builtin-sandbox", "url": "http://127.0.0.1:1"})
    assert "builtin-sandbox" not in text
    assert "Built-in sandbox (no account needed)" in text
    # A shop's own environment keeps the name the shop gave it.
    assert "Loja 2" in render(Finding.PROFILE_OK, {"profile": "Loja 2", "url": "https://x"})


def test_a_sandbox_without_an_address_yet_says_no_empty_parenthesis() -> None:
    text = render(Finding.URL_SANDBOX, {"url": "-"})
    assert "(-)" not in text and "()" not in text
    assert text == "the built-in sandbox delivers straight to this computer"
    known = render(Finding.URL_SANDBOX, {"url": "http://127.0.0.1:5/hook"})
    assert known.endswith("(http://127.0.0.1:5/hook)")


@pytest.mark.expected_errors(r"names \{host\}, which its finding did not bring")
def test_a_finding_missing_an_argument_shows_no_braces() -> None:
    # The check's overall deadline gives the card host's finding its seconds only.
    text = render(Finding.SDK_NO_ANSWER, {"seconds": "6"})
    assert "{" not in text and "}" not in text
    assert "6 s" in text


def test_long_lines_wrap_inside_the_list(qtbot: QtBot) -> None:
    widget = QListWidget()
    qtbot.addWidget(widget)
    widget.resize(420, 300)
    long = "a notification went out and came back through the public address " * 3
    fill_list(
        widget,
        [CheckResult("Test notification", True, long.strip()), CheckResult("Keychain", True, "ok")],
    )
    widget.show()
    qtbot.waitExposed(widget)
    first = widget.visualItemRect(widget.item(0))
    assert first.right() <= widget.viewport().width()
    assert first.height() > widget.visualItemRect(widget.item(1)).height()  # wrapped
    assert widget.horizontalScrollBar().maximum() == 0
