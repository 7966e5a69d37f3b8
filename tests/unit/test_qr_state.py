"""QR charges in the state machine: phases read from the transaction, and notifications that
arrive duplicated, reordered, late or with clocks three hours off still end in the service's
state, never turning a paid QR back to waiting nor an expired one into paid."""

from __future__ import annotations

import logging
import random
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from checkout_desktop.charges.qr import qr_schedule
from checkout_desktop.charges.reconciler import CheckPolicy
from checkout_desktop.domain import state as sm
from checkout_desktop.domain.enums import ChargeStatus, TransactionStatus
from checkout_desktop.domain.money_ops import Figures
from checkout_desktop.domain.qr import (
    EXPIRY_GRACE,
    QrPhase,
    effective_status,
    expires_at,
    holds_sale,
    qr_phase,
    with_expiry,
)
from checkout_desktop.domain.reasons import ReasonCode
from checkout_desktop.domain.wire import ChargeUpdate, TransactionInfo

logger = logging.getLogger(__name__)

MCID = "sale0000001-01"
T0 = datetime(2026, 3, 1, 15, 0, tzinfo=UTC)
AMOUNT = 5000
BRT_SHIFT = timedelta(hours=-3)
"""A Brasília time written without offset and read as UTC lands three hours early."""


@dataclass(frozen=True)
class Step:
    """One status the service reached, in order."""

    charge: str
    txn: str
    refunded: int = 0


def qr_update(
    kind: str,
    step: Step,
    *,
    at: datetime | None,
    source: str,
    created: datetime = T0,
) -> ChargeUpdate:
    qr: dict[str, object] = {"qrCode": "000201...6304ABCD", "qrCodeBase64": "iVBORw0KGgo="}
    if kind == "WALLET":
        qr["expiresAt"] = (created + timedelta(minutes=4)).isoformat()
    txn = TransactionInfo.model_validate(
        {
            "transactionId": "tx-1",
            "paymentType": kind,
            ("status" if source == "webhook" else "transactionStatus"): step.txn,
            "amount": AMOUNT,
            "refundedAmount": step.refunded,
            "createdAt": created.isoformat(),
            **({"updatedAt": at.isoformat()} if at is not None else {}),
            kind.lower(): qr,
        }
    )
    return ChargeUpdate(
        merchant_charge_id=MCID,
        charge_id="ch-1",
        status=ChargeStatus(step.charge),
        amount=AMOUNT,
        refunded_amount=step.refunded,
        transactions=[txn],
        occurred_at=at,
        received_at=T0,
        source=source,
    )


def fold(updates: list[ChargeUpdate]) -> sm.ChargeState:
    state, _ = sm.fold(updates)
    assert state is not None
    return state


@st.composite
def lifecycles(draw: st.DrawFn) -> tuple[str, list[Step], QrPhase]:
    """A QR's real life at the service, under one of the variants the evidence leaves open."""
    kind = draw(st.sampled_from(["WALLET", "PIX"]))
    unpaid = draw(st.sampled_from(["PENDING", "PRE_AUTHORIZED"]))
    steps = [Step("PRE_AUTHORIZED", unpaid)]
    ending = draw(st.sampled_from(["paid", "expired", "cancelled"]))
    # A payment the customer's app sent just before the QR ended may still land after it.
    late = ending != "paid" and draw(st.booleans())
    if ending == "expired":
        charge, txn = draw(
            st.sampled_from(
                [("CANCELED", "EXPIRED"), ("PRE_AUTHORIZED", "EXPIRED"), ("CANCELED", "CANCELED")]
            )
        )
        steps.append(Step(charge, txn))
        if not late:
            return kind, steps, QrPhase.EXPIRED if txn == "EXPIRED" else QrPhase.CANCELED
    if ending == "cancelled":
        steps.append(Step("CANCELED", "CANCELED"))
        if not late:
            return kind, steps, QrPhase.CANCELED
    paid = ("AUTHORIZED", "CAPTURED") if kind == "WALLET" else ("PAID", "PAID")
    if kind == "WALLET" and draw(st.booleans()):
        paid = ("PAID", "PAID")
    steps.append(Step(*paid))
    partial_status = draw(st.sampled_from(["PARTIAL", paid[0]]))
    refunded = 0
    for part in draw(st.lists(st.integers(min_value=1, max_value=1500), max_size=3)):
        refunded += part
        steps.append(Step(partial_status, "PARTIALLY_REFUNDED", refunded))
    phase = QrPhase.PARTIALLY_REFUNDED if refunded else QrPhase.PAID
    if draw(st.booleans()):
        steps.append(Step("REFUNDED", "REFUNDED", AMOUNT))
        phase = QrPhase.REFUNDED
    return kind, steps, phase


