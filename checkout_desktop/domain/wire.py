"""Typed definitions of every message that crosses the wire: token, charges, webhooks, SDK errors.

Two families of models:
- `Outbound` models are what the terminal sends; they forbid unknown fields and enforce the
  service's documented rules, so a bad request never leaves the machine.
- `Inbound` models are what the service sends; they keep unknown fields (the service's schemas
  are not fully published) and accept both documented shapes where sources disagree.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Annotated, Any, Literal
from uuid import UUID

from pydantic import (
    AliasChoices,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Discriminator,
    Field,
    SecretStr,
    SerializationInfo,
    StringConstraints,
    Tag,
    TypeAdapter,
    ValidationError,
    field_serializer,
    field_validator,
    model_validator,
)

from checkout_desktop.domain import documents
from checkout_desktop.domain.enums import (
    CardBrand,
    ChargeStatus,
    DocumentType,
    InstallmentType,
    PaymentSource,
    PaymentType,
    ThreeDsStatus,
    TokenFieldSpelling,
    TransactionStatus,
)
from checkout_desktop.domain.qr_order import is_qr_type
from checkout_desktop.domain.reasons import Reason, ReasonCode
from checkout_desktop.domain.timestamps import Timestamp

logger = logging.getLogger(__name__)

TEMPORARY_CARD_TOKEN_PATTERN = r"^card_t/[A-Za-z0-9_\-+/=.]{4,200}$"
MERCHANT_CHARGE_ID_PATTERN = r"^[a-zA-Z0-9-]+$"

MerchantChargeId = Annotated[
    str, StringConstraints(min_length=6, max_length=36, pattern=MERCHANT_CHARGE_ID_PATTERN)
]
TemporaryCardToken = Annotated[str, StringConstraints(pattern=TEMPORARY_CARD_TOKEN_PATTERN)]
Centavos = Annotated[int, Field(ge=0, strict=False)]
PositiveCentavos = Annotated[int, Field(ge=1)]


def _reveal(info: SerializationInfo) -> bool:
    return bool(info.context and info.context.get("reveal_secrets"))


class Inbound(BaseModel):
    """A message from the service: tolerant of fields we do not know yet."""

    # Error text never repeats the offending value: it may be a card number typed in error.
    model_config = ConfigDict(extra="allow", populate_by_name=True, hide_input_in_errors=True)

    def to_wire(self) -> dict[str, Any]:
        """The body as the service would write it (aliases, only the fields that were present)."""
        return self.model_dump(
            mode="json", by_alias=True, exclude_unset=True, context={"reveal_secrets": True}
        )


class Outbound(BaseModel):
    """A message the terminal sends: exact, every field checked."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, hide_input_in_errors=True)


# ---------------------------------------------------------------------------------------------
# OAuth 2.0 token (spec 2.2, 2.3, 4.1)


def _check_pattern(value: str, pattern: str, what: str) -> str:
    if not re.fullmatch(pattern, value):
        raise ValueError(f"{what} has characters the service does not accept")
    return value


class TokenRequest(Outbound):
    grant_type: Literal["client_credentials"] = "client_credentials"
    client_id: Annotated[str, StringConstraints(min_length=1, pattern=r"^[\w\-]+$")]
    client_secret: SecretStr

    @field_validator("client_secret")
    @classmethod
    def _secret_shape(cls, value: SecretStr) -> SecretStr:
        if not value.get_secret_value():
            raise ValueError("client_secret is empty")
        _check_pattern(value.get_secret_value(), r"[\w]+", "client_secret")
        return value

    def to_wire(self) -> dict[str, str]:
        return {
            "grant_type": self.grant_type,
            "client_id": self.client_id,
            "client_secret": self.client_secret.get_secret_value(),
        }


def _lenient(model: BaseModel, patterns: Mapping[str, str]) -> None:
    """Log each optional field whose value breaks its documented pattern; keep it as text.

    One odd optional value (a display name with '&') must never make a token unusable.
    """
    for name, pattern in patterns.items():
        value = getattr(model, name)
        if value is not None and not re.fullmatch(pattern, value):
            logger.warning(
                "the token reply's %s (%d chars) does not match the documented pattern %s; "
                "kept as text",
                name,
                len(value),
                pattern,
            )


def _text_or_none(value: Any) -> Any:
    # An optional field of another JSON type (a number for a digit string) is kept as its text.
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool | int | float):
        return json.dumps(value)
    return value


