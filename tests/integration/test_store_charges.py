"""Charge repository on real SQLite files: attempts, merges, timeline, masking, paging, checks."""

from __future__ import annotations

import copy
import logging
import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from checkout_desktop.charges.reconciler import CheckPolicy
from checkout_desktop.domain.enums import ChargeStatus, ThreeDsStatus
from checkout_desktop.domain.reasons import Reason, ReasonCode
from checkout_desktop.domain.records import CardSummary
from checkout_desktop.domain.state import AttemptState, Outcome
from checkout_desktop.domain.wire import (
    ChargeReply,
    ChargeUpdate,
    ThreeDsUpdate,
    parse_webhook,
    payment_update,
)
from checkout_desktop.store.errors import ChargeNotKnown, NotInTransaction, RepositoryError
from checkout_desktop.store.sqlite.charges import ChargeRepository, ts
from checkout_desktop.store.sqlite.db import connect, transaction
from tests.ledger_support import SyncLedger
from tests.unit import wire_examples as ex

logger = logging.getLogger(__name__)

NOW = datetime(2026, 5, 4, 10, 0, tzinfo=UTC)
PAN = "4111111111111111"
# Reasons the tests hand to the store (what the charge service would give).
START_UP = Reason.of(ReasonCode.TRIGGER_START_UP)
LATE = Reason.of(ReasonCode.SERVICE_HAS_CHARGE, status="PAID")


class Clock:
    def __init__(self) -> None:
        self.now = NOW

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "store" / "checkout.sqlite3"


@pytest.fixture
def conn(db_path: Path) -> Iterator[sqlite3.Connection]:
    connection = connect(db_path)
    try:
        yield connection
    finally:
        connection.close()


@pytest.fixture
def clock() -> Clock:
    return Clock()


POLICY = CheckPolicy(
    interval=timedelta(seconds=60),
    max_interval=timedelta(seconds=600),
    notification_grace=timedelta(seconds=120),
)


@pytest.fixture
def repo(conn: sqlite3.Connection, clock: Clock) -> ChargeRepository:
    return ChargeRepository(conn, clock=clock)


def ledger(repo: ChargeRepository) -> SyncLedger:
    """The use case that merges inputs into the repository's charges (as the service does)."""
    return SyncLedger(repo, policy=POLICY)


def reply(mcid: str, status: str, *, refunded: int = 0, at: str = "2026-05-04T10:00:01Z") -> Any:
    body = copy.deepcopy(ex.CHARGE_REPLY)
    body["merchantChargeId"] = mcid
    body["chargeStatus"] = status
    body["refundedAmount"] = refunded
    txn = body["transactions"][0]
    txn["transactionStatus"] = {"PARTIAL": "PARTIALLY_REFUNDED"}.get(status, status)
    txn["refundedAmount"] = refunded
    txn["updatedAt"] = at
    return body


def update(body: dict[str, Any], source: str = "reply") -> ChargeUpdate:
    return ChargeReply.model_validate(body).update(source=source, received_at=NOW)


def webhook(mcid: str, status: str, event_date: str, *, refunded: int = 0) -> ChargeUpdate:
    body = {
        "type": "PAYMENT",
        "eventDate": event_date,
        "merchantDocument": "30155515000121",
        "id": "0f8fad5b-d9cb-469f-a165-70867728950e",
        "merchantCode": "1234",
        "data": {
            "status": status,
            "amount": 1500,
            "originalAmount": 1500,
            "refundedAmount": refunded,
            "merchantChargeId": mcid,
            "paymentSource": "GATEWAY",
            "lateCapture": False,
            "transactions": [],
        },
    }
    parsed = parse_webhook(body)
    assert not isinstance(parsed, dict)
    return payment_update(parsed, received_at=NOW)  # type: ignore[arg-type]


def record(repo: ChargeRepository, mcid: str, sale: str = "sale-1") -> None:
    with transaction(repo.conn):
        repo.record_attempt(
            merchant_charge_id=mcid,
            sale_id=sale,
            profile="builtin-sandbox",
            amount=1500,
            tenders=[CardSummary("VISA", "1111")],
        )


