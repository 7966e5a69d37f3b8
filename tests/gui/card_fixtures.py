"""Card page test support: Chromium flags fixed before QtWebEngine starts, a page driver, waits.

Use it from a test module with `pytest_plugins = ["tests.gui.card_fixtures"]`.

Chromium reads its flags once per process, when the first QtWebEngine profile or page is made,
so this plugin decides them right after collection, before any test runs. It reserves one
"SDK slot" for the whole session: a loopback port and a kept certificate for the SDK's backend
host. Chromium maps that host to the slot and trusts that certificate's key (for that host
only); every other host name fails to resolve, so no test can reach the real card service.
Any sandbox a test starts in this process must serve its SDK backend in the slot
(`sdk_slot.sandbox_args`); `card_sandbox` does that, one sandbox per test module.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import socket
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QCoreApplication, QEvent, QEventLoop
from PySide6.QtWidgets import QApplication

from checkout_desktop.domain.reasons import Reason
from checkout_desktop.sandbox import certs
from checkout_desktop.sandbox.process import SandboxProcess, start_sandbox_process
from checkout_desktop.sandbox.server import SDK_HOST
from checkout_desktop.settings import default_profiles
from checkout_desktop.ui.card_page import CardPage, SdkCredentialSource
from checkout_desktop.ui.chromium import FLAGS_ENV, HostMapping, apply_flags, engine_flags
from checkout_desktop.ui.webview import CardPageConfig, register_schemes

logger = logging.getLogger(__name__)

# Before any QApplication exists: Chromium fixes its scheme table when it starts.
register_schemes()

ISOLATION_RULES = "MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1"


@dataclass(frozen=True)
class SdkSlot:
    """Where every sandbox of this test process serves the SDK backend, and the flags for it."""

    host: str
    port: int
    cert_dir: Path
    spki_sha256_b64: str
    flags: str

    @property
    def sandbox_args(self) -> tuple[str, ...]:
        return ("--sdk-port", str(self.port), "--sdk-cert-dir", str(self.cert_dir))


_slot: SdkSlot | None = None


def _free_loopback_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def pytest_collection_finish(session: pytest.Session) -> None:
    global _slot
    if _slot is not None:
        return
    cert_dir = Path(tempfile.mkdtemp(prefix="checkout-card-sdk-"))
    certificate = certs.load_or_create(cert_dir, SDK_HOST)
    mapping = HostMapping(SDK_HOST, _free_loopback_port(), certificate.spki_sha256_b64)
    # developer=True only keeps an inherited --no-sandbox for a non-root run in a container.
    apply_flags(default_profiles()["builtin-sandbox"], mapping=mapping, developer=True)
    _slot = SdkSlot(
        host=mapping.host,
        port=mapping.port,
        cert_dir=cert_dir,
        spki_sha256_b64=mapping.spki_sha256_b64,
        flags=os.environ[FLAGS_ENV],
    )
    logger.info("card tests: SDK slot on 127.0.0.1:%d", mapping.port)


def pytest_unconfigure(config: pytest.Config) -> None:
    if _slot is not None:
        shutil.rmtree(_slot.cert_dir, ignore_errors=True)


@pytest.fixture(scope="session")
def sdk_slot() -> SdkSlot:
    if _slot is None:
        pytest.fail(
            "the SDK slot is made after collection; load tests.gui.card_fixtures as a plugin"
        )
    return _slot


@dataclass(frozen=True)
class SandboxRun:
    """A sandbox process serving the SDK backend in the slot, and where its log went."""

    process: SandboxProcess
    stderr_log: Path

    @property
    def info(self) -> Any:
        return self.process.info


@pytest.fixture(scope="module")
def card_sandbox(
    sdk_slot: SdkSlot, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[SandboxRun]:
    """The built-in sandbox for one test module, its SDK backend in the session's slot."""
    started = engine_flags()
    if started is not None and started != sdk_slot.flags:
        pytest.fail(
            "QtWebEngine already started in this test process with other Chromium flags (an "
            "earlier test mapped the SDK host elsewhere); start every in-process sandbox with "
            "the sdk_slot fixture's sandbox_args so that all of them share one mapping"
        )
    log_path = tmp_path_factory.mktemp("card-sandbox") / "sandbox-stderr.log"
    with log_path.open("wb") as log:
        process = start_sandbox_process(sdk_slot.sandbox_args, stderr=log, exit_with_parent=True)
    try:
        info = process.info
        assert (info.sdk_host, info.sdk_port, info.sdk_spki_sha256_b64) == (
            sdk_slot.host,
            sdk_slot.port,
            sdk_slot.spki_sha256_b64,
        ), "the sandbox did not take the SDK slot"
        yield SandboxRun(process=process, stderr_log=log_path)
    finally:
        process.stop()


def wait_until(predicate: Callable[[], bool], what: str, timeout_ms: int = 10_000) -> None:
    """Spin Qt until `predicate()` holds; fail with `what` if it does not within the timeout.

    For module-scoped pages, where pytest-qt's function-scoped qtbot is not available.
    """
    deadline = time.monotonic() + timeout_ms / 1000
    while not predicate():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout_ms} ms waiting for {what}")
        QCoreApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 20)
        time.sleep(0.002)


