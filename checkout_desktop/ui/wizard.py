"""First-run setup: environment, credentials to the keychain, webhook, and a connection test.

The built-in sandbox is preselected, so a new user only presses Next a few times and charges a
test card a minute later. A real environment's secrets go to the keychain when their page is
accepted and are never written to the settings file. The language chosen on the first page
applies at once (every page retranslates itself); the shop page asks for the name receipts
print and, recommended, a supervisor PIN for refunds.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Awaitable, Callable

from pydantic import SecretStr
from PySide6.QtCore import QCoreApplication, QEvent, Qt, Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QComboBox,
    QFormLayout,
    QFrame,
    QLabel,
    QLineEdit,
    QListWidget,
    QPushButton,
    QRadioButton,
    QScrollArea,
    QSpinBox,
    QVBoxLayout,
    QWidget,
    QWizard,
    QWizardPage,
)

from checkout_desktop.doctor.store_check import StoreTest, saved_password, try_store
from checkout_desktop.domain import documents
from checkout_desktop.domain.store_host import host_problem
from checkout_desktop.inbox.url_rules import check_notification_url
from checkout_desktop.secrets import KeychainUnavailable, SecretName, SecretStore
from checkout_desktop.settings import Profile, ProfileKind, Settings
from checkout_desktop.ui.check_list import CheckResult, fill_list
from checkout_desktop.ui.labels import profile_label, sdk_kind_box
from checkout_desktop.ui.problem_texts import keychain_text, store_host_text, url_rules_text
from checkout_desktop.ui.store_choice import (
    StoreChoice,
    relayout,
    store_test_detail,
    store_test_text,
)
from checkout_desktop.ui.supervisor import PinError, hash_pin

logger = logging.getLogger(__name__)

_CLIENT_ID = re.compile(r"^[\w\-]+$")
_CLIENT_SECRET = re.compile(r"^\w+$")


def _held(secrets: SecretStore, profile: str, name: SecretName) -> bool:
    """Whether the keychain holds this secret of `profile` (False when it cannot be asked)."""
    try:
        return secrets.get(profile, name) is not None
    except KeychainUnavailable:
        return False


ConnectionTester = Callable[[Settings], Awaitable[list[CheckResult]]]
"""Runs the connection test for the settings chosen so far (the composition root provides it)."""


class _Page(QWizardPage):
    def wizard_settings(self) -> Settings:
        wizard = self.wizard()
        assert isinstance(wizard, FirstRunWizard)
        return wizard.settings

    def retranslate(self) -> None:
        """Set every text of the page in the current language (at start and on a change)."""

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)


class EnvironmentPage(_Page):
    language_chosen = Signal(object)
    """The language setting picked ("pt_BR", "en" or None for the system's), as it changes."""

    def __init__(self, settings: Settings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._profiles = dict(settings.profiles)
        layout = QVBoxLayout(self)
        self.group = QButtonGroup(self)
        self.buttons: dict[str, QRadioButton] = {}
        for name in settings.profiles:
            button = QRadioButton(self)
            button.setObjectName(f"profile-{name}")
            self.group.addButton(button)
            self.buttons[name] = button
            layout.addWidget(button)
        chosen = settings.active_profile if settings.first_run_done else _builtin(settings)
        self.buttons.get(chosen, next(iter(self.buttons.values()))).setChecked(True)
        self.language = QComboBox(self)
        self.language.setObjectName("language")
        self.language.addItem("", None)
        self.language.addItem("Português (Brasil)", "pt_BR")
        self.language.addItem("English", "en")
        index = self.language.findData(settings.ui.locale)
        self.language.setCurrentIndex(max(index, 0))
        self.language_label = QLabel(self)
        self.language_label.setBuddy(self.language)
        form = QFormLayout()
        form.addRow(self.language_label, self.language)
        layout.addSpacing(12)
        layout.addLayout(form)
        layout.addStretch(1)
        self.retranslate()
        self.language.currentIndexChanged.connect(
            lambda _index: self.language_chosen.emit(self.language.currentData())
        )

    def retranslate(self) -> None:
        self.setTitle(self.tr("Environment"))
        self.setSubTitle(
            self.tr(
                "Where charges go. The built-in sandbox needs no account: it plays the service "
                "on this computer, with test cards."
            )
        )
        for name, button in self.buttons.items():
            profile = self._profiles[name]
            button.setText(profile_label(profile))
            button.setToolTip(_profile_help(profile))
        self.language.setItemText(0, self.tr("System language"))
        self.language_label.setText(self.tr("&Language"))

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
        self.sdk_kind = sdk_kind_box(self)
        self.sdk_kind.setObjectName("sdkKind")
        self.error = QLabel(self)
        self.error.setObjectName("credentialsError")
        self.error.setWordWrap(True)
        self.error.setStyleSheet("color: #b3261e;")
        self.labels = [QLabel(self) for _ in range(5)]
        form = QFormLayout(self)
        for label, edit in zip(
            self.labels,
            (
                self.client_id,
                self.client_secret,
                self.merchant_document,
                self.sdk_token,
                self.sdk_kind,
            ),
            strict=True,
        ):
            label.setBuddy(edit)
            form.addRow(label, edit)
        form.addRow(self.error)
        for edit in (self.client_id, self.client_secret, self.merchant_document, self.sdk_token):
            edit.textChanged.connect(self.completeChanged)
        self._stored: set[SecretName] = set()
        """The secrets the keychain already holds for the chosen environment (an empty field
        keeps them; one typed replaces them)."""
        self.retranslate()

    def _secret_edits(self) -> tuple[tuple[QLineEdit, SecretName], ...]:
        return (
            (self.client_secret, SecretName.CLIENT_SECRET),
            (self.sdk_token, SecretName.SDK_MERCHANT_TOKEN),
        )

    def _show_stored(self) -> None:
        for edit, name in self._secret_edits():
            edit.setPlaceholderText(
                self.tr("stored in the keychain; type to replace") if name in self._stored else ""
            )

    def retranslate(self) -> None:
        self.setTitle(self.tr("Credentials"))
        self.setSubTitle(
            self.tr(
                "From the merchant panel (Integrations → Checkout). The secret and the SDK "
                "token go to this computer's keychain, never to a file."
            )
        )
        for label, text in zip(
            self.labels,
            (
                self.tr("Client id"),
                self.tr("Client secret"),
                self.tr("Merchant CNPJ"),
                self.tr("Card SDK token"),
                self.tr("Card SDK token kind"),
            ),
            strict=True,
        ):
            label.setText(text)
        self._show_stored()

    def initializePage(self) -> None:
        settings = self.wizard_settings()
        profile = settings.profile
        self.client_id.setText(profile.client_id)
        self.merchant_document.setText(profile.merchant_document)
        self.sdk_kind.setCurrentIndex(max(self.sdk_kind.findData(profile.sdk_credential), 0))
        self._stored = {
            name
            for _edit, name in self._secret_edits()
            if _held(self._secrets, settings.active_profile, name)
        }
        self._show_stored()
        self.error.clear()

    def isComplete(self) -> bool:
        return all(
            edit.text().strip() for edit in (self.client_id, self.merchant_document)
        ) and all(
            edit.text().strip() or name in self._stored for edit, name in self._secret_edits()
        )

    def validatePage(self) -> bool:
        client_id = self.client_id.text().strip()
        secret = self.client_secret.text().strip()
        if not _CLIENT_ID.match(client_id):
            self.error.setText(self.tr("The client id takes letters, digits, '_' and '-' only."))
            return False
        if secret and not _CLIENT_SECRET.match(secret):
            self.error.setText(self.tr("The client secret takes letters, digits and '_' only."))
            return False
        try:
            cnpj = documents.validate_cnpj(self.merchant_document.text())
        except documents.DocumentError:
            self.error.setText(self.tr("The merchant CNPJ is not valid; check its 14 digits."))
            return False
        settings = self.wizard_settings()
        name = settings.active_profile
        # An empty field keeps what the keychain holds (isComplete asks for one or the other).
        typed = [(edit, key) for edit, key in self._secret_edits() if edit.text().strip()]
        try:
            for edit, key in typed:
                self._secrets.set(name, key, edit.text().strip())
                self._stored.add(key)
        except KeychainUnavailable as exc:
            self.error.setText(keychain_text(exc))
            return False
        profile = settings.profiles[name]
        profile.client_id = client_id
        profile.merchant_document = cnpj
        profile.sdk_credential = self.sdk_kind.currentData()
        # The fields are emptied once stored: the secret lives in the keychain from now on.
        self.client_secret.clear()
        self.sdk_token.clear()
        self._show_stored()
        self.error.clear()
        return True


class WebhookPage(_Page):
    """Listener port, tunnel mode and public URL (checked by the service's rules), token."""

    def __init__(self, secrets: SecretStore, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._secrets = secrets
        self.port = QSpinBox(self)
        self.port.setObjectName("listenerPort")
        self.port.setRange(1024, 65535)
        self.tunnel = QComboBox(self)
        self.tunnel.setObjectName("tunnelMode")
        self.tunnel.addItem("", "none")
        self.tunnel.addItem("", "manual")
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
        self.port_label = QLabel(self)
        self.tunnel_label = QLabel(self)
        self.public_url_label = QLabel(self)
        self.token_label = QLabel(self)
        self.form = QFormLayout(self)
        self.form.addRow(self.note)
        self.form.addRow(self.port_label, self.port)
        self.form.addRow(self.tunnel_label, self.tunnel)
        self.form.addRow(self.public_url_label, self.public_url)
        self.form.addRow(self.token_label, self.token)
        self.form.addRow(self.error)
        self.tunnel.currentIndexChanged.connect(self._mode_changed)
        self.public_url.textChanged.connect(self._check_url)
        self.token.textChanged.connect(self.completeChanged)
        self._token_stored = False
        """The keychain already holds the environment's webhook token (an empty field keeps it)."""
        self.retranslate()

    def retranslate(self) -> None:
        self.setTitle(self.tr("Webhook"))
        self.tunnel.setItemText(0, self.tr("No tunnel (local only)"))
        self.tunnel.setItemText(1, self.tr("My own HTTPS URL (manual)"))
        self.port_label.setText(self.tr("Listener port"))
        self.tunnel_label.setText(self.tr("Tunnel"))
        self.public_url_label.setText(self.tr("Public URL"))
        self.token_label.setText(self.tr("Webhook token"))
        self._show_stored()
        if self.wizard() is not None:
            self._show_note()
            self._check_url()

    def _builtin(self) -> bool:
        return self.wizard_settings().profile.is_builtin_sandbox

    def _show_stored(self) -> None:
        self.token.setPlaceholderText(
            self.tr("stored in the keychain; type to replace") if self._token_stored else ""
        )

    def initializePage(self) -> None:
        settings = self.wizard_settings()
        self.port.setValue(settings.listener.port or 8787)
        builtin = self._builtin()
        self.tunnel.setCurrentIndex(max(self.tunnel.findData(settings.tunnel.mode), 0))
        self.public_url.setText(settings.tunnel.public_url or "")
        if builtin:
            self.tunnel.setCurrentIndex(0)
        self._token_stored = not builtin and _held(
            self._secrets, settings.active_profile, SecretName.WEBHOOK_TOKEN
        )
        self._show_stored()
        self._show_note()
        # Rows with nothing to enter are hidden whole, label included.
        for field in (self.tunnel, self.public_url, self.token):
            self.form.setRowVisible(field, not builtin)
        self._mode_changed()

    def _show_note(self) -> None:
        if self._builtin():
            self.note.setText(
                self.tr(
                    "The built-in sandbox delivers its notifications straight to this "
                    "computer: no tunnel and no token to enter."
                )
            )
        else:
            self.note.setText(
                self.tr(
                    "The service reaches the terminal through a public HTTPS URL. Save it in "
                    "the merchant panel as the notification URL, with the token shown there."
                )
            )

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
        url = self.public_url.text().strip()
        problems = check_notification_url(url)
        if not problems:
            return None
        return url_rules_text(url, problems)

    def isComplete(self) -> bool:
        if self._builtin():
            return True
        if self.url_problem() is not None:
            return False
        return bool(self.token.text().strip()) or self._token_stored

    def validatePage(self) -> bool:
        settings = self.wizard_settings()
        settings.listener.port = self.port.value()
        if self._builtin():
            settings.tunnel.mode = "none"
            return True
        mode = self.tunnel.currentData()
        settings.tunnel.mode = mode
        settings.tunnel.public_url = self.public_url.text().strip() if mode == "manual" else None
        token = self.token.text().strip()
        if token:  # empty: the keychain's token stays (isComplete asks for one or the other)
            try:
                self._secrets.set(settings.active_profile, SecretName.WEBHOOK_TOKEN, token)
            except KeychainUnavailable as exc:
                self.error.setText(keychain_text(exc))
                return False
            self._token_stored = True
        self.token.clear()
        self._show_stored()
        self.error.clear()
        return True


class ShopPage(_Page):
    """The name receipts print, recommended, a supervisor PIN for refunds and captures, and
    where the sales are kept (this computer, or the shop's shared database)."""

    def __init__(
        self, parent: QWidget | None = None, *, secrets: SecretStore | None = None
    ) -> None:
        super().__init__(parent)
        self._secrets = secrets
        self.store_choice = StoreChoice(secrets, self)
        self.shop_name = QLineEdit(self)
        self.shop_name.setObjectName("shopName")
        self.shop_name.setMaxLength(80)
        self.pin = QLineEdit(self)
        self.pin.setObjectName("supervisorPin")
        self.pin.setEchoMode(QLineEdit.EchoMode.Password)
        self.pin.setMaxLength(8)
        self.pin_again = QLineEdit(self)
        self.pin_again.setObjectName("supervisorPinAgain")
        self.pin_again.setEchoMode(QLineEdit.EchoMode.Password)
        self.pin_again.setMaxLength(8)
        self.pin_note = QLabel(self)
        self.pin_note.setObjectName("pinNote")
        self.pin_note.setWordWrap(True)
        self.error = QLabel(self)
        self.error.setObjectName("shopError")
        self.error.setWordWrap(True)
        self.error.setStyleSheet("color: #b3261e;")
        self.name_label = QLabel(self)
        self.name_label.setBuddy(self.shop_name)
        self.pin_label = QLabel(self)
        self.pin_label.setBuddy(self.pin)
        self.pin_again_label = QLabel(self)
        self.pin_again_label.setBuddy(self.pin_again)
        # The shared database's fields make this page taller than a shop PC's screen allows:
        # it scrolls rather than squash them.
        content = QWidget(self)
        content.setObjectName("shopPageContent")
        form = QFormLayout(content)
        form.addRow(self.name_label, self.shop_name)
        form.addRow(self.pin_label, self.pin)
        form.addRow(self.pin_again_label, self.pin_again)
        form.addRow(self.pin_note)
        form.addRow(self.store_choice)
        form.addRow(self.error)
        self.scroll_area = QScrollArea(self)
        self.scroll_area.setObjectName("shopPageScroll")
        self.scroll_area.setWidgetResizable(True)
        self.scroll_area.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll_area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.scroll_area.setWidget(content)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(self.scroll_area)
        self.pin.textChanged.connect(self._show_pin_note)
        self._store_problem_shown = False
        """The error line says what is wrong with the store's fields (so it follows them)."""
        self._trial: asyncio.Future[StoreTest] | None = None
        self._tried: tuple[str, str, bool] | None = None
        """The address and password typed last tried, and whether they may be kept."""
        choice = self.store_choice
        for edit in (choice.host, choice.database, choice.user, choice.password):
            edit.textChanged.connect(self._store_fields_changed)
        choice.port.valueChanged.connect(self._store_fields_changed)
        choice.sslmode.currentIndexChanged.connect(self._store_fields_changed)
        choice.local.toggled.connect(self._store_fields_changed)
        self.retranslate()

    def retranslate(self) -> None:
        self.setTitle(self.tr("Shop"))
        self.setSubTitle(
            self.tr("The name printed on receipts, and who may refund. Both can change later.")
        )
        self.shop_name.setPlaceholderText(self.tr("printed on receipts"))
        self.name_label.setText(self.tr("Shop &name"))
        self.pin_label.setText(self.tr("Supervisor &PIN (recommended)"))
        self.pin_again_label.setText(self.tr("PIN &again"))
        self._show_pin_note()

    def _show_pin_note(self, *_args: object) -> None:
        if self.pin.text():
            self.pin_note.setText(
                self.tr(
                    "Refunds, captures of earlier days' charges and ending an unanswered charge "
                    "will ask for this PIN (4 to 8 digits)."
                )
            )
        else:
            self.pin_note.setText(
                self.tr(
                    "Without a PIN anyone at the terminal can refund a sale, capture earlier "
                    "days' charges or end an unanswered charge. A PIN of 4 to 8 digits, known "
                    "to the owner or supervisor, is recommended."
                )
            )

    def initializePage(self) -> None:
        settings = self.wizard_settings()
        self.shop_name.setText(settings.ui.shop_name)
        self.store_choice.load(settings.shared_store_url)
        self._show_error("")

    def _show_error(self, text: str, *, store: bool = False, detail: str = "") -> None:
        self.error.setText(text)
        self.error.setToolTip(detail)
        self._store_problem_shown = store and bool(text)
        relayout(self.error)

    def store_problems(self) -> tuple[str | None, list[str]]:
        """The shared store's address and what is wrong with it, in the screen's language (a
        password typed into Server is said without being repeated)."""
        choice = self.store_choice
        if choice.shared.isChecked():
            problem = host_problem(choice.host.text().strip())
            if problem is not None:
                return None, [store_host_text(problem)]
        return choice.chosen_url()

    def _store_tried(self, url: str) -> bool:
        """Whether the chosen database may be kept: the server accepted it (with the password
        typed, else the keychain's) and the terminal can use it, or the server does not answer
        and Next was pressed again after saying what that means. Otherwise a trial starts and
        the page waits for it."""
        typed = self.store_choice.password.text()
        if self._tried is not None and self._tried[:2] == (url, typed):
            return self._tried[2]
        if self._trial is not None and not self._trial.done():
            return False
        self._show_error(self.tr("Trying the database…"))
        self.error.setStyleSheet("")
        password = SecretStr(typed) if typed else None
        if password is None and self._secrets is not None:
            password = saved_password(url, self._secrets)
        self._trial = asyncio.ensure_future(try_store(url, password))
        self._trial.add_done_callback(lambda task: self._trial_done(task, url, typed))
        return False

    def _trial_done(self, task: asyncio.Future[StoreTest], url: str, typed: str) -> None:
        self.error.setStyleSheet("color: #b3261e;")
        if task.cancelled():
            self._show_error("")
            return
        exc = task.exception()
        found = StoreTest(ok=False, problem="refused", detail=str(exc)) if exc else task.result()
        if exc is not None:
            logger.error("the shared database could not be tried: %s", exc)
        if (self.store_problems()[0], self.store_choice.password.text()) != (url, typed):
            self._show_error("")  # the fields changed meanwhile: Next tries them anew
            return
        if found.ok:
            self._tried = (url, typed, True)
            self._show_error("")
            wizard = self.wizard()
            if wizard is not None and wizard.currentPage() is self:
                wizard.next()
            return
        said, detail = store_test_text(found), store_test_detail(found)
        if found.problem == "unreachable":
            # Nothing could be tried: kept only when the owner says so, knowing what it means.
            self._tried = (url, typed, True)
            then = self.tr(
                "Nothing could be tried. Press Next again to keep this database anyway: the "
                "terminal will not start until the server answers. Or correct the fields."
            )
        else:
            # Refused, or a database the terminal cannot use (another program's, none by this
            # name, a newer one's): never kept, so the terminal is never left unable to start.
            self._tried = (url, typed, False)
            if typed and found.problem in ("credentials", "password_missing"):
                then = self.tr("The password was not kept; correct it and press Next again.")
            else:
                then = self.tr(
                    "Nothing was kept: correct the fields and press Next again, or keep the "
                    "sales on this computer."
                )
        self._show_error(said + "\n" + then, store=True, detail=detail)

    def cleanupPage(self) -> None:
        if self._trial is not None and not self._trial.done():
            self._trial.cancel()
        super().cleanupPage()

    def _store_fields_changed(self, *_args: object) -> None:
        # A mistake in Server is said as it is typed; a message about the store's fields (what
        # is missing, or what trying them found) goes once they change, rather than stay
        # beside the corrected fields.
        choice = self.store_choice
        problem = host_problem(choice.host.text().strip()) if choice.shared.isChecked() else None
        if problem is not None:
            self._show_error(store_host_text(problem), store=True)
        elif self._store_problem_shown:
            _url, problems = self.store_problems()
            self._show_error("\n".join(problems), store=True)

    def validatePage(self) -> bool:
        settings = self.wizard_settings()
        pin, again = self.pin.text(), self.pin_again.text()
        if pin or again:
            if pin != again:
                self._show_error(self.tr("The two PINs differ; type the same PIN twice."))
                return False
            try:
                settings.ui.supervisor_pin_hash = hash_pin(pin)
            except PinError:
                self._show_error(self.tr("A supervisor PIN has 4 to 8 digits."))
                return False
        store_url, problems = self.store_problems()
        if problems:
            self._show_error("\n".join(problems), store=True)
            return False
        if store_url is not None:
            if not self._store_tried(store_url):
                return False
            kept = self.store_choice.keep_password(store_url)
            if kept is not None:
                self._show_error(kept)
                return False
        settings.shared_store_url = store_url
        settings.ui.shop_name = " ".join(self.shop_name.text().split())
        # Only the PIN's salted hash is kept; the typed digits leave the fields now.
        self.pin.clear()
        self.pin_again.clear()
        self._show_error("")
        return True


class TestPage(_Page):
    """Fetches a token and checks the listener; the result decides nothing but is shown."""

    finished_checks = Signal()

    def __init__(self, tester: ConnectionTester, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._tester = tester
        self._task: asyncio.Future[list[CheckResult]] | None = None
        self.results: list[CheckResult] = []
        self._shown = False
        """The last test's results are on the page (its task is done a moment earlier)."""
        self.run_button = QPushButton(self)
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
        self.retranslate()

    def retranslate(self) -> None:
        self.setTitle(self.tr("Test connection"))
        self.setSubTitle(
            self.tr(
                "Checks the keychain, an access token, a charge query, the card form service "
                "and a test notification, without charging anything."
            )
        )
        self.run_button.setText(self.tr("&Run the test again"))

    def initializePage(self) -> None:
        self.run_checks()

    def run_checks(self) -> None:
        if self._task is not None and not self._task.done():
            return
        self.results = []
        self._shown = False
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
        fill_list(self.list, self.results)
        if self.results and all(r.ok and not r.warning for r in self.results):
            self.summary.setText(self.tr("Everything works. Press Finish to start charging."))
        elif self.results and all(r.ok for r in self.results):
            self.summary.setText(
                self.tr(
                    "It works, with warnings (marked ⚠ above). You can charge now and fix them "
                    "later in Settings."
                )
            )
        elif any(not r.ok and r.blocks_start for r in self.results):
            # Settings are in the terminal, which will not open without its database.
            self.summary.setText(
                self.tr(
                    "The shop's shared database cannot be used (details above): the terminal "
                    "will not start until it is fixed. Go back to Shop to correct it, or to keep "
                    "the sales on this computer."
                )
            )
        elif self.results:
            self.summary.setText(
                self.tr(
                    "Something failed (details above). You can go back and fix it, or finish "
                    "now and fix it later in Settings."
                )
            )
        self._shown = True
        self.completeChanged.emit()
        self.finished_checks.emit()

    def isComplete(self) -> bool:
        return self._task is not None and self._task.done() and self._shown

    def cleanupPage(self) -> None:
        if self._task is not None and not self._task.done():
            self._task.cancel()


def _with_store_check(tester: ConnectionTester, secrets: SecretStore) -> ConnectionTester:
    """The connection test, and a check of the shop's shared database when one is chosen
    (with the password the keychain keeps, as the terminal will connect)."""

    async def checks(settings: Settings) -> list[CheckResult]:
        results = await tester(settings)
        url = settings.shared_store_url
        if url:
            found = await try_store(url, saved_password(url, secrets))
            results = [
                *results,
                CheckResult(
                    QCoreApplication.translate("TestPage", "Shared database"),
                    found.ok,
                    store_test_text(found),
                    technical=store_test_detail(found),
                    blocks_start=True,
                ),
            ]
        return results

    return checks


class FirstRunWizard(QWizard):
    """Edits a copy of the settings; `settings` holds the result once accepted.

    `on_language` installs the language picked on the first page (the caller owns the
    translators); every page then retranslates itself at once.
    """

    def __init__(
        self,
        settings: Settings,
        *,
        secrets: SecretStore,
        tester: ConnectionTester,
        on_language: Callable[[str | None], object] | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("firstRunWizard")
        self.settings = settings.model_copy(deep=True)
        self._on_language = on_language
        self.environment_page = EnvironmentPage(self.settings, self)
        self.credentials_page = CredentialsPage(secrets, self)
        self.webhook_page = WebhookPage(secrets, self)
        self.shop_page = ShopPage(self, secrets=secrets)
        self.test_page = TestPage(_with_store_check(tester, secrets), self)
        self.environment_id = self.addPage(self.environment_page)
        self.credentials_id = self.addPage(self.credentials_page)
        self.webhook_id = self.addPage(self.webhook_page)
        self.shop_id = self.addPage(self.shop_page)
        self.test_id = self.addPage(self.test_page)
        self.environment_page.language_chosen.connect(self._language_chosen)
        self.retranslate()
        # Room for the shop page's fields, within the screen (a shop PC has 1366×768).
        available = self.screen().availableGeometry()
        self.resize(min(760, available.width()), min(660, available.height() - 40))

    def _language_chosen(self, locale: str | None) -> None:
        self.settings.ui.locale = locale
        if self._on_language is not None:
            self._on_language(locale)

    def retranslate(self) -> None:
        self.setWindowTitle(self.tr("Set up checkout-desktop"))
        # QWizard keeps its button texts from construction; set them in the language now.
        for button, text in (
            (QWizard.WizardButton.BackButton, self.tr("< &Back")),
            (QWizard.WizardButton.NextButton, self.tr("&Next >")),
            (QWizard.WizardButton.FinishButton, self.tr("&Finish")),
            (QWizard.WizardButton.CancelButton, self.tr("Cancel")),
        ):
            self.setButtonText(button, text)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate()
        super().changeEvent(event)

    def accept(self) -> None:
        self.settings.first_run_done = True
        super().accept()
