"""The sandbox's webhook sender: notification URL rules, delivery with retries, faults, a log."""

from __future__ import annotations

import asyncio
import ipaddress
import json
import logging
import socket
import ssl
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urlsplit

import aiohttp
from aiohttp.abc import AbstractResolver, ResolveResult
from aiohttp.resolver import DefaultResolver

from checkout_desktop.domain.enums import WebhookEventType
from checkout_desktop.sandbox.errors import NotificationUrlError
from checkout_desktop.sandbox.state import DeliveryRecord, Notification

if TYPE_CHECKING:
    from checkout_desktop.sandbox.server import SandboxServer

logger = logging.getLogger(__name__)

WebhookLayout = Literal["flat", "envelope", "alternate"]
WEBHOOK_LAYOUTS: tuple[WebhookLayout, ...] = ("flat", "envelope", "alternate")

MAX_URL_LENGTH = 2048


def check_notification_url(url: str) -> str:
    """Apply the service's rules for a notification URL; return it or raise NotificationUrlError.

    HTTPS only, no query parameters, no IPv4 address as host (spec 6.1). `localhost` is
    allowed, which is how local delivery reaches a listener on this machine.
    """
    if not isinstance(url, str) or not url.strip():
        raise NotificationUrlError("the notification URL is empty")
    if len(url) > MAX_URL_LENGTH:
        raise NotificationUrlError(f"the notification URL is longer than {MAX_URL_LENGTH} chars")
    if any(ch.isspace() for ch in url):
        raise NotificationUrlError("the notification URL contains spaces")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise NotificationUrlError(f"the notification URL is malformed: {exc}") from None
    if parts.scheme.lower() != "https":
        raise NotificationUrlError(
            f"the notification URL must use HTTPS, not {parts.scheme or 'no scheme'!r}"
        )
    if "?" in url or parts.query:
        raise NotificationUrlError("the notification URL must have no query parameters")
    if "#" in url:
        raise NotificationUrlError("the notification URL must have no fragment (#...)")
    if parts.username is not None or parts.password is not None:
        raise NotificationUrlError("the notification URL must not carry a user name or password")
    host = parts.hostname
    if not host:
        raise NotificationUrlError("the notification URL has no host name")
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        address = None
    if isinstance(address, ipaddress.IPv4Address) or _looks_like_ipv4(host):
        raise NotificationUrlError(
            f"the notification URL must use a host name, not an IPv4 address ({host}); "
            "for this machine use localhost"
        )
    if port == 0:
        raise NotificationUrlError("the notification URL has port 0")
    return url


def _looks_like_ipv4(host: str) -> bool:
    # Shorthand forms resolvers accept as IPv4 (127.1, 2130706433, 0x7f.1) count as IPv4 too.
    pieces = host.split(".")
    return all(p and (p.isdigit() or p.lower().startswith("0x")) for p in pieces)


def is_local_host(host: str) -> bool:
    return host == "localhost" or host.endswith(".localhost")


class LoopbackResolver(AbstractResolver):
    """Resolves `localhost` (and `*.localhost`) to 127.0.0.1 only, other names normally.

    Local delivery must reach the IPv4 loopback where listeners bind; a system resolver may
    answer ::1 first.
    """

    def __init__(self) -> None:
        self._fallback = DefaultResolver()

    async def resolve(
        self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
    ) -> list[ResolveResult]:
        if is_local_host(host.lower()):
            return [
                {
                    "hostname": host,
                    "host": "127.0.0.1",
                    "port": port,
                    "family": socket.AF_INET,
                    "proto": 0,
                    "flags": socket.AI_NUMERICHOST,
                }
            ]
        return await self._fallback.resolve(host, port, family)

    async def close(self) -> None:
        await self._fallback.close()


