"""A terminal that starts one refund or capture and is then killed: the subject of the test.

Run as `python money_crash_child.py` with a JSON object on stdin (no secret in the process
list): api_url, client_id, client_secret, db, merchant_charge_id, kind (refund or capture),
amount (or null) and timeout_s. It prints `SENDING <path>` just before the refund or capture
request goes out; the sandbox is set to hold that reply, so the test kills it while waiting.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
from pathlib import Path

import httpx
from pydantic import SecretStr

from checkout_desktop.charges.service import ChargeService
from checkout_desktop.gateway.client import ChargeClient
from checkout_desktop.gateway.profiles import Endpoints
from checkout_desktop.gateway.tokens import TokenManager
from checkout_desktop.secrets import FixedCredentials
from checkout_desktop.store.sqlite.db import connect
from checkout_desktop.store.sqlite.store import SqliteStore

logger = logging.getLogger(__name__)


def say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


async def main(job: dict[str, object]) -> None:
    mcid = str(job["merchant_charge_id"])

    async def announce(http_request: httpx.Request) -> None:
        if http_request.method == "POST" and http_request.url.path.endswith(
            ("/refund", "/capture")
        ):
            say(f"SENDING {http_request.url.path}")

    endpoints = Endpoints(base_url=str(job["api_url"]), auth_url=str(job["api_url"]))
    credentials = FixedCredentials(
        SecretStr(str(job["client_secret"])), SecretStr("unused"), SecretStr("unused")
    )
    conn = connect(Path(str(job["db"])))
    timeout = float(str(job["timeout_s"]))
    async with httpx.AsyncClient(trust_env=False, event_hooks={"request": [announce]}) as http:
        tokens = TokenManager(
            http=http,
            token_url=endpoints.token_url,
            client_id=str(job["client_id"]),
            credentials=credentials,
            timeout_s=timeout,
        )
        client = ChargeClient(http=http, endpoints=endpoints, tokens=tokens, timeout_s=timeout)
        service = ChargeService(store=SqliteStore(conn), client=client, profile="builtin-sandbox")
        amount = job.get("amount")
        value = None if amount is None else int(str(amount))
        if job["kind"] == "capture":
            record = await service.capture(mcid, value)
        else:
            record = await service.refund(mcid, value)
        say(f"DONE {record.status} {record.refunded_amount}")


if __name__ == "__main__":
    asyncio.run(main(json.loads(sys.stdin.readline())))
