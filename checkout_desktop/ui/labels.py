"""Translated display names of statuses, verdicts and timeline sources (stored values unchanged)."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from datetime import datetime

from PySide6.QtCore import QCoreApplication

from checkout_desktop.domain.money_ops import MONEY_STEPS
from checkout_desktop.settings import Profile, ProfileKind, default_profiles
from checkout_desktop.ui.formatting import format_instant_precise, format_money

logger = logging.getLogger(__name__)


def status_label(status: str | None) -> str:
    """A charge or transaction status as staff read it; an unpublished one is shown verbatim."""
    if not status:
        return "—"
    labels = {
        "PENDING": QCoreApplication.translate("Labels", "Pending"),
        "PRE_AUTHORIZED": QCoreApplication.translate("Labels", "Pre-authorized"),
        "AUTHORIZED": QCoreApplication.translate("Labels", "Authorized"),
        "PAID": QCoreApplication.translate("Labels", "Paid"),
        "CAPTURED": QCoreApplication.translate("Labels", "Captured"),
        "PARTIAL": QCoreApplication.translate("Labels", "Partially refunded"),
        "PARTIALLY_REFUNDED": QCoreApplication.translate("Labels", "Partially refunded"),
        "DENIED": QCoreApplication.translate("Labels", "Denied"),
        "ERROR": QCoreApplication.translate("Labels", "Error"),
        "CANCELED": QCoreApplication.translate("Labels", "Canceled"),
        "REFUNDED": QCoreApplication.translate("Labels", "Refunded"),
        "CHARGEBACK": QCoreApplication.translate("Labels", "Chargeback"),
        "EXPIRED": QCoreApplication.translate("Labels", "Expired"),
        "Approved": QCoreApplication.translate("Labels", "3DS approved"),
        "Challenged": QCoreApplication.translate("Labels", "3DS challenged"),
        "Rejected": QCoreApplication.translate("Labels", "3DS rejected"),
        # Attempt states, as the timeline records them.
        "RECORDED": QCoreApplication.translate("Labels", "Recorded before sending"),
        "UNKNOWN": QCoreApplication.translate("Labels", "Outcome unknown"),
        "CREATED": QCoreApplication.translate("Labels", "Created at the service"),
        "REJECTED": QCoreApplication.translate("Labels", "Refused, not charged"),
        "NOT_FOUND": QCoreApplication.translate("Labels", "Not found, not charged"),
    }
    return labels.get(status, status)


def verdict_label(verdict: str | None) -> str:
    if not verdict:
        return "—"
    labels = {
        "accepted": QCoreApplication.translate("Labels", "Accepted"),
        "duplicate": QCoreApplication.translate("Labels", "Duplicate"),
        "unknown": QCoreApplication.translate("Labels", "Unknown type"),
        "self_test": QCoreApplication.translate("Labels", "Self-test"),
        "quarantined": QCoreApplication.translate("Labels", "Rejected"),
    }
    return labels.get(verdict, verdict)


def verdict_explanation(verdict: str) -> str:
    """One sentence on what the inbox did with a delivery of this verdict."""
    texts = {
        "accepted": QCoreApplication.translate(
            "Labels", "Accepted: stored and applied to its charge."
        ),
        "duplicate": QCoreApplication.translate(
            "Labels", "Duplicate: the same body arrived before; stored, not applied again."
        ),
        "unknown": QCoreApplication.translate(
            "Labels", "Unknown type: stored as received, not applied to any charge."
        ),
        "self_test": QCoreApplication.translate(
            "Labels", "Self-test: the inbox's own health check, not a charge event."
        ),
        "quarantined": QCoreApplication.translate(
            "Labels", "Rejected: the body could not be accepted; kept in quarantine."
        ),
    }
    return texts.get(verdict, verdict)


def source_label(source: str) -> str:
    """A timeline input's source."""
    labels = {
        "request": QCoreApplication.translate("Labels", "Request"),
        "reply": QCoreApplication.translate("Labels", "Reply"),
        "webhook": QCoreApplication.translate("Labels", "Notification"),
        "reconciliation": QCoreApplication.translate("Labels", "Reconciliation"),
        "3ds": QCoreApplication.translate("Labels", "3DS"),
        "system": QCoreApplication.translate("Labels", "System"),
    }
    return labels.get(source, source)


