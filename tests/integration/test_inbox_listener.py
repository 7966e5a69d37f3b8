"""The webhook listener over real HTTP(S) on 127.0.0.1 with a real SQLite store.

Every bad-input class gets its status and loses nothing; a 2xx means the row is committed.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sqlite3
import ssl
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import pytest_asyncio
import trustme
from pydantic import SecretStr

from checkout_desktop.charges.ledger import inbox_applier
from checkout_desktop.domain.charge_events import ChargeChanged
from checkout_desktop.domain.deliveries import StoredEvent
from checkout_desktop.domain.enums import Verdict
from checkout_desktop.domain.events import DomainEvent, EventBus
from checkout_desktop.domain.inbox_events import (
    ListenerState,
    ListenerStateChanged,
    WebhookRefused,
    WebhookStored,
)
from checkout_desktop.domain.reasons import Reason, ReasonCode
from checkout_desktop.domain.wire import ChargeUpdate, ThreeDsUpdate
from checkout_desktop.inbox.listener import ListenerError, WebhookListener
from checkout_desktop.inbox.writer import ChargeApplier, InboxWriter
from checkout_desktop.settings import ListenerSettings
from checkout_desktop.store.sqlite import db
from checkout_desktop.store.sqlite.charges import ChargeRepository
from checkout_desktop.store.sqlite.events import EventRepository
from checkout_desktop.store.sqlite.store import SqliteCharges

logger = logging.getLogger(__name__)

TOKEN = "whk_0123456789abcdef0123456789abcdef"
MCID = "order-0001-abcdef"
CHARGE = "0b7e6a3c-8d1f-4d4e-9a51-3f0c2a9d1e77"


def payment(status: str = "PAID", n: int = 1) -> dict[str, Any]:
    return {
        "type": "PAYMENT",
        "eventDate": f"2026-03-01T09:00:{n % 60:02d}-03:00",
        "id": f"evt-{n}",
        "merchantCode": "12345",
        "merchantDocument": "30155515000121",
        "data": {
            "status": status,
            "merchantChargeId": MCID,
            "amount": 1500,
            "refundedAmount": 0,
            "transactions": [{"paymentType": "CREDIT", "status": "CAPTURED", "amount": 1500}],
        },
    }


@dataclass
class Inbox:
    listener: WebhookListener
    writer: InboxWriter
    bus: EventBus
    db_path: Path
    url: str
    events: list[DomainEvent] = field(default_factory=list)
    applied: list[tuple[str, bool, int]] = field(default_factory=list)

    def rows(self) -> list[StoredEvent]:
        conn = db.connect(self.db_path)
        try:
            return list(EventRepository(conn).iter_full())
        finally:
            conn.close()

    def stored(self) -> list[WebhookStored]:
        return [e for e in self.events if isinstance(e, WebhookStored)]


async def open_inbox(
    tmp_path: Path,
    *,
    applier: ChargeApplier | None = None,
    ssl_context: ssl.SSLContext | None = None,
    **overrides: Any,
) -> Inbox:
    bus = EventBus()
    db_path = tmp_path / "data" / "checkout.sqlite3"
    writer = InboxWriter(db_path, bus=bus, applier=applier)
    settings = ListenerSettings(**{"port": 0, **overrides})
    listener = WebhookListener(
        settings, token=SecretStr(TOKEN), writer=writer, bus=bus, ssl_context=ssl_context
    )
    inbox = Inbox(listener=listener, writer=writer, bus=bus, db_path=db_path, url="")
    bus.subscribe(DomainEvent, inbox.events.append)
    inbox.url = await listener.start()
    return inbox


def recording_applier(inbox_ref: list[Inbox]) -> ChargeApplier:
    """Records each call, checking it runs inside the writer's transaction with the row there."""

    def apply(charges: SqliteCharges, update: ChargeUpdate | ThreeDsUpdate, ref: str) -> Reason:
        conn = charges.repo.conn
        event_id = int(ref.split(":")[1])
        row = conn.execute("SELECT verdict FROM webhook_event WHERE id = ?", (event_id,)).fetchone()
        inbox_ref[0].applied.append((ref, conn.in_transaction, 0 if row is None else 1))
        return Reason.of(ReasonCode.INBOX_APPLIED_BARE)

    return apply


