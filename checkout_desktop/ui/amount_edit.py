"""A BRL amount field typed cents-first, as on a card machine: 1, 2, 3 gives R$ 1,23.

Entering the field (Tab, click, shortcut) or Ctrl+A selects the whole amount, and the next digit
starts a new amount instead of appending to the old one, as a clerk expects when correcting a
prefilled value. An optional ceiling refuses digits that would exceed it (the next card of a
split sale can pay at most what is left), and an optional warning limit flags large amounts.
"""

from __future__ import annotations

import logging

from PySide6.QtCore import QLocale, Qt, QTimer, Signal
from PySide6.QtGui import QFocusEvent, QGuiApplication, QKeyEvent, QKeySequence
from PySide6.QtWidgets import QLineEdit, QWidget

from checkout_desktop.domain.money import (
    MAX_CENTAVOS,
    AmountTooLarge,
    MoneyError,
    keypad_append,
    keypad_backspace,
    parse_brl,
)
from checkout_desktop.ui.formatting import format_money

logger = logging.getLogger(__name__)

_DIGIT_KEYS = {getattr(Qt.Key, f"Key_{d}"): str(d) for d in range(10)}


class AmountEdit(QLineEdit):
    """Digits push in from the right; Backspace drops the last one; Delete/Escape clear."""

    # object, not int: a Qt int is 32-bit and the largest amount (99,999,999,99) is not.
    value_changed = Signal(object)
    """The amount in centavos (int) after every change."""
    rejected = Signal(str)
    """Why a key or a paste was refused (above the maximum, not an amount), translated."""
    large_amount = Signal(bool)
    """Whether the amount is now above the warning limit (emitted when that changes)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._centavos = 0
        self._maximum: int | None = None
        self._warn_above: int | None = None
        self._large = False
        self._zero_empty = False
        # True while the whole amount is selected: the next digit replaces it.
        self._replace = False
        self.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        # The text is always the formatted value; the cursor has no meaning in it.
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.NoContextMenu)
        self._render()

    def centavos(self) -> int:
        return self._centavos

    def set_centavos(self, value: int) -> None:
        if value < 0:
            raise MoneyError("an amount cannot be negative")
        changed = value != self._centavos
        self._centavos = value
        self._render()
        if changed:
            self.value_changed.emit(value)

    def clear_amount(self) -> None:
        self.set_centavos(0)

    def set_zero_empty(self, empty: bool) -> None:
        """Show no amount as an empty field (its placeholder says what that means), where zero
        means "any" rather than R$ 0,00 (a search)."""
        self._zero_empty = empty
        self._render()

    def maximum(self) -> int | None:
        return self._maximum

    def set_maximum(self, centavos: int | None) -> None:
        """The largest amount a key may produce here (None: the terminal's own maximum)."""
        if centavos is not None and centavos < 0:
            raise MoneyError("a maximum cannot be negative")
        self._maximum = centavos

    def set_warning_limit(self, centavos: int | None) -> None:
        """Amounts above this are accepted but flagged through `large_amount` (None: never)."""
        if centavos is not None and centavos < 0:
            raise MoneyError("a warning limit cannot be negative")
        self._warn_above = centavos
        self._check_large()

    def is_large(self) -> bool:
        return self._large

    def replacing(self) -> bool:
        """Whether the next digit starts a new amount (the whole amount is selected)."""
        return self._replace

    def _check_large(self) -> None:
        large = self._warn_above is not None and self._centavos > self._warn_above
        if large != self._large:
            self._large = large
            self.large_amount.emit(large)

    def _render(self) -> None:
        if self._zero_empty and self._centavos == 0:
            self.setText("")
        else:
            self.setText(format_money(self._centavos, self.locale() or QLocale()))
        if self._replace:
            self.selectAll()
        else:
            self.setCursorPosition(len(self.text()))
        self._check_large()

    def _select_whole(self) -> None:
        self._replace = True
        self.selectAll()

    def focusInEvent(self, event: QFocusEvent) -> None:
        super().focusInEvent(event)
        self._select_whole()
        # A click's own press/release would clear the selection made during focus-in.
        QTimer.singleShot(0, self, self._reselect_if_focused)

    def _reselect_if_focused(self) -> None:
        if self.hasFocus() and self._replace:
            self.selectAll()

    def focusOutEvent(self, event: QFocusEvent) -> None:
        self._replace = False
        super().focusOutEvent(event)
        self.setCursorPosition(len(self.text()))

    def _too_much(self, value: int) -> str | None:
        if self._maximum is not None and value > self._maximum:
            return self.tr("At most {amount} here.").format(
                amount=format_money(self._maximum, self.locale() or QLocale())
            )
        if value > MAX_CENTAVOS:
            return self.tr("The largest amount the terminal takes is {amount}.").format(
                amount=format_money(MAX_CENTAVOS, self.locale() or QLocale())
            )
        return None

    def _type_digit(self, digit: str) -> None:
        start = 0 if self._replace else self._centavos
        try:
            value = keypad_append(start, digit)
        except AmountTooLarge:
            value = MAX_CENTAVOS + 1
        refused = self._too_much(value)
        if refused is not None:
            self.rejected.emit(refused)
            return
        self._replace = False
        self.set_centavos(value)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        key = event.key()
        if key in _DIGIT_KEYS and not event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier:
            self._type_digit(_DIGIT_KEYS[key])
            return
        if event.matches(QKeySequence.StandardKey.SelectAll):
            self._select_whole()
            return
        if key == Qt.Key.Key_Backspace:
            value = 0 if self._replace else keypad_backspace(self._centavos)
            self._replace = False
            self.set_centavos(value)
            return
        if key in (Qt.Key.Key_Delete, Qt.Key.Key_Escape) and self._centavos:
            self._replace = False
            self.set_centavos(0)
            return
        if event.matches(QKeySequence.StandardKey.Paste):
            self._paste(QGuiApplication.clipboard().text())
            return
        if event.matches(QKeySequence.StandardKey.Copy) or key in (
            Qt.Key.Key_Tab,
            Qt.Key.Key_Backtab,
            Qt.Key.Key_Return,
            Qt.Key.Key_Enter,
            Qt.Key.Key_Escape,
        ):
            super().keyPressEvent(event)
            return
        # Every other key (letters, arrows, a stray comma) would only move the cursor or edit
        # the formatted text; swallowing them keeps the field's value and text in step.
        event.accept()

    def _paste(self, text: str) -> None:
        try:
            value = parse_brl(text)
        except AmountTooLarge:
            value = MAX_CENTAVOS + 1
        except MoneyError:
            self.rejected.emit(
                self.tr("That is not an amount in reais (example: {example}).").format(
                    example=format_money(123456, self.locale() or QLocale())
                )
            )
            return
        if value < 0:
            self.rejected.emit(self.tr("A charge amount cannot be negative."))
            return
        refused = self._too_much(value)
        if refused is not None:
            self.rejected.emit(refused)
            return
        self._replace = False
        self.set_centavos(value)