_LenientText = Annotated[str | None, BeforeValidator(_text_or_none)]


class AuthorizationDetail(Inbound):
    type: _LenientText = None
    account_id: _LenientText = None
    fingerprint: _LenientText = None
    display_name: _LenientText = None

    @model_validator(mode="after")
    def _documented_patterns(self) -> AuthorizationDetail:
        _lenient(
            self,
            {
                "type": r"[\w]+",
                "account_id": r"[\w\-]+",
                "fingerprint": r"[\w\-]+",
                "display_name": r"[\w\- ]+",
            },
        )
        return self


def _detail_or_none(value: Any) -> Any:
    return value if isinstance(value, Mapping) else None


class TokenResponse(Inbound):
    """The token reply: the fields a call needs are checked; the optional ones never block."""

    access_token: SecretStr
    expires_in: Annotated[int, Field(gt=0)]
    refresh_expires_in: int | None = None
    token_type: Annotated[str, StringConstraints(pattern=r"^[\w]+$")]
    not_before_policy: int | float | str | None = Field(default=None, alias="not-before-policy")
    scope: Annotated[str, StringConstraints(pattern=r"^[\w\.\- ]*$")]
    acquirer_terminal_id: _LenientText = Field(default=None, alias="acquirer-terminal-id")
    seller_acquirer_id: _LenientText = Field(default=None, alias="seller-acquirer-id")
    core_seller_id: _LenientText = Field(default=None, alias="core-seller-id")
    merchant_document: _LenientText = Field(default=None, alias="merchant-document")
    authorization_details: Annotated[
        list[Annotated[AuthorizationDetail | None, BeforeValidator(_detail_or_none)]] | None,
        BeforeValidator(lambda v: v if isinstance(v, list) else None),
    ] = None

    @model_validator(mode="after")
    def _documented_patterns(self) -> TokenResponse:
        _lenient(
            self,
            {
                "acquirer_terminal_id": r"\d+",
                "seller_acquirer_id": r"\d+",
                "core_seller_id": r"\d+",
                "merchant_document": r"\d+",
            },
        )
        return self

    @field_validator("access_token")
    @classmethod
    def _token_shape(cls, value: SecretStr) -> SecretStr:
        if not re.match(r"^([\w=]+)\.([\w=]+)\.([\w\-\+\/=]*)", value.get_secret_value()):
            raise ValueError("access_token is not a three-part token")
        return value

    @field_serializer("access_token")
    def _dump_token(self, value: SecretStr, info: SerializationInfo) -> str:
        return value.get_secret_value() if _reveal(info) else str(value)

    @property
    def scopes(self) -> list[str]:
        return self.scope.split()


class OAuthErrorBody(Inbound):
    """Error body of the token endpoint (OAuth style; some clients also read `message`)."""

    error: str | None = None
    error_description: str | None = None
    message: str | None = None

    def describe(self) -> str:
        parts = [p for p in (self.error, self.error_description or self.message) if p]
        return ": ".join(parts) if parts else "no error detail in the reply"


# ---------------------------------------------------------------------------------------------
# Charge authorization request (spec 4.2, public facts 3)


def _letters_spaces_digits_ampersand(value: str) -> str:
    bad = sorted({c for c in value if not (c.isalpha() or c.isdigit() or c in " &")})
    if bad:
        raise ValueError(
            "the service accepts only letters, digits, spaces and '&' in a name; "
            f"remove {''.join(bad)!r}"
        )
    return value


class Phone(Outbound):
    countryCode: Annotated[str, StringConstraints(pattern=r"^\d{1,3}$")] = "55"
    areaCode: Annotated[str, StringConstraints(pattern=r"^\d{2}$")]
    number: Annotated[str, StringConstraints(pattern=r"^\d{8,9}$")]
    type: Literal["MOBILE", "LANDLINE", "HOME", "WORK"] = "MOBILE"


