"""The lines of a connection test: one result per check, shown as ✔, ⚠ or ✘ in a list."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QListView, QListWidget, QListWidgetItem

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class CheckResult:
    """One step of the connection test: failed, worked, or worked with a warning."""

    name: str
    ok: bool
    detail: str
    warning: bool = False
    """It works, but not fully (a listener without a public URL, say): shown amber, not green."""
    technical: str = ""
    """The technical detail, in the tooltip only (the line says `detail`, in the clerk's words)."""
    blocks_start: bool = False
    """When this check fails, the terminal will not start (the shop's shared database)."""


def fill_list(widget: QListWidget, results: list[CheckResult]) -> None:
    """Show each result as one line: ✔ works, ⚠ works with a warning, ✘ does not work."""
    widget.clear()
    # Each line whole inside the list, wrapped: no sideways scrolling to read a result.
    widget.setWordWrap(True)
    widget.setResizeMode(QListView.ResizeMode.Adjust)
    widget.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    for result in results:
        if not result.ok:
            mark, colour = "✘", QColor("#b3261e")
        elif result.warning:
            mark, colour = "⚠", QColor("#8a5a00")
        else:
            mark, colour = "✔", QColor("#1b6e2a")
        item = QListWidgetItem(f"{mark} {result.name}: {result.detail}", widget)
        item.setForeground(colour)
        item.setToolTip(
            f"{result.detail}\n\n{result.technical}" if result.technical else result.detail
        )


__all__ = ["CheckResult", "fill_list"]
