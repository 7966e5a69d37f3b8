"""The issuer's 3-D Secure challenge, on a panel turned toward the customer.

The bank's page runs in its own locked-down web view: an off-the-record profile of its own, no
web channel (the page can reach nothing of the terminal), no downloads, no new windows, no
permissions, https only, and navigation only to the host of the step-up address the service
gave. The terminal's own page (served from our scheme, never from disk) posts the challenge's
`JWT` to that address, as the service's integration shows; the view is sized as the service
says. The clerk can cancel; a bank page that tries to take the customer to another address
ends the challenge too. Either way nothing is charged.
"""

from __future__ import annotations

import html
import logging
from typing import Any, cast

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QObject, Qt, QUrl, Signal
from PySide6.QtWebEngineCore import (
    QWebEnginePage,
    QWebEngineProfile,
    QWebEngineSettings,
    QWebEngineUrlRequestInfo,
    QWebEngineUrlRequestInterceptor,
    QWebEngineUrlRequestJob,
    QWebEngineUrlSchemeHandler,
)
from PySide6.QtWebEngineWidgets import QWebEngineView
from PySide6.QtWidgets import QDialog, QLabel, QPushButton, QVBoxLayout, QWidget

from checkout_desktop.domain.three_ds import Challenge
from checkout_desktop.ui.chromium import note_engine_starting
from checkout_desktop.ui.webview import (
    _SETTINGS_OFF,
    _SETTINGS_ON,
    SCHEME,
    LockedPage,
    _cancel_download,
)

logger = logging.getLogger(__name__)

CHALLENGE_HOST = "challenge"
CHALLENGE_PATH = "/start"


def challenge_url() -> QUrl:
    return QUrl(f"{SCHEME}://{CHALLENGE_HOST}{CHALLENGE_PATH}")


def step_up_page(challenge: Challenge) -> bytes:
    """Our page: a form that posts the JWT to the step-up address as soon as it loads."""
    action = html.escape(challenge.step_up_url, quote=True)
    token = html.escape(challenge.access_token, quote=True)
    return (
        "<!doctype html><html><head><meta charset='utf-8'>"
        "<style>html,body{margin:0;background:#fff}</style></head><body>"
        f"<form id='step-up' method='post' action='{action}'>"
        f"<input type='hidden' name='JWT' value='{token}'></form>"
        "<script>document.getElementById('step-up').submit();</script>"
        "</body></html>"
    ).encode()


def _csp(challenge: Challenge) -> bytes:
    host = QUrl(challenge.step_up_url).host()
    return (
        f"default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
        f"form-action https://{host}; base-uri 'none'"
    ).encode()


