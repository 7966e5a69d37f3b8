"""A notification the inbox accepts for a charge this terminal never made says so in the event
list, and where that charge is shown (History › Other environments), on either store: the
owner must not read it as a first status of one of the shop's own sales."""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest
from pydantic import SecretStr
from pytestqt.qtbot import QtBot

from checkout_desktop.charges.ledger import inbox_applier
from checkout_desktop.domain.reasons import ReasonCode
from checkout_desktop.domain.records import CardSummary
from checkout_desktop.inbox.listener import WebhookListener
from checkout_desktop.inbox.writer import InboxWriter
from checkout_desktop.settings import ListenerSettings
from checkout_desktop.store.ports import DeliveryBatches, EventReads
from checkout_desktop.store.sqlite import db
from checkout_desktop.store.sqlite.charges import ChargeRepository
from checkout_desktop.store.sqlite.store import SqliteStore
from checkout_desktop.ui.events_panel import EventsPanel

logger = logging.getLogger(__name__)

TOKEN = "whk_unmade_0123456789abcdef0123"
UNMADE = "venda-que-nao-existe"
OURS = "caixa1-000042"


def payment(mcid: str, status: str, n: int) -> dict[str, Any]:
    return {
        "type": "PAYMENT",
        "eventDate": f"2026-03-01T09:00:{n:02d}-03:00",
        "id": f"evt-{mcid}-{n}",
        "merchantCode": "12345",
        "merchantDocument": "30155515000121",
        "data": {
            "status": status,
            "merchantChargeId": mcid,
            "amount": 5000,
            "refundedAmount": 5000 if status == "REFUNDED" else 0,
            "transactions": [],
        },
    }


@pytest.fixture(params=["sqlite", pytest.param("pg", marks=pytest.mark.pg)])
def store_kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@contextlib.asynccontextmanager
async def terminal_store(
    kind: str, tmp_path: Path, request: pytest.FixtureRequest
) -> AsyncIterator[tuple[DeliveryBatches | Path, EventReads]]:
    """The inbox's half of a store (with one sale of this terminal recorded) and the event
    list's reads of it."""
    if kind == "sqlite":
        path = tmp_path / "store.sqlite3"
        conn = db.connect(path)
        try:
            with db.transaction(conn):
                ChargeRepository(conn).record_attempt(
                    merchant_charge_id=OURS,
                    sale_id="S-42",
                    profile="production",
                    amount=5000,
                    tenders=[CardSummary("VISA", "1111")],
                )
            yield path, SqliteStore(conn).events
        finally:
            conn.close()
        return
    from checkout_desktop.store.postgres import db as pg_db
    from checkout_desktop.store.postgres.address import StoreAddress
    from checkout_desktop.store.postgres.charges import PgChargeRepository
    from checkout_desktop.store.postgres.store import PgStore
    from checkout_desktop.store.postgres.writer import PgDeliveryBatches

    url = str(request.getfixturevalue("pg_url"))
    address = StoreAddress.parse(url)
    pg_db.connect(address, None).close()
    with psycopg.connect(url, autocommit=True) as setup, setup.transaction():
        PgChargeRepository(setup).record_attempt(
            merchant_charge_id=OURS,
            sale_id="S-42",
            profile="production",
            amount=5000,
            tenders=[CardSummary("VISA", "1111")],
        )
    store = await PgStore.open(address, None)
    try:
        yield PgDeliveryBatches(address, None), store.events
    finally:
        await store.close()


async def deliver(batches: DeliveryBatches | Path, bodies: list[dict[str, Any]]) -> None:
    """Post each body, in order, to a real inbox (listener, writer, the ledger's applier)."""
    writer = InboxWriter(batches, applier=inbox_applier)
    listener = WebhookListener(ListenerSettings(port=0), token=SecretStr(TOKEN), writer=writer)
    url = await listener.start()
    try:
        async with httpx.AsyncClient(timeout=10) as client:
            for body in bodies:
                response = await client.post(
                    url,
                    content=json.dumps(body).encode(),
                    headers={
                        "Content-Type": "application/json",
                        "event-type": "TransactionUpdateMessage",
                        "Authorization": TOKEN,
                    },
                )
                assert response.status_code == 200, response.text
                assert response.json()["verdict"] == "accepted"
    finally:
        await listener.stop()


def _shown(qtbot: QtBot, panel: EventsPanel, row: int) -> tuple[str, str]:
    """The row's reason column and the detail's text once the row is chosen."""
    model = panel.model
    reason = str(model.data(model.index(row, model.columnCount() - 1)) or "")
    summary = model.summary(row)
    assert summary is not None
    panel.table.selectRow(row)
    qtbot.waitUntil(lambda: panel.detail.shown_id == summary.id, timeout=5000)
    return reason, panel.detail.summary.text()


def test_a_notification_for_a_charge_this_terminal_never_made_says_so_and_where_to_see_it(
    qtbot: QtBot,
    arun: Callable[..., Any],
    tmp_path: Path,
    store_kind: str,
    request: pytest.FixtureRequest,
    pt_br: None,
) -> None:
    stack = contextlib.AsyncExitStack()
    batches, events = arun(stack.enter_async_context(terminal_store(store_kind, tmp_path, request)))
    try:
        arun(
            deliver(
                batches,
                [
                    payment(UNMADE, "PAID", 1),
                    payment(OURS, "PAID", 2),
                    payment(UNMADE, "REFUNDED", 3),
                ],
            ),
            timeout=20000,
        )
        panel = EventsPanel(events)
        qtbot.addWidget(panel)
        panel.show()
        qtbot.waitUntil(lambda: panel.model.rowCount() == 3, timeout=5000)
        # Newest first: the refund of the unknown charge, the terminal's own sale, its payment.
        summaries = [panel.model.summary(r) for r in range(3)]
        assert [s.merchant_charge_id for s in summaries if s] == [UNMADE, OURS, UNMADE]

        first_row, first_detail = _shown(qtbot, panel, 2)
        later_row, later_detail = _shown(qtbot, panel, 0)
        ours_row, ours_detail = _shown(qtbot, panel, 1)
        logger.info("shown: %r", (first_row, later_row, ours_row, first_detail))
        where = "veja em Histórico › Outros ambientes"
        for text in (first_row, first_detail, later_row, later_detail):
            assert "cobrança que este terminal não fez" in text, text
            assert where in text, text
        # Not worded as the first status of one of the shop's own sales.
        assert "primeiro status" not in first_row + first_detail
        assert "Paga" in first_row
        assert "Estornad" in later_row
        # The terminal's own sale is told as before.
        assert "não fez" not in ours_row + ours_detail
        assert ours_row.startswith("atualizou a cobrança"), ours_row
        # What the inbox did, in the detail's first sentence.
        for detail in (first_detail, later_detail):
            assert "Aceita: guardada; é de uma cobrança que este terminal não fez." in detail
        assert "Aceita: guardada e usada para atualizar a cobrança." in ours_detail
        # Stored as a reason of its own, so any later reader words it in its own language.
        codes = [s.merge_data.code if s and s.merge_data else None for s in summaries]
        assert codes[1] == ReasonCode.INBOX_APPLIED
        assert ReasonCode.INBOX_APPLIED not in (codes[0], codes[2])
    finally:
        arun(stack.aclose())
