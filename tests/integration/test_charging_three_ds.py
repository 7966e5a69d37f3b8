"""The 3DS flow against the sandbox: every test card, the policy, the result by notification
or by asking, duplicates and silence, cancellation and a lost reply of the money call."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import httpx
import pytest
import pytest_asyncio

from checkout_desktop.charges.service import ChargeOutcome
from checkout_desktop.charges.three_ds import ThreeDsProgress
from checkout_desktop.domain.charge_events import AttemptChanged, ChargeChanged
from checkout_desktop.domain.enums import ChargeStatus
from checkout_desktop.domain.reasons import ReasonCode
from checkout_desktop.domain.search import ChargeQuery
from checkout_desktop.domain.shown_status import ShownStatus
from checkout_desktop.domain.state import AttemptState
from checkout_desktop.domain.three_ds import ThreeDsFallback, ThreeDsStep
from checkout_desktop.sandbox.api import ADMIN_HEADER
from checkout_desktop.sandbox.server import SandboxConfig, SandboxServer
from tests.integration.charging_support import (
    APPROVED,
    BROWSER,
    GATEWAY_ERROR,
    SLOW,
    THREE_DS_CHALLENGE,
    THREE_DS_FRICTIONLESS,
    THREE_DS_REJECTED,
    THREE_DS_UNAVAILABLE,
    SandboxAccess,
    Stack,
    card_token,
    charge_request,
    charging_stack,
    visa,
)
from tests.integration.test_charging_webhooks import WEBHOOK_TOKEN, Receiver, receiver

logger = logging.getLogger(__name__)

__all__ = ["receiver"]


@pytest_asyncio.fixture
async def sandbox() -> AsyncIterator[SandboxServer]:
    server = SandboxServer(SandboxConfig(api_port=0, sdk_port=0, webhook_backoff_s=0.05))
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


def answer_challenge(
    sandbox: SandboxServer, result: str, seen: list[ThreeDsProgress]
) -> Callable[[ThreeDsProgress], None]:
    """A screen that shows each stage and, at the challenge, has the customer answer `result`
    (through the sandbox's admin endpoint, as a browser-less customer)."""
    tasks: set[asyncio.Task[None]] = set()

    async def complete(charge_id: str) -> None:
        async with httpx.AsyncClient(trust_env=False) as http:
            reply = await http.post(
                f"{sandbox.api_url}/_sandbox/3ds/{charge_id}/complete",
                json={"result": result},
                headers={ADMIN_HEADER: sandbox.admin_token},
            )
        assert reply.status_code == 200, reply.text

    def on_progress(progress: ThreeDsProgress) -> None:
        seen.append(progress)
        if progress.stage == "challenge" and result != "none":
            (charge_id,) = [
                s.charge_id
                for s in sandbox.state.three_ds.values()
                if s.merchant_charge_id == progress.merchant_charge_id
            ]
            task = asyncio.get_running_loop().create_task(complete(charge_id))
            tasks.add(task)
            task.add_done_callback(tasks.discard)

    return on_progress


async def three_ds_charge(
    stack: Stack,
    access: SandboxAccess,
    number: str,
    *,
    fallback: ThreeDsFallback = "refuse",
    on_progress: Callable[[ThreeDsProgress], None] | None = None,
    sale: str = "sale-1",
    late_capture: bool = False,
) -> ChargeOutcome:
    return await stack.service.three_ds.charge(
        sale_id=sale,
        request=charge_request(await card_token(access, number), late_capture=late_capture),
        tenders=visa(number[-4:]),
        browser=BROWSER,
        fallback=fallback,
        on_progress=on_progress,
    )


def codes(stack: Stack, mcid: str) -> list[ReasonCode]:
    found = []
    for entry in stack.service.store.repo.timeline(mcid).items:
        reason = entry.reason_data
        if reason is not None:
            found.append(reason.code)
    return found


def calls_to(stack: Stack, suffix: str) -> int:
    """Answered calls to a path, not counting a refused one (a card-token spelling retried)."""
    return sum(1 for _, path, code in stack.calls if path.endswith(suffix) and code != 400)


@pytest.mark.asyncio
async def test_frictionless_card_is_charged_once_with_every_step_on_the_timeline(
    sandbox: SandboxServer, tmp_path: Path
) -> None:
    access = SandboxAccess.of_server(sandbox)
    async with charging_stack(access, tmp_path / "s.sqlite3") as stack:
        seen: list[ThreeDsProgress] = []
        attempts: list[AttemptChanged] = []
        stack.events.subscribe(AttemptChanged, attempts.append)
        outcome = await three_ds_charge(
            stack, access, THREE_DS_FRICTIONLESS, on_progress=seen.append
        )
        mcid = outcome.merchant_charge_id
        assert (outcome.attempt, outcome.status, outcome.approved) == (
            AttemptState.CREATED,
            ChargeStatus.PAID,
            True,
        )
        assert [p.stage for p in seen] == ["authenticating", "charging"]
        assert [a.state for a in attempts] == [AttemptState.RECORDED, AttemptState.CREATED]
        steps = codes(stack, mcid)
        for code in (
            ReasonCode.TDS_SETUP_RECORDED,
            ReasonCode.TDS_SETUP_DONE,
            ReasonCode.TDS_ENROLLED,
            ReasonCode.TDS_AUTHORIZATION_RECORDED,
        ):
            assert code in steps
        assert steps.index(ReasonCode.TDS_SETUP_RECORDED) < steps.index(
            ReasonCode.TDS_AUTHORIZATION_RECORDED
        )
        flow = stack.service.store.repo.three_ds_flow(mcid)
        assert flow is not None and flow.step == ThreeDsStep.DONE
        assert flow.result == "AUTHENTICATED"
        assert calls_to(stack, "/3ds/authorization") == 1
        assert calls_to(stack, "/charge/authorization") == 0
        blocked = await stack.service.can_start_charge("sale-1")
        assert not blocked
    assert list(sandbox.state.charges) == [mcid]


@pytest.mark.asyncio
@pytest.mark.parametrize("reply", ["plain", "wrapped"])
async def test_challenge_approved_by_polling_the_status_endpoint(
    sandbox: SandboxServer, tmp_path: Path, reply: str
) -> None:
    # No notification is configured here: the status endpoint is the only way to learn.
    sandbox.variants.update({"three-ds-reply": reply})
    access = SandboxAccess.of_server(sandbox)
    async with charging_stack(access, tmp_path / "s.sqlite3") as stack:
        stack.service.three_ds.poll_s = 0.05
        seen: list[ThreeDsProgress] = []
        outcome = await three_ds_charge(
            stack,
            access,
            THREE_DS_CHALLENGE,
            on_progress=answer_challenge(sandbox, "approve", seen),
            late_capture=True,
        )
        assert (outcome.attempt, outcome.status) == (
            AttemptState.CREATED,
            ChargeStatus.PRE_AUTHORIZED,
        )
        assert [p.stage for p in seen] == ["authenticating", "challenge", "charging"]
        challenge = seen[1].challenge
        assert challenge is not None
        assert challenge.step_up_url == f"https://{sandbox.sdk_host}/3ds/acs/challenge"
        assert (challenge.width, challenge.height) == (390, 400)
        assert challenge.access_token not in repr(challenge)
        steps = codes(stack, outcome.merchant_charge_id)
        assert ReasonCode.TDS_CHALLENGE in steps
        assert ReasonCode.TDS_RESULT_ASKED in steps
        flow = stack.service.store.repo.three_ds_flow(outcome.merchant_charge_id)
        assert flow is not None and flow.step_up_url == challenge.step_up_url
        # The challenge's access token is a credential: never stored.
        assert challenge.access_token.encode() not in (tmp_path / "s.sqlite3").read_bytes()
    assert len(sandbox.state.charges) == 1


@pytest.mark.asyncio
async def test_challenge_result_by_notification_duplicates_and_late_change_nothing(
    sandbox: SandboxServer, tmp_path: Path, receiver: tuple[Receiver, str, Path]
) -> None:
    hooks, url, ca_file = receiver
    sandbox.configure_webhook(url, token=WEBHOOK_TOKEN, ca_file=ca_file, layout="envelope")
    sandbox.faults.update(webhook_duplicate=True)
    access = SandboxAccess.of_server(sandbox)
    async with charging_stack(access, tmp_path / "s.sqlite3") as stack:
        hooks.stores = [stack.service.store.repo]
        # The status endpoint is never asked within this test: only the notification can tell.
        stack.service.three_ds.poll_s = 3600
        stack.service.three_ds.store_check_s = 0.05
        stack.service.three_ds.challenge_timeout_s = 30
        seen: list[ThreeDsProgress] = []
        outcome = await three_ds_charge(
            stack,
            access,
            THREE_DS_CHALLENGE,
            on_progress=answer_challenge(sandbox, "approve", seen),
        )
        mcid = outcome.merchant_charge_id
        assert (outcome.attempt, outcome.status) == (AttemptState.CREATED, ChargeStatus.PAID)
        assert calls_to(stack, "/status") == 0
        assert ReasonCode.TDS_RESULT_NOTIFIED in codes(stack, mcid)
        await sandbox.webhooks_idle(30)
        # Each notification came twice; the late ones changed nothing.
        three_ds = [r for r in hooks.received if r[1] == "3DS"]
        assert len(three_ds) == 2
        record = stack.service.store.repo.charge(mcid)
        assert record is not None
        assert (record.status, record.three_ds_status) == (ChargeStatus.PAID, "Approved")
        assert len(stack.service.store.repo.attempts_for_sale("sale-1")) == 1
    assert list(sandbox.state.charges) == [mcid]


@pytest.mark.asyncio
async def test_a_notification_that_never_comes_is_replaced_by_asking(
    sandbox: SandboxServer, tmp_path: Path, receiver: tuple[Receiver, str, Path]
) -> None:
    hooks, url, ca_file = receiver
    sandbox.configure_webhook(url, token=WEBHOOK_TOKEN, ca_file=ca_file)
    sandbox.variants.update({"three-ds-notification": "never"})
    access = SandboxAccess.of_server(sandbox)
    async with charging_stack(access, tmp_path / "s.sqlite3") as stack:
        hooks.stores = [stack.service.store.repo]
        stack.service.three_ds.poll_s = 0.1
        seen: list[ThreeDsProgress] = []
        outcome = await three_ds_charge(
            stack, access, THREE_DS_CHALLENGE, on_progress=answer_challenge(sandbox, "reject", seen)
        )
        assert (outcome.attempt, outcome.status) == (AttemptState.REJECTED, None)
        assert outcome.message.code == ReasonCode.TDS_ENDED
        assert outcome.message.args["status"] == "REJECTED"
        assert ReasonCode.TDS_RESULT_ASKED in codes(stack, outcome.merchant_charge_id)
        await sandbox.webhooks_idle(30)
        assert [r for r in hooks.received if r[1] == "3DS"] == []
        assert await stack.service.can_start_charge("sale-1")
    assert sandbox.state.charges == {}


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("number", "fallback", "attempt", "status", "result"),
    [
        (THREE_DS_REJECTED, "refuse", AttemptState.REJECTED, None, "REJECTED"),
        (THREE_DS_UNAVAILABLE, "refuse", AttemptState.REJECTED, None, "FAILED"),
        # Charged without 3DS, as the policy allows: this card is approved that way...
        (THREE_DS_UNAVAILABLE, "without", AttemptState.CREATED, ChargeStatus.PAID, "FAILED"),
        # A bank that rejected the authentication is never charged without it (see below).
        (THREE_DS_REJECTED, "without", AttemptState.REJECTED, None, "REJECTED"),
    ],
)
async def test_failed_authentication_follows_the_policy(
    sandbox: SandboxServer,
    tmp_path: Path,
    number: str,
    fallback: ThreeDsFallback,
    attempt: AttemptState,
    status: ChargeStatus | None,
    result: str,
) -> None:
    access = SandboxAccess.of_server(sandbox)
    async with charging_stack(access, tmp_path / "s.sqlite3") as stack:
        outcome = await three_ds_charge(stack, access, number, fallback=fallback)
        mcid = outcome.merchant_charge_id
        assert (outcome.attempt, outcome.status) == (attempt, status)
        flow = stack.service.store.repo.three_ds_flow(mcid)
        assert flow is not None and flow.result == result
        if attempt == AttemptState.REJECTED:
            assert flow.step == ThreeDsStep.ENDED
            # The settings refused it only where 3DS could not be done; the bank's no is its own.
            refused = ReasonCode.TDS_REFUSED if result == "FAILED" else ReasonCode.TDS_ENDED
            assert outcome.message.code == refused
            assert calls_to(stack, "/charge/authorization") == 0
            assert await stack.service.can_start_charge("sale-1")
            assert mcid not in sandbox.state.charges
        else:
            assert flow.step == ThreeDsStep.DONE
            assert ReasonCode.TDS_FALLBACK in codes(stack, mcid)
            assert calls_to(stack, "/charge/authorization") == 1
            assert sandbox.state.charges[mcid].status == status
        assert calls_to(stack, "/3ds/authorization") == 0


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("ending", "status"),
    [
        ("rejected at enrollment", "REJECTED"),
        ("rejected in the challenge", "REJECTED"),
        ("cancelled", "CANCELLED"),
        ("timed out", "TIMED_OUT"),
    ],
)
async def test_an_authentication_refused_or_abandoned_is_never_charged_without_3ds(
    sandbox: SandboxServer, tmp_path: Path, ending: str, status: str
) -> None:
    # "Charge it without 3DS" is for 3DS that cannot be done. A bank that refused the
    # customer (a wrong code, a fraud signal), a confirmation cancelled at the counter, or one
    # nobody answered ends the sale uncharged whatever the fallback: no plain authorization.
    access = SandboxAccess.of_server(sandbox)
    async with charging_stack(access, tmp_path / "s.sqlite3") as stack:
        flow = stack.service.three_ds
        flow.challenge_timeout_s, flow.poll_s = 0.5, 0.05
        seen: list[ThreeDsProgress] = []

        def cancel(progress: ThreeDsProgress) -> None:
            if progress.stage == "challenge":
                asyncio.get_running_loop().call_soon(
                    flow.cancel_challenge, progress.merchant_charge_id
                )

        number = THREE_DS_REJECTED if ending == "rejected at enrollment" else THREE_DS_CHALLENGE
        on_progress = {
            "rejected in the challenge": answer_challenge(sandbox, "reject", seen),
            "cancelled": cancel,
            "timed out": answer_challenge(sandbox, "none", seen),
        }.get(ending)
        outcome = await three_ds_charge(
            stack, access, number, fallback="without", on_progress=on_progress
        )
        mcid = outcome.merchant_charge_id
        assert (outcome.attempt, outcome.status) == (AttemptState.REJECTED, None)
        assert outcome.message.code == ReasonCode.TDS_ENDED
        assert outcome.message.args["status"] == status
        # Said as what it is, not as the settings' choice.
        assert "settings" not in outcome.message.english()
        assert ReasonCode.TDS_FALLBACK not in codes(stack, mcid)
        assert calls_to(stack, "/charge/authorization") == 0
        assert calls_to(stack, "/3ds/authorization") == 0
        record = stack.service.store.repo.three_ds_flow(mcid)
        assert record is not None and record.step == ThreeDsStep.ENDED
        assert record.result == status
        assert await stack.service.can_start_charge("sale-1")
    assert sandbox.state.charges == {}


