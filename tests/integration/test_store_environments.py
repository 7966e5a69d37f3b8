"""Environments kept apart and the history's search, on every store backend (the ports' contract).

Each test opens a fresh store through `tests/integration/test_store_ports.py`'s backends: the
SQLite file and (marked `pg`) a PostgreSQL database. Charges are written as the service writes
them: an attempt (with its profile and customer) in one unit of work, then the ledger's merge.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import pytest_asyncio

from checkout_desktop.charges.ledger import Ledger
from checkout_desktop.domain.deliveries import EventFilter, NewEvent
from checkout_desktop.domain.enums import (
    ChargeStatus,
    PaymentType,
    ThreeDsStatus,
    TransactionStatus,
    Verdict,
)
from checkout_desktop.domain.money_ops import Figures, MoneyOpKind
from checkout_desktop.domain.reasons import Reason, ReasonCode
from checkout_desktop.domain.records import PIX, WALLET, CardSummary, Page, QrSummary
from checkout_desktop.domain.search import ChargeQuery, name_key
from checkout_desktop.domain.shown_status import ShownStatus, shown_status
from checkout_desktop.domain.state import AttemptState
from checkout_desktop.domain.wire import ChargeUpdate, CreditInfo, ThreeDsUpdate, TransactionInfo
from checkout_desktop.store.ports import Store

logger = logging.getLogger(__name__)

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
MARIA = "65844359038"
JOAO = "52998224725"


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> datetime:
        return self.now


async def _open(request: pytest.FixtureRequest, clock: Clock, kind: str | None = None) -> Store:
    if (kind or request.param) == "sqlite":
        from checkout_desktop.store.sqlite.store import SqliteStore

        return SqliteStore.open(request.getfixturevalue("tmp_path") / "s.sqlite3", clock=clock)
    from checkout_desktop.store.postgres.address import StoreAddress
    from checkout_desktop.store.postgres.store import PgStore

    url = request.getfixturevalue("pg_url")
    return await PgStore.open(StoreAddress.parse(url), None, clock=clock)


@pytest_asyncio.fixture(
    params=[
        "sqlite",
        pytest.param("postgres", marks=pytest.mark.pg),
    ]
)
async def backend(request: pytest.FixtureRequest) -> AsyncIterator[tuple[Store, Clock]]:
    clock = Clock()
    opened = await _open(request, clock)
    try:
        yield opened, clock
    finally:
        await opened.close()


async def sell(
    store: Store,
    clock: Clock,
    mcid: str,
    *,
    profile: str = "production",
    amount: int = 1500,
    last_four: str = "1111",
    customer: tuple[str, str] | None = ("Maria da Silva", MARIA),
    status: ChargeStatus = ChargeStatus.PAID,
    email: str | None = None,
    phone: str | None = None,
    sale_id: str | None = None,
) -> None:
    async with store.unit_of_work() as uow:
        await uow.charges.record_attempt(
            merchant_charge_id=mcid,
            sale_id=sale_id or f"sale-{mcid}",
            profile=profile,
            amount=amount,
            tenders=[CardSummary("VISA", last_four)],
            customer_document=None if customer is None else customer[1],
            customer_name=None if customer is None else customer[0],
        )
        if customer is not None:
            await uow.charges.remember_customer(
                document_type="CPF",
                document=customer[1],
                name=customer[0],
                email=email,
                phone=phone,
            )
    paid = status == ChargeStatus.PAID
    txn_status = TransactionStatus.PAID if paid else TransactionStatus.DENIED
    update = card_update(mcid, status, txn_status, amount=amount, last_four=last_four)
    await merge(store, clock, update, source="reply")


def card_update(
    mcid: str,
    status: ChargeStatus,
    txn_status: TransactionStatus,
    *,
    amount: int,
    refunded: int = 0,
    last_four: str = "1111",
    at: datetime | None = None,
) -> ChargeUpdate:
    """A reply about `sell`'s card charge: its status, its one card's, what was refunded."""
    return ChargeUpdate(
        merchant_charge_id=mcid,
        charge_id=f"svc-{mcid}",
        status=status,
        amount=amount,
        refunded_amount=refunded,
        transactions=[
            TransactionInfo(
                transactionId=f"t-{mcid}",
                transactionStatus=txn_status,
                amount=amount,
                refundedAmount=refunded or None,
                credit=CreditInfo(brand="VISA", cardNumber=f"411111******{last_four}"),
            )
        ],
        occurred_at=at,
    )


async def merge(store: Store, clock: Clock, update: ChargeUpdate, *, source: str) -> None:
    """The ledger's merge of one input, in its own unit of work (as a reply or notification)."""
    async with store.unit_of_work() as uow:
        await Ledger(clock=clock).apply_update(uow.charges, update, source=source, source_ref=None)


def ids(page: Page[object]) -> list[str]:
    return [r.merchant_charge_id for r in page.items]  # type: ignore[attr-defined]


async def shown_as(store: Store, status: ShownStatus | None) -> list[str]:
    """The production charges the history's status filter finds for `status`, newest first."""
    page = await store.charges.search_charges(ChargeQuery(profile="production", status=status))
    return ids(page)


