"""A locked-down embedded browser for our own pages: custom scheme, CSP, no navigation away."""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, cast

from PySide6.QtCore import (
    QBuffer,
    QByteArray,
    QCoreApplication,
    QFile,
    QIODevice,
    QObject,
    Qt,
    QUrl,
    Signal,
)
from PySide6.QtGui import QContextMenuEvent
from PySide6.QtWebEngineCore import (
    QWebEngineCertificateError,
    QWebEngineDownloadRequest,
    QWebEngineFileSystemAccessRequest,
    QWebEnginePage,
    QWebEnginePermission,
    QWebEngineProfile,
    QWebEngineSettings,
    QWebEngineUrlRequestInfo,
    QWebEngineUrlRequestInterceptor,
    QWebEngineUrlRequestJob,
    QWebEngineUrlScheme,
    QWebEngineUrlSchemeHandler,
)
from PySide6.QtWebEngineWidgets import QWebEngineView
from PySide6.QtWidgets import QWidget

from checkout_desktop.domain.carddata import hide_card_numbers
from checkout_desktop.logsetup import redact
from checkout_desktop.paths import resources_dir
from checkout_desktop.settings import Profile
from checkout_desktop.ui.chromium import note_engine_starting

logger = logging.getLogger(__name__)

# A URL in a console message (a CSP report names the blocked URL in full): its query and
# fragment may carry whatever a script put there, card digits included, so only the scheme,
# host and path are logged.
_URL = re.compile(r"(?i)\b([a-z][a-z0-9+.\-]*://[^\s'\"?#<>]*)[?#][^\s'\"<>]*")
_MAX_CONSOLE = 2000


def console_text(message: str) -> str:
    """A page's console message as it may be logged: URL queries dropped, card numbers masked
    (after normalisation, so escaped or fullwidth digits are masked too), secrets redacted."""
    text = _URL.sub(lambda m: m.group(1) + "?[query dropped]", message[: _MAX_CONSOLE * 4])
    return redact(hide_card_numbers(text)[:_MAX_CONSOLE])


SCHEME = "checkout-desktop"
CARD_HOST = "card"
CARD_ENTRY_PATH = "/index.html"

Language = Literal["pt-BR", "en"]
LANGUAGES: tuple[Language, ...] = ("pt-BR", "en")

# The SDK's development build talks to the QA host, the production build to the live one; the
# host is compiled into each build, so it follows the build unless the profile names another.
_SDK_PACKAGES = {"dev": "checkout-transparent-dev", "prod": "checkout-transparent"}
_SDK_BACKENDS = {"dev": "checkout-qa.picpay.com", "prod": "checkout.picpay.com"}
SDK_LOCAL_PATH = "/sdk/pp-transparent.js"

_STATIC_FILES: dict[str, tuple[str, bytes]] = {
    CARD_ENTRY_PATH: ("card/index.html", b"text/html;charset=utf-8"),
    "/card.js": ("card/card.js", b"text/javascript;charset=utf-8"),
    "/card.css": ("card/card.css", b"text/css;charset=utf-8"),
    "/lang/en.js": ("card/lang/en.js", b"text/javascript;charset=utf-8"),
    "/lang/pt-BR.js": ("card/lang/pt-BR.js", b"text/javascript;charset=utf-8"),
}
_QWEBCHANNEL_PATH = "/qwebchannel.js"
_CONFIG_PATH = "/config.js"


class WebViewError(RuntimeError):
    """The web view cannot be set up as asked; the message says what is missing."""


