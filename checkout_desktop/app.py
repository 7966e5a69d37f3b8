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

Start-up is arranged for a two-core shop PC, where it is CPU-bound: the sandbox process is
launched first (it starts on the other core), the card page starts loading as soon as Chromium's
flags are known, and only what the card page and the access token need comes before the card
page is ready; the inbox, its health checks and the reconciler start right after. Heavy modules
are imported where they are first needed, so this module itself loads quickly.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import os
import secrets as pysecrets
import socket
import sqlite3
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import httpx
    from pydantic import SecretStr

    from checkout_desktop.domain.events import DomainEvent, EventBus
    from checkout_desktop.gateway.charging import ChargeService
    from checkout_desktop.gateway.tokens import TokenManager
    from checkout_desktop.inbox.health import HealthMonitor
    from checkout_desktop.inbox.listener import WebhookListener
    from checkout_desktop.inbox.tunnel import TunnelSupervisor
    from checkout_desktop.paths import AppPaths
    from checkout_desktop.sandbox import certs
    from checkout_desktop.sandbox.process import SandboxInfo, SandboxLaunch, SandboxProcess
    from checkout_desktop.secrets import Credentials, SecretStore
    from checkout_desktop.settings import ListenerSettings, Settings
    from checkout_desktop.store.events import EventRepository
    from checkout_desktop.ui.card_page import CardPage
    from checkout_desktop.ui.chromium import HostMapping
    from checkout_desktop.ui.main_window import MainWindow
    from checkout_desktop.ui.wizard import CheckResult

logger = logging.getLogger(__name__)

LISTENER_CERT_DIR = "listener-tls"
SANDBOX_WEBHOOK_CA = "sandbox-webhook-ca.pem"
SANDBOX_SDK_CERT_DIR = "sandbox-sdk-tls"
"""The sandbox's SDK-backend certificate is kept here, so its key pin is known before the
sandbox is up and Chromium can start loading the card page meanwhile."""
WARM_UP_HEAD_START_S = 0.01
"""How long the start-up token request gets to go out (or come back) before the window is
built on the same thread."""
INBOX_START_WAIT_S = 5.0
"""The inbox starts once the card page has answered and the start-up token request has ended,
and at the latest this long after the window is shown."""
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


def _sandbox_args(paths: AppPaths, ca_file: Path) -> list[str]:
    return [
        "--webhook-ca",
        str(ca_file),
        "--sdk-cert-dir",
        str(paths.data_dir / SANDBOX_SDK_CERT_DIR),
    ]


def _sandbox_env(ca_file: Path) -> dict[str, str]:
    # The sandbox's only outgoing HTTPS (webhook deliveries) trusts `ca_file` explicitly. Its web
    # library builds two default client contexts at import, each loading OpenSSL's default
    # authority bundle (~20 ms apiece); pointing that bundle at the same small file spares it.
    return dict(os.environ, SSL_CERT_FILE=str(ca_file))


def start_sandbox(paths: AppPaths, *, extra_args: tuple[str, ...] = ()) -> SandboxLink:
    """Start the built-in sandbox as a child process that exits with this one."""
    from checkout_desktop.sandbox.process import start_sandbox_process

    ca_file = paths.data_dir / SANDBOX_WEBHOOK_CA
    cert = listener_certificate(paths)
    ca_file.write_bytes(cert.cert_pem)
    try:
        process = start_sandbox_process(
            [*_sandbox_args(paths, ca_file), *extra_args],
            exit_with_parent=True,
            env=_sandbox_env(ca_file),
        )
    except Exception as exc:
        raise StartupError(f"the built-in sandbox did not start: {exc}") from None
    return SandboxLink(info=process.info, webhook_ca_file=ca_file, process=process)


