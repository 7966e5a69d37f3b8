"""The live event list panel: filters, search, the paged table and one delivery's details."""

from __future__ import annotations

import json
import logging
from dataclasses import replace
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QItemSelection, QModelIndex, Qt, QTimer, Signal
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from checkout_desktop.domain.deliveries import EventFilter, StoredEvent
from checkout_desktop.domain.enums import Verdict, WebhookBodyType, WebhookEventType
from checkout_desktop.domain.event_status import EVENT_STATUS_CHOICES
from checkout_desktop.domain.reasons import ReasonCode
from checkout_desktop.inbox.intake import SELF_TEST_BODY_TYPE, SELF_TEST_EVENT_TYPE
from checkout_desktop.ui.event_model import EVENT_ID_ROLE, EventListModel, event_status_text
from checkout_desktop.ui.formatting import format_instant_precise
from checkout_desktop.ui.labels import (
    event_type_label,
    verdict_explanation,
    verdict_label,
)
from checkout_desktop.ui.loop import read
from checkout_desktop.ui.qr_texts import qr_event_sentence, qr_status_text
from checkout_desktop.ui.reasons import reason_text
from checkout_desktop.ui.store_texts import show_store_failure
from checkout_desktop.ui.text_table import PaintedTextTable

if TYPE_CHECKING:
    from checkout_desktop.store.ports import EventReads

logger = logging.getLogger(__name__)

SEARCH_DEBOUNCE_MS = 300
"""A search runs once typing pauses, not on every key (a rare-match search scans the store)."""


def event_status_choice_text(key: str) -> str:
    """A choice of the status filter in the words the list shows its rows with (a QR's
    notifications in the History's words)."""
    return event_status_text(EVENT_STATUS_CHOICES[key][0])


