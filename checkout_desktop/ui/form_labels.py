"""Form labels with room for their underlined shortcut letter, so no last letter is cut off."""

from __future__ import annotations

import logging

from PySide6.QtWidgets import QFormLayout, QLabel, QWidget

logger = logging.getLogger(__name__)


def give_labels_room(root: QWidget) -> None:
    """Widen each form label under `root` by about one letter.

    A label measures its text as one word, but draws the shortcut letter apart to underline it,
    and that letter loses its kerning with the next ("&Telefone", "&Valor"): the drawn word is
    wider than the measured one and its last letter was cut at the label's edge. Call it once
    the labels have their (translated) texts.
    """
    for layout in root.findChildren(QFormLayout):
        for row in range(layout.rowCount()):
            item = layout.itemAt(row, QFormLayout.ItemRole.LabelRole)
            label = item.widget() if item is not None else None
            if isinstance(label, QLabel) and label.text():
                slack = label.fontMetrics().averageCharWidth()
                label.setMinimumWidth(label.sizeHint().width() + slack)


__all__ = ["give_labels_room"]
