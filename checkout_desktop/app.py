"""Composition root: builds the terminal on one qasync loop and runs it.

Order matters and is fixed here:
1. settings and logging; the custom URL scheme is registered before the QApplication exists;
2. the first-run wizard (before any web view: it may change the environment);
3. for the built-in sandbox, the sandbox starts as its own process (it sees card data; this
   process never does), and its SDK host mapping becomes Chromium flags *before* QtWebEngine
   starts;
4. the store, the event bus, the gateway (token manager, charge client, charge service), the
   inbox (writer, listener, tunnel, health), all on this one loop — no ad-hoc threads;
5. the main window, whose one Qt adapter turns bus events into signals;
6. on close, everything stops in reverse order.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import secrets as pysecrets
import socket
import sqlite3
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
from pydantic import SecretStr

from checkout_desktop.domain.events import DomainEvent, EventBus
from checkout_desktop.gateway.charging import ChargeService
from checkout_desktop.gateway.client import ChargeClient
from checkout_desktop.gateway.errors import GatewayError
from checkout_desktop.gateway.profiles import (
    ProfileError,
    client_id_of,
    resolve_endpoints,
    sandbox_credentials,
)
from checkout_desktop.gateway.tokens import TokenManager
from checkout_desktop.inbox.charges import apply_to_charges
from checkout_desktop.inbox.events import (
    ListenerHealthChanged,
    ListenerState,
    ListenerStateChanged,
    TunnelStateChanged,
)
from checkout_desktop.inbox.health import HealthMonitor
from checkout_desktop.inbox.listener import ListenerError, WebhookListener
from checkout_desktop.inbox.tunnel import TunnelConfigError, TunnelSupervisor
from checkout_desktop.inbox.writer import InboxWriter
from checkout_desktop.logsetup import register_secret, setup_logging
from checkout_desktop.paths import AppPaths, app_paths
from checkout_desktop.sandbox import certs
from checkout_desktop.sandbox.process import SandboxInfo, SandboxProcess, start_sandbox_process
from checkout_desktop.secrets import (
    Credentials,
    KeychainCredentials,
    KeychainUnavailable,
    SecretMissing,
    SecretStore,
)
from checkout_desktop.settings import (
    Settings,
    SettingsError,
    TunnelSettings,
    load_settings,
    save_settings,
)
from checkout_desktop.store import db
from checkout_desktop.store.charges import CheckPolicy
from checkout_desktop.store.events import EventRepository

if TYPE_CHECKING:
    from checkout_desktop.ui.wizard import CheckResult

logger = logging.getLogger(__name__)

LISTENER_CERT_DIR = "listener-tls"
SANDBOX_WEBHOOK_CA = "sandbox-webhook-ca.pem"
LOCAL_WEBHOOK_HOST = "localhost"
"""The sandbox delivers to https://localhost:PORT/…: the service's rules refuse IPv4 literals."""


class StartupError(RuntimeError):
    """The terminal cannot start as configured; the message says what to fix."""


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--profile", metavar="NAME", help="use this environment profile instead of the saved one"
    )
    parser.add_argument(
        "--developer", action="store_true", help="allow the web view's developer tools"
    )
    parser.add_argument(
        "--self-test",
        action="store_true",
        help="start offscreen on the built-in sandbox, charge a test card end to end, print a "
        "one-line verdict with each step's time, and exit 0 (pass) or 1 (fail)",
    )
    parser.add_argument(
        "--listener-port",
        type=int,
        metavar="PORT",
        help="listen for notifications on this port for this run (0: any free port)",
    )


# ---------------------------------------------------------------------------------------------
# The sandbox link


@dataclass
class SandboxLink:
    """A running built-in sandbox: its announcement, and the CA file its webhook sender trusts.

    The terminal writes its listener's certificate into `webhook_ca_file` and then sets the
    notification URL through the sandbox's admin API, which makes the sender reload that file.
    `process` is set when this terminal started the sandbox (and must stop it).
    """

    info: SandboxInfo
    webhook_ca_file: Path
    process: SandboxProcess | None = None

    def stop(self) -> None:
        if self.process is not None:
            code = self.process.stop()
            logger.info("sandbox process stopped (exit code %s)", code)
            self.process = None


