"""Qt start-up in one place: the application object, the card page, the wizard, window waits.

Platform quirks live here (running the qasync loop lives in `ui/loop.py`), so that the window's
start-up (`ui/launch.py`) reads as a list of steps.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt, SignalInstance
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication, QWidget

from checkout_desktop.paths import resources_dir

if TYPE_CHECKING:
    from checkout_desktop.settings import Settings
    from checkout_desktop.ui.card_page import CardPage, SdkCredentialSource
    from checkout_desktop.ui.wizard import ConnectionTester

# The card page, the window and the wizard are imported where they are built: start-up brings
# in each piece only when it is needed, the card page first.

logger = logging.getLogger(__name__)

APP_NAME = "checkout-desktop"


def app_icon() -> QIcon:
    return QIcon(str(resources_dir() / "icons" / "checkout-desktop.svg"))


def create_application(argv: list[str] | None = None) -> QApplication:
    """The QApplication, created once with what QtWebEngine needs set beforehand."""
    existing = QApplication.instance()
    if isinstance(existing, QApplication):
        return existing
    # Chromium fixes its URL scheme table and its OpenGL sharing when it starts: both must be
    # declared before the QApplication exists.
    import PySide6.QtWebEngineWidgets  # noqa: F401

    from checkout_desktop.ui.webview import register_schemes

    register_schemes()
    QCoreApplication.setAttribute(Qt.ApplicationAttribute.AA_ShareOpenGLContexts)
    app = QApplication(argv if argv is not None else sys.argv[:1])
    app.setApplicationName(APP_NAME)
    app.setOrganizationName(APP_NAME)
    app.setWindowIcon(app_icon())
    # Closing the window ends the run through `until_closed`, not through QApplication.quit,
    # so shutdown runs inside the loop with the listener and the store still reachable.
    app.setQuitOnLastWindowClosed(False)
    from checkout_desktop.ui.gc_guard import collect_on_this_thread

    # Kept on the application so the wrapper (and its timer slot) lives as long as the app.
    app.gc_collector = collect_on_this_thread(app)  # type: ignore[attr-defined]
    return app


def build_card_page(
    settings: Settings, credentials: SdkCredentialSource | None, *, developer: bool = False
) -> CardPage:
    """The card entry widget for the active profile, in the terminal's language.

    Without `credentials` the page loads all the same; give them (`set_credential_source`)
    before a card can be submitted.
    """
    from checkout_desktop.ui.card_page import CardPage
    from checkout_desktop.ui.i18n import choose_locale, is_portuguese
    from checkout_desktop.ui.webview import CardPageConfig

    locale = choose_locale(settings.ui.locale)
    language = "pt-BR" if is_portuguese(locale) else "en"
    config = CardPageConfig.from_profile(
        settings.profile, language=language, developer=developer or settings.ui.developer_mode
    )
    return CardPage(config, credentials=credentials)


async def wait_for_signal(signal: SignalInstance) -> tuple[object, ...]:
    """Await one emission of a Qt signal on the running qasync loop."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[tuple[object, ...]] = loop.create_future()

    def fire(*args: object) -> None:
        if not future.done():
            future.set_result(args)

    signal.connect(fire)
    try:
        return await future
    finally:
        signal.disconnect(fire)


def close_on_signals(close: Callable[[], object]) -> None:
    """SIGTERM and Ctrl-C call `close`, so shutdown runs in order (not a hard exit)."""
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(signum, close)


async def run_wizard(
    settings: Settings,
    tester: ConnectionTester,
    on_language: Callable[[str | None], object] | None = None,
) -> Settings | None:
    """Show the first-run wizard; the chosen settings, or None when it was cancelled.

    `on_language` installs a language picked in the wizard, which applies at once.
    """
    from checkout_desktop.secrets import SecretStore
    from checkout_desktop.ui.wizard import FirstRunWizard

    wizard = FirstRunWizard(settings, secrets=SecretStore(), tester=tester, on_language=on_language)
    close_on_signals(wizard.reject)
    wizard.open()
    logger.info("setup wizard open")
    (result,) = await wait_for_signal(wizard.finished)
    accepted = result == FirstRunWizard.DialogCode.Accepted.value
    chosen = wizard.settings if accepted else None
    wizard.deleteLater()
    return chosen


class _CloseWatcher(QObject):
    def __init__(self, window: QWidget, future: asyncio.Future[None]) -> None:
        super().__init__(window)
        self._future = future

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Close:
            # The window decides (it refuses while a charge is in flight); look afterwards.
            asyncio.get_running_loop().call_soon(self._check, watched)
        return False

    def _check(self, watched: QObject) -> None:
        if isinstance(watched, QWidget) and not watched.isVisible() and not self._future.done():
            self._future.set_result(None)


async def until_closed(window: QWidget) -> None:
    """Wait until the window has been closed (and accepted the close)."""
    future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    watcher = _CloseWatcher(window, future)
    window.installEventFilter(watcher)
    try:
        await future
    finally:
        window.removeEventFilter(watcher)
