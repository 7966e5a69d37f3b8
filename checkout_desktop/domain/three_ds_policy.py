"""When a card charge goes through 3-D Secure: the shop's policy, apart from the wire models.

Kept free of pydantic and of the wire models so that the settings, read before the window and
the card page exist, can name it without loading them (`domain/three_ds.py` re-exports it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

ThreeDsMode = Literal["off", "above", "always"]
ThreeDsFallback = Literal["refuse", "without"]


@dataclass(frozen=True)
class ThreeDsPolicy:
    """When a card charge is authenticated first, and what happens when that fails.

    `mode`: never (off), from `above_centavos` up (above), or for every card charge (always).
    `fallback`: when authentication cannot be done (3DS unavailable, or a technical failure),
    refuse the card (nothing is charged) or charge it without 3DS (the plain authorization). A
    bank that rejected the customer, or a confirmation cancelled, unanswered or sent elsewhere,
    is never charged without 3DS, whatever the fallback (`domain/three_ds.FALLBACK_RESULTS`).
    """

    mode: ThreeDsMode = "off"
    above_centavos: int = 0
    fallback: ThreeDsFallback = "refuse"

    def applies(self, amount: int, cards: int) -> bool:
        """Whether a charge of `amount` centavos paid by `cards` cards goes through 3DS.

        The service's setup takes exactly one card, so a charge split over several cards goes
        without 3DS."""
        if cards != 1 or self.mode == "off":
            return False
        return self.mode == "always" or amount >= self.above_centavos
