"""A pt-BR run shows no English: every visible text came through the pt_BR catalogue.

The real window charges on the built-in sandbox with a marking translator installed (each
translation the pt_BR catalogues hold comes back as ⟦…⟧, see tests/gui/pseudo.py). After each
path a clerk meets — an approved card, a denied card, a gateway error, 3-D Secure charges
(one authenticated and paid, one the customer fails), a slow card whose reply is lost and found by asking,
an unreachable service (and the banner the reachability probe raises then), and the history,
timeline and event list of those charges — every visible text of the window (labels, buttons,
tabs, status bar, table and list cells, text panes) must be marked or data (ids, amounts,
times, last four digits, and the values the test typed or the service sent). Card numbers
are typed into the card page as in test_app_e2e.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QApplication, QWidget

from checkout_desktop.doctor.checks import api_target
from checkout_desktop.doctor.probe import Reachability, ReachabilityProbe
from checkout_desktop.domain.documents import UFS
from checkout_desktop.domain.enums import ChargeStatus, WebhookEventType
from checkout_desktop.domain.reasons import Reason, ReasonCode
from checkout_desktop.domain.state import AttemptState
from checkout_desktop.domain.three_ds import ThreeDsPolicy
from checkout_desktop.gateway.errors import ApiError, error_detail
from checkout_desktop.paths import AppPaths
from checkout_desktop.sandbox.link import start_sandbox
from checkout_desktop.secrets import SecretStore
from checkout_desktop.settings import Settings
from checkout_desktop.terminal import Terminal
from checkout_desktop.ui import loop
from checkout_desktop.ui.connection_test import ConnectionTest
from checkout_desktop.ui.reasons import reason_text
from checkout_desktop.ui.supervisor import hash_pin
from checkout_desktop.ui.wizard import FirstRunWizard
from tests.conftest import MemoryKeyring
from tests.gui.pseudo import MarkingTranslator, english_on_screen
from tests.gui.test_app_e2e import (
    CPF,
    SUPERVISOR_PIN,
    Shop,
    close_window,
    open_window,
    run,
    spin_until,
)
from tests.gui.test_ui_doctor import doctor_data

logger = logging.getLogger(__name__)

pytest_plugins = ["tests.gui.card_fixtures"]
pytestmark = [pytest.mark.webengine, pytest.mark.slow]

# What the test typed and the sandbox sends back as data (never words the terminal wrote).
DATA = (
    "Maria da Silva",
    "maria@example.com",
    CPF,
    "VISA",
    "MASTERCARD",
    "ELO",
    "AMEX",
    "HIPERCARD",
    # The service's names for its notifications, as its event-type header sends them.
    *(kind.value for kind in WebhookEventType),
    # The states' abbreviations (UF) of the billing address.
    *sorted(UFS),
    # Each language named in itself, and the tunnel programs' names.
    "Português (Brasil)",
    "English",
    "cloudflared",
    "ngrok",
)


@pytest.fixture(scope="module")
def pseudo_shop(
    qapp: QApplication, tmp_path_factory: pytest.TempPathFactory, sdk_slot: Any
) -> Iterator[Shop]:
    home = tmp_path_factory.mktemp("pseudo")
    paths = AppPaths(home / "config", home / "data", home / "logs").ensure()
    settings = Settings(first_run_done=True)
    settings.ui.locale = "pt_BR"
    settings.ui.supervisor_pin_hash = hash_pin(SUPERVISOR_PIN)
    # Short enough that the slow test card's reply misses it (the ambiguous case).
    settings.profiles["builtin-sandbox"].request_timeout_s = 1.5
    link = start_sandbox(
        paths,
        extra_args=(
            *sdk_slot.sandbox_args,
            *("--webhook-backoff", "0.2", "--slow-card-delay", "3"),
        ),
    )
    with MarkingTranslator.installed(qapp), loop.attached(qapp):
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


def data_of(shop: Shop) -> tuple[str, ...]:
    """DATA, the profile's own values, and what the service said about each transaction (its
    reason message, in the service's words)."""
    profile = shop.settings.profile
    sent = [
        value
        for record in shop.terminal.service.store.repo.list_charges(limit=100).items
        for txn in record.state.transactions
        for value in (txn.reason, txn.brand, txn.authorization_code)
        if value
    ]
    own = [v for v in vars(profile).values() if isinstance(v, str)]
    # The card-token field's two spellings are wire names, shown as the service writes them.
    wire = ("temporaryCardToken", "temporatyCardToken")
    return (*DATA, profile.label, *own, *wire, *sent)


def assert_all_translated(
    shop: Shop, root: QWidget | None = None, *, sent: tuple[str, ...] = ()
) -> None:
    """`sent`: more words the service sent (e.g. the detail of an error reply)."""
    problems = english_on_screen(root or shop.window, (*data_of(shop), *sent))
    assert not problems, "text on a pt-BR screen that escaped translation:\n" + "\n".join(problems)


