"""Today's totals: the day's sales, refunds and net for the running environment only."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from PySide6.QtCore import QDate, QLocale
from PySide6.QtWidgets import QApplication, QFileDialog, QFormLayout, QLabel
from pytestqt.qtbot import QtBot

from checkout_desktop.charges.views import ChargeViews
from checkout_desktop.domain.enums import ChargeStatus, TransactionStatus
from checkout_desktop.domain.records import CardSummary
from checkout_desktop.domain.state import ChargeUpdate
from checkout_desktop.domain.wire import CreditInfo, TransactionInfo
from checkout_desktop.store.sqlite import db
from checkout_desktop.store.sqlite.charges import ChargeRepository
from checkout_desktop.store.sqlite.reports import day_totals
from checkout_desktop.store.sqlite.store import SqliteStore
from checkout_desktop.ui.day_totals import DayTotalsPanel, day_range
from tests.gui.pseudo import in_portuguese
from tests.gui.test_ui_receipts import pdf_text
from tests.ledger_support import SyncLedger

BRT = timezone(timedelta(hours=-3))
DAY = datetime(2026, 11, 23, tzinfo=BRT)


@pytest.fixture(autouse=True)
def pt_br() -> Iterator[None]:
    previous = QLocale()
    QLocale.setDefault(QLocale(QLocale.Language.Portuguese, QLocale.Country.Brazil))
    yield
    QLocale.setDefault(previous)


@pytest.fixture
def repo(tmp_path: Path) -> Iterator[ChargeRepository]:
    conn = db.connect(tmp_path / "store.sqlite3")
    try:
        yield ChargeRepository(conn)
    finally:
        conn.close()


def _charge(
    repo: ChargeRepository,
    mcid: str,
    *,
    at: datetime,
    amount: int,
    status: ChargeStatus,
    brand: str = "VISA",
    refunded: int = 0,
    profile: str = "production",
) -> None:
    txn_status = {
        ChargeStatus.PAID: TransactionStatus.PAID,
        ChargeStatus.REFUNDED: TransactionStatus.REFUNDED,
        ChargeStatus.PARTIAL: TransactionStatus.PAID,
        ChargeStatus.PRE_AUTHORIZED: TransactionStatus.PRE_AUTHORIZED,
    }.get(status, TransactionStatus.DENIED)
    with db.transaction(repo.conn):
        repo.record_attempt(
            merchant_charge_id=mcid,
            sale_id=f"S-{mcid}",
            profile=profile,
            amount=amount,
            tenders=[CardSummary(brand=brand, last_four="1111")],
        )
        SyncLedger(repo).apply_update(
            ChargeUpdate(
                merchant_charge_id=mcid,
                charge_id=f"svc-{mcid}",
                status=status,
                amount=amount,
                refunded_amount=refunded,
                transactions=[
                    TransactionInfo(
                        transactionId=f"t-{mcid}",
                        transactionStatus=txn_status,
                        amount=amount,
                        credit=CreditInfo(brand=brand, cardNumber="411111******1111"),
                    )
                ],
                occurred_at=at,
                source="api",
            ),
            source="reply",
            source_ref=None,
        )
        # The charge's creation instant is what the day is counted by.
        repo.conn.execute(
            "UPDATE charge SET created_at = :at WHERE merchant_charge_id = :mcid",
            {"at": at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ"), "mcid": mcid},
        )


def _shop_day(repo: ChargeRepository) -> None:
    at = DAY.replace
    _charge(repo, "a", at=at(hour=9, minute=5), amount=10000, status=ChargeStatus.PAID)
    _charge(repo, "b", at=at(hour=9, minute=40), amount=5000, status=ChargeStatus.PAID, brand="ELO")
    _charge(repo, "c", at=at(hour=14), amount=2000, status=ChargeStatus.REFUNDED, refunded=2000)
    _charge(repo, "d", at=at(hour=15), amount=3000, status=ChargeStatus.PARTIAL, refunded=1000)
    _charge(repo, "e", at=at(hour=16), amount=7000, status=ChargeStatus.PRE_AUTHORIZED)
    _charge(repo, "f", at=at(hour=17), amount=9900, status=ChargeStatus.DENIED)
    # Not this day in Brasília (23:30 of the day before), and not this environment.
    _charge(repo, "g", at=DAY - timedelta(minutes=30), amount=100, status=ChargeStatus.PAID)
    _charge(
        repo, "h", at=at(hour=10), amount=100, status=ChargeStatus.PAID, profile="builtin-sandbox"
    )


def test_the_days_figures_count_this_environments_sales_of_that_local_day(
    repo: ChargeRepository,
) -> None:
    _shop_day(repo)
    start, end = DAY, DAY + timedelta(days=1)
    totals = day_totals(repo, start=start, end=end, profile="production", zone=BRT)
    assert totals.sales == 4  # a, b, c (refunded later), d (partly refunded)
    assert totals.gross == 10000 + 5000 + 2000 + 3000
    assert totals.refunds == 2000 + 1000
    assert totals.net == 20000 - 3000
    assert (totals.held_count, totals.held_amount) == (1, 7000)
    assert totals.denied == 1
    assert totals.by_hour == {9: (2, 15000), 14: (1, 2000), 15: (1, 3000)}
    brands = {b.brand: (b.count, b.amount) for b in totals.by_brand}
    assert brands == {"VISA": (3, 15000), "ELO": (1, 5000)}
    sandbox = day_totals(repo, start=start, end=end, profile="builtin-sandbox", zone=BRT)
    assert (sandbox.sales, sandbox.gross) == (1, 100)


def test_the_panel_shows_the_figures_and_saves_a_report(
    qtbot: QtBot, repo: ChargeRepository, tmp_path: Path
) -> None:
    _shop_day(repo)
    panel = DayTotalsPanel(ChargeViews(SqliteStore(repo.conn)), profile="production", zone=BRT)
    qtbot.addWidget(panel)
    panel.day.setDate(QDate(2026, 11, 23))
    assert day_range(QDate(2026, 11, 23), BRT) == (DAY, DAY + timedelta(days=1))
    figures = {key: label.text().replace("\u00a0", " ") for key, label in panel.figures.items()}
    assert figures["sales"] == "4"
    assert figures["gross"] == "R$ 200,00"
    assert figures["refunds"] == "R$ 30,00"
    assert figures["net"] == "R$ 170,00"
    assert figures["denied"] == "1"
    assert panel.brands.rowCount() == 2
    assert panel.brands.item(0, 0).text() == "VISA"
    assert [panel.hours.item(r, 0).text() for r in range(panel.hours.rowCount())] == [
        "09h",
        "14h",
        "15h",
    ]
    text = pdf_text(panel.save_pdf(tmp_path / "sales.pdf"))
    assert "23/11/2026" in text
    assert "R$ 170,00" in text and "ELO" in text
    panel.day.setDate(QDate(2026, 11, 24))
    assert panel.figures["sales"].text() == "0"
    assert panel.brands.rowCount() == 0


def test_a_change_just_before_closing_reads_nothing_after_the_store_closed(
    qtbot: QtBot, repo: ChargeRepository
) -> None:
    """A sale paid as the window closes: the refresh it scheduled goes with the window's bus,
    never run against the store closed after it (it raised "closed database")."""
    from checkout_desktop.domain.charge_events import ChargeChanged
    from checkout_desktop.domain.events import EventBus
    from checkout_desktop.domain.reasons import Reason, ReasonCode
    from checkout_desktop.ui.adapter import QtEventAdapter
    from checkout_desktop.ui.day_totals import REFRESH_MS

    bus = EventBus()
    adapter = QtEventAdapter(bus)
    panel = DayTotalsPanel(
        ChargeViews(SqliteStore(repo.conn)), profile="production", zone=BRT, adapter=adapter
    )
    qtbot.addWidget(panel)
    panel.day.setDate(QDate(2026, 11, 23))
    changed = ChargeChanged(
        merchant_charge_id="sale-1-01",
        sale_id="sale-1",
        status="PAID",
        previous_status=None,
        source="webhook",
        reason=Reason.of(ReasonCode.MERGE_FIRST_STATUS),
    )
    _shop_day(repo)
    assert panel.figures["sales"].text() == "0"
    bus.publish(changed)
    qtbot.waitUntil(lambda: panel.figures["sales"].text() == "4", timeout=REFRESH_MS * 4)
    bus.publish(changed)
    adapter.close()  # the window closes, then the store
    repo.conn.close()
    qtbot.wait(REFRESH_MS * 2)
    assert panel.figures["sales"].text() == "4"


def test_the_reports_suggested_file_name_is_in_the_shops_language(
    qtbot: QtBot, qapp: QApplication, repo: ChargeRepository, tmp_path: Path
) -> None:
    panel = DayTotalsPanel(
        ChargeViews(SqliteStore(repo.conn)),
        profile="production",
        zone=BRT,
        report_folder=lambda: tmp_path,
    )
    qtbot.addWidget(panel)
    panel.day.setDate(QDate(2026, 11, 23))
    with in_portuguese():
        panel.ask_pdf()
    dialog = panel.findChild(QFileDialog)
    assert dialog is not None
    assert [Path(p) for p in dialog.selectedFiles()] == [tmp_path / "vendas-2026-11-23.pdf"]
    dialog.reject()


def test_a_day_picker_showing_today_follows_the_date_at_midnight(
    qtbot: QtBot, repo: ChargeRepository
) -> None:
    _shop_day(repo)
    clock = [QDate(2026, 11, 23)]
    panel = DayTotalsPanel(
        ChargeViews(SqliteStore(repo.conn)),
        profile="production",
        zone=BRT,
        today=lambda: clock[0],
    )
    qtbot.addWidget(panel)
    assert panel.day.date() == QDate(2026, 11, 23)
    assert panel.figures["sales"].text() == "4"
    # The terminal is left open overnight: at midnight the picker moves to the new day.
    assert panel.roll_over_timer.isActive()
    clock[0] = QDate(2026, 11, 24)
    panel.roll_over()
    assert panel.day.date() == QDate(2026, 11, 24)
    assert panel.figures["sales"].text() == "0"
    assert panel.day.maximumDate() == QDate(2026, 11, 24)
    assert panel.roll_over_timer.isActive()
    # A day the clerk picked stays picked.
    panel.day.setDate(QDate(2026, 11, 23))
    clock[0] = QDate(2026, 11, 25)
    panel.roll_over()
    assert panel.day.date() == QDate(2026, 11, 23)
    assert panel.figures["sales"].text() == "4"
    # "Today" goes to the new day; no later day can be picked.
    panel.today_button.click()
    assert panel.day.date() == QDate(2026, 11, 25)
    panel.day.setDate(QDate(2026, 11, 26))
    assert panel.day.date() == QDate(2026, 11, 25)


def test_a_window_closed_before_midnight_reads_nothing_when_the_day_turns(
    qtbot: QtBot, repo: ChargeRepository
) -> None:
    """A window closed while its process lives on (a test's window, or one a launch kept): at
    midnight its picker's roll-over read the store closed after the window and logged "the
    day's totals could not be read" (seen at 00:00 UTC in a test run)."""
    from checkout_desktop.domain.events import EventBus
    from checkout_desktop.ui.adapter import QtEventAdapter

    _shop_day(repo)
    clock = [QDate(2026, 11, 23)]
    adapter = QtEventAdapter(EventBus())
    panel = DayTotalsPanel(
        ChargeViews(SqliteStore(repo.conn)),
        profile="production",
        zone=BRT,
        adapter=adapter,
        today=lambda: clock[0],
    )
    qtbot.addWidget(panel)
    assert panel.figures["sales"].text() == "4"
    assert panel.roll_over_timer.isActive()
    adapter.close()  # the window closes, then the store
    repo.conn.close()
    assert not panel.roll_over_timer.isActive()
    # Its timeout, had it been queued already: the figures stay as they were, nothing is read.
    clock[0] = QDate(2026, 11, 24)
    panel.roll_over()
    assert panel.day.date() == QDate(2026, 11, 23)
    assert panel.figures["sales"].text() == "4"
    assert not panel.roll_over_timer.isActive()


def test_the_day_picker_offers_no_day_after_today(qtbot: QtBot, repo: ChargeRepository) -> None:
    panel = DayTotalsPanel(ChargeViews(SqliteStore(repo.conn)), profile="production", zone=BRT)
    qtbot.addWidget(panel)
    now = datetime.now(BRT)
    today = QDate(now.year, now.month, now.day)
    assert panel.day.date() == today
    panel.day.setDate(today.addDays(1))
    assert panel.day.date() == today
    assert panel.day.maximumDate() == today


def test_the_report_shows_each_figure_as_the_screen_does(
    qtbot: QtBot, repo: ChargeRepository, tmp_path: Path
) -> None:
    _shop_day(repo)
    panel = DayTotalsPanel(ChargeViews(SqliteStore(repo.conn)), profile="production", zone=BRT)
    qtbot.addWidget(panel)
    panel.day.setDate(QDate(2026, 11, 23))
    held = panel.figures["held"].text().replace("\u00a0", " ")
    assert held == "1 · R$ 70,00"
    text = pdf_text(panel.save_pdf(tmp_path / "sales.pdf"))
    assert held in text
    for label in panel.figures.values():
        assert label.text().replace("\u00a0", " ") in text
    # A day with nothing held still says how many: none.
    panel.day.setDate(QDate(2026, 11, 22))
    assert "0 · R$ 0,00" in pdf_text(panel.save_pdf(tmp_path / "empty.pdf"))


def test_each_figure_stands_clear_of_its_label_in_portuguese(
    qtbot: QtBot, repo: ChargeRepository
) -> None:
    # "Autorizadas, não capturadas 0 · R$ 0,00" read as one phrase when the value began a
    # style's few pixels after the longest label.
    _shop_day(repo)
    with in_portuguese():
        panel = DayTotalsPanel(ChargeViews(SqliteStore(repo.conn)), profile="production", zone=BRT)
        qtbot.addWidget(panel)
        panel.resize(1366, 700)
        panel.show()
        qtbot.waitExposed(panel)
        form = panel.figures["held"].parentWidget().layout()
        assert isinstance(form, QFormLayout)
        for key, value in panel.figures.items():
            label = form.labelForField(value)
            assert isinstance(label, QLabel), key
            gap = value.geometry().left() - (
                label.geometry().left() + label.fontMetrics().horizontalAdvance(label.text())
            )
            assert gap >= 16, f"{label.text()!r} runs into its value ({gap} px)"
