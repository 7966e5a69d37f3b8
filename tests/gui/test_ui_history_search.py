"""The history panel: other environments hidden (read only when shown), search by every field."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from PySide6.QtCore import QDate, QLocale, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication

from checkout_desktop.charges.sale import new_sale_id
from checkout_desktop.charges.views import ChargeViews
from checkout_desktop.domain.enums import ChargeStatus, TransactionStatus
from checkout_desktop.domain.events import EventBus
from checkout_desktop.domain.records import PIX, WALLET
from checkout_desktop.domain.shown_status import ShownStatus
from checkout_desktop.domain.timestamps import utc_now
from checkout_desktop.store.sqlite.store import SqliteStore
from checkout_desktop.ui.adapter import QtEventAdapter
from checkout_desktop.ui.history_model import ChargeHistoryModel, shown_status_text
from checkout_desktop.ui.history_panel import HistoryPanel
from checkout_desktop.ui.i18n import Translations
from checkout_desktop.ui.qr_texts import qr_status_text
from tests.integration.charging_support import offline_service
from tests.integration.test_store_environments import JOAO, Clock, sell, sell_qr

logger = logging.getLogger(__name__)

PT_BR = QLocale(QLocale.Language.Portuguese, QLocale.Country.Brazil)


@pytest.fixture
def translations(qapp: QApplication) -> Iterator[Translations]:
    installed = Translations()
    yield installed
    installed.remove()


@contextmanager
def history_on(
    qtbot: Any,
    tmp_path: Path,
    arun: Callable[..., Any],
    *,
    profile: str,
    counter: str | None = None,
    sales: Callable[[SqliteStore, Clock], Awaitable[None]],
    environment_label: Callable[[str | None], str],
) -> Iterator[tuple[HistoryPanel, list[str]]]:
    """A history panel of a terminal on `profile`, over a store that `sales` filled; the list
    it yields gains every request the terminal tries to send."""
    clock = Clock()
    clock.now = utc_now()
    store = SqliteStore.open(tmp_path / "s.sqlite3", clock=clock)
    sent: list[str] = []

    async def note(request: httpx.Request) -> None:
        sent.append(str(request.url))

    # Nothing listens there: a request would fail, and is recorded before it is tried.
    http = httpx.AsyncClient(trust_env=False, event_hooks={"request": [note]})
    bus = EventBus()
    service = offline_service(store, http, profile=profile, events=bus, counter=counter)
    arun(sales(store, clock))
    adapter = QtEventAdapter(bus)
    widget = HistoryPanel(
        service=service,
        views=ChargeViews(store),
        adapter=adapter,
        pin_hash=lambda: None,
        environment_label=environment_label,
    )
    qtbot.addWidget(widget)
    try:
        yield widget, sent
    finally:
        adapter.close()
        arun(http.aclose())
        arun(store.close())


@pytest.fixture
def panel(
    qtbot: Any, tmp_path: Path, arun: Callable[..., Any], translations: Translations
) -> Iterator[tuple[HistoryPanel, list[str]]]:
    # The shop's language from the start, as the app installs it before building the window.
    assert translations.install(PT_BR)

    async def sales(store: SqliteStore, clock: Clock) -> None:
        await sell(store, clock, "real-1", amount=1500)
        await sell(
            store, clock, "real-2", amount=2990, last_four="4242", customer=("João Pereira", JOAO)
        )
        await sell(store, clock, "test-1", amount=1500, profile="builtin-sandbox")

    labels = {"production": "Produção", "builtin-sandbox": "Sandbox embutido"}
    with history_on(
        qtbot,
        tmp_path,
        arun,
        profile="production",
        sales=sales,
        environment_label=lambda name: labels.get(name or "", "?"),
    ) as made:
        yield made


def listed(panel: HistoryPanel) -> list[str]:
    model = panel.model
    return [model.record(r).merchant_charge_id for r in range(model.rowCount())]  # type: ignore[union-attr]


def test_another_environments_charges_are_hidden_then_shown_read_only(
    panel: tuple[HistoryPanel, list[str]],
) -> None:
    history, sent = panel
    assert listed(history) == ["real-2", "real-1"]
    environment = ChargeHistoryModel.COLUMNS.index("environment")
    assert history.table.isColumnHidden(environment)

    history.other_environments.setChecked(True)
    assert listed(history) == ["test-1", "real-2", "real-1"]
    assert not history.table.isColumnHidden(environment)
    model = history.model
    assert model.data(model.index(0, environment)) == "Sandbox embutido"
    assert model.data(model.index(0, 1), Qt.ItemDataRole.ForegroundRole) is not None
    assert model.data(model.index(1, 1), Qt.ItemDataRole.ForegroundRole) is None

    assert history.select_charge("test-1")
    assert not history.refund_button.isEnabled()
    assert not history.capture_button.isEnabled()
    assert not history.query_button.isEnabled()
    assert "Sandbox embutido" in history.message.text()
    assert "somente para leitura" in history.message.text()
    history.ask_refund()
    history.query_now()
    assert history.dialog is None
    assert sent == []

    assert history.select_charge("real-1")
    assert history.refund_button.isEnabled() and history.query_button.isEnabled()
    history.other_environments.setChecked(False)
    assert listed(history) == ["real-2", "real-1"]
    assert history.table.isColumnHidden(environment)


def test_another_built_in_sandboxs_charges_are_read_only_with_the_reason(
    qtbot: Any, tmp_path: Path, arun: Callable[..., Any], translations: Translations
) -> None:
    """Counters sharing a store, each on its own computer's built-in sandbox: a sale another
    counter's sandbox made, or one from before the sandbox kept its sales, is shown read only,
    and the message says which and why."""
    assert translations.install(PT_BR)

    async def sales(store: SqliteStore, clock: Clock) -> None:
        here, there = "builtin-sandbox@aqui", "builtin-sandbox@ali"
        await sell(store, clock, "mine-1", profile=here, sale_id="caixa1-0a1b2c3d4e5f")
        await sell(store, clock, "theirs-1", profile=there, sale_id="caixa2-0a1b2c3d4e5f")
        # Made before sale ids named their counter, by a sandbox that kept nothing.
        await sell(store, clock, "old-1", profile="builtin-sandbox", sale_id="0a1b2c3d4e5f")

    with history_on(
        qtbot,
        tmp_path,
        arun,
        profile="builtin-sandbox@aqui",
        counter="caixa1",
        sales=sales,
        environment_label=lambda name: "Outro sandbox embutido",
    ) as (history, sent):
        assert listed(history) == ["mine-1"]
        history.other_environments.setChecked(True)
        assert listed(history) == ["old-1", "theirs-1", "mine-1"]
        assert history.select_charge("theirs-1")
        assert not history.refund_button.isEnabled()
        assert not history.query_button.isEnabled()
        said = history.message.text()
        assert "Feita no caixa caixa2" in said and "somente para leitura" in said, said
        assert history.select_charge("old-1")
        assert not history.refund_button.isEnabled()
        said = history.message.text()
        assert "sandbox embutido anterior" in said and "somente para leitura" in said, said
        assert history.select_charge("mine-1")
        assert history.refund_button.isEnabled() and history.query_button.isEnabled()
        assert sent == []


def test_the_search_fields_narrow_the_list_and_the_customer_is_a_column(
    panel: tuple[HistoryPanel, list[str]], qtbot: Any
) -> None:
    history, _ = panel
    customer = ChargeHistoryModel.COLUMNS.index("customer")
    model = history.model
    assert model.data(model.index(0, customer)) == "João Pereira"
    assert model.data(model.index(0, customer), Qt.ItemDataRole.ToolTipRole) == "529.982.247-25"
    assert model.headerData(customer, Qt.Orientation.Horizontal) == "Cliente"

    qtbot.keyClicks(history.customer_search, "joao")
    qtbot.waitUntil(lambda: listed(history) == ["real-2"], timeout=3000)
    history.customer_search.clear()
    history.apply_search()
    qtbot.keyClicks(history.customer_search, "658.443.590-38")
    history.apply_search()
    assert listed(history) == ["real-1"]
    history.clear_search()
    assert listed(history) == ["real-2", "real-1"]

    qtbot.keyClicks(history.last_four_search, "42")
    assert listed(history) == ["real-2", "real-1"]  # searched only once four digits are in
    qtbot.keyClicks(history.last_four_search, "42")
    assert listed(history) == ["real-2"]
    qtbot.keyClicks(history.last_four_search, "x")
    assert history.last_four_search.text() == "4242"
    history.clear_search()

    # The amount: empty means any amount (no R$ 0,00 that reads as "charges of zero").
    amount = history.amount_search
    assert amount.text() == "" and amount.placeholderText() == "Qualquer valor"
    amount.setFocus()
    qtbot.keyClicks(amount, "1500")
    history.apply_search()
    assert amount.text() == "R$\xa015,00"
    assert listed(history) == ["real-1"]
    qtbot.keyClick(amount, Qt.Key.Key_Delete)
    history.apply_search()
    assert amount.text() == "" and listed(history) == ["real-2", "real-1"]
    amount.set_centavos(1500)
    history.customer_search.setText("joão")  # QTest cannot type non-ASCII keys
    history.apply_search()
    assert listed(history) == []
    assert history.search_note.text() == "Nenhuma cobrança corresponde a esta busca."
    history.clear_search()
    assert not history.search_note.text() and amount.text() == ""

    history.period.setCurrentIndex(history.period.findData("yesterday"))
    assert listed(history) == []
    history.period.setCurrentIndex(history.period.findData("today"))
    assert listed(history) == ["real-2", "real-1"]
    history.period.setCurrentIndex(history.period.findData("between"))
    assert history.date_from.isVisibleTo(history)
    assert listed(history) == ["real-2", "real-1"]
    # A range of days: both ends count whole, in either order.
    today = QDate.currentDate()
    history.date_from.setDate(today.addDays(-3))
    history.date_to.setDate(today.addDays(-1))
    assert listed(history) == []
    history.date_to.setDate(today)
    assert listed(history) == ["real-2", "real-1"]
    history.date_from.setDate(today)
    history.date_to.setDate(today.addDays(-2))
    assert listed(history) == ["real-2", "real-1"]
    history.date_from.setDate(today.addDays(1))
    history.date_to.setDate(today.addDays(5))
    assert listed(history) == []


def test_only_this_environments_unresolved_attempts_are_offered(
    panel: tuple[HistoryPanel, list[str]], arun: Callable[..., Any]
) -> None:
    history, _ = panel
    store = history._service.store

    async def open_attempt(mcid: str, profile: str) -> None:
        from checkout_desktop.domain.records import CardSummary

        async with store.unit_of_work() as uow:
            await uow.charges.record_attempt(
                merchant_charge_id=mcid,
                sale_id=f"sale-{mcid}",
                profile=profile,
                amount=500,
                tenders=[CardSummary("VISA", "1111")],
            )

    arun(open_attempt("t-open-here", "production"))
    arun(open_attempt("t-open-elsewhere", "builtin-sandbox"))
    history.refresh_unresolved()
    offered = [history.unresolved.itemData(i) for i in range(history.unresolved.count())]
    assert offered == ["t-open-here"]
    views = ChargeViews(store)
    assert arun(views.unresolved_count(profile="production")) == 1
    assert arun(views.unresolved_count()) == 2


def test_the_customer_column_is_in_view_on_a_1024_screen(
    panel: tuple[HistoryPanel, list[str]], qtbot: Any
) -> None:
    history, _ = panel
    # The history's width in a maximised window on a 1024×768 screen.
    history.resize(1000, 680)
    history.show()
    qtbot.waitExposed(history)
    header = history.table.horizontalHeader()
    column = ChargeHistoryModel.COLUMNS.index("customer")
    right = header.sectionViewportPosition(column) + header.sectionSize(column)
    assert right <= history.table.viewport().width(), (right, history.table.viewport().width())
    # The charge id, the amount and the date still fit their cells.
    index = history.model.index(0, ChargeHistoryModel.COLUMNS.index("charge"))
    needed = history.table.fontMetrics().horizontalAdvance(str(index.data())) + 8
    assert history.table.columnWidth(index.column()) >= needed


def test_a_counters_charge_id_is_whole_in_its_cell(
    panel: tuple[HistoryPanel, list[str]], qtbot: Any, arun: Callable[..., Any]
) -> None:
    # The ids the terminal makes: the counter's id, the sale's 12 hex digits, the attempt.
    history, _ = panel
    clock = Clock()
    clock.now = utc_now()
    mcid = f"{new_sale_id('mwn5e')}-01"
    arun(sell(history._service.store, clock, mcid, amount=4500))
    history.model.refresh()
    qtbot.waitUntil(lambda: mcid in listed(history), timeout=3000)
    history.resize(1000, 680)
    history.show()
    qtbot.waitExposed(history)
    row = listed(history).index(mcid)
    column = ChargeHistoryModel.COLUMNS.index("charge")
    rect = history.table.visualRect(history.model.index(row, column))
    needed = history.table.fontMetrics().horizontalAdvance(mcid) + 8
    assert rect.width() >= needed, (rect.width(), needed)
    # And the customer is still in view.
    header = history.table.horizontalHeader()
    customer = ChargeHistoryModel.COLUMNS.index("customer")
    right = header.sectionViewportPosition(customer) + header.sectionSize(customer)
    assert right <= history.table.viewport().width(), (right, history.table.viewport().width())


def test_the_timeline_keeps_its_status_column_in_view_on_a_1024_screen(
    panel: tuple[HistoryPanel, list[str]], qtbot: Any
) -> None:
    history, _ = panel
    history.resize(1000, 680)
    history.show()
    qtbot.waitExposed(history)
    view = history.timeline_view
    header = view.horizontalHeader()
    status = history.timeline.COLUMNS.index("status")
    what = history.timeline.COLUMNS.index("what")
    right = header.sectionViewportPosition(status) + header.sectionSize(status)
    assert right <= view.viewport().width(), (right, view.viewport().width())
    # The sentence takes what is left, and the sources' names fit their column.
    assert header.sectionSize(what) >= 250
    source = history.timeline.COLUMNS.index("source")
    needed = view.fontMetrics().horizontalAdvance("Terminal consultou o serviço")
    assert header.sectionSize(source) >= needed


def test_a_waiting_qrs_status_fits_its_columns_on_a_1024_screen(
    panel: tuple[HistoryPanel, list[str]], qtbot: Any
) -> None:
    history, _ = panel
    history.resize(1000, 680)
    history.show()
    qtbot.waitExposed(history)
    # A new QR reads "Aguardando pagamento" in the list and the timeline, the longest status
    # either shows; both columns hold it whole.
    waiting = qr_status_text("PRE_AUTHORIZED")
    assert waiting == "Aguardando pagamento"
    needed = history.table.fontMetrics().horizontalAdvance(waiting)
    status = ChargeHistoryModel.COLUMNS.index("status")
    assert history.table.columnWidth(status) >= needed
    view = history.timeline_view
    after = history.timeline.COLUMNS.index("status")
    assert view.columnWidth(after) >= view.fontMetrics().horizontalAdvance(waiting)


def test_the_status_filter_speaks_the_clerks_words_and_finds_what_it_names(
    panel: tuple[HistoryPanel, list[str]], arun: Callable[..., Any]
) -> None:
    history, _ = panel
    store = history._service.store
    clock = Clock()
    clock.now = utc_now()
    pre = ChargeStatus.PRE_AUTHORIZED
    arun(sell_qr(store, clock, "pix-waiting", PIX, [(pre, TransactionStatus.PENDING)]))
    arun(
        sell_qr(
            store,
            clock,
            "wallet-paid",
            WALLET,
            [(ChargeStatus.AUTHORIZED, TransactionStatus.CAPTURED)],
        )
    )
    history.apply_search()
    box = history.status_filter
    choices = [box.itemText(i) for i in range(box.count())]
    assert choices[0] == "Todas as situações"
    for words in ("Aguardando pagamento", "Paga", "Expirada", "Não cobrada", "Pré-autorizada"):
        assert words in choices, choices
    assert len(set(choices)) == len(choices), choices

    def choose(words: str) -> list[str]:
        box.setCurrentIndex(choices.index(words))
        return listed(history)

    # Each row is found under the words it is shown with, and only there.
    assert choose("Aguardando pagamento") == ["pix-waiting"]
    assert choose("Paga") == ["wallet-paid", "real-2", "real-1"]
    assert choose("Pré-autorizada") == []
    assert choose("Autorizada") == []
    status = ChargeHistoryModel.COLUMNS.index("status")
    model = history.model
    for words in choices[1:]:
        for row in range(len(choose(words))):
            assert model.data(model.index(row, status)) == words
    history.clear_search()
    assert box.currentIndex() == 0
    assert listed(history) == ["wallet-paid", "pix-waiting", "real-2", "real-1"]


def test_every_shown_status_has_its_words(translations: Translations) -> None:
    # The history's rows and its filter use one text per category; none is shown as a code.
    for language in ("en", "pt_BR"):
        # English is the source text; then the shop's language.
        assert language == "en" or translations.install(PT_BR)
        texts = [shown_status_text(shown) for shown in ShownStatus]
        assert len(set(texts)) == len(texts), texts
        for shown, text in zip(ShownStatus, texts, strict=True):
            assert text and text != shown.value and text != "—", (shown, text)
    assert shown_status_text(ShownStatus.AWAITING_PAYMENT) == "Aguardando pagamento"
    assert shown_status_text(ShownStatus.NOT_CHARGED) == "Não cobrada"
    assert shown_status_text(None) == "—"
    # A status the service has not published is shown (and found) as it came.
    assert shown_status_text(ShownStatus("SETTLED")) == "SETTLED"


def test_a_pasted_non_amount_in_the_amount_search_says_why_and_keeps_the_search(
    panel: tuple[HistoryPanel, list[str]], qtbot: Any
) -> None:
    # "12.50" is no amount in reais: the clerk is told so, in Portuguese, and what was in
    # the field stays, and so does the list it found.
    history, _sent = panel
    amount = history.amount_search
    QGuiApplication.clipboard().setText("12.50")
    amount.setFocus()
    qtbot.keyClick(amount, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)
    assert amount.text() == ""
    assert history.search_note.isVisibleTo(history)
    assert history.search_note.text().startswith("Isso não é um valor em reais")
    assert listed(history) == ["real-2", "real-1"]

    qtbot.keyClicks(amount, "1500")
    history.apply_search()
    assert listed(history) == ["real-1"]
    assert not history.search_note.isVisibleTo(history)
    QGuiApplication.clipboard().setText("quinze")
    qtbot.keyClick(amount, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)
    assert history.search_note.text().startswith("Isso não é um valor em reais")
    assert amount.text() == "R$\xa015,00"
    history.apply_search()
    assert listed(history) == ["real-1"]
