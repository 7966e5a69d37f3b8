"""One inbox per shop: a counter holds it, the others see who, and one takes over when it dies."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psycopg
import pytest

from checkout_desktop.store.postgres import db
from checkout_desktop.store.postgres.address import StoreAddress
from checkout_desktop.store.postgres.inbox_lock import InboxLock, current_holder

pytestmark = pytest.mark.pg

CHILD = Path(__file__).with_name("inbox_lock_child.py")


@pytest.fixture
def address(pg_url: str) -> StoreAddress:
    address = StoreAddress.parse(pg_url)
    db.connect(address, None).close()
    return address


def test_one_counter_holds_the_inbox_and_the_others_see_which(address: StoreAddress) -> None:
    first = InboxLock(address, None, counter="caixa-1")
    second = InboxLock(address, None, counter="caixa-2")
    try:
        holder = first.try_take()
        assert first.held
        assert holder is not None
        assert (holder.counter, holder.pid) == ("caixa-1", os.getpid())
        seen = second.try_take()
        assert not second.held
        assert seen == holder
        first.release()
        taken = second.try_take()
        assert second.held
        assert taken is not None
        assert taken.counter == "caixa-2"
        with psycopg.connect(address.url()) as other:
            assert current_holder(other) == taken
    finally:
        first.release()
        second.release()
    with psycopg.connect(address.url()) as other:
        assert current_holder(other) is None


def test_a_killed_holder_leaves_the_inbox_to_the_next_counter(address: StoreAddress) -> None:
    child = subprocess.Popen(
        [sys.executable, str(CHILD), address.url(), "caixa-morta"],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])},
    )
    waiting = InboxLock(address, None, counter="caixa-viva")
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "holding"
        holder = waiting.try_take()
        assert not waiting.held
        assert holder is not None
        assert (holder.counter, holder.pid) == ("caixa-morta", child.pid)
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
        # The server ends the killed process's session as soon as its socket closes; asked
        # again and again (as the other counters do), the lock is free within a few tries.
        deadline = time.monotonic() + 30
        while not waiting.held and time.monotonic() < deadline:
            waiting.try_take()
            if not waiting.held:
                time.sleep(0.1)
        assert waiting.held
        with psycopg.connect(address.url()) as other:
            now = current_holder(other)
        assert now is not None
        assert now.counter == "caixa-viva"
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        if child.stdout is not None:
            child.stdout.close()
        waiting.release()
