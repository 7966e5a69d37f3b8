"""Paid QR to screen: from a paid QR's notification leaving the client to "Paid" painted on the
shop's QR panel and on the customer display, under a steady load of other notifications.

The terminal's real path runs in this process on one qasync loop, offscreen: the webhook
listener, the group-committing writer (durable commit, merge into the charge), the event bus,
the one Qt adapter, a read of the charge through the store port (as the charge screen does), the
QR panel and the customer display, and the live event list with its 30 ms coalescing. The store
holds QR charges awaiting payment; the panel and the display show one of them at a time. A load
generator in its own process POSTs notifications at a steady rate (default 200/s for 10 s):
every 40th is "QR k paid" (a wallet: AUTHORIZED with its transaction CAPTURED; five a second at
200/s), the rest are card payments. When "Paid" has been painted on both windows the next QR is
shown.

Printed: p50/p99/max of POST → "Paid" painted on the panel, on the display, and on both; beside
it, in the same run, POST → row painted in the event list (the receipt-to-screen figure) and
POST → acknowledged (the inbox alone); QRs whose payment arrived before the previous one was
painted (missed); the longest main-thread stall.

    .venv/bin/python benchmarks/qr_paid_to_screen.py [--rate 200] [--seconds 10]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common

logger = logging.getLogger(__name__)

TOKEN = "bench-webhook-token"
PATH = "/webhooks/checkout"
EVERY = 40
"""One delivery in EVERY is a paid QR (five a second at 200/s); the rest are card payments."""
EVENT_DATE = "2026-03-01T09:00:05-03:00"


def qr_id(k: int) -> str:
    return f"qrb-{k:06d}-01"


def body(n: int) -> bytes:
    if n % EVERY == 0:
        k = n // EVERY
        data = {
            "status": "AUTHORIZED",
            "amount": 2590,
            "originalAmount": 2590,
            "refundedAmount": 0,
            "merchantChargeId": qr_id(k),
            "paymentSource": "GATEWAY",
            "lateCapture": False,
            "transactions": [
                {
                    "paymentType": "WALLET",
                    "transactionId": f"tq-{k}",
                    "status": "CAPTURED",
                    "amount": 2590,
                    "createdAt": "2026-03-01T09:00:00-03:00",
                    "updatedAt": EVENT_DATE,
                    "wallet": {"qrCode": f"picpay://picpay/checkout/{k}"},
                }
            ],
        }
    else:
        data = {
            "status": "PAID",
            "amount": 1500,
            "originalAmount": 1500,
            "refundedAmount": 0,
            "merchantChargeId": f"qrbg-{os.getpid()}-{n:09d}",
            "paymentSource": "GATEWAY",
            "lateCapture": False,
            "transactions": [
                {
                    "paymentType": "CREDIT",
                    "transactionId": f"t-{n}",
                    "status": "CAPTURED",
                    "amount": 1500,
                    "createdAt": "2026-03-01T08:59:59.123456789",
                    "credit": {"brand": "VISA", "nsu": "123"},
                }
            ],
        }
    return json.dumps(
        {
            "type": "PAYMENT",
            "eventDate": EVENT_DATE,
            "merchantDocument": "30155515000121",
            "id": f"evt-{n:09d}",
            "merchantCode": "12345",
            "data": data,
        }
    ).encode()


def waiting_reply(k: int) -> dict[str, object]:
    created = datetime.now(UTC)
    return {
        "merchantChargeId": qr_id(k),
        "id": f"ch-{k}",
        "chargeStatus": "PRE_AUTHORIZED",
        "amount": 2590,
        "refundedAmount": 0,
        "transactions": [
            {
                "paymentType": "WALLET",
                "transactionId": f"tq-{k}",
                "transactionStatus": "PENDING",
                "amount": 2590,
                "createdAt": "2026-03-01T09:00:00-03:00",
                "wallet": {
                    "qrCode": f"picpay://picpay/checkout/{k}",
                    "expiresAt": (created + timedelta(minutes=4)).isoformat(),
                },
            }
        ],
    }


# -- load generator (its own process) -------------------------------------------------------------


async def generate(port: int, rate: float, seconds: float) -> None:
    import httpx

    total = int(rate * seconds)
    sent: dict[str, float] = {}
    acked: dict[str, float] = {}
    errors = 0
    limits = httpx.Limits(max_connections=20, max_keepalive_connections=20)
    await asyncio.sleep(0.5)
    async with httpx.AsyncClient(limits=limits, timeout=10.0) as client:
        start = time.perf_counter()

        async def one(n: int) -> None:
            nonlocal errors
            ref = f"evt-{n:09d}"
            sent[ref] = time.time()
            try:
                response = await client.post(
                    f"http://127.0.0.1:{port}{PATH}",
                    content=body(n),
                    headers={
                        "Authorization": TOKEN,
                        "event-type": "TransactionUpdateMessage",
                        "Content-Type": "application/json",
                    },
                )
            except Exception:
                errors += 1
                return
            if response.status_code // 100 == 2:
                acked[ref] = time.time()
            else:
                errors += 1

        tasks = []
        for n in range(total):
            delay = start + n / rate - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            tasks.append(asyncio.create_task(one(n)))
        await asyncio.gather(*tasks)
    print(json.dumps({"sent": sent, "acked": acked, "errors": errors}), flush=True)


# -- the terminal side ----------------------------------------------------------------------------


async def measure(rate: float, seconds: float, gc_mode: str) -> dict[str, object]:
    # The run's store goes with it: repeated runs leave nothing in the temporary folder.
    with tempfile.TemporaryDirectory(prefix="checkout-bench-qr-") as scratch:
        return await _measure_in(Path(scratch), rate, seconds, gc_mode)


async def _measure_in(folder: Path, rate: float, seconds: float, gc_mode: str) -> dict[str, object]:
    from pydantic import SecretStr
    from PySide6.QtCore import QEvent, QObject, QTimer

    from checkout_desktop.charges.ledger import Ledger, inbox_applier
    from checkout_desktop.charges.views import ChargeViews
    from checkout_desktop.domain.charge_events import ChargeChanged
    from checkout_desktop.domain.events import EventBus
    from checkout_desktop.domain.qr import QrPhase
    from checkout_desktop.domain.records import ChargeRecord
    from checkout_desktop.domain.timestamps import utc_now
    from checkout_desktop.domain.wire import ChargeReply
    from checkout_desktop.inbox.listener import WebhookListener
    from checkout_desktop.inbox.writer import InboxWriter
    from checkout_desktop.settings import ListenerSettings
    from checkout_desktop.store.sqlite import db
    from checkout_desktop.store.sqlite.store import SqliteStore
    from checkout_desktop.ui.adapter import QtEventAdapter
    from checkout_desktop.ui.customer_display import CustomerDisplay, CustomerView
    from checkout_desktop.ui.events_panel import EventsPanel
    from checkout_desktop.ui.loop import read
    from checkout_desktop.ui.qr_panel import QrPanel, QrView

    path = folder / "store.sqlite3"
    conn = db.connect(path)
    store = SqliteStore(conn)
    views = ChargeViews(store)
    ledger = Ledger(store)
    qr_count = int(rate * seconds) // EVERY + 1
    for k in range(qr_count):
        reply = ChargeReply.model_validate(waiting_reply(k))
        async with store.unit_of_work() as uow:
            await ledger.apply_update(
                uow.charges,
                reply.update(source="reply", received_at=utc_now()),
                source="reply",
                source_ref=None,
            )

    bus = EventBus()
    writer = InboxWriter(path, bus=bus, applier=inbox_applier)
    listener = WebhookListener(
        ListenerSettings(port=0, path=PATH), token=SecretStr(TOKEN), writer=writer, bus=bus
    )
    await listener.start()
    adapter = QtEventAdapter(bus)
    events_panel = EventsPanel(SqliteStore(db.connect(path)).events)
    events_panel.resize(1280, 500)
    events_panel.show()
    adapter.webhook_stored.connect(lambda event: events_panel.notify_stored(event.event_id))
    panel = QrPanel()
    panel.resize(900, 400)
    panel.show()
    display = CustomerDisplay(shop_name="Loja Benchmark")
    # The customer's own monitor, as a second screen shows it (offscreen has one screen, on
    # which the terminal would not open the display at all).
    display.resize(1024, 768)
    display.show()

    current = [0]
    paid_painted: dict[str, dict[str, float]] = {"panel": {}, "display": {}}
    waiting_paint: dict[str, str | None] = {"panel": None, "display": None}
    missed: list[int] = []

    def show(k: int) -> None:
        def got(record: ChargeRecord | None) -> None:
            if record is None:
                return
            view = panel.show_record(record)
            display.show_view(CustomerView("qr", record.amount, view or QrView.of(record)))

        read(views.charge(qr_id(k)), got)

    def on_changed(event: ChargeChanged) -> None:
        mcid = event.merchant_charge_id
        if not mcid.startswith("qrb-"):
            return
        k = int(mcid.split("-")[1])
        if k != current[0]:
            missed.append(k)
            return

        def got(record: ChargeRecord | None) -> None:
            if record is None:
                return
            view = panel.show_record(record)
            if view is None or view.phase != QrPhase.PAID:
                return
            waiting_paint["panel"] = mcid
            display.show_view(CustomerView("qr", record.amount, view))
            waiting_paint["display"] = mcid

        read(views.charge(mcid), got)

    adapter.charge_changed.connect(on_changed)

    def both_painted(mcid: str) -> None:
        # Both windows' watchers call this; only the first call for the QR shown moves on (two
        # calls after one shared paint would otherwise skip the next QR).
        if (
            mcid == qr_id(current[0])
            and mcid in paid_painted["panel"]
            and mcid in paid_painted["display"]
        ):
            current[0] += 1
            QTimer.singleShot(0, lambda: show(current[0]))

    class PaintWatch(QObject):
        def __init__(self, which: str) -> None:
            super().__init__()
            self.which = which

        def eventFilter(self, watched: QObject, event: QEvent) -> bool:
            mcid = waiting_paint[self.which]
            if event.type() == QEvent.Type.Paint and mcid is not None:
                paid_painted[self.which].setdefault(mcid, time.time())
                waiting_paint[self.which] = None
                QTimer.singleShot(0, lambda: both_painted(mcid))
            return False

    panel_watch = PaintWatch("panel")
    display_watch = PaintWatch("display")
    panel.status.installEventFilter(panel_watch)
    display.message.installEventFilter(display_watch)

    # The event list's rows, as receipt_to_screen.py measures them (the baseline).
    model = events_panel.model
    unpainted: list[str] = []
    row_painted: dict[str, float] = {}

    def inserted(_parent: object, first: int, last: int) -> None:
        for row in range(first, last + 1):
            summary = model.summary(row)
            if summary is not None and summary.event_ref:
                unpainted.append(summary.event_ref)

    model.rowsInserted.connect(inserted)

    class RowWatch(QObject):
        def eventFilter(self, watched: QObject, event: QEvent) -> bool:
            if event.type() == QEvent.Type.Paint and unpainted:
                now = time.time()
                for ref in unpainted:
                    row_painted.setdefault(ref, now)
                unpainted.clear()
            return False

    row_watch = RowWatch()
    events_panel.table.viewport().installEventFilter(row_watch)

    lateness: list[float] = []
    last_tick = [time.perf_counter()]
    ticker = QTimer()
    ticker.setInterval(2)

    def tick() -> None:
        now = time.perf_counter()
        lateness.append(now - last_tick[0] - 0.002)
        last_tick[0] = now

    ticker.timeout.connect(tick)
    show(0)
    await asyncio.sleep(0.3)
    _common.before_load(gc_mode)
    generator = await asyncio.create_subprocess_exec(
        sys.executable,
        __file__,
        "--generate",
        str(listener.port),
        "--rate",
        str(rate),
        "--seconds",
        str(seconds),
        stdout=asyncio.subprocess.PIPE,
    )
    last_tick[0] = time.perf_counter()
    ticker.start()
    out, _ = await generator.communicate()
    await asyncio.sleep(0.5)
    ticker.stop()
    result = json.loads(out.decode().strip().splitlines()[-1])
    await listener.stop()
    panel.close()
    display.close()
    events_panel.close()
    adapter.close()
    conn.close()
    sent: dict[str, float] = result["sent"]
    acked: dict[str, float] = result["acked"]
    qr_refs = {qr_id(n // EVERY): f"evt-{n:09d}" for n in range(0, len(sent), EVERY)}
    to_panel, to_display, to_both = [], [], []
    for mcid, ref in qr_refs.items():
        if ref not in sent:
            continue
        a = paid_painted["panel"].get(mcid)
        b = paid_painted["display"].get(mcid)
        if a is not None:
            to_panel.append(a - sent[ref])
        if b is not None:
            to_display.append(b - sent[ref])
        if a is not None and b is not None:
            to_both.append(max(a, b) - sent[ref])
    qr_sent = [ref for ref in qr_refs.values() if ref in sent]
    return {
        "sent": len(sent),
        "acked": len(acked),
        "errors": result["errors"],
        "qr_sent": len(qr_sent),
        "to_panel": to_panel,
        "to_display": to_display,
        "to_both": to_both,
        "to_row": [row_painted[r] - sent[r] for r in sent if r in row_painted],
        "to_ack": [acked[r] - sent[r] for r in qr_sent if r in acked],
        "missed": len(missed),
        "stall": max(lateness) if lateness else 0.0,
    }


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description="paid QR to screen latency")
    parser.add_argument("--rate", type=float, default=200.0)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument(
        "--gc",
        choices=_common.GC_MODES,
        default="settled",
        help="how cycles are collected (default: as the terminal does)",
    )
    parser.add_argument("--generate", type=int, metavar="PORT", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if not 1 <= args.rate <= 2000 or not 1 <= args.seconds <= 60:
        parser.error("--rate must be 1–2000 and --seconds 1–60")
    if args.generate is not None:
        asyncio.run(generate(args.generate, args.rate, args.seconds))
        return 0

    from PySide6.QtWidgets import QApplication

    from checkout_desktop.ui import loop

    app = QApplication(sys.argv[:1])
    _common.collect_as_the_terminal(app, args.gc)
    figures = loop.run(measure(args.rate, args.seconds, args.gc), app=app)
    print(
        f"paid QR to screen at {args.rate:g} deliveries/s for {args.seconds:g} s (sent "
        f"{figures['sent']}, acknowledged {figures['acked']}, paid QRs {figures['qr_sent']}, "
        f"errors {figures['errors']}, QRs paid before the previous one was painted "
        f"{figures['missed']})"
    )
    for label, key, note in (
        ("POST → Paid on panel  ", "to_panel", ""),
        ("POST → Paid on display", "to_display", ""),
        ("POST → Paid on both   ", "to_both", "   (goal p99 ≤ 50 ms)"),
        ("POST → row painted    ", "to_row", "   (baseline: receipt to screen, same run)"),
        ("POST → acknowledged   ", "to_ack", "   (baseline: the inbox alone, paid QRs)"),
    ):
        values = figures[key]
        assert isinstance(values, list)
        print(
            f"  {label} p50 {pct(values, 0.5):6.1f} ms   p99 {pct(values, 0.99):6.1f} ms   "
            f"max {max(values, default=0) * 1000:6.1f} ms   (n={len(values)}){note}"
        )
    stall = figures["stall"]
    assert isinstance(stall, float)
    print(f"  longest main-thread stall {stall * 1000:6.1f} ms   (goal ≤ 50 ms)")
    to_both = figures["to_both"]
    assert isinstance(to_both, list)
    print(_common.goal_line("POST → Paid on both, p99", pct(to_both, 0.99), 50, "ms"))
    print(_common.goal_line("longest main-thread stall", stall * 1000, 50, "ms"))
    print(_common.machine_line())
    return 0


if __name__ == "__main__":
    sys.exit(main())