class Customer(Outbound):
    name: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=255)]
    # Optional unless the profile says its service needs it (Profile.customer_email_required):
    # a sale without one leaves the field out of the request.
    email: (
        Annotated[
            str, StringConstraints(pattern=r"^[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\.[a-zA-Z]{2,}$")
        ]
        | None
    ) = None
    documentType: DocumentType
    document: str
    phone: Phone | None = None

    @field_validator("name")
    @classmethod
    def _name_characters(cls, value: str) -> str:
        return _letters_spaces_digits_ampersand(value)

    @model_validator(mode="after")
    def _document_matches_type(self) -> Customer:
        kind = self.documentType
        if kind == DocumentType.CPF:
            self.document = documents.validate_cpf(self.document)
        elif kind == DocumentType.CNPJ:
            self.document = documents.validate_cnpj(self.document)
        elif kind == DocumentType.PASSPORT:
            if not re.fullmatch(r"[A-Z0-9]{9}", self.document):
                raise ValueError("a passport number has 9 upper-case letters or digits")
        else:
            raise ValueError(f"document type {kind.value!r} is not one the service accepts")
        return self


class DeviceInformation(Outbound):
    ip: str | None = None
    id: str | None = None
    sessionId: str | None = None


class BillingAddress(Outbound):
    street: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=255)]
    number: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=20)]
    neighborhood: Annotated[
        str, StringConstraints(strip_whitespace=True, min_length=1, max_length=255)
    ]
    city: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=255)]
    state: str
    country: Literal["BR"] = "BR"
    zipCode: str
    complement: Annotated[str, StringConstraints(strip_whitespace=True, max_length=255)] | None = (
        None
    )

    @field_validator("state")
    @classmethod
    def _uf(cls, value: str) -> str:
        return documents.validate_uf(value)

    @field_validator("zipCode")
    @classmethod
    def _cep(cls, value: str) -> str:
        return documents.validate_cep(value)


class CreditRequest(Outbound):
    temporaryCardToken: TemporaryCardToken = Field(
        validation_alias=AliasChoices("temporaryCardToken", "temporatyCardToken")
    )
    installmentNumber: Annotated[int, Field(ge=1, le=12)] = 1
    installmentType: InstallmentType = InstallmentType.NONE
    billingAddress: BillingAddress | None = None

    @model_validator(mode="after")
    def _installments(self) -> CreditRequest:
        single = self.installmentNumber == 1
        if single and self.installmentType != InstallmentType.NONE:
            raise ValueError("a single installment has installmentType NONE")
        if not single and self.installmentType == InstallmentType.NONE:
            raise ValueError(
                f"{self.installmentNumber} installments need installmentType MERCHANT or ISSUER"
            )
        return self


class TransactionRequest(Outbound):
    paymentType: Literal[PaymentType.CREDIT] = PaymentType.CREDIT
    amount: PositiveCentavos
    softDescriptor: (
        Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=13)] | None
    ) = None
    transactionId: Annotated[str, StringConstraints(min_length=1, max_length=64)] | None = None
    entryMode: str | None = None
    issuerTransactionId: str | None = None
    credit: CreditRequest


class ChargeAuthorizationRequest(Outbound):
    paymentSource: PaymentSource = PaymentSource.GATEWAY
    smartCheckoutId: UUID | None = None
    merchantChargeId: MerchantChargeId
    lateCapture: bool = False
    customer: Customer
    deviceInformation: DeviceInformation | None = None
    transactions: Annotated[list[TransactionRequest], Field(min_length=1, max_length=10)]

    @property
    def total_amount(self) -> int:
        return sum(t.amount for t in self.transactions)

    def to_wire(self, token_field: TokenFieldSpelling = "temporaryCardToken") -> dict[str, Any]:
        """The JSON body to send, with the temporary-token field spelled as the profile says."""
        body = self.model_dump(mode="json", exclude_none=True)
        if token_field != "temporaryCardToken":
            for txn in body["transactions"]:
                txn["credit"][token_field] = txn["credit"].pop("temporaryCardToken")
        return body


class PixRequest(Outbound):
    """The `pix` object of a PIX transaction: how long its QR may be paid, in seconds."""

    expiration: Annotated[int, Field(ge=1, le=86_400)]


class QrTransactionRequest(Outbound):
    """The one transaction of a wallet (PicPay app QR) or PIX charge."""

    paymentType: Literal[PaymentType.WALLET, PaymentType.PIX]
    amount: PositiveCentavos
    softDescriptor: (
        Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=13)] | None
    ) = None
    transactionId: Annotated[str, StringConstraints(min_length=1, max_length=64)] | None = None
    pix: PixRequest | None = None

    @model_validator(mode="after")
    def _pix_has_expiration(self) -> QrTransactionRequest:
        if self.paymentType == PaymentType.PIX and self.pix is None:
            raise ValueError("a PIX transaction says how long its QR may be paid (pix.expiration)")
        if self.paymentType == PaymentType.WALLET and self.pix is not None:
            raise ValueError("a wallet transaction has no pix object")
        return self


