"""The inbox in a child process under a 1,024 open-files limit, for the half-open flood test.

Prints the listener's URL, serves until its standard input closes, then prints the gate's
counters as one JSON line and stops.
"""

from __future__ import annotations

import asyncio
import json
import logging
import resource
import sys
from pathlib import Path

from pydantic import SecretStr

from checkout_desktop.inbox.listener import WebhookListener
from checkout_desktop.inbox.writer import InboxWriter
from checkout_desktop.logsetup import setup_logging
from checkout_desktop.settings import ListenerSettings

OPEN_FILES = 1024


async def serve(store: Path, token: str) -> None:
    writer = InboxWriter(store)
    listener = WebhookListener(ListenerSettings(port=0), token=SecretStr(token), writer=writer)
    url = await listener.start()
    print(url, flush=True)
    loop = asyncio.get_running_loop()
    # Waits on a thread for the parent to close standard input (the loop keeps serving).
    await loop.run_in_executor(None, sys.stdin.read)
    gate = listener.gate
    counters = {
        "open": 0 if gate is None else gate.open_connections,
        "evicted": 0 if gate is None else gate.evicted,
        "refused": 0 if gate is None else gate.refused,
        "stored": listener.stats.stored,
    }
    await listener.stop()
    print(json.dumps(counters), flush=True)


def main() -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (OPEN_FILES, OPEN_FILES))
    setup_logging(None, level=logging.INFO)
    asyncio.run(serve(Path(sys.argv[1]), sys.argv[2]))


if __name__ == "__main__":
    main()
