"""A terminal whose money calls can be made to die, time out or fail, for the money tests.

`MoneyFaults` arms one fault for the next refund or capture request: `crash` lets the
request reach the service and read its reply, then raises `Crash` (a BaseException, as a
SIGKILL would end the process: no handler of the terminal runs); `fail` makes the sandbox
answer 500 before anything happens; `late` holds the reply past the client's timeout.
"""

from __future__ import annotations

import json
import logging
import random
from datetime import UTC, datetime
from typing import Any

import httpx

from checkout_desktop.charges.ledger import inbox_applier
from checkout_desktop.inbox.intake import Received, classify
from checkout_desktop.sandbox.server import SandboxServer
from checkout_desktop.store.sqlite.charges import ChargeRepository
from checkout_desktop.store.sqlite.db import transaction
from checkout_desktop.store.sqlite.store import SqliteCharges
from tests.ledger_support import run_inline

logger = logging.getLogger(__name__)


class Crash(BaseException):
    """The terminal's process ended here (nothing after this point ran)."""


def is_money_call(request: httpx.Request) -> bool:
    return request.method == "POST" and request.url.path.endswith(("/refund", "/capture"))


class MoneyFaults(httpx.AsyncBaseTransport):
    """A transport over the real one that injects the armed fault into the next money call."""

    def __init__(self, sandbox: SandboxServer, *, late_s: float = 0.0) -> None:
        self._inner = httpx.AsyncHTTPTransport()
        self.sandbox = sandbox
        self.armed: str | None = None
        self.late_s = late_s
        self.money_posts = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        fault = self.armed if is_money_call(request) else None
        faults = self.sandbox.faults
        faults.error_rate = 1.0 if fault == "fail" else 0.0
        faults.money_reply_delay_s = self.late_s if fault == "late" else 0.0
        if is_money_call(request):
            self.money_posts += 1
            self.armed = None
        try:
            response = await self._inner.handle_async_request(request)
        finally:
            faults.error_rate = 0.0
            faults.money_reply_delay_s = 0.0
        if fault == "crash":
            await response.aread()
            await response.aclose()
            raise Crash
        return response

    async def aclose(self) -> None:
        await self._inner.aclose()


def deliver_notifications(sandbox: SandboxServer, conn: Any, seed: int, *, start: int = 0) -> int:
    """Apply the sandbox's notifications from `start` on, shuffled, some twice, some dropped,
    through the inbox's own intake and applier; returns how many were applied."""
    rng = random.Random(seed)
    notes = list(sandbox.state.notifications[start:])
    chosen = [n for n in notes if rng.random() > 0.3]
    chosen += [n for n in chosen if rng.random() < 0.3]
    rng.shuffle(chosen)
    applied = 0
    for note in chosen:
        received = Received(
            json.dumps(note.body).encode(),
            {},
            datetime.now(UTC),
            note.event_type,
            "application/json",
            "127.0.0.1",
        )
        update = classify(received).update
        if update is None:
            continue
        with transaction(conn):
            run_inline(
                inbox_applier(SqliteCharges(ChargeRepository(conn)), update, f"{note.id}-{applied}")
            )
        applied += 1
    return applied
