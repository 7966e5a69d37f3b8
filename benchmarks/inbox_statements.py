"""The inbox writer's CPU per delivery, statement by statement, beside a bare durable insert.

Runs in this process, no HTTP: the notifications `webhook_inbox.py` sends (each a new charge,
PAID) are classified as the listener does, then handed to the real `InboxWriter` with the
ledger's applier on a fresh SQLite store, in batches of --batch (as concurrent senders fill
them). Each SQL statement the writer's connection runs is timed in CPU time of the thread that
runs it (the loop for the statements, the commit thread for COMMIT), grouped by its first words,
so what bounds the durable path is read without a sampling profiler's noise. The same run's
baseline is the least a durable inbox can do: the same bodies inserted into a table without
indexes, one BEGIN IMMEDIATE … COMMIT (`synchronous=FULL`, WAL) per batch, on the loop.

    .venv/bin/python benchmarks/inbox_statements.py [--deliveries 3000] [--batch 25] [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import _common
import webhook_inbox

from checkout_desktop.charges.ledger import inbox_applier
from checkout_desktop.domain.timestamps import utc_now
from checkout_desktop.inbox.intake import Intake, Received, classify
from checkout_desktop.inbox.writer import InboxWriter
from checkout_desktop.store.sqlite.db import connect
from checkout_desktop.store.sqlite.writer import SqliteDeliveryBatches

HEADERS = {"event-type": "TransactionUpdateMessage"}


class TimedConnection:
    """A connection whose `execute` adds its thread's CPU time to a tally by statement kind."""

    def __init__(self, conn: sqlite3.Connection, tally: collections.Counter[str]) -> None:
        self._conn = conn
        self._tally = tally
        self.counts: collections.Counter[str] = collections.Counter()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)

    def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:
        started = time.thread_time_ns()
        try:
            return self._conn.execute(sql, *args)
        finally:
            kind = " ".join(sql.split("(", 1)[0].split()[:4])[:60]
            self._tally[kind] += time.thread_time_ns() - started
            self.counts[kind] += 1


class TimedBatches(SqliteDeliveryBatches):
    """SQLite's half of the group commit with its connection's statements timed."""

    def __init__(self, path: Path, tally: collections.Counter[str]) -> None:
        super().__init__(path)
        self.tally = tally
        self.timed: TimedConnection | None = None

    def _open(self) -> sqlite3.Connection:
        self.timed = TimedConnection(super()._open(), self.tally)
        return self.timed  # type: ignore[return-value]  # stands in for the connection


def intakes(count: int) -> list[Intake]:
    return [
        classify(
            Received(
                webhook_inbox._body(n),
                HEADERS,
                utc_now(),
                "TransactionUpdateMessage",
                "application/json",
                "127.0.0.1",
            )
        )
        for n in range(count)
    ]


async def full_writer(
    items: list[Intake], batch: int, folder: Path, *, timed: bool = True
) -> tuple[float, TimedBatches | None]:
    """CPU seconds of this process to store `items` through the inbox writer (with each
    statement timed, or not: the timing's own wrapper costs a few µs a statement)."""
    batches: SqliteDeliveryBatches
    if timed:
        batches = TimedBatches(folder / "inbox.sqlite3", collections.Counter())
    else:
        batches = SqliteDeliveryBatches(folder / "untimed.sqlite3")
    writer = InboxWriter(batches, applier=inbox_applier, max_batch=batch)
    await writer.start()
    try:
        started = time.process_time()
        for at in range(0, len(items), batch):
            await asyncio.gather(*(writer.submit(item) for item in items[at : at + batch]))
        return time.process_time() - started, batches if timed else None
    finally:
        await writer.close()


def bare_inserts(items: list[Intake], batch: int, folder: Path) -> float:
    """CPU seconds to insert the same bodies into a table without indexes, durably per batch."""
    conn = connect(folder / "bare.sqlite3")
    try:
        conn.execute(
            "CREATE TABLE bare (id INTEGER PRIMARY KEY, received_at TEXT NOT NULL, body BLOB)"
        )
        started = time.process_time()
        for at in range(0, len(items), batch):
            conn.execute("BEGIN IMMEDIATE")
            conn.executemany(
                "INSERT INTO bare (received_at, body) VALUES (?, ?)",
                [(i.event.received_at.isoformat(), i.event.body) for i in items[at : at + batch]],
            )
            conn.execute("COMMIT")
        return time.process_time() - started
    finally:
        conn.close()


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deliveries", type=int, default=3000, help="deliveries per round")
    parser.add_argument("--batch", type=int, default=25, help="deliveries per commit")
    parser.add_argument("--rounds", type=int, default=3, help="rounds (medians across them)")
    args = parser.parse_args(argv)
    if not 1 <= args.deliveries <= 20_000 or not 1 <= args.batch <= 64:
        parser.error("--deliveries must be in [1, 20000] and --batch in [1, 64]")
    if not 1 <= args.rounds <= 10:
        parser.error("--rounds must be between 1 and 10")
    items = intakes(args.deliveries)
    n = args.deliveries
    full_us: list[float] = []
    untimed_us: list[float] = []
    bare_us: list[float] = []
    tally: collections.Counter[str] = collections.Counter()
    counts: collections.Counter[str] = collections.Counter()
    for round_no in range(args.rounds):
        with tempfile.TemporaryDirectory(prefix="inbox-statements-") as folder:
            # Alternate which goes first, so that drift on a shared machine hits both.
            if round_no % 2:
                bare_us.append(bare_inserts(items, args.batch, Path(folder)) / n * 1e6)
            cpu, batches = asyncio.run(full_writer(items, args.batch, Path(folder)))
            full_us.append(cpu / n * 1e6)
            untimed, _ = asyncio.run(full_writer(items, args.batch, Path(folder), timed=False))
            untimed_us.append(untimed / n * 1e6)
            if not round_no % 2:
                bare_us.append(bare_inserts(items, args.batch, Path(folder)) / n * 1e6)
            assert batches is not None
            assert batches.timed is not None
            tally.update(batches.tally)
            counts.update(batches.timed.counts)
    print(
        f"inbox writer, statement by statement: {n} deliveries in batches of {args.batch}, "
        f"{args.rounds} round(s)"
    )
    print(_common.machine_line())
    print(f"{'us CPU/dlv':>10} {'per dlv':>8}  statement (summed over the rounds)")
    rounds_n = n * args.rounds
    in_sql = 0.0
    for kind, ns in tally.most_common():
        in_sql += ns / rounds_n / 1000
        print(f"{ns / rounds_n / 1000:10.1f} {counts[kind] / rounds_n:8.2f}  {kind}")
    full, bare = statistics.median(full_us), statistics.median(bare_us)
    print(f"{in_sql:10.1f} {'':>8}  all statements")
    print(
        f"writer's CPU per delivery (process time, classification excluded): {full:.0f} us "
        f"(rounds {', '.join(f'{v:.0f}' for v in full_us)}); inside SQLite's statements "
        f"{in_sql / full:.0%}"
    )
    print(
        f"the same writer without the statements timed: {statistics.median(untimed_us):.0f} us "
        f"(rounds {', '.join(f'{v:.0f}' for v in untimed_us)})"
    )
    print(
        f"baseline, same run: one insert per body into a table without indexes, one durable "
        f"commit per batch: {bare:.0f} us (rounds {', '.join(f'{v:.0f}' for v in bare_us)}); "
        f"ratio {full / bare:.1f}x"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
