"""The card page's one QWebChannel object: typed slots, validated payloads, card data refused."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from PySide6.QtCore import QEvent, QObject, Signal, Slot

from checkout_desktop.domain.carddata import find_card_data as screen_card_data
from checkout_desktop.domain.enums import CardBrand

logger = logging.getLogger(__name__)

PROTOCOL_VERSION = 1
MAX_MESSAGE_CHARS = 16_384

# The token is random text whose digits mean nothing together; the last four digits are the one
# short code a message may carry.
_OPAQUE_KEYS = frozenset({"token"})
_SHORT_CODE_KEYS = frozenset({"lastFour"})
# The brands the service names (CardBrand's members): a closed set, so a brand field cannot
# carry anything else into the logs or the receipt.
KNOWN_BRANDS = frozenset(b.value for b in CardBrand)
# The SDK credentials are handed to a page load once (the SDK keeps them); requests that were
# refused (keychain locked, token missing) may be repeated after a fix, up to this many.
MAX_CREDENTIAL_REQUESTS = 5


# The browser message's measures are bounded numbers (a screen of 1366 by 768 at 24 bits and
# 180 minutes from UTC reads, digits joined, like a Luhn-valid number): each is screened alone,
# and the terminal checks them against its own measurements before using them.
_MEASURE_KEYS = frozenset({"colorDepth", "screenHeight", "screenWidth", "timeDifference"})


def find_card_data(raw: str, *, measures: bool = False) -> str | None:
    """What card data a bridge message carries, described without the data itself, or None.

    The text is normalised before it is looked at (JSON unescaped, NFKC, every separator):
    see domain.carddata. A key named like a CVV, card number or expiry is refused whatever its
    value; so is a value that reads as an expiry or a security code.
    """
    if measures:
        return screen_card_data(
            raw,
            opaque_keys=_OPAQUE_KEYS | _MEASURE_KEYS,
            short_code_keys=_SHORT_CODE_KEYS | _MEASURE_KEYS,
        )
    return screen_card_data(raw, opaque_keys=_OPAQUE_KEYS, short_code_keys=_SHORT_CODE_KEYS)


class BridgeMessage(BaseModel):
    """Every page→Python payload: strict types, unknown fields refused."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


Language = Literal["pt-BR", "en"]


class PageReady(BridgeMessage):
    """The handshake: the channel is up and the SDK script has loaded (or could not)."""

    protocol: Literal[1]
    sdk: Literal["ready", "unavailable"]
    language: Language
    reason: Annotated[str, Field(max_length=200)] | None = None


class CredentialsRequest(BridgeMessage):
    """The page is about to create a temporary card and needs the SDK credentials now."""

    purpose: Literal["createTemporaryCard"]


_BRAND_TEXT = r"^[A-Za-z]{2,20}$"


