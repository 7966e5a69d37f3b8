"""A sale keeps the customer's name it was charged under: a CPF used later under another name
(a relative's, a corrected spelling) changes neither the earlier sale's row nor what finds it."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
import pytest_asyncio

from checkout_desktop.domain import state as sm
from checkout_desktop.domain.enums import ChargeStatus
from checkout_desktop.domain.records import CardSummary
from checkout_desktop.domain.search import ChargeQuery
from checkout_desktop.domain.wire import ChargeUpdate
from checkout_desktop.store.ports import Store
from checkout_desktop.store.sqlite.store import SqliteStore

logger = logging.getLogger(__name__)

NOW = datetime(2026, 5, 4, 10, 0, tzinfo=UTC)
CPF = "52998224725"


@pytest_asyncio.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.pg)])
async def store(request: pytest.FixtureRequest) -> AsyncIterator[Store]:
    if request.param == "sqlite":
        tmp_path: Path = request.getfixturevalue("tmp_path")
        opened: Store = SqliteStore.open(tmp_path / "names.sqlite3", clock=lambda: NOW)
    else:
        from checkout_desktop.store.postgres.address import StoreAddress
        from checkout_desktop.store.postgres.store import PgStore

        url = request.getfixturevalue("pg_url")
        opened = await PgStore.open(StoreAddress.parse(url), None, clock=lambda: NOW)
    try:
        yield opened
    finally:
        await opened.close()


async def sale(store: Store, mcid: str, name: str, amount: int) -> None:
    """A paid sale to `name` with the shared CPF, recorded as the charge service records it."""
    state = sm.merge(None, ChargeUpdate(mcid, f"svc-{mcid}", ChargeStatus.PAID, amount, 0)).state
    async with store.unit_of_work() as uow:
        await uow.charges.record_attempt(
            merchant_charge_id=mcid,
            sale_id=f"sale-{mcid}",
            profile="production",
            amount=amount,
            tenders=[CardSummary("VISA", "1111")],
            customer_document=CPF,
            customer_name=name,
        )
        await uow.charges.remember_customer(
            document_type="CPF", document=CPF, name=name, email=None
        )
        await uow.charges.save_charge(
            mcid,
            state,
            sale_id=f"sale-{mcid}",
            source="reply",
            new=True,
            changed=True,
            checks=0,
            next_check_at=None,
            check_reason=None,
        )


async def found(store: Store, text: str) -> dict[str, str | None]:
    page = await store.charges.search_charges(ChargeQuery(customer=text))
    return {r.merchant_charge_id: r.customer_name for r in page.items}


@pytest.mark.asyncio
async def test_each_sale_keeps_the_name_it_was_charged_under(store: Store) -> None:
    await sale(store, "charge-joao", "João Ávila Conceição", 10000)
    await sale(store, "charge-pedro", "Pedro Álvares", 4000)
    everyone = await found(store, "")
    assert everyone == {"charge-joao": "João Ávila Conceição", "charge-pedro": "Pedro Álvares"}
    # The name on screen finds its sale (case and accents ignored), and only the sales made
    # under it; the CPF finds both.
    assert await found(store, "joao") == {"charge-joao": "João Ávila Conceição"}
    assert await found(store, "ÁLVARES") == {"charge-pedro": "Pedro Álvares"}
    assert set(await found(store, "529.982")) == {"charge-joao", "charge-pedro"}
    # The form's offer of recent customers still brings the newest details.
    (recent,) = await store.charges.recent_customers()
    assert recent.name == "Pedro Álvares"
