"""A terminal that asks for one QR and is then killed: the subject of the QR SIGKILL test.

Run as `python qr_crash_child.py` with a JSON object on stdin: api_url, client_id,
client_secret, db, sale_id, merchant_charge_id, kind (wallet or pix) and timeout_s. It prints
`RECORDED <id>` once the attempt is durably committed and `SENDING <id>` just before the QR
request goes out; the sandbox holds the reply back, so the test kills it while it waits.
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
from checkout_desktop.domain.records import PIX, WALLET, QrSummary
from checkout_desktop.domain.wire import QrChargeRequest
from checkout_desktop.gateway.client import ChargeClient, DeviceIdentity
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
    kind = str(job["kind"])
    transaction: dict[str, object] = {"paymentType": kind.upper(), "amount": 2590}
    if kind == PIX:
        transaction["pix"] = {"expiration": 600}
    request = QrChargeRequest.model_validate(
        {
            "merchantChargeId": mcid,
            "customer": {
                "name": "Maria Silva",
                "email": "maria@example.com",
                "documentType": "CPF",
                "document": "65844359038",
                "phone": {"areaCode": "11", "number": "987654321"},
            },
            "transactions": [transaction],
        }
    )
    tenders = [QrSummary(PIX, 600) if kind == PIX else QrSummary(WALLET)]
    events = EventBus()
    events.subscribe(
        AttemptChanged,
        lambda event: say(f"{event.state} {event.merchant_charge_id}"),
    )

    async def announce(http_request: httpx.Request) -> None:
        if http_request.url.path.endswith(f"/charge/{kind}"):
            say(f"SENDING {mcid}")

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
        await tokens.token()
        client = ChargeClient(
            http=http,
            endpoints=endpoints,
            tokens=tokens,
            timeout_s=timeout,
            device=DeviceIdentity("terminal-qr-crash-test"),
        )
        service = ChargeService(
            store=SqliteStore(conn), client=client, profile="builtin-sandbox", events=events
        )
        outcome = await service.charge(
            sale_id=str(job["sale_id"]), request=request, tenders=tenders
        )
        say(f"DONE {outcome.attempt} {outcome.status}")


if __name__ == "__main__":
    asyncio.run(main(json.loads(sys.stdin.readline())))
