"""A store on a small, full disk: nothing acknowledged is lost, and the inbox recovers.

Needs a small tmpfs (mounting one takes root); skipped where that is not allowed.
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.hostile.tmpfs import small_tmpfs
from tests.integration.test_inbox_listener import headers, open_inbox, payment, post

SIZE = "3m"


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    with small_tmpfs(tmp_path / "small", SIZE) as disk:
        yield disk


def _size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except FileNotFoundError:
        return 0


def _body(n: int) -> bytes:
    body = payment(n=n)
    body["id"] = f"fill-{n}-{uuid.uuid4().hex}"
    body["data"]["filler"] = "x" * 20_000
    return json.dumps(body).encode()


@pytest.mark.expected_errors("could not be stored", "failed a batch", "the inbox writer failed")
@pytest.mark.asyncio
async def test_nothing_acknowledged_is_lost_and_the_inbox_recovers(small_disk: Path) -> None:
    ballast = small_disk / "ballast"
    ballast.write_bytes(b"\0" * 600_000)
    inbox = await open_inbox(small_disk, read_timeout_s=5.0)
    acknowledged: list[int] = []
    unavailable = 0
    try:
        for n in range(400):
            response = await post(inbox.url, _body(n), headers())
            if response.status_code == 200:
                acknowledged.append(response.json()["stored"])
            else:
                assert response.status_code == 503, response.text
                unavailable += 1
                if unavailable >= 5:
                    break
        assert unavailable >= 5, "the disk never filled"
        # Room again: the next delivery is stored (no restart needed).
        ballast.unlink()
        response = await post(inbox.url, _body(10_000), headers())
        assert response.status_code == 200, response.text
        acknowledged.append(response.json()["stored"])
    finally:
        await inbox.listener.stop()
    stored = {row.id for row in inbox.rows()}
    lost = [event_id for event_id in acknowledged if event_id not in stored]
    print(
        f"acknowledged {len(acknowledged)}, 503 {unavailable}, lost {len(lost)}, wal {_size(f'{inbox.db_path}-wal')}"
    )
    assert lost == []
    # The WAL stays small: it never held the disk (it is checkpointed every megabyte).
    wal = f"{inbox.db_path}-wal"
    assert _size(wal) <= 1024 * 1024
