"""Typed domain events of the webhook inbox, published on the EventBus after each commit."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from checkout_desktop.domain.enums import Verdict
from checkout_desktop.domain.events import DomainEvent
from checkout_desktop.domain.reasons import Reason

logger = logging.getLogger(__name__)


@dataclass(frozen=True, kw_only=True)
class WebhookStored(DomainEvent):
    """A delivery is durably in the store (published only after its commit)."""

    event_id: int
    received_at: datetime
    verdict: Verdict
    event_type: str | None
    body_type: str | None
    merchant_charge_id: str | None
    charge_id: str | None
    status: str | None
    reason: Reason | None
    duplicate_of: int | None
    merge_outcome: Reason | None
    self_test_nonce: str | None = None


@dataclass(frozen=True, kw_only=True)
class WebhookRefused(DomainEvent):
    """A request the listener refused without storing it (wrong or missing token)."""

    http_status: int
    reason: str
    remote: str | None


class ListenerState(StrEnum):
    STARTING = "starting"
    LISTENING = "listening"
    STOPPED = "stopped"
    FAILED = "failed"


@dataclass(frozen=True, kw_only=True)
class ListenerStateChanged(DomainEvent):
    """The local listener started, stopped or failed to bind."""

    state: ListenerState
    url: str | None
    reason: str | None = None


class HealthLevel(StrEnum):
    HEALTHY = "healthy"
    DEGRADED = "degraded"
    DOWN = "down"


@dataclass(frozen=True, kw_only=True)
class ListenerHealthChanged(DomainEvent):
    """The end-to-end health of the inbox changed level or reason."""

    level: HealthLevel
    reason: Reason
    since: datetime


@dataclass(frozen=True, kw_only=True)
class InboxHolderChanged(DomainEvent):
    """On a shared store: which counter receives the shop's notifications now.

    `here`: this counter holds the inbox (its listener's own states follow). Otherwise
    `counter`, `host` and `since` name the holder (None: nobody holds it at the moment);
    `listen_box`: the holder is a `checkout-desktop listen`, not a counter's window."""

    here: bool
    listen_box: bool = False
    counter: str | None = None
    host: str | None = None
    since: datetime | None = None


class TunnelState(StrEnum):
    OFF = "off"
    STARTING = "starting"
    UP = "up"
    DOWN = "down"
    RESTARTING = "restarting"


@dataclass(frozen=True, kw_only=True)
class TunnelStateChanged(DomainEvent):
    """The tunnel (or the manual URL) changed state; `reason` says why when it is not up."""

    mode: str
    state: TunnelState
    public_url: str | None
    reason: str | None
    restarts: int


@dataclass(frozen=True, kw_only=True)
class TunnelUrlChanged(DomainEvent):
    """The public URL differs from the one the merchant registered: a blocking notice.

    Until the merchant panel holds `notification_url`, the service delivers to a dead
    address; the UI must show this until the user acknowledges the new URL.
    """

    previous_url: str | None
    public_url: str
    notification_url: str
    blocking: bool = True


__all__ = [
    "HealthLevel",
    "InboxHolderChanged",
    "ListenerHealthChanged",
    "ListenerState",
    "ListenerStateChanged",
    "TunnelState",
    "TunnelStateChanged",
    "TunnelUrlChanged",
    "WebhookRefused",
    "WebhookStored",
]
