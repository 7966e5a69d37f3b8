"""Charge history and the selected charge's timeline, with refund, capture and query-now actions."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta

from PySide6.QtCore import QDate, QItemSelection, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QFontDatabase, QRegularExpressionValidator
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDateEdit,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMenu,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from checkout_desktop.charges.authority import Guarded, PinRefused
from checkout_desktop.charges.service import (
    ChargeService,
    EndReport,
    MoneyOperationError,
    MoneyOperationNotStored,
    MoneyOperationRefused,
    MoneyView,
)
from checkout_desktop.charges.views import ChargeQuery, ChargeViews, store_problem
from checkout_desktop.domain.charge_events import (
    AttemptChanged,
    ChargeChanged,
    MoneyOperationChanged,
)
from checkout_desktop.domain.counters import counter_of_sale
from checkout_desktop.domain.enums import ChargeStatus
from checkout_desktop.domain.environments import profile_of
from checkout_desktop.domain.reasons import Reason, ReasonCode
from checkout_desktop.domain.records import AttemptRecord, ChargeRecord, MoneyOpRecord
from checkout_desktop.domain.shop_events import SharedStoreReachabilityChanged
from checkout_desktop.domain.shown_status import ShownStatus
from checkout_desktop.domain.state import UNRESOLVED_ATTEMPT_STATES
from checkout_desktop.gateway.errors import GatewayError
from checkout_desktop.ui.adapter import QtEventAdapter
from checkout_desktop.ui.amount_edit import AmountEdit
from checkout_desktop.ui.formatting import format_instant, format_instant_precise, format_money
from checkout_desktop.ui.history_model import (
    ChargeHistoryModel,
    TimelineModel,
    cards_text,
    shown_amount,
    shown_status_text,
    shown_statuses,
    status_text,
)
from checkout_desktop.ui.labels import status_label
from checkout_desktop.ui.loop import read
from checkout_desktop.ui.money_texts import money_error_text, pending_text
from checkout_desktop.ui.pin_entry import error_line, ok_cancel, pin_edit
from checkout_desktop.ui.problem_texts import stored_pin_text
from checkout_desktop.ui.qr_texts import qr_refund_words
from checkout_desktop.ui.reasons import error_text, reason_text
from checkout_desktop.ui.receipts import RefundOnReceipt, refunds_on_receipts
from checkout_desktop.ui.store_texts import show_store_failure
from checkout_desktop.ui.supervisor import PinError, verify_pin
from checkout_desktop.ui.timeline_text import developer_detail, plain_detail, who_label

logger = logging.getLogger(__name__)


def _room_to_read(label: QLabel) -> None:
    """A dialog's word-wrapped explanation about seventy characters wide: room for "Estornar a
    cobrança <id> (VISA •••• 1111)." on one line (alone, a label is given ≈ 240 px, and broke
    the charge's id in two)."""
    label.setMinimumWidth(label.fontMetrics().averageCharWidth() * 70)


class MoneyActionDialog(QDialog):
    """Confirms a refund or a capture: the amount, what it means, and the supervisor PIN."""

    def __init__(
        self,
        *,
        title: str,
        explanation: str,
        maximum: int,
        pin_hash: str | None,
        allow_partial: bool = True,
        confirm: str | None = None,
        parent: QWidget | None = None,
    ) -> None:
        """`confirm`: the confirm button's words, "{amount}" standing for the amount typed (a
        clerk reads what is done and how much on the button they press, not "OK")."""
        super().__init__(parent)
        self.setWindowTitle(title)
        self.setObjectName("moneyActionDialog")
        self._confirm = confirm
        self._maximum = maximum
        self._pin_hash = pin_hash
        self.explanation = QLabel(explanation, self)
        self.explanation.setWordWrap(True)
        _room_to_read(self.explanation)
        self.amount = AmountEdit(self)
        self.amount.setObjectName("actionAmount")
        self.amount.set_centavos(maximum)
        # A key or a paste above what may be done here is refused at once, and said.
        self.amount.set_maximum(maximum)
        self.amount.setEnabled(allow_partial)
        self.pin = pin_edit(self, "supervisorPin")
        self.error = error_line(self, "actionError")
        form = QFormLayout()
        form.addRow(self.tr("Amount"), self.amount)
        form.addRow(self.tr("Up to"), QLabel(format_money(maximum), self))
        if pin_hash:
            form.addRow(self.tr("Supervisor PIN"), self.pin)
        else:
            self.pin.hide()
        self.buttons = ok_cancel(self)
        layout = QVBoxLayout(self)
        layout.addWidget(self.explanation)
        layout.addLayout(form)
        layout.addWidget(self.error)
        layout.addWidget(self.buttons)
        # A refused key or paste leaves the amount as it was and says why; a new amount
        # clears that.
        self.amount.rejected.connect(self.error.setText)
        self.amount.value_changed.connect(lambda _value: self.error.clear())
        self.amount.value_changed.connect(lambda _value: self._name_confirm())
        self._name_confirm()
        self.pin_failures = 0

    def _name_confirm(self) -> None:
        if self._confirm is None:
            return
        button = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        button.setText(self._confirm.format(amount=format_money(self.amount.centavos())))

    def accept(self) -> None:
        value = self.amount.centavos()
        if value <= 0:
            self.error.setText(self.tr("Type an amount above zero."))
            return
        if value > self._maximum:
            self.error.setText(
                self.tr("At most {amount}.").format(amount=format_money(self._maximum))
            )
            return
        if self._pin_hash:
            try:
                ok = verify_pin(self.pin.text(), self._pin_hash)
            except PinError:
                self.error.setText(stored_pin_text())
                return
            if not ok:
                self.pin_failures += 1
                self.pin.clear()
                self.error.setText(self.tr("Wrong supervisor PIN."))
                return
        super().accept()


async def _as_object(call: Awaitable[object]) -> object:
    return await call


