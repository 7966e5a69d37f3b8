"""End to end on the built-in sandbox: the real window charges each test card from the charge
screen to its final status in the event list and the timeline; refund and capture from the UI;
a restart shows the same history.

One sandbox process, one terminal core and one main window (with one card page load) serve the
whole module, since a QtWebEngine page load is the expensive part; each test starts a new sale.
Card numbers are typed into the page as a person would (tests are allowed to hold the public
test cards; the terminal's Python never receives them — the last test checks the store).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pytest
from PySide6.QtCore import QCoreApplication, QEvent, QEventLoop, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from checkout_desktop.charges.service import ChargeOutcome
from checkout_desktop.charges.shop import learned_key
from checkout_desktop.domain.enums import ChargeStatus
from checkout_desktop.domain.reasons import ReasonCode
from checkout_desktop.domain.records import ChargeRecord
from checkout_desktop.domain.state import AttemptState
from checkout_desktop.domain.three_ds import ThreeDsFallback, ThreeDsPolicy
from checkout_desktop.paths import AppPaths
from checkout_desktop.sandbox.api import ADMIN_HEADER
from checkout_desktop.sandbox.link import SandboxLink, start_sandbox
from checkout_desktop.settings import Settings
from checkout_desktop.terminal import Terminal
from checkout_desktop.ui import loop
from checkout_desktop.ui.card_page import SdkCredentialSource
from checkout_desktop.ui.challenge_view import ChallengeView
from checkout_desktop.ui.charge_screen import ChargeScreen
from checkout_desktop.ui.event_model import EVENT_ID_ROLE
from checkout_desktop.ui.formatting import format_money
from checkout_desktop.ui.main_window import MainWindow, merchant_of
from checkout_desktop.ui.qt_app import build_card_page
from checkout_desktop.ui.reasons import reason_text
from checkout_desktop.ui.supervisor import hash_pin
from checkout_desktop.ui.timeline_text import what_happened
from checkout_desktop.ui.webview import register_schemes
from tests.ledger_support import run_inline

logger = logging.getLogger(__name__)

# The card tests' plugin fixes this process's Chromium flags after collection: the SDK host maps
# to one "SDK slot" (a port and a certificate) that every in-process sandbox serves.
pytest_plugins = ["tests.gui.card_fixtures"]

# Chromium fixes its scheme table when it starts: before any QApplication exists.
register_schemes()

pytestmark = [pytest.mark.webengine, pytest.mark.slow]

T = TypeVar("T")
CPF = "529.982.247-25"
SUPERVISOR_PIN = "2468"


def spin_until(predicate: Callable[[], bool], what: str, timeout_s: float = 20.0) -> None:
    """Let Qt (and the qasync loop riding on it) run until `predicate()` holds."""
    deadline = time.monotonic() + timeout_s
    while not predicate():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout_s:g} s waiting for {what}")
        QCoreApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 20)
        time.sleep(0.002)


def run(aw: Any, what: str, timeout_s: float = 20.0) -> Any:
    task = asyncio.ensure_future(aw)
    spin_until(task.done, what, timeout_s)
    return task.result()


@dataclass
class Shop:
    """The running terminal and its window."""

    paths: AppPaths
    settings: Settings
    link: SandboxLink
    terminal: Terminal
    window: MainWindow

    def js(self, code: str) -> Any:
        done: list[Any] = []
        self.window.charge_screen.card_page.page.runJavaScript(code, 0, done.append)
        spin_until(lambda: bool(done), "JavaScript in the card page")
        return done[0]

    def type_card(self, number: str, cvv: str = "123") -> None:
        """Type a card into the page's fields, as staff would (the page tokenizes it)."""
        fields = {
            "number": number,
            "holder-name": "Maria da Silva",
            "holder-document": "52998224725",
            "exp-month": "12",
            "exp-year": "2031",
            "cvv": cvv,
        }
        self.js(
            "(function (f) { for (var id in f) { var e = document.getElementById(id);"
            " e.focus(); e.value = f[id]; e.dispatchEvent(new Event('input', {bubbles: true})); }"
            f" return true; }}({json.dumps(fields)}))"
        )

    def sale(self, amount: int, *, late_capture: bool = False, installments: int = 1) -> None:
        screen = self.window.charge_screen
        screen.new_sale()
        form = screen.form
        form.amount.set_centavos(amount)
        form.installments.setValue(installments)
        form.late_capture.setChecked(late_capture)
        form.customer_name.setText("Maria da Silva")
        form.customer_email.setText("maria@example.com")
        form.customer_document.setText(CPF)
        form.customer_phone.setText("(11) 98765-4321")

    def charge_card(self, number: str, amount: int = 1990, **sale: Any) -> ChargeOutcome:
        """A whole sale from the charge screen: fields, card, the Charge action, the result."""
        self.window.tabs.setCurrentIndex(self.window.charge_tab)
        self.sale(amount, **sale)
        return self.charge_typed_sale(number)

    def charge_typed_sale(self, number: str) -> ChargeOutcome:
        """The card, the Charge action and the result, for the sale the form holds now."""
        screen = self.window.charge_screen
        spin_until(lambda: screen.card_page.sdk_ready, "the card page's SDK")
        self.type_card(number, cvv="1234" if number.startswith("3") else "123")
        outcomes: list[ChargeOutcome] = []
        screen.charge_finished.connect(outcomes.append)
        try:
            assert screen.charge_button.isEnabled(), screen.form.errors.text()
            screen.charge_button.click()
            spin_until(lambda: bool(outcomes), f"the charge of {number[-4:]}", 30)
        finally:
            screen.charge_finished.disconnect(outcomes.append)
        return outcomes[0]

    def record(self, mcid: str) -> ChargeRecord:
        record = self.terminal.service.store.repo.charge(mcid)
        assert record is not None, mcid
        return record

    def wait_status(self, mcid: str, status: ChargeStatus, timeout_s: float = 20.0) -> None:
        repo = self.terminal.service.store.repo

        def reached() -> bool:
            record = repo.charge(mcid)
            return record is not None and record.status == status

        spin_until(reached, f"{mcid} to become {status}", timeout_s)

    def event_rows(self, mcid: str) -> list[tuple[str, str]]:
        """(status shown, delivery shown) of the event list's rows for one charge."""
        model = self.window.events_panel.model
        model.flush_now()
        rows = []
        for row in range(model.rowCount()):
            summary = model.summary(row)
            if summary is not None and summary.merchant_charge_id == mcid:
                rows.append((model.data(model.index(row, 2)), model.data(model.index(row, 4))))
        return rows

    def timeline_sources(self, mcid: str) -> list[tuple[str, str | None, str | None]]:
        self.window.show_charge(mcid)
        model = self.window.history_panel.timeline
        assert model.merchant_charge_id == mcid
        return [(r.source, r.input_status, r.new_status) for r in model.records()]


def admin(shop: Shop, method: str, path: str, body: dict[str, str] | None = None) -> None:
    """One call to the built-in sandbox's admin API (variants, the simulated payer)."""
    info = shop.link.info
    reply = httpx.request(
        method,
        f"{info.base_url}{path}",
        json=body,
        headers={ADMIN_HEADER: info.admin_token},
        timeout=10,
        trust_env=False,
    )
    assert reply.status_code == 200, reply.text


