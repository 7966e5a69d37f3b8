"""Chaos run of charging and money operations: many sales against the sandbox, with faults.

    .venv/bin/python scripts/chaos_money.py --sales 520 --seed 1

Everything runs on loopback and stops by itself: the sandbox and a notification receiver run
in this process; the terminal's core (ChargeService on its own SQLite file, reconciler on) runs
in a child process that this script feeds sales, refunds and captures, and SIGKILLs: after a
refund or capture was sent and the service moved the money but before the reply came back,
and at random moments. After each kill the clerk tries again, as a clerk would. Faults: a
seeded share of 5xx on every API call, notifications duplicated, reordered, their first
attempt dropped and some refused by the receiver (retried by the sandbox).

At the end the faults stop, the notifications drain, the terminal settles what is open, and
the store is compared with the sandbox's record. It prints one line per figure and exits 1
when any over-refund, mismatch, double charge or unresolved operation remains.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import os
import random
import signal
import ssl
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

SCRIPT = Path(__file__).resolve()
ROOT = SCRIPT.parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

logger = logging.getLogger("chaos_money")

APPROVED_CARDS = (("4111111111111111", "VISA"), ("5555555555554444", "MASTERCARD"))
HOLDER_DOCUMENT = "65844359038"
WEBHOOK_TOKEN = "chaos_webhook_token_0001"


# ---------------------------------------------------------------------------------------------
# The child: the terminal's core, driven one job per line on stdin


def _say(payload: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(payload) + "\n")
    sys.stdout.flush()


async def _child(job: dict[str, Any]) -> None:
    import httpx
    from pydantic import SecretStr

    from checkout_desktop.charges.service import ChargeService, MoneyOperationError, SaleBusy
    from checkout_desktop.domain.records import CardSummary
    from checkout_desktop.domain.state import UNRESOLVED_ATTEMPT_STATES
    from checkout_desktop.domain.wire import ChargeAuthorizationRequest
    from checkout_desktop.gateway.client import ChargeClient
    from checkout_desktop.gateway.errors import GatewayError
    from checkout_desktop.gateway.profiles import Endpoints
    from checkout_desktop.gateway.tokens import TokenManager
    from checkout_desktop.secrets import FixedCredentials
    from checkout_desktop.store.sqlite.db import connect
    from checkout_desktop.store.sqlite.store import SqliteStore

    endpoints = Endpoints(base_url=job["api_url"], auth_url=job["api_url"])
    credentials = FixedCredentials(
        SecretStr(job["client_secret"]), SecretStr("unused"), SecretStr("unused")
    )
    conn = connect(Path(job["db"]))
    async with httpx.AsyncClient(trust_env=False) as http:
        tokens = TokenManager(
            http=http,
            token_url=endpoints.token_url,
            client_id=job["client_id"],
            credentials=credentials,
            timeout_s=job["timeout_s"],
        )
        client = ChargeClient(
            http=http, endpoints=endpoints, tokens=tokens, timeout_s=job["timeout_s"]
        )
        service = ChargeService(
            store=SqliteStore(conn),
            client=client,
            profile="builtin-sandbox",
            unknown_grace_s=job["grace_s"],
            unknown_retry_max_s=1.0,
        )
        if not job.get("defer_reconciler"):
            service.start(job["reconcile_s"], fast_interval_s=0.3)
        _say({"ready": True})
        while True:
            line = await asyncio.to_thread(sys.stdin.readline)
            if not line:
                break
            order = json.loads(line)
            op = order["op"]
            try:
                if op == "sale":
                    request = ChargeAuthorizationRequest.model_validate(
                        {
                            "merchantChargeId": order["mcid"],
                            "lateCapture": order["late"],
                            "customer": {
                                "name": "Maria Silva",
                                "email": "maria@example.com",
                                "documentType": "CPF",
                                "document": HOLDER_DOCUMENT,
                            },
                            "transactions": [
                                {
                                    "amount": order["amount"],
                                    "credit": {"temporaryCardToken": order["token"]},
                                }
                            ],
                        }
                    )
                    outcome = await service.charge(
                        sale_id=order["sale"],
                        request=request,
                        tenders=[CardSummary(order["brand"], order["last_four"])],
                    )
                    _say({"attempt": str(outcome.attempt), "status": str(outcome.status)})
                elif op == "refund_to":
                    # The clerk's view: what the terminal shows as refunded, what is pending.
                    mcid = order["mcid"]
                    if service.store.repo.charge(mcid) is None:
                        _say({"result": "unknown_charge"})
                        continue
                    view = await service.money_view(mcid)
                    if view.busy:
                        _say({"result": "busy"})
                        continue
                    if order.get("capture_first") and view.capturable:
                        # A late-capture sale: the clerk captures it before refunding part.
                        await service.capture(mcid)
                        view = await service.money_view(mcid)
                    refunded = view.charge.refunded_amount or 0
                    wanted = order["target"] - refunded
                    if wanted <= 0 or view.refundable <= 0:
                        _say({"result": "done", "refunded": refunded})
                        continue
                    record = await service.refund(mcid, min(wanted, view.refundable))
                    _say({"result": "sent", "refunded": record.refunded_amount})
                elif op == "capture":
                    mcid = order["mcid"]
                    if service.store.repo.charge(mcid) is None:
                        _say({"result": "unknown_charge"})
                        continue
                    view = await service.money_view(mcid)
                    if view.busy:
                        _say({"result": "busy"})
                    elif not view.capturable:
                        _say({"result": "done"})
                    else:
                        await service.capture(mcid)
                        _say({"result": "sent"})
                elif op == "start_reconciler":
                    service.start(job["reconcile_s"], fast_interval_s=0.3)
                    _say({"result": "started"})
                elif op == "settle":
                    for _ in range(order["passes"]):
                        await service.reconcile(trigger="on demand")
                        attempts = service.store.repo.unresolved_attempts(limit=1)
                        ops = service.store.repo.unresolved_money_operations(limit=1)
                        if not attempts and not ops:
                            break
                        await asyncio.sleep(0.2)
                    open_attempts = [
                        a
                        for a in service.store.repo.unresolved_attempts(limit=1000)
                        if a.state in UNRESOLVED_ATTEMPT_STATES
                    ]
                    _say(
                        {
                            "attempts": len(open_attempts),
                            "operations": len(service.store.repo.unresolved_money_operations(1000)),
                        }
                    )
                else:
                    _say({"error": f"unknown job {op}"})
            except (MoneyOperationError, GatewayError, SaleBusy) as exc:
                _say({"error": type(exc).__name__})
        await service.stop()
    conn.close()


# ---------------------------------------------------------------------------------------------
# The run


@dataclass
class ChaosConfig:
    sales: int = 520
    seed: int = 1
    error_rate: float = 0.1
    kills_mid_refund: int = 6
    kills_at_random: int = 3
    refund_share: float = 0.6
    late_capture_share: float = 0.2
    max_seconds: float = 1500.0
    grace_s: float = 5.0


@dataclass
class ChaosReport:
    sales: int = 0
    charged: int = 0
    not_charged: int = 0
    refund_intents: int = 0
    refund_jobs: int = 0
    busy_refusals: int = 0
    captures: int = 0
    kills_mid_refund: int = 0
    kills_at_random: int = 0
    restarts: int = 0
    notifications_applied: int = 0
    notifications_refused: int = 0
    money_requests: int = 0
    operations_recorded: int = 0
    over_refunds: int = 0
    under_refunds: int = 0
    mismatches: int = 0
    double_charges: int = 0
    unresolved: int = 0
    unknown_to_store: int = 0
    stopped_early: bool = False
    seconds: float = 0.0
    details: list[str] = field(default_factory=list)
    """What makes the run fail (over-refunds, mismatches)."""
    notes: list[str] = field(default_factory=list)
    """What is worth a look but moves no money wrongly (a refund the clerk did not finish)."""

    @property
    def clean(self) -> bool:
        return not (self.over_refunds or self.mismatches or self.double_charges or self.unresolved)


class Child:
    """The terminal's process: start, ask, SIGKILL."""

    def __init__(self, db: Path, access: dict[str, Any], grace_s: float) -> None:
        self.db = db
        self.access = access
        self.grace_s = grace_s
        self.proc: asyncio.subprocess.Process | None = None

    async def start(self, *, defer_reconciler: bool = False) -> None:
        env = dict(os.environ)
        env["PYTHONPATH"] = str(ROOT)
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable,
            str(SCRIPT),
            "--child",
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            env=env,
        )
        await self.send(
            {
                **self.access,
                "db": str(self.db),
                "timeout_s": 2.0,
                "grace_s": self.grace_s,
                "reconcile_s": 1.0,
                "defer_reconciler": defer_reconciler,
            }
        )
        ready = await self.read(within_s=60)
        if not ready.get("ready"):
            raise RuntimeError(f"the terminal did not start: {ready}")

    async def send(self, job: dict[str, Any]) -> None:
        assert self.proc is not None
        assert self.proc.stdin is not None
        self.proc.stdin.write((json.dumps(job) + "\n").encode())
        await self.proc.stdin.drain()

    async def read(self, within_s: float = 60) -> dict[str, Any]:
        assert self.proc is not None
        assert self.proc.stdout is not None
        line = await asyncio.wait_for(self.proc.stdout.readline(), timeout=within_s)
        if not line:
            raise RuntimeError("the terminal exited")
        reply: dict[str, Any] = json.loads(line)
        return reply

    async def ask(self, job: dict[str, Any], within_s: float = 60) -> dict[str, Any]:
        await self.send(job)
        return await self.read(within_s)

    async def kill(self) -> None:
        assert self.proc is not None
        if self.proc.returncode is None:
            self.proc.send_signal(signal.SIGKILL)
        await self.proc.wait()

    async def close(self) -> None:
        if self.proc is None or self.proc.returncode is not None:
            return
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            await asyncio.wait_for(self.proc.wait(), timeout=20)
        except TimeoutError:
            await self.kill()