@pytest.mark.asyncio
async def test_a_charge_keeps_its_attempts_environment_and_customer(
    backend: tuple[Store, Clock],
) -> None:
    store, clock = backend
    await sell(store, clock, "t-made-here", profile="loja")
    record = await store.charges.charge("t-made-here")
    assert record is not None
    assert (record.profile, record.customer_document) == ("loja", MARIA)
    attempt = await store.charges.attempt("t-made-here")
    assert attempt is not None and attempt.customer_document == MARIA
    # A charge only a notification told of: no attempt, so no environment and no customer.
    await merge(
        store,
        clock,
        ChargeUpdate("t-heard-of", "svc-x", ChargeStatus.PAID, 900, 0),
        source="webhook",
    )
    heard = await store.charges.charge("t-heard-of")
    assert heard is not None and (heard.profile, heard.customer_document) == (None, None)


@pytest.mark.asyncio
async def test_what_the_reconciler_reads_is_one_environments_only(
    backend: tuple[Store, Clock],
) -> None:
    store, clock = backend
    await sell(store, clock, "t-prod")
    await sell(store, clock, "t-test", profile="builtin-sandbox")
    async with store.unit_of_work() as uow:
        for mcid, profile in (("t-open-prod", "production"), ("t-open-test", "builtin-sandbox")):
            await uow.charges.record_attempt(
                merchant_charge_id=mcid,
                sale_id=f"sale-{mcid}",
                profile=profile,
                amount=100,
                tenders=[CardSummary("VISA", "1111")],
            )
        for mcid in ("t-prod", "t-test"):
            await uow.charges.record_money_operation(
                mcid, MoneyOpKind.REFUND, 100, Figures(ChargeStatus.PAID, 1500, 0)
            )
            await uow.charges.schedule_check(
                mcid, reason=Reason.of(ReasonCode.CHECK_SCHEDULED), at=T0 - timedelta(minutes=1)
            )
        sweep = await uow.charges.start_sweep(
            window_from=T0 - timedelta(days=1), window_to=T0 + timedelta(days=1)
        )

    def mcids(rows: list[object]) -> set[str]:
        return {r.merchant_charge_id for r in rows}  # type: ignore[attr-defined]

    reads = store.charges
    assert mcids(await reads.unresolved_attempts(profile="production")) == {"t-open-prod"}
    assert mcids(await reads.unresolved_attempts()) == {"t-open-prod", "t-open-test"}
    assert mcids(await reads.unresolved_money_operations(profile="builtin-sandbox")) == {"t-test"}
    assert len(await reads.unresolved_money_operations()) == 2
    assert mcids(await reads.due_checks(now=T0, profile="production")) == {"t-prod"}
    assert mcids(await reads.due_checks(now=T0)) == {"t-prod", "t-test"}
    assert mcids(await reads.sweep_batch(sweep, 10, profile="production")) == {"t-prod"}
    async with store.unit_of_work() as uow:
        claimed = await uow.charges.claim_due_checks(
            10, "counter-1", now=T0, lease=timedelta(minutes=5), profile="builtin-sandbox"
        )
    assert mcids(claimed) == {"t-test"}
    # The other environment's due charge was not claimed: it is still due.
    assert mcids(await reads.due_checks(now=T0)) == {"t-prod"}


@pytest.mark.asyncio
async def test_each_search_filter_finds_exactly_its_charges(backend: tuple[Store, Clock]) -> None:
    store, clock = backend
    await sell(store, clock, "a", amount=1500)
    clock.now += timedelta(days=1)
    await sell(store, clock, "b", amount=2990, last_four="4242", customer=("João Pereira", JOAO))
    await sell(store, clock, "c", amount=1500, profile="builtin-sandbox")
    await sell(store, clock, "d", amount=700, status=ChargeStatus.DENIED, customer=None)
    search = store.charges.search_charges

    assert ids(await search(ChargeQuery(profile="production"))) == ["d", "b", "a"]
    assert ids(await search(ChargeQuery())) == ["d", "c", "b", "a"]
    assert ids(await search(ChargeQuery(profile="builtin-sandbox"))) == ["c"]

    async def find(**kw: object) -> list[str]:
        return ids(await search(ChargeQuery(profile="production", **kw)))  # type: ignore[arg-type]

    assert await find(amount=1500) == ["a"]
    assert await find(last_four="4242") == ["b"]
    assert await find(status=ChargeStatus.DENIED) == ["d"]
    # Names: any part, case and accents ignored.
    assert await find(customer="joao") == ["b"]
    assert await find(customer="SILVA") == ["a"]
    assert await find(customer="Pereira Souza") == []
    assert await find(customer="50%") == []
    # Documents as typed, with or without punctuation, or their first digits.
    assert await find(customer="529.982.247-25") == ["b"]
    assert await find(customer="65844359038") == ["a"]
    assert await find(customer="658.443") == ["a"]
    assert await find(created_from=T0 + timedelta(hours=12)) == ["d", "b"]
    assert await find(created_to=T0 + timedelta(hours=12)) == ["a"]
    assert await find(amount=1500, customer="maria", last_four="1111") == ["a"]
    assert await find(amount=1500, customer="joão") == []

    (row,) = (await search(ChargeQuery(profile="production", last_four="4242"))).items
    assert (row.customer_name, row.customer_document, row.profile) == (
        "João Pereira",
        JOAO,
        "production",
    )
    matching = store.charges.matching_charge
    assert await matching(ChargeQuery(profile="production"), "c") is None
    found = await matching(ChargeQuery(profile="builtin-sandbox"), "c")
    assert found is not None and found.customer_name == "Maria da Silva"


