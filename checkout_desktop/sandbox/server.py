"""The sandbox service in one object: REST API and token server, SDK backend, webhook sender."""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import secrets
import socket
from collections.abc import Coroutine
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from aiohttp import web

from checkout_desktop.sandbox import SDK_HOST, certs
from checkout_desktop.sandbox.credentials import SandboxCredentials
from checkout_desktop.sandbox.errors import SandboxConfigError
from checkout_desktop.sandbox.faults import FaultDice, FaultSettings
from checkout_desktop.sandbox.state import SandboxClock, SandboxState
from checkout_desktop.sandbox.variants import ServiceVariants
from checkout_desktop.sandbox.webhooks import (
    WEBHOOK_LAYOUTS,
    WebhookLayout,
    WebhookSender,
    check_notification_url,
)
from checkout_desktop.texts import QT_TRANSLATE_NOOP, Words

if TYPE_CHECKING:
    from checkout_desktop.sandbox.statefile import StateFile

logger = logging.getLogger(__name__)

INFO_VERSION = 1
MAX_KEPT_CHARGES = 5_000
"""Charges a state file keeps (card and QR together): more than a shop's training needs, and
few enough that the whole file is rewritten at each change in about 20 ms."""


@dataclass
class SandboxConfig:
    """How the sandbox runs. Times are seconds; ports 0 pick a free port."""

    host: str = "127.0.0.1"
    api_port: int = 0
    sdk_port: int = 0
    token_lifetime_s: float = 300.0
    webhook_url: str | None = None
    webhook_token: str | None = None
    webhook_ca_file: str | Path | None = None
    webhook_layout: WebhookLayout = "envelope"
    faults: FaultSettings = field(default_factory=FaultSettings)
    variants: ServiceVariants = field(default_factory=ServiceVariants)
    """How the sandbox answers each open question about the real service (see variants.py)."""
    sdk_cert_dir: str | Path | None = None
    sdk_host: str = SDK_HOST
    credentials: SandboxCredentials | None = None
    card_token_lifetime_s: float = 900.0
    slow_card_delay_s: float = 35.0
    qr_autopay_s: float | None = None
    """Pay every wallet and PIX QR this many seconds after it is made (demos, the self-test)."""
    webhook_timeout_s: float = 10.0
    webhook_max_attempts: int = 5
    webhook_backoff_s: float = 1.0
    webhook_backoff_max_s: float = 30.0
    max_api_body_bytes: int = 256 * 1024
    max_sdk_body_bytes: int = 16 * 1024
    sdk_socket: socket.socket | None = None
    """A listening socket to serve the SDK backend on, instead of binding `sdk_port`: the
    process that starts the sandbox can then map the SDK host to it before the sandbox is up."""
    state_file: str | Path | None = None
    """Keep the charges in this file across restarts (`sandbox/statefile.py`); None: in memory
    only, gone when the sandbox stops."""
    state_max_charges: int = MAX_KEPT_CHARGES
    """With a state file, at most this many charges are kept; the oldest go first."""

    def check(self) -> None:
        """Raise SandboxConfigError for a value that cannot work."""
        for name in ("api_port", "sdk_port"):
            port = getattr(self, name)
            if not 0 <= port <= 65535:
                raise SandboxConfigError(
                    Words(
                        QT_TRANSLATE_NOOP(
                            "SandboxCommand", "{name} must be between 0 and 65535, got {port}"
                        ),
                        name=name,
                        port=port,
                    )
                )
        if self.sdk_socket is not None and self.sdk_port != 0:
            raise SandboxConfigError(
                "give the SDK backend either a port or a listening socket, not both"
            )
        positive = (
            "token_lifetime_s",
            "card_token_lifetime_s",
            "webhook_timeout_s",
        )
        for name in positive:
            if getattr(self, name) <= 0:
                raise SandboxConfigError(f"{name} must be above 0, got {getattr(self, name)}")
        for name in ("slow_card_delay_s", "webhook_backoff_s"):
            if getattr(self, name) < 0:
                raise SandboxConfigError(f"{name} cannot be negative, got {getattr(self, name)}")
        if self.qr_autopay_s is not None and self.qr_autopay_s < 0:
            raise SandboxConfigError(f"qr_autopay_s cannot be negative, got {self.qr_autopay_s}")
        if self.webhook_max_attempts < 1:
            raise SandboxConfigError("webhook_max_attempts must be at least 1")
        if self.state_max_charges < 1:
            raise SandboxConfigError("state_max_charges must be at least 1")
        if self.webhook_layout not in WEBHOOK_LAYOUTS:
            raise SandboxConfigError(
                f"webhook_layout must be one of {', '.join(WEBHOOK_LAYOUTS)}, "
                f"got {self.webhook_layout!r}"
            )
        if self.webhook_url is not None:
            check_notification_url(self.webhook_url)
        if self.webhook_ca_file is not None and not Path(self.webhook_ca_file).is_file():
            raise SandboxConfigError(f"webhook CA file {self.webhook_ca_file} does not exist")
        self.faults.check()


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class SandboxServer:
    """The whole simulated service, run in-process on the current asyncio loop."""

    def __init__(self, config: SandboxConfig | None = None) -> None:
        self.config = config if config is not None else SandboxConfig()
        self.config.check()
        credentials = self.config.credentials or SandboxCredentials()
        if self.config.webhook_token is not None:
            credentials = replace(credentials, webhook_token=self.config.webhook_token)
        self.clock = SandboxClock()
        self.state = SandboxState(credentials, self.clock)
        self.dice = FaultDice(self.config.faults)
        self.admin_token = secrets.token_urlsafe(24)
        self.instance = secrets.token_hex(6)
        """Which sandbox this is, announced: the state file's (kept with its charges, so the
        same across restarts), or a new one at each start without a state file."""
        self.state_file: StateFile | None = None
        self._api_runner: web.AppRunner | None = None
        self._sdk_runner: web.AppRunner | None = None
        self._api_port: int | None = None
        self._sdk_port: int | None = None
        self._certificate: certs.SdkCertificate | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._stopping = asyncio.Event()
        self.webhooks = WebhookSender(self)

    # -- life cycle ------------------------------------------------------------------------

    async def start(self) -> None:
        if self._api_runner is not None:
            raise RuntimeError("the sandbox is already running")
        from checkout_desktop.sandbox.api import build_api_app
        from checkout_desktop.sandbox.charges import add_charge_routes
        from checkout_desktop.sandbox.sdk_backend import build_sdk_app

        if not _is_loopback(self.config.host):
            logger.warning(
                "the sandbox listens on %s, not a loopback address: other machines can reach it",
                self.config.host,
            )
        self._stopping.clear()
        if self.config.state_file is not None and self.state_file is None:
            from checkout_desktop.sandbox.statefile import StateFile

            self.state_file = StateFile(
                self.config.state_file, max_charges=self.config.state_max_charges
            )
            self.state_file.load(self.state)
            self.instance = self.state_file.instance
        elif self.state_file is not None and not self.state_file.hold():
            # Started again after a stop, while another sandbox took the file meanwhile.
            logger.warning("sandbox state file is kept by another sandbox; in memory only now")
            self.state_file = None
        self._certificate = await asyncio.to_thread(self._load_certificate)
        ssl_context = await asyncio.to_thread(self._certificate.server_context)
        from checkout_desktop.sandbox.three_ds import add_acs_routes, add_three_ds_routes

        api_app = build_api_app(self)
        add_three_ds_routes(api_app)
        add_charge_routes(api_app)
        sdk_app = build_sdk_app(self)
        add_acs_routes(sdk_app)
        try:
            self._api_runner, self._api_port = await _serve(
                api_app, self.config.host, self.config.api_port, None
            )
            self._sdk_runner, self._sdk_port = await _serve(
                sdk_app,
                self.config.host,
                self.config.sdk_port,
                ssl_context,
                sock=self.config.sdk_socket,
            )
        except BaseException:
            await self.stop()
            raise
        self.webhooks.start()
        from checkout_desktop.sandbox.qr import watch_waiting

        # QRs the state file brought back still expire, or are paid by the simulated payer.
        watch_waiting(self)
        logger.info(
            "sandbox running: API %s, SDK backend https://%s (mapped to %s:%d); variants %s",
            self.api_url,
            self.sdk_host,
            self.config.host,
            self._sdk_port,
            " ".join(f"{k}={v}" for k, v in self.variants.as_dict().items()),
        )

    def _load_certificate(self) -> certs.SdkCertificate:
        if self.config.sdk_cert_dir is not None:
            return certs.load_or_create(Path(self.config.sdk_cert_dir), self.sdk_host)
        return certs.generate(self.sdk_host)

    async def stop(self) -> None:
        """Stop serving; pending deliveries and delayed replies are abandoned."""
        self._stopping.set()
        await self.webhooks.stop()
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)
        for runner in (self._api_runner, self._sdk_runner):
            if runner is not None:
                await runner.cleanup()
        self._api_runner = None
        self._sdk_runner = None
        self.save_if_changed()
        if self.state_file is not None:
            self.state_file.release()
        logger.info("sandbox stopped")

    async def __aenter__(self) -> SandboxServer:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.stop()

    @property
    def running(self) -> bool:
        return self._api_runner is not None

    def spawn(self, coro: Coroutine[Any, Any, Any], name: str) -> asyncio.Task[Any]:
        """Run background work owned by the server (cancelled on stop)."""
        task = asyncio.get_running_loop().create_task(coro, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._task_done)
        return task

    def _task_done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            exc = task.exception()
            logger.error("sandbox task %s failed: %s", task.get_name(), type(exc).__name__)

    def save_if_changed(self) -> None:
        """Write the charges to the state file (if there is one) when any changed since.

        Called after every request to either app, before its reply is sent (a middleware: a
        reply never tells of a charge the file does not hold yet); before every wait
        (`sleep_unless_stopping`: a charge whose reply an injected delay holds back, and a QR
        the watch waits on, are on disk meanwhile); by the QR watch when it pays or expires a
        QR; and at stop. Nothing else changes a charge, so every change is written.
        """
        if self.state_file is not None:
            self.state_file.save_if_changed(self.state)

    async def sleep_unless_stopping(self, seconds: float) -> bool:
        """Sleep; True if the full time passed, False if the server began stopping.

        What changed so far is saved first: the wait may end in a crash.
        """
        self.save_if_changed()
        if seconds <= 0:
            return not self._stopping.is_set()
        try:
            await asyncio.wait_for(self._stopping.wait(), timeout=seconds)
        except TimeoutError:
            return True
        return False

    # -- addresses and credentials ---------------------------------------------------------

    def _require_running(self) -> None:
        if self._api_port is None or self._sdk_port is None:
            raise RuntimeError("the sandbox is not running; await start() first")

    @property
    def api_url(self) -> str:
        """Base URL of the REST API; the token endpoint lives under it too (auth_url)."""
        self._require_running()
        host = self.config.host
        if ":" in host:
            host = f"[{host}]"
        return f"http://{host}:{self._api_port}"

    @property
    def base_url(self) -> str:
        return self.api_url

    @property
    def auth_url(self) -> str:
        return self.api_url

    @property
    def api_port(self) -> int:
        self._require_running()
        assert self._api_port is not None
        return self._api_port

    @property
    def sdk_port(self) -> int:
        self._require_running()
        assert self._sdk_port is not None
        return self._sdk_port

    @property
    def sdk_host(self) -> str:
        return self.config.sdk_host

    @property
    def sdk_address(self) -> str:
        """The local address the SDK host must be mapped to."""
        if self.config.sdk_socket is not None:
            return str(self.config.sdk_socket.getsockname()[0])
        return "127.0.0.1" if self.config.host in ("localhost", "0.0.0.0") else self.config.host  # noqa: S104

    @property
    def certificate(self) -> certs.SdkCertificate:
        if self._certificate is None:
            raise RuntimeError("the sandbox is not running; await start() first")
        return self._certificate

    @property
    def sdk_spki_sha256_b64(self) -> str:
        return self.certificate.spki_sha256_b64

    @property
    def sdk_cert_pem(self) -> str:
        return self.certificate.cert_pem.decode("ascii")

    @property
    def credentials(self) -> SandboxCredentials:
        return self.state.credentials

    @property
    def faults(self) -> FaultSettings:
        return self.config.faults

    @property
    def variants(self) -> ServiceVariants:
        return self.config.variants

    def info(self) -> dict[str, Any]:
        """What a client needs to use this sandbox (the JSON line of the standalone command)."""
        return {
            "service": "checkout-desktop-sandbox",
            "version": INFO_VERSION,
            "instance": self.instance,
            "base_url": self.base_url,
            "auth_url": self.auth_url,
            "sdk": {
                "host": self.sdk_host,
                "address": self.sdk_address,
                "port": self.sdk_port,
                "spki_sha256": self.sdk_spki_sha256_b64,
                "cert_pem": self.sdk_cert_pem,
            },
            "credentials": self.credentials.as_json(),
            "admin_token": self.admin_token,
            "variants": self.variants.as_dict(),
            "webhook": {
                "url": self.config.webhook_url,
                "layout": self.config.webhook_layout,
            },
        }

    # -- run-time controls -----------------------------------------------------------------

    def expire_tokens_now(self) -> int:
        """Every access token issued so far is expired from now on; returns how many."""
        count = self.state.expire_all_access_tokens()
        logger.info("expired %d access token(s) on request", count)
        return count

    def configure_webhook(
        self,
        url: str | None,
        *,
        token: str | None = None,
        ca_file: str | Path | None = None,
        layout: WebhookLayout | None = None,
    ) -> str:
        """Set the notification URL as the merchant panel does; returns the webhook token.

        Like the panel, a new token is generated unless one is given.
        """
        if url is not None:
            check_notification_url(url)
        if ca_file is not None and not Path(ca_file).is_file():
            raise SandboxConfigError(f"webhook CA file {ca_file} does not exist")
        if layout is not None and layout not in WEBHOOK_LAYOUTS:
            raise SandboxConfigError(f"webhook_layout must be one of {', '.join(WEBHOOK_LAYOUTS)}")
        new_token = token if token is not None else secrets.token_urlsafe(24)
        self.config.webhook_url = url
        if ca_file is not None:
            self.config.webhook_ca_file = ca_file
        if layout is not None:
            self.config.webhook_layout = layout
        self.state.credentials = replace(self.state.credentials, webhook_token=new_token)
        self.webhooks.reset_tls()
        logger.info("notification URL %s", "set" if url else "cleared")
        return new_token

    async def webhooks_idle(self, within_s: float = 30.0) -> None:
        """Wait until every notification decided so far has been delivered or given up."""
        await asyncio.wait_for(self.webhooks.join(), timeout=within_s)


