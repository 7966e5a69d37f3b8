"""The event list's status filter offers the words the list shows and finds exactly the rows
shown with them, a QR charge's notifications under the words the History uses for what each
notification said, on both stores."""

from __future__ import annotations

import logging
from dataclasses import replace
from datetime import UTC, datetime
from itertools import count
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from checkout_desktop.domain.deliveries import EventFilter, EventSummary
from checkout_desktop.domain.enums import ChargeStatus, PaymentType, TransactionStatus, Verdict
from checkout_desktop.domain.event_status import EVENT_STATUS_CHOICES, event_shown_status
from checkout_desktop.domain.wire import ChargeUpdate, TransactionInfo
from checkout_desktop.store.sqlite import db
from checkout_desktop.store.sqlite.events import EventRepository
from checkout_desktop.store.sqlite.store import SqliteStore
from checkout_desktop.ui.event_model import EventListModel
from checkout_desktop.ui.events_panel import EventsPanel, event_status_choice_text
from tests.integration.test_event_store_contract import Backend, backend, fill, new

logger = logging.getLogger(__name__)

__all__ = ["backend"]  # the contract's stores, SQLite and (marked pg) PostgreSQL

# Every status a delivery may carry (and one the service has not published), on a card's
# charge and one not known here; and a QR notification for each status its charge and its QR
# transaction may say together.
STATUSES = (
    "PENDING",
    "PRE_AUTHORIZED",
    "AUTHORIZED",
    "PAID",
    "CAPTURED",
    "PARTIAL",
    "PARTIALLY_REFUNDED",
    "REFUNDED",
    "CANCELED",
    "EXPIRED",
    "DENIED",
    "ERROR",
    "CHARGEBACK",
    "Approved",
    "Challenged",
    "Rejected",
    "SETTLED",
)
QR_CHARGE = ("PENDING", "PRE_AUTHORIZED", "AUTHORIZED", "PAID", "CANCELED", "PARTIAL", "REFUNDED")
QR_TRANSACTIONS = (
    "PENDING",
    "PRE_AUTHORIZED",
    "PAID",
    "CAPTURED",
    "EXPIRED",
    "CANCELED",
    "PARTIALLY_REFUNDED",
    "REFUNDED",
)


def _qr_update(mcid: str, kind: PaymentType, charge: str, txn: str) -> ChargeUpdate:
    return ChargeUpdate(
        merchant_charge_id=mcid,
        charge_id=None,
        status=ChargeStatus(charge),
        amount=1000,
        refunded_amount=None,
        transactions=[TransactionInfo(paymentType=kind, status=TransactionStatus(txn))],
    )


def _every_kind_of_row(store: Backend) -> list[EventSummary]:
    numbers = count()
    events = [
        new(next(numbers), status=status, mcid=mcid)
        for mcid in ("card", "unknown-here")
        for status in STATUSES
    ]
    for kind in (PaymentType.PIX, PaymentType.WALLET):
        for charge in QR_CHARGE:
            for txn in QR_TRANSACTIONS:
                mcid = f"qr-{kind.value}"
                shown = event_shown_status(_qr_update(mcid, kind, charge, txn))
                events.append(
                    replace(new(next(numbers), status=charge, mcid=mcid), shown_status=shown)
                )
    fill(store, events)
    return store.repo.page(EventFilter(), limit=1000).rows  # type: ignore[no-any-return]


def _shown(row: EventSummary) -> str:
    return EventListModel._display(row, "status")


