"""The window's start-up with a broken store or settings file: a plain message and exit code.

It once ended in a raw traceback. Now the window says it in a dialog (on a screen) and on
standard error, and exits 3 for the store, 2 for the settings, without a traceback.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from checkout_desktop.paths import app_paths
from checkout_desktop.settings import Settings, save_settings

ROOT = Path(__file__).resolve().parents[2]


def _window(home: Path) -> subprocess.CompletedProcess[str]:
    env = dict(
        os.environ,
        CHECKOUT_DESKTOP_HOME=str(home),
        QT_QPA_PLATFORM="offscreen",
        PYTHONPATH=str(ROOT),
    )
    return subprocess.run(
        [sys.executable, "-m", "checkout_desktop.cli", "--listener-port", "0"],
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
        cwd=ROOT,
    )


@pytest.mark.parametrize("make", ["foreign", "garbage"])
def test_the_window_refuses_a_broken_store_plainly(tmp_path: Path, make: str) -> None:
    home = tmp_path / "home"
    paths = app_paths(home).ensure()
    save_settings(Settings(first_run_done=True), paths)
    store = paths.database_file
    if make == "foreign":
        conn = sqlite3.connect(store)
        conn.execute("CREATE TABLE notes (x)")
        conn.commit()
        conn.close()
    else:
        store.write_bytes(b"not a database\n" * 100)
    before = store.read_bytes()
    result = _window(home)
    assert result.returncode == 3, result.stderr[-2000:]
    assert "Traceback" not in result.stderr
    assert str(store) in result.stderr
    assert store.read_bytes() == before


def test_the_window_refuses_a_broken_settings_file_plainly(tmp_path: Path) -> None:
    home = tmp_path / "home"
    paths = app_paths(home).ensure()
    paths.settings_file.write_bytes(b'{"reconcile_interval_s": ' + b"9" * 5000 + b"}")
    result = _window(home)
    assert result.returncode == 2, result.stderr[-2000:]
    assert "Traceback" not in result.stderr
    assert str(paths.settings_file) in result.stderr
