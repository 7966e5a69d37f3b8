"""Notifications from the sandbox, duplicated and reordered by its faults, end in the right state.

A small HTTPS receiver on localhost stands in for the inbox: it checks the token, parses the
body with the wire models and merges it through `ChargeRepository.apply_update`, exactly as
the inbox does. Two stores are fed: the terminal's (replies and notifications) and one that
only ever sees notifications, so the final states cannot come from the replies.
"""

from __future__ import annotations

import logging
import sqlite3
import ssl
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import pytest_asyncio
import trustme
from aiohttp import web

from checkout_desktop.domain.enums import ChargeStatus
from checkout_desktop.domain.state import Outcome
from checkout_desktop.domain.timestamps import utc_now
from checkout_desktop.domain.wire import (
    PaymentEnvelope,
    PaymentFlat,
    ThreeDsChallenge,
    parse_webhook,
    payment_update,
    three_ds_update,
)
from checkout_desktop.sandbox.server import SandboxConfig, SandboxServer
from checkout_desktop.store.sqlite.charges import ChargeRepository
from checkout_desktop.store.sqlite.db import connect, transaction
from tests.integration.charging_support import (
    APPROVED,
    BROWSER,
    DENIED,
    THREE_DS_FRICTIONLESS,
    SandboxAccess,
    card_token,
    charge_request,
    charging_stack,
    visa,
)
from tests.ledger_support import SyncLedger

logger = logging.getLogger(__name__)

WEBHOOK_TOKEN = "wh_test_token_0001"


@dataclass
class Receiver:
    stores: list[ChargeRepository] = field(default_factory=list)
    received: list[tuple[str, str | None, int | None]] = field(default_factory=list)
    refused: int = 0

    async def handle(self, request: web.Request) -> web.Response:
        if request.headers.get("Authorization") != WEBHOOK_TOKEN:
            self.refused += 1
            return web.json_response({"message": "wrong token"}, status=401)
        body = parse_webhook(await request.read())
        now = utc_now()
        if isinstance(body, PaymentFlat | PaymentEnvelope):
            update = payment_update(body, received_at=now)
            self.received.append(
                (update.merchant_charge_id, str(update.status), update.refunded_amount)
            )
            source = "webhook"
        elif isinstance(body, ThreeDsChallenge):
            update = three_ds_update(body, received_at=now)  # type: ignore[assignment]
            self.received.append((str(update.merchant_charge_id), "3DS", None))
            source = "3ds"
        else:
            return web.json_response({"message": "unknown type"}, status=400)
        for repo in self.stores:
            with transaction(repo.conn):
                SyncLedger(repo).apply_update(
                    update, source=source, source_ref=str(len(self.received))
                )
        return web.json_response({"ok": True})


@pytest_asyncio.fixture
async def receiver(tmp_path: Path) -> AsyncIterator[tuple[Receiver, str, Path]]:
    ca = trustme.CA()
    cert = ca.issue_cert("localhost")
    ca_file = tmp_path / "ca.pem"
    ca.cert_pem.write_to_path(str(ca_file))
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    cert.configure_cert(context)
    state = Receiver()
    app = web.Application()
    app.router.add_post("/hook", state.handle)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0, ssl_context=context)
    await site.start()
    port = runner.addresses[0][1]
    try:
        yield state, f"https://localhost:{port}/hook", ca_file
    finally:
        await runner.cleanup()


@pytest.fixture
def inbox_conn(tmp_path: Path) -> Iterator[sqlite3.Connection]:
    conn = connect(tmp_path / "inbox-only.sqlite3")
    try:
        yield conn
    finally:
        conn.close()


@pytest.mark.asyncio
async def test_duplicated_and_reordered_notifications_end_in_the_final_state(
    receiver: tuple[Receiver, str, Path], inbox_conn: sqlite3.Connection, tmp_path: Path
) -> None:
    hooks, url, ca_file = receiver
    server = SandboxServer(SandboxConfig(api_port=0, sdk_port=0, webhook_backoff_s=0.05))
    await server.start()
    try:
        server.configure_webhook(url, token=WEBHOOK_TOKEN, ca_file=ca_file, layout="alternate")
        server.faults.update(webhook_duplicate=True, webhook_reorder=True)
        access = SandboxAccess.of_server(server)
        inbox_only = ChargeRepository(inbox_conn)
        async with charging_stack(access, tmp_path / "terminal.sqlite3") as stack:
            hooks.stores = [stack.service.store.repo, inbox_only]
            paid = await stack.service.charge(
                sale_id="sale-a",
                request=charge_request(await card_token(access, APPROVED)),
                tenders=visa("1111"),
            )
            for _ in range(3):
                await stack.service.refund(paid.merchant_charge_id, 500)
            three_ds = await stack.service.three_ds.charge(
                sale_id="sale-b",
                request=charge_request(await card_token(access, THREE_DS_FRICTIONLESS)),
                tenders=visa("3063"),
                browser=BROWSER,
                fallback="refuse",
            )
            denied = await stack.service.charge(
                sale_id="sale-c",
                request=charge_request(await card_token(access, DENIED)),
                tenders=visa("0002"),
            )
            await server.webhooks_idle(60)

            expected = {
                paid.merchant_charge_id: (ChargeStatus.REFUNDED, 1500, None),
                three_ds.merchant_charge_id: (ChargeStatus.PAID, 0, "Approved"),
                denied.merchant_charge_id: (ChargeStatus.DENIED, 0, None),
            }
            for repo in (stack.service.store.repo, inbox_only):
                for mcid, (status, refunded, tds) in expected.items():
                    charge = repo.charge(mcid)
                    assert charge is not None, mcid
                    assert (charge.status, charge.refunded_amount or 0, charge.three_ds_status) == (
                        status,
                        refunded,
                        tds,
                    )
    finally:
        await server.stop()

    assert hooks.refused == 0
    refund_order = [r for m, s, r in hooks.received if m == paid.merchant_charge_id]
    # The faults really did their work: duplicates, and an order other than the real one.
    assert len(refund_order) == 2 * 4
    assert refund_order != sorted(refund_order, key=lambda r: r or 0)
    # Every delivered notification left a timeline row, applied or not, with its reason.
    delivered = [
        d
        for d in server.state.deliveries
        if d.merchant_charge_id == paid.merchant_charge_id and d.outcome == "delivered"
    ]
    rows = [e for e in inbox_only.timeline(paid.merchant_charge_id).items if e.source == "webhook"]
    assert len(rows) == len(delivered) == 8
    outcomes = {e.outcome for e in rows}
    assert Outcome.DUPLICATE.value in outcomes
    assert Outcome.APPLIED.value in outcomes
    assert all(e.reason for e in rows)
    tds_rows = [
        e for e in inbox_only.timeline(three_ds.merchant_charge_id).items if e.source == "3ds"
    ]
    assert len(tds_rows) == 2
    assert [e.outcome for e in tds_rows].count(Outcome.APPLIED.value) == 1
