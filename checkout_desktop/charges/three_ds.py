"""A card charge authenticated by 3-D Secure first: setup, enrollment, challenge, authorization.

The flow is a state machine whose every step is written (with a timeline row) before the call
it names is sent:

    SETUP ─► ENROLLMENT ─► [CHALLENGE] ─► AUTHORIZATION ─► DONE
                  ├──── unavailable (a technical failure) ──► FALLBACK ─► DONE   (or ENDED)
                  └──── rejected / cancelled / timed out / sent elsewhere ──► ENDED

Only AUTHORIZATION (the 3DS authorization) and FALLBACK (the plain authorization the policy may
allow) move money. They are recorded durably before sending, and a lost reply is settled the
way every card charge is: the attempt turns UNKNOWN and the service is asked about the charge
(`charges/reconciler.py`), never sent again. A terminal stopped before either step ends the sale
cleanly at its next start (nothing was charged); stopped after, it asks.

The challenge's result comes from the `THREE_DS_CHALLENGE` notification (merged into the
charge by the inbox) or from the status endpoint, whichever is seen first; a duplicate or late
notification only lands on the timeline.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from checkout_desktop.charges.outcome import ChargeOutcome
from checkout_desktop.domain.charge_events import ChargeChanged
from checkout_desktop.domain.enums import ThreeDsStatus
from checkout_desktop.domain.reasons import Reason, ReasonCode
from checkout_desktop.domain.state import AttemptState
from checkout_desktop.domain.three_ds import (
    FALLBACK_RESULTS,
    MONEY_STEPS,
    NOTIFIED_WORDS,
    AuthenticationResult,
    BrowserInfo,
    Challenge,
    EnrollmentTransactionReply,
    ThreeDsAuthorizationRequest,
    ThreeDsFallback,
    ThreeDsFlowRecord,
    ThreeDsStep,
    notified_result,
    result_reason,
    status_result,
)
from checkout_desktop.domain.wire import ThreeDsUpdate
from checkout_desktop.gateway.errors import ApiError, GatewayError
from checkout_desktop.gateway.three_ds import ThreeDsClient

if TYPE_CHECKING:
    from checkout_desktop.charges.service import ChargeService
    from checkout_desktop.domain.records import AttemptRecord, TenderSummary
    from checkout_desktop.domain.wire import ChargeAuthorizationRequest

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class ThreeDsProgress:
    """Where a 3DS charge stands, for the screen: one stage at a time."""

    merchant_charge_id: str
    stage: str
    """``authenticating``, ``challenge`` (the customer answers the bank), ``charging``."""
    challenge: Challenge | None = None


ProgressHandler = Callable[[ThreeDsProgress], None]


class ThreeDsFlow:
    """3DS charges of one charge service (its store, client, ledger and reconciler)."""

    def __init__(
        self,
        service: ChargeService,
        *,
        poll_s: float = 3.0,
        challenge_timeout_s: float = 600.0,
        store_check_s: float = 0.5,
    ) -> None:
        self.service = service
        self.client = ThreeDsClient(service.client)
        self.poll_s = poll_s
        """How often the status endpoint is asked while a challenge is open."""
        self.challenge_timeout_s = challenge_timeout_s
        self.store_check_s = store_check_s
        """How often the store is read for a notification merged by another process (`listen`);
        one merged here wakes the flow at once."""
        self._cancels: dict[str, asyncio.Event] = {}
        self._endings: dict[str, AuthenticationResult] = {}
        """How the screen ended a challenge (cancelled, or its page sent elsewhere)."""

    # -- the flow ------------------------------------------------------------------------------

    async def charge(
        self,
        *,
        sale_id: str,
        request: ChargeAuthorizationRequest,
        tenders: list[TenderSummary] | tuple[TenderSummary, ...],
        browser: BrowserInfo | None,
        fallback: ThreeDsFallback,
        on_progress: ProgressHandler | None = None,
    ) -> ChargeOutcome:
        """Authenticate the card, then charge it; the outcome as `ChargeService.charge` gives.

        `fallback` says what happens when authentication cannot be done (unavailable, a
        technical failure): ``refuse`` (nothing is charged) or ``without`` (the plain
        authorization). Rejected by the bank, cancelled, unanswered or sent elsewhere, the sale
        ends uncharged whatever the fallback (`FALLBACK_RESULTS`).
        """
        service = self.service
        if len(request.transactions) != 1:
            raise ValueError("3DS authenticates a charge paid by exactly one card")
        attempt = await service._record_attempt(
            sale_id=sale_id, request=request, tenders=tenders, three_ds=True
        )
        mcid = attempt.merchant_charge_id
        # The reconciler leaves a charge alone while it is in flight: no query races the flow.
        service._in_flight.add(mcid)
        self._cancels[mcid] = asyncio.Event()
        try:
            self._tell(on_progress, ThreeDsProgress(mcid, "authenticating"))
            try:
                result, why = await self._authenticate(attempt, request, browser, on_progress)
            except (GatewayError, ValueError) as exc:
                # Nothing that moves money has been sent: an answer the flow cannot use
                # (a malformed reply, an unusable id) is an authentication that failed.
                logger.warning("3DS %s: authentication could not go on (%s)", mcid, exc)
                reason = exc.reason if isinstance(exc, GatewayError) else None
                await self._note(
                    mcid, Reason.of(ReasonCode.TDS_UNAVAILABLE, error=reason or str(exc))
                )
                result, why = AuthenticationResult.FAILED, reason
            flow = await self._flow(mcid)
            if result == AuthenticationResult.AUTHENTICATED:
                self._tell(on_progress, ThreeDsProgress(mcid, "charging"))
                outcome = await self._authorize(attempt, request, flow)
            else:
                outcome = await self._after_authentication_failed(
                    attempt, request, result, why, fallback, on_progress
                )
        finally:
            self._cancels.pop(mcid, None)
            self._endings.pop(mcid, None)
            service._in_flight.discard(mcid)
        return replace(outcome, record=await service.store.charges.charge(mcid))

    def cancel_challenge(self, merchant_charge_id: str) -> bool:
        """The clerk closed the challenge: the sale ends uncharged."""
        return self.end_challenge(merchant_charge_id, AuthenticationResult.CANCELLED)

    def end_challenge(self, merchant_charge_id: str, result: AuthenticationResult) -> bool:
        """The screen ended the challenge before the bank answered (`result` says how: the
        clerk cancelled it, or the bank's page tried to leave for an address the view
        refuses). Nothing is charged, whatever the fallback. False when no challenge of this
        charge is waiting (the first ending given is the one kept)."""
        event = self._cancels.get(merchant_charge_id)
        if event is None or event.is_set():
            return False
        self._endings[merchant_charge_id] = result
        event.set()
        return True

    async def _authenticate(
        self,
        attempt: AttemptRecord,
        request: ChargeAuthorizationRequest,
        browser: BrowserInfo | None,
        on_progress: ProgressHandler | None,
    ) -> tuple[AuthenticationResult, Reason | None]:
        mcid = attempt.merchant_charge_id
        if browser is None:
            # Enrollment needs the shopper's browser: without it, no setup is even sent.
            await self._note(mcid, Reason.of(ReasonCode.TDS_NO_BROWSER))
            return AuthenticationResult.FAILED, Reason.of(ReasonCode.TDS_NO_BROWSER)
        try:
            setup = await self.client.setup(request)
        except GatewayError as exc:
            # Setup moves no money: a refusal or a lost reply means no authentication.
            await self._note(mcid, Reason.of(ReasonCode.TDS_UNAVAILABLE, error=exc.reason))
            body = exc.body if isinstance(exc, ApiError) else None
            if body is not None and body.names_card_data_required():
                # Never possible here, not a passing outage: the clerk is told so.
                return AuthenticationResult.FAILED, Reason.of(
                    ReasonCode.TDS_NEEDS_CARD_DATA, error=exc.reason
                )
            return AuthenticationResult.FAILED, exc.reason
        charge_id = setup.chargeId
        authentication_id = setup.transactions[0].cardholderAuthenticationId
        await self._move(
            mcid,
            ThreeDsStep.ENROLLMENT,
            Reason.of(ReasonCode.TDS_SETUP_DONE, charge=charge_id),
            source="reply",
            charge_id=charge_id,
            authentication_id=authentication_id,
        )
        customer = request.customer.model_dump(mode="json", exclude_none=True)
        try:
            enrolled = await self.client.enroll(charge_id, customer, browser, request)
        except GatewayError as exc:
            # Where the authentication stands is the status endpoint's to say.
            asked = await self._ask(mcid, charge_id)
            if asked is not None:
                return asked, None
            await self._note(mcid, Reason.of(ReasonCode.TDS_UNAVAILABLE, error=exc.reason))
            return AuthenticationResult.FAILED, exc.reason
        answer = enrolled.transactions[0]
        status = answer.cardholderAuthenticationStatus
        await self._note(mcid, Reason.of(ReasonCode.TDS_ENROLLED, status=status), source="reply")
        if status == "Approved":
            await self._learned(mcid, charge_id, ThreeDsStatus.APPROVED)
            return AuthenticationResult.AUTHENTICATED, None
        if status == "Rejected":
            await self._learned(mcid, charge_id, ThreeDsStatus.REJECTED)
            return AuthenticationResult.REJECTED, None
        challenge = _challenge(mcid, answer)
        if status != "Challenged" or challenge is None:
            return AuthenticationResult.FAILED, Reason.of(ReasonCode.TDS_ENROLLED, status=status)
        await self._move(
            mcid,
            ThreeDsStep.CHALLENGE,
            Reason.of(ReasonCode.TDS_CHALLENGE),
            source="3ds",
            step_up_url=challenge.step_up_url,
            width=challenge.width,
            height=challenge.height,
        )
        self._tell(on_progress, ThreeDsProgress(mcid, "challenge", challenge))
        return await self._await_result(mcid, charge_id), None

    async def _await_result(self, mcid: str, charge_id: str) -> AuthenticationResult:
        """The challenge's result: a notification or the status endpoint, whichever first."""
        loop = asyncio.get_running_loop()
        cancel = self._cancels[mcid]
        changed = asyncio.Event()

        def on_change(event: ChargeChanged) -> None:
            if event.merchant_charge_id == mcid:
                changed.set()

        bus = self.service.events
        unsubscribe = bus.subscribe(ChargeChanged, on_change) if bus is not None else None
        deadline = loop.time() + self.challenge_timeout_s
        next_poll = loop.time() + self.poll_s
        try:
            while True:
                changed.clear()
                record = await self.service.store.charges.charge(mcid)
                notified = notified_result(record.three_ds_status if record else None)
                if notified is not None and record is not None:
                    await self._note(
                        mcid,
                        Reason.of(ReasonCode.TDS_RESULT_NOTIFIED, status=record.three_ds_status),
                    )
                    return notified
                if cancel.is_set():
                    return self._endings.get(mcid, AuthenticationResult.CANCELLED)
                now = loop.time()
                if now >= next_poll:
                    asked = await self._ask(mcid, charge_id)
                    if asked is not None:
                        return asked
                    next_poll = loop.time() + self.poll_s
                if now >= deadline:
                    return AuthenticationResult.TIMED_OUT
                waits = {
                    asyncio.ensure_future(changed.wait()),
                    asyncio.ensure_future(cancel.wait()),
                }
                try:
                    wake = min(next_poll, deadline, loop.time() + self.store_check_s)
                    await asyncio.wait(
                        waits,
                        timeout=max(0.0, wake - loop.time()),
                        return_when=asyncio.FIRST_COMPLETED,
                    )
                finally:
                    for task in waits:
                        task.cancel()
        finally:
            if unsubscribe is not None:
                unsubscribe()

    async def _ask(self, mcid: str, charge_id: str) -> AuthenticationResult | None:
        """One status query; None while undecided or when the service cannot be asked."""
        try:
            reply = await self.client.status(charge_id)
        except (GatewayError, ValueError) as exc:
            logger.info("3DS %s: status not known (%s)", mcid, exc)
            return None
        result = status_result(reply.status)
        if result is not None:
            await self._note(
                mcid,
                Reason.of(
                    ReasonCode.TDS_RESULT_ASKED, status=reply.status, why=result_reason(result)
                ),
                source="3ds",
            )
            said = NOTIFIED_WORDS.get(result)
            if said is not None:
                await self._learned(mcid, charge_id, ThreeDsStatus(said))
        return result

    async def _learned(self, mcid: str, charge_id: str, status: ThreeDsStatus) -> None:
        """A result the terminal learned itself (the enrollment's reply, the status endpoint)
        becomes the charge's, as the service's notification of it would: the history then
        shows it whether or not a notification comes, and one that comes later is a
        duplicate. It carries no time of its own, so it never orders itself before one."""
        update = ThreeDsUpdate(
            merchant_charge_id=mcid,
            charge_id=charge_id,
            status=status,
            pares_status=None,
            eci=None,
            occurred_at=None,
            received_at=None,
        )
        ledger = self.service.ledger
        async with self.service.store.unit_of_work(durable=False) as uow:
            result = await ledger.apply_update(uow.charges, update, source="3ds", source_ref=None)
        ledger.publish_all(result.events)

    async def _authorize(
        self, attempt: AttemptRecord, request: ChargeAuthorizationRequest, flow: ThreeDsFlowRecord
    ) -> ChargeOutcome:
        mcid = attempt.merchant_charge_id
        assert flow.charge_id is not None
        assert flow.authentication_id is not None
        credit = request.transactions[0].credit
        body = ThreeDsAuthorizationRequest.model_validate(
            {
                "chargeId": flow.charge_id,
                "capture": not request.lateCapture,
                "transactions": [
                    {
                        "installmentNumber": credit.installmentNumber,
                        "installmentType": credit.installmentType.value,
                        "card": {"cardholderAuthenticationId": flow.authentication_id},
                    }
                ],
            }
        )
        # Durable before sending: this is the call that creates the charge.
        await self._move(
            mcid,
            ThreeDsStep.AUTHORIZATION,
            Reason.of(ReasonCode.TDS_AUTHORIZATION_RECORDED),
            source="request",
            result=AuthenticationResult.AUTHENTICATED.value,
        )
        try:
            outcome = await self.service._send_recorded(
                attempt, lambda: self.client.authorize(mcid, body)
            )
        finally:
            # Answered, or settled by asking from here on: the attempt says the rest.
            await self._close(mcid, ThreeDsStep.DONE)
        return outcome

    async def _after_authentication_failed(
        self,
        attempt: AttemptRecord,
        request: ChargeAuthorizationRequest,
        result: AuthenticationResult,
        why: Reason | None,
        fallback: ThreeDsFallback,
        on_progress: ProgressHandler | None,
    ) -> ChargeOutcome:
        mcid, service = attempt.merchant_charge_id, self.service
        if fallback == "without" and result in FALLBACK_RESULTS:
            await self._move(
                mcid,
                ThreeDsStep.FALLBACK,
                Reason.of(ReasonCode.TDS_FALLBACK, status=result.value, why=result_reason(result)),
                source="request",
                result=result.value,
            )
            self._tell(on_progress, ThreeDsProgress(mcid, "charging"))
            sale = attempt.sale_id
            try:
                return await service._send_recorded(
                    attempt, lambda: service.client.authorize(request, session_id=sale)
                )
            finally:
                await self._close(mcid, ThreeDsStep.DONE)
        said = why if why is not None and why.code == ReasonCode.TDS_NEEDS_CARD_DATA else None
        # Refused by the settings only where they had a say; otherwise the ending itself
        # refuses the card (a bank's no, a confirmation given up or sent elsewhere).
        code = ReasonCode.TDS_REFUSED if result in FALLBACK_RESULTS else ReasonCode.TDS_ENDED
        reason = Reason.of(code, status=result.value, why=said or result_reason(result))
        await self._close(mcid, ThreeDsStep.ENDED, result=result.value)
        flow = await self._flow(mcid)
        await service.ledger.settle_attempt(
            attempt,
            AttemptState.REJECTED,
            reason,
            source="system",
            detail=None if why is None else why.english(),
            opened_charge=flow.charge_id,
        )
        await self._nothing_to_ask(mcid)
        return ChargeOutcome(mcid, attempt.sale_id, AttemptState.REJECTED, None, reason)

    # -- after a stop ---------------------------------------------------------------------------

    async def end_interrupted(self) -> int:
        """At start-up, before the reconciler: settle the flows a stopped terminal left.

        Before a money step nothing was charged: the flow ends and its attempt is REJECTED, so
        the sale is free. After one, the attempt stays unresolved and the reconciler asks the
        service about the charge (never sending it again). Returns how many were settled.
        """
        service = self.service
        flows = await service.store.charges.open_three_ds_flows()
        settled = 0
        for flow in flows:
            mcid = flow.merchant_charge_id
            if mcid in service._in_flight:
                continue
            attempt = await service.store.charges.attempt(mcid)
            if attempt is not None and attempt.profile != service.profile:
                continue
            if flow.step in MONEY_STEPS:
                await self._close(
                    mcid,
                    ThreeDsStep.DONE,
                    note=Reason.of(ReasonCode.TDS_INTERRUPTED_SENT, step=flow.step.value),
                )
            else:
                reason = Reason.of(ReasonCode.TDS_INTERRUPTED, step=flow.step.value)
                await self._close(mcid, ThreeDsStep.ENDED, note=reason)
                if attempt is not None and attempt.unresolved:
                    await service.ledger.settle_attempt(
                        attempt,
                        AttemptState.REJECTED,
                        reason,
                        source="system",
                        opened_charge=flow.charge_id,
                    )
                await self._nothing_to_ask(mcid)
            settled += 1
            logger.info("3DS flow %s left at %s settled at start-up", mcid, flow.step)
        return settled

    # -- the store -----------------------------------------------------------------------------

    async def _flow(self, mcid: str) -> ThreeDsFlowRecord:
        flow = await self.service.store.charges.three_ds_flow(mcid)
        assert flow is not None
        return flow

    async def _move(
        self,
        mcid: str,
        step: ThreeDsStep,
        reason: Reason,
        *,
        source: str,
        **fields: str | int | None,
    ) -> None:
        # Only a money step needs the fsync: the others are ended cleanly if lost.
        durable = step in MONEY_STEPS
        async with self.service.store.unit_of_work(durable=durable) as uow:
            await uow.charges.move_three_ds(mcid, step, **fields)
            await uow.charges.add_timeline(
                mcid,
                source=source,
                outcome="recorded" if durable else "applied",
                reason=reason,
            )

    async def _close(
        self,
        mcid: str,
        step: ThreeDsStep,
        *,
        note: Reason | None = None,
        result: str | None = None,
    ) -> None:
        async with self.service.store.unit_of_work() as uow:
            flow = await uow.charges.three_ds_flow(mcid)
            if flow is None or not flow.open:
                return
            fields = {} if result is None else {"result": result}
            await uow.charges.move_three_ds(mcid, step, **fields)
            if note is not None:
                await uow.charges.add_timeline(
                    mcid, source="system", outcome="applied", reason=note
                )

    async def _nothing_to_ask(self, mcid: str) -> None:
        """A sale ended with nothing charged: a row that only a 3DS result made (no status) is
        not asked about again (the service will never hold that charge)."""
        async with self.service.store.unit_of_work(durable=False) as uow:
            record = await uow.charges.charge(mcid)
            if record is None or record.status is not None or record.next_check_at is None:
                return
            await uow.charges.set_checked(
                mcid, checks=record.checks, next_check_at=None, check_reason=None
            )

    async def _note(self, mcid: str, reason: Reason, *, source: str = "3ds") -> None:
        async with self.service.store.unit_of_work(durable=False) as uow:
            await uow.charges.add_timeline(mcid, source=source, outcome="applied", reason=reason)

    @staticmethod
    def _tell(handler: ProgressHandler | None, progress: ThreeDsProgress) -> None:
        if handler is None:
            return
        try:
            handler(progress)
        except Exception:
            # The screen's trouble must never stop a flow that may be moving money.
            logger.exception("a 3DS progress handler failed")


def _challenge(mcid: str, answer: EnrollmentTransactionReply) -> Challenge | None:
    """The challenge enrollment asked for, if it is complete and its URL is https; its size
    as the service says (within what a screen can show; 390x400 when it says none)."""
    url, token = answer.stepUpUrl, answer.accessToken
    width = answer.widthChallenge or 390
    height = answer.heightChallenge or 400
    if not url or not token or not str(url).lower().startswith("https://"):
        return None
    return Challenge(
        merchant_charge_id=mcid,
        step_up_url=str(url),
        access_token=str(token),
        width=max(250, min(int(width), 1000)),
        height=max(250, min(int(height), 1000)),
    )


__all__ = ["ProgressHandler", "ThreeDsFlow", "ThreeDsProgress"]