def start_sandbox(paths: AppPaths, *, extra_args: tuple[str, ...] = ()) -> SandboxLink:
    """Start the built-in sandbox as a child process that exits with this one."""
    ca_file = paths.data_dir / SANDBOX_WEBHOOK_CA
    cert = listener_certificate(paths)
    ca_file.write_bytes(cert.cert_pem)
    try:
        process = start_sandbox_process(
            ["--webhook-ca", str(ca_file), *extra_args], exit_with_parent=True
        )
    except Exception as exc:
        raise StartupError(f"the built-in sandbox did not start: {exc}") from None
    return SandboxLink(info=process.info, webhook_ca_file=ca_file, process=process)


def listener_certificate(paths: AppPaths) -> certs.SdkCertificate:
    """The listener's own certificate for https://localhost (kept in the data folder)."""
    return certs.load_or_create(paths.data_dir / LISTENER_CERT_DIR, LOCAL_WEBHOOK_HOST)


async def _admin_set_webhook(link: SandboxLink, url: str) -> SecretStr:
    """Point the sandbox's notifications at `url`, as a merchant does in the panel."""
    async with httpx.AsyncClient(timeout=10.0) as client:
        response = await client.put(
            f"{link.info.base_url}/_sandbox/webhook",
            json={"url": url},
            headers={"X-Sandbox-Admin-Token": link.info.admin_token},
        )
    if response.status_code != 200:
        raise StartupError(
            f"the sandbox refused the notification URL {url} ({response.status_code}): "
            f"{response.text[:300]}"
        )
    token = str(response.json()["token"])
    register_secret(token)
    return SecretStr(token)


# ---------------------------------------------------------------------------------------------
# The core


