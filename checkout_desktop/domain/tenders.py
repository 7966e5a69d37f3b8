"""Payment methods as values: a sale is paid by tenders, each building its part of the request.

A tender knows how much of the sale it pays, the transaction it adds to the charge request and
the summary the store may keep of it (never a token or a card number). Today there is one kind,
the card; a new payment method adds a tender class (and a panel to fill it), and the sale, the
service and the store take it as they are.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import ClassVar, Protocol

from checkout_desktop.domain.enums import InstallmentType
from checkout_desktop.domain.records import CARD, CardSummary, TenderSummary, stored_tender
from checkout_desktop.domain.wire import BillingAddress, CreditRequest, TransactionRequest

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class SaleTerms:
    """What every tender of a sale shares: installments, the descriptor, the billing address."""

    installments: int = 1
    installment_type: InstallmentType = InstallmentType.NONE
    soft_descriptor: str | None = None
    billing_address: BillingAddress | None = None


class Tender(Protocol):
    """One way of paying part of a sale."""

    @property
    def kind(self) -> str: ...

    @property
    def amount(self) -> int:
        """The part of the sale it pays, in centavos."""
        ...

    def transaction(self, terms: SaleTerms) -> TransactionRequest:
        """Its transaction in the charge request."""
        ...

    def summary(self, terms: SaleTerms) -> TenderSummary:
        """What the store keeps of it, recorded with the attempt before the request is sent."""
        ...


@dataclass(frozen=True)
class CardTender:
    """A card the card page tokenized: its single-use temporary token and what may be shown."""

    kind: ClassVar[str] = CARD
    token: str = field(repr=False)
    """The single-use temporary card token; never logged, never stored."""
    brand: str
    last_four: str
    holder_name: str
    amount: int

    def transaction(self, terms: SaleTerms) -> TransactionRequest:
        return TransactionRequest(
            amount=self.amount,
            softDescriptor=terms.soft_descriptor,
            credit=CreditRequest(
                temporaryCardToken=self.token,
                installmentNumber=terms.installments,
                installmentType=terms.installment_type,
                billingAddress=terms.billing_address,
            ),
        )

    def summary(self, terms: SaleTerms) -> CardSummary:
        return CardSummary(
            brand=self.brand, last_four=self.last_four, installments=terms.installments
        )


__all__ = [
    "CARD",
    "CardTender",
    "SaleTerms",
    "Tender",
    "TenderSummary",
    "stored_tender",
]
