"""Charge history and timeline models: keyset paging, live refresh, qtmodeltester."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.modeltest import ModelTester

from checkout_desktop.charges.views import ChargeViews
from checkout_desktop.domain.enums import ChargeStatus, TransactionStatus
from checkout_desktop.domain.reasons import Reason, ReasonCode
from checkout_desktop.domain.records import CardSummary
from checkout_desktop.domain.shown_status import ShownStatus
from checkout_desktop.domain.state import AttemptState
from checkout_desktop.domain.wire import ChargeUpdate, CreditInfo, TransactionInfo
from checkout_desktop.store.sqlite import db
from checkout_desktop.store.sqlite.charges import ChargeRepository
from checkout_desktop.store.sqlite.store import SqliteStore
from checkout_desktop.ui.formatting import format_money
from checkout_desktop.ui.history_model import (
    MERCHANT_CHARGE_ID_ROLE,
    ChargeHistoryModel,
    TimelineModel,
)
from tests.integration.test_store_environments import bank_refusal
from tests.ledger_support import SyncLedger

ForegroundRole = Qt.ItemDataRole.ForegroundRole

logger = logging.getLogger(__name__)

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


@pytest.fixture
def repo(tmp_path: Path) -> Iterator[ChargeRepository]:
    conn = db.connect(tmp_path / "store.sqlite3")
    try:
        yield ChargeRepository(conn)
    finally:
        conn.close()


def update(mcid: str, status: ChargeStatus, *, minutes: int = 0, refunded: int = 0) -> ChargeUpdate:
    txn_status = {
        ChargeStatus.PAID: TransactionStatus.PAID,
        ChargeStatus.REFUNDED: TransactionStatus.REFUNDED,
        ChargeStatus.PRE_AUTHORIZED: TransactionStatus.PRE_AUTHORIZED,
    }.get(status, TransactionStatus.DENIED)
    return ChargeUpdate(
        merchant_charge_id=mcid,
        charge_id=f"svc-{mcid}",
        status=status,
        amount=1500,
        refunded_amount=refunded,
        transactions=[
            TransactionInfo(
                transactionId=f"t-{mcid}",
                transactionStatus=txn_status,
                amount=1500,
                credit=CreditInfo(
                    brand="VISA", cardNumber="411111******1111", authorizationCode="A1", nsu="9"
                ),
            )
        ],
        occurred_at=T0 + timedelta(minutes=minutes),
        source="api",
    )


def make_charges(repo: ChargeRepository, count: int, *, prefix: str = "sale") -> list[str]:
    ids = []
    with db.transaction(repo.conn):
        for n in range(count):
            mcid = f"{prefix}-{n:06d}"
            repo.record_attempt(
                merchant_charge_id=mcid,
                sale_id=f"S{n}",
                profile="builtin-sandbox",
                amount=1500,
                tenders=[CardSummary(brand="VISA", last_four="1111")],
            )
            SyncLedger(repo).apply_update(
                update(mcid, ChargeStatus.PAID), source="reply", source_ref=None
            )
            ids.append(mcid)
    return ids


def test_history_pages_newest_first_and_passes_modeltester(
    qtmodeltester: ModelTester, repo: ChargeRepository
) -> None:
    ids = make_charges(repo, 12)
    model = ChargeHistoryModel(ChargeViews(SqliteStore(repo.conn)), page_size=5)
    assert model.rowCount() == 5
    assert model.data(model.index(0, 1), MERCHANT_CHARGE_ID_ROLE) == ids[-1]
    qtmodeltester.check(model, force_py=True)
    assert model.rowCount() == 12
    shown = [model.data(model.index(r, 1)) for r in range(12)]
    assert shown == list(reversed(ids))
    assert "VISA •••• 1111" in model.data(model.index(0, 5))


def test_history_refreshes_a_changed_charge_and_adds_a_new_one(
    qtmodeltester: ModelTester, repo: ChargeRepository
) -> None:
    ids = make_charges(repo, 3)
    model = ChargeHistoryModel(ChargeViews(SqliteStore(repo.conn)), page_size=50)
    qtmodeltester.check(model, force_py=True)
    with db.transaction(repo.conn):
        SyncLedger(repo).apply_update(
            update(ids[0], ChargeStatus.REFUNDED, minutes=5, refunded=1500),
            source="webhook",
            source_ref="webhook_event:1",
        )
    changed: list[int] = []
    model.dataChanged.connect(lambda top, _bottom, _roles: changed.append(top.row()))
    model.charge_changed(ids[0])
    row = model.row_of(ids[0])
    assert row is not None
    assert changed == [row]
    record = model.record(row)
    assert record is not None
    assert record.status == ChargeStatus.REFUNDED
    new = make_charges(repo, 1, prefix="late")
    model.charge_changed(new[0])
    assert model.rowCount() == 4
    assert model.record(0) is not None
    assert model.data(model.index(0, 1)) == new[0]


def test_history_status_filter(repo: ChargeRepository) -> None:
    ids = make_charges(repo, 3)
    model = ChargeHistoryModel(ChargeViews(SqliteStore(repo.conn)))
    model.set_status_filter(ShownStatus.REFUNDED)
    assert model.rowCount() == 0
    with db.transaction(repo.conn):
        SyncLedger(repo).apply_update(
            update(ids[1], ChargeStatus.REFUNDED, minutes=5, refunded=1500),
            source="reply",
            source_ref=None,
        )
    model.charge_changed(ids[1])
    assert model.rowCount() == 1
    model.set_status_filter(None)
    assert model.rowCount() == 3


def test_timeline_shows_every_input_in_order_and_appends_live(
    qtmodeltester: ModelTester, repo: ChargeRepository
) -> None:
    (mcid,) = make_charges(repo, 1)
    model = TimelineModel(ChargeViews(SqliteStore(repo.conn)), page_size=2)
    model.set_charge(mcid)
    qtmodeltester.check(model, force_py=True)
    sources = [model.data(model.index(r, 1)) for r in range(model.rowCount())]
    assert sources[0] == "This terminal"
    assert "Service's reply" in sources
    said = [model.data(model.index(r, 2)) for r in range(model.rowCount())]
    # Plain sentences: no outcome codes, arrows or empty-set signs.
    assert "The charge is Paid." in said
    for text in said:
        assert text and text[0].isupper() and text.endswith(".")
        assert not any(mark in text for mark in ("∅", "→", "applied", "no change")), text
    before = model.rowCount()
    with db.transaction(repo.conn):
        SyncLedger(repo).apply_update(
            update(mcid, ChargeStatus.PAID, minutes=1),
            source="webhook",
            source_ref="webhook_event:7",
        )
    model.charge_changed(mcid)
    model.charge_changed("some-other-charge")
    assert model.rowCount() == before + 1
    last = model.record(model.rowCount() - 1)
    assert last is not None
    assert last.source == "webhook"
    assert model.data(model.index(model.rowCount() - 1, 1)) == "Notification"
    ids = [r.id for r in model.records()]
    assert ids == sorted(ids)
    model.set_charge(None)
    assert model.rowCount() == 0


def three_ds_sale(repo: ChargeRepository, mcid: str, *, amount: int, last_four: str) -> None:
    """A 3DS card sale's attempt, recorded (in the caller's transaction)."""
    repo.record_attempt(
        merchant_charge_id=mcid,
        sale_id=f"S-{mcid}",
        profile="builtin-sandbox",
        amount=amount,
        tenders=[CardSummary(brand="VISA", last_four=last_four)],
    )


def bank_refused(repo: ChargeRepository, mcid: str) -> None:
    """The bank's refusal of the sale's 3DS authentication, merged as its notification is (in
    the caller's transaction): the row it makes holds only that result."""
    SyncLedger(repo).apply_update(
        bank_refusal(mcid, occurred_at=T0),
        source="webhook",
        source_ref=None,
    )


def test_a_sale_3ds_ended_uncharged_reads_as_not_charged(repo: ChargeRepository) -> None:
    # The 3DS notification made the row; the amount and the card are the sale's attempt's.
    make_charges(repo, 1)
    with db.transaction(repo.conn):
        three_ds_sale(repo, "tds-1", amount=2590, last_four="1629")
        repo.set_attempt_state(
            "tds-1",
            AttemptState.REJECTED,
            source="system",
            reason=Reason.of(ReasonCode.TDS_REFUSED, status="REJECTED", why="rejected"),
        )
        bank_refused(repo, "tds-1")
    model = ChargeHistoryModel(ChargeViews(SqliteStore(repo.conn)))
    row = model.row_of("tds-1")
    assert row is not None
    shown = {name: model.data(model.index(row, c)) for c, name in enumerate(model.COLUMNS)}
    assert shown["amount"] == format_money(2590)
    assert shown["status"] == "Not charged — 3DS authentication refused"
    assert shown["cards"] == "VISA •••• 1629"
    assert shown["three_ds"] == "3DS rejected"
    colour = model.data(model.index(row, model.COLUMNS.index("status")), ForegroundRole)
    assert colour is not None and colour.color().name() == "#b3261e"
    # A paid charge beside it reads as before.
    paid = model.row_of("sale-000000")
    assert paid is not None
    assert model.data(model.index(paid, model.COLUMNS.index("status"))) == "Paid"
    assert model.data(model.index(paid, model.COLUMNS.index("amount"))) == format_money(1500)


def test_a_partial_refund_reads_the_same_whichever_status_the_service_keeps(
    repo: ChargeRepository,
) -> None:
    # The service may say PARTIAL after a partial refund or keep PAID: the row's words and
    # colour are the same either way.
    says_partial, keeps_paid = make_charges(repo, 2)
    with db.transaction(repo.conn):
        for mcid, says in ((says_partial, ChargeStatus.PARTIAL), (keeps_paid, ChargeStatus.PAID)):
            SyncLedger(repo).apply_update(
                update(mcid, says, minutes=3, refunded=500), source="reply", source_ref=None
            )
    model = ChargeHistoryModel(ChargeViews(SqliteStore(repo.conn)))
    column = model.COLUMNS.index("status")
    shown = []
    for mcid in (says_partial, keeps_paid):
        row = model.row_of(mcid)
        assert row is not None
        colour = model.data(model.index(row, column), ForegroundRole)
        assert colour is not None
        shown.append((model.data(model.index(row, column)), colour.color().name()))
    assert shown[0] == shown[1]
    assert shown[0][0] == "Partially refunded"
