"""The read-only table behaviour every list model shares: flat rows, fixed headed columns."""

from __future__ import annotations

from typing import Any, ClassVar

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt

ModelIndex = QModelIndex | QPersistentModelIndex


class ReadOnlyTableModel(QAbstractTableModel):
    """Subclasses name their COLUMNS and set `_headers` (translated titles, same order).

    No `flags` here: a view asks for every visible cell's flags at each repaint, and the table
    model's own answer (enabled, selectable, no children) is what a read-only row needs,
    without a call into Python per cell.
    """

    COLUMNS: ClassVar[tuple[str, ...]] = ()
    _headers: tuple[str, ...] = ()

    def columnCount(self, parent: ModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.COLUMNS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if (
            role == Qt.ItemDataRole.DisplayRole
            and orientation == Qt.Orientation.Horizontal
            and 0 <= section < len(self._headers)
        ):
            return self._headers[section]
        return None
