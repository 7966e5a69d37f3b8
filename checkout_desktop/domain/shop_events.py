"""The shop's shared settings as its store holds them now, for a counter that is running.

A shared store tells every counter when one of them changes the supervisor PIN, the shop's
name or a rule learned from the service (`charges/shop.py`); the running counter takes them at
once, so a PIN changed or removed at one counter is the PIN at every counter from then on, in
Settings as at a refund.
"""

from __future__ import annotations

from dataclasses import dataclass

from checkout_desktop.domain.events import DomainEvent
from checkout_desktop.domain.learned import LearnedFlag


@dataclass(frozen=True, kw_only=True)
class ShopSettingsChanged(DomainEvent):
    """What the shop's store holds now; a field the store does not hold yet is left out."""

    pin_held: bool
    """Whether the store holds the PIN (set, or removed); False leaves this counter's as is."""
    pin_hash: str | None
    """The PIN's hash; None: no PIN (removed, or never held when `pin_held` is False)."""
    shop_name: str | None
    """The shop's name; None when the store holds none."""
    learned: tuple[tuple[LearnedFlag, bool], ...]
    """The rules of this counter's environment the store holds: learned (True) or let go."""


@dataclass(frozen=True, kw_only=True)
class SharedStoreReachabilityChanged(DomainEvent):
    """The shop's shared store stopped answering, or answers again. Said by the counter's
    watch on the store (it notices a dropped connection at once and tries a new one every few
    seconds): no more reads of the store than that watch already makes."""

    reachable: bool
    detail: str = ""
    """Why not, in the store's English (for a tooltip or the log)."""


__all__ = ["SharedStoreReachabilityChanged", "ShopSettingsChanged"]
