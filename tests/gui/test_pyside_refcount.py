"""Regression guard for PySide6 6.12.0 on CPython 3.11, which leaks away references to None."""

from __future__ import annotations

import json
import logging
import os
import platform
import subprocess
import sys

import PySide6
import pytest

logger = logging.getLogger(__name__)

CALLS = 10_000

# Runs in a child process: on the broken build None's count reaches zero after a few
# thousand calls and the interpreter aborts (none_dealloc), which would take the whole test
# session down. The probe checks every 100 calls and stops at the first clear fall, long
# before that. A broken build loses one reference per call; unrelated objects created or
# freed meanwhile move the count by a handful, so a fall of more than 50 is the bug.
_PROBE = """
import gc, json, sys
from PySide6.QtCore import QCoreApplication, QObject, QTimer

calls, noise = int(sys.argv[1]), 50
app = QCoreApplication([])
obj, timer = QObject(), QTimer()
gc.collect()
gc.disable()  # a collection mid-loop could free objects that hold None
before = sys.getrefcount(None)
made = 0
while made < calls:
    for _ in range(100):
        # Each returns void in C++, the case the broken build gets wrong; killTimer is
        # the one qasync calls for every callback it schedules.
        obj.setObjectName("refcount-probe")
        obj.killTimer(obj.startTimer(60_000))
        timer.setInterval(60_000)
    made += 100
    if sys.getrefcount(None) < before - noise:
        break
after = sys.getrefcount(None)
gc.enable()
print(json.dumps({"before": before, "after": after, "iterations": made, "noise": noise}))
"""


@pytest.mark.skipif(
    sys.version_info >= (3, 12) or sys.getrefcount(None) >= 2**30,
    reason="None is immortal here, so its reference count cannot fall",
)
def test_void_qt_calls_keep_references_to_none() -> None:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    result = subprocess.run(
        [sys.executable, "-c", _PROBE, str(CALLS)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, (
        f"the probe died with exit code {result.returncode}: {result.stderr.strip()[-2000:]}"
    )
    report = json.loads(result.stdout)
    assert report["after"] >= report["before"] - report["noise"], (
        f"sys.getrefcount(None) fell from {report['before']} to {report['after']} within "
        f"{3 * report['iterations']} void Qt calls: this PySide6 ({PySide6.__version__}) drops "
        "references to None and crashes with 'Fatal Python error: none_dealloc' under qasync"
    )
    assert report["iterations"] == CALLS, report


@pytest.mark.skipif(
    platform.python_implementation() != "CPython" or sys.version_info[:2] != (3, 11),
    reason="the bad combination is PySide6 6.12.0 on CPython 3.11",
)
def test_pyside6_is_not_the_known_bad_release_on_python_311() -> None:
    assert PySide6.__version__ != "6.12.0", (
        "PySide6 6.12.0 on CPython 3.11 drops a reference to None on every void Qt call; "
        "pyproject.toml pins PySide6 below 6.12 for Python < 3.12"
    )
