"""Webhook inbox throughput and ack latency: the full durable path beside a bare aiohttp handler.

Both servers run in their own process on 127.0.0.1 (plain asyncio loop), one at a time; the
load comes from this process through a lean keep-alive HTTP/1.1 client so the client is not the
bottleneck. The full path is the real inbox: token check, body read, parse, group-committed
SQLite write with synchronous=FULL, the charge state machine, publish on the event bus, 2xx.
With --pg, the same inbox on a shared PostgreSQL store (synchronous_commit on) is measured in
the same run: `--pg auto` starts a private server on a Unix socket (as the tests do), or give
the address of an empty database. Every run is bounded by --duration; nothing leaves loopback.

    .venv/bin/python benchmarks/webhook_inbox.py [--duration 5] [--connections 10 50] [--pg auto]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

logger = logging.getLogger(__name__)

TOKEN = "bench_webhook_token_0123456789"
PATH = "/webhooks/checkout"


# -- servers (run in a child process) -----------------------------------------------------------


async def _serve_bare() -> tuple[int, object]:
    from aiohttp import web

    async def handle(request: web.Request) -> web.Response:
        await request.read()
        return web.json_response({"stored": 1, "verdict": "accepted"})

    app = web.Application()
    app.router.add_post(PATH, handle)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0, backlog=512).start()
    return int(runner.addresses[0][1]), runner


async def _serve(kind: str, store: Path, pg: str | None = None) -> None:
    from pydantic import SecretStr

    from checkout_desktop.charges.ledger import inbox_applier
    from checkout_desktop.collector import settle_start_up
    from checkout_desktop.domain.events import EventBus
    from checkout_desktop.domain.inbox_events import WebhookStored
    from checkout_desktop.inbox.listener import WebhookListener
    from checkout_desktop.inbox.writer import InboxWriter
    from checkout_desktop.settings import ListenerSettings

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    published = 0

    def count(_event: WebhookStored) -> None:
        nonlocal published
        published += 1

    stats: dict[str, object] = {}
    if kind == "bare":
        port, runner = await _serve_bare()
        settle_start_up()  # as the full path does, so that both collect alike
        print(f"READY {port}", flush=True)
        await stop.wait()
        from aiohttp import web

        assert isinstance(runner, web.AppRunner)
        await runner.cleanup()
    else:
        bus = EventBus()
        bus.subscribe(WebhookStored, count)
        if kind == "pg":
            from checkout_desktop.store.postgres.address import StoreAddress
            from checkout_desktop.store.postgres.writer import PgDeliveryBatches

            assert pg is not None
            batches = PgDeliveryBatches(StoreAddress.parse(pg), None)
            writer = InboxWriter(batches, bus=bus, applier=inbox_applier)
        else:
            writer = InboxWriter(store / "bench.sqlite3", bus=bus, applier=inbox_applier)
        listener = WebhookListener(
            ListenerSettings(port=0), token=SecretStr(TOKEN), writer=writer, bus=bus
        )

        def writer_stats() -> dict[str, object]:
            return {
                "batches": writer.stats.batches,
                "rows": writer.stats.rows,
                "largest_batch": writer.stats.largest_batch,
                "published": published,
            }

        # The parent asks for the counters between measurements, to see each one's batches.
        loop.add_signal_handler(
            signal.SIGUSR1, lambda: print("STATS " + json.dumps(writer_stats()), flush=True)
        )
        await listener.start()
        # As `checkout-desktop listen` does once started.
        settle_start_up()
        print(f"READY {listener.port}", flush=True)
        await stop.wait()
        await listener.stop()
        stats = writer_stats()
    print("STATS " + json.dumps(stats), flush=True)


# -- load generator -----------------------------------------------------------------------------


def _body(n: int) -> bytes:
    return json.dumps(
        {
            "type": "PAYMENT",
            "eventDate": "2026-03-01T09:00:00-03:00",
            "merchantDocument": "30155515000121",
            "id": f"evt-{n:09d}",
            "merchantCode": "12345",
            "data": {
                "status": "PAID",
                "amount": 1500,
                "originalAmount": 1500,
                "refundedAmount": 0,
                "customer": {
                    "document": "658*****038",
                    "documentType": "CPF",
                    "email": "c***@example.com",
                    "name": "J*** S***",
                },
                "merchantChargeId": f"bench-{os.getpid()}-{n:09d}",
                "smartCheckoutId": None,
                "paymentSource": "GATEWAY",
                "lateCapture": False,
                "transactions": [
                    {
                        "paymentType": "CREDIT",
                        "transactionId": f"t-{n}",
                        "status": "CAPTURED",
                        "amount": 1500,
                        "createdAt": "2026-03-01T08:59:59.123456789",
                        "credit": {"brand": "VISA", "nsu": "123", "cardholderName": "J*** S***"},
                    }
                ],
            },
        }
    ).encode()


@dataclass
class Load:
    ok: int = 0
    errors: int = 0
    latencies: list[float] = field(default_factory=list)
    elapsed: float = 0.0
    server_cpu_s: float | None = None
    commits: int | None = None
    """The inbox's commits during the measurement (None for the bare handler)."""

    @property
    def cpu_per_delivery_us(self) -> float | None:
        if self.server_cpu_s is None or not self.ok:
            return None
        return self.server_cpu_s / self.ok * 1e6

    @property
    def mean_batch(self) -> float | None:
        if not self.commits:
            return None
        return self.ok / self.commits

    @property
    def rate(self) -> float:
        return self.ok / self.elapsed if self.elapsed else 0.0

    def pct(self, q: float) -> float:
        if not self.latencies:
            return float("nan")
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