class WebhookSender:
    """Sends notifications one at a time, in the order decided, with bounded retries."""

    def __init__(self, server: SandboxServer) -> None:
        self._server = server
        self._queue: asyncio.Queue[Notification] | None = None
        self._worker: asyncio.Task[None] | None = None
        self._session: aiohttp.ClientSession | None = None
        self._layout_turn = 0

    # -- life cycle ------------------------------------------------------------------------

    def start(self) -> None:
        self._queue = asyncio.Queue()
        self._worker = asyncio.get_running_loop().create_task(
            self._run(), name="sandbox-webhook-sender"
        )

    async def stop(self) -> None:
        worker, self._worker = self._worker, None
        # A cancel that lands just as the back-off pause ends with the server's stop is
        # swallowed by asyncio.wait_for (Python 3.11): the worker then waits on its queue
        # with the cancel spent. Cancel until it has really ended.
        while worker is not None and not worker.done():
            worker.cancel()
            await asyncio.wait({worker}, timeout=0.5)
        await self._close_session()

    async def join(self) -> None:
        if self._queue is not None:
            await self._queue.join()

    def reset_tls(self) -> None:
        """Drop the HTTP session so the next delivery uses the current CA and URL."""
        session, self._session = self._session, None
        if session is not None and not session.closed:
            self._server.spawn(session.close(), "sandbox-webhook-session-close")

    async def _close_session(self) -> None:
        session, self._session = self._session, None
        if session is not None:
            await session.close()

    def _client(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            ca_file = self._server.config.webhook_ca_file
            context = ssl.create_default_context(
                cafile=str(Path(ca_file)) if ca_file is not None else None
            )
            connector = aiohttp.TCPConnector(
                ssl=context, resolver=LoopbackResolver(), limit=10, force_close=True
            )
            self._session = aiohttp.ClientSession(connector=connector)
        return self._session

    # -- deciding notifications ------------------------------------------------------------

    def next_layout(self) -> Literal["flat", "envelope"]:
        layout = self._server.config.webhook_layout
        if layout == "alternate":
            self._layout_turn += 1
            return "flat" if self._layout_turn % 2 == 1 else "envelope"
        return "flat" if layout == "flat" else "envelope"

    def enqueue(
        self, event_type: WebhookEventType, body: dict[str, Any], merchant_charge_id: str | None
    ) -> Notification:
        note = Notification(
            id=str(uuid.uuid4()),
            event_type=event_type.value,
            body=body,
            merchant_charge_id=merchant_charge_id,
            created_at=self._server.clock.now(),
        )
        self._server.state.add_notification(note)
        if self._queue is None:
            self._record(note, 0, "not_running", detail="the sandbox is not running")
            return note
        self._queue.put_nowait(note)
        return note

    # -- delivering ------------------------------------------------------------------------

    async def _run(self) -> None:
        assert self._queue is not None
        queue = self._queue
        while True:
            note = await queue.get()
            try:
                faults = self._server.config.faults
                if faults.webhook_reorder:
                    later = await self._next_within(queue, faults.webhook_reorder_window_s)
                    if later is not None:
                        try:
                            await self._deliver(later)
                        finally:
                            queue.task_done()
                await self._deliver(note)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                logger.error("webhook delivery failed unexpectedly: %s", type(exc).__name__)
            finally:
                queue.task_done()

    @staticmethod
    async def _next_within(
        queue: asyncio.Queue[Notification], window: float
    ) -> Notification | None:
        try:
            return await asyncio.wait_for(queue.get(), timeout=window)
        except TimeoutError:
            return None

    async def _deliver(self, note: Notification) -> None:
        config = self._server.config
        if config.webhook_url is None:
            self._record(note, 0, "not_configured", detail="no notification URL is set")
            return
        faults = config.faults
        if faults.webhook_delay_s > 0:
            self._record(note, 0, "delayed", detail=f"held {faults.webhook_delay_s:g} s")
            if not await self._server.sleep_unless_stopping(faults.webhook_delay_s):
                return
        copies = 2 if faults.webhook_duplicate else 1
        for copy in range(copies):
            await self._deliver_with_retries(note, duplicate=copy > 0)

    async def _deliver_with_retries(self, note: Notification, *, duplicate: bool) -> None:
        config = self._server.config
        payload = json.dumps(note.body, ensure_ascii=False, separators=(",", ":")).encode()
        for attempt in range(1, config.webhook_max_attempts + 1):
            if attempt <= config.faults.webhook_drop_first:
                self._record(note, attempt, "dropped", detail="lost on the way (fault)")
            elif await self._attempt(note, attempt, payload, duplicate):
                return
            if attempt < config.webhook_max_attempts:
                pause = min(
                    config.webhook_backoff_s * 2 ** (attempt - 1), config.webhook_backoff_max_s
                )
                if not await self._server.sleep_unless_stopping(pause):
                    return
        self._record(note, config.webhook_max_attempts, "gave_up", detail="no more attempts")
        logger.warning(
            "gave up delivering %s for %s after %d attempts",
            note.event_type,
            note.merchant_charge_id,
            config.webhook_max_attempts,
        )

    async def _attempt(
        self, note: Notification, attempt: int, payload: bytes, duplicate: bool
    ) -> bool:
        config = self._server.config
        url = config.webhook_url
        if url is None:
            self._record(note, attempt, "not_configured", detail="the URL was cleared")
            return True
        headers = {
            "Authorization": self._server.state.credentials.webhook_token,
            "event-type": note.event_type,
            "Content-Type": "application/json",
        }
        label = "duplicate" if duplicate else ""
        try:
            async with self._client().post(
                url,
                data=payload,
                headers=headers,
                timeout=aiohttp.ClientTimeout(total=config.webhook_timeout_s),
                allow_redirects=False,
            ) as response:
                await response.read()
                status = response.status
        except TimeoutError:
            self._record(note, attempt, "timeout", detail=label)
            return False
        except aiohttp.ClientError as exc:
            self._record(note, attempt, "connection_error", detail=_client_error_text(exc))
            return False
        if 200 <= status < 300:
            self._record(note, attempt, "delivered", status=status, detail=label)
            return True
        self._record(note, attempt, "http_error", status=status, detail=label)
        return False

    def _record(
        self,
        note: Notification,
        attempt: int,
        outcome: str,
        *,
        status: int | None = None,
        detail: str = "",
    ) -> None:
        record = DeliveryRecord(
            notification_id=note.id,
            event_type=note.event_type,
            body_type=note.body_type,
            merchant_charge_id=note.merchant_charge_id,
            attempt=attempt,
            outcome=outcome,
            status=status,
            detail=detail,
            at=self._server.clock.now(),
        )
        self._server.state.add_delivery(record)
        logger.info(
            "webhook %s %s attempt %d: %s%s",
            note.event_type,
            note.merchant_charge_id,
            attempt,
            outcome,
            f" (HTTP {status})" if status is not None else "",
        )


def _client_error_text(exc: aiohttp.ClientError) -> str:
    if isinstance(exc, aiohttp.ClientConnectorCertificateError):
        return "the receiver's TLS certificate is not trusted (set the webhook CA file)"
    if isinstance(exc, aiohttp.ClientSSLError):
        return "TLS handshake with the receiver failed"
    if isinstance(exc, aiohttp.ClientConnectorError):
        return f"cannot connect to the receiver ({exc.os_error.strerror or type(exc).__name__})"
    return type(exc).__name__
