"""Reasons (`checkout_desktop.domain.reasons`) in the UI's language, one template per code.

Each `ReasonCode` has one entry below, translated by Qt (`QCoreApplication.translate`, context
"Reasons"); its arguments are shown the way the rest of the UI shows them: statuses by their
labels, amounts as money, instants in the locale's format, nested reasons rendered the same
way. A stored row from before reasons were kept as codes has no `Reason`: its stored text is
shown as it is.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime

from PySide6.QtCore import QCoreApplication

from checkout_desktop.domain.reasons import (
    ArgValue,
    Reason,
    ReasonCode,
    is_amount_arg,
    is_instant_arg,
    is_status_arg,
)
from checkout_desktop.ui.formatting import format_instant_precise, format_money
from checkout_desktop.ui.labels import status_label
from checkout_desktop.ui.translated_tables import TranslatedTable

logger = logging.getLogger(__name__)

CONTEXT = "Reasons"


def _templates() -> dict[ReasonCode, str]:
    """Every code's template in the UI's language now (a test checks none is missing)."""
    return {
        ReasonCode.MERGE_FIRST_STATUS: QCoreApplication.translate(
            "Reasons", "first status of the charge: {status}"
        ),
        ReasonCode.MERGE_LATER_UPDATE: QCoreApplication.translate(
            "Reasons", "a later {status} update"
        ),
        ReasonCode.MERGE_LATER_STAGE: QCoreApplication.translate(
            "Reasons", "{status} is later in the charge's life than {current_status}"
        ),
        ReasonCode.MERGE_DETAILS_ADDED: QCoreApplication.translate(
            "Reasons", "already {current_status}; added details the charge did not have"
        ),
        ReasonCode.MERGE_OLDER_DETAILS_ADDED: QCoreApplication.translate(
            "Reasons", "{why}; added details the charge did not have"
        ),
        ReasonCode.MERGE_NOTHING_NEW: QCoreApplication.translate(
            "Reasons", "already {current_status}; nothing new"
        ),
        ReasonCode.MERGE_AFTER_DENIED: QCoreApplication.translate(
            "Reasons", "the charge was denied, which is final; {status} is not applied"
        ),
        ReasonCode.MERGE_EARLIER_STAGE: QCoreApplication.translate(
            "Reasons",
            "{status} comes earlier in a charge's life than {current_status}; an older input "
            "never overwrites a newer state",
        ),
        ReasonCode.MERGE_HAPPENED_BEFORE: QCoreApplication.translate(
            "Reasons", "{status} happened at {occurred_at}, before the current state ({current_at})"
        ),
        ReasonCode.MERGE_OLDER: QCoreApplication.translate(
            "Reasons", "{status} is older than the current {current_status}"
        ),
        # A 3DS status's label names 3DS itself ("3DS approved": see _three_ds_words).
        ReasonCode.THREE_DS_RESULT: QCoreApplication.translate(
            "Reasons", "challenge result: {status}"
        ),
        ReasonCode.THREE_DS_RESULT_PARES: QCoreApplication.translate(
            "Reasons", "challenge result: {status} (paresStatus {pares})"
        ),
        ReasonCode.THREE_DS_OLDER_CHARGE_ID: QCoreApplication.translate(
            "Reasons", "older 3DS result; added the charge id"
        ),
        ReasonCode.THREE_DS_ALREADY: QCoreApplication.translate(
            "Reasons", "{status} already recorded"
        ),
        ReasonCode.THREE_DS_OLDER: QCoreApplication.translate(
            "Reasons", "{status} is older than the recorded {current_status}"
        ),
        ReasonCode.CHANGE_STATUS: QCoreApplication.translate(
            "Reasons", "status {previous_status} → {status}"
        ),
        ReasonCode.CHANGE_REFUNDED: QCoreApplication.translate(
            "Reasons", "refunded {previous_amount} → {amount}"
        ),
        ReasonCode.CHANGE_AMOUNT: QCoreApplication.translate("Reasons", "amount {amount}"),
        ReasonCode.CHANGE_CHARGE_ID: QCoreApplication.translate(
            "Reasons", "service's charge id {charge}"
        ),
        ReasonCode.CHANGE_TRANSACTION_NEW: QCoreApplication.translate(
            "Reasons", "card payment {key}: {status}"
        ),
        ReasonCode.CHANGE_TRANSACTION_STATUS: QCoreApplication.translate(
            "Reasons", "card payment {key}: {previous_status} → {status}"
        ),
        ReasonCode.CHANGE_TRANSACTION_REFUNDED: QCoreApplication.translate(
            "Reasons", "card payment {key}: refunded {previous_amount} → {amount}"
        ),
        ReasonCode.CHANGE_THREE_DS: QCoreApplication.translate(
            "Reasons", "{previous_status} → {status}"
        ),
        ReasonCode.ATTEMPT_RECORDED: QCoreApplication.translate(
            "Reasons", "attempt for sale {sale} recorded before sending: {amount}, {cards}"
        ),
        ReasonCode.ATTEMPT_RECORDED_LATE_CAPTURE: QCoreApplication.translate(
            "Reasons",
            "attempt for sale {sale} recorded before sending: {amount}, {cards}, late capture",
        ),
        ReasonCode.ATTEMPT_ALREADY: QCoreApplication.translate(
            "Reasons", "attempt already {state}; {why}"
        ),
        ReasonCode.ATTEMPT_RESOLVED: QCoreApplication.translate(
            "Reasons", "the service has this charge ({status}); attempt resolved"
        ),
        ReasonCode.CARD: QCoreApplication.translate("Reasons", "{brand} •••• {last_four}"),
        ReasonCode.CARD_BRAND_ONLY: QCoreApplication.translate("Reasons", "{brand}"),
        ReasonCode.CARD_UNKNOWN_BRAND: QCoreApplication.translate("Reasons", "card"),
        ReasonCode.CARD_INSTALLMENTS: QCoreApplication.translate(
            "Reasons", "{card} in {installments}x"
        ),
        ReasonCode.TENDER_WALLET: QCoreApplication.translate("Reasons", "PicPay wallet QR"),
        ReasonCode.TENDER_PIX: QCoreApplication.translate("Reasons", "PIX QR"),
        ReasonCode.CHECK_QR_EXPIRY: QCoreApplication.translate(
            "Reasons", "the QR expires at {expires_at}; asked around its expiry"
        ),
        ReasonCode.START_QR_WAITING: QCoreApplication.translate(
            "Reasons",
            "This sale has a QR ({charge}) awaiting payment until {expires_at}. Cancel it or "
            "let it expire before charging the sale again.",
        ),
        ReasonCode.OUTCOME_QR_AWAITING: QCoreApplication.translate(
            "Reasons", "QR created: awaiting payment."
        ),
        # The service's own words (`error`) stay in the timeline's technical detail.
        ReasonCode.QR_CANCEL_REFUSED: QCoreApplication.translate(
            "Reasons", "the service does not cancel an unpaid QR; it expires by itself"
        ),
        ReasonCode.QR_CANCEL_PAID: QCoreApplication.translate(
            "Reasons",
            "the customer has already paid this QR, so nothing was cancelled; to give the money "
            "back, refund it from the History tab",
        ),
        ReasonCode.QR_CANCEL_NOT_AWAITING: QCoreApplication.translate(
            "Reasons", "the QR no longer awaits payment; there is nothing to cancel"
        ),
        ReasonCode.MONEY_QR_NO_CAPTURE: QCoreApplication.translate(
            "Reasons", "a QR charge has nothing to capture"
        ),
        ReasonCode.OP_WALLET: QCoreApplication.translate("Reasons", "PicPay wallet charge"),
        ReasonCode.OP_PIX: QCoreApplication.translate("Reasons", "PIX charge"),
        ReasonCode.CHECK_NO_STATUS: QCoreApplication.translate(
            "Reasons", "the charge has no status yet"
        ),
        ReasonCode.CHECK_NOT_FINAL: QCoreApplication.translate("Reasons", "{status} is not final"),
        ReasonCode.CHECK_EXPECT_NOTIFICATION: QCoreApplication.translate(
            "Reasons", "expecting the notification of {status}"
        ),
        ReasonCode.CHECK_SCHEDULED: QCoreApplication.translate("Reasons", "scheduled check"),
        ReasonCode.START_UNRESOLVED: QCoreApplication.translate(
            "Reasons",
            "The result of charge {charge} is not known yet; the terminal is asking the "
            "service. Charging this sale again could charge the customer twice, so wait "
            "until it is known.",
        ),
        ReasonCode.START_MONEY_HELD: QCoreApplication.translate(
            "Reasons",
            "This sale was already charged ({charge}, {status}). Refund it before charging "
            "the sale again.",
        ),
        ReasonCode.START_REFUSED: QCoreApplication.translate(
            "Reasons", "A new charge for this sale is refused."
        ),
        ReasonCode.RECORDED_BEFORE_SENDING: QCoreApplication.translate(
            "Reasons", "recorded before sending"
        ),
        ReasonCode.STOPPED_WAITING: QCoreApplication.translate(
            "Reasons", "the terminal stopped waiting for the reply; the service will be asked"
        ),
        ReasonCode.NOT_CHARGED: QCoreApplication.translate("Reasons", "not charged: {error}"),
        ReasonCode.NOT_CHARGED_NO_CHARGE: QCoreApplication.translate(
            "Reasons", "not charged: the service has no charge ({error})"
        ),
        ReasonCode.UNKNOWN_ANSWERED: QCoreApplication.translate(
            "Reasons", "{error}; the service answered, so one query settles it"
        ),
        ReasonCode.UNKNOWN_MAY_EXIST: QCoreApplication.translate(
            "Reasons", "{error}; the charge may exist: it will be found by asking, never sent again"
        ),
        ReasonCode.OUTCOME_UNKNOWN: QCoreApplication.translate(
            "Reasons",
            "The result is not known yet ({error}). The terminal keeps asking the service "
            "and refuses another charge for this sale until it knows.",
        ),
        ReasonCode.OUTCOME_UNKNOWN_LAST_QUERY: QCoreApplication.translate(
            "Reasons",
            "The result is not known yet ({error}). The terminal keeps asking the service "
            "and refuses another charge for this sale until it knows (last query: "
            "{last_error}).",
        ),
        ReasonCode.OUTCOME_APPROVED: QCoreApplication.translate("Reasons", "Approved: {status}."),
        ReasonCode.OUTCOME_DENIED: QCoreApplication.translate(
            "Reasons", "Denied: the card was not charged."
        ),
        ReasonCode.OUTCOME_PENDING: QCoreApplication.translate(
            "Reasons",
            "Pending: the service has not decided yet (for example a 3DS challenge); the "
            "result arrives by notification or by asking the service.",
        ),
        ReasonCode.OUTCOME_OTHER: QCoreApplication.translate(
            "Reasons", "The service reports {status}."
        ),
        ReasonCode.INTERNAL_ERROR: QCoreApplication.translate(
            "Reasons", "Not charged: an internal error ({kind})."
        ),
        ReasonCode.STORE_UNREACHABLE: QCoreApplication.translate(
            "Reasons",
            "Not charged: the shop's shared store does not answer (the server is down, or the "
            "network is in the way), so the attempt cannot be recorded. Nothing was sent.",
        ),
        ReasonCode.STORE_LOGIN: QCoreApplication.translate(
            "Reasons",
            "Not charged: the shop's shared store refused the login (user or password). "
            "Nothing was sent.",
        ),
        ReasonCode.STORE_NEWER: QCoreApplication.translate(
            "Reasons",
            "Not charged: the shop's shared store was upgraded by a newer checkout-desktop; "
            "upgrade this terminal. Nothing was sent.",
        ),
        ReasonCode.SHARED_STORE_CHANGE: QCoreApplication.translate(
            "Reasons", "changed in the shop's shared store (another counter)"
        ),
        ReasonCode.STORE_CANNOT_RECORD: QCoreApplication.translate(
            "Reasons",
            "Not charged: the store cannot record the attempt ({error}). Nothing was sent.",
        ),
        ReasonCode.SERVICE_HAS_CHARGE: QCoreApplication.translate(
            "Reasons", "the service has the charge ({status})"
        ),
        ReasonCode.NOTIFICATION_HAS_CHARGE: QCoreApplication.translate(
            "Reasons", "a notification shows the service has the charge ({status})"
        ),
        ReasonCode.CAPTURE_REQUESTED: QCoreApplication.translate(
            "Reasons", "capture of {amount} requested"
        ),
        ReasonCode.CAPTURE_FAILED: QCoreApplication.translate("Reasons", "capture failed: {error}"),
        ReasonCode.CAPTURE_FAILED_QUERY: QCoreApplication.translate(
            "Reasons",
            "capture failed: {error}; the charge will be queried to learn whether it happened",
        ),
        ReasonCode.CAPTURE_UNKNOWN: QCoreApplication.translate(
            "Reasons", "capture outcome unknown"
        ),
        ReasonCode.CAPTURE_OF: QCoreApplication.translate("Reasons", "capture of {amount}"),
        ReasonCode.REFUND_REQUESTED: QCoreApplication.translate(
            "Reasons", "refund of {amount} requested"
        ),
        ReasonCode.REFUND_FAILED: QCoreApplication.translate("Reasons", "refund failed: {error}"),
        ReasonCode.REFUND_FAILED_QUERY: QCoreApplication.translate(
            "Reasons",
            "refund failed: {error}; the charge will be queried to learn whether it happened",
        ),
        ReasonCode.REFUND_UNKNOWN: QCoreApplication.translate("Reasons", "refund outcome unknown"),
        ReasonCode.REFUND_OF: QCoreApplication.translate("Reasons", "refund of {amount}"),
        ReasonCode.CANCEL_OF: QCoreApplication.translate("Reasons", "cancellation of {amount}"),
        ReasonCode.MONEY_STEP: QCoreApplication.translate("Reasons", "{operation}: {step}"),
        ReasonCode.MONEY_STEP_DETAIL: QCoreApplication.translate(
            "Reasons", "{operation}: {step} ({detail})"
        ),
        ReasonCode.STEP_REQUESTED: QCoreApplication.translate("Reasons", "requested"),
        ReasonCode.STEP_SENT: QCoreApplication.translate("Reasons", "sent to the service"),
        ReasonCode.STEP_CONFIRMED: QCoreApplication.translate(
            "Reasons", "confirmed by the service"
        ),
        ReasonCode.STEP_UNKNOWN: QCoreApplication.translate(
            "Reasons", "outcome unknown; the charge will be queried, never sent again"
        ),
        ReasonCode.STEP_REFUSED: QCoreApplication.translate("Reasons", "refused by the service"),
        ReasonCode.STEP_NOT_SENT: QCoreApplication.translate(
            "Reasons", "not sent: it never reached the service"
        ),
        ReasonCode.STEP_NOT_APPLIED: QCoreApplication.translate(
            "Reasons", "not done: the service's figures show no such change"
        ),
        ReasonCode.STEP_WAITING: QCoreApplication.translate(
            "Reasons", "not visible at the service yet; it will be asked again, never sent again"
        ),
        ReasonCode.FIGURES: QCoreApplication.translate(
            "Reasons", "{status}, refunded {refunded_amount} of {amount}"
        ),
        ReasonCode.FIGURES_NO_AMOUNT: QCoreApplication.translate(
            "Reasons", "{status}, refunded {refunded_amount}"
        ),
        ReasonCode.FIGURES_NOTHING_REFUNDED: QCoreApplication.translate(
            "Reasons", "{status}, {amount}"
        ),
        ReasonCode.STOPPED_WAITING_REPLY: QCoreApplication.translate(
            "Reasons", "the terminal stopped waiting for the reply"
        ),
        ReasonCode.CONTEXT_BEFORE_SENDING: QCoreApplication.translate(
            "Reasons", "before sending: asked the service"
        ),
        ReasonCode.CONTEXT_AFTER_REFUSAL: QCoreApplication.translate(
            "Reasons", "after the refusal: asked the service"
        ),
        ReasonCode.CONTEXT_SWEEP: QCoreApplication.translate(
            "Reasons", "daily check: asked the service"
        ),
        ReasonCode.MONEY_NO_AMOUNT: QCoreApplication.translate(
            "Reasons", "the service shows no amount for the charge"
        ),
        ReasonCode.MONEY_AMOUNT_TOO_SMALL: QCoreApplication.translate(
            "Reasons", "the amount must be at least 1 centavo"
        ),
        ReasonCode.MONEY_CAPTURE_NOT_PREAUTHORIZED: QCoreApplication.translate(
            "Reasons", "only a pre-authorized charge can be captured, and this one is {status}"
        ),
        ReasonCode.MONEY_OVER_AUTHORIZED: QCoreApplication.translate(
            "Reasons", "the amount exceeds the {amount} authorized"
        ),
        ReasonCode.MONEY_CANCEL_IN_FULL: QCoreApplication.translate(
            "Reasons", "a charge not yet captured is canceled in full ({amount})"
        ),
        ReasonCode.MONEY_ALREADY_REFUNDED: QCoreApplication.translate(
            "Reasons", "it is already fully refunded"
        ),
        ReasonCode.MONEY_NOTHING_TO_REFUND: QCoreApplication.translate(
            "Reasons", "a charge that is {status} has nothing to refund"
        ),
        ReasonCode.MONEY_OVER_REFUNDABLE: QCoreApplication.translate(
            "Reasons", "the amount exceeds the {amount} still refundable"
        ),
        ReasonCode.MONEY_REFUSED: QCoreApplication.translate("Reasons", "refused"),
        ReasonCode.NO_KNOWN_AMOUNT: QCoreApplication.translate(
            "Reasons", "charge {charge} has no known amount; give one"
        ),
        ReasonCode.NOT_IN_STORE: QCoreApplication.translate(
            "Reasons", "charge {charge} is not in this terminal's records; query it first"
        ),
        ReasonCode.OTHER_ENVIRONMENT: QCoreApplication.translate(
            "Reasons",
            "charge {charge} was made in another environment ({profile}); it can only be "
            "refunded, captured or queried there",
        ),
        ReasonCode.UNKNOWN_ENVIRONMENT: QCoreApplication.translate(
            "Reasons",
            "charge {charge} was not made by this terminal (only notifications told of it); "
            "nothing is sent about it",
        ),
        ReasonCode.PIN_REFUND_REQUIRED: QCoreApplication.translate(
            "Reasons", "a refund of charge {charge} needs the supervisor PIN"
        ),
        ReasonCode.PIN_CAPTURE_REQUIRED: QCoreApplication.translate(
            "Reasons",
            "charge {charge} was authorized on an earlier day: its capture needs the "
            "supervisor PIN",
        ),
        ReasonCode.PIN_END_REQUIRED: QCoreApplication.translate(
            "Reasons", "ending attempt {charge} needs the supervisor PIN"
        ),
        ReasonCode.PIN_WRONG: QCoreApplication.translate(
            "Reasons", "wrong supervisor PIN for charge {charge}; nothing was sent"
        ),
        ReasonCode.PIN_UNREADABLE: QCoreApplication.translate(
            "Reasons", "the supervisor PIN cannot be checked: {error}"
        ),
        ReasonCode.TRIGGER_AFTER_REPLY: QCoreApplication.translate(
            "Reasons", "right after sending"
        ),
        ReasonCode.TRIGGER_START_UP: QCoreApplication.translate("Reasons", "at start-up"),
        ReasonCode.TRIGGER_ON_DEMAND: QCoreApplication.translate("Reasons", "on demand"),
        ReasonCode.TRIGGER_SCHEDULE: QCoreApplication.translate("Reasons", "scheduled check"),
        ReasonCode.QUERIED_ON_DEMAND: QCoreApplication.translate("Reasons", "queried on demand"),
        ReasonCode.ASKED_SERVICE: QCoreApplication.translate(
            "Reasons", "{trigger}: asked the service"
        ),
        ReasonCode.TRIGGER_BECAUSE: QCoreApplication.translate("Reasons", "{trigger} ({why})"),
        ReasonCode.WITH_CONTEXT: QCoreApplication.translate("Reasons", "{context}: {why}"),
        ReasonCode.RECONCILE_CANNOT_ASK: QCoreApplication.translate(
            "Reasons", "{trigger}: could not ask the service ({error}); will ask again"
        ),
        ReasonCode.RECONCILE_ANSWERED_NONE: QCoreApplication.translate(
            "Reasons",
            "{trigger}: the service answered the request and has no such charge: nothing was "
            "charged",
        ),
        ReasonCode.RECONCILE_NONE_PAST_GRACE: QCoreApplication.translate(
            "Reasons",
            "{trigger}: still no such charge {seconds} s after the attempt, past the point "
            "where it could appear: nothing was charged",
        ),
        ReasonCode.RECONCILE_NONE_YET: QCoreApplication.translate(
            "Reasons",
            "{trigger}: the service has no such charge yet ({seconds} s after the attempt); "
            "the request may still be in progress there, so it will be asked again, never "
            "sent again",
        ),
        ReasonCode.CHECK_ANSWERED: QCoreApplication.translate(
            "Reasons", "{trigger} ({why}): the service answered: {error}"
        ),
        ReasonCode.CHECK_CANNOT_ASK: QCoreApplication.translate(
            "Reasons", "{trigger} ({why}): could not ask the service: {error}"
        ),
        ReasonCode.OP_TOKEN: QCoreApplication.translate("Reasons", "access token request"),
        ReasonCode.OP_CHARGE_REQUEST: QCoreApplication.translate("Reasons", "charge request"),
        ReasonCode.OP_AUTHORIZATION: QCoreApplication.translate("Reasons", "charge"),
        ReasonCode.OP_QUERY: QCoreApplication.translate("Reasons", "charge query"),
        ReasonCode.OP_CAPTURE: QCoreApplication.translate("Reasons", "capture"),
        ReasonCode.OP_REFUND: QCoreApplication.translate("Reasons", "refund"),
        ReasonCode.TDS_WHY_AUTHENTICATED: QCoreApplication.translate(
            "Reasons", "authenticated by the bank"
        ),
        ReasonCode.TDS_WHY_REJECTED: QCoreApplication.translate("Reasons", "rejected by the bank"),
        ReasonCode.TDS_WHY_FAILED: QCoreApplication.translate("Reasons", "unavailable"),
        ReasonCode.TDS_WHY_CANCELLED: QCoreApplication.translate(
            "Reasons", "cancelled at the counter"
        ),
        ReasonCode.TDS_WHY_TIMED_OUT: QCoreApplication.translate(
            "Reasons", "without an answer in time"
        ),
        ReasonCode.TDS_WHY_NAVIGATION_REFUSED: QCoreApplication.translate(
            "Reasons", "ended: the bank's page tried to open another address"
        ),
        ReasonCode.TDS_ENDED: QCoreApplication.translate(
            "Reasons",
            "not charged: 3DS authentication {why}; a card is never charged without 3DS after that",
        ),
        ReasonCode.TDS_NEEDS_CARD_DATA: QCoreApplication.translate(
            "Reasons",
            "impossible with this service, which asks for the card's own data (the terminal "
            "only ever has the card's one-time token)",
        ),
        ReasonCode.OP_TDS_SETUP: QCoreApplication.translate("Reasons", "3DS setup"),
        ReasonCode.OP_TDS_ENROLLMENT: QCoreApplication.translate("Reasons", "3DS enrollment"),
        ReasonCode.OP_TDS_STATUS: QCoreApplication.translate("Reasons", "3DS status query"),
        ReasonCode.OP_TDS_AUTHORIZATION: QCoreApplication.translate("Reasons", "3DS charge"),
        ReasonCode.TDS_SETUP_RECORDED: QCoreApplication.translate(
            "Reasons", "3DS authentication recorded before sending its setup (card token only)"
        ),
        ReasonCode.TDS_SETUP_DONE: QCoreApplication.translate(
            "Reasons",
            "3DS setup answered (service charge {charge}); enrollment sent with the browser data",
        ),
        ReasonCode.TDS_ENROLLED: QCoreApplication.translate(
            "Reasons", "3DS enrollment answered: {status}"
        ),
        ReasonCode.TDS_CHALLENGE: QCoreApplication.translate(
            "Reasons", "the bank asks the customer for a confirmation; the challenge is on screen"
        ),
        ReasonCode.TDS_RESULT_NOTIFIED: QCoreApplication.translate(
            "Reasons", "{status}, from a notification"
        ),
        ReasonCode.TDS_RESULT_ASKED: QCoreApplication.translate(
            "Reasons", "3DS result: {why}, asked of the service"
        ),
        ReasonCode.TDS_AUTHORIZATION_RECORDED: QCoreApplication.translate(
            "Reasons", "authenticated; the charge is recorded before sending"
        ),
        ReasonCode.TDS_FALLBACK: QCoreApplication.translate(
            "Reasons", "3DS authentication {why}: charging without 3DS, as the settings say"
        ),
        ReasonCode.TDS_REFUSED: QCoreApplication.translate(
            "Reasons",
            "not charged: 3DS authentication {why}, and the settings refuse a card without it",
        ),
        ReasonCode.TDS_UNAVAILABLE: QCoreApplication.translate(
            "Reasons", "3DS authentication unavailable: {error}"
        ),
        ReasonCode.TDS_NO_BROWSER: QCoreApplication.translate(
            "Reasons", "3DS needs the card page's browser data, which did not come"
        ),
        ReasonCode.TDS_INTERRUPTED: QCoreApplication.translate(
            "Reasons",
            "the terminal stopped during 3DS ({step}) before the charge was sent: nothing was "
            "charged",
        ),
        ReasonCode.TDS_INTERRUPTED_SENT: QCoreApplication.translate(
            "Reasons",
            "the terminal stopped after sending the charge ({step}); the service is asked, "
            "never sent again",
        ),
        ReasonCode.BAD_MERCHANT_CHARGE_ID: QCoreApplication.translate(
            "Reasons", "the charge id {value} is not valid: 6 to 36 letters, digits or hyphens"
        ),
        ReasonCode.BAD_AMOUNT: QCoreApplication.translate(
            "Reasons", "an amount is a whole number of centavos, at least 1 (got {value})"
        ),
        ReasonCode.UNREACHABLE: QCoreApplication.translate(
            "Reasons",
            "{operation}: the service at {url} cannot be reached; nothing was sent",
        ),
        ReasonCode.REPLY_TIMEOUT: QCoreApplication.translate(
            "Reasons",
            "{operation}: no reply within {seconds} s; the result is unknown until the "
            "service is asked",
        ),
        ReasonCode.CONNECTION_LOST: QCoreApplication.translate(
            "Reasons",
            "{operation}: the connection broke before the reply; the result is unknown until "
            "the service is asked",
        ),
        ReasonCode.REPLY_NOT_DOCUMENTED: QCoreApplication.translate(
            "Reasons", "{operation}: the reply does not match the documented format ({details})"
        ),
        ReasonCode.TOKEN_REPLY_NOT_DOCUMENTED: QCoreApplication.translate(
            "Reasons",
            "{operation}: the token reply does not match the documented format ({details})",
        ),
        ReasonCode.REPLY_OTHER_CHARGE: QCoreApplication.translate(
            "Reasons", "{operation}: the reply is about charge {got}, not {expected}"
        ),
        ReasonCode.REPLY_HTML: QCoreApplication.translate(
            "Reasons",
            "{operation}: the service answered HTTP {http_code} with a web page instead of "
            "data, usually a firewall or proxy block page; the service may refuse calls from "
            "this network or country, or the address points at a web site",
        ),
        ReasonCode.REPLY_HTML_TITLED: QCoreApplication.translate(
            "Reasons",
            "{operation}: the service answered HTTP {http_code} with a web page (“{title}”) "
            "instead of data, usually a firewall or proxy block page; the service may refuse "
            "calls from this network or country, or the address points at a web site",
        ),
        ReasonCode.REPLY_EMPTY: QCoreApplication.translate(
            "Reasons", "{operation}: the service answered HTTP {http_code} with an empty body"
        ),
        ReasonCode.REPLY_NOT_JSON: QCoreApplication.translate(
            "Reasons",
            "{operation}: the service answered HTTP {http_code} with {content_type}, not JSON",
        ),
        ReasonCode.API_REFUSED: QCoreApplication.translate(
            "Reasons", "{operation}: the service refused the request (HTTP {http_code}): {detail}"
        ),
        ReasonCode.API_TOKEN_REFUSED: QCoreApplication.translate(
            "Reasons",
            "{operation}: the service refused the access token (HTTP {http_code}): {detail}",
        ),
        ReasonCode.API_NO_CHARGE: QCoreApplication.translate(
            "Reasons", "{operation}: the service has no such charge (HTTP {http_code}): {detail}"
        ),
        ReasonCode.API_MEDIA_REFUSED: QCoreApplication.translate(
            "Reasons",
            "{operation}: the service refused the content type (HTTP {http_code}): {detail}",
        ),
        ReasonCode.API_FAILED: QCoreApplication.translate(
            "Reasons", "{operation}: the service failed (HTTP {http_code}): {detail}"
        ),
        ReasonCode.API_ERROR: QCoreApplication.translate(
            "Reasons",
            "{operation}: the service answered with an error (HTTP {http_code}): {detail}",
        ),
        ReasonCode.NO_ERROR_DETAIL: QCoreApplication.translate(
            "Reasons", "no error detail in the reply"
        ),
        ReasonCode.SERVICE_SAID: QCoreApplication.translate("Reasons", "{words}"),
        ReasonCode.SERVICE_SAID_CODED: QCoreApplication.translate("Reasons", "{business}: {words}"),
        ReasonCode.BUSINESS_CODE_OTHER: QCoreApplication.translate(
            "Reasons", "service code {business_code}"
        ),
        ReasonCode.BUSINESS_CHARGE_NOT_FOUND: QCoreApplication.translate(
            "Reasons", "the service has no such charge"
        ),
        ReasonCode.BUSINESS_DUPLICATE_CHARGE_ID: QCoreApplication.translate(
            "Reasons", "this charge number was already used"
        ),
        ReasonCode.BUSINESS_INVALID_STATE: QCoreApplication.translate(
            "Reasons", "the charge's state does not allow this"
        ),
        ReasonCode.BUSINESS_AMOUNT_ABOVE_LIMIT: QCoreApplication.translate(
            "Reasons", "the amount is above what the charge allows"
        ),
        ReasonCode.BUSINESS_INVALID_CARD_TOKEN: QCoreApplication.translate(
            "Reasons",
            "the card token is not valid (used, expired or unknown); enter the card again",
        ),
        ReasonCode.BUSINESS_CARD_TOKEN_MISSING: QCoreApplication.translate(
            "Reasons", "the service found no card in the request"
        ),
        ReasonCode.BUSINESS_REQUIRED_FIELD: QCoreApplication.translate(
            "Reasons", "a field the service requires is missing"
        ),
        ReasonCode.CUSTOMER_EMAIL_REQUIRED: QCoreApplication.translate(
            "Reasons",
            "the service requires the customer's e-mail: type it and charge again ({words})",
        ),
        ReasonCode.CUSTOMER_DOCUMENT_REFUSED: QCoreApplication.translate(
            "Reasons", "the service refused the customer's document: {words}"
        ),
        ReasonCode.BUSINESS_INVALID_DOCUMENT: QCoreApplication.translate(
            "Reasons", "the service refused the customer's document"
        ),
        ReasonCode.BUSINESS_INVALID_REQUEST: QCoreApplication.translate(
            "Reasons", "the request breaks the service's rules"
        ),
        ReasonCode.BUSINESS_UNAUTHORIZED: QCoreApplication.translate(
            "Reasons", "the service refused the access token"
        ),
        ReasonCode.BUSINESS_MEDIA_TYPE: QCoreApplication.translate(
            "Reasons", "the service refused the content type"
        ),
        ReasonCode.BUSINESS_INTERNAL: QCoreApplication.translate(
            "Reasons", "the service had an internal error"
        ),
        ReasonCode.TOKEN_FIELD_RETRY: QCoreApplication.translate(
            "Reasons",
            "the service found no card token under {tried}; sent once more under {spelling} with "
            "the same charge number (a refused request creates nothing)",
        ),
        ReasonCode.TOKEN_FIELD_LEARNED: QCoreApplication.translate(
            "Reasons",
            "the service reads the card token as {spelling}; the profile keeps this spelling",
        ),
        ReasonCode.RECONCILE_BACKING_OFF: QCoreApplication.translate(
            "Reasons",
            "{trigger}: the service refused the query ({error}); asking again in {seconds} s, "
            "never sending the charge again",
        ),
        ReasonCode.ENDED_BY_SUPERVISOR: QCoreApplication.translate(
            "Reasons",
            "ended by supervisor {supervisor}: {why}; last answer from the service: {last}. "
            "The sale is free; the charge was never sent again",
        ),
        ReasonCode.UNKNOWN_ERROR_BODY: QCoreApplication.translate(
            "Reasons", "an error reply of an unknown shape"
        ),
        ReasonCode.TOKEN_REFUSED_AGAIN: QCoreApplication.translate(
            "Reasons",
            "{operation}: the service refused a freshly issued access token too ({detail}); "
            "the credential may lack the checkout permission or have been revoked",
        ),
        ReasonCode.CREDENTIALS_REFUSED: QCoreApplication.translate(
            "Reasons",
            "{operation}: the service refused the client id or secret (HTTP {http_code}: "
            "{detail}). Check them in Settings → Credentials; a secret stops working 7 days "
            "after a new one is generated in the merchant panel, and sandbox and production "
            "credentials differ",
        ),
        ReasonCode.TOKEN_SERVER_ERROR: QCoreApplication.translate(
            "Reasons", "{operation}: the token server answered HTTP {http_code}: {detail}"
        ),
        ReasonCode.TOKEN_SERVER_UNREACHABLE: QCoreApplication.translate(
            "Reasons",
            "{operation}: the token server at {url} cannot be reached; check the network and "
            "the environment's authentication address",
        ),
        ReasonCode.TOKEN_SERVER_TIMEOUT: QCoreApplication.translate(
            "Reasons", "{operation}: the token server did not answer within {seconds} s"
        ),
        ReasonCode.TOKEN_SERVER_CONNECTION: QCoreApplication.translate(
            "Reasons", "{operation}: the connection to the token server failed"
        ),
        ReasonCode.SECRET_UNREADABLE: QCoreApplication.translate(
            "Reasons", "{operation}: the client secret cannot be read: {error}"
        ),
        ReasonCode.CREDENTIALS_BREAK_RULES: QCoreApplication.translate(
            "Reasons",
            "{operation}: the stored credentials break the service's rules ({details}); "
            "enter them again in Settings → Credentials",
        ),
        ReasonCode.CLOCK_BEHIND: QCoreApplication.translate(
            "Reasons",
            "the service refused a token it had just issued, and this computer's clock is "
            "{seconds} s behind the service's clock; set the system clock (enable network "
            "time) and try again",
        ),
        ReasonCode.CLOCK_AHEAD: QCoreApplication.translate(
            "Reasons",
            "the service refused a token it had just issued, and this computer's clock is "
            "{seconds} s ahead of the service's clock; set the system clock (enable network "
            "time) and try again",
        ),
        ReasonCode.INBOX_APPLIED: QCoreApplication.translate("Reasons", "applied: {why}"),
        ReasonCode.INBOX_APPLIED_BARE: QCoreApplication.translate("Reasons", "applied"),
        ReasonCode.INBOX_DUPLICATE: QCoreApplication.translate("Reasons", "no change: {why}"),
        ReasonCode.INBOX_IGNORED: QCoreApplication.translate("Reasons", "older, ignored: {why}"),
        # The program's own error is for whoever debugs it: the log and the technical detail.
        ReasonCode.INBOX_NOT_APPLIED: QCoreApplication.translate(
            "Reasons", "not applied: an internal error of the terminal (see the technical detail)"
        ),
        ReasonCode.INBOX_UNMADE_FIRST: QCoreApplication.translate(
            "Reasons",
            "first news of a charge this terminal did not make: {status}; see it in History › "
            "Other environments",
        ),
        ReasonCode.INBOX_UNMADE: QCoreApplication.translate(
            "Reasons",
            "a charge this terminal did not make ({why}); see it in History › Other environments",
        ),
        ReasonCode.INBOX_HEADER_MISMATCH: QCoreApplication.translate(
            "Reasons",
            "the event-type header says {header} but the body is {body}; the body decided",
        ),
        ReasonCode.INBOX_UNKNOWN_TYPE: QCoreApplication.translate(
            "Reasons",
            "a notification of a type this terminal does not know ({type}); stored as "
            "received, not applied to any charge",
        ),
        ReasonCode.INBOX_UNKNOWN_NO_TYPE: QCoreApplication.translate(
            "Reasons",
            "a notification without a type; stored as received, not applied to any charge",
        ),
        ReasonCode.INBOX_SELF_TEST_NO_NONCE: QCoreApplication.translate(
            "Reasons", "a self-test body without a nonce"
        ),
        ReasonCode.INBOX_NOT_FORMAT: QCoreApplication.translate(
            "Reasons", "the body does not match the format: {details}"
        ),
        ReasonCode.INBOX_TYPE_NOT_FORMAT: QCoreApplication.translate(
            "Reasons", "the {type} body does not match the format: {details}"
        ),
        ReasonCode.INBOX_UNREADABLE: QCoreApplication.translate(
            "Reasons", "the body cannot be read"
        ),
        ReasonCode.INBOX_TYPE_UNREADABLE: QCoreApplication.translate(
            "Reasons", "the {type} body cannot be read"
        ),
        ReasonCode.INBOX_NOT_JSON: QCoreApplication.translate(
            "Reasons", "the body is not valid JSON: {error}"
        ),
        ReasonCode.INBOX_NOT_OBJECT: QCoreApplication.translate(
            "Reasons", "the body is JSON but not an object (got {type})"
        ),
        ReasonCode.INBOX_TOO_LARGE: QCoreApplication.translate(
            "Reasons",
            "the body is {size} bytes, over the limit of {limit} bytes; the first {limit} "
            "bytes are kept",
        ),
        ReasonCode.INBOX_TOO_LARGE_UNKNOWN: QCoreApplication.translate(
            "Reasons",
            "the body is over the limit of {limit} bytes; the first {limit} bytes are kept",
        ),
        ReasonCode.INBOX_STALLED: QCoreApplication.translate(
            "Reasons",
            "the body did not arrive within {seconds} s ({size} bytes came); what came is kept",
        ),
        ReasonCode.INBOX_NOT_JSON_TYPE: QCoreApplication.translate(
            "Reasons", "the content type {type} is not JSON; the body is kept"
        ),
        ReasonCode.INBOX_CANNOT_ACCEPT: QCoreApplication.translate(
            "Reasons", "the body cannot be accepted"
        ),
        ReasonCode.INBOX_TOO_DEEP: QCoreApplication.translate(
            "Reasons", "the body is nested more than {limit} levels deep; it is kept as received"
        ),
        ReasonCode.INBOX_NUMBER_TOO_LONG: QCoreApplication.translate(
            "Reasons",
            "the body holds a number of {digits} digits, over the limit of {limit}; it is kept "
            "as received",
        ),
        ReasonCode.INBOX_NOT_UNICODE: QCoreApplication.translate(
            "Reasons",
            "the body's {field} is not valid Unicode text (a lone surrogate); it is kept as "
            "received",
        ),
        ReasonCode.INBOX_UNSTORABLE: QCoreApplication.translate(
            "Reasons", "the body could not be stored as read ({error}); it is kept as received"
        ),
        # Where a body breaks the format; the parser's own words stay in the technical detail.
        ReasonCode.JSON_SYNTAX: QCoreApplication.translate(
            "Reasons", "line {line}, column {column}"
        ),
        ReasonCode.JSON_NOT_TEXT: QCoreApplication.translate("Reasons", "not UTF-8 text"),
        ReasonCode.FIELD_MISSING: QCoreApplication.translate("Reasons", "missing field {field}"),
        ReasonCode.FIELD_INVALID: QCoreApplication.translate(
            "Reasons", "field {field} is not valid"
        ),
        ReasonCode.FIELD_MORE: QCoreApplication.translate("Reasons", "and {count} more"),
        ReasonCode.HEALTH_NOT_CHECKED: QCoreApplication.translate("Reasons", "not checked yet"),
        ReasonCode.HEALTH_LISTENER_DOWN: QCoreApplication.translate(
            "Reasons", "the listener is not running"
        ),
        ReasonCode.HEALTH_LOCAL_FAILED: QCoreApplication.translate(
            "Reasons", "local self-test failed: {problem}"
        ),
        ReasonCode.HEALTH_NO_PUBLIC_URL: QCoreApplication.translate(
            "Reasons", "no public URL: the listener works locally, but the service cannot reach it"
        ),
        ReasonCode.HEALTH_TUNNEL_DOWN: QCoreApplication.translate(
            "Reasons", "the tunnel is not up: {why}"
        ),
        ReasonCode.HEALTH_PUBLIC_FAILED: QCoreApplication.translate(
            "Reasons", "a self-test through {url} did not arrive: {problem}"
        ),
        ReasonCode.HEALTH_URL_NOT_REGISTERED: QCoreApplication.translate(
            "Reasons",
            "the merchant panel holds {registered}; notifications reach this terminal only once "
            "it holds {url}",
        ),
        ReasonCode.HEALTH_NO_URL_REGISTERED: QCoreApplication.translate(
            "Reasons",
            "the merchant panel holds no URL; notifications reach this terminal only once it "
            "holds {url}",
        ),
        ReasonCode.HEALTH_SLOW: QCoreApplication.translate(
            "Reasons", "a self-test through {url} took {seconds} s (over {limit} s)"
        ),
        ReasonCode.HEALTH_OK: QCoreApplication.translate(
            "Reasons", "self-test through {url} arrived"
        ),
        ReasonCode.HEALTH_STORE_REFUSING: QCoreApplication.translate(
            "Reasons", "deliveries not stored since the last check: {count} ({error})"
        ),
        ReasonCode.SELF_TEST_HTTP: QCoreApplication.translate(
            "Reasons", "the address answered HTTP {http_code}"
        ),
        ReasonCode.SELF_TEST_NOT_STORED: QCoreApplication.translate(
            "Reasons", "it was not stored within {seconds} s"
        ),
        ReasonCode.SELF_TEST_FAILED: QCoreApplication.translate(
            "Reasons", "the self-test could not be sent"
        ),
        ReasonCode.SDK_NETWORK: QCoreApplication.translate(
            "Reasons",
            "the card service could not be reached (network, proxy or certificate); nothing "
            "was sent",
        ),
        ReasonCode.SDK_LOAD: QCoreApplication.translate(
            "Reasons", "the card form could not be loaded"
        ),
        ReasonCode.SDK_BRAND: QCoreApplication.translate(
            "Reasons", "the card service did not recognise the card's brand"
        ),
        ReasonCode.SDK_CREDENTIALS: QCoreApplication.translate(
            "Reasons", "the card service refused the shop's credentials"
        ),
        ReasonCode.SDK_TOKEN: QCoreApplication.translate(
            "Reasons", "the card service refused the card; check what was typed"
        ),
        ReasonCode.CARD_PAGE_NOT_LOADED: QCoreApplication.translate(
            "Reasons", "the card page could not be loaded"
        ),
        ReasonCode.CARD_PAGE_RENDERER_FAILING: QCoreApplication.translate(
            "Reasons", "the card page keeps failing"
        ),
        ReasonCode.CARD_PAGE_CREDENTIALS_CHANGED: QCoreApplication.translate(
            "Reasons",
            "the card service credentials changed; the card form was reloaded, enter the "
            "card again",
        ),
        ReasonCode.CARD_PAGE_BAD_CNPJ: QCoreApplication.translate(
            "Reasons", "the shop's CNPJ for the card service is not valid"
        ),
        ReasonCode.CARD_PAGE_BAD_TOKEN: QCoreApplication.translate(
            "Reasons",
            "the card service's merchant token is empty, too long or holds spaces or control "
            "characters; enter it again in Settings → Credentials",
        ),
        ReasonCode.CARD_PAGE_NO_CREDENTIALS: QCoreApplication.translate(
            "Reasons",
            "the card service's merchant token is not set; enter it in Settings → Credentials",
        ),
        ReasonCode.CARD_PAGE_KEYCHAIN: QCoreApplication.translate(
            "Reasons", "the card service's merchant token cannot be read: no keychain is available"
        ),
    }


templates = TranslatedTable("Reasons", "first status of the charge: {status}", _templates)
"""Every code's template in the UI's language now, built once per language."""


StatusWords = Callable[[str | None], str]
"""How a status reads in a reason (`status_label`, or a QR charge's `qr_status_text`)."""


def reason_text(
    reason: Reason | None, stored: str | None = None, *, status_words: StatusWords | None = None
) -> str:
    """`reason` in the UI's language; `stored` (the row's text) when there is no reason.
    `status_words` says the statuses it names (a QR charge's as the clerk means them)."""
    if reason is None:
        return stored or ""
    return _render(reason, templates(), status_words or status_label)


def error_text(exc: BaseException) -> str:
    """An exception's reason in the UI's language, where it carries one; else its text."""
    reason = getattr(exc, "reason", None)
    if not isinstance(reason, Reason) and exc.args and isinstance(exc.args[0], Reason):
        reason = exc.args[0]
    if isinstance(reason, Reason):
        return reason_text(reason)
    return str(exc)


# Reasons whose statuses are 3DS results: their labels name 3DS ("3DS approved").
_THREE_DS_STATUS_CODES = frozenset(
    {
        ReasonCode.THREE_DS_RESULT,
        ReasonCode.THREE_DS_RESULT_PARES,
        ReasonCode.THREE_DS_ALREADY,
        ReasonCode.THREE_DS_OLDER,
        ReasonCode.CHANGE_THREE_DS,
        ReasonCode.TDS_RESULT_NOTIFIED,
    }
)


def _three_ds_words(words: StatusWords) -> StatusWords:
    """A 3DS status as its label says it; one without a label still says it is 3DS's."""

    def said(status: str | None) -> str:
        label = words(status)
        if status and label == status:
            return QCoreApplication.translate("Reasons", "3DS {status}").format(status=status)
        return label

    return said


def _render(reason: Reason, table: dict[ReasonCode, str], words: StatusWords) -> str:
    template = table[reason.code]
    if reason.code in _THREE_DS_STATUS_CODES:
        words = _three_ds_words(words)
    values = {name: _arg(name, value, table, words) for name, value in reason.args.items()}
    try:
        return template.format(**values)
    except (KeyError, IndexError, ValueError):
        # A translation that names an argument the code does not carry: say it in English
        # rather than lose it.
        logger.error("the translation of %s does not fit its arguments", reason.code)
        return reason.english()


def _arg(name: str, value: ArgValue, table: dict[ReasonCode, str], words: StatusWords) -> str:
    if isinstance(value, Reason):
        return _render(value, table, words)
    if isinstance(value, tuple):
        return ", ".join(_render(v, table, words) for v in value)
    if is_status_arg(name):
        if value is None:
            return QCoreApplication.translate("Reasons", "no status")
        return words(str(value))
    if is_amount_arg(name) and isinstance(value, int):
        return format_money(value)
    if is_instant_arg(name) and isinstance(value, str):
        try:
            return format_instant_precise(datetime.fromisoformat(value))
        except ValueError:
            return value
    if value is None:
        return "—"
    return str(value)


__all__ = ["CONTEXT", "StatusWords", "error_text", "reason_text", "templates"]