def register_schemes() -> None:
    """Declare our URL scheme to QtWebEngine. Call once, before the QApplication exists.

    Chromium fixes its scheme table when it starts, so a scheme registered later is unknown to
    it: pages from it would get an opaque origin and no CSP 'self'.
    """
    if QWebEngineUrlScheme.schemeByName(SCHEME.encode()).name() == SCHEME.encode():
        return
    if QCoreApplication.instance() is not None:
        raise WebViewError(
            f"the {SCHEME}: scheme must be registered before the QApplication is created; "
            "call checkout_desktop.ui.webview.register_schemes() first"
        )
    scheme = QWebEngineUrlScheme(SCHEME.encode())
    scheme.setSyntax(QWebEngineUrlScheme.Syntax.Host)
    # Secure: the page is a secure context, so it may call the SDK's https backend. Not local,
    # not CORS-enabled, not CSP-exempt: it reaches no files and nobody else may fetch it.
    scheme.setFlags(QWebEngineUrlScheme.Flag.SecureScheme)
    QWebEngineUrlScheme.registerScheme(scheme)


def normalize_language(tag: str | None) -> Language:
    """Our two page languages: Portuguese for any pt tag (and by default), English otherwise."""
    if not tag:
        return "pt-BR"
    return "pt-BR" if tag.replace("_", "-").lower().startswith("pt") else "en"


def card_page_url() -> QUrl:
    return QUrl(f"{SCHEME}://{CARD_HOST}{CARD_ENTRY_PATH}")


@dataclass(frozen=True)
class CardPageConfig:
    """What the card page needs from the profile: where the SDK comes from, where it calls."""

    resources: Path
    backend_host: str
    language: Language = "pt-BR"
    sdk_file: Path | None = None
    sdk_script_url: str | None = None
    developer: bool = False
    sdk_load_timeout_ms: int = 15000

    def __post_init__(self) -> None:
        if (self.sdk_file is None) == (self.sdk_script_url is None):
            raise WebViewError("the card page needs exactly one SDK source: a file or a script URL")
        if self.sdk_script_url is not None and not self.sdk_script_url.startswith("https://"):
            raise WebViewError(f"the SDK script address {self.sdk_script_url!r} must be https://")
        if self.language not in LANGUAGES:
            raise WebViewError(
                f"the card page speaks {', '.join(LANGUAGES)}, not {self.language!r}"
            )

    @classmethod
    def from_profile(
        cls,
        profile: Profile,
        *,
        language: str | None = None,
        developer: bool = False,
        resources: Path | None = None,
    ) -> CardPageConfig:
        root = resources if resources is not None else resources_dir()
        backend = profile.sdk_backend_host or _SDK_BACKENDS[profile.sdk_build]
        if profile.sdk_script_url:
            return cls(
                resources=root,
                backend_host=backend,
                language=normalize_language(language),
                sdk_script_url=profile.sdk_script_url,
                developer=developer,
            )
        sdk = root / "sdk" / "node_modules" / _SDK_PACKAGES[profile.sdk_build] / "dist"
        return cls(
            resources=root,
            backend_host=backend,
            language=normalize_language(language),
            sdk_file=sdk / "pp-transparent.js",
            developer=developer,
        )

    @property
    def script_host(self) -> str | None:
        return QUrl(self.sdk_script_url).host() if self.sdk_script_url else None

    @property
    def allowed_https_hosts(self) -> frozenset[str]:
        hosts = {self.backend_host.lower()}
        if self.script_host:
            hosts.add(self.script_host.lower())
        return frozenset(hosts)

    @property
    def sdk_url(self) -> str:
        if self.sdk_script_url is not None:
            return self.sdk_script_url
        return f"{SCHEME}://{CARD_HOST}{SDK_LOCAL_PATH}"

    def content_security_policy(self) -> str:
        script_src = "'self'"
        if self.script_host:
            script_src += f" https://{self.script_host}"
        return "; ".join(
            [
                "default-src 'none'",
                f"script-src {script_src}",
                "style-src 'self'",
                "img-src 'self' data:",
                f"connect-src https://{self.backend_host}",
                "base-uri 'none'",
                "form-action 'none'",
                "frame-src 'none'",
                "frame-ancestors 'none'",
                "object-src 'none'",
                "worker-src 'none'",
                "manifest-src 'none'",
                "media-src 'none'",
            ]
        )

    def config_script(self) -> bytes:
        data = {
            "sdkUrl": self.sdk_url,
            "language": self.language,
            "sdkLoadTimeoutMs": self.sdk_load_timeout_ms,
        }
        # JSON is valid JavaScript; freezing stops the SDK (or anything else) from rewriting it.
        text = f"window.CHECKOUT_CARD_CONFIG = Object.freeze({json.dumps(data)});\n"
        return text.encode()