@pytest_asyncio.fixture
async def inbox(tmp_path: Path) -> AsyncIterator[Inbox]:
    holder: list[Inbox] = []
    opened = await open_inbox(tmp_path, applier=recording_applier(holder), read_timeout_s=1.0)
    holder.append(opened)
    yield opened
    await opened.listener.stop()


def headers(token: str | None = TOKEN, **extra: str) -> dict[str, str]:
    result = {"Content-Type": "application/json", "event-type": "TransactionUpdateMessage"}
    if token is not None:
        result["Authorization"] = token
    result.update(extra)
    return result


async def post(url: str, body: bytes | dict[str, Any], hdrs: dict[str, str]) -> httpx.Response:
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    async with httpx.AsyncClient(timeout=10) as client:
        return await client.post(url, content=content, headers=hdrs)


@pytest.mark.asyncio
async def test_accepted_delivery_is_committed_before_the_ack(inbox: Inbox) -> None:
    seen_at_publish: list[int] = []

    def check_committed(event: WebhookStored) -> None:
        # Another connection sees the row when the event is published: it is committed.
        conn = db.connect(inbox.db_path)
        try:
            seen_at_publish.append(EventRepository(conn).latest_id())
        finally:
            conn.close()

    inbox.bus.subscribe(WebhookStored, check_committed)
    # Committed means on disk: WAL with synchronous=FULL fsyncs every commit.
    assert await inbox.writer.durability() == ("wal", 2)
    response = await post(inbox.url, payment(), headers())
    assert response.status_code == 200, response.text
    reply = response.json()
    assert reply["verdict"] == "accepted"
    (row,) = inbox.rows()
    assert row.id == reply["stored"]
    assert seen_at_publish == [row.id]
    assert row.verdict == Verdict.ACCEPTED
    assert (row.event_type, row.merchant_charge_id, row.status) == (
        "TransactionUpdateMessage",
        MCID,
        "PAID",
    )
    assert row.body_json() == payment()
    assert row.headers["Authorization"] == "[not stored: bare token]"
    assert row.merge_data == Reason.of(ReasonCode.INBOX_APPLIED_BARE)
    assert row.merge_outcome == "applied"
    assert inbox.applied == [(f"webhook_event:{row.id}", True, 1)]
    (stored,) = inbox.stored()
    assert (stored.event_id, stored.verdict, stored.merge_outcome) == (
        row.id,
        Verdict.ACCEPTED,
        Reason.of(ReasonCode.INBOX_APPLIED_BARE),
    )


@pytest.mark.asyncio
async def test_token_is_never_stored_anywhere(inbox: Inbox) -> None:
    response = await post(inbox.url, payment(), headers(f"Bearer {TOKEN}"))
    assert response.status_code == 200
    (row,) = inbox.rows()
    assert row.headers["Authorization"] == "[not stored: Bearer scheme]"
    for path in inbox.db_path.parent.iterdir():
        assert TOKEN.encode() not in path.read_bytes(), path.name


@pytest.mark.parametrize(
    "auth",
    [None, "", "wrong-token", f"Bearer {TOKEN}x", f"Basic {TOKEN}", TOKEN[:-1]],
)
@pytest.mark.asyncio
async def test_wrong_or_missing_token_is_401_and_nothing_is_stored(
    inbox: Inbox, auth: str | None
) -> None:
    response = await post(inbox.url, payment(), headers(auth))
    assert response.status_code == 401
    assert "token" in response.json()["error"]
    assert inbox.rows() == []
    assert inbox.stored() == []
    refused = [e for e in inbox.events if isinstance(e, WebhookRefused)]
    assert len(refused) == 1 and refused[0].http_status == 401
    assert inbox.listener.stats.refused == 1


@pytest.mark.asyncio
async def test_two_authorization_headers_are_refused(inbox: Inbox) -> None:
    async with httpx.AsyncClient() as client:
        response = await client.post(
            inbox.url,
            content=json.dumps(payment()).encode(),
            headers=[
                ("Content-Type", "application/json"),
                ("Authorization", TOKEN),
                ("Authorization", "other"),
            ],
        )
    assert response.status_code == 401
    assert inbox.rows() == []


