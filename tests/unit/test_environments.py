"""A built-in sandbox's charges are stored under its instance id; a sale id names its counter."""

from __future__ import annotations

from checkout_desktop.domain.counters import counter_of_sale
from checkout_desktop.domain.environments import profile_of, sandbox_environment


def test_the_environment_of_a_sandbox_charge_names_its_sandbox() -> None:
    assert sandbox_environment("builtin-sandbox", "4f2a9c") == "builtin-sandbox@4f2a9c"
    # A sandbox that announced no instance (an older one): the profile's name, as before.
    assert sandbox_environment("builtin-sandbox", "") == "builtin-sandbox"
    assert profile_of("builtin-sandbox@4f2a9c") == "builtin-sandbox"
    assert profile_of("builtin-sandbox") == "builtin-sandbox"
    assert profile_of("production") == "production"


def test_a_sale_id_names_its_counter_when_it_carries_one() -> None:
    assert counter_of_sale("k7m2q-1a2b3c4d5e6f") == "k7m2q"
    # Made before sale ids carried their counter, or not a counter's id at all.
    assert counter_of_sale("1a2b3c4d5e6f") is None
    assert counter_of_sale("S-1") is None
    assert counter_of_sale(None) is None
