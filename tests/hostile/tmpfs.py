"""A small tmpfs for tests that need a disk of their own (full, or read-only even for root).

Mounting takes root: where it is not allowed, the test is skipped with the reason.
"""

from __future__ import annotations

import contextlib
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest


def mount(*args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["mount", *args], capture_output=True, check=False)


@contextlib.contextmanager
def small_tmpfs(where: Path, size: str) -> Iterator[Path]:
    """A fresh owner-only tmpfs of `size` (e.g. "3m") mounted at `where`, unmounted after."""
    where.mkdir()
    done = mount("-t", "tmpfs", "-o", f"size={size},mode=0700", "tmpfs", str(where))
    if done.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here: {done.stderr.decode().strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)
