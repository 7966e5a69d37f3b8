"""Sale and refund receipts: rendered as HTML, printed or saved as PDF by Qt's print support.

A printed or saved receipt carries two copies, the customer's and the shop's, one below the
other with a cut line between (as a card machine prints them); the screen previews the
customer's. A receipt of the built-in sandbox says it is a test and names no CNPJ.
"""

from __future__ import annotations

import html
import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QMarginsF, QSizeF, QStandardPaths, QUrl
from PySide6.QtGui import (
    QDesktopServices,
    QFontDatabase,
    QPageLayout,
    QPageSize,
    QTextDocument,
)
from PySide6.QtPrintSupport import QPrintDialog, QPrinter
from PySide6.QtWidgets import QDialog, QMessageBox, QWidget

from checkout_desktop.domain import documents
from checkout_desktop.domain.enums import ChargeStatus
from checkout_desktop.domain.money_ops import MoneyOpKind, MoneyOpState
from checkout_desktop.domain.records import ChargeRecord, MoneyOpRecord
from checkout_desktop.domain.shown_status import money_status
from checkout_desktop.ui.charge_form import installments_text
from checkout_desktop.ui.formatting import format_instant, format_money
from checkout_desktop.ui.labels import status_label

logger = logging.getLogger(__name__)

RECEIPT_WIDTH_MM = 80.0
"""A till roll's width; the same layout reads well on A4 PDF too."""


class ReceiptKind(StrEnum):
    SALE = "sale"
    REFUND = "refund"


class ReceiptCopy(StrEnum):
    CUSTOMER = "customer"
    MERCHANT = "merchant"


@dataclass(frozen=True)
class ReceiptCard:
    brand: str | None
    last_four: str | None
    amount: int | None
    installments: int | None
    authorization_code: str | None
    nsu: str | None
    payment_type: str | None = None
    end_to_end_id: str | None = None
    """A paid PIX's end-to-end id (the payer's bank shows the same)."""
    transaction_id: str | None = None


@dataclass(frozen=True)
class Receipt:
    """What a receipt may show: never more of a card than its brand and last four digits."""

    kind: ReceiptKind
    merchant: str
    merchant_document: str | None
    merchant_charge_id: str
    status: str | None
    amount: int | None
    at: datetime
    cards: tuple[ReceiptCard, ...] = field(default_factory=tuple)
    refunded_amount: int | None = None
    this_refund: int | None = None
    test_mode: bool = False
    """A charge of the built-in sandbox: no money moved, and no real shop's CNPJ is printed."""


@dataclass(frozen=True)
class RefundOnReceipt:
    """The refund a refund receipt is of, as the store recorded it."""

    amount: int | None
    """What this refund gave back; None when the terminal holds no record of the refund itself
    (made elsewhere, say): the receipt then states only the total."""
    total: int
    """What had gone back in total once this refund was done."""
    at: datetime


def refunds_on_receipts(
    record: ChargeRecord, operations: Iterable[MoneyOpRecord], *, cancels: bool = True
) -> list[RefundOnReceipt]:
    """The refunds of a charge a receipt can be had of, newest first: each confirmed refund
    the terminal made (and each confirmed cancel, unless `cancels` is False: a QR cancelled
    before it was paid moved no money), and, where the service's total says more went back than
    those, one for that total alone."""
    kinds = {MoneyOpKind.REFUND, MoneyOpKind.CANCEL} if cancels else {MoneyOpKind.REFUND}
    found = [
        RefundOnReceipt(
            amount=op.amount,
            total=op.amount if op.kind == MoneyOpKind.CANCEL else op.base.refunded + op.amount,
            at=op.resolved_at or op.updated_at,
        )
        for op in operations
        if op.kind in kinds and op.state == MoneyOpState.CONFIRMED
    ]
    found.reverse()
    refunded = record.refunded_amount or 0
    if refunded > (found[0].total if found else 0):
        found.insert(0, RefundOnReceipt(amount=None, total=refunded, at=record.updated_at))
    return found


