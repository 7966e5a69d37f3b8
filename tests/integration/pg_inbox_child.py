"""The shop's inbox on the shared store, in a process of its own, until it is killed.

Takes the inbox lock as counter `argv[2]`, then serves the webhook listener with the inbox
writer's PostgreSQL half, printing the listener's URL once it is listening.
"""

from __future__ import annotations

import asyncio
import logging
import sys

from pydantic import SecretStr

from checkout_desktop.charges.ledger import inbox_applier
from checkout_desktop.inbox.listener import WebhookListener
from checkout_desktop.inbox.writer import InboxWriter
from checkout_desktop.logsetup import setup_logging
from checkout_desktop.settings import ListenerSettings
from checkout_desktop.store.postgres.address import StoreAddress
from checkout_desktop.store.postgres.inbox_lock import InboxLock
from checkout_desktop.store.postgres.writer import PgDeliveryBatches


async def serve(address: StoreAddress, counter: str, token: str) -> None:
    lock = InboxLock(address, None, counter=counter)
    lock.try_take()
    if not lock.held:
        print("not holding the inbox", flush=True)
        return
    writer = InboxWriter(PgDeliveryBatches(address, None), applier=inbox_applier)
    listener = WebhookListener(ListenerSettings(port=0), token=SecretStr(token), writer=writer)
    print(await listener.start(), flush=True)
    await asyncio.Event().wait()


def main() -> None:
    setup_logging(None, level=logging.WARNING)
    asyncio.run(serve(StoreAddress.parse(sys.argv[1]), sys.argv[2], sys.argv[3]))


if __name__ == "__main__":
    main()