def deliveries(kind: str, steps: list[Step], rng: random.Random, clocks: str) -> list[ChargeUpdate]:
    """Each step as a reply or a notification, some duplicated, with the given clock habits."""
    out = []
    for index, step in enumerate(steps):
        real = T0 + timedelta(seconds=30 * index)
        for _ in range(rng.choice([1, 1, 2, 3])):
            source = rng.choice(["webhook", "reply", "reconciliation"])
            if clocks == "none":
                at = None
            elif clocks == "naive-brt" and source == "webhook":
                at = real + BRT_SHIFT
            else:
                at = real
            out.append(qr_update(kind, step, at=at, source=source))
    return out


@settings(max_examples=300, deadline=None)
@given(
    lifecycles(), st.randoms(use_true_random=False), st.sampled_from(["real", "naive-brt", "none"])
)
def test_any_order_and_duplication_of_qr_inputs_ends_in_the_services_state(
    life: tuple[str, list[Step], QrPhase], rng: random.Random, clocks: str
) -> None:
    kind, steps, expected = life
    updates = deliveries(kind, steps, rng, clocks)
    in_order = fold(updates)
    shuffled = list(updates)
    rng.shuffle(shuffled)
    state = fold(shuffled)
    assert qr_phase(state) == expected
    assert qr_phase(in_order) == expected
    assert state.refunded_amount == steps[-1].refunded
    assert effective_status(state) == effective_status(in_order)
    # On the way, once paid (or gone) it never reads as waiting again.
    current: sm.ChargeState | None = None
    left_waiting = False
    for item in shuffled:
        current = sm.merge(current, item).state
        phase = qr_phase(current)
        if phase != QrPhase.AWAITING:
            left_waiting = True
        assert not (left_waiting and phase == QrPhase.AWAITING)
        if expected in (QrPhase.EXPIRED, QrPhase.CANCELED):
            assert phase != QrPhase.PAID


def test_a_payment_the_service_reports_after_an_expiry_or_a_cancel_is_paid() -> None:
    for gone in (
        Step("CANCELED", "CANCELED"),
        Step("CANCELED", "EXPIRED"),
        Step("PRE_AUTHORIZED", "EXPIRED"),
    ):
        for kind, paid in (
            ("PIX", Step("PAID", "PAID")),
            ("WALLET", Step("AUTHORIZED", "CAPTURED")),
        ):
            ended = fold(
                [
                    qr_update(kind, Step("PRE_AUTHORIZED", "PENDING"), at=T0, source="reply"),
                    qr_update(kind, gone, at=T0 + timedelta(seconds=30), source="webhook"),
                ]
            )
            assert qr_phase(ended) in (QrPhase.EXPIRED, QrPhase.CANCELED)
            late = sm.merge(
                ended,
                qr_update(kind, paid, at=T0 + timedelta(seconds=40), source="reconciliation"),
            )
            assert late.entry.outcome == sm.Outcome.APPLIED, (kind, gone)
            assert qr_phase(late.state) == QrPhase.PAID, (kind, gone)
            assert effective_status(late.state) == ChargeStatus.PAID
            # The end notified again afterwards (a retry) does not hide the money.
            again = sm.merge(
                late.state, qr_update(kind, gone, at=T0 + timedelta(seconds=50), source="webhook")
            )
            assert qr_phase(again.state) == QrPhase.PAID


def test_a_card_cancelled_after_payment_stays_cancelled() -> None:
    """The QR order is a QR's alone: a card's cancellation still comes after its payment."""
    card = [
        ChargeUpdate(
            merchant_charge_id=MCID,
            charge_id="ch-1",
            status=ChargeStatus(status),
            amount=AMOUNT,
            refunded_amount=0,
            transactions=[
                TransactionInfo.model_validate(
                    {
                        "transactionId": "tx-1",
                        "paymentType": "CREDIT",
                        "transactionStatus": txn,
                        "amount": AMOUNT,
                    }
                )
            ],
            occurred_at=None,
            received_at=T0,
            source="reconciliation",
        )
        for status, txn in (("PAID", "PAID"), ("CANCELED", "CANCELED"))
    ]
    assert fold(card).status == ChargeStatus.CANCELED
    assert fold(list(reversed(card))).status == ChargeStatus.CANCELED


def test_a_paid_wallet_is_paid_by_its_transaction_not_its_charge_status() -> None:
    waiting = fold([qr_update("WALLET", Step("PRE_AUTHORIZED", "PENDING"), at=T0, source="reply")])
    assert qr_phase(waiting) == QrPhase.AWAITING
    assert effective_status(waiting) == ChargeStatus.PRE_AUTHORIZED
    paid = fold(
        [
            qr_update("WALLET", Step("PRE_AUTHORIZED", "PENDING"), at=T0, source="reply"),
            # The notification's clock reads three hours early (no offset, Brasília time).
            qr_update(
                "WALLET",
                Step("AUTHORIZED", "CAPTURED"),
                at=T0 + timedelta(seconds=20) + BRT_SHIFT,
                source="webhook",
            ),
        ]
    )
    assert paid.status == ChargeStatus.AUTHORIZED
    assert qr_phase(paid) == QrPhase.PAID
    assert Figures.of(paid).status == ChargeStatus.PAID
    stale = sm.merge(
        paid, qr_update("WALLET", Step("PRE_AUTHORIZED", "PENDING"), at=T0, source="webhook")
    )
    assert stale.entry.outcome == sm.Outcome.IGNORED
    assert qr_phase(stale.state) == QrPhase.PAID


