"""Qt test fixtures: a qasync loop on pytest-qt's QApplication, and awaiting from sync tests."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine, Iterator
from typing import Any, TypeVar

# QtWebEngine must be loaded before the QApplication exists (it sets up shared OpenGL
# contexts then); pytest-qt creates the application lazily, after this import.
import PySide6.QtWebEngineWidgets  # noqa: F401
import pytest
import qasync
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

logger = logging.getLogger(__name__)

T = TypeVar("T")


@pytest.fixture
def qloop(qapp: QApplication) -> Iterator[qasync.QEventLoop]:
    """An asyncio loop driven by Qt: coroutines advance whenever Qt processes events.

    already_running=True because pytest-qt's qtbot waits, not run_forever(), spin Qt here.
    """
    loop = qasync.QEventLoop(qapp, already_running=True)
    asyncio.set_event_loop(loop)
    try:
        yield loop
    finally:
        # Not loop.stop(): it calls QApplication.exit(), which with no exec() running leaves
        # Qt's "quit now" flag set, so every later QEventLoop.exec() (each qtbot wait) returns
        # at once without processing events and the next test's coroutines never run.
        loop._QEventLoop__is_running = False  # type: ignore[attr-defined]
        loop.close()
        # qasync marked the loop as running when it was created "already running";
        # clear that so the next test (or pytest-asyncio) starts from a clean slate.
        asyncio.events._set_running_loop(None)
        asyncio.set_event_loop(None)


@pytest.fixture
def arun(qtbot: QtBot, qloop: qasync.QEventLoop) -> Callable[..., Any]:
    """Run a coroutine (or await a future) from a sync test by spinning Qt until it is done.

    Never use this inside an `async def` test: a nested Qt wait there starves asyncio.
    """

    def _run(aw: Coroutine[Any, Any, T] | asyncio.Future[T], timeout: int = 5000) -> T:
        task = asyncio.ensure_future(aw, loop=qloop)
        qtbot.waitUntil(task.done, timeout=timeout)
        return task.result()

    return _run
