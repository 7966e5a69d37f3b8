"""Fault settings of the sandbox: the bad days the real service cannot be asked to have."""

from __future__ import annotations

import logging
import random
import re
from dataclasses import asdict, dataclass, fields
from typing import Any

from checkout_desktop.texts import QT_TRANSLATE_NOOP, WordedError, Words

logger = logging.getLogger(__name__)

# A reply field's name as `reply_drop_field` takes it (empty: no field is left out).
_FIELD_NAME = re.compile(r"(?:[A-Za-z_][A-Za-z0-9_-]{0,63})?")


class FaultSettingError(WordedError, ValueError):
    """A fault setting with a name or value the sandbox does not accept."""


@dataclass
class FaultSettings:
    """Faults applied at run time; every field may be changed while the sandbox runs.

    - ``latency_s``: extra delay before every REST API reply (token endpoint included).
    - ``error_rate``: share (0..1) of REST API requests answered with HTTP 500 before anything
      happens (no charge created, no token spent); drawn from a RNG seeded with ``seed``, so a
      run is repeatable.
    - ``token_expiry_now``: one-shot; the next authenticated REST call finds every access token
      issued until then expired (401), then the flag clears itself.
    - ``webhook_duplicate``: every notification is delivered twice, with the same body.
    - ``webhook_delay_s``: every notification waits this long before its first attempt.
    - ``webhook_reorder``: notifications are swapped pairwise (the later one goes first) when a
      second one follows within ``webhook_reorder_window_s``.
    - ``webhook_drop_first``: the first N attempts of every notification are lost (never sent)
      and the sender retries after its back-off, as after a timeout.
    - ``money_reply_delay_s``: capture and refund replies wait this long *after* the money
      moved and its notification was queued: the reply is late, the change is done.
    - ``qr_reply_delay_s``: wallet and PIX charge replies wait this long *after* the QR was
      made and its notification queued: the reply is late, the QR exists.
    - ``reply_drop_field``: a top-level field (``access_token``, ``chargeStatus``, ...) left out
      of every successful JSON reply of the REST API that has it, the token endpoint's
      included: a service whose replies no longer match the documented format. What the call
      did is done all the same.
    """

    latency_s: float = 0.0
    error_rate: float = 0.0
    seed: int = 0
    token_expiry_now: bool = False
    webhook_duplicate: bool = False
    webhook_delay_s: float = 0.0
    webhook_reorder: bool = False
    webhook_reorder_window_s: float = 1.0
    webhook_drop_first: int = 0
    money_reply_delay_s: float = 0.0
    qr_reply_delay_s: float = 0.0
    reply_drop_field: str = ""

    def __post_init__(self) -> None:
        self.check()

    def check(self) -> None:
        """Raise FaultSettingError when a value is out of range (also after run-time edits)."""
        if not 0.0 <= self.error_rate <= 1.0:
            raise FaultSettingError(f"error_rate must be between 0 and 1, got {self.error_rate}")
        for name in (
            "latency_s",
            "webhook_delay_s",
            "webhook_reorder_window_s",
            "money_reply_delay_s",
            "qr_reply_delay_s",
        ):
            value = getattr(self, name)
            if not 0.0 <= value <= 3600.0:
                raise FaultSettingError(f"{name} must be between 0 and 3600 seconds, got {value}")
        if not isinstance(self.reply_drop_field, str) or not _FIELD_NAME.fullmatch(
            self.reply_drop_field
        ):
            raise FaultSettingError(
                "reply_drop_field must be empty or a field name (letters, digits, '_' and '-', "
                f"at most 64), got {self.reply_drop_field!r}"
            )
        if not 0 <= self.webhook_drop_first <= 100:
            raise FaultSettingError(
                f"webhook_drop_first must be between 0 and 100, got {self.webhook_drop_first}"
            )

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def update(self, **changes: Any) -> None:
        """Change several settings at once; unknown names and bad values are refused whole."""
        known = {f.name: f for f in fields(self)}
        unknown = sorted(set(changes) - set(known))
        if unknown:
            raise FaultSettingError(
                f"unknown fault setting(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}"
            )
        candidate = FaultSettings(**{**self.as_dict(), **changes})
        for name in changes:
            setattr(self, name, getattr(candidate, name))


# Command-line spelling (`--fault name[=value]`) → field name and converter.
_CLI_FAULTS: dict[str, tuple[str, type]] = {
    "latency": ("latency_s", float),
    "error-rate": ("error_rate", float),
    "seed": ("seed", int),
    "token-expiry-now": ("token_expiry_now", bool),
    "webhook-duplicate": ("webhook_duplicate", bool),
    "webhook-delay": ("webhook_delay_s", float),
    "webhook-reorder": ("webhook_reorder", bool),
    "webhook-reorder-window": ("webhook_reorder_window_s", float),
    "webhook-drop-first": ("webhook_drop_first", int),
    "money-reply-delay": ("money_reply_delay_s", float),
    "qr-reply-delay": ("qr_reply_delay_s", float),
    "reply-drop-field": ("reply_drop_field", str),
}

CLI_FAULT_NAMES = tuple(_CLI_FAULTS)


def _parse_bool(text: str) -> bool:
    lowered = text.strip().lower()
    if lowered in {"1", "true", "yes", "on"}:
        return True
    if lowered in {"0", "false", "no", "off"}:
        return False
    raise FaultSettingError(
        Words(
            QT_TRANSLATE_NOOP("SandboxCommand", "{text} is not a yes/no value (use true or false)"),
            text=repr(text),
        )
    )


def parse_cli_faults(items: list[str]) -> FaultSettings:
    """Build FaultSettings from `name[=value]` items, e.g. `latency=0.5`, `webhook-duplicate`."""
    changes: dict[str, Any] = {}
    for item in items:
        name, sep, raw = item.partition("=")
        name = name.strip()
        if name not in _CLI_FAULTS:
            raise FaultSettingError(
                Words(
                    QT_TRANSLATE_NOOP("SandboxCommand", "unknown fault {name}; known: {known}"),
                    name=repr(name),
                    known=", ".join(CLI_FAULT_NAMES),
                )
            )
        field_name, kind = _CLI_FAULTS[name]
        if kind is bool:
            changes[field_name] = _parse_bool(raw) if sep else True
            continue
        if not sep:
            raise FaultSettingError(
                Words(
                    QT_TRANSLATE_NOOP("SandboxCommand", "fault {name} needs a value, as {example}"),
                    name=repr(name),
                    example=f"{name}=1",
                )
            )
        try:
            changes[field_name] = kind(raw)
        except ValueError:
            what = (
                QT_TRANSLATE_NOOP("SandboxCommand", "fault {name} needs a whole number, got {raw}")
                if kind is int
                else QT_TRANSLATE_NOOP("SandboxCommand", "fault {name} needs a number, got {raw}")
            )
            raise FaultSettingError(Words(what, name=repr(name), raw=repr(raw))) from None
    return FaultSettings(**changes)


class FaultDice:
    """The seeded random draws behind ``error_rate``; reseeds when the seed setting changes."""

    def __init__(self, faults: FaultSettings) -> None:
        self._faults = faults
        self._seed = faults.seed
        self._rng = random.Random(faults.seed)  # noqa: S311 - a repeatable simulation, not security

    def fail_this_request(self) -> bool:
        if self._faults.seed != self._seed:
            self._seed = self._faults.seed
            self._rng = random.Random(self._seed)  # noqa: S311
        rate = self._faults.error_rate
        # Draw even at rate 0 or 1 so the sequence depends only on the request count.
        draw = self._rng.random()
        return draw < rate
