"""Charging that never double-charges: record first, send once, resolve by asking.

The rules, each closing a way money goes wrong:
- An attempt (its merchantChargeId, amount, cards' brand and last four) is committed durably
  *before* the request is sent, so a crash can never forget a charge that reached the service.
- A request whose reply did not arrive (timeout, lost connection, crash, a 5xx) leaves the
  attempt UNKNOWN. It is resolved only by querying the charge by its merchantChargeId, never
  by sending it again; a new charge for the same sale is refused until it is resolved.
- "Not found" settles an attempt only when the charge can no longer appear: the service
  answered the request (its handling ended), or the grace period after the attempt has passed.
- The reconciler (`charges/reconciler.py`) asks about unresolved attempts at start-up, and on a
  schedule about charges whose status is not final or whose expected notification has not
  arrived; every answer and every failure to get one is written to the charge's timeline.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import TYPE_CHECKING

from checkout_desktop.charges.authority import Authority, Guarded
from checkout_desktop.charges.ledger import Ledger
from checkout_desktop.charges.outcome import APPROVED_STATUSES, ChargeOutcome
from checkout_desktop.charges.qr import qr_blocks
from checkout_desktop.charges.reconciler import CheckPolicy, Reconciler, ReconcileReport
from checkout_desktop.charges.sale import Sale
from checkout_desktop.charges.shop import ShopSettings
from checkout_desktop.charges.three_ds import ThreeDsFlow
from checkout_desktop.domain.charge_events import AttemptChanged, operation_changed
from checkout_desktop.domain.enums import ChargeStatus
from checkout_desktop.domain.events import EventBus
from checkout_desktop.domain.learned import LearnedFlag
from checkout_desktop.domain.money_ops import (
    Figures,
    MoneyOpKind,
    MoneyOpState,
    money_operation,
)
from checkout_desktop.domain.qr import awaiting_payment, effective_status
from checkout_desktop.domain.reasons import Reason, ReasonCode, Trigger
from checkout_desktop.domain.records import (
    AttemptRecord,
    ChargeRecord,
    MoneyOpRecord,
    SweepRecord,
    TenderSummary,
    unnamed_card,
    with_tried_cards,
)
from checkout_desktop.domain.state import UNRESOLVED_ATTEMPT_STATES, AttemptState, ChargeState
from checkout_desktop.domain.timestamps import utc_now
from checkout_desktop.domain.wire import ChargeAuthorizationRequest, QrChargeRequest
from checkout_desktop.gateway.client import ChargeClient, ServiceReply, check_merchant_charge_id
from checkout_desktop.gateway.errors import ApiError, GatewayError, ReplyUnreadable
from checkout_desktop.store.errors import ChargeNotKnown, MoneyOperationOpen, StoreError

if TYPE_CHECKING:
    from checkout_desktop.settings import UiSettings
    from checkout_desktop.store.ports import ChargeReads, Store

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
_APPROVED = APPROVED_STATUSES
_UNCAPTURED = frozenset({ChargeStatus.PRE_AUTHORIZED, ChargeStatus.AUTHORIZED})
_CAPTURED = frozenset({ChargeStatus.PAID, ChargeStatus.PARTIAL})
# A QR whose figures say any of these was paid (a wallet's AUTHORIZED included): never cancelled.
_PAID_QR = frozenset(
    {ChargeStatus.AUTHORIZED, ChargeStatus.PAID, ChargeStatus.PARTIAL, ChargeStatus.CHARGEBACK}
)

# Why the service is asked around a money operation (timeline triggers).
BEFORE_SENDING = Reason.of(ReasonCode.CONTEXT_BEFORE_SENDING)
AFTER_REFUSAL = Reason.of(ReasonCode.CONTEXT_AFTER_REFUSAL)


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


class MoneyOperationNotStored(MoneyOperationError):
    """The store failed (the shared store stopped answering, say) during a refund, capture or
    cancel. `sent` False: it failed before the request went to the service, so nothing was sent
    and the clerk may try again. `sent` True: the request had gone, but its outcome could not
    be recorded; it stays open in the store and is settled by asking the service once the
    store answers, never by sending it again. `problem` is the store's own kind of problem
    ("unreachable", … or "store"), the message the store's words."""

    def __init__(
        self,
        store_error: StoreError,
        *,
        merchant_charge_id: str,
        kind: MoneyOpKind,
        amount: int | None,
        sent: bool,
    ) -> None:
        super().__init__(
            f"{kind} of charge {merchant_charge_id} "
            + ("sent, its outcome not recorded" if sent else "not sent")
            + f": {store_error}",
            merchant_charge_id=merchant_charge_id,
            kind=kind,
            amount=amount,
            figures=None,
        )
        self.sent = sent
        self.problem = str(getattr(store_error, "problem", None) or "store")


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
        status = effective_status(charge.state)
        if status not in _UNCAPTURED | _CAPTURED or charge.amount is None:
            return 0
        figures = Figures.of(charge.state)
        left = charge.amount - figures.refunded
        if self.pending is not None and self.pending.kind != MoneyOpKind.CAPTURE:
            left = 0 if self.pending.kind == MoneyOpKind.CANCEL else left - self.pending.amount
        return max(0, left)

    @property
    def capturable(self) -> bool:
        return (
            self.pending is None
            and self.charge.status == ChargeStatus.PRE_AUTHORIZED
            and not self.charge.state.is_qr
        )

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
    if asked == MoneyOpKind.CANCEL:
        # Cancelling a QR: only one nobody has paid. The service's cancel is its refund of the
        # whole amount, so sent for a QR paid since, it would give the payment back.
        if status in _PAID_QR:
            raise refuse(Reason.of(ReasonCode.QR_CANCEL_PAID))
        if status == ChargeStatus.REFUNDED:
            raise refuse(Reason.of(ReasonCode.MONEY_ALREADY_REFUNDED))
        if not figures.awaiting or status != ChargeStatus.PRE_AUTHORIZED:
            raise refuse(Reason.of(ReasonCode.QR_CANCEL_NOT_AWAITING))
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
    if status in _UNCAPTURED or asked == MoneyOpKind.CANCEL:
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


