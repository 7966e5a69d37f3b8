"""One terminal window per instance folder: a second launch raises the first one and exits.

Two terminals on one store would run two webhook inboxes on one port (the second silently never
starts) and two reconcilers asking about the same charges. The first launch holds an exclusive
`flock` on a file in the data folder for as long as it runs (the kernel drops it when the
process dies, so a crash leaves no stale lock) and listens on a local socket named after the
folder; a later launch that finds the lock taken asks that socket to bring the window forward.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import logging
import os
import sys
from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtNetwork import QLocalServer, QLocalSocket

from checkout_desktop.errors import PlainError

logger = logging.getLogger(__name__)

LOCK_FILE = "terminal.lock"
_RAISE = b"raise\n"
_CONNECT_WAIT_MS = 2000


class InstanceFolderNotWritable(PlainError):
    """The data folder cannot hold the terminal's lock: nothing else could be written there."""

    exit_code = 2


def server_name(data_dir: Path) -> str:
    """The local socket's name: per user and per instance folder, short enough for any OS."""
    digest = hashlib.sha256(str(data_dir.resolve()).encode()).hexdigest()[:20]
    return f"checkout-desktop-{os.getuid()}-{digest}"


class InstanceGuard(QObject):
    """Holds the instance folder for this process; `raise_requested` when another launch knocks."""

    raise_requested = Signal()

    def __init__(self, data_dir: Path, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.data_dir = data_dir
        self.name = server_name(data_dir)
        self._fd: int | None = None
        self._server: QLocalServer | None = None
        self._clients: list[QLocalSocket] = []

    @property
    def held(self) -> bool:
        return self._fd is not None

    def acquire(self) -> bool:
        """True when this process is now the folder's terminal; False when another one is.

        Needs no QApplication: it runs before anything else starts. Call `listen()` once the
        application exists, so later launches can ask this one to come forward.
        """
        if self._fd is not None:
            return True
        path = self.data_dir / LOCK_FILE
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        except OSError as exc:
            raise InstanceFolderNotWritable(
                f"checkout-desktop cannot write in its data folder {self.data_dir} "
                f"({exc.strerror or exc}); make it writable by this user (or choose another "
                "folder with --data-dir) and start again"
            ) from exc
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return False
        except BaseException:
            os.close(fd)
            raise
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._fd = fd
        return True

    def listen(self) -> None:
        """Answer later launches (`raise_requested`); only while this process holds the folder."""
        if self._fd is None or self._server is not None:
            return
        # We hold the lock, so a socket left by a crashed terminal is stale: remove it first.
        QLocalServer.removeServer(self.name)
        server = QLocalServer(self)
        server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)
        if not server.listen(self.name):
            # The window still works; only a second launch cannot raise it.
            logger.warning("cannot listen for other launches: %s", server.errorString())
            return
        server.newConnection.connect(self._on_connection)
        self._server = server

    def _on_connection(self) -> None:
        assert self._server is not None
        while (socket := self._server.nextPendingConnection()) is not None:
            # Kept here until it disconnects, so no signal ever reaches a deleted socket.
            self._clients.append(socket)
            socket.readyRead.connect(self._read_clients)
            socket.disconnected.connect(self._drop_disconnected)
        self._read_clients()

    def _read_clients(self) -> None:
        for socket in self._clients:
            if not socket.bytesAvailable():
                continue
            data = bytes(socket.read(64).data())
            if data.startswith(_RAISE.strip()):
                logger.info("another launch asked for this window")
                self.raise_requested.emit()

    def _drop_disconnected(self) -> None:
        for socket in [
            s for s in self._clients if s.state() == QLocalSocket.LocalSocketState.UnconnectedState
        ]:
            self._clients.remove(socket)
            socket.deleteLater()

    def ask_running_to_raise(self) -> bool:
        """From a second launch: ask the running terminal to come forward; True if it heard."""
        socket = QLocalSocket()
        socket.connectToServer(self.name)
        if not socket.waitForConnected(_CONNECT_WAIT_MS):
            return False
        socket.write(_RAISE)
        delivered = socket.waitForBytesWritten(_CONNECT_WAIT_MS)
        socket.disconnectFromServer()
        return delivered

    def release(self) -> None:
        for socket in self._clients:
            socket.abort()
        self._clients.clear()
        if self._server is not None:
            self._server.close()
            self._server = None
        if self._fd is not None:
            with contextlib.suppress(OSError):
                fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None


def running_pid(data_dir: Path) -> int | None:
    """The pid written by the terminal that holds the folder, when it can be read."""
    try:
        text = (data_dir / LOCK_FILE).read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return int(text) if text.isdigit() else None


def announce_running(guard: InstanceGuard) -> int:
    """For a second launch: bring the running terminal forward, say so, and give the exit code."""
    pid = running_pid(guard.data_dir)
    who = f" (process {pid})" if pid is not None else ""
    if guard.ask_running_to_raise():
        print(
            f"checkout-desktop is already running for {guard.data_dir}{who}; "
            "its window was brought to the front",
            file=sys.stderr,
        )
        return 0
    print(
        f"checkout-desktop: another terminal{who} is using {guard.data_dir} and did not answer; "
        "wait for it to finish starting or close it, then try again",
        file=sys.stderr,
    )
    return 1
