"""A dialog, once a run, when the inbox for payment notifications cannot start.

The problem banner and the status bar keep saying it while it lasts; the dialog makes sure the
person at the counter saw it (a listener that cannot start is never silent).
"""

from __future__ import annotations

import logging

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QMessageBox, QWidget

from checkout_desktop.domain.inbox_events import ListenerState, ListenerStateChanged
from checkout_desktop.ui.adapter import QtEventAdapter

logger = logging.getLogger(__name__)


class ListenerFailureNotice(QObject):
    """Opens one dialog over `window` the first time the inbox's listener fails in this run."""

    def __init__(self, adapter: QtEventAdapter, window: QWidget) -> None:
        super().__init__(window)
        self._window = window
        self._shown = False
        self.box: QMessageBox | None = None
        adapter.listener_state_changed.connect(self.on_listener_state)

    def on_listener_state(self, event: ListenerStateChanged) -> None:
        if event.state != ListenerState.FAILED or self._shown:
            return
        self._shown = True
        box = QMessageBox(self._window)
        box.setObjectName("listenerCannotStart")
        box.setIcon(QMessageBox.Icon.Warning)
        box.setWindowTitle(self.tr("Payment notifications"))
        box.setText(
            self.tr(
                "The inbox did not start, so payment notifications cannot arrive at this terminal."
            )
        )
        box.setInformativeText(
            self.tr(
                "Sales still work: their final status is asked of the service instead. Check the "
                "port and the tunnel in Settings; the red line above the tabs stays until the "
                "inbox works."
            )
        )
        # The socket's or the tunnel's own words, for whoever fixes it.
        box.setDetailedText(
            self.tr("Technical detail: {detail}").format(detail=event.reason or "—")
        )
        box.setStandardButtons(QMessageBox.StandardButton.Ok)
        box.finished.connect(self._closed)
        self.box = box
        logger.info("inbox failure shown in a dialog: %s", event.reason)
        box.open()

    def _closed(self, _result: int) -> None:
        if self.box is not None:
            self.box.deleteLater()
            self.box = None


__all__ = ["ListenerFailureNotice"]
