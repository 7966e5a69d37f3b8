"""Connection exhaustion: 1,100 half-open connections under a 1,024 open-files limit.

Without a cap, silent connections used up the listener's file descriptors: every valid
delivery timed out and standard error took one line per failed accept. The gate now keeps the
connections below the limit (closing the oldest that sent no request head) and logs sparingly.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from tests.integration.test_inbox_listener import TOKEN, headers, payment

ROOT = Path(__file__).resolve().parents[2]
HALF_OPEN = 1100
DELIVERIES = 20


@pytest.fixture
def child(tmp_path: Path) -> Iterator[subprocess.Popen[str]]:
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.hostile.flood_child", str(tmp_path / "s.sqlite3"), TOKEN],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    yield process
    if process.poll() is None:
        process.kill()
    process.communicate(timeout=30)


def test_valid_deliveries_are_answered_under_a_half_open_flood(
    child: subprocess.Popen[str],
) -> None:
    assert child.stdout is not None and child.stdin is not None
    url = child.stdout.readline().strip()
    assert url.startswith("http://"), url
    parts = urlsplit(url)
    assert parts.hostname is not None and parts.port is not None
    held: list[socket.socket] = []
    try:
        for _ in range(HALF_OPEN):
            try:
                connection = socket.create_connection((parts.hostname, parts.port), timeout=30)
            except OSError as exc:
                pytest.fail(f"the flood's connection {len(held)} was not accepted: {exc!r}")
            # A request head that never ends: the connection is half-open from the listener's
            # point of view and holds one of its file descriptors.
            connection.sendall(b"POST " + parts.path.encode() + b" HTTP/1.1\r\nHost: x\r\n")
            held.append(connection)
        answered = 0
        problems: list[str] = []
        with httpx.Client(timeout=30, trust_env=False) as client:
            for n in range(DELIVERIES):
                try:
                    response = client.post(
                        url, content=json.dumps(payment(n=n)).encode(), headers=headers()
                    )
                except httpx.HTTPError as exc:
                    problems.append(f"delivery {n}: {exc!r}")
                    continue
                answered += response.status_code == 200
    finally:
        for connection in held:
            connection.close()
    out, err = child.communicate(input="", timeout=60)
    counters = json.loads(out.strip().splitlines()[-1])
    print(
        f"answered {answered} of {DELIVERIES} under {HALF_OPEN} half-open; {counters}; "
        f"{len(err.splitlines())} lines on standard error"
    )
    assert answered == DELIVERIES, (problems, err[-3000:])
    assert counters["stored"] == DELIVERIES
    assert counters["evicted"] > 0
    # Refusals and evictions are logged a few times, not once per connection.
    lines = err.splitlines()
    assert len(lines) < 40, "\n".join(lines[:40])
    assert "Traceback" not in err


@pytest.mark.asyncio
async def test_a_request_head_that_never_ends_is_closed(tmp_path: Path) -> None:
    import asyncio

    from tests.integration.test_inbox_listener import open_inbox

    inbox = await open_inbox(tmp_path, head_timeout_s=0.5, max_connections=4)
    try:
        parts = urlsplit(inbox.url)
        assert parts.hostname is not None and parts.port is not None
        reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
        writer.write(b"POST " + parts.path.encode() + b" HTTP/1.1\r\nHost: x\r\n")
        await writer.drain()
        # The listener closes the connection: the read ends (with no answer) instead of
        # waiting for ever; the generous bound only keeps a broken build from hanging.
        async with asyncio.timeout(60):
            assert await reader.read() == b""
        writer.close()
        # Four more half-open connections, then a valid delivery: the cap of four makes room.
        held = []
        for _ in range(4):
            _, held_writer = await asyncio.open_connection(parts.hostname, parts.port)
            held_writer.write(b"POST / HTTP/1.1\r\n")
            held.append(held_writer)
        from tests.integration.test_inbox_listener import post

        response = await post(inbox.url, payment(), headers())
        assert response.status_code == 200
        gate = inbox.listener.gate
        assert gate is not None and gate.evicted >= 1
        for held_writer in held:
            held_writer.close()
    finally:
        await inbox.listener.stop()


@pytest.mark.asyncio
async def test_refused_deliveries_are_logged_sparingly(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    import logging

    from tests.integration.test_inbox_listener import open_inbox, post

    inbox = await open_inbox(tmp_path)
    try:
        with caplog.at_level(logging.WARNING, logger="checkout_desktop.inbox.listener"):
            for _ in range(100):
                response = await post(inbox.url, payment(), headers(token="wrong-token"))
                assert response.status_code == 401
        refusals = [r for r in caplog.records if "refused a delivery" in r.getMessage()]
        assert 1 <= len(refusals) <= 2
        assert inbox.listener.stats.refused == 100
    finally:
        await inbox.listener.stop()
