"""Qt test fixtures: a qasync loop on pytest-qt's QApplication, awaiting from sync tests, and
each test leaving the default locale as it found it."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine, Iterator
from typing import Any, TypeVar

# QtWebEngine must be loaded before the QApplication exists (it sets up shared OpenGL
# contexts then); pytest-qt creates the application lazily, after this import.
import PySide6.QtWebEngineWidgets  # noqa: F401
import pytest
from PySide6.QtCore import QLocale
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.qtbot import QtBot

from checkout_desktop.ui import loop

logger = logging.getLogger(__name__)

T = TypeVar("T")
W = TypeVar("W", bound=QWidget)


def shown_top_level(kind: type[W], object_name: str | None = None) -> W | None:
    """The visible top-level window of `kind` (named `object_name`, when given), or None."""
    for widget in QApplication.topLevelWidgets():
        named = object_name is None or widget.objectName() == object_name
        if isinstance(widget, kind) and widget.isVisible() and named:
            return widget
    return None


@pytest.fixture(autouse=True)
def _default_locale_kept() -> Iterator[None]:
    # Installing the shop's language makes it the default locale (money and dates follow it);
    # a test that does so must not leave pt-BR figures to the English tests after it.
    previous = QLocale()
    yield
    QLocale.setDefault(previous)


@pytest.fixture
def pt_br(qapp: QApplication) -> Iterator[None]:
    """The terminal's pt-BR catalogue installed for the test (`pseudo.in_portuguese`)."""
    from tests.gui.pseudo import in_portuguese

    with in_portuguese():
        yield


@pytest.fixture
def qloop(qapp: QApplication) -> Iterator[asyncio.AbstractEventLoop]:
    """An asyncio loop driven by Qt: coroutines advance whenever Qt processes events.

    pytest-qt's qtbot waits, not the loop itself, spin Qt here.
    """
    with loop.attached(qapp) as attached:
        yield attached


@pytest.fixture
def arun(qtbot: QtBot, qloop: asyncio.AbstractEventLoop) -> Callable[..., Any]:
    """Run a coroutine (or await a future) from a sync test by spinning Qt until it is done.

    Never use this inside an `async def` test: a nested Qt wait there starves asyncio.
    """

    def _run(aw: Coroutine[Any, Any, T] | asyncio.Future[T], timeout: int = 5000) -> T:
        task = asyncio.ensure_future(aw, loop=qloop)
        qtbot.waitUntil(task.done, timeout=timeout)
        return task.result()

    return _run
