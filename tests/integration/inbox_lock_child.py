"""A counter process that takes the shop's inbox, says so on stdout, then waits to be killed."""

from __future__ import annotations

import sys
import time

from checkout_desktop.store.postgres.address import StoreAddress
from checkout_desktop.store.postgres.inbox_lock import InboxLock


def main() -> int:
    lock = InboxLock(StoreAddress.parse(sys.argv[1]), None, counter=sys.argv[2])
    holder = lock.try_take()
    print("holding" if lock.held else f"not holding: {holder}", flush=True)
    while True:
        time.sleep(60)


if __name__ == "__main__":
    raise SystemExit(main())
