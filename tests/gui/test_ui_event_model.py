"""The live event list: keyset paging, coalesced live inserts, filters, and the detail pane."""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from PySide6.QtCore import QModelIndex, Qt
from pytestqt.modeltest import ModelTester
from pytestqt.qtbot import QtBot

from checkout_desktop.domain.deliveries import EventFilter, NewEvent
from checkout_desktop.domain.enums import Verdict
from checkout_desktop.domain.reasons import Reason, ReasonCode
from checkout_desktop.store.sqlite import db
from checkout_desktop.store.sqlite.events import EventRepository
from checkout_desktop.store.sqlite.store import SqliteStore
from checkout_desktop.ui.event_model import COALESCE_MS, EVENT_ID_ROLE, PAINT_SHARE, EventListModel
from checkout_desktop.ui.events_panel import EventsPanel

logger = logging.getLogger(__name__)

START = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
QUARANTINE = Reason.of(ReasonCode.INBOX_NOT_JSON, error="Expecting value")
# How the list shows it in English (the UI's wording: the same words as the stored text here).
QUARANTINE_TEXT = "the body is not valid JSON: Expecting value"


def _body(n: int, status: str, charge: str) -> bytes:
    return json.dumps(
        {
            "type": "PAYMENT",
            "id": f"evt-{n}",
            "data": {"merchantChargeId": charge, "status": status},
        }
    ).encode()


def insert_events(
    conn: sqlite3.Connection,
    count: int,
    *,
    start: int = 0,
    status: str = "PAID",
    charge: str = "sale-000001",
    verdict: Verdict = Verdict.ACCEPTED,
) -> list[int]:
    repo = EventRepository(conn)
    ids = []
    with db.transaction(conn):
        for n in range(start, start + count):
            body = _body(n, status, charge)
            ids.append(
                repo.insert(
                    NewEvent(
                        received_at=START + timedelta(seconds=n),
                        verdict=verdict,
                        body=body,
                        body_sha256=hashlib.sha256(body).hexdigest(),
                        headers={
                            "event-type": "TransactionUpdateMessage",
                            "Authorization": "[not stored: bare token]",
                        },
                        event_type="TransactionUpdateMessage",
                        body_type="PAYMENT",
                        layout="flat",
                        event_ref=f"evt-{n}",
                        merchant_charge_id=charge,
                        status=status,
                        reason=QUARANTINE if verdict == Verdict.QUARANTINED else None,
                    )
                )
            )
    return ids


@pytest.fixture
def conn(tmp_path: Path) -> Iterator[sqlite3.Connection]:
    connection = db.connect(tmp_path / "store.sqlite3")
    try:
        yield connection
    finally:
        connection.close()


def test_model_passes_qtmodeltester_through_paging_and_live_inserts(
    qtbot: QtBot, qtmodeltester: ModelTester, conn: sqlite3.Connection
) -> None:
    # qtbot: the model's coalescing timer needs the application (and its event dispatcher)
    # even when this test runs first or alone.
    insert_events(conn, 45)
    model = EventListModel(SqliteStore(conn).events, page_size=20)
    assert model.rowCount() == 20
    # The tester walks the model and fetches every page, as a view scrolled to the end would.
    qtmodeltester.check(model, force_py=True)
    assert model.rowCount() == 45
    assert not model.canFetchMore()
    new_ids = insert_events(conn, 3, start=100)
    for event_id in new_ids:
        model.notify_stored(event_id)
    model.flush_now()
    assert model.rowCount() == 48
    qtmodeltester.check(model, force_py=True)


def test_first_page_is_newest_and_pages_are_keyset_ordered(conn: sqlite3.Connection) -> None:
    ids = insert_events(conn, 25)
    model = EventListModel(SqliteStore(conn).events, page_size=10)
    assert model.rowCount() == 10
    assert model.canFetchMore()
    shown = [model.data(model.index(r, 0), EVENT_ID_ROLE) for r in range(10)]
    assert shown == list(reversed(ids))[:10]
    while model.canFetchMore():
        model.fetchMore()
    every = [model.data(model.index(r, 0), EVENT_ID_ROLE) for r in range(model.rowCount())]
    assert every == list(reversed(ids))


