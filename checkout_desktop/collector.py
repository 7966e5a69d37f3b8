"""Setting start-up's objects aside from Python's cycle collector once a process has started.

A full collection walks every tracked object. After start-up most of them (modules, classes,
the service's models, the window) live until exit, and walking them again is 40–60 ms of the
thread that collects on a two-core machine: the window and the inbox's acknowledgements wait
behind it. `gc.freeze` sets them aside; later collections walk only what came after.
"""

from __future__ import annotations

import gc
import logging

logger = logging.getLogger(__name__)


def settle_start_up() -> int:
    """Collect once, then keep every object alive now out of later collections (gc.freeze).

    Call when start-up is over, on the thread that collects; returns how many objects were set
    aside. Objects set aside are still freed by reference counting; only a cycle among them
    waits for `thaw`."""
    gc.collect()
    gc.freeze()
    count = gc.get_freeze_count()
    logger.info("start-up settled: %d objects kept out of later collections", count)
    return count


def thaw() -> None:
    """Give what `settle_start_up` set aside back to the collector (the process is stopping)."""
    gc.unfreeze()
