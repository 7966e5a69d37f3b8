"""The settings a shop's counters must agree on — the supervisor PIN and the shop's name — kept
in the store, so one PIN guards every counter; the other settings stay in each counter's file.

The store is the truth once it holds a value; a counter that finds a value missing there
gives it its own (the first counter on a new shared store seeds it). A removed PIN is kept as
an empty value, so that a counter still holding the old PIN in its file does not put it back.

What the service's refusals taught a counter (`domain/learned.py`: the customer's e-mail
required, a CNPJ refused, no cancel of an unpaid QR) is that service's rule at every counter:
kept under the environment's name (a built-in sandbox's is its own), "1" learned and "0" let go
by the owner. A shared store tells the running counters when any of these change (`now`).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from checkout_desktop.domain.learned import LEARNED_FLAGS, LEARNED_PREFIX, LearnedFlag
from checkout_desktop.domain.shop_events import ShopSettingsChanged

if TYPE_CHECKING:
    from checkout_desktop.settings import Profile, UiSettings
    from checkout_desktop.store.ports import ShopStore, Store

logger = logging.getLogger(__name__)

PIN_KEY = "supervisor_pin_hash"
NAME_KEY = "shop_name"


def learned_key(environment: str, flag: LearnedFlag) -> str:
    """The store's key of one learned rule of one environment's service."""
    return f"{LEARNED_PREFIX}{environment}/{flag}"


def _local(ui: UiSettings) -> dict[str, str]:
    return {PIN_KEY: ui.supervisor_pin_hash or "", NAME_KEY: ui.shop_name}


def _adopt(ui: UiSettings, values: dict[str, str]) -> bool:
    """Take the store's values into `ui`; whether anything changed."""
    changed = False
    if PIN_KEY in values and (values[PIN_KEY] or None) != ui.supervisor_pin_hash:
        ui.supervisor_pin_hash = values[PIN_KEY] or None
        changed = True
    if NAME_KEY in values and values[NAME_KEY] != ui.shop_name:
        ui.shop_name = values[NAME_KEY]
        changed = True
    return changed


class ShopSettings:
    """The shop-wide settings on one store, for the counter `by`."""

    def __init__(self, store: Store, *, by: str) -> None:
        self.store = store
        self.by = by

    async def agree(self, ui: UiSettings, *, learned: tuple[Profile, str] | None = None) -> bool:
        """Make `ui` and the store agree: the store's values win, missing ones are seeded from
        `ui`. With `learned` (a profile and its environment), its learned rules and the store's
        for that environment too, in the same read: a rule the store holds wins; one this
        counter learned that the store lacks is given to it. Returns whether `ui` or the
        profile changed (the settings file should then be saved)."""
        async with self.store.unit_of_work() as uow:
            values = await uow.shop.settings()
            await self._seed(uow.shop, ui, values, by=self.by)
            rules = False
            if learned is not None:
                rules = await self._agree_learned(uow.shop, values, *learned)
        changed = _adopt(ui, values)
        if changed:
            logger.info("the shop's shared settings (PIN, name) were taken from the store")
        if rules:
            logger.info("the service's rules learned at other counters were taken from the store")
        return changed or rules

    @staticmethod
    async def _seed(shop: ShopStore, ui: UiSettings, values: dict[str, str], *, by: str) -> None:
        for key, value in _local(ui).items():
            if key not in values:
                await shop.set_setting(key, value, by=by)
                values[key] = value

    async def publish(self, ui: UiSettings, previous: UiSettings | None = None) -> None:
        """The settings changed here: every counter follows. With `previous`, only what
        differs from it is written, so a counter holding an old PIN that changes the shop's
        name never puts that PIN back."""
        before = {} if previous is None else _local(previous)
        async with self.store.unit_of_work() as uow:
            for key, value in _local(ui).items():
                if before.get(key) != value:
                    await uow.shop.set_setting(key, value, by=self.by)

    async def now(self, environment: str) -> ShopSettingsChanged:
        """The shared settings as the store holds them now, with `environment`'s learned
        rules (for a running counter to take: another counter changed them)."""
        values = await self.store.shop.settings()
        learned = tuple(
            (flag, values[key] == "1")
            for flag in LEARNED_FLAGS
            if (key := learned_key(environment, flag)) in values
        )
        return ShopSettingsChanged(
            pin_held=PIN_KEY in values,
            pin_hash=values.get(PIN_KEY) or None,
            shop_name=values.get(NAME_KEY),
            learned=learned,
        )

    async def _agree_learned(
        self, shop: ShopStore, values: dict[str, str], profile: Profile, environment: str
    ) -> bool:
        """`agree`'s part for the learned rules; whether `profile` changed."""
        changed = False
        for flag in LEARNED_FLAGS:
            held = values.get(learned_key(environment, flag))
            if held is None:
                if getattr(profile, flag):
                    await shop.set_setting(learned_key(environment, flag), "1", by=self.by)
            elif (held == "1") != getattr(profile, flag):
                setattr(profile, flag, held == "1")
                changed = True
        return changed

    async def publish_learned(self, environment: str, flag: LearnedFlag, value: bool) -> None:
        """This counter learned a rule of `environment`'s service (or the owner let it go)."""
        async with self.store.unit_of_work() as uow:
            await uow.shop.set_setting(
                learned_key(environment, flag), "1" if value else "0", by=self.by
            )

    async def pin_hash(self) -> str | None:
        """The shop's supervisor PIN hash as the store holds it now (None: no PIN)."""
        values = await self.store.shop.settings()
        return values.get(PIN_KEY) or None


__all__ = ["NAME_KEY", "PIN_KEY", "ShopSettings", "learned_key"]