def test_a_burst_is_inserted_in_one_coalesced_step(qtbot: QtBot, conn: sqlite3.Connection) -> None:
    insert_events(conn, 5)
    model = EventListModel(SqliteStore(conn).events, page_size=50)
    inserts: list[tuple[int, int]] = []
    model.rowsInserted.connect(lambda _parent, first, last: inserts.append((first, last)))
    new_ids = insert_events(conn, 40, start=10)
    with qtbot.waitSignal(model.burst_inserted, timeout=2000) as blocker:
        for event_id in new_ids:
            model.notify_stored(event_id)
    assert blocker.args == [40]
    assert inserts == [(0, 39)]
    assert model.data(model.index(0, 0), EVENT_ID_ROLE) == new_ids[-1]
    assert model.rowCount() == 45


def test_inserts_are_spaced_further_when_a_repaint_is_costly(
    qtbot: QtBot, conn: sqlite3.Connection
) -> None:
    insert_events(conn, 5)
    panel = EventsPanel(SqliteStore(conn).events)
    qtbot.addWidget(panel)
    model = panel.model
    # Cheap repaints: inserts come at most once per COALESCE_MS, as before.
    model.painted(0.002)
    assert model.insert_interval_s() == COALESCE_MS / 1000
    # A repaint costing 40 ms of CPU: inserts are spaced so that repaints take about a quarter.
    for _ in range(30):
        model.painted(0.040)
    assert model.insert_interval_s() == pytest.approx(0.040 / PAINT_SHARE, rel=0.01)
    # Right after an insert, the next one waits that long, not COALESCE_MS.
    model.flush_now()
    new_ids = insert_events(conn, 1, start=10)
    model.notify_stored(new_ids[0])
    assert model._timer.isActive()
    assert model._timer.interval() > 2 * COALESCE_MS
    with qtbot.waitSignal(model.burst_inserted, timeout=2000):
        pass
    assert model.rowCount() == 6
    # Rows are read-only: enabled and selectable, nothing more.
    assert model.flags(model.index(0, 0)) == (
        Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemNeverHasChildren
    )
    assert model.flags(QModelIndex()) == Qt.ItemFlag.NoItemFlags
    # The table reports what its repaints cost.
    reported: list[float] = []
    panel.table.painted = reported.append
    panel.show()
    panel.table.viewport().update()
    qtbot.waitUntil(lambda: bool(reported))
    assert all(cost >= 0 for cost in reported)


def test_a_stopped_model_reads_nothing_more(qtbot: QtBot, conn: sqlite3.Connection) -> None:
    """A delivery stored as the window closes: the insert it scheduled is dropped, never read
    from the store that closes next."""
    insert_events(conn, 5)
    model = EventListModel(SqliteStore(conn).events, page_size=50, coalesce_ms=200)
    with qtbot.waitSignal(model.burst_inserted, timeout=2000):
        model.notify_stored(insert_events(conn, 1, start=10)[0])
    later = insert_events(conn, 1, start=20)[0]
    model.notify_stored(later)  # within the throttle: scheduled
    model.stop()
    conn.close()
    with qtbot.assertNotEmitted(model.burst_inserted, wait=400):
        pass
    assert model.rowCount() == 6


def test_live_inserts_respect_the_filter(qtbot: QtBot, conn: sqlite3.Connection) -> None:
    insert_events(conn, 3, status="PAID")
    model = EventListModel(SqliteStore(conn).events, page_size=50)
    model.set_filter(EventFilter(statuses=("DENIED",)))
    assert model.rowCount() == 0
    paid = insert_events(conn, 2, start=10, status="PAID")
    denied = insert_events(conn, 1, start=20, status="DENIED", charge="sale-000002")
    with qtbot.waitSignal(model.burst_inserted, timeout=2000) as blocker:
        for event_id in (*paid, *denied):
            model.notify_stored(event_id)
    assert blocker.args == [1]
    assert model.data(model.index(0, 0), EVENT_ID_ROLE) == denied[0]
    # The paid rows were considered and skipped: a later burst does not bring them back.
    more = insert_events(conn, 1, start=30, status="DENIED", charge="sale-000002")
    model.notify_stored(more[0])
    model.flush_now()
    assert model.rowCount() == 2