_RESPONSE_HEADERS = {
    b"X-Content-Type-Options": b"nosniff",
    b"Cache-Control": b"no-store",
    b"Referrer-Policy": b"no-referrer",
    b"Permissions-Policy": b"camera=(), microphone=(), geolocation=(), serial=(), hid=(), "
    b"clipboard-read=(), display-capture=()",
}


class CardSchemeHandler(QWebEngineUrlSchemeHandler):
    """Serves the card page, its scripts and the installed SDK from a fixed list; nothing else."""

    def __init__(self, config: CardPageConfig, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._config = config
        self._cache: dict[str, bytes] = {}

    def _read(self, relative: str) -> bytes | None:
        if relative in self._cache:
            return self._cache[relative]
        path = self._config.resources / relative
        try:
            data = path.read_bytes()
        except OSError as exc:
            logger.error("card page: cannot read %s (%s)", path, exc.strerror or type(exc).__name__)
            return None
        # Our own files are re-read on each load in developer mode, so edits show on reload.
        if not self._config.developer:
            self._cache[relative] = data
        return data

    def _sdk(self) -> bytes | None:
        sdk_file = self._config.sdk_file
        if sdk_file is None:
            return None
        if "sdk" not in self._cache:
            try:
                self._cache["sdk"] = sdk_file.read_bytes()
            except OSError as exc:
                logger.error(
                    "card page: the card SDK is not installed at %s (%s); run scripts/setup.sh",
                    sdk_file,
                    exc.strerror or type(exc).__name__,
                )
                return None
        return self._cache["sdk"]

    @staticmethod
    def _qwebchannel() -> bytes | None:
        # Bundled inside Qt; served from our scheme so that the CSP needs no qrc: source.
        handle = QFile(":/qtwebchannel/qwebchannel.js")
        if not handle.open(QIODevice.OpenModeFlag.ReadOnly):
            logger.error("card page: Qt's qwebchannel.js resource is missing")
            return None
        try:
            return bytes(handle.readAll().data())
        finally:
            handle.close()

    def _resolve(self, path: str) -> tuple[bytes | None, bytes]:
        if path in _STATIC_FILES:
            relative, content_type = _STATIC_FILES[path]
            return self._read(relative), content_type
        if path == _QWEBCHANNEL_PATH:
            return self._qwebchannel(), b"text/javascript;charset=utf-8"
        if path == _CONFIG_PATH:
            return self._config.config_script(), b"text/javascript;charset=utf-8"
        if path == SDK_LOCAL_PATH:
            return self._sdk(), b"text/javascript;charset=utf-8"
        return None, b""

    def requestStarted(self, job: QWebEngineUrlRequestJob) -> None:
        url = job.requestUrl()
        method = bytes(job.requestMethod().data())
        if url.host() != CARD_HOST or method != b"GET":
            logger.warning(
                "card page: refused %s %s://%s%s",
                method.decode("latin-1"),
                url.scheme(),
                url.host(),
                url.path(),
            )
            job.fail(QWebEngineUrlRequestJob.Error.RequestDenied)
            return
        body, content_type = self._resolve(url.path())
        if body is None:
            logger.warning("card page: no such resource %s", url.path())
            job.fail(QWebEngineUrlRequestJob.Error.UrlNotFound)
            return
        headers = dict(_RESPONSE_HEADERS)
        headers[b"Content-Security-Policy"] = self._config.content_security_policy().encode()
        # Qt maps the dict to a multimap: a bare value would be split into one header per
        # character, so each value goes in a one-item list.
        job.setAdditionalResponseHeaders(
            cast(Any, {QByteArray(name): [QByteArray(value)] for name, value in headers.items()})
        )
        buffer = QBuffer(job)
        buffer.setData(QByteArray(body))
        buffer.open(QIODevice.OpenModeFlag.ReadOnly)
        job.reply(QByteArray(content_type), buffer)


class RequestGuard(QWebEngineUrlRequestInterceptor):
    """Blocks every request except our scheme and https to the SDK's own hosts."""

    def __init__(self, allowed_https_hosts: frozenset[str], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._allowed = allowed_https_hosts

    def interceptRequest(self, info: QWebEngineUrlRequestInfo) -> None:
        url = info.requestUrl()
        scheme = url.scheme()
        if scheme == SCHEME and url.host() == CARD_HOST:
            return
        if scheme == "https" and url.host().lower() in self._allowed and url.port(443) == 443:
            return
        # Only scheme and host: a path or query could carry what was typed into the page.
        logger.warning("card page: blocked a request to %s://%s", scheme, url.host())
        info.block(True)


_DEVELOPER_ACTIONS = frozenset(
    {
        QWebEnginePage.WebAction.InspectElement,
        QWebEnginePage.WebAction.ViewSource,
        QWebEnginePage.WebAction.SavePage,
        QWebEnginePage.WebAction.OpenLinkInNewWindow,
        QWebEnginePage.WebAction.OpenLinkInNewTab,
        QWebEnginePage.WebAction.OpenLinkInNewBackgroundTab,
        QWebEnginePage.WebAction.OpenLinkInThisWindow,
        QWebEnginePage.WebAction.DownloadLinkToDisk,
        QWebEnginePage.WebAction.DownloadImageToDisk,
        QWebEnginePage.WebAction.DownloadMediaToDisk,
    }
)


class LockedPage(QWebEnginePage):
    """A page that stays on our scheme, opens no windows, asks no permissions, shows no dialogs."""

    navigation_refused = Signal(str)
    dev_tools_requested = Signal()

    def __init__(
        self, profile: QWebEngineProfile, parent: QObject | None = None, *, developer: bool = False
    ) -> None:
        super().__init__(profile, parent)
        self._developer = developer
        self.permissionRequested.connect(self._deny_permission)
        self.certificateError.connect(self._refuse_certificate)
        self.fileSystemAccessRequested.connect(self._refuse_file_access)

    def triggerAction(self, action: QWebEnginePage.WebAction, checked: bool = False) -> None:
        # Qt re-enables these actions on every load, so they are refused here instead.
        if action in _DEVELOPER_ACTIONS and not self._developer:
            logger.warning("card page: refused the %s action outside developer mode", action.name)
            return
        if action == QWebEnginePage.WebAction.InspectElement and self.devToolsPage() is None:
            self.dev_tools_requested.emit()
        super().triggerAction(action, checked)

    @staticmethod
    def _describe(url: QUrl) -> str:
        # Scheme and host only: a query string could carry form values.
        host = url.host()
        return f"{url.scheme()}://{host}" if host else f"{url.scheme()}:"

    def acceptNavigationRequest(
        self, url: QUrl | str, type: QWebEnginePage.NavigationType, isMainFrame: bool
    ) -> bool:
        target = QUrl(url)
        if (
            isMainFrame
            and target.scheme() == SCHEME
            and target.host() == CARD_HOST
            and target.path() == CARD_ENTRY_PATH
        ):
            return True
        where = self._describe(target)
        logger.warning(
            "card page: refused %s navigation (%s) to %s",
            "main-frame" if isMainFrame else "sub-frame",
            type.name,
            where,
        )
        self.navigation_refused.emit(where)
        return False

    def createWindow(self, type: QWebEnginePage.WebWindowType) -> QWebEnginePage:
        logger.warning("card page: refused to open a new window (%s)", type.name)
        # Returning no page makes Chromium drop the popup; the stubs do not allow None.
        return cast(QWebEnginePage, None)

    def javaScriptConsoleMessage(
        self,
        level: QWebEnginePage.JavaScriptConsoleMessageLevel,
        message: str,
        lineNumber: int,
        sourceID: str,
    ) -> None:
        levels = {
            QWebEnginePage.JavaScriptConsoleMessageLevel.InfoMessageLevel: logging.INFO,
            QWebEnginePage.JavaScriptConsoleMessageLevel.WarningMessageLevel: logging.WARNING,
            QWebEnginePage.JavaScriptConsoleMessageLevel.ErrorMessageLevel: logging.ERROR,
        }
        source = QUrl(sourceID)
        where = f"{self._describe(source)}{source.path()}" if source.isValid() else "?"
        logger.log(
            levels.get(level, logging.INFO),
            "card page console: %s (%s:%d)",
            console_text(message),
            where,
            lineNumber,
        )

    def javaScriptAlert(self, securityOrigin: QUrl | str, msg: str) -> None:
        logger.info("card page: suppressed an alert dialog")

    def javaScriptConfirm(self, securityOrigin: QUrl | str, msg: str) -> bool:
        logger.info("card page: suppressed a confirm dialog")
        return False

    def javaScriptPrompt(
        self, securityOrigin: QUrl | str, msg: str, defaultValue: str
    ) -> tuple[bool, str]:
        logger.info("card page: suppressed a prompt dialog")
        return False, ""

    def chooseFiles(
        self,
        mode: QWebEnginePage.FileSelectionMode,
        oldFiles: Sequence[str],
        acceptedMimeTypes: Sequence[str],
    ) -> list[str]:
        logger.warning("card page: refused a file chooser")
        return []

    @staticmethod
    def _deny_permission(permission: QWebEnginePermission) -> None:
        logger.warning("card page: denied the %s permission", permission.permissionType().name)
        permission.deny()

    @staticmethod
    def _refuse_certificate(error: QWebEngineCertificateError) -> None:
        logger.error(
            "card page: refused an invalid certificate for %s (%s)",
            error.url().host(),
            error.type().name,
        )
        error.rejectCertificate()

    @staticmethod
    def _refuse_file_access(request: QWebEngineFileSystemAccessRequest) -> None:
        logger.warning("card page: refused file system access")
        request.reject()


_SETTINGS_OFF = (
    QWebEngineSettings.WebAttribute.JavascriptCanOpenWindows,
    QWebEngineSettings.WebAttribute.JavascriptCanAccessClipboard,
    QWebEngineSettings.WebAttribute.JavascriptCanPaste,
    QWebEngineSettings.WebAttribute.LocalStorageEnabled,
    QWebEngineSettings.WebAttribute.LocalContentCanAccessRemoteUrls,
    QWebEngineSettings.WebAttribute.LocalContentCanAccessFileUrls,
    QWebEngineSettings.WebAttribute.PluginsEnabled,
    QWebEngineSettings.WebAttribute.FullScreenSupportEnabled,
    QWebEngineSettings.WebAttribute.ScreenCaptureEnabled,
    QWebEngineSettings.WebAttribute.WebGLEnabled,
    QWebEngineSettings.WebAttribute.AutoLoadIconsForPage,
    QWebEngineSettings.WebAttribute.TouchIconsEnabled,
    QWebEngineSettings.WebAttribute.DnsPrefetchEnabled,
    QWebEngineSettings.WebAttribute.HyperlinkAuditingEnabled,
    QWebEngineSettings.WebAttribute.PdfViewerEnabled,
    QWebEngineSettings.WebAttribute.NavigateOnDropEnabled,
    QWebEngineSettings.WebAttribute.AllowWindowActivationFromJavaScript,
    QWebEngineSettings.WebAttribute.AllowRunningInsecureContent,
    QWebEngineSettings.WebAttribute.AllowGeolocationOnInsecureOrigins,
    QWebEngineSettings.WebAttribute.BackForwardCacheEnabled,
    QWebEngineSettings.WebAttribute.ErrorPageEnabled,
)
_SETTINGS_ON = (
    QWebEngineSettings.WebAttribute.JavascriptEnabled,
    QWebEngineSettings.WebAttribute.WebRTCPublicInterfacesOnly,
)


def _cancel_download(download: QWebEngineDownloadRequest) -> None:
    logger.warning("card page: refused a download")
    download.cancel()


def build_profile(config: CardPageConfig) -> QWebEngineProfile:
    """An off-the-record profile (nothing on disk) serving our scheme and guarding requests."""
    note_engine_starting()
    profile = QWebEngineProfile()  # no storage name: off the record, cache and cookies in memory
    if not profile.isOffTheRecord():
        raise WebViewError("QtWebEngine gave a disk-backed profile for the card page")
    profile.setHttpCacheType(QWebEngineProfile.HttpCacheType.MemoryHttpCache)
    profile.setPersistentCookiesPolicy(
        QWebEngineProfile.PersistentCookiesPolicy.NoPersistentCookies
    )
    profile.setPersistentPermissionsPolicy(
        QWebEngineProfile.PersistentPermissionsPolicy.AskEveryTime
    )
    profile.setSpellCheckEnabled(False)
    profile.setHttpAcceptLanguage(config.language)
    settings = profile.settings()
    for attribute in _SETTINGS_OFF:
        settings.setAttribute(attribute, False)
    for attribute in _SETTINGS_ON:
        settings.setAttribute(attribute, True)
    # The card form loads while the clerk types the amount: it takes the keyboard only when
    # the terminal hands it over (focus_number), never by finishing a load.
    settings.setAttribute(QWebEngineSettings.WebAttribute.FocusOnNavigationEnabled, False)
    handler = CardSchemeHandler(config, profile)
    profile.installUrlSchemeHandler(SCHEME.encode(), handler)
    profile.setUrlRequestInterceptor(RequestGuard(config.allowed_https_hosts, profile))
    profile.downloadRequested.connect(_cancel_download)
    return profile


class LockedWebView(QWebEngineView):
    """The view for our pages: no context menu, no drops, dev tools only in developer mode."""

    def __init__(self, config: CardPageConfig, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.config = config
        profile = build_profile(config)
        self.locked_page = LockedPage(profile, self, developer=config.developer)
        # The page must go before its profile: as the profile's parent it is destroyed first.
        profile.setParent(self.locked_page)
        self.setPage(self.locked_page)
        self.setAcceptDrops(False)
        self.dev_tools: QWebEngineView | None = None
        if config.developer:
            self.locked_page.dev_tools_requested.connect(self.open_dev_tools)
        else:
            self.setContextMenuPolicy(Qt.ContextMenuPolicy.NoContextMenu)

    def open_dev_tools(self) -> QWebEngineView:
        """Chromium's inspector for the page, in its own window: developer mode only."""
        if not self.config.developer:
            raise WebViewError("the card page's developer tools need developer mode (--developer)")
        if self.dev_tools is None:
            tools = QWebEngineView(self)
            tools.setWindowFlag(Qt.WindowType.Window)
            tools.setWindowTitle("checkout-desktop: card page developer tools")
            tools.resize(900, 600)
            self.locked_page.setDevToolsPage(tools.page())
            self.dev_tools = tools
        self.dev_tools.show()
        return self.dev_tools

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
        if self.config.developer:
            super().contextMenuEvent(event)
        else:
            event.accept()

    def load_card_page(self) -> None:
        self.locked_page.load(card_page_url())
