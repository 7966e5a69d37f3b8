"""A BRL amount field typed cents-first, as on a card machine: 1, 2, 3 gives R$ 1,23."""

from __future__ import annotations

import logging

from PySide6.QtCore import QLocale, Qt, Signal
from PySide6.QtGui import QGuiApplication, QKeyEvent, QKeySequence
from PySide6.QtWidgets import QLineEdit, QWidget

from checkout_desktop.domain.money import (
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
    """Why a key or a paste was refused (above the maximum, not an amount)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._centavos = 0
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

    def _render(self) -> None:
        self.setText(format_money(self._centavos, self.locale() or QLocale()))
        self.setCursorPosition(len(self.text()))

    def keyPressEvent(self, event: QKeyEvent) -> None:
        key = event.key()
        if key in _DIGIT_KEYS and not event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier:
            try:
                self.set_centavos(keypad_append(self._centavos, _DIGIT_KEYS[key]))
            except MoneyError as exc:
                self.rejected.emit(str(exc))
            return
        if key == Qt.Key.Key_Backspace:
            self.set_centavos(keypad_backspace(self._centavos))
            return
        if key in (Qt.Key.Key_Delete, Qt.Key.Key_Escape) and self._centavos:
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
        except MoneyError as exc:
            self.rejected.emit(str(exc))
            return
        if value < 0:
            self.rejected.emit(self.tr("a charge amount cannot be negative"))
            return
        self.set_centavos(value)
