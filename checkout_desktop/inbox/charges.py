"""Feeding accepted deliveries to the charge state machine, inside the inbox's transaction."""

from __future__ import annotations

import logging
import sqlite3

from checkout_desktop.domain.events import DomainEvent
from checkout_desktop.domain.reasons import Reason, ReasonCode
from checkout_desktop.domain.state import AttemptState, Outcome
from checkout_desktop.domain.wire import ChargeUpdate, ThreeDsUpdate
from checkout_desktop.gateway.events import AttemptChanged, charge_changed
from checkout_desktop.inbox.writer import Applied
from checkout_desktop.store.charges import ChargeRepository

logger = logging.getLogger(__name__)

SOURCE = "webhook"
_OUTCOMES = {
    Outcome.APPLIED: ReasonCode.INBOX_APPLIED,
    Outcome.DUPLICATE: ReasonCode.INBOX_DUPLICATE,
    Outcome.IGNORED: ReasonCode.INBOX_IGNORED,
}


def apply_to_charges(
    conn: sqlite3.Connection, update: ChargeUpdate | ThreeDsUpdate, source_ref: str
) -> Applied:
    """The inbox's ChargeApplier: merge one notification into its charge and timeline.

    Runs in the writer's open transaction, so the event row, the charge and its timeline
    commit together; the returned events are published only after that commit.
    """
    result = ChargeRepository(conn).apply_update(update, source=SOURCE, source_ref=source_ref)
    events: list[DomainEvent] = []
    if result.attempt_resolved and result.sale_id is not None:
        events.append(
            AttemptChanged(
                merchant_charge_id=result.merchant_charge_id,
                sale_id=result.sale_id,
                state=AttemptState.CREATED,
                reason=Reason.of(
                    ReasonCode.NOTIFICATION_HAS_CHARGE, status=str(result.current.status)
                ),
            )
        )
    if result.changed:
        events.append(charge_changed(result, source=SOURCE))
    outcome = _OUTCOMES[result.outcome]
    return Applied(outcome=Reason.of(outcome, why=result.reason), events=tuple(events))


__all__ = ["SOURCE", "apply_to_charges"]