async def _tokenize(sdk_port: int, cert_pem: str, creds: Any, card: tuple[str, str]) -> str | None:
    number, brand = card
    import httpx

    context = ssl.create_default_context(cadata=cert_pem)
    context.check_hostname = False
    async with httpx.AsyncClient(verify=context, trust_env=False, timeout=10) as http:
        response = await http.post(
            f"https://127.0.0.1:{sdk_port}/payment/v2/temporary/card",
            headers={
                "Authorization": creds.transparent_token,
                "MerchantCredential": creds.merchant_document,
            },
            json={
                "brand": brand,
                "cardNumber": number,
                "cardholderName": "MARIA SILVA",
                "cardholderDocument": HOLDER_DOCUMENT,
                "expirationMonth": "12",
                "expirationYear": "2031",
                "cvv": "123",
            },
        )
    if response.status_code != 200:
        return None
    token = response.json().get("cardToken")
    return token if isinstance(token, str) else None


async def run_chaos(config: ChaosConfig, workdir: Path) -> ChaosReport:
    """One bounded chaos run; returns its figures (see the module's docstring)."""
    import trustme
    from aiohttp import web

    from checkout_desktop.charges.ledger import inbox_applier
    from checkout_desktop.domain.state import UNRESOLVED_ATTEMPT_STATES
    from checkout_desktop.inbox.intake import Received, classify
    from checkout_desktop.sandbox.server import SandboxConfig, SandboxServer
    from checkout_desktop.store.sqlite.charges import ChargeRepository
    from checkout_desktop.store.sqlite.db import connect, transaction
    from checkout_desktop.store.sqlite.store import SqliteCharges

    started = time.monotonic()
    deadline = started + config.max_seconds
    rng = random.Random(config.seed)  # noqa: S311 - a repeatable chaos schedule
    report = ChaosReport()
    lost: set[str] = set()
    db = workdir / "terminal.sqlite3"
    inbox_conn = connect(db)

    # The notification receiver: the inbox's own intake and applier, durable before 2xx.
    async def hook(request: web.Request) -> web.Response:
        if request.headers.get("Authorization") != WEBHOOK_TOKEN:
            return web.json_response({"message": "wrong token"}, status=401)
        if rng.random() < 0.05:
            report.notifications_refused += 1
            return web.json_response({"message": "busy"}, status=503)
        body = await request.read()
        received = Received(
            body,
            {},
            datetime.now(UTC),
            request.headers.get("event-type"),
            request.content_type,
            "127.0.0.1",
        )
        update = classify(received).update
        if update is not None and update.merchant_charge_id in lost:
            # The network loses it on the way (the sandbox retries, then gives up).
            report.notifications_refused += 1
            return web.json_response({"message": "lost"}, status=503)
        if update is not None:
            with transaction(inbox_conn):
                await inbox_applier(
                    SqliteCharges(ChargeRepository(inbox_conn)),
                    update,
                    f"chaos-{report.notifications_applied}",
                )
            report.notifications_applied += 1
        return web.json_response({"ok": True})

    ca = trustme.CA()
    cert = ca.issue_cert("localhost")
    ca_file = workdir / "ca.pem"
    ca.cert_pem.write_to_path(str(ca_file))
    server_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    cert.configure_cert(server_context)
    app = web.Application()
    app.router.add_post("/hook", hook)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0, ssl_context=server_context)
    await site.start()
    hook_port = runner.addresses[0][1]

    sandbox = SandboxServer(
        SandboxConfig(
            api_port=0,
            sdk_port=0,
            webhook_backoff_s=0.05,
            webhook_backoff_max_s=0.5,
            webhook_max_attempts=10,
        )
    )
    await sandbox.start()
    child: Child | None = None
    try:
        sandbox.configure_webhook(
            f"https://localhost:{hook_port}/hook", token=WEBHOOK_TOKEN, ca_file=ca_file
        )
        sandbox.faults.update(
            error_rate=config.error_rate,
            seed=config.seed,
            webhook_duplicate=True,
            webhook_reorder=True,
            webhook_reorder_window_s=0.2,
            webhook_drop_first=1,
        )
        creds = sandbox.credentials
        access = {
            "api_url": sandbox.api_url,
            "client_id": creds.client_id,
            "client_secret": creds.client_secret,
        }
        child = Child(db, access, config.grace_s)
        await child.start()

        # Kills mid-refund (or mid-capture) spread over the run: one every `kill_every` money
        # intents, until the configured number happened.
        expected = max(1, int(config.sales * config.refund_share * 0.8))
        kill_every = max(1, expected // (config.kills_mid_refund + 1))
        money_intents = 0
        kill_random_at = set(
            rng.sample(range(config.sales), min(config.kills_at_random, config.sales))
        )
        intents: dict[str, int] = {}
        charged: dict[str, str] = {}
        retry: list[tuple[str, str, int]] = []

        async def restart(*, defer_reconciler: bool = False) -> None:
            assert child is not None
            report.restarts += 1
            await child.start(defer_reconciler=defer_reconciler)

        async def refund_to(mcid: str, target: int) -> str:
            assert child is not None
            report.refund_jobs += 1
            reply = await child.ask(
                {"op": "refund_to", "mcid": mcid, "target": target, "capture_first": True}
            )
            result = str(reply.get("result") or reply.get("error"))
            if result in ("busy", "MoneyOperationBusy"):
                report.busy_refusals += 1
            return result

        async def kill_mid_money(job: dict[str, Any], mcid: str, moved: Any) -> bool:
            """Send a refund/capture, wait until the service moved the money, SIGKILL."""
            assert child is not None
            sandbox.faults.money_reply_delay_s = 5.0
            lost.add(mcid)
            try:
                await child.send(job)
                for _ in range(200):
                    if moved(sandbox.state.charges.get(mcid)):
                        break
                    await asyncio.sleep(0.02)
                else:
                    # Refused or failed before anything moved: collect its answer and go on.
                    await child.read(within_s=30)
                    return False
                await child.kill()
            finally:
                sandbox.faults.money_reply_delay_s = 0.0
            report.kills_mid_refund += 1
            # Back up, but not asking the service yet: the clerk is faster than the first pass.
            await restart(defer_reconciler=True)
            return True

        for i in range(config.sales):
            if time.monotonic() > deadline:
                report.stopped_early = True
                break
            report.sales += 1
            sale = f"sale-{config.seed}-{i:05d}"
            mcid = f"chaos-{config.seed}-{i:05d}"
            card = APPROVED_CARDS[i % len(APPROVED_CARDS)]
            token = await _tokenize(sandbox.sdk_port, sandbox.sdk_cert_pem, creds, card)
            if token is None:
                report.not_charged += 1
                continue
            late = rng.random() < config.late_capture_share
            amount = rng.randrange(500, 50_000)
            job = {
                "op": "sale",
                "sale": sale,
                "mcid": mcid,
                "token": token,
                "amount": amount,
                "late": late,
                "last_four": card[0][-4:],
                "brand": card[1],
            }
            if i in kill_random_at:
                # Killed mid-charge: the attempt stays open until the next start asks. The
                # clerk then tries the sale again with a new charge: refused while the first
                # one is unresolved or holds the money, so a sale is never charged twice.
                await child.send(job)
                await asyncio.sleep(rng.random() * 0.05)
                await child.kill()
                report.kills_at_random += 1
                await restart()
                charged[mcid] = sale
                again = await _tokenize(sandbox.sdk_port, sandbox.sdk_cert_pem, creds, card)
                if again is not None:
                    retry_id = f"{mcid}-b"
                    charged[retry_id] = sale
                    await child.ask({**job, "mcid": retry_id, "token": again})
                continue
            reply = await child.ask(job)
            if reply.get("attempt") not in ("CREATED", "UNKNOWN"):
                logger.info("sale %s not charged: %s", sale, reply)
                report.not_charged += 1
                continue
            charged[mcid] = sale
            if reply.get("attempt") != "CREATED":
                continue
            if late:
                report.captures += 1
                capture = {"op": "capture", "mcid": mcid}
                money_intents += 1
                if (
                    money_intents % kill_every == 0
                    and report.kills_mid_refund < config.kills_mid_refund
                ):
                    if await kill_mid_money(
                        capture, mcid, lambda c: c is not None and c.status == "PAID"
                    ):
                        again = await child.ask(capture)  # refused while unresolved
                        if again.get("result") == "busy":
                            report.busy_refusals += 1
                        await child.ask({"op": "start_reconciler"})
                    lost.discard(mcid)
                else:
                    await child.ask(capture)
            if rng.random() >= config.refund_share:
                continue
            target = amount if rng.random() < 0.5 else rng.randrange(1, amount)
            intents[mcid] = target
            report.refund_intents += 1
            money_intents += 1
            if (
                money_intents % kill_every == 0
                and report.kills_mid_refund < config.kills_mid_refund
            ):
                moved = await kill_mid_money(
                    {"op": "refund_to", "mcid": mcid, "target": target},
                    mcid,
                    lambda c: c is not None and (c.refunded_amount > 0 or c.status == "CANCELED"),
                )
                if moved:
                    report.refund_jobs += 1
                    # The clerk, seeing the terminal again, tries the refund once more at once,
                    # before the terminal has asked the service: it must be refused.
                    result = await refund_to(mcid, target)
                    await child.ask({"op": "start_reconciler"})
                    lost.discard(mcid)
                    if result not in ("done",):
                        retry.append((mcid, sale, target))
                    continue
            result = await refund_to(mcid, target)
            if result not in ("sent", "done"):
                retry.append((mcid, sale, target))

        # The clerk comes back to what did not go through (busy, refused, failed).
        for _ in range(5):
            if not retry:
                break
            await child.ask({"op": "settle", "passes": 10}, within_s=120)
            pending, retry = retry, []
            for mcid, sale, target in pending:
                result = await refund_to(mcid, target)
                if result not in ("done",):
                    retry.append((mcid, sale, target))

        # Quiet: no more faults; notifications drain; the terminal settles what is open.
        sandbox.faults.update(error_rate=0.0, webhook_drop_first=0)
        with contextlib.suppress(TimeoutError):
            await sandbox.webhooks_idle(120)
        await asyncio.sleep(config.grace_s)
        settled = await child.ask({"op": "settle", "passes": 40}, within_s=300)
        await child.close()

        # Compare the store with the service's record.
        repo = ChargeRepository(inbox_conn)
        for mcid, charge in sandbox.state.charges.items():
            record = repo.charge(mcid)
            if record is None:
                report.unknown_to_store += 1
                report.mismatches += 1
                report.details.append(f"{mcid}: at the service, not in the store")
                continue
            mine = (str(record.status), record.amount, record.refunded_amount or 0)
            theirs = (str(charge.status), charge.amount, charge.refunded_amount)
            if mine != theirs:
                report.mismatches += 1
                report.details.append(f"{mcid}: store {mine} service {theirs}")
            target = intents.get(mcid)
            if target is not None and charge.status != "CANCELED":
                if charge.refunded_amount > target:
                    report.over_refunds += 1
                    report.details.append(
                        f"{mcid}: refunded {charge.refunded_amount} above the {target} asked"
                    )
                elif charge.refunded_amount < target:
                    report.under_refunds += 1
                    report.notes.append(
                        f"{mcid}: {charge.status} refunded {charge.refunded_amount} of the "
                        f"{target} asked (the clerk's last tries were refused)"
                    )
        sales_at_service: dict[str, int] = {}
        for mcid, charge in sandbox.state.charges.items():
            if str(charge.status) in ("DENIED", "CANCELED", "ERROR"):
                continue
            sale = charged.get(mcid, mcid)
            sales_at_service[sale] = sales_at_service.get(sale, 0) + 1
        report.double_charges = sum(1 for n in sales_at_service.values() if n > 1)
        open_attempts = [
            a
            for a in repo.unresolved_attempts(limit=100_000)
            if a.state in UNRESOLVED_ATTEMPT_STATES
        ]
        report.unresolved = len(open_attempts) + len(repo.unresolved_money_operations(100_000))
        if report.unresolved != settled.get("attempts", 0) + settled.get("operations", 0):
            report.details.append(f"settle said {settled}")
        report.charged = len(sandbox.state.charges)
        report.operations_recorded = int(
            inbox_conn.execute("SELECT count(*) FROM money_operation").fetchone()[0]
        )
        report.money_requests = sum(
            1 for _ in inbox_conn.execute("SELECT 1 FROM charge_timeline WHERE outcome = 'sent'")
        )
    finally:
        if child is not None and child.proc is not None and child.proc.returncode is None:
            await child.kill()
        await sandbox.stop()
        await runner.cleanup()
        inbox_conn.close()
    report.seconds = round(time.monotonic() - started, 1)
    return report


def print_report(report: ChaosReport) -> None:
    for name, value in asdict(report).items():
        if name in ("details", "notes"):
            continue
        print(f"{name}: {value}")
    for line in [*report.details[:20], *report.notes[:20]]:
        print(f"  {line}")
    print(f"verdict: {'clean' if report.clean else 'FAILED'}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--sales", type=int, default=520)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--error-rate", type=float, default=0.1)
    parser.add_argument("--kills-mid-refund", type=int, default=6)
    parser.add_argument("--kills-at-random", type=int, default=3)
    parser.add_argument("--max-seconds", type=float, default=1500.0)
    args = parser.parse_args(argv)
    if args.child:
        first = sys.stdin.readline()
        asyncio.run(_child(json.loads(first)))
        return 0
    logging.basicConfig(level=logging.INFO if os.environ.get("CHAOS_VERBOSE") else logging.WARNING)
    config = ChaosConfig(
        sales=args.sales,
        seed=args.seed,
        error_rate=args.error_rate,
        kills_mid_refund=args.kills_mid_refund,
        kills_at_random=args.kills_at_random,
        max_seconds=args.max_seconds,
    )
    with tempfile.TemporaryDirectory(prefix="chaos-money-") as tmp:
        report = asyncio.run(run_chaos(config, Path(tmp)))
    print_report(report)
    return 0 if report.clean else 1


if __name__ == "__main__":
    sys.exit(main())
