"""Charging cost: the full crash-safe path beside a bare httpx call to the same sandbox endpoint.

The sandbox runs in its own process on 127.0.0.1, so its work is not timed as the client's.
Each round tokenizes the cards first (untimed), then makes N charges from C concurrent callers
twice: once through ChargeService (token manager, request validation, attempt committed
durably before sending, reply validated, merged by the state machine and committed, events)
and once as a bare `httpx.post` of the same JSON body with a bearer token fetched beforehand;
then the same with one caller, which shows the per-charge overhead without queueing. It prints
the token requests made, per-charge latency medians, throughput, the CPU each charge cost the
client and the sandbox, and the client's overhead per charge (difference and ratio of the
medians). Bounded by --charges and --rounds.

    .venv/bin/python benchmarks/charging.py [--charges 100] [--concurrency 20] [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import resource
import ssl
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from pydantic import SecretStr

from checkout_desktop.charges.service import ChargeService
from checkout_desktop.domain.enums import ChargeStatus
from checkout_desktop.domain.records import CardSummary
from checkout_desktop.domain.wire import ChargeAuthorizationRequest
from checkout_desktop.gateway.client import ChargeClient
from checkout_desktop.gateway.profiles import Endpoints
from checkout_desktop.gateway.tokens import TokenManager
from checkout_desktop.sandbox.process import SandboxInfo, start_sandbox_process
from checkout_desktop.secrets import FixedCredentials
from checkout_desktop.store.sqlite.db import connect
from checkout_desktop.store.sqlite.store import SqliteStore

logger = logging.getLogger(__name__)

CARD = "4111111111111111"  # the sandbox's approved test card (public test data)


@dataclass
class Run:
    latencies: list[float]
    wall_s: float
    token_requests: int
    client_cpu_s: float = 0.0
    sandbox_cpu_s: float = 0.0

    @property
    def median_ms(self) -> float:
        return statistics.median(self.latencies) * 1000

    @property
    def p90_ms(self) -> float:
        return statistics.quantiles(self.latencies, n=10)[-1] * 1000

    @property
    def per_second(self) -> float:
        return len(self.latencies) / self.wall_s

    @property
    def client_cpu_ms(self) -> float:
        return self.client_cpu_s / len(self.latencies) * 1000

    @property
    def sandbox_cpu_ms(self) -> float:
        return self.sandbox_cpu_s / len(self.latencies) * 1000


def own_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def process_cpu_s(pid: int) -> float:
    """User + system CPU seconds of another process so far (0 where /proc is missing)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def tokenize(info: SandboxInfo, count: int) -> list[str]:
    context = ssl.create_default_context(cadata=info.sdk_cert_pem)
    context.check_hostname = False  # the certificate names the SDK host, not 127.0.0.1
    creds = info.credentials
    async with httpx.AsyncClient(verify=context, trust_env=False) as http:

        async def one() -> str:
            reply = await http.post(
                f"https://127.0.0.1:{info.sdk_port}/payment/v2/temporary/card",
                headers={
                    "Authorization": creds.transparent_token,
                    "MerchantCredential": creds.merchant_document,
                },
                json={
                    "brand": "VISA",
                    "cardNumber": CARD,
                    "cardholderName": "MARIA SILVA",
                    "cardholderDocument": "65844359038",
                    "expirationMonth": "12",
                    "expirationYear": "2031",
                    "cvv": "123",
                },
            )
            reply.raise_for_status()
            return str(reply.json()["cardToken"])

        return list(await asyncio.gather(*(one() for _ in range(count))))


def request_for(token: str) -> ChargeAuthorizationRequest:
    return ChargeAuthorizationRequest.model_validate(
        {
            "merchantChargeId": f"b-{uuid.uuid4().hex[:30]}",
            "customer": {
                "name": "Maria Silva",
                "email": "maria@example.com",
                "documentType": "CPF",
                "document": "65844359038",
            },
            "transactions": [
                {
                    "amount": 1500,
                    "softDescriptor": "LOJA TESTE",
                    "credit": {"temporaryCardToken": token},
                }
            ],
        }
    )