class _Client(asyncio.Protocol):
    """One keep-alive connection sending the next request as soon as the reply is complete."""

    counter = 0

    def __init__(self, port: int, load: Load, deadline: float, done: asyncio.Future[None]) -> None:
        self._host = f"127.0.0.1:{port}".encode()
        self._load = load
        self._deadline = deadline
        self._done = done
        self._buffer = b""
        self._started = 0.0
        self._transport: asyncio.Transport | None = None

    def _request(self) -> bytes:
        _Client.counter += 1
        body = _body(_Client.counter)
        head = (
            b"POST " + PATH.encode() + b" HTTP/1.1\r\nHost: " + self._host + b"\r\n"
            b"Authorization: " + TOKEN.encode() + b"\r\n"
            b"event-type: TransactionUpdateMessage\r\nContent-Type: application/json\r\n"
            b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n"
        )
        return head + body

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self._transport = transport
        self._send()

    def _send(self) -> None:
        assert self._transport is not None
        if time.perf_counter() >= self._deadline:
            self._transport.close()
            return
        self._buffer = b""
        request = self._request()
        self._started = time.perf_counter()
        self._transport.write(request)

    def data_received(self, data: bytes) -> None:
        self._buffer += data
        end = self._buffer.find(b"\r\n\r\n")
        if end < 0:
            return
        head = self._buffer[:end].decode("latin-1")
        length = 0
        for line in head.split("\r\n")[1:]:
            name, _, value = line.partition(":")
            if name.strip().lower() == "content-length":
                length = int(value)
        if len(self._buffer) < end + 4 + length:
            return
        took = time.perf_counter() - self._started
        if head.startswith("HTTP/1.1 200"):
            self._load.ok += 1
            self._load.latencies.append(took)
        else:
            self._load.errors += 1
        self._send()

    def connection_lost(self, exc: Exception | None) -> None:
        if not self._done.done():
            self._done.set_result(None)


async def run_load(port: int, connections: int, duration: float) -> Load:
    loop = asyncio.get_running_loop()
    load = Load()
    started = time.perf_counter()
    deadline = started + duration
    finished: list[asyncio.Future[None]] = []
    for _ in range(connections):
        done: asyncio.Future[None] = loop.create_future()
        finished.append(done)
        await loop.create_connection(
            lambda d=done: _Client(port, load, deadline, d), "127.0.0.1", port
        )
    await asyncio.wait_for(asyncio.gather(*finished), timeout=duration + 30)
    load.elapsed = time.perf_counter() - started
    return load


# -- orchestration ------------------------------------------------------------------------------


def process_cpu_s(pid: int) -> float | None:
    """CPU seconds (user + system) a process has used so far; None where /proc is missing.

    On a shared machine the CPU cost per delivery is steadier than deliveries per second."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Server:
    def __init__(self, kind: str, store: Path, pg: str | None = None) -> None:
        self.kind = kind
        extra = ["--pg", pg] if pg else []
        self.process = subprocess.Popen(
            [sys.executable, __file__, "--serve", kind, "--store", str(store), *extra],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line.startswith("READY "):
            self.process.kill()
            raise SystemExit(f"the {kind} server did not start: {line!r}")
        self.port = int(line.split()[1])

    def stats(self) -> dict[str, object]:
        """The inbox writer's counters so far ({} for the bare handler)."""
        if self.kind == "bare":
            return {}
        assert self.process.stdout is not None
        self.process.send_signal(signal.SIGUSR1)
        line = self.process.stdout.readline()
        return dict(json.loads(line[6:])) if line.startswith("STATS ") else {}

    def stop(self) -> dict[str, object]:
        self.process.send_signal(signal.SIGTERM)
        out, _ = self.process.communicate(timeout=60)
        for line in out.splitlines():
            if line.startswith("STATS "):
                return dict(json.loads(line[6:]))
        return {}