@pytest.mark.asyncio
async def test_setup_refusing_the_token_is_unavailable_and_follows_the_policy(
    sandbox: SandboxServer, tmp_path: Path
) -> None:
    # The public material does not say setup takes the token: if it wants card data, which
    # the terminal never has, 3DS is unavailable and the policy decides.
    sandbox.variants.update({"three-ds-card": "card-data"})
    access = SandboxAccess.of_server(sandbox)
    async with charging_stack(access, tmp_path / "s.sqlite3") as stack:
        refused = await three_ds_charge(stack, access, APPROVED, sale="sale-a")
        assert refused.attempt == AttemptState.REJECTED
        assert refused.message.args["status"] == "FAILED"
        # Said as what it is: never possible with this service, not a passing outage.
        assert refused.message.mentions(ReasonCode.TDS_NEEDS_CARD_DATA)
        assert "card's own data" in refused.message.english()
        assert ReasonCode.TDS_UNAVAILABLE in codes(stack, refused.merchant_charge_id)
        charged = await three_ds_charge(stack, access, APPROVED, sale="sale-b", fallback="without")
        assert (charged.attempt, charged.status) == (AttemptState.CREATED, ChargeStatus.PAID)
    assert list(sandbox.state.charges) == [charged.merchant_charge_id]


