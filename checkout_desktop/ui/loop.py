"""The one place that runs coroutines on a qasync loop: Qt and asyncio share one thread.

`run` is the program's way (the window, the self-test, scripts): it owns the loop and runs one
coroutine to its end. `attached` is for code that spins Qt itself — pytest-qt's waits, or
`QCoreApplication.processEvents` — where coroutines advance whenever Qt processes events.
Only public qasync API is used here, so a qasync upgrade breaks in this file or nowhere.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Coroutine, Iterator
from typing import Any, TypeVar

import qasync
from PySide6.QtWidgets import QApplication

logger = logging.getLogger(__name__)

T = TypeVar("T")


def run(main: Coroutine[Any, Any, T], *, app: QApplication | None = None) -> T:
    """Run `main` to its end on a new qasync loop over `app` (the terminal's own by default)."""
    try:
        if app is None:
            from checkout_desktop.ui.qt_app import create_application

            app = create_application()
        loop = qasync.QEventLoop(app)
    except BaseException:
        main.close()
        raise
    asyncio.set_event_loop(loop)
    try:
        with loop:
            result: T = loop.run_until_complete(main)
        return result
    finally:
        asyncio.set_event_loop(None)


@contextlib.contextmanager
def attached(app: QApplication) -> Iterator[asyncio.AbstractEventLoop]:
    """A qasync loop for code that spins Qt itself, current and running while the block runs.

    qasync's own "already running" mode stops by asking the QApplication to exit, which with no
    `exec()` under way leaves Qt's quit flag set: every later nested wait then returns at once.
    So the loop is never started here; it is only made the running loop, then closed.
    """
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    asyncio.events._set_running_loop(loop)
    try:
        yield loop
    finally:
        asyncio.events._set_running_loop(None)
        asyncio.set_event_loop(None)
        loop.close()
