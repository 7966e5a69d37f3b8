"""A counter on the shop's shared PostgreSQL store while that store is down: Charge says why
nothing was sent, no reason is left over from the last sale, and the banner names the database,
then clears once it answers again."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg.conninfo import conninfo_to_dict
from PySide6.QtWidgets import QApplication

from checkout_desktop.domain.enums import ChargeStatus
from checkout_desktop.domain.inbox_events import HealthLevel
from checkout_desktop.domain.records import PIX
from checkout_desktop.paths import AppPaths
from checkout_desktop.sandbox.link import start_sandbox
from checkout_desktop.settings import Settings
from checkout_desktop.terminal import Terminal
from checkout_desktop.ui import loop
from checkout_desktop.ui.problem_banner import Problem
from tests.gui.test_app_e2e import Shop, close_window, open_window, run, spin_until

pytest_plugins = ["tests.gui.card_fixtures"]
pytestmark = [pytest.mark.webengine, pytest.mark.pg, pytest.mark.slow]

HANG_S = 60.0  # a bound on a hang, never a speed claim


@pytest.fixture
def pg_shop(qapp: QApplication, tmp_path: Path, pg_url: str, sdk_slot: Any) -> Iterator[Shop]:
    paths = AppPaths(tmp_path / "config", tmp_path / "data", tmp_path / "logs").ensure()
    settings = Settings(first_run_done=True)
    settings.ui.locale = "en"
    link = start_sandbox(paths, extra_args=sdk_slot.sandbox_args)
    with loop.attached(qapp):
        terminal = run(
            Terminal.start(settings, paths, sandbox=link, listener_port=0, store_url=pg_url),
            "the terminal to start",
            HANG_S,
        )
        window = open_window(settings, terminal)
        shop = Shop(paths, settings, link, terminal, window)
        try:
            spin_until(lambda: window.charge_screen.card_page.sdk_ready, "the card page", HANG_S)
            yield shop
        finally:
            close_window(window)
            run(terminal.stop(), "the terminal to stop", HANG_S)
            link.stop()


def _cut(pg_url: str, *, allowed: bool) -> None:
    """The shop's database stops taking connections and drops the open ones (the server went
    down under the counter), or takes them again."""
    dbname = str(conninfo_to_dict(pg_url)["dbname"])
    admin_url = pg_url.replace(f"/{dbname}?", "/postgres?")
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(f'ALTER DATABASE "{dbname}" ALLOW_CONNECTIONS {str(allowed).lower()}')
        if not allowed:
            admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s",
                (dbname,),
            )


@pytest.mark.expected_errors("could not be stored", "self-test", "a read of the store failed")
def test_charge_says_the_shared_store_is_down_and_works_again_once_it_answers(
    pg_shop: Shop, pg_url: str
) -> None:
    shop = pg_shop
    screen = shop.window.charge_screen
    banner = shop.window.problem_banner
    # A paid sale: Charge refuses that sale from now on (its money is held).
    outcome = shop.charge_card("4111111111111111", amount=2590)
    assert outcome.status == ChargeStatus.PAID
    screen.update_state()
    spin_until(lambda: not screen.charge_button.isEnabled(), "Charge to grey for the paid sale")

    _cut(pg_url, allowed=False)
    try:
        spin_until(lambda: Problem.STORE in banner.problems(), "the banner to name the store")
        store_line = banner.lines[Problem.STORE].text()
        assert "shared database does not answer" in store_line
        # The inbox's own line ("sales still work") would be false now: the store's says it.
        assert Problem.INBOX not in banner.problems()

        # The next sale: nothing of the paid one greys it.
        shop.sale(1500)
        shop.type_card("5555555555554444")
        spin_until(screen.charge_button.isEnabled, "Charge to be usable for the new sale")
        screen.charge()
        spin_until(
            lambda: "shared store does not answer" in screen.blocked.text(),
            "Charge to say why nothing was sent",
            HANG_S,
        )
        assert "Nothing was sent" in screen.blocked.text()
        assert screen.current_charge is None and not screen.in_flight
    finally:
        _cut(pg_url, allowed=True)

    # Back: the banner's line goes, and Charge charges the sale without a restart.
    spin_until(lambda: Problem.STORE not in banner.problems(), "the store's line to go", HANG_S)
    spin_until(lambda: screen.blocked.text() == "", "the reason beside Charge to go", HANG_S)
    outcome = shop.charge_typed_sale("5555555555554444")
    assert outcome.status == ChargeStatus.PAID


# What the store's outage logs on its own (the inbox's self-test, the reads that fail meanwhile).
OUTAGE_ERRORS = (
    "could not be stored",
    "self-test",
    "a read of the store failed",
    "day's totals could not be read",
    "reconciliation pass failed",
    "stopping the reconciler failed",
)
CLERK_WORDS = "store does not answer"
STORE_WORDS = "Details:"
"""The shared store's own English message ends with this: the clerk never reads it as the
message, only in its tooltip."""


def _store_down(shop: Shop, pg_url: str) -> None:
    _cut(pg_url, allowed=False)
    banner = shop.window.problem_banner
    spin_until(lambda: Problem.STORE in banner.problems(), "the banner to name the store", HANG_S)


def _store_back(shop: Shop, pg_url: str) -> None:
    _cut(pg_url, allowed=True)
    banner = shop.window.problem_banner
    spin_until(lambda: Problem.STORE not in banner.problems(), "the store's line to go", HANG_S)


def _yes(box: Any) -> None:
    from PySide6.QtWidgets import QMessageBox

    assert box is not None and box.isVisible()
    box.button(QMessageBox.StandardButton.Yes).click()


@pytest.mark.expected_errors(*OUTAGE_ERRORS, "capture of")
def test_capture_on_the_result_screen_says_the_store_is_down_and_captures_once_it_answers(
    pg_shop: Shop, pg_url: str
) -> None:
    shop = pg_shop
    screen = shop.window.charge_screen
    result = screen.result
    outcome = shop.charge_card("4111111111111111", amount=4200, late_capture=True)
    assert outcome.status == ChargeStatus.PRE_AUTHORIZED

    _store_down(shop, pg_url)
    try:
        screen.capture_now()
        _yes(screen.capture_box)
        spin_until(
            lambda: CLERK_WORDS in result.message.text(),
            "the capture to say the store does not answer",
            HANG_S,
        )
        said = result.message.text()
        assert "Nothing was sent" in said, said
        assert STORE_WORDS not in said and STORE_WORDS in result.message.toolTip()
        assert result.capture_button.isEnabled()
        assert result.status.text() != "Paid"
    finally:
        _cut(pg_url, allowed=True)

    _store_back(shop, pg_url)
    screen.capture_now()
    _yes(screen.capture_box)
    spin_until(lambda: result.status.text() == "Paid", "the capture once the store answers", HANG_S)
    assert CLERK_WORDS not in result.message.text()


@pytest.mark.expected_errors(
    *OUTAGE_ERRORS, "refund of", "capture of", "timeline could not be read"
)
def test_the_history_says_the_store_is_down_in_the_clerks_words_and_reads_again_once_it_answers(
    pg_shop: Shop, pg_url: str
) -> None:
    shop = pg_shop
    window = shop.window
    paid = shop.charge_card("5555555555554444", amount=1500).merchant_charge_id
    held = shop.charge_card("4111111111111111", amount=4200, late_capture=True)
    assert held.status == ChargeStatus.PRE_AUTHORIZED
    window.show_charge(held.merchant_charge_id)
    panel = window.history_panel
    spin_until(panel.capture_button.isEnabled, "the held charge's actions", HANG_S)

    _store_down(shop, pg_url)
    try:
        # Capture and refund: the clerk's words, the store's own in the tooltip.
        for button in (panel.capture_button, panel.refund_button):
            panel.message.clear()
            button.click()
            assert panel.dialog is not None
            panel.dialog.accept()
            spin_until(lambda: CLERK_WORDS in panel.message.text(), "the store's words", HANG_S)
            said = panel.message.text()
            assert "Nothing was sent" in said, said
            assert STORE_WORDS not in said and STORE_WORDS in panel.message.toolTip()

        # Another charge chosen: the panel says it could not be read, not the last one's title.
        row = panel.model.row_of(paid)
        assert row is not None
        panel.table.selectRow(row)
        spin_until(lambda: CLERK_WORDS in panel.title.text(), "why the charge is not shown", HANG_S)
        assert held.merchant_charge_id not in panel.title.text()
        assert not panel.refund_button.isEnabled() and not panel.capture_button.isEnabled()

        # A receipt asked for meanwhile: the clerk is told, in a box of its own.
        from PySide6.QtWidgets import QMessageBox

        window.receipt(paid, as_pdf=True)

        def told() -> list[QMessageBox]:
            return [
                b
                for b in window.findChildren(QMessageBox)
                if b.isVisible() and CLERK_WORDS in b.text()
            ]

        spin_until(lambda: bool(told()), "the receipt to say the store does not answer", HANG_S)
        told()[0].reject()

        # Another search meanwhile: the list may still be the last one's, and says so.
        panel.status_filter.setCurrentIndex(1)
        note = panel.search_note
        spin_until(lambda: CLERK_WORDS in note.text(), "the list to say why", HANG_S)
        assert note.isVisibleTo(panel) and STORE_WORDS in note.toolTip()
    finally:
        _cut(pg_url, allowed=True)

    # Back: the chosen charge is read again by itself, its actions usable.
    _store_back(shop, pg_url)
    spin_until(lambda: paid in panel.title.text(), "the chosen charge to be read again", HANG_S)
    spin_until(panel.refund_button.isEnabled, "Refund to be usable again", HANG_S)
    spin_until(lambda: CLERK_WORDS not in panel.search_note.text(), "the list read again", HANG_S)


@pytest.mark.expected_errors(*OUTAGE_ERRORS)
def test_todays_figures_say_the_store_is_down_and_are_read_again_once_it_answers(
    pg_shop: Shop, pg_url: str
) -> None:
    shop = pg_shop
    window = shop.window
    shop.charge_card("5555555555554444", amount=1500)
    window.build_panels()
    today = window.day_totals
    today.refresh()
    spin_until(lambda: today.figures["sales"].text() == "1", "today's one sale", HANG_S)

    _store_down(shop, pg_url)
    try:
        # Hoje: no figure that could pass for today's, and why; nothing to print.
        today.refresh()
        sales = today.figures["sales"]
        spin_until(lambda: CLERK_WORDS in sales.text(), "Hoje to say why", HANG_S)
        assert STORE_WORDS not in sales.text() and STORE_WORDS in sales.toolTip()
        assert today.figures["gross"].text() == "—"
        assert not today.print_button.isEnabled() and not today.pdf_button.isEnabled()
    finally:
        _cut(pg_url, allowed=True)

    # Back: Hoje reads its figures again by itself.
    _store_back(shop, pg_url)
    spin_until(lambda: today.figures["sales"].text() == "1", "today's figures again", HANG_S)
    assert today.print_button.isEnabled() and today.figures["sales"].toolTip() == ""


@pytest.mark.expected_errors(*OUTAGE_ERRORS, "event list could not be read")
def test_an_events_detail_says_the_store_is_down(pg_shop: Shop, pg_url: str) -> None:
    shop = pg_shop
    window = shop.window
    shop.charge_card("5555555555554444", amount=1500)
    window.build_panels()
    events = window.events_panel
    spin_until(lambda: events.model.rowCount() > 0, "the sale's notification", HANG_S)

    _store_down(shop, pg_url)
    try:
        events.table.selectRow(0)
        summary = events.detail.summary
        spin_until(lambda: CLERK_WORDS in summary.text(), "the event's detail to say why", HANG_S)
        assert STORE_WORDS not in summary.text() and STORE_WORDS in summary.toolTip()
    finally:
        _cut(pg_url, allowed=True)

    # Back: choosing the event again shows it.
    _store_back(shop, pg_url)
    events.table.clearSelection()
    events.table.selectRow(0)
    spin_until(lambda: "Event #" in summary.text(), "the event's detail", HANG_S)
    assert summary.toolTip() == ""


@pytest.fixture
def pg_qr_shop(qapp: QApplication, tmp_path: Path, pg_url: str) -> Iterator[Shop]:
    """A counter on the shared store selling by QR; the sandbox notifies once (a delivery the
    inbox refuses is not sent again) and the inbox's health is checked only when told to."""
    paths = AppPaths(tmp_path / "config", tmp_path / "data", tmp_path / "logs").ensure()
    settings = Settings(first_run_done=True)
    settings.ui.locale = "en"
    settings.qr.customer_display = True
    link = start_sandbox(paths, extra_args=("--webhook-attempts", "1"))
    with loop.attached(qapp):
        terminal = run(
            Terminal.start(
                settings,
                paths,
                sandbox=link,
                listener_port=0,
                store_url=pg_url,
                health_interval_s=3600,
            ),
            "the terminal to start",
            HANG_S,
        )
        window = open_window(settings, terminal, load=False)
        shop = Shop(paths, settings, link, terminal, window)
        try:
            yield shop
        finally:
            close_window(window)
            run(terminal.stop(), "the terminal to stop", HANG_S)
            link.stop()