def test_writes_outside_a_transaction_are_refused(repo: ChargeRepository) -> None:
    with pytest.raises(NotInTransaction, match="must run inside `with transaction"):
        repo.record_attempt(
            merchant_charge_id="charge-000001",
            sale_id="s",
            profile="p",
            amount=1,
            tenders=[CardSummary("VISA", "1111")],
        )
    with pytest.raises(NotInTransaction):
        ledger(repo).apply_update(
            update(reply("charge-000001", "PAID")), source="reply", source_ref=None
        )


def test_an_attempt_is_recorded_with_brand_and_last_four_only(
    repo: ChargeRepository, db_path: Path
) -> None:
    with pytest.raises(ValueError, match="exactly the last four digits"):
        CardSummary("VISA", PAN)
    record(repo, "charge-000001")
    attempt = repo.attempt("charge-000001")
    assert attempt is not None
    assert attempt.state == AttemptState.RECORDED
    assert attempt.cards == (CardSummary("VISA", "1111"),)
    assert attempt.unresolved
    with pytest.raises(RepositoryError, match="never reused"):
        record(repo, "charge-000001")
    entry = repo.timeline("charge-000001").items[0]
    assert entry.source == "request"
    assert entry.reason_data == Reason.of(
        ReasonCode.ATTEMPT_RECORDED,
        sale="sale-1",
        amount=1500,
        cards=(Reason.of(ReasonCode.CARD, brand="VISA", last_four="1111"),),
    )
    # The English text is kept beside the code, for exports and logs.
    assert entry.reason == (
        "attempt for sale sale-1 recorded before sending: 1500 centavos, VISA •••• 1111"
    )
    # The write is durable: a new connection sees it.
    other = connect(db_path)
    try:
        assert ChargeRepository(other).attempt("charge-000001") is not None
    finally:
        other.close()


def test_apply_update_runs_in_the_callers_transaction(repo: ChargeRepository) -> None:
    record(repo, "charge-000002")

    def merge_then_fail() -> None:
        with transaction(repo.conn):
            ledger(repo).apply_update(
                update(reply("charge-000002", "PAID")), source="reply", source_ref=None
            )
            raise RuntimeError("caller fails after the merge")

    with pytest.raises(RuntimeError, match="caller fails"):
        merge_then_fail()
    assert repo.charge("charge-000002") is None
    attempt = repo.attempt("charge-000002")
    assert attempt is not None and attempt.state == AttemptState.RECORDED


def test_a_reply_resolves_the_attempt_and_fills_the_charge(repo: ChargeRepository) -> None:
    record(repo, "charge-000003", sale="sale-3")
    with transaction(repo.conn):
        result = ledger(repo).apply_update(
            update(reply("charge-000003", "PAID")),
            source="reply",
            source_ref=None,
            body=reply("charge-000003", "PAID"),
        )
    assert result.outcome == Outcome.APPLIED
    assert result.attempt_resolved
    assert result.sale_id == "sale-3"
    assert result.status_changed
    charge = repo.charge("charge-000003")
    assert charge is not None
    assert (charge.status, charge.sale_id, charge.amount) == (ChargeStatus.PAID, "sale-3", 1500)
    attempt = repo.attempt("charge-000003")
    assert attempt is not None and attempt.state == AttemptState.CREATED
    (txn,) = repo.transactions("charge-000003")
    assert (txn["status"], txn["brand"], txn["last_four"]) == ("PAID", "VISA", "1111")
    sources = [(e.source, e.outcome) for e in repo.timeline("charge-000003").items]
    assert sources == [("request", "recorded"), ("reply", "applied"), ("reply", "applied")]


def test_card_data_in_a_reply_never_reaches_the_file(repo: ChargeRepository, db_path: Path) -> None:
    body = reply("charge-000004", "PAID")
    credit = body["transactions"][0]["credit"]
    credit["cardNumber"] = PAN  # a service bug: a whole number
    credit["cvv"] = "123"
    credit["expirationMonth"] = "07"
    body["temporaryCardToken"] = "card_t/abcdefghijklmnop"
    with transaction(repo.conn):
        ledger(repo).apply_update(update(body), source="reply", source_ref=None, body=body)
    stored = repo.timeline("charge-000004").items[-1].body
    stored_credit = stored["transactions"][0]["credit"]
    assert stored_credit["cardNumber"] == "411111******1111"
    assert "cvv" not in stored_credit
    assert "expirationMonth" not in stored_credit
    assert "temporaryCardToken" not in stored
    repo.conn.execute("PRAGMA wal_checkpoint(FULL)")
    raw = db_path.read_bytes() + Path(f"{db_path}-wal").read_bytes()
    assert PAN.encode() not in raw
    assert b"card_t/abcdefghijklmnop" not in raw