class EarlySandbox:
    """The built-in sandbox launched at the very start, its SDK socket already listening.

    This process binds the SDK backend's loopback socket and hands it to the sandbox, and the
    sandbox serves its kept certificate: so the port and the key pin — all Chromium's flags
    need — are known at once, and the card page loads while the sandbox is still starting
    (Chromium's connection waits in the socket's backlog until the sandbox serves it).
    """

    def __init__(
        self, paths: AppPaths, launch: SandboxLaunch, sdk_socket: socket.socket, ca_file: Path
    ) -> None:
        self.paths = paths
        self.launch = launch
        self.sdk_socket = sdk_socket
        self.webhook_ca_file = ca_file
        self._mapping: HostMapping | None = None

    def host_mapping(self) -> HostMapping | None:
        """The SDK host mapping the sandbox will announce, or None when it cannot be told yet.

        None when the kept certificate is missing or due for renewal: the sandbox then makes a
        new one, whose pin is known only from its announcement.
        """
        if self._mapping is None:
            from checkout_desktop.sandbox import SDK_HOST
            from checkout_desktop.sandbox.pins import kept_pin
            from checkout_desktop.ui.chromium import HostMapping

            pin = kept_pin(self.paths.data_dir / SANDBOX_SDK_CERT_DIR, SDK_HOST)
            if pin is None:
                return None
            port = int(self.sdk_socket.getsockname()[1])
            self._mapping = HostMapping(SDK_HOST, port, pin)
        return self._mapping

    async def link(self) -> SandboxLink:
        """Wait for the announcement; StartupError if it fails or differs from the mapping."""
        from checkout_desktop.sandbox.process import SandboxStartError

        try:
            process = await self.launch.announced()
        except SandboxStartError as exc:
            raise StartupError(f"the built-in sandbox did not start: {exc}") from None
        finally:
            # The sandbox holds its own copy of the socket now.
            self.sdk_socket.close()
        info = process.info
        link = SandboxLink(info=info, webhook_ca_file=self.webhook_ca_file, process=process)
        mapping = self._mapping
        if mapping is not None and (
            info.sdk_host,
            info.sdk_port,
            info.sdk_spki_sha256_b64,
        ) != (mapping.host, mapping.port, mapping.spki_sha256_b64):
            link.stop()
            raise StartupError(
                "the built-in sandbox renewed its SDK certificate while the terminal started; "
                "start the terminal again"
            )
        return link

    def cancel(self) -> None:
        """Stop the sandbox (the terminal does not go on with it)."""
        self.sdk_socket.close()
        self.launch.cancel()


