"""The event list's status filter offers the words the list shows and finds exactly the rows
shown with them, a QR charge's notifications under the QR's words, on both stores."""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from itertools import count
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from checkout_desktop.domain.deliveries import EventFilter, EventSummary
from checkout_desktop.domain.enums import Verdict
from checkout_desktop.domain.event_status import EVENT_STATUS_CHOICES
from checkout_desktop.store.sqlite import db
from checkout_desktop.store.sqlite.events import EventRepository
from checkout_desktop.store.sqlite.store import SqliteStore
from checkout_desktop.ui.event_model import EventListModel
from checkout_desktop.ui.events_panel import EventsPanel, event_status_choice_text
from tests.integration.test_event_store_contract import Backend, backend, fill, new

logger = logging.getLogger(__name__)

__all__ = ["backend"]  # the contract's stores, SQLite and (marked pg) PostgreSQL

STAMP = "2026-03-01T12:00:00.000000Z"
# Every status a delivery may carry (and one the service has not published), on every kind of
# charge: a card's, one not known here, and a QR charge whose QR transaction says each of these.
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
QR_TRANSACTIONS = (None, "PENDING", "PAID", "CAPTURED", "EXPIRED", "CANCELED")


def _charge(store: Backend, mcid: str, payment_type: str | None, status: str | None) -> None:
    store.run(
        "INSERT INTO charge (merchant_charge_id, state_json, created_at, updated_at) "  # noqa: S608 - the test's own names
        f"VALUES ('{mcid}', '{{}}', '{STAMP}', '{STAMP}')"
    )
    if payment_type is None:
        return
    shown = "NULL" if status is None else f"'{status}'"
    store.run(
        "INSERT INTO charge_transaction (merchant_charge_id, txn_key, payment_type, status, "  # noqa: S608 - the test's own names
        f"updated_at) VALUES ('{mcid}', 't1', '{payment_type}', {shown}, '{STAMP}')"
    )


def _every_kind_of_row(store: Backend) -> list[EventSummary]:
    charges: list[str] = ["unknown-here"]
    _charge(store, "card", "CREDIT", "PAID")
    charges.append("card")
    for n, txn in enumerate(QR_TRANSACTIONS):
        mcid = f"qr-{n}"
        _charge(store, mcid, "PIX" if n % 2 else "WALLET", txn)
        charges.append(mcid)
    numbers = count()
    fill(
        store,
        [new(next(numbers), status=status, mcid=mcid) for mcid in charges for status in STATUSES],
    )
    return store.repo.page(EventFilter(), limit=1000).rows  # type: ignore[no-any-return]


def _shown(row: EventSummary) -> str:
    return EventListModel._display(row, "status")


def test_each_status_choice_finds_exactly_the_rows_shown_with_its_words(
    backend: Backend, qapp: object
) -> None:
    rows = _every_kind_of_row(backend)
    assert len(rows) == len(STATUSES) * (2 + len(QR_TRANSACTIONS))
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
        f"qr-{n}" for n in range(len(QR_TRANSACTIONS))
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
        _charge(store, "pix-1", "PIX", "PENDING")
        _charge(store, "card-1", "CREDIT", "PRE_AUTHORIZED")
        fill(
            store,
            [
                new(1, status="PRE_AUTHORIZED", mcid="pix-1"),
                new(2, status="PRE_AUTHORIZED", mcid="card-1"),
                new(3, status="AUTHORIZED", mcid="pix-1"),
            ],
        )
        panel = EventsPanel(SqliteStore(conn).events)
        qtbot.addWidget(panel)
        box = panel.status_filter
        offered = [box.itemText(i) for i in range(1, box.count())]
        assert offered == [event_status_choice_text(key) for key in EVENT_STATUS_CHOICES]
        assert "Awaiting payment" in offered and "Ended" in offered

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
    for match in EVENT_STATUS_CHOICES[key]:
        txn = {None: "PENDING", "OTHER": None}.get(match.qr_transaction, match.qr_transaction)
        for tender in (None, "PIX") if match.tender == "any" else (match.tender,):
            qr = tender in ("qr", "PIX")
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
                status=match.status,
                duplicate_of=None,
                merge_outcome=None,
                reason_data=None,
                merge_data=None,
                qr_tender="PIX" if qr else None,
                qr_transaction_status=txn if qr else None,
            )
            assert _shown(row) == text, (key, match, tender)


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
