"""What the history searches for (ChargeQuery) and the customers a store remembers."""

from __future__ import annotations

import logging
import unicodedata
from dataclasses import dataclass
from datetime import datetime

from checkout_desktop.domain.shown_status import ShownStatus

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class ChargeQuery:
    """What the clerk searches for; every field left empty matches every charge."""

    profile: str | None = None
    """Only this environment's charges; None: every environment's (and those of none)."""
    status: ShownStatus | None = None
    """The status as the history shows it (a QR awaiting payment, a paid wallet as paid)."""
    amount: int | None = None
    """The charge's amount in centavos, exactly."""
    customer: str = ""
    """A customer's name (any part, case and accents ignored) or document (CPF/CNPJ digits,
    matched from the start)."""
    last_four: str = ""
    created_from: datetime | None = None
    created_to: datetime | None = None
    """Charges created in [created_from, created_to) (aware datetimes)."""

    def __post_init__(self) -> None:
        if self.last_four and (len(self.last_four) != 4 or not self.last_four.isdigit()):
            raise ValueError(
                f"the last four digits of a card are four digits, not {self.last_four!r}"
            )
        if self.amount is not None and self.amount < 0:
            raise ValueError("an amount to search for is not negative")
        for moment in (self.created_from, self.created_to):
            if moment is not None and moment.tzinfo is None:
                raise ValueError("a naive datetime has no defined instant")

    @property
    def is_empty(self) -> bool:
        """Nothing asked beyond the environment."""
        return self == ChargeQuery(profile=self.profile)


@dataclass(frozen=True)
class CustomerRecord:
    """A customer as charged (no card data): offered again at the next sale."""

    document_type: str
    document: str
    name: str
    email: str | None
    phone: str | None
    """Area code and number, digits only (e.g. "11987654321")."""
    last_used_at: datetime
    uses: int


def name_key(name: str) -> str:
    """A name as searched: case and accents ignored, spaces collapsed ("João" finds "joao")."""
    decomposed = unicodedata.normalize("NFKD", name.casefold())
    plain = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return " ".join(plain.split())


__all__ = ["ChargeQuery", "CustomerRecord", "name_key"]
