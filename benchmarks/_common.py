"""Shared helpers of the benchmarks: statistics, process-tree memory, goal lines, a loopback load.

Used by startup.py, receipt_to_screen.py, qr_paid_to_screen.py and event_list_scale.py (scripts
run as `.venv/bin/python benchmarks/NAME.py`, so this module is imported as `_common`).

The load generator also runs as its own process, so that its sending never shares a loop (or
the GIL) with the process being measured:

    .venv/bin/python benchmarks/_common.py load --port P --rate 200 --duration 10 \
        --body-template body.json --header "Authorization: TOKEN" --out sends.json

It talks only to 127.0.0.1, stops after --duration seconds (at most 60) and sends at most
--rate × --duration requests (at most 100,000).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import math
import os
import platform
import statistics
import struct
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

logger = logging.getLogger(__name__)

LOOPBACK = "127.0.0.1"
MAX_LOAD_SECONDS = 60.0
MAX_LOAD_REQUESTS = 100_000
MAX_LOAD_CONNECTIONS = 64

# -- the garbage collector as the terminal runs it ---------------------------------------------

GC_MODES = ("settled", "timer", "automatic")
"""How a GUI benchmark's process collects cycles: "settled" as the terminal does (automatic
collection off, due collections on a GUI-thread timer, and what was built before the load set
aside as start-up is), "timer" without setting aside, "automatic" CPython's own collection."""


def collect_as_the_terminal(app: object, mode: str) -> None:
    """Set up the collector for `mode` once the QApplication exists."""
    if mode not in GC_MODES:
        raise ValueError(f"--gc is one of {', '.join(GC_MODES)}, not {mode!r}")
    if mode != "automatic":
        from checkout_desktop.ui.gc_guard import collect_on_this_thread

        app.gc_collector = collect_on_this_thread(app)  # type: ignore[attr-defined]


def before_load(mode: str) -> None:
    """Right before the load starts: in "settled" mode, what was built so far is set aside, as
    the terminal does once its start-up is over."""
    if mode == "settled":
        from checkout_desktop.collector import settle_start_up

        settle_start_up()


# -- statistics ---------------------------------------------------------------------------------


def median(values: Iterable[float]) -> float:
    """The median; NaN for no values (a benchmark prints it rather than crashing)."""
    items = list(values)
    return statistics.median(items) if items else math.nan


def percentile(values: Iterable[float], q: float) -> float:
    """The nearest-rank percentile (q in 0–100): the smallest value with q% at or below it."""
    if not 0 <= q <= 100:
        raise ValueError(f"a percentile is between 0 and 100, not {q}")
    ordered = sorted(values)
    if not ordered:
        return math.nan
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[rank - 1]


def ratio(value: float, baseline: float) -> float:
    return value / baseline if baseline else math.nan


def goal_line(name: str, value: float, limit: float, unit: str) -> str:
    """`goal met` or `goal missed by X` for a figure that must stay at or below `limit`."""
    if math.isnan(value):
        return f"  {name}: no figure (see above) — goal not judged"
    if value <= limit:
        return f"  {name}: {value:.3g} {unit} ≤ {limit:.3g} {unit} — goal met"
    over = value - limit
    return (
        f"  {name}: {value:.3g} {unit} > {limit:.3g} {unit} — goal missed by {over:.3g} {unit} "
        f"({over / limit * 100:.0f}%)"
    )


def machine_line() -> str:
    """Where and when the figures were taken (the README table quotes it)."""
    model = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return (
        f"machine: {os.cpu_count()} CPUs ({model}), Python {platform.python_version()}, "
        f"{platform.system()} {platform.release()}; {datetime.now(UTC):%Y-%m-%d %H:%M} UTC"
    )


# -- memory of a process tree -------------------------------------------------------------------


@dataclass(frozen=True)
class ProcessMemory:
    """One process: its smaps_rollup Pss and Rss now, its peak Rss (VmHWM), in KiB; CPU so far."""

    pid: int
    name: str
    cmdline: str
    pss_kib: int
    rss_kib: int
    peak_rss_kib: int
    cpu_s: float
    """User + system CPU seconds the process has used since it started."""


