"""The window's start-up order, on the one qasync loop, for a two-core shop PC.

The sandbox process was launched first (by the caller; it starts on the other core). The card
page starts loading as soon as Chromium's flags are known, and only what the card page and the
access token need comes before the card page is ready; the other tabs, the inbox, its health
checks and the reconciler start right after. On close, everything stops in reverse order.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from checkout_desktop.doctor.probe import ReachabilityProbe
    from checkout_desktop.paths import AppPaths
    from checkout_desktop.sandbox.link import EarlySandbox, SandboxLink
    from checkout_desktop.settings import Settings
    from checkout_desktop.terminal import Terminal
    from checkout_desktop.ui.card_page import CardPage
    from checkout_desktop.ui.main_window import MainWindow
    from checkout_desktop.ui.single_instance import InstanceGuard

logger = logging.getLogger(__name__)

WARM_UP_HEAD_START_S = 0.01
"""How long the start-up token request gets to go out (or come back) before the window is
built on the same thread."""
STORE_EXIT_CODE = 3
"""What the terminal exits with when its store cannot be used (the README's table)."""
INBOX_START_WAIT_S = 5.0
"""The inbox starts once the card page has answered and the start-up token request has ended,
and at the latest this long after the window is shown."""


async def run_window(
    settings: Settings,
    paths: AppPaths,
    *,
    developer: bool = False,
    listener_port: int | None = None,
    early: EarlySandbox | None = None,
    instance: InstanceGuard | None = None,
    store_url: str | None = None,
) -> int:
    """Open the terminal (after the first-run wizard when due) and run it until it is closed.

    `early` is the built-in sandbox launched before anything else loaded; `instance` holds the
    instance folder, and brings the window shown (the setup, a start-up problem or the main
    window) forward when the terminal is launched again.
    `store_url` (the global `--store`) names the shop's shared store for this run, over the
    one in settings. Returns the exit code.
    """
    from checkout_desktop.ui.chromium import apply_profile_flags
    from checkout_desktop.ui.qt_app import build_card_page

    sandbox: SandboxLink | None = None
    card_page: CardPage | None = None
    endpoint = None if early is None else early.sdk_endpoint()
    if endpoint is not None:
        # Chromium starts and loads the card page while the sandbox is still starting.
        apply_profile_flags(settings, endpoint, developer=developer)
        card_page = build_card_page(settings, None, developer=developer)
        card_page.load()
    if instance is not None:
        # From the first window on (the setup, a start-up problem, then the main window), a
        # later launch brings whatever this terminal shows to the front; after the card
        # page's load was asked, so the socket's modules do not hold it up.
        instance.raise_requested.connect(_bring_forward)
        instance.listen()

    from checkout_desktop.gateway.profiles import ProfileError
    from checkout_desktop.sandbox.link import SandboxLinkError, start_sandbox
    from checkout_desktop.secrets import SecretStore
    from checkout_desktop.settings import save_settings
    from checkout_desktop.terminal import StartupError, Terminal
    from checkout_desktop.ui.connection_test import ConnectionTest
    from checkout_desktop.ui.i18n import Translations, choose_locale
    from checkout_desktop.ui.qt_app import run_wizard

    translations = Translations()
    translations.install(choose_locale(settings.ui.locale))
    if early is not None:
        await _import_core()
        try:
            sandbox = await early.link()
        except SandboxLinkError as exc:
            print(f"checkout-desktop: {exc}", file=sys.stderr)
            _discard(card_page)
            return 1
    needs_wizard = not settings.first_run_done
    while True:
        if needs_wizard:
            tester = ConnectionTest(paths, secrets=SecretStore())
            chosen = await run_wizard(
                settings,
                tester,
                on_language=lambda locale: translations.install(choose_locale(locale)),
            )
            if chosen is None:
                tester.release()
                return 0
            settings = chosen
            save_settings(settings, paths)
            translations.install(choose_locale(settings.ui.locale))
            if settings.profile.is_builtin_sandbox:
                sandbox = tester.sandbox
            else:
                tester.release()
        # The keychain for every environment, the built-in sandbox's too: Settings keeps a
        # real environment's secrets and the shared store's password there. SecretStore opens
        # the keychain at its first use, so the sandbox's start reads nothing from it.
        secrets = SecretStore()
        try:
            if settings.profile.is_builtin_sandbox and sandbox is None:
                sandbox = start_sandbox(paths)
            # Before the first QtWebEngine page: Chromium reads its flags once per process.
            apply_profile_flags(
                settings, None if sandbox is None else sandbox.sdk_endpoint, developer=developer
            )
            terminal = await Terminal.start(
                settings,
                paths,
                sandbox=sandbox,
                secrets=secrets,
                listener_port=listener_port,
                defer_inbox=True,
                store_url=store_url,
            )
            break
        except (StartupError, SandboxLinkError, ProfileError, _store_address_error()) as exc:
            if sandbox is not None:
                sandbox.stop()
                sandbox = None
            cause = store_cause(exc)
            if cause is not None:
                # The shop's shared store, not the environment: say so, and how to fix it.
                logger.error("the shared store cannot be used: %s", exc)
                if not await ask_to_fix_store(cause, setup=store_url is None):
                    _discard(card_page)
                    return int(getattr(cause, "exit_code", STORE_EXIT_CODE))
                needs_wizard = True
                continue
            if settings.profile.is_builtin_sandbox or needs_wizard:
                print(f"checkout-desktop: {exc}", file=sys.stderr)
                # Launched from the desktop's menu there is no console to read it on.
                logger.error("the %s cannot start: %s", profile_words(settings), exc)
                await tell_cannot_start(exc, paths)
                _discard(card_page)
                return 1
            # A real environment that cannot start (no client id, say): set it up again rather
            # than leave the shop with a terminal that does not open.
            logger.error("the %s profile cannot start: %s", settings.active_profile, exc)
            if not await ask_to_fix_profile(settings, str(exc)):
                _discard(card_page)
                return 1
            needs_wizard = True
        except BaseException:
            # Nothing started may outlive the start that failed: the sandbox stops with it.
            if sandbox is not None:
                sandbox.stop()
            _discard(card_page)
            raise
    inbox: asyncio.Future[None] | None = None
    probe: ReachabilityProbe | None = None
    try:
        # The access token now, while the window is built: the status bar shows its time left,
        # and a credentials problem shows before the first customer is at the counter.
        warm = asyncio.ensure_future(terminal.tokens.token())
        warm.add_done_callback(_log_warm_up)
        # Let the request go out, so the service works on it while the window is built here.
        await asyncio.wait({warm}, timeout=WARM_UP_HEAD_START_S)
        window, card_page = _open_window(settings, paths, terminal, card_page, developer=developer)
        probe = _start_probe(settings, terminal)
        inbox = asyncio.ensure_future(_start_inbox_when_ready(terminal, window, card_page, warm))
        from checkout_desktop.ui.qt_app import close_on_signals, until_closed

        close_on_signals(window.request_close)
        await until_closed(window)
    finally:
        if inbox is not None and not inbox.done():
            inbox.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await inbox
        if probe is not None:
            await probe.stop()
        await terminal.stop()
        if sandbox is not None:
            sandbox.stop()
        translations.remove()
        from checkout_desktop.collector import thaw

        thaw()
    return 0


def _bring_forward() -> None:
    from checkout_desktop.ui.instance_bell import bring_shown_windows_forward

    brought = bring_shown_windows_forward()
    # The classes only: a window's title may carry the shop's or the customer's words.
    logger.info(
        "brought forward: %s", ", ".join(type(w).__name__ for w in brought) or "no window yet"
    )


def _start_probe(settings: Settings, terminal: Terminal) -> ReachabilityProbe | None:
    """The status bar's periodic check that the service and the card form's host answer."""
    from checkout_desktop.doctor.probe import probe_for
    from checkout_desktop.gateway.profiles import ProfileError, resolve_endpoints

    sandbox = terminal.sandbox
    try:
        endpoints = resolve_endpoints(
            settings.profile, sandbox=None if sandbox is None else sandbox.info
        )
    except ProfileError:
        return None
    probe = probe_for(settings.profile, terminal.bus, base_url=endpoints.base_url, sandbox=sandbox)
    probe.start()
    return probe


def _open_window(
    settings: Settings,
    paths: AppPaths,
    terminal: Terminal,
    card_page: CardPage | None,
    *,
    developer: bool,
) -> tuple[MainWindow, CardPage]:
    """The main window around the card page (built and loading already, or built now)."""
    from checkout_desktop.ui.card_page import SdkCredentialSource
    from checkout_desktop.ui.connection_test import ConnectionTest
    from checkout_desktop.ui.main_window import MainWindow, merchant_of
    from checkout_desktop.ui.qt_app import build_card_page

    source = SdkCredentialSource(
        terminal.merchant_document, terminal.credentials, settings.profile.sdk_credential
    )
    loading = card_page is not None
    if card_page is None:
        card_page = build_card_page(settings, source, developer=developer)
    else:
        card_page.set_credential_source(source)
    window = MainWindow(
        settings=settings,
        bus=terminal.bus,
        service=terminal.service,
        views=terminal.views,
        events=terminal.events,
        card_page=card_page,
        merchant=merchant_of(settings.profile, terminal.merchant_document, settings.ui.shop_name),
        persist=lambda chosen: _persist(chosen, paths),
        secrets=terminal.secrets,
        acknowledge_url=terminal.acknowledge_url,
        defer_panels=True,
        connection_tester=ConnectionTest(paths, secrets=terminal.secrets, running=terminal),
    )
    if terminal.sandbox is not None:
        window.charge_screen.set_payer(terminal.sandbox.pay_qr)
    if terminal.problems:
        from checkout_desktop.ui.start_problems import show_start_problems

        show_start_problems(window.statusBar(), list(terminal.problems))
    window.adapter.replay(terminal.current_state())
    window.show()
    if not loading:
        card_page.load()
    return window, card_page


async def _start_inbox_when_ready(
    terminal: Terminal, window: MainWindow, card_page: CardPage, warm_up: asyncio.Future[Any]
) -> None:
    """Build the other tabs and start the inbox once the card page has answered (ready or
    failed) and the warm-up token request has ended, or after INBOX_START_WAIT_S at the latest.

    On two cores the card page and the access token come first; notifications that arrive
    meanwhile wait at the service, which retries them (and the reconciler catches up anyway).
    """
    loop = asyncio.get_running_loop()
    answered: asyncio.Future[None] = loop.create_future()

    def answer(*_args: object) -> None:
        if not answered.done():
            answered.set_result(None)

    if card_page.is_ready:
        answer()
    card_page.ready.connect(answer)
    card_page.sdk_unavailable.connect(answer)
    try:
        await asyncio.wait_for(
            asyncio.gather(answered, asyncio.shield(warm_up), return_exceptions=True),
            INBOX_START_WAIT_S,
        )
    except TimeoutError:
        logger.info("the card page or the access token is still pending; starting the inbox")
    finally:
        card_page.ready.disconnect(answer)
        card_page.sdk_unavailable.disconnect(answer)
    # The other tabs first: the events list must exist before notifications arrive.
    window.build_panels()
    await asyncio.sleep(0)
    known = len(terminal.problems)
    from checkout_desktop.domain.start_problems import StartProblem, StartProblemKind
    from checkout_desktop.terminal import StartupError

    try:
        await terminal.start_inbox()
    except StartupError as exc:
        logger.error("the inbox did not start: %s", exc)
        terminal.problems.append(StartProblem(StartProblemKind.INBOX_FAILED, str(exc)))
    except Exception as exc:
        # Charging goes on without notifications; the window says why they are missing.
        logger.exception("the inbox did not start")
        terminal.problems.append(
            StartProblem(
                StartProblemKind.INBOX_FAILED,
                f"notifications are off: the inbox did not start ({exc})",
            )
        )
    if terminal.problems[known:]:
        from checkout_desktop.ui.start_problems import show_start_problems

        # A short line in the screen's language; the whole text on hover and on a click.
        show_start_problems(window.statusBar(), terminal.problems[known:])
    # The listener, tunnel and health states, also for a window that missed their changes.
    window.adapter.replay(terminal.current_state())
    from checkout_desktop.collector import settle_start_up

    # Start-up is over: what it built stays out of the collections that run under load.
    settle_start_up()


_CORE_MODULES = (
    "httpx",
    "httpcore",
    # The HTTP client's event-loop backend, otherwise loaded at its first request.
    "anyio._backends._asyncio",
    "anyio.streams.stapled",
    "anyio.streams.tls",
    "anyio.to_thread",
    "checkout_desktop.domain.wire",
    "checkout_desktop.gateway.tokens",
    "checkout_desktop.gateway.client",
    "checkout_desktop.charges.service",
    "checkout_desktop.store.sqlite.db",
    "checkout_desktop.store.sqlite.events",
)
"""What the core's start needs (none of it Qt), imported on a worker thread."""


async def _import_core() -> None:
    """Import the core's modules on a worker thread while Chromium starts the card page.

    Chromium's browser side runs its tasks on this thread between Qt events: a long import
    here holds the card page's navigation up (its first request came ~190 ms after the load
    was asked, in a trace, while this thread imported). On a worker thread the imports leave
    this thread's event loop running, and Chromium's C++ tasks need no interpreter lock.
    """
    import importlib

    def load() -> None:
        for name in _CORE_MODULES:
            importlib.import_module(name)

    await asyncio.to_thread(load)


def _discard(card_page: CardPage | None) -> None:
    if card_page is not None:
        card_page.close()
        card_page.deleteLater()


def _log_warm_up(task: asyncio.Future[Any]) -> None:
    if task.cancelled():
        return
    exc = task.exception()
    if exc is not None:
        logger.warning("could not get an access token at start-up: %s", exc)


def _persist(settings: Settings, paths: AppPaths) -> None:
    from checkout_desktop.settings import save_settings

    save_settings(settings, paths)


def _what_is_missing(settings: Settings) -> list[str]:
    """What keeps a real environment from starting, in the screen's language (the start's
    own message is in English, for the log)."""
    from PySide6.QtCore import QCoreApplication

    profile = settings.profile
    if profile.is_builtin_sandbox:
        return []
    missing: list[str] = []
    # The settings accept only https (or loopback) addresses: an empty one is what can miss.
    if not profile.base_url:
        missing.append(
            QCoreApplication.translate(
                "Launch", "It has no API address: type the service's address (https://…)."
            )
        )
    if not profile.client_id:
        missing.append(
            QCoreApplication.translate(
                "Launch",
                "It has no client id: copy it from the merchant panel (Integrations → Checkout).",
            )
        )
    return missing


async def ask_to_fix_profile(settings: Settings, why: str) -> bool:
    """Say why the chosen environment cannot start; True when the user opens the setup."""
    from PySide6.QtCore import QCoreApplication
    from PySide6.QtWidgets import QMessageBox

    from checkout_desktop.ui.labels import profile_label
    from checkout_desktop.ui.qt_app import close_on_signals, wait_for_signal

    box = QMessageBox()
    box.setObjectName("profileCannotStart")
    box.setIcon(QMessageBox.Icon.Warning)
    box.setWindowTitle(QCoreApplication.translate("Launch", "checkout-desktop"))
    box.setText(
        QCoreApplication.translate(
            "Launch", "The environment “{env}” cannot start, so no sale can be charged yet."
        ).format(env=profile_label(settings.profile))
    )
    advice = QCoreApplication.translate(
        "Launch", "Open the setup to fix it now, or quit and fix it later."
    )
    box.setInformativeText("\n\n".join([*_what_is_missing(settings), advice]))
    # The start's own words, for whoever fixes it: marked as such in the screen's language.
    box.setDetailedText(
        QCoreApplication.translate("Launch", "Technical detail: {detail}").format(detail=why)
    )
    fix = box.addButton(
        QCoreApplication.translate("Launch", "Open the &setup"), QMessageBox.ButtonRole.AcceptRole
    )
    fix.setObjectName("openSetup")
    box.addButton(QCoreApplication.translate("Launch", "&Quit"), QMessageBox.ButtonRole.RejectRole)
    box.setDefaultButton(fix)
    close_on_signals(box.reject)
    box.open()
    logger.info("start-up problem shown: the %s profile cannot start", settings.active_profile)
    await wait_for_signal(box.finished)
    chosen = box.clickedButton() is fix
    box.deleteLater()
    return chosen


def _store_address_error() -> type[Exception]:
    """The shared store's address error, imported only when a start failed: the module that
    re-exports it loads the store's schema (≈ 50 ms of CPU on the main thread right after the
    card page's load was asked, which holds Chromium's navigation up)."""
    from checkout_desktop.doctor.store_check import StoreAddressError

    return StoreAddressError


def store_cause(exc: BaseException) -> BaseException | None:
    """The shared store's own error behind a start that failed on it (a refused login, a
    server that does not answer, no keychain to read its password from), or None."""
    from checkout_desktop.doctor.store_check import StoreAddressError, StoreError
    from checkout_desktop.secrets import KeychainUnavailable

    if isinstance(exc, StoreAddressError):
        return exc
    for cause in (exc.__cause__, exc.__context__):
        if isinstance(cause, StoreError | KeychainUnavailable):
            return cause
    return None


def profile_words(settings: Settings) -> str:
    """The environment as the log names it."""
    if settings.profile.is_builtin_sandbox:
        return "built-in sandbox"
    return f"{settings.active_profile} profile"


async def tell_cannot_start(problem: BaseException, paths: AppPaths) -> None:
    """Say in a window why the terminal cannot start, and what to do, then let it end."""
    from checkout_desktop.ui.qt_app import close_on_signals, wait_for_signal
    from checkout_desktop.ui.startup_problem import startup_problem_box

    box = startup_problem_box(problem, paths)
    close_on_signals(box.reject)
    box.open()
    await wait_for_signal(box.finished)
    box.deleteLater()


async def ask_to_fix_store(cause: BaseException, *, setup: bool = True) -> bool:
    """Say why the shop's shared store cannot be used; True when the user opens the setup
    (offered when the store comes from the settings, not from `--store`)."""
    from PySide6.QtCore import QCoreApplication
    from PySide6.QtWidgets import QMessageBox

    from checkout_desktop.ui.qt_app import close_on_signals, wait_for_signal
    from checkout_desktop.ui.startup_problem import store_problem_text

    box = QMessageBox()
    box.setObjectName("storeCannotStart")
    box.setIcon(QMessageBox.Icon.Critical)
    box.setWindowTitle(QCoreApplication.translate("Launch", "checkout-desktop"))
    box.setText(
        QCoreApplication.translate(
            "Launch", "The shop's shared database cannot be used, so the terminal cannot start."
        )
    )
    advice = (
        QCoreApplication.translate(
            "Launch",
            "Open the setup to fix it, or to keep the sales on this computer; or quit and fix "
            "it later.",
        )
        if setup
        else QCoreApplication.translate(
            "Launch", "The database was given with --store: fix it there, or start without it."
        )
    )
    box.setInformativeText("\n\n".join([store_problem_text(cause), advice]))
    box.setDetailedText(
        QCoreApplication.translate("Launch", "Technical detail: {detail}").format(detail=cause)
    )
    fix = None
    if setup:
        fix = box.addButton(
            QCoreApplication.translate("Launch", "Open the &setup"),
            QMessageBox.ButtonRole.AcceptRole,
        )
        fix.setObjectName("openSetup")
    quit_button = box.addButton(
        QCoreApplication.translate("Launch", "&Quit"), QMessageBox.ButtonRole.RejectRole
    )
    box.setDefaultButton(fix or quit_button)
    close_on_signals(box.reject)
    box.open()
    logger.info("start-up problem shown: the shared store cannot be used")
    await wait_for_signal(box.finished)
    chosen = fix is not None and box.clickedButton() is fix
    box.deleteLater()
    return chosen
