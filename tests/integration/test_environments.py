"""Environments kept apart: a charge is refunded, captured or queried only on the service that made it."""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

import httpx
import pytest

from checkout_desktop.charges.service import ChargeElsewhere
from checkout_desktop.domain.reasons import ReasonCode
from checkout_desktop.domain.state import AttemptState
from checkout_desktop.sandbox.server import SandboxServer
from checkout_desktop.store.sqlite import db as store_db
from checkout_desktop.store.sqlite.db import connect, transaction
from tests.integration import sandbox_support
from tests.integration.charging_support import (
    APPROVED,
    HOLDER_DOCUMENT,
    SandboxAccess,
    Stack,
    card_token,
    charge_request,
    charging_stack,
    visa,
)

logger = logging.getLogger(__name__)

sandbox = sandbox_support.sandbox
"""The sandbox of the default variants (a fixture)."""


def requests_of(stack: Stack) -> list[str]:
    """Every request to the charge API the stack sends from now on (method and path)."""
    sent: list[str] = []

    async def note(request: httpx.Request) -> None:
        if "/api/" in request.url.path:
            sent.append(f"{request.method} {request.url.path}")

    stack.http.event_hooks["request"].append(note)
    return sent


@pytest.mark.asyncio
async def test_a_charge_is_never_acted_on_or_queried_from_another_environment(
    sandbox: SandboxServer, tmp_path: Path
) -> None:
    access = SandboxAccess.of_server(sandbox)
    db = tmp_path / "s.sqlite3"
    async with charging_stack(access, db, profile="builtin-sandbox") as test_env:
        paid = await test_env.service.charge(
            sale_id="sale-1",
            request=charge_request(await card_token(access, APPROVED), amount=1500),
            tenders=visa("1111"),
        )
        held = await test_env.service.charge(
            sale_id="sale-2",
            request=charge_request(
                await card_token(access, APPROVED), amount=900, late_capture=True
            ),
            tenders=visa("1111"),
        )
        charges = test_env.service.store
        async with charges.unit_of_work() as uow:
            # An attempt whose outcome is open, made here.
            await uow.charges.record_attempt(
                merchant_charge_id="t-open-attempt",
                sale_id="sale-3",
                profile="builtin-sandbox",
                amount=700,
                tenders=visa("1111"),
            )
        with transaction(test_env.conn):
            # A charge due for a check, made here.
            test_env.conn.execute(
                "UPDATE charge SET next_check_at = :at WHERE merchant_charge_id = :m",
                {"at": "2000-01-01T00:00:00.000000Z", "m": paid.merchant_charge_id},
            )
        record = await charges.charges.charge(paid.merchant_charge_id)
        assert record is not None and record.profile == "builtin-sandbox"

    # The same store, now run against another environment (whose service would answer).
    async with charging_stack(access, db, profile="production") as real:
        sent = requests_of(real)
        for action in (
            real.service.refund(paid.merchant_charge_id, 100),
            real.service.capture(held.merchant_charge_id),
            real.service.refresh(paid.merchant_charge_id),
            real.service.refresh("t-open-attempt"),
            real.service.check_attempt("t-open-attempt"),
        ):
            with pytest.raises(ChargeElsewhere) as refused:
                await action
            assert refused.value.reason.code == ReasonCode.OTHER_ENVIRONMENT
            assert refused.value.reason.args["profile"] == "builtin-sandbox"
        report = await real.service.reconcile(trigger="start-up")
        await real.service.sweep_now()
        assert sent == []
        assert report.attempts_checked == report.charges_checked == report.swept == 0
        attempt = await real.service.store.charges.attempt("t-open-attempt")
        assert attempt is not None and attempt.state == AttemptState.RECORDED
    assert sandbox.state.charges[paid.merchant_charge_id].refunded_amount == 0
    assert str(sandbox.state.charges[held.merchant_charge_id].status) == "PRE_AUTHORIZED"

    # Back on its own environment, the same charge is asked about as ever.
    async with charging_stack(access, db, profile="builtin-sandbox") as test_env:
        sent = requests_of(test_env)
        refreshed = await test_env.service.refresh(paid.merchant_charge_id)
        assert refreshed.profile == "builtin-sandbox"
        assert len(sent) == 1 and sent[0].startswith("GET ")