@dataclass(frozen=True)
class TreeMemory:
    processes: tuple[ProcessMemory, ...] = ()

    @property
    def pss_mib(self) -> float:
        return sum(p.pss_kib for p in self.processes) / 1024

    @property
    def rss_mib(self) -> float:
        return sum(p.rss_kib for p in self.processes) / 1024

    @property
    def cpu_s(self) -> float:
        return sum(p.cpu_s for p in self.processes)

    @property
    def peak_rss_mib(self) -> float:
        """The sum of each process's own peak: an upper bound of the tree's peak RSS."""
        return sum(p.peak_rss_kib for p in self.processes) / 1024

    def without(self, excluded: Callable[[ProcessMemory], bool]) -> TreeMemory:
        return TreeMemory(tuple(p for p in self.processes if not excluded(p)))

    def describe(self) -> str:
        parts = [f"{p.name}[{p.pid}] {p.pss_kib / 1024:.0f}" for p in self.processes]
        return "PSS MiB by process: " + ", ".join(parts)


def _parents() -> dict[int, int]:
    parents: dict[int, int] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(entry.path, "stat").read_text()
        except OSError:
            continue  # gone meanwhile
        # The command name may hold spaces and parentheses: the fields start after the last ")".
        fields = stat.rsplit(")", 1)[1].split()
        parents[int(entry.name)] = int(fields[1])
    return parents


def process_tree(root: int) -> list[int]:
    """`root` and every descendant alive now (parents before children)."""
    children: dict[int, list[int]] = {}
    for pid, parent in _parents().items():
        children.setdefault(parent, []).append(pid)
    order: list[int] = []
    todo = [root]
    while todo:
        pid = todo.pop(0)
        order.append(pid)
        todo.extend(sorted(children.get(pid, ())))
    return order


def _kib_fields(text: str, names: Sequence[str]) -> dict[str, int]:
    found: dict[str, int] = {}
    for line in text.splitlines():
        key, _, rest = line.partition(":")
        if key in names:
            found[key] = int(rest.split()[0])
    return found


def process_memory(pid: int) -> ProcessMemory | None:
    """One process's memory figures, or None when it has gone or /proc cannot be read."""
    try:
        rollup = Path(f"/proc/{pid}/smaps_rollup").read_text()
        status = Path(f"/proc/{pid}/status").read_text()
        stat = Path(f"/proc/{pid}/stat").read_text()
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return None
    sizes = _kib_fields(rollup, ("Pss", "Rss"))
    peak = _kib_fields(status, ("VmHWM",))
    name = next(
        (line.split(":", 1)[1].strip() for line in status.splitlines() if line.startswith("Name:")),
        "?",
    )
    ticks = stat.rsplit(")", 1)[1].split()
    cpu_s = (int(ticks[11]) + int(ticks[12])) / os.sysconf("SC_CLK_TCK")
    return ProcessMemory(
        pid=pid,
        name=name,
        cmdline=cmdline.strip(),
        pss_kib=sizes.get("Pss", 0),
        rss_kib=sizes.get("Rss", 0),
        peak_rss_kib=peak.get("VmHWM", 0),
        cpu_s=cpu_s,
    )


def tree_memory(root: int) -> TreeMemory:
    """Memory of `root` and all its descendants (e.g. QtWebEngineProcess children)."""
    found = (process_memory(pid) for pid in process_tree(root))
    return TreeMemory(tuple(p for p in found if p is not None))


_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
_PFN_MASK = (1 << 55) - 1


