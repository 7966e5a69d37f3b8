"""The first-contact check's parts without a service: findings, verdict, JSON, and the probe's
backoff and logging."""

from __future__ import annotations

import asyncio
import json
import logging

import pytest

from checkout_desktop.doctor.checks import (
    Reached,
    Secrets,
    Target,
    check_keychain,
    check_notification_url,
    names_charge_not_found,
)
from checkout_desktop.doctor.probe import (
    Reachability,
    ReachabilityProbe,
    ServiceReachabilityChanged,
)
from checkout_desktop.doctor.report import (
    ESSENTIAL,
    CheckName,
    CheckResult,
    Finding,
    Outcome,
    Report,
)
from checkout_desktop.domain.charge_events import AttemptChanged, TokenStateChanged, TokenStatus
from checkout_desktop.domain.events import EventBus
from checkout_desktop.domain.reasons import Reason, ReasonCode
from checkout_desktop.domain.state import AttemptState
from checkout_desktop.secrets import SecretName, SecretStore
from checkout_desktop.settings import Profile, ProfileKind, Settings
from tests.conftest import MemoryKeyring

logger = logging.getLogger(__name__)


# -- "not found" as a 400 -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        {"message": "Charge not found", "success": False, "errors": []},
        {
            "message": "Bad request",
            "errors": [{"field": "merchantChargeId", "message": "not found"}],
        },
        {"message": "Cobrança não encontrada", "success": False},
        {"error": {"message": "charge does not exist"}},
    ],
)
def test_a_400_that_names_the_charge_as_not_found_is_recognised(body: dict[str, object]) -> None:
    assert names_charge_not_found(body)


@pytest.mark.parametrize(
    "body",
    [
        {"message": "customer.phone is required", "errors": [{"field": "customer.phone"}]},
        {"message": "not found"},  # names no charge
        {"message": "Charge invalid", "errors": [{"field": "amount", "message": "too small"}]},
        None,
        ["not found"],
    ],
)
def test_other_400s_are_not_taken_for_not_found(body: object) -> None:
    assert not names_charge_not_found(body)


# -- keychain ----------------------------------------------------------------------------------


def _real_profile() -> Profile:
    return Profile(
        name="shop",
        label="Shop",
        kind=ProfileKind.PRODUCTION,
        base_url="https://checkout-api.example.com",
        client_id="client-1",
        merchant_document="12345678000195",
    )


def test_every_missing_secret_is_named_and_charging_secrets_fail_the_check() -> None:
    store = SecretStore(MemoryKeyring())
    result = check_keychain(_real_profile(), Secrets(store=store, profile="shop"))
    assert result.outcome == Outcome.FAILED
    assert result.finding == Finding.KEYCHAIN_MISSING
    assert result.args["missing"] == ("client_secret", "sdk_merchant_token", "webhook_token")


def test_a_missing_webhook_token_alone_is_a_warning() -> None:
    store = SecretStore(MemoryKeyring())
    store.set("shop", SecretName.CLIENT_SECRET, "secret1")
    store.set("shop", SecretName.SDK_MERCHANT_TOKEN, "sdk1")
    result = check_keychain(_real_profile(), Secrets(store=store, profile="shop"))
    assert result.outcome == Outcome.WARNING
    assert result.args["missing"] == ("webhook_token",)


def test_secrets_given_as_files_count_as_present() -> None:
    from pydantic import SecretStr

    store = SecretStore(MemoryKeyring())
    store.set("shop", SecretName.SDK_MERCHANT_TOKEN, "sdk1")
    given = Secrets(
        store=store,
        profile="shop",
        client_secret=SecretStr("from_file"),
        webhook_token=SecretStr("hook"),
    )
    result = check_keychain(_real_profile(), given)
    assert result.outcome == Outcome.OK
    assert result.args["from_files"] == ("client_secret", "webhook_token")


# -- notification URL --------------------------------------------------------------------------