class QrChargeRequest(Outbound):
    """Body of `POST charge/wallet` and `POST charge/pix`: the card envelope with one QR
    transaction. The wallet call sends no `lateCapture` (public code removes it)."""

    paymentSource: PaymentSource = PaymentSource.GATEWAY
    merchantChargeId: MerchantChargeId
    customer: Customer
    deviceInformation: DeviceInformation | None = None
    transactions: Annotated[list[QrTransactionRequest], Field(min_length=1, max_length=1)]

    @property
    def payment_type(self) -> PaymentType:
        return self.transactions[0].paymentType

    @property
    def path(self) -> str:
        """The API path of the call: `charge/wallet` or `charge/pix`."""
        return "charge/pix" if self.payment_type == PaymentType.PIX else "charge/wallet"

    @property
    def total_amount(self) -> int:
        return sum(t.amount for t in self.transactions)

    @property
    def lateCapture(self) -> bool:
        """A QR charge is never captured later (kept for the attempt record)."""
        return False

    def to_wire(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude_none=True)


class AmountRequest(Outbound):
    """Body of capture and refund: an amount in centavos, at least 1."""

    amount: PositiveCentavos


class CaptureRequest(AmountRequest):
    pass


class RefundRequest(AmountRequest):
    pass


# ---------------------------------------------------------------------------------------------
# Charge replies (public facts 3, 4) and webhook bodies (spec 2.4-2.7)

_FULL_PAN = re.compile(r"^\d{12,19}$")


def mask_card_number(value: str) -> str:
    """Keep only the BIN and last four of anything that looks like a whole card number."""
    if len(value) < 12:
        return value  # too short to hold 12 digits, whatever separators it has
    compact = value.replace(" ", "").replace("-", "")
    if _FULL_PAN.match(compact):
        return compact[:6] + "*" * (len(compact) - 10) + compact[-4:]
    return value


class CreditInfo(Inbound):
    nsu: str | None = None
    cardNumber: str | None = None
    authorizationCode: str | None = None
    authorizationResponseCode: str | None = None
    brand: CardBrand | None = None
    cardholderName: str | None = None
    cardholderDocument: str | None = None
    acquirerName: str | None = None
    installmentType: InstallmentType | None = None
    installmentNumber: int | None = None
    reasonCode: str | None = None
    reasonMessage: str | None = None
    issuerTransactionId: str | None = None

    @field_validator("cardNumber")
    @classmethod
    def _never_a_full_number(cls, value: str | None) -> str | None:
        # The service masks card numbers; if a whole one ever arrives, it is masked on entry so
        # it can never reach the store, a log or the screen.
        return None if value is None else mask_card_number(value)

    @property
    def last_four(self) -> str | None:
        if self.cardNumber:
            digits = documents.digits_only(self.cardNumber)
            if len(digits) >= 4:
                return digits[-4:]
        return None


class PixInfo(Inbound):
    qrCode: str | None = None
    qrCodeBase64: str | None = None
    expiration: int | None = None
    endToEndId: str | None = None


class WalletInfo(Inbound):
    qrCode: str | None = None
    qrCodeBase64: str | None = None
    expiresAt: Timestamp | None = None


class TransactionInfo(Inbound):
    """A transaction in a charge reply (`transactionStatus`) or in a webhook (`status`)."""

    paymentType: PaymentType | None = None
    transactionId: str | None = None
    transactionStatus: TransactionStatus | None = None
    status: TransactionStatus | None = None
    amount: Centavos | None = None
    originalAmount: Centavos | None = None
    refundedAmount: Centavos | None = None
    numberOfInstallments: int | None = None
    softDescriptor: str | None = None
    createdAt: Timestamp | None = None
    updatedAt: Timestamp | None = None
    credit: CreditInfo | None = None
    pix: PixInfo | None = None
    wallet: WalletInfo | None = None
    errorMessage: str | None = None

    @property
    def effective_status(self) -> TransactionStatus | None:
        return self.transactionStatus or self.status


