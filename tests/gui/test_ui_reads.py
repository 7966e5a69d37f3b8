"""Widgets read the store through `ui.loop.read`: at once when it does not wait, later when it does.

A network database answers after a while; the widgets must then fill in once it has answered,
with the GUI running meanwhile, and show the same rows as with the local file.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from checkout_desktop.charges.views import ChargeViews
from checkout_desktop.domain.deliveries import NewEvent
from checkout_desktop.domain.enums import ChargeStatus, Verdict
from checkout_desktop.domain.wire import ChargeUpdate
from checkout_desktop.store.sqlite import db
from checkout_desktop.store.sqlite.store import SqliteStore
from checkout_desktop.ui.event_model import EventListModel
from checkout_desktop.ui.history_model import ChargeHistoryModel
from checkout_desktop.ui.loop import read
from tests.ledger_support import SyncLedger

logger = logging.getLogger(__name__)


class WaitingReads:
    """The charge reads of a store that answers only after a turn of the loop (as a network
    database would): each read yields to the loop before it asks the real store."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self.asked = 0

    def __getattr__(self, name: str) -> Any:
        method = getattr(self._inner, name)

        async def waiting(*args: Any, **kwargs: Any) -> Any:
            self.asked += 1
            await asyncio.sleep(0.01)
            return await method(*args, **kwargs)

        return waiting


class WaitingStore:
    def __init__(self, store: SqliteStore) -> None:
        self.charges = WaitingReads(store.charges)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SqliteStore]:
    conn = db.connect(tmp_path / "store.sqlite3")
    try:
        yield SqliteStore(conn)
    finally:
        conn.close()


def test_a_read_that_does_not_wait_is_done_before_read_returns() -> None:
    async def answer() -> int:
        return 42

    got: list[int] = []
    assert read(answer(), got.append) is None
    assert got == [42]


def test_a_read_that_fails_goes_to_its_handler() -> None:
    async def broken() -> int:
        raise LookupError("no such charge")

    failures: list[BaseException] = []
    assert read(broken(), lambda _: None, failed=failures.append) is None
    assert [str(f) for f in failures] == ["no such charge"]


def test_a_read_that_waits_finishes_on_the_loop(arun: Callable[..., Any]) -> None:
    async def main() -> tuple[list[int], list[int]]:
        loop = asyncio.get_running_loop()
        later: asyncio.Future[int] = loop.create_future()

        async def slow() -> int:
            return await later + 1

        got: list[int] = []
        task = read(slow(), got.append)
        assert task is not None
        before = list(got)
        loop.call_later(0.01, later.set_result, 6)
        await task
        return before, got

    before, after = arun(main())
    assert before == []  # nothing blocked waiting for the answer
    assert after == [7]


def test_the_history_fills_in_when_a_waiting_store_answers(
    arun: Callable[..., Any], qtbot: Any, store: SqliteStore
) -> None:
    # `arun` attaches the qasync loop, so waiting reads run while Qt waits here.
    ledger = SyncLedger(store.repo)
    with store.repo.write():
        for n in range(3):
            ledger.apply_update(
                ChargeUpdate(f"charge-00000{n}", None, ChargeStatus.PAID, 1500, 0),
                source="reply",
                source_ref=None,
            )
    waiting = WaitingStore(store)
    model = ChargeHistoryModel(ChargeViews(waiting), page_size=10)  # type: ignore[arg-type]
    assert model.rowCount() == 0  # asked, not answered yet: the GUI goes on meanwhile

    qtbot.waitUntil(lambda: model.rowCount() == 3)
    assert [model.record(r).merchant_charge_id for r in range(3)] == [  # type: ignore[union-attr]
        "charge-000002",
        "charge-000001",
        "charge-000000",
    ]
    assert waiting.charges.asked == 1
    instant = ChargeHistoryModel(ChargeViews(store), page_size=10)
    assert instant.rowCount() == 3  # the local file answers at once


def test_the_event_list_fills_in_when_a_waiting_store_answers(
    arun: Callable[..., Any], qtbot: Any, store: SqliteStore
) -> None:
    # `arun` attaches the qasync loop, so waiting reads run while Qt waits here.
    with store.repo.write():
        for n in range(4):
            store.events.repo.insert(
                NewEvent(
                    received_at=datetime(2026, 5, 4, 10, n, tzinfo=UTC),
                    verdict=Verdict.UNKNOWN,
                    body=f'{{"n": {n}}}'.encode(),
                    body_sha256=f"{n:064x}",
                    headers={},
                )
            )
    waiting = WaitingReads(store.events)
    model = EventListModel(waiting, page_size=10)  # type: ignore[arg-type]
    assert model.rowCount() == 0
    qtbot.waitUntil(lambda: model.rowCount() == 4)
    assert [model.summary(r).id for r in range(4)] == [4, 3, 2, 1]  # type: ignore[union-attr]
    assert waiting.asked == 2  # the watermark, then the page