def _settings(mode: str, public_url: str | None = None) -> Settings:
    settings = Settings(active_profile="production")
    settings.tunnel.mode = mode  # type: ignore[assignment]
    settings.tunnel.public_url = public_url
    return settings


def test_a_notification_url_that_breaks_the_rules_names_each_rule() -> None:
    result = check_notification_url(_settings("manual", "http://203.0.113.9/hook?x=1"), None)
    assert result.outcome == Outcome.FAILED
    assert result.finding == Finding.URL_BREAKS_RULES
    assert set(result.args["rules"]) == {  # type: ignore[arg-type]
        "https",
        "no query parameters",
        "no IPv4 address",
    }


def test_a_good_manual_url_and_no_tunnel() -> None:
    # The URL as typed (the wizard's example holds the path), as the tunnel registers it:
    # never the listener's path added a second time.
    typed = "https://shop.example.com/webhooks/checkout"
    ok = check_notification_url(_settings("manual", typed), None)
    assert ok.outcome == Outcome.OK
    assert ok.args["url"] == typed
    none = check_notification_url(_settings("none"), None)
    assert (none.outcome, none.finding) == (Outcome.WARNING, Finding.URL_NO_TUNNEL)


# -- verdict and JSON --------------------------------------------------------------------------


def _report(**outcomes: Outcome) -> Report:
    report = Report(profile="shop", kind="production", deadline_s=8.0)
    for check in CheckName:
        outcome = outcomes.get(check.name, Outcome.OK)
        report.add(CheckResult(check, outcome, Finding.PROFILE_OK, {"profile": "shop"}))
    return report


def test_the_terminal_can_charge_only_when_every_essential_check_passes() -> None:
    assert _report().exit_code == 0
    # Notifications failing leave charging possible (results are then asked for).
    assert _report(ROUND_TRIP=Outcome.FAILED, NOTIFICATION_URL=Outcome.FAILED).exit_code == 0
    assert _report(TOKEN=Outcome.WARNING).exit_code == 0
    for check in ESSENTIAL:
        assert _report(**{check.name: Outcome.FAILED}).exit_code == 1, check
        assert _report(**{check.name: Outcome.SKIPPED}).exit_code == 1, check
    missing = _report()
    missing.results = [r for r in missing.results if r.check != CheckName.SDK_HOST]
    assert missing.exit_code == 1


def test_the_json_line_is_one_line_in_check_order() -> None:
    report = _report(SDK_HOST=Outcome.FAILED)
    report.results.reverse()
    line = json.dumps(report.to_json())
    assert "\n" not in line
    data = json.loads(line)
    assert data["can_charge"] is False
    assert data["exit_code"] == 1
    assert [c["check"] for c in data["checks"]] == [c.value for c in CheckName]


# -- the periodic probe ------------------------------------------------------------------------


class _Answers:
    """A reacher that answers from a script, counting calls (no network)."""

    def __init__(self, *failures: Finding | None) -> None:
        self.script = list(failures)
        self.calls = 0

    async def __call__(self, target: Target, within_s: float) -> Reached:
        self.calls += 1
        failure = self.script.pop(0) if len(self.script) > 1 else self.script[0]
        return Reached(failure, "refused" if failure else "")


def _hourly_api_probe(bus: EventBus, reacher: _Answers, *, poke_gap_s: float) -> ReachabilityProbe:
    """A probe of an API host alone whose next scheduled probe is an hour away: any probe after
    the first is one something asked for."""
    probe = ReachabilityProbe(
        bus=bus,
        api=Target("api.example.com", 443, None),
        sdk=None,
        interval_s=3600,
        reacher=reacher,
    )
    probe.poke_gap_s = poke_gap_s
    return probe


