"""The service's rules for a notification URL: HTTPS, no query parameters, no IPv4 address.

Checked wherever a URL is entered (settings, first run) or reported (a tunnel), so a URL the
merchant panel would refuse is caught on this side with a message naming the failed rule.
"""

from __future__ import annotations

import ipaddress
import logging
import re
from dataclasses import dataclass
from enum import StrEnum
from urllib.parse import SplitResult, urlsplit

logger = logging.getLogger(__name__)


class UrlRule(StrEnum):
    WELL_FORMED = "well-formed"
    HTTPS = "https"
    NO_QUERY = "no query parameters"
    NO_IPV4 = "no IPv4 address"


@dataclass(frozen=True)
class RuleViolation:
    rule: UrlRule
    message: str

    def __str__(self) -> str:
        return f"rule '{self.rule.value}': {self.message}"


class NotificationUrlError(ValueError):
    """A URL the service would refuse; `violations` names every failed rule."""

    def __init__(self, url: str, violations: list[RuleViolation]) -> None:
        self.url = url
        self.violations = violations
        joined = "; ".join(str(v) for v in violations)
        super().__init__(f"{url!r} cannot be the notification URL: {joined}")

    @property
    def rules(self) -> list[UrlRule]:
        return [v.rule for v in self.violations]


_HOST_LABEL = re.compile(r"^[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?$")
_NUMERIC_LABEL = re.compile(r"^(?:[0-9]+|0x[0-9a-f]*)$", re.IGNORECASE)


def is_ipv4_literal(host: str) -> bool:
    """True for an IPv4 address in any form a browser or resolver reads as one.

    Follows the URL standard's rule: a host whose last label is a number is an IPv4 address,
    which covers dotted quads and the shorthand and numeric forms (`127.1`, `2130706433`,
    `0x7f.0.0.1`); IPv4-mapped IPv6 (`[::ffff:1.2.3.4]`) is an IPv4 address too.
    """
    host = host.strip("[]")
    if ":" in host:
        try:
            address = ipaddress.IPv6Address(host)
        except ValueError:
            return False
        return address.ipv4_mapped is not None
    labels = [label for label in host.split(".") if label]
    return bool(labels) and bool(_NUMERIC_LABEL.match(labels[-1]))


def _well_formed(url: str) -> tuple[SplitResult | None, list[RuleViolation]]:
    if not url or not url.strip():
        return None, [RuleViolation(UrlRule.WELL_FORMED, "the URL is empty")]
    if url != url.strip() or any(c.isspace() for c in url):
        return None, [RuleViolation(UrlRule.WELL_FORMED, "the URL contains spaces")]
    try:
        parts = urlsplit(url)
        _ = parts.port
    except ValueError as exc:
        return None, [RuleViolation(UrlRule.WELL_FORMED, f"the URL cannot be read ({exc})")]
    problems: list[RuleViolation] = []
    if not parts.scheme:
        problems.append(
            RuleViolation(UrlRule.WELL_FORMED, "the URL has no scheme (start it with https://)")
        )
    elif not parts.hostname:
        problems.append(RuleViolation(UrlRule.WELL_FORMED, "the URL has no host name"))
    if parts.username is not None or parts.password is not None:
        problems.append(
            RuleViolation(UrlRule.WELL_FORMED, "the URL must not carry a user name or password")
        )
    host = parts.hostname or ""
    if host and ":" not in host and not is_ipv4_literal(host):
        labels = host.rstrip(".").split(".")
        if not all(_HOST_LABEL.match(label) for label in labels):
            problems.append(
                RuleViolation(UrlRule.WELL_FORMED, f"{host!r} is not a valid host name")
            )
    return parts, problems


def check_notification_url(url: str) -> list[RuleViolation]:
    """Every rule the URL breaks (empty when the service would accept it)."""
    parts, problems = _well_formed(url)
    if parts is None:
        return problems
    if parts.scheme.lower() != "https":
        shown = parts.scheme or "no scheme"
        problems.append(RuleViolation(UrlRule.HTTPS, f"the URL must use https, not {shown}"))
    if "?" in url.split("#", 1)[0]:
        problems.append(
            RuleViolation(
                UrlRule.NO_QUERY,
                "the URL must not contain query parameters (remove everything from '?')",
            )
        )
    if parts.hostname and is_ipv4_literal(parts.hostname):
        problems.append(
            RuleViolation(
                UrlRule.NO_IPV4,
                f"the URL must use a host name, not the IPv4 address {parts.hostname}",
            )
        )
    return problems


def validate_notification_url(url: str) -> str:
    """Return the URL unchanged if the service would accept it; else raise NotificationUrlError."""
    problems = check_notification_url(url)
    if problems:
        raise NotificationUrlError(url, problems)
    return url


def notification_url(public_url: str, path: str) -> str:
    """The notification URL for a tunnel's public base URL and the listener's path."""
    return public_url.rstrip("/") + "/" + path.lstrip("/")


__all__ = [
    "NotificationUrlError",
    "RuleViolation",
    "UrlRule",
    "check_notification_url",
    "is_ipv4_literal",
    "notification_url",
    "validate_notification_url",
]