class _StartPage(QWebEngineUrlSchemeHandler):
    """Serves our one page (the auto-posting form) and nothing else."""

    def __init__(self, challenge: Challenge, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._challenge = challenge

    def requestStarted(self, job: QWebEngineUrlRequestJob) -> None:
        url = job.requestUrl()
        method = bytes(job.requestMethod().data())
        if url.host() != CHALLENGE_HOST or url.path() != CHALLENGE_PATH or method != b"GET":
            job.fail(QWebEngineUrlRequestJob.Error.UrlNotFound)
            return
        body = QBuffer(job)
        body.setData(QByteArray(step_up_page(self._challenge)))
        body.open(QIODevice.OpenModeFlag.ReadOnly)
        headers = {b"Content-Security-Policy": _csp(self._challenge), b"Cache-Control": b"no-store"}
        # Qt maps the dict to a multimap: each value goes in a one-item list (a bare value
        # would become one header per character).
        job.setAdditionalResponseHeaders(
            cast(Any, {QByteArray(name): [QByteArray(value)] for name, value in headers.items()})
        )
        job.reply(QByteArray(b"text/html"), body)


class _ChallengeGuard(QWebEngineUrlRequestInterceptor):
    """Every request: our start page, or https on the step-up host (port 443); nothing else."""

    def __init__(self, host: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._host = host

    def interceptRequest(self, info: QWebEngineUrlRequestInfo) -> None:
        url = info.requestUrl()
        if url.scheme() == SCHEME and url.host() == CHALLENGE_HOST:
            return
        if url.scheme() == "https" and url.host().lower() == self._host and url.port(443) == 443:
            return
        logger.warning("challenge view: blocked a request to %s://%s", url.scheme(), url.host())
        info.block(True)


class ChallengePage(LockedPage):
    """Navigation stays on our start page and the step-up host, in any of its frames."""

    left = Signal(str)
    """The page itself tried to go to an address it may not (scheme and host): the customer
    would be sent elsewhere, so the challenge cannot go on. A frame inside it that is refused
    only stays blank, and a new window is simply not opened: neither ends the challenge."""

    def __init__(self, profile: QWebEngineProfile, host: str, parent: QObject | None) -> None:
        super().__init__(profile, parent)
        self._host = host

    def acceptNavigationRequest(
        self, url: QUrl | str, type: QWebEnginePage.NavigationType, isMainFrame: bool
    ) -> bool:
        target = QUrl(url)
        if target.scheme() == SCHEME and target.host() == CHALLENGE_HOST:
            return isMainFrame and target.path() == CHALLENGE_PATH
        if target.scheme() == "https" and target.host().lower() == self._host:
            return True
        if target.scheme() == "about" and not isMainFrame:
            # An empty frame the bank's page builds for itself.
            return True
        where = self._describe(target)
        logger.warning(
            "challenge view: refused %s navigation (%s) to %s",
            "main-frame" if isMainFrame else "sub-frame",
            type.name,
            where,
        )
        self.navigation_refused.emit(where)
        if isMainFrame:
            self.left.emit(where)
        return False


def build_challenge_profile(challenge: Challenge, parent: QObject) -> QWebEngineProfile:
    """An off-the-record profile for one challenge: our start page and the step-up host."""
    note_engine_starting()
    profile = QWebEngineProfile(parent)
    if not profile.isOffTheRecord():
        raise RuntimeError("QtWebEngine gave a disk-backed profile for the 3DS challenge")
    profile.setHttpCacheType(QWebEngineProfile.HttpCacheType.MemoryHttpCache)
    profile.setPersistentCookiesPolicy(
        QWebEngineProfile.PersistentCookiesPolicy.NoPersistentCookies
    )
    profile.setPersistentPermissionsPolicy(
        QWebEngineProfile.PersistentPermissionsPolicy.AskEveryTime
    )
    profile.setSpellCheckEnabled(False)
    settings = profile.settings()
    for attribute in _SETTINGS_OFF:
        settings.setAttribute(attribute, False)
    for attribute in _SETTINGS_ON:
        settings.setAttribute(attribute, True)
    # The bank's page opens for the customer to type in: it takes the keyboard as it loads.
    settings.setAttribute(QWebEngineSettings.WebAttribute.FocusOnNavigationEnabled, True)
    host = QUrl(challenge.step_up_url).host().lower()
    profile.installUrlSchemeHandler(SCHEME.encode(), _StartPage(challenge, profile))
    profile.setUrlRequestInterceptor(_ChallengeGuard(host, profile))
    profile.downloadRequested.connect(_cancel_download)
    return profile


class ChallengeView(QDialog):
    """The panel the clerk turns toward the customer while the bank asks for a confirmation."""

    cancelled = Signal(str)
    """merchantChargeId: the clerk closed the challenge before it had a result."""
    closed = Signal()
    """The panel went away (a result, the clerk's cancel, a page that left)."""
    navigated_away = Signal(str)
    """merchantChargeId: the bank's page tried to leave for an address the view refuses; the
    panel has closed and the challenge is over."""

    def __init__(self, challenge: Challenge, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        if not challenge.step_up_url.lower().startswith("https://"):
            raise ValueError("a 3DS step-up address must be https://")
        self.challenge = challenge
        self._finished = False
        self._closed = False
        self.setObjectName("threeDsChallenge")
        self.setWindowTitle(self.tr("Bank confirmation"))
        self.setModal(False)
        self.heading = QLabel(
            self.tr("Hand this to the customer: the bank asks for a confirmation"), self
        )
        self.heading.setObjectName("challengeHeading")
        self.heading.setWordWrap(True)
        font = self.heading.font()
        font.setPointSizeF(font.pointSizeF() * 1.3)
        font.setBold(True)
        self.heading.setFont(font)
        self.view = QWebEngineView(self)
        self.view.setObjectName("challengeView")
        self.profile = build_challenge_profile(challenge, self)
        host = QUrl(challenge.step_up_url).host().lower()
        self.page = ChallengePage(self.profile, host, self.view)
        self.view.setPage(self.page)
        # Queued: the panel closes (and its page stops) after Chromium's navigation callback
        # has returned, never inside it.
        self.page.left.connect(self._left, Qt.ConnectionType.QueuedConnection)
        self.view.setAcceptDrops(False)
        self.view.setFixedSize(challenge.width, challenge.height)
        self.cancel_button = QPushButton(self.tr("Cancel the confirmation"), self)
        self.cancel_button.setObjectName("cancelChallenge")
        self.cancel_button.clicked.connect(self.cancel)
        layout = QVBoxLayout(self)
        layout.addWidget(self.heading)
        layout.addWidget(self.view)
        layout.addWidget(self.cancel_button)

    def start(self) -> None:
        """Show the panel and load the bank's page (through our auto-posting form)."""
        self.show()
        self.page.load(challenge_url())

    def cancel(self) -> None:
        if self._finished:
            return
        self._finished = True
        logger.info("3DS challenge of %s cancelled by the clerk", self.challenge.merchant_charge_id)
        self.cancelled.emit(self.challenge.merchant_charge_id)
        self.close_view()

    def _left(self, where: str) -> None:
        if self._finished:
            return
        self._finished = True
        logger.warning(
            "3DS challenge of %s ended: the bank's page tried to go to %s",
            self.challenge.merchant_charge_id,
            where,
        )
        self.navigated_away.emit(self.challenge.merchant_charge_id)
        self.close_view()

    def close_view(self) -> None:
        """The result is known (or the clerk cancelled): the bank's page goes away at once."""
        self._finished = True
        if self._closed:
            return
        self._closed = True
        self.page.triggerAction(QWebEnginePage.WebAction.Stop)
        self.hide()
        self.closed.emit()
        owner = self.parentWidget()
        if owner is not None:
            # The panel was the active window: the clerk's keys (Ctrl+Enter, F2) work again
            # only once the window it came from is active.
            window = owner.window()
            window.raise_()
            window.activateWindow()
        self.deleteLater()

    def reject(self) -> None:
        # Escape or the window's close button: the same as Cancel.
        self.cancel()


__all__ = ["ChallengePage", "ChallengeView", "challenge_url", "step_up_page"]
