"""The supervisor PIN for the screens: its hashing and checking live in charges/authority.py."""

from __future__ import annotations

import logging

from checkout_desktop.charges.authority import (
    PIN_PATTERN,
    PinError,
    check_pin_format,
    hash_pin,
    verify_pin,
)

logger = logging.getLogger(__name__)

__all__ = ["PIN_PATTERN", "PinError", "check_pin_format", "hash_pin", "verify_pin"]