@pytest.mark.asyncio
async def test_a_search_pages_by_keyset_newest_first(backend: tuple[Store, Clock]) -> None:
    store, clock = backend
    for n in range(12):
        await sell(store, clock, f"s{n:02d}", amount=1000 + n % 5)
        await sell(store, clock, f"x{n:02d}", amount=1000 + n % 5, profile="builtin-sandbox")
    query = ChargeQuery(profile="production", amount=1002)
    first = await store.charges.search_charges(query, limit=1)
    assert ids(first) == ["s07"] and first.next_cursor is not None
    second = await store.charges.search_charges(query, before=first.next_cursor, limit=1)
    assert ids(second) == ["s02"] and second.next_cursor is None
    by_customer = ChargeQuery(profile="production", customer="maria")
    page = await store.charges.search_charges(by_customer, limit=5)
    assert ids(page) == ["s11", "s10", "s09", "s08", "s07"]
    rest = await store.charges.search_charges(by_customer, before=page.next_cursor, limit=10)
    assert ids(rest) == [f"s{n:02d}" for n in range(6, -1, -1)]
    assert rest.next_cursor is None


@pytest.mark.asyncio
async def test_customers_are_remembered_newest_first(backend: tuple[Store, Clock]) -> None:
    store, clock = backend
    await sell(store, clock, "a", customer=("Maria da Silva", MARIA), phone="11987654321")
    clock.now += timedelta(minutes=5)
    await sell(store, clock, "b", customer=("João Pereira", JOAO))
    clock.now += timedelta(minutes=5)
    async with store.unit_of_work() as uow:
        await uow.charges.remember_customer(
            document_type="CPF",
            document=MARIA,
            name="Maria da Silva",
            email="maria@example.com",
        )
    recent = await store.charges.recent_customers()
    assert [(c.document, c.uses) for c in recent] == [(MARIA, 2), (JOAO, 1)]
    assert (recent[0].email, recent[0].phone) == ("maria@example.com", "11987654321")
    async with store.unit_of_work() as uow:
        # A later sale without an e-mail or phone keeps the ones known.
        await uow.charges.remember_customer(
            document_type="CPF", document=MARIA, name="Maria da Silva", email=""
        )
    (first, *_) = await store.charges.recent_customers(limit=1)
    assert (first.email, first.phone, first.uses) == ("maria@example.com", "11987654321", 3)
    assert name_key("  JOÃO   Pereira ") == "joao pereira"


@pytest.mark.asyncio
async def test_recent_customers_are_offered_only_where_they_were_charged(
    backend: tuple[Store, Clock],
) -> None:
    store, clock = backend
    await sell(store, clock, "real", customer=("Maria da Silva", MARIA))
    clock.now += timedelta(minutes=5)
    await sell(store, clock, "test", profile="builtin-sandbox", customer=("João Pereira", JOAO))

    async def offered(profile: str | None) -> list[str]:
        return [c.document for c in await store.charges.recent_customers(profile=profile)]

    # A sandbox test customer is not offered at a production sale, nor the other way round.
    assert await offered("production") == [MARIA]
    assert await offered("builtin-sandbox") == [JOAO]
    assert await offered(None) == [JOAO, MARIA]