def outcome_label(outcome: str) -> str:
    labels = {
        "applied": QCoreApplication.translate("Labels", "applied"),
        "duplicate": QCoreApplication.translate("Labels", "no change"),
        "ignored": QCoreApplication.translate("Labels", "older, ignored"),
        "recorded": QCoreApplication.translate("Labels", "recorded"),
        "failed": QCoreApplication.translate("Labels", "failed"),
    }
    return labels.get(outcome, outcome)


def profile_label(profile: Profile) -> str:
    """An environment's name; the three built-in ones in the terminal's language."""
    defaults = default_profiles()
    known = defaults.get(profile.name)
    if known is None or known.label != profile.label:
        return profile.label
    labels = {
        ProfileKind.BUILTIN_SANDBOX: QCoreApplication.translate(
            "Labels", "Built-in sandbox (no account needed)"
        ),
        ProfileKind.SERVICE_SANDBOX: QCoreApplication.translate("Labels", "Service sandbox"),
        ProfileKind.PRODUCTION: QCoreApplication.translate("Labels", "Production"),
    }
    return labels.get(profile.kind, profile.label)


# -- reasons written by the core --------------------------------------------------------------
# The store keeps the core's English reasons (exports and logs stay English); only their
# display is translated. Each rule recognises one template the core writes and renders it
# again with its captured parts; a text no rule knows is shown as stored.


def _tr(text: str) -> str:
    return QCoreApplication.translate("Labels", text)


def _status(text: str) -> str:
    if text == "no status":
        return QCoreApplication.translate("Labels", "no status")
    return status_label(text)


def _money(centavos: str) -> str:
    return format_money(int(centavos))


def _instant(text: str) -> str:
    try:
        return format_instant_precise(datetime.fromisoformat(text))
    except ValueError:
        return text


def _trigger(text: str) -> str:
    labels = {
        "after the reply": QCoreApplication.translate("Labels", "after the reply"),
        "start-up": QCoreApplication.translate("Labels", "at start-up"),
        "on demand": QCoreApplication.translate("Labels", "on demand"),
        "schedule": QCoreApplication.translate("Labels", "scheduled check"),
        "scheduled check": QCoreApplication.translate("Labels", "scheduled check"),
        "before sending": QCoreApplication.translate("Labels", "before sending"),
        "after the refusal": QCoreApplication.translate("Labels", "after the refusal"),
        "daily sweep": QCoreApplication.translate("Labels", "daily sweep"),
    }
    return labels.get(text, text)


def _cards(text: str) -> str:
    """`CardSummary.describe()` texts joined by commas: brand, last four, installments."""
    shown = []
    for card in text.split(", "):
        card = re.sub(
            r" in (\d+)x$",
            lambda m: " " + QCoreApplication.translate("Labels", "in {count}x").format(count=m[1]),
            card,
        )
        if card == "card" or card.startswith(("card ", "card\u00a0")):
            card = QCoreApplication.translate("Labels", "card") + card[4:]
        shown.append(card)
    return ", ".join(shown)


def _money_action(what: str, amount: str) -> str:
    if what == "capture":
        return QCoreApplication.translate("Labels", "capture of {amount}").format(
            amount=_money(amount)
        )
    if what == "cancel":
        return QCoreApplication.translate("Labels", "cancellation of {amount}").format(
            amount=_money(amount)
        )
    return QCoreApplication.translate("Labels", "refund of {amount}").format(amount=_money(amount))


def _money_step(step: str) -> str:
    """One step of a refund, capture or cancel (domain/money_ops.MONEY_STEPS)."""
    labels = {
        "requested": QCoreApplication.translate("Labels", "requested"),
        "sent to the service": QCoreApplication.translate("Labels", "sent to the service"),
        "confirmed by the service": QCoreApplication.translate(
            "Labels", "confirmed by the service"
        ),
        "outcome unknown; the charge will be queried, never sent again": (
            QCoreApplication.translate(
                "Labels", "outcome unknown; the charge will be queried, never sent again"
            )
        ),
        "refused by the service": QCoreApplication.translate("Labels", "refused by the service"),
        "not sent: it never reached the service": QCoreApplication.translate(
            "Labels", "not sent: it never reached the service"
        ),
        "not done: the service's figures show no such change": QCoreApplication.translate(
            "Labels", "not done: the service's figures show no such change"
        ),
        "not visible at the service yet; it will be asked again, never sent again": (
            QCoreApplication.translate(
                "Labels",
                "not visible at the service yet; it will be asked again, never sent again",
            )
        ),
    }
    return labels.get(step, step)


