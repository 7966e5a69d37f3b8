"""The event table paints its rows from laid-out text: the same pixels as the item delegate,
without asking the model for every visible cell's roles at each repaint."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableView
from pytestqt.qtbot import QtBot

from checkout_desktop.domain.enums import Verdict
from checkout_desktop.store.sqlite import db
from checkout_desktop.store.sqlite.store import SqliteStore
from checkout_desktop.ui.event_model import EventListModel
from checkout_desktop.ui.text_table import PaintedRows, PaintedTextTable
from tests.gui.test_ui_event_model import insert_events


class _CountingModel(EventListModel):
    """Counts the display texts views ask for, one call per cell."""

    display_asked = 0

    def data(self, index: Any, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == Qt.ItemDataRole.DisplayRole:
            self.display_asked += 1
        return super().data(index, role)


@pytest.fixture
def model(tmp_path: Path, qtbot: QtBot) -> Iterator[_CountingModel]:
    conn: sqlite3.Connection = db.connect(tmp_path / "store.sqlite3")
    insert_events(conn, 30)
    # A quarantined delivery (its verdict in its colour) with a long reason, near the top.
    insert_events(conn, 1, start=40, verdict=Verdict.QUARANTINED, status="")
    insert_events(conn, 4, start=50, status="PRE_AUTHORIZED", charge="sale-" + "9" * 60)
    try:
        yield _CountingModel(SqliteStore(conn).events, page_size=100)
    finally:
        conn.close()


def _shown(qtbot: QtBot, view: QTableView, model: EventListModel) -> QTableView:
    qtbot.addWidget(view)
    view.setModel(model)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    view.setAlternatingRowColors(True)
    view.setWordWrap(False)
    view.verticalHeader().setVisible(False)
    view.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
    view.verticalHeader().setDefaultSectionSize(view.fontMetrics().height() + 8)
    for column, width in enumerate((150, 120, 130, 230, 100)):
        view.horizontalHeader().resizeSection(column, width)
    view.horizontalHeader().setStretchLastSection(True)
    view.resize(900, 320)
    view.show()
    qtbot.waitExposed(view)
    return view


def _focused_image(qtbot: QtBot, view: QTableView) -> QImage:
    view.activateWindow()
    view.setFocus()
    qtbot.waitUntil(view.hasFocus)
    return view.viewport().grab().toImage()


def test_rows_paint_as_the_delegate_paints_them(qtbot: QtBot, model: _CountingModel) -> None:
    painted = _shown(qtbot, PaintedTextTable(), model)
    plain = _shown(qtbot, QTableView(), model)
    assert isinstance(model, PaintedRows)

    def same(step: str) -> None:
        ours, theirs = _focused_image(qtbot, painted), _focused_image(qtbot, plain)
        assert ours.size() == theirs.size(), step
        assert ours == theirs, step

    same("first page")
    for view in (painted, plain):
        view.selectRow(4)  # the quarantined row: its verdict colour gives way to the selection
    same("a selected row with the focus on its cell")
    for view in (painted, plain):
        # Narrower columns: the long charge id and the reason elide at the right.
        view.horizontalHeader().resizeSection(3, 90)
        view.horizontalHeader().resizeSection(1, 60)
    same("narrower columns")
    for view in (painted, plain):
        view.verticalScrollBar().setValue(7)
    same("scrolled down")
    for view in (painted, plain):
        view.horizontalHeader().moveSection(4, 0)
        view.setShowGrid(False)
        view.setAlternatingRowColors(False)
    same("a moved column, no grid, no alternate rows")


def _repainted(qtbot: QtBot, view: PaintedTextTable) -> float:
    costs: list[float] = []
    view.painted = costs.append
    view.viewport().update()
    qtbot.waitUntil(lambda: bool(costs))
    return costs[0]


def test_a_repaint_asks_the_model_for_no_cell(qtbot: QtBot, model: _CountingModel) -> None:
    painted = _shown(qtbot, PaintedTextTable(), model)
    _repainted(qtbot, painted)
    model.display_asked = 0
    # The table reports each repaint's CPU (the live list spaces its inserts by it).
    assert _repainted(qtbot, painted) >= 0
    assert model.display_asked == 0
    # Rows of varying height are painted the usual way, through the delegate.
    painted.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    assert _repainted(qtbot, painted) >= 0
    assert model.display_asked >= 6 * 10
    painted.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
    model.display_asked = 0
    _repainted(qtbot, painted)
    assert model.display_asked == 0
    # The delegate's way asks once per visible cell at every repaint.
    plain = _shown(qtbot, QTableView(), model)
    plain.viewport().update()
    qtbot.waitUntil(lambda: model.display_asked >= 6 * 10)


def test_a_row_that_arrives_on_top_shows_its_own_texts(
    qtbot: QtBot, tmp_path: Path, model: _CountingModel
) -> None:
    painted = _shown(qtbot, PaintedTextTable(), model)
    plain = _shown(qtbot, QTableView(), model)
    painted.viewport().repaint()
    conn = db.connect(tmp_path / "store.sqlite3")
    try:
        ids = insert_events(conn, 2, start=90, status="REFUNDED", charge="sale-new")
    finally:
        conn.close()
    for event_id in ids:
        model.notify_stored(event_id)
    model.flush_now()
    qtbot.waitUntil(lambda: model.rowCount() == 37)
    assert model.row_texts(0)[3] == "sale-new"
    assert _focused_image(qtbot, painted) == _focused_image(qtbot, plain)