def test_out_of_order_and_duplicate_inputs_keep_the_latest_state(repo: ChargeRepository) -> None:
    mcid = "charge-000005"
    record(repo, mcid)
    inputs = [
        ("webhook", webhook(mcid, "PARTIAL", "2026-05-04T10:05:00Z", refunded=500), "41"),
        ("webhook", webhook(mcid, "PAID", "2026-05-04T10:00:02Z"), "40"),
        ("reply", update(reply(mcid, "PAID")), None),
        ("webhook", webhook(mcid, "PARTIAL", "2026-05-04T10:05:00Z", refunded=500), "42"),
        ("webhook", webhook(mcid, "REFUNDED", "2026-05-04T10:09:00Z", refunded=1500), "43"),
        ("webhook", webhook(mcid, "PARTIAL", "2026-05-04T10:05:00Z", refunded=500), "44"),
    ]
    outcomes = []
    for source, item, ref in inputs:
        with transaction(repo.conn):
            outcomes.append(ledger(repo).apply_update(item, source=source, source_ref=ref).outcome)
    charge = repo.charge(mcid)
    assert charge is not None
    assert (charge.status, charge.refunded_amount) == (ChargeStatus.REFUNDED, 1500)
    # The late reply's status is older, but it brings the transaction the notifications lacked.
    assert outcomes == [
        Outcome.APPLIED,
        Outcome.IGNORED,
        Outcome.APPLIED,
        Outcome.DUPLICATE,
        Outcome.APPLIED,
        Outcome.IGNORED,
    ]
    timeline = [e for e in repo.timeline(mcid).items if e.input_status != "CREATED"]
    merge_rows = [e for e in timeline if e.source in ("webhook", "reply")]
    assert [(e.source, e.source_ref, e.input_status) for e in merge_rows] == [
        ("webhook", "41", "PARTIAL"),
        ("webhook", "40", "PAID"),
        ("reply", None, "PAID"),
        ("webhook", "42", "PARTIAL"),
        ("webhook", "43", "REFUNDED"),
        ("webhook", "44", "PARTIAL"),
    ]
    codes = [r.reason_data.code if r.reason_data else None for r in merge_rows]
    assert codes[1] == ReasonCode.MERGE_EARLIER_STAGE
    assert codes[2] in (ReasonCode.MERGE_DETAILS_ADDED, ReasonCode.MERGE_OLDER_DETAILS_ADDED)
    assert (merge_rows[2].previous_status, merge_rows[2].new_status) == ("PARTIAL", "PARTIAL")
    assert merge_rows[3].reason_data == Reason.of(
        ReasonCode.MERGE_NOTHING_NEW, current_status="PARTIAL"
    )


def test_a_notification_first_creates_the_charge(repo: ChargeRepository) -> None:
    with transaction(repo.conn):
        result = ledger(repo).apply_update(
            webhook("elsewhere-01", "PAID", "2026-05-04T10:00:00Z"),
            source="webhook",
            source_ref="9",
        )
    assert result.previous is None
    assert result.sale_id is None
    charge = repo.charge("elsewhere-01")
    assert charge is not None and charge.status == ChargeStatus.PAID
    assert charge.last_webhook_at == NOW