def _measure_once(server: Server, connections: int, duration: float) -> Load:
    before, counters = process_cpu_s(server.process.pid), server.stats()
    load = asyncio.run(run_load(server.port, connections, duration))
    after, counters_after = process_cpu_s(server.process.pid), server.stats()
    if before is not None and after is not None:
        load.server_cpu_s = after - before
    if counters and counters_after:
        load.commits = int(str(counters_after["batches"])) - int(str(counters["batches"]))
    return load


def measure(
    kinds: list[str],
    connections: list[int],
    duration: float,
    warmup: float,
    rounds: int,
    pg: str | None = None,
) -> dict[str, dict[int, list[Load]]]:
    """Every kind's servers up at once, measured in turn: round after round, each connection
    count on each server, the order rotated every round, so that a neighbour's load on a
    shared machine falls on the baseline and the inbox alike."""
    results: dict[str, dict[int, list[Load]]] = {k: {n: [] for n in connections} for k in kinds}
    with contextlib.ExitStack() as stack:
        servers: dict[str, Server] = {}
        for kind in kinds:
            folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="inbox-bench-")))
            server = Server(kind, folder, pg if kind == "pg" else None)
            servers[kind] = server
            stack.callback(_report_stop, kind, server)
            asyncio.run(run_load(server.port, max(connections), warmup))
        for round_no in range(rounds):
            order = kinds[round_no % len(kinds) :] + kinds[: round_no % len(kinds)]
            for n in connections:
                for kind in order:
                    results[kind][n].append(_measure_once(servers[kind], n, duration))
                    if kind != "bare":
                        # The inbox indexes its new rows for search once idle: let it finish
                        # before the next server is measured, so that work is not theirs.
                        time.sleep(_SETTLE_S)
    return results


_SETTLE_S = 1.0


