"""The charge state machine: order, duplicates, finality, 3DS, and a timeline entry per input."""

from __future__ import annotations

import json
import logging
import random
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from checkout_desktop.domain import state as sm
from checkout_desktop.domain.enums import ChargeStatus, ThreeDsStatus, TransactionStatus
from checkout_desktop.domain.reasons import Reason, ReasonCode
from checkout_desktop.domain.state import ChargeState, Outcome
from checkout_desktop.domain.wire import (
    ChargeUpdate,
    ThreeDsUpdate,
    TransactionInfo,
)

logger = logging.getLogger(__name__)

MCID = "order-000123"
T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)

_TXN_FOR = {
    ChargeStatus.PENDING: TransactionStatus.PENDING,
    ChargeStatus.PRE_AUTHORIZED: TransactionStatus.PRE_AUTHORIZED,
    ChargeStatus.PAID: TransactionStatus.PAID,
    ChargeStatus.PARTIAL: TransactionStatus.PARTIALLY_REFUNDED,
    ChargeStatus.REFUNDED: TransactionStatus.REFUNDED,
    ChargeStatus.CANCELED: TransactionStatus.CANCELED,
    ChargeStatus.DENIED: TransactionStatus.DENIED,
    ChargeStatus.CHARGEBACK: TransactionStatus.CHARGEBACK,
}


def update(
    status: ChargeStatus | str,
    *,
    at: datetime | None,
    refunded: int = 0,
    source: str = "reply",
    amount: int = 5000,
    txn_status: TransactionStatus | str | None = None,
    with_txn: bool = True,
    txn_at: datetime | None = None,
    charge_id: str | None = "ch-1",
) -> ChargeUpdate:
    status = ChargeStatus(status)
    txns = []
    if with_txn:
        when = txn_at if txn_at is not None else at
        txns.append(
            TransactionInfo.model_validate(
                {
                    "transactionId": "tx-1",
                    "paymentType": "CREDIT",
                    "transactionStatus": str(txn_status or _TXN_FOR.get(status, status)),
                    "amount": amount,
                    "refundedAmount": refunded,
                    **({"updatedAt": when.isoformat()} if when is not None else {}),
                    "credit": {"brand": "VISA", "cardNumber": "411111******1111", "nsu": "77"},
                }
            )
        )
    return ChargeUpdate(
        merchant_charge_id=MCID,
        charge_id=charge_id,
        status=status,
        amount=amount,
        refunded_amount=refunded,
        transactions=txns,
        occurred_at=at,
        received_at=T0,
        source=source,
    )


def three_ds(status: ThreeDsStatus, at: datetime | None) -> ThreeDsUpdate:
    return ThreeDsUpdate(
        merchant_charge_id=MCID,
        charge_id="ch-1",
        status=status,
        pares_status="Y" if status == ThreeDsStatus.APPROVED else "N",
        eci="05",
        occurred_at=at,
        received_at=T0,
    )


def fold(*updates: ChargeUpdate | ThreeDsUpdate) -> tuple[ChargeState, list[sm.TimelineEntry]]:
    final, entries = sm.fold(updates)
    assert final is not None
    return final, entries