@pytest.mark.asyncio
async def test_the_clerk_cancels_the_challenge(sandbox: SandboxServer, tmp_path: Path) -> None:
    access = SandboxAccess.of_server(sandbox)
    async with charging_stack(access, tmp_path / "s.sqlite3") as stack:
        flow = stack.service.three_ds

        def cancel(progress: ThreeDsProgress) -> None:
            if progress.stage == "challenge":
                asyncio.get_running_loop().call_soon(
                    flow.cancel_challenge, progress.merchant_charge_id
                )

        outcome = await three_ds_charge(stack, access, THREE_DS_CHALLENGE, on_progress=cancel)
        assert outcome.attempt == AttemptState.REJECTED
        assert outcome.message.args["status"] == "CANCELLED"
        assert not flow.cancel_challenge(outcome.merchant_charge_id)
        assert await stack.service.can_start_charge("sale-1")
    assert sandbox.state.charges == {}


@pytest.mark.asyncio
async def test_a_challenge_without_an_answer_times_out(
    sandbox: SandboxServer, tmp_path: Path
) -> None:
    access = SandboxAccess.of_server(sandbox)
    async with charging_stack(access, tmp_path / "s.sqlite3") as stack:
        stack.service.three_ds.challenge_timeout_s = 0.3
        stack.service.three_ds.poll_s = 0.1
        seen: list[ThreeDsProgress] = []
        outcome = await three_ds_charge(
            stack, access, THREE_DS_CHALLENGE, on_progress=answer_challenge(sandbox, "none", seen)
        )
        assert outcome.attempt == AttemptState.REJECTED
        assert outcome.message.args["status"] == "TIMED_OUT"
    assert sandbox.state.charges == {}


