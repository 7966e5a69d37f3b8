"""The status bar: environment, token and its time left, listener and tunnel, open attempts."""

from __future__ import annotations

import logging
from collections.abc import Callable, Coroutine
from datetime import datetime
from typing import Any

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QStatusBar, QWidget

from checkout_desktop.doctor.probe import Reachability, ServiceReachabilityChanged
from checkout_desktop.domain.charge_events import (
    AttemptChanged,
    ChargeChanged,
    TokenStateChanged,
    TokenStatus,
)
from checkout_desktop.domain.inbox_events import (
    HealthLevel,
    InboxHolderChanged,
    ListenerHealthChanged,
    ListenerState,
    ListenerStateChanged,
    TunnelState,
    TunnelStateChanged,
)
from checkout_desktop.domain.reasons import Reason
from checkout_desktop.domain.timestamps import utc_now
from checkout_desktop.ui.adapter import QtEventAdapter
from checkout_desktop.ui.elided_label import ElidedLabel
from checkout_desktop.ui.formatting import format_duration, format_instant
from checkout_desktop.ui.loop import read
from checkout_desktop.ui.reasons import reason_text

logger = logging.getLogger(__name__)

_OK = "color: #1b6e2a;"
_WARN = "color: #7a5c00;"
_BAD = "color: #b3261e;"


