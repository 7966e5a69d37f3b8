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


def _run(script: str, *args: str, timeout: float = 240, tmp: Path | None = None) -> str:
    env = dict(os.environ)
    env["QT_QPA_PLATFORM"] = "offscreen"
    if tmp is not None:
        # Its own temporary folder, so a test sees what the benchmark left behind.
        env["TMPDIR"] = str(tmp)
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


_RECEIPTS = re.compile(r"\(sent (\d+), acknowledged (\d+), painted (\d+), errors (\d+)\)")


@pytest.mark.slow
def test_receipt_to_screen_paints_every_acknowledged_delivery(tmp_path: Path) -> None:
    out = _run("receipt_to_screen.py", "--rate", "20", "--seconds", "1", tmp=tmp_path)
    found = _RECEIPTS.search(out)
    assert found is not None, out
    sent, acked, painted, errors = (int(g) for g in found.groups())
    assert sent == acked == painted > 0, out
    assert errors == 0, out
    assert "POST → row painted   p50" in out
    repaints = re.search(
        r"repaints during the load (\d+), CPU per repaint \(median\)\s+[\d.]+ ms", out
    )
    assert repaints is not None and int(repaints.group(1)) > 0, out
    # Its store folder goes with it: repeated runs do not fill the machine's temporary folder.
    assert sorted(p.name for p in tmp_path.glob("checkout-bench-*")) == []


_LOADED = re.compile(r"scroll one page \(fetchMore\+paint\)\s+\S+ ms\s+\(([\d,]+) rows loaded\)")
_FOUND = re.compile(r"search, common text \(PAID\)\s+\S+ ms to a full page \((\d+) rows\)")


@pytest.mark.slow
def test_event_list_scale_reads_the_store_through_the_panel(tmp_path: Path) -> None:
    # Enough rows for the twenty timed scroll steps of two pages each to keep loading.
    out = _run(
        "event_list_scale.py",
        *("--events", "10000", "--repeat", "1", "--store", str(tmp_path / "events.sqlite3")),
    )
    assert "event list over 10,000 events" in out, out
    loaded, found = _LOADED.search(out), _FOUND.search(out)
    assert loaded is not None and found is not None, out
    assert int(loaded.group(1).replace(",", "")) > 200, out  # the first page and fetched more
    assert int(found.group(1)) > 0, out


def test_profile_summary_counts_inclusive_and_self_samples_through_a_focus(
    tmp_path: Path,
) -> None:
    profile = tmp_path / "raw.txt"
    profile.write_text(
        "main (a.py:1);run (b.py:2);work (c.py:3) 6\n"
        "main (a.py:1);run (b.py:9);wait (d.py:4) 2\n"
        "main (a.py:1);idle (e.py:5) 2\n",
        encoding="utf-8",
    )
    out = _run("profile_summary.py", str(profile), "--focus", "run (", timeout=60)
    assert out.splitlines()[0] == "8 samples through 'run ('"
    inclusive, own = out.split("-- self")
    assert "100.0%  run (b.py)" in inclusive  # two lines of one function are one function
    assert "main (a.py)" not in out  # above the focus
    assert " 75.0%  work (c.py)" in own and " 25.0%  wait (d.py)" in own


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


_INBOX_ROUND = re.compile(r"^\s+#(\d)\s+2\s+(bare|full)\s+(\d+)\s+\S+\s+\S+\s+(\d+)", re.M)


@pytest.mark.slow
def test_inbox_benchmark_measures_the_inbox_and_its_baseline_in_rotated_rounds() -> None:
    out = _run(
        "webhook_inbox.py",
        *("--duration", "0.3", "--warmup", "0", "--connections", "2", "--rounds", "2"),
    )
    measured = {(int(m[1]), m[2]): (int(m[3]), int(m[4])) for m in _INBOX_ROUND.finditer(out)}
    assert set(measured) == {(1, "bare"), (1, "full"), (2, "bare"), (2, "full")}, out
    assert all(rate > 0 and errors == 0 for rate, errors in measured.values()), out
    assert "medians of 2 round(s):" in out
    assert re.search(
        r"2 connections: full path \d+% of bare throughput \(per round \d+%, \d+%\)", out
    )
    assert "throughput goal (>= 50% of bare)" in out


@pytest.mark.slow
def test_qr_benchmark_paints_paid_on_both_windows_beside_the_receipt_baseline(
    tmp_path: Path,
) -> None:
    out = _run("qr_paid_to_screen.py", "--rate", "80", "--seconds", "1", tmp=tmp_path)
    head = re.search(
        r"sent (\d+), acknowledged (\d+), paid QRs (\d+), errors (\d+), QRs paid before", out
    )
    assert head is not None, out
    sent, acked, paid, errors = (int(head[i]) for i in range(1, 5))
    assert sent == acked == 80 and paid == 2 and errors == 0, out
    # Half a second apart, each paid QR is painted long before the next is paid: none is
    # skipped, so every one is measured.
    assert "QRs paid before the previous one was painted 0)" in out, out
    for label in ("Paid on panel", "Paid on display", "Paid on both", "row painted"):
        figure = re.search(rf"POST → {label}\s+p50\s+[\d.]+ ms\s+p99\s+[\d.]+ ms.*\(n=(\d+)\)", out)
        assert figure is not None and int(figure[1]) >= 1, f"{label!r} not measured:\n{out}"
    names = [
        line.split(":", 1)[0].strip() for line in out.splitlines() if GOAL_VERDICT.search(line)
    ]
    assert names == ["POST → Paid on both, p99", "longest main-thread stall"], out
    assert sorted(p.name for p in tmp_path.glob("checkout-bench-*")) == []


def test_inbox_statements_benchmark_times_every_statement_beside_a_bare_insert() -> None:
    out = _run("inbox_statements.py", "--deliveries", "20", "--batch", "5", "--rounds", "2")
    for statement in ("INSERT INTO webhook_event", "INSERT INTO charge", "COMMIT"):
        assert re.search(rf"^\s+[\d.]+\s+[\d.]+\s+{statement}$", out, re.M), out
    assert re.search(r"writer's CPU per delivery .*: \d+ us \(rounds \d+, \d+\)", out), out
    assert re.search(r"without the statements timed: \d+ us \(rounds \d+, \d+\)", out), out
    assert re.search(r"baseline, same run: .*: \d+ us \(rounds \d+, \d+\); ratio [\d.]+x", out)
