"""The "Today" panel: the day's sales, refunds and net, by brand and by hour; printable.

Figures follow the store live (a changed charge refreshes them, coalesced), for the running
environment only, over the shop PC's local day.
"""

from __future__ import annotations

import html
import logging
from collections.abc import Callable, Sequence
from datetime import datetime, time, timedelta, tzinfo
from pathlib import Path

from PySide6.QtCore import QDate, Qt, QTimer
from PySide6.QtGui import QTextDocument
from PySide6.QtPrintSupport import QPrintDialog, QPrinter
from PySide6.QtWidgets import (
    QDateEdit,
    QDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMessageBox,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from checkout_desktop.charges.views import ChargeViews, DayTotals, ReportUnavailable, store_problem
from checkout_desktop.domain.enums import PaymentType
from checkout_desktop.domain.shop_events import SharedStoreReachabilityChanged
from checkout_desktop.ui.adapter import QtEventAdapter
from checkout_desktop.ui.formatting import format_money
from checkout_desktop.ui.loop import read
from checkout_desktop.ui.qr_panel import kind_text
from checkout_desktop.ui.store_texts import show_store_failure

logger = logging.getLogger(__name__)

REFRESH_MS = 500
"""Changes arriving together (a burst of notifications) refresh the figures once."""

ROLL_OVER_CHECK_MS = 3_600_000
"""The day is checked at least this often (a timer set for midnight may fire late after the
computer slept, or its clock was changed)."""


def local_zone() -> tzinfo:
    zone = datetime.now().astimezone().tzinfo
    assert zone is not None
    return zone


def today_in(zone: tzinfo) -> QDate:
    """The date now in `zone`."""
    now = datetime.now(zone)
    return QDate(now.year, now.month, now.day)


def ms_to_next_day(zone: tzinfo) -> int:
    """Milliseconds from now to the next midnight in `zone`."""
    now = datetime.now(zone)
    midnight = datetime.combine(now.date() + timedelta(days=1), time(0), tzinfo=zone)
    return max(0, int((midnight - now).total_seconds() * 1000))


def day_range(day: QDate, zone: tzinfo) -> tuple[datetime, datetime]:
    """The local day `day` as an aware [start, end) range."""
    start = datetime(day.year(), day.month(), day.day(), tzinfo=zone)
    return start, start + timedelta(days=1)


def _brand_rows(totals: DayTotals) -> list[tuple[str, str, str]]:
    """The by-brand table's rows, as shown on screen and printed."""
    return [(_tender_name(b.brand), str(b.count), format_money(b.amount)) for b in totals.by_brand]


def _tender_name(brand: str) -> str:
    """A card's brand as it is; a QR tender (no brand) by its name: PicPay or PIX."""
    if brand in (PaymentType.WALLET.value, PaymentType.PIX.value):
        return kind_text(PaymentType(brand))
    return brand


def _hour_rows(totals: DayTotals) -> list[tuple[str, str, str]]:
    """The by-hour table's rows, as shown on screen and printed."""
    return [
        (f"{hour:02d}h", str(count), format_money(amount))
        for hour, (count, amount) in totals.by_hour.items()
    ]


class DayTotalsPanel(QWidget):
    """Today's totals (or any day's), read from the store for one environment."""

    def __init__(
        self,
        views: ChargeViews,
        *,
        profile: str,
        adapter: QtEventAdapter | None = None,
        zone: tzinfo | None = None,
        report_folder: Callable[[], Path] | None = None,
        today: Callable[[], QDate] | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._views = views
        self._profile = profile
        zone = self._zone = zone or local_zone()
        self._report_folder = report_folder or Path.home
        # The date now, in the zone the day's figures are counted in (a test sets its own).
        self._today_now = today or (lambda: today_in(zone))
        self._today = self._today_now()
        self.totals: DayTotals | None = None
        self._closed = False

        self.day = QDateEdit(self._today, self)
        self.day.setObjectName("totalsDay")
        self.day.setCalendarPopup(True)
        # No day after today: its figures could only read zero.
        self.day.setMaximumDate(self._today)
        self.today_button = QPushButton(self.tr("&Today"), self)
        self.print_button = QPushButton(self.tr("&Print report"), self)
        self.print_button.setObjectName("printTotals")
        self.pdf_button = QPushButton(self.tr("Save report as P&DF"), self)
        self.pdf_button.setObjectName("pdfTotals")
        top = QHBoxLayout()
        top.addWidget(QLabel(self.tr("Day"), self))
        top.addWidget(self.day)
        top.addWidget(self.today_button)
        top.addStretch(1)
        top.addWidget(self.print_button)
        top.addWidget(self.pdf_button)

        self.figures: dict[str, QLabel] = {}
        summary = QGroupBox(self.tr("Summary"), self)
        form = QFormLayout(summary)
        # A clear gap after the longest label ("Autorizadas, não capturadas"), so a figure never
        # reads as the end of its label's phrase.
        form.setHorizontalSpacing(summary.fontMetrics().horizontalAdvance("MM"))
        for key, label in self._figure_labels().items():
            value = QLabel(self)
            value.setObjectName(f"total-{key}")
            self.figures[key] = value
            form.addRow(label, value)
        big = self.figures["net"].font()
        big.setBold(True)
        big.setPointSizeF(big.pointSizeF() * 1.3)
        self.figures["net"].setFont(big)

        self.brands = self._table(
            "totalsByBrand", (self.tr("Brand or tender"), self.tr("Payments"), self.tr("Amount"))
        )
        self.hours = self._table(
            "totalsByHour", (self.tr("Hour"), self.tr("Sales"), self.tr("Amount"))
        )
        tables = QHBoxLayout()
        for title, table in ((self.tr("By brand"), self.brands), (self.tr("By hour"), self.hours)):
            box = QGroupBox(title, self)
            QVBoxLayout(box).addWidget(table)
            tables.addWidget(box, 1)

        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(summary)
        layout.addLayout(tables, 1)

        self._refresh_timer = QTimer(self)
        self._refresh_timer.setSingleShot(True)
        self._refresh_timer.setInterval(REFRESH_MS)
        self._refresh_timer.timeout.connect(self.refresh)
        self.day.dateChanged.connect(lambda _day: self.refresh())
        self.today_button.clicked.connect(self._show_today)
        # A terminal left open overnight: a picker showing today moves to the new day.
        self.roll_over_timer = QTimer(self)
        self.roll_over_timer.setSingleShot(True)
        self.roll_over_timer.timeout.connect(self.roll_over)
        self._arm_roll_over()
        self.print_button.clicked.connect(self.print_report)
        self.pdf_button.clicked.connect(self.ask_pdf)
        if adapter is not None:
            adapter.charge_changed.connect(lambda _event: self._refresh_timer.start())
            adapter.closed.connect(self._window_closed)
            adapter.shared_store_reachability_changed.connect(self._on_store_reachability)
        self.refresh()

    def _window_closed(self) -> None:
        """The window's bus closed and the store goes next: no timer reads from here on (a
        process that outlives its window would otherwise read the closed store at midnight)."""
        self._closed = True
        self._refresh_timer.stop()
        self.roll_over_timer.stop()

    def roll_over(self) -> None:
        """The date may have turned: a picker that showed today shows the new day (a day the
        clerk picked stays), and no later day can be picked."""
        if self._closed:
            return
        now = self._today_now()
        if now != self._today:
            shown_today = self.day.date() == self._today
            self._today = now
            self.day.setMaximumDate(now)
            if shown_today:
                self.day.setDate(now)
        self._arm_roll_over()

    def _arm_roll_over(self) -> None:
        # A second past midnight, so that the clock surely reads the new day.
        wait = ms_to_next_day(self._zone) + 1000
        self.roll_over_timer.start(min(wait, ROLL_OVER_CHECK_MS))

    def _show_today(self) -> None:
        self.roll_over()
        self.day.setDate(self._today)

    def _table(self, name: str, headers: tuple[str, str, str]) -> QTableWidget:
        table = QTableWidget(0, len(headers), self)
        table.setObjectName(name)
        table.setHorizontalHeaderLabels(list(headers))
        table.verticalHeader().setVisible(False)
        table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        return table

    def refresh(self) -> None:
        start, end = day_range(self.day.date(), self._zone)
        read(
            self._views.day_totals(start=start, end=end, profile=self._profile, zone=self._zone),
            self._show,
            failed=self._unreadable,
        )

    def _unreadable(self, exc: BaseException) -> None:
        """The store did not give the day's figures: none is shown (a figure left from an
        earlier read could pass for this day's), nor printed; the line says why (the store's
        own words in its tooltip). No box: the figures are read again every few minutes, and
        at once when the store answers again."""
        if store_problem(exc) is None:
            raise exc
        if isinstance(exc, ReportUnavailable):
            logger.error("the day's totals could not be read", exc_info=exc)
        for label in self.figures.values():
            label.setText("—")
            label.setToolTip("")
        self._fill(self.brands, [])
        self._fill(self.hours, [])
        self.totals = None
        self._set_printable(False)
        show_store_failure(self.figures["sales"], exc, "the day's totals could not be read")

    def _set_printable(self, printable: bool) -> None:
        self.print_button.setEnabled(printable)
        self.pdf_button.setEnabled(printable)

    def _on_store_reachability(self, event: SharedStoreReachabilityChanged) -> None:
        if event.reachable:
            self.refresh()

    def _figure_labels(self) -> dict[str, str]:
        """The summary's figures by key, each with its label (on screen and in the report)."""
        return {
            "sales": self.tr("Sales"),
            "gross": self.tr("Gross"),
            "refunds": self.tr("Refunds"),
            "net": self.tr("Net"),
            "held": self.tr("Authorized, not captured"),
            "denied": self.tr("Denied attempts"),
        }

    def _figure_texts(self, totals: DayTotals) -> dict[str, str]:
        """The summary's values by key, written once for the screen and the report alike."""
        return {
            "sales": str(totals.sales),
            "gross": format_money(totals.gross),
            "refunds": format_money(totals.refunds),
            "net": format_money(totals.net),
            "held": self.tr("{count} · {amount}").format(
                count=totals.held_count, amount=format_money(totals.held_amount)
            ),
            "denied": str(totals.denied),
        }

    def _show(self, totals: DayTotals) -> None:
        self.totals = totals
        self._set_printable(True)
        for key, text in self._figure_texts(totals).items():
            self.figures[key].setText(text)
            self.figures[key].setToolTip("")
        self._fill(self.brands, _brand_rows(totals))
        self._fill(self.hours, _hour_rows(totals))

    @staticmethod
    def _fill(table: QTableWidget, rows: list[tuple[str, str, str]]) -> None:
        table.setRowCount(len(rows))
        right = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
        for r, row in enumerate(rows):
            for c, text in enumerate(row):
                item = QTableWidgetItem(text)
                if c > 0:  # counts and amounts line up on the right
                    item.setTextAlignment(right)
                table.setItem(r, c, item)

    # -- the printable report ---------------------------------------------------------------

    def report_html(self) -> str:
        totals = self.totals
        if totals is None:
            return ""
        e = html.escape
        day = self.day.date().toString("dd/MM/yyyy")

        def table(headers: tuple[str, ...], rows: Sequence[tuple[str, ...]]) -> str:
            head = "".join(f"<th align='left'>{e(h)}</th>" for h in headers)
            body = "".join(
                "<tr>" + "".join(f"<td>{e(cell)}</td>" for cell in row) + "</tr>" for row in rows
            )
            return (
                f"<table width='100%' cellspacing='0' cellpadding='2'><tr>{head}</tr>{body}</table>"
            )

        texts = self._figure_texts(totals)
        summary = [(label, texts[key]) for key, label in self._figure_labels().items()]
        brands, hours = _brand_rows(totals), _hour_rows(totals)
        title = self.tr("Sales report for {day}").format(day=day)
        return "".join(
            [
                f"<h2>{e(title)}</h2>",
                table((self.tr("Figure"), self.tr("Value")), summary),
                f"<h3>{e(self.tr('By brand'))}</h3>",
                table((self.tr("Brand or tender"), self.tr("Payments"), self.tr("Amount")), brands),
                f"<h3>{e(self.tr('By hour'))}</h3>",
                table((self.tr("Hour"), self.tr("Sales"), self.tr("Amount")), hours),
            ]
        )

    def _document(self) -> QTextDocument:
        document = QTextDocument()
        document.setHtml(self.report_html())
        return document

    def save_pdf(self, path: Path) -> Path:
        printer = QPrinter(QPrinter.PrinterMode.HighResolution)
        printer.setOutputFormat(QPrinter.OutputFormat.PdfFormat)
        printer.setOutputFileName(str(path))
        self._document().print_(printer)
        if not path.exists() or path.stat().st_size == 0:
            raise OSError(self.tr("the report could not be written to {path}").format(path=path))
        return path

    def ask_pdf(self) -> None:
        day = self.day.date().toString("yyyy-MM-dd")
        name = self.tr("sales-{day}.pdf").format(day=day)
        start = str(self._report_folder() / name)
        from checkout_desktop.ui.file_dialogs import pdf_save_dialog

        dialog = pdf_save_dialog(self, self.tr("Save report"), start)
        dialog.fileSelected.connect(lambda chosen: self._save_chosen(Path(chosen)))
        dialog.open()

    def _save_chosen(self, path: Path) -> None:
        from checkout_desktop.ui.receipts import confirm_saved

        try:
            confirm_saved(self.save_pdf(path), self, report=True)
        except OSError as exc:
            logger.error("the sales report could not be saved: %s", exc)
            QMessageBox.warning(
                self,
                self.tr("Save report"),
                self.tr("The report could not be saved: {why}").format(why=exc),
            )

    def print_report(self) -> None:
        printer = QPrinter(QPrinter.PrinterMode.HighResolution)
        dialog = QPrintDialog(printer, self)
        if dialog.exec() == QDialog.DialogCode.Accepted:
            self._document().print_(printer)