async def timed(
    jobs: list[Callable[[], Awaitable[None]]], concurrency: int, sandbox_pid: int
) -> Run:
    latencies: list[float] = []
    queue: asyncio.Queue[Callable[[], Awaitable[None]]] = asyncio.Queue()
    for job in jobs:
        queue.put_nowait(job)

    async def caller() -> None:
        while not queue.empty():
            job = queue.get_nowait()
            started = time.perf_counter()
            await job()
            latencies.append(time.perf_counter() - started)

    began = time.perf_counter()
    cpu, sandbox_cpu = own_cpu_s(), process_cpu_s(sandbox_pid)
    await asyncio.gather(*(caller() for _ in range(concurrency)))
    return Run(
        latencies,
        time.perf_counter() - began,
        0,
        client_cpu_s=own_cpu_s() - cpu,
        sandbox_cpu_s=process_cpu_s(sandbox_pid) - sandbox_cpu,
    )


async def full_path(
    info: SandboxInfo, pid: int, tokens: list[str], concurrency: int, db: Path
) -> Run:
    endpoints = Endpoints(base_url=info.base_url, auth_url=info.auth_url)
    creds = FixedCredentials(
        SecretStr(info.credentials.client_secret), SecretStr("unused"), SecretStr("unused")
    )
    conn = connect(db)
    try:
        async with httpx.AsyncClient(trust_env=False) as http:
            manager = TokenManager(
                http=http,
                token_url=endpoints.token_url,
                client_id=info.credentials.client_id,
                credentials=creds,
            )
            client = ChargeClient(http=http, endpoints=endpoints, tokens=manager)
            service = ChargeService(store=SqliteStore(conn), client=client, profile="bench")
            failures: list[str] = []

            def job(token: str, sale: str) -> Callable[[], Awaitable[None]]:
                async def run() -> None:
                    outcome = await service.charge(
                        sale_id=sale,
                        request=request_for(token),
                        tenders=[CardSummary("VISA", CARD[-4:])],
                    )
                    if outcome.status != ChargeStatus.PAID:
                        failures.append(outcome.message)

                return run

            jobs = [job(t, f"sale-{uuid.uuid4().hex[:8]}") for t in tokens]
            run = await timed(jobs, concurrency, pid)
            if failures:
                raise SystemExit(f"{len(failures)} charge(s) failed, e.g. {failures[0]}")
            run.token_requests = manager.token_requests
            return run
    finally:
        conn.close()


async def bare_path(info: SandboxInfo, pid: int, tokens: list[str], concurrency: int) -> Run:
    async with httpx.AsyncClient(trust_env=False) as http:
        reply = await http.post(
            f"{info.auth_url}/oauth2/token",
            json={
                "grant_type": "client_credentials",
                "client_id": info.credentials.client_id,
                "client_secret": info.credentials.client_secret,
            },
        )
        headers = {"Authorization": f"Bearer {reply.json()['access_token']}"}
        url = f"{info.base_url}/api/v1/charge/authorization"
        bodies = [request_for(t).to_wire() for t in tokens]

        def job(body: dict[str, Any]) -> Callable[[], Awaitable[None]]:
            async def run() -> None:
                response = await http.post(url, json=body, headers=headers)
                if response.status_code != 200:
                    raise SystemExit(f"bare charge failed: HTTP {response.status_code}")

            return run

        run = await timed([job(b) for b in bodies], concurrency, pid)
        run.token_requests = 1
        return run


