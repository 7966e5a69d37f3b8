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

from checkout_desktop.domain.enums import InstallmentType, PaymentType
from checkout_desktop.domain.records import (
    CARD,
    PIX,
    WALLET,
    CardSummary,
    QrSummary,
    TenderSummary,
    stored_tender,
)
from checkout_desktop.domain.wire import (
    BillingAddress,
    CreditRequest,
    PixRequest,
    QrTransactionRequest,
    TransactionRequest,
)

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

    def transaction(self, terms: SaleTerms) -> TransactionRequest | QrTransactionRequest:
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


@dataclass(frozen=True)
class WalletTender:
    """The PicPay app pays by scanning a QR: one wallet charge for the whole sale."""

    kind: ClassVar[str] = WALLET
    amount: int

    def transaction(self, terms: SaleTerms) -> QrTransactionRequest:
        return QrTransactionRequest(
            paymentType=PaymentType.WALLET, amount=self.amount, softDescriptor=terms.soft_descriptor
        )

    def summary(self, terms: SaleTerms) -> QrSummary:
        return QrSummary(WALLET)


@dataclass(frozen=True)
class PixTender:
    """Any bank's app pays a PIX QR ("copia e cola") within `expiration_s` seconds."""

    kind: ClassVar[str] = PIX
    amount: int
    expiration_s: int = 600

    def transaction(self, terms: SaleTerms) -> QrTransactionRequest:
        return QrTransactionRequest(
            paymentType=PaymentType.PIX,
            amount=self.amount,
            softDescriptor=terms.soft_descriptor,
            pix=PixRequest(expiration=self.expiration_s),
        )

    def summary(self, terms: SaleTerms) -> QrSummary:
        return QrSummary(PIX, self.expiration_s)


QrTender = WalletTender | PixTender
"""A tender paid by scanning a QR; it pays the whole sale, alone."""


__all__ = [
    "CARD",
    "PIX",
    "WALLET",
    "CardTender",
    "PixTender",
    "QrSummary",
    "QrTender",
    "SaleTerms",
    "Tender",
    "TenderSummary",
    "WalletTender",
    "stored_tender",
]