class ChargeReply(Inbound):
    """Reply of authorization, query, capture and refund."""

    merchantChargeId: str
    id: str | None = None
    chargeStatus: ChargeStatus
    amount: Centavos | None = None
    originalAmount: Centavos | None = None
    refundedAmount: Centavos | None = None
    transactions: list[TransactionInfo] = Field(default_factory=list)

    @model_validator(mode="before")
    @classmethod
    def _unwrap(cls, data: Any) -> Any:
        # The 3DS authorization reply may come wrapped as {"charge": {...}}.
        if isinstance(data, Mapping) and "charge" in data and "chargeStatus" not in data:
            inner = data["charge"]
            if isinstance(inner, Mapping):
                return dict(inner)
        return data

    def update(self, *, source: str, received_at: datetime) -> ChargeUpdate:
        return ChargeUpdate(
            merchant_charge_id=self.merchantChargeId,
            charge_id=self.id,
            status=self.chargeStatus,
            amount=self.amount,
            refunded_amount=self.refundedAmount,
            transactions=list(self.transactions),
            occurred_at=_latest_transaction_time(self.transactions),
            received_at=received_at,
            source=source,
        )


class ApiErrorItem(Inbound):
    field: str | None = None
    message: str | None = None
    code: int | str | None = None


MISSING_WORDS = re.compile(r"missing|required|ausente|obrigat", re.IGNORECASE)
"""Words of a refusal that says a field is missing (the service may answer in either language)."""

_NOT_FOUND_WORDS = re.compile(
    r"not\s+found|n[ãa]o\s+(?:foi\s+)?encontrad[ao]|does\s+not\s+exist|inexistente"
    r"|unknown\s+charge|no\s+(?:such\s+)?charge|nenhuma\s+cobran[çc]a",
    re.IGNORECASE,
)
_CHARGE_WORDS = re.compile(r"charge|cobran[çc]a|merchantChargeId", re.IGNORECASE)
_CHARGE_FIELDS = frozenset({"merchantchargeid", "chargeid", "charge", "id"})
_CARD_DATA_FIELDS = frozenset(
    {"cardnumber", "number", "cvv", "securitycode", "expirationmonth", "expirationyear"}
)


class ApiErrorBody(Inbound):
    """Error body of the REST API: the documented `{message, success, businessCode, errors}`,
    and the other shapes public callers read (`error`, `errors[].code`)."""

    message: str | None = None
    success: bool | None = None
    businessCode: int | str | None = None
    errors: list[ApiErrorItem] | None = None
    error: dict[str, Any] | str | None = None

    @property
    def business_code(self) -> str | None:
        code = self.businessCode
        if code is None or isinstance(code, bool) or str(code).strip() == "":
            return None
        return str(code).strip()

    def says_charge_not_found(self) -> bool:
        """Whether the body says the charge itself is not found (find-charge documents no 404,
        so a 400 may carry it): a "not found" about a charge field, or a message naming both.

        A "not found" about something else (the documented example "Authorization token not
        found.") is not a missing charge.
        """
        code = (self.business_code or "").upper()
        if "NOT_FOUND" in code and "CHARGE" in code:
            return True
        for item in self.errors or []:
            field_name = (item.field or "").rsplit(".", 1)[-1].lower()
            text = item.message or ""
            if field_name in _CHARGE_FIELDS and _NOT_FOUND_WORDS.search(text):
                return True
            if not field_name and _NOT_FOUND_WORDS.search(text) and _CHARGE_WORDS.search(text):
                return True
        message = self.message or ""
        return bool(_NOT_FOUND_WORDS.search(message) and _CHARGE_WORDS.search(message))

    def names_customer_email_missing(self) -> bool:
        """Whether a refused request says the customer's e-mail is required (or missing).

        The public material lists `customer.email` without saying whether the service requires
        it; the terminal leaves it out of a sale without one, so it must recognise this refusal.
        """
        for item in self.errors or []:
            field_name = re.sub(r"\[\d+\]", "", (item.field or "").strip()).lower()
            if field_name in {"customer.email", "email"}:
                return bool(
                    MISSING_WORDS.search(item.message or "")
                    or (self.business_code or "").upper() == "REQUIRED_FIELD_MISSING"
                )
        message = self.message or ""
        return bool(
            re.search(r"customer\.email", message, re.IGNORECASE) and MISSING_WORDS.search(message)
        )

    def names_customer_document(self) -> bool:
        """Whether a refused request says the customer's document is not accepted: the
        business code for it, or an error on the document's field. The documented pattern
        (`^\\d{9}$|^\\d{11}$|^[A-Z0-9]{9}$`) admits no 14-digit CNPJ."""
        if (self.business_code or "").upper() == "INVALID_DOCUMENT":
            return True
        for item in self.errors or []:
            field_name = re.sub(r"\[\d+\]", "", (item.field or "").strip()).lower()
            if field_name in {"customer.document", "customer.documenttype", "document"}:
                return True
        return False

    def names_card_data_required(self) -> bool:
        """Whether a refused request asks for the card's own data (its number, security code
        or expiry), which the terminal never holds: only the SDK's one-time token."""
        for item in self.errors or []:
            path = re.sub(r"\[\d+\]", "", (item.field or "").strip()).lower().split(".")
            # A field of the card itself: not a customer's or an address's "number".
            if path[-1] in _CARD_DATA_FIELDS and "card" in path[:-1]:
                return True
        return False

    def names_card_token_missing(self) -> bool:
        """Whether a refused charge request says its card token (or card data) is missing."""
        texts = [self.message or ""]
        for item in self.errors or []:
            texts.append(item.field or "")
            texts.append(item.message or "")
        joined = " ".join(texts)
        return bool(
            re.search(r"temporar[yt]CardToken|card\s*token|card\s+data", joined, re.IGNORECASE)
            or re.search(r"dados\s+do\s+cart[ãa]o|token\s+do\s+cart[ãa]o", joined, re.IGNORECASE)
        )

    def describe(self) -> str:
        parts: list[str] = []
        if self.message:
            parts.append(self.message)
        if isinstance(self.error, str):
            parts.append(self.error)
        elif isinstance(self.error, dict) and self.error.get("message"):
            parts.append(str(self.error["message"]))
        for item in self.errors or []:
            text = item.message or "invalid"
            parts.append(f"{item.field}: {text}" if item.field else text)
        return "; ".join(parts) if parts else "no error detail in the reply"


