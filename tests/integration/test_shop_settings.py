"""The settings a shop's counters share (supervisor PIN, shop name) live in the store: one PIN
for every counter of a shared store, a removed PIN stays removed, and the charge service
enforces the PIN the store holds now."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, cast

import pytest
import pytest_asyncio

from checkout_desktop.charges.authority import Authority, PinRefused, hash_pin
from checkout_desktop.charges.service import ChargeService
from checkout_desktop.charges.shop import ShopSettings
from checkout_desktop.domain import state as sm
from checkout_desktop.domain.enums import ChargeStatus
from checkout_desktop.domain.records import CardSummary
from checkout_desktop.domain.wire import ChargeUpdate
from checkout_desktop.settings import Profile, UiSettings, default_profiles
from checkout_desktop.store.errors import RepositoryError
from checkout_desktop.store.ports import Store
from checkout_desktop.store.postgres.address import StoreAddress
from checkout_desktop.store.postgres.store import PgStore
from checkout_desktop.store.sqlite.store import SqliteStore

NOW = datetime(2026, 5, 4, 10, 0, tzinfo=UTC)


@pytest_asyncio.fixture
async def counters(pg_url: str) -> AsyncIterator[list[PgStore]]:
    address = StoreAddress.parse(pg_url)
    stores = [await PgStore.open(address, None) for _ in range(3)]
    try:
        yield stores
    finally:
        for store in stores:
            await store.close()


async def _paid_charge(store: Store, mcid: str) -> None:
    merged = sm.merge(None, ChargeUpdate(mcid, "ch-1", ChargeStatus.PAID, 1500, 0)).state
    async with store.unit_of_work() as uow:
        # Made by this environment's service (the charge takes the attempt's profile).
        await uow.charges.record_attempt(
            merchant_charge_id=mcid,
            sale_id="abcde-000000000001",
            profile="builtin-sandbox",
            amount=1500,
            tenders=[CardSummary("VISA", "1111")],
        )
        await uow.charges.save_charge(
            mcid,
            merged,
            sale_id="abcde-000000000001",
            source="reply",
            new=True,
            changed=True,
            checks=0,
            next_check_at=None,
            check_reason=None,
        )


def _service(store: Store) -> ChargeService:
    # The PIN is refused before the service is ever asked: no client is needed.
    return ChargeService(
        store=store,
        client=cast(Any, None),
        profile="builtin-sandbox",
        authority=Authority(None),
        shop=ShopSettings(store, by="caixa"),
    )


@pytest.mark.pg
@pytest.mark.asyncio
async def test_one_pin_for_every_counter_of_a_shared_store(counters: list[PgStore]) -> None:
    first, second, third = counters
    pin = hash_pin("4321")
    seeding = UiSettings(supervisor_pin_hash=pin, shop_name="Loja Centro")
    assert not await ShopSettings(first, by="aaaaa").agree(seeding)

    joining = UiSettings()
    assert await ShopSettings(second, by="bbbbb").agree(joining)
    assert (joining.supervisor_pin_hash, joining.shop_name) == (pin, "Loja Centro")

    # A refund at the third counter, whose own file holds no PIN, needs the shop's PIN.
    await _paid_charge(third, "abcde-000000000001-01")
    service = _service(third)
    with pytest.raises(PinRefused):
        await service.refund("abcde-000000000001-01")
    with pytest.raises(PinRefused):
        await service.refund("abcde-000000000001-01", pin="0000")

    # The PIN removed at the second counter: the others follow, and a counter whose file still
    # holds the old PIN does not put it back.
    joining.supervisor_pin_hash = None
    await ShopSettings(second, by="bbbbb").publish(joining)
    stale = UiSettings(supervisor_pin_hash=pin, shop_name="Loja Centro")
    assert await ShopSettings(third, by="ccccc").agree(stale)
    assert stale.supervisor_pin_hash is None
    assert await ShopSettings(first, by="aaaaa").pin_hash() is None
    await service._current_pin()
    assert not service.authority.pin_set


@pytest.mark.pg
@pytest.mark.asyncio
async def test_counter_ids_are_unique_across_the_shop(counters: list[PgStore]) -> None:
    first, second, _ = counters
    async with first.unit_of_work() as uow:
        assert await uow.shop.register_counter("caixa1", "terminal-aaaa", "pc-1") == "caixa1"
    async with first.unit_of_work() as uow:
        # The same terminal again: its first id stands.
        assert await uow.shop.register_counter("caixa9", "terminal-aaaa", "pc-1") == "caixa1"
    with pytest.raises(RepositoryError, match="another terminal"):
        async with second.unit_of_work() as uow:
            await uow.shop.register_counter("caixa1", "terminal-bbbb", "pc-2")
    assert await second.shop.counter_of("terminal-aaaa") == "caixa1"
    assert await second.shop.counter_of("terminal-bbbb") is None


@pytest.mark.asyncio
async def test_the_embedded_store_keeps_the_shop_settings_too(tmp_path: Path) -> None:
    store = SqliteStore.open(tmp_path / "checkout.sqlite3")
    try:
        ui = UiSettings(supervisor_pin_hash=hash_pin("1234"), shop_name="Loja")
        shop = ShopSettings(store, by="aaaaa")
        assert not await shop.agree(ui)
        assert await shop.pin_hash() == ui.supervisor_pin_hash
        with pytest.raises(RepositoryError, match="share"):
            async with store.unit_of_work() as uow:
                await uow.shop.set_setting("listener_port", "8080", by="aaaaa")
        await _paid_charge(store, "abcde-000000000001-01")
        with pytest.raises(PinRefused):
            await _service(store).refund("abcde-000000000001-01")
    finally:
        await store.close()


@pytest.mark.pg
@pytest.mark.asyncio
@pytest.mark.expected_errors("not sent: the store cannot record it")
async def test_no_charge_is_sent_while_the_shared_store_cannot_record_it(pg_url: str) -> None:
    import psycopg
    from psycopg.conninfo import conninfo_to_dict

    from checkout_desktop.charges.service import NotRecorded
    from checkout_desktop.domain.reasons import ReasonCode
    from tests.integration.charging_support import charge_request, visa

    store = await PgStore.open(StoreAddress.parse(pg_url), None)
    dbname = str(conninfo_to_dict(pg_url)["dbname"])
    admin_url = pg_url.replace(f"/{dbname}?", "/postgres?")
    try:
        # The server stops taking this database's connections and drops the open ones: what a
        # counter sees when the shop's server goes down under it.
        with psycopg.connect(admin_url, autocommit=True) as admin:
            admin.execute(f'ALTER DATABASE "{dbname}" ALLOW_CONNECTIONS false')
            admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s",
                (dbname,),
            )
        service = _service(store)  # no client: sending anything would fail the test
        with pytest.raises(NotRecorded) as refused:
            await service.charge(
                sale_id="abcde-000000000002",
                request=charge_request("card_t/never-sent", merchant_charge_id="abcde-0002-01"),
                tenders=visa("1111"),
            )
        assert refused.value.reason.code is ReasonCode.STORE_UNREACHABLE
    finally:
        with psycopg.connect(admin_url, autocommit=True) as admin:
            admin.execute(f'ALTER DATABASE "{dbname}" ALLOW_CONNECTIONS true')
        await store.close()


def _production(**learned: bool) -> Profile:
    profile = default_profiles()["production"].model_copy()
    for flag, value in learned.items():
        setattr(profile, flag, value)
    return profile


@pytest.mark.pg
@pytest.mark.asyncio
async def test_a_refusal_learned_at_one_counter_holds_at_every_counter(
    counters: list[PgStore],
) -> None:
    """What the service's refusals taught one counter (a CNPJ refused, the e-mail required,
    no cancel of an unpaid QR) is the same service's rule at every counter of the shop."""
    first, second, third = counters
    await ShopSettings(first, by="aaaaa").publish_learned(
        "production", "customer_cnpj_refused", True
    )
    joining = _production()
    assert await ShopSettings(second, by="bbbbb").agree(
        UiSettings(), learned=(joining, "production")
    )
    assert joining.customer_cnpj_refused
    assert not joining.customer_email_required and not joining.qr_cancel_refused

    # A counter that learned something itself before the store knew it passes it on.
    own = _production(customer_email_required=True)
    assert await ShopSettings(third, by="ccccc").agree(UiSettings(), learned=(own, "production"))
    assert own.customer_email_required and own.customer_cnpj_refused
    again = _production()
    assert await ShopSettings(first, by="aaaaa").agree(UiSettings(), learned=(again, "production"))
    assert again.customer_email_required

    # The owner unticks one at a counter, to let the terminal try again: the others follow.
    await ShopSettings(second, by="bbbbb").publish_learned(
        "production", "customer_cnpj_refused", False
    )
    stale = _production(customer_cnpj_refused=True)
    assert await ShopSettings(third, by="ccccc").agree(UiSettings(), learned=(stale, "production"))
    assert not stale.customer_cnpj_refused

    # Another environment's service taught nothing about this one.
    sandbox = _production()
    assert not await ShopSettings(first, by="aaaaa").agree(
        UiSettings(), learned=(sandbox, "service-sandbox")
    )
    assert not sandbox.customer_email_required

    # Only the three learned rules are shared under the environment's name.
    with pytest.raises(RepositoryError, match="share"):
        async with first.unit_of_work() as uow:
            await uow.shop.set_setting("learned/production/phone_required", "0", by="aaaaa")


@pytest.mark.pg
@pytest.mark.asyncio
async def test_a_name_changed_at_a_counter_holding_an_old_pin_leaves_the_pin_alone(
    counters: list[PgStore],
) -> None:
    """The PIN changed at one counter; another, still holding the old one, renames the shop:
    only the name is written, and the shop keeps its new PIN."""
    first, second, _ = counters
    old, new = hash_pin("1111"), hash_pin("2222")
    held_at_second = UiSettings(supervisor_pin_hash=old, shop_name="Loja")
    await ShopSettings(first, by="aaaaa").agree(held_at_second.model_copy())
    await ShopSettings(first, by="aaaaa").publish(
        UiSettings(supervisor_pin_hash=new, shop_name="Loja"), held_at_second
    )
    renamed = held_at_second.model_copy(update={"shop_name": "Loja Centro"})
    await ShopSettings(second, by="bbbbb").publish(renamed, held_at_second)
    shop = ShopSettings(second, by="bbbbb")
    assert await shop.pin_hash() == new
    now = await shop.now("builtin-sandbox")
    assert (now.pin_held, now.pin_hash, now.shop_name, now.learned) == (
        True,
        new,
        "Loja Centro",
        (),
    )
