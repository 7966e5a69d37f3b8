"""The one place that runs coroutines on a qasync loop: Qt and asyncio share one thread.

`run` is the program's way (the window, the self-test, scripts): it owns the loop and runs one
coroutine to its end. `attached` is for code that spins Qt itself — pytest-qt's waits, or
`QCoreApplication.processEvents` — where coroutines advance whenever Qt processes events.
Only public qasync API is used here, so a qasync upgrade breaks in this file or nowhere.

`read` is how a widget reads the store: at once when the store answers without waiting (a
local SQLite file), on the loop when it must wait (a network database), never blocking the GUI.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Coroutine, Iterator
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


def read(
    reading: Coroutine[Any, Any, T],
    done: Callable[[T], None],
    *,
    failed: Callable[[BaseException], None] | None = None,
) -> asyncio.Future[T] | None:
    """Run a store read and hand its result to `done`: before returning when the read never
    waits (the SQLite store: widgets then behave as if the read were a call), else from the
    loop once it has its answer, with the GUI responsive meanwhile.

    A read that fails goes to `failed` (logged when there is none). Returns the task of a read
    that waits, None for one that finished here.
    """

    def finish(outcome: T) -> None:
        done(outcome)

    def fail(exc: BaseException) -> None:
        if failed is not None:
            failed(exc)
        else:
            logger.error("a read of the store failed", exc_info=exc)

    try:
        waiting_for = reading.send(None)
    except StopIteration as finished:
        finish(finished.value)
        return None
    except Exception as exc:
        fail(exc)
        return None
    task = asyncio.ensure_future(_resume(reading, waiting_for))

    def settled(ended: asyncio.Future[T]) -> None:
        if ended.cancelled():
            return
        exc = ended.exception()
        if exc is not None:
            fail(exc)
        else:
            finish(ended.result())

    task.add_done_callback(settled)
    return task


async def _resume(reading: Coroutine[Any, Any, T], waiting_for: object) -> T:
    """Carry a read that began outside any task on to its end: wait here for each future it
    yields, then let it go on (it takes the future's outcome itself, as under a Task)."""
    while True:
        try:
            if waiting_for is None:
                # A bare yield (asyncio.sleep(0)): one turn of the loop.
                await asyncio.sleep(0)
            elif isinstance(waiting_for, asyncio.Future):
                await asyncio.wait([waiting_for])
            else:
                reading.close()
                raise RuntimeError(f"a store read waited on {waiting_for!r}, not a future")
        except asyncio.CancelledError:
            if isinstance(waiting_for, asyncio.Future):
                waiting_for.cancel()
            reading.close()
            raise
        try:
            waiting_for = reading.send(None)
        except StopIteration as finished:
            result: T = finished.value
            return result