def footprint_mib(pids: Iterable[int]) -> float | None:
    """Resident pages of these processes, each physical page counted once, in MiB.

    PSS splits a shared page among every process mapping it, including processes outside the
    tree (another QtWebEngine app maps the same Qt libraries), so on a busy machine a tree's
    PSS falls when unrelated programs run. This figure does not move with them: it is what the
    tree's PSS would be if nothing else shared its pages. It reads /proc/PID/pagemap, whose
    page frame numbers only root can see; None when they are hidden.
    """
    frames: set[int] = set()
    hidden = True
    for pid in pids:
        try:
            lines = Path(f"/proc/{pid}/smaps").read_text().splitlines()
            pagemap = open(f"/proc/{pid}/pagemap", "rb")  # noqa: SIM115 - closed below
        except OSError:
            continue  # gone meanwhile
        resident: list[tuple[int, int]] = []
        current = (0, 0)
        for line in lines:
            first = line.split(" ", 1)[0]
            if "-" in first and not first.endswith(":"):
                start_hex, end_hex = first.split("-")
                current = (int(start_hex, 16), int(end_hex, 16))
            elif line.startswith("Rss:") and int(line.split()[1]) > 0:
                resident.append(current)
        with pagemap:
            for low, high in resident:
                pagemap.seek(low // _PAGE * 8)
                data = pagemap.read((high - low) // _PAGE * 8)
                for (entry,) in struct.iter_unpack("<Q", data):
                    if entry >> 63:  # present in RAM
                        frame = entry & _PFN_MASK
                        if frame:
                            hidden = False
                        frames.add(frame)
    if hidden:
        return None
    return len(frames) * _PAGE / 2**20


def own_rss_mib() -> float:
    """This process's resident set now (VmRSS), in MiB."""
    status = Path("/proc/self/status").read_text()
    return _kib_fields(status, ("VmRSS",)).get("VmRSS", 0) / 1024


# -- a bounded steady-rate HTTP/1.1 load on loopback --------------------------------------------


@dataclass
class Send:
    """One request: its number, when it left the client, when its reply ended, its status."""

    n: int
    sent_ns: int
    done_ns: int = 0
    status: int = 0


@dataclass
class LoadResult:
    sends: list[Send] = field(default_factory=list)
    late: int = 0
    """Requests sent more than 5 ms after their slot (every connection was busy)."""
    elapsed_s: float = 0.0

    @property
    def ok(self) -> int:
        return sum(1 for s in self.sends if 200 <= s.status < 300)

    def ack_ms(self) -> list[float]:
        return [(s.done_ns - s.sent_ns) / 1e6 for s in self.sends if s.done_ns]

    def to_json(self) -> str:
        return json.dumps(
            {
                "late": self.late,
                "elapsed_s": self.elapsed_s,
                "sends": [[s.n, s.sent_ns, s.done_ns, s.status] for s in self.sends],
            }
        )

    @classmethod
    def from_json(cls, text: str) -> LoadResult:
        data = json.loads(text)
        return cls(
            sends=[Send(n=a, sent_ns=b, done_ns=c, status=d) for a, b, c, d in data["sends"]],
            late=int(data["late"]),
            elapsed_s=float(data["elapsed_s"]),
        )


class _Connection(asyncio.Protocol):
    """One keep-alive connection: one request at a time, the reply read by Content-Length."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.current: Send | None = None
        self.idle: asyncio.Event = asyncio.Event()
        self.lost: bool = False
        self._buffer = b""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        self.idle.set()

    def send(self, item: Send, request: bytes) -> None:
        assert self.transport is not None
        self.idle.clear()
        self.current = item
        self._buffer = b""
        item.sent_ns = time.monotonic_ns()
        self.transport.write(request)

    def data_received(self, data: bytes) -> None:
        self._buffer += data
        end = self._buffer.find(b"\r\n\r\n")
        if end < 0 or self.current is None:
            return
        head = self._buffer[:end].decode("latin-1")
        length = 0
        for line in head.split("\r\n")[1:]:
            name, _, value = line.partition(":")
            if name.strip().lower() == "content-length":
                length = int(value)
        if len(self._buffer) < end + 4 + length:
            return
        self.current.done_ns = time.monotonic_ns()
        try:
            self.current.status = int(head.split(" ", 2)[1])
        except (IndexError, ValueError):
            self.current.status = -1
        self.current = None
        self.idle.set()

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost = True
        self.idle.set()


async def steady_load(
    *,
    port: int,
    path: str,
    body: Callable[[int], bytes],
    headers: Sequence[tuple[str, str]] = (),
    rate: float,
    duration_s: float,
    connections: int = 8,
) -> LoadResult:
    """POST `body(n)` to 127.0.0.1:`port``path` at `rate` per second for `duration_s` seconds.

    Open loop: request n is due at start + n / rate whatever the replies do; a request whose
    connections are all busy goes on the first that frees up (counted as late). Bounded: at
    most 60 s, 100,000 requests, 64 connections; the last replies get 10 s to arrive.
    """
    if not 0 < duration_s <= MAX_LOAD_SECONDS:
        raise ValueError(f"a load lasts (0, {MAX_LOAD_SECONDS:g}] seconds, not {duration_s}")
    total = int(rate * duration_s)
    if not 1 <= total <= MAX_LOAD_REQUESTS:
        raise ValueError(f"a load sends 1 to {MAX_LOAD_REQUESTS} requests, not {total}")
    if not 1 <= connections <= MAX_LOAD_CONNECTIONS:
        raise ValueError(f"a load uses 1 to {MAX_LOAD_CONNECTIONS} connections")
    loop = asyncio.get_running_loop()
    pool: list[_Connection] = []
    for _ in range(connections):
        _transport, protocol = await loop.create_connection(_Connection, LOOPBACK, port)
        pool.append(protocol)
    head_lines = "".join(f"{name}: {value}\r\n" for name, value in headers)
    result = LoadResult()
    start = time.monotonic()
    for n in range(total):
        due = start + n / rate
        delay = due - time.monotonic()
        if delay > 0:
            await asyncio.sleep(delay)
        free = next((c for c in pool if c.idle.is_set() and not c.lost), None)
        if free is None:
            waiters = [asyncio.ensure_future(c.idle.wait()) for c in pool if not c.lost]
            if not waiters:
                raise ConnectionError("every load connection was closed by the server")
            await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
            for waiter in waiters:
                waiter.cancel()
            free = next((c for c in pool if c.idle.is_set() and not c.lost), None)
            if free is None:
                raise ConnectionError("every load connection was closed by the server")
        if time.monotonic() - due > 0.005:
            result.late += 1
        payload = body(n)
        request = (
            f"POST {path} HTTP/1.1\r\nHost: {LOOPBACK}:{port}\r\n{head_lines}"
            f"Content-Type: application/json\r\nContent-Length: {len(payload)}\r\n\r\n"
        ).encode("latin-1") + payload
        item = Send(n=n, sent_ns=0)
        result.sends.append(item)
        free.send(item, request)
    # The last replies get 10 s; a connection's `idle` is also set when it is lost.
    waiters = [asyncio.ensure_future(c.idle.wait()) for c in pool]
    _done, pending = await asyncio.wait(waiters, timeout=10.0)
    for waiter in pending:
        waiter.cancel()
    result.elapsed_s = time.monotonic() - start
    for connection in pool:
        if connection.transport is not None:
            connection.transport.close()
    return result


def _load_main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="_common.py load", description="steady loopback load")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--path", default="/")
    parser.add_argument("--rate", type=float, required=True, help="requests per second")
    parser.add_argument("--duration", type=float, required=True, help="seconds (at most 60)")
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument(
        "--body-template", required=True, help="a file whose text has {n} for the request number"
    )
    parser.add_argument("--header", action="append", default=[], help="'Name: value'")
    parser.add_argument("--out", required=True, help="where to write the sends as JSON")
    parser.add_argument(
        "--start-at-ns", type=int, default=0, help="wait until this time.monotonic_ns() first"
    )
    args = parser.parse_args(argv)
    if not 1 <= args.port <= 65535:
        parser.error(f"--port must be 1–65535, not {args.port}")
    template = Path(args.body_template).read_text(encoding="utf-8")
    if "{n}" not in template:
        parser.error("the body template needs {n} (each request's number) somewhere")
    headers: list[tuple[str, str]] = []
    for raw in args.header:
        name, sep, value = raw.partition(":")
        if not sep or not name.strip():
            parser.error(f"--header must look like 'Name: value', not {raw!r}")
        headers.append((name.strip(), value.strip()))

    async def run() -> LoadResult:
        wait = (args.start_at_ns - time.monotonic_ns()) / 1e9
        if wait > 0:
            await asyncio.sleep(min(wait, 30.0))
        return await steady_load(
            port=args.port,
            path=args.path,
            body=lambda n: template.replace("{n}", str(n)).encode("utf-8"),
            headers=headers,
            rate=args.rate,
            duration_s=args.duration,
            connections=args.connections,
        )

    try:
        result = asyncio.run(run())
    except (ValueError, OSError) as exc:
        print(f"load: {exc}", file=sys.stderr)
        return 2
    Path(args.out).write_text(result.to_json(), encoding="utf-8")
    return 0


if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] != "load":
        print("usage: _common.py load --port P --rate R --duration S ...", file=sys.stderr)
        raise SystemExit(2)
    raise SystemExit(_load_main(sys.argv[2:]))