def receipt_for(
    record: ChargeRecord,
    *,
    merchant: str,
    merchant_document: str | None,
    kind: ReceiptKind = ReceiptKind.SALE,
    this_refund: int | None = None,
    at: datetime | None = None,
    test_mode: bool = False,
    refund: RefundOnReceipt | None = None,
) -> Receipt:
    """The receipt of a stored charge (its cards come from the charge's merged state); with
    `refund`, the receipt of that refund."""
    refunded_amount = record.refunded_amount
    if refund is not None:
        kind, this_refund, at, refunded_amount = (
            ReceiptKind.REFUND,
            refund.amount,
            refund.at,
            refund.total,
        )
    cards = tuple(
        ReceiptCard(
            brand=txn.brand,
            last_four=txn.last_four,
            amount=txn.amount,
            installments=txn.installments,
            authorization_code=txn.authorization_code,
            nsu=txn.nsu,
            payment_type=None if txn.payment_type is None else str(txn.payment_type),
            end_to_end_id=txn.end_to_end_id,
            transaction_id=txn.transaction_id,
        )
        for txn in record.state.transactions
    )
    # What the money did: a QR's as its transaction means (a paid wallet says AUTHORIZED), a
    # partial refund as one whether or not the service keeps saying PAID.
    status = money_status(record.state)
    when = at or (record.updated_at if kind == ReceiptKind.REFUND else record.created_at)
    return Receipt(
        kind=kind,
        merchant=merchant,
        merchant_document=merchant_document,
        merchant_charge_id=record.merchant_charge_id,
        status=None if status is None else str(status),
        amount=record.amount,
        at=when,
        cards=cards,
        refunded_amount=refunded_amount,
        this_refund=this_refund,
        test_mode=test_mode,
    )


def _document(text: str | None) -> str | None:
    if not text:
        return None
    try:
        return documents.format_cnpj(text)
    except documents.DocumentError:
        return text


def _payment_label(payment_type: str | None) -> str | None:
    if payment_type is None:
        return None
    if payment_type.upper() == "CREDIT":
        return QCoreApplication.translate("Receipt", "Credit")
    if payment_type.upper() == "WALLET":
        return QCoreApplication.translate("Receipt", "PicPay wallet")
    if payment_type.upper() == "PIX":
        return QCoreApplication.translate("Receipt", "PIX")
    return payment_type


def _copy_label(copy: ReceiptCopy) -> str:
    if copy == ReceiptCopy.CUSTOMER:
        return QCoreApplication.translate("Receipt", "CUSTOMER COPY")
    return QCoreApplication.translate("Receipt", "MERCHANT COPY")


def render_copies_html(receipt: Receipt) -> str:
    """Both copies, the customer's first, with a cut line between: what is printed or saved."""
    cut = QCoreApplication.translate("Receipt", "cut here")
    return (
        render_html(receipt, copy=ReceiptCopy.CUSTOMER)
        + f'<p align="center">- - - - ✂ {html.escape(cut)} - - - -</p>'
        + render_html(receipt, copy=ReceiptCopy.MERCHANT)
    )