def look_everywhere(shop: Shop, mcid: str) -> None:
    """The charge screen, then the charge in the history (timeline row by row), then its
    notifications in the event list (each row's detail)."""
    window = shop.window
    assert_all_translated(shop)
    window.show_charge(mcid)
    history = window.history_panel
    spin_until(lambda: history.timeline.rowCount() > 0, "the charge's timeline")
    for row in range(history.timeline.rowCount()):
        history.timeline_view.selectRow(row)
        assert_all_translated(shop)
    window.show_events_of(mcid)
    events = window.events_panel
    spin_until(lambda: events.model.rowCount() > 0, "the charge's notifications")
    for row in range(min(events.model.rowCount(), 10)):
        events.table.selectRow(row)
        assert events.detail.shown_id is not None
        assert_all_translated(shop)
    window.tabs.setCurrentIndex(window.charge_tab)


def test_the_marking_translator_catches_an_english_text(pseudo_shop: Shop) -> None:
    # The check itself can fail: a label set without tr() is reported.
    label = pseudo_shop.window.charge_screen.form.errors
    label.setText("Charged twice")
    label.show()
    try:
        problems = english_on_screen(pseudo_shop.window, data_of(pseudo_shop))
        assert any("Charged twice" in p for p in problems), problems
    finally:
        label.clear()


def test_an_approved_card(pseudo_shop: Shop) -> None:
    outcome = pseudo_shop.charge_card("4111111111111111", amount=2590)
    assert outcome.approved
    mcid = outcome.merchant_charge_id
    pseudo_shop.wait_status(mcid, ChargeStatus.PAID)
    spin_until(lambda: bool(pseudo_shop.event_rows(mcid)), "the PAID notification")
    look_everywhere(pseudo_shop, mcid)
    # A second charge of the paid sale is refused, in words of the UI's language.
    screen = pseudo_shop.window.charge_screen
    pseudo_shop.window.tabs.setCurrentIndex(pseudo_shop.window.charge_tab)
    screen.stack.setCurrentIndex(0)
    screen.charge()
    assert screen.blocked.isVisible() and screen.blocked.text()
    assert_all_translated(pseudo_shop)


def test_a_denied_card(pseudo_shop: Shop) -> None:
    outcome = pseudo_shop.charge_card("4000000000000002")
    assert outcome.status == ChargeStatus.DENIED
    assert outcome.message.code == ReasonCode.OUTCOME_DENIED
    assert pseudo_shop.window.charge_screen.result.message.text()
    look_everywhere(pseudo_shop, outcome.merchant_charge_id)


def test_a_gateway_error(pseudo_shop: Shop) -> None:
    outcome = pseudo_shop.charge_card("4000000000000119")
    assert outcome.attempt in (AttemptState.NOT_FOUND, AttemptState.REJECTED)
    assert pseudo_shop.window.charge_screen.result.message.text()
    # The service's own words about the error are shown as it sent them.
    assert isinstance(outcome.error, ApiError)
    detail = error_detail(outcome.error)
    # The service's business code leads, in the UI's words; its message follows as sent.
    assert isinstance(detail, Reason) and detail.code == ReasonCode.SERVICE_SAID_CODED
    assert detail.args["business"] == Reason.of(ReasonCode.BUSINESS_INTERNAL)
    words = detail.args["words"]
    assert isinstance(words, str)
    assert_all_translated(pseudo_shop, sent=(words,))


def test_3ds_charges(pseudo_shop: Shop) -> None:
    screen = pseudo_shop.window.charge_screen
    screen.three_ds_policy = ThreeDsPolicy(mode="always")
    try:
        outcome = pseudo_shop.charge_card("4000000000003063")
        assert outcome.status == ChargeStatus.PAID
        mcid = outcome.merchant_charge_id
        result = screen.result
        spin_until(lambda: bool(result.three_ds.text()), "the 3DS status on screen")
        look_everywhere(pseudo_shop, mcid)
        refused = pseudo_shop.charge_card("4000008400001629")
        assert refused.message.code == ReasonCode.TDS_ENDED
        assert_all_translated(pseudo_shop)
        look_everywhere(pseudo_shop, refused.merchant_charge_id)
    finally:
        screen.three_ds_policy = ThreeDsPolicy()


def test_a_slow_card_whose_reply_is_lost_and_found_by_asking(pseudo_shop: Shop) -> None:
    outcome = pseudo_shop.charge_card("4000000000009995")
    # The reply missed the client's timeout; the terminal asked the service and found it paid.
    assert outcome.attempt == AttemptState.CREATED
    assert outcome.status == ChargeStatus.PAID
    # The timeline tells the lost reply and the question that found it; the event list the
    # notification (look_everywhere waits for it under its own filter).
    look_everywhere(pseudo_shop, outcome.merchant_charge_id)


