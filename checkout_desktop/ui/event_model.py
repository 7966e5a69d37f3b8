"""The live event list's model: keyset-paged over the store, new rows inserted in coalesced bursts.

Nothing here is proportional to the store's size: the first page is one indexed query, more
pages come only when the view scrolls to the end (`canFetchMore`/`fetchMore`, keyset by id,
never OFFSET), and live arrivals are read with one `id > watermark` query per burst.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import (
    QModelIndex,
    QObject,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QBrush, QColor

from checkout_desktop.domain.deliveries import MAX_PAGE, EventFilter, EventPage, EventSummary
from checkout_desktop.ui.formatting import format_instant
from checkout_desktop.ui.labels import event_type_label, status_label, verdict_label
from checkout_desktop.ui.loop import read
from checkout_desktop.ui.qr_texts import qr_event_sentence, qr_status_text
from checkout_desktop.ui.reasons import reason_text
from checkout_desktop.ui.table_model import ModelIndex, ReadOnlyTableModel

if TYPE_CHECKING:
    from checkout_desktop.store.ports import EventReads

logger = logging.getLogger(__name__)


def event_status_text(shown: str | None) -> str:
    """A delivery's shown status (`domain/event_status.py`) in the clerk's words: the History's
    for a QR's notification (awaiting payment, paid, expired, cancelled), a card's as labelled."""
    if shown == "AWAITING_PAYMENT":
        return qr_status_text("PRE_AUTHORIZED")
    return status_label(shown)


EVENT_ID_ROLE = Qt.ItemDataRole.UserRole + 1
"""The stored event's id (int), for the detail pane."""
VERDICT_ROLE = Qt.ItemDataRole.UserRole + 2
"""The stored verdict value (str), untranslated."""

COALESCE_MS = 30
"""Under load, arrivals go in at most once per 30 ms (DESIGN: one repaint per ~30 ms, never one
per event); a full repaint of the table (ui/text_table.py) costs ≈ 1.5 ms of CPU on a two-core
machine, against ≈ 7 ms painted through the item delegate."""

PAINT_SHARE = 0.25
"""While rows keep coming, the list's repaints take at most about this share of the main thread:
inserts are spaced COALESCE_MS apart, or four repaints apart when a repaint costs more than a
quarter of that (a slow or very busy machine), so the window and the inbox on the same thread
keep up instead of queueing behind the list."""

SCAN_BUDGET_MS = 20.0
"""A text search is a scan; it runs in id windows sized to take about this long each, with the
event loop running in between, so a rare match in a million rows never freezes the window."""
_FIRST_WINDOW = 20_000
_MIN_WINDOW = 1_000
_MAX_WINDOW = 2_000_000

_VERDICT_BRUSHES = {
    "quarantined": QBrush(QColor("#b3261e")),
    "duplicate": QBrush(QColor("#7a5c00")),
    "unknown": QBrush(QColor("#5b4fa0")),
    "self_test": QBrush(QColor("#707070")),
}

# The event table paints from row_texts (ui/text_table.py); other views (and the tests) ask
# data() for seven or eight roles of every visible cell at each repaint: the roles are compared
# as plain ints, the ones this model does not answer
# return at once, and a row's texts are formatted once and kept (see EventListModel._texts).
_DISPLAY = int(Qt.ItemDataRole.DisplayRole)
_TOOLTIP = int(Qt.ItemDataRole.ToolTipRole)
_FOREGROUND = int(Qt.ItemDataRole.ForegroundRole)
_EVENT_ID = int(EVENT_ID_ROLE)
_VERDICT = int(VERDICT_ROLE)
_ANSWERED_ROLES = frozenset({_DISPLAY, _TOOLTIP, _FOREGROUND, _EVENT_ID, _VERDICT})
_CHARGE_COLUMN = 3
_VERDICT_COLUMN = 4
_REASON_COLUMN = 5
# A verdict's colour as its row's text colours (only the verdict's own column has one).
_VERDICT_COLOURS = {
    verdict: tuple(brush if column == _VERDICT_COLUMN else None for column in range(6))
    for verdict, brush in _VERDICT_BRUSHES.items()
}


