"""The event list's first paint over 1,000,000 events read from the shared PostgreSQL store.

Fills a database with N webhook events in one server-side statement (generate_series, no
client round trip per row), then opens the real EventsPanel offscreen on the store's async
ports (PgStore: every read on a worker thread, the qasync loop free meanwhile) and times, as
the median of --repeat panels:
- first paint: from building the panel to the table's first paint *with rows*;
- the longest the GUI thread was blocked meanwhile (one turn of the Qt event loop);
- one keyset page read through the port alone, and the same page with OFFSET, as baselines.
No goal is asserted here; the figures are printed beside the goals (≤ 100 ms, ≤ 50 ms).

    .venv/bin/python benchmarks/event_list_pg.py [--events 1000000] [--pg auto|URL] [--repeat 5]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Coroutine, Iterator
from pathlib import Path
from typing import Any, TypeVar

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication

from checkout_desktop.store.postgres import db, schema
from checkout_desktop.store.postgres.address import StoreAddress
from checkout_desktop.store.postgres.store import PgStore
from checkout_desktop.ui import loop as ui_loop
from checkout_desktop.ui.events_panel import EventsPanel

logger = logging.getLogger(__name__)

T = TypeVar("T")

FILL = """
INSERT INTO webhook_event (received_at, verdict, event_type, body_type, layout, event_ref,
    merchant_charge_id, charge_id, status, body_sha256, content_type, remote, headers_json,
    body, search_text)
SELECT
    to_char(timestamp '2026-03-01' + n * interval '2 seconds', 'YYYY-MM-DD"T"HH24:MI:SS.US')
        || '+00:00',
    (ARRAY['accepted','accepted','accepted','accepted','accepted','accepted','accepted',
           'accepted','accepted','accepted','accepted','accepted','accepted','accepted',
           'accepted','accepted','accepted','duplicate','unknown','quarantined'])[1 + n %% 20],
    'TransactionUpdateMessage', 'PAYMENT', 'envelope', 'evt-' || n,
    'charge-' || lpad(((n * 7919) %% 100000)::text, 6, '0'),
    'ch-' || lpad(((n * 7919) %% 100000)::text, 6, '0'),
    (ARRAY['PAID','PAID','PAID','PAID','PAID','PAID','PRE_AUTHORIZED','DENIED','REFUNDED',
           'PARTIAL'])[1 + n %% 10],
    md5(n::text) || md5((n + 1)::text), 'application/json', '127.0.0.1', '{}',
    convert_to('{"type":"PAYMENT","id":"evt-' || n || '","data":{"merchantChargeId":"charge-'
        || lpad(((n * 7919) %% 100000)::text, 6, '0') || '"}}', 'UTF8'),
    lower('evt-' || n || ' charge-' || lpad(((n * 7919) %% 100000)::text, 6, '0'))
FROM generate_series(%(first)s::bigint, %(last)s::bigint) AS n
"""


class PaintClock(QObject):
    """Notes when the table's viewport last painted."""

    def __init__(self) -> None:
        super().__init__()
        self.painted_at: float | None = None

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            self.painted_at = time.perf_counter()
        return False


def fill(url: str, events: int) -> int:
    """Bring the database to `events` deliveries (adding only what is missing)."""
    address = StoreAddress.parse(url)
    conn = db.connect(address, None)
    try:
        row = conn.execute("SELECT count(*) FROM webhook_event").fetchone()
        have = 0 if row is None else int(row[0])
        if have < events:
            began = time.monotonic()
            with conn.transaction():
                # Setup only: the benchmark reads, never writes.
                conn.execute("SET LOCAL synchronous_commit = off")
                conn.execute("DROP INDEX IF EXISTS webhook_event_search")
                conn.execute(FILL, {"first": have + 1, "last": events})
            conn.execute("ANALYZE webhook_event")
            conn.commit()
            with conn.transaction():
                conn.execute(schema.SEARCH_INDEX)
            conn.commit()
            print(f"filled {events - have:,} events in {time.monotonic() - began:.1f} s")
        row = conn.execute("SELECT count(*) FROM webhook_event").fetchone()
        return 0 if row is None else int(row[0])
    finally:
        conn.close()


