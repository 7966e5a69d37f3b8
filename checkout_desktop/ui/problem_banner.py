"""A banner above the tabs while the terminal cannot work: the shop's shared store, the service,
the card form or the inbox.

The status bar says the same in small type; the banner is for the clerk, who must learn that a
sale cannot go through before a customer is at the counter, not at the first failed charge.
Each problem has its own line and goes away by itself when its cause is gone. A problem can
have several sources (a refused token and the periodic reachability probe both speak of the
service): the line stays while any of them still says so, and a source clears only what it
said — except that the service or the card form answering clears the probe's word about it.
While the shop's shared store does not answer, its line stands for the inbox's too: the inbox
cannot store a notification then, and its own line's "sales still work" would be false.
"""

from __future__ import annotations

import logging
from enum import IntEnum

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from checkout_desktop.doctor.probe import Reachability, ServiceReachabilityChanged
from checkout_desktop.domain.charge_events import TokenStateChanged, TokenStatus
from checkout_desktop.domain.inbox_events import (
    HealthLevel,
    ListenerHealthChanged,
    ListenerState,
    ListenerStateChanged,
)
from checkout_desktop.domain.reasons import Reason
from checkout_desktop.domain.shop_events import SharedStoreReachabilityChanged
from checkout_desktop.ui.adapter import QtEventAdapter
from checkout_desktop.ui.card_page import CardPage
from checkout_desktop.ui.reasons import reason_text

logger = logging.getLogger(__name__)


class Problem(IntEnum):
    """What cannot work; the order is the order of the lines."""

    STORE = 0
    SERVICE = 1
    CARD_FORM = 2
    INBOX = 3


class Source(IntEnum):
    """Who said there is a problem."""

    TOKEN = 1
    CARD_PAGE = 2
    LISTENER = 3
    PROBE = 4
    STORE_WATCH = 5


