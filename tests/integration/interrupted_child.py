"""A counter's terminal core that starts one charge or one refund and is then killed.

Run as `python interrupted_child.py` with a JSON object on stdin (no secret in the process
list): root (the counter's folders), info (the sandbox's announcement line, as JSON), action
("charge" or "refund"), and card_token and amount for a charge, merchant_charge_id
for a refund. The terminal is the real one (`Terminal.start` on the counter's store, the shop's
service profile); it prints `SALE <id>` before a charge and `SENDING` before a refund, and
never learns the reply: the sandbox holds it while the test kills the process.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from checkout_desktop.paths import AppPaths
from checkout_desktop.sandbox.process import SandboxInfo
from checkout_desktop.terminal import Terminal
from tests.integration.charging_support import charge_request, shared_service, visa


def say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


async def main(job: dict[str, Any]) -> None:
    root = Path(job["root"])
    paths = AppPaths(root / "config", root / "data", root / "logs").ensure()
    settings, secrets = shared_service(SandboxInfo.from_json(json.dumps(job["info"])))
    terminal = await Terminal.start(settings, paths, secrets=secrets, defer_inbox=True)
    service = terminal.service
    if job["action"] == "charge":
        sale = service.new_sale()
        mcid = f"{sale.sale_id}-01"
        say(f"SALE {mcid}")
        await service.charge(
            sale_id=sale.sale_id,
            request=charge_request(
                job["card_token"], merchant_charge_id=mcid, amount=int(job["amount"])
            ),
            tenders=visa("9995"),
        )
    else:
        say("SENDING")
        await service.refund(job["merchant_charge_id"], None)
    say("DONE")  # never reached while the sandbox holds the reply


if __name__ == "__main__":
    asyncio.run(main(json.loads(sys.stdin.readline())))
