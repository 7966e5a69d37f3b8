"""The variant matrix: the terminal's charging core against the sandbox under every variant value.

Where the public evidence cannot tell how the real service behaves, the sandbox plays each
possibility (`checkout_desktop/sandbox/variants.py`). For every value of every variant, one
terminal (charge service, client, store) runs its whole charging core against a sandbox playing
that value: a charge, a query, a partial and a full refund, a late capture, a reply that never
came resolved by querying, a charge that never reached the service settled as not charged, and
the notifications of all of it, delivered over HTTPS in both body layouts and merged through
the inbox's own intake. Nothing is configured to agree with the variant in force, except the
profile's SDK credential kind, which is a merchant's setting and not something to guess.
"""

from __future__ import annotations

import logging
import ssl
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import bcrypt
import httpx
import pytest
import pytest_asyncio
import trustme
from aiohttp import web

from checkout_desktop.charges.ledger import inbox_applier
from checkout_desktop.domain.enums import ChargeStatus, DocumentType, TokenFieldSpelling
from checkout_desktop.domain.reasons import Reason, ReasonCode
from checkout_desktop.domain.records import CardSummary
from checkout_desktop.domain.state import AttemptState
from checkout_desktop.gateway.errors import ApiError
from checkout_desktop.inbox.intake import Received, classify
from checkout_desktop.sandbox.server import SandboxServer
from checkout_desktop.sandbox.variants import CHOICES, VARIANT_NAMES
from checkout_desktop.store.sqlite.charges import ChargeRepository
from checkout_desktop.store.sqlite.db import transaction
from checkout_desktop.store.sqlite.store import SqliteCharges
from tests.integration.charging_support import (
    APPROVED,
    BROWSER,
    SLOW,
    THREE_DS_FRICTIONLESS,
    SandboxAccess,
    Stack,
    charge_request,
    charging_stack,
    new_charge_id,
    visa,
)
from tests.integration.test_sandbox_fixtures import fast_config
from tests.ledger_support import run_inline

logger = logging.getLogger(__name__)

WEBHOOK_TOKEN = "wh_matrix_token_0001"
CASES = [(name, value) for name in VARIANT_NAMES for value in CHOICES[name]]
CNPJ = "11222333000181"


@dataclass
class Inbox:
    """An HTTPS receiver that hands each delivery to the inbox's own intake and applier."""

    stack: Stack | None = None
    layouts: list[str] = field(default_factory=list)
    notification_ids: list[str] = field(default_factory=list)
    refused: int = 0

    async def handle(self, request: web.Request) -> web.Response:
        if request.headers.get("Authorization") != WEBHOOK_TOKEN:
            self.refused += 1
            return web.json_response({"message": "wrong token"}, status=401)
        received = Received(
            await request.read(),
            dict(request.headers),
            datetime.now(UTC),
            request.headers.get("event-type"),
            request.content_type,
            "127.0.0.1",
        )
        intake = classify(received)
        if intake.update is None or self.stack is None:
            return web.json_response({"message": "not applied"}, status=400)
        self.layouts.append(str(intake.event.layout))
        if intake.event.event_ref:
            self.notification_ids.append(intake.event.event_ref)
        with transaction(self.stack.conn):
            run_inline(
                inbox_applier(
                    SqliteCharges(ChargeRepository(self.stack.conn)),
                    intake.update,
                    f"matrix-{len(self.layouts)}",
                )
            )
        return web.json_response({"ok": True})


@pytest_asyncio.fixture
async def inbox(tmp_path: Path) -> AsyncIterator[tuple[Inbox, str, Path]]:
    ca = trustme.CA()
    cert = ca.issue_cert("localhost")
    ca_file = tmp_path / "ca.pem"
    ca.cert_pem.write_to_path(str(ca_file))
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    cert.configure_cert(context)
    state = Inbox()
    app = web.Application()
    app.router.add_post("/hook", state.handle)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0, ssl_context=context)
    await site.start()
    port = runner.addresses[0][1]
    try:
        yield state, f"https://localhost:{port}/hook", ca_file
    finally:
        await runner.cleanup()


async def tokenize(server: SandboxServer, number: str, kind: str) -> str:
    """A card token from the sandbox's SDK backend, with the credential the profile holds."""
    creds = server.credentials
    authorization = creds.transparent_token
    if kind == "merchant":
        # What the published SDK sends for a merchant token.
        secret = (creds.merchant_document + creds.merchant_token).encode()
        authorization = bcrypt.hashpw(secret, bcrypt.gensalt(rounds=4)).decode()
    context = ssl.create_default_context(cadata=server.sdk_cert_pem)
    context.check_hostname = False
    async with httpx.AsyncClient(verify=context, trust_env=False) as http:
        reply = await http.post(
            f"https://127.0.0.1:{server.sdk_port}/payment/v2/temporary/card",
            headers={"Authorization": authorization, "MerchantCredential": creds.merchant_document},
            json={
                "brand": "VISA",
                "cardNumber": number,
                "cardholderName": "MARIA SILVA",
                "cardholderDocument": "65844359038",
                "expirationMonth": "12",
                "expirationYear": "2031",
                "cvv": "123",
            },
        )
    assert reply.status_code == 200, reply.text
    token = reply.json()["cardToken"]
    assert isinstance(token, str)
    return token