def test_an_expired_qr_whose_charge_stays_pre_authorized_frees_the_sale() -> None:
    gone = fold(
        [
            qr_update("PIX", Step("PRE_AUTHORIZED", "PENDING"), at=T0, source="reply"),
            qr_update(
                "PIX",
                Step("PRE_AUTHORIZED", "EXPIRED"),
                at=T0 + timedelta(minutes=10),
                source="webhook",
            ),
        ]
    )
    assert gone.status == ChargeStatus.PRE_AUTHORIZED
    assert qr_phase(gone) == QrPhase.EXPIRED
    assert effective_status(gone) == ChargeStatus.CANCELED
    assert not holds_sale(gone, T0)


def test_a_pix_expiry_is_counted_from_creation_and_holds_the_sale_only_until_then() -> None:
    reply = fold([qr_update("PIX", Step("PRE_AUTHORIZED", "PENDING"), at=T0, source="reply")])
    assert sm.ChargeState.from_json(reply.to_json()) == reply
    pix = with_expiry(reply, 600)
    deadline = T0 + timedelta(seconds=600)
    assert pix.transactions[0].expires_at == deadline
    assert sm.ChargeState.from_json(pix.to_json()) == pix
    assert holds_sale(pix, deadline - timedelta(seconds=1))
    assert holds_sale(pix, deadline + EXPIRY_GRACE - timedelta(seconds=1))
    assert not holds_sale(pix, deadline + EXPIRY_GRACE)
    # Asked shortly before the expiry, then shortly after; then on the usual back-off.
    first = qr_schedule(pix, now=T0, backoff=timedelta(hours=1))
    assert first is not None and first[0] == deadline - timedelta(seconds=15)
    assert first[1].code == ReasonCode.CHECK_QR_EXPIRY
    second = qr_schedule(pix, now=first[0], backoff=timedelta(hours=1))
    assert second is not None and second[0] == deadline + timedelta(seconds=10)
    later = qr_schedule(pix, now=second[0], backoff=timedelta(seconds=60))
    assert later is not None and later[1].code == ReasonCode.CHECK_NOT_FINAL
    # Expired: nothing more to ask.
    gone = sm.merge(
        pix, qr_update("PIX", Step("CANCELED", "EXPIRED"), at=deadline, source="webhook")
    ).state
    assert CheckPolicy().schedule(gone, source="webhook", checks=0, now=deadline) == (None, None)


def test_a_card_charge_keeps_its_own_status() -> None:
    card = fold(
        [
            ChargeUpdate(
                merchant_charge_id=MCID,
                charge_id="ch-1",
                status=ChargeStatus.PRE_AUTHORIZED,
                amount=AMOUNT,
                refunded_amount=0,
                transactions=[
                    TransactionInfo.model_validate(
                        {
                            "transactionId": "tx-1",
                            "paymentType": "CREDIT",
                            "transactionStatus": str(TransactionStatus.PRE_AUTHORIZED),
                            "amount": AMOUNT,
                        }
                    )
                ],
                occurred_at=T0,
                source="reply",
            )
        ]
    )
    assert qr_phase(card) is None
    assert effective_status(card) == ChargeStatus.PRE_AUTHORIZED
    assert card.transactions[0].expires_at is None


def test_a_qr_the_service_calls_cancelled_when_its_time_ran_out_is_shown_expired() -> None:
    # Where the service reports an expiry as CANCELED (a variant the sandbox plays), a QR
    # "cancelled" at or after its expiry expired: the clerk, who cancelled nothing, reads so.
    # One cancelled before its expiry was cancelled (by the clerk).
    expiry = T0 + timedelta(minutes=4)  # the helper's wallet expiry
    waiting = qr_update("WALLET", Step("PRE_AUTHORIZED", "PENDING"), at=T0, source="reply")

    def ended(at: datetime | None) -> QrPhase | None:
        gone = qr_update("WALLET", Step("CANCELED", "CANCELED"), at=at, source="webhook")
        return qr_phase(fold([waiting, gone]))

    assert ended(expiry + timedelta(seconds=2)) == QrPhase.EXPIRED
    assert ended(expiry) == QrPhase.EXPIRED
    assert ended(T0 + timedelta(minutes=1)) == QrPhase.CANCELED
    assert ended(None) == QrPhase.CANCELED
    # A QR with no known expiry keeps the service's word.
    later = T0 + timedelta(hours=1)
    no_expiry = fold(
        [
            qr_update("PIX", Step("PRE_AUTHORIZED", "PENDING"), at=T0, source="reply"),
            qr_update("PIX", Step("CANCELED", "CANCELED"), at=later, source="webhook"),
        ]
    )
    assert expires_at(no_expiry) is None
    assert qr_phase(no_expiry) == QrPhase.CANCELED
