"""The event list says a QR charge's notification in the clerk's words ("Awaiting payment",
"Paid", "Expired"), not the charge status the service sent for it ("Pre-authorized",
"Authorized", "Canceled"); a card's notification keeps its own words."""

from __future__ import annotations

import hashlib
import json
import logging
import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from PySide6.QtCore import QLocale
from pytestqt.qtbot import QtBot

from checkout_desktop.domain.deliveries import NewEvent
from checkout_desktop.domain.enums import ChargeStatus, PaymentType, TransactionStatus, Verdict
from checkout_desktop.domain.event_status import event_shown_status
from checkout_desktop.domain.records import PIX, WALLET, CardSummary, QrSummary, TenderSummary
from checkout_desktop.domain.state import ChargeUpdate
from checkout_desktop.domain.wire import (
    CreditInfo,
    PaymentEnvelope,
    PixInfo,
    TransactionInfo,
    WalletInfo,
    payment_update,
    validate_webhook_json,
)
from checkout_desktop.store.sqlite import db
from checkout_desktop.store.sqlite.charges import ChargeRepository
from checkout_desktop.store.sqlite.events import EventRepository
from checkout_desktop.store.sqlite.store import SqliteStore
from checkout_desktop.ui.event_model import EventListModel
from tests.ledger_support import SyncLedger

logger = logging.getLogger(__name__)

START = datetime(2026, 11, 23, 15, 0, tzinfo=UTC)
STATUS_COLUMN = EventListModel.COLUMNS.index("status")


@pytest.fixture(autouse=True)
def english() -> Iterator[None]:
    previous = QLocale()
    QLocale.setDefault(QLocale(QLocale.Language.English, QLocale.Country.UnitedStates))
    yield
    QLocale.setDefault(previous)


@pytest.fixture
def conn(tmp_path: Path) -> Iterator[sqlite3.Connection]:
    connection = db.connect(tmp_path / "store.sqlite3")
    try:
        yield connection
    finally:
        connection.close()


def _charge(
    conn: sqlite3.Connection,
    mcid: str,
    *,
    kind: str,
    status: ChargeStatus,
    txn_status: TransactionStatus,
) -> None:
    """A charge as the ledger keeps it after the service's word (its current state)."""
    repo = ChargeRepository(conn)
    tender: TenderSummary
    extra: dict[str, object]
    if kind == "card":
        tender = CardSummary("VISA", "1111")
        extra = {"credit": CreditInfo(brand="VISA", cardNumber="411111******1111")}
        payment = PaymentType.CREDIT
    elif kind == PIX:
        tender = QrSummary(PIX, 600)
        extra = {"pix": PixInfo(qrCode="000201...")}
        payment = PaymentType.PIX
    else:
        tender = QrSummary(WALLET)
        extra = {"wallet": WalletInfo(qrCode="picpay://picpay/checkout/x")}
        payment = PaymentType.WALLET
    with db.transaction(conn):
        repo.record_attempt(
            merchant_charge_id=mcid,
            sale_id=f"S-{mcid}",
            profile="production",
            amount=2590,
            tenders=[tender],
        )
        SyncLedger(repo).apply_update(
            ChargeUpdate(
                merchant_charge_id=mcid,
                charge_id=f"svc-{mcid}",
                status=status,
                amount=2590,
                refunded_amount=0,
                transactions=[
                    TransactionInfo(
                        transactionId=f"t-{mcid}",
                        paymentType=payment,
                        transactionStatus=txn_status,
                        amount=2590,
                        refundedAmount=0,
                        **extra,  # type: ignore[arg-type]
                    )
                ],
                occurred_at=START,
                source="api",
            ),
            source="reply",
            source_ref=None,
        )


def _notification(
    conn: sqlite3.Connection,
    n: int,
    mcid: str,
    status: str,
    txn: str | None = None,
    kind: str | None = None,
) -> int:
    """A stored notification about `mcid` carrying the charge status `status` and, when given,
    its transaction's status `txn` (of the tender `kind`), listed as the inbox lists it."""
    data: dict[str, object] = {"merchantChargeId": mcid, "status": status}
    if txn is not None:
        data["transactions"] = [{"paymentType": kind, "transactionId": f"t-{mcid}", "status": txn}]
    body = json.dumps({"type": "PAYMENT", "id": f"evt-{n}", "data": data}).encode()
    parsed = validate_webhook_json(body)
    assert isinstance(parsed, PaymentEnvelope)
    shown = event_shown_status(payment_update(parsed, received_at=START))
    with db.transaction(conn):
        return EventRepository(conn).insert(
            NewEvent(
                received_at=START + timedelta(seconds=n),
                verdict=Verdict.ACCEPTED,
                body=body,
                body_sha256=hashlib.sha256(body).hexdigest(),
                headers={"event-type": "TransactionUpdateMessage"},
                event_type="TransactionUpdateMessage",
                body_type="PAYMENT",
                layout="flat",
                event_ref=f"evt-{n}",
                merchant_charge_id=mcid,
                charge_id=f"svc-{mcid}",
                status=status,
                shown_status=shown,
            )
        )


