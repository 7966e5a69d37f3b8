"""Charging against the built-in sandbox over loopback: tokens, 401s, the ambiguous card, cards."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import httpx
import pytest
import pytest_asyncio

from checkout_desktop.charges.outcome import ChargeOutcome
from checkout_desktop.charges.service import MoneyOperationRefused, SaleBusy
from checkout_desktop.domain.charge_events import AttemptChanged, ChargeChanged, TokenStateChanged
from checkout_desktop.domain.enums import ChargeStatus
from checkout_desktop.domain.money_ops import Figures, MoneyOpKind, MoneyOpState, money_reason
from checkout_desktop.domain.reasons import Reason, ReasonCode
from checkout_desktop.domain.state import AttemptState
from checkout_desktop.gateway.errors import Unauthorized
from checkout_desktop.sandbox.server import SandboxConfig, SandboxServer
from tests.integration.charging_support import (
    APPROVED,
    DENIED,
    GATEWAY_ERROR,
    SLOW,
    THREE_DS_CHALLENGE,
    THREE_DS_FRICTIONLESS,
    SandboxAccess,
    Stack,
    card_token,
    charge_request,
    charging_stack,
    visa,
)

logger = logging.getLogger(__name__)


async def start_sandbox(**options: object) -> SandboxServer:
    config = SandboxConfig(api_port=0, sdk_port=0, **options)  # type: ignore[arg-type]
    server = SandboxServer(config)
    await server.start()
    return server


@pytest_asyncio.fixture
async def sandbox() -> AsyncIterator[SandboxServer]:
    server = await start_sandbox(slow_card_delay_s=2.0)
    try:
        yield server
    finally:
        await server.stop()


async def until(
    condition: Callable[[], Awaitable[bool]],
    *,
    what: str,
    attempts: int = 100,
    interval_s: float = 0.1,
) -> None:
    """Poll a condition a bounded number of times; fail naming what never came."""
    for _ in range(attempts):
        if await condition():
            return
        await asyncio.sleep(interval_s)
    pytest.fail(f"gave up waiting: {what}")


@pytest.mark.asyncio
async def test_every_test_card_ends_in_its_outcome(sandbox: SandboxServer, tmp_path: Path) -> None:
    access = SandboxAccess.of_server(sandbox)
    async with charging_stack(access, tmp_path / "store.sqlite3", timeout_s=1.0) as stack:
        changes: list[ChargeChanged] = []
        stack.events.subscribe(ChargeChanged, changes.append)
        outcomes = {}
        for number in (
            APPROVED,
            DENIED,
            GATEWAY_ERROR,
            SLOW,
            THREE_DS_CHALLENGE,
            THREE_DS_FRICTIONLESS,
        ):
            token = await card_token(access, number)
            outcomes[number] = await stack.service.charge(
                sale_id=f"sale-{number[-4:]}",
                request=charge_request(token),
                tenders=visa(number[-4:]),
            )
        approved = outcomes[APPROVED]
        assert (approved.attempt, approved.status, approved.approved) == (
            AttemptState.CREATED,
            ChargeStatus.PAID,
            True,
        )
        denied = outcomes[DENIED]
        assert (denied.attempt, denied.status, denied.approved) == (
            AttemptState.CREATED,
            ChargeStatus.DENIED,
            False,
        )
        # HTTP 500 and no charge: one query settles it, since the service did answer.
        failed = outcomes[GATEWAY_ERROR]
        assert failed.attempt == AttemptState.NOT_FOUND
        assert failed.message.code == ReasonCode.NOT_CHARGED_NO_CHARGE
        error = failed.message.args["error"]
        assert isinstance(error, Reason) and error.code == ReasonCode.API_FAILED
        assert error.args["http_code"] == 500
        assert failed.merchant_charge_id not in sandbox.state.charges
        # The slow card: no reply in time, the charge exists, found by asking.
        slow = outcomes[SLOW]
        assert (slow.attempt, slow.status) == (AttemptState.CREATED, ChargeStatus.PAID)
        timeline = stack.service.store.repo.timeline(slow.merchant_charge_id).items
        assert [e.source for e in timeline] == [
            "request",
            "reply",
            "reconciliation",
            "reconciliation",
        ]
        timed_out = timeline[1].reason_data
        assert timed_out is not None and timed_out.code == ReasonCode.UNKNOWN_MAY_EXIST
        assert timed_out.args["error"] == Reason.of(
            ReasonCode.REPLY_TIMEOUT, operation=Reason.of(ReasonCode.OP_AUTHORIZATION), seconds="1"
        )
        assert timeline[2].input_status == "PAID"
        # 3DS cards without the 3DS calls: decided in the reply, never pending.
        needs_challenge = outcomes[THREE_DS_CHALLENGE]
        assert (needs_challenge.status, needs_challenge.message) == (
            ChargeStatus.DENIED,
            Reason.of(ReasonCode.OUTCOME_DENIED),
        )
        assert outcomes[THREE_DS_FRICTIONLESS].status == ChargeStatus.PAID
        created = {o.merchant_charge_id for o in outcomes.values() if o.attempt == "CREATED"}
        assert set(sandbox.state.charges) == created
        assert len(created) == 5
        assert {c.merchant_charge_id for c in changes} == created
        assert stack.tokens.token_requests == 1


@pytest.mark.asyncio
async def test_100_concurrent_charges_cause_one_token_request(
    sandbox: SandboxServer, tmp_path: Path
) -> None:
    access = SandboxAccess.of_server(sandbox)
    tokens = [await card_token(access, APPROVED) for _ in range(100)]
    async with charging_stack(access, tmp_path / "store.sqlite3") as stack:
        seen: list[TokenStateChanged] = []
        stack.events.subscribe(TokenStateChanged, seen.append)
        outcomes = await asyncio.gather(
            *(
                stack.service.charge(
                    sale_id=f"sale-{i}", request=charge_request(token), tenders=visa("1111")
                )
                for i, token in enumerate(tokens)
            )
        )
        assert all(o.status == ChargeStatus.PAID for o in outcomes)
        assert sandbox.state.tokens_issued == 1
        assert stack.tokens.token_requests == 1
        assert [e.status for e in seen] == ["refreshing", "valid"]
        assert len(sandbox.state.charges) == 100
        page = stack.service.store.repo.list_charges(limit=200)
        assert len(page.items) == 100
        assert {c.status for c in page.items} == {ChargeStatus.PAID}
        assert 401 not in stack.statuses


@pytest.mark.asyncio
async def test_a_token_expiring_between_two_charges_is_renewed_before_the_second(
    tmp_path: Path,
) -> None:
    server = await start_sandbox(token_lifetime_s=1.5)
    try:
        access = SandboxAccess.of_server(server)
        # The spelling the sandbox reads is learned already: each charge is one request.
        async with charging_stack(
            access, tmp_path / "store.sqlite3", timeout_s=5.0, token_field="temporatyCardToken"
        ) as stack:
            first = await stack.service.charge(
                sale_id="sale-1",
                request=charge_request(await card_token(access, APPROVED)),
                tenders=visa("1111"),
            )
            token = await card_token(access, APPROVED)

            async def expired() -> bool:
                left = stack.tokens.seconds_left()
                return left is not None and left <= 0

            await until(expired, what="the first token to run out")
            second = await stack.service.charge(
                sale_id="sale-2", request=charge_request(token), tenders=visa("1111")
            )
        assert (first.status, second.status) == (ChargeStatus.PAID, ChargeStatus.PAID)
        assert server.state.tokens_issued == 2
        assert 401 not in stack.statuses  # renewed ahead, not after a refusal
    finally:
        await server.stop()


@pytest.mark.asyncio
async def test_a_token_the_service_expired_early_is_renewed_once_mid_run(
    sandbox: SandboxServer, tmp_path: Path
) -> None:
    access = SandboxAccess.of_server(sandbox)
    async with charging_stack(access, tmp_path / "store.sqlite3") as stack:
        tokens = [await card_token(access, APPROVED) for _ in range(6)]
        first = await stack.service.charge(
            sale_id="sale-0", request=charge_request(tokens[0]), tenders=visa("1111")
        )
        assert first.status == ChargeStatus.PAID
        sandbox.faults.update(token_expiry_now=True)
        # Five charges at once all meet the expired token; they share one renewal.
        rest = await asyncio.gather(
            *(
                stack.service.charge(
                    sale_id=f"sale-{i}", request=charge_request(t), tenders=visa("1111")
                )
                for i, t in enumerate(tokens[1:], start=1)
            )
        )
        assert all(o.status == ChargeStatus.PAID for o in rest)
        assert sandbox.state.tokens_issued == 2
        assert stack.statuses.count(401) == 5
        assert len(sandbox.state.charges) == 6


@pytest.mark.asyncio
async def test_a_401_that_survives_renewal_fails_clearly_and_charges_nothing(
    sandbox: SandboxServer, tmp_path: Path
) -> None:
    access = SandboxAccess.of_server(sandbox)
    async with charging_stack(access, tmp_path / "store.sqlite3") as stack:
        first = await stack.service.charge(
            sale_id="sale-1",
            request=charge_request(await card_token(access, APPROVED)),
            tenders=visa("1111"),
        )
        assert first.status == ChargeStatus.PAID
        token = await card_token(access, APPROVED)

        # From now on the service expires every token just before each API call.
        async def expire_before_api_calls(request: httpx.Request) -> None:
            if "/api/v1/" in request.url.path:
                sandbox.expire_tokens_now()

        stack.http.event_hooks["request"].append(expire_before_api_calls)
        attempts: list[AttemptChanged] = []
        stack.events.subscribe(AttemptChanged, attempts.append)
        outcome = await stack.service.charge(
            sale_id="sale-2", request=charge_request(token), tenders=visa("1111")
        )
        assert outcome.attempt == AttemptState.REJECTED
        assert isinstance(outcome.error, Unauthorized)
        assert outcome.message.code == ReasonCode.NOT_CHARGED
        assert outcome.message.args["error"] == outcome.error.reason
        assert outcome.error.reason.code == ReasonCode.TOKEN_REFUSED_AGAIN
        assert outcome.merchant_charge_id not in sandbox.state.charges
        # Exactly one renewal and one retry, then the clear error.
        assert sandbox.state.tokens_issued == 2
        assert stack.statuses[-3:] == [401, 200, 401]  # refused, new token, refused again
        assert [a.state for a in attempts] == [AttemptState.RECORDED, AttemptState.REJECTED]
        # The sale may be charged again once the cause is fixed.
        assert await stack.service.can_start_charge("sale-2")


@pytest.mark.asyncio
async def test_the_slow_card_ends_as_one_charge_and_blocks_a_second_until_resolved(
    sandbox: SandboxServer, tmp_path: Path
) -> None:
    access = SandboxAccess.of_server(sandbox)
    async with charging_stack(access, tmp_path / "store.sqlite3", timeout_s=1.0) as stack:
        slow_token = await card_token(access, SLOW)
        spare_token = await card_token(access, APPROVED)
        request = charge_request(slow_token)

        # Once the sandbox holds the charge (its reply is still 2 s away), the service turns
        # slow for every call, so even the query after the timeout gets no answer in time.
        async def created() -> bool:
            return request.merchantChargeId in sandbox.state.charges

        async def slow_down_once_created() -> None:
            await until(created, what="the sandbox to hold the charge", interval_s=0.01)
            sandbox.faults.update(latency_s=1.5)

        watcher = asyncio.ensure_future(slow_down_once_created())
        outcome = await stack.service.charge(
            sale_id="sale-slow", request=request, tenders=visa("9995")
        )
        await watcher
        assert outcome.unknown
        assert outcome.message.code in (
            ReasonCode.OUTCOME_UNKNOWN,
            ReasonCode.OUTCOME_UNKNOWN_LAST_QUERY,
        )
        check = await stack.service.can_start_charge("sale-slow")
        assert not check
        assert check.blocking_charge == outcome.merchant_charge_id
        assert check.reason == Reason.of(
            ReasonCode.START_UNRESOLVED, sale="sale-slow", charge=outcome.merchant_charge_id
        )
        with pytest.raises(SaleBusy, match="could charge the customer twice"):
            await stack.service.charge(
                sale_id="sale-slow", request=charge_request(spare_token), tenders=visa("1111")
            )

        sandbox.faults.update(latency_s=0.0)

        async def resolved() -> bool:
            await stack.service.reconcile(trigger="on demand")
            attempt = stack.service.store.repo.attempt(outcome.merchant_charge_id)
            assert attempt is not None
            return not attempt.unresolved

        await until(resolved, what="reconciliation to resolve the slow charge")
        attempt = stack.service.store.repo.attempt(outcome.merchant_charge_id)
        assert attempt is not None and attempt.state == AttemptState.CREATED
        charges = stack.service.store.repo.charges_for_sale("sale-slow")
        assert [(c.merchant_charge_id, c.status) for c in charges] == [
            (outcome.merchant_charge_id, ChargeStatus.PAID)
        ]
        assert list(sandbox.state.charges) == [outcome.merchant_charge_id]
        assert len(stack.service.store.repo.attempts_for_sale("sale-slow")) == 1
        sources = [
            e.source for e in stack.service.store.repo.timeline(outcome.merchant_charge_id).items
        ]
        assert "reconciliation" in sources
        # Paid now: a second charge for the sale is still refused, for a new reason.
        again = await stack.service.can_start_charge("sale-slow")
        assert not again and again.reason is not None
        assert again.reason.code == ReasonCode.START_MONEY_HELD


@pytest.mark.asyncio
async def test_capture_and_refunds_move_the_charge(sandbox: SandboxServer, tmp_path: Path) -> None:
    access = SandboxAccess.of_server(sandbox)
    async with charging_stack(access, tmp_path / "store.sqlite3") as stack:
        late = await stack.service.charge(
            sale_id="sale-late",
            request=charge_request(await card_token(access, APPROVED), late_capture=True),
            tenders=visa("1111"),
        )
        assert late.status == ChargeStatus.PRE_AUTHORIZED
        captured = await stack.service.capture(late.merchant_charge_id)
        assert captured.status == ChargeStatus.PAID
        partial = await stack.service.refund(late.merchant_charge_id, 500)
        assert (partial.status, partial.refunded_amount) == (ChargeStatus.PARTIAL, 500)
        full = await stack.service.refund(late.merchant_charge_id)
        assert (full.status, full.refunded_amount) == (ChargeStatus.REFUNDED, 1500)
        reasons = [
            e.reason_data for e in stack.service.store.repo.timeline(late.merchant_charge_id).items
        ]
        assert money_reason(MoneyOpKind.CAPTURE, 1500, "requested") in reasons
        assert money_reason(MoneyOpKind.REFUND, 500, "requested") in reasons
        assert money_reason(MoneyOpKind.REFUND, 1000, "requested") in reasons
        # Ruled out by the service's own figures (asked just before): nothing is sent.
        with pytest.raises(MoneyOperationRefused) as refused:
            await stack.service.refund(late.merchant_charge_id, 1)
        assert refused.value.why == Reason.of(ReasonCode.MONEY_ALREADY_REFUNDED)
        assert refused.value.figures == Figures(ChargeStatus.REFUNDED, 1500, 1500)
        ops = stack.service.store.repo.money_operations(late.merchant_charge_id)
        assert [(o.kind, o.amount, o.state) for o in ops] == [
            (MoneyOpKind.CAPTURE, 1500, MoneyOpState.CONFIRMED),
            (MoneyOpKind.REFUND, 500, MoneyOpState.CONFIRMED),
            (MoneyOpKind.REFUND, 1000, MoneyOpState.CONFIRMED),
        ]


async def _paid(stack: Stack, access: SandboxAccess, sale: str) -> str:
    outcome = await stack.service.charge(
        sale_id=sale,
        request=charge_request(await card_token(access, APPROVED)),
        tenders=visa("1111"),
    )
    assert outcome.status == ChargeStatus.PAID
    return outcome.merchant_charge_id


@pytest.mark.asyncio
async def test_the_reconciler_checks_charges_whose_notification_did_not_arrive(
    sandbox: SandboxServer, tmp_path: Path
) -> None:
    from datetime import timedelta

    from checkout_desktop.charges.reconciler import CheckPolicy

    access = SandboxAccess.of_server(sandbox)
    policy = CheckPolicy(interval=timedelta(seconds=0.2), notification_grace=timedelta(seconds=0.2))
    async with charging_stack(access, tmp_path / "store.sqlite3", policy=policy) as stack:
        mcid = await _paid(stack, access, "sale-1")
        record = stack.service.store.repo.charge(mcid)
        expecting = Reason.of(ReasonCode.CHECK_EXPECT_NOTIFICATION, status="PAID")
        assert record is not None and record.check_reason_data == expecting
        stack.service.start(interval_s=0.2, fast_interval_s=0.1)

        async def checked() -> bool:
            current = stack.service.store.repo.charge(mcid)
            return current is not None and current.next_check_at is None

        await until(checked, what="the reconciler to confirm the charge")
        await stack.service.stop()
        last = stack.service.store.repo.timeline(mcid).items[-1]
        assert last.source == "reconciliation"
        assert last.reason_data is not None
        assert last.reason_data.code == ReasonCode.WITH_CONTEXT
        assert last.reason_data.args["context"] == Reason.of(
            ReasonCode.TRIGGER_BECAUSE,
            trigger=Reason.of(ReasonCode.TRIGGER_SCHEDULE),
            why=expecting,
        )
        assert last.outcome == "duplicate"


@pytest.mark.asyncio
async def test_a_charge_left_without_a_reply_is_told_by_the_probe_until_the_service_answers(
    sandbox: SandboxServer, tmp_path: Path
) -> None:
    # The probe only connects: the slow card's host took the connection and sent nothing in
    # time, and the status bar went on saying "acessível".
    from checkout_desktop.doctor.checks import Reached, Target
    from checkout_desktop.doctor.probe import (
        Reachability,
        ReachabilityProbe,
        ServiceReachabilityChanged,
    )

    access = SandboxAccess.of_server(sandbox)
    async with charging_stack(access, tmp_path / "store.sqlite3", timeout_s=1.0) as stack:

        async def connects(target: Target, within_s: float) -> Reached:
            return Reached(None, "")

        seen: list[Reachability] = []
        stack.events.subscribe(ServiceReachabilityChanged, lambda e: seen.append(e.level))
        probe = ReachabilityProbe(
            bus=stack.events,
            api=Target("127.0.0.1", 443, None),
            sdk=None,
            interval_s=3600,
            reacher=connects,
        )

        async def probed() -> bool:
            return bool(seen)

        probe.start()
        try:
            await until(probed, what="the first probe")
            slow = await _slow_card_sale(stack, access, "sale-slow")
        finally:
            await probe.stop()
    # No reply within the second: told at once; the query right after it was answered (the
    # charge exists, paid) and ended it. One probe only: neither needed a connection.
    assert (slow.attempt, slow.status) == (AttemptState.CREATED, ChargeStatus.PAID)
    assert seen == [Reachability.REACHABLE, Reachability.NOT_ANSWERING, Reachability.REACHABLE]
    assert probe.probes == 1


async def _slow_card_sale(stack: Stack, access: SandboxAccess, sale_id: str) -> ChargeOutcome:
    """A sale charged with the sandbox's slow card (its reply comes after the timeout)."""
    token = await card_token(access, SLOW)
    return await stack.service.charge(
        sale_id=sale_id, request=charge_request(token), tenders=visa(SLOW[-4:])
    )


