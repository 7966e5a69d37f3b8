"""A QR tender in the history, the day's totals, receipts and exports: named as such, counted as
a sale only once paid, never as money held while it waits or after it expired."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from PySide6.QtCore import QLocale

from checkout_desktop.domain.enums import ChargeStatus, PaymentType, TransactionStatus
from checkout_desktop.domain.reasons import Reason, ReasonCode
from checkout_desktop.domain.records import PIX, WALLET, CardSummary, QrSummary, TenderSummary
from checkout_desktop.domain.state import ChargeUpdate
from checkout_desktop.domain.wire import CreditInfo, PixInfo, TransactionInfo, WalletInfo
from checkout_desktop.inbox.export import CSV_COLUMNS, tender_of
from checkout_desktop.store.sqlite import db
from checkout_desktop.store.sqlite.charges import ChargeRepository
from checkout_desktop.store.sqlite.reports import day_totals
from checkout_desktop.ui.day_totals import _brand_rows
from checkout_desktop.ui.formatting import format_money
from checkout_desktop.ui.history_model import cards_text, status_text
from checkout_desktop.ui.qr_texts import late_payment, late_payment_notice, qr_kind_of
from checkout_desktop.ui.receipts import receipt_for, render_html
from checkout_desktop.ui.timeline_text import status_after, what_happened
from tests.ledger_support import SyncLedger

logger = logging.getLogger(__name__)

BRT = timezone(timedelta(hours=-3))
DAY = datetime(2026, 11, 23, 12, tzinfo=BRT)
E2E = "E22896431202611231200abcdefghijk"


@pytest.fixture(autouse=True)
def english() -> Iterator[None]:
    previous = QLocale()
    QLocale.setDefault(QLocale(QLocale.Language.English, QLocale.Country.UnitedStates))
    yield
    QLocale.setDefault(previous)


@pytest.fixture
def repo(tmp_path: Path) -> Iterator[ChargeRepository]:
    conn = db.connect(tmp_path / "store.sqlite3")
    try:
        yield ChargeRepository(conn)
    finally:
        conn.close()


def _charge(
    repo: ChargeRepository,
    mcid: str,
    *,
    kind: str,
    status: ChargeStatus,
    txn_status: TransactionStatus,
    amount: int = 2590,
    refunded: int = 0,
) -> None:
    tender: TenderSummary
    if kind == "card":
        tender = CardSummary("VISA", "1111")
        extra: dict[str, object] = {
            "credit": CreditInfo(brand="VISA", cardNumber="411111******1111")
        }
        payment = PaymentType.CREDIT
    elif kind == PIX:
        tender = QrSummary(PIX, 600)
        extra = {
            "pix": PixInfo(
                qrCode="000201...",
                endToEndId=E2E if refunded or status == ChargeStatus.PAID else None,
            )
        }
        payment = PaymentType.PIX
    else:
        tender = QrSummary(WALLET)
        extra = {"wallet": WalletInfo(qrCode="picpay://picpay/checkout/x")}
        payment = PaymentType.WALLET
    with db.transaction(repo.conn):
        repo.record_attempt(
            merchant_charge_id=mcid,
            sale_id=f"S-{mcid}",
            profile="production",
            amount=amount,
            tenders=[tender],
        )
        SyncLedger(repo).apply_update(
            ChargeUpdate(
                merchant_charge_id=mcid,
                charge_id=f"svc-{mcid}",
                status=status,
                amount=amount,
                refunded_amount=refunded,
                transactions=[
                    TransactionInfo(
                        transactionId=f"t-{mcid}",
                        paymentType=payment,
                        transactionStatus=txn_status,
                        amount=amount,
                        refundedAmount=refunded,
                        **extra,  # type: ignore[arg-type]
                    )
                ],
                occurred_at=DAY,
                source="api",
            ),
            source="reply",
            source_ref=None,
        )
        repo.conn.execute(
            "UPDATE charge SET created_at = :at WHERE merchant_charge_id = :mcid",
            {"at": DAY.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ"), "mcid": mcid},
        )


def test_the_day_counts_a_qr_once_paid_by_its_tender_and_never_as_money_held(
    qapp: object, repo: ChargeRepository
) -> None:
    _charge(
        repo,
        "wallet-paid",
        kind=WALLET,
        status=ChargeStatus.AUTHORIZED,
        txn_status=TransactionStatus.CAPTURED,
    )
    _charge(
        repo,
        "pix-paid",
        kind=PIX,
        status=ChargeStatus.PAID,
        txn_status=TransactionStatus.PAID,
        amount=1000,
    )
    _charge(
        repo,
        "pix-waiting",
        kind=PIX,
        status=ChargeStatus.PRE_AUTHORIZED,
        txn_status=TransactionStatus.PENDING,
    )
    _charge(
        repo,
        "pix-gone",
        kind=PIX,
        status=ChargeStatus.PRE_AUTHORIZED,
        txn_status=TransactionStatus.EXPIRED,
    )
    _charge(
        repo,
        "card-held",
        kind="card",
        status=ChargeStatus.PRE_AUTHORIZED,
        txn_status=TransactionStatus.PRE_AUTHORIZED,
        amount=7000,
    )
    start = DAY.replace(hour=0)
    totals = day_totals(
        repo, start=start, end=start + timedelta(days=1), profile="production", zone=BRT
    )
    assert (totals.sales, totals.gross) == (2, 3590)
    # Only the card's authorization holds money; the waiting and the expired QR hold none.
    assert (totals.held_count, totals.held_amount) == (1, 7000)
    rows = {name: (count, amount) for name, count, amount in _brand_rows(totals)}
    assert rows == {"PicPay": ("1", format_money(2590)), "PIX": ("1", format_money(1000))}


def test_history_names_the_tender_and_the_status_the_qr_means(
    repo: ChargeRepository, qapp: object
) -> None:
    _charge(
        repo,
        "wallet-paid",
        kind=WALLET,
        status=ChargeStatus.AUTHORIZED,
        txn_status=TransactionStatus.CAPTURED,
    )
    _charge(
        repo,
        "pix-waiting",
        kind=PIX,
        status=ChargeStatus.PRE_AUTHORIZED,
        txn_status=TransactionStatus.PENDING,
    )
    paid = repo.charge("wallet-paid")
    waiting = repo.charge("pix-waiting")
    assert paid is not None and waiting is not None
    assert cards_text(paid) == "PicPay"
    assert cards_text(waiting) == "PIX"


def test_a_pix_receipt_shows_its_end_to_end_id_and_a_paid_wallet_reads_paid(
    qapp: object, repo: ChargeRepository
) -> None:
    _charge(repo, "pix-paid", kind=PIX, status=ChargeStatus.PAID, txn_status=TransactionStatus.PAID)
    _charge(
        repo,
        "wallet-paid",
        kind=WALLET,
        status=ChargeStatus.AUTHORIZED,
        txn_status=TransactionStatus.CAPTURED,
    )
    pix = repo.charge("pix-paid")
    wallet = repo.charge("wallet-paid")
    assert pix is not None and wallet is not None
    text = render_html(receipt_for(pix, merchant="Loja", merchant_document=None))
    assert "PIX" in text and E2E in text and "End-to-end id" in text
    assert "Card" not in text and "NSU" not in text and "????" not in text
    wallet_text = render_html(receipt_for(wallet, merchant="Loja", merchant_document=None))
    assert "PicPay wallet" in wallet_text and ">Paid<" in wallet_text
    assert "Authorized" not in wallet_text


def test_an_export_names_each_deliverys_tender() -> None:
    assert "tender" in CSV_COLUMNS
    assert (
        tender_of({"type": "PAYMENT", "data": {"transactions": [{"paymentType": "PIX"}]}}) == "PIX"
    )
    flat = {
        "type": "PAYMENT",
        "transactions": [{"paymentType": "CREDIT"}, {"paymentType": "CREDIT"}],
    }
    assert tender_of(flat) == "CREDIT"
    assert (
        tender_of({"type": "PAYMENT", "data": {"transactions": [{"paymentType": "WALLET"}]}})
        == "WALLET"
    )
    assert tender_of({"type": "THREE_DS_CHALLENGE", "data": {"status": "Approved"}}) is None
    assert tender_of(None) is None
    assert tender_of({"data": {"transactions": "not a list"}}) is None


def test_only_a_qr_paid_after_it_ended_is_called_a_late_payment(qapp: object) -> None:
    def change(kind: str, before: str, after: str) -> Reason:
        return Reason.of(
            ReasonCode.CHANGE_TRANSACTION_STATUS,
            key="t-1",
            previous_status=before,
            status=after,
            payment_type=kind,
        )

    assert late_payment([change("WALLET", "EXPIRED", "CAPTURED")]) == PaymentType.WALLET
    assert late_payment([change("PIX", "CANCELED", "PAID")]) == PaymentType.PIX
    # Paid while it waited, or a card: nothing to say.
    assert late_payment([change("PIX", "PENDING", "PAID")]) is None
    assert late_payment([change("CREDIT", "CANCELED", "PAID")]) is None
    assert late_payment([Reason.of(ReasonCode.CHANGE_AMOUNT, amount=1)]) is None
    notice = late_payment_notice("sale1-02", [change("PIX", "EXPIRED", "PAID")])
    assert notice is not None and "sale1-02" in notice and "PIX" in notice
    assert late_payment_notice("sale1-02", []) is None


def test_a_qrs_status_reads_as_the_clerk_means_it_in_the_history_and_the_timeline(
    repo: ChargeRepository, qapp: object
) -> None:
    # A new QR's charge says PRE_AUTHORIZED, a paid wallet AUTHORIZED and an expired QR
    # CANCELED (or still PRE_AUTHORIZED): the clerk reads awaiting payment, paid, expired.
    _charge(
        repo,
        "pix-waiting",
        kind=PIX,
        status=ChargeStatus.PRE_AUTHORIZED,
        txn_status=TransactionStatus.PENDING,
    )
    _charge(
        repo,
        "pix-expired",
        kind=PIX,
        status=ChargeStatus.PRE_AUTHORIZED,
        txn_status=TransactionStatus.PENDING,
    )
    with db.transaction(repo.conn):
        ledger = SyncLedger(repo)
        for status in (ChargeStatus.PRE_AUTHORIZED, ChargeStatus.CANCELED):
            txn = TransactionStatus.PENDING if status == "PRE_AUTHORIZED" else "EXPIRED"
            ledger.apply_update(
                ChargeUpdate(
                    merchant_charge_id="pix-expired",
                    charge_id="svc-pix-expired",
                    status=status,
                    amount=2590,
                    refunded_amount=0,
                    transactions=[
                        TransactionInfo(
                            transactionId="t-pix-expired",
                            paymentType=PaymentType.PIX,
                            transactionStatus=TransactionStatus(txn),
                            amount=2590,
                        )
                    ],
                    occurred_at=DAY + timedelta(minutes=11),
                    source="webhook",
                ),
                source="webhook",
                source_ref=None,
            )
    _charge(
        repo,
        "wallet-paid",
        kind=WALLET,
        status=ChargeStatus.AUTHORIZED,
        txn_status=TransactionStatus.CAPTURED,
    )
    _charge(
        repo,
        "card-held",
        kind="card",
        status=ChargeStatus.PRE_AUTHORIZED,
        txn_status=TransactionStatus.PRE_AUTHORIZED,
    )

    def history(mcid: str) -> str:
        record = repo.charge(mcid)
        assert record is not None
        return status_text(record)

    assert history("pix-waiting") == "Awaiting payment"
    assert history("pix-expired") == "Expired"
    assert history("wallet-paid") == "Paid"
    assert history("card-held") == "Pre-authorized"

    def timeline(mcid: str) -> list[tuple[str, str]]:
        items = repo.timeline(mcid).items
        kind = qr_kind_of(items)
        return [(what_happened(i, qr=kind), status_after(i, qr=kind)) for i in items]

    waiting = timeline("pix-waiting")
    assert ("The PIX QR was created; it awaits the customer's payment.", "Awaiting payment") in (
        waiting
    )
    expired = timeline("pix-expired")
    assert ("Nothing new: the charge was already Awaiting payment.", "") in expired
    assert expired[-1] == ("The PIX QR expired unpaid.", "Expired")
    assert ("The customer paid the PicPay QR.", "Paid") in timeline("wallet-paid")
    assert not any("Pre-authorized" in what + after for what, after in waiting + expired), (
        waiting + expired
    )
    # A card keeps its own words.
    assert qr_kind_of(repo.timeline("card-held").items) is None
    assert ("The charge is Pre-authorized.", "Pre-authorized") in timeline("card-held")