@dataclass
class Terminal:
    """Everything but the window: store, bus, gateway, inbox and (for the sandbox) its link."""

    settings: Settings
    paths: AppPaths
    bus: EventBus
    conn: sqlite3.Connection
    events: EventRepository
    http: httpx.AsyncClient
    tokens: TokenManager
    service: ChargeService
    listener: WebhookListener
    health: HealthMonitor | None
    tunnel: TunnelSupervisor | None
    credentials: Credentials
    merchant_document: str
    sandbox: SandboxLink | None = None
    secrets: SecretStore | None = None
    problems: list[str] = field(default_factory=list)
    """What did not start (the window shows it); an empty list means everything runs."""

    @property
    def profile_is_sandbox(self) -> bool:
        return self.settings.profile.is_builtin_sandbox

    @classmethod
    async def start(
        cls,
        settings: Settings,
        paths: AppPaths,
        *,
        sandbox: SandboxLink | None = None,
        secrets: SecretStore | None = None,
        listener_port: int | None = None,
        bus: EventBus | None = None,
        health_interval_s: float | None = None,
    ) -> Terminal:
        """Build and start the core. For the built-in sandbox, `sandbox` must be running."""
        profile = settings.profile
        bus = bus or EventBus()
        listener_settings = settings.listener.model_copy()
        if listener_port is not None:
            listener_settings.port = listener_port
        problems: list[str] = []
        ssl_context = None
        verify: Any = True
        if profile.is_builtin_sandbox:
            if sandbox is None:
                raise StartupError("the built-in sandbox profile needs a running sandbox")
            credentials: Credentials = sandbox_credentials(sandbox.info.credentials)
            merchant_document = sandbox.info.credentials.merchant_document
            client_id = client_id_of(profile, sandbox_client_id=sandbox.info.credentials.client_id)
            cert = listener_certificate(paths)
            ssl_context = cert.server_context()
            verify = cert.client_context()
            sandbox.webhook_ca_file.write_bytes(cert.cert_pem)
            webhook_token = credentials.webhook_token()
        else:
            secrets = secrets or SecretStore()
            credentials = KeychainCredentials(secrets, profile.name)
            merchant_document = profile.merchant_document
            client_id = client_id_of(profile)
            try:
                webhook_token = credentials.webhook_token()
            except (SecretMissing, KeychainUnavailable) as exc:
                # Charging still works; only notifications wait for the token.
                problems.append(str(exc))
                webhook_token = SecretStr(pysecrets.token_urlsafe(24))
        endpoints = resolve_endpoints(profile, sandbox=None if sandbox is None else sandbox.info)

        conn = db.connect(paths.database_file)
        http = httpx.AsyncClient()
        tokens = TokenManager(
            http=http,
            token_url=endpoints.token_url,
            client_id=client_id,
            credentials=credentials,
            events=bus,
            timeout_s=profile.request_timeout_s,
        )
        client = ChargeClient(
            http=http,
            endpoints=endpoints,
            tokens=tokens,
            timeout_s=profile.request_timeout_s,
            token_field=profile.token_field,
        )
        interval = settings.reconcile_interval_s
        service = ChargeService(
            conn=conn,
            client=client,
            profile=profile.name,
            events=bus,
            policy=CheckPolicy(interval=timedelta(seconds=interval)),
        )
        writer = InboxWriter(paths.database_file, bus=bus, applier=apply_to_charges)
        listener = WebhookListener(
            listener_settings, token=webhook_token, writer=writer, bus=bus, ssl_context=ssl_context
        )
        terminal = cls(
            settings=settings,
            paths=paths,
            bus=bus,
            conn=conn,
            events=EventRepository(conn),
            http=http,
            tokens=tokens,
            service=service,
            listener=listener,
            health=None,
            tunnel=None,
            credentials=credentials,
            merchant_document=merchant_document,
            sandbox=sandbox,
            secrets=secrets,
            problems=problems,
        )
        try:
            await terminal._start_inbox(
                listener_settings.path, webhook_token, verify, health_interval_s
            )
        except BaseException:
            await terminal.stop()
            raise
        service.start(interval)
        return terminal

    async def _start_inbox(
        self,
        path: str,
        token: SecretStr,
        verify: Any,
        health_interval_s: float | None,
    ) -> None:
        try:
            await self.listener.start()
        except ListenerError as exc:
            self.problems.append(str(exc))
            return
        port = self.listener.port
        assert port is not None
        tunnel_settings: TunnelSettings | None = None
        registered: str | None = None
        if self.sandbox is not None:
            url = f"https://{LOCAL_WEBHOOK_HOST}:{port}{path}"
            token = await _admin_set_webhook(self.sandbox, url)
            self.listener.set_token(token)
            # The sandbox's "merchant panel" now holds this URL: health checks go through it.
            tunnel_settings = TunnelSettings(mode="manual", public_url=url)
            registered = url
        elif self.settings.tunnel.mode != "none":
            tunnel_settings = self.settings.tunnel
        if tunnel_settings is not None:
            try:
                self.tunnel = TunnelSupervisor(
                    tunnel_settings,
                    local_port=port,
                    listener_path=path,
                    bus=self.bus,
                    registered_url=registered,
                )
                await self.tunnel.start()
            except TunnelConfigError as exc:
                self.problems.append(str(exc))
                self.tunnel = None
        interval = health_interval_s or self.settings.tunnel.heartbeat_interval_s
        self.health = HealthMonitor(
            listener=self.listener,
            token=token,
            bus=self.bus,
            tunnel=self.tunnel,
            interval_s=interval,
            verify=verify,
        )
        await self.health.start()

    def current_state(self) -> list[DomainEvent]:
        """The token, listener, tunnel and health states as events, for a window built later."""
        state: list[DomainEvent] = [self.tokens.snapshot()]
        url = self.listener.url
        if self.listener.running:
            state.append(ListenerStateChanged(state=ListenerState.LISTENING, url=url))
        else:
            reason = "; ".join(self.problems) or None
            state.append(ListenerStateChanged(state=ListenerState.FAILED, url=None, reason=reason))
        if self.tunnel is not None:
            status = self.tunnel.status
            state.append(
                TunnelStateChanged(
                    mode=status.mode,
                    state=status.state,
                    public_url=status.public_url,
                    reason=status.reason,
                    restarts=status.restarts,
                )
            )
        if self.health is not None:
            health = self.health.status
            state.append(
                ListenerHealthChanged(level=health.level, reason=health.reason, since=health.since)
            )
        return state

    def acknowledge_url(self, url: str) -> None:
        """The merchant updated the panel's notification URL (the tunnel's notice)."""
        if self.tunnel is not None:
            self.tunnel.acknowledge(url)
            if self.health is not None:
                self.health.poke()

    @property
    def notification_url(self) -> str | None:
        if self.tunnel is not None:
            return self.tunnel.notification_url
        return self.listener.url

    async def stop(self) -> None:
        """Stop in reverse order; every step runs even if an earlier one fails."""
        steps: list[tuple[str, Callable[[], Any]]] = [
            ("reconciler", self.service.stop),
            ("health monitor", self.health.stop if self.health is not None else _nothing),
            ("tunnel", self.tunnel.stop if self.tunnel is not None else _nothing),
            ("listener", self.listener.stop),
            ("HTTP client", self.http.aclose),
        ]
        for name, step in steps:
            try:
                result = step()
                if asyncio.iscoroutine(result):
                    await result
            except Exception:
                logger.exception("stopping the %s failed", name)
        with contextlib.suppress(sqlite3.Error):
            self.conn.close()


