"""The store ports' contract (store/ports.py), checked against every backend on real storage.

A backend joins by adding a factory to BACKENDS: each test opens a fresh, empty store with it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import pytest_asyncio

from checkout_desktop.charges.ledger import Ledger
from checkout_desktop.domain import state as sm
from checkout_desktop.domain.deliveries import NewEvent
from checkout_desktop.domain.enums import ChargeStatus, PaymentType, TransactionStatus, Verdict
from checkout_desktop.domain.money_ops import Figures, MoneyOpKind
from checkout_desktop.domain.reasons import Reason, ReasonCode
from checkout_desktop.domain.records import CardSummary
from checkout_desktop.domain.search import ChargeQuery
from checkout_desktop.domain.shown_status import ShownStatus
from checkout_desktop.domain.state import AttemptState
from checkout_desktop.domain.wire import ChargeUpdate, TransactionInfo
from checkout_desktop.store.errors import MoneyOperationOpen, RepositoryError
from checkout_desktop.store.ports import Store, UnitOfWork
from checkout_desktop.store.sqlite.store import SqliteStore

logger = logging.getLogger(__name__)

NOW = datetime(2026, 5, 4, 10, 0, tzinfo=UTC)
WHY = Reason.of(ReasonCode.CHECK_SCHEDULED)


async def _sqlite(tmp_path: Path) -> Store:
    return SqliteStore.open(tmp_path / "ports.sqlite3", clock=lambda: NOW)


async def _postgres(request: pytest.FixtureRequest) -> Store:
    from checkout_desktop.store.postgres.address import StoreAddress
    from checkout_desktop.store.postgres.store import PgStore

    url = request.getfixturevalue("pg_url")
    return await PgStore.open(StoreAddress.parse(url), None, clock=lambda: NOW)


BACKENDS: dict[str, Callable[[pytest.FixtureRequest], Awaitable[Store]]] = {
    "sqlite": lambda request: _sqlite(request.getfixturevalue("tmp_path")),
    "postgres": _postgres,
}


@pytest_asyncio.fixture(
    params=[
        "sqlite",
        pytest.param("postgres", marks=pytest.mark.pg),
    ]
)
async def store(request: pytest.FixtureRequest) -> AsyncIterator[Store]:
    opened = await BACKENDS[request.param](request)
    try:
        yield opened
    finally:
        await opened.close()


async def _attempt(store: Store, mcid: str, sale: str = "sale-1") -> None:
    async with store.unit_of_work() as uow:
        await uow.charges.record_attempt(
            merchant_charge_id=mcid,
            sale_id=sale,
            profile="builtin-sandbox",
            amount=1500,
            tenders=[CardSummary("VISA", "1111")],
        )


async def _charge(store: Store, mcid: str, *, next_check: datetime | None = None) -> None:
    merged = sm.merge(None, ChargeUpdate(mcid, None, ChargeStatus.PENDING, 1500, 0)).state
    async with store.unit_of_work() as uow:
        await uow.charges.save_charge(
            mcid,
            merged,
            sale_id="sale-1",
            source="reply",
            new=True,
            changed=True,
            checks=0,
            next_check_at=next_check,
            check_reason=WHY if next_check else None,
        )


def _delivery(n: int) -> NewEvent:
    return NewEvent(
        received_at=NOW,
        verdict=Verdict.UNKNOWN,
        body=f'{{"n": {n}}}'.encode(),
        body_sha256=f"{n:064x}",
        headers={},
    )


@pytest.mark.asyncio
async def test_a_unit_of_work_commits_all_or_nothing(store: Store) -> None:
    async def attempt_then_fail() -> None:
        async with store.unit_of_work() as uow:
            await uow.charges.record_attempt(
                merchant_charge_id="charge-000001",
                sale_id="s",
                profile="p",
                amount=100,
                tenders=[CardSummary("VISA", "1111")],
            )
            assert await uow.charges.attempt("charge-000001") is not None  # sees its own write
            raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        await attempt_then_fail()
    assert await store.charges.attempt("charge-000001") is None
    await _attempt(store, "charge-000002")
    attempt = await store.charges.attempt("charge-000002")
    assert attempt is not None and attempt.cards == (CardSummary("VISA", "1111"),)


@pytest.mark.asyncio
async def test_a_relaxed_unit_of_work_commits_too(store: Store) -> None:
    async with store.unit_of_work(durable=False) as uow:
        await uow.events.insert(_delivery(1))
    assert await store.events.latest_id() == 1


@pytest.mark.asyncio
async def test_a_savepoint_undoes_only_its_own_writes(store: Store) -> None:
    async def failing_step(uow: UnitOfWork) -> None:
        async with uow.savepoint():
            await uow.charges.record_attempt(
                merchant_charge_id="charge-000009",
                sale_id="s",
                profile="p",
                amount=100,
                tenders=[CardSummary("VISA", "1111")],
            )
            raise ValueError("merge failed")

    async with store.unit_of_work() as uow:
        kept = await uow.events.insert(_delivery(1))
        with pytest.raises(ValueError, match="merge failed"):
            await failing_step(uow)
        await uow.events.set_merge_outcome(kept, Reason.of(ReasonCode.INBOX_APPLIED_BARE))
    assert await store.charges.attempt("charge-000009") is None
    stored = await store.events.get(kept)
    assert stored is not None and stored.merge_data == Reason.of(ReasonCode.INBOX_APPLIED_BARE)


@pytest.mark.asyncio
async def test_refusals_are_the_stores_errors(store: Store) -> None:
    await _attempt(store, "charge-000001")
    with pytest.raises(RepositoryError, match="already attempted"):
        await _attempt(store, "charge-000001")
    await _charge(store, "charge-000001")
    async with store.unit_of_work() as uow:
        await uow.charges.record_money_operation(
            "charge-000001", MoneyOpKind.REFUND, 500, Figures(ChargeStatus.PAID, 1500, 0)
        )
    with pytest.raises(MoneyOperationOpen):
        async with store.unit_of_work() as uow:
            await uow.charges.record_money_operation(
                "charge-000001", MoneyOpKind.REFUND, 500, Figures(ChargeStatus.PAID, 1500, 0)
            )
    assert len(await store.charges.money_operations("charge-000001")) == 1


@pytest.mark.asyncio
async def test_a_money_operation_keeps_the_counter_that_recorded_it(store: Store) -> None:
    # Counters sharing a store tell which open refund is whose (one left by a counter that
    # stopped is its own to settle and to tell its clerk about).
    for mcid, counter in (("charge-000001", "k2"), ("charge-000002", None)):
        await _attempt(store, mcid)
        await _charge(store, mcid)
        async with store.unit_of_work() as uow:
            op = await uow.charges.record_money_operation(
                mcid, MoneyOpKind.REFUND, 500, Figures(ChargeStatus.PAID, 1500, 0), counter=counter
            )
        assert op.counter == counter
        (kept,) = await store.charges.money_operations(mcid)
        assert kept.counter == counter
    opened = await store.charges.unresolved_money_operations(limit=10, profile=None)
    assert {op.merchant_charge_id: op.counter for op in opened} == {
        "charge-000001": "k2",
        "charge-000002": None,
    }


@pytest.mark.asyncio
async def test_claimed_checks_are_not_claimed_again_until_the_lease_ends(store: Store) -> None:
    for n in range(3):
        await _charge(store, f"charge-00000{n}", next_check=NOW - timedelta(minutes=n))
    await _charge(store, "charge-000009", next_check=NOW + timedelta(hours=1))
    lease = timedelta(minutes=2)
    async with store.unit_of_work() as uow:
        first = await uow.charges.claim_due_checks(2, "till-1", now=NOW, lease=lease)
    # Most overdue first; the charge not due yet is never taken.
    assert [c.merchant_charge_id for c in first] == ["charge-000002", "charge-000001"]
    async with store.unit_of_work() as uow:
        second = await uow.charges.claim_due_checks(10, "till-2", now=NOW, lease=lease)
    assert [c.merchant_charge_id for c in second] == ["charge-000000"]
    async with store.unit_of_work() as uow:
        later = await uow.charges.claim_due_checks(
            10, "till-2", now=NOW + lease + timedelta(seconds=1), lease=lease
        )
    assert {c.merchant_charge_id for c in later} == {f"charge-00000{n}" for n in range(3)}


@pytest.mark.asyncio
async def test_watch_yields_each_committed_delivery_once_in_order(store: Store) -> None:
    async with store.unit_of_work() as uow:
        before = await uow.events.insert(_delivery(0))
    seen: list[int] = []

    async def follow() -> None:
        async for event_id in store.watch(after=before):
            seen.append(event_id)
            if len(seen) == 5:
                return

    task = asyncio.ensure_future(follow())
    ids = []
    for n in range(1, 6):
        async with store.unit_of_work() as uow:
            ids.append(await uow.events.insert(_delivery(n)))
        await asyncio.sleep(0)
    await asyncio.wait_for(task, timeout=30)
    assert seen == ids and ids == sorted(ids) and before not in seen


@pytest.mark.asyncio
async def test_history_pages_by_keyset_newest_first(store: Store) -> None:
    for n in range(5):
        await _charge(store, f"charge-00000{n}")
    first = await store.charges.list_charges(limit=2)
    assert [c.merchant_charge_id for c in first.items] == ["charge-000004", "charge-000003"]
    rest = await store.charges.list_charges(before=first.next_cursor, limit=10)
    assert [c.merchant_charge_id for c in rest.items] == [f"charge-00000{n}" for n in (2, 1, 0)]
    assert rest.next_cursor is None


@pytest.mark.asyncio
async def test_an_attempt_settled_uncharged_keeps_the_charge_its_3ds_setup_opened(
    store: Store,
) -> None:
    # The history's "not charged" row of a 3DS sale the clerk cancelled: in the attempt's own
    # transaction, once, with nothing scheduled to ask the service about.
    ledger = Ledger(store, clock=lambda: NOW)
    await _attempt(store, "charge-000001")
    attempt = await store.charges.attempt("charge-000001")
    assert attempt is not None
    why = Reason.of(ReasonCode.TDS_REFUSED, status="CANCELLED", why="cancelled")
    settled = await ledger.settle_attempt(
        attempt, AttemptState.REJECTED, why, source="system", opened_charge="svc-1"
    )
    await ledger.settle_attempt(
        settled, AttemptState.REJECTED, why, source="system", opened_charge="svc-1"
    )
    page = await store.charges.search_charges(ChargeQuery(status=ShownStatus.NOT_CHARGED))
    (row,) = page.items
    assert (row.merchant_charge_id, row.charge_id, row.status) == ("charge-000001", "svc-1", None)
    assert (row.sale_id, row.sale_amount, row.next_check_at) == ("sale-1", 1500, None)
    assert row.profile == "builtin-sandbox"
    # An attempt still open (or one that made a charge) keeps no such row.
    await _attempt(store, "charge-000002", sale="sale-2")
    open_attempt = await store.charges.attempt("charge-000002")
    assert open_attempt is not None
    await ledger.settle_attempt(
        open_attempt, AttemptState.UNKNOWN, why, source="system", opened_charge="svc-2"
    )
    assert await store.charges.charge("charge-000002") is None


@pytest.mark.asyncio
async def test_a_3ds_flow_moves_step_by_step_and_never_after_it_closes(store: Store) -> None:
    from checkout_desktop.domain.three_ds import ThreeDsStep

    async with store.unit_of_work() as uow:
        await uow.charges.record_attempt(
            merchant_charge_id="charge-3ds-01",
            sale_id="sale-1",
            profile="p",
            amount=1500,
            tenders=[CardSummary("VISA", "3220")],
        )
        flow = await uow.charges.record_three_ds("charge-3ds-01", "sale-1")
    assert (flow.step, flow.charge_id, flow.sale_id) == (ThreeDsStep.SETUP, None, "sale-1")
    async with store.unit_of_work() as uow:
        await uow.charges.move_three_ds(
            "charge-3ds-01", ThreeDsStep.ENROLLMENT, charge_id="c-1", authentication_id="a-1"
        )
        moved = await uow.charges.move_three_ds(
            "charge-3ds-01",
            ThreeDsStep.CHALLENGE,
            step_up_url="https://acs.example/challenge",
            width=390,
            height=400,
        )
    assert (moved.step, moved.charge_id, moved.authentication_id) == (
        ThreeDsStep.CHALLENGE,
        "c-1",
        "a-1",
    )
    assert (moved.width, moved.height) == (390, 400)
    assert [f.merchant_charge_id for f in await store.charges.open_three_ds_flows()] == [
        "charge-3ds-01"
    ]
    async with store.unit_of_work() as uow:
        await uow.charges.move_three_ds("charge-3ds-01", ThreeDsStep.ENDED, result="CANCELLED")
    assert await store.charges.open_three_ds_flows() == []
    closed = await store.charges.three_ds_flow("charge-3ds-01")
    assert closed is not None and (closed.step, closed.result) == (ThreeDsStep.ENDED, "CANCELLED")
    with pytest.raises(RepositoryError, match="already ENDED"):
        async with store.unit_of_work() as uow:
            await uow.charges.move_three_ds("charge-3ds-01", ThreeDsStep.DONE)
    with pytest.raises(RepositoryError, match="no field"):
        async with store.unit_of_work() as uow:
            await uow.charges.move_three_ds("charge-3ds-01", ThreeDsStep.DONE, access_token="x")
    assert await store.charges.three_ds_flow("charge-none") is None


async def _qr_charge(store: Store, mcid: str, payment: PaymentType, txn: TransactionStatus) -> None:
    update = ChargeUpdate(
        mcid,
        f"svc-{mcid}",
        ChargeStatus.CANCELED,
        1500,
        0,
        transactions=[
            TransactionInfo(
                transactionId=f"t-{mcid}",
                paymentType=payment,
                transactionStatus=txn,
                amount=1500,
                refundedAmount=0,
            )
        ],
    )
    async with store.unit_of_work() as uow:
        await uow.charges.save_charge(
            mcid,
            sm.merge(None, update).state,
            sale_id="sale-1",
            source="reply",
            new=True,
            changed=True,
            checks=0,
            next_check_at=None,
            check_reason=None,
        )


@pytest.mark.asyncio
async def test_event_summaries_name_a_qr_charges_tender_and_keep_their_own_shown_status(
    store: Store,
) -> None:
    await _qr_charge(store, "pix-1", PaymentType.PIX, TransactionStatus.EXPIRED)
    await _qr_charge(store, "wallet-1", PaymentType.WALLET, TransactionStatus.CANCELED)
    await _qr_charge(store, "card-1", PaymentType.CREDIT, TransactionStatus.CANCELED)
    ids: dict[str, int] = {}
    async with store.unit_of_work() as uow:
        for n, mcid in enumerate(("pix-1", "wallet-1", "card-1", "not-ours")):
            ids[mcid] = await uow.events.insert(
                NewEvent(
                    received_at=NOW,
                    verdict=Verdict.ACCEPTED,
                    body=f'{{"n": {n}}}'.encode(),
                    body_sha256=f"{n + 100:064x}",
                    headers={},
                    merchant_charge_id=mcid,
                    status="CANCELED",
                    # What the notification said, not what the charge says now.
                    shown_status="EXPIRED" if mcid == "pix-1" else None,
                )
            )
    expected = {
        "pix-1": ("PIX", "EXPIRED"),
        "wallet-1": ("WALLET", "CANCELED"),
        "card-1": (None, "CANCELED"),
        "not-ours": (None, "CANCELED"),
    }
    page = await store.events.page(limit=10)
    assert {s.merchant_charge_id: (s.qr_tender, s.shown_status) for s in page.rows} == expected
    newer = await store.events.newer(after=0, limit=10)
    assert {s.merchant_charge_id: (s.qr_tender, s.shown_status) for s in newer} == (expected)
    pix = await store.events.get(ids["pix-1"])
    assert pix is not None and (pix.qr_tender, pix.shown_status) == ("PIX", "EXPIRED")
