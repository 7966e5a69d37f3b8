"""The webhook listener: one authenticated POST path on loopback, durable before it answers 2xx.

Order of checks for every request: the token (401, nothing stored), the content type (415),
the body's size and read time (413, 408), the JSON and its shape (400). Every refusal after
the token check keeps what arrived in the quarantine, so nothing the service sent is lost; a
2xx is sent only after the delivery's row has been committed with synchronous=FULL.
"""

from __future__ import annotations

import asyncio
import errno
import hmac
import ipaddress
import logging
import ssl
from dataclasses import dataclass
from typing import Any

from aiohttp import web
from pydantic import SecretStr

from checkout_desktop.domain.enums import Verdict
from checkout_desktop.domain.events import EventBus
from checkout_desktop.domain.inbox_events import ListenerState, ListenerStateChanged, WebhookRefused
from checkout_desktop.domain.reasons import Reason, ReasonCode
from checkout_desktop.domain.start_problems import StartProblemKind
from checkout_desktop.domain.timestamps import utc_now
from checkout_desktop.inbox.gate import ConnectionGate, RateLimitedLog
from checkout_desktop.inbox.intake import (
    Intake,
    Received,
    classify,
    event_type_of,
    quarantine,
    safe_headers,
)
from checkout_desktop.inbox.writer import InboxStopping, InboxUnavailable, InboxWriter, WriteResult
from checkout_desktop.logsetup import register_secret
from checkout_desktop.settings import ListenerSettings
from checkout_desktop.store.errors import StoreError
from checkout_desktop.texts import translate

logger = logging.getLogger(__name__)

_READ_CHUNK = 64 * 1024
_JSON_TYPES = frozenset({"application/json", "text/json"})


class ListenerError(RuntimeError):
    """The listener cannot start; the message says why (port taken, bad address, no token),
    and `kind` says which, for words in the screen's language."""

    def __init__(self, reason: str, kind: StartProblemKind) -> None:
        super().__init__(reason)
        self.kind = kind


LOOPBACK_NAMES = frozenset({"localhost"})


def check_bind_host(host: str, *, allow_remote: bool = False) -> None:
    """The one loopback rule for every way the inbox starts (window, `listen`, tests).

    The inbox listens on this machine only: a tunnel or a reverse proxy on the same machine
    forwards the service's deliveries. Any other address is refused with a plain message,
    unless `allow_remote` says so explicitly (`listen --allow-remote`, for an inbox shared on
    a trusted network), and then a warning is logged.
    """
    if _is_loopback(host):
        return
    if not allow_remote:
        where = host or translate("ListenerRules", "every address")
        raise ListenerError(
            translate(
                "ListenerRules",
                "the inbox listens on this machine only (127.0.0.1 or ::1), not on {host}; "
                "change the listener's host in the settings back to 127.0.0.1 (a tunnel or a "
                "reverse proxy on this machine forwards the service's deliveries), or start "
                "`checkout-desktop listen --allow-remote` to share the inbox on a trusted "
                "network",
            ).format(host=where),
            StartProblemKind.LISTENER_SETTINGS,
        )
    logger.warning(
        "the inbox listens on %s, reachable from other machines (--allow-remote); "
        "only the webhook token keeps strangers out",
        host or "every address",
    )


def _is_loopback(host: str) -> bool:
    if host.lower() in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        # A name other than localhost may resolve to any address: not loopback by rule.
        return False


@dataclass
class ListenerStats:
    """Counters since start, for the status panel and the benchmark."""

    stored: int = 0
    duplicates: int = 0
    quarantined: int = 0
    refused: int = 0
    unavailable: int = 0


def is_json_media_type(content_type: str | None) -> bool:
    """application/json, text/json or any `+json` type; parameters (charset) are ignored."""
    if content_type is None:
        return True
    media = content_type.split(";", 1)[0].strip().lower()
    return media in _JSON_TYPES or (media.startswith("application/") and media.endswith("+json"))


