"""Turning one authenticated delivery into what the inbox stores: verdict, index fields, update.

Pure functions, no I/O: the listener calls them between reading the body and handing the
result to the writer. Nothing here raises on bad input; a body that cannot be accepted becomes
a quarantined record with a reason, so nothing the service sent is ever lost.
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from pydantic import ValidationError

from checkout_desktop.domain.carddata import mask_card_numbers, mask_text
from checkout_desktop.domain.deliveries import NewEvent
from checkout_desktop.domain.enums import Verdict, WebhookBodyType, WebhookEventType
from checkout_desktop.domain.event_status import event_shown_status
from checkout_desktop.domain.reasons import Reason, ReasonCode
from checkout_desktop.domain.wire import (
    ChargeUpdate,
    PaymentEnvelope,
    PaymentFlat,
    ThreeDsChallenge,
    ThreeDsUpdate,
    UnknownWebhook,
    WireFormatError,
    load_json_object,
    parse_webhook,
    payment_update,
    three_ds_update,
    validate_webhook_json,
    validation_reasons,
)
from checkout_desktop.logsetup import secret_finder

logger = logging.getLogger(__name__)

SELF_TEST_EVENT_TYPE = "CheckoutDesktopSelfTest"
SELF_TEST_BODY_TYPE = "CHECKOUT_DESKTOP_SELF_TEST"
EVENT_TYPE_HEADERS = ("event-type", "event_type")

# Header values that are credentials: only a marker saying one was present is ever stored.
_CREDENTIAL_HEADERS = frozenset({"authorization", "proxy-authorization", "cookie"})
_EXPECTED_BODY = {
    WebhookEventType.TRANSACTION_UPDATE: WebhookBodyType.PAYMENT,
    WebhookEventType.CHALLENGE_3DS_UPDATE: WebhookBodyType.THREE_DS_CHALLENGE,
}
SECRET_MARKER = "[not stored: a known secret]"

# Parse limits, checked on the bytes before any parser sees them: the service's bodies nest a
# few levels and carry amounts of a few digits, while a body nested thousands deep or an integer
# of thousands of digits makes the parsers raise (RecursionError, Python's 4,300-digit
# conversion limit) instead of answering. Such a body is quarantined whole.
MAX_DEPTH = 64
MAX_NUMBER_CHARS = 64
_OPENERS = (b"[", b"{")
_STRUCTURE = re.compile(rb'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.DOTALL)
# Every byte but an ASCII digit becomes a space: the longest word left is the longest run of
# digits, found by C loops in a third of the time a regular expression takes to look for it.
_DIGITS_ONLY = bytes(c if 0x30 <= c <= 0x39 else 0x20 for c in range(256))
_NUMBERS = re.compile(rb'"(?:[^"\\]|\\.)*"|-?[0-9][0-9.eE+-]*', re.DOTALL)


# The inbox's own quarantine reasons beyond the parsers' and the models' (the parse limits,
# text that is not Unicode, a row the store refused) are these four codes of domain.reasons.
def _too_deep_reason() -> Reason:
    return Reason.of(ReasonCode.INBOX_TOO_DEEP, limit=MAX_DEPTH)


def _too_long_number_reason(digits: int) -> Reason:
    return Reason.of(ReasonCode.INBOX_NUMBER_TOO_LONG, digits=digits, limit=MAX_NUMBER_CHARS)


def _not_unicode_reason(where: str) -> Reason:
    return Reason.of(ReasonCode.INBOX_NOT_UNICODE, field=where)


def _unstorable_reason(error: str) -> Reason:
    return Reason.of(ReasonCode.INBOX_UNSTORABLE, error=error)


def longest_digit_run(body: bytes) -> int:
    """The length of the longest run of ASCII digits in `body` (0 when it has none)."""
    return max(map(len, body.translate(_DIGITS_ONLY).split()), default=0)


def limits_problem(body: bytes) -> Reason | None:
    """Why `body` breaks a parse limit (depth, number length), or None; never parses it."""
    if body.count(_OPENERS[0]) + body.count(_OPENERS[1]) > MAX_DEPTH:
        depth = 0
        for match in _STRUCTURE.finditer(body):
            token = match.group()
            if token in _OPENERS:
                depth += 1
                if depth > MAX_DEPTH:
                    return _too_deep_reason()
            elif token in (b"]", b"}"):
                depth -= 1
    if longest_digit_run(body) > MAX_NUMBER_CHARS:
        # Only numbers count: a long run of digits inside a string is text, not a number.
        for match in _NUMBERS.finditer(body):
            token = match.group()
            if not token.startswith(b'"') and len(token) > MAX_NUMBER_CHARS:
                return _too_long_number_reason(len(token))
    return None


def storable_text(text: str) -> str:
    """`text` as valid Unicode: a lone surrogate (from a header's undecodable bytes or a JSON
    `\\u` escape) is written as its escape, so the store and the logs can always take it."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


