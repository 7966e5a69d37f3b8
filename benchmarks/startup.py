"""Start-up: process start → card page ready for `checkout-desktop`, beside a bare QtWebEngine page.

"Ready" is the moment all three hold: the main window is shown, its card page's handshake
arrived with the SDK loaded (`CardPage.ready`: page loaded, the card SDK script loaded and its
API present, QWebChannel bridge connected), and the sandbox's access token has been fetched.
The terminal runs as a user starts it — `checkout-desktop run` on the built-in sandbox
profile, offscreen, through the real command-line entry point — in a child process
(startup_terminal.py) with observers wrapped around a few functions: they record when the
sandbox, the core, the window and the card page came up, fetch the access token as soon as the
core exists (the terminal asks for it then too; the token manager makes one request for both),
and print one READY line. Nothing else is changed.

The baseline (startup_baseline.py) is the least a QtWebEngine + QWebChannel app can do: one
view, one channel object, a small inline page calling it once. Runs alternate (baseline, app,
app, baseline, …) so that drift on a shared machine hits both alike; one warm-up run of each
comes first and is not counted. Time is measured from just before the parent starts the child
to the child's READY mark (CLOCK_MONOTONIC is one clock for every process on Linux).

Memory: when the child is ready it stays up for --settle seconds, then the parent reads
/proc/PID/smaps_rollup of the child and all its descendants (QtWebEngineProcess zygotes,
renderer, GPU process, and for the terminal the sandbox process): PSS (shared pages split
fairly among the processes sharing them) and RSS now, and each process's peak RSS (VmHWM).
The terminal's tree is reported with and without the sandbox subprocess (the sandbox exists
only on the built-in sandbox profile; a shop on the real service never runs it).

    .venv/bin/python benchmarks/startup.py [--runs 5] [--settle 1.0] [--quick]
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import _common  # noqa: E402

logger = logging.getLogger(__name__)

BASELINE_SCRIPT = HERE / "startup_baseline.py"
TERMINAL_SCRIPT = HERE / "startup_terminal.py"
READY_TIMEOUT_S = 90.0
GOAL_READY_RATIO = 2.0
GOAL_PSS_RATIO = 1.3


# -- the parent ----------------------------------------------------------------------------------


@dataclass
class Run:
    kind: str
    ready_s: float
    marks: dict[str, float]
    """Each stage's time from the parent's start of the child, in seconds."""
    at_ready: _common.TreeMemory
    """The tree as soon as READY arrived (its CPU seconds are the work done to get ready)."""
    settled: _common.TreeMemory
    """The tree --settle seconds later (the memory figures)."""
    footprint_mib: float | None
    """The settled tree's resident pages counted once (see _common.footprint_mib)."""
    footprint_no_sandbox_mib: float | None


def _prepare_data_dir(root: Path) -> Path:
    from checkout_desktop.paths import app_paths
    from checkout_desktop.settings import BUILTIN_SANDBOX, Settings, save_settings

    home = root / "terminal-home"
    paths = app_paths(home).ensure()
    save_settings(Settings(active_profile=BUILTIN_SANDBOX, first_run_done=True), paths)
    return home


def _without_sandbox(tree: _common.TreeMemory) -> _common.TreeMemory:
    """The tree minus the sandbox process and anything it started."""
    sandbox = {p.pid for p in tree.processes if "checkout_desktop.sandbox" in p.cmdline}
    excluded = set(sandbox)
    for pid in sandbox:
        excluded.update(_common.process_tree(pid))
    return tree.without(lambda p: p.pid in excluded)


def run_once(kind: str, home: Path, log: Path, settle_s: float) -> Run:
    env = dict(os.environ)
    env["QT_QPA_PLATFORM"] = "offscreen"
    env["PYTHONUNBUFFERED"] = "1"
    # An installed terminal starts from compiled bytecode; with writing it switched off (as in
    # some shells and CI jobs) every start would compile the whole package from source again,
    # and time that no shop's start spends. The warm-up runs write it.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.pop("CHECKOUT_DESKTOP_HOME", None)
    if kind == "baseline":
        command = [sys.executable, str(BASELINE_SCRIPT)]
    else:
        command = [sys.executable, str(TERMINAL_SCRIPT), str(home)]
    with log.open("ab") as errors:
        errors.write(f"\n==== {kind} run ====\n".encode())
        errors.flush()
        begin = time.monotonic()
        child = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=errors,
            env=env,
            start_new_session=True,
        )
    try:
        line = _read_marker(child, READY_TIMEOUT_S)
        if not line.startswith("READY "):
            raise RuntimeError(f"the {kind} run did not get ready: {line.strip()!r} (log: {log})")
        at_ready = _common.tree_memory(child.pid)
        raw = {name: float(value) for name, value in json.loads(line[6:]).items()}
        ready_s = max(raw.values()) - begin
        time.sleep(settle_s)
        settled = _common.tree_memory(child.pid)
        footprint = _common.footprint_mib(p.pid for p in settled.processes)
        alone = _common.footprint_mib(p.pid for p in _without_sandbox(settled).processes)
        marks = {name: value - begin for name, value in raw.items()}
        return Run(kind, ready_s, marks, at_ready, settled, footprint, alone)
    finally:
        _stop(child)


