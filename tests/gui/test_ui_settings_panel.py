"""Settings panel: checks, supervisor PIN as a hash, secrets to the keychain, never to the file."""

from __future__ import annotations

import logging

from PySide6.QtWidgets import QFormLayout, QLabel
from pytestqt.qtbot import QtBot

from checkout_desktop.secrets import SecretName, SecretStore
from checkout_desktop.settings import Settings
from checkout_desktop.ui.settings_panel import SettingsPanel
from checkout_desktop.ui.supervisor import hash_pin, verify_pin
from tests.conftest import MemoryKeyring

logger = logging.getLogger(__name__)


def make(qtbot: QtBot, settings: Settings) -> tuple[SettingsPanel, list[Settings], MemoryKeyring]:
    saved: list[Settings] = []
    backend = MemoryKeyring()
    panel = SettingsPanel(settings, secrets=SecretStore(backend), persist=saved.append)
    qtbot.addWidget(panel)
    return panel, saved, backend


def test_pin_is_stored_as_a_salted_hash_and_can_be_removed(qtbot: QtBot) -> None:
    panel, saved, _ = make(qtbot, Settings())
    assert "No PIN" in panel.pin_state.text()
    assert "earlier days" in panel.pin_state.text()
    assert not panel.clear_pin.isEnabled()  # nothing to remove yet
    panel.pin.setText("12")
    assert not panel.save()
    assert "4 to 8 digits" in panel.message.text()
    assert saved == []
    panel.pin.setText("9753")
    assert panel.save()
    stored = saved[-1].ui.supervisor_pin_hash
    assert stored is not None and "9753" not in stored
    assert verify_pin("9753", stored)
    assert "ask for the supervisor PIN" in panel.pin_state.text()
    assert panel.clear_pin.isEnabled()
    # Everything the PIN guards is named, not refunds alone.
    for guarded in ("Refunds", "earlier days", "unanswered charge"):
        assert guarded in panel.pin_state.text(), (guarded, panel.pin_state.text())
    panel.clear_pin.click()
    assert not panel.clear_pin.isEnabled()
    assert not panel.save()  # removing it takes the PIN itself
    assert panel.pin_prompt is not None
    panel.pin_prompt.pin.setText("9753")
    panel.pin_prompt.accept()
    assert saved[-1].ui.supervisor_pin_hash is None
    assert not panel.clear_pin.isEnabled()


def test_real_profile_secrets_go_to_the_keychain(qtbot: QtBot) -> None:
    panel, saved, backend = make(qtbot, Settings())
    assert not panel.credentials.isVisibleTo(panel)  # the sandbox needs none
    panel.profile.setCurrentIndex(panel.profile.findData("production"))
    assert panel.credentials.isVisibleTo(panel)
    panel.client_id.setText("shop-42")
    panel.merchant_document.setText("11.222.333/0001-81")
    panel.client_secret.setText("prodsecret")
    panel.webhook_token.setText("hooktoken")
    assert not panel.save()  # no card SDK token: the first card sale would fail
    assert "card SDK token" in panel.message.text()
    assert saved == []
    assert backend.entries == {}  # nothing half-stored
    panel.sdk_token.setText("sdktoken")
    assert panel.save(), panel.message.text()
    result = saved[-1]
    assert result.active_profile == "production"
    assert result.profile.client_id == "shop-42"
    assert result.profile.merchant_document == "11222333000181"
    assert backend.entries[("checkout-desktop", "production/client_secret")] == "prodsecret"
    assert backend.entries[("checkout-desktop", "production/webhook_token")] == "hooktoken"
    assert backend.entries[("checkout-desktop", "production/sdk_merchant_token")] == "sdktoken"
    dumped = result.model_dump_json()
    assert "prodsecret" not in dumped and "hooktoken" not in dumped and "sdktoken" not in dumped
    assert panel.client_secret.text() == ""
    assert "next start" in panel.message.text()


def test_bad_values_are_refused_with_the_rule(qtbot: QtBot) -> None:
    panel, saved, _ = make(qtbot, Settings())
    panel.tunnel.setCurrentIndex(panel.tunnel.findData("manual"))
    panel.public_url.setText("http://192.0.2.1/hook?a=1")
    panel.profile.setCurrentIndex(panel.profile.findData("service-sandbox"))
    panel.merchant_document.setText("123")
    assert not panel.save()
    text = panel.message.text()
    assert "https" in text and "query" in text and "IPv4" in text
    assert "CNPJ" in text
    assert saved == []
    panel.revert_button.click()
    assert panel.tunnel.currentData() == "none"


