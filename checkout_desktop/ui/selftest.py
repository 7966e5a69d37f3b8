"""`checkout-desktop --self-test`: a card sale and a PIX sale on the built-in sandbox, offscreen.

Steps: start the sandbox process, start the core (store, gateway, inbox), load the card page
with the published SDK, tokenize a test card through the SDK, charge it, and see the charge's
notification arrive through the inbox; then two 3-D Secure charges: a frictionless card, and a
challenged one whose code the self-test types into the sandbox's bank page, shown in the
challenge view as a customer would see it; then a PIX sale: a QR asked for, paid a moment later
by the sandbox's simulated customer (`--qr-autopay`), its payment notified through the inbox.
Prints one line — PASS or FAIL, each step's time — and exits 0 or 1. It runs in a temporary
instance folder, so the shop's history and settings are untouched, and it needs no keychain:
the built-in sandbox's credentials are public test values.

The one exception to "card data never enters this process": the self-test must type a card
into the page, as staff would. The test cards (the sandbox's public approved VISA number and its
two 3DS numbers) exist here only inside the JavaScript snippets `TEST_CARD_FILL_SCRIPT`,
`FRICTIONLESS_FILL_SCRIPT` and `CHALLENGE_FILL_SCRIPT`, handed unchanged to the page's
`runJavaScript`. Python never parses, logs, stores or compares them; no other code path can
reach them, and they are public test numbers that no real card carries.
"""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from checkout_desktop.domain.enums import ChargeStatus, DocumentType, InstallmentType, PaymentType
from checkout_desktop.domain.events import EventBus
from checkout_desktop.domain.inbox_events import WebhookStored
from checkout_desktop.domain.qr import PIX_MIN_EXPIRATION_S
from checkout_desktop.domain.records import PIX, CardSummary, QrSummary
from checkout_desktop.domain.wire import (
    ChargeAuthorizationRequest,
    CreditRequest,
    Customer,
    Phone,
    PixRequest,
    QrChargeRequest,
    QrTransactionRequest,
    TransactionRequest,
)
from checkout_desktop.paths import AppPaths
from checkout_desktop.settings import BUILTIN_SANDBOX, Settings

if TYPE_CHECKING:
    from checkout_desktop.terminal import Terminal
    from checkout_desktop.ui.card_page import CardPage

logger = logging.getLogger(__name__)

T = TypeVar("T")

STEP_TIMEOUT_S = 40.0
SELF_TEST_AMOUNT = 1234
QR_AUTOPAY_S = 1.0
"""The sandbox's simulated customer pays the self-test's PIX QR this long after it is made."""

# The documented exception (see the module docstring): the sandbox's public approved test card,
# present only in this JavaScript source, which goes to the page as is. The expiry is computed
# in the page, three years ahead.
_FILL_TEMPLATE = """
(function () {
  function put(id, value) {
    var e = document.getElementById(id);
    e.focus();
    e.value = value;
    e.dispatchEvent(new Event('input', {bubbles: true}));
  }
  put('number', '%s');
  put('holder-name', 'Teste Autoverificacao');
  put('holder-document', '52998224725');
  put('exp-month', '12');
  put('exp-year', String(new Date().getFullYear() + 3));
  put('cvv', '123');
  return true;
}())
"""
TEST_CARD_FILL_SCRIPT = _FILL_TEMPLATE % "4111 1111 1111 1111"
FRICTIONLESS_FILL_SCRIPT = _FILL_TEMPLATE % "4000 0000 0000 3063"
CHALLENGE_FILL_SCRIPT = _FILL_TEMPLATE % "4000 0000 0000 3220"
ACS_ANSWER_SCRIPT = """
(function () {
  var code = document.getElementById('acs-code');
  if (!code) { return false; }
  code.value = '1234';
  document.getElementById('acs-form').submit();
  return true;
}())
"""
"""The customer's answer on the sandbox's bank page: its approving code."""
ACS_TITLE = "Sandbox ACS"


class SelfTestFailure(RuntimeError):
    """A step failed; the message says which and why."""


