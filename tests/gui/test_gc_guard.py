"""The GUI-thread collector: automatic collection off, cycles collected when due, on a timer."""

from __future__ import annotations

import gc
import weakref

from pytestqt.qtbot import QtBot

from checkout_desktop.collector import settle_start_up, thaw
from checkout_desktop.ui.gc_guard import MainThreadCollector


class _Node:
    def __init__(self) -> None:
        self.me = self


def test_collects_cycles_on_its_timer_and_restores_on_stop(qtbot: QtBot) -> None:
    was_enabled = gc.isenabled()
    gc.enable()
    collector = MainThreadCollector(interval_ms=10)
    try:
        collector.start()
        assert not gc.isenabled()
        node = _Node()
        alive = weakref.ref(node)
        del node
        # Allocate past generation 0's threshold so a collection is due.
        keep = [[] for _ in range(gc.get_threshold()[0] + 10)]
        assert alive() is not None  # nothing collects it on its own while disabled
        qtbot.waitUntil(lambda: alive() is None, timeout=2000)
        del keep
    finally:
        collector.stop()
        assert gc.isenabled()
        if not was_enabled:
            gc.disable()


def test_nothing_due_collects_nothing(qtbot: QtBot) -> None:
    collector = MainThreadCollector()
    gc.collect()
    assert collector.collect_due() is None


def test_settling_sets_start_up_aside_and_thawing_gives_it_back() -> None:
    alive_before = len(gc.get_objects())
    try:
        assert settle_start_up() >= alive_before // 2
        assert gc.get_freeze_count() > 0
        # What is set aside is not walked by a full collection, and is still there.
        assert len(gc.get_objects()) < alive_before // 2
        # A cycle made after start-up is still collected.
        node = _Node()
        alive = weakref.ref(node)
        del node
        gc.collect()
        assert alive() is None
    finally:
        thaw()
    assert gc.get_freeze_count() == 0
    assert len(gc.get_objects()) >= alive_before // 2
