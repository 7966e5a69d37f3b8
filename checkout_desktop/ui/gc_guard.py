"""Python's cycle collector runs only on the GUI thread, driven by a Qt timer.

A collection triggered by an allocation on another thread (the inbox writer, the sandbox
output pump, an import worker) can free a QObject there; Qt cannot unregister that object's
timers from a foreign thread, and the next time one fires the process dies in
QTimerInfoList::activateTimers. Reference counting still frees almost everything at once;
only cycles wait for the next tick.

Once start-up is over, what it built is set aside from later collections
(`checkout_desktop.collector.settle_start_up`, called by `ui.launch`).
"""

from __future__ import annotations

import gc
import logging

from PySide6.QtCore import QObject, QTimer

logger = logging.getLogger(__name__)


class MainThreadCollector(QObject):
    """Turns automatic collection off and collects, when due, from a timer on its thread."""

    def __init__(self, parent: QObject | None = None, *, interval_ms: int = 500) -> None:
        super().__init__(parent)
        self._thresholds = gc.get_threshold()
        self._was_enabled = gc.isenabled()
        self._timer = QTimer(self)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self.collect_due)

    def start(self) -> None:
        gc.disable()
        self._timer.start()

    def stop(self) -> None:
        self._timer.stop()
        if self._was_enabled:
            gc.enable()

    def collect_due(self) -> int | None:
        """Collect the oldest generation whose threshold is exceeded; its number, or None."""
        counts = gc.get_count()
        due: int | None = None
        for generation, (count, threshold) in enumerate(zip(counts, self._thresholds, strict=True)):
            if threshold and count > threshold:
                due = generation
            else:
                break
        if due is not None:
            gc.collect(due)
        return due


def collect_on_this_thread(app: QObject) -> MainThreadCollector:
    """Start a collector owned by `app` (kept alive by it) and return it."""
    collector = MainThreadCollector(app)
    collector.setObjectName("mainThreadCollector")
    collector.start()
    return collector