def presented_token(value: str) -> str:
    """The token in an Authorization value: bare, or after a `Bearer ` prefix (sources differ)."""
    value = value.strip()
    scheme, _, rest = value.partition(" ")
    if rest and scheme.lower() == "bearer":
        return rest.strip()
    return value


def _error(status: int, message: str, **extra: Any) -> web.Response:
    return web.json_response({"error": message, **extra}, status=status)


class _GatedSite(web.TCPSite):
    """A TCP site whose connections pass through a ConnectionGate."""

    def __init__(self, runner: web.AppRunner, gate_args: dict[str, int], **kwargs: Any) -> None:
        super().__init__(runner, **kwargs)
        self._gate_args = gate_args
        self.gate: ConnectionGate | None = None

    async def start(self) -> None:
        server = self._runner.server
        assert server is not None
        self.gate = ConnectionGate(server, **self._gate_args)
        self._runner._reg_site(self)
        try:
            self._server = await asyncio.get_running_loop().create_server(
                self.gate,
                self._host,
                self._port,
                ssl=self._ssl_context,
                backlog=self._backlog,
            )
        except BaseException:
            self._runner._unreg_site(self)
            raise


class WebhookListener:
    """Serves the notification path on the app's asyncio loop and hands deliveries to a writer.

    The listener owns the writer's lifecycle: `start` starts it, `stop` drains it after the
    last request has been answered.
    """

    def __init__(
        self,
        settings: ListenerSettings,
        *,
        token: SecretStr,
        writer: InboxWriter,
        bus: EventBus | None = None,
        ssl_context: ssl.SSLContext | None = None,
        allow_remote: bool = False,
    ) -> None:
        self._settings = settings
        self._allow_remote = allow_remote
        self._writer = writer
        self._bus = bus
        self._ssl = ssl_context
        self._token = self._check_token(token)
        self._runner: web.AppRunner | None = None
        self._site: _GatedSite | None = None
        self._port: int | None = None
        self.stats = ListenerStats()
        self.last_unavailable: str | None = None
        """Why the last delivery could not be stored (503), for the health monitor."""
        self._log_refused = RateLimitedLog(logger, "refused a delivery from %s: %s")

    @staticmethod
    def _check_token(token: SecretStr) -> bytes:
        plain = token.get_secret_value().strip()
        if not plain:
            raise ListenerError(
                "the webhook token is empty; enter the token the merchant panel showed when the "
                "notification URL was saved",
                StartProblemKind.WEBHOOK_TOKEN_MISSING,
            )
        register_secret(plain)
        return plain.encode("utf-8")

    def set_token(self, token: SecretStr) -> None:
        """Use a new webhook token from now on (the merchant generated a new one)."""
        self._token = self._check_token(token)

    @property
    def port(self) -> int | None:
        return self._port

    @property
    def url(self) -> str | None:
        """The local address of the notification path, once bound."""
        if self._port is None:
            return None
        scheme = "https" if self._ssl is not None else "http"
        host = self._settings.host
        shown = f"[{host}]" if ":" in host else host
        return f"{scheme}://{shown}:{self._port}{self._settings.path}"

    @property
    def gate(self) -> ConnectionGate | None:
        """The connection gate while the listener runs (its counters, for tests and health)."""
        return None if self._site is None else self._site.gate

    @property
    def running(self) -> bool:
        return self._runner is not None

    async def start(self) -> str:
        """Start the writer and bind; returns the local URL of the notification path."""
        if self._runner is not None:
            raise ListenerError("the listener is already running", StartProblemKind.INBOX_FAILED)
        try:
            check_bind_host(self._settings.host, allow_remote=self._allow_remote)
        except ListenerError as exc:
            self._failed(str(exc))
            raise
        self._publish_state(ListenerState.STARTING, None)
        app = web.Application()
        app.router.add_post(self._settings.path, self._handle)
        runner = web.AppRunner(
            app,
            access_log=None,
            handle_signals=False,
            # Also the head timeout: aiohttp runs this timer from the moment a connection is
            # made, and closes a connection whose request head has not arrived when it fires.
            keepalive_timeout=self._settings.head_timeout_s,
            # Requests in flight at stop get this long to be committed and answered.
            shutdown_timeout=self._settings.read_timeout_s + 5,
        )
        await runner.setup()
        site = _GatedSite(
            runner,
            {
                "max_total": self._settings.max_connections,
                "max_per_source": self._settings.max_connections_per_source,
            },
            host=self._settings.host,
            port=self._settings.port,
            ssl_context=self._ssl,
            # asyncio accepts up to `backlog` connections per wake-up: a small batch keeps the
            # descriptors of a burst (new, kept, and closing ones) well below 1,024.
            backlog=128,
        )
        try:
            if not self._writer.running:
                await self._writer.start()
        except StoreError as exc:
            # Raised as it is: its type tells the caller the store is the problem (exit 3).
            await runner.cleanup()
            self._failed(str(exc))
            raise
        except OSError as exc:
            await runner.cleanup()
            reason = f"cannot open the inbox's store: {exc}"
            self._failed(reason)
            raise ListenerError(reason, StartProblemKind.INBOX_STORE) from None
        except BaseException:
            await runner.cleanup()
            raise
        try:
            await site.start()
        except OSError as exc:
            await runner.cleanup()
            await self._writer.close()
            reason = (
                f"cannot listen on {self._settings.host}:{self._settings.port}: {exc.strerror}"
                " (another program, or another checkout-desktop, may hold the port; change the "
                "port in Settings → Webhooks)"
            )
            self._failed(reason)
            taken = exc.errno == errno.EADDRINUSE
            raise ListenerError(
                reason,
                StartProblemKind.LISTENER_PORT_TAKEN
                if taken
                else StartProblemKind.LISTENER_CANNOT_BIND,
            ) from None
        except BaseException:
            await runner.cleanup()
            await self._writer.close()
            raise
        self._runner = runner
        self._site = site
        self._port = int(runner.addresses[0][1])
        url = self.url
        assert url is not None
        logger.info("webhook listener on %s", url)
        self._publish_state(ListenerState.LISTENING, None)
        return url

    async def stop(self) -> None:
        """Stop accepting, answer the requests in flight, commit everything, close the store."""
        runner, self._runner = self._runner, None
        self._site = None
        if runner is not None:
            await runner.cleanup()
        await self._writer.close()
        if runner is not None:
            self._publish_state(ListenerState.STOPPED, None)
            self._port = None

    def _failed(self, reason: str) -> None:
        # Logged here, so the window's log says why as well as `listen`'s standard error.
        logger.error("the webhook listener did not start: %s", reason)
        self._publish_state(ListenerState.FAILED, reason)

    def _publish_state(self, state: ListenerState, reason: str | None) -> None:
        if self._bus is not None:
            self._bus.publish(ListenerStateChanged(state=state, url=self.url, reason=reason))

    # -- the request path -----------------------------------------------------------------------

    def _refusal(self, request: web.Request) -> str | None:
        values = request.headers.getall("Authorization", [])
        if not values:
            return "no Authorization header"
        if len(values) > 1:
            return "more than one Authorization header"
        candidate = presented_token(values[0]).encode("utf-8")
        if not hmac.compare_digest(candidate, self._token):
            return "wrong webhook token"
        return None

    async def _read_body(self, request: web.Request) -> tuple[bytes, int | None, Reason | None]:
        """The body, up to the size limit and within the read time: (bytes, status, problem)."""
        limit = self._settings.max_body_bytes
        declared = request.content_length
        chunks: list[bytes] = []
        size = 0
        if declared is not None and declared <= limit:
            # A small body usually arrives with the headers: take it without the timer.
            ready = request.content.read_nowait()
            if request.content.is_eof():
                return ready, None, None
            if ready:
                chunks.append(ready)
                size = len(ready)
        try:
            async with asyncio.timeout(self._settings.read_timeout_s):
                while True:
                    chunk = await request.content.read(_READ_CHUNK)
                    if not chunk:
                        break
                    if size + len(chunk) > limit:
                        chunks.append(chunk[: limit - size])
                        return (
                            b"".join(chunks),
                            413,
                            Reason.of(ReasonCode.INBOX_TOO_LARGE_UNKNOWN, limit=limit)
                            if declared is None
                            else Reason.of(ReasonCode.INBOX_TOO_LARGE, size=declared, limit=limit),
                        )
                    size += len(chunk)
                    chunks.append(chunk)
        except TimeoutError:
            return (
                b"".join(chunks),
                408,
                Reason.of(
                    ReasonCode.INBOX_STALLED,
                    seconds=f"{self._settings.read_timeout_s:g}",
                    size=size,
                ),
            )
        return b"".join(chunks), None, None

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        received_at = utc_now()
        refusal = self._refusal(request)
        if refusal is not None:
            self.stats.refused += 1
            self._log_refused(request.remote, refusal)
            if self._bus is not None:
                self._bus.publish(
                    WebhookRefused(http_status=401, reason=refusal, remote=request.remote)
                )
            return _error(401, "the Authorization token is missing or wrong")
        content_type = request.headers.get("Content-Type")
        body, status, problem = await self._read_body(request)
        received = Received(
            body=body,
            headers=safe_headers(request.headers.items()),
            received_at=received_at,
            event_type=event_type_of(request.headers),
            content_type=content_type,
            remote=request.remote,
        )
        if status is None and not is_json_media_type(content_type):
            status = 415
            problem = Reason.of(ReasonCode.INBOX_NOT_JSON_TYPE, type=repr(content_type))
        if status is not None:
            assert problem is not None
            return await self._store_refusal(quarantine(received, problem), status, problem)
        intake = classify(received)
        if intake.event.verdict == Verdict.QUARANTINED:
            reason = intake.event.reason or Reason.of(ReasonCode.INBOX_CANNOT_ACCEPT)
            return await self._store_refusal(intake, 400, reason)
        try:
            result = await self._writer.submit(intake)
        except InboxUnavailable as exc:
            return self._unavailable(exc)
        if result.verdict == Verdict.QUARANTINED:
            # The store could not take the body as read; its bytes are kept in the quarantine.
            self.stats.quarantined += 1
            return _error(
                400,
                "the body cannot be accepted; it is kept",
                stored=result.event_id,
                verdict=result.verdict.value,
            )
        if result.verdict == Verdict.DUPLICATE:
            self.stats.duplicates += 1
        else:
            self.stats.stored += 1
        return web.Response(
            body=b'{"stored": %d, "verdict": "%s"}'
            % (result.event_id, result.verdict.value.encode()),
            content_type="application/json",
        )

    async def _store_refusal(self, intake: Intake, status: int, reason: Reason) -> web.Response:
        try:
            result: WriteResult = await self._writer.submit(intake)
        except InboxUnavailable as exc:
            return self._unavailable(exc)
        self.stats.quarantined += 1
        logger.warning("quarantined delivery %d (%d): %s", result.event_id, status, reason)
        return _error(
            status, reason.english(), stored=result.event_id, verdict=result.verdict.value
        )

    def _unavailable(self, exc: InboxUnavailable) -> web.Response:
        self.stats.unavailable += 1
        self.last_unavailable = str(exc)
        if isinstance(exc, InboxStopping):
            # The terminal is closing: the sender retries, and the next start stores it.
            logger.info("a delivery arrived while the inbox stops: %s", exc)
        else:
            logger.error("a delivery could not be stored: %s", exc)
        response = _error(503, f"the delivery was not stored; retry later ({exc})")
        response.headers["Retry-After"] = "5"
        return response


__all__ = [
    "ListenerError",
    "ListenerStats",
    "WebhookListener",
    "check_bind_host",
    "is_json_media_type",
    "presented_token",
]
