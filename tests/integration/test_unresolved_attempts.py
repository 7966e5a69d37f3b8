"""Stuck attempts end: refused queries back off, and a supervisor can end what stays unknown.

The sandbox plays the service over real HTTP; a thin transport in front of it stands for the
one answer no variant gives: a query refused with a 400 that does not say "not found" (the
3DS-status page's example, "must be a well-formed UUID string", for a merchantChargeId).
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest
import pytest_asyncio

from checkout_desktop.charges.authority import Authority, PinRefused, hash_pin
from checkout_desktop.charges.service import ChargeService, SaleBusy
from checkout_desktop.domain.enums import ChargeStatus
from checkout_desktop.domain.reasons import ReasonCode
from checkout_desktop.domain.state import AttemptState
from checkout_desktop.gateway.client import ChargeClient, DeviceIdentity
from checkout_desktop.gateway.profiles import Endpoints
from checkout_desktop.gateway.tokens import TokenManager
from checkout_desktop.sandbox.server import SandboxServer
from checkout_desktop.store.sqlite.db import connect, transaction
from checkout_desktop.store.sqlite.store import SqliteStore
from tests.integration.charging_support import (
    APPROVED,
    SandboxAccess,
    card_token,
    charge_request,
    new_charge_id,
    visa,
)
from tests.integration.test_sandbox_fixtures import fast_config

logger = logging.getLogger(__name__)

REFUSAL = {
    "message": "Invalid request.",
    "success": False,
    "businessCode": "VALIDATION_ERROR",
    "errors": [{"field": "merchantChargeId", "message": "must be a well-formed UUID string"}],
}


class RefusingQueries(httpx.AsyncBaseTransport):
    """Passes everything to the sandbox, except queries of the charges in `refused`."""

    def __init__(self) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.refused: set[str] = set()
        self.queries: list[str] = []
        self.authorizations: list[str] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        path = request.url.path
        if request.method == "POST" and path.endswith("/charge/authorization"):
            body = json.loads(request.content)
            self.authorizations.append(str(body["merchantChargeId"]))
        if request.method == "GET" and "/charge/" in path:
            mcid = path.rsplit("/", 1)[-1]
            self.queries.append(mcid)
            if mcid in self.refused:
                return httpx.Response(400, json=REFUSAL)
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 3, 2, 12, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


@pytest_asyncio.fixture
async def sandbox() -> AsyncIterator[SandboxServer]:
    server = SandboxServer(fast_config())
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


async def _service(
    server: SandboxServer,
    db: Path,
    transport: RefusingQueries,
    clock: Clock,
    http: httpx.AsyncClient,
) -> ChargeService:
    access = SandboxAccess.of_server(server)
    endpoints = Endpoints(base_url=access.api_url, auth_url=access.api_url)
    tokens = TokenManager(
        http=http,
        token_url=endpoints.token_url,
        client_id=access.client_id,
        credentials=access.credentials(),
    )
    client = ChargeClient(
        http=http,
        endpoints=endpoints,
        tokens=tokens,
        token_field="temporatyCardToken",
        device=DeviceIdentity("terminal-test"),
    )
    return ChargeService(
        store=SqliteStore(connect(db), clock=clock),
        client=client,
        profile="builtin-sandbox",
        clock=clock,
    )


def _record(service: ChargeService, mcid: str, sale: str) -> None:
    with transaction(service.store.repo.conn):
        service.store.repo.record_attempt(
            merchant_charge_id=mcid,
            sale_id=sale,
            profile="builtin-sandbox",
            amount=4200,
            tenders=visa("1111"),
            late_capture=False,
        )


@pytest.mark.asyncio
async def test_a_refused_query_backs_off_to_a_quarter_of_an_hour_and_a_supervisor_ends_it(
    sandbox: SandboxServer, tmp_path: Path
) -> None:
    transport = RefusingQueries()
    clock = Clock()
    async with httpx.AsyncClient(transport=transport) as http:
        service = await _service(sandbox, tmp_path / "s.sqlite3", transport, clock, http)
        stuck = new_charge_id()
        transport.refused.add(stuck)
        _record(service, stuck, "sale-a")

        # Each try waits twice as long as the one before, up to 15 minutes, and says so.
        clock.advance(2)  # past the first quick retry of a fresh attempt
        waits = []
        for _ in range(7):
            report = await service.reconcile(trigger="schedule", due_only=True)
            assert report.still_unknown == (stuck,)
            last = service.store.repo.timeline(stuck).items[-1]
            assert last.reason_data is not None
            assert last.reason_data.code == ReasonCode.RECONCILE_BACKING_OFF
            seconds = last.reason_data.args["seconds"]
            assert isinstance(seconds, int)
            waits.append(seconds)
            # Not asked again before its time...
            clock.advance(seconds - 1)
            asked = len(transport.queries)
            await service.reconcile(trigger="schedule", due_only=True)
            assert len(transport.queries) == asked
            clock.advance(1)
        assert waits == [30, 60, 120, 240, 480, 900, 900]
        attempt = service.store.repo.attempt(stuck)
        assert attempt is not None and attempt.state == AttemptState.UNKNOWN
        assert attempt.queries == 7

        # The stuck sale is refused; another customer's sale is not.
        assert not await service.can_start_charge("sale-a")
        assert await service.can_start_charge("sale-b")
        token = await card_token(SandboxAccess.of_server(sandbox), APPROVED)
        other = await service.charge(
            sale_id="sale-b", request=charge_request(token), tenders=visa("1111")
        )
        assert other.status == ChargeStatus.PAID

        # A supervisor ends it: asked once more, then ended, recorded, and the sale is free.
        asked = len(transport.queries)
        report = await service.end_unresolved(
            stuck, supervisor="Ana Lima", why="checked in the merchant panel: no such charge"
        )
        assert report.ended
        assert len(transport.queries) == asked + 1
        attempt = service.store.repo.attempt(stuck)
        assert attempt is not None and attempt.state == AttemptState.ENDED
        last = service.store.repo.timeline(stuck).items[-1]
        assert last.source == "system"
        assert last.reason_data is not None
        assert last.reason_data.code == ReasonCode.ENDED_BY_SUPERVISOR
        assert last.reason_data.args["supervisor"] == "Ana Lima"
        assert "no such charge" in str(last.reason_data.args["why"])
        assert await service.can_start_charge("sale-a")
        # Never by resending: the stuck charge was never sent.
        assert stuck not in transport.authorizations
        assert stuck not in sandbox.state.charges
        # Ended is final: the reconciler leaves it alone.
        before = transport.queries.count(stuck)
        report_after = await service.reconcile(trigger="schedule", due_only=False)
        assert stuck not in report_after.still_unknown
        assert transport.queries.count(stuck) == before
        service.store.repo.conn.close()


@pytest.mark.asyncio
async def test_ending_asks_first_and_a_charge_the_service_has_is_not_ended(
    sandbox: SandboxServer, tmp_path: Path
) -> None:
    transport = RefusingQueries()
    clock = Clock()
    async with httpx.AsyncClient(transport=transport) as http:
        service = await _service(sandbox, tmp_path / "s.sqlite3", transport, clock, http)
        blank = new_charge_id()
        _record(service, blank, "sale-a")
        with pytest.raises(ValueError, match="who ends it and why"):
            await service.end_unresolved(blank, supervisor=" ", why="x")

        # An attempt left unknown whose charge the service does hold (its reply was lost).
        lost_reply = new_charge_id()
        _record(service, lost_reply, "sale-c")
        sandbox_token = await card_token(SandboxAccess.of_server(sandbox), APPROVED)
        async with httpx.AsyncClient() as direct:
            access = SandboxAccess.of_server(sandbox)
            got = await direct.post(
                f"{access.api_url}/oauth2/token",
                json={
                    "grant_type": "client_credentials",
                    "client_id": access.client_id,
                    "client_secret": access.client_secret,
                },
            )
            body = charge_request(sandbox_token, merchant_charge_id=lost_reply).to_wire(
                "temporatyCardToken"
            )
            body["deviceInformation"] = {"id": "terminal-test", "sessionId": "sale-c"}
            sent = await direct.post(
                f"{access.api_url}/api/v1/charge/authorization",
                json=body,
                headers={"Authorization": f"Bearer {got.json()['access_token']}"},
            )
            assert sent.status_code == 200, sent.text
        report = await service.end_unresolved(lost_reply, supervisor="Ana", why="stuck")
        assert not report.ended
        assert report.state == AttemptState.CREATED
        assert report.status == ChargeStatus.PAID
        # The sale holds money: it stays refused, as any paid sale.
        assert not await service.can_start_charge("sale-c")
        service.store.repo.conn.close()


@pytest.mark.asyncio
async def test_an_attempt_in_flight_cannot_be_ended(sandbox: SandboxServer, tmp_path: Path) -> None:
    transport = RefusingQueries()
    async with httpx.AsyncClient(transport=transport) as http:
        service = await _service(sandbox, tmp_path / "s.sqlite3", transport, Clock(), http)
        mcid = new_charge_id()
        _record(service, mcid, "sale-a")
        service._in_flight.add(mcid)  # its own request is still waiting for its reply
        with pytest.raises(SaleBusy):
            await service.end_unresolved(mcid, supervisor="Ana", why="stuck")
        attempt = service.store.repo.attempt(mcid)
        assert attempt is not None and attempt.state == AttemptState.RECORDED
        service.store.repo.conn.close()


@pytest.mark.asyncio
async def test_ending_needs_the_supervisor_pin_at_the_service_once_one_is_set(
    sandbox: SandboxServer, tmp_path: Path
) -> None:
    transport = RefusingQueries()
    async with httpx.AsyncClient(transport=transport) as http:
        service = await _service(sandbox, tmp_path / "s.sqlite3", transport, Clock(), http)
        service.authority = Authority(hash_pin("2468"))
        mcid = new_charge_id()
        _record(service, mcid, "sale-a")
        for pin, code in ((None, ReasonCode.PIN_END_REQUIRED), ("1357", ReasonCode.PIN_WRONG)):
            with pytest.raises(PinRefused) as refused:
                await service.end_unresolved(mcid, supervisor="Ana", why="stuck", pin=pin)
            assert refused.value.reason.code == code
        # Refused before the service is asked or anything is recorded.
        assert mcid not in transport.queries
        attempt = service.store.repo.attempt(mcid)
        assert attempt is not None and attempt.state == AttemptState.RECORDED
        report = await service.end_unresolved(
            mcid, supervisor="Ana", why="stuck", query_first=False, pin="2468"
        )
        assert report.ended
        service.store.repo.conn.close()
