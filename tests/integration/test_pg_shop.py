"""A shop on one PostgreSQL store: three headless terminal cores and one `listen` process.

The sandbox plays the one service every counter uses (one merchant account) and delivers its notifications to the `listen` process, which
holds the shop's inbox; the three cores sell at once, none of them receives notifications
itself, and each sees every delivery and every charge through the shared store. A due check is
asked about by one counter only. The relay below stands in for the shop's reverse proxy or
tunnel: the service delivers over HTTPS only and `listen` serves plain HTTP on loopback.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from collections import Counter
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
import pytest_asyncio
from aiohttp import web

from checkout_desktop.domain.charge_events import ChargeChanged
from checkout_desktop.domain.inbox_events import WebhookStored
from checkout_desktop.domain.reasons import Reason, ReasonCode
from checkout_desktop.domain.timestamps import utc_now
from checkout_desktop.paths import AppPaths
from checkout_desktop.sandbox import link as sandbox_link
from checkout_desktop.store.postgres import db
from checkout_desktop.store.postgres.address import StoreAddress
from checkout_desktop.terminal import INBOX_TAKEOVER_S, Terminal
from tests.integration.charging_support import (
    SandboxAccess,
    counter_on_shared_service,
    sell_by_card,
)

pytestmark = pytest.mark.pg

CORES = 3
SALES_PER_CORE = 4
CHECK_INTERVALS = 3
PASSES_PER_INTERVAL = 3
HANG_S = 90  # a bound on a hang, never a speed claim


def _paths(root: Path) -> AppPaths:
    return AppPaths(root / "config", root / "data", root / "logs").ensure()


class Relay:
    """HTTPS in front of `listen`'s plain HTTP (what a shop's tunnel or proxy does)."""

    def __init__(self, paths: AppPaths) -> None:
        self._cert = sandbox_link.listener_certificate(paths)
        self.target: str | None = None
        self._runner: web.AppRunner | None = None
        self.url = ""

    async def start(self) -> None:
        app = web.Application()
        app.router.add_post("/{tail:.*}", self._forward)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0, ssl_context=self._cert.server_context())
        await site.start()
        port = self._runner.addresses[0][1]
        self.url = f"https://{sandbox_link.LOCAL_WEBHOOK_HOST}:{port}/webhook"

    async def _forward(self, request: web.Request) -> web.Response:
        if self.target is None:
            return web.Response(status=503)
        headers = {
            k: v for k, v in request.headers.items() if k.lower() not in {"host", "content-length"}
        }
        async with httpx.AsyncClient(timeout=30) as client:
            reply = await client.post(self.target, content=await request.read(), headers=headers)
        return web.Response(status=reply.status_code, body=reply.content)

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()


def _start_listen(tmp_path: Path, pg_url: str, token_file: Path) -> subprocess.Popen[str]:
    """`checkout-desktop --store URL listen` in a data folder of its own."""
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "checkout_desktop.cli",
            "--data-dir",
            str(tmp_path / "inbox-box"),
            "--store",
            pg_url,
            "listen",
            "--port",
            "0",
            "--no-tunnel",
            "--token-file",
            str(token_file),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])},
    )


@pytest_asyncio.fixture
async def shop(pg_url: str, tmp_path: Path) -> AsyncIterator[dict[str, Any]]:
    db.connect(StoreAddress.parse(pg_url), None).close()
    first = _paths(tmp_path / "caixa-0")
    link = await asyncio.to_thread(sandbox_link.start_sandbox, first)
    relay = Relay(first)
    await relay.start()
    listen: subprocess.Popen[str] | None = None
    cores: list[Terminal] = []
    try:
        token = await link.set_webhook(relay.url)
        token_file = tmp_path / "webhook.token"
        token_file.write_text(token.get_secret_value(), encoding="utf-8")
        token_file.chmod(0o600)
        listen = _start_listen(tmp_path, pg_url, token_file)
        assert listen.stdout is not None
        line = await asyncio.to_thread(listen.stdout.readline)
        assert line.startswith("listening on "), line
        relay.target = line.removeprefix("listening on ").strip()
        for n in range(CORES):
            paths = first if n == 0 else _paths(tmp_path / f"caixa-{n}")
            cores.append(await counter_on_shared_service(link, paths, pg_url))
        yield {"cores": cores, "link": link, "listen": listen, "url": pg_url}
    finally:
        for core in cores:
            await core.stop()
        if listen is not None:
            if listen.poll() is None:
                listen.terminate()
            listen.communicate(timeout=60)
        await relay.stop()
        link.stop()


async def _sell(core: Terminal, access: SandboxAccess) -> list[str]:
    sold: list[str] = []
    for _ in range(SALES_PER_CORE):
        outcome = await sell_by_card(core.service, access)
        assert outcome.record is not None, outcome
        sold.append(outcome.merchant_charge_id)
    return sold


@pytest.mark.asyncio
async def test_three_cores_and_one_listen_share_one_store(shop: dict[str, Any]) -> None:
    cores: list[Terminal] = shop["cores"]
    access = SandboxAccess.of_info(shop["link"].info.raw)

    # Counter ids differ; the `listen` box holds the inbox, so no core runs a listener.
    counters = [core.counter for core in cores]
    assert all(counters) and len(set(counters)) == CORES
    for core in cores:
        assert not core.inbox.started
        assert core.inbox_holder is not None
        assert core.inbox_holder.pid == shop["listen"].pid

    seen_charges: list[set[str]] = [set() for _ in cores]
    seen_events: list[set[int]] = [set() for _ in cores]
    for n, core in enumerate(cores):
        core.bus.subscribe(ChargeChanged, lambda e, n=n: seen_charges[n].add(e.merchant_charge_id))
        core.bus.subscribe(WebhookStored, lambda e, n=n: seen_events[n].add(e.event_id))

    sold = await asyncio.gather(*(_sell(core, access) for core in cores))
    for core, mcids in zip(cores, sold, strict=True):
        assert all(mcid.startswith(f"{core.counter}-") for mcid in mcids)
        assert all(len(mcid) <= 36 for mcid in mcids)
    every = sorted(mcid for mcids in sold for mcid in mcids)

    # Every sale's notification reaches the store through the one inbox.
    deadline = time.monotonic() + HANG_S
    while True:
        records = [await cores[0].store.charges.charge(mcid) for mcid in every]
        if all(r is not None and r.last_webhook_at is not None for r in records):
            break
        assert time.monotonic() < deadline, "notifications did not all arrive"
        await asyncio.sleep(0.2)

    # Every terminal's history and event list are the same.
    histories = [
        [
            (c.merchant_charge_id, c.status)
            for c in (await core.store.charges.list_charges(limit=200)).items
        ]
        for core in cores
    ]
    assert sorted(mcid for mcid, _ in histories[0]) == every
    assert histories[0] == histories[1] == histories[2]
    lists = [[e.id for e in (await core.events.page(limit=500)).rows] for core in cores]
    assert lists[0] and lists[0] == lists[1] == lists[2]
    # ... and live: every core heard of every charge and of every sale's delivery, whichever
    # counter made the sale and although none of them received the notifications itself.
    sales_events = {
        e.id for e in (await cores[0].events.page(limit=500)).rows if e.merchant_charge_id in every
    }
    assert len(sales_events) >= len(every)
    deadline = time.monotonic() + HANG_S
    while not all(
        set(every) <= charges and sales_events <= events
        for charges, events in zip(seen_charges, seen_events, strict=True)
    ):
        assert time.monotonic() < deadline, (seen_charges, seen_events)
        await asyncio.sleep(0.1)

    # Each due charge is asked about once per check interval across the shop, whichever
    # counter asks and however many passes the counters run meanwhile.
    asked: Counter[str] = Counter()
    for core in cores:
        client = core.service.reconciler.client
        query = client.query

        async def counted(mcid: str, *args: Any, _query: Any = query, **kwargs: Any) -> Any:
            asked[mcid] += 1
            return await _query(mcid, *args, **kwargs)

        client.query = counted  # type: ignore[method-assign]
    # The passes below are the only ones: each core's scheduled reconciler would otherwise
    # claim checks the test counts (a pass a minute, but every 2 s when its last pass saw an
    # attempt unresolved, as the sales above are while in flight; or at once when woken).
    for core in cores:
        await core.service.stop()
    for interval in range(1, CHECK_INTERVALS + 1):
        # A new interval: every charge falls due again (as a check the policy planned does).
        now = utc_now()
        async with cores[0].store.unit_of_work() as uow:
            for mcid in every:
                await uow.charges.schedule_check(
                    mcid,
                    reason=Reason.of(ReasonCode.CHECK_SCHEDULED),
                    at=now - timedelta(seconds=1),
                )
        # A scheduled pass coming due here took every check the test had just scheduled (a slow
        # run: a core's start-up pass ended while the sales were in flight, so its next pass
        # came 2 s later): woken on purpose, none may run now.
        for core in cores:
            core.service.wake()
        reports = await asyncio.gather(
            *(
                core.service.reconciler.reconcile(trigger="on demand")
                for core in cores
                for _ in range(PASSES_PER_INTERVAL)
            )
        )
        assert sum(r.charges_checked for r in reports) == len(every), interval
        assert {mcid: asked[mcid] for mcid in every} == dict.fromkeys(every, interval)


@pytest.mark.asyncio
async def test_a_core_takes_the_inbox_over_when_the_listen_box_dies(shop: dict[str, Any]) -> None:
    cores: list[Terminal] = shop["cores"]
    access = SandboxAccess.of_info(shop["link"].info.raw)
    listen: subprocess.Popen[str] = shop["listen"]
    listen.kill()
    listen.wait(timeout=30)
    deadline = time.monotonic() + HANG_S
    while not any(core.inbox.started for core in cores):
        assert time.monotonic() < deadline, "no counter took the inbox over"
        await asyncio.sleep(0.1)
    await asyncio.sleep(3 * INBOX_TAKEOVER_S)  # the others had their turns to ask
    holders = [core for core in cores if core.inbox.started]
    assert len(holders) == 1
    holder = holders[0]
    for core in cores:
        if core is not holder:
            assert await asyncio.to_thread(core.inbox_lock.try_take) is not None  # type: ignore[union-attr]
            assert core.inbox_lock is not None and not core.inbox_lock.held
    # The new holder told the (sandbox's) panel its URL: the next sale's notification reaches
    # the store through it, from whichever counter the sale was made.
    other = next(core for core in cores if core is not holder)
    [mcid] = await _sell_one(other, access)
    while True:
        record = await other.store.charges.charge(mcid)
        if record is not None and record.last_webhook_at is not None:
            break
        assert time.monotonic() < deadline, "the notification did not arrive"
        await asyncio.sleep(0.2)
    assert holder.inbox.listener is not None and holder.inbox.listener.stats.stored >= 1


async def _sell_one(core: Terminal, access: SandboxAccess) -> list[str]:
    return [(await sell_by_card(core.service, access)).merchant_charge_id]
