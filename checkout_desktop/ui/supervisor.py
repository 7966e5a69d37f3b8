"""The optional supervisor PIN that guards refunds: kept only as a salted scrypt hash."""

from __future__ import annotations

import base64
import hashlib
import hmac
import logging
import os
import re

logger = logging.getLogger(__name__)

PIN_PATTERN = re.compile(r"^\d{4,8}$")
_SCHEME = "scrypt"
# Interactive-login strength (RFC 7914 suggests N=2**14, r=8, p=1): about 50 ms here, which is
# nothing for a supervisor typing once and a lot for someone trying all 10**4..10**8 PINs.
_N, _R, _P = 2**14, 8, 1
_SALT_BYTES = 16
_KEY_BYTES = 32


class PinError(ValueError):
    """A PIN that cannot be set, or a stored hash that cannot be read."""


def check_pin_format(pin: str) -> str:
    if not PIN_PATTERN.match(pin):
        raise PinError("a supervisor PIN has 4 to 8 digits")
    return pin


def _derive(pin: str, salt: bytes, n: int, r: int, p: int) -> bytes:
    return hashlib.scrypt(
        pin.encode("utf-8"), salt=salt, n=n, r=r, p=p, dklen=_KEY_BYTES, maxmem=64 * 1024 * 1024
    )


def hash_pin(pin: str) -> str:
    """`scrypt$N$r$p$salt$hash` (base64): what settings.ui.supervisor_pin_hash holds."""
    check_pin_format(pin)
    salt = os.urandom(_SALT_BYTES)
    digest = _derive(pin, salt, _N, _R, _P)
    encode = base64.b64encode
    return f"{_SCHEME}${_N}${_R}${_P}${encode(salt).decode()}${encode(digest).decode()}"


def verify_pin(pin: str, stored: str) -> bool:
    """True when `pin` matches the stored hash (constant-time comparison)."""
    parts = stored.split("$")
    if len(parts) != 6 or parts[0] != _SCHEME:
        raise PinError("the stored supervisor PIN hash is not in a known format; set the PIN again")
    try:
        n, r, p = (int(x) for x in parts[1:4])
        salt = base64.b64decode(parts[4], validate=True)
        expected = base64.b64decode(parts[5], validate=True)
    except ValueError:
        raise PinError("the stored supervisor PIN hash is damaged; set the PIN again") from None
    if not PIN_PATTERN.match(pin):
        return False
    return hmac.compare_digest(_derive(pin, salt, n, r, p), expected)