@pytest.mark.parametrize(
    ("body", "content_type", "status", "needle"),
    [
        (b"status=PAID", "application/x-www-form-urlencoded", 415, "not JSON"),
        (b"<xml/>", "text/xml", 415, "not JSON"),
        (b"{broken", "application/json", 400, "not valid JSON"),
        (b"[]", "application/json", 400, "not an object"),
        (b'{"type": "PAYMENT", "id": "x"}', "application/json", 400, "merchantChargeId"),
        (b'\xff\xfe{"a"', "application/json; charset=utf-8", 400, "not valid JSON"),
    ],
)
@pytest.mark.asyncio
async def test_bad_bodies_get_their_status_and_are_quarantined(
    inbox: Inbox, body: bytes, content_type: str, status: int, needle: str
) -> None:
    response = await post(inbox.url, body, headers(**{"Content-Type": content_type}))
    assert response.status_code == status
    reply = response.json()
    assert needle in reply["error"]
    (row,) = inbox.rows()
    assert row.id == reply["stored"]
    assert row.verdict == Verdict.QUARANTINED
    assert row.body == body
    assert row.content_type == content_type
    assert row.reason is not None and needle in row.reason
    assert inbox.applied == []
    quarantine = sqlite3.connect(inbox.db_path).execute("SELECT count(*) FROM webhook_quarantine")
    assert quarantine.fetchone()[0] == 1


@pytest.mark.asyncio
async def test_oversized_body_is_413_and_its_head_is_kept(tmp_path: Path) -> None:
    inbox = await open_inbox(tmp_path, max_body_bytes=2048)
    try:
        body = b'{"pad": "' + b"x" * 5000 + b'"}'
        response = await post(inbox.url, body, headers())
        assert response.status_code == 413
        (row,) = inbox.rows()
        assert row.verdict == Verdict.QUARANTINED
        assert row.body == body[:2048]
        assert row.reason is not None and "limit of 2048 bytes" in row.reason
    finally:
        await inbox.listener.stop()


@pytest.mark.asyncio
async def test_stalled_body_is_408_and_what_came_is_kept(inbox: Inbox) -> None:
    port = inbox.listener.port
    assert port is not None
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    head = (
        "POST /webhooks/checkout HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        f"Authorization: {TOKEN}\r\nContent-Type: application/json\r\n"
        "Content-Length: 500\r\n\r\n"
    )
    writer.write(head.encode() + b'{"type": "PAYM')
    await writer.drain()
    status_line = await asyncio.wait_for(reader.readline(), timeout=30)
    writer.close()
    await writer.wait_closed()
    assert status_line.startswith(b"HTTP/1.1 408"), status_line
    (row,) = inbox.rows()
    assert row.verdict == Verdict.QUARANTINED
    assert row.body == b'{"type": "PAYM'
    assert row.reason is not None and "did not arrive within 1 s" in row.reason


@pytest.mark.asyncio
async def test_exact_redelivery_is_a_duplicate_acknowledged_and_not_reapplied(
    inbox: Inbox,
) -> None:
    first = await post(inbox.url, payment(), headers())
    again = await post(inbox.url, payment(), headers(event_type="TransactionUpdateMessage"))
    assert (first.status_code, again.status_code) == (200, 200)
    assert again.json()["verdict"] == "duplicate"
    one, two = inbox.rows()
    assert (one.verdict, two.verdict) == (Verdict.ACCEPTED, Verdict.DUPLICATE)
    assert two.duplicate_of == one.id
    assert len(inbox.applied) == 1
    assert inbox.listener.stats.duplicates == 1


