"""Settling by asking: unresolved attempts and money operations, due checks, the daily sweep.

A request whose reply did not arrive leaves its attempt (or money operation) UNKNOWN; it is
resolved only by querying the charge by its merchantChargeId, never by sending it again. "Not
found" settles an attempt only when the charge can no longer appear: the service answered the
request (its handling ended), or the grace period after the attempt has passed. The reconciler
asks about unresolved attempts at start-up, and on a schedule (`CheckPolicy`) about charges
whose status is not final or whose expected notification has not arrived; every answer and
every failure to get one is written to the charge's timeline.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from checkout_desktop.charges.qr import qr_schedule
from checkout_desktop.domain.charge_events import (
    CHARGE,
    Interrupted,
    ReconciliationFinished,
    operation_changed,
)
from checkout_desktop.domain.money_ops import UNRESOLVED_MONEY_STATES, Figures, MoneyOpState
from checkout_desktop.domain.qr import qr_settled
from checkout_desktop.domain.reasons import Reason, ReasonCode, Trigger, trigger_reason
from checkout_desktop.domain.state import UNRESOLVED_ATTEMPT_STATES, AttemptState, ChargeState
from checkout_desktop.domain.timestamps import utc_now
from checkout_desktop.gateway.errors import ApiError, ChargeNotFound, GatewayError

if TYPE_CHECKING:
    from checkout_desktop.charges.ledger import Ledger
    from checkout_desktop.domain.enums import ChargeStatus
    from checkout_desktop.domain.records import (
        AttemptRecord,
        ChargeRecord,
        MoneyOpRecord,
        SweepRecord,
    )
    from checkout_desktop.gateway.client import ChargeClient

logger = logging.getLogger(__name__)

SWEEP = Reason.of(ReasonCode.CONTEXT_SWEEP)
"""Why the service is asked during the daily sweep (timeline trigger)."""


@dataclass(frozen=True)
class CheckPolicy:
    """When the reconciler looks at a charge again (from the settings' reconcile interval)."""

    interval: timedelta = timedelta(seconds=60)
    max_interval: timedelta = timedelta(hours=1)
    notification_grace: timedelta = timedelta(minutes=5)

    def backoff(self, checks: int) -> timedelta:
        factor: int = 1 << min(max(checks, 0), 10)
        return min(self.interval * factor, self.max_interval)

    def schedule(
        self, state: ChargeState, *, source: str, checks: int, now: datetime
    ) -> tuple[datetime | None, Reason | None]:
        """The next time to query the charge and why; None when nothing is expected."""
        if state.status is None:
            return now + self.interval, Reason.of(ReasonCode.CHECK_NO_STATUS)
        status = str(state.status)
        qr_check = qr_schedule(state, now=now, backoff=self.backoff(checks))
        if qr_check is not None:
            return qr_check
        if not state.is_final and not qr_settled(state):
            return now + self.backoff(checks), Reason.of(ReasonCode.CHECK_NOT_FINAL, status=status)
        if state.awaiting_notification and source != "reconciliation":
            return (
                now + self.notification_grace,
                Reason.of(ReasonCode.CHECK_EXPECT_NOTIFICATION, status=status),
            )
        return None, None


@dataclass(frozen=True)
class ReconcileReport:
    trigger: Trigger
    attempts_checked: int
    attempts_resolved: int
    charges_checked: int
    charges_changed: int
    still_unknown: tuple[str, ...]
    errors: tuple[str, ...]
    operations_checked: int = 0
    operations_resolved: int = 0
    swept: int = 0
    interrupted: tuple[Interrupted, ...] = ()

    def event(self) -> ReconciliationFinished:
        return ReconciliationFinished(
            trigger=self.trigger,
            attempts_checked=self.attempts_checked,
            attempts_resolved=self.attempts_resolved,
            charges_checked=self.charges_checked,
            charges_changed=self.charges_changed,
            still_unknown=self.still_unknown,
            errors=self.errors,
            operations_checked=self.operations_checked,
            operations_resolved=self.operations_resolved,
            swept=self.swept,
            interrupted=self.interrupted,
        )


class Reconciler:
    """Asks the service about what the terminal does not know yet, once or on a schedule."""

    def __init__(
        self,
        *,
        ledger: Ledger,
        client: ChargeClient,
        unknown_grace_s: float = 600.0,
        unknown_retry_max_s: float = 30.0,
        refused_retry_first_s: float = 30.0,
        refused_retry_max_s: float = 900.0,
        batch: int = 50,
        clock: Callable[[], datetime] = utc_now,
        sweep_every_s: float = 86400.0,
        sweep_batch: int = 10,
        sweep_spacing_s: float = 60.0,
        owner: str = "terminal",
        counter: str | None = None,
        claim_lease_s: float = 120.0,
        profile: str | None = None,
    ) -> None:
        self.ledger = ledger
        self.profile = profile
        """Only this profile's attempts, operations and charges are asked about: the store may
        hold another environment's (a sandbox's test sales beside production's), and this
        service is never asked about them. None asks about all (tools over one store)."""
        self.store = ledger.store
        self.client = client
        self.owner = owner
        """Who claims due checks (the terminal's name), so counters sharing a store split them."""
        self.counter = counter
        """This counter's id: the prefix of the sale ids (and merchantChargeIds) it makes."""
        # Long enough for one pass's queries; a counter that dies holding a claim only delays
        # those checks by this much.
        self.claim_lease = timedelta(seconds=claim_lease_s)
        self.unknown_grace = timedelta(seconds=unknown_grace_s)
        self.unknown_retry_max = timedelta(seconds=unknown_retry_max_s)
        # A query the service refuses (a 4xx that is not "not found") is asked again less and
        # less often, doubling up to a quarter of an hour, instead of every few seconds forever.
        self.refused_retry_first = timedelta(seconds=refused_retry_first_s)
        self.refused_retry_max = timedelta(seconds=refused_retry_max_s)
        self.refused: dict[str, int] = {}
        """Attempts whose last queries the service refused, and how many times in a row."""
        self.batch = batch
        self._clock = clock
        self.started_at: datetime = clock()
        """When this run began: what is open from before was left by a terminal that stopped
        (this one, killed or cut off) before its reply was recorded."""
        self.in_flight: set[str] = set()
        """Charges whose request is waiting for its own reply (not asked about meanwhile)."""
        self.money_in_flight: set[str] = set()
        """Charges with a money operation waiting for its own reply."""
        # The daily sweep asks about at most `sweep_batch` charges per step, one step every
        # `sweep_spacing_s` at most: a day of 500 sales takes under an hour of light traffic.
        self.sweep_every = timedelta(seconds=sweep_every_s)
        self.sweep_batch = sweep_batch
        self.sweep_spacing = timedelta(seconds=sweep_spacing_s)
        # Not at start-up: the start-up pass is for what is unresolved.
        self._last_sweep_step: datetime | None = self.started_at
        self._lock = asyncio.Lock()
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    # -- one pass --------------------------------------------------------------------------------

    async def reconcile(
        self, *, trigger: Trigger = "on demand", due_only: bool = False
    ) -> ReconcileReport:
        """One pass: unresolved attempts, then charges due for a check. One pass at a time."""
        async with self._lock:
            report = await self._reconcile(trigger, due_only)
        self.ledger.publish(report.event())
        return report

    async def _reconcile(self, trigger: Trigger, due_only: bool) -> ReconcileReport:
        now = self._clock()
        attempts_checked = attempts_resolved = charges_checked = charges_changed = 0
        still_unknown: list[str] = []
        errors: list[str] = []
        seen: set[str] = set()
        interrupted: list[Interrupted] = []
        for attempt in await self.store.charges.unresolved_attempts(
            limit=self.batch, profile=self.profile
        ):
            mcid = attempt.merchant_charge_id
            seen.add(mcid)
            if mcid in self.in_flight:
                continue  # its own request is still waiting for the reply
            if not self._mine(attempt, now):
                continue  # another counter's attempt: that counter asks about it
            if due_only and not self._attempt_due(attempt, now):
                still_unknown.append(mcid)
                continue
            attempts_checked += 1
            state, status, error = await self.resolve_attempt(attempt, trigger=trigger)
            if trigger == "start-up" and self._left_here(attempt):
                interrupted.append(
                    Interrupted(
                        merchant_charge_id=mcid,
                        kind=CHARGE,
                        amount=attempt.amount,
                        state=str(state),
                        status=None if status is None else str(status),
                    )
                )
            if state in UNRESOLVED_ATTEMPT_STATES:
                still_unknown.append(mcid)
            else:
                attempts_resolved += 1
            if error:
                errors.append(f"{mcid}: {error}")
        ops_checked = ops_resolved = 0
        for op in await self.store.charges.unresolved_money_operations(
            limit=self.batch, profile=self.profile
        ):
            mcid = op.merchant_charge_id
            if mcid in self.money_in_flight:
                continue  # its own request is still waiting for the reply
            if not self._op_mine(op, now):
                continue  # another counter's operation: that counter asks about it
            seen.add(mcid)
            if due_only and not self._op_due(op, now):
                still_unknown.append(mcid)
                continue
            ops_checked += 1
            op_state = await self.resolve_money_op(op, trigger=trigger)
            if trigger == "start-up" and self._op_left_here(op):
                # Told to the clerk of the counter that sent it (a refund repeated by a clerk
                # who was not told could move money twice); one recorded before operations kept
                # their counter is told by every counter, as before.
                interrupted.append(
                    Interrupted(
                        merchant_charge_id=mcid,
                        kind=str(op.kind),
                        amount=op.amount,
                        state=str(op_state),
                        operation_id=op.id,
                    )
                )
            if op_state in UNRESOLVED_MONEY_STATES:
                still_unknown.append(mcid)
            else:
                ops_resolved += 1
        async with self.store.unit_of_work() as uow:
            # Claimed, not just read: where counters share a store, each due charge is asked
            # about by one of them.
            due = await uow.charges.claim_due_checks(
                self.batch, self.owner, now=now, lease=self.claim_lease, profile=self.profile
            )
        for record in due:
            mcid = record.merchant_charge_id
            if mcid in seen or mcid in self.in_flight:
                continue
            charges_checked += 1
            changed, error = await self._check_charge(record, trigger=trigger)
            charges_changed += int(changed)
            if error:
                errors.append(f"{mcid}: {error}")
        swept = 0
        if self._sweep_step_due(now):
            swept, sweep_errors = await self._sweep_step(now, skip=seen)
            errors.extend(sweep_errors)
        report = ReconcileReport(
            trigger=trigger,
            attempts_checked=attempts_checked,
            attempts_resolved=attempts_resolved,
            charges_checked=charges_checked,
            charges_changed=charges_changed,
            still_unknown=tuple(still_unknown),
            errors=tuple(errors),
            operations_checked=ops_checked,
            operations_resolved=ops_resolved,
            swept=swept,
            interrupted=tuple(interrupted),
        )
        if attempts_checked or charges_checked or ops_checked or swept:
            logger.info(
                "reconciliation (%s): %d attempt(s) asked, %d resolved, %d charge(s) checked, "
                "%d changed, %d error(s)",
                trigger,
                attempts_checked,
                attempts_resolved,
                charges_checked,
                charges_changed,
                len(errors),
            )
        return report

    # -- the daily sweep ------------------------------------------------------------------------

    def _sweep_step_due(self, now: datetime) -> bool:
        last = self._last_sweep_step
        return last is None or now - last >= self.sweep_spacing

    async def sweep_now(self) -> SweepRecord:
        """Run the current sweep (starting one if it is due) to its end, or to its first
        failed query; for tests and tools."""
        while True:
            _, errors = await self._sweep_step(self._clock(), skip=set())
            sweep = await self.store.charges.last_sweep()
            assert sweep is not None
            if sweep.finished_at is not None or errors:
                return sweep

    async def _sweep_step(self, now: datetime, *, skip: set[str]) -> tuple[int, list[str]]:
        """Ask about the next few charges of the day's sweep: a refund or chargeback done
        outside the terminal (the merchant panel) reaches the history even after a charge's
        last notification. Returns how many charges were asked about and any errors."""
        self._last_sweep_step = now
        sweep = await self.store.charges.last_sweep()
        if sweep is None or sweep.finished_at is not None:
            if sweep is not None and now - sweep.started_at < self.sweep_every:
                return 0, []
            start = now - self.sweep_every if sweep is None else sweep.window_to
            async with self.store.unit_of_work() as uow:
                sweep = await uow.charges.start_sweep(window_from=start, window_to=now)
        batch = await self.store.charges.sweep_batch(sweep, self.sweep_batch, profile=self.profile)
        asked = changed = 0
        after = sweep.after_id
        errors: list[str] = []
        for record in batch:
            mcid = record.merchant_charge_id
            if mcid not in skip and mcid not in self.money_in_flight:
                try:
                    reply = await self.client.query(mcid)
                except ChargeNotFound:
                    pass  # an attempt's record the service never held: nothing to sweep
                except GatewayError as exc:
                    # Asked again at the next step; the sweep does not skip a charge.
                    errors.append(f"{mcid}: {exc}")
                    break
                else:
                    result = await self.ledger.apply(reply, source="reconciliation", context=SWEEP)
                    asked += 1
                    changed += int(result.changed)
            after = record.id
        finished = len(batch) < self.sweep_batch and not errors
        async with self.store.unit_of_work() as uow:
            await uow.charges.advance_sweep(
                sweep, after_id=after, checked=asked, changed=changed, finished=finished
            )
        return asked, errors

    # -- attempts, operations and charges -------------------------------------------------------

    def _op_due(self, op: MoneyOpRecord, now: datetime) -> bool:
        wait = min(timedelta(seconds=2 ** min(op.queries, 10)), self.unknown_retry_max)
        return now >= op.updated_at + wait

    def _mine(self, attempt: AttemptRecord, now: datetime) -> bool:
        """Whether this counter asks about the attempt: its own (by the sale id's counter
        prefix), or another counter's left unresolved past the grace period (that counter may
        be gone). Without a counter id every attempt is this terminal's."""
        if self.counter is None:
            return True
        if attempt.sale_id.startswith(f"{self.counter}-") or "-" not in attempt.sale_id:
            return True  # its own, or made before sale ids carried a counter
        return now - attempt.created_at >= self.unknown_grace

    def _left_here(self, attempt: AttemptRecord) -> bool:
        """Whether an attempt is one this counter made before this run (left open when it
        stopped), not another counter's it asks about once that one's grace has passed."""
        if attempt.created_at >= self.started_at:
            return False
        if self.counter is None or "-" not in attempt.sale_id:
            return True
        return attempt.sale_id.startswith(f"{self.counter}-")

    def _op_from_here(self, op: MoneyOpRecord) -> bool:
        """Whether a money operation is this counter's: recorded here, recorded before
        operations kept their counter, or in a store no other counter shares."""
        return self.counter is None or op.counter is None or op.counter == self.counter

    def _op_mine(self, op: MoneyOpRecord, now: datetime) -> bool:
        """Whether this counter asks about a money operation: its own, or another counter's
        left open past the grace period (that counter may be gone)."""
        return self._op_from_here(op) or now - op.created_at >= self.unknown_grace

    def _op_left_here(self, op: MoneyOpRecord) -> bool:
        """Whether a money operation is one this counter recorded before this run (left open
        when it stopped), not another counter's it settles once that one's grace has passed."""
        return op.created_at < self.started_at and self._op_from_here(op)

    def _attempt_due(self, attempt: AttemptRecord, now: datetime) -> bool:
        refused = self.refused.get(attempt.merchant_charge_id)
        if refused:
            return now >= attempt.updated_at + self.refused_wait(refused)
        # Unknown attempts are asked about quickly at first, then less often (1, 2, 4 … s).
        wait = min(timedelta(seconds=2 ** min(attempt.queries, 10)), self.unknown_retry_max)
        return now >= attempt.updated_at + wait

    def refused_wait(self, refusals: int) -> timedelta:
        """How long after its `refusals`-th refused query an attempt is asked about again."""
        doubled: timedelta = self.refused_retry_first * int(2 ** min(max(refusals - 1, 0), 20))
        return min(doubled, self.refused_retry_max)

    def _query_failed(self, mcid: str, exc: GatewayError, trigger: Trigger) -> Reason:
        """Why a query of an attempt failed, counting the refusals the reconciler backs off on."""
        refused = isinstance(exc, ApiError) and exc.status is not None and 400 <= exc.status < 500
        if not refused:
            self.refused.pop(mcid, None)
            return Reason.of(
                ReasonCode.RECONCILE_CANNOT_ASK, trigger=trigger_reason(trigger), error=exc.reason
            )
        count = self.refused.get(mcid, 0) + 1
        self.refused[mcid] = count
        wait = self.refused_wait(count)
        logger.info(
            "charge %s: the service refused the query (HTTP %s); asking again in %d s",
            mcid,
            exc.status,
            wait.total_seconds(),
        )
        return Reason.of(
            ReasonCode.RECONCILE_BACKING_OFF,
            trigger=trigger_reason(trigger),
            error=exc.reason,
            seconds=int(wait.total_seconds()),
        )

    async def resolve_attempt(
        self, attempt: AttemptRecord, *, trigger: Trigger
    ) -> tuple[AttemptState, ChargeStatus | None, Reason | None]:
        """Query an attempt's charge; returns its attempt state, charge status and any error."""
        mcid = attempt.merchant_charge_id
        try:
            reply = await self.client.query(mcid)
        except ChargeNotFound:
            self.refused.pop(mcid, None)
            return await self._not_found(attempt, trigger), None, None
        except GatewayError as exc:
            reason = self._query_failed(mcid, exc, trigger)
            await self.ledger.settle_attempt(
                attempt, AttemptState.UNKNOWN, reason, source="reconciliation", query=True
            )
            return AttemptState.UNKNOWN, None, exc.reason
        self.refused.pop(mcid, None)
        result = await self.ledger.apply(
            reply,
            source="reconciliation",
            context=Reason.of(ReasonCode.ASKED_SERVICE, trigger=trigger_reason(trigger)),
        )
        return AttemptState.CREATED, result.current.status, None

    async def _not_found(self, attempt: AttemptRecord, trigger: Trigger) -> AttemptState:
        age = self._clock() - attempt.created_at
        seconds = f"{age.total_seconds():.0f}"
        why = trigger_reason(trigger)
        if attempt.answered:
            state = AttemptState.NOT_FOUND
            reason = Reason.of(ReasonCode.RECONCILE_ANSWERED_NONE, trigger=why)
        elif age >= self.unknown_grace:
            state = AttemptState.NOT_FOUND
            reason = Reason.of(ReasonCode.RECONCILE_NONE_PAST_GRACE, trigger=why, seconds=seconds)
        else:
            state = AttemptState.UNKNOWN
            reason = Reason.of(ReasonCode.RECONCILE_NONE_YET, trigger=why, seconds=seconds)
        await self.ledger.settle_attempt(
            attempt, state, reason, source="reconciliation", query=True
        )
        return state

    async def resolve_money_op(self, op: MoneyOpRecord, *, trigger: Trigger) -> MoneyOpState:
        """Query the charge of an unresolved operation and settle it by the service's figures."""
        mcid = op.merchant_charge_id
        try:
            reply = await self.client.query(mcid)
        except GatewayError as exc:
            await self.ledger.settle_op(
                op,
                MoneyOpState.UNKNOWN,
                Reason.of(
                    ReasonCode.RECONCILE_CANNOT_ASK,
                    trigger=trigger_reason(trigger),
                    error=exc.reason,
                ),
                source="reconciliation",
                query=True,
            )
            return MoneyOpState.UNKNOWN
        async with self.store.unit_of_work() as uow:
            store = uow.charges
            result = await self.ledger.apply_update(
                store,
                reply.update(source="reconciliation"),
                source="reconciliation",
                source_ref=op.ref,
                body=reply.body,
                context=Reason.of(ReasonCode.ASKED_SERVICE, trigger=trigger_reason(trigger)),
            )
            figures = Figures.of(result.current)
            current = await store.money_operation(op.id)
            assert current is not None
            if current.unresolved:
                age = self._clock() - current.created_at
                if current.answered or age >= self.unknown_grace:
                    current = await store.move_money_operation(
                        current,
                        MoneyOpState.NOT_APPLIED,
                        source="reconciliation",
                        reason=current.reason("not_applied", figures.reason()),
                        count_query=True,
                    )
                else:
                    current = await store.move_money_operation(
                        current,
                        MoneyOpState.UNKNOWN,
                        source="reconciliation",
                        reason=current.reason("waiting", figures.reason()),
                        count_query=True,
                    )
        self.ledger.publish_all(result.events)
        self.ledger.publish(operation_changed(current))
        return current.state

    async def _check_charge(
        self, record: ChargeRecord, *, trigger: Trigger
    ) -> tuple[bool, Reason | None]:
        mcid = record.merchant_charge_id
        why = record.check_reason_data or Reason.of(ReasonCode.CHECK_SCHEDULED)
        when = trigger_reason(trigger)
        try:
            reply = await self.client.query(mcid)
        except ChargeNotFound as exc:
            async with self.store.unit_of_work() as uow:
                await self.ledger.mark_checked(
                    uow.charges,
                    mcid,
                    found=False,
                    reason=Reason.of(
                        ReasonCode.CHECK_ANSWERED, trigger=when, why=why, error=exc.reason
                    ),
                )
            return False, exc.reason
        except GatewayError as exc:
            async with self.store.unit_of_work() as uow:
                await self.ledger.mark_checked(
                    uow.charges,
                    mcid,
                    found=False,
                    reason=Reason.of(
                        ReasonCode.CHECK_CANNOT_ASK, trigger=when, why=why, error=exc.reason
                    ),
                )
            return False, exc.reason
        result = await self.ledger.apply(
            reply,
            source="reconciliation",
            context=Reason.of(ReasonCode.TRIGGER_BECAUSE, trigger=when, why=why),
        )
        return result.changed, None

    # -- the scheduled reconciler --------------------------------------------------------------

    def start(self, interval_s: float, *, fast_interval_s: float = 2.0) -> None:
        """Run reconciliation now (start-up pass) and then every `interval_s` seconds.

        While an attempt is unresolved the pass runs every `fast_interval_s` instead, so a shop
        waiting on an unclear charge learns its outcome quickly.
        """
        if self._task is not None and not self._task.done():
            raise RuntimeError("the reconciler is already running")
        if interval_s <= 0 or fast_interval_s <= 0:
            raise ValueError("reconciliation intervals must be positive")
        self._task = asyncio.get_running_loop().create_task(
            self._run(interval_s, fast_interval_s), name="reconciler"
        )

    def wake(self) -> None:
        """Ask the running reconciler for a pass now (on demand)."""
        self._wake.set()

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is None:
            return
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    async def _run(self, interval_s: float, fast_interval_s: float) -> None:
        trigger: Trigger = "start-up"
        while True:
            try:
                await self.reconcile(trigger=trigger, due_only=trigger != "start-up")
            except asyncio.CancelledError:
                raise
            except Exception:
                logger.exception("a reconciliation pass failed; the next one runs as scheduled")
            trigger = "schedule"
            fast = bool(
                await self.store.charges.unresolved_attempts(limit=1, profile=self.profile)
            ) or bool(
                await self.store.charges.unresolved_money_operations(limit=1, profile=self.profile)
            )
            delay = min(interval_s, fast_interval_s) if fast else interval_s
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout=delay)
            if self._wake.is_set():
                self._wake.clear()
                trigger = "on demand"


__all__ = ["SWEEP", "CheckPolicy", "ReconcileReport", "Reconciler"]