def test_non_secret_settings_are_saved(qtbot: QtBot) -> None:
    panel, saved, _ = make(qtbot, Settings())
    panel.port.setValue(9911)
    panel.reconcile.setValue(120)
    panel.language.setCurrentIndex(panel.language.findData("en"))
    panel.tunnel.setCurrentIndex(panel.tunnel.findData("manual"))
    panel.public_url.setText("https://shop.example.com/webhooks/checkout")
    panel.shop_name.setText("  Padaria   Sol  ")
    assert panel.save()
    result = saved[-1]
    assert result.ui.shop_name == "Padaria Sol"
    assert result.listener.port == 9911
    assert result.reconcile_interval_s == 120
    assert result.ui.locale == "en"
    assert result.tunnel.public_url == "https://shop.example.com/webhooks/checkout"
    # The language, port and tunnel are read at start-up: the owner is told so.
    text = panel.message.text()
    assert "next start" in text
    for change in ("language", "listener port", "tunnel"):
        assert change in text, (change, text)
    assert "environment" not in text and "store" not in text


def test_the_saved_message_names_what_applies_at_the_next_start(qtbot: QtBot) -> None:
    panel, _, _ = make(qtbot, Settings())
    panel.shop_name.setText("Padaria Sol")
    assert panel.save()
    assert panel.message.text() == "Saved."  # the shop's name applies at once
    panel.language.setCurrentIndex(panel.language.findData("pt_BR"))
    assert panel.save()
    assert "next start" in panel.message.text() and "language" in panel.message.text()
    # Still true after a later, unrelated save: this run keeps its language until restarted.
    panel.large_amount.set_centavos(90_000)
    assert panel.save()
    assert "language" in panel.message.text()
    assert "port" not in panel.message.text()
    panel.port.setValue(9911)
    assert panel.save()
    assert "listener port" in panel.message.text()
    # Back to what this run started with: nothing waits for a restart.
    panel.language.setCurrentIndex(panel.language.findData(None))
    panel.port.setValue(Settings().listener.port)
    assert panel.save()
    assert panel.message.text() == "Saved."


def test_receipts_name_the_shop_once_it_is_set(qtbot: QtBot) -> None:
    from checkout_desktop.ui.main_window import merchant_of

    settings = Settings()
    unnamed = merchant_of(settings.profile, "12345678000195")
    assert unnamed.name == "Test shop (built-in sandbox)"
    named = merchant_of(settings.profile, "12345678000195", " Padaria Sol ")
    assert (named.name, named.document) == ("Padaria Sol", "12345678000195")


def test_a_real_environment_cannot_be_saved_without_what_it_needs(qtbot: QtBot) -> None:
    panel, saved, backend = make(qtbot, Settings())
    panel.profile.setCurrentIndex(panel.profile.findData("production"))
    assert not panel.save()
    text = panel.message.text()
    for item in ("client id", "merchant CNPJ", "client secret", "card SDK token", "webhook token"):
        assert item in text, (item, text)
    assert saved == []
    # Secrets already in the keychain count: only the fields are needed then.
    store = SecretStore(backend)
    store.set("production", SecretName.CLIENT_SECRET, "kept-secret")
    store.set("production", SecretName.SDK_MERCHANT_TOKEN, "kept-sdk")
    store.set("production", SecretName.WEBHOOK_TOKEN, "kept-hook")
    panel.client_id.setText("shop-42")
    assert not panel.save()
    assert "merchant CNPJ" in panel.message.text()
    assert "client secret" not in panel.message.text()
    panel.merchant_document.setText("11.222.333/0001-81")
    assert panel.save(), panel.message.text()
    assert saved[-1].profile.client_id == "shop-42"