def t(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


# ---------------------------------------------------------------------------------------------
# Examples


def test_first_input_sets_the_status_and_details() -> None:
    final, entries = fold(update("PAID", at=t(1)))
    assert final.status == ChargeStatus.PAID
    assert final.charge_id == "ch-1"
    assert final.amount == 5000
    (txn,) = final.transactions
    assert (txn.status, txn.brand, txn.last_four, txn.nsu) == (
        TransactionStatus.PAID,
        "VISA",
        "1111",
        "77",
    )
    assert entries[0].outcome == Outcome.APPLIED
    assert entries[0].reason == Reason.of(ReasonCode.MERGE_FIRST_STATUS, status="PAID")


def test_an_older_status_arriving_late_is_ignored_with_a_reason() -> None:
    final, entries = fold(
        update("PAID", at=t(2), source="webhook"),
        update("PRE_AUTHORIZED", at=t(1), source="webhook"),
    )
    assert final.status == ChargeStatus.PAID
    assert final.transactions[0].status == TransactionStatus.PAID
    assert entries[1].outcome == Outcome.IGNORED
    assert entries[1].reason.code == ReasonCode.MERGE_EARLIER_STAGE
    assert entries[1].reason.args["current_status"] == "PAID"
    assert (entries[1].previous_status, entries[1].new_status) == ("PAID", "PAID")


def test_a_late_notification_never_undoes_a_refund_even_with_a_later_time() -> None:
    # A delayed delivery can carry a later eventDate than the refund reply's updatedAt.
    final, entries = fold(
        update("REFUNDED", at=t(5), refunded=5000),
        update("PAID", at=t(9), source="webhook"),
    )
    assert final.status == ChargeStatus.REFUNDED
    assert final.refunded_amount == 5000
    assert entries[1].outcome == Outcome.IGNORED


def test_duplicates_are_recorded_as_duplicates() -> None:
    paid = update("PAID", at=t(1), source="webhook")
    final, entries = fold(paid, paid, paid)
    assert final.status == ChargeStatus.PAID
    assert [e.outcome for e in entries] == [Outcome.APPLIED, Outcome.DUPLICATE, Outcome.DUPLICATE]
    assert entries[1].reason == Reason.of(ReasonCode.MERGE_NOTHING_NEW, current_status="PAID")
    assert final.inputs == 3


def test_the_same_status_with_an_earlier_time_is_nothing_new_not_older_news() -> None:
    # A notification's time is when it was sent (its eventDate), a query's when the transaction
    # last changed: the service confirming the same status and amounts a moment "before" what
    # the terminal knows is a confirmation, not news to set aside.
    notified = update("PAID", at=t(2), source="webhook")
    asked = update("PAID", at=t(1), source="reconciliation", txn_at=t(1))
    final, entries = fold(notified, asked)
    assert entries[1].outcome == Outcome.DUPLICATE
    assert entries[1].reason == Reason.of(ReasonCode.MERGE_NOTHING_NEW, current_status="PAID")
    assert final.status == ChargeStatus.PAID
    assert final.status_at == t(2)
    assert final.inputs == 2
    # The same position without amounts in the input says the same.
    bare = update("PAID", at=t(1), with_txn=False)
    bare = replace(bare, refunded_amount=None)
    assert fold(notified, bare)[1][1].outcome == Outcome.DUPLICATE
    # An earlier time with another status of the same stage, or another refunded amount, is
    # still older news.
    _, entries = fold(notified, update("AUTHORIZED", at=t(1)))
    assert entries[1].outcome == Outcome.IGNORED
    _, entries = fold(
        update("PARTIAL", at=t(2), refunded=2000), update("PARTIAL", at=t(1), refunded=1000)
    )
    assert entries[1].outcome == Outcome.IGNORED


def test_denied_is_final_whatever_arrives_after_it() -> None:
    final, entries = fold(
        update("DENIED", at=t(1)),
        update("PAID", at=t(50), source="webhook"),
        update("PRE_AUTHORIZED", at=None),
    )
    assert final.status == ChargeStatus.DENIED
    assert [e.outcome for e in entries[1:]] == [Outcome.IGNORED, Outcome.IGNORED]
    assert entries[1].reason.code == ReasonCode.MERGE_AFTER_DENIED


def test_partial_refunds_order_by_time_then_amount() -> None:
    final, entries = fold(
        update("PARTIAL", at=t(3), refunded=2000),
        update("PARTIAL", at=t(2), refunded=1000),
        update("PARTIAL", at=None, refunded=1500),
    )
    assert final.status == ChargeStatus.PARTIAL
    assert final.refunded_amount == 2000
    assert entries[1].outcome == Outcome.IGNORED
    assert entries[1].reason.code == ReasonCode.MERGE_HAPPENED_BEFORE
    assert entries[2].outcome == Outcome.IGNORED


def test_a_later_partial_refund_is_applied_and_says_what_changed() -> None:
    final, entries = fold(
        update("PAID", at=t(1)),
        update("PARTIAL", at=t(2), refunded=1000),
        update("PARTIAL", at=t(3), refunded=2500),
    )
    assert final.refunded_amount == 2500
    assert entries[2].reason == Reason.of(ReasonCode.MERGE_LATER_UPDATE, status="PARTIAL")
    assert (
        Reason.of(ReasonCode.CHANGE_REFUNDED, previous_amount=1000, amount=2500)
        in entries[2].changes
    )


def test_an_unpublished_status_is_kept_and_ordered_by_time() -> None:
    final, entries = fold(update("PAID", at=t(1)), update("SETTLING", at=t(2)))
    assert str(final.status) == "SETTLING"
    assert not ChargeStatus("SETTLING").is_known
    # Without a time it cannot be ordered against a known status, so it does not win.
    final, entries = fold(update("PAID", at=t(1)), update("SETTLING", at=None))
    assert final.status == ChargeStatus.PAID
    assert entries[1].outcome == Outcome.IGNORED


def test_an_older_input_still_fills_gaps() -> None:
    newer = update("PAID", at=t(2), charge_id=None, with_txn=False)
    older = update("PRE_AUTHORIZED", at=t(1), charge_id="ch-9")
    final, entries = fold(newer, older)
    assert final.status == ChargeStatus.PAID
    assert final.charge_id == "ch-9"
    assert entries[1].outcome == Outcome.APPLIED
    assert entries[1].reason.code in (
        ReasonCode.MERGE_DETAILS_ADDED,
        ReasonCode.MERGE_OLDER_DETAILS_ADDED,
    )
    assert final.transactions[0].status == TransactionStatus.PRE_AUTHORIZED


def test_transaction_status_moves_independently_of_the_charge_input_order() -> None:
    final, _ = fold(
        update("PAID", at=t(2), txn_status="PAID"),
        update("PAID", at=t(2), txn_status="PRE_AUTHORIZED", txn_at=t(1)),
    )
    assert final.transactions[0].status == TransactionStatus.PAID


def test_webhook_examples_status_pair_authorized_and_captured() -> None:
    final, _ = fold(update("AUTHORIZED", at=t(1), txn_status="CAPTURED", source="webhook"))
    assert final.status == ChargeStatus.AUTHORIZED
    assert final.transactions[0].status == TransactionStatus.CAPTURED
    assert not final.is_final


def test_awaiting_notification_until_a_webhook_reports_the_status() -> None:
    final, _ = fold(update("PAID", at=t(1), source="reply"))
    assert final.awaiting_notification
    final, _ = fold(update("PAID", at=t(1)), update("PAID", at=t(1), source="webhook"))
    assert not final.awaiting_notification
    final, _ = fold(
        update("PAID", at=t(1), source="webhook"), update("PARTIAL", at=t(2), refunded=10)
    )
    assert final.awaiting_notification


def test_three_ds_result_is_recorded_beside_the_status() -> None:
    final, entries = fold(
        three_ds(ThreeDsStatus.APPROVED, t(2)),
        three_ds(ThreeDsStatus.CHALLENGED, t(1)),
        update("PAID", at=t(3)),
        three_ds(ThreeDsStatus.APPROVED, t(2)),
    )
    assert final.three_ds is not None
    assert final.three_ds.status == ThreeDsStatus.APPROVED
    assert final.three_ds.pares_status == "Y"
    assert final.status == ChargeStatus.PAID
    assert [e.outcome for e in entries] == [
        Outcome.APPLIED,
        Outcome.IGNORED,
        Outcome.APPLIED,
        Outcome.DUPLICATE,
    ]
    assert entries[0].reason.code in (
        ReasonCode.THREE_DS_RESULT,
        ReasonCode.THREE_DS_RESULT_PARES,
    )
    assert entries[0].reason.args["status"] == "Approved"


def test_a_three_ds_result_naming_only_the_service_id_needs_a_state() -> None:
    orphan = ThreeDsUpdate(
        merchant_charge_id=None,
        charge_id="ch-1",
        status=ThreeDsStatus.APPROVED,
        pares_status="Y",
        eci="05",
        occurred_at=None,
        received_at=None,
    )
    with pytest.raises(ValueError, match="needs the charge's state"):
        sm.merge(None, orphan)
    merged = sm.merge(sm.initial_state(MCID), orphan)
    assert merged.state.three_ds is not None
    assert merged.state.charge_id == "ch-1"


def test_an_update_for_another_charge_is_refused() -> None:
    other = ChargeState(merchant_charge_id="other-000001")
    with pytest.raises(ValueError, match="cannot merge into charge 'other-000001'"):
        sm.merge(other, update("PAID", at=t(1)))


def test_state_survives_a_json_round_trip() -> None:
    final, _ = fold(
        three_ds(ThreeDsStatus.APPROVED, t(1)),
        update("PARTIAL", at=t(2), refunded=100, source="webhook"),
        update("SETTLING", at=t(3)),
    )
    text = json.dumps(final.to_json())
    assert ChargeState.from_json(json.loads(text)) == final


# ---------------------------------------------------------------------------------------------
# Property: any permutation and duplication of a valid history ends in the same state

LIFECYCLES: list[list[tuple[ChargeStatus, int]]] = [
    [(ChargeStatus.PAID, 0)],
    [(ChargeStatus.PENDING, 0), (ChargeStatus.DENIED, 0)],
    [(ChargeStatus.PRE_AUTHORIZED, 0), (ChargeStatus.PAID, 0)],
    [(ChargeStatus.PRE_AUTHORIZED, 0), (ChargeStatus.CANCELED, 5000)],
    [
        (ChargeStatus.PRE_AUTHORIZED, 0),
        (ChargeStatus.PAID, 0),
        (ChargeStatus.PARTIAL, 1000),
        (ChargeStatus.PARTIAL, 2500),
        (ChargeStatus.REFUNDED, 5000),
    ],
    [(ChargeStatus.PAID, 0), (ChargeStatus.PARTIAL, 700), (ChargeStatus.CHARGEBACK, 700)],
    [(ChargeStatus.PAID, 0), (ChargeStatus.REFUNDED, 5000)],
    # Partial refunds that keep the charge PAID (as the built-in sandbox reports them).
    [
        (ChargeStatus.PAID, 0),
        (ChargeStatus.PAID, 500),
        (ChargeStatus.PAID, 1000),
        (ChargeStatus.REFUNDED, 5000),
    ],
]


@dataclass(frozen=True)
class Delivery:
    """One input about step `step` of a lifecycle, as some source would send it."""

    step: int
    source: str
    timed: bool
    skew_ms: int


@st.composite
def histories(draw: st.DrawFn) -> tuple[list[tuple[ChargeStatus, int]], list[Delivery], bool]:
    life = draw(st.sampled_from(LIFECYCLES))
    last = len(life) - 1
    deliveries = draw(
        st.lists(
            st.builds(
                Delivery,
                step=st.integers(0, last),
                source=st.sampled_from(["reply", "webhook", "reconciliation"]),
                timed=st.booleans(),
                # A notification's eventDate may lag the reply's updatedAt by under a second;
                # steps are a minute apart.
                skew_ms=st.integers(0, 900),
            ),
            min_size=0,
            max_size=12,
        )
    )
    # The history always reaches its last step at least once.
    deliveries.append(
        Delivery(last, draw(st.sampled_from(["reply", "webhook"])), draw(st.booleans()), 0)
    )
    with_3ds = draw(st.booleans())
    return life, deliveries, with_3ds


def _inputs(
    life: list[tuple[ChargeStatus, int]], deliveries: list[Delivery], with_3ds: bool
) -> list[tuple[int, ChargeUpdate | ThreeDsUpdate]]:
    """The inputs, each with its place in the real history (3DS results come first)."""
    inputs: list[tuple[int, ChargeUpdate | ThreeDsUpdate]] = []
    if with_3ds:
        inputs.append((-2, three_ds(ThreeDsStatus.CHALLENGED, t(-30))))
        inputs.append((-1, three_ds(ThreeDsStatus.APPROVED, t(-20))))
    for d in deliveries:
        status, refunded = life[d.step]
        at = t(60 * d.step + d.skew_ms / 1000) if d.timed else None
        inputs.append((d.step, update(status, at=at, refunded=refunded, source=d.source)))
    return inputs


def _without_count(state: ChargeState) -> dict[str, object]:
    return {k: v for k, v in state.to_json().items() if k != "inputs"}


@settings(max_examples=300, deadline=None)
@given(histories(), st.randoms(use_true_random=False))
def test_any_permutation_and_duplication_ends_in_the_same_state(
    history: tuple[list[tuple[ChargeStatus, int]], list[Delivery], bool], rnd: random.Random
) -> None:
    life, deliveries, with_3ds = history
    placed = _inputs(life, deliveries, with_3ds)
    chronological = [u for _, u in sorted(placed, key=lambda p: p[0])]
    reference, ref_entries = fold(*chronological)

    shuffled = [u for _, u in placed]
    rnd.shuffle(shuffled)
    # Re-deliveries: a few inputs again, at random places.
    for item in list(shuffled[:3]):
        shuffled.insert(rnd.randrange(len(shuffled) + 1), item)
    final, entries = fold(*shuffled)

    expected_status, expected_refunded = life[-1]
    assert final.status == expected_status
    assert final.refunded_amount == expected_refunded
    assert final.transactions[0].status == _TXN_FOR[expected_status]
    assert final.summary() == reference.summary()
    # Beyond the outcome, the whole state (times included) does not depend on arrival order.
    assert _without_count(final) == _without_count(reference)
    # Every input leaves exactly one timeline entry, applied or not.
    assert len(entries) == len(shuffled)
    assert len(ref_entries) == len(chronological)
    if with_3ds:
        assert final.three_ds is not None
        assert final.three_ds.status == ThreeDsStatus.APPROVED


@settings(max_examples=200, deadline=None)
@given(histories())
def test_merging_the_same_inputs_again_changes_no_status(
    history: tuple[list[tuple[ChargeStatus, int]], list[Delivery], bool],
) -> None:
    inputs = [u for _, u in _inputs(*history)]
    once, _ = fold(*inputs)
    twice, entries = sm.fold(inputs, once)
    assert twice is not None
    assert _without_count(twice) == _without_count(once)
    assert len(entries) == len(inputs)
    assert all(e.previous_status == e.new_status == str(once.status) for e in entries)
    assert all(e.outcome != Outcome.APPLIED for e in entries)