@pytest.mark.asyncio
async def test_a_charge_the_service_notified_paid_before_its_late_reply_is_told_paid(
    sandbox: SandboxServer, tmp_path: Path
) -> None:
    # The reply did not come in time and the query after it timed out too, but the service's
    # notification had said PAID meanwhile: the clerk read "Resultado desconhecido —
    # consultando" beside a receipt saying "Paga", and nothing ever changed it.
    from checkout_desktop.domain.wire import ChargeUpdate, TransactionInfo

    access = SandboxAccess.of_server(sandbox)
    async with charging_stack(access, tmp_path / "store.sqlite3", timeout_s=1.0) as stack:

        async def held() -> bool:
            return bool(sandbox.state.charges)

        task = asyncio.ensure_future(_slow_card_sale(stack, access, "sale-late"))
        await until(held, what="the charge at the service")
        (mcid,) = sandbox.state.charges
        # The service is slow from now on: the query right after the timeout gets no reply.
        sandbox.faults.update(latency_s=3.0)
        try:
            async with stack.service.store.unit_of_work() as uow:
                await stack.service.ledger.apply_update(
                    uow.charges,
                    ChargeUpdate(
                        mcid,
                        None,
                        ChargeStatus.PAID,
                        1500,
                        0,
                        # The card without its number, as a notification may tell it.
                        transactions=[
                            TransactionInfo.model_validate(
                                {
                                    "paymentType": "CREDIT",
                                    "transactionId": "t-1",
                                    "status": "PAID",
                                    "amount": 1500,
                                    "credit": {
                                        "brand": "VISA",
                                        "nsu": "123",
                                        "authorizationCode": "A1",
                                    },
                                }
                            )
                        ],
                    ),
                    source="webhook",
                    source_ref="evt-1",
                )
            outcome = await task
        finally:
            sandbox.faults.update(latency_s=0.0)
        attempt = stack.service.store.repo.attempt(mcid)
    assert attempt is not None and attempt.state == AttemptState.CREATED
    assert (outcome.attempt, outcome.status) == (AttemptState.CREATED, ChargeStatus.PAID)
    assert outcome.record is not None and outcome.record.status == ChargeStatus.PAID
    # The receipt said "VISA •••• ????": the card the sale was tried with names it.
    (card,) = outcome.record.state.transactions
    assert (card.brand, card.last_four) == ("VISA", SLOW[-4:])
