"""The card entry widget: the locked-down SDK page plus its bridge, behind a small Python API."""

from __future__ import annotations

import hashlib
import logging
import re
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from pydantic import SecretStr
from PySide6.QtCore import Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWebChannel import QWebChannel
from PySide6.QtWebEngineCore import QWebEnginePage
from PySide6.QtWidgets import QVBoxLayout, QWidget

from checkout_desktop.domain.documents import DocumentError, validate_cnpj
from checkout_desktop.domain.enums import SdkCredentialKind
from checkout_desktop.domain.reasons import Reason, ReasonCode
from checkout_desktop.logsetup import register_secret
from checkout_desktop.secrets import Credentials, KeychainUnavailable, SecretMissing
from checkout_desktop.ui.bridge import CardBridge, CardToken, PageReady, SdkFailure
from checkout_desktop.ui.webview import CardPageConfig, LockedWebView, normalize_language

if TYPE_CHECKING:
    from checkout_desktop.domain.three_ds import BrowserInfo

logger = logging.getLogger(__name__)

BRIDGE_OBJECT_NAME = "cardBridge"
MAX_RENDERER_RESTARTS = 3
_TOKEN_TEXT = re.compile(r"^[\x21-\x7e]{1,512}$")


class CardCredentialsError(ValueError):
    """The SDK credentials cannot be handed to the page; `reason` says why."""

    def __init__(self, reason: Reason) -> None:
        super().__init__(reason.english())
        self.reason = reason


@dataclass(frozen=True)
class SdkCredentialSource:
    """Where the page's SDK credentials come from: the store's CNPJ and the keychain's token.

    The token is read from `credentials` each time the page asks, at the moment of use.
    """

    merchant_document: str
    credentials: Credentials
    kind: SdkCredentialKind = "transparent"
    """Which credential the keychain's SDK token is (the profile's `sdk_credential`)."""


def _fingerprint(merchant_document: str, token: str, kind: str) -> str:
    return hashlib.sha256(f"{merchant_document}\0{token}\0{kind}".encode()).hexdigest()


PAGE_ACCEPT = (
    "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,"
    "image/apng,*/*;q=0.8"
)
"""The Accept header Chromium sends for a page (enrollment's httpAccept* fields)."""