class NotRecorded(RuntimeError):
    """The store cannot record the attempt (the shared store is down, say): nothing was sent,
    and the terminal takes no payment until it can record one."""

    def __init__(self, reason: Reason) -> None:
        super().__init__(reason.english())
        self.reason = reason


class ChargeElsewhere(LookupError):
    """A charge made on another service environment (or not by this terminal): this service
    sends nothing about it."""

    def __init__(self, reason: Reason) -> None:
        super().__init__(reason.english())
        self.reason = reason


_STORE_PROBLEMS = {
    "unreachable": ReasonCode.STORE_UNREACHABLE,
    "credentials": ReasonCode.STORE_LOGIN,
    "password_missing": ReasonCode.STORE_LOGIN,
    "schema_newer": ReasonCode.STORE_NEWER,
}


def not_recorded(exc: StoreError) -> NotRecorded:
    """Why a charge was refused, for a store that could not record its attempt."""
    code = _STORE_PROBLEMS.get(str(getattr(exc, "problem", "")))
    if code is not None:
        return NotRecorded(Reason.of(code))
    return NotRecorded(Reason.of(ReasonCode.STORE_CANNOT_RECORD, error=str(exc)))


def _not_stored(
    exc: StoreError,
    merchant_charge_id: str,
    kind: MoneyOpKind,
    amount: int | None,
    *,
    sent: bool = False,
) -> MoneyOperationNotStored:
    return MoneyOperationNotStored(
        exc, merchant_charge_id=merchant_charge_id, kind=kind, amount=amount, sent=sent
    )


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
class EndReport:
    """What ending an unresolved attempt came to: its state and what the last query said."""

    state: AttemptState
    status: ChargeStatus | None
    last_error: Reason | None

    @property
    def ended(self) -> bool:
        return self.state == AttemptState.ENDED


def judge_start(
    sale_id: str,
    pending: AttemptRecord | None,
    charges: Sequence[ChargeRecord],
    now: datetime | None = None,
) -> StartCheck:
    """Whether a sale may be charged, given its unresolved attempt (if any) and its charges.

    A QR charge holds the sale while it may still be paid (until its expiry) or once paid; an
    expired, cancelled or refunded QR frees it (`charges/qr.py`)."""
    if pending is not None:
        return StartCheck(
            False,
            Reason.of(ReasonCode.START_UNRESOLVED, sale=sale_id, charge=pending.merchant_charge_id),
            pending.merchant_charge_id,
        )
    for charge in charges:
        if charge.state.is_qr:
            why = qr_blocks(sale_id, charge, now or utc_now())
            if why is not None:
                return StartCheck(False, why, charge.merchant_charge_id)
            continue
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


