"""Counter ids: short names, unique across a shop, that every sale id of a counter begins with."""

from __future__ import annotations

import re
import secrets

COUNTER_ID_PATTERN = re.compile(r"^[a-z][a-z0-9]{1,7}$")
"""2 to 8 lowercase letters or digits, a letter first, so `<counter>-<12 hex>-<nn>` stays
within the service's merchantChargeId rule (6 to 36 letters, digits and hyphens)."""

_FIRST = "abcdefghjkmnpqrstuvwxyz"
_REST = _FIRST + "23456789"
# Letters and digits that cannot be misread for one another on a receipt (no i, l, o, 0, 1).


def new_counter_id() -> str:
    """A fresh counter id: a letter and four more (about 23 million choices); the store's
    registration settles the rare clash."""
    return secrets.choice(_FIRST) + "".join(secrets.choice(_REST) for _ in range(4))


def is_counter_id(text: str) -> bool:
    return COUNTER_ID_PATTERN.match(text) is not None


def counter_of_sale(sale_id: str | None) -> str | None:
    """The counter a sale id names (`<counter>-<12 hex>`); None for a sale id made before
    sale ids carried their counter."""
    if sale_id is None or "-" not in sale_id:
        return None
    counter = sale_id.split("-", 1)[0]
    return counter if is_counter_id(counter) else None


__all__ = ["COUNTER_ID_PATTERN", "counter_of_sale", "is_counter_id", "new_counter_id"]
