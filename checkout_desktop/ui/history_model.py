"""Models of the charge history (keyset-paged, newest first) and of one charge's timeline."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from PySide6.QtCore import (
    QCoreApplication,
    QModelIndex,
    QObject,
    Qt,
    Signal,
)
from PySide6.QtGui import QBrush, QColor

from checkout_desktop.charges.views import ChargeQuery, ChargeViews, store_problem
from checkout_desktop.domain.documents import DocumentError, format_cnpj, format_cpf
from checkout_desktop.domain.enums import ChargeStatus, PaymentType, ThreeDsStatus
from checkout_desktop.domain.qr_order import is_qr_type
from checkout_desktop.domain.records import (
    CardSummary,
    ChargeRecord,
    Page,
    TimelineRecord,
    with_tried_cards,
)
from checkout_desktop.domain.shown_status import ShownStatus, money_status, shown_status
from checkout_desktop.ui.formatting import format_instant, format_instant_precise, format_money
from checkout_desktop.ui.labels import status_label
from checkout_desktop.ui.loop import read
from checkout_desktop.ui.qr_panel import kind_text
from checkout_desktop.ui.qr_texts import qr_kind_of, qr_status_text
from checkout_desktop.ui.table_model import ModelIndex, ReadOnlyTableModel
from checkout_desktop.ui.timeline_text import plain_detail, status_after, what_happened, who_label

logger = logging.getLogger(__name__)


MERCHANT_CHARGE_ID_ROLE = Qt.ItemDataRole.UserRole + 1
TIMELINE_ID_ROLE = Qt.ItemDataRole.UserRole + 2

_STATUS_COLOURS = {
    "PAID": QColor("#1b6e2a"),
    "AUTHORIZED": QColor("#1b6e2a"),
    "PRE_AUTHORIZED": QColor("#2457a6"),
    "DENIED": QColor("#b3261e"),
    "ERROR": QColor("#b3261e"),
    "REFUNDED": QColor("#7a5c00"),
    "PARTIAL": QColor("#7a5c00"),
    "CANCELED": QColor("#7a5c00"),
    "CHARGEBACK": QColor("#b3261e"),
}


def status_colour(status: str | None) -> QColor | None:
    return None if status is None else _STATUS_COLOURS.get(status)


def format_document(document: str) -> str:
    """A CPF or CNPJ with its usual punctuation; anything else as stored."""
    try:
        if len(document) == 11:
            return format_cpf(document)
        if len(document) == 14:
            return format_cnpj(document)
    except DocumentError:
        pass
    return document


def status_text(record: ChargeRecord) -> str:
    """A charge's status as the history shows it: a QR's as the clerk means it (awaiting payment,
    paid, expired), a card's as the service says it; a sale 3DS ended uncharged says so (and
    whether 3DS refused it). The words of its category (`domain/shown_status.py`), which the
    status filter finds it by."""
    shown = shown_status(record.state, record.attempt_state)
    if shown == ShownStatus.NOT_CHARGED and record.three_ds_status == ThreeDsStatus.REJECTED:
        return _not_charged_texts()[0]
    return shown_status_text(shown)


def shown_status_text(shown: ShownStatus | None) -> str:
    """A shown status in the clerk's words (the history's rows and its status filter)."""
    if shown is None:
        return status_label(None)
    if shown == ShownStatus.AWAITING_PAYMENT:
        return qr_status_text(ChargeStatus.PRE_AUTHORIZED.value)
    if shown == ShownStatus.NOT_CHARGED:
        return _not_charged_texts()[1]
    return status_label(shown.value)


def _not_charged_texts() -> list[str]:
    return [
        QCoreApplication.translate(
            "ChargeHistoryModel", "Not charged — 3DS authentication refused"
        ),
        QCoreApplication.translate("ChargeHistoryModel", "Not charged"),
    ]


def shown_statuses() -> list[str]:
    """Every status the history and the timeline may show (a column is sized to hold each)."""
    return [status_label(s.value) for s in ChargeStatus] + [
        shown_status_text(s) for s in ShownStatus
    ]


def amount_of(record: ChargeRecord) -> int | None:
    """The charge's amount, or its sale's when the row holds none (only a 3DS result)."""
    return record.amount if record.amount is not None else record.sale_amount


def shown_amount(record: ChargeRecord) -> str:
    return format_money(amount_of(record))


def _card_text(brand: str | None, last_four: str | None) -> str:
    tail = f" •••• {last_four}" if last_four else ""
    return f"{brand or ''}{tail}".strip()


def cards_text(record: ChargeRecord) -> str:
    """The charge's cards as a receipt may show them: brand and last four digits; before the
    service told of any (a row holding only a 3DS result), the cards the sale was tried with;
    a card it named without its last four digits, as the card tried where that is certain."""
    record = with_tried_cards(record)
    parts = []
    for txn in record.state.transactions:
        if is_qr_type(txn.payment_type):
            parts.append(kind_text(txn.payment_type))
            continue
        if text := _card_text(txn.brand, txn.last_four):
            parts.append(text)
    if not record.state.transactions:
        for tender in record.attempt_tenders:
            if isinstance(tender, CardSummary) and (
                text := _card_text(tender.brand, tender.last_four)
            ):
                parts.append(text)
    return ", ".join(parts) if parts else "—"


class ChargeHistoryModel(ReadOnlyTableModel):
    """Charges newest first, as searched; more pages on scroll; a changed charge is refreshed
    in place."""

    COLUMNS = (
        "created",
        "charge",
        "amount",
        "status",
        "refunded",
        "cards",
        "customer",
        "three_ds",
        "environment",
    )

    unreadable = Signal(object)
    """A read of the list failed (the exception): the rows shown may not be the search's."""

    def __init__(
        self,
        views: ChargeViews,
        *,
        page_size: int = 100,
        query: ChargeQuery | None = None,
        environment_label: Callable[[str | None], str] | None = None,
        home_profile: str | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        if page_size < 1:
            raise ValueError(f"a page holds at least one row, not {page_size}")
        self._repo = views
        self._page_size = page_size
        self._query = query or ChargeQuery()
        self._environment_label = environment_label or (lambda name: name or "—")
        self._home = home_profile
        self._rows: list[ChargeRecord] = []
        self._cursor: int | None = None
        self._exhausted = False
        self._loading = False
        self._headers = (
            self.tr("Created"),
            self.tr("Charge"),
            self.tr("Amount"),
            self.tr("Status"),
            self.tr("Refunded"),
            # A card's brand and last four, or PIX or PicPay: how the sale was paid.
            self.tr("Payment method"),
            self.tr("Customer"),
            self.tr("3DS"),
            self.tr("Environment"),
        )
        self._load_first_page()

    @property
    def query(self) -> ChargeQuery:
        return self._query

    def _load_first_page(self) -> None:
        """Read the first page; the rows are replaced once it is read."""
        query = self._query
        self._loading = True

        def loaded(page: Page[ChargeRecord]) -> None:
            self._loading = False
            if query != self._query:
                return  # a newer search's page is on its way
            self.beginResetModel()
            self._rows = list(page.items)
            self._cursor = page.next_cursor
            self._exhausted = page.next_cursor is None
            self.endResetModel()

        read(
            self._repo.search(query, limit=self._page_size),
            loaded,
            failed=self._read_failed,
        )

    def _read_failed(self, exc: BaseException) -> None:
        self._loading = False
        if store_problem(exc) is None:
            logger.error("the charge history could not be read", exc_info=exc)
        else:
            logger.warning("the charge history could not be read: %s", exc)
        self.unreadable.emit(exc)

    def set_query(self, query: ChargeQuery) -> None:
        if query == self._query:
            return
        self._query = query
        self.refresh()

    def set_status_filter(self, status: ShownStatus | None) -> None:
        self.set_query(replace(self._query, status=status))

    def refresh(self) -> None:
        self._load_first_page()

    def canFetchMore(self, parent: ModelIndex = QModelIndex()) -> bool:  # noqa: B008
        return not parent.isValid() and not self._exhausted and not self._loading

    def fetchMore(self, parent: ModelIndex = QModelIndex()) -> None:  # noqa: B008
        if parent.isValid() or self._exhausted or self._loading:
            return
        query = self._query
        self._loading = True

        def loaded(page: Page[ChargeRecord]) -> None:
            self._loading = False
            if query != self._query:
                return
            self._cursor = page.next_cursor
            self._exhausted = page.next_cursor is None
            if not page.items:
                return
            first = len(self._rows)
            self.beginInsertRows(QModelIndex(), first, first + len(page.items) - 1)
            self._rows.extend(page.items)
            self.endInsertRows()

        read(
            self._repo.search(query, before=self._cursor, limit=self._page_size),
            loaded,
            failed=self._read_failed,
        )

    def charge_changed(self, merchant_charge_id: str) -> None:
        """Re-read one charge: update its row, drop it when it no longer matches the search,
        or put a new matching charge at the top."""
        query = self._query
        read(
            self._repo.matching_charge(query, merchant_charge_id),
            lambda record: self._show_charge(query, merchant_charge_id, record),
            failed=self._read_failed,
        )

    def _show_charge(
        self, query: ChargeQuery, merchant_charge_id: str, record: ChargeRecord | None
    ) -> None:
        if query != self._query:
            return  # the search changed meanwhile: its first page reads the charge anew
        for row, shown in enumerate(self._rows):
            if shown.merchant_charge_id == merchant_charge_id:
                if record is None:
                    # It no longer matches the search (its status moved on).
                    self.beginRemoveRows(QModelIndex(), row, row)
                    del self._rows[row]
                    self.endRemoveRows()
                    return
                self._rows[row] = record
                self.dataChanged.emit(self.index(row, 0), self.index(row, len(self.COLUMNS) - 1))
                return
        if record is None:
            return
        if self._rows and record.id < self._rows[0].id:
            # An older charge not loaded yet: it appears in its place when paged in.
            return
        self.beginInsertRows(QModelIndex(), 0, 0)
        self._rows.insert(0, record)
        self.endInsertRows()

    def record(self, row: int) -> ChargeRecord | None:
        return self._rows[row] if 0 <= row < len(self._rows) else None

    def row_of(self, merchant_charge_id: str) -> int | None:
        for row, record in enumerate(self._rows):
            if record.merchant_charge_id == merchant_charge_id:
                return row
        return None

    def rowCount(self, parent: ModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._rows)

    def data(self, index: ModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or index.parent().isValid():
            return None
        row, column = index.row(), index.column()
        if not (0 <= row < len(self._rows) and 0 <= column < len(self.COLUMNS)):
            return None
        record = self._rows[row]
        name = self.COLUMNS[column]
        # What the money did: a QR's status as its transaction means (a paid wallet says
        # AUTHORIZED), a partial refund as one whether or not the service keeps PAID.
        shown = money_status(record.state)
        status = None if shown is None else str(shown)
        if role == Qt.ItemDataRole.DisplayRole:
            if name == "created":
                return format_instant(record.created_at)
            if name == "charge":
                return record.merchant_charge_id
            if name == "amount":
                return shown_amount(record)
            if name == "status":
                return status_text(record)
            if name == "refunded":
                return format_money(record.refunded_amount) if record.refunded_amount else ""
            if name == "cards":
                return cards_text(record)
            if name == "customer":
                return record.customer_name or ""
            if name == "environment":
                return self._environment_label(record.profile)
            return status_label(record.three_ds_status) if record.three_ds_status else ""
        if role == Qt.ItemDataRole.TextAlignmentRole and name in ("amount", "refunded"):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ForegroundRole and name == "status":
            colour = status_colour("DENIED" if record.never_charged else status)
            return None if colour is None else QBrush(colour)
        if role == Qt.ItemDataRole.ToolTipRole and name == "status" and record.never_charged:
            # Longer than the column sized for the service's statuses: whole on hover.
            return status_text(record)
        if role == Qt.ItemDataRole.ToolTipRole and name == "charge" and record.charge_id:
            return self.tr("Service id: {id}").format(id=record.charge_id)
        if role == Qt.ItemDataRole.ToolTipRole and name == "customer" and record.customer_document:
            return format_document(record.customer_document)
        if (
            role == Qt.ItemDataRole.ForegroundRole
            and self._query.profile is None
            and self._home is not None
            and record.profile != self._home
        ):
            # Another environment's charge, shown read only: greyed.
            return QBrush(QColor("#6b6b6b"))
        if role == MERCHANT_CHARGE_ID_ROLE:
            return record.merchant_charge_id
        return None


class TimelineModel(ReadOnlyTableModel):
    """Every input about one charge, in the order it was recorded, in plain words."""

    COLUMNS = ("recorded", "source", "what", "status")

    def __init__(
        self, views: ChargeViews, *, page_size: int = 200, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self._repo = views
        self._page_size = page_size
        self._charge: str | None = None
        self._rows: list[TimelineRecord] = []
        self._cursor: int | None = None
        self._exhausted = True
        self._loading = False
        self._qr: PaymentType | None = None
        self._headers = (
            self.tr("When"),
            self.tr("From"),
            self.tr("What happened"),
            self.tr("Status after"),
        )

    @property
    def merchant_charge_id(self) -> str | None:
        return self._charge

    @property
    def qr_kind(self) -> PaymentType | None:
        """The QR tender of the charge shown (its lines say awaiting payment, not
        pre-authorized); None for a card's."""
        return self._qr

    def set_charge(self, merchant_charge_id: str | None) -> None:
        self.beginResetModel()
        self._charge = merchant_charge_id
        self._rows = []
        self._qr = None
        self._cursor = None
        self._exhausted = merchant_charge_id is None
        self.endResetModel()
        if merchant_charge_id is None:
            return
        self._loading = True

        def loaded(page: Page[TimelineRecord]) -> None:
            self._loading = False
            if merchant_charge_id != self._charge:
                return  # another charge was chosen meanwhile
            self.beginResetModel()
            self._rows = list(page.items)
            self._qr = qr_kind_of(self._rows)
            self._cursor = page.next_cursor
            self._exhausted = page.next_cursor is None
            self.endResetModel()

        read(
            self._repo.timeline(merchant_charge_id, limit=self._page_size),
            loaded,
            failed=self._read_failed,
        )

    def _read_failed(self, exc: BaseException) -> None:
        self._loading = False
        logger.error("the charge's timeline could not be read", exc_info=exc)

    def _read_page(self, merchant_charge_id: str, after: int | None) -> None:
        self._loading = True

        def loaded(page: Page[TimelineRecord]) -> None:
            self._loading = False
            if merchant_charge_id == self._charge:
                self._append(page)

        read(
            self._repo.timeline(merchant_charge_id, after=after, limit=self._page_size),
            loaded,
            failed=self._read_failed,
        )

    def canFetchMore(self, parent: ModelIndex = QModelIndex()) -> bool:  # noqa: B008
        return not parent.isValid() and not self._exhausted and not self._loading

    def fetchMore(self, parent: ModelIndex = QModelIndex()) -> None:  # noqa: B008
        if parent.isValid() or self._exhausted or self._loading or self._charge is None:
            return
        self._read_page(self._charge, self._cursor)

    def charge_changed(self, merchant_charge_id: str) -> None:
        """New inputs were recorded for a charge: append them if it is the one shown."""
        if merchant_charge_id != self._charge or not self._exhausted:
            # While older pages are still unloaded, new rows arrive with them on scroll.
            return
        after = self._rows[-1].id if self._rows else None
        self._read_page(merchant_charge_id, after)

    def _append(self, page: Page[TimelineRecord]) -> None:
        items: list[TimelineRecord] = list(page.items)
        self._cursor = page.next_cursor if page.next_cursor is not None else self._cursor
        self._exhausted = page.next_cursor is None
        if items and self._rows:
            known = self._rows[-1].id
            items = [item for item in items if item.id > known]
        if not items:
            return
        first = len(self._rows)
        self.beginInsertRows(QModelIndex(), first, first + len(items) - 1)
        self._rows.extend(items)
        self._qr = self._qr or qr_kind_of(items)
        self.endInsertRows()

    def record(self, row: int) -> TimelineRecord | None:
        return self._rows[row] if 0 <= row < len(self._rows) else None

    def records(self) -> list[TimelineRecord]:
        return list(self._rows)

    def rowCount(self, parent: ModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._rows)

    def data(self, index: ModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or index.parent().isValid():
            return None
        row, column = index.row(), index.column()
        if not (0 <= row < len(self._rows) and 0 <= column < len(self.COLUMNS)):
            return None
        item = self._rows[row]
        name = self.COLUMNS[column]
        if role == Qt.ItemDataRole.DisplayRole:
            if name == "recorded":
                return format_instant(item.recorded_at)
            if name == "source":
                return who_label(item.source)
            if name == "what":
                return what_happened(item, qr=self._qr)
            return status_after(item, qr=self._qr)
        if role == Qt.ItemDataRole.ToolTipRole and name == "what":
            return plain_detail(item, qr=self._qr)
        if role == Qt.ItemDataRole.ToolTipRole and name == "recorded":
            return format_instant_precise(item.recorded_at)
        if role == Qt.ItemDataRole.ForegroundRole and name == "status":
            colour = status_colour(item.new_status)
            return None if colour is None else QBrush(colour)
        if role == TIMELINE_ID_ROLE:
            return item.id
        return None
