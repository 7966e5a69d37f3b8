"""The tender choice on the charge screen: Card | PicPay | PIX, by mouse or by Ctrl+1, 2 and 3.

F5 to F9 already switch the window's tabs, so the tenders take Ctrl and a digit, in the order
the buttons are shown.
"""

from __future__ import annotations

import logging

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QButtonGroup, QHBoxLayout, QLabel, QPushButton, QWidget

from checkout_desktop.domain.records import CARD, PIX, WALLET

logger = logging.getLogger(__name__)

TENDER_KEYS = {CARD: "Ctrl+1", WALLET: "Ctrl+2", PIX: "Ctrl+3"}


class TenderBar(QWidget):
    """Three exclusive buttons; `changed` says which tender the clerk chose."""

    changed = Signal(str)
    """The chosen tender's kind: card, wallet or pix."""

    def __init__(
        self, parent: QWidget | None = None, *, shortcuts_on: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self._kind = CARD
        self._group = QButtonGroup(self)
        self._group.setExclusive(True)
        self.buttons: dict[str, QPushButton] = {}
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        label = QLabel(self.tr("Pay with"), self)
        layout.addWidget(label)
        texts = {
            CARD: self.tr("Card (Ctrl+1)"),
            WALLET: self.tr("PicPay (Ctrl+2)"),
            PIX: self.tr("PIX (Ctrl+3)"),
        }
        for kind, text in texts.items():
            button = QPushButton(text, self)
            button.setObjectName(f"tender_{kind}")
            button.setCheckable(True)
            button.setFocusPolicy(Qt.FocusPolicy.TabFocus)
            self._group.addButton(button)
            self.buttons[kind] = button
            layout.addWidget(button)
            button.toggled.connect(lambda on, chosen=kind: self._toggled(chosen, on))
            QShortcut(
                QKeySequence(TENDER_KEYS[kind]),
                shortcuts_on or self,
                lambda chosen=kind: self.choose(chosen),
            )
        layout.addStretch(1)
        self.buttons[CARD].setChecked(True)

    @property
    def kind(self) -> str:
        return self._kind

    def choose(self, kind: str) -> None:
        if kind in self.buttons and self.isEnabled():
            self.buttons[kind].setChecked(True)

    def _toggled(self, kind: str, on: bool) -> None:
        if on and kind != self._kind:
            self._kind = kind
            self.changed.emit(kind)


__all__ = ["TENDER_KEYS", "TenderBar"]
