"""Charging cost: the full crash-safe path beside a bare httpx call and beside the fair floor.

The sandbox runs in its own process on 127.0.0.1, so its work is not timed as the client's.
Each round tokenizes the cards first (untimed), then makes N charges from C concurrent callers
three ways: through ChargeService (token manager, request validation, attempt committed
durably before sending, reply validated, merged by the state machine and committed, events);
as a bare `httpx.post` of the same JSON body with a bearer token fetched beforehand; and as the
fair floor, that bare POST preceded by one synchronous=FULL SQLite commit of a row comparable
to the attempt (the least any client that records before sending must do). Then the same with
one caller, which shows the per-charge overhead without queueing. It prints the token requests
made, per-charge latency medians, throughput, the CPU each charge cost the client and the
sandbox, and the ratios of the medians to the bare call and to the floor. Bounded by --charges
and --rounds.

    .venv/bin/python benchmarks/charging.py [--charges 100] [--concurrency 20] [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import resource
import sqlite3
import ssl
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
from pydantic import SecretStr

from checkout_desktop.charges.service import ChargeService
from checkout_desktop.domain.enums import ChargeStatus
from checkout_desktop.domain.records import CardSummary
from checkout_desktop.domain.wire import ChargeAuthorizationRequest, TokenFieldSpelling
from checkout_desktop.gateway.client import ChargeClient, DeviceIdentity
from checkout_desktop.gateway.profiles import Endpoints
from checkout_desktop.gateway.tokens import TokenManager
from checkout_desktop.sandbox.process import SandboxInfo, start_sandbox_process
from checkout_desktop.secrets import FixedCredentials
from checkout_desktop.store.sqlite.db import connect
from checkout_desktop.store.sqlite.store import SqliteStore

logger = logging.getLogger(__name__)

CARD = "4111111111111111"  # the sandbox's approved test card (public test data)
# The card-token field's spelling the sandbox reads, as a terminal keeps it after its first
# charge: every path sends it from the start, so no charge pays for learning it.
TOKEN_FIELD: TokenFieldSpelling = "temporatyCardToken"
TOKENIZE_AT_ONCE = 20


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
    # A few at a time: hundreds of TLS handshakes at once outlast the pool's wait on a busy
    # machine (untimed work, so the pace does not matter).
    gate = asyncio.Semaphore(TOKENIZE_AT_ONCE)
    async with httpx.AsyncClient(verify=context, trust_env=False, timeout=60) as http:

        async def one() -> str:
            async with gate:
                return await card_token(http)

        async def card_token(http: httpx.AsyncClient) -> str:
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
                "phone": {"areaCode": "11", "number": "987654321"},
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
            client = ChargeClient(
                http=http,
                endpoints=endpoints,
                tokens=manager,
                device=DeviceIdentity("terminal-bench"),
                token_field=TOKEN_FIELD,
            )
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


_FLOOR_TABLE = (
    "CREATE TABLE IF NOT EXISTS floor_attempt (merchant_charge_id TEXT PRIMARY KEY, "
    "sale_id TEXT NOT NULL, profile TEXT NOT NULL, amount INTEGER NOT NULL, "
    "tenders_json TEXT NOT NULL, state TEXT NOT NULL, created_at TEXT NOT NULL)"
)


async def bare_path(
    info: SandboxInfo, pid: int, tokens: list[str], concurrency: int, floor: Path | None = None
) -> Run:
    """Bare httpx POSTs; with `floor` (a SQLite file), each POST follows one durable commit.

    The floor is the least a crash-safe client can do: one row comparable to the attempt
    (the same connection settings as the store: WAL, synchronous=FULL), committed on the
    loop before its request is sent, as the service commits its attempt. Nothing else."""
    conn = None
    if floor is not None:
        conn = connect(floor)
        conn.execute(_FLOOR_TABLE)
    try:
        return await _bare_posts(info, pid, tokens, concurrency, conn)
    finally:
        if conn is not None:
            conn.close()


def _commit_floor_row(conn: sqlite3.Connection, body: dict[str, Any]) -> None:
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute(
            "INSERT INTO floor_attempt VALUES (:m, :s, 'bench', :a, :t, 'recorded', :at)",
            {
                "m": body["merchantChargeId"],
                "s": f"sale-{body['merchantChargeId']}",
                "a": 1500,
                "t": json.dumps([{"kind": "card", "brand": "VISA", "last_four": CARD[-4:]}]),
                "at": datetime.now(UTC).isoformat(),
            },
        )
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


async def _bare_posts(
    info: SandboxInfo,
    pid: int,
    tokens: list[str],
    concurrency: int,
    conn: sqlite3.Connection | None,
) -> Run:
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
        # The same body the client sends: this terminal's deviceInformation, the sale as session.
        device = DeviceIdentity("terminal-bench")
        bodies = [
            request_for(t)
            .model_copy(update={"deviceInformation": device.information(f"sale-{i}")})
            .to_wire(TOKEN_FIELD)
            for i, t in enumerate(tokens)
        ]

        def job(body: dict[str, Any]) -> Callable[[], Awaitable[None]]:
            async def run() -> None:
                if conn is not None:
                    _commit_floor_row(conn, body)
                response = await http.post(url, json=body, headers=headers)
                if response.status_code != 200:
                    raise SystemExit(
                        f"bare charge failed: HTTP {response.status_code} {response.text[:300]}"
                    )

            return run

        run = await timed([job(b) for b in bodies], concurrency, pid)
        run.token_requests = 1
        return run


@dataclass
class Runs:
    """One concurrency's runs of each path."""

    full: list[Run]
    bare: list[Run]
    floor: list[Run]


