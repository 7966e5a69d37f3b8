"""Status and kind enums that keep values the service has not published instead of failing."""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal, Self


class OpenStrEnum(StrEnum):
    """A string enum that accepts unknown values as pseudo-members.

    The service's status lists are not fully published; a value we have never seen must be stored
    and shown, not rejected. Known members match case-insensitively ("Visa" is VISA).
    """

    @classmethod
    def _missing_(cls, value: object) -> Any:
        if not isinstance(value, str) or not value.strip():
            return None
        folded = value.strip().upper()
        for member in cls:
            if member.value.upper() == folded:
                return member
        pseudo = str.__new__(cls, value)
        pseudo._name_ = value
        pseudo._value_ = value
        return pseudo

    @property
    def is_known(self) -> bool:
        return self._name_ in type(self).__members__

    @classmethod
    def parse(cls, value: str) -> Self:
        return cls(value)


class ChargeStatus(OpenStrEnum):
    PENDING = "PENDING"
    PRE_AUTHORIZED = "PRE_AUTHORIZED"
    AUTHORIZED = "AUTHORIZED"
    PAID = "PAID"
    PARTIAL = "PARTIAL"
    DENIED = "DENIED"
    ERROR = "ERROR"
    CANCELED = "CANCELED"
    REFUNDED = "REFUNDED"
    CHARGEBACK = "CHARGEBACK"


class TransactionStatus(OpenStrEnum):
    PENDING = "PENDING"
    PRE_AUTHORIZED = "PRE_AUTHORIZED"
    AUTHORIZED = "AUTHORIZED"
    PAID = "PAID"
    CAPTURED = "CAPTURED"
    DENIED = "DENIED"
    ERROR = "ERROR"
    EXPIRED = "EXPIRED"
    CANCELED = "CANCELED"
    PARTIALLY_REFUNDED = "PARTIALLY_REFUNDED"
    REFUNDED = "REFUNDED"
    CHARGEBACK = "CHARGEBACK"


class PaymentType(OpenStrEnum):
    CREDIT = "CREDIT"
    WALLET = "WALLET"
    PIX = "PIX"


class CardBrand(OpenStrEnum):
    VISA = "VISA"
    MASTERCARD = "MASTERCARD"
    AMEX = "AMEX"
    ELO = "ELO"
    HIPERCARD = "HIPERCARD"
    ALELO = "ALELO"


class DocumentType(OpenStrEnum):
    CPF = "CPF"
    CNPJ = "CNPJ"
    PASSPORT = "PASSPORT"


class InstallmentType(OpenStrEnum):
    NONE = "NONE"
    MERCHANT = "MERCHANT"
    ISSUER = "ISSUER"


class PaymentSource(OpenStrEnum):
    GATEWAY = "GATEWAY"
    CHECKOUT = "CHECKOUT"


class ThreeDsStatus(OpenStrEnum):
    APPROVED = "Approved"
    CHALLENGED = "Challenged"
    REJECTED = "Rejected"


class WebhookEventType(OpenStrEnum):
    """Values of the `event-type` (or `event_type`) delivery header."""

    TRANSACTION_UPDATE = "TransactionUpdateMessage"
    CHALLENGE_3DS_UPDATE = "Challenge3dsUpdateMessage"


class WebhookBodyType(OpenStrEnum):
    PAYMENT = "PAYMENT"
    THREE_DS_CHALLENGE = "THREE_DS_CHALLENGE"


FINAL_CHARGE_STATUSES = frozenset(
    {
        ChargeStatus.PAID,
        ChargeStatus.DENIED,
        ChargeStatus.ERROR,
        ChargeStatus.CANCELED,
        ChargeStatus.REFUNDED,
        ChargeStatus.CHARGEBACK,
    }
)
"""Statuses after which nothing is expected without a merchant action (refund, capture)."""


TokenFieldSpelling = Literal["temporaryCardToken", "temporatyCardToken"]
"""The spec's request shape spells the field `temporatyCardToken`; prose and code elsewhere use
`temporaryCardToken`. Both are parsed; which one is sent is a profile setting. It lives here, in
a module without pydantic, so that settings can name it without building every wire model."""


class Verdict(StrEnum):
    """What the inbox decided about one authenticated delivery."""

    ACCEPTED = "accepted"
    """A known notification, fed to the charge state machine."""
    DUPLICATE = "duplicate"
    """The exact body of an earlier delivery; stored, acknowledged, not applied again."""
    UNKNOWN = "unknown"
    """A JSON object of a type nobody has published yet: stored and shown, never rejected."""
    SELF_TEST = "self_test"
    """The health monitor's own round trip through the public URL; not a charge event."""
    QUARANTINED = "quarantined"
    """A body the inbox could not accept (bad JSON, bad shape, wrong type, too big, too slow)."""
