"""The inbox's WAL cannot stay large, and a store that refuses deliveries makes health down.

A small disk filled by the WAL stayed at 503 even after a restart; a store that answered 503
to every payment notification left the health monitor at "degraded — no public URL".
"""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest
from pydantic import SecretStr

from checkout_desktop.domain.inbox_events import HealthLevel
from checkout_desktop.inbox.health import HealthMonitor
from checkout_desktop.inbox.writer import InboxWriter
from checkout_desktop.store.sqlite import db
from tests.integration.test_inbox_listener import TOKEN, headers, open_inbox, payment, post


def _size(path: str) -> int:
    return os.stat(path).st_size


@pytest.mark.asyncio
async def test_a_large_wal_is_folded_in_and_cut_back_when_the_inbox_starts(
    tmp_path: Path,
) -> None:
    store = tmp_path / "checkout.sqlite3"
    db.connect(store).close()
    holder = sqlite3.connect(store)
    holder.execute("PRAGMA wal_autocheckpoint = 0")
    holder.execute("CREATE TABLE ballast (x BLOB)")
    for _ in range(40):
        holder.execute("INSERT INTO ballast VALUES (zeroblob(100000))")
        holder.commit()
    wal = f"{store}-wal"
    assert _size(wal) > 3_000_000
    writer = InboxWriter(store)
    await writer.start()
    try:
        assert _size(wal) == 0
    finally:
        await writer.close()
        holder.close()


@pytest.mark.expected_errors("a delivery could not be stored")
@pytest.mark.asyncio
async def test_deliveries_the_store_refused_make_health_down(tmp_path: Path) -> None:
    inbox = await open_inbox(tmp_path)
    monitor = HealthMonitor(
        listener=inbox.listener, token=SecretStr(TOKEN), bus=inbox.bus, timeout_s=5.0
    )
    try:
        assert (await monitor.check_now()).level == HealthLevel.DEGRADED  # no public URL
        # The store stops taking deliveries (here: its writer is gone) while the listener runs.
        await inbox.writer.close()
        response = await post(inbox.url, json.dumps(payment()).encode(), headers())
        assert response.status_code == 503
        status = await monitor.check_now()
        assert status.level == HealthLevel.DOWN
        assert "deliveries not stored since the last check: 1" in status.reason.english()
    finally:
        await inbox.listener.stop()