def spin(app: QApplication, work: Coroutine[Any, Any, T]) -> T:
    """Run `work` on the qasync loop, Qt's events turning meanwhile (as the window does)."""
    task = asyncio.ensure_future(work)
    while not task.done():
        app.processEvents()
        time.sleep(0.0005)
    return task.result()


def first_paint(app: QApplication, store: PgStore) -> tuple[float, float, int]:
    """Build a panel; (ms to its first painted rows, longest loop turn in ms, rows shown)."""
    started = time.perf_counter()
    panel = EventsPanel(store.events)
    panel.resize(1280, 800)
    clock = PaintClock()
    panel.table.viewport().installEventFilter(clock)
    panel.show()
    model = panel.model
    longest = 0.0
    rows_at: float | None = None
    deadline = started + 60
    while True:
        tick = time.perf_counter()
        app.processEvents()
        longest = max(longest, time.perf_counter() - tick)
        if rows_at is None and model.rowCount() > 0:
            rows_at = time.perf_counter()
            clock.painted_at = None
        if rows_at is not None and clock.painted_at is not None:
            break
        if time.perf_counter() > deadline:
            raise RuntimeError("the table showed no rows within 60 s")
        time.sleep(0.0005)
    assert clock.painted_at is not None
    shown = model.rowCount()
    panel.close()
    panel.deleteLater()
    app.processEvents()
    return (clock.painted_at - started) * 1000, longest * 1000, shown


async def baselines(store: PgStore, url: str, total: int, repeat: int) -> tuple[float, float]:
    keyset, offset = [], []
    for _ in range(repeat):
        begin = time.perf_counter()
        await store.events.page(limit=200)
        keyset.append(time.perf_counter() - begin)

    def by_offset() -> None:
        conn = db.connect(StoreAddress.parse(url), None, migrate_schema=False)
        try:
            conn.execute(
                "SELECT * FROM webhook_event ORDER BY id DESC LIMIT 200 OFFSET %s", (total - 200,)
            ).fetchall()
        finally:
            conn.close()

    for _ in range(repeat):
        begin = time.perf_counter()
        await asyncio.to_thread(by_offset)
        offset.append(time.perf_counter() - begin)
    return statistics.median(keyset) * 1000, statistics.median(offset) * 1000


@contextlib.contextmanager
def _server(given: str) -> Iterator[str]:
    """The server to measure on: a private one for 'auto' (as the tests start), else as given."""
    if given != "auto":
        yield given
        return
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from tests import pg_cluster
    from tests.pg_fixtures import with_database

    root = Path(tempfile.mkdtemp(prefix="events-bench-pg-"))
    try:
        cluster = pg_cluster.start(root)
        import psycopg

        with psycopg.connect(cluster.url, autocommit=True) as admin:
            admin.execute("CREATE DATABASE bench_events")
        yield with_database(cluster.url, "bench_events")
    finally:
        pg_cluster.stop(root)


def main() -> int:
    parser = argparse.ArgumentParser(description="event list first paint on PostgreSQL")
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--pg", default="auto", help="'auto' (a private server) or a URL")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    if not 1000 <= args.events <= 5_000_000:
        parser.error("--events must be between 1,000 and 5,000,000")
    with _server(args.pg) as url:
        total = fill(url, args.events)
        app = QApplication(sys.argv[:1])
        with ui_loop.attached(app):
            store: PgStore = spin(app, PgStore.open(StoreAddress.parse(url), None))
            try:
                samples = [first_paint(app, store) for _ in range(args.repeat)]
                keyset_ms, offset_ms = spin(app, baselines(store, url, total, args.repeat))
            finally:
                spin(app, store.close())
    paints = [s[0] for s in samples]
    stalls = [s[1] for s in samples]
    print(f"event list over {total:,} events on PostgreSQL (offscreen, {args.repeat} panels)")
    print(
        f"  first paint with rows              {statistics.median(paints):8.1f} ms median, "
        f"{max(paints):.1f} ms worst   (goal ≤ 100 ms)"
    )
    print(
        f"  longest GUI-thread block           {statistics.median(stalls):8.1f} ms median, "
        f"{max(stalls):.1f} ms worst   (goal ≤ 50 ms)"
    )
    print(f"  rows in the first page             {samples[0][2]:8d}")
    print("baselines, same run:")
    print(f"  newest page through the port       {keyset_ms:8.2f} ms")
    print(f"  last page by OFFSET {total - 200:,}   {offset_ms:8.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