class PageDriver:
    """Drives a loaded CardPage as a person would: fields typed, the button pressed."""

    def __init__(self, card_page: CardPage) -> None:
        self.card_page = card_page

    wait_until = staticmethod(wait_until)

    def js(self, code: str, timeout_ms: int = 5000) -> Any:
        """Run JavaScript in the page and return its (JSON-compatible) result."""
        done: list[Any] = []
        self.card_page.page.runJavaScript(code, 0, lambda result: done.append(result))
        wait_until(lambda: bool(done), f"JavaScript to finish: {code[:60]}", timeout_ms)
        return done[0]

    def type_into(self, field_id: str, text: str) -> None:
        """Set a field's value and fire the input event the page listens to."""
        self.js(
            f"(function () {{ var e = document.getElementById({json.dumps(field_id)});"
            f" e.focus(); e.value = {json.dumps(text)};"
            " e.dispatchEvent(new Event('input', {bubbles: true})); return true; }())"
        )

    def fill(
        self,
        *,
        number: str,
        holder_name: str = "Joao da Silva",
        holder_document: str = "65844359038",
        month: str = "12",
        year: str = "2030",
        cvv: str = "123",
    ) -> None:
        for field_id, text in (
            ("number", number),
            ("holder-name", holder_name),
            ("holder-document", holder_document),
            ("exp-month", month),
            ("exp-year", year),
            ("cvv", cvv),
        ):
            self.type_into(field_id, text)

    def value(self, field_id: str) -> str:
        return str(self.js(f"document.getElementById({json.dumps(field_id)}).value"))

    def text(self, element_id: str) -> str:
        return str(self.js(f"document.getElementById({json.dumps(element_id)}).textContent"))

    def hidden(self, element_id: str) -> bool:
        return bool(self.js(f"document.getElementById({json.dumps(element_id)}).hidden"))

    def state(self) -> dict[str, Any]:
        result = self.js("JSON.stringify(window.checkoutCard.state())")
        return dict(json.loads(str(result)))

    def wait_text(
        self, element_id: str, predicate: Callable[[str], bool], what: str, timeout_ms: int = 10_000
    ) -> str:
        seen: list[str] = []

        def check() -> bool:
            seen.append(self.text(element_id))
            return predicate(seen[-1])

        wait_until(
            check, f"#{element_id} {what} (last text: {seen[-1] if seen else ''!r})", timeout_ms
        )
        return seen[-1]

    def press_submit(self) -> None:
        self.js("document.getElementById('submit').click(); true")

    def all_field_values(self) -> list[str]:
        result = self.js(
            "JSON.stringify(['number','holder-name','holder-document','exp-month','exp-year',"
            "'cvv'].map(function (id) { return document.getElementById(id).value; }))"
        )
        return list(json.loads(str(result)))


class PageRecorder:
    """Everything a CardPage told Python, for assertions."""

    def __init__(self, card_page: CardPage) -> None:
        self.tokens: list[Any] = []
        self.sdk_errors: list[Any] = []
        self.unavailable: list[Reason] = []
        self.ready = 0
        self.navigation_refused: list[str] = []
        self.security_events: list[str] = []
        self.credential_errors: list[Reason] = []
        self.raw_messages: list[tuple[str, str]] = []
        self.refusals: list[str] = []
        card_page.token_created.connect(self.tokens.append)
        card_page.submit_refused.connect(self.refusals.append)
        card_page.sdk_error.connect(self.sdk_errors.append)
        card_page.sdk_unavailable.connect(self.unavailable.append)
        card_page.ready.connect(self._on_ready)
        card_page.navigation_refused.connect(self.navigation_refused.append)
        card_page.security_event.connect(self.security_events.append)
        card_page.credentials_error.connect(self.credential_errors.append)
        card_page.bridge.message_observer = lambda slot, raw: self.raw_messages.append((slot, raw))

    def _on_ready(self) -> None:
        self.ready += 1


class CardUi:
    """What card page tests need, handed out by the `card_ui` fixture.

    Test modules get this through a fixture rather than an import: a plugin module imported
    directly before pytest registers it would escape assertion rewriting.
    """

    isolation_rules = ISOLATION_RULES
    wait_until = staticmethod(wait_until)

    @staticmethod
    def open_page(
        config: CardPageConfig, credentials: SdkCredentialSource | None = None
    ) -> tuple[CardPage, PageDriver, PageRecorder]:
        """Create a CardPage, load it and wait for its handshake (SDK loaded or not)."""
        if QApplication.instance() is None:
            pytest.fail("open_page needs a QApplication: request the qapp fixture first")
        card_page = CardPage(config, credentials=credentials)
        card_page.resize(640, 720)
        card_page.show()
        recorder = PageRecorder(card_page)
        card_page.load()
        wait_until(lambda: card_page.is_ready, "the card page's ready handshake", 20_000)
        return card_page, PageDriver(card_page), recorder

    @staticmethod
    def close_page(card_page: CardPage) -> None:
        card_page.close()
        card_page.deleteLater()
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        QCoreApplication.processEvents()


@pytest.fixture(scope="session")
def card_ui(qapp: QApplication) -> CardUi:
    return CardUi()