def test_the_3ds_policy_is_kept_per_environment(qtbot: QtBot) -> None:
    settings = Settings()
    panel, saved, _ = make(qtbot, settings)
    profile = settings.active_profile
    assert settings.profiles[profile].three_ds_mode == "off"
    assert not panel.three_ds_above.isEnabled()
    assert not panel.three_ds_fallback.isEnabled()
    panel.three_ds_mode.setCurrentIndex(panel.three_ds_mode.findData("above"))
    assert panel.three_ds_above.isEnabled()
    panel.three_ds_above.set_centavos(50_000)
    panel.three_ds_fallback.setCurrentIndex(panel.three_ds_fallback.findData("without"))
    assert panel.save()
    kept = saved[-1].profiles[profile]
    assert (kept.three_ds_mode, kept.three_ds_above_centavos, kept.three_ds_fallback) == (
        "above",
        50_000,
        "without",
    )
    policy = kept.three_ds_policy()
    assert policy.applies(50_000, 1)
    assert not policy.applies(49_999, 1)
    # The service's setup takes one card: a split sale goes without 3DS.
    assert not policy.applies(90_000, 2)
    # Another panel on the saved settings shows what was kept.
    again, _, _ = make(qtbot, saved[-1])
    assert again.three_ds_mode.currentData() == "above"
    assert again.three_ds_above.centavos() == 50_000
    assert again.three_ds_fallback.currentData() == "without"


def test_the_3ds_fallback_says_exactly_when_it_applies(qtbot: QtBot) -> None:
    # "Charge it without 3DS" is for 3DS that cannot be done; a bank's refusal or a
    # confirmation cancelled or unanswered is never charged, and the option says so.
    panel, _, _ = make(qtbot, Settings())
    form = panel.three_ds_fallback.parentWidget().layout()
    assert isinstance(form, QFormLayout)
    label = form.labelForField(panel.three_ds_fallback)
    assert isinstance(label, QLabel)
    assert label.text() == "If 3DS is unavailable or fails technically"
    note = panel.findChild(QLabel, "settingsThreeDsFallbackNote")
    assert note is not None
    assert note.text() == (
        "A confirmation the bank refuses, or one cancelled, unanswered or sent to another "
        "address, is never charged."
    )


def test_what_the_terminal_learned_from_the_service_is_shown_and_can_be_undone(
    qtbot: QtBot,
) -> None:
    # The e-mail required, a CNPJ refused and an unpaid QR never cancelled are learned from the
    # service's refusals; the owner sees them per environment and may let the terminal try again.
    settings = Settings()
    profile = settings.active_profile
    learned = settings.profiles[profile]
    learned.customer_email_required = True
    learned.customer_cnpj_refused = True
    learned.qr_cancel_refused = True
    panel, saved, _ = make(qtbot, settings)
    boxes = (panel.email_required, panel.cnpj_refused, panel.qr_cancel_refused)
    assert all(box.isChecked() for box in boxes)
    assert all(box.toolTip() for box in boxes)
    for box in boxes:
        box.setChecked(False)
    assert panel.save()
    kept = saved[-1].profiles[profile]
    assert (kept.customer_email_required, kept.customer_cnpj_refused, kept.qr_cancel_refused) == (
        False,
        False,
        False,
    )
    panel.email_required.setChecked(True)
    assert panel.save()
    assert saved[-1].profiles[profile].customer_email_required
    again, _, _ = make(qtbot, saved[-1])
    assert again.email_required.isChecked() and not again.cnpj_refused.isChecked()


def test_settings_errors_are_said_in_portuguese(qtbot: QtBot) -> None:
    from PySide6.QtWidgets import QApplication

    from checkout_desktop.ui.labels import profile_label
    from tests.gui.pseudo import MarkingTranslator, english_on_screen

    app = QApplication.instance()
    assert isinstance(app, QApplication)
    with MarkingTranslator.installed(app):
        settings = Settings()
        panel, saved, _ = make(qtbot, settings)
        panel.show()
        qtbot.waitExposed(panel)
        # Data: the profiles' names, each language named in itself, the tunnel programs.
        data = [profile_label(p) for p in settings.profiles.values()]
        data += ["Português (Brasil)", "English", "cloudflared", "ngrok"]
        # Bad values, then a real environment saved without what it needs.
        panel.tunnel.setCurrentIndex(panel.tunnel.findData("manual"))
        panel.public_url.setText("http://192.0.2.1/hook?a=1")
        panel.profile.setCurrentIndex(panel.profile.findData("service-sandbox"))
        panel.merchant_document.setText("123")
        panel.pin.setText("12")
        assert not panel.save()
        assert panel.message.text()
        typed = ["http://192.0.2.1/hook?a=1", "123"]
        problems = english_on_screen(panel, [*data, *typed])
        assert problems == [], "\n".join(problems)
        panel.revert_button.click()
        panel.profile.setCurrentIndex(panel.profile.findData("production"))
        assert not panel.save()
        assert panel.message.text()
        assert english_on_screen(panel, data) == []
        assert saved == []


