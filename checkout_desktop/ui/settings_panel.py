"""Settings: environment, language, webhook, reconciliation, supervisor PIN, and credentials.

Non-secret values are saved to the settings file; secrets typed here go straight to the
keychain and the fields are emptied (when the keychain cannot be used, the rest is saved and
what needs it stays typed). With a supervisor PIN set, a change to the PIN, the environment,
the credentials, the store or the webhook asks for it first. Changes that decide how the
process starts (environment, language, listener port, tunnel, store) apply at the next start,
and the panel names them.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from checkout_desktop.domain import documents
from checkout_desktop.domain.learned import LEARNED_FLAGS
from checkout_desktop.inbox.url_rules import check_notification_url
from checkout_desktop.secrets import KeychainUnavailable, SecretName, SecretStore
from checkout_desktop.settings import Settings
from checkout_desktop.ui.amount_edit import AmountEdit
from checkout_desktop.ui.check_list import CheckResult, fill_list
from checkout_desktop.ui.labels import profile_label, sdk_kind_box
from checkout_desktop.ui.pin_entry import ERROR_STYLE, error_line, ok_cancel, pin_edit
from checkout_desktop.ui.problem_texts import keychain_text, stored_pin_text, url_rules_text
from checkout_desktop.ui.qr_settings import QrSettingsBox
from checkout_desktop.ui.store_choice import StoreChoice
from checkout_desktop.ui.supervisor import PinError, hash_pin, verify_pin

logger = logging.getLogger(__name__)

_CLIENT_ID = re.compile(r"^[\w\-]+$")


@dataclass(frozen=True)
class _Draft:
    """What was typed for one environment, kept while another is looked at (until saved or
    reverted): its credentials, secrets included (memory only), and its rules of the sale."""

    client_id: str
    merchant_document: str
    sdk_kind: object
    secrets: tuple[str, str, str]
    phone_required: bool
    email_required: bool
    cnpj_refused: bool
    qr_cancel_refused: bool
    three_ds_mode: object
    three_ds_above: int
    three_ds_fallback: object


class SettingsPinDialog(QDialog):
    """Asks for the current supervisor PIN before protected settings are saved; a wrong PIN
    keeps it open, like the refund's and capture's PIN check."""

    def __init__(self, *, pin_hash: str, changes: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Supervisor PIN"))
        self.setObjectName("settingsPinDialog")
        self._pin_hash = pin_hash
        self.explanation = QLabel(
            self.tr("Only a supervisor may change {changes}: type the supervisor PIN.").format(
                changes=changes
            ),
            self,
        )
        self.explanation.setWordWrap(True)
        self.setMinimumWidth(360)
        self.pin = pin_edit(self, "settingsCurrentPin")
        self.error = error_line(self, "settingsPinError")
        form = QFormLayout()
        form.addRow(self.tr("Supervisor PIN"), self.pin)
        self.buttons = ok_cancel(self)
        layout = QVBoxLayout(self)
        layout.addWidget(self.explanation)
        layout.addLayout(form)
        layout.addWidget(self.error)
        layout.addWidget(self.buttons)
        self.pin_failures = 0

    def check_against(self, pin_hash: str) -> None:
        """The shop's PIN changed while this prompt was open: the new one is asked for."""
        self._pin_hash = pin_hash

    def accept(self) -> None:
        try:
            ok = verify_pin(self.pin.text(), self._pin_hash)
        except PinError:
            self.error.setText(stored_pin_text())
            return
        if not ok:
            self.pin_failures += 1
            self.pin.clear()
            self.error.setText(self.tr("Wrong supervisor PIN."))
            return
        self.pin.clear()  # checked: it need not stay in the form
        super().accept()


def _readable_pin(pin_hash: str | None) -> str | None:
    """The stored PIN's hash when it can be checked. A damaged one guards nothing here: the
    owner must be able to set the PIN again in Settings (refunds stay refused meanwhile)."""
    if not pin_hash:
        return None
    try:
        verify_pin("", pin_hash)
    except PinError:
        logger.warning("the stored supervisor PIN cannot be read; Settings do not ask for it")
        return None
    return pin_hash