class TokenCreated(BridgeMessage):
    """What the SDK's success callback gave, plus what a receipt may show."""

    token: Annotated[str, Field(pattern=r"^card_t/[A-Za-z0-9_\-+/=.]{1,512}$")]
    brand: Annotated[str, Field(pattern=_BRAND_TEXT)]

    @field_validator("brand")
    @classmethod
    def _known_brand(cls, value: str) -> str:
        if value.upper() not in KNOWN_BRANDS:
            raise ValueError("a brand outside the known set")
        return value

    lastFour: Annotated[str, Field(pattern=r"^[0-9]{4}$")]
    holderName: Annotated[str, Field(min_length=1, max_length=120, pattern=r"^[^0-9]+$")]

    @field_validator("holderName")
    @classmethod
    def _trimmed(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("the holder name is blank")
        return value.strip()


class BrowserReport(BridgeMessage):
    """What the page measures of the shopper's browser for 3DS enrollment: numbers, flags and
    a language tag only. The user agent and the Accept headers are added on the Python side
    (they are the view's own), so no free text comes from the page for this."""

    javaEnabled: bool
    colorDepth: Annotated[int, Field(ge=1, le=48)]
    screenHeight: Annotated[int, Field(ge=1, le=16_384)]
    screenWidth: Annotated[int, Field(ge=1, le=16_384)]
    timeDifference: Annotated[int, Field(ge=-900, le=900)]
    # Letters, and at most a three-digit region (es-419): no room for a run of digits.
    language: Annotated[str, Field(pattern=r"^[A-Za-z]{2,3}(-([A-Za-z]{2,8}|[0-9]{3}))?$")]


M = TypeVar("M", bound=BridgeMessage)


class SdkErrorEntry(BridgeMessage):
    errorCode: int | None = None
    field: Annotated[str, Field(pattern=r"^[A-Za-z][A-Za-z0-9_.\[\]]{0,63}$")] | None = None
    message: Annotated[str, Field(max_length=500)]


class SdkFailure(BridgeMessage):
    """The SDK's error callback (or a failed script load), as the page showed it."""

    stage: Literal["load", "brand", "credentials", "token"]
    network: bool
    errors: Annotated[list[SdkErrorEntry], Field(max_length=20)]


SubmitStep = Literal["busy", "sdk", "fields", "brand", "credentials", "token"]
"""Where a submit of the card form ended without a token and without an SDK error callback:
"busy" (a card is being read already: that reading still ends in a token or a failure), "sdk"
(the card SDK is not ready), "fields" (the page's own checks marked fields), "brand" (no brand
for the number, marked on it), "credentials" and "token" (the SDK's call could not be made)."""


class SubmitRefusal(BridgeMessage):
    """The card form refused a submit on its own: which step, never what was typed."""

    step: SubmitStep


@dataclass(frozen=True)
class CardToken:
    """A temporary card token and what may be printed about the card: never number, CVV, expiry."""

    token: str
    brand: CardBrand
    last_four: str
    holder_name: str

    def __repr__(self) -> str:
        # The token is single-use, but there is no reason to spread it through logs.
        return (
            f"CardToken(token='{self.token[:11]}…', brand={self.brand.value!r}, "
            f"last_four={self.last_four!r})"
        )

    __str__ = __repr__


class CardBridgeEvents(QObject):
    """The bridge's Python-side signals; a separate object so the page cannot subscribe to them."""

    page_ready = Signal(object)  # PageReady
    credentials_requested = Signal()
    token_received = Signal(object)  # CardToken
    sdk_failed = Signal(object)  # SdkFailure
    submit_refused = Signal(str)  # SubmitStep: a submit ended with no token and no SDK error
    security_event = Signal(str)  # what was refused, without the data
    message_refused = Signal(str)  # slot name of a malformed message


class CardBridge(QObject):
    """The only object the card page can reach. Its signals go to the page, its slots come back.

    Every slot takes one JSON string, screens it for card data, then parses it with a strict
    pydantic model before anything else happens. Python→page signals are held until the page
    has said it is ready.
    """

    # Python → page. The page connects to these once its channel is up.
    credentialsProvided = Signal(str, str, str)  # CNPJ, token, kind ("transparent"|"merchant")
    credentialsRefused = Signal(str)  # reason code: "missing" or "unavailable"
    languageChanged = Signal(str)
    clearRequested = Signal()
    submitRequested = Signal()
    holderRequested = Signal(str, str)  # holder name, holder document digits ("" to clear)
    focusRequested = Signal()  # put the caret in the card number

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.events = CardBridgeEvents(self)
        self._ready = False
        self._credential_requests = 0
        self._credentials_given = False
        self._pending: list[Callable[[], None]] = []
        self.ready_info: PageReady | None = None
        self.browser_report: BrowserReport | None = None
        """The shopper's browser as the page measured it (for 3DS enrollment)."""
        # Diagnostics and tests: sees every raw page→Python message before it is screened.
        self.message_observer: Callable[[str, str], None] | None = None

    def event(self, event: QEvent) -> bool:
        # QWebChannel publishes every public slot, QObject's deleteLater among them: a page
        # calling it must not take the bridge away. The bridge dies with its parent instead.
        if event.type() == QEvent.Type.DeferredDelete:
            logger.warning("security event: the card page asked to delete the bridge; ignored")
            self.events.security_event.emit("deleteLater: refused")
            return True
        return super().event(event)

    # ------------------------------------------------------------------ Python → page

    @property
    def is_ready(self) -> bool:
        return self._ready

    def when_ready(self, call: Callable[[], None]) -> None:
        """Run `call` now if the page is ready, else right after its handshake."""
        if self._ready:
            call()
        else:
            self._pending.append(call)

    def page_reset(self) -> None:
        """The page is (re)loading: hold calls until the new page says it is ready."""
        self._ready = False
        self._credential_requests = 0
        self._credentials_given = False
        self.ready_info = None
        self.browser_report = None

    def provide_credentials(
        self, merchant_document: str, token: str, kind: str = "transparent"
    ) -> None:
        self._credentials_given = True
        self.when_ready(lambda: self.credentialsProvided.emit(merchant_document, token, kind))

    def refuse_credentials(self, reason: Literal["missing", "unavailable"]) -> None:
        self.when_ready(lambda: self.credentialsRefused.emit(reason))

    def set_language(self, language: Language) -> None:
        self.when_ready(lambda: self.languageChanged.emit(language))

    def clear_form(self) -> None:
        self.when_ready(self.clearRequested.emit)

    def submit(self) -> None:
        self.when_ready(self.submitRequested.emit)

    def focus_number(self) -> None:
        self.when_ready(self.focusRequested.emit)

    def fill_holder(self, name: str, document: str) -> None:
        """Fill the page's holder fields with the customer ("titular = cliente"); empty
        values give the fields back to the clerk. A name and a CPF/CNPJ are not card data."""
        self.when_ready(lambda: self.holderRequested.emit(name, document))

    # ------------------------------------------------------------------ page → Python

    def _receive(
        self, slot: str, payload: Any, model: type[M], *, measures: bool = False
    ) -> M | None:
        if self.message_observer is not None:
            self.message_observer(slot, payload if isinstance(payload, str) else repr(payload))
        if not isinstance(payload, str):
            logger.warning("bridge: refused a %s message that is not a JSON string", slot)
            self.events.message_refused.emit(slot)
            return None
        if len(payload) > MAX_MESSAGE_CHARS:
            logger.warning(
                "bridge: refused a %s message of %d characters (limit %d)",
                slot,
                len(payload),
                MAX_MESSAGE_CHARS,
            )
            self.events.message_refused.emit(slot)
            return None
        finding = find_card_data(payload, measures=measures)
        if finding is not None:
            logger.warning(
                "security event: the card page sent %s to %s; the message was refused and "
                "its content is not logged",
                finding,
                slot,
            )
            self.events.security_event.emit(f"{slot}: {finding}")
            return None
        try:
            return model.model_validate_json(payload)
        except ValidationError as exc:
            # Locations and error kinds only: pydantic's own text quotes the input values.
            problems = "; ".join(
                f"{'.'.join(str(p) for p in err['loc']) or '(message)'}: {err['type']}"
                for err in exc.errors(include_url=False, include_input=False)
            )
            logger.warning("bridge: refused a malformed %s message (%s)", slot, problems)
            self.events.message_refused.emit(slot)
            return None

    @Slot(str, result=bool)
    def pageReady(self, payload: str) -> bool:
        message = self._receive("pageReady", payload, PageReady)
        if message is None:
            return False
        if message.protocol != PROTOCOL_VERSION:
            return False
        self.ready_info = message
        self._ready = True
        logger.info("card page ready (SDK %s, %s)", message.sdk, message.language)
        pending, self._pending = self._pending, []
        for call in pending:
            call()
        self.events.page_ready.emit(message)
        return True

    @Slot(str, result=bool)
    def credentialsNeeded(self, payload: str) -> bool:
        if self._receive("credentialsNeeded", payload, CredentialsRequest) is None:
            # The page gives up the card it holds: the submit ends here.
            self.events.submit_refused.emit("credentials")
            return False
        if self._credentials_given or self._credential_requests >= MAX_CREDENTIAL_REQUESTS:
            # The SDK's merchant token is handed over once per page load; a script that keeps
            # asking gets nothing more (a new sale reloads the page).
            logger.warning(
                "security event: the card page asked for the SDK credentials again; refused"
            )
            self.events.security_event.emit("credentialsNeeded: asked again; refused")
            self.events.submit_refused.emit("credentials")
            return False
        self._credential_requests += 1
        self.events.credentials_requested.emit()
        return True

    @Slot(str, result=bool)
    def tokenCreated(self, payload: str) -> bool:
        message = self._receive("tokenCreated", payload, TokenCreated)
        if message is None:
            # No token comes of this submit: whatever waited for one must not wait on.
            self.events.submit_refused.emit("token")
            return False
        brand = CardBrand(message.brand)
        token = CardToken(
            token=message.token,
            brand=brand,
            last_four=message.lastFour,
            holder_name=message.holderName,
        )
        logger.info("card page: temporary card token received (%s •••• %s)", brand, token.last_four)
        self.events.token_received.emit(token)
        return True

    @Slot(str, result=bool)
    def browserInfo(self, payload: str) -> bool:
        message = self._receive("browserInfo", payload, BrowserReport, measures=True)
        if message is None:
            return False
        self.browser_report = message
        return True

    @Slot(str, result=bool)
    def sdkFailed(self, payload: str) -> bool:
        message = self._receive("sdkFailed", payload, SdkFailure)
        if message is None:
            return False
        fields = ", ".join(e.field or "-" for e in message.errors) or "-"
        logger.info(
            "card page: SDK %s failed (%s; fields: %s)",
            message.stage,
            "network" if message.network else "service",
            fields,
        )
        self.events.sdk_failed.emit(message)
        return True

    @Slot(str, result=bool)
    def submitRefused(self, payload: str) -> bool:
        """The page ended a submit by itself (its checks, no brand, no SDK): nothing was sent to
        the card service and no token follows. The message names the step only."""
        message = self._receive("submitRefused", payload, SubmitRefusal)
        if message is None:
            return False
        logger.info("card page: the card form refused the submit (%s)", message.step)
        self.events.submit_refused.emit(message.step)
        return True
