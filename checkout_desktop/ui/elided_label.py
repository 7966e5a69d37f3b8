"""A one-line label that gives up width before the window does: it elides, never widens the row.

A status bar's fields are as wide as their texts, and pt-BR texts are long; on a 1024 px screen
their sum pushed the window past the screen's edge. This label asks for its whole text when there
is room and shrinks to a few characters and an ellipsis when there is not; the whole text is then
its tooltip, unless a tooltip of its own was set.
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QPainter, QPaintEvent, QResizeEvent
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget

_KEPT_CHARACTERS = 8


class ElidedLabel(QLabel):
    """A QLabel for plain one-line text whose minimum width is a few characters."""

    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(text, parent)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        self._own_tooltip = ""

    def setToolTip(self, text: str) -> None:
        self._own_tooltip = text
        self._update_tooltip()

    def setText(self, text: str) -> None:
        super().setText(text)
        self._update_tooltip()

    def is_elided(self) -> bool:
        """Whether the text shown is cut short."""
        width = self.contentsRect().width()
        return self.fontMetrics().horizontalAdvance(self.text()) > width

    def shown_text(self) -> str:
        """The text as painted: whole, or cut with an ellipsis to the width there is."""
        return self.fontMetrics().elidedText(
            self.text(), Qt.TextElideMode.ElideRight, self.contentsRect().width()
        )

    def minimumSizeHint(self) -> QSize:
        hint = super().minimumSizeHint()
        metrics = self.fontMetrics()
        short = metrics.horizontalAdvance(self.text()[:_KEPT_CHARACTERS] + "…")
        margins = self.contentsMargins()
        width = min(hint.width(), short + margins.left() + margins.right())
        return QSize(width, hint.height())

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        self.style().drawItemText(
            painter,
            self.contentsRect(),
            int(self.alignment()),
            self.palette(),
            self.isEnabled(),
            self.shown_text(),
            self.foregroundRole(),
        )
        painter.end()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._update_tooltip()

    def _update_tooltip(self) -> None:
        if self._own_tooltip:
            super().setToolTip(self._own_tooltip)
        elif self.is_elided():
            super().setToolTip(self.text())
        else:
            super().setToolTip("")
