"""A terminal that starts one charge and is then killed: the subject of the SIGKILL test.

Run as `python charging_crash_child.py` with a JSON object on stdin (so no secret or card
token appears in the process list): api_url, client_id, client_secret, db, sale_id,
merchant_charge_id, card_token, timeout_s and pause_before_send. It prints `RECORDED <id>`
once the attempt is durably committed and `SENDING <id>` just before the request goes out;
with pause_before_send it then waits forever, so the test can kill it before anything is sent.
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
from checkout_desktop.domain.charge_events import AttemptChanged
from checkout_desktop.domain.events import EventBus
from checkout_desktop.domain.records import CardSummary
from checkout_desktop.domain.wire import ChargeAuthorizationRequest
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
    request = ChargeAuthorizationRequest.model_validate(
        {
            "merchantChargeId": mcid,
            "customer": {
                "name": "Maria Silva",
                "email": "maria@example.com",
                "documentType": "CPF",
                "document": "65844359038",
            },
            "transactions": [
                {
                    "amount": 2500,
                    "credit": {"temporaryCardToken": job["card_token"]},
                }
            ],
        }
    )
    events = EventBus()
    events.subscribe(
        AttemptChanged,
        lambda event: say(f"{event.state} {event.merchant_charge_id}"),
    )

    async def announce(http_request: httpx.Request) -> None:
        if http_request.url.path.endswith("/charge/authorization"):
            say(f"SENDING {mcid}")
            if job.get("pause_before_send"):
                await asyncio.Event().wait()

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
        # Fetch the token first, so the only request left to interrupt is the charge itself.
        await tokens.token()
        client = ChargeClient(http=http, endpoints=endpoints, tokens=tokens, timeout_s=timeout)
        service = ChargeService(
            store=SqliteStore(conn), client=client, profile="builtin-sandbox", events=events
        )
        outcome = await service.charge(
            sale_id=str(job["sale_id"]), request=request, tenders=[CardSummary("VISA", "9995")]
        )
        say(f"DONE {outcome.attempt} {outcome.status}")


if __name__ == "__main__":
    asyncio.run(main(json.loads(sys.stdin.readline())))