class CardPage(QWidget):
    """Card entry for one sale: each card typed gives one `CardToken`; the form then clears.

    Signals: `ready` (page and SDK loaded), `sdk_unavailable(reason)` (the SDK script or page
    could not load), `token_created(CardToken)`, `sdk_error(SdkFailure)`,
    `submit_refused(step)` (a submit ended with neither: the page's own checks refused the
    card, or the SDK call could not be made; see `bridge.SubmitStep`),
    `credentials_needed()` (no credential source was given: call `set_credentials`),
    `credentials_error(message)`, `security_event(description)` and
    `navigation_refused(scheme://host)`.
    """

    ready = Signal()
    sdk_unavailable = Signal(object)  # Reason
    token_created = Signal(object)  # CardToken
    sdk_error = Signal(object)  # SdkFailure
    submit_refused = Signal(str)  # bridge.SubmitStep
    credentials_needed = Signal()
    credentials_error = Signal(object)  # Reason
    security_event = Signal(str)
    navigation_refused = Signal(str)

    def __init__(
        self,
        config: CardPageConfig,
        *,
        credentials: SdkCredentialSource | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.config = config
        self._source = credentials
        self._given_credentials: str | None = None
        self._renderer_restarts = 0
        self._language = config.language
        self._loading = False

        self.view = LockedWebView(config, self)
        self.page = self.view.locked_page
        self.bridge = CardBridge(self)
        self.channel = QWebChannel(self.page)
        self.channel.registerObject(BRIDGE_OBJECT_NAME, self.bridge)
        self.page.setWebChannel(self.channel)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.view)
        self.setFocusProxy(self.view)

        events = self.bridge.events
        events.page_ready.connect(self._on_page_ready)
        events.credentials_requested.connect(self._on_credentials_requested)
        events.token_received.connect(self.token_created)
        events.sdk_failed.connect(self._on_sdk_failed)
        events.submit_refused.connect(self.submit_refused)
        events.security_event.connect(self.security_event)
        self.page.navigation_refused.connect(self.navigation_refused)
        self.page.loadFinished.connect(self._on_load_finished)
        self.page.renderProcessTerminated.connect(self._on_renderer_gone)

    # ------------------------------------------------------------------ API

    @property
    def is_ready(self) -> bool:
        """The page has finished its handshake (with the SDK loaded or not)."""
        return self.bridge.is_ready

    @property
    def sdk_ready(self) -> bool:
        info = self.bridge.ready_info
        return info is not None and info.sdk == "ready"

    def browser_info(self) -> BrowserInfo | None:
        """The shopper's browser for 3DS enrollment, or None before the page has measured it.

        The page gives screen, colour depth, time zone and language; the user agent is this
        view's own and the Accept headers are the ones Chromium sends for a page."""
        report = self.bridge.browser_report
        if report is None:
            return None
        own = self._own_measures()
        measured = (
            report.screenWidth,
            report.screenHeight,
            report.colorDepth,
            report.timeDifference,
        )
        if measured != own:
            # The page's numbers are used only where they agree with the terminal's own: what
            # cannot be checked cannot carry anything in.
            logger.info("the card page's screen measures differ from the terminal's; using ours")
            report = report.model_copy(
                update={
                    "screenWidth": own[0],
                    "screenHeight": own[1],
                    "colorDepth": own[2],
                    "timeDifference": own[3],
                }
            )
        # The wire models load on the core's worker thread while the card page starts; this
        # module is imported before the card page, so it names them only here.
        from checkout_desktop.domain.three_ds import BrowserInfo

        return BrowserInfo(
            httpAcceptBrowserValue=PAGE_ACCEPT,
            httpAcceptContent=PAGE_ACCEPT,
            httpBrowserJavaEnabled=report.javaEnabled,
            httpBrowserJavaScriptEnabled=True,
            httpBrowserColorDepth=report.colorDepth,
            httpBrowserScreenHeight=report.screenHeight,
            httpBrowserScreenWidth=report.screenWidth,
            httpBrowserTimeDifference=report.timeDifference,
            httpBrowserLanguage=report.language,
            userAgentBrowserValue=self.page.profile().httpUserAgent()[:2048] or "QtWebEngine",
        )

    def _own_measures(self) -> tuple[int, int, int, int]:
        """Screen width, height, colour depth and minutes behind UTC, as this terminal sees them."""
        screen = self.screen() or QGuiApplication.primaryScreen()
        width, height, depth = 1, 1, 24
        if screen is not None:
            size = screen.size()
            width, height = max(1, size.width()), max(1, size.height())
            depth = min(48, max(1, screen.depth()))
        offset = datetime.now().astimezone().utcoffset()
        behind = 0 if offset is None else -round(offset.total_seconds() / 60)
        return width, height, depth, max(-900, min(900, behind))

    def load(self) -> None:
        """Load (or reload) the card page; `ready` or `sdk_unavailable` follows."""
        # Reset now, not on loadStarted (which comes later): calls made right after this must
        # wait for the new page's handshake, and the new page's SDK has no credentials.
        self.bridge.page_reset()
        self._given_credentials = None
        self._loading = True
        self.view.load_card_page()

    def set_credential_source(self, source: SdkCredentialSource) -> None:
        """Where the SDK credentials come from, for a page built before they were known.

        The page asks for them only when a card is submitted, so it can load without them.
        """
        self._source = source

    def set_credentials(
        self,
        merchant_document: str,
        transparent_token: SecretStr,
        kind: SdkCredentialKind = "transparent",
    ) -> None:
        """Hand the SDK credentials to the page, for the card being submitted now.

        `kind` says which credential the token is: the panel's transparent token (`tk_…`), or
        the merchant token the docs teach, which the SDK itself hashes with the CNPJ.
        The SDK keeps the first credentials it gets for the life of the page; different ones
        reload the page (and clear the form) so that the SDK starts afresh with them.
        """
        try:
            document = validate_cnpj(merchant_document)
        except DocumentError as exc:
            raise CardCredentialsError(
                Reason.of(ReasonCode.CARD_PAGE_BAD_CNPJ, error=str(exc))
            ) from None
        token = transparent_token.get_secret_value().strip()
        if not _TOKEN_TEXT.match(token):
            raise CardCredentialsError(Reason.of(ReasonCode.CARD_PAGE_BAD_TOKEN))
        register_secret(token)
        fingerprint = _fingerprint(document, token, kind)
        if self._given_credentials is not None and self._given_credentials != fingerprint:
            logger.warning("card SDK credentials changed: reloading the card page")
            self.credentials_error.emit(Reason.of(ReasonCode.CARD_PAGE_CREDENTIALS_CHANGED))
            # The reload resets the bridge; the credentials below wait for the new page.
            self.load()
        self._given_credentials = fingerprint
        self.bridge.provide_credentials(document, token, kind)

    def set_language(self, language: str) -> None:
        """Switch the page's texts (pt-BR or en); any pt tag means pt-BR."""
        self._language = normalize_language(language)
        self.bridge.set_language(self._language)

    def submit(self) -> None:
        """Ask the page to tokenize what is typed, as its own button would."""
        self.bridge.submit()

    def clear(self) -> None:
        """Empty every card field and message on the page."""
        self.bridge.clear_form()

    def focus_number(self) -> None:
        """Give the page the keyboard, with the caret in the card number."""
        self.setFocus()
        self.bridge.focus_number()

    def fill_holder(self, name: str, document: str) -> None:
        """The card holder is the customer: the page fills (and skips) its holder fields."""
        self.bridge.fill_holder(name, document)

    # ------------------------------------------------------------------ page events

    def _on_load_finished(self, ok: bool) -> None:
        # A refused navigation also ends in loadFinished(False), on the page that stays:
        # only a load this widget started can fail the page.
        if not self._loading:
            return
        self._loading = False
        if not ok:
            logger.error("the card page could not be loaded")
            self.sdk_unavailable.emit(Reason.of(ReasonCode.CARD_PAGE_NOT_LOADED))

    def _on_page_ready(self, info: PageReady) -> None:
        self._renderer_restarts = 0
        if info.language != self._language:
            self.bridge.set_language(self._language)
        if info.sdk == "ready":
            self.ready.emit()
        else:
            # The page's own words go to the log; the screen says it in its language.
            logger.error("card page: %s", info.reason or "the card SDK could not be loaded")
            self.sdk_unavailable.emit(Reason.of(ReasonCode.SDK_LOAD))

    def _on_sdk_failed(self, failure: SdkFailure) -> None:
        self.sdk_error.emit(failure)

    def _on_credentials_requested(self) -> None:
        if self._source is None:
            self.credentials_needed.emit()
            return
        try:
            token = self._source.credentials.sdk_merchant_token()
        except SecretMissing as exc:
            logger.warning("card page: %s", exc)
            self.bridge.refuse_credentials("missing")
            self.credentials_error.emit(Reason.of(ReasonCode.CARD_PAGE_NO_CREDENTIALS))
            return
        except KeychainUnavailable as exc:
            logger.warning("card page: %s", exc)
            self.bridge.refuse_credentials("unavailable")
            self.credentials_error.emit(Reason.of(ReasonCode.CARD_PAGE_KEYCHAIN))
            return
        try:
            self.set_credentials(self._source.merchant_document, token, self._source.kind)
        except CardCredentialsError as exc:
            self.bridge.refuse_credentials("missing")
            self.credentials_error.emit(exc.reason)

    def _on_renderer_gone(
        self, status: QWebEnginePage.RenderProcessTerminationStatus, exit_code: int
    ) -> None:
        self.bridge.page_reset()
        if status == QWebEnginePage.RenderProcessTerminationStatus.NormalTerminationStatus:
            return
        logger.error("card page: the renderer process ended (%s, code %d)", status.name, exit_code)
        if self._renderer_restarts >= MAX_RENDERER_RESTARTS:
            self.sdk_unavailable.emit(Reason.of(ReasonCode.CARD_PAGE_RENDERER_FAILING))
            return
        self._renderer_restarts += 1
        self.load()


_SDK_STAGES = {
    "load": ReasonCode.SDK_LOAD,
    "brand": ReasonCode.SDK_BRAND,
    "credentials": ReasonCode.SDK_CREDENTIALS,
    "token": ReasonCode.SDK_TOKEN,
}


def sdk_failure_reason(failure: SdkFailure) -> Reason:
    """Why the card service did not take the card, by what failed (the service's own words
    stay on the card page, beside the field they are about)."""
    if failure.network:
        return Reason.of(ReasonCode.SDK_NETWORK)
    return Reason.of(_SDK_STAGES[failure.stage])


__all__ = [
    "CardCredentialsError",
    "CardPage",
    "CardToken",
    "SdkCredentialSource",
    "SdkFailure",
    "sdk_failure_reason",
]
