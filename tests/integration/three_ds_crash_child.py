"""A terminal that starts one 3DS charge and is then killed: the subject of the 3DS SIGKILL tests.

Run as `python three_ds_crash_child.py` with a JSON object on stdin (no secret or card token in
the process list): api_url, client_id, client_secret, db, sale_id, merchant_charge_id,
card_token and stop_at, one of:
- ``enrollment``: the setup was answered; the enrollment request is held forever;
- ``enrolled``: authenticated without a challenge; the loop is held before the money step;
- ``challenge``: the challenge is on screen; the loop is held;
- ``sent``: the 3DS authorization went out (the test delays its reply and kills the child).
It prints `RECORDED <id>` once the attempt is committed and `AT <stop_at>` at the stop.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
import time
from pathlib import Path

import httpx
from pydantic import SecretStr

from checkout_desktop.charges.service import ChargeService
from checkout_desktop.charges.three_ds import ThreeDsProgress
from checkout_desktop.domain.charge_events import AttemptChanged
from checkout_desktop.domain.events import EventBus
from checkout_desktop.domain.records import CardSummary
from checkout_desktop.domain.three_ds import BrowserInfo
from checkout_desktop.domain.wire import ChargeAuthorizationRequest
from checkout_desktop.gateway.client import ChargeClient, DeviceIdentity
from checkout_desktop.gateway.profiles import Endpoints
from checkout_desktop.gateway.tokens import TokenManager
from checkout_desktop.secrets import FixedCredentials
from checkout_desktop.store.sqlite.db import connect
from checkout_desktop.store.sqlite.store import SqliteStore

logger = logging.getLogger(__name__)

BROWSER = {
    "httpAcceptBrowserValue": "text/html",
    "httpAcceptContent": "text/html",
    "httpBrowserJavaEnabled": False,
    "httpBrowserJavaScriptEnabled": True,
    "httpBrowserColorDepth": 24,
    "httpBrowserScreenHeight": 768,
    "httpBrowserScreenWidth": 1366,
    "httpBrowserTimeDifference": 180,
    "httpBrowserLanguage": "pt-BR",
    "userAgentBrowserValue": "QtWebEngine",
}


def say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


async def main(job: dict[str, object]) -> None:
    mcid = str(job["merchant_charge_id"])
    stop_at = str(job["stop_at"])
    request = ChargeAuthorizationRequest.model_validate(
        {
            "merchantChargeId": mcid,
            "customer": {
                "name": "Maria Silva",
                "email": "maria@example.com",
                "documentType": "CPF",
                "document": "65844359038",
                "phone": {"areaCode": "11", "number": "987654321"},
            },
            "transactions": [{"amount": 2500, "credit": {"temporaryCardToken": job["card_token"]}}],
        }
    )
    events = EventBus()
    events.subscribe(AttemptChanged, lambda event: say(f"{event.state} {event.merchant_charge_id}"))

    async def hold(http_request: httpx.Request) -> None:
        path = http_request.url.path
        if stop_at == "enrollment" and path.endswith("/3ds/enrollment"):
            say("AT enrollment")
            await asyncio.Event().wait()
        if stop_at == "sent" and path.endswith("/3ds/authorization"):
            say("AT sent")

    def progress(event: ThreeDsProgress) -> None:
        if (stop_at, event.stage) in (("enrolled", "charging"), ("challenge", "challenge")):
            say(f"AT {stop_at}")
            # Holds the whole loop: nothing after this point can happen before the kill.
            time.sleep(3600)

    endpoints = Endpoints(base_url=str(job["api_url"]), auth_url=str(job["api_url"]))
    credentials = FixedCredentials(
        SecretStr(str(job["client_secret"])), SecretStr("unused"), SecretStr("unused")
    )
    conn = connect(Path(str(job["db"])))
    async with httpx.AsyncClient(trust_env=False, event_hooks={"request": [hold]}) as http:
        tokens = TokenManager(
            http=http,
            token_url=endpoints.token_url,
            client_id=str(job["client_id"]),
            credentials=credentials,
            timeout_s=60,
        )
        await tokens.token()
        client = ChargeClient(
            http=http,
            endpoints=endpoints,
            tokens=tokens,
            timeout_s=60,
            token_field="temporatyCardToken",
            device=DeviceIdentity("terminal-crash-test"),
        )
        service = ChargeService(
            store=SqliteStore(conn), client=client, profile="builtin-sandbox", events=events
        )
        outcome = await service.three_ds.charge(
            sale_id=str(job["sale_id"]),
            request=request,
            tenders=[CardSummary("VISA", "0000")],
            browser=BrowserInfo.model_validate(BROWSER),
            fallback="refuse",
            on_progress=progress,
        )
        say(f"DONE {outcome.attempt} {outcome.status}")


if __name__ == "__main__":
    asyncio.run(main(json.loads(sys.stdin.readline())))