def _pix_sale(shop: Shop, amount: int) -> None:
    shop.window.tabs.setCurrentIndex(shop.window.charge_tab)
    shop.sale(amount)
    shop.window.charge_screen.tender_bar.choose(PIX)


@pytest.mark.expected_errors(*OUTAGE_ERRORS)
def test_a_qr_paid_while_the_store_was_down_is_shown_paid_once_it_answers(
    pg_qr_shop: Shop, pg_url: str
) -> None:
    shop = pg_qr_shop
    screen = shop.window.charge_screen
    banner = shop.window.problem_banner
    health = shop.terminal.inbox.health
    listener = shop.terminal.inbox.listener
    assert health is not None and listener is not None
    _pix_sale(shop, 2000)
    screen.charge()
    spin_until(lambda: screen.waiting_qr() is not None, "the QR", HANG_S)
    view = screen.waiting_qr()
    assert view is not None
    mcid = view.merchant_charge_id
    spin_until(lambda: health.status.level != HealthLevel.DOWN, "the inbox to be checked", HANG_S)

    _cut(pg_url, allowed=False)
    try:
        spin_until(lambda: Problem.STORE in banner.problems(), "the banner to name the store")
        refused = listener.stats.unavailable
        # The customer pays; the inbox cannot store the notification, and the service gives up.
        run(shop.link.pay_qr(mcid), "the payment", HANG_S)
        spin_until(lambda: listener.stats.unavailable > refused, "the notification refused")
        # The inbox's own check finds the deliveries it refused.
        run(health.check_now(), "the inbox's check", HANG_S)
        assert health.status.level == HealthLevel.DOWN
        assert screen.waiting_qr() is not None
    finally:
        _cut(pg_url, allowed=True)

    spin_until(lambda: Problem.STORE not in banner.problems(), "the store's line to go", HANG_S)
    # The panel asks the service at once: paid, on the screen and on the customer's display.
    spin_until(
        lambda: (
            screen.stack.currentWidget() is screen.result and screen.result.status.text() == "Paid"
        ),
        "the QR to be shown paid",
        20.0,
    )
    display = shop.window.customer_display
    assert display is not None and display.message.text() == "Paid — thank you!"
    # The inbox checks itself again now that the store answers (not at its next heartbeat).
    spin_until(lambda: health.status.level != HealthLevel.DOWN, "the inbox to be well", 20.0)
    spin_until(lambda: Problem.INBOX not in banner.problems(), "the inbox's line to go", 20.0)