def _watch(bus: EventBus) -> tuple[list[ServiceReachabilityChanged], asyncio.Event]:
    """Every result the probe publishes, and an event set at each."""
    seen: list[ServiceReachabilityChanged] = []
    arrived = asyncio.Event()

    def note(event: ServiceReachabilityChanged) -> None:
        seen.append(event)
        arrived.set()

    bus.subscribe(ServiceReachabilityChanged, note)
    return seen, arrived


def _attempt(state: AttemptState, reason: Reason) -> AttemptChanged:
    """A sale's attempt moved on, as the charge service announces it."""
    return AttemptChanged(merchant_charge_id="s-01", sale_id="s", state=state, reason=reason)


def _token(status: TokenStatus, error: Reason | None = None) -> TokenStateChanged:
    """A token request ended, as the token manager announces it."""
    return TokenStateChanged(
        status=status, valid_until=None, seconds_left=None, token_requests=1, error=error
    )


@pytest.mark.asyncio
async def test_the_probe_backs_off_while_unreachable_and_logs_once_per_change(
    caplog: pytest.LogCaptureFixture,
) -> None:
    bus = EventBus()
    seen: list[ServiceReachabilityChanged] = []
    bus.subscribe(ServiceReachabilityChanged, seen.append)
    down = Finding.SDK_CONNECT_FAILED
    answers = _Answers(down, down, down, down, down, down, down, None)
    probe = ReachabilityProbe(
        bus=bus, api=Target("api.example.com", 443, None), sdk=None, reacher=answers
    )
    with caplog.at_level(logging.INFO, logger="checkout_desktop.doctor.probe"):
        for _ in range(8):
            await probe.probe_now()
    delays = [event.next_probe_s for event in seen]
    assert delays == [15.0, 30.0, 60.0, 120.0, 240.0, 300.0, 300.0, 60.0]
    assert [e.level for e in seen[:7]] == [Reachability.UNREACHABLE] * 7
    assert seen[-1].level == Reachability.REACHABLE
    # Every probe of the same state keeps its first "since".
    assert {e.since for e in seen[:7]} == {seen[0].since}
    lines = [r for r in caplog.records if r.name == "checkout_desktop.doctor.probe"]
    assert [r.levelno for r in lines] == [logging.WARNING, logging.INFO]
    assert answers.calls == 8


@pytest.mark.asyncio
async def test_an_unreachable_card_form_host_is_its_own_state() -> None:
    bus = EventBus()
    api = Target("api.example.com", 443, None)
    sdk = Target("sdk.example.com", 443, None)

    async def reacher(target: Target, within_s: float) -> Reached:
        return Reached(Finding.SDK_DNS_FAILED if target is sdk else None, "no such name")

    probe = ReachabilityProbe(bus=bus, api=api, sdk=sdk, reacher=reacher)
    event = await probe.probe_now()
    assert event.level == Reachability.CARD_FORM_UNREACHABLE
    assert event.api.failure is None
    assert event.sdk is not None and event.sdk.failure == Finding.SDK_DNS_FAILED


@pytest.mark.asyncio
async def test_the_running_probe_waits_its_delay_and_wakes_when_poked() -> None:
    bus = EventBus()
    seen, arrived = _watch(bus)
    probe = _hourly_api_probe(bus, _Answers(None), poke_gap_s=0.0)
    probe.start()
    try:
        await asyncio.wait_for(arrived.wait(), 10)
        arrived.clear()
        assert len(seen) == 1  # the next one is an hour away
        probe.poke()
        await asyncio.wait_for(arrived.wait(), 10)
    finally:
        await probe.stop()
    assert not probe.running
    assert probe.probes == 2


