"""The shop's shared store goes down and comes back: the first read after it answers, and a
counter that was not listening learns every charge another counter changed meanwhile."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from pathlib import Path

import psycopg
import pytest
import pytest_asyncio
from psycopg.conninfo import conninfo_to_dict

from checkout_desktop.domain.charge_events import ChargeChanged
from checkout_desktop.domain.enums import ChargeStatus
from checkout_desktop.domain.qr import QrPhase, qr_phase
from checkout_desktop.domain.records import PIX
from checkout_desktop.domain.shop_events import SharedStoreReachabilityChanged
from checkout_desktop.paths import AppPaths
from checkout_desktop.sandbox.link import SandboxLink, start_sandbox
from checkout_desktop.settings import Settings
from checkout_desktop.store.postgres import db
from checkout_desktop.store.postgres.address import StoreAddress
from checkout_desktop.store.postgres.store import PgStore
from checkout_desktop.terminal import Terminal
from tests.integration.qr_support import qr_request, qr_tenders

pytestmark = pytest.mark.pg

HANG_S = 60.0  # a bound on a hang, never a speed claim
OTHER_COUNTER = "caixa-2"
"""The application name of the counter whose connections a partial cut keeps."""


def cut(pg_url: str, *, allowed: bool, keep: str | None = None) -> None:
    """The shop's database stops taking connections and drops the open ones (the server went
    down under the counter, or its network did), or takes them again. `keep` names the
    application whose open connections stay (a counter that kept its network)."""
    dbname = str(conninfo_to_dict(pg_url)["dbname"])
    admin_url = pg_url.replace(f"/{dbname}?", "/postgres?")
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(f'ALTER DATABASE "{dbname}" ALLOW_CONNECTIONS {str(allowed).lower()}')
        if not allowed:
            admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = %s AND application_name IS DISTINCT FROM %s",
                (dbname, keep),
            )


async def until(predicate: object, what: str, timeout_s: float = HANG_S) -> None:
    deadline = time.monotonic() + timeout_s
    while not predicate():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.05)


@pytest.mark.asyncio
async def test_the_first_read_after_the_store_answers_again_is_answered(pg_url: str) -> None:
    """The pool's connections died with the server: none of them is lent out again."""
    address = StoreAddress.parse(pg_url)
    store = await PgStore.open(address, None)
    try:
        # Every pooled connection in use once, so that the pool holds several.
        await asyncio.gather(*(store.events.latest_id() for _ in range(4)))
        cut(pg_url, allowed=False)
        cut(pg_url, allowed=True)
        for _ in range(4):
            assert await store.events.latest_id() == 0
    finally:
        await store.close()


@pytest_asyncio.fixture
async def two_counters(pg_url: str, tmp_path: Path) -> AsyncIterator[tuple[Terminal, Terminal]]:
    """Two counters on one store and one built-in sandbox (one environment): the first with
    its inbox and its watch on the store, the second only charging and asking."""
    db.connect(StoreAddress.parse(pg_url), None).close()
    paths = [
        AppPaths(tmp_path / n / "config", tmp_path / n / "data", tmp_path / n / "logs").ensure()
        for n in ("caixa-1", OTHER_COUNTER)
    ]
    # The sandbox notifies once: a delivery refused while the store is down is not sent again.
    link: SandboxLink = await asyncio.to_thread(
        start_sandbox, paths[0], extra_args=("--webhook-attempts", "1")
    )
    terminals: list[Terminal] = []
    try:
        terminals.append(
            await Terminal.start(
                Settings(first_run_done=True),
                paths[0],
                sandbox=link,
                listener_port=0,
                store_url=pg_url,
                health_interval_s=600,
            )
        )
        terminals.append(
            await Terminal.start(
                Settings(first_run_done=True),
                paths[1],
                sandbox=link,
                listener_port=0,
                store_url=f"{pg_url}&application_name={OTHER_COUNTER}",
                defer_inbox=True,
            )
        )
        yield terminals[0], terminals[1]
    finally:
        for terminal in terminals:
            await terminal.stop()
        link.stop()


@pytest.mark.asyncio
@pytest.mark.expected_errors(
    "could not be stored", "does not answer", "error connecting", "self-test"
)
async def test_a_charge_paid_while_a_counter_was_not_listening_is_announced_when_it_is_back(
    two_counters: tuple[Terminal, Terminal], pg_url: str
) -> None:
    first, second = two_counters
    assert first.sandbox is not None
    # Only the watch tells the first counter of changes (its reconciler would ask the service).
    await first.service.stop()
    changes: list[ChargeChanged] = []
    first.bus.subscribe(ChargeChanged, changes.append)
    reachable: list[bool] = []
    first.bus.subscribe(
        SharedStoreReachabilityChanged, lambda event: reachable.append(event.reachable)
    )
    sale = first.service.new_sale()
    mcid = f"{sale.sale_id}-01"
    outcome = await first.service.charge(
        sale_id=sale.sale_id,
        request=qr_request(PIX, merchant_charge_id=mcid),
        tenders=qr_tenders(PIX),
    )
    assert outcome.awaiting_payment

    # The first counter loses the store; the second keeps it.
    cut(pg_url, allowed=False, keep=OTHER_COUNTER)
    try:
        await until(lambda: reachable[-1:] == [False], "the first counter to find the store gone")
        refused = first.inbox.listener
        assert refused is not None
        before = refused.stats.unavailable
        # The customer pays; the first counter's inbox cannot store the notification.
        await first.sandbox.pay_qr(mcid)
        await until(lambda: refused.stats.unavailable > before, "the notification refused")
        # The second counter asks the service (as its sweep does) and stores the payment.
        record = await second.service.refresh(mcid)
        assert qr_phase(record.state) == QrPhase.PAID
    finally:
        cut(pg_url, allowed=True)

    await until(lambda: reachable[-1:] == [True], "the first counter to find the store back")
    await until(
        lambda: any(
            change.merchant_charge_id == mcid and change.status == ChargeStatus.PAID.value
            for change in changes
        ),
        "the payment to be announced at the first counter",
        20.0,
    )