@pytest.mark.asyncio
async def test_each_sqlite_search_starts_from_an_index(tmp_path: Path) -> None:
    """No search walks the environment's charges testing each: every one starts from an index
    that names its few charges (the plan SQLite chose for the search's own statement)."""
    from checkout_desktop.store.sqlite.store import SqliteStore

    clock = Clock()
    store = SqliteStore.open(tmp_path / "plans.sqlite3", clock=clock)
    try:
        for n in range(6):
            await sell(store, clock, f"s{n}", amount=1000 + n % 3)
        conn = store.repo.conn

        async def plans(query: ChargeQuery) -> list[str]:
            statements: list[str] = []
            conn.set_trace_callback(statements.append)
            try:
                await store.charges.search_charges(query, limit=10)
            finally:
                conn.set_trace_callback(None)
            found = []
            for select in [s for s in statements if s.lstrip().upper().startswith("SELECT C.*")]:
                rows = conn.execute("EXPLAIN QUERY PLAN " + select).fetchall()
                found.append(" | ".join(str(r[3]) for r in rows))
            return found

        async def plan(query: ChargeQuery) -> str:
            (only,) = await plans(query)
            return only

        assert "charge_profile " in await plan(ChargeQuery(profile="production"))
        # An amount: charges with it, and those without one whose sale had it; each walk
        # starts from the amount's index.
        by_amount = await plans(ChargeQuery(profile="production", amount=1))
        assert len(by_amount) == 2
        assert all("charge_profile_amount" in shown for shown in by_amount), by_amount
        by_card = await plan(ChargeQuery(profile="production", last_four="1111"))
        assert "charge_transaction_last_four" in by_card and "charge_profile " not in by_card
        assert "charge_customer" in await plan(
            ChargeQuery(profile="production", customer="658.443")
        )
        for shown in (by_card, await plan(ChargeQuery(profile="production", customer="maria"))):
            assert "SCAN c" not in shown, shown
        # A status as the history shows it: its charges newest first from its own index, in one
        # environment or across them.
        by_status = await plan(ChargeQuery(profile="production", status=ShownStatus.PAID))
        assert "charge_profile_shown" in by_status and "TEMP B-TREE" not in by_status, by_status
        everywhere = await plan(ChargeQuery(status=ShownStatus.AWAITING_PAYMENT))
        assert "charge_shown" in everywhere and "TEMP B-TREE" not in everywhere, everywhere
    finally:
        await store.close()


@pytest.mark.asyncio
async def test_a_sale_3ds_ended_uncharged_is_found_with_its_attempt(
    backend: tuple[Store, Clock],
) -> None:
    # The 3DS notification made a row holding only a 3DS result; the sale's amount and card
    # are its attempt's, and the search brings them along, keeping its keyset paging.
    store, clock = backend
    await sell(store, clock, "paid-1", amount=1000)
    await never_charged(
        store, clock, "tds-1", reject_first=True, amount=2590, customer_document=MARIA
    )
    await sell(store, clock, "paid-2", amount=3000)
    query = ChargeQuery(profile="production")
    first = await store.charges.search_charges(query, limit=2)
    assert ids(first) == ["paid-2", "tds-1"] and first.next_cursor is not None
    uncharged = first.items[1]
    assert (uncharged.status, uncharged.amount) == (None, None)
    assert uncharged.sale_amount == 2590
    assert uncharged.attempt_state == AttemptState.REJECTED
    assert uncharged.attempt_tenders == (CardSummary("VISA", "1629"),)
    assert uncharged.customer_name == "Maria da Silva"
    rest = await store.charges.search_charges(query, before=first.next_cursor, limit=2)
    assert ids(rest) == ["paid-1"] and rest.next_cursor is None
    # A charge the service made keeps its own figures; its attempt is there too.
    paid = first.items[0]
    assert (paid.amount, paid.sale_amount) == (3000, 3000)
    again = await store.charges.matching_charge(query, "tds-1")
    assert again is not None and again.sale_amount == 2590
    assert again.attempt_tenders == (CardSummary("VISA", "1629"),)
    # The clerk looks it up by the sale's amount, beside charges the service made of that amount,
    # newest first and page by page.
    await sell(store, clock, "paid-3", amount=2590)
    by_amount = ChargeQuery(profile="production", amount=2590)
    page = await store.charges.search_charges(by_amount, limit=1)
    assert ids(page) == ["paid-3"] and page.next_cursor is not None
    rest = await store.charges.search_charges(by_amount, before=page.next_cursor, limit=1)
    assert ids(rest) == ["tds-1"] and rest.next_cursor is None
    assert ids(await store.charges.search_charges(by_amount)) == ["paid-3", "tds-1"]
    assert await store.charges.matching_charge(by_amount, "tds-1") is not None
    # Another amount finds neither; a charge's own amount is what counts when it has one.
    other = ChargeQuery(profile="production", amount=1000)
    assert ids(await store.charges.search_charges(other)) == ["paid-1"]
    assert await store.charges.matching_charge(other, "tds-1") is None


async def record_qr(store: Store, mcid: str, kind: str) -> None:
    """The attempt of a QR sale of R$ 25,90 (a PIX's QR lives ten minutes)."""
    async with store.unit_of_work() as uow:
        await uow.charges.record_attempt(
            merchant_charge_id=mcid,
            sale_id=f"sale-{mcid}",
            profile="production",
            amount=2590,
            tenders=[QrSummary(kind, 600 if kind == PIX else None)],
        )


def qr_update(
    mcid: str, status: ChargeStatus, transaction: TransactionInfo, *, at: datetime
) -> ChargeUpdate:
    """The service's word on `record_qr`'s charge: its status and its one transaction."""
    return ChargeUpdate(
        merchant_charge_id=mcid,
        charge_id=f"svc-{mcid}",
        status=status,
        amount=2590,
        refunded_amount=0,
        transactions=[transaction],
        occurred_at=at,
    )


