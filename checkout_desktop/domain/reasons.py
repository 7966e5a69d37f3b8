"""Why things happened, as data: a `ReasonCode` and its arguments, never a sentence.

The core (state merge, charging, reconciliation, the store's timeline, the inbox, the service
client) says *why* with a `Reason`; each screen renders it in its own language
(`checkout_desktop.ui.reasons`), logs and exports use `Reason.english()`. The store keeps the
code and the arguments (JSON) beside the English text, so a stored reason is shown in the
language of whoever reads it later.

Arguments are plain JSON values or nested reasons. Their names tell a renderer how to show
them: a name ending in `status` or `state` is a charge, transaction, 3DS or attempt status;
ending in `amount`, an amount in centavos; ending in `_at`, an ISO 8601 instant. Everything
else is shown as given (ids, counts, seconds, the service's own words).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal, Union

logger = logging.getLogger(__name__)
# One encoder for every reason stored (json.dumps with options builds a new one per call).
_ARGS_ENCODER = json.JSONEncoder(ensure_ascii=False, sort_keys=True)

ArgValue = Union[str, int, float, bool, None, "Reason", tuple["Reason", ...]]


class ReasonCode(StrEnum):
    """Every reason the core gives. Values are stored: never rename one, only add."""

    # -- domain/state.py: merging an input into a charge -------------------------------------
    MERGE_FIRST_STATUS = "merge.first_status"
    MERGE_LATER_UPDATE = "merge.later_update"
    MERGE_LATER_STAGE = "merge.later_stage"
    MERGE_DETAILS_ADDED = "merge.details_added"
    MERGE_OLDER_DETAILS_ADDED = "merge.older_details_added"
    MERGE_NOTHING_NEW = "merge.nothing_new"
    MERGE_AFTER_DENIED = "merge.after_denied"
    MERGE_EARLIER_STAGE = "merge.earlier_stage"
    MERGE_HAPPENED_BEFORE = "merge.happened_before"
    MERGE_OLDER = "merge.older"
    THREE_DS_RESULT = "three_ds.result"
    THREE_DS_RESULT_PARES = "three_ds.result_pares"
    THREE_DS_OLDER_CHARGE_ID = "three_ds.older_charge_id"
    THREE_DS_ALREADY = "three_ds.already"
    THREE_DS_OLDER = "three_ds.older"
    OP_TDS_SETUP = "op.3ds_setup"
    OP_TDS_ENROLLMENT = "op.3ds_enrollment"
    OP_TDS_STATUS = "op.3ds_status"
    OP_TDS_AUTHORIZATION = "op.3ds_authorization"
    TDS_SETUP_RECORDED = "three_ds.setup_recorded"
    TDS_SETUP_DONE = "three_ds.setup_done"
    TDS_ENROLLED = "three_ds.enrolled"
    TDS_CHALLENGE = "three_ds.challenge"
    TDS_RESULT_NOTIFIED = "three_ds.result_notified"
    TDS_RESULT_ASKED = "three_ds.result_asked"
    TDS_AUTHORIZATION_RECORDED = "three_ds.authorization_recorded"
    TDS_FALLBACK = "three_ds.fallback"
    TDS_REFUSED = "three_ds.refused"
    TDS_UNAVAILABLE = "three_ds.unavailable"
    TDS_NO_BROWSER = "three_ds.no_browser"
    TDS_INTERRUPTED = "three_ds.interrupted"
    TDS_INTERRUPTED_SENT = "three_ds.interrupted_sent"
    TDS_WHY_AUTHENTICATED = "three_ds.why_authenticated"
    TDS_WHY_REJECTED = "three_ds.why_rejected"
    TDS_WHY_FAILED = "three_ds.why_failed"
    TDS_WHY_CANCELLED = "three_ds.why_cancelled"
    TDS_WHY_TIMED_OUT = "three_ds.why_timed_out"
    TDS_NEEDS_CARD_DATA = "three_ds.needs_card_data"
    TDS_ENDED = "three_ds.ended"
    TDS_WHY_NAVIGATION_REFUSED = "three_ds.why_navigation_refused"

    CHANGE_STATUS = "change.status"
    CHANGE_REFUNDED = "change.refunded"
    CHANGE_AMOUNT = "change.amount"
    CHANGE_CHARGE_ID = "change.charge_id"
    CHANGE_TRANSACTION_NEW = "change.transaction_new"
    CHANGE_TRANSACTION_STATUS = "change.transaction_status"
    CHANGE_TRANSACTION_REFUNDED = "change.transaction_refunded"
    CHANGE_THREE_DS = "change.three_ds"

    # -- charges/ledger.py, reconciler.py: attempts and when a charge is looked at again ------
    ATTEMPT_RECORDED = "attempt.recorded"
    ATTEMPT_RECORDED_LATE_CAPTURE = "attempt.recorded_late_capture"
    ATTEMPT_ALREADY = "attempt.already"
    ATTEMPT_RESOLVED = "attempt.resolved"
    CARD = "card"
    CARD_BRAND_ONLY = "card.brand_only"
    CARD_UNKNOWN_BRAND = "card.unknown_brand"
    CARD_INSTALLMENTS = "card.installments"
    # -- QR tenders (PicPay wallet and PIX): domain/qr.py, charges/qr.py -----------------------
    TENDER_WALLET = "tender.wallet"
    TENDER_PIX = "tender.pix"
    CHECK_QR_EXPIRY = "check.qr_expiry"
    START_QR_WAITING = "start.qr_waiting"
    OUTCOME_QR_AWAITING = "charge.qr_awaiting"
    MONEY_QR_NO_CAPTURE = "money.qr_no_capture"
    QR_CANCEL_REFUSED = "money.qr_cancel_refused"
    QR_CANCEL_PAID = "money.qr_cancel_paid"
    QR_CANCEL_NOT_AWAITING = "money.qr_cancel_not_awaiting"
    OP_WALLET = "op.wallet"
    OP_PIX = "op.pix"
    CHECK_NO_STATUS = "check.no_status"
    CHECK_NOT_FINAL = "check.not_final"
    CHECK_EXPECT_NOTIFICATION = "check.expect_notification"
    CHECK_SCHEDULED = "check.scheduled"

    # -- charges/service.py: starting, charging, capture, refund ------------------------------
    START_UNRESOLVED = "start.unresolved"
    START_MONEY_HELD = "start.money_held"
    START_REFUSED = "start.refused"
    RECORDED_BEFORE_SENDING = "charge.recorded_before_sending"
    STOPPED_WAITING = "charge.stopped_waiting"
    NOT_CHARGED = "charge.not_charged"
    NOT_CHARGED_NO_CHARGE = "charge.not_charged_no_charge"
    UNKNOWN_ANSWERED = "charge.unknown_answered"
    UNKNOWN_MAY_EXIST = "charge.unknown_may_exist"
    OUTCOME_UNKNOWN = "charge.outcome_unknown"
    OUTCOME_UNKNOWN_LAST_QUERY = "charge.outcome_unknown_last_query"
    OUTCOME_APPROVED = "charge.approved"
    OUTCOME_DENIED = "charge.denied"
    OUTCOME_PENDING = "charge.pending"
    OUTCOME_OTHER = "charge.other"
    INTERNAL_ERROR = "charge.internal_error"
    STORE_UNREACHABLE = "charge.store_unreachable"
    STORE_LOGIN = "charge.store_login"
    STORE_NEWER = "charge.store_newer"
    STORE_CANNOT_RECORD = "charge.store_cannot_record"
    SHARED_STORE_CHANGE = "charge.shared_store_change"
    SERVICE_HAS_CHARGE = "charge.service_has_charge"
    NOTIFICATION_HAS_CHARGE = "charge.notification_has_charge"
    CAPTURE_REQUESTED = "capture.requested"
    CAPTURE_FAILED = "capture.failed"
    CAPTURE_FAILED_QUERY = "capture.failed_query"
    CAPTURE_UNKNOWN = "capture.unknown"
    CAPTURE_OF = "capture.of"
    REFUND_REQUESTED = "refund.requested"
    REFUND_FAILED = "refund.failed"
    REFUND_FAILED_QUERY = "refund.failed_query"
    REFUND_UNKNOWN = "refund.unknown"
    REFUND_OF = "refund.of"
    CANCEL_OF = "cancel.of"
    MONEY_STEP = "money.step"
    MONEY_STEP_DETAIL = "money.step_detail"
    STEP_REQUESTED = "money.step.requested"
    STEP_SENT = "money.step.sent"
    STEP_CONFIRMED = "money.step.confirmed"
    STEP_UNKNOWN = "money.step.unknown"
    STEP_REFUSED = "money.step.refused"
    STEP_NOT_SENT = "money.step.not_sent"
    STEP_NOT_APPLIED = "money.step.not_applied"
    STEP_WAITING = "money.step.waiting"
    FIGURES = "money.figures"
    FIGURES_NO_AMOUNT = "money.figures_no_amount"
    FIGURES_NOTHING_REFUNDED = "money.figures_nothing_refunded"
    STOPPED_WAITING_REPLY = "money.stopped_waiting"
    CONTEXT_BEFORE_SENDING = "money.context.before_sending"
    CONTEXT_AFTER_REFUSAL = "money.context.after_refusal"
    CONTEXT_SWEEP = "money.context.sweep"
    MONEY_NO_AMOUNT = "money.no_amount"
    MONEY_AMOUNT_TOO_SMALL = "money.amount_too_small"
    MONEY_CAPTURE_NOT_PREAUTHORIZED = "money.capture_not_preauthorized"
    MONEY_OVER_AUTHORIZED = "money.over_authorized"
    MONEY_CANCEL_IN_FULL = "money.cancel_in_full"
    MONEY_ALREADY_REFUNDED = "money.already_refunded"
    MONEY_NOTHING_TO_REFUND = "money.nothing_to_refund"
    MONEY_OVER_REFUNDABLE = "money.over_refundable"
    MONEY_REFUSED = "money.refused"
    NO_KNOWN_AMOUNT = "charge.no_known_amount"
    NOT_IN_STORE = "charge.not_in_store"
    OTHER_ENVIRONMENT = "charge.other_environment"
    UNKNOWN_ENVIRONMENT = "charge.unknown_environment"
    PIN_REFUND_REQUIRED = "pin.refund_required"
    PIN_CAPTURE_REQUIRED = "pin.capture_required"
    PIN_END_REQUIRED = "pin.end_required"
    PIN_WRONG = "pin.wrong"
    PIN_UNREADABLE = "pin.unreadable"

    # -- reconciliation -----------------------------------------------------------------------
    TRIGGER_AFTER_REPLY = "trigger.after_reply"
    TRIGGER_START_UP = "trigger.start_up"
    TRIGGER_ON_DEMAND = "trigger.on_demand"
    TRIGGER_SCHEDULE = "trigger.schedule"
    QUERIED_ON_DEMAND = "reconcile.queried_on_demand"
    ASKED_SERVICE = "reconcile.asked_service"
    TRIGGER_BECAUSE = "reconcile.trigger_because"
    WITH_CONTEXT = "reconcile.with_context"
    RECONCILE_CANNOT_ASK = "reconcile.cannot_ask"
    RECONCILE_ANSWERED_NONE = "reconcile.answered_none"
    RECONCILE_NONE_PAST_GRACE = "reconcile.none_past_grace"
    RECONCILE_NONE_YET = "reconcile.none_yet"
    CHECK_ANSWERED = "reconcile.check_answered"
    CHECK_CANNOT_ASK = "reconcile.check_cannot_ask"

    # -- gateway: what a call to the service ended in -----------------------------------------
    OP_TOKEN = "op.token"
    OP_CHARGE_REQUEST = "op.charge_request"
    OP_AUTHORIZATION = "op.authorization"
    OP_QUERY = "op.query"
    OP_CAPTURE = "op.capture"
    OP_REFUND = "op.refund"
    BAD_MERCHANT_CHARGE_ID = "gateway.bad_merchant_charge_id"
    BAD_AMOUNT = "gateway.bad_amount"
    UNREACHABLE = "gateway.unreachable"
    REPLY_TIMEOUT = "gateway.reply_timeout"
    CONNECTION_LOST = "gateway.connection_lost"
    REPLY_NOT_DOCUMENTED = "gateway.reply_not_documented"
    REPLY_OTHER_CHARGE = "gateway.reply_other_charge"
    TOKEN_REPLY_NOT_DOCUMENTED = "gateway.token_reply_not_documented"
    REPLY_HTML = "gateway.reply_html"
    REPLY_HTML_TITLED = "gateway.reply_html_titled"
    REPLY_EMPTY = "gateway.reply_empty"
    REPLY_NOT_JSON = "gateway.reply_not_json"
    API_REFUSED = "gateway.api_refused"
    API_TOKEN_REFUSED = "gateway.api_token_refused"
    API_NO_CHARGE = "gateway.api_no_charge"
    API_MEDIA_REFUSED = "gateway.api_media_refused"
    API_FAILED = "gateway.api_failed"
    API_ERROR = "gateway.api_error"
    NO_ERROR_DETAIL = "gateway.no_error_detail"
    SERVICE_SAID = "gateway.service_said"
    SERVICE_SAID_CODED = "gateway.service_said_coded"
    BUSINESS_CODE_OTHER = "business.other"
    BUSINESS_CHARGE_NOT_FOUND = "business.charge_not_found"
    BUSINESS_DUPLICATE_CHARGE_ID = "business.duplicate_charge_id"
    BUSINESS_INVALID_STATE = "business.invalid_state"
    BUSINESS_AMOUNT_ABOVE_LIMIT = "business.amount_above_limit"
    BUSINESS_INVALID_CARD_TOKEN = "business.invalid_card_token"
    BUSINESS_CARD_TOKEN_MISSING = "business.card_token_missing"
    BUSINESS_REQUIRED_FIELD = "business.required_field"
    CUSTOMER_EMAIL_REQUIRED = "business.customer_email_required"
    CUSTOMER_DOCUMENT_REFUSED = "business.customer_document_refused"
    BUSINESS_INVALID_DOCUMENT = "business.invalid_document"
    BUSINESS_INVALID_REQUEST = "business.invalid_request"
    BUSINESS_UNAUTHORIZED = "business.unauthorized"
    BUSINESS_MEDIA_TYPE = "business.media_type"
    BUSINESS_INTERNAL = "business.internal"
    TOKEN_FIELD_LEARNED = "charge.token_field_learned"
    TOKEN_FIELD_RETRY = "charge.token_field_retry"
    RECONCILE_BACKING_OFF = "reconcile.backing_off"
    ENDED_BY_SUPERVISOR = "attempt.ended_by_supervisor"
    UNKNOWN_ERROR_BODY = "gateway.unknown_error_body"
    TOKEN_REFUSED_AGAIN = "gateway.token_refused_again"
    CREDENTIALS_REFUSED = "gateway.credentials_refused"
    TOKEN_SERVER_ERROR = "gateway.token_server_error"
    TOKEN_SERVER_UNREACHABLE = "gateway.token_server_unreachable"
    TOKEN_SERVER_TIMEOUT = "gateway.token_server_timeout"
    TOKEN_SERVER_CONNECTION = "gateway.token_server_connection"
    SECRET_UNREADABLE = "gateway.secret_unreadable"
    CREDENTIALS_BREAK_RULES = "gateway.credentials_break_rules"
    CLOCK_BEHIND = "gateway.clock_behind"
    CLOCK_AHEAD = "gateway.clock_ahead"

    # -- inbox: what a delivery is and what it did --------------------------------------------
    INBOX_APPLIED = "inbox.applied"
    INBOX_APPLIED_BARE = "inbox.applied_bare"
    INBOX_DUPLICATE = "inbox.duplicate"
    INBOX_IGNORED = "inbox.ignored"
    INBOX_NOT_APPLIED = "inbox.not_applied"
    INBOX_UNMADE_FIRST = "inbox.unmade_first"
    INBOX_UNMADE = "inbox.unmade"
    INBOX_HEADER_MISMATCH = "inbox.header_mismatch"
    INBOX_UNKNOWN_TYPE = "inbox.unknown_type"
    INBOX_UNKNOWN_NO_TYPE = "inbox.unknown_no_type"
    INBOX_SELF_TEST_NO_NONCE = "inbox.self_test_no_nonce"
    INBOX_NOT_FORMAT = "inbox.not_format"
    INBOX_TYPE_NOT_FORMAT = "inbox.type_not_format"
    INBOX_UNREADABLE = "inbox.unreadable"
    INBOX_TYPE_UNREADABLE = "inbox.type_unreadable"
    INBOX_NOT_JSON = "inbox.not_json"
    INBOX_NOT_OBJECT = "inbox.not_object"
    INBOX_TOO_LARGE = "inbox.too_large"
    INBOX_TOO_LARGE_UNKNOWN = "inbox.too_large_unknown"
    INBOX_STALLED = "inbox.stalled"
    INBOX_NOT_JSON_TYPE = "inbox.not_json_type"
    INBOX_CANNOT_ACCEPT = "inbox.cannot_accept"
    INBOX_TOO_DEEP = "inbox.too_deep"
    INBOX_NUMBER_TOO_LONG = "inbox.number_too_long"
    INBOX_NOT_UNICODE = "inbox.not_unicode"
    INBOX_UNSTORABLE = "inbox.unstorable"

    # -- why a body or a reply is not what the format requires (the parser's own words kept) -
    JSON_SYNTAX = "json.syntax"
    JSON_NOT_TEXT = "json.not_text"
    FIELD_MISSING = "field.missing"
    FIELD_INVALID = "field.invalid"
    FIELD_MORE = "field.more"

    # -- inbox health: the heartbeat's self-test --------------------------------------------
    HEALTH_NOT_CHECKED = "health.not_checked"
    HEALTH_LISTENER_DOWN = "health.listener_down"
    HEALTH_LOCAL_FAILED = "health.local_failed"
    HEALTH_NO_PUBLIC_URL = "health.no_public_url"
    HEALTH_TUNNEL_DOWN = "health.tunnel_down"
    HEALTH_PUBLIC_FAILED = "health.public_failed"
    HEALTH_URL_NOT_REGISTERED = "health.url_not_registered"
    HEALTH_NO_URL_REGISTERED = "health.no_url_registered"
    HEALTH_SLOW = "health.slow"
    HEALTH_OK = "health.ok"
    HEALTH_STORE_REFUSING = "health.store_refusing"
    SELF_TEST_HTTP = "self_test.http"
    SELF_TEST_NOT_STORED = "self_test.not_stored"
    SELF_TEST_FAILED = "self_test.failed"

    # -- the card page (SDK) -------------------------------------------------------------------
    SDK_NETWORK = "sdk.network"
    SDK_LOAD = "sdk.load"
    SDK_BRAND = "sdk.brand"
    SDK_CREDENTIALS = "sdk.credentials"
    SDK_TOKEN = "sdk.token"
    CARD_PAGE_NOT_LOADED = "card_page.not_loaded"
    CARD_PAGE_RENDERER_FAILING = "card_page.renderer_failing"
    CARD_PAGE_CREDENTIALS_CHANGED = "card_page.credentials_changed"
    CARD_PAGE_BAD_CNPJ = "card_page.bad_cnpj"
    CARD_PAGE_BAD_TOKEN = "card_page.bad_token"
    CARD_PAGE_NO_CREDENTIALS = "card_page.no_credentials"
    CARD_PAGE_KEYCHAIN = "card_page.keychain"


# English, the core's language: logs, exports, the stored `reason` text. `{name}` is an
# argument; a nested reason is written out in English where it stands.
ENGLISH: dict[ReasonCode, str] = {
    ReasonCode.MERGE_FIRST_STATUS: "first status of the charge: {status}",
    ReasonCode.MERGE_LATER_UPDATE: "a later {status} update",
    ReasonCode.MERGE_LATER_STAGE: "{status} is later in the charge's life than {current_status}",
    ReasonCode.MERGE_DETAILS_ADDED: (
        "already {current_status}; added details the charge did not have"
    ),
    ReasonCode.MERGE_OLDER_DETAILS_ADDED: "{why}; added details the charge did not have",
    ReasonCode.MERGE_NOTHING_NEW: "already {current_status}; nothing new",
    ReasonCode.MERGE_AFTER_DENIED: "the charge is DENIED, which is final; {status} is not applied",
    ReasonCode.MERGE_EARLIER_STAGE: (
        "{status} comes earlier in a charge's life than {current_status}; "
        "an older input never overwrites a newer state"
    ),
    ReasonCode.MERGE_HAPPENED_BEFORE: (
        "{status} happened at {occurred_at}, before the current state ({current_at})"
    ),
    ReasonCode.MERGE_OLDER: "{status} is older than the current {current_status}",
    ReasonCode.THREE_DS_RESULT: "3DS challenge result {status}",
    ReasonCode.THREE_DS_RESULT_PARES: "3DS challenge result {status} (paresStatus {pares})",
    ReasonCode.THREE_DS_OLDER_CHARGE_ID: "older 3DS result; added the charge id",
    ReasonCode.THREE_DS_ALREADY: "3DS result {status} already recorded",
    ReasonCode.THREE_DS_OLDER: "3DS result {status} is older than the recorded {current_status}",
    ReasonCode.OP_TDS_SETUP: "3DS setup",
    ReasonCode.OP_TDS_ENROLLMENT: "3DS enrollment",
    ReasonCode.OP_TDS_STATUS: "3DS status query",
    ReasonCode.OP_TDS_AUTHORIZATION: "3DS authorization",
    ReasonCode.TDS_SETUP_RECORDED: (
        "3DS authentication recorded before sending its setup (card token only)"
    ),
    ReasonCode.TDS_SETUP_DONE: (
        "3DS setup answered (service charge {charge}); enrollment sent with the browser data"
    ),
    ReasonCode.TDS_ENROLLED: "3DS enrollment answered: {status}",
    ReasonCode.TDS_CHALLENGE: (
        "the issuer asks the customer for a confirmation; the challenge is on screen"
    ),
    ReasonCode.TDS_RESULT_NOTIFIED: "3DS result {status}, from a notification",
    ReasonCode.TDS_RESULT_ASKED: "3DS result: {why}, from the status endpoint",
    ReasonCode.TDS_AUTHORIZATION_RECORDED: (
        "authenticated; the 3DS authorization is recorded before sending"
    ),
    ReasonCode.TDS_FALLBACK: ("3DS authentication {why}: charging without 3DS, as the policy says"),
    ReasonCode.TDS_REFUSED: (
        "not charged: 3DS authentication {why}, and the policy refuses a card without it"
    ),
    ReasonCode.TDS_UNAVAILABLE: "3DS authentication unavailable: {error}",
    ReasonCode.TDS_NO_BROWSER: "3DS needs the card page's browser data, which did not come",
    ReasonCode.TDS_INTERRUPTED: (
        "the terminal stopped during 3DS ({step}) before the charge was sent: nothing was charged"
    ),
    ReasonCode.TDS_INTERRUPTED_SENT: (
        "the terminal stopped after sending the charge ({step}); the service is asked, never sent "
        "again"
    ),
    ReasonCode.TDS_WHY_AUTHENTICATED: "authenticated",
    ReasonCode.TDS_WHY_REJECTED: "rejected",
    ReasonCode.TDS_WHY_FAILED: "unavailable",
    ReasonCode.TDS_WHY_CANCELLED: "cancelled by the clerk",
    ReasonCode.TDS_WHY_TIMED_OUT: "without an answer in time",
    ReasonCode.TDS_WHY_NAVIGATION_REFUSED: ("ended: the bank's page tried to open another address"),
    ReasonCode.TDS_ENDED: (
        "not charged: 3DS authentication {why}; a card is never charged without 3DS after that"
    ),
    ReasonCode.TDS_NEEDS_CARD_DATA: (
        "impossible with this service, which asks for the card's own data (the terminal only "
        "ever has the card's one-time token)"
    ),
    ReasonCode.CHANGE_STATUS: "status {previous_status} → {status}",
    ReasonCode.CHANGE_REFUNDED: "refunded {previous_amount} → {amount}",
    ReasonCode.CHANGE_AMOUNT: "amount {amount}",
    ReasonCode.CHANGE_CHARGE_ID: "charge id {charge}",
    ReasonCode.CHANGE_TRANSACTION_NEW: "transaction {key}: {status}",
    ReasonCode.CHANGE_TRANSACTION_STATUS: "transaction {key}: {previous_status} → {status}",
    ReasonCode.CHANGE_TRANSACTION_REFUNDED: (
        "transaction {key}: refunded {previous_amount} → {amount}"
    ),
    ReasonCode.CHANGE_THREE_DS: "3DS {previous_status} → {status}",
    ReasonCode.ATTEMPT_RECORDED: (
        "attempt for sale {sale} recorded before sending: {amount} centavos, {cards}"
    ),
    ReasonCode.ATTEMPT_RECORDED_LATE_CAPTURE: (
        "attempt for sale {sale} recorded before sending: {amount} centavos, {cards}, late capture"
    ),
    ReasonCode.ATTEMPT_ALREADY: "attempt already {state}; {why}",
    ReasonCode.ATTEMPT_RESOLVED: "the service has this charge ({status}); attempt resolved",
    ReasonCode.CARD: "{brand} •••• {last_four}",
    ReasonCode.CARD_BRAND_ONLY: "{brand}",
    ReasonCode.CARD_UNKNOWN_BRAND: "card",
    ReasonCode.CARD_INSTALLMENTS: "{card} in {installments}x",
    ReasonCode.TENDER_WALLET: "PicPay wallet QR",
    ReasonCode.TENDER_PIX: "PIX QR",
    ReasonCode.CHECK_QR_EXPIRY: "the QR expires at {expires_at}; asked around its expiry",
    ReasonCode.START_QR_WAITING: (
        "sale {sale} has a QR ({charge}) awaiting payment until {expires_at}; cancel it or let "
        "it expire before charging the sale again"
    ),
    ReasonCode.OUTCOME_QR_AWAITING: "QR created: awaiting payment",
    ReasonCode.MONEY_QR_NO_CAPTURE: "a QR charge has nothing to capture",
    ReasonCode.QR_CANCEL_REFUSED: (
        "the service does not cancel an unpaid QR; it expires by itself ({error})"
    ),
    ReasonCode.QR_CANCEL_PAID: (
        "the customer has already paid this QR, so nothing was cancelled; to give the money "
        "back, refund it from the History tab"
    ),
    ReasonCode.QR_CANCEL_NOT_AWAITING: (
        "the QR no longer awaits payment; there is nothing to cancel"
    ),
    ReasonCode.OP_WALLET: "wallet charge",
    ReasonCode.OP_PIX: "PIX charge",
    ReasonCode.CHECK_NO_STATUS: "the charge has no status yet",
    ReasonCode.CHECK_NOT_FINAL: "{status} is not final",
    ReasonCode.CHECK_EXPECT_NOTIFICATION: "expecting the notification of {status}",
    ReasonCode.CHECK_SCHEDULED: "scheduled check",
    ReasonCode.START_UNRESOLVED: (
        "sale {sale} has a charge ({charge}) whose outcome is not known yet; the terminal is "
        "asking the service. Charging again could charge the customer twice, so wait until it "
        "is resolved"
    ),
    ReasonCode.START_MONEY_HELD: (
        "sale {sale} already has charge {charge} with status {status}; refund it before "
        "charging the sale again"
    ),
    ReasonCode.START_REFUSED: "refused",
    ReasonCode.RECORDED_BEFORE_SENDING: "recorded before sending",
    ReasonCode.STOPPED_WAITING: (
        "the terminal stopped waiting for the reply; the service will be asked"
    ),
    ReasonCode.NOT_CHARGED: "not charged: {error}",
    ReasonCode.NOT_CHARGED_NO_CHARGE: "not charged: the service has no charge ({error})",
    ReasonCode.UNKNOWN_ANSWERED: "{error}; the service answered, so one query settles it",
    ReasonCode.UNKNOWN_MAY_EXIST: (
        "{error}; the charge may exist: it will be found by asking, never sent again"
    ),
    ReasonCode.OUTCOME_UNKNOWN: (
        "outcome unknown ({error}); the terminal keeps asking the service and refuses another "
        "charge for this sale until it knows"
    ),
    ReasonCode.OUTCOME_UNKNOWN_LAST_QUERY: (
        "outcome unknown ({error}); the terminal keeps asking the service and refuses another "
        "charge for this sale until it knows (last query: {last_error})"
    ),
    ReasonCode.OUTCOME_APPROVED: "approved: {status}",
    ReasonCode.OUTCOME_DENIED: "denied: the card was not charged",
    ReasonCode.OUTCOME_PENDING: (
        "pending: the service has not decided yet (for example a 3DS challenge); the result "
        "arrives by notification or reconciliation"
    ),
    ReasonCode.OUTCOME_OTHER: "the service reports {status}",
    ReasonCode.INTERNAL_ERROR: "not charged: an internal error ({kind})",
    ReasonCode.STORE_UNREACHABLE: (
        "not charged: the shop's shared store does not answer (the server is down, or the "
        "network is in the way), so the attempt cannot be recorded; nothing was sent"
    ),
    ReasonCode.STORE_LOGIN: (
        "not charged: the shop's shared store refused the login (user or password); nothing "
        "was sent"
    ),
    ReasonCode.STORE_NEWER: (
        "not charged: the shop's shared store was upgraded by a newer checkout-desktop; "
        "upgrade this terminal. Nothing was sent"
    ),
    ReasonCode.SHARED_STORE_CHANGE: "changed in the shop's shared store (another counter)",
    ReasonCode.STORE_CANNOT_RECORD: (
        "not charged: the store cannot record the attempt ({error}); nothing was sent"
    ),
    ReasonCode.SERVICE_HAS_CHARGE: "the service has the charge ({status})",
    ReasonCode.NOTIFICATION_HAS_CHARGE: (
        "a notification shows the service has the charge ({status})"
    ),
    ReasonCode.CAPTURE_REQUESTED: "capture of {amount} centavos requested",
    ReasonCode.CAPTURE_FAILED: "capture failed: {error}",
    ReasonCode.CAPTURE_FAILED_QUERY: (
        "capture failed: {error}; the charge will be queried to learn whether it happened"
    ),
    ReasonCode.CAPTURE_UNKNOWN: "capture outcome unknown",
    ReasonCode.CAPTURE_OF: "capture of {amount} centavos",
    ReasonCode.REFUND_REQUESTED: "refund of {amount} centavos requested",
    ReasonCode.REFUND_FAILED: "refund failed: {error}",
    ReasonCode.REFUND_FAILED_QUERY: (
        "refund failed: {error}; the charge will be queried to learn whether it happened"
    ),
    ReasonCode.REFUND_UNKNOWN: "refund outcome unknown",
    ReasonCode.REFUND_OF: "refund of {amount} centavos",
    ReasonCode.CANCEL_OF: "cancel of {amount} centavos",
    ReasonCode.MONEY_STEP: "{operation} {step}",
    ReasonCode.MONEY_STEP_DETAIL: "{operation} {step} ({detail})",
    ReasonCode.STEP_REQUESTED: "requested",
    ReasonCode.STEP_SENT: "sent to the service",
    ReasonCode.STEP_CONFIRMED: "confirmed by the service",
    ReasonCode.STEP_UNKNOWN: "outcome unknown; the charge will be queried, never sent again",
    ReasonCode.STEP_REFUSED: "refused by the service",
    ReasonCode.STEP_NOT_SENT: "not sent: it never reached the service",
    ReasonCode.STEP_NOT_APPLIED: "not done: the service's figures show no such change",
    ReasonCode.STEP_WAITING: (
        "not visible at the service yet; it will be asked again, never sent again"
    ),
    ReasonCode.FIGURES: "{status}, refunded {refunded_amount} of {amount} centavos",
    ReasonCode.FIGURES_NO_AMOUNT: "{status}, refunded {refunded_amount} of ? centavos",
    ReasonCode.FIGURES_NOTHING_REFUNDED: "{status}, {amount} centavos",
    ReasonCode.STOPPED_WAITING_REPLY: "the terminal stopped waiting for the reply",
    ReasonCode.CONTEXT_BEFORE_SENDING: "before sending: asked the service",
    ReasonCode.CONTEXT_AFTER_REFUSAL: "after the refusal: asked the service",
    ReasonCode.CONTEXT_SWEEP: "daily sweep: asked the service",
    ReasonCode.MONEY_NO_AMOUNT: "the service shows no amount for the charge",
    ReasonCode.MONEY_AMOUNT_TOO_SMALL: "the amount must be at least 1 centavo",
    ReasonCode.MONEY_CAPTURE_NOT_PREAUTHORIZED: (
        "only a pre-authorized charge can be captured, and this one is {status}"
    ),
    ReasonCode.MONEY_OVER_AUTHORIZED: "the amount exceeds the {amount} centavos authorized",
    ReasonCode.MONEY_CANCEL_IN_FULL: (
        "a charge not yet captured is canceled in full ({amount} centavos)"
    ),
    ReasonCode.MONEY_ALREADY_REFUNDED: "it is already fully refunded",
    ReasonCode.MONEY_NOTHING_TO_REFUND: "a {status} charge has nothing to refund",
    ReasonCode.MONEY_OVER_REFUNDABLE: "the amount exceeds the {amount} centavos still refundable",
    ReasonCode.MONEY_REFUSED: "refused",
    ReasonCode.NO_KNOWN_AMOUNT: "charge {charge} has no known amount; give one",
    ReasonCode.NOT_IN_STORE: "no charge {charge} in the store; query it before acting on it",
    ReasonCode.OTHER_ENVIRONMENT: (
        "charge {charge} was made on profile {profile}, not on {current}; nothing about it is "
        "sent to another service"
    ),
    ReasonCode.UNKNOWN_ENVIRONMENT: (
        "charge {charge} was not made by this terminal (only notifications told of it); no "
        "service is asked about it"
    ),
    ReasonCode.PIN_REFUND_REQUIRED: "a refund of charge {charge} needs the supervisor PIN",
    ReasonCode.PIN_CAPTURE_REQUIRED: (
        "charge {charge} was authorized on an earlier day: its capture needs the supervisor PIN"
    ),
    ReasonCode.PIN_END_REQUIRED: "ending attempt {charge} needs the supervisor PIN",
    ReasonCode.PIN_WRONG: "wrong supervisor PIN for charge {charge}; nothing was sent",
    ReasonCode.PIN_UNREADABLE: "the supervisor PIN cannot be checked: {error}",
    ReasonCode.TRIGGER_AFTER_REPLY: "right after sending",
    ReasonCode.TRIGGER_START_UP: "start-up",
    ReasonCode.TRIGGER_ON_DEMAND: "on demand",
    ReasonCode.TRIGGER_SCHEDULE: "schedule",
    ReasonCode.QUERIED_ON_DEMAND: "queried on demand",
    ReasonCode.ASKED_SERVICE: "{trigger}: asked the service",
    ReasonCode.TRIGGER_BECAUSE: "{trigger} ({why})",
    ReasonCode.WITH_CONTEXT: "{context}: {why}",
    ReasonCode.RECONCILE_CANNOT_ASK: (
        "{trigger}: could not ask the service ({error}); will ask again"
    ),
    ReasonCode.RECONCILE_ANSWERED_NONE: (
        "{trigger}: the service answered the request and has no such charge: nothing was charged"
    ),
    ReasonCode.RECONCILE_NONE_PAST_GRACE: (
        "{trigger}: still no such charge {seconds} s after the attempt, past the point where it "
        "could appear: nothing was charged"
    ),
    ReasonCode.RECONCILE_NONE_YET: (
        "{trigger}: the service has no such charge yet ({seconds} s after the attempt); the "
        "request may still be in progress there, so it will be asked again, never sent again"
    ),
    ReasonCode.CHECK_ANSWERED: "{trigger} ({why}): the service answered: {error}",
    ReasonCode.CHECK_CANNOT_ASK: "{trigger} ({why}): could not ask the service: {error}",
    ReasonCode.OP_TOKEN: "token request",
    ReasonCode.OP_CHARGE_REQUEST: "charge request",
    ReasonCode.OP_AUTHORIZATION: "charge authorization",
    ReasonCode.OP_QUERY: "charge query",
    ReasonCode.OP_CAPTURE: "charge capture",
    ReasonCode.OP_REFUND: "charge refund",
    ReasonCode.BAD_MERCHANT_CHARGE_ID: (
        "merchantChargeId '{value}' must be 6 to 36 letters, digits or hyphens (pattern {pattern})"
    ),
    ReasonCode.BAD_AMOUNT: "an amount is a whole number of centavos, at least 1 (got {value})",
    ReasonCode.UNREACHABLE: (
        "{operation}: cannot reach the service at {url} ({error}); nothing was sent"
    ),
    ReasonCode.REPLY_TIMEOUT: (
        "{operation}: no reply within {seconds} s; the outcome is unknown until the service "
        "is asked"
    ),
    ReasonCode.CONNECTION_LOST: (
        "{operation}: the connection broke before the reply ({error}); the outcome is unknown "
        "until the service is asked"
    ),
    ReasonCode.REPLY_NOT_DOCUMENTED: (
        "{operation}: the reply does not match the documented charge body ({details})"
    ),
    ReasonCode.TOKEN_REPLY_NOT_DOCUMENTED: (
        "{operation}: the token reply does not match the documented body ({details})"
    ),
    ReasonCode.REPLY_OTHER_CHARGE: (
        "{operation}: the reply is about charge '{got}', not '{expected}'"
    ),
    ReasonCode.REPLY_HTML: (
        "{operation}: the service answered HTTP {http_code} with an HTML page instead of JSON, "
        "usually a firewall or proxy block page; the service may refuse calls from this network "
        "or country, or the base URL points at a web site"
    ),
    ReasonCode.REPLY_HTML_TITLED: (
        '{operation}: the service answered HTTP {http_code} with an HTML page ("{title}") '
        "instead of JSON, usually a firewall or proxy block page; the service may refuse calls "
        "from this network or country, or the base URL points at a web site"
    ),
    ReasonCode.REPLY_EMPTY: "{operation}: the service answered HTTP {http_code} with an empty body",
    ReasonCode.REPLY_NOT_JSON: (
        "{operation}: the service answered HTTP {http_code} with {content_type}, not JSON"
    ),
    ReasonCode.API_REFUSED: (
        "{operation}: the service refused the request (HTTP {http_code}): {detail}"
    ),
    ReasonCode.API_TOKEN_REFUSED: (
        "{operation}: the service refused the access token (HTTP {http_code}): {detail}"
    ),
    ReasonCode.API_NO_CHARGE: (
        "{operation}: the service has no such charge (HTTP {http_code}): {detail}"
    ),
    ReasonCode.API_MEDIA_REFUSED: (
        "{operation}: the service refused the content type (HTTP {http_code}): {detail}"
    ),
    ReasonCode.API_FAILED: "{operation}: the service failed (HTTP {http_code}): {detail}",
    ReasonCode.API_ERROR: (
        "{operation}: the service answered with an error (HTTP {http_code}): {detail}"
    ),
    ReasonCode.NO_ERROR_DETAIL: "no error detail in the reply",
    ReasonCode.SERVICE_SAID: "{words}",
    ReasonCode.SERVICE_SAID_CODED: "{business}: {words}",
    ReasonCode.BUSINESS_CODE_OTHER: "service code {business_code}",
    ReasonCode.BUSINESS_CHARGE_NOT_FOUND: "the service has no such charge",
    ReasonCode.BUSINESS_DUPLICATE_CHARGE_ID: "this charge number was already used",
    ReasonCode.BUSINESS_INVALID_STATE: "the charge's state does not allow this",
    ReasonCode.BUSINESS_AMOUNT_ABOVE_LIMIT: "the amount is above what the charge allows",
    ReasonCode.BUSINESS_INVALID_CARD_TOKEN: (
        "the card token is not valid (used, expired or unknown); enter the card again"
    ),
    ReasonCode.BUSINESS_CARD_TOKEN_MISSING: "the service found no card in the request",
    ReasonCode.BUSINESS_REQUIRED_FIELD: "a field the service requires is missing",
    ReasonCode.BUSINESS_INVALID_DOCUMENT: "the service refused the customer's document",
    ReasonCode.CUSTOMER_DOCUMENT_REFUSED: "the service refused the customer's document: {words}",
    ReasonCode.CUSTOMER_EMAIL_REQUIRED: (
        "the service requires the customer's e-mail: type it and charge again ({words})"
    ),
    ReasonCode.BUSINESS_INVALID_REQUEST: "the request breaks the service's rules",
    ReasonCode.BUSINESS_UNAUTHORIZED: "the service refused the access token",
    ReasonCode.BUSINESS_MEDIA_TYPE: "the service refused the content type",
    ReasonCode.BUSINESS_INTERNAL: "the service had an internal error",
    ReasonCode.TOKEN_FIELD_RETRY: (
        "the service found no card token under {tried}; sent once more under {spelling} with "
        "the same charge number (a refused request creates nothing)"
    ),
    ReasonCode.TOKEN_FIELD_LEARNED: (
        "the service reads the card token as {spelling}; the profile keeps this spelling"
    ),
    ReasonCode.RECONCILE_BACKING_OFF: (
        "{trigger}: the service refused the query ({error}); asking again in {seconds} s, "
        "never sending the charge again"
    ),
    ReasonCode.ENDED_BY_SUPERVISOR: (
        "ended by supervisor {supervisor}: {why}; last answer from the service: {last}. The "
        "sale is free; the charge was never sent again"
    ),
    ReasonCode.UNKNOWN_ERROR_BODY: "an error body of an unknown shape",
    ReasonCode.TOKEN_REFUSED_AGAIN: (
        "{operation}: the service refused a freshly issued access token too ({detail}); the "
        "credential may lack the checkout scope or have been revoked"
    ),
    ReasonCode.CREDENTIALS_REFUSED: (
        "{operation}: the service refused the client id or secret (HTTP {http_code}: {detail}). "
        "Check them in Settings → Credentials; a secret stops working 7 days after a new one is "
        "generated in the merchant panel, and sandbox and production credentials differ"
    ),
    ReasonCode.TOKEN_SERVER_ERROR: (
        "{operation}: the token server answered HTTP {http_code}: {detail}"
    ),
    ReasonCode.TOKEN_SERVER_UNREACHABLE: (
        "{operation}: cannot reach the token server at {url} ({error}); check the network and "
        "the profile's auth URL"
    ),
    ReasonCode.TOKEN_SERVER_TIMEOUT: (
        "{operation}: the token server did not answer within {seconds} s"
    ),
    ReasonCode.TOKEN_SERVER_CONNECTION: (
        "{operation}: the connection to the token server failed ({error})"
    ),
    ReasonCode.SECRET_UNREADABLE: "{operation}: cannot read the client secret: {error}",
    ReasonCode.CREDENTIALS_BREAK_RULES: (
        "{operation}: the stored credentials break the service's rules ({details}); enter them "
        "again in Settings → Credentials"
    ),
    ReasonCode.CLOCK_BEHIND: (
        "the service refused a token it had just issued, and this computer's clock is "
        "{seconds} s behind the service's clock; set the system clock (enable network time) "
        "and try again"
    ),
    ReasonCode.CLOCK_AHEAD: (
        "the service refused a token it had just issued, and this computer's clock is "
        "{seconds} s ahead of the service's clock; set the system clock (enable network time) "
        "and try again"
    ),
    ReasonCode.INBOX_APPLIED: "applied: {why}",
    ReasonCode.INBOX_APPLIED_BARE: "applied",
    ReasonCode.INBOX_DUPLICATE: "duplicate: {why}",
    ReasonCode.INBOX_IGNORED: "ignored: {why}",
    ReasonCode.INBOX_NOT_APPLIED: "not applied: {error}",
    # A charge no attempt of this terminal's names: only notifications told of it, and the
    # History lists it apart, read only.
    ReasonCode.INBOX_UNMADE_FIRST: (
        "first news of a charge this terminal did not make: {status}; see it in History › "
        "Other environments"
    ),
    ReasonCode.INBOX_UNMADE: (
        "a charge this terminal did not make ({why}); see it in History › Other environments"
    ),
    ReasonCode.INBOX_HEADER_MISMATCH: (
        "the event-type header says {header} but the body is {body}; the body decided"
    ),
    ReasonCode.INBOX_UNKNOWN_TYPE: (
        "a notification of a type this terminal does not know ({type}); stored as received, "
        "not applied to any charge"
    ),
    ReasonCode.INBOX_UNKNOWN_NO_TYPE: (
        "a notification of a type this terminal does not know (no type); stored as received, "
        "not applied to any charge"
    ),
    ReasonCode.INBOX_SELF_TEST_NO_NONCE: "a self-test body without a nonce",
    ReasonCode.INBOX_NOT_FORMAT: "the body does not match the format: {details}",
    ReasonCode.INBOX_TYPE_NOT_FORMAT: "the {type} body does not match the format: {details}",
    ReasonCode.INBOX_UNREADABLE: "the body cannot be read ({error})",
    ReasonCode.INBOX_TYPE_UNREADABLE: "the {type} body cannot be read ({error})",
    ReasonCode.INBOX_NOT_JSON: "the body is not valid JSON: {error}",
    ReasonCode.INBOX_NOT_OBJECT: "the body is JSON but not an object (got {type})",
    ReasonCode.INBOX_TOO_LARGE: (
        "the body is {size} bytes, over the limit of {limit} bytes; the first {limit} bytes "
        "are kept"
    ),
    ReasonCode.INBOX_TOO_LARGE_UNKNOWN: (
        "the body is more, over the limit of {limit} bytes; the first {limit} bytes are kept"
    ),
    ReasonCode.INBOX_STALLED: (
        "the body did not arrive within {seconds} s ({size} bytes came); what came is kept"
    ),
    ReasonCode.INBOX_NOT_JSON_TYPE: "the content type {type} is not JSON; the body is kept",
    ReasonCode.INBOX_CANNOT_ACCEPT: "the body cannot be accepted",
    ReasonCode.INBOX_TOO_DEEP: (
        "the body is nested more than {limit} levels deep; it is kept as received"
    ),
    ReasonCode.INBOX_NUMBER_TOO_LONG: (
        "the body holds a number of {digits} digits, over the limit of {limit}; it is kept as "
        "received"
    ),
    ReasonCode.INBOX_NOT_UNICODE: (
        "the body's {field} is not valid Unicode text (a lone surrogate); it is kept as received"
    ),
    ReasonCode.INBOX_UNSTORABLE: (
        "the body could not be stored as read ({error}); it is kept as received"
    ),
    # The parser's own words, exactly as it gave them (str of its exception).
    ReasonCode.JSON_SYNTAX: "{message}: line {line} column {column} (char {char})",
    ReasonCode.JSON_NOT_TEXT: "{error}",
    ReasonCode.FIELD_MISSING: "{field}: {message}",
    ReasonCode.FIELD_INVALID: "{field}: {message}",
    ReasonCode.FIELD_MORE: "and {count} more",
    ReasonCode.HEALTH_NOT_CHECKED: "not checked yet",
    ReasonCode.HEALTH_LISTENER_DOWN: "the listener is not running",
    ReasonCode.HEALTH_LOCAL_FAILED: "local self-test failed: {problem}",
    ReasonCode.HEALTH_NO_PUBLIC_URL: (
        "no public URL: the listener works locally, but the service cannot reach it"
    ),
    ReasonCode.HEALTH_TUNNEL_DOWN: "the tunnel is not up: {why}",
    ReasonCode.HEALTH_PUBLIC_FAILED: "a self-test through {url} did not arrive: {problem}",
    ReasonCode.HEALTH_URL_NOT_REGISTERED: (
        "the merchant panel holds {registered}; deliveries reach this inbox only once it holds "
        "{url}"
    ),
    ReasonCode.HEALTH_NO_URL_REGISTERED: (
        "the merchant panel holds no URL; deliveries reach this inbox only once it holds {url}"
    ),
    ReasonCode.HEALTH_SLOW: "a self-test through {url} took {seconds} s (over {limit} s)",
    ReasonCode.HEALTH_OK: "self-test through {url} arrived",
    ReasonCode.HEALTH_STORE_REFUSING: (
        "deliveries not stored since the last check: {count} ({error})"
    ),
    ReasonCode.SELF_TEST_HTTP: "the URL answered {http_code}",
    ReasonCode.SELF_TEST_NOT_STORED: "it was not stored within {seconds} s",
    ReasonCode.SELF_TEST_FAILED: "{error}",
    ReasonCode.SDK_NETWORK: (
        "the card service could not be reached (network, proxy or certificate); nothing was sent"
    ),
    ReasonCode.SDK_LOAD: "the card SDK could not be loaded",
    ReasonCode.SDK_BRAND: "the card service did not recognise the card's brand",
    ReasonCode.SDK_CREDENTIALS: "the card service refused the merchant's credentials",
    ReasonCode.SDK_TOKEN: "the card service refused the card",
    ReasonCode.CARD_PAGE_NOT_LOADED: "the card page could not be loaded",
    ReasonCode.CARD_PAGE_RENDERER_FAILING: "the card page's renderer keeps failing",
    ReasonCode.CARD_PAGE_CREDENTIALS_CHANGED: (
        "the card service credentials changed; the card form was reloaded, enter the card again"
    ),
    ReasonCode.CARD_PAGE_BAD_CNPJ: "the merchant CNPJ for the card SDK is not valid: {error}",
    ReasonCode.CARD_PAGE_BAD_TOKEN: (
        "the card SDK's merchant token is empty, too long or holds spaces or control "
        "characters; enter it again in Settings → Credentials"
    ),
    ReasonCode.CARD_PAGE_NO_CREDENTIALS: (
        "the card SDK's merchant token is not set; enter it in Settings → Credentials"
    ),
    ReasonCode.CARD_PAGE_KEYCHAIN: (
        "the card SDK's merchant token cannot be read: no keychain is available"
    ),
}


def is_status_arg(name: str) -> bool:
    return name.endswith(("status", "state"))


def is_amount_arg(name: str) -> bool:
    return name.endswith("amount")


def is_instant_arg(name: str) -> bool:
    return name.endswith("_at")


@dataclass(frozen=True, eq=True)
class Reason:
    """One reason: its code and named arguments (JSON values, or reasons nested in it)."""

    code: ReasonCode
    args: Mapping[str, ArgValue] = field(default_factory=dict)

    @classmethod
    def of(cls, code: ReasonCode, **args: ArgValue) -> Reason:
        return cls(code, args)

    def english(self) -> str:
        """The reason in English (logs, exports, the stored text)."""
        return ENGLISH[self.code].format(
            **{name: _english_arg(name, value) for name, value in self.args.items()}
        )

    def __str__(self) -> str:
        return self.english()

    def mentions(self, code: ReasonCode) -> bool:
        """Whether this reason, or any reason nested in its arguments, has `code`."""
        if self.code == code:
            return True
        return any(_mentions(value, code) for value in self.args.values())

    def to_json(self) -> dict[str, Any]:
        return {"code": self.code.value, "args": _args_json(self.args)}

    def args_json(self) -> str:
        """The arguments as stored beside the code."""
        return _ARGS_ENCODER.encode(_args_json(self.args))

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Reason:
        return cls(ReasonCode(data["code"]), _args_from_json(data.get("args") or {}))

    @classmethod
    def from_stored(cls, code: str | None, args: str | None) -> Reason | None:
        """A stored reason, or None for a row written before reasons were kept as codes (or
        with a code this version does not know: that row is shown as its stored text)."""
        if not code:
            return None
        try:
            return cls(ReasonCode(code), _args_from_json(json.loads(args or "{}")))
        except (ValueError, TypeError, KeyError):
            logger.warning("a stored reason %r cannot be read; its text is shown as stored", code)
            return None


def _mentions(value: ArgValue, code: ReasonCode) -> bool:
    if isinstance(value, Reason):
        return value.mentions(code)
    if isinstance(value, tuple):
        return any(_mentions(v, code) for v in value)
    return False


def _english_arg(name: str, value: ArgValue) -> str:
    if isinstance(value, Reason):
        return value.english()
    if isinstance(value, tuple):
        return ", ".join(_english_arg(name, v) for v in value)
    if value is None:
        return "no status" if is_status_arg(name) else "—"
    return str(value)


def _args_json(args: Mapping[str, ArgValue]) -> dict[str, Any]:
    return {name: _value_json(value) for name, value in args.items()}


def _value_json(value: ArgValue) -> Any:
    if isinstance(value, Reason):
        return value.to_json()
    if isinstance(value, tuple):
        return [_value_json(v) for v in value]
    return value


def _args_from_json(data: Mapping[str, Any]) -> dict[str, ArgValue]:
    return {str(name): _value_from_json(value) for name, value in data.items()}


def _value_from_json(value: Any) -> ArgValue:
    if isinstance(value, dict):
        return Reason.from_json(value)
    if isinstance(value, list):
        return tuple(Reason.from_json(v) for v in value)
    if value is None or isinstance(value, str | int | float | bool):
        return value
    raise TypeError(f"a reason argument cannot be {type(value).__name__}")


Trigger = Literal["right after sending", "start-up", "on demand", "schedule"]
"""What started a reconciliation pass (or one query of it)."""

_TRIGGERS: dict[str, ReasonCode] = {
    "right after sending": ReasonCode.TRIGGER_AFTER_REPLY,
    "start-up": ReasonCode.TRIGGER_START_UP,
    "on demand": ReasonCode.TRIGGER_ON_DEMAND,
    "schedule": ReasonCode.TRIGGER_SCHEDULE,
}

_OPERATIONS = {
    "token request": ReasonCode.OP_TOKEN,
    "charge request": ReasonCode.OP_CHARGE_REQUEST,
    "charge authorization": ReasonCode.OP_AUTHORIZATION,
    "charge query": ReasonCode.OP_QUERY,
    "charge capture": ReasonCode.OP_CAPTURE,
    "charge refund": ReasonCode.OP_REFUND,
    "3DS setup": ReasonCode.OP_TDS_SETUP,
    "3DS enrollment": ReasonCode.OP_TDS_ENROLLMENT,
    "3DS status query": ReasonCode.OP_TDS_STATUS,
    "3DS authorization": ReasonCode.OP_TDS_AUTHORIZATION,
    "wallet charge": ReasonCode.OP_WALLET,
    "pix charge": ReasonCode.OP_PIX,
}


_BUSINESS_CODES: dict[str, ReasonCode] = {
    "CHARGE_NOT_FOUND": ReasonCode.BUSINESS_CHARGE_NOT_FOUND,
    "DUPLICATE_MERCHANT_CHARGE_ID": ReasonCode.BUSINESS_DUPLICATE_CHARGE_ID,
    "INVALID_CHARGE_STATE": ReasonCode.BUSINESS_INVALID_STATE,
    "AMOUNT_ABOVE_LIMIT": ReasonCode.BUSINESS_AMOUNT_ABOVE_LIMIT,
    "INVALID_CARD_TOKEN": ReasonCode.BUSINESS_INVALID_CARD_TOKEN,
    "CARD_TOKEN_MISSING": ReasonCode.BUSINESS_CARD_TOKEN_MISSING,
    "REQUIRED_FIELD_MISSING": ReasonCode.BUSINESS_REQUIRED_FIELD,
    "INVALID_DOCUMENT": ReasonCode.BUSINESS_INVALID_DOCUMENT,
    "INVALID_REQUEST": ReasonCode.BUSINESS_INVALID_REQUEST,
    "UNAUTHORIZED": ReasonCode.BUSINESS_UNAUTHORIZED,
    "UNSUPPORTED_MEDIA_TYPE": ReasonCode.BUSINESS_MEDIA_TYPE,
    "INTERNAL_ERROR": ReasonCode.BUSINESS_INTERNAL,
}
"""Business codes known in plain words. The service publishes no table: these are the codes
of the built-in sandbox; any other code is shown as it came."""


def business_reason(code: str | None) -> Reason | None:
    """The service's `businessCode` in plain words, or the raw code when it is not known."""
    if code is None:
        return None
    known = _BUSINESS_CODES.get(code.strip().upper())
    if known is not None:
        return Reason.of(known)
    return Reason.of(ReasonCode.BUSINESS_CODE_OTHER, business_code=code.strip()[:60])


def trigger_reason(trigger: Trigger) -> Reason:
    """A reconciliation trigger ("start-up", "schedule", …) as a reason."""
    return Reason.of(_TRIGGERS[trigger])


def operation_reason(operation: str) -> Reason:
    """A service call's name ("charge query", …) as a reason."""
    return Reason.of(_OPERATIONS[operation])


__all__ = [
    "ENGLISH",
    "ArgValue",
    "Reason",
    "ReasonCode",
    "Trigger",
    "business_reason",
    "is_amount_arg",
    "is_instant_arg",
    "is_status_arg",
    "operation_reason",
    "trigger_reason",
]