def not_charged_row(stack: Stack, mcid: str) -> None:
    """The sale's row in the history: the charge 3DS opened at the service, never charged."""
    repo = stack.service.store.repo
    # As the history's "Não cobrada" filter finds it, with the sale's amount and card.
    found = repo.search_charges(ChargeQuery(status=ShownStatus.NOT_CHARGED)).items
    assert [r.merchant_charge_id for r in found] == [mcid], "the history has no row for the sale"
    (record,) = found
    assert record.never_charged and record.status is None and record.charge_id is not None
    attempt = repo.attempt(mcid)
    assert attempt is not None and record.sale_amount == attempt.amount > 0
    assert record.attempt_tenders == attempt.tenders
    # Nothing there to ask about: no check comes round for it.
    assert record.next_check_at is None


@pytest.mark.asyncio
@pytest.mark.parametrize("ending", ["cancelled", "timed out"])
async def test_a_challenge_that_ended_uncharged_keeps_its_row_in_the_history(
    sandbox: SandboxServer, tmp_path: Path, ending: str
) -> None:
    # The setup opened a charge at the service: the clerk finds the sale in the history,
    # "not charged", as one the bank refused, whether the clerk closed the challenge or nobody
    # answered it.
    access = SandboxAccess.of_server(sandbox)
    async with charging_stack(access, tmp_path / "s.sqlite3") as stack:
        flow = stack.service.three_ds
        flow.challenge_timeout_s, flow.poll_s = 0.3, 0.1
        changed: list[ChargeChanged] = []
        assert stack.service.events is not None
        stack.service.events.subscribe(ChargeChanged, changed.append)
        seen: list[ThreeDsProgress] = []

        def cancel(progress: ThreeDsProgress) -> None:
            if progress.stage == "challenge":
                asyncio.get_running_loop().call_soon(
                    flow.cancel_challenge, progress.merchant_charge_id
                )

        on_progress = cancel if ending == "cancelled" else answer_challenge(sandbox, "none", seen)
        outcome = await three_ds_charge(stack, access, THREE_DS_CHALLENGE, on_progress=on_progress)
        assert outcome.attempt == AttemptState.REJECTED
        mcid = outcome.merchant_charge_id
        not_charged_row(stack, mcid)
        (charge_id,) = sandbox.state.three_ds
        record = stack.service.store.repo.charge(mcid)
        assert record is not None and record.charge_id == charge_id
        # An open history hears of the row at once.
        assert [e.merchant_charge_id for e in changed] == [mcid]
        assert await stack.service.can_start_charge("sale-1")
    assert sandbox.state.charges == {}


