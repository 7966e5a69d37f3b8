"""Errors the sandbox raises for settings it cannot work with."""

from __future__ import annotations

import logging

from checkout_desktop.texts import WordedError

logger = logging.getLogger(__name__)


class SandboxConfigError(WordedError, ValueError):
    """A sandbox setting that cannot work; the message says which and why."""


class NotificationUrlError(SandboxConfigError):
    """A notification URL the service's rules refuse (HTTPS, no query, no IPv4 address)."""
