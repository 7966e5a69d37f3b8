"""The local socket through which a later launch asks the running terminal to come forward."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QObject, Qt, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtNetwork import QLocalServer, QLocalSocket
from PySide6.QtWidgets import QApplication, QMessageBox, QWidget

from checkout_desktop.ui.geometry import bring_to_front

if TYPE_CHECKING:
    from checkout_desktop.paths import AppPaths

logger = logging.getLogger(__name__)

_RAISE = b"raise\n"
_CONNECT_WAIT_MS = 2000
# Platforms with no screen a person looks at (tests, CI, a service): standard error only.
_HEADLESS = frozenset({"offscreen", "minimal"})


class Doorbell(QObject):
    """Listens on the instance folder's socket; `raise_requested` when another launch rings."""

    raise_requested = Signal()

    def __init__(self, name: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.name = name
        self._server: QLocalServer | None = None
        self._clients: list[QLocalSocket] = []

    def listen(self) -> None:
        """Answer later launches; the caller holds the folder's lock."""
        if self._server is not None:
            return
        # The caller holds the lock, so a socket left by a crashed terminal is stale: remove it.
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

    def close(self) -> None:
        for socket in self._clients:
            socket.abort()
        self._clients.clear()
        if self._server is not None:
            self._server.close()
            self._server = None


def bring_shown_windows_forward() -> list[QWidget]:
    """Bring every window this terminal shows to the front (the setup, a start-up problem, the
    main window and its dialogs), the one that waits for an answer last, so it ends on top with
    the keyboard; the customer's display (which never takes the focus) stays as it is.

    Returns the windows brought forward, bottom first."""
    windows = [
        widget
        for widget in QApplication.topLevelWidgets()
        if widget.isVisible()
        and widget.windowType() in (Qt.WindowType.Window, Qt.WindowType.Dialog)
        and not widget.windowFlags() & Qt.WindowType.WindowDoesNotAcceptFocus
    ]
    modal = QApplication.activeModalWidget()
    windows.sort(key=lambda w: (w is modal, w.windowType() == Qt.WindowType.Dialog))
    for window in windows:
        bring_to_front(window)
    return windows


def ring(name: str) -> bool:
    """From a second launch: ask the terminal listening on `name` to come forward; True if it
    heard."""
    socket = QLocalSocket()
    socket.connectToServer(name)
    if not socket.waitForConnected(_CONNECT_WAIT_MS):
        return False
    socket.write(_RAISE)
    delivered = socket.waitForBytesWritten(_CONNECT_WAIT_MS)
    socket.disconnectFromServer()
    return delivered


def no_answer_box(detail: str) -> QMessageBox:
    """The dialog of a launch whose running terminal did not answer, in the installed language;
    `detail` is the sentence standard error got (with the process and the folder)."""
    box = QMessageBox()
    box.setObjectName("runningTerminalSilent")
    box.setIcon(QMessageBox.Icon.Warning)
    box.setWindowTitle("checkout-desktop")  # the product's name, the same in every language
    box.setText(
        QCoreApplication.translate(
            "InstanceGuard",
            "checkout-desktop is already open on this computer, but it did not answer.",
        )
    )
    box.setInformativeText(
        QCoreApplication.translate(
            "InstanceGuard",
            "It may still be starting: wait a moment and look for its window, which may be "
            "behind another one. If it never appears, end “checkout-desktop” in the system "
            "monitor, then open it again.",
        )
    )
    box.setDetailedText(
        QCoreApplication.translate("Launch", "Technical detail: {detail}").format(detail=detail)
    )
    box.setStandardButtons(QMessageBox.StandardButton.Ok)
    return box


def tell_no_answer(detail: str, paths: AppPaths | None) -> bool:
    """Say in a dialog that the running terminal did not answer (a launch from the desktop's
    menu has no console to print to); returns whether a dialog was shown."""
    from checkout_desktop.ui.display import display_missing

    existing = QCoreApplication.instance()
    if existing is None and display_missing():
        return False  # Qt would abort the process
    app = existing or QApplication([])
    if not isinstance(app, QApplication) or QGuiApplication.platformName() in _HEADLESS:
        return False
    from checkout_desktop.ui.i18n import install_settings_language

    translations = install_settings_language(paths)
    try:
        box = no_answer_box(detail)
        logger.warning("the terminal already running did not answer; said in a dialog")
        box.exec()
    finally:
        translations.remove()
    return True


__all__ = ["Doorbell", "bring_shown_windows_forward", "no_answer_box", "ring", "tell_no_answer"]
