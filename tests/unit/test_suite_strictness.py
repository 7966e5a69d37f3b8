"""The suite's own strictness: an undeclared error log and a failing event handler fail a test."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest

logger = logging.getLogger(__name__)

pytest_plugins = ["pytester"]

SAMPLE = """
import logging

import pytest

from checkout_desktop.domain.events import DomainEvent, EventBus

log = logging.getLogger("checkout_desktop.sample")


def test_undeclared_error():
    log.error("the till caught fire")


@pytest.mark.expected_errors("till caught fire")
def test_declared_error():
    log.error("the till caught fire")


@pytest.mark.expected_errors("the printer jammed")
def test_another_error_than_declared():
    log.error("the till caught fire")


def test_warnings_and_other_loggers_pass():
    log.warning("low on receipt paper")
    logging.getLogger("elsewhere").error("not the terminal's")


def test_failing_handler():
    bus = EventBus()
    bus.subscribe(DomainEvent, lambda event: 1 / 0)
    bus.publish(DomainEvent())
"""


ROOT = Path(__file__).resolve().parents[2]


def test_undeclared_errors_and_failing_handlers_fail_their_test(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The sample suite runs in a temporary folder: the repository's `tests` package must be
    # importable there too (a fresh clone has no PYTHONPATH of its own).
    inherited = os.environ.get("PYTHONPATH")
    monkeypatch.setenv(
        "PYTHONPATH", os.pathsep.join([str(ROOT), *([inherited] if inherited else [])])
    )
    pytester.makeconftest(
        "from tests.conftest import _event_handlers_raise, _fail_on_unexpected_error_logs\n"
        "__all__ = ['_event_handlers_raise', '_fail_on_unexpected_error_logs']\n"
    )
    pytester.makepyfile(test_sample=SAMPLE)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-rA")
    # A logged error fails the test at teardown; a handler's exception reaches the publisher
    # (and its log line is undeclared too).
    result.assert_outcomes(passed=4, failed=1, errors=3)
    result.stdout.fnmatch_lines(
        [
            "ERROR test_sample.py::test_undeclared_error*",
            "ERROR test_sample.py::test_another_error_than_declared*",
            "ERROR test_sample.py::test_failing_handler*",
            "FAILED test_sample.py::test_failing_handler*ZeroDivisionError*",
        ],
        consecutive=False,
    )
    assert "PASSED test_sample.py::test_declared_error" in result.stdout.str()
    assert "PASSED test_sample.py::test_warnings_and_other_loggers_pass" in result.stdout.str()