def test_panel_filters_search_and_shows_raw_json_and_headers(
    qtbot: QtBot, conn: sqlite3.Connection
) -> None:
    insert_events(conn, 4, status="PAID", charge="sale-aaaaaa")
    insert_events(conn, 2, start=10, status="DENIED", charge="sale-bbbbbb")
    insert_events(
        conn, 1, start=20, status="PAID", charge="sale-cccccc", verdict=Verdict.QUARANTINED
    )
    panel = EventsPanel(SqliteStore(conn).events)
    qtbot.addWidget(panel)
    assert panel.model.rowCount() == 7

    panel.status_filter.setCurrentIndex(panel.status_filter.findData("DENIED"))
    assert panel.model.rowCount() == 2

    panel.status_filter.setCurrentIndex(0)
    panel.verdict_filter.setCurrentIndex(panel.verdict_filter.findData("quarantined"))
    assert panel.model.rowCount() == 1
    panel.verdict_filter.setCurrentIndex(0)

    with qtbot.waitSignal(panel.model.modelReset, timeout=2000):
        panel.search.setText("sale-bbb")
    qtbot.waitUntil(lambda: not panel.model.scanning, timeout=2000)
    assert panel.model.rowCount() == 2
    with qtbot.waitSignal(panel.model.modelReset, timeout=2000):
        panel.search.setText("")
    with qtbot.waitSignal(panel.model.modelReset, timeout=2000):
        panel.charge_filter.setText("sale-cccccc")
    assert panel.model.rowCount() == 1

    panel.table.selectRow(0)
    assert panel.detail.shown_id == panel.model.data(panel.model.index(0, 0), EVENT_ID_ROLE)
    raw = panel.detail.text.toPlainText()
    assert '"merchantChargeId": "sale-cccccc"' in raw
    assert "event-type: TransactionUpdateMessage" in raw
    assert "[not stored: bare token]" in raw
    assert QUARANTINE_TEXT in panel.detail.summary.text()
    assert "Rejected" in panel.detail.summary.text()


def test_a_rare_text_search_scans_in_windows_without_blocking(
    qtbot: QtBot, qtmodeltester: ModelTester, conn: sqlite3.Connection
) -> None:
    (rare,) = insert_events(conn, 1, charge="sale-needle")
    insert_events(conn, 3000, start=10)
    model = EventListModel(SqliteStore(conn).events, page_size=50, first_scan_window=100)
    steps: list[tuple[int, bool]] = []
    model.search_progress.connect(lambda low, more: steps.append((low, more)))
    model.set_filter(EventFilter(text="needle"))
    assert model.rowCount() == 0  # nothing scanned yet: the loop runs first
    assert model.scanning
    qtbot.waitUntil(lambda: not model.scanning, timeout=5000)
    assert model.rowCount() == 1
    assert model.data(model.index(0, 0), EVENT_ID_ROLE) == rare
    assert len(steps) > 3  # several windows, the event loop ran between them
    assert [low for low, _ in steps] == sorted((low for low, _ in steps), reverse=True)
    assert steps[-1] == (1, False)
    assert not model.canFetchMore()
    qtmodeltester.check(model, force_py=True)


def test_a_common_text_search_fills_pages_and_fetches_more(
    qtbot: QtBot, conn: sqlite3.Connection
) -> None:
    insert_events(conn, 120, charge="sale-common")
    model = EventListModel(SqliteStore(conn).events, page_size=50, first_scan_window=1000)
    model.set_filter(EventFilter(text="common"))
    qtbot.waitUntil(lambda: not model.scanning and model.rowCount() == 50, timeout=5000)
    assert model.canFetchMore()
    model.fetchMore()
    qtbot.waitUntil(lambda: not model.scanning, timeout=5000)
    while model.canFetchMore():
        model.fetchMore()
        qtbot.waitUntil(lambda: not model.scanning, timeout=5000)
    ids = [model.data(model.index(r, 0), EVENT_ID_ROLE) for r in range(model.rowCount())]
    assert len(ids) == 120
    assert ids == sorted(ids, reverse=True)


def test_double_click_asks_for_the_charge(qtbot: QtBot, conn: sqlite3.Connection) -> None:
    insert_events(conn, 1, charge="sale-dddddd")
    panel = EventsPanel(SqliteStore(conn).events)
    qtbot.addWidget(panel)
    with qtbot.waitSignal(panel.charge_requested, timeout=1000) as blocker:
        panel.table.doubleClicked.emit(panel.model.index(0, 1))
    assert blocker.args == ["sale-dddddd"]