async def sell_qr(
    store: Store,
    clock: Clock,
    mcid: str,
    kind: str,
    steps: list[tuple[ChargeStatus, TransactionStatus]],
) -> None:
    """A QR sale whose charge the service then tells of as `steps` say, one input each."""
    await record_qr(store, mcid, kind)
    payment = PaymentType.PIX if kind == PIX else PaymentType.WALLET
    for n, (status, txn_status) in enumerate(steps):
        transaction = TransactionInfo(
            transactionId=f"t-{mcid}",
            paymentType=payment,
            transactionStatus=txn_status,
            amount=2590,
        )
        await merge(
            store,
            clock,
            qr_update(mcid, status, transaction, at=T0 + timedelta(minutes=n)),
            source="reply" if n == 0 else "webhook",
        )


def bank_refusal(mcid: str, *, occurred_at: datetime | None = None) -> ThreeDsUpdate:
    """The bank's refusal of a sale's 3DS authentication, as its notification tells it."""
    return ThreeDsUpdate(
        merchant_charge_id=mcid,
        charge_id=f"3ds-{mcid}",
        status=ThreeDsStatus.REJECTED,
        pares_status="N",
        eci=None,
        occurred_at=occurred_at,
        received_at=T0,
    )


async def never_charged(
    store: Store,
    clock: Clock,
    mcid: str,
    *,
    reject_first: bool,
    amount: int = 1990,
    customer_document: str | None = None,
) -> None:
    """A sale 3DS ended uncharged: a row holding only the 3DS result; its attempt rejected
    before that row is written or after."""

    async def reject() -> None:
        async with store.unit_of_work() as uow:
            await uow.charges.set_attempt_state(
                mcid,
                AttemptState.REJECTED,
                source="system",
                reason=Reason.of(ReasonCode.TDS_REFUSED, status="REJECTED", why="rejected"),
            )

    async with store.unit_of_work() as uow:
        await uow.charges.record_attempt(
            merchant_charge_id=mcid,
            sale_id=f"sale-{mcid}",
            profile="production",
            amount=amount,
            tenders=[CardSummary("VISA", "1629")],
            customer_document=customer_document,
        )
    if reject_first:
        await reject()
    async with store.unit_of_work() as uow:
        await Ledger(clock=clock).apply_update(
            uow.charges,
            bank_refusal(mcid),
            source="webhook",
            source_ref=None,
        )
    if not reject_first:
        await reject()


@pytest.mark.asyncio
async def test_the_status_filter_finds_the_charges_shown_with_its_words(
    backend: tuple[Store, Clock],
) -> None:
    # A QR's charge says PRE_AUTHORIZED while it awaits payment, a paid wallet's AUTHORIZED,
    # an expired QR's whatever it said last: the history shows "Awaiting payment", "Paid",
    # "Expired", and the filter with those words finds exactly those rows.
    store, clock = backend
    pre, paid = ChargeStatus.PRE_AUTHORIZED, ChargeStatus.PAID
    await sell(store, clock, "card-paid")
    await sell(store, clock, "card-denied", status=ChargeStatus.DENIED)
    await sell_qr(store, clock, "pix-waiting", PIX, [(pre, TransactionStatus.PENDING)])
    await sell_qr(
        store,
        clock,
        "wallet-paid",
        WALLET,
        [(pre, TransactionStatus.PENDING), (ChargeStatus.AUTHORIZED, TransactionStatus.CAPTURED)],
    )
    await sell_qr(
        store,
        clock,
        "pix-paid",
        PIX,
        [(pre, TransactionStatus.PENDING), (paid, TransactionStatus.PAID)],
    )
    await sell_qr(
        store,
        clock,
        "pix-expired",
        PIX,
        [(pre, TransactionStatus.PENDING), (pre, TransactionStatus.EXPIRED)],
    )
    await never_charged(store, clock, "tds-before", reject_first=True)
    await never_charged(store, clock, "tds-after", reject_first=False)
    search = store.charges.search_charges

    async def find(status: ShownStatus | None) -> set[str]:
        return set(await shown_as(store, status))

    assert await find(ShownStatus.AWAITING_PAYMENT) == {"pix-waiting"}
    assert await find(ShownStatus.PAID) == {"card-paid", "wallet-paid", "pix-paid"}
    assert await find(ShownStatus.EXPIRED) == {"pix-expired"}
    assert await find(ShownStatus.NOT_CHARGED) == {"tds-before", "tds-after"}
    assert await find(ShownStatus.DENIED) == {"card-denied"}
    assert await find(ShownStatus.PRE_AUTHORIZED) == set()
    assert await find(ShownStatus.AUTHORIZED) == set()
    assert len(await find(None)) == 8
    # Every environment's charges, and a charge kept up to date in the history.
    everywhere = ChargeQuery(status=ShownStatus.AWAITING_PAYMENT)
    assert ids(await search(everywhere)) == ["pix-waiting"]
    assert await store.charges.matching_charge(everywhere, "pix-waiting") is not None
    assert await store.charges.matching_charge(everywhere, "pix-paid") is None
    # Each row found is one the history shows so.
    for status in ShownStatus:
        for record in (await search(ChargeQuery(status=status))).items:
            assert shown_status(record.state, record.attempt_state) == status, record
    # The QR awaiting payment is paid: it moves from one choice to the other.
    await merge(
        store,
        clock,
        ChargeUpdate(
            merchant_charge_id="pix-waiting",
            charge_id="svc-pix-waiting",
            status=paid,
            amount=2590,
            refunded_amount=0,
            transactions=[
                TransactionInfo(
                    transactionId="t-pix-waiting",
                    paymentType=PaymentType.PIX,
                    transactionStatus=TransactionStatus.PAID,
                    amount=2590,
                )
            ],
            occurred_at=T0 + timedelta(hours=1),
        ),
        source="webhook",
    )
    assert await find(ShownStatus.AWAITING_PAYMENT) == set()
    assert "pix-waiting" in await find(ShownStatus.PAID)


