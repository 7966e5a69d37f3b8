"""`checkout-desktop listen` as a real process: token rules, clean stop, and SIGKILL mid-burst."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from checkout_desktop import cli
from checkout_desktop.listen import TokenFileError, read_token_file, webhook_token
from checkout_desktop.paths import app_paths
from checkout_desktop.secrets import SecretMissing, SecretName, SecretStore
from checkout_desktop.settings import Settings, TunnelSettings, save_settings
from tests.conftest import MemoryKeyring
from tests.log_support import release_log_files  # noqa: F401 - applies to every test here

logger = logging.getLogger(__name__)

TOKEN = "whk_listen_0123456789abcdef"


def token_file(tmp_path: Path, mode: int = 0o600, text: str = TOKEN + "\n") -> Path:
    path = tmp_path / "webhook.token"
    path.write_text(text, encoding="utf-8")
    path.chmod(mode)
    return path


def body(n: int) -> dict[str, Any]:
    return {
        "type": "PAYMENT",
        "id": f"charge-{n:05d}",
        "merchantChargeId": f"order-{n:05d}",
        "status": "PAID",
        "amount": 1000 + n,
    }


# -- token file and option checks (in process) ---------------------------------------------------


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604, 0o620, 0o602])
def test_token_file_readable_by_others_is_refused(
    tmp_path: Path, mode: int, capsys: pytest.CaptureFixture[str]
) -> None:
    path = token_file(tmp_path, mode)
    with pytest.raises(TokenFileError, match=f"mode {mode:03o}.*chmod 600"):
        read_token_file(path)
    code = cli.main(["listen", "--port", "0", "--token-file", str(path)])
    assert code == 2
    err = capsys.readouterr().err
    assert "chmod 600" in err
    assert TOKEN not in err


@pytest.mark.parametrize(
    ("text", "needle"),
    [("", "is empty"), ("   \n", "is empty"), ("two words\n", "more than one word")],
)
def test_bad_token_file_contents(tmp_path: Path, text: str, needle: str) -> None:
    with pytest.raises(TokenFileError, match=needle):
        read_token_file(token_file(tmp_path, text=text))


def test_token_file_checks(tmp_path: Path) -> None:
    assert read_token_file(token_file(tmp_path, 0o400)).get_secret_value() == TOKEN
    with pytest.raises(TokenFileError, match="does not exist"):
        read_token_file(tmp_path / "missing")
    with pytest.raises(TokenFileError, match="not a regular file"):
        read_token_file(tmp_path)


def test_non_loopback_host_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = token_file(tmp_path)
    code = cli.main(["listen", "--host", "0.0.0.0", "--token-file", str(path)])
    assert code == 2
    assert "this machine only" in capsys.readouterr().err


def test_missing_keychain_token_says_what_to_do(
    memory_keyring: MemoryKeyring, capsys: pytest.CaptureFixture[str]
) -> None:
    code = cli.main(["listen", "--port", "0", "--profile", "production"])
    assert code == 2
    err = capsys.readouterr().err
    assert "webhook authentication token for profile 'production'" in err
    assert "--token-file" in err


# -- the real process ----------------------------------------------------------------------------


class ListenProcess:
    def __init__(self, home: Path, args: list[str], env: dict[str, str] | None = None) -> None:
        environment = {**os.environ, "CHECKOUT_DESKTOP_HOME": str(home), **(env or {})}
        self.home = home
        self.process = subprocess.Popen(
            [sys.executable, "-m", "checkout_desktop.cli", "listen", "--port", "0", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=environment,
        )
        assert self.process.stdout is not None
        first = self.process.stdout.readline()
        if not first.startswith("listening on "):
            self.process.kill()
            _, err = self.process.communicate(timeout=30)
            raise AssertionError(f"listen did not start: {first!r} {err}")
        self.url = first.removeprefix("listening on ").strip()

    @property
    def store(self) -> Path:
        return self.home / "data" / "checkout.sqlite3"

    def stop(self, signum: int = signal.SIGTERM) -> tuple[int, str]:
        self.process.send_signal(signum)
        _, err = self.process.communicate(timeout=60)
        return self.process.returncode, err

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        # Reads what is left and closes the pipes, also after the process died by itself.
        self.process.communicate(timeout=30)


@pytest.fixture
def listening(tmp_path: Path) -> Iterator[ListenProcess]:
    process = ListenProcess(tmp_path / "home", ["--token-file", str(token_file(tmp_path))])
    yield process
    process.close()


def stored_refs(store: Path) -> dict[str, int]:
    conn = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    try:
        rows = conn.execute(
            "SELECT event_ref, id FROM webhook_event WHERE verdict = 'accepted'"
        ).fetchall()
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        return {ref: event_id for ref, event_id in rows}
    finally:
        conn.close()


HEADERS = {"Authorization": TOKEN, "event-type": "TransactionUpdateMessage"}


def test_listen_stores_and_stops_cleanly_on_sigterm(listening: ListenProcess) -> None:
    assert listening.url.startswith("http://127.0.0.1:")
    with httpx.Client(timeout=10) as client:
        ok = client.post(listening.url, json=body(1), headers=HEADERS)
        refused = client.post(listening.url, json=body(2), headers={"Authorization": "nope"})
    assert (ok.status_code, refused.status_code) == (200, 401)
    code, err = listening.stop(signal.SIGTERM)
    assert code == 0, err
    assert "stopped; " in err and "1 refused" in err
    assert TOKEN not in err
    assert stored_refs(listening.store) == {"charge-00001": ok.json()["stored"]}
    log = (listening.home / "logs" / "checkout-desktop.log").read_text(encoding="utf-8")
    assert TOKEN not in log
    # Once listening, what start-up built was set aside from the collections under load.
    assert re.search(r"start-up settled: \d{4,} objects", log), log[-2000:]


def test_listen_stops_cleanly_on_sigint(listening: ListenProcess) -> None:
    code, err = listening.stop(signal.SIGINT)
    assert code == 0, err
    assert "stopped; " in err


def test_second_listener_on_the_same_port_fails_clearly(
    listening: ListenProcess, tmp_path: Path
) -> None:
    port = listening.url.split(":")[2].split("/")[0]
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "checkout_desktop.cli",
            "--data-dir",
            str(tmp_path / "other"),
            "listen",
            "--port",
            port,
            "--token-file",
            str(token_file(tmp_path)),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 1
    assert f"cannot listen on 127.0.0.1:{port}" in result.stderr


async def _burst(
    url: str, total: int, concurrency: int, kill_after: int, pid: int
) -> dict[str, int]:
    """Fire `total` deliveries, SIGKILL the listener after `kill_after` acks; return the acks."""
    acked: dict[str, int] = {}
    queue: asyncio.Queue[int] = asyncio.Queue()
    for n in range(total):
        queue.put_nowait(n)
    killed = False

    async def worker(client: httpx.AsyncClient) -> None:
        nonlocal killed
        while not queue.empty():
            n = queue.get_nowait()
            payload = json.dumps(body(n)).encode()
            try:
                response = await client.post(url, content=payload, headers=HEADERS)
            except httpx.HTTPError:
                continue
            if response.status_code == 200:
                acked[f"charge-{n:05d}"] = response.json()["stored"]
            if len(acked) >= kill_after and not killed:
                killed = True
                os.kill(pid, signal.SIGKILL)

    limits = httpx.Limits(max_connections=concurrency)
    async with httpx.AsyncClient(timeout=10, limits=limits) as client:
        await asyncio.gather(*(worker(client) for _ in range(concurrency)))
    assert killed, "the burst ended before the listener was killed"
    return acked


@pytest.mark.slow
def test_every_acknowledged_delivery_survives_sigkill_mid_burst(
    listening: ListenProcess,
) -> None:
    acked = asyncio.run(
        _burst(listening.url, total=500, concurrency=20, kill_after=150, pid=listening.process.pid)
    )
    listening.process.wait(timeout=30)
    assert listening.process.returncode == -signal.SIGKILL
    assert len(acked) >= 150
    stored = stored_refs(listening.store)
    missing = sorted(set(acked) - set(stored))
    assert not missing, f"{len(missing)} acknowledged deliveries were lost: {missing[:10]}"
    # Each ack named the row that holds the delivery.
    assert all(stored[ref] == event_id for ref, event_id in acked.items())
    assert len(stored) < 500, "the kill came after the whole burst; nothing was tested"


def test_listen_reads_the_token_from_the_keychain(memory_keyring: MemoryKeyring) -> None:
    # A subprocess cannot see this process's in-memory keyring: the lookup is checked here.
    SecretStore().set("production", SecretName.WEBHOOK_TOKEN, TOKEN)
    settings = Settings(active_profile="production")
    assert webhook_token(settings).get_secret_value() == TOKEN
    with pytest.raises(SecretMissing):
        webhook_token(settings, profile="service-sandbox")


def test_listen_runs_the_tunnel_from_settings_and_says_when_the_url_changed(
    tmp_path: Path,
) -> None:
    script = tmp_path / "cloudflared"
    script.write_text(
        f"#!{sys.executable}\n"
        "import sys, time\n"
        "print('INF |  https://lively-test-words.trycloudflare.com  |', file=sys.stderr, "
        "flush=True)\n"
        "time.sleep(120)\n",
        encoding="utf-8",
    )
    script.chmod(0o700)
    home = tmp_path / "home"
    settings = Settings(tunnel=TunnelSettings(mode="cloudflared", cloudflared_path=str(script)))
    save_settings(settings, app_paths(home))
    listening = ListenProcess(home, ["--token-file", str(token_file(tmp_path))])
    lines: list[str] = []
    noticed = threading.Event()

    def read_errors() -> None:
        assert listening.process.stderr is not None
        for line in listening.process.stderr:
            lines.append(line)
            if "ACTION NEEDED" in line:
                noticed.set()

    reader = threading.Thread(target=read_errors, daemon=True)
    reader.start()
    try:
        assert noticed.wait(timeout=30), "".join(lines)
        notice = next(line for line in lines if "ACTION NEEDED" in line)
        assert "https://lively-test-words.trycloudflare.com/webhooks/checkout" in notice
        listening.process.send_signal(signal.SIGTERM)
        assert listening.process.wait(timeout=60) == 0
        reader.join(timeout=30)
        assert any("stopped; " in line for line in lines), "".join(lines)
    finally:
        listening.close()


def test_listen_on_the_built_in_sandbox_says_it_is_for_a_real_environment(
    tmp_path: Path, memory_keyring: MemoryKeyring, capsys: pytest.CaptureFixture[str]
) -> None:
    # A fresh folder runs on the built-in sandbox, which notifies the window's own inbox and
    # needs no keychain: no token to fetch from a merchant panel that does not exist.
    home = str(tmp_path / "fresh")
    assert cli.main(["--data-dir", home, "listen"]) == 2
    err = capsys.readouterr().err
    assert "built-in sandbox" in err
    assert "keychain" not in err and "merchant panel" not in err
    # A profile the settings do not define is named as such, not as a missing token.
    assert cli.main(["--data-dir", home, "listen", "--profile", "producao"]) == 2
    err = capsys.readouterr().err
    assert "there is no profile 'producao'" in err
    assert "keychain" not in err


def test_the_inbox_health_line_is_in_the_owners_language(tmp_path: Path) -> None:
    """The health line on stderr is worded as the window words it (pt-BR here); the lines on
    stdout that scripts read stay as they are."""
    env = {"LANG": "pt_BR.UTF-8", "LC_ALL": "", "LC_MESSAGES": ""}
    process = ListenProcess(tmp_path / "home", ["--token-file", str(token_file(tmp_path))], env=env)
    try:
        log = process.home / "logs" / "checkout-desktop.log"
        deadline = time.monotonic() + 30
        while "inbox health degraded" not in (
            log.read_text(encoding="utf-8") if log.exists() else ""
        ):
            assert time.monotonic() < deadline, (
                log.read_text(encoding="utf-8") if log.exists() else "no log"
            )[-3000:]
            time.sleep(0.05)
        code, err = process.stop(signal.SIGTERM)
    finally:
        process.close()
    assert code == 0, err
    health = [line for line in err.splitlines() if "caixa de entrada" in line and "—" in line]
    assert len(health) == 1, err
    assert "degraded" not in health[0] and "no public URL" not in health[0], health[0]
    assert "degradada" in health[0], health[0]
    # The log stays English for whoever reads it with the code.
    assert "inbox health degraded: no public URL" in log.read_text(encoding="utf-8")