def pin_protected(pin: str = "4321") -> Settings:
    settings = Settings()
    settings.ui.supervisor_pin_hash = hash_pin(pin)
    return settings


def test_removing_the_pin_asks_for_it_and_a_wrong_one_saves_nothing(qtbot: QtBot) -> None:
    settings = pin_protected()
    panel, saved, _ = make(qtbot, settings)
    panel.shop_name.setText("Padaria Sol")
    panel.clear_pin.click()
    assert not panel.save()
    prompt = panel.pin_prompt
    assert prompt is not None and prompt.isVisible()
    assert "supervisor PIN" in prompt.explanation.text()
    assert saved == []
    prompt.pin.setText("1111")
    prompt.accept()
    assert prompt.isVisible()
    assert "Wrong supervisor PIN" in prompt.error.text()
    assert prompt.pin.text() == ""
    assert saved == []
    prompt.reject()
    assert saved == []
    assert "supervisor PIN" in panel.message.text()
    # Everything typed is still there, the removal too.
    assert panel.shop_name.text() == "Padaria Sol"
    assert "No PIN" in panel.pin_state.text()
    assert not panel.save()
    prompt = panel.pin_prompt
    assert prompt is not None and prompt.isVisible()
    prompt.pin.setText("4321")
    prompt.accept()
    assert not prompt.isVisible()
    assert saved[-1].ui.supervisor_pin_hash is None
    assert saved[-1].ui.shop_name == "Padaria Sol"


def test_changing_the_pin_asks_for_the_current_one(qtbot: QtBot) -> None:
    panel, saved, _ = make(qtbot, pin_protected())
    panel.pin.setText("5555")
    assert not panel.save()
    prompt = panel.pin_prompt
    assert prompt is not None
    prompt.pin.setText("5555")  # the new PIN is not the current one
    prompt.accept()
    assert saved == []
    prompt.pin.setText("4321")
    prompt.accept()
    stored = saved[-1].ui.supervisor_pin_hash
    assert stored is not None and verify_pin("5555", stored)


def test_protected_settings_need_the_pin_and_harmless_ones_do_not(qtbot: QtBot) -> None:
    settings = pin_protected()
    panel, saved, _ = make(qtbot, settings)
    # Language, shop name, rules of the sale: no PIN.
    panel.language.setCurrentIndex(panel.language.findData("en"))
    panel.shop_name.setText("Padaria Sol")
    panel.phone_required.setChecked(True)
    assert panel.save(), panel.message.text()
    assert panel.pin_prompt is None
    assert saved[-1].ui.locale == "en"

    def asks(change: str) -> None:
        count = len(saved)
        assert not panel.save(), change
        prompt = panel.pin_prompt
        assert prompt is not None and prompt.isVisible(), change
        assert len(saved) == count, change
        prompt.reject()
        assert len(saved) == count, change
        panel.revert_button.click()

    # The environment.
    panel.profile.setCurrentIndex(panel.profile.findData("service-sandbox"))
    panel.client_id.setText("shop-42")
    panel.merchant_document.setText("11.222.333/0001-81")
    panel.client_secret.setText("s")
    panel.sdk_token.setText("t")
    panel.webhook_token.setText("w")
    asks("environment")
    # The webhook: port, tunnel, public URL.
    panel.port.setValue(9911)
    asks("port")
    panel.tunnel.setCurrentIndex(panel.tunnel.findData("cloudflared"))
    asks("tunnel")
    # The store.
    panel.store_choice.shared.setChecked(True)
    panel.store_choice.host.setText("db.shop.lan")
    panel.store_choice.database.setText("shop")
    panel.store_choice.user.setText("counter")
    asks("store")
    # The bank's confirmation (3-D Secure): whether it is asked, from what amount, and whether
    # a card it fails for is charged without it; a clerk turning it off weighs on the shop.
    panel.three_ds_mode.setCurrentIndex(panel.three_ds_mode.findData("always"))
    asks("3-D Secure on")
    panel.three_ds_mode.setCurrentIndex(panel.three_ds_mode.findData("always"))
    panel.three_ds_fallback.setCurrentIndex(panel.three_ds_fallback.findData("without"))
    asks("3-D Secure fallback")


