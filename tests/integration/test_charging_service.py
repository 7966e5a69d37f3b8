"""ChargeService branches against the sandbox: refusals, cancellation, events, the scheduler."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from checkout_desktop.domain.charge_events import (
    AttemptChanged,
    ChargeChanged,
    ReconciliationFinished,
)
from checkout_desktop.domain.enums import ChargeStatus
from checkout_desktop.domain.reasons import Reason, ReasonCode
from checkout_desktop.domain.records import CardSummary
from checkout_desktop.domain.state import AttemptState
from checkout_desktop.gateway.errors import ServiceUnreachable
from checkout_desktop.sandbox.server import SandboxConfig, SandboxServer
from checkout_desktop.store.errors import ChargeNotKnown, RepositoryError
from tests.integration.charging_support import (
    APPROVED,
    SLOW,
    THREE_DS_REJECTED,
    SandboxAccess,
    card_token,
    charge_request,
    charging_stack,
    visa,
)

logger = logging.getLogger(__name__)


@pytest_asyncio.fixture
async def sandbox() -> AsyncIterator[SandboxServer]:
    server = SandboxServer(SandboxConfig(api_port=0, sdk_port=0, slow_card_delay_s=1.5))
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


@pytest.mark.asyncio
async def test_events_of_a_charge_in_order(sandbox: SandboxServer, tmp_path: Path) -> None:
    access = SandboxAccess.of_server(sandbox)
    async with charging_stack(access, tmp_path / "s.sqlite3") as stack:
        seen: list[object] = []
        stack.events.subscribe(AttemptChanged, seen.append)
        stack.events.subscribe(ChargeChanged, seen.append)
        outcome = await stack.service.charge(
            sale_id="sale-1",
            request=charge_request(await card_token(access, APPROVED)),
            tenders=visa("1111"),
        )
    assert [type(e).__name__ for e in seen] == ["AttemptChanged", "AttemptChanged", "ChargeChanged"]
    recorded, created, changed = seen
    assert isinstance(recorded, AttemptChanged) and recorded.state == AttemptState.RECORDED
    assert isinstance(created, AttemptChanged) and created.state == AttemptState.CREATED
    assert isinstance(changed, ChargeChanged)
    assert (changed.merchant_charge_id, changed.sale_id, changed.status) == (
        outcome.merchant_charge_id,
        "sale-1",
        "PAID",
    )
    assert changed.previous_status is None
    assert changed.source == "reply"


@pytest.mark.asyncio
async def test_bad_calls_are_refused_before_anything_is_recorded_or_sent(
    sandbox: SandboxServer, tmp_path: Path
) -> None:
    access = SandboxAccess.of_server(sandbox)
    async with charging_stack(access, tmp_path / "s.sqlite3") as stack:
        token = await card_token(access, APPROVED)
        request = charge_request(token)
        with pytest.raises(ValueError, match="1 transaction\\(s\\) but 2 tender summaries"):
            await stack.service.charge(
                sale_id="sale-1",
                request=request,
                tenders=[CardSummary("VISA", "1111"), CardSummary("ELO", "7013")],
            )
        assert stack.service.store.repo.attempt(request.merchantChargeId) is None
        first = await stack.service.charge(sale_id="sale-1", request=request, tenders=visa("1111"))
        assert first.status == ChargeStatus.PAID
        # The same merchantChargeId again (another sale) is never sent.
        with pytest.raises(RepositoryError, match="never reused"):
            await stack.service.charge(
                sale_id="sale-2",
                request=charge_request(
                    await card_token(access, APPROVED),
                    merchant_charge_id=request.merchantChargeId,
                ),
                tenders=visa("1111"),
            )
        assert await stack.service.can_start_charge("sale-2")
        with pytest.raises(ChargeNotKnown, match="no charge nothing-here-1"):
            await stack.service.capture("nothing-here-1")


@pytest.mark.asyncio
async def test_an_unreachable_token_server_charges_nothing(
    sandbox: SandboxServer, tmp_path: Path
) -> None:
    access = SandboxAccess.of_server(sandbox)
    broken = dataclasses.replace(access, api_url="http://127.0.0.1:9")
    async with charging_stack(broken, tmp_path / "s.sqlite3") as stack:
        token = await card_token(access, APPROVED)
        outcome = await stack.service.charge(
            sale_id="sale-1", request=charge_request(token), tenders=visa("1111")
        )
        assert outcome.attempt == AttemptState.REJECTED
        assert isinstance(outcome.error, ServiceUnreachable)
        assert outcome.message == Reason.of(ReasonCode.NOT_CHARGED, error=outcome.error.reason)
        assert outcome.error.reason.code == ReasonCode.TOKEN_SERVER_UNREACHABLE
        assert outcome.error.reason.args["operation"] == Reason.of(ReasonCode.OP_TOKEN)
        assert await stack.service.can_start_charge("sale-1")
        timeline = stack.service.store.repo.timeline(outcome.merchant_charge_id).items
        assert [e.source for e in timeline] == ["request", "request"]
    assert sandbox.state.charges == {}


@pytest.mark.asyncio
async def test_a_charge_abandoned_while_waiting_stays_unknown_until_asked(
    sandbox: SandboxServer, tmp_path: Path
) -> None:
    access = SandboxAccess.of_server(sandbox)
    async with charging_stack(access, tmp_path / "s.sqlite3", timeout_s=10.0) as stack:
        request = charge_request(await card_token(access, SLOW))
        task = asyncio.ensure_future(
            stack.service.charge(sale_id="sale-1", request=request, tenders=visa("9995"))
        )
        for _ in range(200):
            if request.merchantChargeId in sandbox.state.charges:
                break
            await asyncio.sleep(0.01)
        task.cancel()  # the terminal shuts down mid-charge
        with pytest.raises(asyncio.CancelledError):
            await task
        attempt = stack.service.store.repo.attempt(request.merchantChargeId)
        assert attempt is not None and attempt.state == AttemptState.UNKNOWN
        assert not await stack.service.can_start_charge("sale-1")
        report = await stack.service.reconcile()
        assert report.attempts_resolved == 1
        record = stack.service.store.repo.charge(request.merchantChargeId)
        assert record is not None and record.status == ChargeStatus.PAID
        assert len(sandbox.state.charges) == 1


@pytest.mark.asyncio
async def test_a_card_whose_issuer_insists_on_3ds_is_denied_without_it(
    sandbox: SandboxServer, tmp_path: Path
) -> None:
    # Charged without 3DS, a card that needs it is decided at once (never left pending), and
    # the sale is free for another try.
    access = SandboxAccess.of_server(sandbox)
    async with charging_stack(access, tmp_path / "s.sqlite3") as stack:
        outcome = await stack.service.charge(
            sale_id="sale-1",
            request=charge_request(await card_token(access, THREE_DS_REJECTED)),
            tenders=visa("1629"),
        )
        assert (outcome.attempt, outcome.status) == (AttemptState.CREATED, ChargeStatus.DENIED)
        assert outcome.message == Reason.of(ReasonCode.OUTCOME_DENIED)
        assert await stack.service.can_start_charge("sale-1")


@pytest.mark.asyncio
async def test_the_scheduler_runs_once_at_start_and_on_demand(
    sandbox: SandboxServer, tmp_path: Path
) -> None:
    access = SandboxAccess.of_server(sandbox)
    async with charging_stack(access, tmp_path / "s.sqlite3") as stack:
        passes: asyncio.Queue[ReconciliationFinished] = asyncio.Queue()
        stack.events.subscribe(ReconciliationFinished, passes.put_nowait)
        stack.service.start(interval_s=3600)
        with pytest.raises(RuntimeError, match="already running"):
            stack.service.start(interval_s=3600)
        first = await asyncio.wait_for(passes.get(), timeout=10)
        assert first.trigger == "start-up"
        stack.service.wake()
        second = await asyncio.wait_for(passes.get(), timeout=10)
        assert second.trigger == "on demand"
        await stack.service.stop()
        with pytest.raises(ValueError, match="must be positive"):
            stack.service.start(interval_s=0)


@pytest.mark.asyncio
async def test_two_charges_for_one_sale_at_once_send_only_one(
    sandbox: SandboxServer, tmp_path: Path
) -> None:
    access = SandboxAccess.of_server(sandbox)
    async with charging_stack(access, tmp_path / "s.sqlite3") as stack:
        requests = [charge_request(await card_token(access, APPROVED)) for _ in range(2)]
        results = await asyncio.gather(
            *(
                stack.service.charge(sale_id="sale-1", request=r, tenders=visa("1111"))
                for r in requests
            ),
            return_exceptions=True,
        )
    kinds = sorted(type(r).__name__ for r in results)
    assert kinds == ["ChargeOutcome", "SaleBusy"]
    assert len(sandbox.state.charges) == 1
