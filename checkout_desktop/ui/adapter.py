"""The one bridge from the core's EventBus to Qt: each domain event becomes a typed signal.

Widgets connect only to this adapter, never to the bus, so the core knows nothing of Qt and a
panel's lifetime never leaks into the core's subscriber lists.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable

from PySide6.QtCore import QObject, Signal, SignalInstance

from checkout_desktop.doctor.probe import ServiceReachabilityChanged
from checkout_desktop.domain.charge_events import (
    AttemptChanged,
    ChargeChanged,
    MoneyOperationChanged,
    ReconciliationFinished,
    TokenStateChanged,
)
from checkout_desktop.domain.events import DomainEvent, EventBus
from checkout_desktop.domain.inbox_events import (
    InboxHolderChanged,
    ListenerHealthChanged,
    ListenerStateChanged,
    TunnelStateChanged,
    TunnelUrlChanged,
    WebhookRefused,
    WebhookStored,
)
from checkout_desktop.domain.shop_events import SharedStoreReachabilityChanged, ShopSettingsChanged

logger = logging.getLogger(__name__)


class QtEventAdapter(QObject):
    """Subscribes to the bus once and re-emits every event as a Qt signal of its own type.

    Everything runs on the one qasync loop, so the core publishes on the GUI thread and the
    signals are delivered directly.
    """

    webhook_stored = Signal(WebhookStored)
    webhook_refused = Signal(WebhookRefused)
    listener_state_changed = Signal(ListenerStateChanged)
    listener_health_changed = Signal(ListenerHealthChanged)
    inbox_holder_changed = Signal(InboxHolderChanged)
    tunnel_state_changed = Signal(TunnelStateChanged)
    tunnel_url_changed = Signal(TunnelUrlChanged)
    token_state_changed = Signal(TokenStateChanged)
    attempt_changed = Signal(AttemptChanged)
    charge_changed = Signal(ChargeChanged)
    money_operation_changed = Signal(MoneyOperationChanged)
    reconciliation_finished = Signal(ReconciliationFinished)
    service_reachability_changed = Signal(ServiceReachabilityChanged)
    shop_settings_changed = Signal(ShopSettingsChanged)
    shared_store_reachability_changed = Signal(SharedStoreReachabilityChanged)
    closed = Signal()
    """The window stopped listening: work a widget scheduled from an event is dropped (the
    store closes next)."""

    def __init__(self, bus: EventBus, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._bus = bus
        routes: list[tuple[type[DomainEvent], SignalInstance]] = [
            (WebhookStored, self.webhook_stored),
            (WebhookRefused, self.webhook_refused),
            (ListenerStateChanged, self.listener_state_changed),
            (ListenerHealthChanged, self.listener_health_changed),
            (InboxHolderChanged, self.inbox_holder_changed),
            (TunnelStateChanged, self.tunnel_state_changed),
            (TunnelUrlChanged, self.tunnel_url_changed),
            (TokenStateChanged, self.token_state_changed),
            (AttemptChanged, self.attempt_changed),
            (ChargeChanged, self.charge_changed),
            (MoneyOperationChanged, self.money_operation_changed),
            (ReconciliationFinished, self.reconciliation_finished),
            (ServiceReachabilityChanged, self.service_reachability_changed),
            (ShopSettingsChanged, self.shop_settings_changed),
            (SharedStoreReachabilityChanged, self.shared_store_reachability_changed),
        ]
        self._routes = routes
        self._unsubscribe: list[Callable[[], None]] = [
            bus.subscribe(kind, self._emitter(signal)) for kind, signal in routes
        ]

    @staticmethod
    def _emitter(signal: SignalInstance) -> Callable[[DomainEvent], None]:
        def emit(event: DomainEvent) -> None:
            signal.emit(event)

        return emit

    def replay(self, events: Iterable[DomainEvent]) -> None:
        """Emit the core's current state to the widgets, without publishing on the bus.

        Used once after the window is built: the listener, the tunnel and the token changed
        state before any widget was listening.
        """
        for event in events:
            for kind, signal in self._routes:
                if isinstance(event, kind):
                    signal.emit(event)
                    break

    def close(self) -> None:
        """Stop listening to the bus (at shutdown, before the core goes away)."""
        for unsubscribe in self._unsubscribe:
            unsubscribe()
        self._unsubscribe.clear()
        self.closed.emit()