class SettingsPanel(QWidget):
    """Edits a copy of the settings; `save` checks it, stores secrets and calls `persist`."""

    saved = Signal(object)
    """The Settings just written."""

    def __init__(
        self,
        settings: Settings,
        *,
        secrets: SecretStore | None,
        persist: Callable[[Settings], None],
        tester: Callable[[Settings], Awaitable[list[CheckResult]]] | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._settings = settings.model_copy(deep=True)
        # What this run started with: the settings read only at start-up come from it.
        self._running = settings.model_copy(deep=True)
        self._secrets = secrets
        self._persist = persist
        self._pin_cleared = False
        self._drafts: dict[str, _Draft] = {}
        self._shown_profile: str | None = None
        self.pin_prompt: SettingsPinDialog | None = None
        self._tester = tester
        self._test: asyncio.Future[list[CheckResult]] | None = None

        self.profile = QComboBox(self)
        self.profile.setObjectName("settingsProfile")
        for name, profile in settings.profiles.items():
            self.profile.addItem(profile_label(profile), name)
        self.language = QComboBox(self)
        self.language.setObjectName("settingsLanguage")
        self.language.addItem(self.tr("System language"), None)
        self.language.addItem("Português (Brasil)", "pt_BR")
        self.language.addItem("English", "en")
        self.shop_name = QLineEdit(self)
        self.shop_name.setObjectName("settingsShopName")
        self.shop_name.setMaxLength(80)
        self.shop_name.setPlaceholderText(self.tr("printed on receipts"))
        self.phone_required = QCheckBox(self.tr("Ask for the customer's phone on every sale"), self)
        self.phone_required.setObjectName("settingsPhoneRequired")
        # What the terminal learned from the service's refusals (per environment): shown, and
        # unticked to let it try again.
        learned = self.tr(
            "Learned from the service's refusals, or set here. Untick it to let the terminal try "
            "again."
        )
        self.email_required = QCheckBox(
            self.tr("Ask for the customer's e-mail on every sale"), self
        )
        self.email_required.setObjectName("settingsEmailRequired")
        self.cnpj_refused = QCheckBox(
            self.tr("The service takes only a CPF as the customer's document"), self
        )
        self.cnpj_refused.setObjectName("settingsCnpjRefused")
        self.qr_cancel_refused = QCheckBox(
            self.tr("The service does not cancel an unpaid QR (it expires by itself)"), self
        )
        self.qr_cancel_refused.setObjectName("settingsQrCancelRefused")
        for learned_box in (self.email_required, self.cnpj_refused, self.qr_cancel_refused):
            learned_box.setToolTip(learned)
        general = QGroupBox(self.tr("General"), self)
        general_form = QFormLayout(general)
        general_form.addRow(self.tr("Environment"), self.profile)
        general_form.addRow(self.tr("Shop name"), self.shop_name)
        self.large_amount = AmountEdit(self)
        self.large_amount.setObjectName("settingsLargeAmount")
        self.large_amount.setToolTip(
            self.tr("The charge screen asks to check sales above this amount (zero: never).")
        )
        general_form.addRow(self.tr("Warn above"), self.large_amount)
        general_form.addRow(self.tr("Language"), self.language)
        general_form.addRow("", self.phone_required)
        general_form.addRow("", self.email_required)
        general_form.addRow("", self.cnpj_refused)
        general_form.addRow("", self.qr_cancel_refused)

        # 3-D Secure, per environment: when a card is authenticated by its bank first, and
        # what happens when that cannot be done.
        self.three_ds_mode = QComboBox(self)
        self.three_ds_mode.setObjectName("settingsThreeDsMode")
        self.three_ds_mode.addItem(self.tr("Off"), "off")
        self.three_ds_mode.addItem(self.tr("From an amount up"), "above")
        self.three_ds_mode.addItem(self.tr("Every card charge"), "always")
        self.three_ds_above = AmountEdit(self)
        self.three_ds_above.setObjectName("settingsThreeDsAbove")
        self.three_ds_fallback = QComboBox(self)
        self.three_ds_fallback.setObjectName("settingsThreeDsFallback")
        self.three_ds_fallback.addItem(self.tr("Refuse the card (nothing is charged)"), "refuse")
        self.three_ds_fallback.addItem(self.tr("Charge it without 3DS"), "without")
        three_ds = QGroupBox(self.tr("3-D Secure (the bank's confirmation)"), self)
        three_ds_form = QFormLayout(three_ds)
        three_ds_form.addRow(self.tr("Confirm with the bank"), self.three_ds_mode)
        three_ds_form.addRow(self.tr("From"), self.three_ds_above)
        three_ds_form.addRow(
            self.tr("If 3DS is unavailable or fails technically"), self.three_ds_fallback
        )
        # The fallback never applies to the bank's own no, nor to a confirmation given up.
        self.three_ds_fallback_note = QLabel(
            self.tr(
                "A confirmation the bank refuses, or one cancelled, unanswered or sent to another "
                "address, is never charged."
            ),
            self,
        )
        self.three_ds_fallback_note.setObjectName("settingsThreeDsFallbackNote")
        self.three_ds_fallback_note.setWordWrap(True)
        three_ds_form.addRow("", self.three_ds_fallback_note)
        self.three_ds_mode.currentIndexChanged.connect(self._three_ds_mode_changed)

        self.port = QSpinBox(self)
        self.port.setObjectName("settingsPort")
        self.port.setRange(0, 65535)
        self.port.setSpecialValueText(self.tr("any free port"))
        self.tunnel = QComboBox(self)
        self.tunnel.setObjectName("settingsTunnel")
        self.tunnel.addItem(self.tr("No tunnel (local only)"), "none")
        self.tunnel.addItem(self.tr("My own HTTPS URL (manual)"), "manual")
        self.tunnel.addItem("cloudflared", "cloudflared")
        self.tunnel.addItem("ngrok", "ngrok")
        self.public_url = QLineEdit(self)
        self.public_url.setObjectName("settingsPublicUrl")
        self.reconcile = QDoubleSpinBox(self)
        self.reconcile.setObjectName("settingsReconcile")
        self.reconcile.setRange(5, 3600)
        # Whole seconds on screen ("60 s", not "60,00 s"); a fraction kept in the file stays
        # as it was until the owner changes the value (`_reconcile_s`).
        self.reconcile.setDecimals(0)
        self.reconcile.setSuffix(" s")
        self._kept_reconcile_s = 60.0
        webhook = QGroupBox(self.tr("Webhook and reconciliation"), self)
        webhook_form = QFormLayout(webhook)
        webhook_form.addRow(self.tr("Listener port"), self.port)
        webhook_form.addRow(self.tr("Tunnel"), self.tunnel)
        webhook_form.addRow(self.tr("Public URL"), self.public_url)
        webhook_form.addRow(self.tr("Query open charges every"), self.reconcile)

        self.pin = QLineEdit(self)
        self.pin.setObjectName("settingsPin")
        self.pin.setEchoMode(QLineEdit.EchoMode.Password)
        self.pin.setMaxLength(8)
        self.pin.setPlaceholderText(self.tr("4 to 8 digits; empty keeps the current one"))
        self.clear_pin = QPushButton(self.tr("Remove PIN"), self)
        self.clear_pin.setObjectName("settingsClearPin")
        self.pin_state = QLabel(self)
        self.pin_state.setObjectName("settingsPinState")
        self.pin_state.setWordWrap(True)
        supervisor = QGroupBox(self.tr("Supervisor PIN"), self)
        pin_row = QHBoxLayout()
        pin_row.addWidget(self.pin, 1)
        pin_row.addWidget(self.clear_pin)
        supervisor_form = QFormLayout(supervisor)
        supervisor_form.addRow(self.tr("New PIN"), pin_row)
        supervisor_form.addRow(self.pin_state)

        self.client_id = QLineEdit(self)
        self.client_id.setObjectName("settingsClientId")
        self.merchant_document = QLineEdit(self)
        self.merchant_document.setObjectName("settingsMerchantDocument")
        self.client_secret = QLineEdit(self)
        self.client_secret.setObjectName("settingsClientSecret")
        self.sdk_token = QLineEdit(self)
        self.sdk_token.setObjectName("settingsSdkToken")
        self.webhook_token = QLineEdit(self)
        self.webhook_token.setObjectName("settingsWebhookToken")
        self.sdk_kind = sdk_kind_box(self)
        self.sdk_kind.setObjectName("settingsSdkKind")

        for edit in (self.client_secret, self.sdk_token, self.webhook_token):
            edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.credentials = QGroupBox(self.tr("Credentials of the selected environment"), self)
        credentials_form = QFormLayout(self.credentials)
        credentials_form.addRow(self.tr("Client id"), self.client_id)
        credentials_form.addRow(self.tr("Merchant CNPJ"), self.merchant_document)
        credentials_form.addRow(self.tr("Client secret"), self.client_secret)
        credentials_form.addRow(self.tr("Card SDK token"), self.sdk_token)
        credentials_form.addRow(self.tr("Card SDK token kind"), self.sdk_kind)
        credentials_form.addRow(self.tr("Webhook token"), self.webhook_token)

        self.store_choice = StoreChoice(secrets, self)
        self.connection = QGroupBox(self.tr("Connection to the service"), self)
        self.test_button = QPushButton(self.tr("&Test connection"), self)
        self.test_button.setObjectName("settingsTestConnection")
        self.test_button.setToolTip(
            self.tr("Checks the saved settings against the service, without charging anything.")
        )
        self.test_results = QListWidget(self)
        self.test_results.setObjectName("settingsTestResults")
        self.test_results.setWordWrap(True)
        self.test_results.setMinimumHeight(150)
        self.test_results.hide()
        self.test_summary = QLabel(self)
        self.test_summary.setObjectName("settingsTestSummary")
        self.test_summary.setWordWrap(True)
        connection_layout = QVBoxLayout(self.connection)
        connection_layout.addWidget(self.test_button, 0, Qt.AlignmentFlag.AlignLeft)
        connection_layout.addWidget(self.test_results)
        connection_layout.addWidget(self.test_summary)
        self.connection.setVisible(tester is not None)

        self.message = QLabel(self)
        self.message.setObjectName("settingsMessage")
        self.message.setWordWrap(True)
        self.save_button = QPushButton(self.tr("&Save settings"), self)
        self.save_button.setObjectName("settingsSave")
        self.revert_button = QPushButton(self.tr("Revert"), self)

        body = QWidget(self)
        body_layout = QVBoxLayout(body)
        self.qr_box = QrSettingsBox(self)
        boxes = (
            general,
            three_ds,
            self.qr_box,
            webhook,
            supervisor,
            self.credentials,
            self.store_choice,
            self.connection,
        )
        for box in boxes:
            body_layout.addWidget(box)
        body_layout.addStretch(1)
        scroll = QScrollArea(self)
        scroll.setWidgetResizable(True)
        scroll.setWidget(body)
        buttons = QHBoxLayout()
        buttons.addWidget(self.message, 1)
        buttons.addWidget(self.revert_button)
        buttons.addWidget(self.save_button)
        layout = QVBoxLayout(self)
        layout.addWidget(scroll, 1)
        layout.addLayout(buttons)

        self.profile.currentIndexChanged.connect(self._profile_changed)
        self.tunnel.currentIndexChanged.connect(self._tunnel_changed)
        self.save_button.clicked.connect(self.save)
        self.revert_button.clicked.connect(self.load)
        self.clear_pin.clicked.connect(self._clear_pin)
        # A key or a paste an amount field refuses is said (the field keeps its amount), and
        # the next good amount clears the saying.
        self._refusal: str | None = None
        for amount in (self.large_amount, self.three_ds_above):
            amount.rejected.connect(self._amount_refused)
            amount.value_changed.connect(self._amount_changed)
        self.test_button.clicked.connect(self.test_connection)
        self.load()

    @property
    def settings(self) -> Settings:
        return self._settings

    def _amount_refused(self, why: str) -> None:
        self._refusal = why
        self.message.setText(why)
        self.message.setStyleSheet(ERROR_STYLE)

    def _amount_changed(self, _value: object) -> None:
        if self._refusal is not None and self.message.text() == self._refusal:
            self.message.clear()
        self._refusal = None

    def take_kept(self, settings: Settings) -> None:
        """What the window kept itself since this panel read its settings: each environment's
        rules learned from the service's refusals, the receipts' folder, and the PIN and the
        shop's name another counter set. The panel's base takes them, and the form shows them
        (a name being typed stays), so a later save never writes back what stood before, and
        a protected change asks for the shop's PIN as it is now."""
        for name, profile in settings.profiles.items():
            mine = self._settings.profiles.get(name)
            if mine is None:
                continue
            for flag in LEARNED_FLAGS:
                setattr(mine, flag, getattr(profile, flag))
        self._settings.ui.receipts_folder = settings.ui.receipts_folder
        self._take_shop_wide(settings.ui.supervisor_pin_hash, settings.ui.shop_name)
        shown = self._settings.profiles.get(self.profile.currentData())
        if shown is not None:
            boxes = {
                "customer_email_required": self.email_required,
                "customer_cnpj_refused": self.cnpj_refused,
                "qr_cancel_refused": self.qr_cancel_refused,
            }
            for learned, box in boxes.items():
                box.setChecked(getattr(shown, learned))

    def _take_shop_wide(self, pin_hash: str | None, shop_name: str) -> None:
        ui = self._settings.ui
        if shop_name != ui.shop_name:
            if " ".join(self.shop_name.text().split()) == ui.shop_name:
                self.shop_name.setText(shop_name)
            ui.shop_name = shop_name
        if pin_hash != ui.supervisor_pin_hash:
            ui.supervisor_pin_hash = pin_hash
            readable = _readable_pin(pin_hash)
            if self.pin_prompt is not None and readable is not None:
                self.pin_prompt.check_against(readable)
            self._show_pin_state()

    def load(self) -> None:
        """Show the settings as they are (discarding unsaved edits)."""
        s = self._settings
        self._drafts.clear()
        self._shown_profile = None
        self.profile.setCurrentIndex(max(self.profile.findData(s.active_profile), 0))
        self.language.setCurrentIndex(max(self.language.findData(s.ui.locale), 0))
        self.shop_name.setText(s.ui.shop_name)
        self.large_amount.set_centavos(s.ui.large_amount_warning)
        self.port.setValue(s.listener.port)
        self.tunnel.setCurrentIndex(max(self.tunnel.findData(s.tunnel.mode), 0))
        self.public_url.setText(s.tunnel.public_url or "")
        self._kept_reconcile_s = s.reconcile_interval_s
        self.reconcile.setValue(s.reconcile_interval_s)
        self.store_choice.load(s.shared_store_url)
        self.qr_box.load(s.qr)
        self.pin.clear()
        self._pin_cleared = False
        self._show_pin_state()
        self._profile_changed()
        self._tunnel_changed()
        self.message.clear()

    def _missing(
        self,
        profile: str,
        client_id: str,
        document: str,
        typed: list[tuple[SecretName, str]],
    ) -> tuple[list[str], str | None]:
        """What a real service environment still lacks to charge and receive notifications,
        and why the keychain could not be asked (None: it answered).

        Saving such an environment without it would only fail at the shop's first sale, so it
        is refused here, naming each missing item; a secret counts when typed now or already
        in the keychain. A keychain that cannot be asked leaves the secrets unchecked.
        """
        labels = {
            SecretName.CLIENT_SECRET: self.tr("client secret"),
            SecretName.SDK_MERCHANT_TOKEN: self.tr("card SDK token"),
            SecretName.WEBHOOK_TOKEN: self.tr("webhook token"),
        }
        missing: list[str] = []
        if not client_id:
            missing.append(self.tr("client id"))
        if not document:
            missing.append(self.tr("merchant CNPJ"))
        unavailable: str | None = None
        given = {secret for secret, _ in typed}
        for secret, label in labels.items():
            if secret in given:
                continue
            if self._secrets is None:
                unavailable = self.tr("No keychain is available to store the secrets.")
                break
            try:
                stored = self._secrets.get(profile, secret)
            except KeychainUnavailable as exc:
                unavailable = keychain_text(exc)
                break
            if stored is None:
                missing.append(label)
        if not missing:
            return [], unavailable
        text = self.tr("This environment cannot charge without: {items}.").format(
            items=", ".join(missing)
        )
        return [text], unavailable

    def test_connection(self) -> None:
        """Run the connection test on the saved settings; the results list shows each check."""
        if self._tester is None or (self._test is not None and not self._test.done()):
            return
        self.test_button.setEnabled(False)
        self.test_results.clear()
        self.test_results.show()
        self.test_summary.setText(self.tr("Testing… (at most a few seconds)"))
        self.test_summary.setStyleSheet("")
        self._test = asyncio.ensure_future(self._tester(self._settings))
        self._test.add_done_callback(self._tested)

    def _tested(self, task: asyncio.Future[list[CheckResult]]) -> None:
        self.test_button.setEnabled(True)
        if task.cancelled():
            self.test_summary.setText(self.tr("The test was cancelled."))
            return
        exc = task.exception()
        if exc is not None:
            logger.error("the connection test failed: %s", exc)
            results = [CheckResult(self.tr("Test"), False, str(exc))]
        else:
            results = task.result()
        fill_list(self.test_results, results)
        if results and all(r.ok and not r.warning for r in results):
            self.test_summary.setText(self.tr("Everything works: this terminal can charge."))
            self.test_summary.setStyleSheet("color: #1b6e2a;")
        elif results and all(r.ok for r in results):
            self.test_summary.setText(
                self.tr("This terminal can charge; the lines marked ⚠ still need care.")
            )
            self.test_summary.setStyleSheet("color: #7a5c00;")
        else:
            self.test_summary.setText(self.tr("Something does not work: see the lines marked ✘."))
            self.test_summary.setStyleSheet("color: #b3261e;")

    def _show_pin_state(self) -> None:
        has = bool(self._settings.ui.supervisor_pin_hash) and not self._pin_cleared
        self.pin_state.setText(
            self.tr(
                "Refunds, captures of earlier days' charges and ending an unanswered charge "
                "ask for the supervisor PIN."
            )
            if has
            else self.tr(
                "No PIN: anyone at the terminal can refund, capture earlier days' charges or "
                "end an unanswered charge."
            )
        )
        self.clear_pin.setEnabled(has)

    def _clear_pin(self) -> None:
        self._pin_cleared = True
        self.pin.clear()
        self._show_pin_state()

    def _secret_edits(self) -> tuple[tuple[QLineEdit, SecretName], ...]:
        return (
            (self.client_secret, SecretName.CLIENT_SECRET),
            (self.sdk_token, SecretName.SDK_MERCHANT_TOKEN),
            (self.webhook_token, SecretName.WEBHOOK_TOKEN),
        )

    def _draft(self) -> _Draft:
        secrets = tuple(edit.text() for edit, _ in self._secret_edits())
        assert len(secrets) == 3
        return _Draft(
            client_id=self.client_id.text(),
            merchant_document=self.merchant_document.text(),
            sdk_kind=self.sdk_kind.currentData(),
            secrets=secrets,
            phone_required=self.phone_required.isChecked(),
            email_required=self.email_required.isChecked(),
            cnpj_refused=self.cnpj_refused.isChecked(),
            qr_cancel_refused=self.qr_cancel_refused.isChecked(),
            three_ds_mode=self.three_ds_mode.currentData(),
            three_ds_above=self.three_ds_above.centavos(),
            three_ds_fallback=self.three_ds_fallback.currentData(),
        )

    def _show_draft(self, draft: _Draft) -> None:
        self.client_id.setText(draft.client_id)
        self.merchant_document.setText(draft.merchant_document)
        self.sdk_kind.setCurrentIndex(max(self.sdk_kind.findData(draft.sdk_kind), 0))
        for (edit, _), value in zip(self._secret_edits(), draft.secrets, strict=True):
            edit.setText(value)
        self.phone_required.setChecked(draft.phone_required)
        self.email_required.setChecked(draft.email_required)
        self.cnpj_refused.setChecked(draft.cnpj_refused)
        self.qr_cancel_refused.setChecked(draft.qr_cancel_refused)
        self.three_ds_mode.setCurrentIndex(max(self.three_ds_mode.findData(draft.three_ds_mode), 0))
        self.three_ds_above.set_centavos(draft.three_ds_above)
        self.three_ds_fallback.setCurrentIndex(
            max(self.three_ds_fallback.findData(draft.three_ds_fallback), 0)
        )
        self._three_ds_mode_changed()

    def _stored_secret(self, profile: str, secret: SecretName) -> bool:
        """Whether the keychain holds this secret (False when it cannot be asked)."""
        if self._secrets is None:
            return False
        try:
            return self._secrets.get(profile, secret) is not None
        except KeychainUnavailable:
            return False

    def _profile_changed(self, *_args: object) -> None:
        if self._shown_profile is not None:
            self._drafts[self._shown_profile] = self._draft()
        name = self.profile.currentData()
        self._shown_profile = name
        profile = self._settings.profiles.get(name) if name else None
        builtin = profile is None or profile.is_builtin_sandbox
        self.credentials.setVisible(not builtin)
        if profile is None:
            return
        draft = self._drafts.get(name)
        if draft is None:
            draft = _Draft(
                client_id=profile.client_id,
                merchant_document=profile.merchant_document,
                sdk_kind=profile.sdk_credential,
                secrets=("", "", ""),
                phone_required=profile.phone_required,
                email_required=profile.customer_email_required,
                cnpj_refused=profile.customer_cnpj_refused,
                qr_cancel_refused=profile.qr_cancel_refused,
                three_ds_mode=profile.three_ds_mode,
                three_ds_above=profile.three_ds_above_centavos,
                three_ds_fallback=profile.three_ds_fallback,
            )
        self._show_draft(draft)
        for edit, secret in self._secret_edits():
            stored = not builtin and self._stored_secret(name, secret)
            edit.setPlaceholderText(
                self.tr("stored in the keychain; type to replace") if stored else ""
            )

    def _three_ds_mode_changed(self, *_args: object) -> None:
        mode = self.three_ds_mode.currentData()
        self.three_ds_above.setEnabled(mode == "above")
        self.three_ds_fallback.setEnabled(mode != "off")

    def _tunnel_changed(self, *_args: object) -> None:
        self.public_url.setEnabled(self.tunnel.currentData() == "manual")

    def _guarded_changes(
        self, s: Settings, secrets_typed: bool, store_password_typed: bool
    ) -> list[str]:
        """What of `s`, against the saved settings, only a supervisor may change."""
        old = self._settings
        name = s.active_profile
        changes: list[str] = []
        if s.ui.supervisor_pin_hash != old.ui.supervisor_pin_hash:
            changes.append(self.tr("the supervisor PIN"))
        if name != old.active_profile:
            changes.append(self.tr("the environment"))
        new_profile, old_profile = s.profiles[name], old.profiles.get(name)
        credentials = ("client_id", "merchant_document", "sdk_credential")
        if secrets_typed or (
            old_profile is not None
            and any(getattr(new_profile, f) != getattr(old_profile, f) for f in credentials)
        ):
            changes.append(self.tr("the credentials"))
        three_ds = ("three_ds_mode", "three_ds_above_centavos", "three_ds_fallback")
        if old_profile is not None and any(
            getattr(new_profile, f) != getattr(old_profile, f) for f in three_ds
        ):
            # Turned off, or a failed confirmation charged anyway: the shop bears the disputes.
            changes.append(self.tr("the 3-D Secure rules"))
        if s.shared_store_url != old.shared_store_url or store_password_typed:
            changes.append(self.tr("the store"))
        if (s.listener.port, s.tunnel.mode, s.tunnel.public_url) != (
            old.listener.port,
            old.tunnel.mode,
            old.tunnel.public_url,
        ):
            changes.append(self.tr("the webhook settings"))
        return changes

    def _keep_secrets(self, profile: str, secrets: list[tuple[SecretName, str]]) -> str | None:
        """Put typed secrets into the keychain; why it could not, or None when done."""
        if self._secrets is None:
            return self.tr("No keychain is available to store the secrets.")
        try:
            for secret, value in secrets:
                self._secrets.set(profile, secret, value)
        except KeychainUnavailable as exc:
            return keychain_text(exc)
        return None

    def _at_next_start(self, s: Settings) -> list[str]:
        """What of `s` this run does not take: read only at start-up, it waits for a restart."""
        running = self._running
        later: list[str] = []
        if s.active_profile != running.active_profile:
            later.append(self.tr("the environment"))
        if s.ui.locale != running.ui.locale:
            later.append(self.tr("the language"))
        if s.listener.port != running.listener.port:
            later.append(self.tr("the listener port"))
        if (s.tunnel.mode, s.tunnel.public_url) != (
            running.tunnel.mode,
            running.tunnel.public_url,
        ):
            later.append(self.tr("the tunnel"))
        if s.shared_store_url != running.shared_store_url:
            later.append(self.tr("the store"))
        return later

    def _ask_pin(self, pin_hash: str, changes: list[str]) -> None:
        changed = ", ".join(changes)
        if self.pin_prompt is not None:
            self.pin_prompt.deleteLater()
        self.pin_prompt = SettingsPinDialog(pin_hash=pin_hash, changes=changed, parent=self)
        self.pin_prompt.accepted.connect(lambda: self._save(authorized=True))
        self.pin_prompt.rejected.connect(
            lambda: self._refused(
                self.tr(
                    "Not saved: a change to {changes} needs the supervisor PIN. What you typed "
                    "is still here."
                ).format(changes=changed)
            )
        )
        self.message.setText(
            self.tr("Type the supervisor PIN to save a change to {changes}.").format(
                changes=changed
            )
        )
        self.message.setStyleSheet("")
        self.pin_prompt.open()

    def _refused(self, text: str) -> None:
        self.message.setText(text)
        self.message.setStyleSheet("color: #b3261e;")

    def _reconcile_s(self) -> float:
        shown = self.reconcile.value()
        if abs(shown - self._kept_reconcile_s) <= 0.5:
            return self._kept_reconcile_s  # the kept value as the box rounded it: unchanged
        return shown

    def save(self) -> bool:
        """Check everything, ask for the supervisor PIN when a protected setting changes, store
        typed secrets in the keychain, then write the settings.

        True when all of it was saved; False when nothing was (a problem, or the PIN is being
        asked: the prompt saves on the right PIN), or when what needs an unusable keychain was
        left out and the rest saved (`saved` is emitted then, and the message says which part).
        """
        return self._save(authorized=False)

    def _save(self, *, authorized: bool) -> bool:
        s = self._settings.model_copy(deep=True)
        problems: list[str] = []
        name = self.profile.currentData()
        s.active_profile = name
        s.ui.locale = self.language.currentData()
        s.ui.shop_name = " ".join(self.shop_name.text().split())
        s.ui.large_amount_warning = self.large_amount.centavos()
        s.listener.port = self.port.value()
        mode = self.tunnel.currentData()
        s.tunnel.mode = mode
        url = self.public_url.text().strip()
        if mode == "manual":
            violations = check_notification_url(url)
            if violations:
                problems.append(url_rules_text(url, violations))
            s.tunnel.public_url = url
        s.reconcile_interval_s = self._reconcile_s()
        s.qr = self.qr_box.collect(s.qr)
        if self._pin_cleared:
            s.ui.supervisor_pin_hash = None
        if self.pin.text():
            try:
                s.ui.supervisor_pin_hash = hash_pin(self.pin.text())
            except PinError:
                problems.append(self.tr("A supervisor PIN has 4 to 8 digits."))
        store_url, store_problems = self.store_choice.chosen_url()
        problems.extend(store_problems)
        s.shared_store_url = store_url
        profile = s.profiles[name]
        profile.phone_required = self.phone_required.isChecked()
        profile.customer_email_required = self.email_required.isChecked()
        profile.customer_cnpj_refused = self.cnpj_refused.isChecked()
        profile.qr_cancel_refused = self.qr_cancel_refused.isChecked()
        profile.three_ds_mode = self.three_ds_mode.currentData()
        profile.three_ds_above_centavos = self.three_ds_above.centavos()
        profile.three_ds_fallback = self.three_ds_fallback.currentData()
        secrets_to_store: list[tuple[SecretName, str]] = []
        # Why the keychain cannot be used now (None: it can, or it was not needed).
        keychain_problem: str | None = None
        if not profile.is_builtin_sandbox:
            profile.sdk_credential = self.sdk_kind.currentData()
            client_id = self.client_id.text().strip()
            if client_id and not _CLIENT_ID.match(client_id):
                problems.append(self.tr("The client id takes letters, digits, '_' and '-' only."))
            profile.client_id = client_id
            document = self.merchant_document.text().strip()
            if document:
                try:
                    profile.merchant_document = documents.validate_cnpj(document)
                except documents.DocumentError:
                    problems.append(self.tr("The merchant CNPJ is not valid."))
            for edit, secret in (
                (self.client_secret, SecretName.CLIENT_SECRET),
                (self.sdk_token, SecretName.SDK_MERCHANT_TOKEN),
                (self.webhook_token, SecretName.WEBHOOK_TOKEN),
            ):
                if edit.text().strip():
                    secrets_to_store.append((secret, edit.text().strip()))
            missing, keychain_problem = self._missing(name, client_id, document, secrets_to_store)
            problems.extend(missing)
        if problems:
            self.message.setText("\n".join(problems))
            self.message.setStyleSheet("color: #b3261e;")
            return False
        pin_hash = _readable_pin(self._settings.ui.supervisor_pin_hash)
        if pin_hash is not None and not authorized:
            store_password_typed = store_url is not None and bool(self.store_choice.password.text())
            changes = self._guarded_changes(s, bool(secrets_to_store), store_password_typed)
            if changes:
                self._ask_pin(pin_hash, changes)
                return False
        # Whatever the keychain cannot take now is left out and stays typed; the rest is saved.
        not_kept: list[str] = []
        if secrets_to_store and keychain_problem is None:
            keychain_problem = self._keep_secrets(name, secrets_to_store)
        if keychain_problem is not None:
            if secrets_to_store:
                not_kept.append(self.tr("the secrets typed"))
            if name != self._settings.active_profile and not profile.is_builtin_sandbox:
                # An environment whose secrets cannot be kept or checked cannot charge.
                s.active_profile = self._settings.active_profile
                not_kept.append(self.tr("the environment"))
        store_password = self.store_choice.password.text()
        store_kept = True
        if store_url is not None:
            kept = self.store_choice.keep_password(store_url)
            if kept is not None:
                keychain_problem = keychain_problem or kept
                s.shared_store_url = self._settings.shared_store_url
                store_kept = False
                not_kept.append(self.tr("the store"))
        typed = self._draft()
        try:
            self._persist(s)
        except OSError as exc:
            self.message.setText(self.tr("The settings could not be saved: {why}").format(why=exc))
            self.message.setStyleSheet("color: #b3261e;")
            return False
        self._settings = s
        self.load()
        if not_kept:
            # Still on screen: what waits for the keychain, to be saved once it works.
            self._drafts[name] = typed
            if self.profile.currentData() == name:
                self._show_draft(typed)
            else:
                self.profile.setCurrentIndex(self.profile.findData(name))
        if not store_kept:
            self.store_choice.load(store_url)
            self.store_choice.password.setText(store_password)
        later = self._at_next_start(s)
        lines = [
            self.tr("Saved. These changes apply at the next start: {changes}.").format(
                changes=", ".join(later)
            )
            if later
            else self.tr("Saved.")
        ]
        if not_kept:
            lines.append(
                self.tr(
                    "Not kept: {items}. They need the keychain, which cannot be used now; what "
                    "you typed for them is still here."
                ).format(items=", ".join(not_kept))
            )
        elif keychain_problem is not None:
            lines.append(
                self.tr(
                    "This environment's secrets could not be checked: the keychain cannot be "
                    "used now."
                )
            )
        if keychain_problem is not None:
            lines.append(keychain_problem)
        self.message.setText("\n".join(lines))
        self.message.setStyleSheet(
            "color: #1b6e2a;" if keychain_problem is None else "color: #7a5c00;"
        )
        self.saved.emit(s)
        return not not_kept