@pytest.mark.asyncio
async def test_a_call_that_contradicts_the_last_probe_makes_the_probe_look_again_at_once() -> None:
    # The status bar said "Serviço: acessível" for up to a minute while the clerk's charges
    # failed for want of a connection, and could say "inacessível" for five while they went
    # through: nothing told the probe.
    bus = EventBus()
    seen, arrived = _watch(bus)
    down = Finding.SDK_CONNECT_FAILED
    probe = _hourly_api_probe(bus, _Answers(None, down, None), poke_gap_s=0.0)
    unreachable = Reason.of(
        ReasonCode.UNREACHABLE, operation="charge", url="https://api.example.com", error="x"
    )

    async def probed_after(event: object) -> bool:
        arrived.clear()
        bus.publish(event)  # type: ignore[arg-type]
        try:
            await asyncio.wait_for(arrived.wait(), 0.3)
        except TimeoutError:
            return False
        return True

    probe.start()
    try:
        await asyncio.wait_for(arrived.wait(), 10)
        assert [e.level for e in seen] == [Reachability.REACHABLE]
        # A charge not sent because the service could not be reached: look again.
        assert await probed_after(
            _attempt(AttemptState.REJECTED, Reason.of(ReasonCode.NOT_CHARGED, error=unreachable))
        )
        assert seen[-1].level == Reachability.UNREACHABLE
        # A token request that could not reach the token server agrees: nothing to look at.
        token_down = Reason.of(
            ReasonCode.TOKEN_SERVER_UNREACHABLE, operation="token", url="u", error="x"
        )
        assert not await probed_after(_token(TokenStatus.FAILED, token_down))
        # The service answered a charge (refusing it): it is back, look again.
        assert await probed_after(
            _attempt(AttemptState.REJECTED, Reason.of(ReasonCode.NOT_CHARGED, error="refused"))
        )
        assert seen[-1].level == Reachability.REACHABLE
        # Calls that agree with "reachable", and an attempt only recorded, change nothing.
        assert not await probed_after(_token(TokenStatus.VALID))
        assert not await probed_after(
            _attempt(AttemptState.RECORDED, Reason.of(ReasonCode.RECORDED_BEFORE_SENDING))
        )
        assert not await probed_after(
            _attempt(AttemptState.CREATED, Reason.of(ReasonCode.OUTCOME_APPROVED, status="PAID"))
        )
        assert probe.probes == 3
    finally:
        await probe.stop()
    # Stopped, it no longer listens.
    bus.publish(
        _attempt(AttemptState.UNKNOWN, Reason.of(ReasonCode.OUTCOME_UNKNOWN, error=unreachable))
    )
    await asyncio.sleep(0.1)
    assert probe.probes == 3


@pytest.mark.asyncio
async def test_the_card_forms_calls_are_weighed_against_the_card_service_host() -> None:
    from checkout_desktop.doctor.probe import ServiceCallEnded

    bus = EventBus()
    api = Target("api.example.com", 443, None)
    sdk = Target("sdk.example.com", 443, None)
    sdk_up = [True]

    async def reacher(target: Target, within_s: float) -> Reached:
        up = target is api or sdk_up[0]
        return Reached(None if up else Finding.SDK_CONNECT_FAILED, "" if up else "refused")

    first = asyncio.Event()
    bus.subscribe(ServiceReachabilityChanged, lambda _e: first.set())
    probe = ReachabilityProbe(bus=bus, api=api, sdk=sdk, interval_s=3600, reacher=reacher)
    probe.poke_gap_s = 0.0
    probe.start()
    try:
        await asyncio.wait_for(first.wait(), 10)
        sdk_up[0] = False
        bus.publish(ServiceCallEnded(host="api", reached=True))
        bus.publish(ServiceCallEnded(host="sdk", reached=True))
        await asyncio.sleep(0.2)
        assert probe.probes == 1  # both agree with the last probe
        bus.publish(ServiceCallEnded(host="sdk", reached=False))
        await asyncio.sleep(0.2)
        assert probe.probes == 2
        assert probe.last.level == Reachability.CARD_FORM_UNREACHABLE
    finally:
        await probe.stop()