def test_an_unreachable_service(pseudo_shop: Shop) -> None:
    client = pseudo_shop.terminal.service.client
    endpoints = client.endpoints
    # Nothing listens on port 1 of this machine: the charge request cannot be sent.
    client.endpoints = replace(endpoints, base_url="http://127.0.0.1:1")
    try:
        outcome = pseudo_shop.charge_card("4111111111111111")
    finally:
        client.endpoints = endpoints
    assert outcome.attempt == AttemptState.REJECTED
    assert outcome.message.code == ReasonCode.NOT_CHARGED
    assert pseudo_shop.window.charge_screen.result.message.text()
    assert_all_translated(pseudo_shop)
    # The periodic probe finds both hosts silent: the banner says so above the tabs.
    banner = pseudo_shop.window.problem_banner
    nowhere = api_target("http://127.0.0.1:1")
    probe = ReachabilityProbe(bus=pseudo_shop.terminal.bus, api=nowhere, sdk=nowhere)
    offline = run(probe.probe_now(), "the reachability probe")
    assert offline.level == Reachability.UNREACHABLE
    spin_until(lambda: len(banner.problems()) == 2, "the offline banner")
    try:
        assert_all_translated(pseudo_shop, sent=("127.0.0.1",))
    finally:
        probe = ReachabilityProbe(
            bus=pseudo_shop.terminal.bus, api=api_target(endpoints.base_url), sdk=None
        )
        assert run(probe.probe_now(), "the probe again").level == Reachability.REACHABLE
        pseudo_shop.window.charge_screen.card_page.ready.emit()
        spin_until(lambda: banner.problems() == [], "the banner to go")


def test_a_refund_from_the_history_and_the_other_tabs(pseudo_shop: Shop) -> None:
    outcome = pseudo_shop.charge_card("4111111111111111", amount=3000)
    mcid = outcome.merchant_charge_id
    pseudo_shop.wait_status(mcid, ChargeStatus.PAID)
    window = pseudo_shop.window
    window.show_charge(mcid)
    panel = window.history_panel
    panel.ask_refund()
    dialog = panel.dialog
    assert dialog is not None
    spin_until(dialog.isVisible, "the refund dialog")
    assert_all_translated(pseudo_shop, dialog)
    dialog.amount.set_centavos(1000)
    dialog.pin.setText(SUPERVISOR_PIN)
    dialog.accept()
    spin_until(
        lambda: (pseudo_shop.record(mcid).refunded_amount or 0) == 1000, "the partial refund", 20
    )
    spin_until(lambda: panel._busy is None or panel._busy.done(), "the refund to finish")
    look_everywhere(pseudo_shop, mcid)
    for index in (window.today_tab, window.settings_tab):
        window.tabs.setCurrentIndex(index)
        assert_all_translated(pseudo_shop)
    window.tabs.setCurrentIndex(window.charge_tab)


def test_the_first_run_wizard_with_its_real_connection_test(
    pseudo_shop: Shop, tmp_path: Path
) -> None:
    # On the module's loop, with its marking translator installed.
    paths = AppPaths(tmp_path / "config", tmp_path / "data", tmp_path / "logs").ensure()
    settings = Settings()
    settings.ui.locale = "pt_BR"
    tester = ConnectionTest(paths, secrets=SecretStore(MemoryKeyring()))
    wizard = FirstRunWizard(settings, secrets=SecretStore(MemoryKeyring()), tester=tester)
    wizard.show()
    try:
        data = (*DATA, *(p.label for p in settings.profiles.values()))
        while wizard.currentId() != wizard.test_id:
            problems = english_on_screen(wizard, data)
            assert not problems, "\n".join(problems)
            wizard.next()
        spin_until(wizard.test_page.isComplete, "the connection test", 60)
        assert wizard.test_page.list.count() >= 2
        # The check's data: the profile's name, the hosts, the token's scopes and fields.
        problems = english_on_screen(wizard, (*data, *doctor_data(tester.report)))
        assert not problems, "\n".join(problems)
    finally:
        wizard.close()
        tester.release()


def test_a_card_the_service_does_not_recognise(pseudo_shop: Shop) -> None:
    window = pseudo_shop.window
    window.tabs.setCurrentIndex(window.charge_tab)
    pseudo_shop.sale(1990)
    screen = window.charge_screen
    spin_until(lambda: screen.card_page.sdk_ready, "the card page's SDK")
    failures: list[object] = []
    screen.card_page.sdk_error.connect(failures.append)
    try:
        # A Luhn-valid number whose BIN the service does not know.
        pseudo_shop.type_card("9999990000000003")
        spin_until(lambda: bool(failures), "the card service's refusal")
    finally:
        screen.card_page.sdk_error.disconnect(failures.append)
    # Said by what failed (the brand), not in the service's words, which stay on the page.
    assert reason_text(Reason.of(ReasonCode.SDK_BRAND)) in screen.card_state.text()
    assert_all_translated(pseudo_shop)