async def _nothing() -> None:
    return None


# ---------------------------------------------------------------------------------------------
# The connection test of the first-run wizard


def port_is_free(port: int, host: str = "127.0.0.1") -> bool:
    """True when a listener could bind `host:port` now (0 is always free)."""
    if port == 0:
        return True
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError:
            return False
    return True


class ConnectionTest:
    """Fetches a token and checks the listener end to end, for the settings being chosen.

    For the built-in sandbox it starts the sandbox once and hands it on to the terminal, so
    the first start does not pay for it twice.
    """

    def __init__(self, paths: AppPaths, *, secrets: SecretStore | None = None) -> None:
        self.paths = paths
        self.secrets = secrets
        self.sandbox: SandboxLink | None = None

    async def __call__(self, settings: Settings) -> list[CheckResult]:
        from PySide6.QtCore import QCoreApplication

        from checkout_desktop.ui.wizard import CheckResult

        listener_name = QCoreApplication.translate("ConnectionTest", "Listener")
        token_name = QCoreApplication.translate("ConnectionTest", "Access token")
        results: list[CheckResult] = []
        profile = settings.profile
        port = settings.listener.port
        if not port_is_free(port):
            results.append(
                CheckResult(
                    listener_name,
                    False,
                    QCoreApplication.translate(
                        "ConnectionTest", "port {port} is taken by another program; choose another"
                    ).format(port=port),
                )
            )
            return results
        if profile.is_builtin_sandbox and self.sandbox is None:
            try:
                self.sandbox = start_sandbox(self.paths)
            except StartupError as exc:
                return [
                    CheckResult(
                        QCoreApplication.translate("ConnectionTest", "Sandbox"), False, str(exc)
                    )
                ]
        bus = EventBus()
        try:
            terminal = await Terminal.start(
                settings,
                self.paths,
                sandbox=self.sandbox if profile.is_builtin_sandbox else None,
                secrets=self.secrets,
                bus=bus,
                health_interval_s=3600,
            )
        except (StartupError, ProfileError, SecretMissing, KeychainUnavailable) as exc:
            return [
                CheckResult(QCoreApplication.translate("ConnectionTest", "Setup"), False, str(exc))
            ]
        try:
            try:
                token = await terminal.tokens.token()
                left = terminal.tokens.seconds_left(token) or 0
                results.append(
                    CheckResult(
                        token_name,
                        True,
                        QCoreApplication.translate(
                            "ConnectionTest", "fetched; valid for {seconds} s"
                        ).format(seconds=int(left)),
                    )
                )
            except (GatewayError, SecretMissing, KeychainUnavailable) as exc:
                results.append(CheckResult(token_name, False, str(exc)))
            for problem in terminal.problems:
                results.append(CheckResult(listener_name, False, problem))
            if terminal.health is not None:
                status = await terminal.health.check_now()
                ok = status.level.value in ("healthy", "degraded")
                results.append(
                    CheckResult(listener_name, ok, f"{status.level.value}: {status.reason}")
                )
        finally:
            await terminal.stop()
        return results

    def release(self) -> None:
        """Stop a sandbox the terminal did not take over."""
        if self.sandbox is not None:
            self.sandbox.stop()
            self.sandbox = None


# ---------------------------------------------------------------------------------------------
# Running the window


def _apply_chromium_flags(
    settings: Settings, sandbox: SandboxLink | None, *, developer: bool
) -> None:
    from checkout_desktop.ui.chromium import HostMapping, apply_flags

    mapping = None
    if sandbox is not None:
        info = sandbox.info
        mapping = HostMapping(
            host=info.sdk_host, port=info.sdk_port, spki_sha256_b64=info.sdk_spki_sha256_b64
        )
    apply_flags(settings.profile, mapping=mapping, developer=developer)