@pytest.mark.asyncio
async def test_failures_in_a_burst_make_one_probe_and_not_sooner_than_the_gap() -> None:
    from checkout_desktop.doctor.probe import ServiceCallEnded

    bus = EventBus()
    first = asyncio.Event()
    bus.subscribe(ServiceReachabilityChanged, lambda _e: first.set())
    probe = _hourly_api_probe(bus, _Answers(None), poke_gap_s=0.5)
    probe.start()
    try:
        await asyncio.wait_for(first.wait(), 10)
        for _ in range(20):
            bus.publish(ServiceCallEnded(host="api", reached=False))
        await asyncio.sleep(0.25)
        assert probe.probes == 1  # not before the gap since the last probe
        await asyncio.sleep(0.6)
        assert probe.probes == 2  # one probe for the whole burst
        await asyncio.sleep(0.3)
        assert probe.probes == 2
    finally:
        await probe.stop()


@pytest.mark.asyncio
async def test_a_call_left_without_a_reply_says_the_service_does_not_answer_in_time() -> None:
    # A host that takes connections and never answers kept "Serviço: acessível" while every
    # charge ended "resultado desconhecido": the probe only connects.
    bus = EventBus()
    seen, first = _watch(bus)
    clock = [1000.0]
    probe = _hourly_api_probe(bus, _Answers(None), poke_gap_s=0.0)
    probe.monotonic = lambda: clock[0]
    probe.start()  # listens to the calls; its next scheduled probe is an hour away
    try:
        await asyncio.wait_for(first.wait(), 10)
        await _left_without_a_reply(bus, probe, seen, clock)
    finally:
        await probe.stop()


async def _left_without_a_reply(
    bus: EventBus,
    probe: ReachabilityProbe,
    seen: list[ServiceReachabilityChanged],
    clock: list[float],
) -> None:
    no_reply = Reason.of(ReasonCode.REPLY_TIMEOUT, operation="charge", seconds="30")

    assert seen[-1].level == Reachability.REACHABLE
    # A charge whose reply never came: said at once, without a probe (it would connect).
    bus.publish(
        _attempt(AttemptState.UNKNOWN, Reason.of(ReasonCode.OUTCOME_UNKNOWN, error=no_reply))
    )
    assert seen[-1].level == Reachability.NOT_ANSWERING
    assert seen[-1].unanswered is not None and probe.probes == 1
    # A probe that connects does not undo it while the last unanswered call is recent.
    clock[0] += 60
    assert (await probe.probe_now()).level == Reachability.NOT_ANSWERING
    # Any call answered ends it (here the reconciler settling the charge), at once.
    bus.publish(
        _attempt(AttemptState.CREATED, Reason.of(ReasonCode.OUTCOME_APPROVED, status="PAID"))
    )
    assert seen[-1].level == Reachability.REACHABLE and seen[-1].unanswered is None
    # A token request without a reply says it too; a token obtained ends it.
    token_late = Reason.of(ReasonCode.TOKEN_SERVER_TIMEOUT, operation="token", seconds="10")
    bus.publish(_token(TokenStatus.FAILED, token_late))
    assert seen[-1].level == Reachability.NOT_ANSWERING
    count = len(seen)
    bus.publish(_token(TokenStatus.VALID))
    assert len(seen) == count + 1 and seen[-1].level == Reachability.REACHABLE
    # Nothing answered, nothing new left unanswered: a later probe lets it go by itself.
    bus.publish(
        _attempt(AttemptState.UNKNOWN, Reason.of(ReasonCode.OUTCOME_UNKNOWN, error=no_reply))
    )
    assert seen[-1].level == Reachability.NOT_ANSWERING
    clock[0] += probe.not_answering_hold_s + 1
    assert (await probe.probe_now()).level == Reachability.REACHABLE
    # No connection at all says more than a late reply.
    bus.publish(
        _attempt(AttemptState.UNKNOWN, Reason.of(ReasonCode.OUTCOME_UNKNOWN, error=no_reply))
    )
    probe._reach = _Answers(Finding.SDK_CONNECT_FAILED)
    assert (await probe.probe_now()).level == Reachability.UNREACHABLE
