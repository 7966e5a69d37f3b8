"""A sale keeps the customer's name it was charged under: a CPF used later under another name
(a relative's, a corrected spelling) changes neither the earlier sale's row nor what finds it."""

from __future__ import annotations

import logging

import pytest

from checkout_desktop.domain.search import ChargeQuery
from checkout_desktop.store.ports import Store
from tests.integration.test_store_environments import (  # noqa: F401 - backend is a fixture
    JOAO,
    Clock,
    backend,
    sell,
)

logger = logging.getLogger(__name__)


async def found(store: Store, text: str) -> dict[str, str | None]:
    page = await store.charges.search_charges(ChargeQuery(customer=text))
    return {r.merchant_charge_id: r.customer_name for r in page.items}


@pytest.mark.asyncio
async def test_each_sale_keeps_the_name_it_was_charged_under(
    backend: tuple[Store, Clock],  # noqa: F811 - the fixture imported above
) -> None:
    store, clock = backend
    await sell(store, clock, "charge-joao", amount=10000, customer=("João Ávila Conceição", JOAO))
    await sell(store, clock, "charge-pedro", amount=4000, customer=("Pedro Álvares", JOAO))
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