async def _serve(
    app: web.Application,
    host: str,
    port: int,
    ssl_context: Any,
    *,
    sock: socket.socket | None = None,
) -> tuple[web.AppRunner, int]:
    # access_log=None: the default access log prints query strings; our middleware logs
    # method, path and status only.
    runner = web.AppRunner(app, access_log=None, shutdown_timeout=1.0)
    await runner.setup()
    try:
        site: web.BaseSite
        if sock is not None:
            site = web.SockSite(runner, sock, ssl_context=ssl_context)
        else:
            site = web.TCPSite(runner, host, port, ssl_context=ssl_context, reuse_address=True)
        await site.start()
    except OSError as exc:
        await runner.cleanup()
        raise SandboxConfigError(
            Words(
                QT_TRANSLATE_NOOP("SandboxCommand", "cannot listen on {address}: {why}"),
                address=f"{host}:{port}",
                why=exc.strerror,
            )
        ) from None
    bound = _bound_port(runner)
    return runner, bound


def _bound_port(runner: web.AppRunner) -> int:
    for address in runner.addresses:
        if isinstance(address, tuple) and len(address) >= 2:
            return int(address[1])
    raise RuntimeError("the sandbox socket has no port")


__all__ = [
    "SDK_HOST",
    "FaultSettings",
    "SandboxConfig",
    "SandboxConfigError",
    "SandboxCredentials",
    "SandboxServer",
    "WebhookLayout",
]