class EndAttemptDialog(QDialog):
    """Ends an attempt the service's answers cannot settle: what is known, who, why, the PIN."""

    def __init__(self, *, known: str, pin_hash: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("End an unresolved charge"))
        self.setObjectName("endAttemptDialog")
        self._pin_hash = pin_hash
        self.known = QLabel(known, self)
        self.known.setObjectName("endAttemptKnown")
        self.known.setWordWrap(True)
        self.known.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.supervisor = QLineEdit(self)
        self.supervisor.setObjectName("endSupervisor")
        self.supervisor.setMaxLength(60)
        self.why = QLineEdit(self)
        self.why.setObjectName("endWhy")
        self.why.setMaxLength(200)
        self.why.setPlaceholderText(self.tr("e.g. checked in the merchant panel: no such charge"))
        # The example reads whole in the empty field, and what is known has room to be read.
        self.why.setMinimumWidth(
            self.why.fontMetrics().horizontalAdvance(self.why.placeholderText()) + 24
        )
        _room_to_read(self.known)
        self.pin = pin_edit(self, "endPin")
        self.error = error_line(self, "endAttemptError")
        form = QFormLayout()
        form.addRow(self.tr("Supervisor"), self.supervisor)
        form.addRow(self.tr("Why"), self.why)
        form.addRow(self.tr("Supervisor PIN"), self.pin)
        self.buttons = ok_cancel(self)
        # The button says what it does, as the money dialogs' do (not "OK").
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText(self.tr("End the charge"))
        layout = QVBoxLayout(self)
        layout.addWidget(self.known)
        layout.addLayout(form)
        layout.addWidget(self.error)
        layout.addWidget(self.buttons)
        self.pin_failures = 0

    def accept(self) -> None:
        if not self.supervisor.text().strip():
            self.error.setText(self.tr("Type who is ending it."))
            return
        if not self.why.text().strip():
            self.error.setText(self.tr("Type why it is ended (it goes to the charge's timeline)."))
            return
        try:
            ok = verify_pin(self.pin.text(), self._pin_hash)
        except PinError:
            self.error.setText(stored_pin_text())
            return
        if not ok:
            self.pin_failures += 1
            self.pin.clear()
            self.error.setText(self.tr("Wrong supervisor PIN."))
            return
        super().accept()