def run(args: argparse.Namespace) -> int:
    paths = app_paths(args.data_dir).ensure()
    setup_logging(paths.log_dir, level=logging.DEBUG if args.verbose else logging.INFO)
    try:
        settings = load_settings(paths)
        if args.profile:
            settings.active_profile = args.profile
        _ = settings.profile
    except SettingsError as exc:
        print(f"checkout-desktop: {exc}", file=sys.stderr)
        return 2
    if args.listener_port is not None and not 0 <= args.listener_port <= 65535:
        print(f"checkout-desktop: port {args.listener_port} is outside 0–65535", file=sys.stderr)
        return 2
    if args.self_test:
        from checkout_desktop.ui.selftest import run_self_test

        return run_self_test(listener_port=args.listener_port)

    import qasync

    from checkout_desktop.ui.qt_app import create_application

    app = create_application()
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    with loop:
        code: int = loop.run_until_complete(_run_window(settings, paths, args))
    return code


async def _run_window(settings: Settings, paths: AppPaths, args: argparse.Namespace) -> int:
    from checkout_desktop.ui.card_page import SdkCredentialSource
    from checkout_desktop.ui.i18n import Translations, choose_locale
    from checkout_desktop.ui.main_window import MainWindow
    from checkout_desktop.ui.qt_app import (
        build_card_page,
        close_on_signals,
        merchant_of,
        run_wizard,
        until_closed,
    )

    translations = Translations()
    translations.install(choose_locale(settings.ui.locale))
    sandbox: SandboxLink | None = None
    needs_wizard = not settings.first_run_done
    while True:
        if needs_wizard:
            tester = ConnectionTest(paths, secrets=SecretStore())
            chosen = await run_wizard(settings, tester)
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
        secrets = None if settings.profile.is_builtin_sandbox else SecretStore()
        try:
            if settings.profile.is_builtin_sandbox and sandbox is None:
                sandbox = start_sandbox(paths)
            # Before the first QtWebEngine page: Chromium reads its flags once per process.
            _apply_chromium_flags(settings, sandbox, developer=args.developer)
            terminal = await Terminal.start(
                settings, paths, sandbox=sandbox, secrets=secrets, listener_port=args.listener_port
            )
            break
        except (StartupError, ProfileError) as exc:
            if sandbox is not None:
                sandbox.stop()
                sandbox = None
            if settings.profile.is_builtin_sandbox or needs_wizard:
                print(f"checkout-desktop: {exc}", file=sys.stderr)
                return 1
            # A real environment that cannot start (no client id, say): set it up again rather
            # than leave the shop with a terminal that does not open.
            logger.error("the %s profile cannot start: %s", settings.active_profile, exc)
            needs_wizard = True
    try:
        card_page = build_card_page(
            settings,
            SdkCredentialSource(terminal.merchant_document, terminal.credentials),
            developer=args.developer,
        )
        window = MainWindow(
            settings=settings,
            bus=terminal.bus,
            service=terminal.service,
            events=terminal.events,
            card_page=card_page,
            merchant=merchant_of(settings.profile, terminal.merchant_document),
            persist=lambda chosen: _persist(chosen, paths),
            secrets=terminal.secrets,
            acknowledge_url=terminal.acknowledge_url,
            receipts_dir=paths.data_dir,
        )
        for problem in terminal.problems:
            window.statusBar().showMessage(problem, 30000)
        window.adapter.replay(terminal.current_state())
        window.show()
        card_page.load()
        close_on_signals(window.request_close)
        # Fetch the access token now: the status bar shows its time left, and a credentials
        # problem shows before the first customer is at the counter, not during the charge.
        warm = asyncio.ensure_future(terminal.tokens.token())
        warm.add_done_callback(_log_warm_up)
        await until_closed(window)
    finally:
        await terminal.stop()
        if sandbox is not None:
            sandbox.stop()
        translations.remove()
    return 0


def _log_warm_up(task: asyncio.Future[Any]) -> None:
    if task.cancelled():
        return
    exc = task.exception()
    if exc is not None:
        logger.warning("could not get an access token at start-up: %s", exc)


def _persist(settings: Settings, paths: AppPaths) -> None:
    save_settings(settings, paths)