def render_html(receipt: Receipt, *, copy: ReceiptCopy | None = None) -> str:
    """One copy of the receipt as simple HTML (QTextDocument's subset), every value escaped."""
    e = html.escape
    held = receipt.kind == ReceiptKind.SALE and receipt.status == ChargeStatus.PRE_AUTHORIZED
    if receipt.kind == ReceiptKind.REFUND:
        title = QCoreApplication.translate("Receipt", "REFUND RECEIPT")
    elif held:
        # Not a sale yet: the amount is only held on the card until it is captured.
        title = QCoreApplication.translate("Receipt", "PRE-AUTHORIZATION RECEIPT")
    else:
        title = QCoreApplication.translate("Receipt", "SALE RECEIPT")
    rows: list[tuple[str, str]] = []
    rows.append((QCoreApplication.translate("Receipt", "Date"), format_instant(receipt.at)))
    rows.append((QCoreApplication.translate("Receipt", "Charge"), receipt.merchant_charge_id))
    if receipt.kind == ReceiptKind.REFUND:
        rows.append(
            (QCoreApplication.translate("Receipt", "Original amount"), format_money(receipt.amount))
        )
        if receipt.this_refund is not None:
            rows.append(
                (
                    QCoreApplication.translate("Receipt", "Refunded now"),
                    format_money(receipt.this_refund),
                )
            )
        rows.append(
            (
                QCoreApplication.translate("Receipt", "Refunded in total"),
                format_money(receipt.refunded_amount or 0),
            )
        )
    else:
        rows.append((QCoreApplication.translate("Receipt", "Amount"), format_money(receipt.amount)))
        if receipt.refunded_amount:
            # A sale receipt printed after a refund says what went back so far.
            rows.append(
                (
                    QCoreApplication.translate("Receipt", "Refunded so far"),
                    format_money(receipt.refunded_amount),
                )
            )
    rows.append((QCoreApplication.translate("Receipt", "Status"), status_label(receipt.status)))
    card_blocks = []
    for card in receipt.cards:
        if (card.payment_type or "").upper() in ("PIX", "WALLET"):
            card_blocks.append(_qr_lines(card, several=len(receipt.cards) > 1))
            continue
        lines = [
            (
                QCoreApplication.translate("Receipt", "Card"),
                f"{card.brand or ''} •••• {card.last_four or '????'}".strip(),
            ),
        ]
        payment = _payment_label(card.payment_type)
        if payment is not None:
            lines.append((QCoreApplication.translate("Receipt", "Payment"), payment))
        if card.amount is not None and len(receipt.cards) > 1:
            lines.append(
                (QCoreApplication.translate("Receipt", "On this card"), format_money(card.amount))
            )
        count = card.installments or 1
        if count > 1 and card.amount is not None:
            lines.append(
                (
                    QCoreApplication.translate("Receipt", "Installments"),
                    # The narrow paper wraps between "1 × R$ 86,64" and "2 × R$ 86,63", never
                    # inside one of them.
                    " + ".join(
                        part.replace(" ", "\u00a0")
                        for part in installments_text(card.amount, count).split(" + ")
                    ),
                )
            )
        else:
            lines.append(
                (
                    QCoreApplication.translate("Receipt", "Installments"),
                    QCoreApplication.translate("Receipt", "single payment"),
                )
            )
        lines.append(
            (QCoreApplication.translate("Receipt", "Authorization"), card.authorization_code or "—")
        )
        lines.append((QCoreApplication.translate("Receipt", "NSU"), card.nsu or "—"))
        card_blocks.append(lines)

    def table(items: list[tuple[str, str]]) -> str:
        return (
            '<table width="100%" cellspacing="0" cellpadding="1">'
            + "".join(
                f'<tr><td style="white-space: nowrap;">{e(label)}</td>'
                f'<td align="right"><b>{e(value)}</b></td></tr>'
                for label, value in items
            )
            + "</table>"
        )

    merchant_doc = None if receipt.test_mode else _document(receipt.merchant_document)
    test_line = QCoreApplication.translate("Receipt", "TEST — NO MONEY WAS MOVED")
    parts = [
        "<div>",
        f'<p align="center"><b>{e(receipt.merchant)}</b>',
        f"<br/>CNPJ {e(merchant_doc)}" if merchant_doc else "",
        "</p>",
        f'<p align="center"><b>{e(test_line)}</b></p>' if receipt.test_mode else "",
        f'<p align="center"><b>{e(title)}</b>',
        f"<br/>{e(_copy_label(copy))}" if copy is not None else "",
        "</p>",
        table(rows),
    ]
    for block in card_blocks:
        parts.append("<hr/>")
        parts.append(table(block))
    parts.append("<hr/>")
    # Translated outside the f-string: lupdate does not look inside f-string expressions.
    if held:
        note = QCoreApplication.translate(
            "Receipt", "The amount is held on the card, not charged yet."
        )
        parts.append(f'<p align="center">{e(note)}</p>')
    keep = QCoreApplication.translate("Receipt", "Keep this receipt.")
    parts.append(f'<p align="center">{e(keep)}</p>')
    parts.append("</div>")
    return "".join(parts)


def _qr_lines(card: ReceiptCard, *, several: bool) -> list[tuple[str, str]]:
    """A wallet or PIX payment on a receipt: how it was paid and the ids that trace it."""
    lines = [
        (QCoreApplication.translate("Receipt", "Payment"), _payment_label(card.payment_type) or "")
    ]
    if several and card.amount is not None:
        lines.append((QCoreApplication.translate("Receipt", "Amount"), format_money(card.amount)))
    if card.end_to_end_id:
        lines.append((QCoreApplication.translate("Receipt", "End-to-end id"), card.end_to_end_id))
    if card.transaction_id:
        lines.append((QCoreApplication.translate("Receipt", "Transaction"), card.transaction_id))
    return lines


def document_for(receipt: Receipt) -> QTextDocument:
    document = QTextDocument()
    font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
    # Sized for a till roll: about 40 characters across 72 mm of printable width.
    font.setPointSizeF(7.5)
    document.setDefaultFont(font)
    document.setHtml(render_copies_html(receipt))
    return document


def _till_layout(printer: QPrinter) -> None:
    # Tall enough for both copies of a two-card sale on one roll "page".
    size = QPageSize(QSizeF(RECEIPT_WIDTH_MM, 320.0), QPageSize.Unit.Millimeter, "receipt")
    printer.setPageLayout(
        QPageLayout(
            size,
            QPageLayout.Orientation.Portrait,
            QMarginsF(4, 4, 4, 4),
            QPageLayout.Unit.Millimeter,
        )
    )