def authorizations(stack: Stack) -> list[int]:
    return [s for m, p, s in stack.calls if m == "POST" and p.endswith("/charge/authorization")]


async def start_sandbox(name: str, value: str, url: str, ca_file: Path) -> SandboxServer:
    config = fast_config(
        webhook_url=url,
        webhook_token=WEBHOOK_TOKEN,
        webhook_ca_file=ca_file,
        webhook_layout="alternate",
        slow_card_delay_s=3.0,
    )
    config.variants.update({name: value})
    server = SandboxServer(config)
    await server.start()
    return server


@pytest.mark.asyncio
@pytest.mark.parametrize(("name", "value"), CASES, ids=[f"{n}={v}" for n, v in CASES])
async def test_the_charging_core_survives_every_variant(
    name: str, value: str, inbox: tuple[Inbox, str, Path], tmp_path: Path
) -> None:
    receiver, url, ca_file = inbox
    server = await start_sandbox(name, value, url, ca_file)
    variants = server.variants
    kind = "merchant" if variants.sdk_credential == "merchant" else "transparent"
    learned: list[TokenFieldSpelling] = []
    try:
        access = SandboxAccess.of_server(server)
        async with charging_stack(
            access, tmp_path / "store.sqlite3", timeout_s=1.0, unknown_grace_s=0.0
        ) as stack:
            receiver.stack = stack
            stack.client.on_token_field = learned.append
            service = stack.service

            async def sale(
                number: str = APPROVED, *, amount: int = 1500, late: bool = False
            ) -> tuple[str, str]:
                sale_id = f"sale-{new_charge_id()}"
                request = charge_request(
                    await tokenize(server, number, kind), amount=amount, late_capture=late
                )
                outcome = await service.charge(
                    sale_id=sale_id, request=request, tenders=visa("1111")
                )
                assert outcome.attempt == AttemptState.CREATED, outcome.message.english()
                return outcome.merchant_charge_id, sale_id

            # A charge, then a query.
            paid, _ = await sale()
            assert service.store.repo.charge(paid).status == ChargeStatus.PAID  # type: ignore[union-attr]
            assert (await service.refresh(paid)).status == ChargeStatus.PAID
            # A partial refund, then the rest.
            partly = await service.refund(paid, 500)
            assert partly.status == ChargeStatus(variants.partial_refund)
            assert partly.refunded_amount == 500
            assert (await service.refund(paid)).status == ChargeStatus.REFUNDED
            # A late capture.
            held, _ = await sale(late=True, amount=2000)
            assert (await service.capture(held)).status == ChargeStatus.PAID
            # A 3DS charge, with the policy that charges without 3DS when it cannot be had:
            # authenticated, or (when setup will not take the token) charged plainly; once.
            tds = await service.three_ds.charge(
                sale_id=f"sale-{new_charge_id()}",
                request=charge_request(await tokenize(server, THREE_DS_FRICTIONLESS, kind)),
                tenders=visa("3063"),
                browser=BROWSER,
                fallback="without",
            )
            assert (tds.attempt, tds.status) == (AttemptState.CREATED, ChargeStatus.PAID), (
                tds.message.english()
            )
            assert server.state.charges[tds.merchant_charge_id].status == ChargeStatus.PAID
            flow = service.store.repo.three_ds_flow(tds.merchant_charge_id)
            assert flow is not None
            assert flow.result == (
                "FAILED" if variants.three_ds_card == "card-data" else "AUTHENTICATED"
            )
            # A reply that never came: settled by asking, never by sending again.
            slow, slow_sale = await sale(SLOW, amount=700)
            assert service.store.repo.charge(slow).status == ChargeStatus.PAID  # type: ignore[union-attr]
            assert server.state.charges[slow].status == ChargeStatus.PAID
            sent_slow = [c for c in server.state.charges if c == slow]
            assert len(sent_slow) == 1
            assert not await service.can_start_charge(slow_sale)  # the money is held: paid
            # A charge whose request never reached the service: "not charged" once the grace
            # period is over, however the service says "not found".
            lost = new_charge_id()
            with transaction(stack.conn):
                service.store.repo.record_attempt(
                    merchant_charge_id=lost,
                    sale_id="sale-lost",
                    profile="builtin-sandbox",
                    amount=900,
                    tenders=visa("2222"),
                    late_capture=False,
                )
            await service.reconcile_unresolved()
            attempt = service.store.repo.attempt(lost)
            assert attempt is not None and attempt.state == AttemptState.NOT_FOUND
            assert await service.can_start_charge("sale-lost")

            # The card-token spelling: retried once for the profile when the service reads the
            # other one, never again afterwards.
            refusals = authorizations(stack).count(400)
            if variants.token_field == "temporatyCardToken":
                assert refusals == 1
                assert learned == ["temporatyCardToken"]
                assert stack.client.token_field == "temporatyCardToken"
                timeline = [t.reason_data for t in service.store.repo.timeline(paid).items]
                assert (
                    Reason.of(ReasonCode.TOKEN_FIELD_LEARNED, spelling="temporatyCardToken")
                    in timeline
                )
            else:
                assert refusals == 0
                assert learned == []

            # Timestamps: the service's times are read as the instants they are.
            reply = await stack.client.query(held)
            occurred = reply.update(source="reconciliation").occurred_at
            truth = max(t.updated_at for t in server.state.charges[held].transactions)
            assert occurred is not None
            assert abs((occurred - truth).total_seconds()) < 0.001

            # The notifications of all of it, in both layouts, agree with the service.
            await server.webhooks_idle()
            assert receiver.refused == 0
            assert {"flat", "envelope"} <= set(receiver.layouts)
            for mcid in (paid, held, slow):
                record = service.store.repo.charge(mcid)
                truth_charge = server.state.charges[mcid]
                assert record is not None
                assert record.status == truth_charge.status
                assert record.refunded_amount == truth_charge.refunded_amount
                # The envelope's id names a notification, never the charge.
                assert record.charge_id == truth_charge.id

            if name == "customer-document":
                await _cnpj_customer(stack, server, kind, refused=value == "no-cnpj")
    finally:
        receiver.stack = None
        await server.stop()