def wants_builtin_sandbox(paths: AppPaths, profile: str | None) -> bool:
    """Whether the saved settings start on the built-in sandbox, read without validating them.

    A quick look, so the sandbox can be launched before the settings model is even imported;
    the validated settings decide afterwards, and a launch they disagree with is cancelled.
    """
    try:
        raw = json.loads(paths.settings_file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return False
    if not isinstance(raw, dict) or raw.get("first_run_done") is not True:
        return False
    name = profile or raw.get("active_profile", _BUILTIN_SANDBOX)
    profiles = raw.get("profiles")
    if not isinstance(profiles, dict):
        return name == _BUILTIN_SANDBOX
    chosen = profiles.get(name)
    return isinstance(chosen, dict) and chosen.get("kind") == _BUILTIN_SANDBOX


# The built-in sandbox's profile name and kind in the settings file (settings.BUILTIN_SANDBOX and
# ProfileKind.BUILTIN_SANDBOX), spelled out so the quick look needs no settings model.
_BUILTIN_SANDBOX = "builtin-sandbox"


def launch_sandbox(paths: AppPaths) -> EarlySandbox | None:
    """Launch the built-in sandbox without waiting for it; None where that cannot be done.

    It needs what an earlier start left behind (the webhook CA file) and a POSIX system (the
    socket is passed as an inherited descriptor); otherwise `start_sandbox` runs later.
    """
    if os.name != "posix":
        return None
    ca_file = paths.data_dir / SANDBOX_WEBHOOK_CA
    if not ca_file.is_file():
        return None
    from checkout_desktop.sandbox.process import launch_sandbox_process

    sdk_socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sdk_socket.bind(("127.0.0.1", 0))
        sdk_socket.listen(128)
        fd = sdk_socket.fileno()
        launch = launch_sandbox_process(
            [*_sandbox_args(paths, ca_file), "--sdk-fd", str(fd)],
            exit_with_parent=True,
            env=_sandbox_env(ca_file),
            pass_fds=(fd,),
        )
    except OSError as exc:
        sdk_socket.close()
        logger.warning("could not launch the sandbox early (%s); starting it in order", exc)
        return None
    return EarlySandbox(paths, launch, sdk_socket, ca_file)


def listener_certificate(paths: AppPaths) -> certs.SdkCertificate:
    """The listener's own certificate for https://localhost (kept in the data folder)."""
    from checkout_desktop.sandbox import certs

    return certs.load_or_create(paths.data_dir / LISTENER_CERT_DIR, LOCAL_WEBHOOK_HOST)


async def _admin_set_webhook(
    link: SandboxLink, url: str, http: httpx.AsyncClient | None = None
) -> SecretStr:
    """Point the sandbox's notifications at `url`, as a merchant does in the panel."""
    import httpx
    from pydantic import SecretStr

    from checkout_desktop.logsetup import register_secret

    async with contextlib.AsyncExitStack() as stack:
        if http is None:
            http = await stack.enter_async_context(httpx.AsyncClient(timeout=10.0))
        response = await http.put(
            f"{link.info.base_url}/_sandbox/webhook",
            json={"url": url},
            headers={"X-Sandbox-Admin-Token": link.info.admin_token},
            timeout=10.0,
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
    listener: WebhookListener | None
    """None until the inbox has been started (`start_inbox`)."""
    health: HealthMonitor | None
    tunnel: TunnelSupervisor | None
    credentials: Credentials
    merchant_document: str
    sandbox: SandboxLink | None = None
    secrets: SecretStore | None = None
    problems: list[str] = field(default_factory=list)
    """What did not start (the window shows it); an empty list means everything runs."""
    listener_settings: ListenerSettings | None = None
    webhook_token: SecretStr | None = None
    verify: Any = True
    ssl_context: Any = None
    health_interval_s: float | None = None

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
        defer_inbox: bool = False,
    ) -> Terminal:
        """Build and start the core. For the built-in sandbox, `sandbox` must be running.

        With `defer_inbox`, only the store and the gateway start now (what charging and the
        access token need); `start_inbox` then starts the inbox, its health checks and the
        reconciler.
        """
        import httpx
        from pydantic import SecretStr

        from checkout_desktop.domain.events import EventBus
        from checkout_desktop.gateway.charging import ChargeService
        from checkout_desktop.gateway.client import ChargeClient
        from checkout_desktop.gateway.profiles import (
            client_id_of,
            resolve_endpoints,
            sandbox_credentials,
        )
        from checkout_desktop.gateway.tokens import TokenManager
        from checkout_desktop.secrets import (
            KeychainCredentials,
            KeychainUnavailable,
            SecretMissing,
            SecretStore,
        )
        from checkout_desktop.store import db
        from checkout_desktop.store.events import EventRepository

        profile = settings.profile
        bus = bus or EventBus()
        listener_settings = settings.listener.model_copy()
        if listener_port is not None:
            listener_settings.port = listener_port
        problems: list[str] = []
        http_verify: Any = True
        if profile.is_builtin_sandbox:
            if sandbox is None:
                raise StartupError("the built-in sandbox profile needs a running sandbox")
            credentials: Credentials = sandbox_credentials(sandbox.info.credentials)
            merchant_document = sandbox.info.credentials.merchant_document
            client_id = client_id_of(profile, sandbox_client_id=sandbox.info.credentials.client_id)
            webhook_token = credentials.webhook_token()
            # The sandbox's endpoints are plain HTTP on loopback: a client context that trusts
            # no authority at all (an https call through it would fail, never pass unchecked)
            # spares loading the system's certificate bundle, ~20 ms at each start.
            http_verify = _no_authorities()
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
        http = httpx.AsyncClient(verify=http_verify)
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
            policy=_check_policy(interval),
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
            listener=None,
            health=None,
            tunnel=None,
            credentials=credentials,
            merchant_document=merchant_document,
            sandbox=sandbox,
            secrets=secrets,
            problems=problems,
            listener_settings=listener_settings,
            webhook_token=webhook_token,
            health_interval_s=health_interval_s,
        )
        if not defer_inbox:
            try:
                await terminal.start_inbox()
            except BaseException:
                await terminal.stop()
                raise
        return terminal

    async def start_inbox(self) -> None:
        """Start the inbox (writer, listener, tunnel, health) and then the reconciler."""
        if self.listener is not None:
            raise RuntimeError("the inbox has already been started")
        from checkout_desktop.inbox.charges import apply_to_charges
        from checkout_desktop.inbox.listener import WebhookListener
        from checkout_desktop.inbox.writer import InboxWriter

        assert self.listener_settings is not None
        assert self.webhook_token is not None
        if self.sandbox is not None:
            cert = listener_certificate(self.paths)
            self.ssl_context = cert.server_context()
            self.verify = cert.client_context()
            self.sandbox.webhook_ca_file.write_bytes(cert.cert_pem)
        writer = InboxWriter(self.paths.database_file, bus=self.bus, applier=apply_to_charges)
        self.listener = WebhookListener(
            self.listener_settings,
            token=self.webhook_token,
            writer=writer,
            bus=self.bus,
            ssl_context=self.ssl_context,
        )
        await self._start_inbox(
            self.listener_settings.path, self.webhook_token, self.verify, self.health_interval_s
        )
        self.service.start(self.settings.reconcile_interval_s)

    async def _start_inbox(
        self,
        path: str,
        token: SecretStr,
        verify: Any,
        health_interval_s: float | None,
    ) -> None:
        from checkout_desktop.inbox.health import HealthMonitor
        from checkout_desktop.inbox.listener import ListenerError
        from checkout_desktop.inbox.tunnel import TunnelConfigError, TunnelSupervisor
        from checkout_desktop.settings import TunnelSettings

        assert self.listener is not None
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
            token = await _admin_set_webhook(self.sandbox, url, self.http)
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
        from checkout_desktop.inbox.events import (
            ListenerHealthChanged,
            ListenerState,
            ListenerStateChanged,
            TunnelStateChanged,
        )

        state: list[DomainEvent] = [self.tokens.snapshot()]
        if self.listener is None:
            state.append(ListenerStateChanged(state=ListenerState.STARTING, url=None))
        elif self.listener.running:
            state.append(ListenerStateChanged(state=ListenerState.LISTENING, url=self.listener.url))
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
        return None if self.listener is None else self.listener.url

    async def stop(self) -> None:
        """Stop in reverse order; every step runs even if an earlier one fails."""
        steps: list[tuple[str, Callable[[], Any]]] = [
            ("reconciler", self.service.stop),
            ("health monitor", self.health.stop if self.health is not None else _nothing),
            ("tunnel", self.tunnel.stop if self.tunnel is not None else _nothing),
            ("listener", self.listener.stop if self.listener is not None else _nothing),
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


def _no_authorities() -> Any:
    import ssl

    return ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)