async def measure(
    info: SandboxInfo, pid: int, charges: int, concurrency: int, rounds: int, scratch: Path
) -> tuple[list[Run], list[Run]]:
    """`rounds` of full and bare runs at one concurrency, alternating which goes first."""
    fulls: list[Run] = []
    bares: list[Run] = []
    for round_no in range(rounds):
        tokens = await tokenize(info, 2 * charges)
        db = scratch / f"c{concurrency}-round-{round_no}.sqlite3"
        # Alternate which goes first so neither always runs on a warmer sandbox.
        if round_no % 2 == 0:
            fulls.append(await full_path(info, pid, tokens[:charges], concurrency, db))
            bares.append(await bare_path(info, pid, tokens[charges:], concurrency))
        else:
            bares.append(await bare_path(info, pid, tokens[charges:], concurrency))
            fulls.append(await full_path(info, pid, tokens[:charges], concurrency, db))
    return fulls, bares


def report(charges: int, concurrency: int, fulls: list[Run], bares: list[Run]) -> None:
    callers = "1 caller" if concurrency == 1 else f"{concurrency} concurrent callers"
    print(f"-- {charges} charges per run, {callers}")
    print(
        f"{'path':<38}{'median ms':>10}{'p90 ms':>9}{'charges/s':>11}{'token req':>10}"
        f"{'client cpu ms':>15}{'sandbox cpu ms':>16}"
    )
    for label, runs in (
        ("ChargeService (durable, validated)", fulls),
        ("bare httpx POST", bares),
    ):
        for i, run in enumerate(runs, start=1):
            print(
                f"{label + f' #{i}':<38}{run.median_ms:>10.2f}{run.p90_ms:>9.2f}"
                f"{run.per_second:>11.1f}{run.token_requests:>10}"
                f"{run.client_cpu_ms:>15.2f}{run.sandbox_cpu_ms:>16.2f}"
            )
    full_median = statistics.median(r.median_ms for r in fulls)
    bare_median = statistics.median(r.median_ms for r in bares)
    cpu_full = statistics.median(r.client_cpu_ms for r in fulls)
    cpu_bare = statistics.median(r.client_cpu_ms for r in bares)
    print(
        f"token requests per run of {charges} charges: {sorted({r.token_requests for r in fulls})}"
    )
    print(
        f"{callers}: median per-charge latency full {full_median:.2f} ms, bare "
        f"{bare_median:.2f} ms; client overhead {full_median - bare_median:.2f} ms per charge, "
        f"ratio {full_median / bare_median:.2f}x (goal <= 1.2x); client CPU per charge "
        f"{cpu_full:.2f} vs {cpu_bare:.2f} ms"
    )


async def main(args: argparse.Namespace) -> None:
    process = start_sandbox_process([], stderr=subprocess.DEVNULL, exit_with_parent=True)
    try:
        with tempfile.TemporaryDirectory(prefix="charging-bench-") as scratch:
            results = [
                (
                    level,
                    await measure(
                        process.info,
                        process.pid,
                        args.charges,
                        level,
                        args.rounds,
                        Path(scratch),
                    ),
                )
                for level in sorted({args.concurrency, 1}, reverse=True)
            ]
    finally:
        process.stop()

    print(
        f"charging benchmark: {args.charges} charges x {args.rounds} rounds per concurrency, "
        f"sandbox in its own process on 127.0.0.1, {os.cpu_count()} CPUs"
    )
    for level, (fulls, bares) in results:
        report(args.charges, level, fulls, bares)


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--charges", type=int, default=100, help="charges per path and round")
    parser.add_argument("--concurrency", type=int, default=20, help="concurrent callers")
    parser.add_argument("--rounds", type=int, default=3, help="rounds (medians across them)")
    args = parser.parse_args(argv)
    if not 1 <= args.charges <= 1000:
        parser.error("--charges must be between 1 and 1000")
    if not 1 <= args.concurrency <= 100:
        parser.error("--concurrency must be between 1 and 100")
    if not 1 <= args.rounds <= 10:
        parser.error("--rounds must be between 1 and 10")
    return args


if __name__ == "__main__":
    asyncio.run(main(parse(sys.argv[1:])))