@pytest.mark.asyncio
async def test_a_lost_reply_of_the_3ds_authorization_is_settled_by_asking(
    sandbox: SandboxServer, tmp_path: Path
) -> None:
    sandbox.faults.update(money_reply_delay_s=3.0)
    access = SandboxAccess.of_server(sandbox)
    async with charging_stack(access, tmp_path / "s.sqlite3", timeout_s=1.0) as stack:
        outcome = await three_ds_charge(stack, access, THREE_DS_FRICTIONLESS)
        assert (outcome.attempt, outcome.status) == (AttemptState.CREATED, ChargeStatus.PAID)
        mcid = outcome.merchant_charge_id
        steps = codes(stack, mcid)
        assert ReasonCode.UNKNOWN_MAY_EXIST in steps
        # Sent once; the answer came from the charge query.
        assert calls_to(stack, "/3ds/authorization") == 0  # its reply never arrived
        assert calls_to(stack, f"/charge/{mcid}") >= 1
    assert list(sandbox.state.charges) == [mcid]


@pytest.mark.asyncio
async def test_a_gateway_error_after_3ds_charges_nothing_and_is_never_resent(
    sandbox: SandboxServer, tmp_path: Path
) -> None:
    # The gateway-error test card is frictionless under 3DS; its 3DS authorization is a 500.
    access = SandboxAccess.of_server(sandbox)
    async with charging_stack(access, tmp_path / "s.sqlite3") as stack:
        outcome = await three_ds_charge(stack, access, GATEWAY_ERROR, fallback="without")
        assert outcome.attempt in (AttemptState.NOT_FOUND, AttemptState.REJECTED)
        assert outcome.status is None
        mcid = outcome.merchant_charge_id
        # Its one call answered 500.
        assert [c for _, p, c in stack.calls if p.endswith("/3ds/authorization")] == [500]
        # Never sent again, nor charged without 3DS: authentication had succeeded.
        assert calls_to(stack, "/charge/authorization") == 0
        assert await stack.service.can_start_charge("sale-1")
        flow = stack.service.store.repo.three_ds_flow(mcid)
        assert flow is not None and flow.step == ThreeDsStep.DONE
    assert sandbox.state.charges == {}


