"""The status the history shows a card charge with: the same words whichever way the service
reports a partial refund (PARTIAL, or PAID with a refunded amount; `service-evidence.md`)."""

from __future__ import annotations

import logging

import pytest

from checkout_desktop.domain.enums import ChargeStatus
from checkout_desktop.domain.shown_status import ShownStatus, shown_status
from checkout_desktop.domain.state import ChargeState

logger = logging.getLogger(__name__)


def card(status: ChargeStatus, *, amount: int | None = 10000, refunded: int | None) -> ChargeState:
    return ChargeState(
        merchant_charge_id="c-1", status=status, amount=amount, refunded_amount=refunded
    )


@pytest.mark.parametrize(
    ("status", "amount", "refunded", "shown"),
    [
        (ChargeStatus.PAID, 10000, 0, ShownStatus.PAID),
        (ChargeStatus.PAID, 10000, None, ShownStatus.PAID),
        # The variant where the service keeps PAID after a partial refund.
        (ChargeStatus.PAID, 10000, 2500, ShownStatus.PARTIAL),
        (ChargeStatus.PARTIAL, 10000, 2500, ShownStatus.PARTIAL),
        # Everything refunded while the charge still says PAID: refunded in full.
        (ChargeStatus.PAID, 10000, 10000, ShownStatus.REFUNDED),
        (ChargeStatus.PAID, None, 2500, ShownStatus.PARTIAL),
        (ChargeStatus.REFUNDED, 10000, 10000, ShownStatus.REFUNDED),
        # Other statuses are the service's own, refunded amount or not.
        (ChargeStatus.CANCELED, 10000, 10000, ShownStatus.CANCELED),
        (ChargeStatus.AUTHORIZED, 10000, 0, ShownStatus.AUTHORIZED),
    ],
)
def test_a_card_charge_is_shown_by_what_its_money_did(
    status: ChargeStatus, amount: int | None, refunded: int | None, shown: ShownStatus
) -> None:
    assert shown_status(card(status, amount=amount, refunded=refunded)) == shown
