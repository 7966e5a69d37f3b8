"""Money fields as a clerk uses them: entering selects the amount, typing replaces it, limits."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtCore import QLocale, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QLineEdit, QVBoxLayout, QWidget
from pytestqt.qtbot import QtBot

from checkout_desktop.settings import LARGE_AMOUNT_WARNING, Settings
from checkout_desktop.ui.amount_edit import AmountEdit
from checkout_desktop.ui.charge_form import ChargeForm


@pytest.fixture(autouse=True)
def pt_br_locale() -> Iterator[None]:
    previous = QLocale()
    QLocale.setDefault(QLocale(QLocale.Language.Portuguese, QLocale.Country.Brazil))
    yield
    QLocale.setDefault(previous)


def _text(edit: QLineEdit) -> str:
    return edit.text().replace("\u00a0", " ")


def _window_with(qtbot: QtBot, edit: AmountEdit) -> tuple[QWidget, QLineEdit]:
    """A window holding a plain field before the amount, so Tab moves focus into the amount."""
    window = QWidget()
    qtbot.addWidget(window)
    before = QLineEdit(window)
    edit.setParent(window)
    layout = QVBoxLayout(window)
    layout.addWidget(before)
    layout.addWidget(edit)
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    before.setFocus()
    qtbot.waitUntil(before.hasFocus, timeout=2000)
    return window, before


def test_tabbing_into_a_prefilled_amount_selects_it_and_typing_replaces_it(qtbot: QtBot) -> None:
    edit = AmountEdit()
    edit.set_centavos(10000)
    _window, before = _window_with(qtbot, edit)
    qtbot.keyClick(before, Qt.Key.Key_Tab)
    qtbot.waitUntil(edit.hasFocus, timeout=2000)
    assert edit.replacing()
    assert edit.selectedText() == edit.text()
    # The reported case: R$ 100,00 prefilled, the clerk types 4000 meaning R$ 40,00.
    qtbot.keyClicks(edit, "4000")
    assert edit.centavos() == 4000
    assert _text(edit) == "R$ 40,00"
    assert not edit.replacing()


def test_ctrl_a_selects_the_amount_so_the_next_digit_starts_over(qtbot: QtBot) -> None:
    edit = AmountEdit()
    qtbot.addWidget(edit)
    qtbot.keyClicks(edit, "12345")
    assert edit.centavos() == 12345
    qtbot.keyClick(edit, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    assert edit.replacing()
    assert edit.selectedText() == edit.text()
    qtbot.keyClicks(edit, "7")
    assert edit.centavos() == 7
    qtbot.keyClicks(edit, "5")
    assert edit.centavos() == 75  # appends again once a new amount was started


def test_backspace_on_a_selected_amount_clears_it(qtbot: QtBot) -> None:
    edit = AmountEdit()
    qtbot.addWidget(edit)
    qtbot.keyClicks(edit, "999")
    qtbot.keyClick(edit, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClick(edit, Qt.Key.Key_Backspace)
    assert edit.centavos() == 0
    assert not edit.replacing()


def test_leaving_the_field_drops_the_selection(qtbot: QtBot) -> None:
    edit = AmountEdit()
    edit.set_centavos(500)
    _window, before = _window_with(qtbot, edit)
    qtbot.keyClick(before, Qt.Key.Key_Tab)
    qtbot.waitUntil(edit.hasFocus, timeout=2000)
    before.setFocus()
    qtbot.waitUntil(before.hasFocus, timeout=2000)
    assert not edit.replacing()
    assert edit.selectedText() == ""


def test_a_ceiling_refuses_the_digit_that_would_pass_it_and_keeps_the_value(
    qtbot: QtBot,
) -> None:
    edit = AmountEdit()
    qtbot.addWidget(edit)
    edit.set_maximum(10000)
    qtbot.keyClicks(edit, "1000")
    with qtbot.waitSignal(edit.rejected, timeout=1000) as blocker:
        qtbot.keyClick(edit, Qt.Key.Key_4)
    assert edit.centavos() == 1000
    assert "R$ 100,00" in str(blocker.args[0]).replace("\u00a0", " ")
    QGuiApplication.clipboard().setText("150,00")
    with qtbot.waitSignal(edit.rejected, timeout=1000):
        qtbot.keyClick(edit, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)
    assert edit.centavos() == 1000
    edit.set_maximum(None)
    qtbot.keyClicks(edit, "4")
    assert edit.centavos() == 10004


def test_a_paste_above_the_terminal_maximum_says_so(qtbot: QtBot) -> None:
    edit = AmountEdit()
    qtbot.addWidget(edit)
    QGuiApplication.clipboard().setText("1.000.000.000,00")
    with qtbot.waitSignal(edit.rejected, timeout=1000) as blocker:
        qtbot.keyClick(edit, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)
    assert "largest amount" in blocker.args[0]
    assert edit.centavos() == 0


def test_large_amounts_are_flagged_on_the_charge_form(qtbot: QtBot) -> None:
    form = ChargeForm()
    qtbot.addWidget(form)
    form.show()
    assert Settings().ui.large_amount_warning == LARGE_AMOUNT_WARNING == 5_000_00
    qtbot.keyClicks(form.amount, "500000")  # exactly R$ 5.000,00: no warning
    assert not form.large_amount.isVisible()
    qtbot.keyClicks(form.amount, "1")  # R$ 50.000,01
    assert form.large_amount.isVisible()
    assert form.large_amount.text()
    form.set_large_amount_warning(0)  # the shop turned it off
    assert not form.large_amount.isVisible()
    form.set_large_amount_warning(100_000_00)
    assert not form.large_amount.isVisible()
    form.set_large_amount_warning(1_00)
    assert form.large_amount.isVisible()
    form.reset()
    assert not form.large_amount.isVisible()