def _check_policy(interval_s: float) -> Any:
    from datetime import timedelta

    from checkout_desktop.store.charges import CheckPolicy

    return CheckPolicy(interval=timedelta(seconds=interval_s))


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

        from checkout_desktop.domain.events import EventBus
        from checkout_desktop.gateway.errors import GatewayError
        from checkout_desktop.gateway.profiles import ProfileError
        from checkout_desktop.secrets import KeychainUnavailable, SecretMissing
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
    from checkout_desktop.ui.chromium import HostMapping

    mapping = None
    if sandbox is not None:
        info = sandbox.info
        mapping = HostMapping(
            host=info.sdk_host, port=info.sdk_port, spki_sha256_b64=info.sdk_spki_sha256_b64
        )
    _apply_host_mapping(settings, mapping, developer=developer)


def _apply_host_mapping(
    settings: Settings, mapping: HostMapping | None, *, developer: bool
) -> None:
    from checkout_desktop.ui.chromium import apply_flags

    apply_flags(settings.profile, mapping=mapping, developer=developer)


def run(args: argparse.Namespace) -> int:
    from checkout_desktop.logsetup import setup_logging
    from checkout_desktop.paths import app_paths

    paths = app_paths(args.data_dir).ensure()
    setup_logging(paths.log_dir, level=logging.DEBUG if args.verbose else logging.INFO)
    if args.listener_port is not None and not 0 <= args.listener_port <= 65535:
        print(f"checkout-desktop: port {args.listener_port} is outside 0–65535", file=sys.stderr)
        return 2
    # First of all, so that it starts on the other core while this one loads everything else.
    early = None
    if not args.self_test and wants_builtin_sandbox(paths, args.profile):
        early = launch_sandbox(paths)
    try:
        return _run(args, paths, early)
    except BaseException:
        if early is not None:
            early.cancel()
        raise


def _run(args: argparse.Namespace, paths: AppPaths, early: EarlySandbox | None) -> int:
    from checkout_desktop.settings import SettingsError, load_settings

    try:
        settings = load_settings(paths)
        if args.profile:
            settings.active_profile = args.profile
        _ = settings.profile
    except SettingsError as exc:
        print(f"checkout-desktop: {exc}", file=sys.stderr)
        if early is not None:
            early.cancel()
        return 2
    if early is not None and not (settings.first_run_done and settings.profile.is_builtin_sandbox):
        early.cancel()
        early = None
    if args.self_test:
        from checkout_desktop.ui.selftest import run_self_test

        return run_self_test(listener_port=args.listener_port)

    import qasync

    from checkout_desktop.ui.qt_app import create_application

    app = create_application()
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    with loop:
        code: int = loop.run_until_complete(_run_window(settings, paths, args, early))
    return code