class HistoryPanel(QWidget):
    """The charges list beside one charge's timeline; actions act on the selected charge."""

    events_requested = Signal(str)
    """Show the stored notifications of this charge in the event list."""
    receipt_requested = Signal(str, bool, object)
    """(merchantChargeId, as_pdf, RefundOnReceipt or None): print or save the receipt of that
    refund, or (None) the sale's."""
    action_finished = Signal(str, str)
    """(action, merchantChargeId) after a refund, capture or query completed."""
    qr_cancel_refused_learned = Signal()
    """The service refused to cancel an unpaid QR: the window keeps that in the profile."""

    def __init__(
        self,
        *,
        service: ChargeService,
        views: ChargeViews,
        adapter: QtEventAdapter,
        pin_hash: Callable[[], str | None],
        environment_label: Callable[[str | None], str] | None = None,
        qr_cancel_offered: Callable[[], bool] = lambda: True,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._service = service
        self._qr_cancel_offered = qr_cancel_offered
        self._views = views
        self._pin_hash = pin_hash
        self._environment_label = environment_label or (lambda name: name or "—")
        self._busy: asyncio.Future[object] | None = None
        self._view: MoneyView | None = None
        self.dialog: MoneyActionDialog | None = None
        # The selected charge's refunds a receipt can be had of, newest first (from the store).
        self.receipt_refunds: list[RefundOnReceipt] = []
        self._receipt_menu_of: tuple[str | None, tuple[RefundOnReceipt, ...]] | None = None
        # Another environment's charges (a sandbox's test sales in production) are hidden
        # unless asked for, and then shown read only.
        self.model = ChargeHistoryModel(
            views,
            query=ChargeQuery(profile=service.profile),
            environment_label=self._environment_label,
            home_profile=service.profile,
            parent=self,
        )
        self.timeline = TimelineModel(views, parent=self)

        self.status_filter = QComboBox(self)
        self.status_filter.setObjectName("historyStatusFilter")
        self.status_filter.addItem(self.tr("All statuses"), None)
        # The words the history shows (a QR awaiting payment, a paid wallet as paid), each
        # finding exactly the rows shown with it.
        for shown in ShownStatus:
            self.status_filter.addItem(shown_status_text(shown), shown.value)
        self.refresh_button = QPushButton(self.tr("Reload"), self)
        self.customer_search = QLineEdit(self)
        self.customer_search.setObjectName("historyCustomerSearch")
        self.customer_search.setPlaceholderText(self.tr("Customer name or CPF/CNPJ"))
        self.customer_search.setClearButtonEnabled(True)
        self.amount_search = AmountEdit(self)
        self.amount_search.setObjectName("historyAmountSearch")
        # Empty means any amount: a visible R$ 0,00 read as "charges of zero".
        self.amount_search.setPlaceholderText(self.tr("Any amount"))
        self.amount_search.set_zero_empty(True)
        self.amount_search.setToolTip(
            self.tr("Only charges of exactly this amount; empty (Delete) for any amount")
        )
        self.amount_search.setMaximumWidth(140)
        self.last_four_search = QLineEdit(self)
        self.last_four_search.setObjectName("historyLastFourSearch")
        self.last_four_search.setPlaceholderText(self.tr("Card's last 4 digits"))
        self.last_four_search.setValidator(
            QRegularExpressionValidator(r"\d{0,4}", self.last_four_search)
        )
        self.last_four_search.setMaximumWidth(150)
        self.period = QComboBox(self)
        self.period.setObjectName("historyPeriod")
        self.period.addItem(self.tr("Any date"), "any")
        self.period.addItem(self.tr("Today"), "today")
        self.period.addItem(self.tr("Yesterday"), "yesterday")
        self.period.addItem(self.tr("Last 7 days"), "week")
        self.period.addItem(self.tr("Last 30 days"), "month")
        self.period.addItem(self.tr("Between dates…"), "between")
        today = QDate.currentDate()
        self.date_from = QDateEdit(today.addDays(-7), self)
        self.date_from.setObjectName("historyDateFrom")
        self.date_to = QDateEdit(today, self)
        self.date_to.setObjectName("historyDateTo")
        for edit in (self.date_from, self.date_to):
            edit.setCalendarPopup(True)
            edit.setVisible(False)
        self.date_to_label = QLabel(self.tr("to"), self)
        self.date_to_label.setVisible(False)
        self.other_environments = QCheckBox(self.tr("Other environments (read only)"), self)
        self.other_environments.setObjectName("historyOtherEnvironments")
        self.other_environments.setToolTip(
            self.tr(
                "Also list charges made in another environment (for example the sandbox's test "
                "sales). They can be looked at, never refunded, captured or queried from here."
            )
        )
        self.clear_search_button = QPushButton(self.tr("Clear search"), self)
        self.clear_search_button.setObjectName("historyClearSearch")
        self.search_note = QLabel(self)
        self.search_note.setObjectName("historySearchNote")
        self.search_note.setStyleSheet("color: #b3261e;")
        self.search_note.setWordWrap(True)
        self.search_note.setVisible(False)
        # Typing searches after a short pause, not on every key.
        self._search_timer = QTimer(self)
        self._search_timer.setSingleShot(True)
        self._search_timer.setInterval(300)
        self._search_timer.timeout.connect(self.apply_search)
        # Attempts whose outcome is unknown have no charge row yet: listed apart, so that a
        # supervisor can end one the service's answers cannot settle.
        self.unresolved_label = QLabel(self.tr("Outcome unknown:"), self)
        self.unresolved = QComboBox(self)
        self.unresolved.setObjectName("unresolvedAttempts")
        self.unresolved.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.unresolved.setMinimumContentsLength(24)
        self.end_button = QPushButton(self.tr("&End…"), self)
        self.end_button.setObjectName("endAttemptButton")
        self.end_button.setToolTip(
            self.tr(
                "Ask the service once more and, if it still cannot say, let a supervisor end "
                "the attempt so that its sale is free. The charge is never sent again."
            )
        )
        self.end_dialog: EndAttemptDialog | None = None
        # Shown once the store says there is something unresolved (a read that may wait).
        for widget in (self.unresolved_label, self.unresolved, self.end_button):
            widget.setVisible(False)

        self.table = QTableView(self)
        self.table.setObjectName("historyTable")
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setAlternatingRowColors(True)
        # One line per cell: a wrapped id showed only up to its first dash.
        self.table.setWordWrap(False)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.table.verticalHeader().setDefaultSectionSize(self.table.fontMetrics().height() + 8)
        self.table.horizontalHeader().setStretchLastSection(True)
        # Widths from what the cells hold, so that the customer is still in view on a
        # 1024-pixel screen (the last column, 3DS, takes what is left).
        metrics = self.table.fontMetrics()
        pad = 2 * metrics.averageCharWidth()
        money = metrics.horizontalAdvance("R$ 00.000,00") + pad
        widths = (
            metrics.horizontalAdvance("00/00/0000 00:00:00") + pad,  # created
            # A counter's id (five letters by default), the sale's 12 hex digits, the attempt.
            metrics.horizontalAdvance("wwwww-0123456789ab-01") + pad,  # charge id
            money,  # amount
            max(metrics.horizontalAdvance(text) for text in shown_statuses()) + pad,
            money,  # refunded
            metrics.horizontalAdvance("MASTERCARD •••• 0000") + pad,  # cards (one whole)
            # The customer: most names whole (a long one is cut; its CPF is the tooltip), so
            # that this column still ends inside a 1024-pixel screen.
            metrics.horizontalAdvance("Maria Aparecida Souza") + pad,
        )
        for column, width in enumerate(widths):
            self.table.horizontalHeader().resizeSection(column, width)
        self.table.setColumnHidden(ChargeHistoryModel.COLUMNS.index("environment"), True)

        self.title = QLabel(self.tr("Select a charge to see its timeline."), self)
        self.title.setObjectName("timelineTitle")
        self.title.setWordWrap(True)
        self.title.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.timeline_view = QTableView(self)
        self.timeline_view.setObjectName("timelineTable")
        self.timeline_view.setModel(self.timeline)
        self.timeline_view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.timeline_view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.timeline_view.verticalHeader().setVisible(False)
        self.timeline_view.setWordWrap(False)
        self.timeline_view.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.timeline_view.verticalHeader().setDefaultSectionSize(
            self.timeline_view.fontMetrics().height() + 8
        )
        # The sentence takes what the date, the source and the status leave (its tooltip has
        # the whole detail), so the status stays in view on a 1024-pixel screen.
        header = self.timeline_view.horizontalHeader()
        header.setStretchLastSection(False)
        metrics = self.timeline_view.fontMetrics()
        pad = 2 * metrics.averageCharWidth()
        sources = ("request", "reply", "webhook", "reconciliation", "3ds", "system")
        timeline_widths = {
            "recorded": metrics.horizontalAdvance("00/00/0000 00:00:00") + pad,
            "source": max(metrics.horizontalAdvance(who_label(s)) for s in sources) + pad,
            "status": max(metrics.horizontalAdvance(text) for text in shown_statuses()) + pad,
        }
        for name, width in timeline_widths.items():
            column = TimelineModel.COLUMNS.index(name)
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.Interactive)
            header.resizeSection(column, width)
        header.setSectionResizeMode(
            TimelineModel.COLUMNS.index("what"), QHeaderView.ResizeMode.Stretch
        )
        self.timeline_detail = QPlainTextEdit(self)
        self.timeline_detail.setObjectName("timelineDetail")
        self.timeline_detail.setReadOnly(True)
        self.timeline_detail.setPlaceholderText(self.tr("Select a line to see its details."))
        self.timeline_detail.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.developer_detail = QCheckBox(self.tr("Technical detail"), self)
        self.developer_detail.setObjectName("timelineDeveloperDetail")
        self.developer_detail.setToolTip(
            self.tr("Show what was stored for support: raw statuses, sources and the message body.")
        )

        self.refund_button = QPushButton(self.tr("Re&fund…"), self)
        self.refund_button.setObjectName("refundButton")
        self.capture_button = QPushButton(self.tr("Ca&pture…"), self)
        self.capture_button.setObjectName("captureButton")
        self.query_button = QPushButton(self.tr("&Query now"), self)
        self.query_button.setObjectName("queryButton")
        self.events_button = QPushButton(self.tr("&Notifications"), self)
        self.receipt_button = QPushButton(self.tr("Recei&pt"), self)
        self.receipt_button.setObjectName("historyReceipt")
        # The sale's receipt, and (once refunded) each refund's: rebuilt for the charge shown.
        self.receipt_menu = QMenu(self.receipt_button)
        self.receipt_menu.setObjectName("historyReceiptMenu")
        self.print_action = QAction(self.tr("Print…"), self)
        self.pdf_action = QAction(self.tr("Save as PDF…"), self)
        self.receipt_menu.addAction(self.print_action)
        self.receipt_menu.addAction(self.pdf_action)
        self.receipt_button.setMenu(self.receipt_menu)
        self.message = QLabel(self)
        self.message.setObjectName("historyMessage")
        self.message.setWordWrap(True)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        search_row = QHBoxLayout()
        search_row.addWidget(self.customer_search, 2)
        search_row.addWidget(QLabel(self.tr("Amount"), self))
        search_row.addWidget(self.amount_search)
        search_row.addWidget(self.last_four_search)
        search_row.addWidget(self.period)
        search_row.addWidget(self.date_from)
        search_row.addWidget(self.date_to_label)
        search_row.addWidget(self.date_to)
        top = QHBoxLayout()
        top.addWidget(self.status_filter)
        top.addWidget(self.other_environments)
        top.addWidget(self.clear_search_button)
        top.addStretch(1)
        top.addWidget(self.unresolved_label)
        top.addWidget(self.unresolved)
        top.addWidget(self.end_button)
        top.addWidget(self.refresh_button)
        actions = QHBoxLayout()
        for button in (
            self.refund_button,
            self.capture_button,
            self.query_button,
            self.events_button,
            self.receipt_button,
        ):
            actions.addWidget(button)
        actions.addStretch(1)

        right = QWidget(self)
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.addWidget(self.title)
        right_layout.addLayout(actions)
        right_layout.addWidget(self.message)
        timeline_split = QSplitter(Qt.Orientation.Horizontal, right)
        timeline_split.addWidget(self.timeline_view)
        detail_box = QWidget(timeline_split)
        detail_layout = QVBoxLayout(detail_box)
        detail_layout.setContentsMargins(0, 0, 0, 0)
        detail_layout.addWidget(self.timeline_detail, 1)
        detail_layout.addWidget(self.developer_detail)
        timeline_split.addWidget(detail_box)
        timeline_split.setStretchFactor(0, 3)
        timeline_split.setStretchFactor(1, 1)
        # The detail pane wraps its text; the timeline keeps room for its sentence beside a
        # status as long as a new QR's "awaiting payment".
        timeline_split.setSizes([960, 290])
        right_layout.addWidget(timeline_split, 1)

        left = QWidget(self)
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addLayout(search_row)
        left_layout.addLayout(top)
        left_layout.addWidget(self.search_note)
        left_layout.addWidget(self.table, 1)

        # Stacked, not side by side: both tables need the window's width to stay readable.
        splitter = QSplitter(Qt.Orientation.Vertical, self)
        splitter.addWidget(left)
        splitter.addWidget(right)
        splitter.setStretchFactor(0, 2)
        splitter.setStretchFactor(1, 3)
        layout = QVBoxLayout(self)
        layout.addWidget(splitter)

        self.status_filter.currentIndexChanged.connect(self.apply_search)
        self.period.currentIndexChanged.connect(self._period_changed)
        self.date_from.dateChanged.connect(self.apply_search)
        self.date_to.dateChanged.connect(self.apply_search)
        self.other_environments.toggled.connect(self._environments_toggled)
        self.customer_search.textChanged.connect(self._search_timer.start)
        self.customer_search.returnPressed.connect(self.apply_search)
        self.last_four_search.textChanged.connect(self._last_four_changed)
        self.amount_search.value_changed.connect(self._search_timer.start)
        self.amount_search.rejected.connect(self._amount_refused)
        self.clear_search_button.clicked.connect(self.clear_search)
        self.model.modelReset.connect(self._note_search_result)
        self.model.unreadable.connect(self._note_unreadable)
        self.refresh_button.clicked.connect(self.model.refresh)
        self.refresh_button.clicked.connect(self.refresh_unresolved)
        self.end_button.clicked.connect(self.ask_end)
        adapter.attempt_changed.connect(self._on_attempt_changed)
        self.table.selectionModel().selectionChanged.connect(self._selection_changed)
        self.timeline_view.selectionModel().selectionChanged.connect(self._timeline_selected)
        self.developer_detail.toggled.connect(self._show_timeline_detail)
        self.refund_button.clicked.connect(self.ask_refund)
        self.capture_button.clicked.connect(self.ask_capture)
        self.query_button.clicked.connect(self.query_now)
        self.events_button.clicked.connect(self._show_events)
        self.print_action.triggered.connect(lambda: self._receipt(as_pdf=False, refund=None))
        self.pdf_action.triggered.connect(lambda: self._receipt(as_pdf=True, refund=None))
        self.model.modelReset.connect(self._update_actions)
        adapter.charge_changed.connect(self.on_charge_changed)
        adapter.money_operation_changed.connect(self.on_money_operation_changed)
        adapter.shared_store_reachability_changed.connect(self._on_store_reachability)
        self._update_actions()
        self.refresh_unresolved()

    # -- unresolved attempts -----------------------------------------------------------------

    def refresh_unresolved(self) -> None:
        """List the attempts whose outcome is still unknown (none: the row hides)."""
        # Only this environment's: another's can be neither asked about nor ended here.
        read(
            self._views.unresolved_attempts(limit=50, profile=self._service.profile),
            self._show_unresolved,
            failed=self._background_failed,
        )

    def _background_failed(self, exc: BaseException) -> None:
        """A read the clerk did not ask for: what is shown stays, and is read again once the
        store answers (`_on_store_reachability`); no message nags meanwhile."""
        if store_problem(exc) is None:
            logger.error("a read of the store failed", exc_info=exc)
        else:
            logger.warning("the history could not be read again: %s", exc)

    def _on_store_reachability(self, event: SharedStoreReachabilityChanged) -> None:
        if not event.reachable:
            return
        # What a read failed meanwhile is read again: the list, the chosen charge, its actions.
        self.model.refresh()
        self.refresh_unresolved()
        self.refresh_timeline()
        self._update_actions()

    def _show_unresolved(self, attempts: list[AttemptRecord]) -> None:
        chosen = self.unresolved.currentData()
        self.unresolved.clear()
        for attempt in attempts:
            self.unresolved.addItem(self._attempt_text(attempt), attempt.merchant_charge_id)
        index = self.unresolved.findData(chosen) if chosen else -1
        self.unresolved.setCurrentIndex(max(index, 0) if attempts else -1)
        for widget in (self.unresolved_label, self.unresolved, self.end_button):
            widget.setVisible(bool(attempts))
        busy = self._busy is not None and not self._busy.done()
        self.end_button.setEnabled(bool(attempts) and not busy)

    def _attempt_text(self, attempt: AttemptRecord) -> str:
        return self.tr("{id} · sale {sale} · {amount} · since {at}").format(
            id=attempt.merchant_charge_id,
            sale=attempt.sale_id,
            amount=format_money(attempt.amount),
            at=format_instant_precise(attempt.created_at),
        )

    def _on_attempt_changed(self, event: AttemptChanged) -> None:
        self.refresh_unresolved()
        # A row can hold a sale whose attempt is still open (a 3DS result arrived first): what
        # it shows, whether it matches the status filter, and its timeline's attempt lines
        # follow the attempt.
        self._reread(event.merchant_charge_id)

    def ask_end(self) -> None:
        """Ask the service once more; if it still cannot say, open the supervisor's dialog."""
        mcid = self.unresolved.currentData()
        if not mcid or (self._busy is not None and not self._busy.done()):
            return
        pin_hash = self._pin_hash()
        if not pin_hash:
            self.message.setText(
                self.tr("Ending an unresolved charge needs a supervisor PIN: set one in Settings.")
            )
            self.message.setStyleSheet("color: #b3261e;")
            return
        self.message.setText(self.tr("Asking the service once more…"))
        self.message.setStyleSheet("")
        self.message.setToolTip("")
        future = asyncio.ensure_future(_as_object(self._service.check_attempt(mcid)))
        self._busy = future

        def checked(task: asyncio.Future[object]) -> None:
            self.refresh_unresolved()
            self.model.refresh()
            if task.cancelled():
                self.message.setText(self.tr("Cancelled."))
                return
            exc = task.exception()
            if exc is not None:
                self._failed(exc, "asking about " + mcid)
                return
            report = task.result()
            assert isinstance(report, EndReport)
            if report.state not in UNRESOLVED_ATTEMPT_STATES:
                self.message.setText(
                    self.tr("The service settled it: {state}.").format(
                        state=status_label(report.state.value)
                    )
                )
                self.message.setStyleSheet("color: #1b6e2a;")
                return
            self._open_end_dialog(mcid, report, pin_hash)

        future.add_done_callback(checked)
        self._update_actions()

    def _open_end_dialog(self, mcid: str, report: EndReport, pin_hash: str) -> None:
        def unread(exc: BaseException) -> None:
            # Nothing was ended; End asks again.
            self._failed(exc, "the unresolved charge could not be read")
            self.refresh_unresolved()

        read(
            self._views.attempt(mcid),
            lambda attempt: self._show_end_dialog(mcid, report, pin_hash, attempt),
            failed=unread,
        )

    def _failed(self, exc: BaseException, what: str) -> None:
        """An action failed: the store's failure in the clerk's words (its own in the
        tooltip), anything else as its reason says."""
        self.message.setStyleSheet("color: #b3261e;")
        if show_store_failure(self.message, exc, what):
            return
        if not isinstance(exc, GatewayError | ValueError | LookupError | PinRefused):
            logger.error("%s failed", what, exc_info=exc)
        self.message.setToolTip("")
        self.message.setText(self.tr("Failed: {why}").format(why=error_text(exc)))

    def _show_end_dialog(
        self, mcid: str, report: EndReport, pin_hash: str, attempt: AttemptRecord | None
    ) -> None:
        if attempt is None or not attempt.unresolved:
            self.refresh_unresolved()
            return
        last = (
            reason_text(report.last_error)
            if report.last_error is not None
            else self.tr("the service does not have it yet, and it could still appear")
        )
        known = self.tr(
            "Charge {id} for sale {sale}: {amount}, {cards}, recorded at {at}; the service "
            "was asked {n} time(s). Its last answer: {last}.\n\nEnding it frees the sale for "
            "another charge. Nothing is sent again; if the service turns out to hold this "
            "charge, it appears in the history and can be refunded there."
        ).format(
            id=mcid,
            sale=attempt.sale_id,
            amount=format_money(attempt.amount),
            cards=", ".join(reason_text(c.reason()) for c in attempt.cards),
            at=format_instant_precise(attempt.created_at),
            n=attempt.queries,
            last=last,
        )
        self.message.clear()
        self.end_dialog = EndAttemptDialog(known=known, pin_hash=pin_hash, parent=self)
        dialog = self.end_dialog
        dialog.accepted.connect(
            lambda: self._end(
                mcid,
                dialog.supervisor.text(),
                dialog.why.text(),
                report.last_error,
                # The service checks the PIN again: the dialog's check is only the quick answer.
                dialog.pin.text() or None,
            )
        )
        dialog.open()

    def _end(
        self,
        mcid: str,
        supervisor: str,
        why: str,
        last_error: Reason | None,
        pin: str | None = None,
    ) -> None:
        future = asyncio.ensure_future(
            _as_object(
                self._service.end_unresolved(
                    mcid,
                    supervisor=supervisor,
                    why=why,
                    query_first=False,
                    last_error=last_error,
                    pin=pin,
                )
            )
        )
        self._busy = future

        def ended(task: asyncio.Future[object]) -> None:
            self.refresh_unresolved()
            self.model.refresh()
            exc = None if task.cancelled() else task.exception()
            if exc is not None:
                self._failed(exc, "ending " + mcid)
            elif task.cancelled():
                self.message.setText(self.tr("Failed: {why}").format(why=self.tr("cancelled")))
                self.message.setStyleSheet("color: #b3261e;")
            else:
                self.message.setText(
                    self.tr("Charge {id} ended; its sale is free.").format(id=mcid)
                )
                self.message.setStyleSheet("color: #1b6e2a;")
            self._update_actions()
            self.action_finished.emit("end", mcid)

        future.add_done_callback(ended)
        self._update_actions()

    # -- selection ---------------------------------------------------------------------------

    def selected(self) -> ChargeRecord | None:
        """The selected charge as last read."""
        view = self.selected_view()
        return None if view is None else view.charge

    def selected_view(self) -> MoneyView | None:
        """The selected charge with its pending operation (what may be refunded or captured),
        as last read."""
        view = self._view
        if view is None or view.charge.merchant_charge_id != self.timeline.merchant_charge_id:
            return None
        return view

    def _reload_view(self, then: Callable[[MoneyView | None], None] | None = None) -> None:
        """Read the selected charge and its pending operation again, then show the actions."""
        mcid = self.timeline.merchant_charge_id
        if mcid is None:
            self._view = None
            self.receipt_refunds = []
            self._render_actions()
            if then is not None:
                then(None)
            return

        async def both() -> tuple[MoneyView | None, list[MoneyOpRecord]]:
            view = await self._views.money_view(mcid)
            operations = [] if view is None else await self._views.money_operations(mcid)
            return view, operations

        def loaded(found: tuple[MoneyView | None, list[MoneyOpRecord]]) -> None:
            if mcid != self.timeline.merchant_charge_id:
                return  # another charge was chosen meanwhile
            view, operations = found
            self._view = view
            # A QR cancelled before it was paid moved no money: no refund receipt of it.
            self.receipt_refunds = (
                []
                if view is None
                else refunds_on_receipts(
                    view.charge, operations, cancels=qr_refund_words(view.charge) is None
                )
            )
            self._render_actions()
            if then is not None:
                then(view)

        def unread(exc: BaseException) -> None:
            if mcid != self.timeline.merchant_charge_id:
                return
            if self.selected_view() is not None:
                # What was read before stands (an action on it asks the store again).
                self._background_failed(exc)
                return
            self._render_actions()
            if not show_store_failure(self.title, exc, f"charge {mcid} could not be read"):
                logger.error("charge %s could not be read", mcid, exc_info=exc)

        read(both(), loaded, failed=unread)

    def select_charge(self, merchant_charge_id: str) -> bool:
        """Show one charge (from the charge screen or the event list)."""
        row = self.model.row_of(merchant_charge_id)
        if row is None:
            self.model.refresh()
            row = self.model.row_of(merchant_charge_id)
        if row is None:
            # Older than the loaded pages: show its timeline without a row selected.
            known: list[bool] = []

            def found(record: ChargeRecord | None) -> None:
                known.append(record is not None)
                if record is not None:
                    self.table.clearSelection()
                    self._show(merchant_charge_id)

            def unread(exc: BaseException) -> None:
                self.table.clearSelection()
                if not show_store_failure(
                    self.title, exc, f"charge {merchant_charge_id} could not be read"
                ):
                    logger.error("charge %s could not be read", merchant_charge_id, exc_info=exc)

            # A store that answers at once says here whether the charge exists; one that must
            # wait shows it when it answers.
            return read(
                self._views.charge(merchant_charge_id), found, failed=unread
            ) is not None or (bool(known) and known[0])
        self.table.selectRow(row)
        self._show(merchant_charge_id)
        return True

    # -- search ------------------------------------------------------------------------------

    def search_query(self) -> ChargeQuery:
        """The search as the fields now say it."""
        status = self.status_filter.currentData()
        last_four = self.last_four_search.text()
        amount = self.amount_search.centavos()
        start, end = self._period()
        return ChargeQuery(
            profile=None if self.other_environments.isChecked() else self._service.profile,
            status=None if status is None else ShownStatus(status),
            amount=amount or None,
            customer=self.customer_search.text().strip(),
            last_four=last_four if len(last_four) == 4 else "",
            created_from=start,
            created_to=end,
        )

    def _period(self) -> tuple[datetime | None, datetime | None]:
        """The chosen dates as a range of instants, in this computer's time zone."""
        kind = self.period.currentData()
        midnight = datetime.now().astimezone().replace(hour=0, minute=0, second=0, microsecond=0)
        if kind == "today":
            return midnight, None
        if kind == "yesterday":
            return midnight - timedelta(days=1), midnight
        if kind == "week":
            return midnight - timedelta(days=6), None
        if kind == "month":
            return midnight - timedelta(days=29), None
        if kind == "between":
            first, last = self.date_from.date(), self.date_to.date()
            if last < first:
                first, last = last, first
            start = midnight.replace(year=first.year(), month=first.month(), day=first.day())
            end = midnight.replace(year=last.year(), month=last.month(), day=last.day())
            return start, end + timedelta(days=1)
        return None, None

    def apply_search(self) -> None:
        self._search_timer.stop()
        self.model.set_query(self.search_query())

    def _amount_refused(self, why: str) -> None:
        """A paste that is no amount: the search stays as it was, and the clerk reads why."""
        self.search_note.setText(why)
        self.search_note.setVisible(True)

    def _note_search_result(self) -> None:
        empty = self.model.rowCount() == 0 and not self.model.query.is_empty
        self.search_note.setText(self.tr("No charge matches this search.") if empty else "")
        self.search_note.setToolTip("")
        self.search_note.setVisible(empty)

    def _note_unreadable(self, exc: BaseException) -> None:
        """The list could not be read (it is read again once the store answers): the rows
        shown may be an earlier search's, and the note says so."""
        if store_problem(exc) is not None:
            show_store_failure(self.search_note, exc, "the charge list could not be read")
            self.search_note.setVisible(True)

    def clear_search(self) -> None:
        widgets = (
            self.customer_search,
            self.last_four_search,
            self.amount_search,
            self.status_filter,
            self.period,
            self.other_environments,
        )
        for widget in widgets:
            widget.blockSignals(True)
        self.customer_search.clear()
        self.last_four_search.clear()
        self.amount_search.clear_amount()
        self.status_filter.setCurrentIndex(0)
        self.period.setCurrentIndex(0)
        self.other_environments.setChecked(False)
        for widget in widgets:
            widget.blockSignals(False)
        self.table.setColumnHidden(ChargeHistoryModel.COLUMNS.index("environment"), True)
        self._period_changed()

    def _period_changed(self) -> None:
        between = self.period.currentData() == "between"
        for widget in (self.date_from, self.date_to_label, self.date_to):
            widget.setVisible(between)
        self.apply_search()

    def _last_four_changed(self, text: str) -> None:
        # Searched once all four are typed (or the field is emptied).
        if len(text) in (0, 4):
            self.apply_search()

    def _environments_toggled(self, shown: bool) -> None:
        column = ChargeHistoryModel.COLUMNS.index("environment")
        self.table.setColumnHidden(column, not shown)
        self.apply_search()

    def is_read_only(self, record: ChargeRecord) -> bool:
        """Another environment's charge (or one this terminal never made): looked at only."""
        return record.profile != self._service.profile

    def _filter_changed(self) -> None:
        self.apply_search()

    def _selection_changed(self, selected: QItemSelection, _old: QItemSelection) -> None:
        indexes = selected.indexes()
        if not indexes:
            return
        record = self.model.record(indexes[0].row())
        if record is not None:
            self._show(record.merchant_charge_id)

    def _show(self, merchant_charge_id: str) -> None:
        if self.timeline.merchant_charge_id != merchant_charge_id:
            self.timeline.set_charge(merchant_charge_id)
            self.timeline_detail.clear()
            self.message.clear()
        self._update_actions()

    def _timeline_selected(self, _selected: QItemSelection, _old: QItemSelection) -> None:
        self._show_timeline_detail()

    def _show_timeline_detail(self) -> None:
        """The selected line's detail: plain words, or everything stored when asked for."""
        indexes = self.timeline_view.selectionModel().selectedRows()
        item = self.timeline.record(indexes[0].row()) if indexes else None
        if item is None:
            self.timeline_detail.clear()
            return
        if self.developer_detail.isChecked():
            self.timeline_detail.setFont(
                QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
            )
            self.timeline_detail.setPlainText(developer_detail(item))
        else:
            self.timeline_detail.setFont(self.font())
            self.timeline_detail.setPlainText(plain_detail(item, qr=self.timeline.qr_kind))

    def _update_actions(self) -> None:
        self._reload_view()

    def _render_actions(self) -> None:
        view = self.selected_view()
        record = None if view is None else view.charge
        busy = self._busy is not None and not self._busy.done()
        self.title.setToolTip("")
        if record is None:
            self.title.setText(self.tr("Select a charge to see its timeline."))
        else:
            parts = [
                record.merchant_charge_id,
                status_text(record),
                shown_amount(record),
                cards_text(record),
            ]
            if record.refunded_amount:
                parts.append(
                    self.tr("refunded {amount}").format(amount=format_money(record.refunded_amount))
                )
            if record.three_ds_status:
                # A result's label names 3DS itself ('3DS approved'); an unpublished one is not.
                label = status_label(record.three_ds_status)
                parts.append(label if label != record.three_ds_status else f"3DS {label}")
            if record.customer_name:
                parts.append(record.customer_name)
            self.title.setText(" · ".join(parts))
        has = record is not None
        read_only = record is not None and self.is_read_only(record)
        refundable = view is not None and view.refundable > 0 and not view.busy and not read_only
        capturable = view is not None and view.capturable and not read_only
        if view is not None and view.pending is not None and not busy:
            self.message.setText(pending_text(view.pending.kind))
            self.message.setStyleSheet("color: #8a5a00;")
        elif record is not None and read_only and not busy:
            if record.profile is None:
                text = self.tr(
                    "This terminal did not make this charge (only notifications told of it): "
                    "shown read only."
                )
            elif profile_of(record.profile) == profile_of(self._service.profile):
                # The same built-in sandbox profile, another sandbox process.
                text = self._other_sandbox_text(record)
            else:
                text = self.tr(
                    "Made in another environment ({environment}): shown read only. Refund, "
                    "capture or query it from a terminal set to that environment."
                ).format(environment=self._environment_label(record.profile))
            self.message.setText(text)
            self.message.setStyleSheet("color: #6b6b6b;")
        words = None if record is None else qr_refund_words(record)
        # The service lets an unpaid QR expire and refuses its cancel: none is offered.
        no_cancel = words is not None and words.cancels and not self._qr_cancel_offered()
        self.refund_button.setEnabled(refundable and not busy and not no_cancel)
        self.refund_button.setText(
            words.button if words is not None and words.button else self.tr("Re&fund…")
        )
        self.refund_button.setToolTip(self._cannot_cancel_text() if no_cancel else "")
        if no_cancel and not busy and not self.message.text():
            self.message.setText(self._cannot_cancel_text())
            self.message.setStyleSheet("color: #6b6b6b;")
        self.capture_button.setEnabled(capturable and not busy)
        # A sale that ended before any charge (3DS refused it) has nothing at the service to ask.
        askable = record is not None and not record.never_charged
        self.query_button.setEnabled(askable and not busy and not read_only)
        self.events_button.setEnabled(has)
        self.receipt_button.setEnabled(
            record is not None and record.status not in (None, ChargeStatus.DENIED)
        )
        self._fill_receipt_menu(None if record is None else record.merchant_charge_id)

    def _fill_receipt_menu(self, merchant_charge_id: str | None) -> None:
        """The sale's receipt alone, or beside a submenu for each refund's receipt."""
        refunds = tuple(self.receipt_refunds) if merchant_charge_id is not None else ()
        if self._receipt_menu_of == (merchant_charge_id, refunds):
            return
        self._receipt_menu_of = (merchant_charge_id, refunds)
        for action in self.receipt_menu.actions():
            sub = action.menu()
            if sub is not None:
                sub.deleteLater()
        self.receipt_menu.clear()
        self.receipt_menu.addAction(self.print_action)
        self.receipt_menu.addAction(self.pdf_action)
        if not refunds:
            self.print_action.setText(self.tr("Print…"))
            self.pdf_action.setText(self.tr("Save as PDF…"))
            return
        self.print_action.setText(self.tr("Print sale receipt…"))
        self.pdf_action.setText(self.tr("Save sale receipt as PDF…"))
        self.receipt_menu.addSeparator()
        for refund in refunds:
            at = format_instant(refund.at, seconds=False)
            if refund.amount is not None:
                title = self.tr("Refund of {amount} · {at}").format(
                    amount=format_money(refund.amount), at=at
                )
            else:
                title = self.tr("Refunds, {amount} in total · {at}").format(
                    amount=format_money(refund.total), at=at
                )
            sub = self.receipt_menu.addMenu(title)
            print_it = sub.addAction(self.tr("Print…"))
            save_it = sub.addAction(self.tr("Save as PDF…"))
            print_it.triggered.connect(
                lambda _=False, r=refund: self._receipt(as_pdf=False, refund=r)
            )
            save_it.triggered.connect(
                lambda _=False, r=refund: self._receipt(as_pdf=True, refund=r)
            )

    def _other_sandbox_text(self, record: ChargeRecord) -> str:
        """Why a charge of another built-in sandbox is only looked at: another counter's
        computer runs it, or it ran before this terminal kept its sandbox's sales."""
        made_at = counter_of_sale(record.sale_id)
        if made_at is not None and made_at != self._service.counter:
            return self.tr(
                "Made at counter {counter}, on that computer's own built-in sandbox: only that "
                "sandbox knows this charge, so it is shown read only here. Refund or query it at "
                "that counter."
            ).format(counter=made_at)
        return self.tr(
            "Made on an earlier built-in sandbox, before this terminal kept its sandbox's sales: "
            "no running sandbox knows this charge, so it is shown read only."
        )

    def _cannot_cancel_text(self) -> str:
        return self.tr(
            "This service does not cancel an unpaid QR: it expires by itself. A payment made "
            "before then can be refunded here."
        )

    def on_charge_changed(self, event: ChargeChanged) -> None:
        self._reread(event.merchant_charge_id)

    def _reread(self, merchant_charge_id: str) -> None:
        self.model.charge_changed(merchant_charge_id)
        self.timeline.charge_changed(merchant_charge_id)
        if merchant_charge_id == self.timeline.merchant_charge_id:
            self._update_actions()

    def on_money_operation_changed(self, event: MoneyOperationChanged) -> None:
        if event.merchant_charge_id != self.timeline.merchant_charge_id:
            return
        self.timeline.charge_changed(event.merchant_charge_id)
        pending_before = self.message.text()

        def settled(view: MoneyView | None) -> None:
            if (
                view is not None
                and view.pending is None
                and pending_before.startswith(pending_text(event.kind))
            ):
                self.message.setText(
                    self.tr(
                        "The service confirmed where the charge stands; you may act on it again."
                    )
                )
                self.message.setStyleSheet("")

        self._reload_view(settled)

    def refresh_timeline(self) -> None:
        """Re-read the shown timeline (inputs recorded without a charge change, e.g. a failed
        refund, publish no event)."""
        mcid = self.timeline.merchant_charge_id
        if mcid is not None:
            self.timeline.charge_changed(mcid)

    # -- actions -----------------------------------------------------------------------------

    def ask_refund(self) -> None:
        view = self.selected_view()
        if view is None or self.is_read_only(view.charge):
            return
        record = view.charge
        if view.pending is not None:
            self.message.setText(pending_text(view.pending.kind))
            return
        # What is still refundable once the pending operations are counted.
        maximum = view.refundable
        if maximum <= 0:
            return
        qr = qr_refund_words(record)
        before_capture = record.status == ChargeStatus.PRE_AUTHORIZED
        confirm = self.tr("Refund {amount}")
        if qr is not None:
            # A QR's own words: a waiting QR is cancelled, a paid one goes back to its payer.
            title, explanation, before_capture = qr.title, qr.explanation, qr.cancels
            if qr.cancels:
                confirm = qr.title
        else:
            title = self.tr("Refund")
            explanation = self.tr(
                "Refund charge {id} ({cards}). Money goes back to the customer's card; this "
                "cannot be undone."
            ).format(id=record.merchant_charge_id, cards=cards_text(record))
            if before_capture:
                explanation += " " + self.tr(
                    "It is not captured yet: this cancels the authorization."
                )
                confirm = self.tr("Cancel the authorization of {amount}")
        cancels = qr is not None and qr.cancels
        self.dialog = MoneyActionDialog(
            title=title,
            explanation=explanation,
            maximum=maximum,
            # Cancelling a QR nobody paid moves no money: no PIN (one paid by now is refused).
            pin_hash=None if cancels else self._pin_hash(),
            allow_partial=not before_capture,
            confirm=confirm,
            parent=self,
        )
        mcid = record.merchant_charge_id
        self.dialog.accepted.connect(lambda: self._refund(mcid, cancels_qr=cancels))
        self.dialog.open()

    def _refund(self, merchant_charge_id: str, *, cancels_qr: bool = False) -> None:
        assert self.dialog is not None
        amount = self.dialog.amount.centavos()
        # The service checks the PIN again: the dialog's check is only the quick answer.
        pin = self.dialog.pin.text() or None
        if cancels_qr:
            self._run(
                "cancel",
                merchant_charge_id,
                lambda: self._service.cancel_qr(merchant_charge_id),
                done=self.tr("QR cancelled."),
            )
            return
        self._run(
            "refund",
            merchant_charge_id,
            lambda: self._service.refund(merchant_charge_id, amount, pin=pin),
            done=self.tr("Refund of {amount} done.").format(amount=format_money(amount)),
        )

    def ask_capture(self) -> None:
        view = self.selected_view()
        if view is None or self.is_read_only(view.charge):
            return
        if view.pending is not None:
            self.message.setText(pending_text(view.pending.kind))
            return
        record = view.charge
        if not view.capturable or record.amount is None:
            return
        self.dialog = MoneyActionDialog(
            title=self.tr("Capture"),
            explanation=self.tr(
                "Capture charge {id} ({cards}): the authorized amount is charged to the card."
            ).format(id=record.merchant_charge_id, cards=cards_text(record)),
            maximum=record.amount,
            # A charge authorized on an earlier day is captured with the supervisor's PIN.
            pin_hash=(
                self._pin_hash()
                if self._service.authority.needs_pin(Guarded.CAPTURE, record)
                else None
            ),
            confirm=self.tr("Capture {amount}"),
            parent=self,
        )
        mcid = record.merchant_charge_id
        self.dialog.accepted.connect(lambda: self._capture(mcid))
        self.dialog.open()

    def _capture(self, merchant_charge_id: str) -> None:
        assert self.dialog is not None
        amount = self.dialog.amount.centavos()
        pin = self.dialog.pin.text() or None
        self._run(
            "capture",
            merchant_charge_id,
            lambda: self._service.capture(merchant_charge_id, amount, pin=pin),
            done=self.tr("Captured {amount}.").format(amount=format_money(amount)),
        )

    def query_now(self) -> None:
        record = self.selected()
        if record is None or self.is_read_only(record) or record.never_charged:
            return
        mcid = record.merchant_charge_id
        self._run(
            "query",
            mcid,
            lambda: self._service.refresh(mcid),
            done=self.tr("Asked the service just now."),
        )

    def _run(
        self,
        action: str,
        merchant_charge_id: str,
        call: Callable[[], Awaitable[ChargeRecord]],
        *,
        done: str,
    ) -> None:
        if self._busy is not None and not self._busy.done():
            return
        self.message.setText(self.tr("Working…"))
        self.message.setStyleSheet("")
        self.message.setToolTip("")

        async def run() -> object:
            return await call()

        self._busy = asyncio.ensure_future(run())

        def finished(task: asyncio.Future[object]) -> None:
            if task.cancelled():
                self.message.setText(self.tr("Cancelled."))
            elif isinstance(exc := task.exception(), MoneyOperationError):
                self.message.setText(money_error_text(exc))
                self.message.setStyleSheet("color: #b3261e;")
                if isinstance(exc, MoneyOperationNotStored):
                    # The store's own words (English, naming the database): the tooltip.
                    self.message.setToolTip(str(exc))
                if isinstance(exc, MoneyOperationRefused) and exc.why.mentions(
                    ReasonCode.QR_CANCEL_REFUSED
                ):
                    self.qr_cancel_refused_learned.emit()
            elif exc is not None:
                self._failed(exc, f"{action} of {merchant_charge_id}")
            else:
                self.message.setText(done)
                self.message.setStyleSheet("color: #1b6e2a;")
            self.model.charge_changed(merchant_charge_id)
            self.refresh_timeline()
            self._update_actions()
            self.action_finished.emit(action, merchant_charge_id)

        self._busy.add_done_callback(finished)
        self._update_actions()

    def _show_events(self) -> None:
        mcid = self.timeline.merchant_charge_id
        if mcid:
            self.events_requested.emit(mcid)

    def _receipt(self, *, as_pdf: bool, refund: RefundOnReceipt | None) -> None:
        """Ask for the sale's receipt (`refund` None) or that refund's, as the store has it."""
        record = self.selected()
        if record is None:
            return
        self.receipt_requested.emit(record.merchant_charge_id, as_pdf, refund)