def _status_by_charge(model: EventListModel) -> dict[str, str]:
    shown: dict[str, str] = {}
    for row in range(model.rowCount()):
        summary = model.summary(row)
        assert summary is not None and summary.merchant_charge_id
        shown[f"{summary.merchant_charge_id}#{summary.id}"] = str(
            model.data(model.index(row, STATUS_COLUMN))
        )
    return shown


def test_qr_notifications_read_in_the_clerks_words(qtbot: QtBot, conn: sqlite3.Connection) -> None:
    _charge(
        conn, "pix-wait", kind=PIX, status=ChargeStatus.PRE_AUTHORIZED,
        txn_status=TransactionStatus.PRE_AUTHORIZED,
    )  # fmt: skip
    _charge(
        conn, "wallet-paid", kind=WALLET, status=ChargeStatus.AUTHORIZED,
        txn_status=TransactionStatus.PAID,
    )  # fmt: skip
    _charge(
        conn, "pix-expired", kind=PIX, status=ChargeStatus.CANCELED,
        txn_status=TransactionStatus.EXPIRED,
    )  # fmt: skip
    _charge(
        conn, "wallet-cancelled", kind=WALLET, status=ChargeStatus.CANCELED,
        txn_status=TransactionStatus.CANCELED,
    )  # fmt: skip
    # Paid after it had ended: its earlier notification still says what it said, expired.
    _charge(conn, "pix-late", kind=PIX, status=ChargeStatus.PAID, txn_status=TransactionStatus.PAID)
    _charge(
        conn, "card", kind="card", status=ChargeStatus.AUTHORIZED,
        txn_status=TransactionStatus.AUTHORIZED,
    )  # fmt: skip
    ids = {
        "pix-wait": _notification(conn, 1, "pix-wait", "PRE_AUTHORIZED", "PRE_AUTHORIZED", PIX),
        "wallet-paid": _notification(conn, 2, "wallet-paid", "AUTHORIZED", "CAPTURED", WALLET),
        "pix-expired": _notification(conn, 3, "pix-expired", "CANCELED", "EXPIRED", PIX),
        "wallet-cancelled": _notification(
            conn, 4, "wallet-cancelled", "CANCELED", "CANCELED", WALLET
        ),
        "pix-late": _notification(conn, 5, "pix-late", "CANCELED", "EXPIRED", PIX),
        "card": _notification(conn, 6, "card", "AUTHORIZED", "AUTHORIZED", "CREDIT"),
        "unknown": _notification(conn, 7, "not-ours", "PRE_AUTHORIZED"),
    }
    model = EventListModel(SqliteStore(conn).events, page_size=50)
    qtbot.waitUntil(lambda: model.rowCount() == len(ids), timeout=2000)
    assert _status_by_charge(model) == {
        f"pix-wait#{ids['pix-wait']}": "Awaiting payment",
        f"wallet-paid#{ids['wallet-paid']}": "Paid",
        f"pix-expired#{ids['pix-expired']}": "Expired",
        f"wallet-cancelled#{ids['wallet-cancelled']}": "Canceled",
        f"pix-late#{ids['pix-late']}": "Expired",
        f"card#{ids['card']}": "Authorized",
        f"not-ours#{ids['unknown']}": "Pre-authorized",
    }


def test_a_live_qr_notification_reads_in_the_clerks_words_too(
    qtbot: QtBot, conn: sqlite3.Connection
) -> None:
    model = EventListModel(SqliteStore(conn).events, page_size=50)
    _charge(
        conn, "wallet-wait", kind=WALLET, status=ChargeStatus.PRE_AUTHORIZED,
        txn_status=TransactionStatus.PRE_AUTHORIZED,
    )  # fmt: skip
    event_id = _notification(conn, 1, "wallet-wait", "PRE_AUTHORIZED", "PRE_AUTHORIZED", WALLET)
    model.notify_stored(event_id)
    model.flush_now()
    qtbot.waitUntil(lambda: model.rowCount() == 1, timeout=2000)
    assert model.data(model.index(0, STATUS_COLUMN)) == "Awaiting payment"


