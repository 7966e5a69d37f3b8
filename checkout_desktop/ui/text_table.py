"""A table view that paints its plain-text rows itself, from text laid out once per cell.

The live event list repaints its whole viewport every time rows arrive at the top (every row
moves down). Painted cell by cell through the item delegate, each repaint asks the model for
seven roles of every visible cell, shapes and elides every text again with a new text layout,
and measures it twice: 15–20 ms of the main thread's CPU per repaint on a busy two-core machine,
most of a core at 200 deliveries a second. Here a row's texts come from the model once, each
cell's text is elided and laid out once (`QStaticText`) and kept while its column keeps its
width, and a repaint is one background fill per row and one draw per cell.

What is painted is what the delegate painted for these rows: plain left-aligned text, elided
at the right, the alternate-row and selection backgrounds and the text colours of the palette,
a cell's own text colour where the model gives one (outside the selection, as the style does),
the grid, and the focus frame on the current cell. Everything else a table view does (keyboard,
mouse, selection, scrolling, fetching more rows, tooltips, accessibility) is the view's own and
reads the model as before. The model must have fixed-height rows and give its rows' texts
through `PaintedRows`; rows of varying height, hidden or moved rows are painted the usual way.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable
from typing import Protocol, runtime_checkable

from PySide6.QtCore import QLine, QModelIndex, QRect, Qt
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFontMetrics,
    QPainter,
    QPaintEvent,
    QPalette,
    QPen,
    QStaticText,
)
from PySide6.QtWidgets import (
    QHeaderView,
    QStyle,
    QStyleOptionFocusRect,
    QStyleOptionViewItem,
    QTableView,
    QWidget,
)

MAX_CACHED_CELLS = 4_000
"""Laid-out cells kept; a few screens' worth. Past it the cache starts again (a cell costs
about a delegate's paint to lay out again)."""


@runtime_checkable
class PaintedRows(Protocol):
    """What the view needs from its model to paint a row without asking per cell and role."""

    def row_key(self, row: int) -> Hashable:
        """A key that stays with the row's content while it is shown (e.g. its stored id)."""
        ...

    def row_texts(self, row: int) -> tuple[str, ...]:
        """The row's display texts, one per column."""
        ...

    def row_colours(self, row: int) -> tuple[QBrush | None, ...] | None:
        """The row's own text colours per column (None: the palette's), or None for none."""
        ...