@pytest.mark.expected_errors(*OUTAGE_ERRORS)
def test_charge_refuses_at_once_while_the_store_is_known_down(
    pg_qr_shop: Shop, pg_url: str
) -> None:
    shop = pg_qr_shop
    screen = shop.window.charge_screen
    banner = shop.window.problem_banner
    _cut(pg_url, allowed=False)
    try:
        spin_until(lambda: Problem.STORE in banner.problems(), "the banner to name the store")
        _pix_sale(shop, 700)
        spin_until(screen.charge_button.isEnabled, "Charge to be usable")
        screen.charge()
        # Said before anything else runs: no read of the store is waited for.
        assert "shared store does not answer" in screen.blocked.text()
        assert "Nothing was sent" in screen.blocked.text()
        assert screen.current_charge is None and not screen.in_flight
    finally:
        _cut(pg_url, allowed=True)
    spin_until(lambda: screen.blocked.text() == "", "the reason beside Charge to go", HANG_S)
    screen.charge()
    spin_until(lambda: screen.waiting_qr() is not None, "the QR once the store is back", HANG_S)
    # Paid, so that closing the window has no waiting QR to ask about.
    view = screen.waiting_qr()
    assert view is not None
    run(shop.link.pay_qr(view.merchant_charge_id), "the payment", HANG_S)
    spin_until(lambda: screen.waiting_qr() is None, "the QR to be paid", HANG_S)