def sandbox_requires(shop: Shop, fields: str) -> None:
    """Which customer fields the sandbox's service variant requires."""
    admin(shop, "PATCH", "/_sandbox/variants", {"require": fields})


@pytest.fixture(scope="module")
def shop(
    qapp: QApplication, tmp_path_factory: pytest.TempPathFactory, sdk_slot: Any
) -> Iterator[Shop]:
    home = tmp_path_factory.mktemp("shop")
    paths = AppPaths(home / "config", home / "data", home / "logs").ensure()
    settings = Settings(first_run_done=True)
    # Short enough that the slow test card's reply misses it (the ambiguous case).
    settings.profiles["builtin-sandbox"].request_timeout_s = 1.5
    settings.ui.supervisor_pin_hash = hash_pin(SUPERVISOR_PIN)
    settings.ui.locale = "en"
    link = start_sandbox(
        paths,
        extra_args=(
            *sdk_slot.sandbox_args,
            *("--slow-card-delay", "3", "--webhook-backoff", "0.2"),
        ),
    )
    # The terminal applies its Chromium flags itself when it runs; in this test process the
    # plugin already did, for the slot this sandbox serves.
    assert (link.info.sdk_port, link.info.sdk_spki_sha256_b64) == (
        sdk_slot.port,
        sdk_slot.spki_sha256_b64,
    )
    with loop.attached(qapp):
        terminal = run(
            Terminal.start(settings, paths, sandbox=link, listener_port=0), "the terminal to start"
        )
        window = open_window(settings, terminal)
        shop = Shop(paths, settings, link, terminal, window)
        try:
            spin_until(lambda: window.charge_screen.card_page.sdk_ready, "the card page", 30)
            yield shop
        finally:
            close_window(shop.window)
            run(shop.terminal.stop(), "the terminal to stop")
            link.stop()


def open_window(settings: Settings, terminal: Terminal, *, load: bool = True) -> MainWindow:
    card_page = build_card_page(
        settings, SdkCredentialSource(terminal.merchant_document, terminal.credentials)
    )
    window = MainWindow(
        settings=settings,
        bus=terminal.bus,
        service=terminal.service,
        views=terminal.views,
        events=terminal.events,
        card_page=card_page,
        merchant=merchant_of(settings.profile, terminal.merchant_document),
        persist=lambda _chosen: None,
        secrets=None,
        acknowledge_url=terminal.acknowledge_url,
    )
    window.adapter.replay(terminal.current_state())
    window.resize(1280, 800)
    window.show()
    if load:
        card_page.load()
    return window


def close_window(window: MainWindow) -> None:
    # As a shutdown closes it: nothing asked about QRs a test left waiting.
    window.request_close()
    window.close()
    window.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    QCoreApplication.processEvents()


APPROVED = [
    ("4111111111111111", "VISA"),
    ("5555555555554444", "MASTERCARD"),
    ("6362970000457013", "ELO"),
    ("378282246310005", "AMEX"),
    ("6062825624254001", "HIPERCARD"),
]


@pytest.mark.parametrize(("number", "brand"), APPROVED, ids=[b for _, b in APPROVED])
def test_an_approved_card_is_paid_in_screen_list_and_timeline(
    shop: Shop, number: str, brand: str
) -> None:
    outcome = shop.charge_card(number, amount=2590)
    assert outcome.attempt == AttemptState.CREATED
    assert outcome.status == ChargeStatus.PAID
    mcid = outcome.merchant_charge_id
    result = shop.window.charge_screen.result
    assert result.status.text() == "Paid"
    assert f"{brand} •••• {number[-4:]}" in result.cards.text()
    record = shop.record(mcid)
    txn = record.state.transactions[0]
    assert txn.authorization_code and txn.authorization_code in result.cards.text()
    assert txn.nsu and txn.nsu in result.cards.text()
    spin_until(lambda: ("Paid", "Accepted") in shop.event_rows(mcid), "the PAID notification")
    history = shop.window.history_panel.model
    row = history.row_of(mcid)
    assert row is not None
    assert history.data(history.index(row, 3)) == "Paid"
    sources = shop.timeline_sources(mcid)
    assert sources[0][0] == "request"
    assert ("reply", "PAID", "PAID") in sources
    assert any(source == "webhook" for source, _, _ in sources)
    # A paid sale cannot be charged again; trying says why.
    screen = shop.window.charge_screen
    screen.update_state()
    assert not screen.charge_button.isEnabled()
    assert screen.blocked.text() == ""  # no alarm until the clerk tries
    screen.charge()
    check = run_inline(shop.terminal.views.can_start_charge(screen.sale_id))
    assert check.reason is not None and check.reason.code == ReasonCode.START_MONEY_HELD
    assert screen.blocked.text() == reason_text(check.reason)


def test_a_denied_card_is_denied_everywhere_and_the_sale_can_retry(shop: Shop) -> None:
    outcome = shop.charge_card("4000000000000002")
    assert outcome.status == ChargeStatus.DENIED
    mcid = outcome.merchant_charge_id
    screen = shop.window.charge_screen
    assert screen.result.status.text() == "Denied"
    assert screen.result.retry_button.isVisibleTo(screen.result)
    spin_until(lambda: ("Denied", "Accepted") in shop.event_rows(mcid), "the DENIED notification")
    assert ("reply", "DENIED", "DENIED") in shop.timeline_sources(mcid)
    # Nothing is held after a denial: the same sale may try another card.
    screen.result.retry_button.click()
    assert screen.stack.currentIndex() == 0
    screen.update_state()
    assert screen.blocked.text() == ""


def test_3ds_cards_without_3ds_are_decided_at_once(shop: Shop) -> None:
    # With 3DS off, a card whose issuer insists on it is denied in the reply: never pending.
    for number in ("4000000000003220", "4000008400001629"):
        outcome = shop.charge_card(number)
        assert outcome.status == ChargeStatus.DENIED
        result = shop.window.charge_screen.result
        assert result.status.text() == "Denied"
        assert not result.print_button.isEnabled()


def test_a_denied_card_says_what_to_do_and_keeps_the_service_words_apart(shop: Shop) -> None:
    outcome = shop.charge_card("4000000000000002")
    assert outcome.status == ChargeStatus.DENIED
    result = shop.window.charge_screen.result
    # What the clerk does next, in the screen's words.
    assert "another card or another way to pay" in result.message.text()
    card_line, *rest = result.cards.text().splitlines()
    assert card_line.startswith("VISA •••• 0002")
    # The service's own text is a secondary line, said to be the service's.
    assert "NAO AUTORIZADA" not in card_line
    assert rest == ["    Service's reply: NAO AUTORIZADA"]


@contextmanager
def three_ds(shop: Shop, fallback: ThreeDsFallback = "refuse") -> Iterator[ChargeScreen]:
    screen = shop.window.charge_screen
    screen.three_ds_policy = ThreeDsPolicy(mode="always", fallback=fallback)
    try:
        yield screen
    finally:
        screen.three_ds_policy = ThreeDsPolicy()


