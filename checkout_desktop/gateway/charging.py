"""Charging that never double-charges: record first, send once, resolve by asking, reconcile.

The rules, each closing a way money goes wrong:
- An attempt (its merchantChargeId, amount, cards' brand and last four) is committed durably
  *before* the request is sent, so a crash can never forget a charge that reached the service.
- A request whose reply did not arrive (timeout, lost connection, crash, a 5xx) leaves the
  attempt UNKNOWN. It is resolved only by querying the charge by its merchantChargeId, never
  by sending it again; a new charge for the same sale is refused until it is resolved.
- "Not found" settles an attempt only when the charge can no longer appear: the service
  answered the request (its handling ended), or the grace period after the attempt has passed.
- A reconciler asks about unresolved attempts at start-up, and on a schedule about charges
  whose status is not final or whose expected notification has not arrived; every answer and
  every failure to get one is written to the charge's timeline.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from checkout_desktop.domain.enums import ChargeStatus
from checkout_desktop.domain.events import DomainEvent, EventBus
from checkout_desktop.domain.money_ops import (
    UNRESOLVED_MONEY_STATES,
    Figures,
    MoneyOpKind,
    MoneyOpState,
    money_operation,
)
from checkout_desktop.domain.reasons import Reason, ReasonCode, Trigger, trigger_reason
from checkout_desktop.domain.state import UNRESOLVED_ATTEMPT_STATES, AttemptState
from checkout_desktop.domain.timestamps import utc_now
from checkout_desktop.domain.wire import ChargeAuthorizationRequest
from checkout_desktop.gateway.client import ChargeClient, ServiceReply, check_merchant_charge_id
from checkout_desktop.gateway.errors import (
    ApiError,
    ChargeNotFound,
    GatewayError,
    ReplyUnreadable,
)
from checkout_desktop.gateway.events import (
    AttemptChanged,
    ChargeChanged,
    MoneyOperationChanged,
    ReconciliationFinished,
    charge_changed,
)
from checkout_desktop.store.charges import (
    AttemptRecord,
    CardSummary,
    ChargeNotKnown,
    ChargeRecord,
    ChargeRepository,
    CheckPolicy,
    MergeResult,
    MoneyOperationOpen,
    MoneyOpRecord,
    SweepRecord,
)
from checkout_desktop.store.db import transaction

logger = logging.getLogger(__name__)

# A sale whose charge holds (or may hold) the customer's money cannot be charged again.
_MONEY_HELD = frozenset(
    {
        ChargeStatus.PENDING,
        ChargeStatus.PRE_AUTHORIZED,
        ChargeStatus.AUTHORIZED,
        ChargeStatus.PAID,
        ChargeStatus.PARTIAL,
        ChargeStatus.CHARGEBACK,
    }
)
_NOTHING_HELD = frozenset(
    {ChargeStatus.DENIED, ChargeStatus.ERROR, ChargeStatus.CANCELED, ChargeStatus.REFUNDED}
)
_APPROVED = frozenset({ChargeStatus.PAID, ChargeStatus.PRE_AUTHORIZED, ChargeStatus.AUTHORIZED})
_UNCAPTURED = frozenset({ChargeStatus.PRE_AUTHORIZED, ChargeStatus.AUTHORIZED})
_CAPTURED = frozenset({ChargeStatus.PAID, ChargeStatus.PARTIAL})

# Why the service is asked around a money operation (timeline triggers).
BEFORE_SENDING = Reason.of(ReasonCode.CONTEXT_BEFORE_SENDING)
AFTER_REFUSAL = Reason.of(ReasonCode.CONTEXT_AFTER_REFUSAL)
SWEEP = Reason.of(ReasonCode.CONTEXT_SWEEP)


class MoneyOperationError(RuntimeError):
    """A refund, capture or cancel that did not go through, or not yet; says why and how far.

    `figures` are the service's (or, failing that, the store's) status, amount and refunded
    amount, so the clerk sees where the charge stands rather than a bare error.
    """

    def __init__(
        self,
        message: str,
        *,
        merchant_charge_id: str,
        kind: MoneyOpKind,
        amount: int | None,
        figures: Figures | None,
        error: GatewayError | None = None,
    ) -> None:
        super().__init__(message)
        self.merchant_charge_id = merchant_charge_id
        self.kind = kind
        self.amount = amount
        self.figures = figures
        self.error = error


class MoneyOperationBusy(MoneyOperationError):
    """An earlier operation of the charge is still being confirmed: refused, nothing sent."""

    def __init__(
        self,
        *,
        merchant_charge_id: str,
        kind: MoneyOpKind,
        amount: int | None,
        pending: MoneyOpRecord | None,
        figures: Figures | None,
    ) -> None:
        what = (
            "an operation" if pending is None else f"a {pending.kind} of {pending.amount} centavos"
        )
        super().__init__(
            f"charge {merchant_charge_id} has {what} whose outcome is still being confirmed with "
            f"the service; a {kind} now could move the money twice, so it is refused until the "
            "earlier one is settled",
            merchant_charge_id=merchant_charge_id,
            kind=kind,
            amount=amount,
            figures=figures,
        )
        self.pending = pending


class MoneyOperationRefused(MoneyOperationError):
    """The service refused it, or its figures rule it out: nothing was moved."""

    def __init__(
        self,
        *,
        merchant_charge_id: str,
        kind: MoneyOpKind,
        amount: int | None,
        figures: Figures | None,
        error: GatewayError | None = None,
        why: Reason | None = None,
    ) -> None:
        shown = "figures unknown" if figures is None else figures.describe()
        cause = why or (error.reason if error is not None else Reason.of(ReasonCode.MONEY_REFUSED))
        super().__init__(
            f"{kind} of charge {merchant_charge_id} not done: {cause}; the service shows {shown}",
            merchant_charge_id=merchant_charge_id,
            kind=kind,
            amount=amount,
            figures=figures,
            error=error,
        )
        self.why = cause
        """Why it was not done (rendered in the UI language)."""


class MoneyOperationUnknown(MoneyOperationError):
    """Sent without a usable reply: the terminal asks the service and never sends it again."""

    def __init__(
        self,
        *,
        merchant_charge_id: str,
        kind: MoneyOpKind,
        amount: int | None,
        figures: Figures | None,
        error: GatewayError,
    ) -> None:
        super().__init__(
            f"{kind} of charge {merchant_charge_id}: outcome unknown ({error}); the terminal asks "
            "the service and refuses another operation of this charge until it knows",
            merchant_charge_id=merchant_charge_id,
            kind=kind,
            amount=amount,
            figures=figures,
            error=error,
        )


@dataclass(frozen=True)
class MoneyView:
    """A charge as the refund and capture dialogs see it."""

    charge: ChargeRecord
    pending: MoneyOpRecord | None

    @classmethod
    def of(cls, charge: ChargeRecord, pending: MoneyOpRecord | None) -> MoneyView:
        return cls(charge, pending)

    @property
    def refundable(self) -> int:
        """What may still be refunded, after the pending operation (if any) is counted done."""
        charge = self.charge
        if charge.status not in _UNCAPTURED | _CAPTURED or charge.amount is None:
            return 0
        figures = Figures.of(charge.state)
        left = charge.amount - figures.refunded
        if self.pending is not None and self.pending.kind != MoneyOpKind.CAPTURE:
            left = 0 if self.pending.kind == MoneyOpKind.CANCEL else left - self.pending.amount
        return max(0, left)

    @property
    def capturable(self) -> bool:
        return self.pending is None and self.charge.status == ChargeStatus.PRE_AUTHORIZED

    @property
    def busy(self) -> bool:
        return self.pending is not None


def _plan(
    asked: MoneyOpKind, mcid: str, amount: int | None, figures: Figures
) -> tuple[MoneyOpKind, int]:
    """The operation to send given the service's figures, or MoneyOperationRefused."""

    def refuse(why: Reason) -> MoneyOperationRefused:
        return MoneyOperationRefused(
            merchant_charge_id=mcid, kind=asked, amount=amount, figures=figures, why=why
        )

    status, total = figures.status, figures.amount
    if total is None:
        raise refuse(Reason.of(ReasonCode.MONEY_NO_AMOUNT))
    if amount is not None and amount <= 0:
        raise refuse(Reason.of(ReasonCode.MONEY_AMOUNT_TOO_SMALL))
    shown = None if status is None else str(status)
    if asked == MoneyOpKind.CAPTURE:
        if status not in _UNCAPTURED:
            raise refuse(Reason.of(ReasonCode.MONEY_CAPTURE_NOT_PREAUTHORIZED, status=shown))
        value = total if amount is None else amount
        if value > total:
            raise refuse(Reason.of(ReasonCode.MONEY_OVER_AUTHORIZED, amount=total))
        return MoneyOpKind.CAPTURE, value
    if status in _UNCAPTURED:
        if amount is not None and amount != total:
            raise refuse(Reason.of(ReasonCode.MONEY_CANCEL_IN_FULL, amount=total))
        return MoneyOpKind.CANCEL, total
    if status == ChargeStatus.REFUNDED:
        raise refuse(Reason.of(ReasonCode.MONEY_ALREADY_REFUNDED))
    if status not in _CAPTURED:
        raise refuse(Reason.of(ReasonCode.MONEY_NOTHING_TO_REFUND, status=shown))
    left = total - figures.refunded
    value = left if amount is None else amount
    if left <= 0:
        raise refuse(Reason.of(ReasonCode.MONEY_ALREADY_REFUNDED))
    if value > left:
        raise refuse(Reason.of(ReasonCode.MONEY_OVER_REFUNDABLE, amount=left))
    return MoneyOpKind.REFUND, value


