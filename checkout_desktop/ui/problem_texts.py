"""Settings and setup problems in the screen's language: a notification URL's broken rules,
an unusable keychain, an unreadable stored PIN (the core words them in English, for the log)."""

from __future__ import annotations

import logging

from PySide6.QtCore import QCoreApplication

from checkout_desktop.doctor.report import Finding
from checkout_desktop.domain.store_host import HostProblem
from checkout_desktop.inbox.url_rules import RuleViolation
from checkout_desktop.ui.doctor_text import render

logger = logging.getLogger(__name__)


def url_rules_text(url: str, violations: list[RuleViolation]) -> str:
    """The rules of the service `url` breaks, as the connection test says them."""
    return render(
        Finding.URL_BREAKS_RULES,
        {"url": url or "—", "rules": tuple(v.rule.value for v in violations)},
    )


def keychain_text(detail: object) -> str:
    """No keychain to keep the secrets in: what to do, then the keychain's own words."""
    return "\n".join(
        (
            QCoreApplication.translate(
                "ProblemTexts",
                "The secrets are kept only in this computer's keychain, and none can be used. "
                "On Linux install and unlock a Secret Service provider (gnome-keyring or "
                "KWallet), then try again.",
            ),
            QCoreApplication.translate("ProblemTexts", "Technical detail: {detail}").format(
                detail=detail
            ),
        )
    )


def stored_pin_text() -> str:
    """The stored supervisor PIN cannot be read (damaged, or from an unknown version)."""
    return QCoreApplication.translate(
        "ProblemTexts", "The stored supervisor PIN cannot be read; set the PIN again in Settings."
    )


def store_host_text(problem: HostProblem) -> str:
    """What is wrong with the shared database's Server field (never repeating what it holds,
    which may be a password)."""
    texts = {
        HostProblem.CREDENTIALS: QCoreApplication.translate(
            "ProblemTexts",
            "Type only the server's name or address in Server: the user goes in User and the "
            "password in Password.",
        ),
        HostProblem.SPACE: QCoreApplication.translate(
            "ProblemTexts", "The server's name in Server cannot contain spaces."
        ),
        HostProblem.SLASH: QCoreApplication.translate(
            "ProblemTexts",
            "The server's name in Server cannot contain '/' (only a socket folder starts "
            "with '/').",
        ),
        HostProblem.COLON: QCoreApplication.translate(
            "ProblemTexts",
            "Server holds a ':' but is not an IPv6 address: type the port in Port, not after "
            "the server's name.",
        ),
    }
    return texts[problem]


__all__ = ["keychain_text", "store_host_text", "stored_pin_text", "url_rules_text"]