_FIGURES = re.compile(r"(no status|[A-Za-z_]+), refunded (\d+) of (\d+|\?) centavos")


def _money_detail(text: str) -> str:
    """The service's figures (`Figures.describe()`), or an error shown as the service wrote it."""
    match = _FIGURES.fullmatch(text)
    if match is None:
        return text
    total = match[3]
    return QCoreApplication.translate("Labels", "{status}, refunded {refunded} of {amount}").format(
        status=_status(match[1]),
        refunded=_money(match[2]),
        amount="?" if total == "?" else _money(total),
    )


def _money_reason(match: re.Match[str]) -> str:
    text = f"{_money_action(match[1], match[2])} {_money_step(match[3])}"
    return text if match[4] is None else f"{text} ({_money_detail(match[4])})"


_MONEY_STEPS = tuple(MONEY_STEPS.values())
_Rule = tuple["re.Pattern[str]", Callable[["re.Match[str]"], str]]
_S = r"([A-Za-z_]+)"  # a status, attempt state or "no status" (two words, below)
_ST = r"(no status|[A-Za-z_]+)"
_TRIGGER = r"([^:()]+?)"


def _rules() -> list[_Rule]:
    raw: list[tuple[str, Callable[[re.Match[str]], str]]] = [
        # domain/state.py: merging a charge input
        (
            rf"first status of the charge: {_S}",
            lambda m: QCoreApplication.translate(
                "Labels", "first status of the charge: {status}"
            ).format(status=_status(m[1])),
        ),
        (
            rf"a later {_S} update",
            lambda m: QCoreApplication.translate("Labels", "a later {status} update").format(
                status=_status(m[1])
            ),
        ),
        (
            rf"{_S} is later in the charge's life than {_S}",
            lambda m: QCoreApplication.translate(
                "Labels", "{new} is later in the charge's life than {current}"
            ).format(new=_status(m[1]), current=_status(m[2])),
        ),
        (
            rf"already {_ST}; added details the charge did not have",
            lambda m: QCoreApplication.translate(
                "Labels", "already {status}; added details the charge did not have"
            ).format(status=_status(m[1])),
        ),
        (
            r"(.+); added details the charge did not have",
            lambda m: QCoreApplication.translate(
                "Labels", "{reason}; added details the charge did not have"
            ).format(reason=reason_label(m[1])),
        ),
        (
            rf"already {_ST}; nothing new",
            lambda m: QCoreApplication.translate("Labels", "already {status}; nothing new").format(
                status=_status(m[1])
            ),
        ),
        (
            rf"the charge is DENIED, which is final; {_S} is not applied",
            lambda m: QCoreApplication.translate(
                "Labels", "the charge is {denied}, which is final; {status} is not applied"
            ).format(denied=_status("DENIED"), status=_status(m[1])),
        ),
        (
            rf"{_S} comes earlier in a charge's life than {_S}; "
            "an older input never overwrites a newer state",
            lambda m: QCoreApplication.translate(
                "Labels",
                "{new} comes earlier in a charge's life than {current}; "
                "an older input never overwrites a newer state",
            ).format(new=_status(m[1]), current=_status(m[2])),
        ),
        (
            rf"{_S} happened at (\S+), before the current state \((\S+)\)",
            lambda m: QCoreApplication.translate(
                "Labels", "{status} happened at {at}, before the current state ({current})"
            ).format(status=_status(m[1]), at=_instant(m[2]), current=_instant(m[3])),
        ),
        (
            rf"{_S} is older than the current {_S}",
            lambda m: QCoreApplication.translate(
                "Labels", "{new} is older than the current {current}"
            ).format(new=_status(m[1]), current=_status(m[2])),
        ),
        (
            rf"3DS challenge result {_S} \(paresStatus (.+)\)",
            lambda m: QCoreApplication.translate(
                "Labels", "3DS challenge result {status} (paresStatus {pares})"
            ).format(status=_status(m[1]), pares=m[2]),
        ),
        (
            rf"3DS challenge result {_S}",
            lambda m: QCoreApplication.translate("Labels", "3DS challenge result {status}").format(
                status=_status(m[1])
            ),
        ),
        (
            r"older 3DS result; added the charge id",
            lambda m: QCoreApplication.translate("Labels", "older 3DS result; added the charge id"),
        ),
        (
            rf"3DS result {_S} already recorded",
            lambda m: QCoreApplication.translate(
                "Labels", "3DS result {status} already recorded"
            ).format(status=_status(m[1])),
        ),
        (
            rf"3DS result {_S} is older than the recorded {_ST}",
            lambda m: QCoreApplication.translate(
                "Labels", "3DS result {new} is older than the recorded {current}"
            ).format(new=_status(m[1]), current=_status(m[2])),
        ),
        # store/charges.py: attempts and when a charge is looked at again
        (
            r"attempt for sale (.+) recorded before sending: (\d+) centavos, (.+), late capture",
            lambda m: QCoreApplication.translate(
                "Labels",
                "attempt for sale {sale} recorded before sending: {amount}, {cards}, late capture",
            ).format(sale=m[1], amount=_money(m[2]), cards=_cards(m[3])),
        ),
        (
            r"attempt for sale (.+) recorded before sending: (\d+) centavos, (.+)",
            lambda m: QCoreApplication.translate(
                "Labels", "attempt for sale {sale} recorded before sending: {amount}, {cards}"
            ).format(sale=m[1], amount=_money(m[2]), cards=_cards(m[3])),
        ),
        (
            rf"attempt already {_S}; (.+)",
            lambda m: QCoreApplication.translate(
                "Labels", "attempt already {state}; {reason}"
            ).format(state=_status(m[1]), reason=reason_label(m[2])),
        ),
        (
            rf"the service has this charge \({_S}\); attempt resolved",
            lambda m: QCoreApplication.translate(
                "Labels", "the service has this charge ({status}); attempt resolved"
            ).format(status=_status(m[1])),
        ),
        (
            rf"the service has the charge \({_S}\)",
            lambda m: QCoreApplication.translate(
                "Labels", "the service has the charge ({status})"
            ).format(status=_status(m[1])),
        ),
        (
            rf"a notification shows the service has the charge \({_S}\)",
            lambda m: QCoreApplication.translate(
                "Labels", "a notification shows the service has the charge ({status})"
            ).format(status=_status(m[1])),
        ),
        (
            r"the charge has no status yet",
            lambda m: QCoreApplication.translate("Labels", "the charge has no status yet"),
        ),
        (
            rf"{_S} is not final",
            lambda m: QCoreApplication.translate("Labels", "{status} is not final").format(
                status=_status(m[1])
            ),
        ),
        (
            rf"expecting the notification of {_S}",
            lambda m: QCoreApplication.translate(
                "Labels", "expecting the notification of {status}"
            ).format(status=_status(m[1])),
        ),
        (r"scheduled check", lambda m: QCoreApplication.translate("Labels", "scheduled check")),
        # domain/money_ops.py: each step of a refund, capture or cancel
        (
            r"(refund|capture|cancel) of (\d+) centavos ("
            + "|".join(re.escape(step) for step in _MONEY_STEPS)
            + r")(?: \((.+)\))?",
            _money_reason,
        ),
        # gateway/charging.py: charging, capture, refund and reconciliation
        (
            r"not charged: the service has no charge \((.+)\)",
            lambda m: QCoreApplication.translate(
                "Labels", "not charged: the service has no charge ({error})"
            ).format(error=m[1]),
        ),
        (
            r"not charged: (.+)",
            lambda m: QCoreApplication.translate("Labels", "not charged: {error}").format(
                error=m[1]
            ),
        ),
        (
            r"(.+); the service answered, so one query settles it",
            lambda m: QCoreApplication.translate(
                "Labels", "{error}; the service answered, so one query settles it"
            ).format(error=m[1]),
        ),
        (
            r"(.+); the charge may exist: it will be found by asking, never sent again",
            lambda m: QCoreApplication.translate(
                "Labels",
                "{error}; the charge may exist: it will be found by asking, never sent again",
            ).format(error=m[1]),
        ),
        (
            r"capture of (\d+) centavos requested",
            lambda m: QCoreApplication.translate("Labels", "capture of {amount} requested").format(
                amount=_money(m[1])
            ),
        ),
        (
            r"refund of (\d+) centavos requested",
            lambda m: QCoreApplication.translate("Labels", "refund of {amount} requested").format(
                amount=_money(m[1])
            ),
        ),
        (
            r"capture failed: (.+); the charge will be queried to learn whether it happened",
            lambda m: QCoreApplication.translate(
                "Labels",
                "capture failed: {error}; the charge will be queried to learn whether it happened",
            ).format(error=m[1]),
        ),
        (
            r"refund failed: (.+); the charge will be queried to learn whether it happened",
            lambda m: QCoreApplication.translate(
                "Labels",
                "refund failed: {error}; the charge will be queried to learn whether it happened",
            ).format(error=m[1]),
        ),
        (
            r"capture failed: (.+)",
            lambda m: QCoreApplication.translate("Labels", "capture failed: {error}").format(
                error=m[1]
            ),
        ),
        (
            r"refund failed: (.+)",
            lambda m: QCoreApplication.translate("Labels", "refund failed: {error}").format(
                error=m[1]
            ),
        ),
        (
            r"capture outcome unknown",
            lambda m: QCoreApplication.translate("Labels", "capture outcome unknown"),
        ),
        (
            r"refund outcome unknown",
            lambda m: QCoreApplication.translate("Labels", "refund outcome unknown"),
        ),
        (
            r"(capture|refund|cancel) of (\d+) centavos: (.+)",
            lambda m: QCoreApplication.translate("Labels", "{action}: {reason}").format(
                action=_money_action(m[1], m[2]), reason=reason_label(m[3])
            ),
        ),
        (
            rf"{_TRIGGER}: could not ask the service \((.+)\); will ask again",
            lambda m: QCoreApplication.translate(
                "Labels", "{trigger}: could not ask the service ({error}); will ask again"
            ).format(trigger=_trigger(m[1]), error=m[2]),
        ),
        (
            rf"{_TRIGGER}: the service answered the request and has no such charge: "
            "nothing was charged",
            lambda m: QCoreApplication.translate(
                "Labels",
                "{trigger}: the service answered the request and has no such charge: "
                "nothing was charged",
            ).format(trigger=_trigger(m[1])),
        ),
        (
            rf"{_TRIGGER}: still no such charge (\d+) s after the attempt, "
            "past the point where it could appear: nothing was charged",
            lambda m: QCoreApplication.translate(
                "Labels",
                "{trigger}: still no such charge {seconds} s after the attempt, "
                "past the point where it could appear: nothing was charged",
            ).format(trigger=_trigger(m[1]), seconds=m[2]),
        ),
        (
            rf"{_TRIGGER}: the service has no such charge yet \((\d+) s after the attempt\); "
            "the request may still be in progress there, so it will be asked again, "
            "never sent again",
            lambda m: QCoreApplication.translate(
                "Labels",
                "{trigger}: the service has no such charge yet ({seconds} s after the attempt); "
                "the request may still be in progress there, so it will be asked again, "
                "never sent again",
            ).format(trigger=_trigger(m[1]), seconds=m[2]),
        ),
        (
            rf"{_TRIGGER}: asked the service: (.+)",
            lambda m: QCoreApplication.translate(
                "Labels", "{trigger}: asked the service: {reason}"
            ).format(trigger=_trigger(m[1]), reason=reason_label(m[2])),
        ),
        (
            rf"{_TRIGGER} \((.+?)\): the service answered: (.+)",
            lambda m: QCoreApplication.translate(
                "Labels", "{trigger} ({why}): the service answered: {error}"
            ).format(trigger=_trigger(m[1]), why=reason_label(m[2]), error=m[3]),
        ),
        (
            rf"{_TRIGGER} \((.+?)\): could not ask the service: (.+)",
            lambda m: QCoreApplication.translate(
                "Labels", "{trigger} ({why}): could not ask the service: {error}"
            ).format(trigger=_trigger(m[1]), why=reason_label(m[2]), error=m[3]),
        ),
        (
            rf"{_TRIGGER} \((.+?)\): (.+)",
            lambda m: QCoreApplication.translate("Labels", "{trigger} ({why}): {reason}").format(
                trigger=_trigger(m[1]), why=reason_label(m[2]), reason=reason_label(m[3])
            ),
        ),
        # inbox: what the writer did with a notification, and why a delivery was set aside
        (
            r"(applied|duplicate|ignored): (.+)",
            lambda m: QCoreApplication.translate("Labels", "{outcome}: {reason}").format(
                outcome=outcome_label(m[1]), reason=reason_label(m[2])
            ),
        ),
        (
            r"not applied: (.+)",
            lambda m: QCoreApplication.translate("Labels", "not applied: {error}").format(
                error=m[1]
            ),
        ),
        (r"applied", lambda m: outcome_label("applied")),
        (
            r"the event-type header says (.+) but the body is (.+); the body decided",
            lambda m: QCoreApplication.translate(
                "Labels",
                "the event-type header says {header} but the body is {body}; the body decided",
            ).format(header=m[1], body=m[2]),
        ),
        (
            r"a notification of a type this terminal does not know \((.+)\); "
            "stored as received, not applied to any charge",
            lambda m: QCoreApplication.translate(
                "Labels",
                "a notification of a type this terminal does not know ({type}); "
                "stored as received, not applied to any charge",
            ).format(
                type=QCoreApplication.translate("Labels", "no type") if m[1] == "no type" else m[1]
            ),
        ),
        (
            r"a self-test body without a nonce",
            lambda m: QCoreApplication.translate("Labels", "a self-test body without a nonce"),
        ),
        (
            r"the (?:(\S+) )?body does not match the format: (.+)",
            lambda m: (
                QCoreApplication.translate(
                    "Labels", "the {type} body does not match the format: {details}"
                )
                if m[1]
                else QCoreApplication.translate(
                    "Labels", "the body does not match the format: {details}"
                )
            ).format(type=m[1], details=m[2]),
        ),
        (
            r"the (?:(\S+) )?body cannot be read \((\w+)\)",
            lambda m: (
                QCoreApplication.translate("Labels", "the {type} body cannot be read ({error})")
                if m[1]
                else QCoreApplication.translate("Labels", "the body cannot be read ({error})")
            ).format(type=m[1], error=m[2]),
        ),
        (
            r"the body is not valid JSON: (.+)",
            lambda m: QCoreApplication.translate(
                "Labels", "the body is not valid JSON: {error}"
            ).format(error=m[1]),
        ),
        (
            r"the body is JSON but not an object \(got (\w+)\)",
            lambda m: QCoreApplication.translate(
                "Labels", "the body is JSON but not an object (got {type})"
            ).format(type=m[1]),
        ),
        (
            r"the body is (\d+) bytes, over the limit of (\d+) bytes; the first \d+ bytes are kept",
            lambda m: QCoreApplication.translate(
                "Labels",
                "the body is {size} bytes, over the limit of {limit} bytes; "
                "the first {limit} bytes are kept",
            ).format(size=m[1], limit=m[2]),
        ),
        (
            r"the body is more, over the limit of (\d+) bytes; the first \d+ bytes are kept",
            lambda m: QCoreApplication.translate(
                "Labels",
                "the body is over the limit of {limit} bytes; the first {limit} bytes are kept",
            ).format(limit=m[1]),
        ),
        (
            r"the body did not arrive within (\S+) s \((\d+) bytes came\); what came is kept",
            lambda m: QCoreApplication.translate(
                "Labels",
                "the body did not arrive within {seconds} s ({size} bytes came); what came is kept",
            ).format(seconds=m[1], size=m[2]),
        ),
        (
            r"the content type (.+) is not JSON; the body is kept",
            lambda m: QCoreApplication.translate(
                "Labels", "the content type {type} is not JSON; the body is kept"
            ).format(type=m[1]),
        ),
    ]
    return [(re.compile(pattern, re.DOTALL), render) for pattern, render in raw]


_RULES = _rules()
# A template every catalogue translates: it tells whether the reasons are shown translated.
_SENTINEL = "first status of the charge: {status}"


def reason_label(text: str | None) -> str:
    """A reason the core wrote (in English, as stored) in the terminal's language.

    The first rule whose template matches the whole text renders it; parts that are
    themselves reasons are rendered the same way. Unknown text, and any text while the UI
    speaks English, is returned unchanged.
    """
    if not text:
        return ""
    if _tr(_SENTINEL) == _SENTINEL:
        # No catalogue for the UI language (English, the core's language): the stored text
        # already reads right, with the statuses as the service names them.
        return text
    for pattern, render in _RULES:
        match = pattern.fullmatch(text)
        if match is not None:
            return render(match)
    return text


__all__ = [
    "outcome_label",
    "profile_label",
    "reason_label",
    "source_label",
    "status_label",
    "verdict_explanation",
    "verdict_label",
]
