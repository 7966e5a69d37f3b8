"""One terminal per instance folder: a second process finds the folder taken and knocks."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from pytestqt.qtbot import QtBot

from checkout_desktop.ui.single_instance import InstanceGuard, running_pid, server_name

_SECOND = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from PySide6.QtCore import QCoreApplication
    from checkout_desktop.ui.single_instance import InstanceGuard

    app = QCoreApplication([])
    guard = InstanceGuard(Path(sys.argv[1]))
    if guard.acquire():
        print("acquired")
        raise SystemExit(0)
    print("raised" if guard.ask_running_to_raise() else "unheard")
    """
)


def _second_launch(folder: Path) -> str:
    result = subprocess.run(
        [sys.executable, "-c", _SECOND, str(folder)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
    )
    return result.stdout.strip()


def test_a_second_process_cannot_take_the_folder_and_raises_the_first(
    qtbot: QtBot, tmp_path: Path
) -> None:
    guard = InstanceGuard(tmp_path)
    assert guard.acquire()
    guard.listen()
    try:
        assert running_pid(tmp_path) == os.getpid()
        assert (tmp_path / "terminal.lock").stat().st_mode & 0o077 == 0
        with qtbot.waitSignal(guard.raise_requested, timeout=20_000):
            proc = subprocess.Popen(
                [sys.executable, "-c", _SECOND, str(tmp_path)],
                stdout=subprocess.PIPE,
                text=True,
                env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
            )
        out, _ = proc.communicate(timeout=30)
        assert out.strip() == "raised"
    finally:
        guard.release()


def test_the_folder_is_free_again_after_release_and_other_folders_are_independent(
    qtbot: QtBot, tmp_path: Path
) -> None:
    first, other = tmp_path / "a", tmp_path / "b"
    first.mkdir()
    other.mkdir()
    assert server_name(first) != server_name(other)
    guard = InstanceGuard(first)
    assert guard.acquire()
    guard.listen()
    try:
        assert _second_launch(other) == "acquired"
    finally:
        guard.release()
    assert not guard.held
    assert _second_launch(first) == "acquired"


def test_a_crashed_terminal_leaves_no_stale_lock(tmp_path: Path) -> None:
    # The lock is the kernel's flock: a killed holder releases it with its process.
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import fcntl, os, sys, time\n"
            "fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)\n"
            "fcntl.flock(fd, fcntl.LOCK_EX)\n"
            "print('held', flush=True)\n"
            "time.sleep(60)\n",
            str(tmp_path / "terminal.lock"),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None
    assert holder.stdout.readline().strip() == "held"
    assert _second_launch(tmp_path) == "unheard"  # taken, and nobody listens
    holder.kill()
    holder.wait(timeout=10)
    holder.stdout.close()
    assert _second_launch(tmp_path) == "acquired"


def test_taking_the_folder_loads_no_qt_module(tmp_path: Path) -> None:
    # The lock is taken before the sandbox is launched, and Qt's modules take long to load:
    # the sandbox must not wait for them.
    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from checkout_desktop.ui.single_instance import InstanceGuard\n"
        "guard = InstanceGuard(Path(sys.argv[1]))\n"
        "assert guard.acquire()\n"
        "print(sorted(m for m in sys.modules if m.startswith('PySide6')))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert result.stdout.strip() == "[]"
