"""The listener's door: connections capped in total and per source, refusals logged sparingly.

Every accepted connection holds a file descriptor. Without a cap, silent half-open connections
(a client that connects and never sends its headers) use up the process's open-files limit:
then no valid delivery can be accepted, and the event loop logs one error per failed accept.
The gate counts the open connections; when a new one would pass a cap, it closes the oldest
connection of that kind that has still not sent a whole request head (the ones that can only be
waiting or hostile), and refuses the new one only when every open connection is busy with a
real request. A request head must also arrive within the head timeout, which the HTTP server's
keep-alive timer enforces from the moment a connection is made.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

logger = logging.getLogger(__name__)

_HEAD_END = b"\r\n\r\n"
LOG_EVERY_S = 10.0


class RateLimitedLog:
    """Logs the first of a kind of event, then at most one summary line per `every_s` seconds."""

    def __init__(
        self,
        log: logging.Logger,
        message: str,
        *,
        every_s: float = LOG_EVERY_S,
        level: int = logging.WARNING,
    ) -> None:
        self._log = log
        self._message = message
        self._every_s = every_s
        self._level = level
        self._last = -float("inf")
        self._suppressed = 0

    def __call__(self, *args: object) -> None:
        now = time.monotonic()
        if now - self._last < self._every_s:
            self._suppressed += 1
            return
        suffix = ""
        if self._suppressed:
            suffix = f" (and {self._suppressed} more like it in the last {self._every_s:g} s)"
        self._last = now
        self._suppressed = 0
        self._log.log(self._level, self._message + suffix, *args)


class _Guarded(asyncio.Protocol):
    """One connection through the gate: the HTTP server's protocol, counted while open."""

    def __init__(self, gate: ConnectionGate) -> None:
        self._gate = gate
        self._inner: asyncio.Protocol | None = None
        self.transport: asyncio.Transport | None = None
        self.source = "?"
        self.awaiting_head = True
        self._tail = b""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        peer = transport.get_extra_info("peername")
        self.source = str(peer[0]) if isinstance(peer, tuple) and peer else "?"
        if not self._gate.admit(self):
            assert self.transport is not None
            self.transport.abort()
            return
        self._inner = self._gate.make_protocol()
        self._inner.connection_made(transport)

    def data_received(self, data: bytes) -> None:
        if self._inner is None:
            return
        if self.awaiting_head:
            seen = self._tail + data
            if _HEAD_END in seen:
                self.awaiting_head = False
                self._gate.head_received(self)
            else:
                self._tail = seen[-3:]
        self._inner.data_received(data)

    def eof_received(self) -> bool | None:
        return None if self._inner is None else self._inner.eof_received()

    def connection_lost(self, exc: Exception | None) -> None:
        self._gate.release(self)
        if self._inner is not None:
            self._inner.connection_lost(exc)

    def pause_writing(self) -> None:
        if self._inner is not None:
            self._inner.pause_writing()

    def resume_writing(self) -> None:
        if self._inner is not None:
            self._inner.resume_writing()


class ConnectionGate:
    """A protocol factory for `loop.create_server` wrapping the HTTP server's own factory."""

    def __init__(
        self,
        make_protocol: Callable[[], Any],
        *,
        max_total: int,
        max_per_source: int,
    ) -> None:
        if max_per_source > max_total:
            max_per_source = max_total
        self.make_protocol = make_protocol
        self.max_total = max_total
        self.max_per_source = max_per_source
        # Open connections in arrival order (oldest first); a dict keeps that order.
        self._open: dict[_Guarded, None] = {}
        self._per_source: Counter[str] = Counter()
        self.refused = 0
        self.evicted = 0
        self._log_refused = RateLimitedLog(
            logger,
            "refused a connection from %s: %d connections are open (at most %d, %d per source)",
        )
        self._log_evicted = RateLimitedLog(
            logger,
            "closed a connection from %s that sent no request head, to make room for a new one",
        )

    def __call__(self) -> asyncio.Protocol:
        return _Guarded(self)

    @property
    def open_connections(self) -> int:
        return len(self._open)

    def admit(self, connection: _Guarded) -> bool:
        source = connection.source
        if self._per_source[source] >= self.max_per_source and not self._evict(source):
            return self._refuse(source)
        if len(self._open) >= self.max_total and not self._evict(None):
            return self._refuse(source)
        self._open[connection] = None
        self._per_source[source] += 1
        return True

    def head_received(self, connection: _Guarded) -> None:
        """The connection sent a request head: it is a real request, no longer evictable."""

    def release(self, connection: _Guarded) -> None:
        if connection in self._open:
            del self._open[connection]
            self._per_source[connection.source] -= 1
            if self._per_source[connection.source] <= 0:
                del self._per_source[connection.source]

    def _evict(self, source: str | None) -> bool:
        for candidate in self._open:
            if candidate.awaiting_head and (source is None or candidate.source == source):
                self.release(candidate)
                self.evicted += 1
                self._log_evicted(candidate.source)
                if candidate.transport is not None:
                    candidate.transport.abort()
                return True
        return False

    def _refuse(self, source: str) -> bool:
        self.refused += 1
        self._log_refused(source, len(self._open), self.max_total, self.max_per_source)
        return False


__all__ = ["LOG_EVERY_S", "ConnectionGate", "RateLimitedLog"]