class WebhookCustomer(Inbound):
    """Customer in a notification: card-holder data arrive partially masked."""

    document: str | None = None
    documentType: DocumentType | None = None
    email: str | None = None
    name: str | None = None


class PaymentData(Inbound):
    status: ChargeStatus
    merchantChargeId: str
    amount: Centavos | None = None
    originalAmount: Centavos | None = None
    refundedAmount: Centavos | None = None
    customer: WebhookCustomer | None = None
    smartCheckoutId: str | None = None
    paymentSource: PaymentSource | None = None
    lateCapture: bool | None = None
    transactions: list[TransactionInfo] = Field(default_factory=list)


class PaymentFlat(PaymentData):
    """Charge notification, layout A: charge fields at the top level."""

    type: Literal["PAYMENT"]
    id: str
    merchantCode: str | None = None
    merchantDocument: str | None = None
    eventDate: Timestamp | None = None

    @property
    def payment(self) -> PaymentData:
        return self

    @property
    def charge_id(self) -> str | None:
        return self.id


class PaymentEnvelope(Inbound):
    """Charge notification, layout B: an envelope with the charge under `data`."""

    type: Literal["PAYMENT"]
    id: str | None = None
    eventDate: Timestamp | None = None
    merchantDocument: str | None = None
    merchantCode: str | None = None
    data: PaymentData

    @property
    def payment(self) -> PaymentData:
        return self.data

    @property
    def charge_id(self) -> str | None:
        # The envelope's top-level `id` names the notification: the docs' examples show the same
        # `id` on a PAYMENT and a THREE_DS body about different charges. Only `data` names the
        # charge.
        extra = self.data.model_extra or {}
        value = extra.get("chargeId") or extra.get("id")
        return str(value) if value else None

    @property
    def notification_id(self) -> str | None:
        return self.id


class ThreeDsData(Inbound):
    status: ThreeDsStatus
    paresStatus: str | None = None
    eciRaw: str | None = None
    merchantChargeId: str | None = None
    chargeId: str | None = None

    @model_validator(mode="after")
    def _names_a_charge(self) -> ThreeDsData:
        if not (self.merchantChargeId or self.chargeId):
            raise ValueError("a 3DS notification names neither merchantChargeId nor chargeId")
        return self