def test_page_size_is_checked(conn: sqlite3.Connection) -> None:
    with pytest.raises(ValueError, match="a page holds 1 to 1000 rows"):
        EventListModel(SqliteStore(conn).events, page_size=0)


def test_the_cells_say_what_the_row_holds(qtbot: QtBot, conn: sqlite3.Connection) -> None:
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QBrush

    from checkout_desktop.ui.formatting import format_instant

    insert_events(conn, 1, status="DENIED", charge="sale-000009", verdict=Verdict.QUARANTINED)
    model = EventListModel(SqliteStore(conn).events)
    row = [model.data(model.index(0, c)) for c in range(model.columnCount())]
    summary = model.summary(0)
    assert summary is not None
    assert row == [
        format_instant(summary.received_at),
        "Payment update",
        "Denied",
        "sale-000009",
        "Rejected",
        QUARANTINE_TEXT,
    ]
    # Formatted once, then read back as they were.
    assert [model.data(model.index(0, c)) for c in range(model.columnCount())] == row
    verdict = model.data(model.index(0, 4), Qt.ItemDataRole.ForegroundRole)
    assert isinstance(verdict, QBrush)
    assert verdict.color().name() == "#b3261e"
    assert model.data(model.index(0, 0), Qt.ItemDataRole.ForegroundRole) is None
    assert model.data(model.index(0, 5), Qt.ItemDataRole.ToolTipRole) == QUARANTINE_TEXT
    assert model.data(model.index(0, 0), Qt.ItemDataRole.ToolTipRole) is None
    assert model.data(model.index(0, 0), Qt.ItemDataRole.FontRole) is None
    assert model.data(model.index(0, 0), EVENT_ID_ROLE) == summary.id
    assert model.data(model.index(0, 0), Qt.ItemDataRole.UserRole + 2) == "quarantined"
    assert model.data(model.index(5, 0)) is None
    assert model.data(model.index(0, 9)) is None


def test_a_reload_shows_the_rows_afresh(qtbot: QtBot, conn: sqlite3.Connection) -> None:
    insert_events(conn, 2, charge="sale-000001")
    model = EventListModel(SqliteStore(conn).events)
    assert model.data(model.index(0, 3)) == "sale-000001"
    conn.execute("UPDATE webhook_event SET merchant_charge_id = 'sale-000002'")
    conn.commit()
    model.refresh()
    assert [model.data(model.index(r, 3)) for r in range(model.rowCount())] == [
        "sale-000002",
        "sale-000002",
    ]


def _insert_self_tests(conn: sqlite3.Connection, count: int, start: int) -> None:
    repo = EventRepository(conn)
    with db.transaction(conn):
        for n in range(start, start + count):
            body = json.dumps({"type": "CHECKOUT_DESKTOP_SELF_TEST", "nonce": str(n)}).encode()
            repo.insert(
                NewEvent(
                    received_at=START + timedelta(seconds=n),
                    verdict=Verdict.SELF_TEST,
                    body=body,
                    body_sha256=hashlib.sha256(body).hexdigest(),
                    headers={"event-type": "CheckoutDesktopSelfTest"},
                    event_type="CheckoutDesktopSelfTest",
                    body_type="CHECKOUT_DESKTOP_SELF_TEST",
                    layout="flat",
                    event_ref=f"self-{n}",
                )
            )


def test_types_read_in_plain_words_and_health_self_tests_hide_until_asked(
    qtbot: QtBot, conn: sqlite3.Connection
) -> None:
    insert_events(conn, 3)
    _insert_self_tests(conn, 5, start=10)  # the newest rows: one a minute in a real shop
    panel = EventsPanel(SqliteStore(conn).events)
    qtbot.addWidget(panel)
    model = panel.model
    assert model.rowCount() == 3  # only the payment updates
    types = {model.data(model.index(r, 1)) for r in range(model.rowCount())}
    assert types == {"Payment update"}
    panel.show_self_tests.setChecked(True)
    qtbot.waitUntil(lambda: model.rowCount() == 8, timeout=2000)
    types = {model.data(model.index(r, 1)) for r in range(model.rowCount())}
    assert types == {"Payment update", "Inbox health check"}
    panel.show_self_tests.setChecked(False)
    qtbot.waitUntil(lambda: model.rowCount() == 3, timeout=2000)
    # Choosing the self-test type shows them whatever the box says.
    panel.type_filter.setCurrentIndex(panel.type_filter.count() - 1)
    qtbot.waitUntil(lambda: model.rowCount() == 5, timeout=2000)