def history_row(shop: Shop, mcid: str) -> dict[str, Any]:
    """The charge opened in the history, its row as shown there, column by column."""
    shop.window.show_charge(mcid)
    history = shop.window.history_panel.model
    spin_until(lambda: history.row_of(mcid) is not None, "the sale in the history")
    row = history.row_of(mcid)
    assert row is not None
    return {
        name: history.data(history.index(row, column))
        for column, name in enumerate(history.COLUMNS)
    }


def challenge_js(view: ChallengeView, code: str, what: str) -> Any:
    done: list[Any] = []
    view.page.runJavaScript(code, 0, done.append)
    spin_until(lambda: bool(done), what)
    return done[0]


def start_charge(shop: Shop, number: str) -> list[ChargeOutcome]:
    """Press Charge for a card and return the list its outcome will land in."""
    shop.window.tabs.setCurrentIndex(shop.window.charge_tab)
    shop.sale(2590)
    screen = shop.window.charge_screen
    spin_until(lambda: screen.card_page.sdk_ready, "the card page's SDK")
    shop.type_card(number)
    outcomes: list[ChargeOutcome] = []
    screen.charge_finished.connect(outcomes.append)
    assert screen.charge_button.isEnabled(), screen.form.errors.text()
    screen.charge_button.click()
    return outcomes


def bank_page(screen: ChargeScreen) -> ChallengeView:
    """The challenge panel, once the bank's page (the sandbox's ACS) asks for the code."""
    spin_until(lambda: screen.challenge is not None, "the bank's challenge panel", 30)
    view = screen.challenge
    assert view is not None
    assert view.isVisible()
    assert screen.charge_button.text() == "Waiting for the customer at the bank…"
    assert not screen.charge_button.isEnabled()
    # Our page posts the JWT; the bank's page is there once its title is (a script run while
    # the form is still being posted would be dropped with the old document).
    spin_until(lambda: view.page.title() == "Sandbox ACS", "the bank's page", 30)
    assert view.page.url().path() == "/3ds/acs/challenge"
    assert challenge_js(view, "!!document.getElementById('acs-code')", "the ACS form") is True
    return view


def type_code(view: ChallengeView, code: str) -> None:
    challenge_js(
        view,
        "(function (c) { var e = document.getElementById('acs-code'); e.value = c;"
        " document.getElementById('acs-form').submit(); return true; })"
        f"({json.dumps(code)})",
        "typing the code",
    )


def test_3ds_frictionless_card_is_paid_with_one_status_at_a_time(shop: Shop) -> None:
    with three_ds(shop) as screen:
        shown: list[str] = []
        screen.flight_status.connect(shown.append)
        outcomes = start_charge(shop, "4000000000003063")
        spin_until(lambda: bool(outcomes), "the 3DS charge's outcome", 30)
        screen.flight_status.disconnect(shown.append)
        outcome = outcomes[0]
        assert (outcome.attempt, outcome.status) == (AttemptState.CREATED, ChargeStatus.PAID)
        assert shown == ["Authenticating…", "Charging…"]
        # The page's measures of the shopper's browser, with the view's own user agent.
        browser = screen.card_page.browser_info()
        assert browser is not None
        assert "QtWebEngine" in browser.userAgentBrowserValue
        assert browser.httpBrowserJavaScriptEnabled
        assert screen.result.status.text() == "Paid"
        assert screen.result.print_button.isEnabled()
        assert screen.challenge is None
        spin_until(
            lambda: "3DS approved" in screen.result.three_ds.text(), "the 3DS status on screen"
        )
        # Said once: the label names 3DS itself, on the result screen and in the history.
        assert screen.result.three_ds.text() == "3DS approved"
        shop.window.show_charge(outcome.merchant_charge_id)
        title = shop.window.history_panel.title.text()
        assert "3DS approved" in title and "3DS 3DS" not in title, title


@pytest.mark.parametrize(
    ("code", "status", "receipt"),
    [("1234", "Paid", True), ("0000", "Authentication failed", False)],
)
def test_3ds_challenge_typed_into_the_bank_page(
    shop: Shop, code: str, status: str, receipt: bool
) -> None:
    with three_ds(shop) as screen:
        outcomes = start_charge(shop, "4000000000003220")
        view = bank_page(screen)
        assert (view.view.width(), view.view.height()) == (390, 400)
        assert "bank asks for a confirmation" in view.heading.text()
        # No receipt and no second charge while the customer answers.
        assert screen.stack.currentIndex() == 0
        # The status bar does not call the charge on screen an unknown outcome meanwhile.
        assert shop.window.status.attempts.text() == "No open attempts"
        type_code(view, code)
        spin_until(lambda: bool(outcomes), "the 3DS charge's outcome", 30)
        assert screen.result.status.text() == status
        assert screen.result.print_button.isEnabled() is receipt
        assert screen.challenge is None
        mcid = outcomes[0].merchant_charge_id
        flow = shop.terminal.service.store.repo.three_ds_flow(mcid)
        assert flow is not None and flow.result == ("AUTHENTICATED" if receipt else "REJECTED")
        # A charge (with a status) exists only once the customer approved.
        record = shop.terminal.service.store.repo.charge(mcid)
        charged = record is not None and record.status is not None
        assert charged is receipt
        # The timeline tells each 3DS step in its own words, never 'more details arrived'.
        story = [what_happened(r) for r in shop.terminal.service.store.repo.timeline(mcid).items]
        assert not [line for line in story if line.startswith("More details")], story
        assert any(line.startswith("3DS enrollment answered") for line in story), story


@contextmanager
def faults(shop: Shop, **values: float) -> Iterator[None]:
    """The sandbox process's faults for the block, then none again."""
    url = f"{shop.link.info.base_url}/_sandbox/faults"
    headers = {"X-Sandbox-Admin-Token": shop.link.info.admin_token}
    assert httpx.patch(url, json=values, headers=headers, timeout=10).status_code == 200
    try:
        yield
    finally:
        reset = dict.fromkeys(values, 0.0)
        assert httpx.patch(url, json=reset, headers=headers, timeout=10).status_code == 200


def test_a_late_3ds_notification_leaves_the_result_as_shown(shop: Shop) -> None:
    # The status endpoint decides first; the notification lands once the result is on screen.
    with faults(shop, webhook_delay_s=6.0), three_ds(shop) as screen:
        outcomes = start_charge(shop, "4000000000003220")
        type_code(bank_page(screen), "0000")
        spin_until(lambda: bool(outcomes), "the 3DS charge's outcome", 30)
        result = screen.result
        # What the status endpoint said is the charge's at once, its 3DS line included.
        spin_until(lambda: "3DS rejected" in result.three_ds.text(), "the 3DS line", 10)
        shown = (
            result.status.text(),
            result.amount.text(),
            result.message.text(),
            result.three_ds.text(),
        )
        assert shown[0] == "Authentication failed"
        assert "25.90" in shown[1]
        assert result.retry_button.isVisibleTo(result)
        mcid = outcomes[0].merchant_charge_id
        repo = shop.terminal.service.store.repo
        spin_until(
            lambda: any(e.source == "webhook" for e in repo.timeline(mcid).items),
            "the late notification",
            30,
        )
        # A moment for whatever the notification publishes to reach the screen.
        settled = time.monotonic() + 0.5
        spin_until(lambda: time.monotonic() > settled, "the notification's events", 5)
        # It changed nothing: the status, the amount, the reason, the 3DS line and the offer
        # of another card stay as they were.
        assert (
            result.status.text(),
            result.amount.text(),
            result.message.text(),
            result.three_ds.text(),
        ) == shown
        assert result.retry_button.isVisibleTo(result)
        assert not result.print_button.isEnabled()