async def measure(
    info: SandboxInfo, pid: int, charges: int, concurrency: int, rounds: int, scratch: Path
) -> Runs:
    """`rounds` of full, bare and floor runs at one concurrency, rotating which goes first."""
    runs = Runs([], [], [])
    for round_no in range(rounds):
        tokens = await tokenize(info, 3 * charges)
        db = scratch / f"c{concurrency}-round-{round_no}.sqlite3"
        floor_db = scratch / f"c{concurrency}-floor-{round_no}.sqlite3"
        # Each path's run, made here and awaited below, in a rotated order so that none
        # always runs on a warmer sandbox.
        paths: list[tuple[list[Run], Awaitable[Run]]] = [
            (runs.full, full_path(info, pid, tokens[:charges], concurrency, db)),
            (runs.bare, bare_path(info, pid, tokens[charges : 2 * charges], concurrency)),
            (runs.floor, bare_path(info, pid, tokens[2 * charges :], concurrency, floor_db)),
        ]
        shift = round_no % len(paths)
        for into, run in paths[shift:] + paths[:shift]:
            into.append(await run)
    return runs


def report(charges: int, concurrency: int, runs: Runs) -> None:
    fulls, bares, floors = runs.full, runs.bare, runs.floor
    callers = "1 caller" if concurrency == 1 else f"{concurrency} concurrent callers"
    print(f"-- {charges} charges per run, {callers}")
    print(
        f"{'path':<38}{'median ms':>10}{'p90 ms':>9}{'charges/s':>11}{'token req':>10}"
        f"{'client cpu ms':>15}{'sandbox cpu ms':>16}"
    )
    for label, runs in (
        ("ChargeService (durable, validated)", fulls),
        ("bare httpx POST", bares),
        ("floor: bare POST + 1 durable commit", floors),
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
    floor_median = statistics.median(r.median_ms for r in floors)
    cpu_floor = statistics.median(r.client_cpu_ms for r in floors)
    # Each round's full and floor runs are back to back: their ratio is the same-run figure,
    # and the verdict takes the median of those (a ratio of medians mixes rounds whose
    # neighbours' load differed).
    ratios = sorted(f.median_ms / b.median_ms for f, b in zip(fulls, floors, strict=True))
    ratio = statistics.median(ratios)
    print(
        f"token requests per run of {charges} charges: {sorted({r.token_requests for r in fulls})}"
    )
    print(
        f"{callers}: median per-charge latency full {full_median:.2f} ms, bare "
        f"{bare_median:.2f} ms; client overhead {full_median - bare_median:.2f} ms per charge, "
        f"ratio {full_median / bare_median:.2f}x (goal <= 1.2x); client CPU per charge "
        f"{cpu_full:.2f} vs {cpu_bare:.2f} ms"
    )
    verdict = "goal met" if ratio <= 1.2 else f"goal missed by {ratio - 1.2:.2f}x"
    print(
        f"{callers}: against the floor (bare POST + one synchronous=FULL commit) "
        f"{floor_median:.2f} ms: ratio {ratio:.2f}x, the median of the rounds' "
        f"{', '.join(f'{r:.2f}' for r in ratios)} (ratio of the medians "
        f"{full_median / floor_median:.2f}x); goal <= 1.2x: {verdict}; client CPU per "
        f"charge {cpu_full:.2f} vs {cpu_floor:.2f} ms"
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
    for level, runs in results:
        report(args.charges, level, runs)


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