class EventListModel(ReadOnlyTableModel):
    """Stored webhook deliveries, newest first, under one EventFilter."""

    COLUMNS = ("received", "type", "status", "charge", "verdict", "reason")

    burst_inserted = Signal(int)
    """How many rows one coalesced burst inserted at the top."""
    search_progress = Signal(int, bool)
    """(lowest id scanned so far, still scanning) while a text search runs window by window."""

    def __init__(
        self,
        repository: EventReads,
        *,
        page_size: int = 200,
        coalesce_ms: int = COALESCE_MS,
        first_scan_window: int = _FIRST_WINDOW,
        event_filter: EventFilter | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        if not 1 <= page_size <= MAX_PAGE:
            raise ValueError(f"a page holds 1 to {MAX_PAGE} rows, not {page_size}")
        self._repo = repository
        self._page_size = page_size
        self._filter = event_filter or EventFilter()
        self._rows: list[EventSummary] = []
        # Each shown row's six texts, by event id, formatted at its first paint. Texts are
        # fixed for a run (the language applies at the next start); a reload starts afresh.
        self._texts: dict[int, tuple[str, ...]] = {}
        self._next_before: int | None = None
        self._exhausted = False
        # Every id at or below the watermark has been considered: shown, or filtered out.
        self._watermark = 0
        self._pending_max = 0
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._flush)
        self._coalesce_s = coalesce_ms / 1000
        self._last_flush = -1e9
        # The view's repaint cost (CPU seconds, smoothed), as the view reports it.
        self._paint_s = 0.0
        # Windowed scanning of text searches: `_scan_before` is the id below which nothing has
        # been scanned yet; `_wanted` how many more rows the current step should find.
        self._first_window = max(1, first_scan_window)
        self._window = self._first_window
        self._scan_before = 0
        self._wanted = 0
        self._step_timer = QTimer(self)
        self._step_timer.setSingleShot(True)
        self._step_timer.setInterval(0)
        self._step_timer.timeout.connect(self._scan_step)
        # A read under way (a store that must wait answers later); `_generation` tells a
        # first page that was asked for before a newer reload.
        self._reading = False
        self._flushing = False
        self._generation = 0
        self._headers = (
            self.tr("Received"),
            self.tr("Type"),
            self.tr("Status"),
            self.tr("Charge"),
            self.tr("Delivery"),
            self.tr("Reason"),
        )
        self._load_first_page()

    # -- filtering --------------------------------------------------------------------------

    @property
    def event_filter(self) -> EventFilter:
        return self._filter

    def set_filter(self, event_filter: EventFilter) -> None:
        """Show only matching deliveries; reloads from the newest page."""
        if event_filter == self._filter:
            return
        self._filter = event_filter
        self._load_first_page()

    def refresh(self) -> None:
        """Reload from the newest page (e.g. after another process wrote to the store)."""
        self._load_first_page()

    @property
    def scanning(self) -> bool:
        """A text search is still looking for its page (rows arrive as they are found)."""
        return self._step_timer.isActive() or (self._reading and self._windowed())

    def _windowed(self) -> bool:
        return bool(self._filter.text)

    def _load_first_page(self) -> None:
        """Read the newest page; the rows are replaced once it is read."""
        self._timer.stop()
        self._step_timer.stop()
        self._generation += 1
        generation = self._generation
        chosen = self._filter
        windowed = self._windowed()

        async def first() -> tuple[int, EventPage | None]:
            # The watermark is taken before the page: a row committed in between is then read
            # by the next burst instead of being missed.
            watermark = await self._repo.latest_id()
            if windowed:
                return watermark, None
            page = await self._repo.page(chosen, before=watermark + 1, limit=self._page_size)
            return watermark, page

        def loaded(got: tuple[int, EventPage | None]) -> None:
            if generation != self._generation:
                return  # a newer reload is on its way
            self._reading = False
            watermark, page = got
            self.beginResetModel()
            self._texts.clear()
            self._watermark = watermark
            self._pending_max = watermark
            if page is None:
                self._rows = []
                self._next_before = None
                self._exhausted = watermark == 0
                self._scan_before = watermark + 1
                self._window = self._first_window
            else:
                self._rows = list(page.rows)
                self._next_before = page.next_before
                self._exhausted = page.next_before is None
            self.endResetModel()
            if page is None and not self._exhausted:
                self._wanted = self._page_size
                self._step_timer.start()

        self._reading = True
        read(first(), loaded, failed=self._read_failed)

    def _read_failed(self, exc: BaseException) -> None:
        self._reading = False
        logger.error("the event list could not be read", exc_info=exc)

    def _scan_step(self) -> None:
        """Scan one id window of a text search; go on (after the loop runs) until a page."""
        floor = max(1, self._scan_before - self._window)
        started = time.perf_counter()
        generation = self._generation
        self._reading = True

        def scanned(page: EventPage) -> None:
            self._reading = False
            if generation == self._generation:
                self._scanned(page, floor, started)

        read(
            self._repo.page(
                self._filter,
                before=self._scan_before,
                floor=floor,
                limit=min(MAX_PAGE, max(1, self._wanted)),
            ),
            scanned,
            failed=self._read_failed,
        )

    def _scanned(self, page: EventPage, floor: int, started: float) -> None:
        took_ms = (time.perf_counter() - started) * 1000
        # Size the next window so one step takes about the budget.
        if took_ms < SCAN_BUDGET_MS / 2:
            self._window = min(_MAX_WINDOW, self._window * 2)
        elif took_ms > SCAN_BUDGET_MS:
            self._window = max(min(_MIN_WINDOW, self._first_window), self._window // 2)
        if page.next_before is not None:
            self._scan_before = page.next_before  # the window holds more: resume inside it
        else:
            self._scan_before = floor
        self._exhausted = page.next_before is None and floor <= 1
        if page.rows:
            first = len(self._rows)
            self.beginInsertRows(QModelIndex(), first, first + len(page.rows) - 1)
            self._rows.extend(page.rows)
            self.endInsertRows()
            self._wanted -= len(page.rows)
        more = self._wanted > 0 and not self._exhausted
        if more:
            self._step_timer.start()
        self.search_progress.emit(self._scan_before, more)

    # -- paging -----------------------------------------------------------------------------

    def canFetchMore(self, parent: ModelIndex = QModelIndex()) -> bool:  # noqa: B008
        if parent.isValid():
            return False
        return not self._exhausted and not self.scanning and not self._reading

    def fetchMore(self, parent: ModelIndex = QModelIndex()) -> None:  # noqa: B008
        if parent.isValid() or self._exhausted or self.scanning or self._reading:
            return
        if self._windowed():
            self._wanted = self._page_size
            self._scan_step()
            return
        generation = self._generation
        self._reading = True

        def loaded(page: EventPage) -> None:
            self._reading = False
            if generation != self._generation:
                return
            self._next_before = page.next_before
            self._exhausted = page.next_before is None
            if not page.rows:
                return
            first = len(self._rows)
            self.beginInsertRows(QModelIndex(), first, first + len(page.rows) - 1)
            self._rows.extend(page.rows)
            self.endInsertRows()

        read(
            self._repo.page(self._filter, before=self._next_before, limit=self._page_size),
            loaded,
            failed=self._read_failed,
        )

    # -- live arrivals ----------------------------------------------------------------------

    def stop(self) -> None:
        """Drop the inserts and search steps scheduled (the window closes, then the store)."""
        self._timer.stop()
        self._step_timer.stop()

    def notify_stored(self, event_id: int) -> None:
        """A delivery was committed; it (and any burst with it) appears within ~30 ms.

        A throttle, not a fixed delay: after a quiet spell the row goes in at once (on the next
        loop turn, so a burst published together still lands in one insert); while rows keep
        coming, inserts happen at most once per 30 ms (longer when a repaint costs more than a
        quarter of that: PAINT_SHARE).
        """
        if event_id > self._pending_max:
            self._pending_max = event_id
        if not self._timer.isActive():
            since = time.monotonic() - self._last_flush
            wait_s = max(0.0, self.insert_interval_s() - since)
            self._timer.start(int(wait_s * 1000))

    def painted(self, cpu_s: float) -> None:
        """The view's last repaint took `cpu_s` of CPU (it spaces later inserts; see
        PAINT_SHARE)."""
        self._paint_s = cpu_s if not self._paint_s else 0.75 * self._paint_s + 0.25 * cpu_s

    def insert_interval_s(self) -> float:
        """The least time between two inserts while rows keep coming."""
        return max(self._coalesce_s, self._paint_s / PAINT_SHARE)

    def flush_now(self) -> None:
        """Insert pending arrivals immediately (the timer's work, for callers that cannot wait)."""
        self._timer.stop()
        self._flush()

    def _flush(self) -> None:
        if self._flushing:
            return  # the burst under way re-arms the timer for what came meanwhile
        self._last_flush = time.monotonic()
        target = self._pending_max
        generation = self._generation
        chosen = self._filter
        after_watermark = self._watermark

        async def fresh_rows() -> tuple[list[EventSummary], int] | None:
            fresh: list[EventSummary] = []
            after = after_watermark
            while True:
                batch = await self._repo.newer(chosen, after=after, limit=MAX_PAGE)
                fresh.extend(batch)
                if len(batch) < MAX_PAGE:
                    return fresh, after
                after = batch[-1].id
                if len(fresh) > 4 * MAX_PAGE:
                    # A flood far beyond what a person can read: start again from the top
                    # page rather than holding the whole burst in memory.
                    return None

        def arrived(got: tuple[list[EventSummary], int] | None) -> None:
            self._flushing = False
            if self._pending_max > target:
                self._timer.start(0)
            if generation != self._generation:
                return  # reloaded meanwhile: the new first page holds these rows
            if got is None:
                self.refresh()
                return
            fresh, after = got
            top = max([target, after, *(row.id for row in fresh)])
            self._watermark = max(self._watermark, top)
            if not fresh:
                return
            fresh.reverse()  # newest first, like the rest of the list
            self.beginInsertRows(QModelIndex(), 0, len(fresh) - 1)
            self._rows[0:0] = fresh
            self.endInsertRows()
            self.burst_inserted.emit(len(fresh))

        self._flushing = True
        read(fresh_rows(), arrived, failed=self._flush_failed)

    def _flush_failed(self, exc: BaseException) -> None:
        self._flushing = False
        self._read_failed(exc)

    # -- model ------------------------------------------------------------------------------

    def rowCount(self, parent: ModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._rows)

    def summary(self, row: int) -> EventSummary | None:
        if 0 <= row < len(self._rows):
            return self._rows[row]
        return None

    def row_of(self, event_id: int) -> int | None:
        for row, summary in enumerate(self._rows):
            if summary.id == event_id:
                return row
        return None

    # -- painting (ui/text_table.PaintedRows: the view paints rows without data() per cell) --

    def row_key(self, row: int) -> int:
        return self._rows[row].id

    def row_texts(self, row: int) -> tuple[str, ...]:
        return self._texts_of(self._rows[row])

    def row_colours(self, row: int) -> tuple[QBrush | None, ...] | None:
        return _VERDICT_COLOURS.get(self._rows[row].verdict.value)

    def data(self, index: ModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role not in _ANSWERED_ROLES or not index.isValid():
            return None
        row, column = index.row(), index.column()
        if not (0 <= row < len(self._rows) and 0 <= column < len(self.COLUMNS)):
            return None
        event = self._rows[row]
        if role == _DISPLAY:
            return self._texts_of(event)[column]
        if role == _TOOLTIP:
            if column == _REASON_COLUMN and event.reason:
                words = qr_status_text if event.qr_tender else None
                return reason_text(event.reason_data, event.reason, status_words=words)
            if column == _CHARGE_COLUMN and event.charge_id:
                return event.charge_id
            return None
        if role == _FOREGROUND:
            return _VERDICT_BRUSHES.get(event.verdict.value) if column == _VERDICT_COLUMN else None
        if role == _EVENT_ID:
            return event.id
        return event.verdict.value

    def _texts_of(self, event: EventSummary) -> tuple[str, ...]:
        """The row's texts, formatted at its first paint and kept (see `_texts`)."""
        texts = self._texts.get(event.id)
        if texts is None:
            texts = self._texts[event.id] = self._row_texts(event)
        return texts

    @classmethod
    def _row_texts(cls, event: EventSummary) -> tuple[str, ...]:
        return tuple(cls._display(event, name) for name in cls.COLUMNS)

    @staticmethod
    def _display(event: EventSummary, name: str) -> str:
        if name == "received":
            return format_instant(event.received_at)
        if name == "type":
            return event_type_label(event.event_type or event.body_type)
        if name == "status":
            return event_status_text(event.shown_status or event.status)
        if name == "charge":
            return event.merchant_charge_id or event.charge_id or "—"
        if name == "verdict":
            return verdict_label(event.verdict.value)
        if not event.reason:
            # A QR's notification that moved its charge: what it did, in the status column's
            # word (the merge's reason names charge statuses, which a QR's words do not follow).
            said = qr_event_sentence(event.shown_status, event.qr_tender, event.merge_data)
            if said is not None:
                return said
        # A QR charge's statuses read in the reason as in the status column beside it.
        words = qr_status_text if event.qr_tender else None
        reason = (
            reason_text(event.reason_data, event.reason, status_words=words)
            if event.reason
            else reason_text(event.merge_data, event.merge_outcome, status_words=words)
        )
        return reason.splitlines()[0] if reason else ""
