"""Card numbers and secrets arriving in a notification are masked at the door.

A full card number or the webhook token in a delivery was once stored raw (body, search index,
headers) and exported by `events`. Now the body is masked before it is stored or indexed, its
hash is the raw body's (a re-delivery is still a duplicate), and a header holding a known
secret keeps only a marker.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from checkout_desktop.domain.carddata import mask_card_numbers
from checkout_desktop.domain.deliveries import EventFilter
from checkout_desktop.domain.enums import Verdict
from checkout_desktop.inbox.intake import SECRET_MARKER, body_digest
from checkout_desktop.store.sqlite import db
from checkout_desktop.store.sqlite.events import EventRepository
from tests.integration.test_inbox_listener import TOKEN, Inbox, headers, open_inbox, payment, post

# Public test numbers, never real cards.
MASTERCARD = "5500000000000004"
VISA = "4111111111111111"


def _with_card(value: Any) -> dict[str, Any]:
    body = payment()
    body["data"]["transactions"][0]["credit"] = {"cardNumber": value, "nsu": "123"}
    body["data"]["note"] = f"card {VISA[:4]} {VISA[4:8]} {VISA[8:12]} {VISA[12:]}"
    return body


@pytest_asyncio.fixture
async def inbox(tmp_path: Path) -> AsyncIterator[Inbox]:
    opened = await open_inbox(tmp_path, read_timeout_s=2.0)
    yield opened
    await opened.listener.stop()


def _every_file(folder: Path) -> bytes:
    return b"".join(p.read_bytes() for p in folder.rglob("*") if p.is_file())


@pytest.mark.asyncio
async def test_card_numbers_never_reach_the_store_or_its_index(inbox: Inbox) -> None:
    raw = json.dumps(_with_card(MASTERCARD)).encode()
    first = await post(inbox.url, raw, headers())
    again = await post(inbox.url, raw, headers())
    assert first.status_code == again.status_code == 200
    rows = inbox.rows()
    assert [r.verdict for r in rows] == [Verdict.ACCEPTED, Verdict.DUPLICATE]
    assert rows[0].body_sha256 == body_digest(raw)  # the raw body's hash: dedupe still works
    assert MASTERCARD.encode() not in rows[0].body
    assert b"550000******0004" in rows[0].body
    assert rows[0].body_json() is not None  # still JSON
    # Fill the search index, then look for the number in every file the store wrote.
    conn = db.connect(inbox.db_path)
    try:
        repo = EventRepository(conn)
        with db.transaction(conn):
            repo.index_for_search(100)
        assert repo.page(EventFilter(text="5500000000000004")).rows == []
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()
    stored = _every_file(inbox.db_path.parent)
    for spelling in (MASTERCARD, VISA, "4111 1111 1111 1111"):
        assert spelling.encode() not in stored, spelling


@pytest.mark.parametrize(
    "spelling",
    [
        f'"{MASTERCARD}"',
        MASTERCARD,  # a bare JSON number
        '"5500-0000-0000-0004"',
        '"5500.0000.0000.0004"',
        '"\\u0035\\u0035\\u0030\\u0030000000000004"',
        json.dumps("".join(chr(0xFF10 + int(c)) for c in MASTERCARD), ensure_ascii=False),
    ],
)
def test_every_spelling_is_masked_and_json_stays_json(spelling: str) -> None:
    raw = ('{"type": "NEW", "pan": ' + spelling + ', "ts": 1767225600000}').encode()
    masked, count = mask_card_numbers(raw)
    assert count == 1
    decoded = json.loads(masked)
    assert decoded["ts"] == 1767225600000  # a millisecond timestamp is not a card number
    shown = str(decoded["pan"])
    assert shown.count("*") == 6  # all but the first six and the last four
    assert sum(c.isdigit() for c in shown) == 10


@pytest.mark.asyncio
async def test_a_card_number_in_a_quarantined_body_is_masked(inbox: Inbox) -> None:
    raw = b'{"broken": ' + MASTERCARD.encode() + b", "
    response = await post(inbox.url, raw, headers())
    assert response.status_code == 400
    (row,) = inbox.rows()
    assert row.verdict == Verdict.QUARANTINED
    assert MASTERCARD.encode() not in row.body
    assert row.body_sha256 == body_digest(raw)


@pytest.mark.asyncio
async def test_a_header_holding_a_known_secret_keeps_a_marker(inbox: Inbox) -> None:
    response = await post(
        inbox.url,
        payment(),
        headers(**{"X-Forwarded-Token": TOKEN, "X-Note": f"pan {MASTERCARD}"}),
    )
    assert response.status_code == 200
    (row,) = inbox.rows()
    assert row.headers["X-Forwarded-Token"] == SECRET_MARKER
    assert MASTERCARD not in row.headers["X-Note"]
    conn = sqlite3.connect(inbox.db_path)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()
    assert TOKEN.encode() not in _every_file(inbox.db_path.parent)


@pytest.mark.parametrize(
    "text",
    [
        '{"id": "022b820a-4965-4123-8746-6d923053785e"}',
        '{"id": "aaaa-4111-1111-1111-1111"}',
        '{"at": "2026-11-23T07:33:34.696629000"}',
        '{"doc": "12345678000195", "ms": 1767225600000}',
    ],
)
def test_identifiers_and_times_are_not_mistaken_for_card_numbers(text: str) -> None:
    assert mask_card_numbers(text.encode()) == (text.encode(), 0)