@pytest.mark.asyncio
async def test_a_slow_3ds_authorization_is_settled_by_asking_never_resent(
    sandbox: SandboxServer, tmp_path: Path
) -> None:
    sandbox.config.slow_card_delay_s = 3.0
    access = SandboxAccess.of_server(sandbox)
    async with charging_stack(access, tmp_path / "s.sqlite3", timeout_s=1.0) as stack:
        outcome = await three_ds_charge(stack, access, SLOW)
        assert (outcome.attempt, outcome.status) == (AttemptState.CREATED, ChargeStatus.PAID)
        mcid = outcome.merchant_charge_id
        assert ReasonCode.UNKNOWN_MAY_EXIST in codes(stack, mcid)
        # Sent once; its reply never arrived, the charge query answered.
        assert calls_to(stack, "/3ds/authorization") == 0
        assert calls_to(stack, f"/charge/{mcid}") >= 1
        assert len(stack.service.store.repo.attempts_for_sale("sale-1")) == 1
    assert list(sandbox.state.charges) == [mcid]


@pytest.mark.asyncio
async def test_a_busy_sale_is_refused_before_anything_is_sent(
    sandbox: SandboxServer, tmp_path: Path
) -> None:
    access = SandboxAccess.of_server(sandbox)
    async with charging_stack(access, tmp_path / "s.sqlite3") as stack:
        await three_ds_charge(stack, access, THREE_DS_FRICTIONLESS)
        from checkout_desktop.charges.service import SaleBusy

        with pytest.raises(SaleBusy):
            await three_ds_charge(stack, access, THREE_DS_FRICTIONLESS)
        assert calls_to(stack, "/3ds/setup") == 1
    assert len(sandbox.state.charges) == 1


