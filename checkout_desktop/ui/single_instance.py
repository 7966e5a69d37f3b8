"""One terminal window per instance folder: a second launch raises the first one and exits.

Two terminals on one store would run two webhook inboxes on one port (the second silently never
starts) and two reconcilers asking about the same charges. The first launch holds an exclusive
`flock` on a file in the data folder for as long as it runs (the kernel drops it when the
process dies, so a crash leaves no stale lock) and listens on a local socket named after the
folder; a later launch that finds the lock taken asks that socket to bring the window forward.

The lock needs no Qt: it is taken before the sandbox process is launched, so Qt's modules (the
local socket's among them) load only once the window needs them.
"""

from __future__ import annotations

import hashlib
import logging
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from checkout_desktop.errors import PlainError
from checkout_desktop.paths import (
    INSTANCE_LOCK_FILE,
    data_folder_holder,
    hold_data_folder,
    let_go_of_data_folder,
)
from checkout_desktop.texts import QT_TRANSLATE_NOOP, Words, translate

if TYPE_CHECKING:
    from PySide6.QtCore import SignalInstance

    from checkout_desktop.paths import AppPaths
    from checkout_desktop.ui.instance_bell import Doorbell

logger = logging.getLogger(__name__)

LOCK_FILE = INSTANCE_LOCK_FILE


class InstanceFolderNotWritable(PlainError):
    """The data folder cannot hold the terminal's lock: nothing else could be written there."""

    exit_code = 2


def server_name(data_dir: Path) -> str:
    """The local socket's name: per user and per instance folder, short enough for any OS."""
    digest = hashlib.sha256(str(data_dir.resolve()).encode()).hexdigest()[:20]
    return f"checkout-desktop-{os.getuid()}-{digest}"


class InstanceGuard:
    """Holds the instance folder for this process; `raise_requested` when another launch knocks."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self.name = server_name(data_dir)
        self._fd: int | None = None
        self._bell: Doorbell | None = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    @property
    def raise_requested(self) -> SignalInstance:
        """Emitted when a later launch asks this terminal's window to come forward."""
        return self._doorbell().raise_requested

    def _doorbell(self) -> Doorbell:
        if self._bell is None:
            from checkout_desktop.ui.instance_bell import Doorbell

            self._bell = Doorbell(self.name)
        return self._bell

    def acquire(self) -> bool:
        """True when this process is now the folder's terminal; False when another one is.

        Needs no QApplication: it runs before anything else starts. Call `listen()` once the
        application exists, so later launches can ask this one to come forward.
        """
        if self._fd is not None:
            return True
        try:
            fd = hold_data_folder(self.data_dir)
        except OSError as exc:
            raise InstanceFolderNotWritable(
                Words(
                    QT_TRANSLATE_NOOP(
                        "InstanceGuard",
                        "cannot write in the data folder {folder} ({reason}); make it writable "
                        "by this user (or choose another folder with --data-dir) and start again",
                    ),
                    folder=self.data_dir,
                    reason=exc.strerror or exc,
                )
            ) from exc
        if fd is None:
            return False
        self._fd = fd
        return True

    def listen(self) -> None:
        """Answer later launches (`raise_requested`); only while this process holds the folder."""
        if self._fd is None:
            return
        self._doorbell().listen()

    def ask_running_to_raise(self) -> bool:
        """From a second launch: ask the running terminal to come forward; True if it heard."""
        from checkout_desktop.ui.instance_bell import ring

        return ring(self.name)

    def release(self) -> None:
        if self._bell is not None:
            self._bell.close()
        if self._fd is not None:
            let_go_of_data_folder(self._fd)
            self._fd = None


def running_pid(data_dir: Path) -> int | None:
    """The pid written by the terminal that holds the folder, when it can be read."""
    return data_folder_holder(data_dir)


def announce_running(guard: InstanceGuard, paths: AppPaths | None = None) -> int:
    """For a second launch: bring the running terminal forward, say so, and give the exit code.

    When it does not answer, a launch with no console (from the desktop's menu) says so in a
    dialog too, in the language of the settings in `paths`."""
    pid = running_pid(guard.data_dir)
    folder = guard.data_dir
    if guard.ask_running_to_raise():
        if pid is None:
            message = translate(
                "InstanceGuard",
                "already running for {folder}; its window was brought to the front",
            ).format(folder=folder)
        else:
            message = translate(
                "InstanceGuard",
                "already running for {folder} (process {pid}); its window was brought to the front",
            ).format(folder=folder, pid=pid)
        print(f"checkout-desktop: {message}", file=sys.stderr)
        return 0
    if pid is None:
        message = translate(
            "InstanceGuard",
            "another terminal is using {folder} and did not answer; wait for it to finish "
            "starting or close it, then try again",
        ).format(folder=folder)
    else:
        message = translate(
            "InstanceGuard",
            "another terminal (process {pid}) is using {folder} and did not answer; wait for "
            "it to finish starting or close it, then try again",
        ).format(folder=folder, pid=pid)
    print(f"checkout-desktop: {message}", file=sys.stderr)
    if not _has_console():
        from checkout_desktop.ui.instance_bell import tell_no_answer

        tell_no_answer(message, paths)
    return 1


def _has_console() -> bool:
    """Whether standard error reaches a person at a terminal (not a menu launch's void)."""
    stream = sys.stderr
    try:
        return stream is not None and stream.isatty()
    except (OSError, ValueError):  # closed, or not a real stream
        return False