def test_three_ds_results_find_their_charge_by_either_id(repo: ChargeRepository) -> None:
    body = reply("charge-000006", "PAID")
    with transaction(repo.conn):
        ledger(repo).apply_update(update(body), source="reply", source_ref=None)
    by_service_id = ThreeDsUpdate(
        merchant_charge_id=None,
        charge_id=body["id"],
        status=ThreeDsStatus.APPROVED,
        pares_status="Y",
        eci="05",
        occurred_at=None,
        received_at=NOW,
    )
    with transaction(repo.conn):
        result = ledger(repo).apply_update(by_service_id, source="3ds", source_ref="77")
    assert result.merchant_charge_id == "charge-000006"
    charge = repo.charge("charge-000006")
    assert charge is not None and charge.three_ds_status == "Approved"
    orphan = ThreeDsUpdate(
        merchant_charge_id=None,
        charge_id="no-such-charge",
        status=ThreeDsStatus.APPROVED,
        pares_status="Y",
        eci="05",
        occurred_at=None,
        received_at=NOW,
    )
    with pytest.raises(ChargeNotKnown, match="no-such-charge"), transaction(repo.conn):
        ledger(repo).apply_update(orphan, source="3ds", source_ref="78")
    with pytest.raises(RepositoryError, match="unknown timeline source"), transaction(repo.conn):
        ledger(repo).apply_update(orphan, source="carrier-pigeon", source_ref=None)


def test_resolved_attempts_never_change_again(repo: ChargeRepository) -> None:
    record(repo, "charge-000007")
    with transaction(repo.conn):
        repo.set_attempt_state(
            "charge-000007",
            AttemptState.UNKNOWN,
            source="reply",
            reason=Reason.of(ReasonCode.STOPPED_WAITING),
        )
    assert repo.unresolved_attempt_for_sale("sale-1") is not None
    with transaction(repo.conn):
        repo.set_attempt_state(
            "charge-000007",
            AttemptState.NOT_FOUND,
            source="reconciliation",
            reason=Reason.of(ReasonCode.RECONCILE_ANSWERED_NONE, trigger=START_UP),
            count_query=True,
        )
    with transaction(repo.conn):
        after = repo.set_attempt_state(
            "charge-000007", AttemptState.CREATED, source="reconciliation", reason=LATE
        )
    assert after.state == AttemptState.NOT_FOUND
    assert after.queries == 1
    assert repo.unresolved_attempt_for_sale("sale-1") is None
    assert repo.unresolved_attempts() == []
    last = repo.timeline("charge-000007").items[-1]
    assert last.outcome == "ignored"
    assert last.reason_data == Reason.of(ReasonCode.ATTEMPT_ALREADY, state="NOT_FOUND", why=LATE)
    assert last.reason == f"attempt already NOT_FOUND; {LATE.english()}"


def test_checks_are_scheduled_by_status_and_notification(
    repo: ChargeRepository, clock: Clock
) -> None:
    mcid = "charge-000008"
    with transaction(repo.conn):
        ledger(repo).apply_update(update(reply(mcid, "PAID")), source="reply", source_ref=None)
    charge = repo.charge(mcid)
    assert charge is not None
    assert charge.next_check_at == NOW + timedelta(seconds=120)
    assert charge.check_reason_data == Reason.of(
        ReasonCode.CHECK_EXPECT_NOTIFICATION, status="PAID"
    )
    assert charge.check_reason == "expecting the notification of PAID"
    assert repo.due_checks() == []
    clock.now = NOW + timedelta(seconds=121)
    assert [c.merchant_charge_id for c in repo.due_checks()] == [mcid]
    # The notification arrives: nothing left to check.
    with transaction(repo.conn):
        ledger(repo).apply_update(
            webhook(mcid, "PAID", "2026-05-04T10:00:01Z"), source="webhook", source_ref="1"
        )
    charge = repo.charge(mcid)
    assert charge is not None and charge.next_check_at is None

    pre = "charge-000009"
    with transaction(repo.conn):
        ledger(repo).apply_update(
            update(reply(pre, "PRE_AUTHORIZED")), source="reply", source_ref=None
        )
    first = repo.charge(pre)
    assert first is not None and first.next_check_at == clock.now + timedelta(seconds=60)
    for expected in (120, 240, 480, 600, 600):
        with transaction(repo.conn):
            ledger(repo).apply_update(
                update(reply(pre, "PRE_AUTHORIZED")), source="reconciliation", source_ref=None
            )
        again = repo.charge(pre)
        assert again is not None
        assert again.next_check_at == clock.now + timedelta(seconds=expected)
        assert again.last_checked_at == clock.now
    with transaction(repo.conn):
        ledger(repo).mark_checked(
            pre,
            found=False,
            reason=Reason.of(
                ReasonCode.CHECK_CANNOT_ASK,
                trigger=START_UP,
                why=Reason.of(ReasonCode.CHECK_SCHEDULED),
                error="offline",
            ),
        )
    last = repo.charge(pre)
    assert last is not None and last.checks == 6
    with transaction(repo.conn):
        repo.schedule_check(pre, reason=Reason.of(ReasonCode.REFUND_UNKNOWN), at=clock.now)
    soon = repo.charge(pre)
    assert soon is not None
    assert (soon.next_check_at, soon.check_reason) == (clock.now, "refund outcome unknown")
    assert soon.check_reason_data == Reason.of(ReasonCode.REFUND_UNKNOWN)


