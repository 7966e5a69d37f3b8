"""Receipts: sale and refund PDFs hold every field a receipt needs, and no more of a card."""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QLocale
from PySide6.QtPdf import QPdfDocument

from checkout_desktop.domain.enums import ChargeStatus
from checkout_desktop.store.sqlite import db
from checkout_desktop.store.sqlite.charges import ChargeRepository
from checkout_desktop.ui.formatting import format_money
from checkout_desktop.ui.receipts import ReceiptKind, receipt_for, render_html, save_pdf
from tests.gui.test_ui_history_model import make_charges, update
from tests.ledger_support import SyncLedger

logger = logging.getLogger(__name__)


@pytest.fixture
def repo(tmp_path: Path) -> Iterator[ChargeRepository]:
    conn: sqlite3.Connection = db.connect(tmp_path / "store.sqlite3")
    try:
        yield ChargeRepository(conn)
    finally:
        conn.close()


@pytest.fixture(autouse=True)
def pt_br() -> Iterator[None]:
    previous = QLocale()
    QLocale.setDefault(QLocale(QLocale.Language.Portuguese, QLocale.Country.Brazil))
    yield
    QLocale.setDefault(previous)


def pdf_text(path: Path) -> str:
    document = QPdfDocument()
    assert document.load(str(path)) == QPdfDocument.Error.None_
    text = "\n".join(document.getAllText(page).text() for page in range(document.pageCount()))
    document.close()
    return text.replace("\u00a0", " ")


def test_sale_receipt_pdf_has_every_field(
    qapp: object, repo: ChargeRepository, tmp_path: Path
) -> None:
    (mcid,) = make_charges(repo, 1)
    record = repo.charge(mcid)
    assert record is not None
    receipt = receipt_for(record, merchant="Padaria Central", merchant_document="11222333000181")
    path = save_pdf(receipt, tmp_path / "sale.pdf")
    assert path.read_bytes().startswith(b"%PDF")
    text = pdf_text(path)
    for expected in (
        "Padaria Central",
        "11.222.333/0001-81",
        "SALE RECEIPT",
        "R$ 15,00",
        "VISA",
        "1111",
        "A1",  # authorization code
        "NSU",
        mcid,
        "single payment",
    ):
        assert expected in text, (expected, text)
    # A receipt shows the last four only: the masked number from the reply never appears.
    assert "411111" not in text


def test_refund_receipt_shows_the_refund(
    qapp: object, repo: ChargeRepository, tmp_path: Path
) -> None:
    (mcid,) = make_charges(repo, 1)
    with db.transaction(repo.conn):
        SyncLedger(repo).apply_update(
            update(mcid, ChargeStatus.REFUNDED, minutes=3, refunded=1500),
            source="reply",
            source_ref=None,
        )
    record = repo.charge(mcid)
    assert record is not None
    receipt = receipt_for(
        record,
        merchant="Padaria Central",
        merchant_document=None,
        kind=ReceiptKind.REFUND,
        this_refund=1500,
    )
    text = pdf_text(save_pdf(receipt, tmp_path / "refund.pdf"))
    assert "REFUND RECEIPT" in text
    assert "Refunded now" in text
    assert "Refunded" in text
    assert "R$ 15,00" in text


@pytest.mark.parametrize("says", [ChargeStatus.PARTIAL, ChargeStatus.PAID])
def test_a_partial_refund_receipt_says_refunded_in_part_whichever_status_the_service_keeps(
    qapp: object, repo: ChargeRepository, says: ChargeStatus
) -> None:
    # The service may keep PAID after a partial refund (a variant the sandbox plays): the
    # customer's refund receipt must not read "Paid" beside the money given back.
    (mcid,) = make_charges(repo, 1)
    with db.transaction(repo.conn):
        SyncLedger(repo).apply_update(
            update(mcid, says, minutes=3, refunded=500), source="reply", source_ref=None
        )
    record = repo.charge(mcid)
    assert record is not None and record.status == says
    receipt = receipt_for(
        record, merchant="Padaria Central", merchant_document=None, kind=ReceiptKind.REFUND
    )
    assert receipt.status == ChargeStatus.PARTIAL.value
    assert "Partially refunded" in render_html(receipt)


def test_values_are_escaped(qapp: object, repo: ChargeRepository) -> None:
    (mcid,) = make_charges(repo, 1)
    record = repo.charge(mcid)
    assert record is not None
    html = render_html(receipt_for(record, merchant="<b>A&B</b>", merchant_document="x"))
    assert "&lt;b&gt;A&amp;B&lt;/b&gt;" in html


def test_a_pre_authorization_is_not_called_a_sale(qapp: object, repo: ChargeRepository) -> None:
    # Held on the card, not charged: its receipt says so, until a capture makes it a sale.
    from dataclasses import replace

    (mcid,) = make_charges(repo, 1)
    record = repo.charge(mcid)
    assert record is not None
    paid = receipt_for(record, merchant="Padaria Central", merchant_document="11222333000181")
    held = render_html(replace(paid, status=ChargeStatus.PRE_AUTHORIZED.value))
    assert "PRE-AUTHORIZATION RECEIPT" in held and "SALE RECEIPT" not in held
    assert "held on the card, not charged yet" in held
    sale = render_html(paid)
    assert "SALE RECEIPT" in sale and "not charged yet" not in sale


def test_a_refund_the_terminal_holds_no_operation_for_is_receipted_by_its_total_alone(
    qapp: object, repo: ChargeRepository
) -> None:
    # Refunded at the service's panel (only its notification told the terminal): what that
    # refund gave back is not known, so the receipt states the total and no "Refunded now".
    from checkout_desktop.ui.receipts import refunds_on_receipts

    (mcid,) = make_charges(repo, 1)
    with db.transaction(repo.conn):
        SyncLedger(repo).apply_update(
            update(mcid, ChargeStatus.PARTIAL, minutes=3, refunded=500),
            source="webhook",
            source_ref=None,
        )
    record = repo.charge(mcid)
    assert record is not None
    (refund,) = refunds_on_receipts(record, repo.money_operations(mcid))
    assert (refund.amount, refund.total) == (None, 500)
    html = render_html(receipt_for(record, merchant="Loja", merchant_document=None, refund=refund))
    assert "REFUND RECEIPT" in html
    assert "Refunded now" not in html
    assert "Refunded in total" in html and format_money(500) in html