@pytest.mark.asyncio
async def test_a_charge_only_notifications_told_of_is_never_asked_about(
    sandbox: SandboxServer, tmp_path: Path
) -> None:
    access = SandboxAccess.of_server(sandbox)
    db = tmp_path / "s.sqlite3"
    async with charging_stack(access, db) as stack:
        made = await stack.service.charge(
            sale_id="sale-1",
            request=charge_request(await card_token(access, APPROVED)),
            tenders=visa("1111"),
        )
        with transaction(stack.conn):
            # As if the charge had come in a notification only: no attempt of this terminal.
            stack.conn.execute(
                "UPDATE charge SET profile = NULL WHERE merchant_charge_id = :m",
                {"m": made.merchant_charge_id},
            )
        sent = requests_of(stack)
        with pytest.raises(ChargeElsewhere) as refused:
            await stack.service.refund(made.merchant_charge_id)
        assert refused.value.reason.code == ReasonCode.UNKNOWN_ENVIRONMENT
        assert sent == []


@pytest.mark.asyncio
async def test_a_charge_remembers_its_environment_and_customer(
    sandbox: SandboxServer, tmp_path: Path
) -> None:
    access = SandboxAccess.of_server(sandbox)
    db = tmp_path / "s.sqlite3"
    async with charging_stack(access, db, profile="loja") as stack:
        made = await stack.service.charge(
            sale_id="sale-1",
            request=charge_request(await card_token(access, APPROVED)),
            tenders=visa("1111"),
        )
        record = await stack.service.store.charges.charge(made.merchant_charge_id)
        assert record is not None
        assert (record.profile, record.customer_document) == ("loja", HOLDER_DOCUMENT)
        (customer,) = await stack.service.store.charges.recent_customers()
        assert (customer.name, customer.document, customer.email, customer.phone) == (
            "Maria Silva",
            HOLDER_DOCUMENT,
            "maria@example.com",
            "11987654321",
        )


def test_charges_from_before_environments_take_their_attempts_profile(tmp_path: Path) -> None:
    """A store written before charges kept their environment: the upgrade fills it in."""
    path = tmp_path / "old.sqlite3"
    raw = sqlite3.connect(path, isolation_level=None)
    for version, _, script in store_db.MIGRATIONS:
        if version >= 7:
            break
        for statement in store_db._statements(script):
            raw.execute(statement)
    raw.execute("PRAGMA user_version = 6")
    raw.execute(f"PRAGMA application_id = {store_db.APPLICATION_ID}")
    stamp = "2026-01-01T00:00:00.000000Z"
    raw.execute(
        "INSERT INTO charge_attempt (merchant_charge_id, sale_id, profile, amount, cards_json, "
        "tenders_json, state, created_at, updated_at) VALUES ('t-old', 's', 'production', 500, "
        "'[]', '[]', 'CREATED', ?, ?)",
        (stamp, stamp),
    )
    for mcid in ("t-old", "t-heard-of"):
        raw.execute(
            "INSERT INTO charge (merchant_charge_id, state_json, created_at, updated_at) "
            "VALUES (?, '{}', ?, ?)",
            (mcid, stamp, stamp),
        )
    raw.close()
    upgraded = connect(path)
    try:
        rows = dict(upgraded.execute("SELECT merchant_charge_id, profile FROM charge").fetchall())
        version = upgraded.execute("PRAGMA user_version").fetchone()[0]
    finally:
        upgraded.close()
    assert rows == {"t-old": "production", "t-heard-of": None}
    assert version >= 7