@pytest.mark.asyncio
async def test_unknown_type_and_status_are_stored_and_shown(inbox: Inbox) -> None:
    unknown = {"type": "PAYOUT", "id": "p-1", "data": {"merchantChargeId": MCID}}
    r1 = await post(inbox.url, unknown, headers(**{"event-type": "PayoutMessage"}))
    r2 = await post(inbox.url, payment("HALF_CAPTURED"), headers())
    assert (r1.status_code, r2.status_code) == (200, 200)
    assert r1.json()["verdict"] == "unknown"
    payout, odd = inbox.rows()
    assert (payout.verdict, payout.body_type, payout.event_type) == (
        Verdict.UNKNOWN,
        "PAYOUT",
        "PayoutMessage",
    )
    assert (odd.verdict, odd.status) == (Verdict.ACCEPTED, "HALF_CAPTURED")
    assert [ref for ref, _, _ in inbox.applied] == [f"webhook_event:{odd.id}"]


@pytest.mark.asyncio
async def test_event_type_header_spelled_with_underscore(inbox: Inbox) -> None:
    hdrs = {"Content-Type": "application/json", "Authorization": TOKEN}
    hdrs["event_type"] = "TransactionUpdateMessage"
    response = await post(inbox.url, payment(), hdrs)
    assert response.status_code == 200
    (row,) = inbox.rows()
    assert row.event_type == "TransactionUpdateMessage"


@pytest.mark.expected_errors("the charge state machine failed on webhook event")
@pytest.mark.asyncio
async def test_state_machine_failure_keeps_the_event(tmp_path: Path) -> None:
    def broken(charges: SqliteCharges, update: ChargeUpdate | ThreeDsUpdate, ref: str) -> Reason:
        charges.repo.conn.execute("CREATE TABLE scratch (x)")  # rolled back with the savepoint
        raise RuntimeError("state machine bug")

    inbox = await open_inbox(tmp_path, applier=broken)
    try:
        response = await post(inbox.url, payment(), headers())
        assert response.status_code == 200
        (row,) = inbox.rows()
        assert row.merge_data == Reason.of(
            ReasonCode.INBOX_NOT_APPLIED, error="RuntimeError: state machine bug"
        )
        assert row.merge_outcome == "not applied: RuntimeError: state machine bug"
        conn = sqlite3.connect(inbox.db_path)
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
        assert "scratch" not in tables
    finally:
        await inbox.listener.stop()


@pytest.mark.asyncio
async def test_other_paths_and_methods_store_nothing(inbox: Inbox) -> None:
    base = inbox.url.rsplit("/webhooks", 1)[0]
    async with httpx.AsyncClient() as client:
        assert (await client.get(inbox.url, headers=headers())).status_code == 405
        other = await client.post(base + "/other", json=payment(), headers=headers())
        assert other.status_code == 404
    assert inbox.rows() == []


@pytest.mark.expected_errors("a delivery could not be stored")
@pytest.mark.asyncio
async def test_unstorable_delivery_is_503_never_2xx(inbox: Inbox) -> None:
    await inbox.writer.close()
    response = await post(inbox.url, payment(), headers())
    assert response.status_code == 503
    assert response.headers["Retry-After"] == "5"
    assert "not stored" in response.json()["error"]
    assert inbox.rows() == []


@pytest.mark.asyncio
async def test_concurrent_deliveries_share_commits(inbox: Inbox) -> None:
    async with httpx.AsyncClient(limits=httpx.Limits(max_connections=40)) as client:
        responses = await asyncio.gather(
            *(
                client.post(inbox.url, content=json.dumps(payment(n=n)).encode(), headers=headers())
                for n in range(120)
            )
        )
    assert [r.status_code for r in responses] == [200] * 120
    assert len({r.json()["stored"] for r in responses}) == 120
    assert len(inbox.rows()) == 120
    stats = inbox.writer.stats
    assert stats.rows == 120
    assert stats.largest_batch > 1, "no two concurrent deliveries shared a commit"
    assert stats.batches < 120


@pytest.mark.asyncio
async def test_https_listener_and_lifecycle_events(tmp_path: Path) -> None:
    ca = trustme.CA()
    server_ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("localhost", "127.0.0.1").configure_cert(server_ctx)
    client_ctx = ssl.create_default_context()
    ca.configure_trust(client_ctx)
    inbox = await open_inbox(tmp_path, ssl_context=server_ctx)
    try:
        assert inbox.url.startswith("https://127.0.0.1:")
        async with httpx.AsyncClient(verify=client_ctx) as client:
            response = await client.post(
                inbox.url, content=json.dumps(payment()).encode(), headers=headers()
            )
        assert response.status_code == 200
        assert len(inbox.rows()) == 1
    finally:
        await inbox.listener.stop()
    states = [e.state for e in inbox.events if isinstance(e, ListenerStateChanged)]
    assert states == [ListenerState.STARTING, ListenerState.LISTENING, ListenerState.STOPPED]


