"""The sale being charged: its details, its cards, and the request each attempt sends.

The charge screen fills a `Sale` (the form's checked `SaleDraft`, the cards the card page
tokenized, each for a part of the amount); `Sale.next_attempt` numbers the attempt and builds
the wire request and the card summaries the store keeps. No widget builds a request.
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass, field

from checkout_desktop.domain.enums import InstallmentType
from checkout_desktop.domain.records import CardSummary
from checkout_desktop.domain.wire import (
    BillingAddress,
    ChargeAuthorizationRequest,
    CreditRequest,
    Customer,
    TransactionRequest,
)

logger = logging.getLogger(__name__)


def new_sale_id() -> str:
    """A fresh sale id: 12 hex digits, so `<sale>-<n>` fits the 6–36 merchantChargeId rule."""
    return uuid.uuid4().hex[:12]


@dataclass(frozen=True)
class SaleDraft:
    """Everything about a sale except its cards, checked."""

    amount: int
    installments: int
    installment_type: InstallmentType
    soft_descriptor: str | None
    late_capture: bool
    customer: Customer
    billing_address: BillingAddress | None


@dataclass(frozen=True)
class SaleCard:
    """One card of the sale: its temporary token (single use) and the part it pays."""

    token: str = field(repr=False)
    """The single-use temporary card token; never logged."""
    brand: str
    last_four: str
    holder_name: str
    amount: int


@dataclass(frozen=True)
class Attempt:
    """One charge attempt of a sale, ready for `ChargeService.charge`."""

    sale_id: str
    merchant_charge_id: str
    request: ChargeAuthorizationRequest
    cards: tuple[CardSummary, ...]


class Sale:
    """One sale: an id, the cards tokenized for it, and its attempts' numbering."""

    def __init__(self, sale_id: str | None = None) -> None:
        self.sale_id = sale_id or new_sale_id()
        self.attempts = 0
        self._cards: list[SaleCard] = []

    @property
    def cards(self) -> list[SaleCard]:
        return list(self._cards)

    def covered(self) -> int:
        """What the cards added so far pay."""
        return sum(card.amount for card in self._cards)

    def remaining(self, amount: int) -> int:
        """What is left for more cards of a sale of `amount`."""
        return max(0, amount - self.covered())

    def add_card(self, card: SaleCard) -> None:
        if card.amount <= 0:
            raise ValueError("a card of the sale pays a positive amount")
        self._cards.append(card)

    def remove_card(self, index: int) -> None:
        del self._cards[index]

    def clear_cards(self) -> None:
        """Forget the cards (their tokens are single use: spent by any attempt)."""
        self._cards.clear()

    def next_attempt(self, draft: SaleDraft) -> Attempt:
        """Number the next attempt and build its request from the draft and the cards."""
        if not self._cards:
            raise ValueError("a charge needs at least one card")
        self.attempts += 1
        mcid = f"{self.sale_id}-{self.attempts:02d}"
        transactions = [
            TransactionRequest(
                amount=card.amount,
                softDescriptor=draft.soft_descriptor,
                credit=CreditRequest(
                    temporaryCardToken=card.token,
                    installmentNumber=draft.installments,
                    installmentType=draft.installment_type,
                    billingAddress=draft.billing_address,
                ),
            )
            for card in self._cards
        ]
        request = ChargeAuthorizationRequest(
            merchantChargeId=mcid,
            lateCapture=draft.late_capture,
            customer=draft.customer,
            transactions=transactions,
        )
        summaries = tuple(
            CardSummary(brand=card.brand, last_four=card.last_four, installments=draft.installments)
            for card in self._cards
        )
        return Attempt(self.sale_id, mcid, request, summaries)


__all__ = ["Attempt", "Sale", "SaleCard", "SaleDraft", "new_sale_id"]