def _read_marker(child: subprocess.Popen[bytes], timeout: float) -> str:
    """The first READY or FAILED line of the child's output, or what explains its absence."""
    assert child.stdout is not None
    selector = selectors.DefaultSelector()
    selector.register(child.stdout, selectors.EVENT_READ)
    deadline = time.monotonic() + timeout
    buffer = b""
    try:
        while time.monotonic() < deadline:
            if not selector.select(timeout=max(0.0, deadline - time.monotonic())):
                continue
            chunk = os.read(child.stdout.fileno(), 65536)
            if not chunk:
                return f"(exited with code {child.wait(timeout=10)})"
            buffer += chunk
            while b"\n" in buffer:
                raw, buffer = buffer.split(b"\n", 1)
                text = raw.decode("utf-8", errors="replace")
                if text.startswith(("READY ", "FAILED")):
                    return text
        return f"(nothing within {timeout:g} s)"
    finally:
        selector.close()


def _stop(child: subprocess.Popen[bytes]) -> None:
    """Ask the child to close (a line on stdin), then end its session if it lingers."""
    try:
        if child.stdin is not None:
            child.stdin.write(b"quit\n")
            child.stdin.close()
    except OSError:
        pass
    try:
        child.wait(timeout=30)
    except subprocess.TimeoutExpired:
        logger.warning("the child %d did not close within 30 s; ending its session", child.pid)
        os.killpg(child.pid, signal.SIGKILL)
        child.wait(timeout=10)
    if child.stdout is not None:
        child.stdout.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="measured runs of each (default 5)")
    parser.add_argument("--settle", type=float, default=1.0, help="seconds after ready")
    parser.add_argument("--quick", action="store_true", help="one run each, no warm-up")
    args = parser.parse_args(argv)
    if not 1 <= args.runs <= 30:
        parser.error("--runs must be between 1 and 30")
    if not 0 <= args.settle <= 10:
        parser.error("--settle must be between 0 and 10 seconds")
    runs = 1 if args.quick else args.runs
    warmup = not args.quick
    print(
        f"startup benchmark: {runs} measured run(s) of each, alternating"
        f"{', after one warm-up of each' if warmup else ''}; offscreen; loopback only"
    )
    print(_common.machine_line())
    root = Path(tempfile.mkdtemp(prefix="startup-bench-"))
    log = root / "children.log"
    series: dict[str, list[Run]] = {"baseline": [], "app": []}
    try:
        home = _prepare_data_dir(root)
        if warmup:
            for kind in ("baseline", "app"):
                run = run_once(kind, home, log, 0.0)
                print(f"  warm-up {kind}: ready {run.ready_s * 1000:.0f} ms")
        for i in range(runs):
            order = ("baseline", "app") if i % 2 == 0 else ("app", "baseline")
            for kind in order:
                run = run_once(kind, home, log, args.settle)
                series[kind].append(run)
                print(
                    f"  run {i + 1} {kind:8s}: ready {run.ready_s * 1000:6.0f} ms, "
                    f"CPU to ready {run.at_ready.cpu_s:5.2f} s, "
                    f"tree PSS {run.settled.pss_mib:4.0f} MiB, RSS {run.settled.rss_mib:4.0f} MiB"
                )
    except RuntimeError as exc:
        print(f"startup benchmark: {exc}", file=sys.stderr)
        _tail(log)
        return 1
    finally:
        if os.environ.get("STARTUP_BENCH_KEEP") != "1":
            shutil.rmtree(root, ignore_errors=True)
    report(series["baseline"], series["app"])
    return 0


def _tail(log: Path, lines: int = 40) -> None:
    try:
        text = log.read_text(errors="replace").splitlines()
    except OSError:
        return
    print("\n".join(text[-lines:]), file=sys.stderr)


