"""An inbox writer's PostgreSQL half committing deliveries in batches until it is killed.

Prints "ack <id>" for each delivery only once its batch's commit has returned (the moment the
inbox would answer 2xx), so the parent can kill it mid-burst and check every acknowledged id.
"""

from __future__ import annotations

import asyncio
import sys
from datetime import UTC, datetime

from checkout_desktop.domain.deliveries import Delivery, NewEvent
from checkout_desktop.domain.enums import Verdict
from checkout_desktop.store.postgres.address import StoreAddress
from checkout_desktop.store.postgres.writer import PgDeliveryBatches


def delivery(n: int) -> Delivery:
    body = f'{{"burst": {n}}}'.encode()
    return Delivery(
        NewEvent(
            received_at=datetime.now(UTC),
            verdict=Verdict.UNKNOWN,
            body=body,
            body_sha256=f"{n:064x}",
            headers={},
        ),
        None,
    )


async def main() -> int:
    batches = PgDeliveryBatches(StoreAddress.parse(sys.argv[1]), None)
    await batches.open()
    print("ready", flush=True)
    n = 0
    while True:
        # 20 deliveries a batch, as 20 connections arriving together would make one.
        results = await batches.commit([delivery(n + i) for i in range(20)])
        n += 20
        sys.stdout.write("".join(f"ack {r.event_id}\n" for r in results))
        sys.stdout.flush()


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main()))