def test_3ds_rejected_and_unavailable_follow_the_policy(shop: Shop) -> None:
    with three_ds(shop) as screen:
        outcome = shop.charge_card("4000008400001629")
        assert outcome.message.code == ReasonCode.TDS_ENDED
        assert screen.result.status.text() == "Authentication failed"
        # Said as the other charges that were not made say it: plain words first, why below.
        first, *rest = screen.result.message.text().splitlines()
        assert first == "Nothing was charged; this sale can be charged again.", first
        assert rest and rest[0].startswith("Why: 3DS authentication rejected by the bank"), rest
        assert "not charged" not in screen.result.message.text().lower()
        assert not screen.result.print_button.isEnabled()
        mcid = outcome.merchant_charge_id
        repo = shop.terminal.service.store.repo
        spin_until(lambda: repo.charge(mcid) is not None, "the 3DS notification's row", 30)
        attempt = repo.attempt(mcid)
        assert attempt is not None
        # In the history the row reads as the sale it was: its amount, not charged because the
        # bank refused the authentication, its card; nothing to ask the service about.
        shown = history_row(shop, mcid)
        panel = shop.window.history_panel
        assert shown["amount"] == format_money(attempt.amount), shown
        assert shown["status"] == "Not charged — 3DS authentication refused", shown
        assert shown["cards"] == "VISA •••• 1629", shown
        assert "—" not in panel.title.text().split(" · ")[1:4], panel.title.text()
        assert not panel.query_button.isEnabled()
        assert not panel.receipt_button.isEnabled()
    with three_ds(shop, fallback="without") as screen:
        outcome = shop.charge_card("4000000000001042")
        assert (outcome.attempt, outcome.status) == (AttemptState.CREATED, ChargeStatus.PAID)
        assert screen.result.status.text() == "Paid"


def test_a_service_whose_3ds_wants_card_data_tells_the_owner_what_to_change(shop: Shop) -> None:
    # Where 3DS setup asks for the card's own data (the terminal never has it), every card
    # refused by the 3DS policy would fail alike: the clerk reads that it cannot work with this
    # service, and what to change in the settings.
    admin(shop, "PATCH", "/_sandbox/variants", {"three-ds-card": "card-data"})
    try:
        with three_ds(shop) as screen:
            outcome = shop.charge_card("4111111111111111")
            assert outcome.attempt == AttemptState.REJECTED
            assert screen.result.status.text() == "Authentication failed"
            said = screen.result.message.text()
            assert "asks for the card's own data" in said, said
            assert "Settings" in said.splitlines()[-1], said
    finally:
        admin(shop, "PATCH", "/_sandbox/variants", {"three-ds-card": "token"})


def test_the_clerk_cancels_the_challenge(shop: Shop) -> None:
    with three_ds(shop) as screen:
        outcomes = start_charge(shop, "4000000000003220")
        view = bank_page(screen)
        view.cancel_button.click()
        spin_until(lambda: bool(outcomes), "the cancelled charge's outcome", 30)
        assert outcomes[0].message.args["status"] == "CANCELLED"
        assert screen.result.status.text() == "Authentication failed"
        # The clerk's keys work again: the main window is the active one.
        spin_until(
            lambda: QApplication.activeWindow() is shop.window,
            f"the main window again, not {QApplication.activeWindow()!r}",
        )
        # The setup had opened a charge at the service: the history keeps the sale, not
        # charged, with its amount and card, and nothing to ask the service about.
        mcid = outcomes[0].merchant_charge_id
        attempt = shop.terminal.service.store.repo.attempt(mcid)
        assert attempt is not None
        shown = history_row(shop, mcid)
        panel = shop.window.history_panel
        assert shown["amount"] == format_money(attempt.amount), shown
        assert shown["status"] == "Not charged", shown
        assert shown["cards"] == "VISA •••• 3220", shown
        assert not panel.query_button.isEnabled()
        assert not panel.receipt_button.isEnabled()


@pytest.mark.parametrize("fallback", ["refuse", "without"])
def test_the_challenge_view_refuses_other_hosts_and_has_no_bridge(
    shop: Shop, fallback: ThreeDsFallback
) -> None:
    with three_ds(shop, fallback=fallback) as screen:
        outcomes = start_charge(shop, "4000000000003220")
        view = bank_page(screen)
        refused: list[str] = []
        view.page.navigation_refused.connect(refused.append)
        # No web channel: nothing of the terminal is reachable from the bank's page.
        assert view.page.webChannel() is None
        assert challenge_js(view, "typeof qt === 'undefined' || !qt.webChannelTransport", "qt")
        # A window of its own is simply not opened: the customer still answers on this page.
        assert challenge_js(view, "window.open('https://example.com/') === null", "window.open")
        assert challenge_js(view, "!!document.getElementById('acs-code')", "the ACS form")
        assert screen.challenge is view and not outcomes
        assert view.profile.isOffTheRecord() is not False
        # The bank's page sends the customer to another address: refused, and the challenge
        # ends at once (never 10 minutes of "waiting for the customer at the bank").
        challenge_js(view, "location.href = 'https://example.com/'; true", "navigating away")
        spin_until(lambda: "https://example.com" in refused, "the refused navigation")
        spin_until(lambda: bool(outcomes), "the outcome", 10)
        outcome = outcomes[0]
        assert screen.challenge is None
        # Suspicious, so never charged without 3DS, whatever the settings say.
        assert (outcome.attempt, outcome.status) == (AttemptState.REJECTED, None)
        assert outcome.message.args["status"] == "NAVIGATION_REFUSED"
        assert screen.result.status.text() == "Authentication failed"
        said = screen.result.message.text()
        assert "the bank's page tried to open another address" in said, said
        assert screen.result.retry_button.isVisibleTo(screen.result)
        mcid = outcome.merchant_charge_id
        record = shop.terminal.service.store.repo.charge(mcid)
        assert record is None or record.status is None
        flow = shop.terminal.service.store.repo.three_ds_flow(mcid)
        assert flow is not None and flow.result == "NAVIGATION_REFUSED"


def close_question(shop: Shop, view: ChallengeView) -> Any:
    """The window asked to close while the customer answers the bank: the clerk's question."""

    window = shop.window
    window.close()
    assert window.isVisible()  # refused: the charge is still running
    (box,) = asked(window)
    said = box.text()
    assert "still confirming the payment at the bank" in said, said
    assert "Nothing will be charged" in said, said
    # It never blocks the bank's page, and does not cover it.
    assert box.windowModality() == Qt.WindowModality.NonModal
    assert QApplication.activeModalWidget() is None
    assert not box.frameGeometry().intersects(view.frameGeometry())
    window.close()  # asking again does not stack a second question
    assert asked(window) == [box]
    return box