class TerminalStatusBar(QStatusBar):
    """Four permanent fields, each fed by the adapter's signals; no polling of the core."""

    def __init__(
        self,
        adapter: QtEventAdapter,
        *,
        environment: str,
        unresolved_count: Callable[[], Coroutine[Any, Any, int]],
        awaiting_qr_count: Callable[[], Coroutine[Any, Any, int]] | None = None,
        show_tunnel: bool = True,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._unresolved_count = unresolved_count
        self._awaiting_qr_count = awaiting_qr_count
        self._unknown = 0
        self._qrs = 0
        # The built-in sandbox delivers straight to the listener: a "tunnel" there is internal.
        self._show_tunnel = show_tunnel
        self.environment = ElidedLabel(
            self.tr("Environment: {name}").format(name=environment), self
        )
        self.environment.setObjectName("statusEnvironment")
        self.token = ElidedLabel(self.tr("Token: not requested yet"), self)
        self.token.setObjectName("statusToken")
        self.listener = ElidedLabel(self.tr("Listener: starting"), self)
        self.listener.setObjectName("statusListener")
        self.tunnel = ElidedLabel("", self)
        self.tunnel.setObjectName("statusTunnel")
        self.attempts = ElidedLabel("", self)
        self.attempts.setObjectName("statusAttempts")
        self.service = ElidedLabel(self.tr("Service: checking…"), self)
        self.service.setObjectName("statusService")
        self.service.setToolTip(
            self.tr("Whether the payment service can be reached: not checked yet")
        )
        for label in (
            self.environment,
            self.service,
            self.token,
            self.listener,
            self.tunnel,
            self.attempts,
        ):
            self.addPermanentWidget(label)
        self._token_status = TokenStatus.NONE
        self._valid_until: datetime | None = None
        self._token_error: Reason | None = None
        self._listener_state: ListenerState | None = None
        self._listener_url: str | None = None
        self._health: ListenerHealthChanged | None = None
        self._count_asked = 0
        self._held_elsewhere: InboxHolderChanged | None = None
        """On a shared store, while another counter holds the shop's inbox: that holder (this
        counter then runs no listener, so the listener field says where notifications go)."""
        self._tick = QTimer(self)
        self._tick.setInterval(1000)
        self._tick.timeout.connect(self._render_token)
        adapter.token_state_changed.connect(self.on_token_state)
        adapter.listener_state_changed.connect(self.on_listener_state)
        adapter.listener_health_changed.connect(self.on_health)
        adapter.inbox_holder_changed.connect(self.on_inbox_holder)
        adapter.tunnel_state_changed.connect(self.on_tunnel_state)
        adapter.attempt_changed.connect(self.on_attempt_changed)
        adapter.charge_changed.connect(self.on_charge_changed)
        adapter.service_reachability_changed.connect(self.on_reachability)
        self.tunnel.hide()
        self.refresh_attempts()

    def on_token_state(self, event: TokenStateChanged) -> None:
        self._token_status = event.status
        self._valid_until = event.valid_until
        self._token_error = event.error
        if event.status == TokenStatus.VALID and event.valid_until is not None:
            self._tick.start()
        else:
            self._tick.stop()
        self._render_token()

    def _render_token(self) -> None:
        status = self._token_status
        if status == TokenStatus.VALID and self._valid_until is not None:
            left = (self._valid_until - utc_now()).total_seconds()
            if left <= 0:
                self.token.setText(self.tr("Token: expired, renewed on next use"))
                self.token.setStyleSheet(_WARN)
                self._tick.stop()
                return
            self.token.setText(
                self.tr("Token: valid, {left} left").format(left=format_duration(left))
            )
            self.token.setStyleSheet(_OK)
        elif status == TokenStatus.REFRESHING:
            self.token.setText(self.tr("Token: requesting…"))
            self.token.setStyleSheet("")
        elif status == TokenStatus.EXPIRED:
            self.token.setText(self.tr("Token: expired, renewed on next use"))
            self.token.setStyleSheet(_WARN)
        elif status == TokenStatus.FAILED:
            self.token.setText(self.tr("Token: failed"))
            self.token.setStyleSheet(_BAD)
        else:
            self.token.setText(self.tr("Token: not requested yet"))
            self.token.setStyleSheet("")
        self.token.setToolTip(reason_text(self._token_error))

    def on_listener_state(self, event: ListenerStateChanged) -> None:
        self._listener_state = event.state
        self._listener_url = event.url
        if self._held_elsewhere is not None:
            return
        if event.state == ListenerState.LISTENING:
            self.listener.setText(self.tr("Listener: on {url}").format(url=event.url or "?"))
            self.listener.setStyleSheet(_OK)
        elif event.state == ListenerState.FAILED:
            self.listener.setText(self.tr("Listener: failed"))
            self.listener.setStyleSheet(_BAD)
        elif event.state == ListenerState.STOPPED:
            self.listener.setText(self.tr("Listener: stopped"))
            self.listener.setStyleSheet(_WARN)
        else:
            self.listener.setText(self.tr("Listener: starting"))
            self.listener.setStyleSheet("")
        if event.reason:
            # The reason comes from the system (a socket error, in its own words): framed in
            # the terminal's language and marked as a technical detail.
            self.listener.setToolTip(
                self.tr("Technical detail: {detail}").format(detail=event.reason)
            )
        elif event.url:
            self.listener.setToolTip(
                self.tr("Notifications arrive at {url} on this computer.").format(url=event.url)
            )
        else:
            self.listener.setToolTip(self.tr("The notification inbox is starting."))

    def on_health(self, event: ListenerHealthChanged) -> None:
        self._health = event
        if self._listener_state != ListenerState.LISTENING or self._held_elsewhere is not None:
            return
        texts = {
            HealthLevel.HEALTHY: (self.tr("Inbox: healthy"), _OK),
            HealthLevel.DEGRADED: (self.tr("Inbox: degraded"), _WARN),
            HealthLevel.DOWN: (self.tr("Inbox: down"), _BAD),
        }
        text, style = texts.get(event.level, (str(event.level), ""))
        self.listener.setText(text)
        self.listener.setStyleSheet(style)
        self.listener.setToolTip(
            self.tr("{reason} (since {since})").format(
                reason=reason_text(event.reason),
                since=event.since.astimezone().strftime("%H:%M:%S"),
            )
        )

    def on_inbox_holder(self, event: InboxHolderChanged) -> None:
        """Who receives the shop's notifications, when it is not this counter."""
        if event.here:
            self._held_elsewhere = None
            if self._listener_state is not None:
                self.on_listener_state(
                    ListenerStateChanged(state=self._listener_state, url=self._listener_url)
                )
            if self._health is not None:
                self.on_health(self._health)
            return
        self._held_elsewhere = event
        self.listener.setStyleSheet("")
        if event.counter is None or event.since is None:
            self.listener.setText(self.tr("Inbox: free, this counter takes it over"))
            self.listener.setToolTip(
                self.tr(
                    "No counter receives the shop's notifications at the moment; this counter "
                    "asks every few seconds and takes the inbox over."
                )
            )
            return
        since = event.since.astimezone().strftime("%H:%M")
        if event.listen_box:
            self.listener.setText(
                self.tr("Inbox: on computer {host}, without a window (since {time})").format(
                    host=event.host or "?", time=since
                )
            )
        else:
            self.listener.setText(
                self.tr("Inbox: at counter {counter} (since {time})").format(
                    counter=event.counter, time=since
                )
            )
        where = (
            self.tr("the inbox without a window (checkout-desktop listen) on computer {host}")
            if event.listen_box
            else self.tr("counter {counter} on computer {host}")
        ).format(counter=event.counter, host=event.host or "?")
        self.listener.setToolTip(
            self.tr(
                "The shop's notifications arrive at {where} (since {since}) and show here "
                "through the shared store. If it stops, this counter takes the inbox over "
                "within a few seconds."
            ).format(where=where, since=format_instant(event.since))
        )

    def on_tunnel_state(self, event: TunnelStateChanged) -> None:
        if not self._show_tunnel or event.mode == "none" or event.state == TunnelState.OFF:
            self.tunnel.hide()
            return
        self.tunnel.show()
        names = {
            TunnelState.STARTING: (self.tr("Tunnel: starting"), ""),
            TunnelState.UP: (self.tr("Tunnel: up"), _OK),
            TunnelState.DOWN: (self.tr("Tunnel: down"), _BAD),
            TunnelState.RESTARTING: (self.tr("Tunnel: restarting"), _WARN),
        }
        text, style = names.get(event.state, (str(event.state), ""))
        self.tunnel.setText(text)
        self.tunnel.setStyleSheet(style)
        if event.reason:
            # The tunnel program's own words (its output or error), marked as such.
            self.tunnel.setToolTip(
                self.tr("Technical detail (from the tunnel program): {detail}").format(
                    detail=event.reason
                )
            )
        elif event.public_url:
            self.tunnel.setToolTip(
                self.tr("The service reaches this terminal at {url}.").format(url=event.public_url)
            )
        else:
            self.tunnel.setToolTip(self.tr("The tunnel is starting."))

    def on_reachability(self, event: ServiceReachabilityChanged) -> None:
        """The periodic probe's result: a short label, and the detail in the tooltip."""
        from checkout_desktop.ui.doctor_text import host_state_text

        texts = {
            Reachability.REACHABLE: (self.tr("Service: reachable"), _OK),
            Reachability.CARD_FORM_UNREACHABLE: (self.tr("Service: card form unreachable"), _BAD),
            Reachability.UNREACHABLE: (self.tr("Service: unreachable"), _BAD),
            Reachability.NOT_ANSWERING: (self.tr("Service: no reply in time"), _BAD),
        }
        text, style = texts.get(event.level, (self.tr("Service: checking…"), ""))
        self.service.setText(text)
        self.service.setStyleSheet(style)
        lines = [host_state_text(event.api, self.tr("Payment service"))]
        if event.unanswered is not None:
            lines.append(
                self.tr(
                    "The last call to the payment service got no reply in time ({time}); the "
                    "next reply from the service ends this."
                ).format(time=event.unanswered.astimezone().strftime("%H:%M:%S"))
            )
        if event.sdk is not None:
            lines.append(host_state_text(event.sdk, self.tr("Card form service")))
        lines.append(
            self.tr("Checked at {time}; next check in {seconds} s.").format(
                time=event.at.astimezone().strftime("%H:%M:%S"),
                seconds=f"{event.next_probe_s:.0f}",
            )
        )
        if event.level != Reachability.REACHABLE:
            lines.append(
                self.tr("Since {since}.").format(
                    since=event.since.astimezone().strftime("%H:%M:%S")
                )
            )
        self.service.setToolTip("\n".join(lines))

    def on_attempt_changed(self, _event: AttemptChanged) -> None:
        self.refresh_attempts()

    def on_charge_changed(self, _event: ChargeChanged) -> None:
        # A QR made, paid, expired or cancelled: the QRs still waiting are counted again.
        if self._awaiting_qr_count is not None:
            read(self._awaiting_qr_count(), self._show_qrs)

    def refresh_attempts(self) -> None:
        # Counts may answer out of order (each read waits for the store on its own): only the
        # latest one asked is shown, so an older answer never overwrites a newer one.
        self._count_asked += 1
        asked = self._count_asked
        read(self._unresolved_count(), lambda count: self._show_attempts(count, asked))
        if self._awaiting_qr_count is not None:
            read(self._awaiting_qr_count(), self._show_qrs)

    def _show_attempts(self, count: int, asked: int) -> None:
        if asked != self._count_asked:
            return
        self._unknown = count
        self._render_attempts()

    def _show_qrs(self, count: int) -> None:
        self._qrs = count
        self._render_attempts()

    def _render_attempts(self) -> None:
        count, qrs = self._unknown, self._qrs
        parts = []
        if count:
            parts.append(
                self.tr("1 charge with unknown outcome: being checked")
                if count == 1
                else self.tr("{n} charges with unknown outcome: being checked").format(n=count)
            )
        if qrs:
            # Not "nothing open": a QR waiting may still be paid, and its payment is told.
            parts.append(
                self.tr("1 QR awaiting payment")
                if qrs == 1
                else self.tr("{n} QRs awaiting payment").format(n=qrs)
            )
        if parts:
            self.attempts.setText(" · ".join(parts))
            self.attempts.setStyleSheet(_WARN)
        else:
            self.attempts.setText(self.tr("No open attempts"))
            self.attempts.setStyleSheet(_OK)
