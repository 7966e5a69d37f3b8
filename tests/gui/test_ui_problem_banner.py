"""The problem banner: shown while the service, the card form or the inbox cannot work."""

from __future__ import annotations

from datetime import UTC, datetime

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QPushButton, QWidget
from pytestqt.qtbot import QtBot

from checkout_desktop.doctor.probe import HostState, Reachability, ServiceReachabilityChanged
from checkout_desktop.doctor.report import Finding
from checkout_desktop.domain.charge_events import TokenStateChanged, TokenStatus
from checkout_desktop.domain.events import EventBus
from checkout_desktop.domain.inbox_events import (
    HealthLevel,
    ListenerHealthChanged,
    ListenerState,
    ListenerStateChanged,
)
from checkout_desktop.domain.reasons import Reason, ReasonCode
from checkout_desktop.ui.adapter import QtEventAdapter
from checkout_desktop.ui.problem_banner import Problem, ProblemBanner
from checkout_desktop.ui.reasons import reason_text


class FakeCardPage(QObject):
    """The card page's three signals the banner listens to, and a load() it may call."""

    ready = Signal()
    sdk_unavailable = Signal(object)  # Reason
    credentials_error = Signal(object)  # Reason

    def __init__(self) -> None:
        super().__init__()
        self.loads = 0

    def load(self) -> None:
        self.loads += 1


def _token(status: TokenStatus, error: Reason | None = None) -> TokenStateChanged:
    return TokenStateChanged(
        status=status, valid_until=None, seconds_left=None, token_requests=1, error=error
    )


def test_each_problem_shows_while_it_lasts(qtbot: QtBot) -> None:
    bus = EventBus()
    adapter = QtEventAdapter(bus)
    page = FakeCardPage()
    window = QWidget()
    qtbot.addWidget(window)
    banner = ProblemBanner(adapter, page, window)  # type: ignore[arg-type]
    window.show()
    assert banner.isHidden()

    refused = Reason.of(
        ReasonCode.TOKEN_SERVER_CONNECTION,
        operation=Reason.of(ReasonCode.OP_TOKEN),
        error="ConnectError",
    )
    adapter.token_state_changed.emit(_token(TokenStatus.FAILED, refused))
    assert banner.isVisible()
    assert banner.problems() == [Problem.SERVICE]
    assert "cannot reach the payment service" in banner.lines[Problem.SERVICE].text()
    assert banner.lines[Problem.SERVICE].toolTip() == reason_text(refused)

    unavailable = Reason.of(ReasonCode.SDK_LOAD)
    page.sdk_unavailable.emit(unavailable)
    assert banner.lines[Problem.CARD_FORM].toolTip() == reason_text(unavailable)
    assert banner.problems() == [Problem.SERVICE, Problem.CARD_FORM]
    again = banner.findChild(QPushButton, "reloadCardForm")
    assert again is not None
    again.click()
    assert page.loads == 1

    now = datetime(2026, 11, 23, tzinfo=UTC)
    adapter.listener_state_changed.emit(
        ListenerStateChanged(state=ListenerState.LISTENING, url="https://127.0.0.1:1/")
    )
    adapter.listener_health_changed.emit(
        ListenerHealthChanged(
            level=HealthLevel.DOWN, reason=Reason.of(ReasonCode.HEALTH_LISTENER_DOWN), since=now
        )
    )
    assert banner.problems() == [Problem.SERVICE, Problem.CARD_FORM, Problem.INBOX]

    # Each goes away by itself once its cause is gone.
    adapter.token_state_changed.emit(_token(TokenStatus.VALID))
    page.ready.emit()
    adapter.listener_health_changed.emit(
        ListenerHealthChanged(
            level=HealthLevel.DEGRADED, reason=Reason.of(ReasonCode.HEALTH_NO_PUBLIC_URL), since=now
        )
    )
    qtbot.waitUntil(lambda: banner.problems() == [], timeout=2000)
    assert banner.isHidden()


def test_a_listener_that_cannot_start_is_a_problem(qtbot: QtBot) -> None:
    adapter = QtEventAdapter(EventBus())
    banner = ProblemBanner(adapter)
    qtbot.addWidget(banner)
    adapter.listener_state_changed.emit(
        ListenerStateChanged(state=ListenerState.FAILED, url=None, reason="port 8787 is taken")
    )
    assert banner.problems() == [Problem.INBOX]
    assert banner.lines[Problem.INBOX].toolTip() == "port 8787 is taken"