class ThreeDsChallenge(Inbound):
    type: Literal["THREE_DS_CHALLENGE"]
    id: str | None = None
    eventDate: Timestamp | None = None
    merchantDocument: str | None = None
    merchantCode: str | None = None
    data: ThreeDsData


class UnknownWebhook(Inbound):
    """A notification of a type we do not know: kept whole, shown, never rejected."""

    type: str | None = None


def _webhook_tag(value: Any) -> str:
    get = value.get if isinstance(value, Mapping) else lambda k, d=None: getattr(value, k, d)
    kind = get("type")
    if kind == "PAYMENT":
        return "envelope" if isinstance(get("data"), Mapping | PaymentData) else "flat"
    if kind == "THREE_DS_CHALLENGE":
        return "three_ds"
    return "unknown"


WebhookBody = Annotated[
    Annotated[PaymentFlat, Tag("flat")]
    | Annotated[PaymentEnvelope, Tag("envelope")]
    | Annotated[ThreeDsChallenge, Tag("three_ds")]
    | Annotated[UnknownWebhook, Tag("unknown")],
    Discriminator(_webhook_tag),
]
_WEBHOOK = TypeAdapter[Any](WebhookBody)


class WireFormatError(ValueError):
    """A body that is not the JSON object the service's format requires."""

    def __init__(self, reason: Reason) -> None:
        super().__init__(reason.english())
        self.reason = reason


def load_json_object(payload: bytes | str | Mapping[str, Any]) -> dict[str, Any]:
    if isinstance(payload, Mapping):
        return dict(payload)
    try:
        value = json.loads(payload)
    except json.JSONDecodeError as exc:
        # Where it broke, as data (a screen says it in its language); the English is the
        # parser's own message, unchanged.
        syntax = Reason.of(
            ReasonCode.JSON_SYNTAX, message=exc.msg, line=exc.lineno, column=exc.colno, char=exc.pos
        )
        raise WireFormatError(Reason.of(ReasonCode.INBOX_NOT_JSON, error=syntax)) from None
    except UnicodeDecodeError as exc:
        not_text = Reason.of(ReasonCode.JSON_NOT_TEXT, error=str(exc))
        raise WireFormatError(Reason.of(ReasonCode.INBOX_NOT_JSON, error=not_text)) from None
    if not isinstance(value, dict):
        raise WireFormatError(Reason.of(ReasonCode.INBOX_NOT_OBJECT, type=type(value).__name__))
    return value


def validation_reasons(
    exc: ValidationError,
    *,
    skip: frozenset[str] = frozenset(),
    clip: Callable[[str], str] = str,
) -> tuple[Reason, ...]:
    """Which fields are missing or wrong, as reasons (at most five, then how many more); never
    a value (values may be card data). `skip`: leading location items that are not fields (a
    union's tags); `clip`: what a field name or message may be stored as."""
    reasons = []
    for error in exc.errors(include_input=False, include_url=False)[:5]:
        loc = [str(p) for p in error["loc"]]
        if loc and loc[0] in skip:
            loc = loc[1:]
        code = ReasonCode.FIELD_MISSING if error["type"] == "missing" else ReasonCode.FIELD_INVALID
        where = clip(".".join(loc) or "body")
        reasons.append(Reason.of(code, field=where, message=clip(error["msg"])))
    more = exc.error_count() - len(reasons)
    if more > 0:
        reasons.append(Reason.of(ReasonCode.FIELD_MORE, count=more))
    return tuple(reasons)


def parse_webhook(
    payload: bytes | str | Mapping[str, Any],
) -> PaymentFlat | PaymentEnvelope | ThreeDsChallenge | UnknownWebhook:
    """Parse a notification body; raises WireFormatError or pydantic.ValidationError."""
    parsed: PaymentFlat | PaymentEnvelope | ThreeDsChallenge | UnknownWebhook
    parsed = _WEBHOOK.validate_python(load_json_object(payload))
    return parsed


def validate_webhook_json(
    body: bytes,
) -> PaymentFlat | PaymentEnvelope | ThreeDsChallenge | UnknownWebhook:
    """Parse a notification body from its bytes in one pass (JSON and models together).

    The fast path for the inbox: it raises pydantic.ValidationError for anything it refuses,
    including bytes that are not UTF-8 JSON, without saying so in the service's terms; a
    caller that needs the readable reason then asks `parse_webhook`, which reads what
    `json.loads` reads (UTF-16, lone surrogates) the same way it always did.
    """
    parsed: PaymentFlat | PaymentEnvelope | ThreeDsChallenge | UnknownWebhook
    parsed = _WEBHOOK.validate_json(body)
    return parsed


