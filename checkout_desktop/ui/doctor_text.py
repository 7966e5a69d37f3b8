"""The first-contact check's findings in the UI's language: one plain sentence per finding.

Used by `checkout-desktop doctor` (on a QCoreApplication, no window) and by the "Test
connection" buttons of the settings and the setup wizard, so both say the same words.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

from PySide6.QtCore import QCoreApplication

from checkout_desktop.doctor.probe import HostState
from checkout_desktop.doctor.report import (
    ArgValue,
    CheckName,
    CheckResult,
    Finding,
    Outcome,
    Report,
)
from checkout_desktop.domain.reasons import Reason
from checkout_desktop.ui.reasons import reason_text

logger = logging.getLogger(__name__)

CONTEXT = "Doctor"

MARKS = {Outcome.OK: "✔", Outcome.WARNING: "⚠", Outcome.FAILED: "✘", Outcome.SKIPPED: "–"}


def check_titles() -> dict[CheckName, str]:
    return {
        CheckName.PROFILE: QCoreApplication.translate("Doctor", "Environment"),
        CheckName.KEYCHAIN: QCoreApplication.translate("Doctor", "Keychain"),
        CheckName.TOKEN: QCoreApplication.translate("Doctor", "Access token"),
        CheckName.NOT_FOUND: QCoreApplication.translate("Doctor", "Charge queries"),
        CheckName.SDK_HOST: QCoreApplication.translate("Doctor", "Card form service"),
        CheckName.NOTIFICATION_URL: QCoreApplication.translate("Doctor", "Notification address"),
        CheckName.ROUND_TRIP: QCoreApplication.translate("Doctor", "Test notification"),
    }


def templates() -> dict[Finding, str]:
    """Every finding's sentence in the UI's language now (a test checks none is missing)."""
    return {
        Finding.PROFILE_OK: QCoreApplication.translate("Doctor", "“{profile}” at {url}"),
        Finding.PROFILE_NO_BASE_URL: QCoreApplication.translate(
            "Doctor", "“{profile}” has no service address; fill it in Settings"
        ),
        Finding.PROFILE_NO_CLIENT_ID: QCoreApplication.translate(
            "Doctor",
            "“{profile}” has no client id; copy it from the merchant panel into Settings",
        ),
        Finding.PROFILE_NO_MERCHANT_DOCUMENT: QCoreApplication.translate(
            "Doctor", "“{profile}” has no merchant CNPJ; the card form needs it"
        ),
        Finding.PROFILE_BAD_ADDRESS: QCoreApplication.translate(
            "Doctor", "the service address {url} is not an https:// address"
        ),
        Finding.SANDBOX_NOT_STARTED: QCoreApplication.translate(
            "Doctor", "the built-in sandbox did not start"
        ),
        Finding.KEYCHAIN_OK: QCoreApplication.translate(
            "Doctor", "every secret this environment needs is there"
        ),
        Finding.KEYCHAIN_NOT_NEEDED: QCoreApplication.translate(
            "Doctor", "not needed: the built-in sandbox uses public test values"
        ),
        Finding.KEYCHAIN_MISSING: QCoreApplication.translate(
            "Doctor", "missing: {missing}; enter them in Settings → Credentials"
        ),
        Finding.KEYCHAIN_UNAVAILABLE: QCoreApplication.translate(
            "Doctor",
            "no usable keychain on this computer; install and unlock one (on Linux, GNOME "
            "Keyring or KWallet)",
        ),
        Finding.TOKEN_OK: QCoreApplication.translate(
            "Doctor", "issued, valid for {seconds} s; permissions: {scopes}; reply fields: {fields}"
        ),
        Finding.TOKEN_OTHER_MERCHANT: QCoreApplication.translate(
            "Doctor",
            "issued, but for the merchant CNPJ {got}, not {expected}; check the client id",
        ),
        Finding.TOKEN_FAILED: QCoreApplication.translate("Doctor", "{reason}"),
        Finding.TOKEN_NO_ANSWER: QCoreApplication.translate(
            "Doctor", "the service did not answer within {seconds} s"
        ),
        Finding.NOT_FOUND_404: QCoreApplication.translate(
            "Doctor", "a charge that does not exist is answered with HTTP {http_code} (not found)"
        ),
        Finding.NOT_FOUND_400: QCoreApplication.translate(
            "Doctor",
            "a charge that does not exist is answered with HTTP {http_code}, naming the charge "
            "as not found",
        ),
        Finding.NOT_FOUND_UNRECOGNISED: QCoreApplication.translate(
            "Doctor",
            "a query for a charge that does not exist got HTTP {http_code} without saying "
            "“not found”: a charge whose reply is lost cannot be settled by itself ({reason})",
        ),
        Finding.NOT_FOUND_QUERY_REFUSED: QCoreApplication.translate(
            "Doctor",
            "the service refused the query's format (HTTP {http_code}): a charge whose reply is "
            "lost cannot be settled by asking ({reason})",
        ),
        Finding.NOT_FOUND_CHARGE_EXISTS: QCoreApplication.translate(
            "Doctor", "the service answered with a charge for the new id {id}; ask support"
        ),
        Finding.NOT_FOUND_FAILED: QCoreApplication.translate("Doctor", "{reason}"),
        Finding.NOT_FOUND_NO_ANSWER: QCoreApplication.translate(
            "Doctor", "the service did not answer within {seconds} s"
        ),
        Finding.NEEDS_TOKEN: QCoreApplication.translate("Doctor", "needs the checks above"),
        Finding.SDK_OK: QCoreApplication.translate("Doctor", "{host} answers securely ({tls})"),
        Finding.SDK_NO_HOST: QCoreApplication.translate(
            "Doctor", "this environment names no card form service"
        ),
        Finding.SDK_DNS_FAILED: QCoreApplication.translate(
            "Doctor", "the name {host} cannot be found ({error})"
        ),
        Finding.SDK_CONNECT_FAILED: QCoreApplication.translate(
            "Doctor", "{host} cannot be reached ({error})"
        ),
        Finding.SDK_TLS_FAILED: QCoreApplication.translate(
            "Doctor", "{host} answered, but its secure connection failed ({error})"
        ),
        Finding.SDK_NO_ANSWER: QCoreApplication.translate(
            "Doctor", "{host} did not answer within {seconds} s"
        ),
        Finding.SDK_OTHER_KEY: QCoreApplication.translate(
            "Doctor", "{host} answered with another certificate than the terminal trusts"
        ),
        Finding.URL_OK: QCoreApplication.translate("Doctor", "{url} follows the service's rules"),
        Finding.URL_SANDBOX: QCoreApplication.translate(
            "Doctor", "the built-in sandbox delivers straight to this computer ({url})"
        ),
        Finding.URL_NO_TUNNEL: QCoreApplication.translate(
            "Doctor",
            "no public address: the service cannot send notifications; results are learned by "
            "asking the service (choose a tunnel in Settings)",
        ),
        Finding.URL_BREAKS_RULES: QCoreApplication.translate(
            "Doctor", "{url} breaks the service's rules: {rules}"
        ),
        Finding.URL_NOT_KNOWN_YET: QCoreApplication.translate(
            "Doctor", "the tunnel has not given an address yet"
        ),
        Finding.ROUND_TRIP_OK: QCoreApplication.translate("Doctor", "{reason}"),
        Finding.ROUND_TRIP_LOCAL_ONLY: QCoreApplication.translate(
            "Doctor", "only on this computer: {reason}"
        ),
        Finding.ROUND_TRIP_FAILED: QCoreApplication.translate("Doctor", "{reason}"),
        Finding.ROUND_TRIP_ANSWERED_BY_RUNNING: QCoreApplication.translate(
            "Doctor",
            "the terminal already running here accepted it through {url} (HTTP {http_code})",
        ),
        Finding.ROUND_TRIP_PORT_TAKEN: QCoreApplication.translate(
            "Doctor",
            "port {port} is in use (is the terminal open?); the test needs a public address "
            "to go through",
        ),
        Finding.ROUND_TRIP_NO_ANSWER: QCoreApplication.translate(
            "Doctor", "no answer within {seconds} s"
        ),
        Finding.ROUND_TRIP_NOT_STARTED: QCoreApplication.translate(
            "Doctor", "not sent: the listener is not running"
        ),
    }


def _secret_labels() -> dict[str, str]:
    return {
        "client_secret": QCoreApplication.translate("Doctor", "client secret"),
        "sdk_merchant_token": QCoreApplication.translate("Doctor", "card SDK token"),
        "webhook_token": QCoreApplication.translate("Doctor", "webhook token"),
    }


def _rule_labels() -> dict[str, str]:
    return {
        "well-formed": QCoreApplication.translate("Doctor", "a well-formed address"),
        "https": QCoreApplication.translate("Doctor", "https only"),
        "no query parameters": QCoreApplication.translate("Doctor", "no query parameters"),
        "no IPv4 address": QCoreApplication.translate("Doctor", "a host name, not an IPv4 address"),
    }


def _arg(name: str, value: ArgValue) -> str:
    if isinstance(value, Reason):
        return reason_text(value)
    if isinstance(value, tuple):
        labels = (
            _secret_labels() if name == "missing" else _rule_labels() if name == "rules" else {}
        )
        return ", ".join(labels.get(item, item) for item in value) or "—"
    if value is None:
        return "—"
    if name == "profile":
        return _profile_name(str(value))
    return str(value)


def _profile_name(name: str) -> str:
    """A built-in environment as the settings name it (in the screen's language); a shop's own
    environment by the name the shop gave it."""
    from checkout_desktop.settings import default_profiles
    from checkout_desktop.ui.labels import profile_label

    known = default_profiles().get(name)
    return name if known is None else profile_label(known)


def finding_text(result: CheckResult) -> str:
    """The result's finding as one sentence in the UI's language."""
    return render(result.finding, result.args)


class _Missing(dict[str, str]):
    """An argument the finding did not bring is shown as a dash, never as `{name}`."""

    def __missing__(self, key: str) -> str:
        logger.error("a connection-test text names {%s}, which its finding did not bring", key)
        return "—"


def render(finding: Finding, args: Mapping[str, ArgValue]) -> str:
    template = templates()[finding]
    values = _Missing({name: _arg(name, value) for name, value in args.items()})
    if finding == Finding.URL_SANDBOX and values.get("url") in ("-", "—", ""):
        # Before the terminal listens there is no address to name yet.
        template = QCoreApplication.translate(
            "Doctor", "the built-in sandbox delivers straight to this computer"
        )
    try:
        return template.format_map(values)
    except (IndexError, ValueError):
        logger.error("the text of %s does not fit its arguments %s", finding, sorted(args))
        return template


def host_state_text(state: HostState, name: str) -> str:
    """One host's probe result: "Payment service (host): answers" or why not."""
    if state.failure is None:
        detail = QCoreApplication.translate("Doctor", "answers")
    else:
        detail = render(
            state.failure,
            {"host": state.host, "error": state.error or "—", "seconds": state.error or "—"},
        )
    return QCoreApplication.translate("Doctor", "{name} ({host}): {detail}").format(
        name=name, host=state.host, detail=detail
    )


def verdict(report: Report) -> str:
    """One line: can the terminal charge, and do notifications arrive."""
    if not report.can_charge:
        return QCoreApplication.translate(
            "Doctor", "This terminal cannot charge yet: fix what is marked ✘ above."
        )
    if any(r.outcome != Outcome.OK for r in report.results):
        return QCoreApplication.translate(
            "Doctor", "This terminal can charge; what is marked ⚠ or ✘ above still needs care."
        )
    return QCoreApplication.translate("Doctor", "This terminal can charge. Everything works.")


def report_lines(report: Report) -> list[str]:
    """The plain report: a heading, one line per check, and the verdict."""
    titles = check_titles()
    lines = [
        QCoreApplication.translate("Doctor", "Connection check of “{profile}”").format(
            profile=report.profile
        )
    ]
    for result in report.ordered():
        lines.append(
            QCoreApplication.translate("Doctor", "{mark} {check}: {detail}").format(
                mark=MARKS[result.outcome],
                check=titles[result.check],
                detail=finding_text(result),
            )
        )
    lines.append(verdict(report))
    return lines


__all__ = [
    "CONTEXT",
    "MARKS",
    "check_titles",
    "finding_text",
    "host_state_text",
    "render",
    "report_lines",
    "templates",
    "verdict",
]
