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
from checkout_desktop.domain.records import PIX, WALLET, CardSummary, QrSummary, TenderSummary
from checkout_desktop.domain.state import ChargeUpdate
from checkout_desktop.domain.wire import CreditInfo, PixInfo, TransactionInfo, WalletInfo
from checkout_desktop.inbox.export import CSV_COLUMNS, tender_of
from checkout_desktop.store.sqlite import db
from checkout_desktop.store.sqlite.charges import ChargeRepository
from checkout_desktop.store.sqlite.reports import day_totals
from checkout_desktop.ui.day_totals import _brand_rows
from checkout_desktop.ui.formatting import format_money
from checkout_desktop.ui.history_model import cards_text
from checkout_desktop.ui.receipts import receipt_for, render_html
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
