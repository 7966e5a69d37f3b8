"""The sandbox's deterministic test cards and the card-brand rules by BIN prefix."""

from __future__ import annotations

import enum
import logging
from dataclasses import dataclass

from checkout_desktop.domain.enums import CardBrand

logger = logging.getLogger(__name__)


class CardBehaviour(enum.Enum):
    """What the sandbox does when a card is charged."""

    APPROVED = "approved"
    DENIED = "denied"
    THREE_DS_FRICTIONLESS = "3ds-frictionless"
    THREE_DS_CHALLENGE = "3ds-challenge"
    THREE_DS_REJECTED = "3ds-rejected"
    THREE_DS_UNAVAILABLE = "3ds-unavailable"
    GATEWAY_ERROR = "gateway-error"
    SLOW = "slow"


@dataclass(frozen=True)
class SandboxCard:
    number: str
    brand: CardBrand
    behaviour: CardBehaviour
    outcome: str

    @property
    def grouped(self) -> str:
        if len(self.number) == 15:
            return f"{self.number[:4]} {self.number[4:10]} {self.number[10:]}"
        return " ".join(self.number[i : i + 4] for i in range(0, len(self.number), 4))


TEST_CARDS: tuple[SandboxCard, ...] = (
    SandboxCard(
        "4111111111111111",
        CardBrand.VISA,
        CardBehaviour.APPROVED,
        "approved: PAID (PRE_AUTHORIZED with lateCapture)",
    ),
    SandboxCard("5555555555554444", CardBrand.MASTERCARD, CardBehaviour.APPROVED, "approved"),
    SandboxCard("6362970000457013", CardBrand.ELO, CardBehaviour.APPROVED, "approved"),
    SandboxCard("378282246310005", CardBrand.AMEX, CardBehaviour.APPROVED, "approved"),
    SandboxCard("6062825624254001", CardBrand.HIPERCARD, CardBehaviour.APPROVED, "approved"),
    SandboxCard(
        "4000000000000002",
        CardBrand.VISA,
        CardBehaviour.DENIED,
        "denied: charge and transaction DENIED, HTTP 200",
    ),
    SandboxCard(
        "4000000000003063",
        CardBrand.VISA,
        CardBehaviour.THREE_DS_FRICTIONLESS,
        "3DS frictionless: enrollment `Approved` without a challenge, then the 3DS "
        "authorization is PAID; approved without 3DS too",
    ),
    SandboxCard(
        "4000000000003220",
        CardBrand.VISA,
        CardBehaviour.THREE_DS_CHALLENGE,
        "3DS challenge: enrollment `Challenged`; code `1234` on the bank's page approves "
        "(then PAID), any other code rejects; DENIED without 3DS",
    ),
    SandboxCard(
        "4000008400001629",
        CardBrand.VISA,
        CardBehaviour.THREE_DS_REJECTED,
        "3DS rejected at enrollment (`Rejected`, no challenge); DENIED without 3DS",
    ),
    SandboxCard(
        "4000000000001042",
        CardBrand.VISA,
        CardBehaviour.THREE_DS_UNAVAILABLE,
        "3DS unavailable: enrollment answers 502 and the status is `FAILED`; approved without 3DS",
    ),
    SandboxCard(
        "4000000000000119",
        CardBrand.VISA,
        CardBehaviour.GATEWAY_ERROR,
        "gateway error: HTTP 500, no charge created",
    ),
    SandboxCard(
        "4000000000009995",
        CardBrand.VISA,
        CardBehaviour.SLOW,
        "slow: the reply comes after the client's timeout, **but the charge is created and "
        "PAID** (the ambiguous case)",
    ),
)

_BY_NUMBER = {card.number: card for card in TEST_CARDS}


def find_test_card(number: str) -> SandboxCard | None:
    return _BY_NUMBER.get(number)


def behaviour_of(number: str) -> CardBehaviour:
    """A card outside the table with a valid number is approved."""
    card = _BY_NUMBER.get(number)
    return card.behaviour if card else CardBehaviour.APPROVED


# Elo's BINs overlap Visa's and Mastercard's ranges, so they are checked first.
_ELO_RANGES: tuple[tuple[int, int], ...] = (
    (401178, 401179),
    (431274, 431274),
    (438935, 438935),
    (451416, 451416),
    (457393, 457393),
    (457631, 457632),
    (504175, 504175),
    (506699, 506778),
    (509000, 509999),
    (627780, 627780),
    (636297, 636297),
    (636368, 636368),
    (650031, 650033),
    (650035, 650051),
    (650405, 650439),
    (650485, 650538),
    (650541, 650598),
    (650700, 650718),
    (650720, 650727),
    (650901, 650920),
    (651652, 651679),
    (655000, 655019),
    (655021, 655058),
)
_HIPERCARD_BINS = frozenset(
    {606282, 384100, 384140, 384160, 637095, 637568, 637599, 637609, 637612}
)


def brand_for_bin(bin6: str) -> CardBrand | None:
    """The brand of a six-digit BIN by its known prefixes, or None when no rule knows it."""
    if len(bin6) != 6 or not bin6.isdigit():
        return None
    for card in TEST_CARDS:
        if card.number.startswith(bin6):
            return card.brand
    value = int(bin6)
    if any(low <= value <= high for low, high in _ELO_RANGES):
        return CardBrand.ELO
    if value in _HIPERCARD_BINS:
        return CardBrand.HIPERCARD
    if bin6[:2] in {"34", "37"}:
        return CardBrand.AMEX
    if 51 <= int(bin6[:2]) <= 55 or 222100 <= value <= 272099:
        return CardBrand.MASTERCARD
    if bin6[0] == "4":
        return CardBrand.VISA
    return None


CARD_LENGTHS: dict[CardBrand, frozenset[int]] = {
    CardBrand.VISA: frozenset({13, 16, 19}),
    CardBrand.MASTERCARD: frozenset({16}),
    CardBrand.AMEX: frozenset({15}),
    CardBrand.ELO: frozenset({16}),
    CardBrand.HIPERCARD: frozenset({13, 16, 19}),
}


def cvv_length(brand: CardBrand) -> int:
    return 4 if brand == CardBrand.AMEX else 3


def cards_markdown() -> str:
    """The README table of test cards (TEST_CARDS.md is generated from this)."""
    lines = ["| Card number | Brand | Outcome |", "|---|---|---|"]
    lines += [f"| {c.grouped} | {c.brand.value} | {c.outcome} |" for c in TEST_CARDS]
    return "\n".join(lines) + "\n"