def test_credentials_and_a_switch_to_the_built_in_sandbox_need_the_pin(qtbot: QtBot) -> None:
    settings = pin_protected()
    settings.active_profile = "service-sandbox"
    profile = settings.profiles["service-sandbox"]
    profile.client_id = "shop-42"
    profile.merchant_document = "11222333000181"
    panel, saved, backend = make(qtbot, settings)
    store = SecretStore(backend)
    # Values no log line could hold by chance: a stored secret is masked in every log line
    # of this process from now on.
    for secret in SecretName:
        store.set("service-sandbox", secret, "KEPT_SECRET_41")
    panel.client_secret.setText("REPLACED_SECRET_42")
    assert not panel.save()
    prompt = panel.pin_prompt
    assert prompt is not None
    prompt.reject()
    assert (
        backend.entries[("checkout-desktop", "service-sandbox/client_secret")] == "KEPT_SECRET_41"
    )
    assert panel.client_secret.text() == "REPLACED_SECRET_42"
    assert not panel.save()
    prompt = panel.pin_prompt
    assert prompt is not None
    prompt.pin.setText("4321")
    prompt.accept()
    assert (
        backend.entries[("checkout-desktop", "service-sandbox/client_secret")]
        == "REPLACED_SECRET_42"
    )
    assert saved[-1].active_profile == "service-sandbox"
    # The built-in sandbox "approves" sales without charging anyone: a supervisor's decision.
    panel.profile.setCurrentIndex(panel.profile.findData("builtin-sandbox"))
    assert not panel.save()
    prompt = panel.pin_prompt
    assert prompt is not None and prompt.isVisible()
    prompt.reject()
    assert saved[-1].active_profile == "service-sandbox"


def test_a_shop_without_a_pin_saves_as_before(qtbot: QtBot) -> None:
    panel, saved, _ = make(qtbot, Settings())
    panel.port.setValue(9911)
    panel.pin.setText("2468")
    assert panel.save(), panel.message.text()
    assert panel.pin_prompt is None
    assert saved[-1].listener.port == 9911


def test_the_pin_prompt_and_its_messages_go_through_translation(qtbot: QtBot) -> None:
    from PySide6.QtWidgets import QApplication

    from checkout_desktop.ui.labels import profile_label
    from tests.gui.pseudo import MarkingTranslator, english_on_screen

    app = QApplication.instance()
    assert isinstance(app, QApplication)
    with MarkingTranslator.installed(app):
        settings = pin_protected()
        data = [profile_label(p) for p in settings.profiles.values()]
        data += ["Português (Brasil)", "English", "cloudflared", "ngrok"]
        panel, saved, _ = make(qtbot, settings)
        panel.show()
        qtbot.waitExposed(panel)
        panel.clear_pin.click()
        panel.port.setValue(9911)
        assert not panel.save()
        prompt = panel.pin_prompt
        assert prompt is not None
        qtbot.waitExposed(prompt)
        assert english_on_screen(panel, data) == []
        prompt.pin.setText("1111")
        prompt.accept()
        assert prompt.error.text()
        assert english_on_screen(prompt) == []
        prompt.reject()
        assert panel.message.text()
        assert english_on_screen(panel, data) == []
        assert saved == []


def test_a_damaged_stored_pin_can_be_set_again_in_settings(qtbot: QtBot) -> None:
    # Refunds say "set the PIN again in Settings": Settings must not ask for the unreadable one.
    settings = Settings()
    settings.ui.supervisor_pin_hash = "scrypt$broken"
    panel, saved, _ = make(qtbot, settings)
    panel.pin.setText("8642")
    assert panel.save(), panel.message.text()
    assert panel.pin_prompt is None
    stored = saved[-1].ui.supervisor_pin_hash
    assert stored is not None and verify_pin("8642", stored)


