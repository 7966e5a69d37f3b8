"""The first-run wizard's connection test: start the chosen environment, fetch a token, check
the listener end to end, and report each step in the UI language."""

from __future__ import annotations

import logging
import socket
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication

if TYPE_CHECKING:
    from checkout_desktop.paths import AppPaths
    from checkout_desktop.sandbox.link import SandboxLink
    from checkout_desktop.secrets import SecretStore
    from checkout_desktop.settings import Settings
    from checkout_desktop.ui.wizard import CheckResult

logger = logging.getLogger(__name__)


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
        from checkout_desktop.domain.events import EventBus
        from checkout_desktop.gateway.errors import GatewayError
        from checkout_desktop.gateway.profiles import ProfileError
        from checkout_desktop.sandbox.link import SandboxLinkError, start_sandbox
        from checkout_desktop.secrets import KeychainUnavailable, SecretMissing
        from checkout_desktop.terminal import StartupError, Terminal
        from checkout_desktop.ui.reasons import error_text, reason_text
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
            except SandboxLinkError as exc:
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
                results.append(CheckResult(token_name, False, error_text(exc)))
            for problem in terminal.problems:
                results.append(CheckResult(listener_name, False, problem))
            if terminal.inbox.health is not None:
                status = await terminal.inbox.health.check_now()
                level = status.level.value
                results.append(
                    CheckResult(
                        listener_name,
                        level in ("healthy", "degraded"),
                        QCoreApplication.translate("ConnectionTest", "{level} ({reason})").format(
                            level=_health_words(level), reason=reason_text(status.reason)
                        ),
                        warning=level == "degraded",
                    )
                )
        finally:
            await terminal.stop()
        return results

    def release(self) -> None:
        """Stop a sandbox the terminal did not take over."""
        if self.sandbox is not None:
            self.sandbox.stop()
            self.sandbox = None


def _health_words(level: str) -> str:
    """The inbox's health level in plain words (a degraded inbox works, with a warning)."""
    words = {
        "healthy": QCoreApplication.translate("ConnectionTest", "working"),
        "degraded": QCoreApplication.translate("ConnectionTest", "working, with a warning"),
        "down": QCoreApplication.translate("ConnectionTest", "not working"),
    }
    return words.get(level, level)