async def refund_in_part(
    store: Store, clock: Clock, mcid: str, *, says: ChargeStatus, refunded: int = 500
) -> None:
    """The reply to a partial refund of `sell`'s charge, as the service variant says it."""
    update = card_update(
        mcid,
        says,
        TransactionStatus.PAID,
        amount=1500,
        refunded=refunded,
        at=T0 + timedelta(minutes=5),
    )
    await merge(store, clock, update, source="reply")


@pytest.mark.asyncio
async def test_a_partial_refund_is_found_as_one_whichever_status_the_service_keeps(
    backend: tuple[Store, Clock],
) -> None:
    # The service may say PARTIAL after a partial refund, or keep PAID (both variants are
    # played): the history shows "refunded in part" either way, and its filter finds both.
    store, clock = backend
    for mcid in ("says-partial", "keeps-paid", "keeps-paid-whole", "paid"):
        await sell(store, clock, mcid)
    await refund_in_part(store, clock, "says-partial", says=ChargeStatus.PARTIAL)
    await refund_in_part(store, clock, "keeps-paid", says=ChargeStatus.PAID)
    await refund_in_part(store, clock, "keeps-paid-whole", says=ChargeStatus.PAID, refunded=1500)

    async def find(status: ShownStatus) -> set[str]:
        return set(await shown_as(store, status))

    assert await find(ShownStatus.PARTIAL) == {"says-partial", "keeps-paid"}
    assert await find(ShownStatus.REFUNDED) == {"keeps-paid-whole"}
    assert await find(ShownStatus.PAID) == {"paid"}


def _back_to_schema(
    request: pytest.FixtureRequest, kind: str, version: int, undo: tuple[str, ...]
) -> None:
    """Take the closed store back to schema `version` with the statements that undo the later
    steps, on either store."""
    if kind == "sqlite":
        import sqlite3

        raw = sqlite3.connect(request.getfixturevalue("tmp_path") / "s.sqlite3")
        for statement in undo:
            raw.execute(statement)
        raw.execute(f"PRAGMA user_version = {version}")
        raw.commit()
        raw.close()
        return
    import psycopg

    with psycopg.connect(request.getfixturevalue("pg_url"), autocommit=True) as conn:
        for statement in undo:
            conn.execute(statement.encode())
        conn.execute("UPDATE checkout_schema SET version = %s", (version,))


BEFORE_MONEY_OP_COUNTERS = ("ALTER TABLE money_operation DROP COLUMN counter",)
"""What takes a store back from the step that keeps the counter of each money operation."""

BEFORE_EVENT_SHOWN = (
    *BEFORE_MONEY_OP_COUNTERS,
    "DROP INDEX webhook_event_shown",
    "ALTER TABLE webhook_event DROP COLUMN shown_status",
)
"""What takes a store back from the step that keeps each delivery's listed status (and every
later step)."""

BEFORE_CUSTOMER_NAMES = (
    *BEFORE_EVENT_SHOWN,
    "DROP TABLE customer_name",
    "ALTER TABLE charge_attempt DROP COLUMN customer_name",
    "ALTER TABLE charge_attempt DROP COLUMN customer_name_key",
)
"""What takes a store back from step 13 (sales keep their customer's name) to schema 12."""


def _before_shown_status(request: pytest.FixtureRequest, kind: str) -> None:
    """Take the store back to schema 10: charges without the status the history shows."""
    undo = (
        *BEFORE_CUSTOMER_NAMES,
        "DROP INDEX charge_shown",
        "DROP INDEX charge_profile_shown",
        "ALTER TABLE charge DROP COLUMN shown_status",
    )
    _back_to_schema(request, kind, 10, undo)


