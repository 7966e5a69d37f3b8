"""`checkout-desktop --store URL listen` as real processes on one shared store: one holds the
shop's inbox, a second waits, and takes the inbox over when the first is killed mid-burst."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import psycopg
import pytest

from checkout_desktop.store.postgres import db
from checkout_desktop.store.postgres.address import StoreAddress
from checkout_desktop.store.postgres.inbox_lock import current_holder
from tests.integration.test_pg_inbox import DELIVERIES, KILL_AFTER, TOKEN, burst, payment
from tests.log_support import release_log_files  # noqa: F401 - applies to every test here

pytestmark = pytest.mark.pg

HANG_S = 60  # a bound on a hang, never a speed claim


class Listen:
    """One `checkout-desktop --store URL listen` process with its own data folder."""

    def __init__(self, root: Path, url: str) -> None:
        root.mkdir(parents=True)
        token = root / "token"
        token.write_text(TOKEN + "\n", encoding="utf-8")
        token.chmod(0o600)
        self.err = root / "stderr.txt"
        self._err = self.err.open("w", encoding="utf-8")
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "checkout_desktop.cli",
                "--data-dir",
                str(root / "data"),
                "--store",
                url,
                "listen",
                "--port",
                "0",
                "--no-tunnel",
                "--token-file",
                str(token),
            ],
            stdout=subprocess.PIPE,
            stderr=self._err,
            text=True,
            env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])},
        )

    def listening_url(self) -> str:
        """The URL it prints once it holds the inbox and listens (blocks until then)."""
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        assert line.startswith("listening on "), (line, self.err.read_text(encoding="utf-8"))
        return line.removeprefix("listening on ").strip()

    def stderr(self) -> str:
        self._err.flush()
        return self.err.read_text(encoding="utf-8")

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.communicate(timeout=30)
        self._err.close()


@pytest.fixture
def shop(pg_url: str) -> str:
    db.connect(StoreAddress.parse(pg_url), None).close()
    return pg_url


@pytest.fixture
def processes() -> Iterator[list[Listen]]:
    started: list[Listen] = []
    yield started
    for process in started:
        process.close()


@pytest.mark.asyncio
async def test_a_second_listen_waits_then_takes_the_inbox_over_after_sigkill(
    shop: str, tmp_path: Path, processes: list[Listen]
) -> None:
    first = Listen(tmp_path / "caixa-1", shop)
    processes.append(first)
    url = first.listening_url()
    second = Listen(tmp_path / "caixa-2", shop)
    processes.append(second)
    deadline = time.monotonic() + HANG_S
    while "waiting: the shop's inbox is held by" not in second.stderr():
        assert second.process.poll() is None, second.stderr()
        assert time.monotonic() < deadline, second.stderr()
        await asyncio.sleep(0.1)
    assert f"process {first.process.pid}" in second.stderr()

    acked = await burst(url, first.process)  # ≥ 500 deliveries over 20 connections
    first.process.wait(timeout=30)
    assert first.process.returncode == -signal.SIGKILL
    assert len(acked) >= KILL_AFTER
    killed = time.monotonic()
    with psycopg.connect(shop) as conn:
        stored = {
            json.loads(bytes(row[0])).get("id")
            for row in conn.execute("SELECT body FROM webhook_event")
        }
    missing = {f"burst-{n}" for n in acked} - stored
    assert not missing, f"{len(missing)} acknowledged deliveries are not stored"

    taken_url = second.listening_url()
    print(
        f"\ntake-over: the waiting listen served {time.monotonic() - killed:.2f} s after the kill"
    )
    with psycopg.connect(shop) as conn:
        holder = current_holder(conn)
    assert holder is not None and holder.pid == second.process.pid
    async with httpx.AsyncClient(timeout=30) as client:
        response = await client.post(
            taken_url,
            content=payment(DELIVERIES + 1),
            headers={"Content-Type": "application/json", "Authorization": TOKEN},
        )
    assert response.status_code == 200, response.text
    with psycopg.connect(shop) as conn:
        row = conn.execute(
            "SELECT body FROM webhook_event WHERE id = %s", (response.json()["stored"],)
        ).fetchone()
    assert row is not None and json.loads(bytes(row[0]))["id"] == f"burst-{DELIVERIES + 1}"

    second.process.send_signal(signal.SIGTERM)
    assert second.process.wait(timeout=HANG_S) == 0, second.stderr()
    assert "stopped; " in second.stderr()
    with psycopg.connect(shop) as conn:
        assert current_holder(conn) is None  # a clean stop frees the inbox at once


def test_listen_refuses_an_address_with_a_password(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from checkout_desktop import cli

    token = tmp_path / "token"
    token.write_text(TOKEN, encoding="utf-8")
    token.chmod(0o600)
    code = cli.main(
        [
            "--data-dir",
            str(tmp_path / "data"),
            "--store",
            "postgresql://loja:segredo@db.example.test/caixa",
            "listen",
            "--token-file",
            str(token),
        ]
    )
    assert code == 2
    err = capsys.readouterr().err
    assert "carries a secret" in err
    assert "segredo" not in err