@contextlib.contextmanager
def one_event_in_portuguese(
    qtbot: QtBot, conn: sqlite3.Connection, merge: Reason
) -> Iterator[EventsPanel]:
    """An events panel in pt-BR over one stored delivery with this charge update, the
    delivery chosen (its detail shown)."""
    from PySide6.QtCore import QLocale

    from checkout_desktop.ui.i18n import Translations

    ids = insert_events(conn, 1)
    with db.transaction(conn):
        EventRepository(conn).set_merge_outcome(ids[0], merge)
    translations = Translations()
    assert translations.install(QLocale(QLocale.Language.Portuguese, QLocale.Country.Brazil))
    try:
        panel = EventsPanel(SqliteStore(conn).events)
        qtbot.addWidget(panel)
        panel.show()
        qtbot.waitExposed(panel)
        panel.table.selectRow(0)
        assert panel.detail.shown_id == ids[0]
        yield panel
    finally:
        translations.remove()


def test_in_portuguese_the_detail_speaks_plainly_and_keeps_the_raw_delivery_behind_a_box(
    qtbot: QtBot, conn: sqlite3.Connection
) -> None:
    nothing_new = Reason.of(
        ReasonCode.INBOX_DUPLICATE,
        why=Reason.of(ReasonCode.MERGE_NOTHING_NEW, current_status="PAID"),
    )
    with one_event_in_portuguese(qtbot, conn, nothing_new) as panel:
        model = panel.model
        shown = [panel.detail.summary.text()]
        shown += [str(model.data(model.index(0, c)) or "") for c in range(model.columnCount())]
        # The words the list was written in for developers ("applied", "no change").
        jargon = ("aplicada", "sem mudança", "ignorada")
        assert not [text for text in shown if any(word in text for word in jargon)], shown
        # A notification that changed nothing is not said to have updated its charge (the
        # detail said "usada para atualizar a cobrança" above "nada de novo").
        summary = panel.detail.summary.text()
        assert "Aceita: guardada; não mudou a cobrança" in summary, summary
        assert "usada para atualizar" not in summary and "nada de novo" in summary, summary
        # Headers and the raw body are developer detail: behind a box, unticked at first.
        assert not panel.detail.text.isVisible()
        assert not panel.detail.technical.isChecked()
        panel.detail.technical.setChecked(True)
        assert panel.detail.text.isVisible()
        assert "event-type: TransactionUpdateMessage" in panel.detail.text.toPlainText()


@pytest.mark.parametrize(
    ("merge", "said"),
    [
        (
            Reason.of(
                ReasonCode.INBOX_APPLIED,
                why=Reason.of(ReasonCode.MERGE_FIRST_STATUS, status="PAID"),
            ),
            "Aceita: guardada e usada para atualizar a cobrança.",
        ),
        (
            Reason.of(
                ReasonCode.INBOX_IGNORED,
                why=Reason.of(ReasonCode.MERGE_OLDER, status="PENDING", current_status="PAID"),
            ),
            "Aceita: guardada; não mudou a cobrança (o porquê está abaixo).",
        ),
        (
            Reason.of(ReasonCode.INBOX_NOT_APPLIED, error="disk I/O error"),
            "Aceita: guardada, mas não foi possível atualizar a cobrança com ela (veja abaixo).",
        ),
    ],
)
def test_the_detail_says_whether_an_accepted_notification_changed_its_charge(
    qtbot: QtBot, conn: sqlite3.Connection, merge: Reason, said: str
) -> None:
    with one_event_in_portuguese(qtbot, conn, merge) as panel:
        lines = panel.detail.summary.text().splitlines()
    assert lines[1] == said, lines