async def _run_window(
    settings: Settings,
    paths: AppPaths,
    args: argparse.Namespace,
    early: EarlySandbox | None = None,
) -> int:
    from checkout_desktop.ui.qt_app import build_card_page

    sandbox: SandboxLink | None = None
    card_page: CardPage | None = None
    mapping = None if early is None else early.host_mapping()
    if mapping is not None:
        # Chromium starts and loads the card page while the sandbox is still starting.
        _apply_host_mapping(settings, mapping, developer=args.developer)
        card_page = build_card_page(settings, None, developer=args.developer)
        card_page.load()

    from checkout_desktop.gateway.profiles import ProfileError
    from checkout_desktop.secrets import SecretStore
    from checkout_desktop.settings import save_settings
    from checkout_desktop.ui.i18n import Translations, choose_locale
    from checkout_desktop.ui.qt_app import run_wizard

    translations = Translations()
    translations.install(choose_locale(settings.ui.locale))
    if early is not None:
        await _import_core()
        try:
            sandbox = await early.link()
        except StartupError as exc:
            print(f"checkout-desktop: {exc}", file=sys.stderr)
            _discard(card_page)
            return 1
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
                settings,
                paths,
                sandbox=sandbox,
                secrets=secrets,
                listener_port=args.listener_port,
                defer_inbox=True,
            )
            break
        except (StartupError, ProfileError) as exc:
            if sandbox is not None:
                sandbox.stop()
                sandbox = None
            if settings.profile.is_builtin_sandbox or needs_wizard:
                print(f"checkout-desktop: {exc}", file=sys.stderr)
                _discard(card_page)
                return 1
            # A real environment that cannot start (no client id, say): set it up again rather
            # than leave the shop with a terminal that does not open.
            logger.error("the %s profile cannot start: %s", settings.active_profile, exc)
            needs_wizard = True
        except BaseException:
            _discard(card_page)
            raise
    inbox: asyncio.Future[None] | None = None
    try:
        # The access token now, while the window is built: the status bar shows its time left,
        # and a credentials problem shows before the first customer is at the counter.
        warm = asyncio.ensure_future(terminal.tokens.token())
        warm.add_done_callback(_log_warm_up)
        # Let the request go out, so the service works on it while the window is built here.
        await asyncio.wait({warm}, timeout=WARM_UP_HEAD_START_S)
        window, card_page = _open_window(settings, paths, args, terminal, card_page)
        inbox = asyncio.ensure_future(_start_inbox_when_ready(terminal, window, card_page, warm))
        from checkout_desktop.ui.qt_app import close_on_signals, until_closed

        close_on_signals(window.request_close)
        await until_closed(window)
    finally:
        if inbox is not None and not inbox.done():
            inbox.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await inbox
        await terminal.stop()
        if sandbox is not None:
            sandbox.stop()
        translations.remove()
    return 0


def _open_window(
    settings: Settings,
    paths: AppPaths,
    args: argparse.Namespace,
    terminal: Terminal,
    card_page: CardPage | None,
) -> tuple[MainWindow, CardPage]:
    """The main window around the card page (built and loading already, or built now)."""
    from checkout_desktop.ui.card_page import SdkCredentialSource
    from checkout_desktop.ui.main_window import MainWindow
    from checkout_desktop.ui.qt_app import build_card_page, merchant_of

    source = SdkCredentialSource(terminal.merchant_document, terminal.credentials)
    loading = card_page is not None
    if card_page is None:
        card_page = build_card_page(settings, source, developer=args.developer)
    else:
        card_page.set_credential_source(source)
    window = MainWindow(
        settings=settings,
        bus=terminal.bus,
        service=terminal.service,
        events=terminal.events,
        card_page=card_page,
        merchant=merchant_of(settings.profile, terminal.merchant_document, settings.ui.shop_name),
        persist=lambda chosen: _persist(chosen, paths),
        secrets=terminal.secrets,
        acknowledge_url=terminal.acknowledge_url,
        receipts_dir=paths.data_dir,
        defer_panels=True,
    )
    for problem in terminal.problems:
        window.statusBar().showMessage(problem, 30000)
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
    try:
        await terminal.start_inbox()
    except StartupError as exc:
        logger.error("the inbox did not start: %s", exc)
        terminal.problems.append(str(exc))
    except Exception as exc:
        # Charging goes on without notifications; the window says why they are missing.
        logger.exception("the inbox did not start")
        terminal.problems.append(f"notifications are off: the inbox did not start ({exc})")
    for problem in terminal.problems[known:]:
        window.statusBar().showMessage(problem, 30000)
    # The listener, tunnel and health states, also for a window that missed their changes.
    window.adapter.replay(terminal.current_state())


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
    "checkout_desktop.gateway.charging",
    "checkout_desktop.store.db",
    "checkout_desktop.store.events",
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