def test_in_portuguese_a_waiting_pix_is_awaiting_payment(
    qtbot: QtBot, conn: sqlite3.Connection
) -> None:
    from checkout_desktop.ui.i18n import Translations

    _charge(
        conn, "pix-wait", kind=PIX, status=ChargeStatus.PRE_AUTHORIZED,
        txn_status=TransactionStatus.PRE_AUTHORIZED,
    )  # fmt: skip
    _charge(conn, "pix-late", kind=PIX, status=ChargeStatus.PAID, txn_status=TransactionStatus.PAID)
    _notification(conn, 1, "pix-wait", "PRE_AUTHORIZED", "PENDING", PIX)
    _notification(conn, 2, "pix-late", "CANCELED", "EXPIRED", PIX)
    translations = Translations()
    assert translations.install(QLocale(QLocale.Language.Portuguese, QLocale.Country.Brazil))
    try:
        model = EventListModel(SqliteStore(conn).events, page_size=50)
        qtbot.waitUntil(lambda: model.rowCount() == 2, timeout=2000)
        shown = [model.data(model.index(row, STATUS_COLUMN)) for row in range(2)]
        assert shown == ["Expirada", "Aguardando pagamento"]
    finally:
        translations.remove()


REASON_COLUMN = EventListModel.COLUMNS.index("reason")


def test_a_qr_notifications_reason_names_statuses_in_the_clerks_words_too(
    qtbot: QtBot, conn: sqlite3.Connection
) -> None:
    # The status column says "Awaiting payment"; the reason beside it must not say the
    # charge was already "Pre-authorized". A card's notification keeps the card's words.
    from checkout_desktop.domain.reasons import Reason, ReasonCode

    _charge(
        conn, "pix-wait", kind=PIX, status=ChargeStatus.PRE_AUTHORIZED,
        txn_status=TransactionStatus.PRE_AUTHORIZED,
    )  # fmt: skip
    _charge(
        conn, "wallet-paid", kind=WALLET, status=ChargeStatus.AUTHORIZED,
        txn_status=TransactionStatus.PAID,
    )  # fmt: skip
    _charge(
        conn, "card", kind="card", status=ChargeStatus.PRE_AUTHORIZED,
        txn_status=TransactionStatus.PRE_AUTHORIZED,
    )  # fmt: skip
    outcomes = {
        "pix-wait": Reason.of(ReasonCode.MERGE_NOTHING_NEW, current_status="PRE_AUTHORIZED"),
        "wallet-paid": Reason.of(
            ReasonCode.MERGE_OLDER, status="PRE_AUTHORIZED", current_status="AUTHORIZED"
        ),
        "card": Reason.of(ReasonCode.MERGE_NOTHING_NEW, current_status="PRE_AUTHORIZED"),
    }
    for n, (mcid, outcome) in enumerate(outcomes.items(), start=1):
        txn = "PRE_AUTHORIZED" if mcid != "card" else None
        kind = {"pix-wait": PIX, "wallet-paid": WALLET}.get(mcid)
        event_id = _notification(conn, n, mcid, "PRE_AUTHORIZED", txn, kind)
        with db.transaction(conn):
            EventRepository(conn).set_merge_outcome(event_id, outcome)
    model = EventListModel(SqliteStore(conn).events, page_size=50)
    qtbot.waitUntil(lambda: model.rowCount() == len(outcomes), timeout=2000)
    reasons = {}
    for row in range(model.rowCount()):
        summary = model.summary(row)
        assert summary is not None
        reasons[summary.merchant_charge_id] = model.data(model.index(row, REASON_COLUMN))
    assert reasons == {
        "pix-wait": "already Awaiting payment; nothing new",
        "wallet-paid": "Awaiting payment is older than the current Paid",
        "card": "already Pre-authorized; nothing new",
    }
    # The detail beside the list says the same when the row is chosen.
    from checkout_desktop.ui.events_panel import EventsPanel

    panel = EventsPanel(SqliteStore(conn).events)
    qtbot.addWidget(panel)
    qtbot.waitUntil(lambda: panel.model.rowCount() == len(outcomes), timeout=2000)
    for row in range(panel.model.rowCount()):
        summary = panel.model.summary(row)
        assert summary is not None
        panel.table.selectRow(row)
        expected = "Charge update: " + reasons[summary.merchant_charge_id]
        qtbot.waitUntil(lambda e=expected: e in panel.detail.summary.text(), timeout=2000)