def test_a_listener_that_cannot_start_is_also_said_in_a_dialog_once(qtbot: QtBot) -> None:
    from PySide6.QtWidgets import QApplication, QMessageBox, QWidget

    from checkout_desktop.ui.listener_notice import ListenerFailureNotice

    def dialogs() -> list[QMessageBox]:
        return [
            w
            for w in QApplication.topLevelWidgets()
            if isinstance(w, QMessageBox)
            and w.objectName() == "listenerCannotStart"
            and w.isVisible()
        ]

    adapter = QtEventAdapter(EventBus())
    window = QWidget()
    qtbot.addWidget(window)
    window.show()
    notice = ListenerFailureNotice(adapter, window)
    failed = ListenerStateChanged(state=ListenerState.FAILED, url=None, reason="port 8787 is taken")
    adapter.listener_state_changed.emit(failed)
    qtbot.waitUntil(lambda: len(dialogs()) == 1, timeout=2000)
    box = dialogs()[0]
    assert "cannot arrive" in box.text() and "Sales still work" in box.informativeText()
    assert box.detailedText() == "Technical detail: port 8787 is taken"
    box.accept()
    qtbot.waitUntil(lambda: not dialogs(), timeout=2000)
    # Not again in this run: the banner and the status bar keep saying it.
    adapter.listener_state_changed.emit(failed)
    assert not dialogs() and notice.box is None


def _probe(
    level: Reachability, *, api_failure: bool, sdk_failure: bool
) -> ServiceReachabilityChanged:
    failure = Finding.SDK_CONNECT_FAILED
    return ServiceReachabilityChanged(
        level=level,
        api=HostState(host="api.example", failure=failure if api_failure else None, error="x"),
        sdk=HostState(host="sdk.example", failure=failure if sdk_failure else None, error="y"),
        since=datetime(2026, 11, 23, tzinfo=UTC),
        next_probe_s=15.0,
    )


def test_the_reachability_probe_shows_an_offline_terminal_before_any_sale(qtbot: QtBot) -> None:
    # Nothing was charged and no token asked for: the periodic probe alone tells the clerk.
    adapter = QtEventAdapter(EventBus())
    page = FakeCardPage()
    window = QWidget()
    qtbot.addWidget(window)
    banner = ProblemBanner(adapter, page, window)  # type: ignore[arg-type]
    window.show()
    page.ready.emit()
    offline = _probe(Reachability.UNREACHABLE, api_failure=True, sdk_failure=True)
    adapter.service_reachability_changed.emit(offline)
    assert banner.isVisible()
    assert banner.problems() == [Problem.SERVICE, Problem.CARD_FORM]
    assert "does not answer" in banner.lines[Problem.SERVICE].text()
    assert "api.example" in banner.lines[Problem.SERVICE].toolTip()
    assert "sdk.example" in banner.lines[Problem.CARD_FORM].toolTip()

    # The card service alone is down: the service's line goes, the card form's stays.
    adapter.service_reachability_changed.emit(
        _probe(Reachability.CARD_FORM_UNREACHABLE, api_failure=False, sdk_failure=True)
    )
    qtbot.waitUntil(lambda: banner.problems() == [Problem.CARD_FORM], timeout=2000)

    # Back online: nothing left.
    adapter.service_reachability_changed.emit(
        _probe(Reachability.REACHABLE, api_failure=False, sdk_failure=False)
    )
    qtbot.waitUntil(lambda: banner.problems() == [], timeout=2000)
    assert banner.isHidden()


def test_each_source_clears_only_what_it_said_and_an_answer_clears_the_probe(
    qtbot: QtBot,
) -> None:
    adapter = QtEventAdapter(EventBus())
    page = FakeCardPage()
    window = QWidget()
    qtbot.addWidget(window)
    banner = ProblemBanner(adapter, page, window)  # type: ignore[arg-type]
    window.show()
    refused = Reason.of(
        ReasonCode.TOKEN_SERVER_CONNECTION,
        operation=Reason.of(ReasonCode.OP_TOKEN),
        error="ConnectError",
    )
    # The token was refused and the card form failed to load; the hosts answer again later.
    adapter.token_state_changed.emit(_token(TokenStatus.FAILED, refused))
    page.sdk_unavailable.emit(Reason.of(ReasonCode.SDK_LOAD))
    adapter.service_reachability_changed.emit(
        _probe(Reachability.REACHABLE, api_failure=False, sdk_failure=False)
    )
    # A host that answers does not make the refused token or the unloaded form work.
    assert banner.problems() == [Problem.SERVICE, Problem.CARD_FORM]

    # The other way round: a probe said offline, then the service itself answered.
    adapter.token_state_changed.emit(_token(TokenStatus.VALID))
    page.ready.emit()
    qtbot.waitUntil(lambda: banner.problems() == [], timeout=2000)
    adapter.service_reachability_changed.emit(
        _probe(Reachability.UNREACHABLE, api_failure=True, sdk_failure=True)
    )
    assert banner.problems() == [Problem.SERVICE, Problem.CARD_FORM]
    adapter.token_state_changed.emit(_token(TokenStatus.VALID))
    page.ready.emit()
    qtbot.waitUntil(lambda: banner.problems() == [], timeout=2000)
