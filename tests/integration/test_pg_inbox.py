"""The shop's one inbox on the shared store: killed mid-burst, it loses no acknowledged delivery,
and another counter takes the inbox over."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import psycopg
import pytest

from checkout_desktop.store.postgres import db
from checkout_desktop.store.postgres.address import StoreAddress
from checkout_desktop.store.postgres.inbox_lock import current_holder

pytestmark = pytest.mark.pg

CHILD = Path(__file__).with_name("pg_inbox_child.py")
TOKEN = "whk_0123456789abcdef0123456789abcdef"
CONNECTIONS = 20
DELIVERIES = 800
KILL_AFTER = 500


def payment(n: int) -> bytes:
    return json.dumps(
        {
            "type": "PAYMENT",
            "eventDate": f"2026-03-01T09:{n // 60 % 60:02d}:{n % 60:02d}-03:00",
            "id": f"burst-{n}",
            "merchantCode": "12345",
            "merchantDocument": "30155515000121",
            "data": {
                "status": "PAID",
                "merchantChargeId": f"caixa1-{n % 50:06d}",
                "amount": 1500,
                "refundedAmount": 0,
                "transactions": [],
            },
        }
    ).encode()


async def burst(url: str, child: subprocess.Popen[str]) -> list[int]:
    """Post DELIVERIES over CONNECTIONS connections; kill the inbox after KILL_AFTER answers.

    Returns the numbers of the deliveries the inbox acknowledged (2xx)."""
    acked: list[int] = []
    queue: asyncio.Queue[int] = asyncio.Queue()
    for n in range(DELIVERIES):
        queue.put_nowait(n)
    headers = {
        "Content-Type": "application/json",
        "event-type": "TransactionUpdateMessage",
        "Authorization": TOKEN,
    }

    async def sender(client: httpx.AsyncClient) -> None:
        while not queue.empty():
            n = queue.get_nowait()
            try:
                response = await client.post(url, content=payment(n), headers=headers)
            except httpx.HTTPError:
                continue  # the inbox is gone: not acknowledged
            if 200 <= response.status_code < 300:
                acked.append(n)
                if len(acked) == KILL_AFTER and child.poll() is None:
                    child.send_signal(signal.SIGKILL)

    limits = httpx.Limits(max_connections=CONNECTIONS, max_keepalive_connections=CONNECTIONS)
    async with httpx.AsyncClient(timeout=30, limits=limits) as client:
        await asyncio.gather(*(sender(client) for _ in range(CONNECTIONS)))
    return acked


def _start(address: StoreAddress, counter: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(CHILD), address.url(), counter, TOKEN],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])},
    )


def _stop(child: subprocess.Popen[str]) -> None:
    if child.poll() is None:
        child.kill()
    child.wait(timeout=30)
    if child.stdout is not None:
        child.stdout.close()


@pytest.mark.asyncio
async def test_sigkill_mid_burst_loses_no_acknowledged_delivery_and_the_inbox_moves(
    pg_url: str,
) -> None:
    address = StoreAddress.parse(pg_url)
    db.connect(address, None).close()
    first = _start(address, "caixa-1")
    second: subprocess.Popen[str] | None = None
    try:
        assert first.stdout is not None
        url = first.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:"), url
        acked = await burst(url, first)
        first.wait(timeout=30)
        assert first.returncode == -signal.SIGKILL
        assert len(acked) >= KILL_AFTER

        with psycopg.connect(pg_url) as conn:
            stored: set[str] = {
                json.loads(bytes(r[0]))["id"]
                for r in conn.execute("SELECT body FROM webhook_event")
            }
        missing = {f"burst-{n}" for n in acked} - stored
        assert not missing, f"{len(missing)} acknowledged deliveries are not stored"

        # Another counter takes the inbox over once the killed one's session is gone.
        began = time.monotonic()
        second = _start(address, "caixa-2")
        assert second.stdout is not None
        line = second.stdout.readline().strip()
        while line == "not holding the inbox":
            _stop(second)
            assert time.monotonic() - began < 60, "the inbox was never taken over"
            await asyncio.sleep(0.2)
            second = _start(address, "caixa-2")
            assert second.stdout is not None
            line = second.stdout.readline().strip()
        took = time.monotonic() - began
        assert line.startswith("http://127.0.0.1:"), line
        with psycopg.connect(pg_url) as conn:
            holder = current_holder(conn)
        assert holder is not None
        assert holder.counter == "caixa-2"
        print(f"\ntake-over: the second inbox was serving {took:.2f} s after the kill")
        async with httpx.AsyncClient(timeout=30) as client:
            response = await client.post(
                line,
                content=payment(DELIVERIES + 1),
                headers={"Content-Type": "application/json", "Authorization": TOKEN},
            )
        assert response.status_code == 200
    finally:
        _stop(first)
        if second is not None:
            _stop(second)
