"""Who may move money: the supervisor PIN, checked by the charge service itself.

With a PIN set (`settings.ui.supervisor_pin_hash`, a salted scrypt hash), a refund and the
capture of a charge authorized on an earlier day need it. The service refuses such a call
without the right PIN before anything is recorded or sent, so no screen, script or future
caller can skip the check a dialog makes.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import logging
import os
import re
import unicodedata
from collections.abc import Callable
from datetime import datetime
from enum import StrEnum

from checkout_desktop.domain.reasons import Reason, ReasonCode
from checkout_desktop.domain.records import ChargeRecord
from checkout_desktop.domain.timestamps import utc_now

logger = logging.getLogger(__name__)

PIN_PATTERN = re.compile(r"[0-9]{4,8}")
"""What a PIN is once normalised (`fullmatch`): ASCII digits only; `\\d` would take any
script's digits, stored as typed, so the same PIN typed on another keyboard would not match."""
_SCHEME = "scrypt"
# Interactive-login strength (RFC 7914 suggests N=2**14, r=8, p=1): about 50 ms here, which is
# nothing for a supervisor typing once and a lot for someone trying all 10**4..10**8 PINs.
_N, _R, _P = 2**14, 8, 1
_SALT_BYTES = 16
_KEY_BYTES = 32


class PinError(ValueError):
    """A PIN that cannot be set, or a stored hash that cannot be read."""


def normalize_pin(pin: str) -> str | None:
    """The PIN as ASCII digits, or None when it is not 4 to 8 digits.

    NFKC turns full-width digits (a Japanese or Chinese keyboard's "１２３４") into "1234", the
    same both when the PIN is set and when it is checked; other scripts' digits stay refused.
    """
    normalized = unicodedata.normalize("NFKC", pin)
    return normalized if PIN_PATTERN.fullmatch(normalized) else None


def check_pin_format(pin: str) -> str:
    """The PIN to keep (ASCII digits), or PinError."""
    normalized = normalize_pin(pin)
    if normalized is None:
        raise PinError("a supervisor PIN has 4 to 8 digits")
    return normalized


def _derive(pin: str, salt: bytes, n: int, r: int, p: int) -> bytes:
    return hashlib.scrypt(
        pin.encode("utf-8"), salt=salt, n=n, r=r, p=p, dklen=_KEY_BYTES, maxmem=64 * 1024 * 1024
    )


def hash_pin(pin: str) -> str:
    """`scrypt$N$r$p$salt$hash` (base64): what settings.ui.supervisor_pin_hash holds."""
    pin = check_pin_format(pin)
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
    normalized = normalize_pin(pin)
    if normalized is None:
        return False
    return hmac.compare_digest(_derive(normalized, salt, n, r, p), expected)


class Guarded(StrEnum):
    """The money actions a supervisor PIN may guard."""

    REFUND = "refund"
    CAPTURE = "capture"
    END = "end"
    """Ending an unresolved attempt: always a supervisor's decision, once a PIN is set."""


class PinRefused(PermissionError):
    """The action needs the supervisor PIN and none, or a wrong one, was given."""

    def __init__(self, reason: Reason) -> None:
        super().__init__(reason.english())
        self.reason = reason


class Authority:
    """The terminal's PIN rule; the charge service asks it before each guarded action."""

    def __init__(
        self,
        pin_hash: str | None = None,
        *,
        clock: Callable[[], datetime] = utc_now,
    ) -> None:
        self._pin_hash = pin_hash or None
        self._clock = clock

    @property
    def pin_set(self) -> bool:
        return self._pin_hash is not None

    def set_pin_hash(self, pin_hash: str | None) -> None:
        """The PIN changed in the settings (None: no PIN, nothing is guarded)."""
        self._pin_hash = pin_hash or None

    def needs_pin(self, action: Guarded, record: ChargeRecord) -> bool:
        """Whether `action` on this charge needs the PIN now."""
        if self._pin_hash is None:
            return False
        if action in (Guarded.REFUND, Guarded.END):
            return True
        # A capture the same day is the sale going on; one on a later day moves money the
        # shop may have stopped expecting, so a supervisor says yes.
        today = self._clock().astimezone().date()
        return record.created_at.astimezone().date() != today

    def check(self, action: Guarded, record: ChargeRecord, pin: str | None) -> None:
        """Raise PinRefused unless the action is allowed with this PIN (or needs none)."""
        if not self.needs_pin(action, record):
            return
        self._verify(action, record.merchant_charge_id, pin)

    def check_end(self, merchant_charge_id: str, pin: str | None) -> None:
        """Raise PinRefused unless ending this attempt is allowed with this PIN. An attempt
        may have no charge record yet, so this goes by its number alone."""
        if self._pin_hash is None:
            return
        self._verify(Guarded.END, merchant_charge_id, pin)

    def _verify(self, action: Guarded, charge: str, pin: str | None) -> None:
        assert self._pin_hash is not None
        if not pin:
            codes = {
                Guarded.REFUND: ReasonCode.PIN_REFUND_REQUIRED,
                Guarded.CAPTURE: ReasonCode.PIN_CAPTURE_REQUIRED,
                Guarded.END: ReasonCode.PIN_END_REQUIRED,
            }
            raise PinRefused(Reason.of(codes[action], charge=charge))
        try:
            ok = verify_pin(pin, self._pin_hash)
        except PinError as exc:
            raise PinRefused(Reason.of(ReasonCode.PIN_UNREADABLE, error=str(exc))) from None
        if not ok:
            logger.warning("a %s of %s was refused: wrong supervisor PIN", action.value, charge)
            raise PinRefused(Reason.of(ReasonCode.PIN_WRONG, charge=charge))


__all__ = [
    "PIN_PATTERN",
    "Authority",
    "Guarded",
    "PinError",
    "PinRefused",
    "check_pin_format",
    "hash_pin",
    "normalize_pin",
    "verify_pin",
]