# ---------------------------------------------------------------------------------------------
# Normalised updates fed to the charge state machine


def _latest_transaction_time(transactions: list[TransactionInfo]) -> datetime | None:
    times = [t.updatedAt.at for t in transactions if t.updatedAt is not None]
    times += [t.createdAt.at for t in transactions if t.createdAt is not None]
    return max(times) if times else None


@dataclass(frozen=True)
class ChargeUpdate:
    """One input about a charge's state, from an API reply or a notification."""

    merchant_charge_id: str
    charge_id: str | None
    status: ChargeStatus
    amount: int | None
    refunded_amount: int | None
    transactions: list[TransactionInfo] = field(default_factory=list)
    occurred_at: datetime | None = None
    received_at: datetime | None = None
    source: str = "api"

    @property
    def names_a_qr(self) -> bool:
        """Whether it tells of a QR transaction (a PicPay wallet's or a PIX one)."""
        return any(is_qr_type(info.paymentType) for info in self.transactions)


@dataclass(frozen=True)
class ThreeDsUpdate:
    merchant_charge_id: str | None
    charge_id: str | None
    status: ThreeDsStatus
    pares_status: str | None
    eci: str | None
    occurred_at: datetime | None
    received_at: datetime | None


def payment_update(
    body: PaymentFlat | PaymentEnvelope, *, received_at: datetime, source: str = "webhook"
) -> ChargeUpdate:
    data = body.payment
    occurred = body.eventDate.at if body.eventDate else _latest_transaction_time(data.transactions)
    return ChargeUpdate(
        merchant_charge_id=data.merchantChargeId,
        charge_id=body.charge_id,
        status=data.status,
        amount=data.amount,
        refunded_amount=data.refundedAmount,
        transactions=list(data.transactions),
        occurred_at=occurred,
        received_at=received_at,
        source=source,
    )


def three_ds_update(body: ThreeDsChallenge, *, received_at: datetime) -> ThreeDsUpdate:
    return ThreeDsUpdate(
        merchant_charge_id=body.data.merchantChargeId,
        charge_id=body.data.chargeId,
        status=body.data.status,
        pares_status=body.data.paresStatus,
        eci=body.data.eciRaw,
        occurred_at=body.eventDate.at if body.eventDate else None,
        received_at=received_at,
    )


# ---------------------------------------------------------------------------------------------
# Browser SDK error callback body (spec 7, public facts 6)


class SdkErrorItem(Inbound):
    errorCode: int | None = None
    message: str
    field: str | None = None


class SdkNetworkError(Inbound):
    message: str


class SdkErrorBody(Inbound):
    """`{errors: [{errorCode, message, field}]}`, or `{errors: {message}}` on a network failure."""

    errors: list[SdkErrorItem] | SdkNetworkError

    @property
    def items(self) -> list[SdkErrorItem]:
        if isinstance(self.errors, SdkNetworkError):
            return [SdkErrorItem(message=self.errors.message)]
        return list(self.errors)

    @property
    def is_network_failure(self) -> bool:
        return isinstance(self.errors, SdkNetworkError)


__all__ = [
    "MISSING_WORDS",
    "ApiErrorBody",
    "BillingAddress",
    "CaptureRequest",
    "ChargeAuthorizationRequest",
    "ChargeReply",
    "ChargeUpdate",
    "CreditInfo",
    "CreditRequest",
    "Customer",
    "DeviceInformation",
    "OAuthErrorBody",
    "PaymentData",
    "PaymentEnvelope",
    "PaymentFlat",
    "Phone",
    "RefundRequest",
    "SdkErrorBody",
    "ThreeDsChallenge",
    "ThreeDsUpdate",
    "TokenRequest",
    "TokenResponse",
    "TransactionInfo",
    "TransactionRequest",
    "UnknownWebhook",
    "ValidationError",
    "WireFormatError",
    "mask_card_number",
    "parse_webhook",
    "payment_update",
    "three_ds_update",
    "validate_webhook_json",
    "validation_reasons",
]
