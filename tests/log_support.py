"""For tests that run a command in this process: the log files it opened are closed after
each test (import `release_log_files` into the test module; it applies to every test there)."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True)
def release_log_files() -> Iterator[None]:
    yield
    root = logging.getLogger()
    for handler in list(root.handlers):
        if getattr(handler, "_checkout_desktop", False):
            root.removeHandler(handler)
            handler.close()