def test_each_status_choice_finds_exactly_the_rows_shown_with_its_words(
    backend: Backend, qapp: object
) -> None:
    rows = _every_kind_of_row(backend)
    assert len(rows) == len(STATUSES) * 2 + 2 * len(QR_CHARGE) * len(QR_TRANSACTIONS)
    texts = {key: event_status_choice_text(key) for key in EVENT_STATUS_CHOICES}
    assert len(set(texts.values())) == len(texts), texts
    # Every word the list shows is offered, but a status the service has not published.
    assert {_shown(row) for row in rows} - set(texts.values()) == {"SETTLED"}
    for key, text in texts.items():
        where = EventFilter(shown=EVENT_STATUS_CHOICES[key])
        found = [row.id for row in backend.repo.page(where, limit=1000).rows]
        expected = [row.id for row in rows if _shown(row) == text]
        assert found == expected, (key, text)
        # Page by page (each stored status walked on its own, newest first), the same rows.
        paged: list[int] = []
        before: int | None = None
        while True:
            page = backend.repo.page(where, before=before, limit=2)
            paged += [row.id for row in page.rows]
            if page.next_before is None:
                break
            before = page.next_before
        assert paged == expected, key
        # The live list's fetch of what arrived after a row picks the same rows, oldest first.
        middle = rows[len(rows) // 2].id
        arrived = [row.id for row in backend.repo.newer(where, after=middle, limit=1000)]
        assert arrived == sorted(i for i in expected if i > middle), key
    # What a QR's notification reads is found under those words, and not under the card's.
    awaiting = EventFilter(shown=EVENT_STATUS_CHOICES["AWAITING_PAYMENT"])
    assert {r.merchant_charge_id for r in backend.repo.page(awaiting).rows} == {
        "qr-PIX",
        "qr-WALLET",
    }
    pre_authorized = EventFilter(shown=EVENT_STATUS_CHOICES["PRE_AUTHORIZED"])
    assert {r.merchant_charge_id for r in backend.repo.page(pre_authorized).rows} == {
        "card",
        "unknown-here",
    }


def test_the_panel_offers_the_lists_words_and_a_qr_is_found_under_them(
    qtbot: QtBot, tmp_path: Path, qapp: object
) -> None:
    conn = db.connect(tmp_path / "store.sqlite3")
    try:
        store = Backend(
            "sqlite",
            EventRepository(conn),
            lambda: db.transaction(conn),
            Exception,
            lambda sql: [tuple(r) for r in conn.execute(sql).fetchall()],
            lambda sql: conn.execute(sql).close(),
        )
        awaiting = _qr_update("pix-1", PaymentType.PIX, "PRE_AUTHORIZED", "PENDING")
        paid = _qr_update("pix-1", PaymentType.PIX, "AUTHORIZED", "CAPTURED")
        fill(
            store,
            [
                replace(
                    new(1, status="PRE_AUTHORIZED", mcid="pix-1"),
                    shown_status=event_shown_status(awaiting),
                ),
                new(2, status="PRE_AUTHORIZED", mcid="card-1"),
                replace(
                    new(3, status="AUTHORIZED", mcid="pix-1"),
                    shown_status=event_shown_status(paid),
                ),
            ],
        )
        panel = EventsPanel(SqliteStore(conn).events)
        qtbot.addWidget(panel)
        box = panel.status_filter
        offered = [box.itemText(i) for i in range(1, box.count())]
        assert offered == [event_status_choice_text(key) for key in EVENT_STATUS_CHOICES]
        assert "Awaiting payment" in offered and "Ended" not in offered

        def choose(words: str) -> list[str | None]:
            box.setCurrentIndex(box.findText(words))
            model = panel.model
            rows = [model.summary(r) for r in range(model.rowCount())]
            return [row.merchant_charge_id for row in rows if row is not None]

        assert choose("Awaiting payment") == ["pix-1"]
        assert choose("Pre-authorized") == ["card-1"]
        assert choose("Paid") == ["pix-1"]
        assert choose("Authorized") == []
        box.setCurrentIndex(0)
        assert panel.model.rowCount() == 3
    finally:
        conn.close()


@pytest.mark.parametrize("key", list(EVENT_STATUS_CHOICES))
def test_every_choice_reads_as_the_list_shows_its_rows(key: str, qapp: object) -> None:
    text = event_status_choice_text(key)
    for shown in EVENT_STATUS_CHOICES[key]:
        for tender in (None, "PIX"):
            row = EventSummary(
                id=1,
                received_at=datetime(2026, 3, 1, tzinfo=UTC),
                verdict=Verdict.ACCEPTED,
                reason=None,
                event_type=None,
                body_type=None,
                layout=None,
                event_ref=None,
                merchant_charge_id="m",
                charge_id=None,
                status="PRE_AUTHORIZED",
                duplicate_of=None,
                merge_outcome=None,
                reason_data=None,
                merge_data=None,
                qr_tender=tender,
                shown_status=shown,
            )
            assert _shown(row) == text, (key, shown, tender)


def test_the_status_column_holds_every_status_word_in_portuguese(
    qtbot: QtBot, tmp_path: Path, qapp: object
) -> None:
    # "Aguardando pagamento" was cut to "Aguardando paga…" in the list's status column.
    from PySide6.QtCore import QLocale

    from checkout_desktop.ui.i18n import Translations

    translations = Translations()
    assert translations.install(QLocale(QLocale.Language.Portuguese, QLocale.Country.Brazil))
    conn = db.connect(tmp_path / "store.sqlite3")
    try:
        panel = EventsPanel(SqliteStore(conn).events)
        qtbot.addWidget(panel)
        column = EventListModel.COLUMNS.index("status")
        room = panel.table.horizontalHeader().sectionSize(column)
        metrics = panel.table.fontMetrics()
        words = [event_status_choice_text(key) for key in EVENT_STATUS_CHOICES]
        assert "Aguardando pagamento" in words
        # A cell keeps a margin of a few pixels on each side (as the delegate's).
        assert max(metrics.horizontalAdvance(w) for w in words) + 8 <= room
    finally:
        conn.close()
        translations.remove()
