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
        await listener.start()
        print(f"READY {listener.port}", flush=True)
        await stop.wait()
        await listener.stop()
        stats = {
            "batches": writer.stats.batches,
            "rows": writer.stats.rows,
            "largest_batch": writer.stats.largest_batch,
            "published": published,
        }
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

    @property
    def cpu_per_delivery_us(self) -> float | None:
        if self.server_cpu_s is None or not self.ok:
            return None
        return self.server_cpu_s / self.ok * 1e6

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

    def stop(self) -> dict[str, object]:
        self.process.send_signal(signal.SIGTERM)
        out, _ = self.process.communicate(timeout=60)
        for line in out.splitlines():
            if line.startswith("STATS "):
                return dict(json.loads(line[6:]))
        return {}


def measure(
    kind: str, connections: list[int], duration: float, warmup: float, pg: str | None = None
) -> dict[int, Load]:
    with tempfile.TemporaryDirectory(prefix="inbox-bench-") as folder:
        server = Server(kind, Path(folder), pg)
        try:
            asyncio.run(run_load(server.port, max(connections), warmup))
            results = {}
            for n in connections:
                before = process_cpu_s(server.process.pid)
                results[n] = asyncio.run(run_load(server.port, n, duration))
                after = process_cpu_s(server.process.pid)
                if before is not None and after is not None:
                    results[n].server_cpu_s = after - before
        finally:
            stats = server.stop()
        if stats:
            batches = int(str(stats.get("batches", 0))) or 1
            rows = int(str(stats.get("rows", 0)))
            print(
                f"  [{kind}] {rows} rows in {batches} commits (mean batch {rows / batches:.1f}, "
                f"largest {stats.get('largest_batch')}), {stats.get('published')} events published"
            )
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=float, default=5.0, help="seconds per measurement")
    parser.add_argument("--warmup", type=float, default=1.0, help="seconds of warm-up per server")
    parser.add_argument("--connections", type=int, nargs="+", default=[10, 50])
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
    print(
        f"webhook inbox benchmark: {args.duration:g} s per run, connections {args.connections}, "
        f"{os.cpu_count()} CPUs, loopback only"
    )
    bare = measure("bare", args.connections, args.duration, args.warmup)
    full = measure("full", args.connections, args.duration, args.warmup)
    pg: dict[int, Load] = {}
    if args.pg:
        with _pg_store(args.pg) as url:
            pg = measure("pg", args.connections, args.duration, args.warmup, url)
    print()
    print(
        f"{'conns':>5}  {'path':<5} {'deliveries/s':>12} {'p50 ms':>8} {'p99 ms':>8} "
        f"{'errors':>6} {'cpu us/dlv':>10}   full/bare"
    )
    for n in args.connections:
        b, f = bare[n], full[n]
        rows = [("bare", b), ("full", f)] + ([("pg", pg[n])] if n in pg else [])
        for label, load in rows:
            ratio = f"{load.rate / b.rate:9.2f}" if label != "bare" and b.rate else ""
            cpu = load.cpu_per_delivery_us
            shown = f"{cpu:10.0f}" if cpu is not None else f"{'n/a':>10}"
            print(
                f"{n:>5}  {label:<5} {load.rate:>12.0f} {load.pct(0.50):>8.2f} "
                f"{load.pct(0.99):>8.2f} {load.errors:>6} {shown}   {ratio}"
            )
    print()
    for n in args.connections:
        b, f = bare[n], full[n]
        mean = statistics.fmean(f.latencies) * 1000 if f.latencies else float("nan")
        print(
            f"{n} connections: full path {f.rate / b.rate:.0%} of bare throughput, "
            f"p99 {f.pct(0.99):.1f} ms (mean {mean:.1f} ms); every full-path ack was durable"
        )
        if n in pg:
            p = pg[n]
            print(
                f"{n} connections: PostgreSQL inbox {p.rate / b.rate:.0%} of bare throughput, "
                f"p99 {p.pct(0.99):.1f} ms; every ack after a commit durable at the server"
            )
    return 0


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
