"""What a charge request ended in, as far as the terminal knows: shared by every way to charge."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from checkout_desktop.domain.enums import ChargeStatus
from checkout_desktop.domain.reasons import Reason
from checkout_desktop.domain.records import ChargeRecord
from checkout_desktop.domain.state import UNRESOLVED_ATTEMPT_STATES, AttemptState
from checkout_desktop.gateway.errors import GatewayError

logger = logging.getLogger(__name__)

APPROVED_STATUSES = frozenset(
    {ChargeStatus.PAID, ChargeStatus.PRE_AUTHORIZED, ChargeStatus.AUTHORIZED}
)
_APPROVED = APPROVED_STATUSES


@dataclass(frozen=True)
class ChargeOutcome:
    """What a charge request ended in, as far as the terminal knows now."""

    merchant_charge_id: str
    sale_id: str
    attempt: AttemptState
    status: ChargeStatus | None
    message: Reason
    """Why it ended so (rendered in the UI language; `message.english()` for logs)."""
    error: GatewayError | None = None
    record: ChargeRecord | None = None
    """The charge as stored when the outcome was known (None when none exists)."""
    awaiting_payment: bool = False
    """A QR the customer has not paid yet: created, but not approved."""

    @property
    def approved(self) -> bool:
        return (
            self.attempt == AttemptState.CREATED
            and self.status in _APPROVED
            and not self.awaiting_payment
        )

    @property
    def unknown(self) -> bool:
        return self.attempt in UNRESOLVED_ATTEMPT_STATES


__all__ = ["APPROVED_STATUSES", "ChargeOutcome"]