async def _cnpj_customer(stack: Stack, server: SandboxServer, kind: str, *, refused: bool) -> None:
    """A company customer: charged, or refused in plain words with the sale left free."""
    request = charge_request(await tokenize(server, APPROVED, kind))
    customer = request.customer.model_copy(
        update={"documentType": DocumentType.CNPJ, "document": CNPJ}
    )
    request = request.model_copy(update={"customer": customer})
    outcome = await stack.service.charge(
        sale_id="sale-company", request=request, tenders=[CardSummary("VISA", "1111")]
    )
    if not refused:
        assert outcome.status == ChargeStatus.PAID
        return
    assert outcome.attempt == AttemptState.REJECTED
    assert isinstance(outcome.error, ApiError)
    detail = outcome.error.reason.args["detail"]
    assert isinstance(detail, Reason)
    # Recognised as the customer's document refused (the charge screen then asks for a CPF),
    # with the service's own words.
    assert detail.code == ReasonCode.CUSTOMER_DOCUMENT_REFUSED
    assert "customer document is invalid" in str(detail.args["words"])
    assert await stack.service.can_start_charge("sale-company")


@pytest.mark.asyncio
async def test_the_spelling_is_learned_once_per_profile_not_per_charge(
    inbox: tuple[Inbox, str, Path], tmp_path: Path
) -> None:
    """A profile starting on the prose's spelling meets a service reading the spec's: one
    retry, the spelling kept, and neither the later charges nor a restart retry again."""
    _, url, ca_file = inbox
    server = await start_sandbox("token-field", "temporatyCardToken", url, ca_file)
    kept: list[TokenFieldSpelling] = []
    try:
        access = SandboxAccess.of_server(server)
        db = tmp_path / "store.sqlite3"
        async with charging_stack(access, db, token_field="temporaryCardToken") as stack:
            stack.client.on_token_field = kept.append
            for n in range(4):
                request = charge_request(await tokenize(server, APPROVED, "transparent"))
                outcome = await stack.service.charge(
                    sale_id=f"sale-{n}", request=request, tenders=visa("1111")
                )
                assert outcome.status == ChargeStatus.PAID
                if n == 0:
                    first = outcome.merchant_charge_id
            # Five authorization requests for four charges: the one retry, with the same
            # merchantChargeId (the sandbox holds one charge per request that went through).
            assert authorizations(stack) == [400, 200, 200, 200, 200]
            assert len(server.state.charges) == 4
            assert kept == ["temporatyCardToken"]
            reasons = [t.reason_data for t in stack.service.store.repo.timeline(first).items]
            assert (
                Reason.of(
                    ReasonCode.TOKEN_FIELD_RETRY,
                    tried="temporaryCardToken",
                    spelling="temporatyCardToken",
                )
                in reasons
            )
        # The next start reads the kept spelling from the profile: no retry at all.
        async with charging_stack(access, db, token_field=kept[-1]) as stack:
            request = charge_request(await tokenize(server, APPROVED, "transparent"))
            outcome = await stack.service.charge(
                sale_id="sale-after-restart", request=request, tenders=visa("1111")
            )
            assert outcome.status == ChargeStatus.PAID
            assert authorizations(stack) == [200]
    finally:
        await server.stop()


