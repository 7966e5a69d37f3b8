"""Live across counters: LISTEN/NOTIFY on the shared store, handed to the event loop.

The store's triggers notify on commit (`schema.EVENTS_CHANNEL`: the newest stored delivery's
id; `schema.CHARGES_CHANNEL`: a changed charge's merchant charge id; `schema.SHOP_CHANNEL`: a
changed shared setting's key). A `Watcher` listens on
its own connection, in a thread of its own (waiting for a notification is blocking I/O), and
hands each one to the loop as a `Notice`. A notice is a nudge, never the data: the receiver
reads after its watermark, as the event list always has. After a lost connection the watcher
reconnects and sends a `Notice` with `resync=True`, since notifications sent meanwhile are
gone: the receiver reads after its watermark then too.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import SecretStr

from checkout_desktop.store.postgres import db, schema
from checkout_desktop.store.postgres.address import StoreAddress
from checkout_desktop.texts import QT_TRANSLATE_NOOP, Words

if TYPE_CHECKING:
    import psycopg

logger = logging.getLogger(__name__)

POLL_S = 0.5
"""How often the listening thread looks up from its wait to see whether it must stop."""
RECONNECT_S = 2.0


@dataclass(frozen=True)
class Notice:
    """One notification: `channel` and its payload (an event id, a merchant charge id)."""

    channel: str
    payload: str
    resync: bool = False
    """True after a reconnection: notices may have been missed, read after the watermark."""

    @property
    def event_id(self) -> int | None:
        if self.channel != schema.EVENTS_CHANNEL or not self.payload.isdigit():
            return None
        return int(self.payload)


class Watcher:
    """Listens to the store's channels and calls `deliver(notice)` on `loop` for each one."""

    def __init__(
        self,
        address: StoreAddress,
        password: SecretStr | None,
        deliver: Callable[[Notice], None],
        *,
        loop: asyncio.AbstractEventLoop,
        channels: tuple[str, ...] = (schema.EVENTS_CHANNEL, schema.CHARGES_CHANNEL),
        on_reachable: Callable[[bool, str], None] | None = None,
    ) -> None:
        """`on_reachable(False, why)` is called on `loop` when the connection is lost (and the
        server does not take a new one), `on_reachable(True, "")` once it does again."""
        self._address = address
        self._on_reachable = on_reachable
        self._password = password
        self._deliver = deliver
        self._loop = loop
        self._channels = channels
        self._stop = threading.Event()
        self._ready = threading.Event()
        self._thread: threading.Thread | None = None
        self._first_error: BaseException | None = None

    def start(self, timeout: float = db.CONNECT_TIMEOUT_S + 5) -> None:
        """Start listening; returns once LISTEN is in place (raises what kept it from it)."""
        self._thread = threading.Thread(target=self._run, name="store-watch", daemon=True)
        self._thread.start()
        self._ready.wait(timeout)
        if self._first_error is not None:
            self.stop()
            raise self._first_error
        if not self._ready.is_set():
            self.stop()
            raise db.SharedStoreError(
                db.StoreProblem.UNREACHABLE,
                Words(
                    QT_TRANSLATE_NOOP(
                        "SharedStore",
                        "the shared store ({where}) did not answer within {seconds} s",
                    ),
                    where=self._address.described(),
                    seconds=f"{timeout:g}",
                ),
                address=self._address,
            )

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=POLL_S * 4 + 1)
        self._thread = None

    def _listen(self) -> psycopg.Connection[Any]:
        conn = db.connect(self._address, self._password, migrate_schema=False, autocommit=True)
        for channel in self._channels:
            conn.execute(f"LISTEN {channel}")
        return conn

    def _hand_over(self, notice: Notice) -> None:
        try:
            self._loop.call_soon_threadsafe(self._deliver, notice)
        except RuntimeError:
            # The loop is closed: nobody is left to tell.
            self._stop.set()

    def _say_reachable(self, reachable: bool, why: str) -> None:
        if self._on_reachable is None:
            return
        try:
            self._loop.call_soon_threadsafe(self._on_reachable, reachable, why)
        except RuntimeError:
            self._stop.set()

    def _run(self) -> None:
        conn: psycopg.Connection[Any] | None = None
        first = True
        down = False
        while not self._stop.is_set():
            if conn is None:
                try:
                    conn = self._listen()
                except db.SharedStoreError as exc:
                    if first:
                        self._first_error = exc
                        self._ready.set()
                        return
                    logger.warning("store watch: cannot reconnect yet (%s)", exc.problem)
                    if not down:
                        down = True
                        self._say_reachable(False, str(exc))
                    self._stop.wait(RECONNECT_S)
                    continue
                if first:
                    first = False
                    self._ready.set()
                else:
                    logger.info("store watch: reconnected; reading after the watermark")
                    if down:
                        down = False
                        self._say_reachable(True, "")
                    self._hand_over(Notice(schema.EVENTS_CHANNEL, "", resync=True))
            try:
                for note in conn.notifies(timeout=POLL_S):
                    self._hand_over(Notice(note.channel, note.payload))
                    if self._stop.is_set():
                        break
            except Exception as exc:  # any loss of the connection: reconnect
                logger.warning("store watch: connection lost (%s)", type(exc).__name__)
                _close_quietly(conn)
                conn = None
        if conn is not None:
            _close_quietly(conn)


def _close_quietly(conn: psycopg.Connection[Any]) -> None:
    try:
        conn.close()
    except Exception:  # closing a broken connection may fail; it is gone anyway
        logger.debug("store watch: closing a broken connection failed", exc_info=True)


class Notices:
    """The notifications a `watch` receives, oldest first, as an async iterator."""

    def __init__(self) -> None:
        self._queue: asyncio.Queue[Notice] = asyncio.Queue()

    def put(self, notice: Notice) -> None:
        self._queue.put_nowait(notice)

    def __aiter__(self) -> Notices:
        return self

    async def __anext__(self) -> Notice:
        return await self._queue.get()


@contextlib.asynccontextmanager
async def watch(
    address: StoreAddress,
    password: SecretStr | None,
    *,
    channels: tuple[str, ...] = (schema.EVENTS_CHANNEL, schema.CHARGES_CHANNEL),
    on_reachable: Callable[[bool, str], None] | None = None,
) -> AsyncIterator[Notices]:
    """Listen while the block runs: `async with watch(...) as notices: async for n in notices`.

    LISTEN is in place when the block starts, so whatever commits from then on is noticed.
    `on_reachable` hears when the store stops answering and answers again (`Watcher`).
    """
    loop = asyncio.get_running_loop()
    notices = Notices()
    watcher = Watcher(
        address, password, notices.put, loop=loop, channels=channels, on_reachable=on_reachable
    )
    await loop.run_in_executor(None, watcher.start)
    try:
        yield notices
    finally:
        await loop.run_in_executor(None, watcher.stop)


__all__ = ["Notice", "Notices", "Watcher", "watch"]
