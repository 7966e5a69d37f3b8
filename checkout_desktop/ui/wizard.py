"""First-run setup: environment, credentials to the keychain, webhook, and a connection test.

The built-in sandbox is preselected, so a new user only presses Next a few times and charges a
test card a minute later. A real environment's secrets go to the keychain when their page is
accepted and are never written to the settings file.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QComboBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QRadioButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
    QWizard,
    QWizardPage,
)

from checkout_desktop.domain import documents
from checkout_desktop.inbox.url_rules import check_notification_url
from checkout_desktop.secrets import KeychainUnavailable, SecretName, SecretStore
from checkout_desktop.settings import Profile, ProfileKind, Settings
from checkout_desktop.ui.labels import profile_label

logger = logging.getLogger(__name__)

_CLIENT_ID = re.compile(r"^[\w\-]+$")
_CLIENT_SECRET = re.compile(r"^\w+$")


@dataclass(frozen=True)
class CheckResult:
    """One step of the connection test."""

    name: str
    ok: bool
    detail: str


ConnectionTester = Callable[[Settings], Awaitable[list[CheckResult]]]
"""Runs the connection test for the settings chosen so far (the composition root provides it)."""


class _Page(QWizardPage):
    def wizard_settings(self) -> Settings:
        wizard = self.wizard()
        assert isinstance(wizard, FirstRunWizard)
        return wizard.settings


class EnvironmentPage(_Page):
    def __init__(self, settings: Settings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setTitle(self.tr("Environment"))
        self.setSubTitle(
            self.tr(
                "Where charges go. The built-in sandbox needs no account: it plays the service "
                "on this computer, with test cards."
            )
        )
        layout = QVBoxLayout(self)
        self.group = QButtonGroup(self)
        self.buttons: dict[str, QRadioButton] = {}
        for name, profile in settings.profiles.items():
            button = QRadioButton(profile_label(profile), self)
            button.setObjectName(f"profile-{name}")
            button.setToolTip(_profile_help(profile))
            self.group.addButton(button)
            self.buttons[name] = button
            layout.addWidget(button)
        chosen = settings.active_profile if settings.first_run_done else _builtin(settings)
        self.buttons.get(chosen, next(iter(self.buttons.values()))).setChecked(True)
        self.language = QComboBox(self)
        self.language.setObjectName("language")
        self.language.addItem(self.tr("System language"), None)
        self.language.addItem("Português (Brasil)", "pt_BR")
        self.language.addItem("English", "en")
        index = self.language.findData(settings.ui.locale)
        self.language.setCurrentIndex(max(index, 0))
        form = QFormLayout()
        form.addRow(self.tr("Language"), self.language)
        layout.addSpacing(12)
        layout.addLayout(form)
        layout.addStretch(1)

    def chosen_profile(self) -> str:
        for name, button in self.buttons.items():
            if button.isChecked():
                return name
        raise LookupError("no environment is selected")

    def validatePage(self) -> bool:
        settings = self.wizard_settings()
        settings.active_profile = self.chosen_profile()
        settings.ui.locale = self.language.currentData()
        return True

    def nextId(self) -> int:
        wizard = self.wizard()
        assert isinstance(wizard, FirstRunWizard)
        profile = self.wizard_settings().profiles[self.chosen_profile()]
        if profile.is_builtin_sandbox:
            return wizard.webhook_id
        return wizard.credentials_id


def _builtin(settings: Settings) -> str:
    for name, profile in settings.profiles.items():
        if profile.is_builtin_sandbox:
            return name
    return settings.active_profile


def _profile_help(profile: Profile) -> str:
    if profile.kind == ProfileKind.BUILTIN_SANDBOX:
        return QCoreApplication.translate(
            "EnvironmentPage", "Runs on this computer; test cards only; nothing is charged."
        )
    if profile.kind == ProfileKind.SERVICE_SANDBOX:
        return QCoreApplication.translate(
            "EnvironmentPage", "The service's own test environment; needs sandbox credentials."
        )
    if profile.kind == ProfileKind.PRODUCTION:
        return QCoreApplication.translate("EnvironmentPage", "Real charges on real cards.")
    return QCoreApplication.translate("EnvironmentPage", "A custom environment.")


class CredentialsPage(_Page):
    """client_id and merchant CNPJ to settings; client secret and SDK token to the keychain."""

    def __init__(self, secrets: SecretStore, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._secrets = secrets
        self.setTitle(self.tr("Credentials"))
        self.setSubTitle(
            self.tr(
                "From the merchant panel (Integrations → Checkout). The secret and the SDK "
                "token go to this computer's keychain, never to a file."
            )
        )
        self.client_id = QLineEdit(self)
        self.client_id.setObjectName("clientId")
        self.client_secret = QLineEdit(self)
        self.client_secret.setObjectName("clientSecret")
        self.client_secret.setEchoMode(QLineEdit.EchoMode.Password)
        self.merchant_document = QLineEdit(self)
        self.merchant_document.setObjectName("merchantDocument")
        self.merchant_document.setPlaceholderText("00.000.000/0000-00")
        self.sdk_token = QLineEdit(self)
        self.sdk_token.setObjectName("sdkToken")
        self.sdk_token.setEchoMode(QLineEdit.EchoMode.Password)
        self.error = QLabel(self)
        self.error.setObjectName("credentialsError")
        self.error.setWordWrap(True)
        self.error.setStyleSheet("color: #b3261e;")
        form = QFormLayout(self)
        form.addRow(self.tr("Client id"), self.client_id)
        form.addRow(self.tr("Client secret"), self.client_secret)
        form.addRow(self.tr("Merchant CNPJ"), self.merchant_document)
        form.addRow(self.tr("Card SDK token"), self.sdk_token)
        form.addRow(self.error)
        for edit in (self.client_id, self.client_secret, self.merchant_document, self.sdk_token):
            edit.textChanged.connect(self.completeChanged)

    def initializePage(self) -> None:
        profile = self.wizard_settings().profile
        self.client_id.setText(profile.client_id)
        self.merchant_document.setText(profile.merchant_document)
        self.error.clear()

    def isComplete(self) -> bool:
        return all(
            edit.text().strip()
            for edit in (self.client_id, self.client_secret, self.merchant_document, self.sdk_token)
        )

    def validatePage(self) -> bool:
        client_id = self.client_id.text().strip()
        secret = self.client_secret.text().strip()
        if not _CLIENT_ID.match(client_id):
            self.error.setText(self.tr("The client id takes letters, digits, '_' and '-' only."))
            return False
        if not _CLIENT_SECRET.match(secret):
            self.error.setText(self.tr("The client secret takes letters, digits and '_' only."))
            return False
        try:
            cnpj = documents.validate_cnpj(self.merchant_document.text())
        except documents.DocumentError:
            self.error.setText(self.tr("The merchant CNPJ is not valid; check its 14 digits."))
            return False
        settings = self.wizard_settings()
        name = settings.active_profile
        try:
            self._secrets.set(name, SecretName.CLIENT_SECRET, secret)
            self._secrets.set(name, SecretName.SDK_MERCHANT_TOKEN, self.sdk_token.text().strip())
        except KeychainUnavailable as exc:
            self.error.setText(str(exc))
            return False
        profile = settings.profiles[name]
        profile.client_id = client_id
        profile.merchant_document = cnpj
        # The fields are emptied once stored: the secret lives in the keychain from now on.
        self.client_secret.clear()
        self.sdk_token.clear()
        return True


class WebhookPage(_Page):
    """Listener port, tunnel mode and public URL (checked by the service's rules), token."""

    def __init__(self, secrets: SecretStore, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._secrets = secrets
        self.setTitle(self.tr("Webhook"))
        self.port = QSpinBox(self)
        self.port.setObjectName("listenerPort")
        self.port.setRange(1024, 65535)
        self.tunnel = QComboBox(self)
        self.tunnel.setObjectName("tunnelMode")
        self.tunnel.addItem(self.tr("No tunnel (local only)"), "none")
        self.tunnel.addItem(self.tr("My own HTTPS URL (manual)"), "manual")
        self.tunnel.addItem("cloudflared", "cloudflared")
        self.tunnel.addItem("ngrok", "ngrok")
        self.public_url = QLineEdit(self)
        self.public_url.setObjectName("publicUrl")
        self.public_url.setPlaceholderText("https://terminal.example.com/webhooks/checkout")
        self.token = QLineEdit(self)
        self.token.setObjectName("webhookToken")
        self.token.setEchoMode(QLineEdit.EchoMode.Password)
        self.note = QLabel(self)
        self.note.setWordWrap(True)
        self.error = QLabel(self)
        self.error.setObjectName("webhookError")
        self.error.setWordWrap(True)
        self.error.setStyleSheet("color: #b3261e;")
        form = QFormLayout(self)
        form.addRow(self.note)
        form.addRow(self.tr("Listener port"), self.port)
        form.addRow(self.tr("Tunnel"), self.tunnel)
        form.addRow(self.tr("Public URL"), self.public_url)
        self.token_label = QLabel(self.tr("Webhook token"), self)
        form.addRow(self.token_label, self.token)
        form.addRow(self.error)
        self.tunnel.currentIndexChanged.connect(self._mode_changed)
        self.public_url.textChanged.connect(self._check_url)
        self.token.textChanged.connect(self.completeChanged)

    def _builtin(self) -> bool:
        return self.wizard_settings().profile.is_builtin_sandbox

    def initializePage(self) -> None:
        settings = self.wizard_settings()
        self.port.setValue(settings.listener.port or 8787)
        builtin = self._builtin()
        self.tunnel.setCurrentIndex(max(self.tunnel.findData(settings.tunnel.mode), 0))
        self.public_url.setText(settings.tunnel.public_url or "")
        if builtin:
            self.note.setText(
                self.tr(
                    "The built-in sandbox delivers its notifications straight to this "
                    "computer: no tunnel and no token to enter."
                )
            )
            self.tunnel.setCurrentIndex(0)
        else:
            self.note.setText(
                self.tr(
                    "The service reaches the terminal through a public HTTPS URL. Save it in "
                    "the merchant panel as the notification URL, with the token shown there."
                )
            )
        for widget in (self.tunnel, self.public_url, self.token, self.token_label):
            widget.setVisible(not builtin)
        self._mode_changed()

    def _mode_changed(self, *_args: object) -> None:
        manual = self.tunnel.currentData() == "manual"
        self.public_url.setEnabled(manual)
        self._check_url()

    def _check_url(self, *_args: object) -> None:
        self.error.setText(self.url_problem() or "")
        self.completeChanged.emit()

    def url_problem(self) -> str | None:
        if self._builtin() or self.tunnel.currentData() != "manual":
            return None
        problems = check_notification_url(self.public_url.text().strip())
        if not problems:
            return None
        return "; ".join(str(p) for p in problems)

    def isComplete(self) -> bool:
        if self._builtin():
            return True
        if self.url_problem() is not None:
            return False
        return bool(self.token.text().strip())

    def validatePage(self) -> bool:
        settings = self.wizard_settings()
        settings.listener.port = self.port.value()
        if self._builtin():
            settings.tunnel.mode = "none"
            return True
        mode = self.tunnel.currentData()
        settings.tunnel.mode = mode
        settings.tunnel.public_url = self.public_url.text().strip() if mode == "manual" else None
        try:
            self._secrets.set(
                settings.active_profile, SecretName.WEBHOOK_TOKEN, self.token.text().strip()
            )
        except KeychainUnavailable as exc:
            self.error.setText(str(exc))
            return False
        self.token.clear()
        return True


class TestPage(_Page):
    """Fetches a token and checks the listener; the result decides nothing but is shown."""

    finished_checks = Signal()

    def __init__(self, tester: ConnectionTester, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._tester = tester
        self._task: asyncio.Future[list[CheckResult]] | None = None
        self.results: list[CheckResult] = []
        self.setTitle(self.tr("Test connection"))
        self.setSubTitle(
            self.tr("Gets an access token and sends a test notification to the listener.")
        )
        self.run_button = QPushButton(self.tr("&Run the test again"), self)
        self.run_button.setObjectName("runTest")
        self.list = QListWidget(self)
        self.list.setObjectName("testResults")
        self.summary = QLabel(self)
        self.summary.setObjectName("testSummary")
        self.summary.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.addWidget(self.list, 1)
        layout.addWidget(self.summary)
        layout.addWidget(self.run_button, 0, Qt.AlignmentFlag.AlignLeft)
        self.run_button.clicked.connect(self.run_checks)

    def initializePage(self) -> None:
        self.run_checks()

    def run_checks(self) -> None:
        if self._task is not None and not self._task.done():
            return
        self.results = []
        self.list.clear()
        self.summary.setText(self.tr("Testing…"))
        self.run_button.setEnabled(False)
        self.completeChanged.emit()
        self._task = asyncio.ensure_future(self._tester(self.wizard_settings()))
        self._task.add_done_callback(self._done)

    def _done(self, task: asyncio.Future[list[CheckResult]]) -> None:
        self.run_button.setEnabled(True)
        if task.cancelled():
            self.summary.setText(self.tr("The test was cancelled."))
        elif (exc := task.exception()) is not None:
            logger.error("the connection test failed: %s", exc)
            self.results = [CheckResult(self.tr("Test"), False, str(exc))]
        else:
            self.results = task.result()
        for result in self.results:
            mark = "✔" if result.ok else "✘"
            item = QListWidgetItem(f"{mark} {result.name}: {result.detail}", self.list)
            item.setForeground(Qt.GlobalColor.darkGreen if result.ok else Qt.GlobalColor.red)
        if self.results and all(r.ok for r in self.results):
            self.summary.setText(self.tr("Everything works. Press Finish to start charging."))
        elif self.results:
            self.summary.setText(
                self.tr(
                    "Something failed (details above). You can go back and fix it, or finish "
                    "now and fix it later in Settings."
                )
            )
        self.completeChanged.emit()
        self.finished_checks.emit()

    def isComplete(self) -> bool:
        return self._task is not None and self._task.done()

    def cleanupPage(self) -> None:
        if self._task is not None and not self._task.done():
            self._task.cancel()


class FirstRunWizard(QWizard):
    """Edits a copy of the settings; `settings` holds the result once accepted."""

    def __init__(
        self,
        settings: Settings,
        *,
        secrets: SecretStore,
        tester: ConnectionTester,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Set up checkout-desktop"))
        self.setObjectName("firstRunWizard")
        self.settings = settings.model_copy(deep=True)
        self.environment_page = EnvironmentPage(self.settings, self)
        self.credentials_page = CredentialsPage(secrets, self)
        self.webhook_page = WebhookPage(secrets, self)
        self.test_page = TestPage(tester, self)
        self.environment_id = self.addPage(self.environment_page)
        self.credentials_id = self.addPage(self.credentials_page)
        self.webhook_id = self.addPage(self.webhook_page)
        self.test_id = self.addPage(self.test_page)
        self.resize(640, 480)

    def accept(self) -> None:
        self.settings.first_run_done = True
        super().accept()
