"""Receipts as a shop hands them out: two copies, the payment line, test receipts, saving."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from PySide6.QtCore import QLocale
from PySide6.QtWidgets import QApplication, QMessageBox, QPushButton
from pytestqt.qtbot import QtBot

from checkout_desktop.ui.receipts import (
    Receipt,
    ReceiptCard,
    ReceiptCopy,
    ReceiptKind,
    confirm_saved,
    receipts_folder,
    render_html,
    save_pdf,
)
from tests.gui.pseudo import in_portuguese
from tests.gui.test_ui_receipts import pdf_text


@pytest.fixture(autouse=True)
def pt_br() -> Iterator[None]:
    previous = QLocale()
    QLocale.setDefault(QLocale(QLocale.Language.Portuguese, QLocale.Country.Brazil))
    yield
    QLocale.setDefault(previous)


def _receipt(*, test_mode: bool = False, installments: int = 3) -> Receipt:
    return Receipt(
        kind=ReceiptKind.SALE,
        merchant="Padaria Central",
        merchant_document="11222333000181",
        merchant_charge_id="sale-000001",
        status="PAID",
        amount=30000,
        at=datetime(2026, 11, 23, 15, 0, tzinfo=UTC),
        cards=(
            ReceiptCard(
                brand="VISA",
                last_four="1111",
                amount=30000,
                installments=installments,
                authorization_code="A1",
                nsu="9",
                payment_type="CREDIT",
            ),
        ),
        test_mode=test_mode,
    )


def test_a_saved_receipt_has_the_customer_and_the_merchant_copy(
    qapp: object, tmp_path: Path
) -> None:
    text = pdf_text(save_pdf(_receipt(), tmp_path / "sale.pdf"))
    assert text.count("SALE RECEIPT") == 2
    customer, merchant = text.index("CUSTOMER COPY"), text.index("MERCHANT COPY")
    assert customer < text.index("cut here") < merchant
    assert text.count("11.222.333/0001-81") == 2
    assert "Credit" in text
    assert "3 × R$ 100,00" in text


def test_one_copy_is_rendered_for_the_screen(qapp: object) -> None:
    html = render_html(_receipt(), copy=ReceiptCopy.CUSTOMER)
    assert "CUSTOMER COPY" in html
    assert "MERCHANT COPY" not in html
    assert "COPY" not in render_html(_receipt())


def test_a_sandbox_receipt_says_test_and_prints_no_cnpj(qapp: object, tmp_path: Path) -> None:
    text = pdf_text(save_pdf(_receipt(test_mode=True), tmp_path / "test.pdf"))
    assert text.count("TEST — NO MONEY WAS MOVED") == 2
    assert "CNPJ" not in text
    assert "11.222.333/0001-81" not in text


def test_the_save_dialog_opens_in_the_last_folder_then_documents(tmp_path: Path) -> None:
    last = tmp_path / "recibos"
    last.mkdir()
    assert receipts_folder(str(last)) == last
    fallback = receipts_folder(str(tmp_path / "gone"))
    assert fallback != tmp_path / "gone"
    assert fallback.is_dir()
    assert receipts_folder(None) == fallback


def test_saving_is_confirmed_with_a_button_that_opens_the_folder(
    qtbot: QtBot, tmp_path: Path
) -> None:
    path = tmp_path / "receipt-sale-000001-sale.pdf"
    box = confirm_saved(path)
    qtbot.addWidget(box)
    qtbot.waitExposed(box)
    assert path.name in box.text()
    assert box.informativeText() == str(tmp_path)
    button = box.findChild(QPushButton, "openReceiptFolder")
    assert button is not None
    assert box.buttonRole(button) == QMessageBox.ButtonRole.ActionRole
    box.close()


def test_a_receipts_suggested_file_name_is_in_the_shops_language(qapp: QApplication) -> None:
    from dataclasses import replace

    from checkout_desktop.ui.receipts import receipt_file_name

    sale = _receipt()
    refund = replace(sale, kind=ReceiptKind.REFUND, this_refund=1500, refunded_amount=1500)
    assert receipt_file_name(sale) == "receipt-sale-000001-sale.pdf"
    assert receipt_file_name(refund) == "receipt-sale-000001-refund.pdf"
    with in_portuguese():
        assert receipt_file_name(sale) == "comprovante-sale-000001-venda.pdf"
        assert receipt_file_name(refund) == "comprovante-sale-000001-estorno.pdf"
    # An id is the service's: nothing in it may climb out of the chosen folder.
    odd = replace(sale, merchant_charge_id="../x/y")
    assert "/" not in receipt_file_name(odd)


def test_the_installment_line_adds_up_to_the_card_amount(qapp: object) -> None:
    # R$ 100,00 in 3x: the receipt states the centavo the first installment carries.
    card = dataclasses.replace(_receipt().cards[0], amount=10000, installments=3)
    receipt = dataclasses.replace(_receipt(), amount=10000, cards=(card,))
    html = render_html(receipt, copy=ReceiptCopy.CUSTOMER).replace("\u00a0", " ")
    assert "1 × R$ 33,34 + 2 × R$ 33,33" in html
    assert "3 × R$ 33,33" not in html


def test_a_saved_or_printed_receipt_is_named_in_the_shops_language(
    qapp: QApplication, tmp_path: Path
) -> None:
    """The print queue and the PDF's title show the job's name: the clerk's words, as the
    suggested file's."""
    from checkout_desktop.ui.receipts import receipt_job_name, save_pdf

    sale = _receipt()
    with in_portuguese():
        assert receipt_job_name(sale) == "comprovante-sale-000001-venda"
        path = save_pdf(sale, tmp_path / "x.pdf")
    data = path.read_bytes()
    title = "comprovante-sale-000001-venda"
    encoded = (b"\xfe\xff" + title.encode("utf-16-be")).hex().upper().encode()
    assert title.encode() in data or encoded in data.upper()
    assert b"receipt-" not in data


def test_the_cut_line_fits_on_one_line_of_the_paper_in_portuguese(
    qapp: object, tmp_path: Path
) -> None:
    from tests.gui.pseudo import in_portuguese

    with in_portuguese():
        path = save_pdf(_receipt(), tmp_path / "venda.pdf")
    lines = [line.strip() for line in pdf_text(path).splitlines()]
    (cut,) = [line for line in lines if "corte aqui" in line]
    # It wrapped: "- - - - - - ✂ corte aqui - - - -" and a lone "- -" under it.
    assert cut.startswith("-") and cut.endswith("-"), cut
    assert "- -" not in [line for line in lines if line != cut]


def test_an_uneven_installment_line_wraps_between_its_parts_never_inside_one(
    qapp: object, tmp_path: Path
) -> None:
    # "1 × R$ 86,64 + 2 ×" on one line of the paper and "R$ 86,63" alone on the next.
    card = dataclasses.replace(_receipt().cards[0], amount=25990, installments=3)
    receipt = dataclasses.replace(_receipt(), amount=25990, cards=(card,))
    with in_portuguese():
        path = save_pdf(receipt, tmp_path / "venda.pdf")
    lines = [line.strip() for line in pdf_text(path).splitlines()]
    assert not [line for line in lines if line.endswith("×") or line.startswith("R$ 86,63")]
    parts = [line for line in lines if "× R$" in line]
    assert parts and all(line.count("×") == line.count("R$") for line in parts), parts