class SaleBusy(RuntimeError):
    """A second charge for a sale that has an unresolved attempt or is already paid."""

    def __init__(self, sale_id: str, reason: Reason, merchant_charge_id: str | None) -> None:
        super().__init__(reason.english())
        self.reason = reason
        self.sale_id = sale_id
        self.merchant_charge_id = merchant_charge_id


@dataclass(frozen=True)
class StartCheck:
    """Whether a new charge may start for a sale, and if not, why (and which charge blocks)."""

    allowed: bool
    reason: Reason | None = None
    blocking_charge: str | None = None

    def __bool__(self) -> bool:
        return self.allowed


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

    @property
    def approved(self) -> bool:
        return self.attempt == AttemptState.CREATED and self.status in _APPROVED

    @property
    def unknown(self) -> bool:
        return self.attempt in UNRESOLVED_ATTEMPT_STATES


@dataclass(frozen=True)
class EndReport:
    """What ending an unresolved attempt came to: its state and what the last query said."""

    state: AttemptState
    status: ChargeStatus | None
    last_error: Reason | None

    @property
    def ended(self) -> bool:
        return self.state == AttemptState.ENDED


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
        )


class ChargeService:
    """Charges, captures, refunds and reconciliation for one profile, on one store connection."""

    def __init__(
        self,
        *,
        conn: sqlite3.Connection,
        client: ChargeClient,
        profile: str,
        events: EventBus | None = None,
        policy: CheckPolicy | None = None,
        unknown_grace_s: float = 600.0,
        unknown_retry_max_s: float = 30.0,
        refused_retry_first_s: float = 30.0,
        refused_retry_max_s: float = 900.0,
        batch: int = 50,
        clock: Callable[[], datetime] = utc_now,
        sweep_every_s: float = 86400.0,
        sweep_batch: int = 10,
        sweep_spacing_s: float = 60.0,
    ) -> None:
        self.conn = conn
        self.client = client
        self.profile = profile
        self.events = events
        self.repo = ChargeRepository(conn, policy=policy, clock=clock)
        self.unknown_grace = timedelta(seconds=unknown_grace_s)
        self.unknown_retry_max = timedelta(seconds=unknown_retry_max_s)
        # A query the service refuses (a 4xx that is not "not found") is asked again less and
        # less often, doubling up to a quarter of an hour, instead of every few seconds forever.
        self.refused_retry_first = timedelta(seconds=refused_retry_first_s)
        self.refused_retry_max = timedelta(seconds=refused_retry_max_s)
        self._refused: dict[str, int] = {}
        self.batch = batch
        self._clock = clock
        self._in_flight: set[str] = set()
        self._money_in_flight: set[str] = set()
        # The daily sweep asks about at most `sweep_batch` charges per step, one step every
        # `sweep_spacing_s` at most: a day of 500 sales takes under an hour of light traffic.
        self.sweep_every = timedelta(seconds=sweep_every_s)
        self.sweep_batch = sweep_batch
        self.sweep_spacing = timedelta(seconds=sweep_spacing_s)
        # Not at start-up: the start-up pass is for what is unresolved.
        self._last_sweep_step: datetime | None = clock()
        self._reconcile_lock = asyncio.Lock()
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    # -- starting a charge ---------------------------------------------------------------------

    def can_start_charge(self, sale_id: str) -> StartCheck:
        """Refuses while the sale has an unresolved attempt or a charge that holds money."""
        pending = self.repo.unresolved_attempt_for_sale(sale_id)
        if pending is not None:
            return StartCheck(
                False,
                Reason.of(
                    ReasonCode.START_UNRESOLVED, sale=sale_id, charge=pending.merchant_charge_id
                ),
                pending.merchant_charge_id,
            )
        for charge in self.repo.charges_for_sale(sale_id):
            held = charge.status in _MONEY_HELD or (
                charge.status is not None and charge.status not in _NOTHING_HELD
            )
            if held:
                return StartCheck(
                    False,
                    Reason.of(
                        ReasonCode.START_MONEY_HELD,
                        sale=sale_id,
                        charge=charge.merchant_charge_id,
                        status=str(charge.status),
                    ),
                    charge.merchant_charge_id,
                )
        return StartCheck(True)

    async def charge(
        self,
        *,
        sale_id: str,
        request: ChargeAuthorizationRequest,
        cards: Sequence[CardSummary],
    ) -> ChargeOutcome:
        """Record the attempt, send it once, and report the outcome (which may be UNKNOWN)."""
        mcid = check_merchant_charge_id(request.merchantChargeId)
        if len(cards) != len(request.transactions):
            raise ValueError(
                f"charge {mcid} has {len(request.transactions)} transaction(s) but "
                f"{len(cards)} card summaries; give one brand/last-four summary per card"
            )
        with transaction(self.conn):
            check = self.can_start_charge(sale_id)
            if not check:
                raise SaleBusy(
                    sale_id,
                    check.reason or Reason.of(ReasonCode.START_REFUSED),
                    check.blocking_charge,
                )
            attempt = self.repo.record_attempt(
                merchant_charge_id=mcid,
                sale_id=sale_id,
                profile=self.profile,
                amount=request.total_amount,
                cards=cards,
                late_capture=request.lateCapture,
            )
        self._publish(
            AttemptChanged(
                merchant_charge_id=mcid,
                sale_id=sale_id,
                state=AttemptState.RECORDED,
                reason=Reason.of(ReasonCode.RECORDED_BEFORE_SENDING),
            )
        )
        self._in_flight.add(mcid)
        try:
            reply = await self.client.authorize(request, session_id=sale_id)
        except asyncio.CancelledError:
            self._in_flight.discard(mcid)
            self._settle(
                attempt,
                AttemptState.UNKNOWN,
                Reason.of(ReasonCode.STOPPED_WAITING),
                source="system",
            )
            raise
        except GatewayError as exc:
            self._in_flight.discard(mcid)
            self._note(mcid, exc.notes)
            return await self._after_failure(attempt, exc)
        self._in_flight.discard(mcid)
        self._note(mcid, reply.notes)
        # The attempt was committed durably before sending; if this commit is lost in a power
        # cut, the attempt is found unresolved at start-up and settled by asking the service.
        # So it may skip the fsync that would stall every other coroutine on the loop.
        result = self._apply(reply, source="reply", context=None, attempt_backed=True)
        status = result.current.status
        return ChargeOutcome(
            merchant_charge_id=mcid,
            sale_id=sale_id,
            attempt=AttemptState.CREATED,
            status=status,
            message=_status_message(status),
        )

    async def _after_failure(self, attempt: AttemptRecord, exc: GatewayError) -> ChargeOutcome:
        mcid, sale = attempt.merchant_charge_id, attempt.sale_id
        status = exc.status
        if exc.sent is False or (status is not None and 400 <= status < 500):
            # Never reached the service, or the service refused it outright: nothing exists.
            reason = Reason.of(ReasonCode.NOT_CHARGED, error=exc.reason)
            self._settle(
                attempt,
                AttemptState.REJECTED,
                reason,
                source="reply" if exc.sent else "request",
                detail=str(exc),
                answered=bool(exc.sent),
            )
            return ChargeOutcome(mcid, sale, AttemptState.REJECTED, None, reason, exc)
        answered = isinstance(exc, ApiError | ReplyUnreadable)
        why = Reason.of(
            ReasonCode.UNKNOWN_ANSWERED if answered else ReasonCode.UNKNOWN_MAY_EXIST,
            error=exc.reason,
        )
        self._settle(
            attempt, AttemptState.UNKNOWN, why, source="reply", detail=str(exc), answered=answered
        )
        record = self.repo.attempt(mcid)
        assert record is not None
        state, status_now, error = await self._resolve_attempt(record, trigger="after the reply")
        if state == AttemptState.CREATED:
            return ChargeOutcome(mcid, sale, state, status_now, _status_message(status_now), exc)
        if state == AttemptState.NOT_FOUND:
            return ChargeOutcome(
                mcid,
                sale,
                state,
                None,
                Reason.of(ReasonCode.NOT_CHARGED_NO_CHARGE, error=exc.reason),
                exc,
            )
        self.wake()
        return ChargeOutcome(
            mcid,
            sale,
            AttemptState.UNKNOWN,
            None,
            Reason.of(ReasonCode.OUTCOME_UNKNOWN, error=exc.reason)
            if error is None
            else Reason.of(
                ReasonCode.OUTCOME_UNKNOWN_LAST_QUERY, error=exc.reason, last_error=error
            ),
            exc,
        )

    # -- money operations: capture, refund, cancel ---------------------------------------------

    def money_view(self, merchant_charge_id: str) -> MoneyView:
        """What a clerk may do with a charge now: what is left to refund, and what is pending."""
        record = self._known_charge(merchant_charge_id)
        return MoneyView.of(record, self.repo.open_money_operation(merchant_charge_id))

    async def capture(self, merchant_charge_id: str, amount: int | None = None) -> ChargeRecord:
        """Capture a PRE_AUTHORIZED charge (the whole authorized amount unless told otherwise)."""
        self._known_charge(merchant_charge_id)
        return await self._money_call(MoneyOpKind.CAPTURE, merchant_charge_id, amount)

    async def refund(self, merchant_charge_id: str, amount: int | None = None) -> ChargeRecord:
        """Refund all (default) or part of a charge; before capture this cancels it in full.

        Refused with MoneyOperationBusy while an earlier operation of the charge is unresolved,
        and with MoneyOperationRefused (carrying the service's figures) when the service's
        figures or the service itself rule it out. MoneyOperationUnknown: sent, outcome not
        known yet; the terminal asks the service and never sends it again.
        """
        self._known_charge(merchant_charge_id)
        return await self._money_call(MoneyOpKind.REFUND, merchant_charge_id, amount)

    def _known_charge(self, merchant_charge_id: str) -> ChargeRecord:
        record = self.repo.charge(merchant_charge_id)
        if record is None:
            raise ChargeNotKnown(Reason.of(ReasonCode.NOT_IN_STORE, charge=merchant_charge_id))
        return record

    def _refuse_if_busy(
        self, merchant_charge_id: str, kind: MoneyOpKind, amount: int | None
    ) -> None:
        pending = self.repo.open_money_operation(merchant_charge_id)
        if pending is None and merchant_charge_id not in self._money_in_flight:
            return
        raise MoneyOperationBusy(
            merchant_charge_id=merchant_charge_id,
            kind=kind,
            amount=amount,
            pending=pending,
            figures=self._stored_figures(merchant_charge_id),
        )

    def _stored_figures(self, merchant_charge_id: str) -> Figures | None:
        record = self.repo.charge(merchant_charge_id)
        return None if record is None else Figures.of(record.state)

    async def _money_call(
        self, asked: MoneyOpKind, merchant_charge_id: str, amount: int | None
    ) -> ChargeRecord:
        mcid = merchant_charge_id
        self._refuse_if_busy(mcid, asked, amount)
        self._money_in_flight.add(mcid)
        try:
            # The service's figures just before sending: what the operation is judged against
            # if its reply is lost, and what rules out a refund above what is left.
            before = await self.client.query(mcid)
            figures = Figures.of(
                self._apply(before, source="reconciliation", context=BEFORE_SENDING).current
            )
            kind, value = _plan(asked, mcid, amount, figures)
            with transaction(self.conn):
                try:
                    op = self.repo.record_money_operation(mcid, kind, value, figures)
                except MoneyOperationOpen:
                    raise MoneyOperationBusy(
                        merchant_charge_id=mcid,
                        kind=kind,
                        amount=value,
                        pending=self.repo.open_money_operation(mcid),
                        figures=figures,
                    ) from None
            self._publish_op(op)
            # Durable against a crash of the process (WAL); the RECORDED row above is the one
            # that must survive a power cut, and both are settled the same way.
            with _sync_mode(self.conn, relaxed=True), transaction(self.conn):
                op = self.repo.move_money_operation(
                    op,
                    MoneyOpState.SENT,
                    source="request",
                    reason=op.reason("sent"),
                    outcome="sent",
                )
            self._publish_op(op)
            call = self.client.capture if kind == MoneyOpKind.CAPTURE else self.client.refund
            try:
                reply = await call(mcid, value)
            except asyncio.CancelledError:
                self._settle_op(
                    op,
                    MoneyOpState.UNKNOWN,
                    op.reason("unknown", Reason.of(ReasonCode.STOPPED_WAITING_REPLY)),
                    source="system",
                )
                raise
            except GatewayError as exc:
                return await self._money_failure(op, exc)
            with _sync_mode(self.conn, relaxed=True), transaction(self.conn):
                result = self.repo.apply_update(
                    reply.update(source="reply"),
                    source="reply",
                    source_ref=op.ref,
                    body=reply.body,
                    context=money_operation(kind, value),
                )
                op = self.repo.move_money_operation(
                    op,
                    MoneyOpState.CONFIRMED,
                    source="reply",
                    reason=op.reason("confirmed", Figures.of(result.current).reason()),
                    answered=True,
                )
            self._published(result, source="reply")
            if op.id not in result.confirmed_operations:
                self._publish_op(op)
            return self._known_charge(mcid)
        finally:
            self._money_in_flight.discard(mcid)

    async def _money_failure(self, op: MoneyOpRecord, exc: GatewayError) -> ChargeRecord:
        status = exc.status
        if exc.sent is False:
            self._settle_op(
                op, MoneyOpState.REJECTED, op.reason("not_sent", exc.reason), source="request"
            )
            raise exc
        if status is not None and 400 <= status < 500:
            # The service refused it: nothing moved. Its figures tell the clerk why.
            self._settle_op(
                op,
                MoneyOpState.REJECTED,
                op.reason("refused", exc.reason),
                source="reply",
                answered=True,
            )
            figures = await self._figures_after_refusal(op)
            raise MoneyOperationRefused(
                merchant_charge_id=op.merchant_charge_id,
                kind=op.kind,
                amount=op.amount,
                figures=figures,
                error=exc,
            ) from exc
        answered = isinstance(exc, ApiError | ReplyUnreadable)
        self._settle_op(
            op,
            MoneyOpState.UNKNOWN,
            op.reason("unknown", exc.reason),
            source="reply",
            answered=answered,
        )
        current = self.repo.money_operation(op.id)
        assert current is not None
        state = await self._resolve_money_op(current, trigger="after the reply")
        if state == MoneyOpState.CONFIRMED:
            return self._known_charge(op.merchant_charge_id)
        if state == MoneyOpState.NOT_APPLIED:
            raise exc
        self.wake()
        raise MoneyOperationUnknown(
            merchant_charge_id=op.merchant_charge_id,
            kind=op.kind,
            amount=op.amount,
            figures=self._stored_figures(op.merchant_charge_id),
            error=exc,
        ) from exc

    async def _figures_after_refusal(self, op: MoneyOpRecord) -> Figures | None:
        """Ask at once why the service refused ("already refunded"…): the clerk sees its figures."""
        mcid = op.merchant_charge_id
        try:
            reply = await self.client.query(mcid)
        except GatewayError:
            with transaction(self.conn):
                self.repo.schedule_check(mcid, reason=op.reason("refused"), at=self._clock())
            self.wake()
            return self._stored_figures(mcid)
        result = self._apply(reply, source="reconciliation", context=AFTER_REFUSAL)
        return Figures.of(result.current)

    async def _resolve_money_op(self, op: MoneyOpRecord, *, trigger: Trigger) -> MoneyOpState:
        """Query the charge of an unresolved operation and settle it by the service's figures."""
        mcid = op.merchant_charge_id
        try:
            reply = await self.client.query(mcid)
        except GatewayError as exc:
            self._settle_op(
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
        with transaction(self.conn):
            result = self.repo.apply_update(
                reply.update(source="reconciliation"),
                source="reconciliation",
                source_ref=op.ref,
                body=reply.body,
                context=Reason.of(ReasonCode.ASKED_SERVICE, trigger=trigger_reason(trigger)),
            )
            figures = Figures.of(result.current)
            current = self.repo.money_operation(op.id)
            assert current is not None
            if current.unresolved:
                age = self._clock() - current.created_at
                if current.answered or age >= self.unknown_grace:
                    current = self.repo.move_money_operation(
                        current,
                        MoneyOpState.NOT_APPLIED,
                        source="reconciliation",
                        reason=current.reason("not_applied", figures.reason()),
                        count_query=True,
                    )
                else:
                    current = self.repo.move_money_operation(
                        current,
                        MoneyOpState.UNKNOWN,
                        source="reconciliation",
                        reason=current.reason("waiting", figures.reason()),
                        count_query=True,
                    )
        self._published(result, source="reconciliation")
        self._publish_op(current)
        return current.state

    # -- querying and reconciliation -----------------------------------------------------------

    async def refresh(self, merchant_charge_id: str) -> ChargeRecord:
        """Ask the service about one charge now and merge the answer."""
        reply = await self.client.query(merchant_charge_id)
        self._apply(reply, source="reconciliation", context=Reason.of(ReasonCode.QUERIED_ON_DEMAND))
        return self._known_charge(merchant_charge_id)

    async def reconcile_unresolved(self) -> ReconcileReport:
        """At start-up: ask about every attempt whose outcome is not known, and due charges."""
        return await self.reconcile(trigger="start-up", due_only=False)

    async def reconcile(
        self, *, trigger: Trigger = "on demand", due_only: bool = False
    ) -> ReconcileReport:
        """One pass: unresolved attempts, then charges due for a check. One pass at a time."""
        async with self._reconcile_lock:
            report = await self._reconcile(trigger, due_only)
        self._publish(report.event())
        return report

    async def _reconcile(self, trigger: Trigger, due_only: bool) -> ReconcileReport:
        now = self._clock()
        attempts_checked = attempts_resolved = charges_checked = charges_changed = 0
        still_unknown: list[str] = []
        errors: list[str] = []
        seen: set[str] = set()
        for attempt in self.repo.unresolved_attempts(limit=self.batch):
            mcid = attempt.merchant_charge_id
            seen.add(mcid)
            if mcid in self._in_flight:
                continue  # its own request is still waiting for the reply
            if due_only and not self._attempt_due(attempt, now):
                still_unknown.append(mcid)
                continue
            attempts_checked += 1
            state, _, error = await self._resolve_attempt(attempt, trigger=trigger)
            if state in UNRESOLVED_ATTEMPT_STATES:
                still_unknown.append(mcid)
            else:
                attempts_resolved += 1
            if error:
                errors.append(f"{mcid}: {error}")
        ops_checked = ops_resolved = 0
        for op in self.repo.unresolved_money_operations(limit=self.batch):
            mcid = op.merchant_charge_id
            if mcid in self._money_in_flight:
                continue  # its own request is still waiting for the reply
            seen.add(mcid)
            if due_only and not self._op_due(op, now):
                still_unknown.append(mcid)
                continue
            ops_checked += 1
            op_state = await self._resolve_money_op(op, trigger=trigger)
            if op_state in UNRESOLVED_MONEY_STATES:
                still_unknown.append(mcid)
            else:
                ops_resolved += 1
        for record in self.repo.due_checks(now=now, limit=self.batch):
            mcid = record.merchant_charge_id
            if mcid in seen or mcid in self._in_flight:
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
            sweep = self.repo.last_sweep()
            assert sweep is not None
            if sweep.finished_at is not None or errors:
                return sweep

    async def _sweep_step(self, now: datetime, *, skip: set[str]) -> tuple[int, list[str]]:
        """Ask about the next few charges of the day's sweep: a refund or chargeback done
        outside the terminal (the merchant panel) reaches the history even after a charge's
        last notification. Returns how many charges were asked about and any errors."""
        self._last_sweep_step = now
        sweep = self.repo.last_sweep()
        if sweep is None or sweep.finished_at is not None:
            if sweep is not None and now - sweep.started_at < self.sweep_every:
                return 0, []
            start = now - self.sweep_every if sweep is None else sweep.window_to
            with transaction(self.conn):
                sweep = self.repo.start_sweep(window_from=start, window_to=now)
        batch = self.repo.sweep_batch(sweep, self.sweep_batch)
        asked = changed = 0
        after = sweep.after_id
        errors: list[str] = []
        for record in batch:
            mcid = record.merchant_charge_id
            if mcid not in skip and mcid not in self._money_in_flight:
                try:
                    reply = await self.client.query(mcid)
                except ChargeNotFound:
                    pass  # an attempt's record the service never held: nothing to sweep
                except GatewayError as exc:
                    # Asked again at the next step; the sweep does not skip a charge.
                    errors.append(f"{mcid}: {exc}")
                    break
                else:
                    result = self._apply(reply, source="reconciliation", context=SWEEP)
                    asked += 1
                    changed += int(result.changed)
            after = record.id
        finished = len(batch) < self.sweep_batch and not errors
        with transaction(self.conn):
            self.repo.advance_sweep(
                sweep, after_id=after, checked=asked, changed=changed, finished=finished
            )
        return asked, errors

    def _op_due(self, op: MoneyOpRecord, now: datetime) -> bool:
        wait = min(timedelta(seconds=2 ** min(op.queries, 10)), self.unknown_retry_max)
        return now >= op.updated_at + wait

    def _attempt_due(self, attempt: AttemptRecord, now: datetime) -> bool:
        refused = self._refused.get(attempt.merchant_charge_id)
        if refused:
            return now >= attempt.updated_at + self.refused_wait(refused)
        # Unknown attempts are asked about quickly at first, then less often (1, 2, 4 … s).
        wait = min(timedelta(seconds=2 ** min(attempt.queries, 10)), self.unknown_retry_max)
        return now >= attempt.updated_at + wait

    def refused_wait(self, refusals: int) -> timedelta:
        """How long after its `refusals`-th refused query an attempt is asked about again."""
        doubled: timedelta = self.refused_retry_first * int(2 ** min(max(refusals - 1, 0), 20))
        return min(doubled, self.refused_retry_max)

    async def _resolve_attempt(
        self, attempt: AttemptRecord, *, trigger: Trigger
    ) -> tuple[AttemptState, ChargeStatus | None, Reason | None]:
        """Query an attempt's charge; returns its attempt state, charge status and any error."""
        mcid = attempt.merchant_charge_id
        try:
            reply = await self.client.query(mcid)
        except ChargeNotFound:
            self._refused.pop(mcid, None)
            return self._not_found(attempt, trigger), None, None
        except GatewayError as exc:
            reason = self._query_failed(mcid, exc, trigger)
            self._settle(attempt, AttemptState.UNKNOWN, reason, source="reconciliation", query=True)
            return AttemptState.UNKNOWN, None, exc.reason
        self._refused.pop(mcid, None)
        result = self._apply(
            reply,
            source="reconciliation",
            context=Reason.of(ReasonCode.ASKED_SERVICE, trigger=trigger_reason(trigger)),
        )
        return AttemptState.CREATED, result.current.status, None

    def _query_failed(self, mcid: str, exc: GatewayError, trigger: Trigger) -> Reason:
        """Why a query of an attempt failed, counting the refusals the reconciler backs off on."""
        refused = isinstance(exc, ApiError) and exc.status is not None and 400 <= exc.status < 500
        if not refused:
            self._refused.pop(mcid, None)
            return Reason.of(
                ReasonCode.RECONCILE_CANNOT_ASK, trigger=trigger_reason(trigger), error=exc.reason
            )
        count = self._refused.get(mcid, 0) + 1
        self._refused[mcid] = count
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

    def _note(self, merchant_charge_id: str, notes: tuple[Reason, ...]) -> None:
        """What the client did on the way (a card-token spelling retried), in the timeline."""
        if not notes:
            return
        with transaction(self.conn):
            for note in notes:
                self.repo.add_timeline(
                    merchant_charge_id, source="system", outcome="applied", reason=note
                )

    async def check_attempt(self, merchant_charge_id: str) -> EndReport:
        """Ask the service once more about an unresolved attempt (before ending it)."""
        attempt = self._known_attempt(merchant_charge_id)
        if not attempt.unresolved:
            return EndReport(attempt.state, None, None)
        self._refuse_if_sending(attempt)
        state, status, error = await self._resolve_attempt(attempt, trigger="on demand")
        return EndReport(state, status, error)

    def _known_attempt(self, merchant_charge_id: str) -> AttemptRecord:
        attempt = self.repo.attempt(merchant_charge_id)
        if attempt is None:
            raise ChargeNotKnown(Reason.of(ReasonCode.NOT_IN_STORE, charge=merchant_charge_id))
        return attempt

    def _refuse_if_sending(self, attempt: AttemptRecord) -> None:
        if attempt.merchant_charge_id in self._in_flight:
            raise SaleBusy(
                attempt.sale_id,
                Reason.of(
                    ReasonCode.START_UNRESOLVED,
                    sale=attempt.sale_id,
                    charge=attempt.merchant_charge_id,
                ),
                attempt.merchant_charge_id,
            )

    async def end_unresolved(
        self,
        merchant_charge_id: str,
        *,
        supervisor: str,
        why: str,
        query_first: bool = True,
        last_error: Reason | None = None,
    ) -> EndReport:
        """Let a supervisor end an attempt the service's answers cannot settle.

        The service is asked once more first: a charge it has, or a "not found" that settles
        the attempt, ends it the usual way. Otherwise the attempt becomes ENDED, with who ended
        it, why and the last answer in the timeline, and its sale is free. Nothing is ever sent
        again: if the charge turns up later (a notification, the daily sweep), it is merged
        and shown as any charge.
        """
        supervisor, why = " ".join(supervisor.split()), " ".join(why.split())
        if not supervisor or not why:
            raise ValueError("ending an attempt needs who ends it and why")
        error = last_error
        if query_first:
            checked = await self.check_attempt(merchant_charge_id)
            if checked.state not in UNRESOLVED_ATTEMPT_STATES:
                return checked
            error = checked.last_error
        attempt = self._known_attempt(merchant_charge_id)
        if not attempt.unresolved:
            return EndReport(attempt.state, None, None)
        self._refuse_if_sending(attempt)
        last: str | Reason = error if error is not None else Reason.of(ReasonCode.NO_ERROR_DETAIL)
        reason = Reason.of(
            ReasonCode.ENDED_BY_SUPERVISOR, supervisor=supervisor, why=why, last=last
        )
        self._refused.pop(merchant_charge_id, None)
        # Who ended it is in the reason: the timeline's sources are fixed by the schema.
        self._settle(attempt, AttemptState.ENDED, reason, source="system")
        logger.info("attempt %s ended by a supervisor", merchant_charge_id)
        return EndReport(AttemptState.ENDED, None, error)

    def _not_found(self, attempt: AttemptRecord, trigger: Trigger) -> AttemptState:
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
        self._settle(attempt, state, reason, source="reconciliation", query=True)
        return state

    async def _check_charge(
        self, record: ChargeRecord, *, trigger: Trigger
    ) -> tuple[bool, Reason | None]:
        mcid = record.merchant_charge_id
        why = record.check_reason_data or Reason.of(ReasonCode.CHECK_SCHEDULED)
        when = trigger_reason(trigger)
        try:
            reply = await self.client.query(mcid)
        except ChargeNotFound as exc:
            with transaction(self.conn):
                self.repo.mark_checked(
                    mcid,
                    found=False,
                    reason=Reason.of(
                        ReasonCode.CHECK_ANSWERED, trigger=when, why=why, error=exc.reason
                    ),
                )
            return False, exc.reason
        except GatewayError as exc:
            with transaction(self.conn):
                self.repo.mark_checked(
                    mcid,
                    found=False,
                    reason=Reason.of(
                        ReasonCode.CHECK_CANNOT_ASK, trigger=when, why=why, error=exc.reason
                    ),
                )
            return False, exc.reason
        result = self._apply(
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
            fast = bool(self.repo.unresolved_attempts(limit=1)) or bool(
                self.repo.unresolved_money_operations(limit=1)
            )
            delay = min(interval_s, fast_interval_s) if fast else interval_s
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout=delay)
            if self._wake.is_set():
                self._wake.clear()
                trigger = "on demand"

    # -- store and events ----------------------------------------------------------------------

    def _apply(
        self,
        reply: ServiceReply,
        *,
        source: str,
        context: Reason | None,
        attempt_backed: bool = False,
    ) -> MergeResult:
        with _sync_mode(self.conn, relaxed=attempt_backed), transaction(self.conn):
            result = self.repo.apply_update(
                reply.update(source=source),
                source=source,
                source_ref=None,
                body=reply.body,
                context=context,
            )
        if result.attempt_resolved and result.sale_id is not None:
            self._publish(
                AttemptChanged(
                    merchant_charge_id=result.merchant_charge_id,
                    sale_id=result.sale_id,
                    state=AttemptState.CREATED,
                    reason=Reason.of(
                        ReasonCode.SERVICE_HAS_CHARGE, status=str(result.current.status)
                    ),
                )
            )
        self._published(result, source=source)
        return result

    def _published(self, result: MergeResult, *, source: str) -> None:
        """Publish what a committed merge did: the charge's change and settled operations."""
        if result.changed:
            self._publish(charge_changed(result, source=source))
        for op_id in result.confirmed_operations:
            op = self.repo.money_operation(op_id)
            if op is not None:
                self._publish_op(op)

    def _publish_op(self, op: MoneyOpRecord) -> None:
        self._publish(
            MoneyOperationChanged(
                merchant_charge_id=op.merchant_charge_id,
                operation_id=op.id,
                kind=str(op.kind),
                amount=op.amount,
                state=str(op.state),
            )
        )

    def _settle_op(
        self,
        op: MoneyOpRecord,
        state: MoneyOpState,
        reason: Reason,
        *,
        source: str,
        answered: bool = False,
        query: bool = False,
    ) -> None:
        with transaction(self.conn):
            updated = self.repo.move_money_operation(
                op, state, source=source, reason=reason, answered=answered, count_query=query
            )
        if updated.state != op.state:
            self._publish_op(updated)

    def _settle(
        self,
        attempt: AttemptRecord,
        state: AttemptState,
        reason: Reason,
        *,
        source: str,
        detail: str | None = None,
        answered: bool = False,
        query: bool = False,
    ) -> None:
        with transaction(self.conn):
            updated = self.repo.set_attempt_state(
                attempt.merchant_charge_id,
                state,
                source=source,
                reason=reason,
                detail=detail,
                count_query=query,
                answered=answered,
            )
        if updated.state != attempt.state:
            self._publish(
                AttemptChanged(
                    merchant_charge_id=attempt.merchant_charge_id,
                    sale_id=attempt.sale_id,
                    state=updated.state,
                    reason=reason,
                )
            )

    def _publish(self, event: DomainEvent) -> None:
        if self.events is not None:
            self.events.publish(event)


@contextlib.contextmanager
def _sync_mode(conn: sqlite3.Connection, *, relaxed: bool) -> Iterator[None]:
    """WAL with synchronous=NORMAL for one transaction: atomic and consistent, not fsynced."""
    if not relaxed:
        yield
        return
    conn.execute("PRAGMA synchronous = NORMAL")
    try:
        yield
    finally:
        conn.execute("PRAGMA synchronous = FULL")


def _status_message(status: ChargeStatus | None) -> Reason:
    if status in _APPROVED:
        return Reason.of(ReasonCode.OUTCOME_APPROVED, status=str(status))
    if status == ChargeStatus.DENIED:
        return Reason.of(ReasonCode.OUTCOME_DENIED)
    if status == ChargeStatus.PENDING:
        return Reason.of(ReasonCode.OUTCOME_PENDING)
    return Reason.of(ReasonCode.OUTCOME_OTHER, status=None if status is None else str(status))


__all__ = [
    "ChargeChanged",
    "ChargeOutcome",
    "ChargeService",
    "MoneyOperationBusy",
    "MoneyOperationError",
    "MoneyOperationRefused",
    "MoneyOperationUnknown",
    "MoneyView",
    "ReconcileReport",
    "SaleBusy",
    "StartCheck",
]
