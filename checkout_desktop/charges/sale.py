"""The sale being charged: its details, its tenders, and the request each attempt sends.

The charge screen fills a `Sale` (the form's checked `SaleDraft`, the tenders that pay it — today
cards the card page tokenized, each for a part of the amount); `Sale.next_attempt` numbers the
attempt and builds the wire request and the tender summaries the store keeps, each tender
adding its own part (`domain/tenders.py`). No widget builds a request.
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass

from checkout_desktop.domain.counters import is_counter_id
from checkout_desktop.domain.enums import InstallmentType
from checkout_desktop.domain.tenders import (
    CardTender,
    PixTender,
    SaleTerms,
    Tender,
    TenderSummary,
    WalletTender,
)
from checkout_desktop.domain.wire import (
    BillingAddress,
    ChargeAuthorizationRequest,
    Customer,
    QrChargeRequest,
    QrTransactionRequest,
    TransactionRequest,
)

logger = logging.getLogger(__name__)


def new_sale_id(counter: str | None = None) -> str:
    """A fresh sale id: 12 hex digits, after `<counter>-` when the counter has an id, so sale
    ids and merchantChargeIds never collide across a shop's counters."""
    random_part = uuid.uuid4().hex[:12]
    if counter is None:
        return random_part
    if not is_counter_id(counter):
        raise ValueError(f"{counter!r} is not a counter id (2 to 8 lowercase letters or digits)")
    return f"{counter}-{random_part}"


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


SaleCard = CardTender
"""A card of the sale (the card tender)."""


@dataclass(frozen=True)
class Attempt:
    """One charge attempt of a sale, ready for `ChargeService.charge`."""

    sale_id: str
    merchant_charge_id: str
    request: ChargeAuthorizationRequest | QrChargeRequest
    tenders: tuple[TenderSummary, ...]
    """What the store keeps of each tender (for a card: brand, last four, installments)."""


class Sale:
    """One sale: an id, the tenders that pay it, and its attempts' numbering."""

    def __init__(self, sale_id: str | None = None, *, counter: str | None = None) -> None:
        self.sale_id = sale_id or new_sale_id(counter)
        self.attempts = 0
        self._tenders: list[Tender] = []

    @property
    def tenders(self) -> list[Tender]:
        return list(self._tenders)

    @property
    def cards(self) -> list[CardTender]:
        """The card tenders of the sale."""
        return [t for t in self._tenders if isinstance(t, CardTender)]

    def covered(self) -> int:
        """What the tenders added so far pay."""
        return sum(tender.amount for tender in self._tenders)

    def remaining(self, amount: int) -> int:
        """What is left for more tenders of a sale of `amount`."""
        return max(0, amount - self.covered())

    def add(self, tender: Tender) -> None:
        if tender.amount <= 0:
            raise ValueError("a tender of the sale pays a positive amount")
        qr = (WalletTender, PixTender)
        if self._tenders and (
            isinstance(tender, qr) or any(isinstance(t, qr) for t in self._tenders)
        ):
            # One QR is one charge of its own for the whole sale: the service's wallet and PIX
            # calls take one transaction.
            raise ValueError("a QR tender pays the whole sale alone")
        self._tenders.append(tender)

    def remove(self, index: int) -> None:
        del self._tenders[index]

    def clear(self) -> None:
        """Forget the tenders (a card's token is single use: spent by any attempt)."""
        self._tenders.clear()

    def next_attempt(self, draft: SaleDraft) -> Attempt:
        """Number the next attempt and build its request from the draft and the tenders."""
        if not self._tenders:
            raise ValueError("a charge needs at least one tender")
        self.attempts += 1
        mcid = f"{self.sale_id}-{self.attempts:02d}"
        terms = SaleTerms(
            installments=draft.installments,
            installment_type=draft.installment_type,
            soft_descriptor=draft.soft_descriptor,
            billing_address=draft.billing_address,
        )
        transactions = [tender.transaction(terms) for tender in self._tenders]
        qr = [t for t in transactions if isinstance(t, QrTransactionRequest)]
        cards = [t for t in transactions if isinstance(t, TransactionRequest)]
        request: ChargeAuthorizationRequest | QrChargeRequest
        if qr:
            request = QrChargeRequest(
                merchantChargeId=mcid, customer=draft.customer, transactions=qr
            )
        else:
            request = ChargeAuthorizationRequest(
                merchantChargeId=mcid,
                lateCapture=draft.late_capture,
                customer=draft.customer,
                transactions=cards,
            )
        summaries = tuple(tender.summary(terms) for tender in self._tenders)
        return Attempt(self.sale_id, mcid, request, summaries)


__all__ = ["Attempt", "Sale", "SaleCard", "SaleDraft", "new_sale_id"]