@pytest.mark.asyncio
@pytest.mark.parametrize("store_kind", ["sqlite", pytest.param("postgres", marks=pytest.mark.pg)])
async def test_the_upgrade_gives_every_stored_charge_the_status_the_history_shows(
    request: pytest.FixtureRequest, store_kind: str
) -> None:
    clock = Clock()
    store = await _open(request, clock, store_kind)
    try:
        await sell(store, clock, "card-paid")
        await sell_qr(
            store,
            clock,
            "wallet-paid",
            WALLET,
            [(ChargeStatus.AUTHORIZED, TransactionStatus.CAPTURED)],
        )
        await sell_qr(
            store, clock, "pix-waiting", PIX, [(ChargeStatus.PENDING, TransactionStatus.PENDING)]
        )
        await never_charged(store, clock, "tds", reject_first=False)
    finally:
        await store.close()
    _before_shown_status(request, store_kind)
    store = await _open(request, clock, store_kind)
    try:
        assert await shown_as(store, ShownStatus.PAID) == ["wallet-paid", "card-paid"]
        assert await shown_as(store, ShownStatus.AWAITING_PAYMENT) == ["pix-waiting"]
        assert await shown_as(store, ShownStatus.NOT_CHARGED) == ["tds"]
        assert await shown_as(store, ShownStatus.AUTHORIZED) == []
    finally:
        await store.close()


async def wallet_ran_out(store: Store, clock: Clock, mcid: str) -> None:
    """A wallet QR the service calls CANCELED (charge and transaction) once its time ran out."""
    await record_qr(store, mcid, WALLET)
    expiry = T0 + timedelta(minutes=4)
    for status, txn_status, at in (
        (ChargeStatus.PRE_AUTHORIZED, TransactionStatus.PENDING, T0),
        (ChargeStatus.CANCELED, TransactionStatus.CANCELED, expiry + timedelta(seconds=3)),
    ):
        txn = TransactionInfo.model_validate(
            {
                "transactionId": f"t-{mcid}",
                "paymentType": "WALLET",
                "transactionStatus": str(txn_status),
                "amount": 2590,
                "createdAt": T0.isoformat(),
                "updatedAt": at.isoformat(),
                "wallet": {"qrCode": "000201...6304ABCD", "expiresAt": expiry.isoformat()},
            }
        )
        await merge(store, clock, qr_update(mcid, status, txn, at=at), source="webhook")


@pytest.mark.asyncio
@pytest.mark.parametrize("store_kind", ["sqlite", pytest.param("postgres", marks=pytest.mark.pg)])
async def test_the_upgrade_reads_every_stored_charges_shown_status_anew(
    request: pytest.FixtureRequest, store_kind: str
) -> None:
    clock = Clock()
    store = await _open(request, clock, store_kind)
    try:
        for mcid in ("says-partial", "keeps-paid", "keeps-paid-whole", "paid"):
            await sell(store, clock, mcid)
        await refund_in_part(store, clock, "says-partial", says=ChargeStatus.PARTIAL)
        await refund_in_part(store, clock, "keeps-paid", says=ChargeStatus.PAID)
        await refund_in_part(
            store, clock, "keeps-paid-whole", says=ChargeStatus.PAID, refunded=1500
        )
        await wallet_ran_out(store, clock, "wallet-ran-out")
        found = await store.charges.search_charges(ChargeQuery(status=ShownStatus.EXPIRED))
        assert ids(found) == ["wallet-ran-out"]
    finally:
        await store.close()
    # Schema 11 showed a paid charge as paid whatever was refunded of it, and a QR the service
    # called CANCELED as cancelled, even once its time had run out.
    back = (
        "UPDATE charge SET shown_status = CASE WHEN merchant_charge_id = 'wallet-ran-out' "
        "THEN 'CANCELED' ELSE 'PAID' END "
        "WHERE merchant_charge_id IN ('keeps-paid', 'keeps-paid-whole', 'wallet-ran-out')"
    )
    _back_to_schema(request, store_kind, 11, (*BEFORE_CUSTOMER_NAMES, back))
    store = await _open(request, clock, store_kind)
    try:
        assert await shown_as(store, ShownStatus.PARTIAL) == ["keeps-paid", "says-partial"]
        assert await shown_as(store, ShownStatus.REFUNDED) == ["keeps-paid-whole"]
        assert await shown_as(store, ShownStatus.PAID) == ["paid"]
        assert await shown_as(store, ShownStatus.EXPIRED) == ["wallet-ran-out"]
        assert await shown_as(store, ShownStatus.CANCELED) == []
    finally:
        await store.close()


@pytest.mark.asyncio
@pytest.mark.parametrize("store_kind", ["sqlite", pytest.param("postgres", marks=pytest.mark.pg)])
async def test_the_upgrade_keeps_every_sale_found_by_its_customers_name(
    request: pytest.FixtureRequest, store_kind: str
) -> None:
    clock = Clock()
    store = await _open(request, clock, store_kind)
    try:
        await sell(store, clock, "a", customer=("Maria da Silva", MARIA))
        await sell(store, clock, "b", customer=("João Pereira", JOAO))
    finally:
        await store.close()
    # Schema 12 kept one name per customer and none per sale.
    _back_to_schema(request, store_kind, 12, BEFORE_CUSTOMER_NAMES)
    store = await _open(request, clock, store_kind)
    try:
        search = store.charges.search_charges
        found = await search(ChargeQuery(customer="silva"))
        assert [(r.merchant_charge_id, r.customer_name) for r in found.items] == [
            ("a", "Maria da Silva")
        ]
        assert ids(await search(ChargeQuery(customer="joão"))) == ["b"]
        # A sale made after the upgrade under another name keeps it; the earlier one is still
        # found by the name it was charged under.
        await sell(store, clock, "c", customer=("Maria S. Souza", MARIA))
        assert ids(await search(ChargeQuery(customer="souza"))) == ["c"]
        assert ids(await search(ChargeQuery(customer="da silva"))) == ["a"]
    finally:
        await store.close()