@pytest.mark.asyncio
async def test_a_3ds_result_for_a_sale_never_charged_is_not_asked_about_forever(
    sandbox: SandboxServer, tmp_path: Path, receiver: tuple[Receiver, str, Path]
) -> None:
    # The Rejected notification names the charge before any charge exists (and none ever
    # will): it is kept on the timeline, but the reconciler has nothing to ask about.
    hooks, url, ca_file = receiver
    sandbox.configure_webhook(url, token=WEBHOOK_TOKEN, ca_file=ca_file)
    access = SandboxAccess.of_server(sandbox)
    async with charging_stack(access, tmp_path / "s.sqlite3") as stack:
        hooks.stores = [stack.service.store.repo]
        outcome = await three_ds_charge(stack, access, THREE_DS_REJECTED)
        mcid = outcome.merchant_charge_id
        await sandbox.webhooks_idle(30)
        assert [r for r in hooks.received if r[1] == "3DS"]
        record = stack.service.store.repo.charge(mcid)
        assert record is not None and record.three_ds_status == "Rejected"
        assert record.status is None
        assert record.next_check_at is None
        report = await stack.service.reconcile(due_only=True)
        assert report.charges_checked == 0
    assert sandbox.state.charges == {}


@pytest.mark.asyncio
async def test_without_the_browser_data_nothing_is_sent_and_the_policy_decides(
    sandbox: SandboxServer, tmp_path: Path
) -> None:
    access = SandboxAccess.of_server(sandbox)
    async with charging_stack(access, tmp_path / "s.sqlite3") as stack:
        outcome = await stack.service.three_ds.charge(
            sale_id="sale-1",
            request=charge_request(await card_token(access, THREE_DS_FRICTIONLESS)),
            tenders=visa("3063"),
            browser=None,
            fallback="refuse",
        )
        assert outcome.attempt == AttemptState.REJECTED
        assert outcome.message.args["status"] == "FAILED"
        assert ReasonCode.TDS_NO_BROWSER in codes(stack, outcome.merchant_charge_id)
        assert calls_to(stack, "/3ds/setup") == 0
    assert sandbox.state.three_ds == {}


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("number", "answer", "status", "three_ds"),
    [
        (THREE_DS_FRICTIONLESS, "none", ChargeStatus.PAID, "Approved"),
        (THREE_DS_CHALLENGE, "approve", ChargeStatus.PAID, "Approved"),
        (THREE_DS_REJECTED, "none", None, "Rejected"),
        (THREE_DS_CHALLENGE, "reject", None, "Rejected"),
    ],
)
async def test_the_charge_keeps_the_3ds_result_the_terminal_learned_itself(
    sandbox: SandboxServer,
    tmp_path: Path,
    number: str,
    answer: str,
    status: ChargeStatus | None,
    three_ds: str,
) -> None:
    # No notification comes (none is configured, as where the service sends none): the result
    # the enrollment's reply or the status endpoint gave is the charge's, as a notification's
    # would be, so the history shows it and a sale 3DS refused reads "not charged".
    access = SandboxAccess.of_server(sandbox)
    async with charging_stack(access, tmp_path / "s.sqlite3") as stack:
        stack.service.three_ds.poll_s = 0.05
        seen: list[ThreeDsProgress] = []
        outcome = await three_ds_charge(
            stack, access, number, on_progress=answer_challenge(sandbox, answer, seen)
        )
        assert outcome.status == status
        record = stack.service.store.repo.charge(outcome.merchant_charge_id)
        assert record is not None
        assert (record.status, record.three_ds_status) == (status, three_ds)
        if status is None:
            # As the history's status filter finds it.
            (shown,) = stack.service.store.repo.conn.execute(
                "SELECT shown_status FROM charge WHERE merchant_charge_id = ?",
                (outcome.merchant_charge_id,),
            ).fetchone()
            assert shown == ShownStatus.NOT_CHARGED
        # One line for each result learned: none repeats what the merge already says.
        steps = codes(stack, outcome.merchant_charge_id)
        assert steps.count(ReasonCode.TDS_RESULT_ASKED) <= 1