@pytest.mark.parametrize(
    ("language", "counts"),
    [
        ("en", {0: "No events", 1: "1 event", 2: "2 events"}),
        ("pt_BR", {0: "Nenhum evento", 1: "1 evento", 2: "2 eventos"}),
    ],
)
def test_the_count_reads_as_a_sentence_in_the_clerks_language(
    qtbot: QtBot, tmp_path: Path, language: str, counts: dict[int, str]
) -> None:
    from PySide6.QtCore import QLocale

    from checkout_desktop.ui.i18n import Translations

    translations = Translations()
    if language == "pt_BR":
        assert translations.install(QLocale(QLocale.Language.Portuguese, QLocale.Country.Brazil))
    try:
        seen: dict[int, str] = {}
        for count in counts:
            connection = db.connect(tmp_path / f"count-{count}.sqlite3")
            try:
                insert_events(connection, count)
                panel = EventsPanel(SqliteStore(connection).events)
                qtbot.addWidget(panel)
                qtbot.waitUntil(lambda panel=panel, count=count: panel.model.rowCount() == count)
                seen[count] = panel.count_label.text()
            finally:
                connection.close()
        assert seen == counts
    finally:
        translations.remove()


def test_a_charge_without_notifications_says_so_rather_than_no_events(
    qtbot: QtBot, tmp_path: Path
) -> None:
    connection = db.connect(tmp_path / "one-charge.sqlite3")
    try:
        insert_events(connection, 2, charge="sale-000001")
        panel = EventsPanel(SqliteStore(connection).events)
        qtbot.addWidget(panel)
        qtbot.waitUntil(lambda: panel.model.rowCount() == 2)
        # The history's Notifications button on a charge no notification named (a 3DS sale the
        # bank refused, a reply that came before any notice).
        panel.show_charge("sale-000002")
        qtbot.waitUntil(lambda: panel.model.rowCount() == 0)
        qtbot.waitUntil(lambda: "sale-000002" in panel.count_label.text())
        assert panel.count_label.text() == "No notification has arrived for charge sale-000002."
        # Another filter as well: the plain count, since the filter may hide them.
        panel.verdict_filter.setCurrentIndex(1)
        panel.apply_filters()
        qtbot.waitUntil(lambda: panel.count_label.text() == "No events")
        panel.show_charge("sale-000001")
        panel.verdict_filter.setCurrentIndex(0)
        panel.apply_filters()
        qtbot.waitUntil(lambda: panel.count_label.text() == "2 events")
    finally:
        connection.close()


def _insert_typed(
    conn: sqlite3.Connection, n: int, event_type: str, body_type: str, verdict: Verdict
) -> None:
    body = json.dumps({"type": body_type, "id": f"typed-{n}", "data": {}}).encode()
    with db.transaction(conn):
        EventRepository(conn).insert(
            NewEvent(
                received_at=START + timedelta(seconds=n),
                verdict=verdict,
                body=body,
                body_sha256=hashlib.sha256(body).hexdigest(),
                headers={"event-type": event_type},
                event_type=event_type,
                body_type=body_type,
                layout="flat",
                event_ref=f"typed-{n}",
            )
        )


def test_in_portuguese_each_type_choice_reads_as_the_type_column_says_its_rows(
    qtbot: QtBot, conn: sqlite3.Connection
) -> None:
    from PySide6.QtCore import QLocale

    from checkout_desktop.ui.i18n import Translations

    insert_events(conn, 2)
    _insert_typed(conn, 10, "Challenge3dsUpdateMessage", "THREE_DS_CHALLENGE", Verdict.ACCEPTED)
    _insert_typed(
        conn, 11, "CheckoutDesktopSelfTest", "CHECKOUT_DESKTOP_SELF_TEST", Verdict.SELF_TEST
    )
    translations = Translations()
    assert translations.install(QLocale(QLocale.Language.Portuguese, QLocale.Country.Brazil))
    try:
        panel = EventsPanel(SqliteStore(conn).events)
        qtbot.addWidget(panel)
        model = panel.model
        seen: dict[str, set[str]] = {}
        for index in range(1, panel.type_filter.count()):
            panel.type_filter.setCurrentIndex(index)
            qtbot.waitUntil(lambda: model.rowCount() > 0, timeout=2000)
            choice = panel.type_filter.itemText(index)
            seen[choice] = {str(model.data(model.index(r, 1))) for r in range(model.rowCount())}
        # Each choice finds rows, and the column names them with the choice's own words.
        assert seen == {choice: {choice} for choice in seen}, seen
        assert "Atualização de pagamento" in seen
    finally:
        translations.remove()