async def _three_ds_charge(
    terminal: Terminal,
    page: CardPage,
    tokenize: Callable[[str], Awaitable[object]],
    script: str,
) -> str:
    """One 3DS charge of a test card typed by `script`; a challenge is answered on the bank's
    page inside the challenge view. Returns the merchantChargeId of the PAID charge."""
    from checkout_desktop.charges.three_ds import ThreeDsProgress
    from checkout_desktop.ui.bridge import CardToken
    from checkout_desktop.ui.challenge_view import ChallengeView
    from checkout_desktop.ui.qt_app import wait_for_signal

    card = await tokenize(script)
    assert isinstance(card, CardToken)
    mcid = f"selftest-3ds-{card.last_four}-{int(time.time())}"
    views: list[ChallengeView] = []
    answered: list[asyncio.Task[None]] = []

    async def answer(view: ChallengeView) -> None:
        while view.page.title() != ACS_TITLE:
            await wait_for_signal(view.page.titleChanged)
        done = asyncio.get_running_loop().create_future()
        view.page.runJavaScript(ACS_ANSWER_SCRIPT, 0, lambda ok: done.set_result(bool(ok)))
        if not await done:
            raise SelfTestFailure("3DS: the bank's page had no code field")

    def on_progress(progress: ThreeDsProgress) -> None:
        if progress.stage == "challenge" and progress.challenge is not None:
            view = ChallengeView(progress.challenge)
            view.cancelled.connect(terminal.service.three_ds.cancel_challenge)
            views.append(view)
            view.start()
            answered.append(asyncio.ensure_future(answer(view)))

    try:
        outcome = await terminal.service.three_ds.charge(
            sale_id=mcid,
            request=_request(mcid, card.token),
            tenders=[CardSummary(brand=card.brand.value, last_four=card.last_four)],
            browser=page.browser_info(),
            fallback="refuse",
            on_progress=on_progress,
        )
    finally:
        for view in views:
            view.close_view()
        for task in answered:
            task.cancel()
    if outcome.status != ChargeStatus.PAID:
        raise SelfTestFailure(f"3DS: expected PAID, got {outcome.status} ({outcome.message})")
    return mcid


def _request(mcid: str, token: str) -> ChargeAuthorizationRequest:
    return ChargeAuthorizationRequest(
        merchantChargeId=mcid,
        customer=Customer(
            name="Teste Autoverificacao",
            email="self-test@example.com",
            documentType=DocumentType.CPF,
            document="52998224725",
            phone=Phone(areaCode="11", number="987654321"),
        ),
        transactions=[
            TransactionRequest(
                amount=SELF_TEST_AMOUNT,
                credit=CreditRequest(
                    temporaryCardToken=token,
                    installmentNumber=1,
                    installmentType=InstallmentType.NONE,
                ),
            )
        ],
    )


@dataclass
class StepClock:
    """Each step's wall time, in order."""

    steps: list[tuple[str, float]] = field(default_factory=list)
    started: float = field(default_factory=time.monotonic)

    async def run(self, name: str, work: Awaitable[T], limit_s: float = STEP_TIMEOUT_S) -> T:
        begin = time.monotonic()
        try:
            result = await asyncio.wait_for(work, timeout=limit_s)
        except TimeoutError:
            raise SelfTestFailure(f"{name}: no result within {limit_s:g} s") from None
        self.steps.append((name, time.monotonic() - begin))
        return result

    def add(self, name: str, seconds: float) -> None:
        self.steps.append((name, seconds))

    def line(self, verdict: str, detail: str | None = None) -> str:
        parts = [f"{name} {seconds:.2f} s" for name, seconds in self.steps]
        total = time.monotonic() - self.started
        text = f"self-test {verdict}: " + " · ".join([*parts, f"total {total:.2f} s"])
        return f"{text} — {detail}" if detail else text


def _temporary_paths() -> tuple[AppPaths, Path]:
    root = Path(tempfile.mkdtemp(prefix="checkout-desktop-self-test-"))
    os.chmod(root, 0o700)
    paths = AppPaths(config_dir=root / "config", data_dir=root / "data", log_dir=root / "logs")
    return paths.ensure(), root


def run_self_test(*, listener_port: int | None = None) -> int:
    """Run the self-test on its own qasync loop and print the verdict; 0 on PASS, 1 on FAIL.

    It works in a temporary instance folder: the shop's own settings and store are untouched.
    """
    # Offscreen: the self-test must run on a server or in CI without a display.
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    from checkout_desktop.ui import loop

    work, root = _temporary_paths()
    try:
        line, ok = loop.run(self_test(work, listener_port=listener_port))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print(line, flush=True)
    return 0 if ok else 1