STAGES = {
    "python": "interpreter up, this script imported",
    "imports": "checkout_desktop.app and cli imported",
    "sandbox_begin": "sandbox launch asked",
    "qapp": "QApplication created",
    "page_begin": "card page construction begins",
    "page_built": "card page constructed",
    "page_load": "card page load asked",
    "sandbox": "sandbox process announced itself",
    "core_begin": "core start asked",
    "core": "core started (store, gateway; the inbox follows the card page)",
    "window_begin": "main window construction begins",
    "window": "main window shown",
    "token": "access token fetched",
    "page": "card page ready (SDK loaded, bridge connected)",
}


def report(base: list[Run], app: list[Run]) -> None:
    med = _common.median
    base_ready = med(r.ready_s * 1000 for r in base)
    app_ready = med(r.ready_s * 1000 for r in app)
    print("\nmedians")
    print(f"  baseline ready: {base_ready:.0f} ms (bare QWebEngineView + QWebChannel)")
    print(
        f"  terminal ready: {app_ready:.0f} ms (card page + SDK + bridge + access token), "
        f"{_common.ratio(app_ready, base_ready):.2f}× baseline"
    )
    stage_ms = {
        key: med(r.marks[key] * 1000 for r in app if key in r.marks)
        for key in STAGES
        if any(key in r.marks for r in app)
    }
    print("  terminal stages, ms from process start:")
    for key, value in sorted(stage_ms.items(), key=lambda item: item[1]):
        print(f"    {value:6.0f}  {STAGES[key]}")
    base_cpu = med(r.at_ready.cpu_s for r in base)
    app_cpu = med(r.at_ready.cpu_s for r in app)
    app_cpu_main = med(r.at_ready.processes[0].cpu_s for r in app if r.at_ready.processes)
    app_cpu_sandbox = app_cpu - med(_without_sandbox(r.at_ready).cpu_s for r in app)
    print(
        f"  CPU seconds used by the tree to get ready: baseline {base_cpu:.2f}, terminal "
        f"{app_cpu:.2f} (main process {app_cpu_main:.2f}, sandbox {app_cpu_sandbox:.2f})"
    )
    base_pss = med(r.settled.pss_mib for r in base)
    base_rss = med(r.settled.rss_mib for r in base)
    base_peak = med(r.settled.peak_rss_mib for r in base)
    print(
        f"  baseline tree: PSS {base_pss:.0f} MiB, RSS {base_rss:.0f} MiB, "
        f"peak RSS (sum of VmHWM) {base_peak:.0f} MiB"
    )
    base_fp = med(r.footprint_mib for r in base if r.footprint_mib is not None)
    print(f"  baseline tree footprint (resident pages counted once): {base_fp:.0f} MiB")
    pss_by: dict[bool, float] = {}
    fp_by: dict[bool, float] = {}
    for with_sandbox in (True, False):
        trees = [r.settled if with_sandbox else _without_sandbox(r.settled) for r in app]
        pss = pss_by[with_sandbox] = med(t.pss_mib for t in trees)
        label = "with the sandbox process" if with_sandbox else "without the sandbox process"
        rss = med(t.rss_mib for t in trees)
        peak = med(t.peak_rss_mib for t in trees)
        prints = [r.footprint_mib if with_sandbox else r.footprint_no_sandbox_mib for r in app]
        fp = fp_by[with_sandbox] = med(f for f in prints if f is not None)
        print(
            f"  terminal tree {label}: PSS {pss:.0f} MiB "
            f"({_common.ratio(pss, base_pss):.2f}× baseline), footprint {fp:.0f} MiB "
            f"({_common.ratio(fp, base_fp):.2f}× baseline), RSS {rss:.0f} MiB, "
            f"peak RSS (sum of VmHWM) {peak:.0f} MiB"
        )
    print(f"  last baseline run, {base[-1].settled.describe()}")
    print(f"  last terminal run, {app[-1].settled.describe()}")
    print("\ngoals")
    print(
        _common.goal_line(
            "ready / baseline", _common.ratio(app_ready, base_ready), GOAL_READY_RATIO, "×"
        )
    )
    for with_sandbox in (False, True):
        label = "with" if with_sandbox else "without"
        print(
            _common.goal_line(
                f"tree PSS / baseline ({label} the sandbox process)",
                _common.ratio(pss_by[with_sandbox], base_pss),
                GOAL_PSS_RATIO,
                "×",
            )
        )
        print(
            _common.goal_line(
                f"tree footprint / baseline ({label} the sandbox process)",
                _common.ratio(fp_by[with_sandbox], base_fp),
                GOAL_PSS_RATIO,
                "×",
            )
        )


if __name__ == "__main__":
    raise SystemExit(main())
