"""Two counters on one shared store, each on the built-in sandbox of its own computer.

Each counter's sandbox is a process of its own that alone knows the charges it made. So a
counter never acts on, asks about or reconciles another counter's sandbox charges: its own
sandbox would answer "no such charge", and an unresolved attempt would be settled as never
charged by a service that never saw it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
import pytest_asyncio

from checkout_desktop.charges.authority import PinRefused, hash_pin
from checkout_desktop.charges.service import ChargeElsewhere
from checkout_desktop.charges.shop import ShopSettings
from checkout_desktop.domain.inbox_events import WebhookStored
from checkout_desktop.domain.qr import QrPhase, qr_phase
from checkout_desktop.domain.reasons import ReasonCode
from checkout_desktop.domain.records import PIX
from checkout_desktop.domain.shop_events import ShopSettingsChanged
from checkout_desktop.domain.state import AttemptState
from checkout_desktop.paths import AppPaths
from checkout_desktop.sandbox.link import SandboxLink, start_sandbox
from checkout_desktop.settings import Settings, UiSettings
from checkout_desktop.store.postgres import db
from checkout_desktop.store.postgres.address import StoreAddress
from checkout_desktop.terminal import Terminal
from tests.integration.charging_support import SandboxAccess, sell_by_card, visa
from tests.integration.qr_support import qr_request, qr_tenders

pytestmark = pytest.mark.pg

LONG_AGO = "2000-01-01T00:00:00.000000Z"
HANG_S = 60.0  # a bound on a hang, never a speed claim


def _paths(root: Path) -> AppPaths:
    return AppPaths(root / "config", root / "data", root / "logs").ensure()


@pytest_asyncio.fixture
async def counters(
    pg_url: str, tmp_path: Path
) -> AsyncIterator[tuple[list[Terminal], list[SandboxLink]]]:
    db.connect(StoreAddress.parse(pg_url), None).close()
    links: list[SandboxLink] = []
    terminals: list[Terminal] = []
    try:
        for name in ("caixa-1", "caixa-2"):
            paths = _paths(tmp_path / name)
            link = await asyncio.to_thread(start_sandbox, paths)
            links.append(link)
            # No inbox and no scheduled reconciler: each pass below is asked for.
            terminals.append(
                await Terminal.start(
                    Settings(first_run_done=True),
                    paths,
                    sandbox=link,
                    listener_port=0,
                    store_url=pg_url,
                    defer_inbox=True,
                )
            )
        yield terminals, links
    finally:
        for terminal in terminals:
            await terminal.stop()
        for link in links:
            link.stop()


def _queries_to(link: SandboxLink, terminal: Terminal) -> list[str]:
    """The charge API requests `terminal` sends from now on (to `link`'s sandbox)."""
    sent: list[str] = []

    async def note(request: httpx.Request) -> None:
        if "/api/" in request.url.path and str(request.url).startswith(link.info.base_url):
            sent.append(f"{request.method} {request.url.path}")

    terminal.http.event_hooks["request"].append(note)
    return sent


@pytest.mark.asyncio
async def test_a_counter_leaves_another_counters_sandbox_charges_alone(
    counters: tuple[list[Terminal], list[SandboxLink]], pg_url: str
) -> None:
    (first, second), (first_link, second_link) = counters
    assert first_link.info.instance and first_link.info.instance != second_link.info.instance
    assert first.service.profile == f"builtin-sandbox@{first_link.info.instance}"
    assert second.service.profile != first.service.profile

    outcome = await sell_by_card(first.service, SandboxAccess.of_info(first_link.info.raw))
    paid = outcome.merchant_charge_id
    assert outcome.record is not None and outcome.record.status is not None
    # An attempt of the first counter left unresolved long ago (its terminal crashed), and its
    # paid charge due for a check.
    open_sale = first.service.new_sale()
    open_attempt = f"{open_sale.sale_id}-01"
    async with first.service.store.unit_of_work() as uow:
        await uow.charges.record_attempt(
            merchant_charge_id=open_attempt,
            sale_id=open_sale.sale_id,
            profile=first.service.profile,
            amount=700,
            tenders=visa("1111"),
        )
    with db.connect(StoreAddress.parse(pg_url), None) as conn:
        conn.execute(
            "UPDATE charge_attempt SET created_at = %s, updated_at = %s "
            "WHERE merchant_charge_id = %s",
            (LONG_AGO, LONG_AGO, open_attempt),
        )
        conn.execute(
            "UPDATE charge SET next_check_at = %s WHERE merchant_charge_id = %s", (LONG_AGO, paid)
        )

    sent = _queries_to(second_link, second)
    # The second counter refuses before sending anything: its sandbox never held the charge.
    for action in (
        second.service.refund(paid, 100),
        second.service.refresh(paid),
        second.service.check_attempt(open_attempt),
    ):
        with pytest.raises(ChargeElsewhere) as refused:
            await action
        assert refused.value.reason.code == ReasonCode.OTHER_ENVIRONMENT
    report = await second.service.reconcile(trigger="start-up")
    await second.service.sweep_now()
    assert sent == []
    assert (report.attempts_checked, report.charges_checked, report.swept) == (0, 0, 0)
    attempt = await first.service.store.charges.attempt(open_attempt)
    assert attempt is not None and attempt.state == AttemptState.RECORDED
    story = (await first.views.timeline(paid, limit=50)).items
    assert not [item for item in story if item.source == "reconciliation"], story

    # The first counter asks its own sandbox about both, as ever.
    own = _queries_to(first_link, first)
    report = await first.service.reconcile(trigger="start-up")
    assert report.attempts_checked == 1 and report.charges_checked == 1, report
    assert own and all(line.startswith("GET ") for line in own), own
    refunded = await first.service.refund(paid, 100)
    assert refunded.refunded_amount == 100


@pytest.mark.asyncio
async def test_each_counter_hears_its_own_sandboxs_notifications(
    counters: tuple[list[Terminal], list[SandboxLink]],
) -> None:
    """A built-in sandbox notifies only its own computer: each counter on it runs its own
    inbox, and sees the other counter's deliveries through the shared store."""
    (first, second), (_, second_link) = counters
    for terminal in (first, second):
        await terminal.start_inbox()
        assert terminal.inbox.started
    seen_at_first: list[str] = []
    first.bus.subscribe(
        WebhookStored, lambda event: seen_at_first.append(event.merchant_charge_id or "")
    )
    sale = second.service.new_sale()
    mcid = f"{sale.sale_id}-01"
    outcome = await second.service.charge(
        sale_id=sale.sale_id,
        request=qr_request(PIX, merchant_charge_id=mcid),
        tenders=qr_tenders(PIX),
    )
    assert outcome.awaiting_payment
    # The customer pays: the second counter's sandbox notifies the second counter.
    await second_link.pay_qr(mcid)
    deadline = time.monotonic() + HANG_S
    while True:
        record = await second.store.charges.charge(mcid)
        if record is not None and qr_phase(record.state) == QrPhase.PAID:
            break
        assert time.monotonic() < deadline, "the payment's notification did not arrive"
        await asyncio.sleep(0.1)
    assert record.last_webhook_at is not None, "shown paid by a query, not by the notification"
    while mcid not in seen_at_first:
        assert time.monotonic() < deadline, "the first counter never heard of the delivery"
        await asyncio.sleep(0.1)


@pytest.mark.asyncio
async def test_a_running_counter_takes_the_shops_new_pin_name_and_rules_at_once(
    counters: tuple[list[Terminal], list[SandboxLink]],
) -> None:
    """A PIN changed at one counter is the PIN at every running counter from then on (its
    refunds and its Settings alike), not at their next start: an old PIN typed at a counter
    that has not restarted opens nothing."""
    (first, second), _ = counters
    await first.start_inbox()
    heard: list[ShopSettingsChanged] = []
    first.bus.subscribe(ShopSettingsChanged, heard.append)
    new_pin = hash_pin("4321")
    changed = UiSettings(supervisor_pin_hash=new_pin, shop_name="Loja Nova")
    await second.service.share_settings(changed, second.settings.ui)
    # A rule the second counter's clerk met on the first counter's environment (say the
    # first counter's service required the e-mail when the second sold through it).
    await ShopSettings(second.store, by="caixa-2").publish_learned(
        first.service.profile, "customer_email_required", True
    )
    deadline = time.monotonic() + HANG_S

    def taken() -> bool:
        return bool(heard) and heard[-1].learned == (("customer_email_required", True),)

    while not taken():
        assert time.monotonic() < deadline, f"the first counter never heard: {heard}"
        await asyncio.sleep(0.05)
    now = heard[-1]
    assert (now.pin_held, now.pin_hash, now.shop_name) == (True, new_pin, "Loja Nova")
    # The first counter's service asks for the new PIN at once.
    assert first.service.authority.pin_set
    with pytest.raises(PinRefused):
        first.service.authority.check_end("abcde-000000000001-01", None)
    first.service.authority.check_end("abcde-000000000001-01", "4321")
