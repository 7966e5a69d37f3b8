"""The benchmark scripts still run: each at a tiny size, checked for its figure lines (no timings)."""

from __future__ import annotations

import http.server
import importlib.util
import json
import logging
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import ClassVar

import pytest

logger = logging.getLogger(__name__)

ROOT = Path(__file__).resolve().parents[2]
BENCHMARKS = ROOT / "benchmarks"
GOAL_VERDICT = re.compile(r"— goal (met|missed by \S+)")


def _load_common() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_common", BENCHMARKS / "_common.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    # Dataclasses look their module up in sys.modules while the class is being built.
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


common = _load_common()


def _run(script: str, *args: str, timeout: float = 240) -> str:
    env = dict(os.environ)
    env["QT_QPA_PLATFORM"] = "offscreen"
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / script), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        cwd=ROOT,
        check=False,
    )
    assert done.returncode == 0, (
        f"{script} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}"
    )
    return done.stdout


def test_percentile_is_nearest_rank_and_median_handles_no_values() -> None:
    values = [float(v) for v in range(1, 101)]
    assert common.percentile(values, 50) == 50.0
    assert common.percentile(values, 99) == 99.0
    assert common.percentile(values, 100) == 100.0
    assert common.percentile([7.0], 99) == 7.0
    assert common.median([3.0, 1.0, 2.0]) == 2.0
    assert str(common.median([])) == "nan"
    with pytest.raises(ValueError, match="between 0 and 100"):
        common.percentile(values, 101)


def test_goal_lines_say_met_or_by_how_much() -> None:
    assert common.goal_line("ready", 1.5, 2.0, "×").endswith("goal met")
    missed = common.goal_line("ready", 3.0, 2.0, "×")
    assert "goal missed by 1 ×" in missed
    assert "(50%)" in missed


def test_tree_memory_covers_a_child_process() -> None:
    child = subprocess.Popen(
        [sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE
    )
    try:
        tree = common.tree_memory(os.getpid())
        pids = {p.pid for p in tree.processes}
        assert os.getpid() in pids
        assert child.pid in pids
        assert tree.pss_mib > 0
        assert tree.rss_mib >= tree.pss_mib
        alone = tree.without(lambda p: p.pid == child.pid)
        assert child.pid not in {p.pid for p in alone.processes}
    finally:
        assert child.stdin is not None
        child.stdin.close()
        child.wait(timeout=30)


class _Ack(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    bodies: ClassVar[list[bytes]] = []

    def do_POST(self) -> None:
        length = int(self.headers["Content-Length"])
        _Ack.bodies.append(self.rfile.read(length))
        reply = b'{"ok":true}'
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def log_message(self, format: str, *args: object) -> None:
        logger.debug(format, *args)


@pytest.fixture
def ack_server() -> Iterator[int]:
    _Ack.bodies = []
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Ack)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


def test_load_generator_sends_every_request_once(ack_server: int, tmp_path: Path) -> None:
    template = tmp_path / "body.json"
    template.write_text('{"n": {n}}', encoding="utf-8")
    out = tmp_path / "sends.json"
    _run(
        "_common.py",
        "load",
        "--port",
        str(ack_server),
        "--path",
        "/hook",
        "--rate",
        "100",
        "--duration",
        "0.3",
        "--connections",
        "2",
        "--body-template",
        str(template),
        "--header",
        "Authorization: t0ken",
        "--out",
        str(out),
        timeout=60,
    )
    result = common.LoadResult.from_json(out.read_text(encoding="utf-8"))
    assert [s.n for s in result.sends] == list(range(30))
    assert all(s.status == 200 and s.done_ns >= s.sent_ns > 0 for s in result.sends)
    assert sorted(json.loads(b)["n"] for b in _Ack.bodies) == list(range(30))


def test_load_generator_refuses_an_unbounded_load(tmp_path: Path) -> None:
    template = tmp_path / "body.json"
    template.write_text('{"n": {n}}', encoding="utf-8")
    done = subprocess.run(
        [
            *(sys.executable, str(BENCHMARKS / "_common.py"), "load", "--port", "9"),
            *("--rate", "10", "--duration", "600", "--body-template", str(template)),
            *("--out", str(tmp_path / "o")),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert "a load lasts (0, 60] seconds" in done.stderr


@pytest.mark.webengine
@pytest.mark.slow
def test_startup_benchmark_prints_its_figures_and_verdicts() -> None:
    out = _run("startup.py", "--quick", "--settle", "0.2")
    for label in (
        "baseline ready:",
        "terminal ready:",
        "card page ready (SDK loaded, bridge connected)",
        "access token fetched",
        "CPU seconds used by the tree to get ready:",
        "baseline tree: PSS",
        "terminal tree with the sandbox process: PSS",
        "terminal tree without the sandbox process: PSS",
    ):
        assert label in out, f"missing {label!r} in:\n{out}"
    verdicts = [line for line in out.splitlines() if GOAL_VERDICT.search(line)]
    names = [line.split(":", 1)[0].strip() for line in verdicts]
    assert "ready / baseline" in names, out
    assert "tree PSS / baseline (without the sandbox process)" in names, out
    assert "tree PSS / baseline (with the sandbox process)" in names, out


@pytest.mark.slow
def test_charging_benchmark_runs_every_path_beside_its_floor() -> None:
    out = _run("charging.py", "--charges", "2", "--rounds", "1", "--concurrency", "2")
    for callers in ("2 concurrent callers", "1 caller"):
        assert f"-- 2 charges per run, {callers}" in out, out
        assert f"{callers}: against the floor (bare POST + one synchronous=FULL commit)" in out
    for path in (
        "ChargeService (durable, validated) #1",
        "bare httpx POST #1",
        "floor: bare POST + 1 durable commit #1",
    ):
        assert out.count(path) == 2, f"{path!r} not measured at both concurrencies:\n{out}"
    assert out.count("token requests per run of 2 charges: [1]") == 2, out


@pytest.mark.pg
def test_event_list_benchmark_paints_rows_from_the_shared_store(pg_url: str) -> None:
    out = _run("event_list_pg.py", "--events", "1000", "--pg", pg_url, "--repeat", "1")
    assert "event list over 1,000 events on PostgreSQL" in out
    assert re.search(r"first paint with rows\s+[\d.]+ ms median", out), out
    assert re.search(r"longest GUI-thread block\s+[\d.]+ ms median", out), out
    assert re.search(r"rows in the first page\s+200\b", out), out
    assert re.search(r"last page by OFFSET 800\s+[\d.]+ ms", out), out


@pytest.mark.pg
def test_inbox_benchmark_measures_the_shared_store_beside_its_baselines(pg_url: str) -> None:
    out = _run(
        "webhook_inbox.py",
        *("--duration", "0.5", "--warmup", "0", "--connections", "2", "--pg", pg_url),
    )
    rows = {
        match[1]: (float(match[2]), int(match[3]))
        for match in re.finditer(r"^\s+2\s+(bare|full|pg)\s+(\d+)\s+\S+\s+\S+\s+(\d+)", out, re.M)
    }
    assert set(rows) == {"bare", "full", "pg"}, out
    assert all(rate > 0 and errors == 0 for rate, errors in rows.values()), out
    assert "PostgreSQL inbox" in out
