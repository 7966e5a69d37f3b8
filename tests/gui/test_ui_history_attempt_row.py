"""The history's row of a sale follows its attempt: a row that holds only a 3DS result turns
"not charged" when the attempt ends, without a reload."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from checkout_desktop.charges.views import ChargeViews
from checkout_desktop.domain.charge_events import AttemptChanged
from checkout_desktop.domain.events import EventBus
from checkout_desktop.domain.reasons import Reason, ReasonCode
from checkout_desktop.domain.shown_status import ShownStatus
from checkout_desktop.domain.state import AttemptState
from checkout_desktop.store.sqlite.charges import ChargeRepository
from checkout_desktop.store.sqlite.db import connect, transaction
from checkout_desktop.store.sqlite.store import SqliteStore
from checkout_desktop.ui.adapter import QtEventAdapter
from checkout_desktop.ui.history_model import shown_status_text
from checkout_desktop.ui.history_panel import HistoryPanel
from tests.gui.test_ui_history_model import bank_refused, three_ds_sale
from tests.integration.charging_support import offline_service

logger = logging.getLogger(__name__)

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


@pytest.fixture
def panel_parts(tmp_path: Path, qtbot: Any) -> Iterator[tuple[HistoryPanel, SqliteStore, EventBus]]:
    conn = connect(tmp_path / "s.sqlite3")
    store = SqliteStore(conn)
    bus = EventBus()
    # Nothing here is sent: the panel only reads the store.
    http = httpx.AsyncClient(trust_env=False)
    service = offline_service(store, http, profile="builtin-sandbox", events=bus)
    adapter = QtEventAdapter(bus)
    panel = HistoryPanel(
        service=service, views=ChargeViews(store), adapter=adapter, pin_hash=lambda: None
    )
    qtbot.addWidget(panel)
    try:
        yield panel, store, bus
    finally:
        adapter.close()
        conn.close()


def _status_of(panel: HistoryPanel, mcid: str) -> str | None:
    model = panel.model
    row = model.row_of(mcid)
    if row is None:
        return None
    text = model.data(model.index(row, model.COLUMNS.index("status")))
    return None if text is None else str(text)


def _refused_while_open(repo: ChargeRepository, mcid: str, amount: int) -> None:
    """The bank's refusal arrives, and makes the row, while the sale's attempt is still open."""
    with transaction(repo.conn):
        three_ds_sale(repo, mcid, amount=amount, last_four="3220")
        bank_refused(repo, mcid)


def _attempt_ends(repo: ChargeRepository, bus: EventBus, mcid: str) -> None:
    """The settings refuse a card without 3DS: the attempt ends, and the core says so."""
    why = Reason.of(ReasonCode.TDS_REFUSED, status="REJECTED", why="rejected")
    with transaction(repo.conn):
        repo.set_attempt_state(mcid, AttemptState.REJECTED, source="system", reason=why)
    bus.publish(
        AttemptChanged(
            merchant_charge_id=mcid, sale_id=f"S-{mcid}", state=AttemptState.REJECTED, reason=why
        )
    )


def test_a_3ds_row_turns_not_charged_when_its_attempt_ends(
    panel_parts: tuple[HistoryPanel, SqliteStore, EventBus], qtbot: Any
) -> None:
    panel, store, bus = panel_parts
    repo = store.repo
    _refused_while_open(repo, "tds-1", 7002)
    panel.model.refresh()
    qtbot.waitUntil(lambda: panel.model.row_of("tds-1") is not None, timeout=5000)
    assert _status_of(panel, "tds-1") == shown_status_text(None)
    assert panel.select_charge("tds-1")
    qtbot.waitUntil(lambda: len(panel.timeline.records()) == 2, timeout=5000)
    _attempt_ends(repo, bus, "tds-1")
    refused = "Not charged — 3DS authentication refused"
    qtbot.waitUntil(lambda: _status_of(panel, "tds-1") == refused, timeout=5000)
    # The timeline shown gains the attempt's end as it happens.
    qtbot.waitUntil(lambda: len(panel.timeline.records()) == 3, timeout=5000)
    assert panel.timeline.records()[-1].new_status == AttemptState.REJECTED.value

    # Filtered to "not charged" before the attempt ends, the list gains the row when it does.
    _refused_while_open(repo, "tds-2", 7003)
    box = panel.status_filter
    box.setCurrentIndex(box.findData(ShownStatus.NOT_CHARGED.value))
    qtbot.waitUntil(lambda: panel.model.row_of("tds-1") is not None, timeout=5000)
    assert panel.model.row_of("tds-2") is None
    _attempt_ends(repo, bus, "tds-2")
    qtbot.waitUntil(lambda: _status_of(panel, "tds-2") == refused, timeout=5000)