class ChargeService:
    """Charges, captures, refunds and reconciliation for one profile, on one store."""

    def __init__(
        self,
        *,
        store: Store,
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
        authority: Authority | None = None,
        owner: str = "terminal",
        counter: str | None = None,
        shop: ShopSettings | None = None,
    ) -> None:
        self.store = store
        self.shop = shop
        """The settings the shop's counters share (the PIN): read again before each check."""
        self.client = client
        self.profile = profile
        self.authority = authority or Authority(clock=clock)
        """The supervisor PIN rule, checked here before a guarded refund or capture."""
        self.events = events
        self.ledger = Ledger(store, policy=policy, clock=clock, events=events)
        self.reconciler = Reconciler(
            ledger=self.ledger,
            client=client,
            unknown_grace_s=unknown_grace_s,
            unknown_retry_max_s=unknown_retry_max_s,
            refused_retry_first_s=refused_retry_first_s,
            refused_retry_max_s=refused_retry_max_s,
            batch=batch,
            clock=clock,
            sweep_every_s=sweep_every_s,
            sweep_batch=sweep_batch,
            sweep_spacing_s=sweep_spacing_s,
            owner=owner,
            counter=counter,
            profile=profile,
        )
        self._clock = clock
        # Shared with the reconciler: a charge waiting for its own reply is not asked about.
        self._in_flight = self.reconciler.in_flight
        self._money_in_flight = self.reconciler.money_in_flight
        self.three_ds = ThreeDsFlow(self)
        """Card charges authenticated by 3-D Secure first (`charges/three_ds.py`)."""

    # -- starting a charge ---------------------------------------------------------------------

    @property
    def counter(self) -> str | None:
        """This counter's id, which its sale ids carry (None: a terminal alone on its store)."""
        return self.reconciler.counter

    def new_sale(self) -> Sale:
        """A new sale, its id carrying this counter's id."""
        return Sale(counter=self.counter)

    async def can_start_charge(self, sale_id: str) -> StartCheck:
        """Refuses while the sale has an unresolved attempt or a charge that holds money."""
        return await self._start_check(self.store.charges, sale_id)

    async def _start_check(self, charges: ChargeReads, sale_id: str) -> StartCheck:
        return judge_start(
            sale_id,
            await charges.unresolved_attempt_for_sale(sale_id),
            await charges.charges_for_sale(sale_id),
            self._clock(),
        )

    async def charge(
        self,
        *,
        sale_id: str,
        request: ChargeAuthorizationRequest | QrChargeRequest,
        tenders: Sequence[TenderSummary],
    ) -> ChargeOutcome:
        """Record the attempt, send it once, and report the outcome (which may be UNKNOWN),
        with the charge as it is then stored."""
        outcome = await self._charge(sale_id=sale_id, request=request, tenders=tenders)
        return replace(outcome, record=await shown_charge(self.store, outcome.merchant_charge_id))

    async def _charge(
        self,
        *,
        sale_id: str,
        request: ChargeAuthorizationRequest | QrChargeRequest,
        tenders: Sequence[TenderSummary],
    ) -> ChargeOutcome:
        attempt = await self._record_attempt(sale_id=sale_id, request=request, tenders=tenders)
        if isinstance(request, QrChargeRequest):
            # One QR per attempt: a lost reply is settled by a query, never a second QR.
            qr = request
            return await self._send_recorded(
                attempt, lambda: self.client.charge_qr(qr, session_id=sale_id)
            )
        card = request
        return await self._send_recorded(
            attempt, lambda: self.client.authorize(card, session_id=sale_id)
        )

    async def _record_attempt(
        self,
        *,
        sale_id: str,
        request: ChargeAuthorizationRequest | QrChargeRequest,
        tenders: Sequence[TenderSummary],
        three_ds: bool = False,
    ) -> AttemptRecord:
        """Commit the attempt (and, for 3DS, its flow) durably, refusing a busy sale."""
        mcid = check_merchant_charge_id(request.merchantChargeId)
        if len(tenders) != len(request.transactions):
            raise ValueError(
                f"charge {mcid} has {len(request.transactions)} transaction(s) but "
                f"{len(tenders)} tender summaries; give one summary per transaction"
            )
        try:
            async with self.store.unit_of_work() as uow:
                check = await self._start_check(uow.charges, sale_id)
                if not check:
                    raise SaleBusy(
                        sale_id,
                        check.reason or Reason.of(ReasonCode.START_REFUSED),
                        check.blocking_charge,
                    )
                customer = request.customer
                attempt = await uow.charges.record_attempt(
                    merchant_charge_id=mcid,
                    sale_id=sale_id,
                    profile=self.profile,
                    amount=request.total_amount,
                    tenders=tenders,
                    late_capture=request.lateCapture,
                    customer_document=customer.document,
                    customer_name=customer.name,
                )
                phone = customer.phone
                await uow.charges.remember_customer(
                    document_type=str(customer.documentType),
                    document=customer.document,
                    name=customer.name,
                    email=customer.email or None,
                    phone=None if phone is None else phone.areaCode + phone.number,
                )
                if three_ds:
                    await uow.charges.record_three_ds(mcid, sale_id)
                    await uow.charges.add_timeline(
                        mcid,
                        source="3ds",
                        outcome="recorded",
                        reason=Reason.of(ReasonCode.TDS_SETUP_RECORDED),
                    )
        except StoreError as exc:
            # Whether or not the commit reached the server, nothing is sent: a recorded attempt
            # the reply never came for is settled by asking, like any other.
            logger.error("charge %s not sent: the store cannot record it: %s", mcid, exc)
            raise not_recorded(exc) from exc
        self.ledger.publish(
            AttemptChanged(
                merchant_charge_id=mcid,
                sale_id=sale_id,
                state=AttemptState.RECORDED,
                reason=Reason.of(ReasonCode.RECORDED_BEFORE_SENDING),
            )
        )
        return attempt

    async def _send_recorded(
        self, attempt: AttemptRecord, send: Callable[[], Awaitable[ServiceReply]]
    ) -> ChargeOutcome:
        """Send the money call of a recorded attempt once, and settle it from the answer."""
        mcid, sale_id = attempt.merchant_charge_id, attempt.sale_id
        self._in_flight.add(mcid)
        try:
            reply = await send()
        except asyncio.CancelledError:
            self._in_flight.discard(mcid)
            await self.ledger.settle_attempt(
                attempt,
                AttemptState.UNKNOWN,
                Reason.of(ReasonCode.STOPPED_WAITING),
                source="system",
            )
            raise
        except GatewayError as exc:
            self._in_flight.discard(mcid)
            await self._note(mcid, exc.notes)
            return await self._after_failure(attempt, exc)
        self._in_flight.discard(mcid)
        await self._note(mcid, reply.notes)
        # The attempt was committed durably before sending; if this commit is lost in a power
        # cut, the attempt is found unresolved at start-up and settled by asking the service.
        # So it may skip the fsync that would stall every other coroutine on the loop.
        result = await self.ledger.apply(reply, source="reply", context=None, relaxed=True)
        return _created(mcid, sale_id, result.current)

    async def _after_failure(self, attempt: AttemptRecord, exc: GatewayError) -> ChargeOutcome:
        mcid, sale = attempt.merchant_charge_id, attempt.sale_id
        status = exc.status
        if exc.sent is False or (status is not None and 400 <= status < 500):
            # Never reached the service, or the service refused it outright: nothing exists.
            reason = Reason.of(ReasonCode.NOT_CHARGED, error=exc.reason)
            await self.ledger.settle_attempt(
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
        await self.ledger.settle_attempt(
            attempt, AttemptState.UNKNOWN, why, source="reply", detail=str(exc), answered=answered
        )
        # Asked even when a notification has told the charge meanwhile: the reply holds what a
        # notification may leave out (the card's digits), and it confirms.
        record = await self.store.charges.attempt(mcid)
        assert record is not None
        state, status_now, error = await self.reconciler.resolve_attempt(
            record, trigger="right after sending"
        )
        if state == AttemptState.UNKNOWN:
            # The query went unanswered too; a notification may have told the charge meanwhile
            # (it settled the attempt): then it is known, as if the query had found it.
            now = await self.store.charges.attempt(mcid)
            if now is not None and now.state == AttemptState.CREATED:
                state = AttemptState.CREATED
        if state == AttemptState.CREATED:
            stored = await self.store.charges.charge(mcid)
            if stored is not None:
                return replace(_created(mcid, sale, stored.state), error=exc)
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

    async def _note(self, merchant_charge_id: str, notes: tuple[Reason, ...]) -> None:
        """What the client did on the way (a card-token spelling retried), in the timeline."""
        if not notes:
            return
        async with self.store.unit_of_work() as uow:
            for note in notes:
                await uow.charges.add_timeline(
                    merchant_charge_id, source="system", outcome="applied", reason=note
                )

    # -- ending an attempt the service's answers cannot settle -----------------------------------

    async def check_attempt(self, merchant_charge_id: str) -> EndReport:
        """Ask the service once more about an unresolved attempt (before ending it)."""
        attempt = await self._known_attempt(merchant_charge_id)
        if not attempt.unresolved:
            return EndReport(attempt.state, None, None)
        self._refuse_elsewhere(merchant_charge_id, attempt.profile)
        self._refuse_if_sending(attempt)
        state, status, error = await self.reconciler.resolve_attempt(attempt, trigger="on demand")
        return EndReport(state, status, error)

    async def end_unresolved(
        self,
        merchant_charge_id: str,
        *,
        supervisor: str,
        why: str,
        query_first: bool = True,
        last_error: Reason | None = None,
        pin: str | None = None,
    ) -> EndReport:
        """Let a supervisor end an attempt the service's answers cannot settle.

        The service is asked once more first: a charge it has, or a "not found" that settles
        the attempt, ends it the usual way. Otherwise the attempt becomes ENDED, with who ended
        it, why and the last answer in the timeline, and its sale is free. Nothing is ever sent
        again: if the charge turns up later (a notification, the daily sweep), it is merged
        and shown as any charge. With a supervisor PIN set, it is needed (`pin`): PinRefused
        otherwise, before the service is asked or anything is recorded.
        """
        supervisor, why = " ".join(supervisor.split()), " ".join(why.split())
        if not supervisor or not why:
            raise ValueError("ending an attempt needs who ends it and why")
        await self._current_pin()
        self.authority.check_end(merchant_charge_id, pin)
        error = last_error
        if query_first:
            checked = await self.check_attempt(merchant_charge_id)
            if checked.state not in UNRESOLVED_ATTEMPT_STATES:
                return checked
            error = checked.last_error
        attempt = await self._known_attempt(merchant_charge_id)
        if not attempt.unresolved:
            return EndReport(attempt.state, None, None)
        self._refuse_if_sending(attempt)
        last: str | Reason = error if error is not None else Reason.of(ReasonCode.NO_ERROR_DETAIL)
        reason = Reason.of(
            ReasonCode.ENDED_BY_SUPERVISOR, supervisor=supervisor, why=why, last=last
        )
        self.reconciler.refused.pop(merchant_charge_id, None)
        # Who ended it is in the reason: the timeline's sources are fixed by the schema.
        await self.ledger.settle_attempt(attempt, AttemptState.ENDED, reason, source="system")
        logger.info("attempt %s ended by a supervisor", merchant_charge_id)
        return EndReport(AttemptState.ENDED, None, error)

    async def _known_attempt(self, merchant_charge_id: str) -> AttemptRecord:
        attempt = await self.store.charges.attempt(merchant_charge_id)
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

    # -- money operations: capture, refund, cancel ---------------------------------------------

    async def money_view(self, merchant_charge_id: str) -> MoneyView:
        """What a clerk may do with a charge now: what is left to refund, and what is pending."""
        record = await self._known_charge(merchant_charge_id)
        return MoneyView.of(
            record, await self.store.charges.open_money_operation(merchant_charge_id)
        )

    async def capture(
        self, merchant_charge_id: str, amount: int | None = None, *, pin: str | None = None
    ) -> ChargeRecord:
        """Capture a PRE_AUTHORIZED charge (the whole authorized amount unless told otherwise).

        With a supervisor PIN set, the capture of a charge authorized on an earlier day needs
        it (`pin`); PinRefused otherwise, before anything is recorded or sent."""
        try:
            record = await self._own_charge(merchant_charge_id)
            await self._current_pin()
        except StoreError as exc:
            raise _not_stored(exc, merchant_charge_id, MoneyOpKind.CAPTURE, amount) from exc
        if record.state.is_qr:
            raise MoneyOperationRefused(
                merchant_charge_id=merchant_charge_id,
                kind=MoneyOpKind.CAPTURE,
                amount=amount,
                figures=Figures.of(record.state),
                why=Reason.of(ReasonCode.MONEY_QR_NO_CAPTURE),
            )
        self.authority.check(Guarded.CAPTURE, record, pin)
        return await self._money_call(MoneyOpKind.CAPTURE, merchant_charge_id, amount)

    async def refund(
        self, merchant_charge_id: str, amount: int | None = None, *, pin: str | None = None
    ) -> ChargeRecord:
        """Refund all (default) or part of a charge; before capture this cancels it in full.

        Refused with MoneyOperationBusy while an earlier operation of the charge is unresolved,
        and with MoneyOperationRefused (carrying the service's figures) when the service's
        figures or the service itself rule it out. MoneyOperationUnknown: sent, outcome not
        known yet; the terminal asks the service and never sends it again. With a supervisor
        PIN set, a refund needs it (`pin`): PinRefused otherwise, before anything is recorded.
        """
        try:
            record = await self._own_charge(merchant_charge_id)
            await self._current_pin()
        except StoreError as exc:
            raise _not_stored(exc, merchant_charge_id, MoneyOpKind.REFUND, amount) from exc
        self.authority.check(Guarded.REFUND, record, pin)
        return await self._money_call(MoneyOpKind.REFUND, merchant_charge_id, amount)

    async def cancel_qr(self, merchant_charge_id: str) -> ChargeRecord:
        """Cancel a QR nobody has paid: the customer can no longer pay it.

        The service's cancel is its refund endpoint for the whole amount, so a cancel is sent
        only when the service's figures, read just before sending, show the QR still awaiting
        payment. One paid meanwhile (or ended) is refused with MoneyOperationRefused, its
        figures stored, and nothing is recorded or sent: giving a payment back is `refund`,
        with its own confirmation and PIN. Moving no money, a cancel needs no supervisor PIN.
        Like every money call it is recorded before it is sent, and a lost reply is settled
        by asking the service, never by sending it again.
        """
        try:
            record = await self._own_charge(merchant_charge_id)
        except StoreError as exc:
            raise _not_stored(exc, merchant_charge_id, MoneyOpKind.CANCEL, None) from exc
        if not record.state.is_qr:
            raise ValueError(f"charge {merchant_charge_id} is not a QR charge; refund it instead")
        return await self._money_call(MoneyOpKind.CANCEL, merchant_charge_id, None)

    async def _current_pin(self) -> None:
        """The PIN as the shop's store holds it now: one set or removed at another counter
        applies here before the next guarded action."""
        if self.shop is not None:
            self.authority.set_pin_hash(await self.shop.pin_hash())

    async def share_settings(self, ui: UiSettings, previous: UiSettings | None = None) -> None:
        """The PIN or the shop's name changed at this counter: the store (and so every counter
        of the shop) takes them; this counter's authority at once. With `previous`, only
        what changed from it is written (`ShopSettings.publish`)."""
        self.authority.set_pin_hash(ui.supervisor_pin_hash)
        if self.shop is not None:
            await self.shop.publish(ui, previous)

    async def share_learned(self, flag: LearnedFlag, value: bool) -> None:
        """A rule of this environment's service, learned from its refusal at this counter (or
        let go by the owner): the shop's store keeps it for every counter."""
        if self.shop is not None:
            await self.shop.publish_learned(self.profile, flag, value)

    async def _known_charge(self, merchant_charge_id: str) -> ChargeRecord:
        record = await self.store.charges.charge(merchant_charge_id)
        if record is None:
            raise ChargeNotKnown(Reason.of(ReasonCode.NOT_IN_STORE, charge=merchant_charge_id))
        return record

    async def _own_charge(self, merchant_charge_id: str) -> ChargeRecord:
        """The charge, if this service made it: nothing about a charge is ever sent to a
        service other than the one it was made on (a sandbox's test sale is never refunded,
        captured or queried in production, nor the other way round)."""
        record = await self._known_charge(merchant_charge_id)
        self._refuse_elsewhere(merchant_charge_id, record.profile)
        return record

    def _refuse_elsewhere(self, merchant_charge_id: str, profile: str | None) -> None:
        if profile == self.profile:
            return
        if profile is None:
            raise ChargeElsewhere(
                Reason.of(ReasonCode.UNKNOWN_ENVIRONMENT, charge=merchant_charge_id)
            )
        raise ChargeElsewhere(
            Reason.of(
                ReasonCode.OTHER_ENVIRONMENT,
                charge=merchant_charge_id,
                profile=profile,
                current=self.profile,
            )
        )

    async def _refuse_if_busy(
        self, merchant_charge_id: str, kind: MoneyOpKind, amount: int | None
    ) -> None:
        pending = await self.store.charges.open_money_operation(merchant_charge_id)
        if pending is None and merchant_charge_id not in self._money_in_flight:
            return
        raise MoneyOperationBusy(
            merchant_charge_id=merchant_charge_id,
            kind=kind,
            amount=amount,
            pending=pending,
            figures=await self._stored_figures(merchant_charge_id),
        )

    async def _stored_figures(self, merchant_charge_id: str) -> Figures | None:
        record = await self.store.charges.charge(merchant_charge_id)
        return None if record is None else Figures.of(record.state)

    async def _money_call(
        self, asked: MoneyOpKind, merchant_charge_id: str, amount: int | None
    ) -> ChargeRecord:
        mcid = merchant_charge_id
        sent = False
        try:
            await self._refuse_if_busy(mcid, asked, amount)
        except StoreError as exc:
            raise _not_stored(exc, mcid, asked, amount) from exc
        self._money_in_flight.add(mcid)
        try:
            # The service's figures just before sending: what the operation is judged against
            # if its reply is lost, and what rules out a refund above what is left.
            before = await self.client.query(mcid)
            figures = Figures.of(
                (
                    await self.ledger.apply(before, source="reconciliation", context=BEFORE_SENDING)
                ).current
            )
            kind, value = _plan(asked, mcid, amount, figures)
            async with self.store.unit_of_work() as uow:
                try:
                    op = await uow.charges.record_money_operation(
                        mcid, kind, value, figures, counter=self.counter
                    )
                except MoneyOperationOpen:
                    raise MoneyOperationBusy(
                        merchant_charge_id=mcid,
                        kind=kind,
                        amount=value,
                        pending=await uow.charges.open_money_operation(mcid),
                        figures=figures,
                    ) from None
            self.ledger.publish(operation_changed(op))
            # Durable against a crash of the process (WAL); the RECORDED row above is the one
            # that must survive a power cut, and both are settled the same way.
            async with self.store.unit_of_work(durable=False) as uow:
                op = await uow.charges.move_money_operation(
                    op,
                    MoneyOpState.SENT,
                    source="request",
                    reason=op.reason("sent"),
                    outcome="sent",
                )
            self.ledger.publish(operation_changed(op))
            call = self.client.capture if kind == MoneyOpKind.CAPTURE else self.client.refund
            sent = True
            try:
                reply = await call(mcid, value)
            except asyncio.CancelledError:
                await self.ledger.settle_op(
                    op,
                    MoneyOpState.UNKNOWN,
                    op.reason("unknown", Reason.of(ReasonCode.STOPPED_WAITING_REPLY)),
                    source="system",
                )
                raise
            except GatewayError as exc:
                return await self._money_failure(op, exc)
            async with self.store.unit_of_work(durable=False) as uow:
                result = await self.ledger.apply_update(
                    uow.charges,
                    reply.update(source="reply"),
                    source="reply",
                    source_ref=op.ref,
                    body=reply.body,
                    context=money_operation(kind, value),
                )
                op = await uow.charges.move_money_operation(
                    op,
                    MoneyOpState.CONFIRMED,
                    source="reply",
                    reason=op.reason("confirmed", Figures.of(result.current).reason()),
                    answered=True,
                )
            self.ledger.publish_all(result.events)
            if op.id not in result.confirmed_operations:
                self.ledger.publish(operation_changed(op))
            return await self._known_charge(mcid)
        except StoreError as exc:
            # Before sending, nothing went (a RECORDED row the send never followed is settled
            # by asking, like any other); after, the row says SENT and is settled the same way.
            logger.warning("%s of %s: the store failed (sent: %s): %s", asked, mcid, sent, exc)
            raise _not_stored(exc, mcid, asked, amount, sent=sent) from exc
        finally:
            self._money_in_flight.discard(mcid)

    async def _money_failure(self, op: MoneyOpRecord, exc: GatewayError) -> ChargeRecord:
        status = exc.status
        if exc.sent is False:
            await self.ledger.settle_op(
                op, MoneyOpState.REJECTED, op.reason("not_sent", exc.reason), source="request"
            )
            raise exc
        if status is not None and 400 <= status < 500:
            # The service refused it: nothing moved. Its figures tell the clerk why.
            await self.ledger.settle_op(
                op,
                MoneyOpState.REJECTED,
                op.reason("refused", exc.reason),
                source="reply",
                answered=True,
            )
            figures = await self._figures_after_refusal(op)
            # A QR still awaiting payment after its cancel was refused: the service does not
            # cancel an unpaid QR (a variant the sandbox plays); it only expires.
            unpaid = figures is not None and figures.awaiting and op.kind != MoneyOpKind.CAPTURE
            raise MoneyOperationRefused(
                merchant_charge_id=op.merchant_charge_id,
                kind=op.kind,
                amount=op.amount,
                figures=figures,
                error=exc,
                why=Reason.of(ReasonCode.QR_CANCEL_REFUSED, error=exc.reason) if unpaid else None,
            ) from exc
        answered = isinstance(exc, ApiError | ReplyUnreadable)
        await self.ledger.settle_op(
            op,
            MoneyOpState.UNKNOWN,
            op.reason("unknown", exc.reason),
            source="reply",
            answered=answered,
        )
        current = await self.store.charges.money_operation(op.id)
        assert current is not None
        state = await self.reconciler.resolve_money_op(current, trigger="right after sending")
        if state == MoneyOpState.CONFIRMED:
            return await self._known_charge(op.merchant_charge_id)
        if state == MoneyOpState.NOT_APPLIED:
            raise exc
        self.wake()
        raise MoneyOperationUnknown(
            merchant_charge_id=op.merchant_charge_id,
            kind=op.kind,
            amount=op.amount,
            figures=await self._stored_figures(op.merchant_charge_id),
            error=exc,
        ) from exc

    async def _figures_after_refusal(self, op: MoneyOpRecord) -> Figures | None:
        """Ask at once why the service refused ("already refunded"…): the clerk sees its figures."""
        mcid = op.merchant_charge_id
        try:
            reply = await self.client.query(mcid)
        except GatewayError:
            async with self.store.unit_of_work() as uow:
                await uow.charges.schedule_check(
                    mcid, reason=op.reason("refused"), at=self._clock()
                )
            self.wake()
            return await self._stored_figures(mcid)
        result = await self.ledger.apply(reply, source="reconciliation", context=AFTER_REFUSAL)
        return Figures.of(result.current)

    async def refresh(self, merchant_charge_id: str) -> ChargeRecord:
        """Ask the service about one charge now and merge the answer (only a charge, or an
        attempt, this service made: ChargeElsewhere otherwise, and nothing is sent)."""
        if await self.store.charges.charge(merchant_charge_id) is not None:
            await self._own_charge(merchant_charge_id)
        elif (attempt := await self.store.charges.attempt(merchant_charge_id)) is not None:
            self._refuse_elsewhere(merchant_charge_id, attempt.profile)
        reply = await self.client.query(merchant_charge_id)
        await self.ledger.apply(
            reply, source="reconciliation", context=Reason.of(ReasonCode.QUERIED_ON_DEMAND)
        )
        return await self._known_charge(merchant_charge_id)

    async def reconcile_unresolved(self) -> ReconcileReport:
        """At start-up: end the 3DS flows a stopped terminal left, then ask about every attempt
        whose outcome is not known, and due charges."""
        await self.three_ds.end_interrupted()
        return await self.reconciler.reconcile(trigger="start-up", due_only=False)

    async def reconcile(
        self, *, trigger: Trigger = "on demand", due_only: bool = False
    ) -> ReconcileReport:
        """One reconciliation pass (see `Reconciler.reconcile`)."""
        return await self.reconciler.reconcile(trigger=trigger, due_only=due_only)

    async def sweep_now(self) -> SweepRecord:
        """Run the current daily sweep to its end (see `Reconciler.sweep_now`)."""
        return await self.reconciler.sweep_now()

    def start(self, interval_s: float, *, fast_interval_s: float = 2.0) -> None:
        """Start the scheduled reconciler (see `Reconciler.start`)."""
        self.reconciler.start(interval_s, fast_interval_s=fast_interval_s)

    def wake(self) -> None:
        """Ask the running reconciler for a pass now (on demand)."""
        self.reconciler.wake()

    async def stop(self) -> None:
        await self.reconciler.stop()


async def shown_charge(store: Store, merchant_charge_id: str) -> ChargeRecord | None:
    """The charge as stored, for a screen or a receipt: a card the service named without its
    last four digits shows the card the sale was tried with, where that is certain (the sale's
    attempt is read only then)."""
    record = await store.charges.charge(merchant_charge_id)
    if record is None or not any(unnamed_card(txn) for txn in record.state.transactions):
        return record
    attempt = await store.charges.attempt(merchant_charge_id)
    if attempt is None:
        return record
    return with_tried_cards(replace(record, attempt_tenders=attempt.tenders))


def _created(mcid: str, sale_id: str, state: ChargeState) -> ChargeOutcome:
    """The outcome of a charge the service holds: a QR awaiting payment is not approved."""
    waiting = awaiting_payment(state)
    status = effective_status(state)
    return ChargeOutcome(
        merchant_charge_id=mcid,
        sale_id=sale_id,
        attempt=AttemptState.CREATED,
        status=status,
        message=Reason.of(ReasonCode.OUTCOME_QR_AWAITING) if waiting else _status_message(status),
        awaiting_payment=waiting,
    )


def _status_message(status: ChargeStatus | None) -> Reason:
    if status in _APPROVED:
        return Reason.of(ReasonCode.OUTCOME_APPROVED, status=str(status))
    if status == ChargeStatus.DENIED:
        return Reason.of(ReasonCode.OUTCOME_DENIED)
    if status == ChargeStatus.PENDING:
        return Reason.of(ReasonCode.OUTCOME_PENDING)
    return Reason.of(ReasonCode.OUTCOME_OTHER, status=None if status is None else str(status))


__all__ = [
    "ChargeElsewhere",
    "ChargeOutcome",
    "ChargeService",
    "EndReport",
    "MoneyOperationBusy",
    "MoneyOperationError",
    "MoneyOperationNotStored",
    "MoneyOperationRefused",
    "MoneyOperationUnknown",
    "MoneyView",
    "NotRecorded",
    "SaleBusy",
    "StartCheck",
    "judge_start",
]