class ProblemBanner(QFrame):
    """One line per current problem; hidden when there is none."""

    def __init__(
        self,
        adapter: QtEventAdapter,
        card_page: CardPage | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("problemBanner")
        self.setStyleSheet(
            "#problemBanner { background: #fdecea; border: 1px solid #b3261e; border-radius: 4px; }"
            " QLabel { color: #7a1c16; }"
        )
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(8, 4, 8, 4)
        self.lines: dict[Problem, QLabel] = {}
        self._rows: dict[Problem, QWidget] = {}
        self._card_page = card_page
        self._listening = False
        self._causes: dict[Problem, dict[Source, tuple[str, str]]] = {}
        adapter.token_state_changed.connect(self.on_token_state)
        adapter.service_reachability_changed.connect(self.on_reachability)
        adapter.listener_state_changed.connect(self.on_listener_state)
        adapter.listener_health_changed.connect(self.on_health)
        adapter.shared_store_reachability_changed.connect(self.on_store)
        if card_page is not None:
            card_page.sdk_unavailable.connect(lambda why: self.on_card_form(False, why))
            card_page.credentials_error.connect(lambda why: self.on_card_form(False, why))
            card_page.ready.connect(lambda: self.on_card_form(True, None))
        self.hide()

    def problems(self) -> list[Problem]:
        return sorted(self.lines)

    def _set(self, problem: Problem, source: Source, text: str | None, detail: str = "") -> None:
        causes = self._causes.setdefault(problem, {})
        if text is None:
            causes.pop(source, None)
        else:
            causes[source] = (text, detail)
        for shown in (problem, Problem.INBOX) if problem == Problem.STORE else (problem,):
            self._show(shown, self._said(shown))

    def _said(self, problem: Problem) -> tuple[str, str] | None:
        if problem == Problem.INBOX and self._causes.get(Problem.STORE):
            return None  # the store's line says it (see the module's note)
        causes = self._causes.get(problem)
        return causes[max(causes)] if causes else None

    def _show(self, problem: Problem, said: tuple[str, str] | None) -> None:
        if said is None:
            row = self._rows.pop(problem, None)
            if row is not None:
                self._layout.removeWidget(row)
                row.deleteLater()
                del self.lines[problem]
        else:
            label = self.lines.get(problem)
            if label is None:
                label = self._add_row(problem)
            label.setText(said[0])
            label.setToolTip(said[1])
        self.setVisible(bool(self.lines))

    def _add_row(self, problem: Problem) -> QLabel:
        row = QWidget(self)
        row_layout = QHBoxLayout(row)
        row_layout.setContentsMargins(0, 0, 0, 0)
        label = QLabel(row)
        label.setObjectName(f"problem-{problem.name.lower()}")
        label.setWordWrap(True)
        label.setTextFormat(Qt.TextFormat.PlainText)
        row_layout.addWidget(label, 1)
        if problem == Problem.CARD_FORM and self._card_page is not None:
            again = QPushButton(self.tr("Try &again"), row)
            again.setObjectName("reloadCardForm")
            again.clicked.connect(self._card_page.load)
            row_layout.addWidget(again)
        self.lines[problem] = label
        self._rows[problem] = row
        self._layout.insertWidget(sorted(self._rows).index(problem), row)
        return label

    def on_token_state(self, event: TokenStateChanged) -> None:
        if event.status == TokenStatus.FAILED:
            self._set(
                Problem.SERVICE,
                Source.TOKEN,
                self.tr(
                    "The terminal cannot reach the payment service, so no sale can be charged "
                    "now. Check the internet connection and the credentials in Settings."
                ),
                reason_text(event.error),
            )
        elif event.status == TokenStatus.VALID:
            # The service answered: older word from the probe is out of date too.
            self._set(Problem.SERVICE, Source.TOKEN, None)
            self._set(Problem.SERVICE, Source.PROBE, None)

    def on_card_form(self, working: bool, why: Reason | None) -> None:
        if working:
            self._set(Problem.CARD_FORM, Source.CARD_PAGE, None)
            self._set(Problem.CARD_FORM, Source.PROBE, None)
            return
        self._set(
            Problem.CARD_FORM,
            Source.CARD_PAGE,
            self.tr(
                "The card form did not load, so cards cannot be typed now. Check the internet "
                "connection, then try again."
            ),
            reason_text(why),
        )

    def on_listener_state(self, event: ListenerStateChanged) -> None:
        self._listening = event.state == ListenerState.LISTENING
        if event.state == ListenerState.FAILED:
            self._set(
                Problem.INBOX,
                Source.LISTENER,
                self.tr(
                    "Payment notifications cannot arrive (the inbox did not start). Sales still "
                    "work; their final status is asked of the service instead."
                ),
                event.reason or "",
            )
        elif self._listening:
            self._set(Problem.INBOX, Source.LISTENER, None)

    def on_health(self, event: ListenerHealthChanged) -> None:
        if not self._listening:
            return
        if event.level == HealthLevel.DOWN:
            self._set(
                Problem.INBOX,
                Source.LISTENER,
                self.tr(
                    "Payment notifications are not arriving. Sales still work; their final "
                    "status is asked of the service instead."
                ),
                reason_text(event.reason),
            )
        else:
            self._set(Problem.INBOX, Source.LISTENER, None)

    def on_store(self, event: SharedStoreReachabilityChanged) -> None:
        if event.reachable:
            self._set(Problem.STORE, Source.STORE_WATCH, None)
            return
        self._set(
            Problem.STORE,
            Source.STORE_WATCH,
            self.tr(
                "The shop's shared database does not answer, so no sale can be charged now and "
                "payment notifications cannot be stored. Check the database server and the "
                "network; the terminal goes on by itself once it answers."
            ),
            event.detail,
        )

    def on_reachability(self, event: ServiceReachabilityChanged) -> None:
        """The periodic probe of the service's hosts: an offline terminal is shown before the
        first sale, not at it."""
        from checkout_desktop.ui.doctor_text import host_state_text

        if event.level == Reachability.UNREACHABLE:
            self._set(
                Problem.SERVICE,
                Source.PROBE,
                self.tr(
                    "The payment service does not answer, so no sale can be charged now. "
                    "Check the internet connection."
                ),
                host_state_text(event.api, self.tr("Payment service")),
            )
        else:
            self._set(Problem.SERVICE, Source.PROBE, None)
        sdk = event.sdk
        if sdk is not None and sdk.failure is not None:
            self._set(
                Problem.CARD_FORM,
                Source.PROBE,
                self.tr(
                    "The card form's service does not answer, so cards cannot be typed now. "
                    "Check the internet connection."
                ),
                host_state_text(sdk, self.tr("Card form service")),
            )
        else:
            self._set(Problem.CARD_FORM, Source.PROBE, None)
