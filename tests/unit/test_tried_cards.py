"""A card the service named without its last four digits is shown as the card the sale was
tried with, when that card is certain."""

from __future__ import annotations

from dataclasses import replace

from checkout_desktop.domain.enums import ChargeStatus, PaymentType, TransactionStatus
from checkout_desktop.domain.records import (
    PIX,
    CardSummary,
    ChargeRecord,
    QrSummary,
    TenderSummary,
    with_tried_cards,
)
from checkout_desktop.domain.state import TransactionState
from tests.gui.record_support import one_transaction_record


def card(key: str, brand: str | None, last_four: str | None, amount: int) -> TransactionState:
    return TransactionState(
        key=key,
        payment_type=PaymentType.CREDIT,
        status=TransactionStatus.PAID,
        amount=amount,
        brand=brand,
        last_four=last_four,
    )


def paid(*txns: TransactionState, tried: tuple[TenderSummary, ...]) -> ChargeRecord:
    record = one_transaction_record(
        status=ChargeStatus.PAID, txn_status=TransactionStatus.PAID, kind=PaymentType.CREDIT
    )
    return replace(record, state=replace(record.state, transactions=txns), attempt_tenders=tried)


def last_fours(record: ChargeRecord) -> list[str | None]:
    return [txn.last_four for txn in record.state.transactions]


def test_the_one_card_tried_names_the_card_the_service_left_unnamed() -> None:
    # A notification without the card's number, its reply lost: the receipt said "VISA •••• ????".
    record = paid(card("t1", "VISA", None, 5990), tried=(CardSummary("VISA", "9995"),))
    assert last_fours(with_tried_cards(record)) == ["9995"]
    # Without a brand from the service, the tried card's brand is shown too.
    record = paid(card("t1", None, None, 5990), tried=(CardSummary("VISA", "9995"),))
    shown = with_tried_cards(record).state.transactions[0]
    assert (shown.brand, shown.last_four) == ("VISA", "9995")


def test_what_the_service_said_is_kept_and_an_uncertain_card_stays_unnamed() -> None:
    said = paid(card("t1", "VISA", "1111", 5990), tried=(CardSummary("VISA", "9995"),))
    assert with_tried_cards(said) is said
    # Two cards of the same brand: which one is which is not known.
    two = paid(
        card("t1", "VISA", None, 3000),
        card("t2", "VISA", None, 2990),
        tried=(CardSummary("VISA", "1111"), CardSummary("VISA", "2222")),
    )
    assert last_fours(with_tried_cards(two)) == [None, None]
    # Of two brands, each is certain.
    mixed = paid(
        card("t1", "VISA", None, 3000),
        card("t2", "MASTERCARD", None, 2990),
        tried=(CardSummary("MASTERCARD", "5454"), CardSummary("VISA", "1111")),
    )
    assert last_fours(with_tried_cards(mixed)) == ["1111", "5454"]
    # Another brand than the one tried: not that card.
    other = paid(card("t1", "ELO", None, 5990), tried=(CardSummary("VISA", "9995"),))
    assert last_fours(with_tried_cards(other)) == [None]
    # Nothing tried (a charge this terminal never made), or a QR tried: nothing to name it by.
    assert last_fours(with_tried_cards(paid(card("t1", "VISA", None, 1), tried=()))) == [None]
    qr = paid(card("t1", "VISA", None, 1), tried=(QrSummary(PIX),))
    assert last_fours(with_tried_cards(qr)) == [None]