async def self_test(paths: AppPaths, *, listener_port: int | None = None) -> tuple[str, bool]:
    """The steps; returns the verdict line and whether every step passed."""
    from checkout_desktop.sandbox.link import SandboxLink, SandboxLinkError, start_sandbox
    from checkout_desktop.terminal import Terminal
    from checkout_desktop.ui.card_page import SdkCredentialSource
    from checkout_desktop.ui.chromium import apply_profile_flags
    from checkout_desktop.ui.qt_app import build_card_page, wait_for_signal

    clock = StepClock()
    settings = Settings(active_profile=BUILTIN_SANDBOX, first_run_done=True)
    sandbox: SandboxLink | None = None
    terminal: Terminal | None = None
    card_page: CardPage | None = None
    try:
        begin = time.monotonic()
        try:
            sandbox = start_sandbox(paths, extra_args=("--qr-autopay", str(QR_AUTOPAY_S)))
        except SandboxLinkError as exc:
            raise SelfTestFailure(f"sandbox: {exc}") from None
        clock.add("sandbox", time.monotonic() - begin)
        apply_profile_flags(settings, sandbox.sdk_endpoint)
        bus = EventBus()
        notifications: asyncio.Queue[WebhookStored] = asyncio.Queue()
        bus.subscribe(WebhookStored, notifications.put_nowait)
        terminal = await clock.run(
            "core",
            Terminal.start(
                settings,
                paths,
                sandbox=sandbox,
                listener_port=0 if listener_port is None else listener_port,
                bus=bus,
            ),
        )
        if terminal.problems:
            raise SelfTestFailure("core: " + "; ".join(map(str, terminal.problems)))

        card_page = build_card_page(
            settings,
            SdkCredentialSource(
                terminal.merchant_document, terminal.credentials, settings.profile.sdk_credential
            ),
        )
        card_page.resize(480, 640)
        card_page.show()
        page = card_page

        async def page_ready() -> None:
            ready = asyncio.ensure_future(wait_for_signal(page.ready))
            failed = asyncio.ensure_future(wait_for_signal(page.sdk_unavailable))
            page.load()
            done, pending = await asyncio.wait({ready, failed}, return_when=asyncio.FIRST_COMPLETED)
            for task in pending:
                task.cancel()
            if failed in done:
                raise SelfTestFailure(f"card page: {failed.result()[0]}")

        await clock.run("card page", page_ready())

        async def tokenize(script: str = TEST_CARD_FILL_SCRIPT) -> object:
            token = asyncio.ensure_future(wait_for_signal(page.token_created))
            error = asyncio.ensure_future(wait_for_signal(page.sdk_error))
            filled = asyncio.get_running_loop().create_future()
            page.page.runJavaScript(script, 0, lambda result: filled.set_result(bool(result)))
            if not await filled:
                raise SelfTestFailure("tokenize: the card form could not be filled")
            page.submit()
            done, pending = await asyncio.wait({token, error}, return_when=asyncio.FIRST_COMPLETED)
            for task in pending:
                task.cancel()
            if error in done:
                failure = error.result()[0]
                raise SelfTestFailure(f"tokenize: the SDK refused the card ({failure!r})")
            return token.result()[0]

        card_token = await clock.run("tokenize", tokenize())
        from checkout_desktop.ui.bridge import CardToken

        assert isinstance(card_token, CardToken)
        mcid = f"selftest-{int(time.time())}"
        request = _request(mcid, card_token.token)
        outcome = await clock.run(
            "charge",
            terminal.service.charge(
                sale_id="selftest",
                request=request,
                tenders=[CardSummary(brand=card_token.brand.value, last_four=card_token.last_four)],
            ),
        )
        if outcome.status != ChargeStatus.PAID:
            raise SelfTestFailure(
                f"charge: expected PAID, got {outcome.status} ({outcome.message})"
            )

        async def notification() -> WebhookStored:
            while True:
                event = await notifications.get()
                if event.merchant_charge_id == mcid and event.status == ChargeStatus.PAID.value:
                    return event

        await clock.run("notification", notification())
        frictionless = await clock.run(
            "3DS frictionless", _three_ds_charge(terminal, page, tokenize, FRICTIONLESS_FILL_SCRIPT)
        )
        challenged = await clock.run(
            "3DS challenge", _three_ds_charge(terminal, page, tokenize, CHALLENGE_FILL_SCRIPT)
        )
        pix = f"selftest-pix-{int(time.time())}"
        qr = await clock.run(
            "pix",
            terminal.service.charge(
                sale_id="selftest-pix",
                request=QrChargeRequest(
                    merchantChargeId=pix,
                    customer=request.customer,
                    transactions=[
                        QrTransactionRequest(
                            paymentType=PaymentType.PIX,
                            amount=SELF_TEST_AMOUNT,
                            pix=PixRequest(expiration=PIX_MIN_EXPIRATION_S),
                        )
                    ],
                ),
                tenders=[QrSummary(PIX, PIX_MIN_EXPIRATION_S)],
            ),
        )
        if not qr.awaiting_payment:
            raise SelfTestFailure(f"pix: expected a QR awaiting payment, got {qr.status}")

        async def pix_paid() -> WebhookStored:
            while True:
                event = await notifications.get()
                if event.merchant_charge_id == pix and event.status == ChargeStatus.PAID.value:
                    return event

        await clock.run("pix paid", pix_paid())
        return (
            clock.line(
                "PASS",
                f"charge {mcid} PAID, notified through the inbox; 3DS charges {frictionless} "
                f"and {challenged} (challenge answered on the bank's page) PAID; PIX {pix} paid "
                "by the simulated customer, notified through the inbox",
            ),
            True,
        )
    except SelfTestFailure as exc:
        return clock.line("FAIL", str(exc)), False
    except Exception as exc:
        logger.exception("the self-test failed")
        return clock.line("FAIL", f"{type(exc).__name__}: {exc}"), False
    finally:
        if card_page is not None:
            card_page.close()
            card_page.deleteLater()
        if terminal is not None:
            await terminal.stop()
        if sandbox is not None:
            sandbox.stop()