@pytest.mark.expected_errors("the webhook listener did not start")
@pytest.mark.asyncio
async def test_port_in_use_is_a_clear_error(inbox: Inbox, tmp_path: Path) -> None:
    port = inbox.listener.port
    assert port is not None
    with pytest.raises(ListenerError, match=f"cannot listen on 127.0.0.1:{port}.*port"):
        await open_inbox(tmp_path / "second", port=port)


def test_empty_token_is_refused(tmp_path: Path) -> None:
    writer = InboxWriter(tmp_path / "x.sqlite3")
    with pytest.raises(ListenerError, match="token is empty"):
        WebhookListener(ListenerSettings(), token=SecretStr("  "), writer=writer)


# The orphan 3DS result is logged as a state-machine failure, traceback and all.
@pytest.mark.expected_errors("the charge state machine failed on webhook event 4$")
@pytest.mark.asyncio
async def test_notifications_reach_the_charge_state_machine_in_the_same_commit(
    tmp_path: Path,
) -> None:
    inbox = await open_inbox(tmp_path, applier=inbox_applier)
    changed: list[ChargeChanged] = []
    committed: list[str | None] = []

    def on_change(event: ChargeChanged) -> None:
        changed.append(event)
        conn = db.connect(inbox.db_path)
        try:
            record = ChargeRepository(conn).charge(event.merchant_charge_id)
            committed.append(None if record is None else str(record.status))
        finally:
            conn.close()

    inbox.bus.subscribe(ChargeChanged, on_change)
    try:
        authorized = await post(inbox.url, payment("AUTHORIZED", n=1), headers())
        paid = await post(inbox.url, payment("PAID", n=2), headers())
        stale = await post(inbox.url, payment("AUTHORIZED", n=0), headers())
        lost_3ds = {
            "type": "THREE_DS_CHALLENGE",
            "id": "evt-3ds",
            "data": {"status": "Approved", "chargeId": "no-such-service-charge"},
        }
        orphan = await post(
            inbox.url, lost_3ds, headers(**{"event-type": "Challenge3dsUpdateMessage"})
        )
        assert [r.status_code for r in (authorized, paid, stale, orphan)] == [200] * 4
        rows = inbox.rows()
        # No attempt of this terminal's names MCID: each merge says it is a charge it never made.
        assert [r.merge_data.code for r in rows if r.merge_data] == [
            ReasonCode.INBOX_UNMADE_FIRST,
            ReasonCode.INBOX_UNMADE,
            ReasonCode.INBOX_UNMADE,
            ReasonCode.INBOX_NOT_APPLIED,
        ]
        told = [r.merge_data.args["why"] for r in rows[1:3] if r.merge_data]
        assert [w.code if isinstance(w, Reason) else None for w in told] == [
            ReasonCode.INBOX_APPLIED,
            ReasonCode.INBOX_IGNORED,
        ]
        assert rows[3].merge_data is not None
        assert "ChargeNotKnown" in str(rows[3].merge_data.args["error"])
        conn = db.connect(inbox.db_path)
        try:
            repo = ChargeRepository(conn)
            record = repo.charge(MCID)
            assert record is not None and str(record.status) == "PAID"
            timeline = repo.timeline(MCID).items
            assert [t.source_ref for t in timeline] == [f"webhook_event:{r.id}" for r in rows[:3]]
            assert {t.source for t in timeline} == {"webhook"}
        finally:
            conn.close()
        assert [(e.status, e.source) for e in changed] == [
            ("AUTHORIZED", "webhook"),
            ("PAID", "webhook"),
        ]
        # Each ChargeChanged was published after its commit: another connection saw it.
        assert committed == ["AUTHORIZED", "PAID"]
    finally:
        await inbox.listener.stop()