def _report_stop(kind: str, server: Server) -> None:
    stats = server.stop()
    if stats:
        batches = int(str(stats.get("batches", 0))) or 1
        rows = int(str(stats.get("rows", 0)))
        print(
            f"  [{kind}] {rows} rows in {batches} commits (mean batch {rows / batches:.1f}, "
            f"largest {stats.get('largest_batch')}), {stats.get('published')} events published"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=float, default=5.0, help="seconds per measurement")
    parser.add_argument("--warmup", type=float, default=1.0, help="seconds of warm-up per server")
    parser.add_argument("--connections", type=int, nargs="+", default=[10, 50])
    parser.add_argument(
        "--rounds", type=int, default=1, help="rounds of every server (medians over them)"
    )
    parser.add_argument(
        "--pg",
        metavar="URL",
        help="also measure the inbox on PostgreSQL: 'auto' (a private server) or an address",
    )
    parser.add_argument("--serve", choices=("bare", "full", "pg"), help=argparse.SUPPRESS)
    parser.add_argument("--store", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve:
        logging.basicConfig(level=logging.WARNING)
        asyncio.run(_serve(args.serve, Path(args.store), args.pg))
        return 0
    if not 0 < args.duration <= 60 or not 0 <= args.warmup <= 10:
        parser.error("--duration must be in (0, 60] and --warmup in [0, 10] seconds")
    if any(not 1 <= n <= 200 for n in args.connections):
        parser.error("--connections must be between 1 and 200")
    if not 1 <= args.rounds <= 10:
        parser.error("--rounds must be between 1 and 10")
    print(
        f"webhook inbox benchmark: {args.duration:g} s per run, {args.rounds} round(s), "
        f"connections {args.connections}, {os.cpu_count()} CPUs, loopback only; "
        f"load average {os.getloadavg()[0]:.2f} at start"
    )
    kinds = ["bare", "full"] + (["pg"] if args.pg else [])
    with _pg_store(args.pg) if args.pg else contextlib.nullcontext(None) as url:
        results = measure(kinds, args.connections, args.duration, args.warmup, args.rounds, url)
    report(results, args.connections)
    print(f"load average {os.getloadavg()[0]:.2f} at the end")
    return 0


_HEAD = (
    f"{'conns':>5}  {'path':<5} {'deliveries/s':>12} {'p50 ms':>8} {'p99 ms':>8} "
    f"{'errors':>6} {'cpu us/dlv':>10} {'batch':>6}   full/bare"
)


def _row(
    n: int,
    label: str,
    rate: float,
    p50: float,
    p99: float,
    errors: int,
    cpu: float | None,
    batch: float | None,
    ratio: float | None,
) -> str:
    cpu_text = f"{cpu:10.0f}" if cpu is not None else f"{'n/a':>10}"
    batch_text = f"{batch:6.1f}" if batch is not None else f"{'':>6}"
    ratio_text = f"{ratio:9.2f}" if ratio is not None else ""
    return (
        f"{n:>5}  {label:<5} {rate:>12.0f} {p50:>8.2f} {p99:>8.2f} {errors:>6} {cpu_text} "
        f"{batch_text}   {ratio_text}"
    )


def report(results: dict[str, dict[int, list[Load]]], connections: list[int]) -> None:
    """Every round's figures, then each figure's median over the rounds; ratios are taken
    within a round (inbox and bare handler measured back to back) before their median."""
    bare = results["bare"]
    rounds = len(bare[connections[0]])
    print()
    print("each round (the order of the servers rotates):")
    print("  round " + _HEAD)
    for n in connections:
        for i in range(rounds):
            b = bare[n][i]
            for label, loads in results.items():
                load = loads[n][i]
                ratio = load.rate / b.rate if label != "bare" and b.rate else None
                row = _row(
                    n,
                    label,
                    load.rate,
                    load.pct(0.50),
                    load.pct(0.99),
                    load.errors,
                    load.cpu_per_delivery_us,
                    load.mean_batch,
                    ratio,
                )
                print(f"  #{i + 1:<4} {row}")
    print()
    print(f"medians of {rounds} round(s):")
    print(_HEAD)
    ratios: dict[tuple[str, int], list[float]] = {}
    for n in connections:
        for label, loads in results.items():
            runs = loads[n]
            if label != "bare":
                ratios[label, n] = [
                    f.rate / b.rate for f, b in zip(runs, bare[n], strict=True) if b.rate
                ]
            cpus = [c for c in (r.cpu_per_delivery_us for r in runs) if c is not None]
            batches = [m for m in (r.mean_batch for r in runs) if m is not None]
            print(
                _row(
                    n,
                    label,
                    statistics.median(r.rate for r in runs),
                    statistics.median(r.pct(0.50) for r in runs),
                    statistics.median(r.pct(0.99) for r in runs),
                    sum(r.errors for r in runs),
                    statistics.median(cpus) if cpus else None,
                    statistics.median(batches) if batches else None,
                    statistics.median(ratios[label, n]) if label != "bare" else None,
                )
            )
    print()
    for n in connections:
        p99_goal = 25.0 if n >= 50 else 10.0 if n >= 10 else None
        for label, name in (("full", "full path"), ("pg", "PostgreSQL inbox")):
            if (label, n) not in ratios:
                continue
            share = statistics.median(ratios[label, n])
            p99 = statistics.median(r.pct(0.99) for r in results[label][n])
            per_round = ", ".join(f"{r:.0%}" for r in ratios[label, n])
            verdicts = [
                "throughput goal (>= 50% of bare) "
                + ("met" if share >= 0.5 else f"missed by {0.5 - share:.0%} of bare")
            ]
            if p99_goal is not None:
                verdicts.append(
                    f"p99 goal (<= {p99_goal:g} ms) "
                    + ("met" if p99 <= p99_goal else f"missed by {p99 - p99_goal:.1f} ms")
                )
            print(
                f"{n} connections: {name} {share:.0%} of bare throughput (per round "
                f"{per_round}), p99 {p99:.1f} ms; {'; '.join(verdicts)}; every ack followed a "
                + ("synchronous=FULL commit" if label == "full" else "commit durable at the server")
            )


@contextlib.contextmanager
def _pg_store(given: str) -> Iterator[str]:
    """The address to measure on: a private server started here for 'auto', else as given."""
    from checkout_desktop.store.postgres import db
    from checkout_desktop.store.postgres.address import StoreAddress

    if given != "auto":
        db.connect(StoreAddress.parse(given), None).close()
        yield given
        return
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from tests import pg_cluster

    root = Path(tempfile.mkdtemp(prefix="inbox-bench-pg-"))
    try:
        cluster = pg_cluster.start(root)
        db.connect(StoreAddress.parse(cluster.url), None).close()
        yield cluster.url
    finally:
        pg_cluster.stop(root)


if __name__ == "__main__":
    raise SystemExit(main())
