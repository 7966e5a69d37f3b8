"""Settings panel: checks, supervisor PIN as a hash, secrets to the keychain, never to the file."""

from __future__ import annotations

import logging

from pytestqt.qtbot import QtBot

from checkout_desktop.secrets import SecretName, SecretStore
from checkout_desktop.settings import Settings
from checkout_desktop.ui.settings_panel import SettingsPanel
from checkout_desktop.ui.supervisor import verify_pin
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
    assert panel.save()
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