def test_history_pages_by_keyset(repo: ChargeRepository) -> None:
    with transaction(repo.conn):
        for i in range(230):
            status = "DENIED" if i % 10 == 0 else "PAID"
            ledger(repo).apply_update(
                update(reply(f"hist-{i:06d}", status)), source="reply", source_ref=None
            )
    seen: list[str] = []
    cursor = None
    pages = 0
    while True:
        page = repo.list_charges(before=cursor, limit=100)
        seen.extend(c.merchant_charge_id for c in page.items)
        pages += 1
        if page.next_cursor is None:
            break
        cursor = page.next_cursor
    assert pages == 3
    assert seen == [f"hist-{i:06d}" for i in reversed(range(230))]
    denied = repo.list_charges(limit=50, status=ChargeStatus.DENIED)
    assert len(denied.items) == 23 and denied.next_cursor is None

    # Paging and the reconciler's scan use indexes, so their cost does not grow with the store.
    def plan(sql: str, params: dict[str, Any]) -> str:
        rows = repo.conn.execute(f"EXPLAIN QUERY PLAN {sql}", params).fetchall()
        return " | ".join(str(row[3]) for row in rows)

    assert "USING INTEGER PRIMARY KEY" in plan(
        "SELECT * FROM charge WHERE id < :b ORDER BY id DESC LIMIT 10", {"b": 5}
    )
    assert "charge_next_check" in plan(
        "SELECT * FROM charge WHERE next_check_at IS NOT NULL AND next_check_at <= :now "
        "ORDER BY next_check_at LIMIT 5",
        {"now": ts(NOW)},
    )
    with pytest.raises(ValueError, match="at least one row"):
        repo.list_charges(limit=0)
    # Timeline pages continue where the last one stopped.
    first = repo.timeline("hist-000001", limit=1)
    assert first.next_cursor is None and len(first.items) == 1


def test_attempt_pages_by_keyset(repo: ChargeRepository) -> None:
    for i in range(7):
        record(repo, f"attempt-{i:04d}", sale=f"sale-{i}")
    page = repo.list_attempts(limit=3)
    ids = [a.merchant_charge_id for a in page.items]
    while page.next_cursor is not None:
        page = repo.list_attempts(before=page.next_cursor, limit=3)
        ids.extend(a.merchant_charge_id for a in page.items)
    assert ids == [f"attempt-{i:04d}" for i in reversed(range(7))]
    assert ts(NOW) == "2026-05-04T10:00:00.000000Z"


def test_attempt_records_returned_by_writes_are_what_the_store_holds(
    repo: ChargeRepository,
) -> None:
    """The write methods build the record they return instead of reading it back."""
    with transaction(repo.conn):
        recorded = repo.record_attempt(
            merchant_charge_id="charge-000042",
            sale_id="sale-42",
            profile="builtin-sandbox",
            amount=2500,
            tenders=[CardSummary("VISA", "1111"), CardSummary(None, None, installments=3)],
            late_capture=True,
        )
    assert recorded == repo.attempt("charge-000042")
    steps = [
        (AttemptState.UNKNOWN, {"detail": "timeout", "answered": False, "count_query": False}),
        (AttemptState.UNKNOWN, {"detail": None, "answered": True, "count_query": True}),
        (AttemptState.CREATED, {"detail": None, "answered": False, "count_query": True}),
        (AttemptState.NOT_FOUND, {"detail": "late", "answered": False, "count_query": True}),
    ]
    for state, options in steps:
        with transaction(repo.conn):
            returned = repo.set_attempt_state(
                "charge-000042", state, source="reconciliation", reason=LATE, **options
            )
        assert returned == repo.attempt("charge-000042"), state