def _intake_stored(conn: sqlite3.Connection, body: bytes) -> int:
    from checkout_desktop.inbox.intake import Received, classify

    intake = classify(
        Received(
            body=body,
            headers={"Content-Type": "application/json"},
            received_at=START,
            event_type=None,
            content_type="application/json",
            remote="127.0.0.1",
        )
    )
    with db.transaction(conn):
        return EventRepository(conn).insert(intake.event)


@pytest.mark.parametrize(
    ("body", "summary", "raw"),
    [
        (
            b"{'type': 'PAYMENT'}",
            "o corpo não é um JSON válido (linha 1, coluna 2)",
            "Expecting property name enclosed in double quotes",
        ),
        (
            json.dumps({"type": "THREE_DS_CHALLENGE", "id": "x"}).encode(),
            "o corpo THREE_DS_CHALLENGE não segue o formato: falta o campo data",
            "data: Field required",
        ),
    ],
)
def test_in_portuguese_a_rejected_body_reads_plainly_and_the_parser_words_stay_technical(
    qtbot: QtBot, conn: sqlite3.Connection, body: bytes, summary: str, raw: str
) -> None:
    from PySide6.QtCore import QLocale

    from checkout_desktop.ui.i18n import Translations

    event_id = _intake_stored(conn, body)
    translations = Translations()
    assert translations.install(QLocale(QLocale.Language.Portuguese, QLocale.Country.Brazil))
    try:
        panel = EventsPanel(SqliteStore(conn).events)
        qtbot.addWidget(panel)
        panel.show()
        qtbot.waitExposed(panel)
        model = panel.model
        reason_column = model.columnCount() - 1
        assert model.data(model.index(0, reason_column)) == summary
        panel.table.selectRow(0)
        qtbot.waitUntil(lambda: panel.detail.shown_id == event_id, timeout=2000)
        shown = panel.detail.summary.text()
        assert summary in shown, shown
        english = ("Expecting", "Field required", "line 1", "char")
        assert not [word for word in english if word in shown], shown
        # The parser's own words are for whoever debugs the integration: the technical detail.
        assert raw in panel.detail.text.toPlainText()
    finally:
        translations.remove()


def test_in_portuguese_a_repeated_3ds_result_names_3ds_once(
    qtbot: QtBot, conn: sqlite3.Connection
) -> None:
    from PySide6.QtCore import QLocale

    from checkout_desktop.ui.i18n import Translations
    from checkout_desktop.ui.reasons import reason_text

    translations = Translations()
    assert translations.install(QLocale(QLocale.Language.Portuguese, QLocale.Country.Brazil))
    try:
        texts = [
            reason_text(Reason.of(ReasonCode.THREE_DS_ALREADY, status="Approved")),
            reason_text(Reason.of(ReasonCode.THREE_DS_RESULT, status="Approved")),
            reason_text(Reason.of(ReasonCode.THREE_DS_RESULT_PARES, status="Rejected", pares="N")),
            reason_text(
                Reason.of(ReasonCode.THREE_DS_OLDER, status="Challenged", current_status="Approved")
            ),
            reason_text(
                Reason.of(
                    ReasonCode.CHANGE_THREE_DS, previous_status="Challenged", status="Approved"
                )
            ),
            reason_text(Reason.of(ReasonCode.TDS_RESULT_NOTIFIED, status="Approved")),
        ]
        assert texts[0] == "3DS aprovado já registrado"
        doubled = [text for text in texts if len(text.split("3DS")) - 1 > _statuses(text)]
        assert not doubled, doubled
        # An unpublished 3DS status still says it is a 3DS one.
        assert "3DS" in reason_text(Reason.of(ReasonCode.THREE_DS_ALREADY, status="Attempted"))
    finally:
        translations.remove()


def _statuses(text: str) -> int:
    """How many 3DS status labels a text holds (each names 3DS once)."""
    return sum(text.count(label) for label in ("3DS aprovado", "3DS em desafio", "3DS recusado"))