def asked(window: MainWindow) -> list[Any]:
    """The close-during-a-challenge questions on screen."""
    from PySide6.QtWidgets import QMessageBox

    boxes = window.findChildren(QMessageBox, "closeDuringChallenge")
    return [box for box in boxes if box.isVisible()]


@pytest.mark.parametrize("choice", ["keep it open", "cancel and close"])
def test_closing_during_a_challenge_leaves_the_bank_page_usable(
    shop: Shop, choice: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from PySide6.QtWidgets import QPushButton

    closes: list[bool] = []
    # The shop's window serves the whole module: its closing is recorded, not done.
    monkeypatch.setattr(shop.window, "request_close", lambda: closes.append(True))
    with three_ds(shop, fallback="without") as screen:
        outcomes = start_charge(shop, "4000000000003220")
        view = bank_page(screen)
        box = close_question(shop, view)
        if choice == "keep it open":
            box.findChild(QPushButton, "keepOpenDuringChallenge").click()
            spin_until(lambda: not asked(shop.window), "the question answered")
            assert screen.challenge is view and not outcomes
            # Asked again, the clerk lets it be: the customer's panel still takes a click.
            box = close_question(shop, view)
            QTest.mouseClick(view.cancel_button, Qt.MouseButton.LeftButton)
        else:
            box.findChild(QPushButton, "cancelChallengeAndClose").click()
        spin_until(lambda: bool(outcomes), "the challenge's outcome", 10)
        outcome = outcomes[0]
        # Cancelled: nothing charged, even with "charge it without 3DS" in the settings.
        assert (outcome.attempt, outcome.status) == (AttemptState.REJECTED, None)
        assert outcome.message.args["status"] == "CANCELLED"
        assert screen.challenge is None
        spin_until(lambda: not asked(shop.window), "the question to go with the challenge")
        assert closes == ([True] if choice == "cancel and close" else [])
        record = shop.terminal.service.store.repo.charge(outcome.merchant_charge_id)
        assert record is None or record.status is None


def test_a_gateway_error_charges_nothing(shop: Shop) -> None:
    outcome = shop.charge_card("4000000000000119")
    assert outcome.attempt in (AttemptState.NOT_FOUND, AttemptState.REJECTED)
    assert outcome.status is None
    screen = shop.window.charge_screen
    assert screen.result.status.text() == "Not charged"
    # In plain words first (what happened, what the clerk can do); the why on its own line.
    first, *rest = screen.result.message.text().splitlines()
    assert first.startswith("Nothing was charged") and "charged again" in first, first
    assert rest and rest[0].startswith("Why: "), rest
    assert "not charged" not in screen.result.message.text().lower()
    assert shop.terminal.service.store.repo.charge(outcome.merchant_charge_id) is None
    assert shop.event_rows(outcome.merchant_charge_id) == []
    screen.update_state()
    assert screen.blocked.text() == ""


def test_the_slow_card_times_out_and_is_found_paid_by_asking_not_resending(shop: Shop) -> None:
    outcome = shop.charge_card("4000000000009995")
    mcid = outcome.merchant_charge_id
    # The reply missed the client's timeout; the terminal asked the service and found the charge.
    assert outcome.attempt == AttemptState.CREATED
    assert outcome.status == ChargeStatus.PAID
    screen = shop.window.charge_screen
    assert screen.result.status.text() == "Paid"
    attempts = shop.terminal.service.store.repo.attempts_for_sale(screen.sale_id)
    assert len(attempts) == 1  # found by asking, never sent twice
    timeline = shop.timeline_sources(mcid)
    # The timeout is on the timeline (whether or not the notification had already settled it).
    assert any(source == "reply" and seen == "UNKNOWN" for source, seen, _ in timeline)
    assert any(source == "reconciliation" for source, _, _ in timeline)
    spin_until(lambda: ("Paid", "Accepted") in shop.event_rows(mcid), "the PAID notification")
    spin_until(
        lambda: shop.window.status.attempts.text() == "No open attempts", "the attempt resolved"
    )


def test_the_charge_action_cannot_fire_twice(shop: Shop) -> None:
    shop.sale(1500)
    screen = shop.window.charge_screen
    shop.type_card("5555555555554444")
    outcomes: list[ChargeOutcome] = []
    screen.charge_finished.connect(outcomes.append)
    screen.charge()
    screen.charge()  # a double click or a repeated Ctrl+Enter
    spin_until(lambda: screen.in_flight or bool(outcomes), "the charge to start")
    screen.charge()
    assert not screen.charge_button.isEnabled() or bool(outcomes)
    spin_until(lambda: bool(outcomes), "the charge")
    screen.charge_finished.disconnect(outcomes.append)
    spin_until(lambda: True, "idle", 0.3)
    assert len(outcomes) == 1
    assert len(shop.terminal.service.store.repo.attempts_for_sale(screen.sale_id)) == 1


def test_keyboard_only_sale_with_ctrl_enter(shop: Shop) -> None:
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    window = shop.window
    window.tabs.setCurrentIndex(window.charge_tab)
    screen = window.charge_screen
    screen.new_sale()
    form = screen.form
    QTest.keyClicks(form.amount, "4590")  # cents first: R$ 45,90
    assert form.amount.centavos() == 4590
    QTest.keyClicks(form.customer_name, "Ana Souza")
    QTest.keyClicks(form.customer_email, "ana@example.com")
    QTest.keyClicks(form.customer_document, "52998224725")
    QTest.keyClicks(form.customer_phone, "11987654321")
    shop.type_card("5555555555554444")
    outcomes: list[ChargeOutcome] = []
    screen.charge_finished.connect(outcomes.append)
    QTest.keyClick(form.customer_document, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    spin_until(lambda: bool(outcomes), "the charge started by Ctrl+Enter")
    screen.charge_finished.disconnect(outcomes.append)
    assert outcomes[0].status == ChargeStatus.PAID
    assert shop.record(outcomes[0].merchant_charge_id).amount == 4590
    QTest.keyClick(window, Qt.Key.Key_F2)  # the next sale
    assert screen.stack.currentIndex() == 0
    assert form.amount.centavos() == 0
    QTest.keyClick(window, Qt.Key.Key_F6)
    assert window.tabs.currentIndex() == window.events_tab
    QTest.keyClick(window, Qt.Key.Key_F5)
    assert window.tabs.currentIndex() == window.charge_tab


def test_the_notifications_button_filters_the_event_list(shop: Shop) -> None:
    outcome = shop.charge_card("5555555555554444")
    mcid = outcome.merchant_charge_id
    spin_until(lambda: ("Paid", "Accepted") in shop.event_rows(mcid), "the notification")
    window = shop.window
    window.show_charge(mcid)
    window.history_panel.events_button.click()
    assert window.tabs.currentIndex() == window.events_tab
    panel = window.events_panel
    assert panel.charge_filter.text() == mcid
    model = panel.model
    assert model.rowCount() >= 1
    for row in range(model.rowCount()):
        summary = model.summary(row)
        assert summary is not None and summary.merchant_charge_id == mcid
    panel.charge_filter.clear()
    panel.apply_filters()


def test_a_sale_split_across_two_cards(shop: Shop) -> None:
    shop.window.tabs.setCurrentIndex(shop.window.charge_tab)
    shop.sale(3000)
    screen = shop.window.charge_screen
    screen.next_card_amount.set_centavos(1000)
    shop.type_card("5555555555554444")
    screen.card_page.submit()  # the card form's own button
    spin_until(lambda: len(screen.cards) == 1, "the first card")
    assert screen.cards[0].amount == 1000
    assert screen.remaining() == 2000
    assert screen.next_card_amount.centavos() == 2000
    assert screen.card_list.isVisibleTo(screen)
    shop.type_card("6362970000457013")
    outcomes: list[ChargeOutcome] = []
    screen.charge_finished.connect(outcomes.append)
    screen.charge_button.click()  # tokenizes the second card for the rest, then charges
    spin_until(lambda: bool(outcomes), "the split charge")
    screen.charge_finished.disconnect(outcomes.append)
    assert outcomes[0].status == ChargeStatus.PAID
    record = shop.record(outcomes[0].merchant_charge_id)
    assert record.amount == 3000
    cards = sorted((t.brand, t.last_four, t.amount) for t in record.state.transactions)
    assert cards == [("ELO", "7013", 2000), ("MASTERCARD", "4444", 1000)]
    assert "MASTERCARD •••• 4444" in screen.result.cards.text()
    assert "ELO •••• 7013" in screen.result.cards.text()


def test_what_the_card_form_meets_of_its_service_reaches_the_status_bars_probe(
    shop: Shop,
) -> None:
    # The status bar said "Serviço: acessível" for up to a minute while the card form said it
    # could not reach the card service: the window now tells the probe at once.
    from checkout_desktop.doctor.probe import ServiceCallEnded
    from checkout_desktop.ui.bridge import SdkFailure

    told: list[ServiceCallEnded] = []
    unsubscribe = shop.terminal.bus.subscribe(ServiceCallEnded, told.append)
    try:
        card_page = shop.window.charge_screen.card_page
        card_page.sdk_error.emit(SdkFailure(stage="token", network=True, errors=[]))
        card_page.sdk_error.emit(SdkFailure(stage="token", network=False, errors=[]))
        assert [(e.host, e.reached) for e in told] == [("sdk", False), ("sdk", True)]
        told.clear()
        shop.charge_card("4111111111111111")
        assert [(e.host, e.reached) for e in told] == [("sdk", True)]
    finally:
        unsubscribe()


def test_a_status_change_while_minimized_is_notified(shop: Shop) -> None:
    window = shop.window
    notes: list[tuple[str, str]] = []
    window.notified.connect(lambda title, text: notes.append((title, text)))
    window.showMinimized()
    spin_until(window.isMinimized, "the window to minimize", 5)
    try:
        outcome = shop.charge_card("4111111111111111")
        mcid = outcome.merchant_charge_id
        spin_until(lambda: any(mcid in title for title, _ in notes), "the notification")
        assert any("Paid" in text for title, text in notes if mcid in title)
    finally:
        window.showNormal()
    count = len(notes)
    shop.charge_card("5555555555554444")
    assert len(notes) == count  # not minimized: no notification


def test_a_changed_public_url_blocks_until_acknowledged(shop: Shop) -> None:
    from checkout_desktop.domain.inbox_events import TunnelUrlChanged

    window = shop.window
    url = shop.terminal.notification_url
    assert url is not None
    shop.terminal.bus.publish(
        TunnelUrlChanged(
            previous_url="https://old.example.com/h", public_url=url, notification_url=url
        )
    )
    assert window.tunnel_notice.isVisibleTo(window)
    assert url in window.tunnel_notice.text.text()
    window.tunnel_notice.button.click()
    assert not window.tunnel_notice.isVisibleTo(window)
    assert shop.terminal.inbox.tunnel is not None
    assert shop.terminal.inbox.tunnel.registered_url == url


def test_capture_then_partial_and_full_refund_from_the_history(shop: Shop) -> None:
    outcome = shop.charge_card("4111111111111111", amount=10000, late_capture=True)
    mcid = outcome.merchant_charge_id
    assert outcome.status == ChargeStatus.PRE_AUTHORIZED
    window = shop.window
    window.show_charge(mcid)
    panel = window.history_panel
    assert panel.capture_button.isEnabled()
    panel.capture_button.click()
    assert panel.dialog is not None
    panel.dialog.accept()
    spin_until(lambda: "Captured" in panel.message.text(), "the capture", 20)
    assert shop.record(mcid).status == ChargeStatus.PAID
    assert not panel.capture_button.isEnabled()

    panel.refund_button.click()
    dialog = panel.dialog
    assert dialog is not None
    dialog.amount.set_centavos(2500)
    dialog.pin.setText("0000")
    dialog.accept()
    assert "Wrong supervisor PIN" in dialog.error.text()
    assert dialog.isVisible()
    dialog.pin.setText(SUPERVISOR_PIN)
    dialog.accept()
    spin_until(lambda: "Refund of" in panel.message.text(), "the partial refund", 20)
    record = shop.record(mcid)
    assert record.refunded_amount == 2500
    # The sandbox's default, as the enum allows: a partly refunded charge says so.
    assert record.status == ChargeStatus.PARTIAL
    assert "Partially refunded" in panel.title.text()
    assert "refunded" in panel.title.text()

    panel.refund_button.click()
    dialog = panel.dialog
    assert dialog is not None
    assert dialog.amount.centavos() == 7500  # what is left
    dialog.pin.setText(SUPERVISOR_PIN)
    dialog.accept()
    spin_until(lambda: shop.record(mcid).status == ChargeStatus.REFUNDED, "the full refund", 20)
    spin_until(lambda: not panel.refund_button.isEnabled(), "refund to be disabled")
    sources = shop.timeline_sources(mcid)
    requests = [s for s in sources if s[0] == "request" and s[1] != "SENT"]
    assert len(requests) == 4  # the charge, the capture and two refunds, each recorded first
    assert [s for s in sources if s[0] == "request" and s[1] == "SENT"] == [
        ("request", "SENT", "SENT")
    ] * 3
    spin_until(
        lambda: ("Refunded", "Accepted") in shop.event_rows(mcid), "the REFUNDED notification"
    )

    record = shop.terminal.store.repo.charge(mcid)
    assert record is not None
    from checkout_desktop.ui.receipts import RefundOnReceipt

    receipt_refund = RefundOnReceipt(amount=7500, total=10000, at=record.updated_at)
    receipt = window.build_receipt(record, refund=receipt_refund)
    written = window.save_receipt(receipt, shop.paths.data_dir / "refund.pdf")
    assert written.read_bytes().startswith(b"%PDF")

    # Saving from the history suggests a name in the shop's language.
    from PySide6.QtWidgets import QFileDialog

    from tests.gui.pseudo import in_portuguese

    with in_portuguese():
        window.receipt(mcid, as_pdf=True, refund=receipt_refund)
    dialogs = [d for d in window.findChildren(QFileDialog) if d.isVisible()]
    assert len(dialogs) == 1
    assert Path(dialogs[0].selectedFiles()[0]).name == f"comprovante-{mcid}-estorno.pdf"
    dialogs[0].reject()
    dialogs[0].deleteLater()


def test_query_now_asks_the_service(shop: Shop) -> None:
    outcome = shop.charge_card("5555555555554444")
    mcid = outcome.merchant_charge_id
    window = shop.window
    window.show_charge(mcid)
    panel = window.history_panel
    before = len(panel.timeline.records())
    panel.query_button.click()
    spin_until(lambda: "Asked the service" in panel.message.text(), "the query")
    records = panel.timeline.records()
    assert len(records) > before
    # The charge's notification may land after the query's answer: either order is right.
    assert "reconciliation" in [r.source for r in records[before:]]


def test_a_pre_authorized_result_offers_capture_and_shows_one_status(shop: Shop) -> None:
    from PySide6.QtWidgets import QMessageBox

    outcome = shop.charge_card("4111111111111111", amount=4200, late_capture=True)
    assert outcome.status == ChargeStatus.PRE_AUTHORIZED
    screen = shop.window.charge_screen
    result = screen.result
    assert result.capture_button.isVisible()
    assert "held on the card" in result.message.text()
    screen.capture_now()
    box = screen.capture_box
    assert box is not None and box.isVisible()
    # The button says what it does and how much (it said "Yes").
    yes = box.button(QMessageBox.StandardButton.Yes)
    assert yes.text().replace("\xa0", " ") == f"Capture {format_money(4200)}".replace("\xa0", " ")
    yes.click()
    spin_until(lambda: result.status.text() == "Paid", "the captured status on the result", 20)
    assert shop.record(outcome.merchant_charge_id).status == ChargeStatus.PAID
    spin_until(lambda: not result.capture_button.isVisible(), "the capture button to go")
    assert result.print_button.isEnabled()
    assert "held on the card" not in result.message.text()


def test_results_without_a_settled_sale_offer_no_receipt_and_keep_the_amount(shop: Shop) -> None:
    denied = shop.charge_card("4000000000000002", amount=3100)
    assert denied.status == ChargeStatus.DENIED
    result = shop.window.charge_screen.result
    assert not result.print_button.isEnabled() and not result.pdf_button.isEnabled()
    shop.window.charge_screen.new_sale()
    failed = shop.charge_card("4000000000000119", amount=3300)  # HTTP 500: nothing created
    assert failed.status is None
    assert not result.print_button.isEnabled()
    from checkout_desktop.ui.formatting import format_money

    assert result.amount.text() == format_money(3300)
    shop.window.charge_screen.new_sale()


def test_the_sale_busy_note_appears_only_when_the_clerk_charges_again(shop: Shop) -> None:
    screen = shop.window.charge_screen
    outcome = shop.charge_card("5555555555554444", amount=2000)
    assert outcome.status == ChargeStatus.PAID
    assert screen.blocked.text() == ""  # a normal sale shows no warning
    screen.retry_sale()  # back to the same (paid) sale
    assert screen.blocked.text() == ""
    screen.charge()
    assert screen.blocked.text() != ""  # now the clerk tried: say why
    screen.new_sale()
    assert screen.blocked.text() == ""


def test_a_service_that_requires_the_e_mail_makes_the_form_ask_for_it(
    shop: Shop, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the service turns out to require the e-mail the terminal leaves out when none was
    typed, the clerk reads why nothing was charged, and from then on the form (and the profile,
    kept for the next start) asks for the e-mail before the sale goes out."""
    kept: list[Settings] = []
    monkeypatch.setattr(shop.window, "_persist", kept.append)
    screen = shop.window.charge_screen
    form = screen.form
    assert not form.email_required
    sandbox_requires(shop, "phone,device,email")
    try:
        shop.window.tabs.setCurrentIndex(shop.window.charge_tab)
        shop.sale(1990)
        form.customer_email.clear()
        outcome = shop.charge_typed_sale("4111111111111111")
        assert outcome.attempt == AttemptState.REJECTED
        assert screen.result.status.text() == "Not charged"
        assert "requires the customer's e-mail" in screen.result.message.text()
        assert form.email_required
        assert [k.profile.customer_email_required for k in kept] == [True]
        assert shop.window.settings.profile.customer_email_required
        # Settings saved afterwards keep what was learned: they never write back the rule as
        # it stood before, nor let it go at the shop's other counters.
        shop.window.build_panels()
        panel = shop.window.settings_panel
        assert panel.email_required.isChecked()
        assert panel.save(), panel.message.text()
        assert shop.window.settings.profile.customer_email_required  # what the form saved
        # Back on the same sale, the form now refuses to send it without an e-mail.
        screen.result.retry_button.click()
        screen.update_state()
        assert form.problems()
        form.customer_email.setText("maria@example.com")
        assert not form.problems()
    finally:
        sandbox_requires(shop, "phone,device")
        form.set_email_required(False)
        shop.window.settings.profile.customer_email_required = False
        shop.window.settings_panel.take_kept(shop.window.settings)
        screen.new_sale()


def test_a_service_that_refuses_a_company_customer_makes_the_form_ask_for_a_cpf(
    shop: Shop, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the service refuses a CNPJ as the customer's document (its documented pattern
    admits none), the clerk reads what to do instead, and from then on the form (and the
    profile, kept for the next start) asks for a CPF before the sale goes out."""
    kept: list[Settings] = []
    monkeypatch.setattr(shop.window, "_persist", kept.append)
    screen = shop.window.charge_screen
    form = screen.form
    assert not form.cnpj_refused
    admin(shop, "PATCH", "/_sandbox/variants", {"customer-document": "no-cnpj"})
    try:
        shop.window.tabs.setCurrentIndex(shop.window.charge_tab)
        shop.sale(1990)
        form.customer_document.setText("11.222.333/0001-81")
        outcome = shop.charge_typed_sale("4111111111111111")
        assert outcome.attempt == AttemptState.REJECTED
        assert screen.result.status.text() == "Not charged"
        said = screen.result.message.text()
        assert "does not take a CNPJ" in said and "CPF" in said, said
        assert form.cnpj_refused
        assert [k.profile.customer_cnpj_refused for k in kept] == [True]
        assert shop.window.settings.profile.customer_cnpj_refused
        # And the shop's store keeps it, for the other counters on the same service.
        key = learned_key(shop.terminal.service.profile, "customer_cnpj_refused")
        spin_until(
            lambda: run(shop.terminal.store.shop.settings(), "the shop's settings").get(key) == "1",
            "the shop's store to keep it",
        )
        # Back on the same sale, the form refuses to send it with the CNPJ; a CPF goes.
        screen.result.retry_button.click()
        screen.update_state()
        # The card was spent on the refused request: nothing says it is still added.
        assert "added" not in screen.card_state.text(), screen.card_state.text()
        assert screen.card_list.count() == 0
        assert any("CNPJ" in problem for problem in form.problems()), form.problems()
        form.customer_document.setText(CPF)
        assert not form.problems()
        # The flag was kept once, and nothing else with it.
        assert len(kept) == 1
    finally:
        admin(shop, "PATCH", "/_sandbox/variants", {"customer-document": "any"})
        form.set_cnpj_refused(False)
        shop.window.settings.profile.customer_cnpj_refused = False
        if shop.window._panels_built:
            shop.window.settings_panel.take_kept(shop.window.settings)
        service = shop.terminal.service
        run(service.share_learned("customer_cnpj_refused", False), "the store to let it go")
        screen.new_sale()


def test_a_window_opened_with_the_charge_tab_alone_builds_the_others_on_demand(
    shop: Shop,
) -> None:
    outcome = shop.charge_card("4111111111111111")
    terminal = shop.terminal
    card_page = build_card_page(shop.settings, None)
    window = MainWindow(
        settings=shop.settings,
        bus=terminal.bus,
        service=terminal.service,
        views=terminal.views,
        events=terminal.events,
        card_page=card_page,
        merchant=merchant_of(shop.settings.profile, terminal.merchant_document),
        persist=lambda _chosen: None,
        secrets=None,
        defer_panels=True,
    )
    try:
        assert not window.panels_built
        assert window.tabs.count() == 5
        # Choosing a tab builds the panels, which read what the store holds.
        window.tabs.setCurrentIndex(window.events_tab)
        assert window.panels_built
        panel = window.events_panel
        window.build_panels()
        assert window.events_panel is panel
        assert window.tabs.widget(window.events_tab).isAncestorOf(panel)
        assert window.tabs.widget(window.history_tab).isAncestorOf(window.history_panel)
        assert window.tabs.widget(window.settings_tab).isAncestorOf(window.settings_panel)
        assert window.tabs.widget(window.today_tab).isAncestorOf(window.day_totals)
        assert panel.model.rowCount() > 0
        history = window.history_panel.model
        listed = [history.data(history.index(r, 1)) for r in range(history.rowCount())]
        assert outcome.merchant_charge_id in listed
    finally:
        close_window(window)


def test_a_restart_shows_the_same_history(shop: Shop) -> None:
    # Its own charges, so the test stands alone; earlier tests in the module add more.
    shop.charge_card("4111111111111111")
    shop.charge_card("4000000000000002")
    repo = shop.terminal.service.store.repo
    before = repo.list_charges(limit=100).items
    assert len(before) >= 2
    timelines = {
        c.merchant_charge_id: len(repo.timeline(c.merchant_charge_id).items) for c in before
    }
    close_window(shop.window)
    run(shop.terminal.stop(), "the terminal to stop")

    shop.terminal = run(
        Terminal.start(shop.settings, shop.paths, sandbox=shop.link, listener_port=0),
        "the terminal to start again",
    )
    shop.window = open_window(shop.settings, shop.terminal, load=False)
    model = shop.window.history_panel.model
    while model.canFetchMore():
        model.fetchMore()
    shown = [model.data(model.index(r, 1)) for r in range(model.rowCount())]
    assert shown == [c.merchant_charge_id for c in before]
    repo = shop.terminal.service.store.repo
    for record in before[:3]:
        mcid = record.merchant_charge_id
        shop.window.show_charge(mcid)
        shown_timeline = shop.window.history_panel.timeline.records()
        # Late notifications may add entries across the restart; none may be lost, and the
        # window shows exactly what the store holds.
        assert len(shown_timeline) >= timelines[mcid]
        assert [e.id for e in shown_timeline] == [e.id for e in repo.timeline(mcid).items]
    events = shop.window.events_panel.model
    assert events.rowCount() > 0
    assert isinstance(events.data(events.index(0, 0), EVENT_ID_ROLE), int)


def test_no_card_number_reached_the_store_or_logs(shop: Shop) -> None:
    numbers = [n for n, _ in APPROVED] + [
        "4000000000000002",
        "4000000000003220",
        "4000008400001629",
        "4000000000000119",
        "4000000000009995",
    ]
    store = shop.paths.database_file
    blobs = [store.read_bytes()]
    for sibling in store.parent.glob(store.name + "-*"):
        blobs.append(sibling.read_bytes())
    for log in Path(shop.paths.log_dir).glob("*"):
        if log.is_file():
            blobs.append(log.read_bytes())
    for blob in blobs:
        for number in numbers:
            assert number.encode() not in blob


def test_closing_during_a_charge_asks_and_closes_once_the_reply_is_recorded(
    shop: Shop,
) -> None:
    # Late in the module: a second window's card page leaves the shop's unable to load again.
    from PySide6.QtWidgets import QMessageBox, QPushButton

    window = open_window(shop.settings, shop.terminal, load=False)
    screen = window.charge_screen
    try:
        # A charge whose reply is still awaited (the flag the charge task sets while it runs).
        screen._in_flight = True
        window.close()
        assert window.isVisible()  # refused: the reply must be recorded first
        box = window.findChild(QMessageBox, "closeDuringCharge")
        assert box is not None and box.isVisible()
        assert "in progress" in box.text()
        window.close()  # asking again does not stack a second dialog
        assert len(window.findChildren(QMessageBox, "closeDuringCharge")) == 1
        later = box.findChild(QPushButton, "closeWhenDone")
        assert later is not None
        later.click()
        assert window.isVisible()
        screen._in_flight = False
        screen.charge_finished.emit(None)
        spin_until(lambda: not window.isVisible(), "the window to close after the reply")
    finally:
        close_window(window)


def test_a_pin_changed_at_another_counter_is_asked_at_once_and_never_put_back(
    shop: Shop,
) -> None:
    """Another counter of the shop sets a new supervisor PIN. This counter, still holding the
    old one, renames the shop: the new PIN stays the shop's. Once the store's notice arrives,
    Settings here asks for the new PIN, and the old one opens nothing."""
    window = shop.window
    window.build_panels()
    panel = window.settings_panel
    service = shop.terminal.service
    assert service.shop is not None
    shared = service.shop
    original = window.settings.ui.model_copy()
    new_pin = hash_pin("1357")
    try:
        # The other counter's change, in the shop's store.
        run(shared.publish(original.model_copy(update={"supervisor_pin_hash": new_pin})), "PIN")
        # Renamed here before this counter heard of it: only the name goes to the store.
        panel.shop_name.setText("Loja Centro")
        assert panel.save(), panel.message.text()
        spin_until(
            lambda: run(shared.now(service.profile), "the shop").shop_name == "Loja Centro",
            "the new name in the shop's store",
        )
        assert run(shared.pin_hash(), "the shop's PIN") == new_pin
        # The store's notice (a shared store sends it on commit) reaches this counter.
        shop.terminal.bus.publish(run(shared.now(service.profile), "the shop"))
        assert window.settings.ui.supervisor_pin_hash == new_pin
        assert window.merchant.name == "Loja Centro"
        # Removing the PIN in Settings asks for the shop's PIN as it is now.
        panel.clear_pin.click()
        assert not panel.save()
        prompt = panel.pin_prompt
        assert prompt is not None
        prompt.pin.setText(SUPERVISOR_PIN)
        prompt.accept()
        assert prompt.error.text() == "Wrong supervisor PIN."
        prompt.pin.setText("1357")
        prompt.accept()
        spin_until(lambda: run(shared.pin_hash(), "the shop's PIN") is None, "the PIN removed")
        assert window.settings.ui.supervisor_pin_hash is None
    finally:
        run(shared.publish(original), "the shop's settings back")
        shop.terminal.bus.publish(run(shared.now(service.profile), "the shop"))
        panel.load()
    assert window.settings.ui.supervisor_pin_hash == original.supervisor_pin_hash
    assert panel.shop_name.text() == original.shop_name