@pytest.mark.asyncio
async def test_a_refused_spelling_that_is_not_about_the_token_is_not_retried(
    inbox: tuple[Inbox, str, Path], tmp_path: Path
) -> None:
    """A 400 about anything else (here a missing phone) is a refusal, not a spelling matter."""
    _, url, ca_file = inbox
    server = await start_sandbox("token-field", "both", url, ca_file)
    try:
        access = SandboxAccess.of_server(server)
        async with charging_stack(access, tmp_path / "store.sqlite3") as stack:
            request = charge_request(await tokenize(server, APPROVED, "transparent"))
            bare = request.customer.model_copy(update={"phone": None})
            request = request.model_copy(update={"customer": bare})
            outcome = await stack.service.charge(
                sale_id="sale-1", request=request, tenders=visa("1111")
            )
            assert outcome.attempt == AttemptState.REJECTED
            assert authorizations(stack) == [400]
            assert await stack.service.can_start_charge("sale-1")
    finally:
        await server.stop()


@pytest.mark.asyncio
async def test_a_service_that_requires_the_e_mail_refuses_a_sale_without_one_and_says_so(
    inbox: tuple[Inbox, str, Path], tmp_path: Path
) -> None:
    """The docs list `customer.email` without saying whether it is required, and the terminal
    leaves it out when the clerk typed none: where the service requires it, the sale is refused
    with nothing charged, the reason names the e-mail, and the same sale then goes through."""
    _, url, ca_file = inbox
    server = await start_sandbox("require", "phone,device,email", url, ca_file)
    try:
        access = SandboxAccess.of_server(server)
        async with charging_stack(access, tmp_path / "store.sqlite3") as stack:
            request = charge_request(await tokenize(server, APPROVED, "transparent"))
            bare = request.customer.model_copy(update={"email": None})
            outcome = await stack.service.charge(
                sale_id="sale-1",
                request=request.model_copy(update={"customer": bare}),
                tenders=visa("1111"),
            )
            assert outcome.attempt == AttemptState.REJECTED
            assert outcome.message.mentions(ReasonCode.CUSTOMER_EMAIL_REQUIRED)
            assert "e-mail" in outcome.message.english()
            # (The first 400 may be the card-token spelling, retried once: not the e-mail.)
            assert authorizations(stack)[-1] == 400 and 200 not in authorizations(stack)
            refused = len(authorizations(stack))
            assert await stack.service.can_start_charge("sale-1")
            again = charge_request(await tokenize(server, APPROVED, "transparent"))
            paid = await stack.service.charge(sale_id="sale-1", request=again, tenders=visa("1111"))
            assert paid.status == ChargeStatus.PAID
            assert authorizations(stack)[refused:][-1] == 200
            assert authorizations(stack).count(200) == 1
    finally:
        await server.stop()


def test_the_matrix_covers_every_variant_value() -> None:
    # The matrix above is built from the sandbox's own table: a new value is tested at once.
    assert len(CASES) == sum(len(CHOICES[n]) for n in VARIANT_NAMES) == 41


@pytest.mark.asyncio
@pytest.mark.parametrize("service_reads", ["temporatyCardToken", "temporaryCardToken"])
async def test_a_used_card_token_is_reported_as_such_whichever_spelling_the_service_reads(
    inbox: tuple[Inbox, str, Path], tmp_path: Path, service_reads: str
) -> None:
    _, url, ca_file = inbox
    server = await start_sandbox("token-field", service_reads, url, ca_file)
    try:
        access = SandboxAccess.of_server(server)
        token = await tokenize(server, APPROVED, "transparent")
        async with charging_stack(
            access, tmp_path / "store.sqlite3", token_field=service_reads
        ) as learned:
            first = await learned.service.charge(
                sale_id="sale-0", request=charge_request(token), tenders=visa("1111")
            )
            assert first.status == ChargeStatus.PAID
        # A new profile, not settled yet, sends the same (now used) card token again.
        async with charging_stack(access, tmp_path / "other.sqlite3") as fresh:
            outcome = await fresh.service.charge(
                sale_id="sale-1", request=charge_request(token), tenders=visa("1111")
            )
            assert outcome.attempt == AttemptState.REJECTED
            assert isinstance(outcome.error, ApiError)
            detail = outcome.error.reason.args["detail"]
            assert isinstance(detail, Reason)
            assert detail.args["business"] == Reason.of(ReasonCode.BUSINESS_INVALID_CARD_TOKEN)
            assert authorizations(fresh) == [400, 400]
    finally:
        await server.stop()
