"""Starting the built-in sandbox as its own process and linking the terminal to it.

The sandbox plays the service and sees card data, so it runs as a child process (which exits
with the terminal); the terminal knows it through its one-line announcement. This module keeps
what both sides share on disk (the listener's certificate, which the sandbox's webhook sender
trusts, and the SDK backend's certificate, whose key pin Chromium needs) and the SDK host
mapping that sends the published SDK's calls to the sandbox. Heavy modules are imported where
first needed: the terminal launches the sandbox before it loads anything else.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import socket
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    import httpx
    from pydantic import SecretStr

    from checkout_desktop.paths import AppPaths
    from checkout_desktop.sandbox import certs
    from checkout_desktop.sandbox.process import SandboxInfo, SandboxLaunch, SandboxProcess

logger = logging.getLogger(__name__)

LISTENER_CERT_DIR = "listener-tls"
SANDBOX_WEBHOOK_CA = "sandbox-webhook-ca.pem"
SANDBOX_SDK_CERT_DIR = "sandbox-sdk-tls"
"""The sandbox's SDK-backend certificate is kept here, so its key pin is known before the
sandbox is up and Chromium can start loading the card page meanwhile."""
SANDBOX_STATE_FILE = "sandbox-state.json"
"""The sandbox keeps its charges here, so a training sale made before the terminal was closed
can still be queried and refunded after it is started again."""
LOCAL_WEBHOOK_HOST = "localhost"
"""The sandbox delivers to https://localhost:PORT/…: the service's rules refuse IPv4 literals."""

# The built-in sandbox's profile name and kind in the settings file (settings.BUILTIN_SANDBOX and
# ProfileKind.BUILTIN_SANDBOX), spelled out so the quick look needs no settings model.
BUILTIN_SANDBOX_NAME = "builtin-sandbox"


class SandboxLinkError(RuntimeError):
    """The built-in sandbox did not start or cannot be linked; the message says what to do."""


@dataclass(frozen=True)
class SdkEndpoint:
    """Where the SDK's backend host is served locally, and the one key trusted for it."""

    host: str
    port: int
    spki_sha256_b64: str


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

    @property
    def sdk_endpoint(self) -> SdkEndpoint:
        info = self.info
        return SdkEndpoint(info.sdk_host, info.sdk_port, info.sdk_spki_sha256_b64)

    async def set_webhook(self, url: str, http: httpx.AsyncClient | None = None) -> SecretStr:
        """Point the sandbox's notifications at `url`, as a merchant does in the panel.

        Returns the webhook token the sandbox now signs its deliveries with.
        """
        import httpx
        from pydantic import SecretStr

        from checkout_desktop.logsetup import register_secret

        async with contextlib.AsyncExitStack() as stack:
            if http is None:
                http = await stack.enter_async_context(httpx.AsyncClient(timeout=10.0))
            response = await http.put(
                f"{self.info.base_url}/_sandbox/webhook",
                json={"url": url},
                headers={"X-Sandbox-Admin-Token": self.info.admin_token},
                timeout=10.0,
            )
        if response.status_code != 200:
            raise SandboxLinkError(
                f"the sandbox refused the notification URL {url} ({response.status_code}): "
                f"{response.text[:300]}"
            )
        token = str(response.json()["token"])
        register_secret(token)
        return SecretStr(token)

    async def pay_qr(self, merchant_charge_id: str) -> None:
        """Play the customer paying a waiting wallet or PIX QR (the sandbox's simulated payer)."""
        import httpx

        async with httpx.AsyncClient(timeout=10.0, trust_env=False) as http:
            response = await http.post(
                f"{self.info.base_url}/_sandbox/pay/{merchant_charge_id}",
                headers={"X-Sandbox-Admin-Token": self.info.admin_token},
            )
        if response.status_code != 200:
            try:
                message = str(response.json().get("message", ""))
            except ValueError:
                message = response.text[:300]
            raise SandboxLinkError(message or f"HTTP {response.status_code}")

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
        "--state-file",
        str(paths.data_dir / SANDBOX_STATE_FILE),
    ]


def _sandbox_env(ca_file: Path) -> dict[str, str]:
    # The sandbox's only outgoing HTTPS (webhook deliveries) trusts `ca_file` explicitly. Its web
    # library builds two default client contexts at import, each loading OpenSSL's default
    # authority bundle (~20 ms apiece); pointing that bundle at the same small file spares it.
    return dict(os.environ, SSL_CERT_FILE=str(ca_file))


def listener_certificate(paths: AppPaths) -> certs.SdkCertificate:
    """The listener's own certificate for https://localhost (kept in the data folder)."""
    from checkout_desktop.sandbox import certs

    return certs.load_or_create(paths.data_dir / LISTENER_CERT_DIR, LOCAL_WEBHOOK_HOST)


def start_sandbox(
    paths: AppPaths, *, extra_args: tuple[str, ...] = (), stderr: IO[Any] | None = None
) -> SandboxLink:
    """Start the built-in sandbox as a child process that exits with this one; its log lines
    go to `stderr` (this process's own by default)."""
    from checkout_desktop.sandbox.process import start_sandbox_process

    ca_file = paths.data_dir / SANDBOX_WEBHOOK_CA
    cert = listener_certificate(paths)
    ca_file.write_bytes(cert.cert_pem)
    try:
        process = start_sandbox_process(
            [*_sandbox_args(paths, ca_file), *extra_args],
            exit_with_parent=True,
            env=_sandbox_env(ca_file),
            stderr=stderr,
        )
    except Exception as exc:
        raise SandboxLinkError(f"the built-in sandbox did not start: {exc}") from None
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
        self._endpoint: SdkEndpoint | None = None

    def sdk_endpoint(self) -> SdkEndpoint | None:
        """The SDK endpoint the sandbox will announce, or None when it cannot be told yet.

        None when the kept certificate is missing or due for renewal: the sandbox then makes a
        new one, whose pin is known only from its announcement.
        """
        if self._endpoint is None:
            from checkout_desktop.sandbox import SDK_HOST
            from checkout_desktop.sandbox.pins import kept_pin

            pin = kept_pin(self.paths.data_dir / SANDBOX_SDK_CERT_DIR, SDK_HOST)
            if pin is None:
                return None
            port = int(self.sdk_socket.getsockname()[1])
            self._endpoint = SdkEndpoint(SDK_HOST, port, pin)
        return self._endpoint

    async def link(self) -> SandboxLink:
        """Wait for the announcement; SandboxLinkError if it fails or differs from the endpoint."""
        from checkout_desktop.sandbox.process import SandboxStartError

        try:
            process = await self.launch.announced()
        except SandboxStartError as exc:
            raise SandboxLinkError(f"the built-in sandbox did not start: {exc}") from None
        finally:
            # The sandbox holds its own copy of the socket now.
            self.sdk_socket.close()
        link = SandboxLink(info=process.info, webhook_ca_file=self.webhook_ca_file, process=process)
        expected = self._endpoint
        if expected is not None and link.sdk_endpoint != expected:
            link.stop()
            raise SandboxLinkError(
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
    name = profile or raw.get("active_profile", BUILTIN_SANDBOX_NAME)
    profiles = raw.get("profiles")
    if not isinstance(profiles, dict):
        return name == BUILTIN_SANDBOX_NAME
    chosen = profiles.get(name)
    return isinstance(chosen, dict) and chosen.get("kind") == BUILTIN_SANDBOX_NAME


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