def test_secret_fields_say_stored_only_when_a_secret_is_stored(qtbot: QtBot) -> None:
    backend = MemoryKeyring()
    SecretStore(backend).set("production", SecretName.CLIENT_SECRET, "kept-secret")
    panel = SettingsPanel(Settings(), secrets=SecretStore(backend), persist=lambda _: None)
    qtbot.addWidget(panel)
    panel.profile.setCurrentIndex(panel.profile.findData("production"))
    assert "keychain" in panel.client_secret.placeholderText()
    assert "keychain" not in panel.sdk_token.placeholderText()
    assert "keychain" not in panel.webhook_token.placeholderText()
    panel.profile.setCurrentIndex(panel.profile.findData("service-sandbox"))
    assert "keychain" not in panel.client_secret.placeholderText()
    # No keychain at all: nothing can be said to be stored in it.
    bare = SettingsPanel(Settings(), secrets=None, persist=lambda _: None)
    qtbot.addWidget(bare)
    bare.profile.setCurrentIndex(bare.profile.findData("production"))
    assert "keychain" not in bare.client_secret.placeholderText()


def test_what_was_typed_for_an_environment_survives_looking_at_another(qtbot: QtBot) -> None:
    settings = Settings()
    settings.profiles["service-sandbox"].client_id = "sandbox-id"
    panel, saved, _ = make(qtbot, settings)
    panel.profile.setCurrentIndex(panel.profile.findData("production"))
    panel.client_id.setText("prod-id")
    panel.merchant_document.setText("11.222.333/0001-81")
    panel.client_secret.setText("prodsecret")
    panel.sdk_token.setText("sdktoken")
    panel.webhook_token.setText("hooktoken")
    panel.phone_required.setChecked(False)
    panel.profile.setCurrentIndex(panel.profile.findData("service-sandbox"))
    # The other environment shows its own values, not production's.
    assert panel.client_id.text() == "sandbox-id"
    assert panel.client_secret.text() == ""
    assert panel.phone_required.isChecked()
    panel.profile.setCurrentIndex(panel.profile.findData("production"))
    assert panel.client_id.text() == "prod-id"
    assert panel.merchant_document.text() == "11.222.333/0001-81"
    assert panel.client_secret.text() == "prodsecret"
    assert panel.sdk_token.text() == "sdktoken"
    assert panel.webhook_token.text() == "hooktoken"
    assert not panel.phone_required.isChecked()
    assert panel.save(), panel.message.text()
    assert saved[-1].profiles["production"].client_id == "prod-id"
    # Revert forgets what was typed.
    panel.profile.setCurrentIndex(panel.profile.findData("service-sandbox"))
    panel.client_id.setText("typed-then-reverted")
    panel.revert_button.click()
    panel.profile.setCurrentIndex(panel.profile.findData("service-sandbox"))
    assert panel.client_id.text() == "sandbox-id"


def keychain_down(qtbot: QtBot, settings: Settings) -> tuple[SettingsPanel, list[Settings]]:
    import keyring.backends.fail

    saved: list[Settings] = []
    store = SecretStore(keyring.backends.fail.Keyring())
    panel = SettingsPanel(settings, secrets=store, persist=saved.append)
    qtbot.addWidget(panel)
    return panel, saved


def on_production() -> Settings:
    settings = Settings()
    settings.active_profile = "production"
    settings.profiles["production"].client_id = "shop-42"
    settings.profiles["production"].merchant_document = "11222333000181"
    return settings


def test_without_a_keychain_the_settings_that_need_no_secret_are_saved(qtbot: QtBot) -> None:
    panel, saved = keychain_down(qtbot, on_production())
    panel.shop_name.setText("Padaria Nova")
    panel.pin.setText("2468")
    panel.save()
    assert saved, panel.message.text()
    assert saved[-1].ui.shop_name == "Padaria Nova"
    stored = saved[-1].ui.supervisor_pin_hash
    assert stored is not None and verify_pin("2468", stored)
    assert saved[-1].active_profile == "production"
    # Saved, and why this environment's secrets could not be looked at.
    text = panel.message.text()
    assert text.startswith("Saved") and "keychain" in text, text


