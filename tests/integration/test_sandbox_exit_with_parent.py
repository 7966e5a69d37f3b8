"""A sandbox started with --exit-with-parent stops cleanly, by signal or when its parent goes."""

from __future__ import annotations

import json
import signal
import subprocess
import sys

import pytest


def _start() -> subprocess.Popen[bytes]:
    process = subprocess.Popen(
        [sys.executable, "-m", "checkout_desktop.sandbox", "--exit-with-parent"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None
    announcement = json.loads(process.stdout.readline())
    assert announcement["base_url"].startswith("http://127.0.0.1:")
    return process


@pytest.mark.parametrize("how", ["sigterm", "parent-gone"])
def test_clean_exit(how: str) -> None:
    process = _start()
    assert process.stdin is not None
    if how == "sigterm":
        process.send_signal(signal.SIGTERM)
    else:
        process.stdin.close()
        process.stdin = None
    _, err = process.communicate(timeout=20)
    assert process.returncode == 0, err.decode(errors="replace")[-2000:]
    assert b"Fatal Python error" not in err
