"""Typed domain events and the one bus that carries them from the core to its listeners.

The core (gateway, inbox, store) publishes; exactly one Qt adapter in `ui/` subscribes and turns
events into signals, so widgets never subscribe to the core directly.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, ClassVar, TypeVar

from checkout_desktop.domain.timestamps import utc_now

logger = logging.getLogger(__name__)


@dataclass(frozen=True, kw_only=True)
class DomainEvent:
    """Base of every event; `at` is when the core published it."""

    at: datetime = field(default_factory=utc_now)


E = TypeVar("E", bound=DomainEvent)
Handler = Callable[[Any], None]


class EventBus:
    """Synchronous publish/subscribe by event class (subclasses reach their bases' handlers).

    A failing handler is logged and does not stop the others: a broken view must never make
    the core lose an event it has already committed.
    """

    reraise_handler_errors: ClassVar[bool] = False
    """Set by the test suite: a failing handler then fails the test that published."""

    def __init__(self) -> None:
        self._handlers: dict[type[DomainEvent], list[Handler]] = {}

    def subscribe(self, kind: type[E], handler: Callable[[E], None]) -> Callable[[], None]:
        self._handlers.setdefault(kind, []).append(handler)

        def unsubscribe() -> None:
            handlers = self._handlers.get(kind, [])
            if handler in handlers:
                handlers.remove(handler)

        return unsubscribe

    def publish(self, event: DomainEvent) -> None:
        for kind in type(event).__mro__:
            for handler in list(self._handlers.get(kind, ())):
                try:
                    handler(event)
                except Exception:
                    logger.exception("a handler of %s failed", type(event).__name__)
                    if EventBus.reraise_handler_errors:
                        raise
