"""End to end on the built-in sandbox: PicPay wallet and PIX sales from the charge screen.

The real window, terminal core, inbox and sandbox process: a QR is asked for with Ctrl+2 or Ctrl+3 and
the Charge action, shown with its code, amount and countdown, and then paid (by the sandbox's
simulated customer, through the panel's training button), expired, or cancelled; every change
reaches the screen through the notification or a query. The customer-facing display follows
each step.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from checkout_desktop.charges.service import ChargeOutcome
from checkout_desktop.domain.enums import PaymentType
from checkout_desktop.domain.qr import QrPhase, qr_phase, qr_transaction
from checkout_desktop.domain.records import PIX, WALLET
from checkout_desktop.paths import AppPaths
from checkout_desktop.sandbox.api import ADMIN_HEADER
from checkout_desktop.sandbox.link import start_sandbox
from checkout_desktop.sandbox.qr import check_br_code
from checkout_desktop.settings import Settings
from checkout_desktop.terminal import Terminal
from checkout_desktop.ui import loop
from checkout_desktop.ui.customer_display import CustomerDisplay
from checkout_desktop.ui.formatting import format_money
from checkout_desktop.ui.history_panel import HistoryPanel, MoneyActionDialog
from checkout_desktop.ui.supervisor import hash_pin
from checkout_desktop.ui.timeline_text import what_happened
from checkout_desktop.ui.webview import register_schemes
from tests.gui.test_app_e2e import Shop, admin, close_window, open_window, run, spin_until

logger = logging.getLogger(__name__)

pytest_plugins = ["tests.gui.card_fixtures"]

register_schemes()

pytestmark = [pytest.mark.webengine, pytest.mark.slow]

KEYS = {WALLET: Qt.Key.Key_2, PIX: Qt.Key.Key_3}
PIN = "4321"


@pytest.fixture(scope="module")
def shop(
    qapp: QApplication, tmp_path_factory: pytest.TempPathFactory, sdk_slot: Any
) -> Iterator[Shop]:
    home = tmp_path_factory.mktemp("qr-shop")
    paths = AppPaths(home / "config", home / "data", home / "logs").ensure()
    settings = Settings(first_run_done=True)
    settings.ui.locale = "en"
    settings.qr.customer_display = True
    link = start_sandbox(paths, extra_args=(*sdk_slot.sandbox_args, "--webhook-backoff", "0.2"))
    with loop.attached(qapp):
        terminal = run(
            Terminal.start(settings, paths, sandbox=link, listener_port=0), "the terminal to start"
        )
        window = open_window(settings, terminal, load=False)
        window.charge_screen.set_payer(link.pay_qr)
        shop = Shop(paths, settings, link, terminal, window)
        try:
            yield shop
        finally:
            close_window(shop.window)
            run(shop.terminal.stop(), "the terminal to stop")
            link.stop()


def display(shop: Shop) -> CustomerDisplay:
    shown = shop.window.customer_display
    assert shown is not None
    return shown


@pytest.fixture
def cancel_refused(shop: Shop, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Settings]]:
    """The service refuses to cancel an unpaid QR (it only expires); yields the settings the
    window keeps. Afterwards the service cancels again and the terminal has forgotten it."""
    kept: list[Settings] = []
    monkeypatch.setattr(shop.window, "_persist", kept.append)
    admin(shop, "PATCH", "/_sandbox/variants", {"qr-cancel": "refused"})
    try:
        yield kept
    finally:
        admin(shop, "PATCH", "/_sandbox/variants", {"qr-cancel": "refund"})
        shop.window.settings.profile.qr_cancel_refused = False
        if shop.window._panels_built:
            # Settings' form took the learned rule too (a later save keeps it): forgotten there.
            shop.window.settings_panel.take_kept(shop.window.settings)
        shop.window.charge_screen.qr_panel.set_cancel_offered(True)
        run(shop.terminal.service.share_learned("qr_cancel_refused", False), "the store")


@pytest.fixture
def notifications_late(shop: Shop) -> Iterator[None]:
    """The service's notifications wait 3 s before they are sent: a payment the sandbox takes
    is not heard of at once (as when the clerk acts seconds after the customer paid)."""
    faults(shop, webhook_delay_s=3.0)
    try:
        yield
    finally:
        faults(shop, webhook_delay_s=0.0)


@pytest.fixture
def supervisor_pin(shop: Shop) -> Iterator[str]:
    """The shop has a supervisor PIN (this counter's settings and the shop's store)."""
    window = shop.window
    service = shop.terminal.service
    original = window.settings.ui.model_copy()
    with_pin = original.model_copy(update={"supervisor_pin_hash": hash_pin(PIN)})
    window.settings.ui = with_pin
    run(service.share_settings(with_pin, original), "the PIN")
    try:
        yield PIN
    finally:
        window.settings.ui = original
        run(service.share_settings(original, with_pin), "the PIN removed")


def faults(shop: Shop, **changes: float) -> None:
    info = shop.link.info
    reply = httpx.patch(
        f"{info.base_url}/_sandbox/faults",
        json=changes,
        headers={ADMIN_HEADER: info.admin_token},
        timeout=10,
        trust_env=False,
    )
    assert reply.status_code == 200, reply.text


def at_sandbox(shop: Shop, mcid: str) -> dict[str, Any]:
    """The QR charge as the sandbox holds it (status, refunded amount)."""
    info = shop.link.info
    reply = httpx.get(
        f"{info.base_url}/_sandbox/qr",
        headers={ADMIN_HEADER: info.admin_token},
        timeout=10,
        trust_env=False,
    )
    assert reply.status_code == 200, reply.text
    (found,) = [c for c in reply.json()["charges"] if c["merchantChargeId"] == mcid]
    return dict(found)


def qr_sale(shop: Shop, kind: str, amount: int) -> ChargeOutcome:
    """A sale charged with a QR from the keyboard: Ctrl+2 or Ctrl+3, then Ctrl+Enter."""
    window = shop.window
    window.tabs.setCurrentIndex(window.charge_tab)
    # A dialog closed by an earlier test leaves no window active offscreen; a clerk's click
    # on the window would make it active again, and the tender keys are the window's.
    window.activateWindow()
    spin_until(lambda: QApplication.activeWindow() is window, "the window to be active")
    shop.sale(amount)
    screen = window.charge_screen
    QTest.keyClick(screen, KEYS[kind], Qt.KeyboardModifier.ControlModifier)
    assert screen.tender_bar.kind == kind
    assert not screen.cards_box.isVisible() and screen.qr_hint.isVisible()
    assert not screen.form.late_capture.isEnabled() and not screen.form.installments.isEnabled()
    assert display(shop).amount.text() == format_money(amount)
    outcomes: list[ChargeOutcome] = []
    screen.charge_finished.connect(outcomes.append)
    try:
        assert screen.charge_button.isEnabled(), screen.form.errors.text()
        QTest.keyClick(screen, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
        spin_until(lambda: bool(outcomes), f"the {kind} QR", 30)
    finally:
        screen.charge_finished.disconnect(outcomes.append)
    outcome = outcomes[0]
    assert outcome.awaiting_payment and not outcome.approved
    panel = screen.qr_panel
    assert screen.stack.currentWidget() is panel
    assert panel.status.text() == "Awaiting payment…"
    assert panel.image.pixmap() is not None and not panel.image.pixmap().isNull()
    assert panel.countdown.text().startswith("Expires in ")
    assert display(shop).message.text() == "Scan the QR to pay"
    assert not display(shop).image.pixmap().isNull()
    return outcome


def simulate_payment(shop: Shop, mcid: str) -> None:
    screen = shop.window.charge_screen
    panel = screen.qr_panel
    assert panel.simulate_button.isVisible()
    panel.simulate_button.click()
    spin_until(
        lambda: (
            screen.stack.currentWidget() is screen.result and screen.result.status.text() == "Paid"
        ),
        f"{mcid} to be shown paid",
    )
    assert display(shop).message.text() == "Paid — thank you!"
    assert screen.result.print_button.isEnabled()


def history_action(shop: Shop, mcid: str, button: str) -> tuple[HistoryPanel, MoneyActionDialog]:
    """The charge opened in the history, its refund button (named `button`: a waiting QR's
    is a cancel) clicked: the panel and the dialog it opened."""
    window = shop.window
    window.show_charge(mcid)
    history = window.history_panel
    spin_until(history.refund_button.isEnabled, f"the {button} button")
    assert history.refund_button.text() == button
    history.refund_button.click()
    dialog = history.dialog
    assert dialog is not None
    return history, dialog


def test_a_wallet_qr_is_paid_and_shown_paid_on_both_screens(shop: Shop) -> None:
    outcome = qr_sale(shop, WALLET, 2590)
    simulate_payment(shop, outcome.merchant_charge_id)
    record = shop.record(outcome.merchant_charge_id)
    assert qr_phase(record.state) == QrPhase.PAID
    assert f"PicPay · {format_money(2590)}" in shop.window.charge_screen.result.cards.text()


def test_a_pix_qr_offers_its_code_to_copy_and_is_paid_with_an_end_to_end_id(shop: Shop) -> None:
    outcome = qr_sale(shop, PIX, 1000)
    panel = shop.window.charge_screen.qr_panel
    code = panel.code.text()
    assert check_br_code(code) and "540510.00" in code
    panel.copy_button.click()
    assert QGuiApplication.clipboard().text() == code
    simulate_payment(shop, outcome.merchant_charge_id)
    assert "end-to-end id E" in shop.window.charge_screen.result.cards.text()
    receipt = shop.window.charge_screen.result.preview.toPlainText()
    assert format_money(1000) in receipt


def test_an_expired_pix_frees_the_sale_and_a_second_qr_is_paid(shop: Shop) -> None:
    first = qr_sale(shop, PIX, 1500)
    screen = shop.window.charge_screen
    panel = screen.qr_panel
    admin(shop, "POST", f"/_sandbox/expire/{first.merchant_charge_id}")
    spin_until(lambda: panel.status.text() == "Expired", "the expiry notification")
    assert display(shop).message.text() == "The QR expired"
    assert panel.new_qr_button.isVisible() and not panel.cancel_button.isVisible()
    outcomes: list[ChargeOutcome] = []
    screen.charge_finished.connect(outcomes.append)
    try:
        panel.new_qr_button.click()
        spin_until(lambda: bool(outcomes), "the second QR", 30)
    finally:
        screen.charge_finished.disconnect(outcomes.append)
    second = outcomes[0]
    assert second.merchant_charge_id != first.merchant_charge_id
    assert second.sale_id == first.sale_id and second.awaiting_payment
    assert display(shop).message.text() == "Scan the QR to pay"
    simulate_payment(shop, second.merchant_charge_id)
    assert qr_phase(shop.record(first.merchant_charge_id).state) == QrPhase.EXPIRED
    # The timeline tells each QR's story in plain words.
    repo = shop.terminal.service.store.repo
    first_story = [what_happened(r) for r in repo.timeline(first.merchant_charge_id).items]
    assert "The PIX QR was created; it awaits the customer's payment." in first_story
    assert "The PIX QR expired unpaid." in first_story
    second_story = [what_happened(r) for r in repo.timeline(second.merchant_charge_id).items]
    assert "The customer paid the PIX QR." in second_story
    # The history says what each QR came to in the clerk's words, never "pre-authorized".
    window = shop.window
    history = window.history_panel
    window.show_charge(first.merchant_charge_id)
    rows = history.model
    row = rows.row_of(first.merchant_charge_id)
    assert row is not None and rows.data(rows.index(row, 3)) == "Expired"
    timeline = history.timeline
    spin_until(
        lambda: (
            timeline.merchant_charge_id == first.merchant_charge_id and timeline.rowCount() >= 3
        ),
        "the first QR's timeline",
    )
    assert timeline.qr_kind == PaymentType.PIX
    statuses = [timeline.data(timeline.index(r, 3)) for r in range(timeline.rowCount())]
    assert [s for s in statuses if s] == ["Awaiting payment", "Expired"], statuses
    texts = [timeline.data(timeline.index(r, 2)) for r in range(timeline.rowCount())]
    assert not any("Pre-authorized" in text for text in texts), texts
    row = rows.row_of(second.merchant_charge_id)
    assert row is not None and rows.data(rows.index(row, 3)) == "Paid"


def test_a_qr_cancelled_before_payment_is_cancelled(shop: Shop) -> None:
    outcome = qr_sale(shop, WALLET, 990)
    screen = shop.window.charge_screen
    panel = screen.qr_panel
    panel.cancel_button.click()
    spin_until(lambda: panel.status.text() == "Cancelled", "the cancel")
    assert display(shop).message.text() == "The QR was cancelled"
    assert qr_phase(shop.record(outcome.merchant_charge_id).state) == QrPhase.CANCELED
    assert panel.new_qr_button.isVisible()


def test_a_payment_landing_after_the_cancel_is_shown_and_refunded(shop: Shop) -> None:
    outcome = qr_sale(shop, PIX, 3000)
    mcid = outcome.merchant_charge_id
    screen = shop.window.charge_screen
    panel = screen.qr_panel
    panel.cancel_button.click()
    spin_until(lambda: panel.status.text() == "Cancelled", "the cancel")
    assert display(shop).message.text() == "The QR was cancelled"
    # The customer's app had sent the payment just before the cancel: the service takes it.
    admin(shop, "POST", f"/_sandbox/pay/{mcid}?late=1")
    spin_until(
        lambda: (
            screen.stack.currentWidget() is screen.result and screen.result.status.text() == "Paid"
        ),
        "the late payment to be shown",
    )
    assert display(shop).message.text() == "Paid — thank you!"
    assert qr_phase(shop.record(mcid).state) == QrPhase.PAID
    window = shop.window
    # The window says so, whatever the charge screen shows, and so does the timeline.
    spin_until(
        lambda: "paid after it had ended — see the History" in window.statusBar().currentMessage(),
        "the late payment's notice",
    )
    assert mcid in window.statusBar().currentMessage()
    story = [what_happened(r) for r in shop.terminal.service.store.repo.timeline(mcid).items]
    assert any("landed after the PIX QR had ended" in line for line in story), story
    _, dialog = history_action(shop, mcid, "Re&fund…")
    assert dialog.amount.centavos() == 3000
    said = dialog.explanation.text()
    assert "goes back to the customer who paid the PIX QR" in said, said
    assert "card" not in said and "authorization" not in said
    dialog.accept()
    spin_until(lambda: shop.record(mcid).refunded_amount == 3000, "the refund")
    assert qr_phase(shop.record(mcid).state) == QrPhase.REFUNDED


def test_a_payment_after_a_refused_cancel_is_shown_and_refunded_in_part(
    shop: Shop, cancel_refused: list[Settings]
) -> None:
    kept = cancel_refused
    screen = shop.window.charge_screen
    panel = screen.qr_panel
    outcome = qr_sale(shop, WALLET, 4000)
    mcid = outcome.merchant_charge_id
    assert panel.cancel_button.isVisibleTo(panel)
    panel.cancel_button.click()
    spin_until(lambda: "not done" in panel.detail.text().lower(), "the refused cancel")
    assert panel.status.text() == "Awaiting payment…"
    # What the refusal means, in the clerk's words: no "charged" for a QR nobody paid.
    said = panel.detail.text()
    assert "does not cancel an unpaid QR" in said and "expires by itself" in said, said
    assert "awaiting payment" in said and "charged" not in said, said
    # Only the terminal's words: the service's own (English) detail is the timeline's.
    assert "cannot refund" not in said and "HTTP" not in said, said
    stored = [item.reason or "" for item in shop.terminal.service.store.repo.timeline(mcid).items]
    assert any("cannot refund" in reason for reason in stored), stored
    # Offered no more: not for this QR, and (kept in the profile) not for the next ones.
    assert not panel.cancel_button.isVisibleTo(panel)
    assert [k.profile.qr_cancel_refused for k in kept] == [True]
    simulate_payment(shop, mcid)
    later = qr_sale(shop, PIX, 1500)
    assert not panel.cancel_button.isVisibleTo(panel)
    assert "expires by itself" in panel.detail.text(), panel.detail.text()
    simulate_payment(shop, later.merchant_charge_id)
    _, dialog = history_action(shop, mcid, "Re&fund…")
    assert dialog.amount.centavos() == 4000
    dialog.amount.set_centavos(1500)
    dialog.accept()
    spin_until(lambda: shop.record(mcid).refunded_amount == 1500, "the partial refund")
    assert qr_phase(shop.record(mcid).state) == QrPhase.PARTIALLY_REFUNDED


def test_the_pix_expiry_and_the_display_are_set_in_settings_and_apply_at_once(
    shop: Shop,
) -> None:
    window = shop.window
    window.build_panels()
    settings = window.settings_panel
    settings.load()
    box = settings.qr_box
    # 600 seconds (10 minutes) is the public integration's minimum and the default.
    assert box.pix_expiration.value() == 10 and box.pix_expiration.minimum() == 10
    assert box.display.isChecked() and box.screen_choice.isEnabled()
    try:
        box.pix_expiration.setValue(15)
        box.display.setChecked(False)
        assert not box.screen_choice.isEnabled()
        assert settings.save(), settings.message.text()
        # The customer's window closes at once, and opens again when asked for.
        assert window.customer_display is None
        box.display.setChecked(True)
        assert settings.save(), settings.message.text()
        # Wanted again; on this one-screen platform it stays closed (a window there would
        # cover the clerk's controls) until a second screen is plugged in.
        shown = window.customer_display
        assert shown is not None and shown.opened and not shown.isVisible()
        outcome = qr_sale(shop, PIX, 700)
        record = shop.record(outcome.merchant_charge_id)
        txn = qr_transaction(record.state)
        assert txn is not None and txn.created_at is not None and txn.expires_at is not None
        assert (txn.expires_at - txn.created_at).total_seconds() == 900
        assert window.charge_screen.qr_panel.countdown.text().startswith("Expires in 14:")
        simulate_payment(shop, outcome.merchant_charge_id)
    finally:
        box.pix_expiration.setValue(10)
        box.display.setChecked(True)
        assert settings.save(), settings.message.text()
    assert window.charge_screen.pix_expiration_s == 600


def test_a_waiting_qr_is_cancelled_from_the_history_in_its_own_words(shop: Shop) -> None:
    outcome = qr_sale(shop, PIX, 1250)
    mcid = outcome.merchant_charge_id
    window = shop.window
    # Nothing was paid: the clerk cancels a QR, not a card's authorization.
    history, dialog = history_action(shop, mcid, "Cancel Q&R…")
    assert dialog.windowTitle() == "Cancel QR"
    said = dialog.explanation.text()
    assert "can no longer pay" in said and mcid in said, said
    assert "card" not in said and "authorization" not in said
    assert not dialog.amount.isEnabled() and dialog.amount.centavos() == 1250
    dialog.accept()
    spin_until(lambda: qr_phase(shop.record(mcid).state) == QrPhase.CANCELED, "the cancel")
    spin_until(lambda: history.message.text() == "QR cancelled.", "the history's word")
    screen = window.charge_screen
    spin_until(lambda: screen.qr_panel.status.text() == "Cancelled", "the panel")
    assert display(shop).message.text() == "The QR was cancelled"
    assert not history.refund_button.isEnabled()


def test_a_cancel_the_service_refused_in_the_history_is_learned_and_not_offered_again(
    shop: Shop, cancel_refused: list[Settings]
) -> None:
    kept = cancel_refused
    window = shop.window
    panel = window.charge_screen.qr_panel
    mcid = qr_sale(shop, PIX, 1800).merchant_charge_id
    history, dialog = history_action(shop, mcid, "Cancel Q&R…")
    dialog.accept()
    spin_until(lambda: "not done" in history.message.text().lower(), "the refused cancel")
    said = history.message.text()
    assert "does not cancel an unpaid QR" in said and "expires by itself" in said, said
    assert "cannot refund" not in said and "HTTP" not in said, said
    # Learned once, as on the charge screen: kept in the profile, and the QR panel (still
    # showing this QR) offers its cancel no more.
    assert [k.profile.qr_cancel_refused for k in kept] == [True]
    assert not panel.cancel_offered
    spin_until(lambda: not history.refund_button.isEnabled(), "the cancel to be withdrawn")
    assert history.refund_button.text() == "Cancel Q&R…"
    # Chosen again later, the waiting QR says why it cannot be cancelled before any click.
    history.timeline.set_charge(None)
    history.message.clear()
    window.show_charge(mcid)
    spin_until(lambda: "expires by itself" in history.message.text(), "the reason")
    assert not history.refund_button.isEnabled()
    assert "expires by itself" in history.refund_button.toolTip()
    window.tabs.setCurrentIndex(window.charge_tab)
    simulate_payment(shop, mcid)
    # Paid, it is refunded as any paid QR is.
    window.show_charge(mcid)
    spin_until(history.refund_button.isEnabled, "the refund button")
    assert history.refund_button.text() == "Re&fund…"


def test_cancelling_a_qr_the_customer_has_just_paid_cancels_nothing(
    shop: Shop, notifications_late: None
) -> None:
    outcome = qr_sale(shop, PIX, 5000)
    mcid = outcome.merchant_charge_id
    screen = shop.window.charge_screen
    panel = screen.qr_panel
    # The customer pays; the notification is still on its way when the clerk cancels.
    admin(shop, "POST", f"/_sandbox/pay/{mcid}")
    assert panel.status.text() == "Awaiting payment…"
    panel.cancel_button.click()
    spin_until(
        lambda: (
            screen.stack.currentWidget() is screen.result and screen.result.status.text() == "Paid"
        ),
        "the paid QR to be shown",
    )
    said = screen.result.message.text()
    assert "already paid" in said and "nothing was cancelled" in said, said
    assert "Refunded" not in said
    assert display(shop).message.text() == "Paid — thank you!"
    # Nothing was sent: no money operation, the payment is still at the service.
    record = shop.record(mcid)
    assert qr_phase(record.state) == QrPhase.PAID and not record.refunded_amount
    assert shop.terminal.service.store.repo.money_operations(mcid) == []
    held = at_sandbox(shop, mcid)
    assert (held["chargeStatus"], held["refundedAmount"]) == ("PAID", 0)
    # The late notification changes nothing, and the clerk still reads why.
    spin_until(
        lambda: any(
            item.source == "webhook"
            for item in shop.terminal.service.store.repo.timeline(mcid).items
        ),
        "the late notification",
    )
    spin_until(lambda: screen.result.status.text() == "Paid", "the paid QR")
    assert "nothing was cancelled" in screen.result.message.text()


def test_a_payment_heard_while_the_cancel_asks_shows_its_reason_at_once(shop: Shop) -> None:
    """The payment's notification lands while the cancel is still asking the service: the
    paid result appears once, with the reason nothing was cancelled, never bare first."""
    mcid = qr_sale(shop, PIX, 4100).merchant_charge_id
    screen = shop.window.charge_screen
    panel = screen.qr_panel
    shown: list[tuple[str, str]] = []

    def changed(_index: int) -> None:
        if screen.stack.currentWidget() is screen.result:
            shown.append((screen.result.status.text(), screen.result.message.text()))

    screen.stack.currentChanged.connect(changed)
    faults(shop, webhook_delay_s=0.3, latency_s=4.0)
    try:
        admin(shop, "POST", f"/_sandbox/pay/{mcid}")
        panel.cancel_button.click()
        spin_until(
            lambda: any(
                item.source == "webhook"
                for item in shop.terminal.service.store.repo.timeline(mcid).items
            ),
            "the notification, while the cancel still asks",
        )
        # Told at once on the panel; the result waits for the cancel's answer and its reason.
        spin_until(lambda: panel.status.text() == "Paid", "the panel to say Paid")
        assert panel.cancelling, "the cancel's question should still be out"
        assert screen.stack.currentWidget() is panel and not shown
        spin_until(lambda: not panel.cancelling, "the cancel's answer")
        spin_until(lambda: screen.stack.currentWidget() is screen.result, "the paid result")
    finally:
        faults(shop, webhook_delay_s=0.0, latency_s=0.0)
        screen.stack.currentChanged.disconnect(changed)
    assert shown, "the result was never shown"
    status, said = shown[0]
    assert status == "Paid", shown
    assert "already paid" in said and "nothing was cancelled" in said, shown
    assert shop.terminal.service.store.repo.money_operations(mcid) == []


def test_cancelling_from_the_history_a_qr_paid_meanwhile_cancels_nothing(
    shop: Shop, notifications_late: None
) -> None:
    outcome = qr_sale(shop, WALLET, 2200)
    mcid = outcome.merchant_charge_id
    history, dialog = history_action(shop, mcid, "Cancel Q&R…")
    assert "Nothing was paid" in dialog.explanation.text()
    # Paid while the dialog was open; the notification is still on its way.
    admin(shop, "POST", f"/_sandbox/pay/{mcid}")
    dialog.accept()
    spin_until(lambda: "nothing was cancelled" in history.message.text(), "the refusal")
    said = history.message.text()
    assert "already paid" in said and "QR cancelled." not in said, said
    record = shop.record(mcid)
    assert qr_phase(record.state) == QrPhase.PAID and not record.refunded_amount
    assert shop.terminal.service.store.repo.money_operations(mcid) == []
    assert at_sandbox(shop, mcid)["refundedAmount"] == 0
    # A refund, if wanted, is the history's own action.
    spin_until(lambda: history.refund_button.text() == "Re&fund…", "the refund action")
    assert history.refund_button.isEnabled()


def test_with_a_supervisor_pin_an_unpaid_qr_is_cancelled_without_it(
    shop: Shop, supervisor_pin: str
) -> None:
    screen = shop.window.charge_screen
    panel = screen.qr_panel
    first = qr_sale(shop, PIX, 1300)
    panel.cancel_button.click()
    spin_until(lambda: panel.status.text() == "Cancelled", "the cancel")
    assert qr_phase(shop.record(first.merchant_charge_id).state) == QrPhase.CANCELED
    # From the history too: the dialog asks for no PIN.
    second = qr_sale(shop, WALLET, 1400).merchant_charge_id
    history, dialog = history_action(shop, second, "Cancel Q&R…")
    assert not dialog.pin.isVisibleTo(dialog)
    dialog.accept()
    spin_until(lambda: history.message.text() == "QR cancelled.", "the history's cancel")
    assert qr_phase(shop.record(second).state) == QrPhase.CANCELED
    # Giving a payment back still needs it.
    third = qr_sale(shop, PIX, 1500).merchant_charge_id
    simulate_payment(shop, third)
    _, dialog = history_action(shop, third, "Re&fund…")
    assert dialog.pin.isVisibleTo(dialog)
    dialog.accept()
    assert dialog.error.text() == "Wrong supervisor PIN."
    dialog.pin.setText(supervisor_pin)
    dialog.accept()
    spin_until(lambda: shop.record(third).refunded_amount == 1500, "the refund")
