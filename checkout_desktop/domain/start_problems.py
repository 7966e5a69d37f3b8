"""What a start ran into that leaves the terminal charging but its notifications off.

Each problem keeps its kind, so the window words it in the screen's language from the kind
(`ui/start_problems.py`), and its detail, the core's technical English for the log and for a
technician (shown whole on hover and in the details). The detail never decides the wording.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class StartProblemKind(StrEnum):
    LISTENER_PORT_TAKEN = "listener_port_taken"
    """Another program (or another terminal) holds the listener's port."""
    LISTENER_CANNOT_BIND = "listener_cannot_bind"
    """The listener's address or port cannot be used for another reason."""
    LISTENER_SETTINGS = "listener_settings"
    """The listener's settings cannot work (an address that is not this machine's)."""
    INBOX_STORE = "inbox_store"
    """The inbox could not open its store."""
    WEBHOOK_TOKEN_MISSING = "webhook_token_missing"
    """The webhook token has not been entered in Settings yet."""
    KEYCHAIN_UNAVAILABLE = "keychain_unavailable"
    """No keychain can be used, so the webhook token cannot be read."""
    TUNNEL_SETTINGS = "tunnel_settings"
    """The tunnel's settings cannot work."""
    INBOX_FAILED = "inbox_failed"
    """The inbox did not start for a reason the kinds above do not name."""


@dataclass(frozen=True)
class StartProblem:
    kind: StartProblemKind
    detail: str

    def __str__(self) -> str:
        return self.detail


__all__ = ["StartProblem", "StartProblemKind"]
