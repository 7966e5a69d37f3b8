"""What the first-contact check found: each check's result as codes and arguments, and the verdict.

Findings are data, like the core's reasons: the screen and the command render them in the UI's
language (`checkout_desktop.ui.doctor_text`); `english()` is for logs and the JSON line. No
result ever holds a secret: the token reply is described by its field names and public values.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from checkout_desktop.domain.reasons import Reason

logger = logging.getLogger(__name__)


class CheckName(StrEnum):
    """The checks, in the order they are reported."""

    PROFILE = "profile"
    KEYCHAIN = "keychain"
    TOKEN = "token"
    NOT_FOUND = "not-found"
    SDK_HOST = "sdk-host"
    NOTIFICATION_URL = "notification-url"
    ROUND_TRIP = "round-trip"


ESSENTIAL = frozenset(
    {
        CheckName.PROFILE,
        CheckName.KEYCHAIN,
        CheckName.TOKEN,
        CheckName.NOT_FOUND,
        CheckName.SDK_HOST,
    }
)
"""Without these the terminal cannot charge. Notifications are not among them: without them a
charge's result is still learned by asking the service (slower, but no sale is lost)."""


class Outcome(StrEnum):
    OK = "ok"
    WARNING = "warning"
    """It works, but not fully (shown amber)."""
    FAILED = "failed"
    SKIPPED = "skipped"
    """Not run, because a check it depends on failed."""


class Finding(StrEnum):
    """Every finding; values appear in the JSON line: only add, never rename."""

    PROFILE_OK = "profile.ok"
    PROFILE_NO_BASE_URL = "profile.no_base_url"
    PROFILE_NO_CLIENT_ID = "profile.no_client_id"
    PROFILE_NO_MERCHANT_DOCUMENT = "profile.no_merchant_document"
    PROFILE_BAD_ADDRESS = "profile.bad_address"
    SANDBOX_NOT_STARTED = "profile.sandbox_not_started"

    KEYCHAIN_OK = "keychain.ok"
    KEYCHAIN_NOT_NEEDED = "keychain.not_needed"
    KEYCHAIN_MISSING = "keychain.missing"
    KEYCHAIN_UNAVAILABLE = "keychain.unavailable"

    TOKEN_OK = "token.ok"
    TOKEN_OTHER_MERCHANT = "token.other_merchant"
    TOKEN_FAILED = "token.failed"
    TOKEN_NO_ANSWER = "token.no_answer"

    NOT_FOUND_404 = "not_found.404"
    NOT_FOUND_400 = "not_found.400"
    NOT_FOUND_UNRECOGNISED = "not_found.unrecognised"
    NOT_FOUND_CHARGE_EXISTS = "not_found.charge_exists"
    NOT_FOUND_QUERY_REFUSED = "not_found.query_refused"
    NOT_FOUND_FAILED = "not_found.failed"
    NOT_FOUND_NO_ANSWER = "not_found.no_answer"
    NEEDS_TOKEN = "skipped.needs_token"

    SDK_OK = "sdk.ok"
    SDK_NO_HOST = "sdk.no_host"
    SDK_DNS_FAILED = "sdk.dns_failed"
    SDK_CONNECT_FAILED = "sdk.connect_failed"
    SDK_TLS_FAILED = "sdk.tls_failed"
    SDK_NO_ANSWER = "sdk.no_answer"
    SDK_OTHER_KEY = "sdk.other_key"

    URL_OK = "url.ok"
    URL_SANDBOX = "url.sandbox"
    URL_NO_TUNNEL = "url.no_tunnel"
    URL_BREAKS_RULES = "url.breaks_rules"
    URL_NOT_KNOWN_YET = "url.not_known_yet"

    ROUND_TRIP_OK = "round_trip.ok"
    ROUND_TRIP_LOCAL_ONLY = "round_trip.local_only"
    ROUND_TRIP_FAILED = "round_trip.failed"
    ROUND_TRIP_ANSWERED_BY_RUNNING = "round_trip.answered_by_running"
    ROUND_TRIP_PORT_TAKEN = "round_trip.port_taken"
    ROUND_TRIP_NO_ANSWER = "round_trip.no_answer"
    ROUND_TRIP_NOT_STARTED = "round_trip.not_started"


ArgValue = str | int | float | bool | Reason | tuple[str, ...] | None


@dataclass(frozen=True)
class CheckResult:
    """One check's outcome, the finding that explains it, and facts for the JSON line."""

    check: CheckName
    outcome: Outcome
    finding: Finding
    args: Mapping[str, ArgValue] = field(default_factory=dict)
    facts: Mapping[str, Any] = field(default_factory=dict)
    """Machine-readable detail (no secrets): the token reply's fields, the not-found shape…"""

    @property
    def essential(self) -> bool:
        return self.check in ESSENTIAL

    @property
    def blocks_charging(self) -> bool:
        return self.essential and self.outcome in (Outcome.FAILED, Outcome.SKIPPED)

    def english(self) -> str:
        """The finding's code and arguments in English, for logs and the JSON line."""
        parts = []
        for name, value in self.args.items():
            if isinstance(value, Reason):
                shown = value.english()
            elif isinstance(value, tuple):
                shown = ", ".join(value)
            else:
                shown = str(value)
            parts.append(f"{name}={shown}")
        return f"{self.finding.value}" + (f" ({'; '.join(parts)})" if parts else "")


@dataclass
class Report:
    """Every check's result for one profile; `can_charge` is the verdict."""

    profile: str
    kind: str
    results: list[CheckResult] = field(default_factory=list)
    elapsed_s: float = 0.0
    deadline_s: float = 0.0
    not_found_shape: str | None = None
    remembered: bool = False
    """The not-found shape was stored in the profile by this run."""

    def add(self, result: CheckResult) -> CheckResult:
        self.results.append(result)
        return result

    def result(self, check: CheckName) -> CheckResult | None:
        for result in self.results:
            if result.check == check:
                return result
        return None

    @property
    def can_charge(self) -> bool:
        essential = {r.check for r in self.results if r.essential}
        return essential >= ESSENTIAL and not any(r.blocks_charging for r in self.results)

    @property
    def notifications_work(self) -> bool:
        trip = self.result(CheckName.ROUND_TRIP)
        return trip is not None and trip.outcome == Outcome.OK

    @property
    def exit_code(self) -> int:
        """0 when the terminal can charge (warnings allowed), 1 when it cannot."""
        return 0 if self.can_charge else 1

    def ordered(self) -> list[CheckResult]:
        order = list(CheckName)
        return sorted(self.results, key=lambda r: order.index(r.check))

    def to_json(self) -> dict[str, Any]:
        return {
            "doctor": "checkout-desktop",
            "profile": self.profile,
            "kind": self.kind,
            "can_charge": self.can_charge,
            "notifications": self.notifications_work,
            "exit_code": self.exit_code,
            "not_found_shape": self.not_found_shape,
            "not_found_shape_saved": self.remembered,
            "elapsed_s": round(self.elapsed_s, 2),
            "deadline_s": self.deadline_s,
            "checks": [
                {
                    "check": r.check.value,
                    "outcome": r.outcome.value,
                    "finding": r.finding.value,
                    "detail": r.english(),
                    **({"facts": dict(r.facts)} if r.facts else {}),
                }
                for r in self.ordered()
            ],
        }


__all__ = [
    "ESSENTIAL",
    "ArgValue",
    "CheckName",
    "CheckResult",
    "Finding",
    "Outcome",
    "Report",
]