class EventDetail(QWidget):
    """One stored delivery as received: verdict, reason, headers and the raw JSON body."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.summary = QLabel(self.tr("Select an event to see its headers and body."), self)
        self.summary.setObjectName("eventSummary")
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.summary.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        layout.addWidget(self.summary, 1)
        # The delivery as received (headers, raw JSON) is for whoever debugs an integration:
        # behind a box, as in the timeline.
        self.technical = QCheckBox(self.tr("Technical detail (headers and body as received)"))
        self.technical.setObjectName("eventTechnical")
        layout.addWidget(self.technical)
        self.text = QPlainTextEdit(self)
        self.text.setObjectName("eventRaw")
        self.text.setReadOnly(True)
        self.text.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.text.setVisible(False)
        layout.addWidget(self.text, 4)
        self.technical.toggled.connect(self.text.setVisible)
        self.shown_id: int | None = None

    def clear(self) -> None:
        self.shown_id = None
        self.summary.setText(self.tr("Select an event to see its headers and body."))
        self.summary.setToolTip("")
        self.text.clear()

    def show_event(self, event: StoredEvent, *, qr: bool = False) -> None:
        """Show a stored delivery; `qr`: its charge is a QR charge (its statuses read as the
        list's status column says them)."""
        self.shown_id = event.id
        self.summary.setToolTip("")
        words = qr_status_text if qr else None
        lines = [
            self.tr("Event #{id} received {at}").format(
                id=event.id, at=format_instant_precise(event.received_at)
            ),
            self._what_was_done(event),
        ]
        if event.reason:
            lines.append(
                self.tr("Why: {reason}").format(
                    reason=reason_text(event.reason_data, event.reason, status_words=words)
                )
            )
        if event.duplicate_of is not None:
            lines.append(self.tr("First delivery: event #{id}").format(id=event.duplicate_of))
        if event.merge_outcome:
            said = qr_event_sentence(event.shown_status, event.qr_tender, event.merge_data)
            lines.append(
                self.tr("Charge update: {outcome}").format(
                    outcome=said
                    or reason_text(event.merge_data, event.merge_outcome, status_words=words)
                )
            )
        self.summary.setText("\n".join(lines))
        parsed = event.body_json()
        body = (
            json.dumps(parsed, indent=2, ensure_ascii=False)
            if parsed is not None
            else event.body_text()
        )
        header_lines = "\n".join(
            f"{name}: {stored_header_label(value)}" for name, value in event.headers.items()
        )
        headers_title = self.tr("Headers")
        body_title = self.tr("Body")
        # The reasons as recorded, in the parser's and the program's own words (what the
        # summary above says plainly).
        recorded = "".join(
            f"# {title}\n{text}\n\n"
            for title, text in (
                (self.tr("Why, as recorded"), event.reason),
                (self.tr("Charge update, as recorded"), event.merge_outcome),
            )
            if text
        )
        self.text.setPlainText(
            f"{recorded}# {headers_title}\n{header_lines}\n\n# {body_title} "
            f"(sha256 {event.body_sha256[:16]}…)\n{body}\n"
        )

    def _what_was_done(self, event: StoredEvent) -> str:
        """The verdict's sentence; an accepted notification says whether it changed its charge
        (one that told nothing new is not said to have updated it)."""
        merge = event.merge_data
        if event.verdict == Verdict.ACCEPTED and merge is not None:
            if merge.code in (ReasonCode.INBOX_DUPLICATE, ReasonCode.INBOX_IGNORED):
                return self.tr("Accepted: stored; it did not change its charge (why below).")
            if merge.code == ReasonCode.INBOX_NOT_APPLIED:
                return self.tr(
                    "Accepted: stored, but its charge could not be updated with it (below)."
                )
            if merge.code in (ReasonCode.INBOX_UNMADE_FIRST, ReasonCode.INBOX_UNMADE):
                return self.tr("Accepted: stored; its charge was not made by this terminal.")
        return verdict_explanation(event.verdict.value)


def stored_header_label(value: str) -> str:
    """A header value as stored, with the inbox's marker for a credential (which is never
    stored: `inbox.intake.credential_marker`) said in the screen's language."""
    if not (value.startswith("[not stored") and value.endswith("]")):
        return value
    shape = value[len("[not stored") : -1].removeprefix(":").strip()
    if not shape:
        return QCoreApplication.translate("EventDetail", "[not stored]")
    known = {
        "empty": QCoreApplication.translate("EventDetail", "[not stored: empty]"),
        "bare token": QCoreApplication.translate("EventDetail", "[not stored: bare token]"),
        "unrecognised scheme": QCoreApplication.translate(
            "EventDetail", "[not stored: unrecognised scheme]"
        ),
    }
    if shape in known:
        return known[shape]
    if shape.endswith(" scheme"):
        return QCoreApplication.translate("EventDetail", "[not stored: {scheme} scheme]").format(
            scheme=shape.removesuffix(" scheme")
        )
    return value


class EventsPanel(QWidget):
    """Filters above the live list, the delivery's details beside it."""

    charge_requested = Signal(str)
    """The user asked to open a charge's timeline (double-click on an event)."""

    def __init__(self, repository: EventReads, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._repo = repository
        # The inbox's own health self-tests are hidden from the start (see current_filter).
        self.model = EventListModel(
            repository,
            event_filter=EventFilter(exclude_types=(SELF_TEST_EVENT_TYPE, SELF_TEST_BODY_TYPE)),
            parent=self,
        )

        self.type_filter = QComboBox(self)
        self.type_filter.setObjectName("typeFilter")
        self.type_filter.addItem(self.tr("Any type"), ())
        # Each choice in the words the type column shows its rows with (one source).
        for types in (
            (WebhookEventType.TRANSACTION_UPDATE.value, WebhookBodyType.PAYMENT.value),
            (WebhookEventType.CHALLENGE_3DS_UPDATE.value, WebhookBodyType.THREE_DS_CHALLENGE.value),
            (SELF_TEST_EVENT_TYPE, SELF_TEST_BODY_TYPE),
        ):
            self.type_filter.addItem(event_type_label(types[0]), types)
        self.show_self_tests = QCheckBox(self.tr("Show health &self-tests"), self)
        self.show_self_tests.setObjectName("showSelfTests")
        self.show_self_tests.setToolTip(
            self.tr("The inbox checks itself every minute with a test delivery; shown on request.")
        )
        self.status_filter = QComboBox(self)
        self.status_filter.setObjectName("statusFilter")
        self.status_filter.addItem(self.tr("Any status"), None)
        # The words the list shows (a QR's notification in the QR's words), each finding
        # exactly the rows shown with it.
        for key in EVENT_STATUS_CHOICES:
            self.status_filter.addItem(event_status_choice_text(key), key)
        self.verdict_filter = QComboBox(self)
        self.verdict_filter.setObjectName("verdictFilter")
        self.verdict_filter.addItem(self.tr("Any delivery"), None)
        for verdict in Verdict:
            self.verdict_filter.addItem(verdict_label(verdict.value), verdict.value)
        self.charge_filter = QLineEdit(self)
        self.charge_filter.setObjectName("chargeFilter")
        self.charge_filter.setPlaceholderText(self.tr("Charge id"))
        self.charge_filter.setClearButtonEnabled(True)
        self.search = QLineEdit(self)
        self.search.setObjectName("eventSearch")
        # The search reads the notifications as stored (the service's codes, English reasons),
        # not the list's words: the placeholder promises only what it finds.
        self.search.setPlaceholderText(self.tr("Search ids or the notification as received…"))
        self.search.setToolTip(
            self.tr(
                "Finds charge and notification ids, and any text of a notification as it "
                "arrived, in the service's words (PAID, say). To see one status, choose it "
                "in the status list."
            )
        )
        self.search.setClearButtonEnabled(True)
        self.refresh_button = QPushButton(self.tr("Refresh"), self)
        self.refresh_button.setToolTip(
            self.tr("Reload from the newest event (shows what another process stored)")
        )
        self.count_label = QLabel(self)
        self.count_label.setObjectName("eventCount")

        filters = QHBoxLayout()
        filters.addWidget(self.type_filter)
        filters.addWidget(self.status_filter)
        filters.addWidget(self.verdict_filter)
        filters.addWidget(self.show_self_tests)
        filters.addWidget(self.charge_filter, 1)
        filters.addWidget(self.search, 2)
        filters.addWidget(self.refresh_button)

        self.table = PaintedTextTable(self)
        self.table.setObjectName("eventTable")
        self.table.setModel(self.model)
        self.table.painted = self.model.painted
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        self.table.verticalHeader().setVisible(False)
        # Fixed row heights and no per-row size hints: the view never measures every row.
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.table.verticalHeader().setDefaultSectionSize(self.table.fontMetrics().height() + 8)
        header = self.table.horizontalHeader()
        header.setStretchLastSection(True)
        # The status column holds the longest of the words it shows ("Aguardando pagamento").
        metrics = self.table.fontMetrics()
        widest = max(
            metrics.horizontalAdvance(self.status_filter.itemText(i))
            for i in range(1, self.status_filter.count())
        )
        for column, width in enumerate((150, 200, max(130, widest + 16), 230, 100)):
            header.resizeSection(column, width)

        self.detail = EventDetail(self)
        splitter = QSplitter(Qt.Orientation.Vertical, self)
        splitter.addWidget(self.table)
        splitter.addWidget(self.detail)
        splitter.setStretchFactor(0, 3)
        splitter.setStretchFactor(1, 2)

        layout = QVBoxLayout(self)
        layout.addLayout(filters)
        layout.addWidget(splitter, 1)
        layout.addWidget(self.count_label)

        self._search_timer = QTimer(self)
        self._search_timer.setSingleShot(True)
        self._search_timer.setInterval(SEARCH_DEBOUNCE_MS)
        self._search_timer.timeout.connect(self.apply_filters)
        for combo in (self.type_filter, self.status_filter, self.verdict_filter):
            combo.currentIndexChanged.connect(self.apply_filters)
        self.show_self_tests.toggled.connect(self.apply_filters)
        self.charge_filter.textChanged.connect(self._search_timer.start)
        self.search.textChanged.connect(self._search_timer.start)
        self.refresh_button.clicked.connect(self.model.refresh)
        self.table.selectionModel().selectionChanged.connect(self._selection_changed)
        self.table.doubleClicked.connect(self._double_clicked)
        self.model.modelReset.connect(self._after_reset)
        self.model.rowsInserted.connect(self._update_count)
        self.model.search_progress.connect(self._search_progress)
        self._update_count()

    def current_filter(self) -> EventFilter:
        types = self.type_filter.currentData() or ()
        status = self.status_filter.currentData()
        verdict = self.verdict_filter.currentData()
        self_tests = (SELF_TEST_EVENT_TYPE, SELF_TEST_BODY_TYPE)
        # The inbox's heartbeat stores a self-test every minute: hidden unless asked for.
        hide = not self.show_self_tests.isChecked() and tuple(types) != self_tests
        return EventFilter(
            types=tuple(types),
            exclude_types=self_tests if hide else (),
            shown=EVENT_STATUS_CHOICES.get(status, ()) if status else (),
            verdicts=(Verdict(verdict),) if verdict else (),
            charge=self.charge_filter.text().strip() or None,
            text=self.search.text().strip() or None,
        )

    def apply_filters(self) -> None:
        self._search_timer.stop()
        self.model.set_filter(self.current_filter())

    def show_charge(self, merchant_charge_id: str) -> None:
        """Filter the list to one charge's deliveries."""
        self.charge_filter.setText(merchant_charge_id)
        self.apply_filters()

    def notify_stored(self, event_id: int) -> None:
        self.model.notify_stored(event_id)

    def _after_reset(self) -> None:
        self.detail.clear()
        self._update_count()

    def _update_count(self) -> None:
        more = self.model.canFetchMore()
        shown = self.model.rowCount()
        if more:
            text = self.tr("{n} events shown; scroll for older ones").format(n=shown)
        elif shown == 0:
            charge = _only_the_charge(self.model.event_filter)
            text = (
                self.tr("No events")
                if charge is None
                else self.tr("No notification has arrived for charge {id}.").format(id=charge)
            )
        elif shown == 1:
            text = self.tr("1 event")
        else:
            text = self.tr("{n} events").format(n=shown)
        self.count_label.setText(text)

    def _search_progress(self, scanned_to: int, scanning: bool) -> None:
        if scanning:
            self.count_label.setText(
                self.tr("Searching… {n} found so far (looked back to event #{id})").format(
                    n=self.model.rowCount(), id=scanned_to
                )
            )
        else:
            self._update_count()

    def _selection_changed(self, selected: QItemSelection, _deselected: QItemSelection) -> None:
        indexes = selected.indexes()
        if not indexes:
            return
        event_id = self.model.data(indexes[0], EVENT_ID_ROLE)
        if not isinstance(event_id, int):
            return

        def unread(exc: BaseException) -> None:
            chosen = self.table.selectionModel().selectedIndexes()
            if chosen and self.model.data(chosen[0], EVENT_ID_ROLE) != event_id:
                return
            self.detail.clear()
            # Choosing the event again reads it again.
            if not show_store_failure(self.detail.summary, exc, f"event {event_id} not read"):
                logger.error("event %s could not be read", event_id, exc_info=exc)

        read(
            self._repo.get(event_id),
            lambda stored: self._show_detail(event_id, stored),
            failed=unread,
        )

    def _show_detail(self, event_id: int, stored: StoredEvent | None) -> None:
        chosen = self.table.selectionModel().selectedIndexes()
        if chosen and self.model.data(chosen[0], EVENT_ID_ROLE) != event_id:
            return  # another row was chosen while this one was read
        if stored is None:
            self.detail.clear()
            return
        summary = self.model.summary(chosen[0].row()) if chosen else None
        self.detail.show_event(stored, qr=summary is not None and bool(summary.qr_tender))

    def _double_clicked(self, index: QModelIndex) -> None:
        summary = self.model.summary(index.row())
        if summary is not None and summary.merchant_charge_id:
            self.charge_requested.emit(summary.merchant_charge_id)


def _only_the_charge(chosen: EventFilter) -> str | None:
    """The charge a filter asks for, when it asks for nothing else (the self-tests left out by
    default aside): then an empty list means no notification named that charge."""
    if chosen.charge is None:
        return None
    rest = replace(chosen, charge=None, exclude_types=())
    return chosen.charge if rest == EventFilter() else None
