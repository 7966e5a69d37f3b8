"""Property: any interleaving of refunds, captures, replies, notifications and crashes ends
with the store equal to the service, every operation sent once, and no refund paid twice."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from checkout_desktop.charges.service import ChargeService, MoneyOperationError
from checkout_desktop.domain.money_ops import MoneyOpKind, MoneyOpState
from checkout_desktop.domain.state import merge_charge_update
from checkout_desktop.gateway.client import ChargeClient
from checkout_desktop.gateway.errors import GatewayError
from checkout_desktop.gateway.profiles import Endpoints
from checkout_desktop.gateway.tokens import TokenManager
from checkout_desktop.sandbox.server import SandboxConfig, SandboxServer
from checkout_desktop.store.sqlite.db import connect
from checkout_desktop.store.sqlite.store import SqliteStore
from tests.integration.charging_support import (
    APPROVED,
    SandboxAccess,
    card_token,
    charge_request,
    visa,
)
from tests.integration.money_support import Crash, MoneyFaults, deliver_notifications

logger = logging.getLogger(__name__)

AMOUNT = 2000

STEP = st.one_of(
    st.tuples(st.just("refund"), st.sampled_from([None, 1, 300, 700, 1300, 2000, 2500])),
    st.tuples(st.just("capture"), st.sampled_from([None, 1500])),
    st.tuples(st.sampled_from(["crash", "late", "fail"]), st.just(0)),
    st.tuples(st.just("notify"), st.integers(0, 2**16)),
    st.tuples(st.sampled_from(["reconcile", "restart"]), st.just(0)),
)


@dataclass
class Terminal:
    """One run of the terminal's core on the shared store file (a restart makes a new one)."""

    conn: sqlite3.Connection
    service: ChargeService


def start_terminal(
    http: httpx.AsyncClient, access: SandboxAccess, db: Path, *, grace_s: float = 600.0
) -> Terminal:
    endpoints = Endpoints(base_url=access.api_url, auth_url=access.api_url)
    tokens = TokenManager(
        http=http,
        token_url=endpoints.token_url,
        client_id=access.client_id,
        credentials=access.credentials(),
    )
    conn = connect(db)
    client = ChargeClient(http=http, endpoints=endpoints, tokens=tokens, timeout_s=0.5)
    service = ChargeService(
        store=SqliteStore(conn), client=client, profile="builtin-sandbox", unknown_grace_s=grace_s
    )
    return Terminal(conn, service)


async def restart(
    old: Terminal, http: httpx.AsyncClient, access: SandboxAccess, db: Path, grace_s: float
) -> Terminal:
    old.conn.close()
    new = start_terminal(http, access, db, grace_s=grace_s)
    await new.service.reconcile_unresolved()
    return new


async def scenario(db: Path, late_capture: bool, steps: list[tuple[str, object]]) -> None:
    server = SandboxServer(SandboxConfig(api_port=0, sdk_port=0))
    await server.start()
    try:
        access = SandboxAccess.of_server(server)
        faults = MoneyFaults(server, late_s=1.0)
        async with httpx.AsyncClient(transport=faults, trust_env=False) as http:
            terminal = start_terminal(http, access, db)
            outcome = await terminal.service.charge(
                sale_id="sale-1",
                request=charge_request(
                    await card_token(access, APPROVED), amount=AMOUNT, late_capture=late_capture
                ),
                tenders=visa("1111"),
            )
            mcid = outcome.merchant_charge_id
            for action, arg in steps:
                if action in ("crash", "late", "fail"):
                    faults.armed = action
                elif action in ("refund", "capture"):
                    amount = None if arg is None else int(str(arg))
                    call = (
                        terminal.service.refund if action == "refund" else terminal.service.capture
                    )
                    try:
                        await call(mcid, amount)
                    except Crash:
                        terminal = await restart(terminal, http, access, db, 600.0)
                    except (MoneyOperationError, GatewayError):
                        pass
                elif action == "notify":
                    deliver_notifications(server, terminal.conn, int(str(arg)))
                elif action == "reconcile":
                    await terminal.service.reconcile(trigger="schedule")
                else:
                    terminal = await restart(terminal, http, access, db, 600.0)
            faults.armed = None
            # Settle: whatever is still open is asked about (past the grace period now).
            terminal = await restart(terminal, http, access, db, 0.0)
            for _ in range(5):
                if not terminal.service.store.repo.unresolved_money_operations():
                    break
                await terminal.service.reconcile(trigger="schedule")
            repo = terminal.service.store.repo
            ops = repo.money_operations(mcid)
            assert [o for o in ops if o.unresolved] == []
            # Every recorded operation was sent exactly once; nothing was ever sent again.
            assert faults.money_posts == len(ops)
            at_service = server.state.charges[mcid]
            refunds = [o for o in ops if o.kind == MoneyOpKind.REFUND]
            confirmed = sum(o.amount for o in refunds if o.state == MoneyOpState.CONFIRMED)
            assert at_service.refunded_amount == confirmed
            assert at_service.refunded_amount <= sum(o.amount for o in refunds)
            captures = [o for o in ops if o.kind == MoneyOpKind.CAPTURE]
            assert sum(o.state == MoneyOpState.CONFIRMED for o in captures) <= 1
            reply = await terminal.service.client.query(mcid)
            service_state = merge_charge_update(None, reply.update(source="reconciliation"))
            record = repo.charge(mcid)
            assert record is not None
            assert record.state.summary() == service_state.state.summary()
            terminal.conn.close()
    finally:
        await server.stop()


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(late_capture=st.booleans(), steps=st.lists(STEP, min_size=1, max_size=10))
def test_any_interleaving_ends_equal_to_the_service_and_never_refunds_twice(
    tmp_path_factory: pytest.TempPathFactory, late_capture: bool, steps: list[tuple[str, object]]
) -> None:
    db = tmp_path_factory.mktemp("money") / "store.sqlite3"
    asyncio.run(scenario(db, late_capture, steps))
