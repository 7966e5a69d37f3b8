"""The one place an input reaches a charge: load, merge, schedule, timeline, resolve, events.

Every input about a charge — the service's reply to a request, its answer to a query, a
notification delivered to the inbox — goes through `Ledger.apply_update`: it loads the charge,
merges the input with the state machine, plans the next check, writes the charge and its
timeline row, settles the attempt or money operation the input proves, and returns the domain
events to publish once the caller's transaction has committed. The charge service and the
reconciler use it through `apply`, `settle_attempt` and `settle_op` (each one durable step
whose events are published after its commit); the inbox uses `inbox_applier` inside its own
group commit.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any

from checkout_desktop.charges.reconciler import CheckPolicy
from checkout_desktop.domain import state as sm
from checkout_desktop.domain.charge_events import (
    AttemptChanged,
    ChargeChanged,
    charge_changed,
    operation_changed,
)
from checkout_desktop.domain.deliveries import Applied
from checkout_desktop.domain.events import DomainEvent, EventBus
from checkout_desktop.domain.money_ops import Figures, MoneyOpState
from checkout_desktop.domain.qr import with_expiry
from checkout_desktop.domain.reasons import Reason, ReasonCode
from checkout_desktop.domain.records import (
    TIMELINE_SOURCES,
    AttemptRecord,
    MergeResult,
    MoneyOpRecord,
)
from checkout_desktop.domain.shown_status import NEVER_CHARGED_ATTEMPTS, shown_status
from checkout_desktop.domain.state import AttemptState, ChargeState, Outcome
from checkout_desktop.domain.timestamps import utc_now
from checkout_desktop.domain.wire import ChargeUpdate, ThreeDsUpdate
from checkout_desktop.store.errors import ChargeNotKnown, RepositoryError
from checkout_desktop.store.ports import ChargeStore, Store

if TYPE_CHECKING:
    from checkout_desktop.gateway.client import ServiceReply

logger = logging.getLogger(__name__)

WEBHOOK = "webhook"
"""The timeline source of a notification delivered to the inbox."""
_INBOX_OUTCOMES = {
    Outcome.APPLIED: ReasonCode.INBOX_APPLIED,
    Outcome.DUPLICATE: ReasonCode.INBOX_DUPLICATE,
    Outcome.IGNORED: ReasonCode.INBOX_IGNORED,
}


class Ledger:
    """Charges, attempts and money operations as inputs move them, on one store."""

    def __init__(
        self,
        store: Store | None = None,
        *,
        policy: CheckPolicy | None = None,
        clock: Callable[[], datetime] = utc_now,
        events: EventBus | None = None,
    ) -> None:
        """`store` is where `apply`, `settle_attempt` and `settle_op` open their units of
        work; without it the ledger works only inside a caller's (the inbox's)."""
        self._store = store
        self.policy = policy or CheckPolicy()
        self._clock = clock
        self.events = events

    @property
    def store(self) -> Store:
        if self._store is None:
            raise RuntimeError("this ledger works only inside its caller's unit of work")
        return self._store

    # -- inside the caller's transaction -------------------------------------------------------

    async def apply_update(
        self,
        store: ChargeStore,
        update: ChargeUpdate | ThreeDsUpdate,
        *,
        source: str,
        source_ref: str | None,
        body: Mapping[str, Any] | None = None,
        context: Reason | None = None,
    ) -> MergeResult:
        """Merge one input into its charge, write the timeline row and return what changed.

        Runs inside the caller's unit of work, on its `store`. A charge update for a charge the
        store has never seen creates it (a notification may be the first news of a charge); a
        3DS result that names only an unknown service charge id raises ChargeNotKnown.
        `context` (why the input was asked for, e.g. by the reconciler) prefixes the timeline's
        reason. The result's `events` are to be published once the unit of work has committed.
        """
        if source not in TIMELINE_SOURCES:
            raise RepositoryError(
                f"unknown timeline source {source!r}; use one of {sorted(TIMELINE_SOURCES)}"
            )
        record = await store.find_charge(
            merchant_charge_id=update.merchant_charge_id, charge_id=update.charge_id
        )
        if record is not None:
            mcid = record.merchant_charge_id
        elif update.merchant_charge_id is not None:
            mcid = update.merchant_charge_id
        else:
            raise ChargeNotKnown(
                f"a 3DS result names only the service's charge id {update.charge_id!r}, which "
                "no stored charge has; it cannot be filed under a charge"
            )
        previous = None if record is None else record.state
        result = sm.merge(previous, update)
        attempt = await store.attempt(mcid)
        state = with_expiry(
            result.state, None if attempt is None or attempt.qr is None else attempt.qr.expiration_s
        )
        sale_id = record.sale_id if record is not None else (attempt.sale_id if attempt else None)

        status_moved = previous is None or (
            previous.status != state.status or previous.refunded_amount != state.refunded_amount
        )
        checks = 0 if status_moved or record is None else record.checks
        if source == "reconciliation" and not status_moved:
            checks += 1
        next_check, check_reason = self.policy.schedule(
            state, source=source, checks=checks, now=self._clock()
        )
        if state.status is None and attempt is not None and attempt.state in NEVER_CHARGED_ATTEMPTS:
            # Only a 3DS result names this charge, and its attempt is settled as never charged:
            # the service will never hold it, so there is nothing to ask about.
            next_check, check_reason = None, None
        await store.save_charge(
            mcid,
            state,
            sale_id=sale_id,
            source=source,
            new=record is None,
            changed=result.changed,
            checks=checks,
            next_check_at=next_check,
            check_reason=check_reason,
        )
        timeline_id = await store.add_timeline(
            mcid,
            source=source,
            source_ref=source_ref,
            outcome=result.entry.outcome.value,
            reason=(
                result.entry.reason
                if context is None
                else Reason.of(ReasonCode.WITH_CONTEXT, context=context, why=result.entry.reason)
            ),
            input_status=result.entry.input_status,
            occurred_at=result.entry.occurred_at,
            previous_status=result.entry.previous_status,
            new_status=result.entry.new_status,
            changes=result.entry.changes,
            body=body,
        )
        events: list[DomainEvent] = []
        attempt_resolved = False
        if attempt is not None and attempt.unresolved and isinstance(update, ChargeUpdate):
            # Any news of the charge from the service proves it exists: the attempt is settled
            # without ever sending it again.
            await store.move_attempt(
                attempt,
                AttemptState.CREATED,
                source=source,
                reason=Reason.of(ReasonCode.ATTEMPT_RESOLVED, status=str(state.status)),
            )
            attempt_resolved = True
            if sale_id is not None:
                events.append(
                    AttemptChanged(
                        merchant_charge_id=mcid,
                        sale_id=sale_id,
                        state=AttemptState.CREATED,
                        reason=Reason.of(
                            ReasonCode.NOTIFICATION_HAS_CHARGE
                            if source == WEBHOOK
                            else ReasonCode.SERVICE_HAS_CHARGE,
                            status=str(state.status),
                        ),
                    )
                )
        confirmed: tuple[MoneyOpRecord, ...] = ()
        # A money operation names a stored charge (a foreign key): a new one has none.
        if isinstance(update, ChargeUpdate) and record is not None:
            confirmed = await self._confirm_by_figures(
                store, mcid, state, source=source, source_ref=source_ref
            )
        merged = MergeResult(
            merchant_charge_id=mcid,
            outcome=result.entry.outcome,
            reason=result.entry.reason,
            previous=previous,
            current=state,
            changes=result.entry.changes,
            timeline_id=timeline_id,
            sale_id=sale_id,
            attempt_resolved=attempt_resolved,
            confirmed_operations=tuple(op.id for op in confirmed),
            # The charge's environment is its attempt's (`save_charge`): none, never made here.
            made_here=attempt is not None or (record is not None and record.profile is not None),
        )
        if merged.changed:
            events.append(charge_changed(merged, source=source))
        events.extend(operation_changed(op) for op in confirmed)
        return merged.with_events(tuple(events))

    async def _confirm_by_figures(
        self,
        store: ChargeStore,
        mcid: str,
        state: ChargeState,
        *,
        source: str,
        source_ref: str | None,
    ) -> tuple[MoneyOpRecord, ...]:
        """Settle the charge's open money operation when the service's figures show it done."""
        op = await store.open_money_operation(mcid)
        if op is None:
            return ()
        figures = Figures.of(state)
        if not op.done_by(figures):
            return ()
        moved = await store.move_money_operation(
            op,
            MoneyOpState.CONFIRMED,
            source=source,
            reason=op.reason("confirmed", figures.reason()),
            source_ref=source_ref,
        )
        return (moved,)

    async def mark_checked(
        self, store: ChargeStore, merchant_charge_id: str, *, found: bool, reason: Reason
    ) -> None:
        """Record a reconciler query that did not change the charge, and schedule the next one
        (inside the caller's unit of work, on its `store`)."""
        record = await store.charge(merchant_charge_id)
        if record is None:
            raise ChargeNotKnown(f"no charge with merchantChargeId {merchant_charge_id}")
        checks = record.checks + 1
        next_check, why = self.policy.schedule(
            record.state, source="reconciliation", checks=checks, now=self._clock()
        )
        await store.set_checked(
            merchant_charge_id, checks=checks, next_check_at=next_check, check_reason=why
        )
        await store.add_timeline(
            merchant_charge_id,
            source="reconciliation",
            outcome=Outcome.DUPLICATE.value if found else Outcome.IGNORED.value,
            reason=reason,
            input_status=None if record.status is None else str(record.status),
        )

    # -- one durable step each, events published after the commit -------------------------------

    async def apply(
        self,
        reply: ServiceReply,
        *,
        source: str,
        context: Reason | None,
        source_ref: str | None = None,
        relaxed: bool = False,
    ) -> MergeResult:
        """Merge a reply of the service in its own transaction, then publish what it did.

        `relaxed` commits without waiting for the disk (a unit of work with durable=False):
        for a reply to a request whose attempt was committed durably before sending, so a lost
        commit is settled by asking the service.
        """
        async with self.store.unit_of_work(durable=not relaxed) as uow:
            result = await self.apply_update(
                uow.charges,
                reply.update(source=source),
                source=source,
                source_ref=source_ref,
                body=reply.body,
                context=context,
            )
        self.publish_all(result.events)
        return result

    async def settle_attempt(
        self,
        attempt: AttemptRecord,
        state: AttemptState,
        reason: Reason,
        *,
        source: str,
        detail: str | None = None,
        answered: bool = False,
        query: bool = False,
        opened_charge: str | None = None,
    ) -> AttemptRecord:
        """Move an attempt on in its own transaction; publish AttemptChanged if it moved.

        `opened_charge` is the service's id of a charge the attempt opened without moving money
        (a 3DS setup's): a sale settled uncharged keeps it as its row in the history, as one the
        bank refused does, unless the sale has a row already."""
        mcid = attempt.merchant_charge_id
        kept = False
        async with self.store.unit_of_work() as uow:
            updated = await uow.charges.set_attempt_state(
                mcid,
                state,
                source=source,
                reason=reason,
                detail=detail,
                count_query=query,
                answered=answered,
            )
            if opened_charge is not None:
                kept = await self._keep_opened(uow.charges, updated, opened_charge, source)
        if kept:
            self.publish(
                ChargeChanged(
                    merchant_charge_id=mcid,
                    sale_id=attempt.sale_id,
                    status=None,
                    previous_status=None,
                    source=source,
                    reason=reason,
                )
            )
        if updated.state != attempt.state:
            self.publish(
                AttemptChanged(
                    merchant_charge_id=attempt.merchant_charge_id,
                    sale_id=attempt.sale_id,
                    state=updated.state,
                    reason=reason,
                )
            )
        return updated

    async def _keep_opened(
        self, store: ChargeStore, attempt: AttemptRecord, charge_id: str, source: str
    ) -> bool:
        """Store the charge an attempt settled uncharged had opened, if the sale has no row."""
        mcid = attempt.merchant_charge_id
        if attempt.state not in NEVER_CHARGED_ATTEMPTS:
            return False
        if await store.find_charge(merchant_charge_id=mcid, charge_id=charge_id) is not None:
            return False
        # Never charged: nothing at the service to ask about, so no check is scheduled.
        await store.save_charge(
            mcid,
            ChargeState(merchant_charge_id=mcid, charge_id=charge_id),
            sale_id=attempt.sale_id,
            source=source,
            new=True,
            changed=True,
            checks=0,
            next_check_at=None,
            check_reason=None,
        )
        return True

    async def settle_op(
        self,
        op: MoneyOpRecord,
        state: MoneyOpState,
        reason: Reason,
        *,
        source: str,
        answered: bool = False,
        query: bool = False,
    ) -> MoneyOpRecord:
        """Move a money operation on in its own transaction; publish it if it moved."""
        async with self.store.unit_of_work() as uow:
            updated = await uow.charges.move_money_operation(
                op, state, source=source, reason=reason, answered=answered, count_query=query
            )
        if updated.state != op.state:
            self.publish(operation_changed(updated))
        return updated

    def publish(self, event: DomainEvent) -> None:
        if self.events is not None:
            self.events.publish(event)

    def publish_all(self, events: tuple[DomainEvent, ...]) -> None:
        for event in events:
            self.publish(event)


async def inbox_applier(
    charges: ChargeStore, update: ChargeUpdate | ThreeDsUpdate, source_ref: str
) -> Applied:
    """The inbox's ChargeApplier: merge one notification into its charge and timeline.

    Runs in the inbox's unit of work, so the event row, the charge and its timeline commit
    together; the returned events are published only after that commit.
    """
    result = await _INBOX_LEDGER.apply_update(
        charges, update, source=WEBHOOK, source_ref=source_ref
    )
    outcome = _INBOX_OUTCOMES[result.outcome]
    if not result.made_here:
        # Worded like one of the shop's own sales, it would read as news of a sale the owner
        # then cannot find: the reason says whose it is not, and where it is listed.
        if result.reason.code == ReasonCode.MERGE_FIRST_STATUS:
            said = Reason.of(ReasonCode.INBOX_UNMADE_FIRST, status=str(result.current.status))
        else:
            said = Reason.of(ReasonCode.INBOX_UNMADE, why=Reason.of(outcome, why=result.reason))
        return Applied(outcome=said, events=result.events)
    before = None if result.previous is None or not result.previous.is_qr else result.previous
    shown = None if before is None else shown_status(before)
    if shown is None:
        return Applied(outcome=Reason.of(outcome, why=result.reason), events=result.events)
    # A QR's notification keeps what the History showed before it (the merge's reason names
    # only charge statuses, which stay PRE_AUTHORIZED through an expiry the service reports so):
    # the event list tells a payment that landed after the QR had ended from an ordinary one.
    return Applied(
        outcome=Reason.of(outcome, why=result.reason, shown_before=str(shown)),
        events=result.events,
    )


_INBOX_LEDGER = Ledger()
"""The inbox's merges use the default check policy (the reconciler reschedules by its own)."""


__all__ = ["WEBHOOK", "Ledger", "inbox_applier"]