def _notification(n: int, mcid: str, charge: str, txn: str, kind: str) -> NewEvent:
    """A notification as the inbox stores it (its listed status left to the store)."""
    expiry = T0 + timedelta(minutes=4)
    qr = {"qrCode": "000201...6304ABCD"}
    if kind == "WALLET":
        qr["expiresAt"] = expiry.isoformat()
    body = {
        "type": "PAYMENT",
        "id": f"c-{mcid}",
        "merchantChargeId": mcid,
        "status": charge,
        "amount": 2590,
        "transactions": [
            {
                "paymentType": kind,
                "transactionId": f"t-{mcid}",
                "status": txn,
                "amount": 2590,
                "createdAt": T0.isoformat(),
                "updatedAt": (expiry + timedelta(seconds=n)).isoformat(),
                **({} if kind == "CREDIT" else {kind.lower(): qr}),
            }
        ],
    }
    raw = json.dumps(body).encode()
    return NewEvent(
        received_at=T0 + timedelta(seconds=n),
        verdict=Verdict.ACCEPTED,
        body=raw,
        body_sha256=f"{n + 500:064x}",
        headers={},
        body_type="PAYMENT",
        merchant_charge_id=mcid,
        status=charge,
    )


@pytest.mark.asyncio
@pytest.mark.parametrize("store_kind", ["sqlite", pytest.param("postgres", marks=pytest.mark.pg)])
async def test_the_upgrade_gives_every_stored_delivery_the_status_the_list_shows(
    request: pytest.FixtureRequest, store_kind: str
) -> None:
    clock = Clock()
    store = await _open(request, clock, store_kind)
    rows = [
        ("pix-stays", "PRE_AUTHORIZED", "EXPIRED", "PIX"),
        ("pix-stays", "PRE_AUTHORIZED", "PENDING", "PIX"),
        ("wallet-ran-out", "CANCELED", "CANCELED", "WALLET"),
        ("wallet-paid", "AUTHORIZED", "CAPTURED", "WALLET"),
        ("card", "PRE_AUTHORIZED", "PRE_AUTHORIZED", "CREDIT"),
    ]
    try:
        async with store.unit_of_work() as uow:
            for n, row in enumerate(rows):
                await uow.events.insert(_notification(n, *row))
    finally:
        await store.close()
    # Before the step, a delivery kept only the charge status its body carried.
    back = 13 if store_kind == "sqlite" else 14
    _back_to_schema(request, store_kind, back, BEFORE_EVENT_SHOWN)
    store = await _open(request, clock, store_kind)
    try:

        async def listed(*shown: str) -> list[str | None]:
            page = await store.events.page(EventFilter(shown=shown), limit=10)
            return [r.merchant_charge_id for r in page.rows]

        assert await listed("EXPIRED") == ["wallet-ran-out", "pix-stays"]
        assert await listed("AWAITING_PAYMENT") == ["pix-stays"]
        assert await listed("PAID") == ["wallet-paid"]
        assert await listed("PRE_AUTHORIZED") == ["card"]
        assert await listed("CANCELED") == []
    finally:
        await store.close()


@pytest.mark.asyncio
@pytest.mark.parametrize("store_kind", ["sqlite", pytest.param("postgres", marks=pytest.mark.pg)])
async def test_an_operation_open_at_the_upgrade_keeps_no_counter_and_stays_everyones(
    request: pytest.FixtureRequest, store_kind: str
) -> None:
    clock = Clock()
    store = await _open(request, clock, store_kind)
    try:
        await sell(store, clock, "card-paid")
        async with store.unit_of_work() as uow:
            await uow.charges.record_money_operation(
                "card-paid", MoneyOpKind.REFUND, 500, Figures(ChargeStatus.PAID, 1500, 0)
            )
    finally:
        await store.close()
    # Before the step, an operation did not say which counter recorded it.
    back = 14 if store_kind == "sqlite" else 15
    _back_to_schema(request, store_kind, back, BEFORE_MONEY_OP_COUNTERS)
    store = await _open(request, clock, store_kind)
    try:
        (op,) = await store.charges.unresolved_money_operations(limit=10, profile=None)
        assert (op.merchant_charge_id, op.counter) == ("card-paid", None)
        # The upgraded store keeps the counter of the operations recorded from now on.
        await sell(store, clock, "card-later")
        async with store.unit_of_work() as uow:
            later = await uow.charges.record_money_operation(
                "card-later",
                MoneyOpKind.REFUND,
                500,
                Figures(ChargeStatus.PAID, 1500, 0),
                counter="k1",
            )
        (kept,) = await store.charges.money_operations("card-later")
        assert kept.counter == later.counter == "k1"
    finally:
        await store.close()
