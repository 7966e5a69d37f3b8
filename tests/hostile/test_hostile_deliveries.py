"""Hostile bodies over real HTTP: every authenticated delivery is stored or quarantined.

Each body here once got a 500 or 503 on every retry and left no row. Now each one ends as a
row (accepted, unknown or quarantined with its exact bytes) before the listener answers.
"""

from __future__ import annotations

import base64
import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from checkout_desktop.domain.enums import Verdict
from tests.integration.test_inbox_listener import Inbox, headers, open_inbox, payment, post


def _nested(depth: int) -> bytes:
    return b'{"type": "PAYMENT", "data": ' + b"[" * depth + b"]" * depth + b"}"


def _huge_int() -> bytes:
    return b'{"type": "PAYMENT", "amount": ' + b"9" * 5000 + b"}"


def _with_id(text: str) -> bytes:
    body = payment()
    body["id"] = "PLACEHOLDER"
    return json.dumps(body).encode().replace(b"PLACEHOLDER", text.encode())


def _with_mcid(text: str) -> bytes:
    body = payment()
    body["data"]["merchantChargeId"] = "PLACEHOLDER"
    return json.dumps(body).encode().replace(b"PLACEHOLDER", text.encode())


HOSTILE: dict[str, bytes] = {
    "nested 50,000 deep": _nested(50_000),
    "nested 2,000 deep": _nested(2_000),
    "an integer of 5,000 digits": _huge_int(),
    "a 5,000-digit integer in data": json.dumps(payment())
    .encode()
    .replace(b'"amount": 1500', b'"amount": ' + b"1" * 5000),
    "lone surrogate in id": _with_id("evt-\\ud800"),
    "lone surrogate in merchantChargeId": _with_mcid("order-\\udfff"),
    "lone surrogate in an unknown type": b'{"type": "NEW\\ud83d", "id": "x-1"}',
    "lone surrogate in a key": b'{"type": "PAYMENT", "\\ud800": 1}',
    "not UTF-8": b'{"type": "PAYMENT", "id": "\xff\xfe"}',
    "a float overflow": b'{"type": "SOMETHING_NEW", "v": 1e999999}',
}


@pytest_asyncio.fixture
async def inbox(tmp_path: Path) -> AsyncIterator[Inbox]:
    opened = await open_inbox(tmp_path, read_timeout_s=2.0)
    yield opened
    await opened.listener.stop()


@pytest.mark.parametrize("name", list(HOSTILE))
@pytest.mark.asyncio
async def test_every_hostile_body_is_kept_before_the_answer(inbox: Inbox, name: str) -> None:
    body = HOSTILE[name]
    for _attempt in range(2):
        response = await post(inbox.url, body, headers())
        assert response.status_code in {200, 400}, response.text
    rows = inbox.rows()
    assert rows, "nothing was stored"
    for row in rows:
        assert row.verdict in {Verdict.QUARANTINED, Verdict.UNKNOWN, Verdict.DUPLICATE}
        assert row.body == body
        if row.verdict == Verdict.QUARANTINED:
            assert row.reason
    # The answer names the stored row.
    assert response.json().get("stored") in {r.id for r in rows} or response.json()["stored"]


@pytest.mark.asyncio
async def test_quarantine_reason_says_which_limit(inbox: Inbox) -> None:
    await post(inbox.url, _nested(50_000), headers())
    await post(inbox.url, _huge_int(), headers())
    first, second = inbox.rows()
    assert first.reason is not None
    assert "deep" in first.reason
    assert second.reason is not None
    assert "digits" in second.reason


@pytest.mark.asyncio
async def test_a_body_that_is_not_utf8_is_exported_as_base64(inbox: Inbox) -> None:
    body = HOSTILE["not UTF-8"]
    await post(inbox.url, body, headers())
    (row,) = inbox.rows()
    assert row.verdict == Verdict.QUARANTINED
    assert base64.b64decode(base64.b64encode(row.body)) == body


@pytest.mark.asyncio
async def test_a_row_the_store_refuses_is_kept_in_the_quarantine(tmp_path: Path) -> None:
    """The writer's last line: whatever classify let through, the store keeps the bytes."""
    from datetime import UTC, datetime

    from checkout_desktop.domain.deliveries import NewEvent
    from checkout_desktop.inbox.intake import Intake
    from checkout_desktop.inbox.writer import InboxWriter
    from checkout_desktop.store.sqlite import db
    from checkout_desktop.store.sqlite.events import EventRepository

    body = b'{"type": "X", "id": "\\ud800"}'
    event = NewEvent(
        received_at=datetime(2026, 3, 1, tzinfo=UTC),
        verdict=Verdict.UNKNOWN,
        body=body,
        body_sha256="0" * 64,
        headers={"x-odd": "\udcff"},
        event_ref="\ud800",
        body_type="X",
    )
    writer = InboxWriter(tmp_path / "store.sqlite3")
    await writer.start()
    try:
        result = await writer.submit(Intake(event=event))
    finally:
        await writer.close()
    assert result.verdict == Verdict.QUARANTINED
    conn = db.connect(tmp_path / "store.sqlite3")
    try:
        (row,) = EventRepository(conn).iter_full()
    finally:
        conn.close()
    assert row.body == body
    assert row.reason is not None and "UnicodeEncodeError" in row.reason
    assert row.headers == {"x-odd": "\\udcff"}