def save_pdf(receipt: Receipt, path: Path) -> Path:
    """Write the receipt as a PDF file at `path`."""
    printer = QPrinter(QPrinter.PrinterMode.HighResolution)
    printer.setOutputFormat(QPrinter.OutputFormat.PdfFormat)
    printer.setOutputFileName(str(path))
    printer.setDocName(receipt_job_name(receipt))
    _till_layout(printer)
    _print(document_for(receipt), printer)
    if not path.exists() or path.stat().st_size == 0:
        raise OSError(f"the receipt PDF could not be written to {path}")
    logger.info("saved the %s receipt of %s", receipt.kind.value, receipt.merchant_charge_id)
    return path


def print_with_dialog(receipt: Receipt, parent: QWidget | None = None) -> bool:
    """Let the user pick a printer (or PDF) and print; False when cancelled."""
    printer = QPrinter(QPrinter.PrinterMode.HighResolution)
    printer.setDocName(receipt_job_name(receipt))
    dialog = QPrintDialog(printer, parent)
    dialog.setWindowTitle(QCoreApplication.translate("Receipt", "Print receipt"))
    if dialog.exec() != QDialog.DialogCode.Accepted:
        return False
    _print(document_for(receipt), printer)
    return True


def _print(document: QTextDocument, printer: QPrinter) -> None:
    # Without a page size of its own, QTextDocument.print_ adds 2 cm margins and a page
    # number, which leaves a till roll a third of its width; laying the document out on the
    # printer's paintable area in points uses the whole roll.
    area = printer.pageLayout().paintRect(QPageLayout.Unit.Point)
    document.setDocumentMargin(0)
    document.setPageSize(QSizeF(area.width(), area.height()))
    document.print_(printer)


_UNSAFE_IN_NAME = re.compile(r"[^A-Za-z0-9._-]")


def receipt_file_name(receipt: Receipt) -> str:
    """The file name the save dialog suggests for a receipt, in the terminal's language."""
    if receipt.kind == ReceiptKind.REFUND:
        template = QCoreApplication.translate("Receipt", "receipt-{id}-refund.pdf")
    else:
        template = QCoreApplication.translate("Receipt", "receipt-{id}-sale.pdf")
    # The id is ours or the service's: nothing in it may name another folder.
    return template.format(id=_UNSAFE_IN_NAME.sub("-", receipt.merchant_charge_id))


def receipt_job_name(receipt: Receipt) -> str:
    """The name the print queue shows (and a PDF's title): the suggested file's, without
    its extension."""
    return receipt_file_name(receipt).removesuffix(".pdf")


def receipts_folder(last_used: str | None) -> Path:
    """Where the save dialog opens: the folder last used, else the user's Documents, else home."""
    if last_used:
        folder = Path(last_used)
        if folder.is_dir():
            return folder
    documents_dir = QStandardPaths.writableLocation(
        QStandardPaths.StandardLocation.DocumentsLocation
    )
    if documents_dir and Path(documents_dir).is_dir():
        return Path(documents_dir)
    return Path.home()


def confirm_saved(
    path: Path, parent: QWidget | None = None, *, report: bool = False
) -> QMessageBox:
    """A non-blocking note that a receipt (or report) was saved, with a button to its folder."""
    box = QMessageBox(parent)
    box.setObjectName("receiptSaved")
    box.setIcon(QMessageBox.Icon.Information)
    if report:
        box.setWindowTitle(QCoreApplication.translate("Receipt", "Report saved"))
        text = QCoreApplication.translate("Receipt", "The report was saved as {name}.")
    else:
        box.setWindowTitle(QCoreApplication.translate("Receipt", "Receipt saved"))
        text = QCoreApplication.translate("Receipt", "The receipt was saved as {name}.")
    box.setText(text.format(name=path.name))
    box.setInformativeText(str(path.parent))
    open_folder = box.addButton(
        QCoreApplication.translate("Receipt", "Open folder"), QMessageBox.ButtonRole.ActionRole
    )
    open_folder.setObjectName("openReceiptFolder")
    box.addButton(QMessageBox.StandardButton.Ok)
    open_folder.clicked.connect(
        lambda: QDesktopServices.openUrl(QUrl.fromLocalFile(str(path.parent)))
    )
    box.open()
    return box