class PaintedTextTable(QTableView):
    """A QTableView whose viewport paints `PaintedRows` rows from cached laid-out text.

    `painted`, when set, is told each repaint's CPU time (seconds, this thread): the live
    list spaces its inserts by it.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.painted: Callable[[float], None] | None = None
        # (row key, column) -> (width it was elided for, laid-out text)
        self._cells: dict[tuple[Hashable, int], tuple[int, QStaticText]] = {}
        self._font_key = ""
        self.setWordWrap(False)

    def reset(self) -> None:
        """The model was reset: its rows' texts may be new, so is every cell's layout."""
        self._cells.clear()
        super().reset()

    def paintEvent(self, event: QPaintEvent) -> None:
        started = time.thread_time()
        model = self.model()
        if isinstance(model, PaintedRows) and self._uniform_rows():
            self._paint_rows(model, event.rect())
        else:
            super().paintEvent(event)
        if self.painted is not None:
            self.painted(time.thread_time() - started)

    def _uniform_rows(self) -> bool:
        """Rows of one fixed height, none hidden or moved: where each row is, is arithmetic
        (otherwise the view paints as any table view does)."""
        vertical = self.verticalHeader()
        return (
            vertical.sectionResizeMode(0) == QHeaderView.ResizeMode.Fixed
            and vertical.hiddenSectionCount() == 0
            and not vertical.sectionsMoved()
        )

    def _paint_rows(self, model: PaintedRows, dirty: QRect) -> None:
        viewport = self.viewport()
        rows = self.model().rowCount()
        font_key = self.font().key()
        if font_key != self._font_key:
            self._cells.clear()
            self._font_key = font_key
        if len(self._cells) > MAX_CACHED_CELLS:
            self._cells.clear()
        header = self.horizontalHeader()
        columns: list[tuple[int, int, int]] = []  # (logical column, x, width)
        for visual in range(header.count()):
            logical = header.logicalIndex(visual)
            if header.isSectionHidden(logical):
                continue
            x = header.sectionViewportPosition(logical)
            width = header.sectionSize(logical)
            if width > 0 and x + width > dirty.left() and x <= dirty.right():
                columns.append((logical, x, width))
        painter = QPainter(viewport)
        try:
            if rows and columns:
                self._paint_visible(painter, model, rows, columns, dirty)
        finally:
            painter.end()

    def _colour_group(self) -> QPalette.ColorGroup:
        if not self.isEnabled():
            return QPalette.ColorGroup.Disabled
        if not self.isActiveWindow():
            return QPalette.ColorGroup.Inactive
        return QPalette.ColorGroup.Active

    def _paint_visible(
        self,
        painter: QPainter,
        model: PaintedRows,
        rows: int,
        columns: list[tuple[int, int, int]],
        dirty: QRect,
    ) -> None:
        vertical = self.verticalHeader()
        height = vertical.defaultSectionSize()
        first_y = vertical.sectionViewportPosition(0)  # ≤ 0 when scrolled down
        first = max(0, (dirty.top() - first_y) // height)
        last = min(rows - 1, (dirty.bottom() - first_y) // height)
        if first > last:
            return
        group = self._colour_group()
        palette = self.palette()
        text_pen = QPen(palette.color(group, QPalette.ColorRole.Text))
        selected_pen = QPen(palette.color(group, QPalette.ColorRole.HighlightedText))
        highlight = palette.brush(group, QPalette.ColorRole.Highlight)
        alternate = palette.brush(group, QPalette.ColorRole.AlternateBase)
        alternating = self.alternatingRowColors()
        selection = self.selectionModel()
        selected = (
            {index.row() for index in selection.selectedRows()}
            if selection is not None
            else set[int]()
        )
        style = self.style()
        margin = style.pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, self) + 1
        metrics = QFontMetrics(self.font())
        grid = self.showGrid()
        # Centred in the cell as the delegate centres it: the row less its grid line.
        text_top = (height - (1 if grid else 0) - metrics.height()) // 2
        left = columns[0][1]
        right = max(x + width for _logical, x, width in columns)
        cells = self._cells
        for row in range(first, last + 1):
            y = first_y + row * height
            is_selected = row in selected
            if is_selected:
                painter.fillRect(left, y, right - left, height, highlight)
            elif alternating and row % 2:
                painter.fillRect(left, y, right - left, height, alternate)
            key = model.row_key(row)
            texts = model.row_texts(row)
            colours = None if is_selected else model.row_colours(row)
            pen = selected_pen if is_selected else text_pen
            painter.setPen(pen)
            for logical, x, width in columns:
                room = width - 2 * margin - (1 if grid else 0)
                cached = cells.get((key, logical))
                if cached is None or cached[0] != room:
                    text = texts[logical] if logical < len(texts) else ""
                    laid = QStaticText(
                        metrics.elidedText(text, Qt.TextElideMode.ElideRight, max(0, room))
                    )
                    laid.setTextFormat(Qt.TextFormat.PlainText)
                    laid.prepare(font=self.font())
                    cached = cells[(key, logical)] = (room, laid)
                colour = colours[logical] if colours is not None else None
                if colour is not None:
                    painter.setPen(QPen(colour, 1))
                    painter.drawStaticText(x + margin, y + text_top, cached[1])
                    painter.setPen(pen)
                else:
                    painter.drawStaticText(x + margin, y + text_top, cached[1])
        top = first_y + first * height
        bottom = first_y + (last + 1) * height
        if grid:
            self._paint_grid(painter, columns, QRect(left, top, right - left, bottom - top), height)
        self._paint_focus(painter, columns, first, last, first_y, height)

    def _paint_grid(
        self, painter: QPainter, columns: list[tuple[int, int, int]], area: QRect, height: int
    ) -> None:
        """Each painted row's bottom line and each column's right line, as the view draws them."""
        option = QStyleOptionViewItem()
        self.initViewItemOption(option)
        rgb = self.style().styleHint(QStyle.StyleHint.SH_Table_GridLineColor, option, self)
        colour = QColor.fromRgba(rgb & 0xFFFFFFFF)
        painter.setPen(QPen(colour, 0, self.gridStyle()))
        top, bottom = area.top(), area.top() + area.height()
        lines = [
            QLine(area.left(), y, area.left() + area.width() - 1, y)
            for y in range(top + height - 1, bottom, height)
        ]
        lines.extend(QLine(x + w - 1, top, x + w - 1, bottom - 1) for _logical, x, w in columns)
        painter.drawLines(lines)

    def _paint_focus(
        self,
        painter: QPainter,
        columns: list[tuple[int, int, int]],
        first: int,
        last: int,
        first_y: int,
        height: int,
    ) -> None:
        current = self.currentIndex()
        if not (self.hasFocus() and current.isValid() and first <= current.row() <= last):
            return
        for logical, x, width in columns:
            if logical != current.column():
                continue
            option = QStyleOptionFocusRect()
            option.initFrom(self)
            gridline = 1 if self.showGrid() else 0
            option.rect = QRect(
                x, first_y + current.row() * height, width - gridline, height - gridline
            )
            option.state |= QStyle.StateFlag.State_KeyboardFocusChange
            if self.selectionModel() is not None and self.selectionModel().isSelected(
                self.model().index(current.row(), logical, QModelIndex())
            ):
                option.backgroundColor = self.palette().color(
                    self._colour_group(), QPalette.ColorRole.Highlight
                )
            else:
                option.backgroundColor = self.palette().color(
                    self._colour_group(), QPalette.ColorRole.Base
                )
            self.style().drawPrimitive(
                QStyle.PrimitiveElement.PE_FrameFocusRect, option, painter, self
            )