def test_without_a_keychain_typed_secrets_and_the_switch_they_need_are_kept_typed(
    qtbot: QtBot,
) -> None:
    panel, saved = keychain_down(qtbot, Settings())
    panel.shop_name.setText("Padaria Nova")
    panel.profile.setCurrentIndex(panel.profile.findData("production"))
    panel.client_id.setText("shop-42")
    panel.merchant_document.setText("11.222.333/0001-81")
    panel.client_secret.setText("prodsecret")
    panel.sdk_token.setText("sdktoken")
    panel.webhook_token.setText("hooktoken")
    assert not panel.save()  # not everything was kept
    assert saved, panel.message.text()
    result = saved[-1]
    assert result.ui.shop_name == "Padaria Nova"
    # The environment stays: it cannot charge without the secrets the keychain cannot keep.
    assert result.active_profile == "builtin-sandbox"
    assert "prodsecret" not in result.model_dump_json()
    text = panel.message.text()
    for said in ("Saved", "environment", "secrets", "keychain"):
        assert said in text, (said, text)
    # Nothing typed is lost: the environment and its secrets are still on screen.
    assert panel.profile.currentData() == "production"
    assert panel.client_id.text() == "shop-42"
    assert panel.client_secret.text() == "prodsecret"
    assert panel.webhook_token.text() == "hooktoken"
    assert panel.shop_name.text() == "Padaria Nova"


def test_without_a_keychain_a_shared_store_with_a_password_waits(qtbot: QtBot) -> None:
    panel, saved = keychain_down(qtbot, Settings())
    panel.large_amount.set_centavos(90_000)
    choice = panel.store_choice
    choice.shared.setChecked(True)
    choice.host.setText("db.shop.lan")
    choice.database.setText("shop")
    choice.user.setText("counter")
    choice.password.setText("dbpass")
    assert not panel.save()
    assert saved, panel.message.text()
    assert saved[-1].ui.large_amount_warning == 90_000
    assert saved[-1].shared_store_url is None
    assert "store" in panel.message.text() and "keychain" in panel.message.text()
    assert choice.shared.isChecked() and choice.host.text() == "db.shop.lan"
    assert choice.password.text() == "dbpass"


def test_with_no_keychain_at_all_the_rest_is_saved_too(qtbot: QtBot) -> None:
    saved: list[Settings] = []
    panel = SettingsPanel(on_production(), secrets=None, persist=saved.append)
    qtbot.addWidget(panel)
    panel.shop_name.setText("Padaria Nova")
    panel.client_secret.setText("prodsecret")
    assert not panel.save()
    assert saved and saved[-1].ui.shop_name == "Padaria Nova"
    assert "secrets" in panel.message.text()
    assert panel.client_secret.text() == "prodsecret"


def test_a_refused_amount_in_settings_says_why_and_keeps_the_amount(qtbot: QtBot) -> None:
    # The warning limit and the 3-D Secure threshold are amounts like the sale's: a paste that
    # is not one is said, never dropped in silence, and what was there stays.
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QGuiApplication

    panel, _, _ = make(qtbot, Settings())
    panel.show()
    for field in (panel.large_amount, panel.three_ds_above):
        field.setEnabled(True)
        field.set_centavos(123456)
        field.setFocus()
        QGuiApplication.clipboard().setText("12.50")
        qtbot.keyClick(field, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)
        assert field.centavos() == 123456
        assert "12.50" not in panel.message.text()
        assert panel.message.text().startswith("That is not an amount in reais"), (
            panel.message.text()
        )
        # A good amount clears the message.
        QGuiApplication.clipboard().setText("R$ 20,00")
        qtbot.keyClick(field, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)
        assert field.centavos() == 2000
        assert panel.message.text() == ""


def test_the_reconciliation_interval_reads_in_whole_seconds_and_an_odd_kept_value_survives(
    qtbot: QtBot,
) -> None:
    # "60,00 s" read like money; a shop owner sets whole seconds.
    from tests.gui.pseudo import in_portuguese

    with in_portuguese():
        panel, saved, _ = make(qtbot, Settings())
        assert panel.reconcile.text() == "60 s"
    # A value kept in the file with a fraction (an edited file) is shown rounded and kept as it
    # was unless the owner changes it.
    panel, saved, _ = make(qtbot, Settings(reconcile_interval_s=7.5))
    assert panel.reconcile.value() == 8
    assert panel.save(), panel.message.text()
    assert saved[-1].reconcile_interval_s == 7.5
    panel.reconcile.setValue(9)
    assert panel.save(), panel.message.text()
    assert saved[-1].reconcile_interval_s == 9
    panel, saved, _ = make(qtbot, Settings(reconcile_interval_s=8.5))
    assert panel.save(), panel.message.text()
    assert saved[-1].reconcile_interval_s == 8.5
