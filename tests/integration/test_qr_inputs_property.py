"""Property: a QR's real inputs from the sandbox — the query replies along its life and every
notification it sent (paid, expired, cancelled, a payment landing late, partial and full
refunds) — applied to a store duplicated and in any order, through the inbox's own intake and
the ledger, end with the store where the service is."""

from __future__ import annotations

import asyncio
import json
import logging
import random
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from checkout_desktop.charges.ledger import inbox_applier
from checkout_desktop.domain.qr import effective_status, qr_phase
from checkout_desktop.domain.records import PIX, WALLET
from checkout_desktop.domain.state import merge_charge_update
from checkout_desktop.domain.wire import ChargeUpdate
from checkout_desktop.inbox.intake import Received, classify
from checkout_desktop.sandbox.server import SandboxConfig, SandboxServer
from checkout_desktop.store.sqlite import db
from checkout_desktop.store.sqlite.charges import ChargeRepository
from checkout_desktop.store.sqlite.store import SqliteCharges
from tests.integration.charging_support import SandboxAccess, charging_stack
from tests.integration.qr_support import expire, pay, qr_request, qr_tenders
from tests.ledger_support import SyncLedger, run_inline

logger = logging.getLogger(__name__)

AMOUNT = 2590

ENDINGS = ("paid", "expired", "cancelled", "paid after expiry", "paid after cancel")


@st.composite
def plans(draw: st.DrawFn) -> dict[str, object]:
    ending = draw(st.sampled_from(ENDINGS))
    paid = ending.startswith("paid")
    return {
        "kind": draw(st.sampled_from([WALLET, PIX])),
        "variants": {
            "qr-unpaid": draw(st.sampled_from(["PENDING", "PRE_AUTHORIZED"])),
            "wallet-paid": draw(st.sampled_from(["AUTHORIZED", "PAID"])),
            "qr-expired": draw(st.sampled_from(["expired-canceled", "expired-stays", "canceled"])),
            "partial-refund": draw(st.sampled_from(["PARTIAL", "PAID"])),
            "timestamps": draw(st.sampled_from(["offset", "naive-brt"])),
        },
        "ending": ending,
        "refunds": draw(st.lists(st.sampled_from([300, 700, 1290]), max_size=3)) if paid else [],
        "refund_rest": paid and draw(st.booleans()),
    }


def notification_update(body: object, event_type: str) -> ChargeUpdate | None:
    received = Received(
        json.dumps(body).encode(),
        {},
        datetime.now(UTC),
        event_type,
        "application/json",
        "127.0.0.1",
    )
    update = classify(received).update
    return update if isinstance(update, ChargeUpdate) else None


async def life_at_the_service(
    tmp: Path, plan: dict[str, object]
) -> tuple[str, list[ChargeUpdate], list[tuple[object, str]], ChargeUpdate]:
    """Run the QR's life on the sandbox; its query replies along the way, its notifications,
    and the last query (where the service ends)."""
    server = SandboxServer(SandboxConfig(api_port=0, sdk_port=0))
    await server.start()
    try:
        variants = plan["variants"]
        assert isinstance(variants, dict)
        server.variants.update(variants)
        access = SandboxAccess.of_server(server)
        kind = str(plan["kind"])
        ending = str(plan["ending"])
        replies: list[ChargeUpdate] = []
        async with charging_stack(access, tmp / "till.sqlite3") as stack:
            service = stack.service

            async def asked() -> None:
                reply = await stack.client.query(mcid)
                replies.append(reply.update(source="reconciliation"))

            made = await service.charge(
                sale_id="sale-q", request=qr_request(kind, amount=AMOUNT), tenders=qr_tenders(kind)
            )
            mcid = made.merchant_charge_id
            await asked()
            if "expir" in ending:
                assert (await expire(access.api_url, server.admin_token, mcid)).is_success
                await asked()
            if "cancel" in ending:
                await service.refund(mcid)
                await asked()
            if ending.startswith("paid"):
                late = ending != "paid"
                assert (await pay(access.api_url, server.admin_token, mcid, late=late)).is_success
                await asked()
                refunds = plan["refunds"]
                assert isinstance(refunds, list)
                refunded = 0
                for amount in refunds:
                    if refunded + amount < AMOUNT:
                        await service.refund(mcid, amount)
                        refunded += amount
                        await asked()
                if plan["refund_rest"]:
                    await service.refund(mcid, AMOUNT - refunded)
                    await asked()
            final = replies[-1]
        notes = [(n.body, n.event_type) for n in server.state.notifications]
        return mcid, replies, notes, final
    finally:
        await server.stop()


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(plan=plans(), rng=st.randoms(use_true_random=False))
def test_a_qrs_inputs_in_any_order_and_repeated_end_where_the_service_is(
    tmp_path_factory: pytest.TempPathFactory, plan: dict[str, object], rng: random.Random
) -> None:
    tmp = tmp_path_factory.mktemp("qr-inputs")
    mcid, replies, notes, final = asyncio.run(life_at_the_service(tmp, plan))
    inputs: list[tuple[str, object]] = [("reply", r) for r in replies]
    for body, event_type in notes:
        update = notification_update(body, event_type)
        assert update is not None, body
        if update.merchant_charge_id == mcid:
            inputs.append(("webhook", update))
    assert any(source == "webhook" for source, _ in inputs)
    # Some inputs arrive twice or three times (retries), all in any order.
    shuffled = [item for item in inputs for _ in range(rng.choice([1, 1, 2, 3]))]
    rng.shuffle(shuffled)

    conn = db.connect(tmp / "store.sqlite3")
    try:
        repo = ChargeRepository(conn)
        ledger = SyncLedger(repo)
        with db.transaction(conn):
            repo.record_attempt(
                merchant_charge_id=mcid,
                sale_id="sale-q",
                profile="builtin-sandbox",
                amount=AMOUNT,
                tenders=qr_tenders(str(plan["kind"])),
            )
        for n, (source, update) in enumerate(shuffled):
            assert isinstance(update, ChargeUpdate)
            with db.transaction(conn):
                if source == "reply":
                    ledger.apply_update(update, source="reconciliation", source_ref=None)
                else:
                    run_inline(inbox_applier(SqliteCharges(repo), update, f"note-{n}"))
        record = repo.charge(mcid)
        assert record is not None
        service_state = merge_charge_update(None, final).state
        assert qr_phase(record.state) == qr_phase(service_state), plan
        assert effective_status(record.state) == effective_status(service_state), plan
        assert (record.state.refunded_amount or 0) == (service_state.refunded_amount or 0), plan
        assert record.status == service_state.status, plan
    finally:
        conn.close()