def _not_unicode_field(event: NewEvent) -> str | None:
    """The first text field of `event` that SQLite cannot store (a lone surrogate), if any."""
    fields = {
        "id": event.event_ref,
        "merchantChargeId": event.merchant_charge_id,
        "chargeId": event.charge_id,
        "status": event.status,
        "type": event.body_type,
        "reason": None if event.reason is None else event.reason.english(),
        "event-type header": event.event_type,
    }
    for name, value in fields.items():
        if value is None:
            continue
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return name
    return None


@dataclass(frozen=True)
class Intake:
    """A delivery ready for the writer: the row to store and what to feed the state machine."""

    event: NewEvent
    update: ChargeUpdate | ThreeDsUpdate | None = None
    self_test_nonce: str | None = None


def credential_marker(name: str, value: str) -> str:
    """What is stored instead of a credential header's value: that one came, and its shape.

    The shape is worth keeping for support, since sources disagree on whether the service sends
    a bare token or a Bearer one; no part of the value itself is kept.
    """
    if name.lower() != "authorization":
        return "[not stored]"
    words = value.split()
    if not words:
        shape = "empty"
    elif len(words) == 1:
        shape = "bare token"
    elif words[0].lower() in {"bearer", "basic", "token"}:
        shape = f"{words[0].capitalize()} scheme"
    else:
        shape = "unrecognised scheme"
    return f"[not stored: {shape}]"


def safe_headers(headers: Iterable[tuple[str, str]]) -> dict[str, str]:
    """The delivery's headers as stored: repeated names joined, credential values replaced."""
    stored: dict[str, str] = {}
    holds_secret = secret_finder()
    for name, value in headers:
        name = storable_text(name)
        if name.lower() in _CREDENTIAL_HEADERS:
            shown = credential_marker(name, value)
        elif holds_secret(value):
            # A known secret (the webhook token under another header name, an API token)
            # is never stored, whatever header carried it.
            shown = SECRET_MARKER
        else:
            shown = mask_text(storable_text(value))
        stored[name] = f"{stored[name]}, {shown}" if name in stored else shown
    return stored


def event_type_of(headers: Mapping[str, str]) -> str | None:
    """The `event-type` header, or `event_type` (sources spell it both ways)."""
    for name in EVENT_TYPE_HEADERS:
        value = headers.get(name)
        if value:
            return value.strip()
    return None


def body_digest(body: bytes) -> str:
    return hashlib.sha256(body).hexdigest()


# The first location item of a body's error is the union's tag; it is not a field.
_UNION_TAGS = frozenset({"flat", "envelope", "three_ds", "unknown"})
# A field's name and its problem each (five at most, then how many more).
_MAX_FIELD_TEXT = 120


def _clip_field(text: str) -> str:
    text = storable_text(text)
    return text if len(text) <= _MAX_FIELD_TEXT else text[: _MAX_FIELD_TEXT - 1] + "…"


def _string(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _unknown_fields(raw: Mapping[str, Any]) -> tuple[str | None, str | None, str | None]:
    """Best-effort charge ids and status of a body we cannot type, so it can still be found."""
    data = raw.get("data")
    inner: Mapping[str, Any] = data if isinstance(data, Mapping) else {}
    merchant = _string(inner.get("merchantChargeId")) or _string(raw.get("merchantChargeId"))
    charge = _string(inner.get("chargeId")) or _string(raw.get("chargeId"))
    status = _string(inner.get("status")) or _string(raw.get("status"))
    return merchant, charge, status


@dataclass(frozen=True)
class Received:
    """What the listener read: the raw body and the request's metadata."""

    body: bytes
    headers: dict[str, str]
    received_at: datetime
    event_type: str | None
    content_type: str | None
    remote: str | None


def at_the_door(event: NewEvent) -> NewEvent:
    """`event` as it may be stored: card numbers masked in the body and in the fields the list
    and the search index show. The hash stays the raw body's, so a re-delivery of the same
    bytes is still recognised as a duplicate."""
    body, count = mask_card_numbers(event.body)
    if not count:
        return event
    return replace(
        event,
        body=body,
        event_ref=_masked_or_none(event.event_ref),
        merchant_charge_id=_masked_or_none(event.merchant_charge_id),
        charge_id=_masked_or_none(event.charge_id),
        status=_masked_or_none(event.status),
        body_type=_masked_or_none(event.body_type),
    )


def _masked_or_none(text: str | None) -> str | None:
    return None if text is None else mask_text(text)


def quarantine(received: Received, reason: Reason) -> Intake:
    """A delivery kept as it came (card numbers masked), with the reason it was not accepted."""
    return Intake(
        event=at_the_door(
            NewEvent(
                received_at=received.received_at,
                verdict=Verdict.QUARANTINED,
                reason=reason,
                body=received.body,
                body_sha256=body_digest(received.body),
                headers=received.headers,
                event_type=_storable_or_none(received.event_type),
                content_type=_storable_or_none(received.content_type),
                remote=received.remote,
            )
        )
    )


def _storable_or_none(text: str | None) -> str | None:
    return None if text is None else storable_text(text)


def classify(received: Received) -> Intake:
    """Decide what one authenticated JSON delivery is; never raises.

    The parse limits are checked on the bytes first; whatever the parsers or the models still
    cannot take, and any text field that is not valid Unicode, makes a quarantined record.
    """
    problem = limits_problem(received.body)
    if problem is not None:
        return quarantine(received, problem)
    try:
        intake = _classify(received)
    except (RecursionError, ValueError, TypeError) as exc:
        return quarantine(
            received, Reason.of(ReasonCode.INBOX_UNREADABLE, error=type(exc).__name__)
        )
    where = _not_unicode_field(intake.event)
    if where is not None:
        return quarantine(received, _not_unicode_reason(where))
    masked = at_the_door(intake.event)
    return intake if masked is intake.event else replace(intake, event=masked)


def unstorable(intake: Intake, error: BaseException) -> Intake:
    """The quarantined record of a delivery the store refused as read (kept as raw bytes)."""
    event = intake.event
    return Intake(
        event=NewEvent(
            received_at=event.received_at,
            verdict=Verdict.QUARANTINED,
            reason=_unstorable_reason(type(error).__name__),
            body=event.body,
            body_sha256=event.body_sha256,
            headers={storable_text(k): storable_text(v) for k, v in event.headers.items()},
            event_type=_storable_or_none(event.event_type),
            content_type=_storable_or_none(event.content_type),
            remote=event.remote,
        )
    )


def _classify(received: Received) -> Intake:
    try:
        # Bytes to models in one pass; whatever it refuses takes the slower path, which reads
        # the body as before and names the reason (or accepts what json.loads alone can read).
        parsed = validate_webhook_json(received.body)
    except (TypeError, ValueError):
        return _classify_slowly(received)
    if isinstance(parsed, UnknownWebhook):
        # The model keeps every field it does not declare, so nothing is lost by not having
        # the raw dict; `type` is the only declared one.
        raw: Mapping[str, Any] = parsed.model_extra or {}
        if parsed.type == SELF_TEST_BODY_TYPE:
            return _self_test(received, raw)
        return _accepted(received, parsed, raw)
    return _accepted(received, parsed, None)


def _classify_slowly(received: Received) -> Intake:
    try:
        raw = load_json_object(received.body)
    except WireFormatError as exc:
        return quarantine(received, exc.reason)
    if raw.get("type") == SELF_TEST_BODY_TYPE:
        return _self_test(received, raw)
    kind = raw.get("type")
    named = isinstance(kind, str)
    try:
        parsed = parse_webhook(raw)
    except ValidationError as exc:
        details = validation_reasons(exc, skip=_UNION_TAGS, clip=_clip_field)
        return quarantine(
            received,
            Reason.of(ReasonCode.INBOX_TYPE_NOT_FORMAT, type=kind, details=details)
            if named
            else Reason.of(ReasonCode.INBOX_NOT_FORMAT, details=details),
        )
    except (TypeError, ValueError) as exc:
        # The models should turn every bad shape into a ValidationError; anything else is
        # still a body we cannot read, and it must be kept rather than lost.
        error = type(exc).__name__
        return quarantine(
            received,
            Reason.of(ReasonCode.INBOX_TYPE_UNREADABLE, type=kind, error=error)
            if named
            else Reason.of(ReasonCode.INBOX_UNREADABLE, error=error),
        )
    return _accepted(received, parsed, raw)


def _accepted(
    received: Received,
    parsed: PaymentFlat | PaymentEnvelope | ThreeDsChallenge | UnknownWebhook,
    raw: Mapping[str, Any] | None,
) -> Intake:
    """The record of a body that matched the format (a known type, or an unknown one)."""
    update: ChargeUpdate | ThreeDsUpdate | None = None
    digest = body_digest(received.body)
    if isinstance(parsed, PaymentFlat | PaymentEnvelope):
        data = parsed.payment
        layout = "flat" if isinstance(parsed, PaymentFlat) else "envelope"
        update = payment_update(parsed, received_at=received.received_at)
        event = NewEvent(
            received_at=received.received_at,
            verdict=Verdict.ACCEPTED,
            body=received.body,
            body_sha256=digest,
            headers=received.headers,
            reason=_header_mismatch(received.event_type, WebhookBodyType.PAYMENT),
            event_type=received.event_type,
            body_type=WebhookBodyType.PAYMENT.value,
            layout=layout,
            event_ref=parsed.id,
            merchant_charge_id=data.merchantChargeId,
            charge_id=update.charge_id,
            status=data.status.value,
            shown_status=event_shown_status(update),
            content_type=received.content_type,
            remote=received.remote,
        )
    elif isinstance(parsed, ThreeDsChallenge):
        update = three_ds_update(parsed, received_at=received.received_at)
        event = NewEvent(
            received_at=received.received_at,
            verdict=Verdict.ACCEPTED,
            body=received.body,
            body_sha256=digest,
            headers=received.headers,
            reason=_header_mismatch(received.event_type, WebhookBodyType.THREE_DS_CHALLENGE),
            event_type=received.event_type,
            body_type=WebhookBodyType.THREE_DS_CHALLENGE.value,
            layout="three_ds",
            event_ref=parsed.id,
            merchant_charge_id=parsed.data.merchantChargeId,
            charge_id=parsed.data.chargeId,
            status=parsed.data.status.value,
            content_type=received.content_type,
            remote=received.remote,
        )
    else:
        assert raw is not None
        merchant, charge, status = _unknown_fields(raw)
        event = NewEvent(
            received_at=received.received_at,
            verdict=Verdict.UNKNOWN,
            body=received.body,
            body_sha256=digest,
            headers=received.headers,
            reason=Reason.of(ReasonCode.INBOX_UNKNOWN_TYPE, type=parsed.type)
            if parsed.type
            else Reason.of(ReasonCode.INBOX_UNKNOWN_NO_TYPE),
            event_type=received.event_type,
            body_type=parsed.type,
            layout="unknown",
            event_ref=_string(raw.get("id")),
            merchant_charge_id=merchant,
            charge_id=charge,
            status=status,
            content_type=received.content_type,
            remote=received.remote,
        )
    return Intake(event=event, update=update)


def _header_mismatch(event_type: str | None, body_type: WebhookBodyType) -> Reason | None:
    if event_type is None:
        return None
    expected = _EXPECTED_BODY.get(WebhookEventType(event_type))
    if expected is not None and expected != body_type:
        return Reason.of(ReasonCode.INBOX_HEADER_MISMATCH, header=event_type, body=body_type.value)
    return None


def _self_test(received: Received, raw: Mapping[str, Any]) -> Intake:
    nonce = _string(raw.get("nonce"))
    if nonce is None:
        return quarantine(received, Reason.of(ReasonCode.INBOX_SELF_TEST_NO_NONCE))
    return Intake(
        event=NewEvent(
            received_at=received.received_at,
            verdict=Verdict.SELF_TEST,
            body=received.body,
            body_sha256=body_digest(received.body),
            headers=received.headers,
            event_type=received.event_type,
            body_type=SELF_TEST_BODY_TYPE,
            layout="self_test",
            event_ref=nonce,
            content_type=received.content_type,
            remote=received.remote,
        ),
        self_test_nonce=nonce,
    )


__all__ = [
    "EVENT_TYPE_HEADERS",
    "MAX_DEPTH",
    "MAX_NUMBER_CHARS",
    "SECRET_MARKER",
    "SELF_TEST_BODY_TYPE",
    "SELF_TEST_EVENT_TYPE",
    "Intake",
    "Received",
    "at_the_door",
    "body_digest",
    "classify",
    "credential_marker",
    "event_type_of",
    "limits_problem",
    "quarantine",
    "safe_headers",
    "storable_text",
    "unstorable",
]
