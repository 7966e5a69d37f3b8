"""First-run wizard: sandbox preselected, secrets to the keychain only, URL rules, the test step."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

import pytest
import qasync
from PySide6.QtWidgets import QWizard
from pytestqt.qtbot import QtBot

from checkout_desktop.secrets import SecretStore
from checkout_desktop.settings import Settings
from checkout_desktop.ui.wizard import CheckResult, FirstRunWizard
from tests.conftest import MemoryKeyring

logger = logging.getLogger(__name__)

VALID_CNPJ = "11.222.333/0001-81"


class ScriptedTester:
    """Records which settings the test step was asked to check, and answers as told."""

    def __init__(self, results: list[CheckResult]) -> None:
        self.results = results
        self.seen: list[Settings] = []

    async def __call__(self, settings: Settings) -> list[CheckResult]:
        self.seen.append(settings.model_copy(deep=True))
        return self.results


def make(
    settings: Settings, results: list[CheckResult]
) -> tuple[FirstRunWizard, MemoryKeyring, ScriptedTester]:
    backend = MemoryKeyring()
    tester = ScriptedTester(results)
    wizard = FirstRunWizard(settings, secrets=SecretStore(backend), tester=tester)
    return wizard, backend, tester


def test_builtin_sandbox_is_preselected_and_skips_credentials(
    qtbot: QtBot, qloop: qasync.QEventLoop
) -> None:
    wizard, backend, tester = make(Settings(), [CheckResult("Token", True, "fetched")])
    qtbot.addWidget(wizard)
    wizard.show()
    assert wizard.environment_page.chosen_profile() == "builtin-sandbox"
    wizard.next()
    assert wizard.currentId() == wizard.webhook_id
    assert not wizard.webhook_page.token.isVisible()
    wizard.next()
    assert wizard.currentId() == wizard.shop_id
    wizard.next()
    assert wizard.currentId() == wizard.test_id
    qtbot.waitUntil(wizard.test_page.isComplete, timeout=5000)
    assert "Everything works" in wizard.test_page.summary.text()
    assert tester.seen[0].active_profile == "builtin-sandbox"
    wizard.button(QWizard.WizardButton.FinishButton).click()
    assert wizard.result() == QWizard.DialogCode.Accepted
    assert wizard.settings.first_run_done
    assert wizard.settings.tunnel.mode == "none"
    assert backend.entries == {}


def test_real_profile_secrets_go_to_the_keychain_not_settings(
    qtbot: QtBot, qloop: qasync.QEventLoop
) -> None:
    wizard, backend, _tester = make(Settings(), [CheckResult("Token", False, "401 invalid_client")])
    qtbot.addWidget(wizard)
    wizard.show()
    wizard.environment_page.buttons["service-sandbox"].setChecked(True)
    wizard.next()
    assert wizard.currentId() == wizard.credentials_id
    page = wizard.credentials_page
    assert not page.isComplete()
    page.client_id.setText("my-client")
    page.client_secret.setText("s3cretvalue")
    page.merchant_document.setText("11.222.333/0001-80")
    page.sdk_token.setText("tk_sdk_value")
    wizard.next()
    assert wizard.currentId() == wizard.credentials_id
    assert "CNPJ" in page.error.text()
    page.merchant_document.setText(VALID_CNPJ)
    wizard.next()
    assert wizard.currentId() == wizard.webhook_id
    assert backend.entries[("checkout-desktop", "service-sandbox/client_secret")] == "s3cretvalue"
    assert (
        backend.entries[("checkout-desktop", "service-sandbox/sdk_merchant_token")]
        == "tk_sdk_value"
    )

    hook = wizard.webhook_page
    hook.tunnel.setCurrentIndex(hook.tunnel.findData("manual"))
    hook.public_url.setText("http://203.0.113.9/hook?x=1")
    assert (
        "https" in hook.error.text()
        and "query" in hook.error.text()
        and "IPv4" in hook.error.text()
    )
    assert not hook.isComplete()
    hook.public_url.setText("https://shop.example.com/webhooks/checkout")
    assert hook.error.text() == ""
    assert not hook.isComplete()  # the token is still missing
    hook.token.setText("whk_token_value")
    assert hook.isComplete()
    wizard.next()
    assert wizard.currentId() == wizard.shop_id, hook.error.text()
    wizard.next()
    assert wizard.currentId() == wizard.test_id
    qtbot.waitUntil(wizard.test_page.isComplete, timeout=5000)
    assert "Something failed" in wizard.test_page.summary.text()
    assert "401 invalid_client" in wizard.test_page.list.item(0).text()
    wizard.button(QWizard.WizardButton.FinishButton).click()

    result = wizard.settings
    assert result.active_profile == "service-sandbox"
    assert result.profile.client_id == "my-client"
    assert result.profile.merchant_document == "11222333000181"
    assert result.tunnel.mode == "manual"
    assert result.tunnel.public_url == "https://shop.example.com/webhooks/checkout"
    dumped = result.model_dump_json()
    for secret in ("s3cretvalue", "tk_sdk_value", "whk_token_value"):
        assert secret not in dumped
    assert (
        backend.entries[("checkout-desktop", "service-sandbox/webhook_token")] == "whk_token_value"
    )


@pytest.mark.expected_errors("the connection test failed: the sandbox did not start")
def test_a_failing_tester_is_shown_not_raised(qtbot: QtBot, qloop: qasync.QEventLoop) -> None:
    class Broken:
        async def __call__(self, settings: Settings) -> list[CheckResult]:
            raise RuntimeError("the sandbox did not start")

    wizard = FirstRunWizard(Settings(), secrets=SecretStore(MemoryKeyring()), tester=Broken())
    qtbot.addWidget(wizard)
    wizard.show()
    wizard.next()
    wizard.next()
    wizard.next()
    qtbot.waitUntil(wizard.test_page.isComplete, timeout=5000)
    assert "the sandbox did not start" in wizard.test_page.list.item(0).text()


def test_run_wizard_returns_the_chosen_settings_or_none(
    qtbot: QtBot, qloop: qasync.QEventLoop, arun: Callable[..., Any], memory_keyring: Any
) -> None:

    from PySide6.QtWidgets import QApplication

    from checkout_desktop.ui.qt_app import run_wizard

    def open_wizard() -> FirstRunWizard:
        found = [w for w in QApplication.topLevelWidgets() if isinstance(w, FirstRunWizard)]
        visible = [w for w in found if w.isVisible()]
        assert visible
        return visible[-1]

    tester = ScriptedTester([CheckResult("Token", True, "fetched")])
    task = asyncio.ensure_future(run_wizard(Settings(), tester))
    qtbot.waitUntil(
        lambda: any(
            isinstance(w, FirstRunWizard) and w.isVisible() for w in QApplication.topLevelWidgets()
        )
    )
    wizard = open_wizard()
    wizard.next()
    wizard.next()
    wizard.next()
    qtbot.waitUntil(wizard.test_page.isComplete, timeout=5000)
    wizard.button(QWizard.WizardButton.FinishButton).click()
    chosen = arun(task)
    assert chosen is not None
    assert chosen.first_run_done

    task = asyncio.ensure_future(run_wizard(Settings(), tester))
    qtbot.waitUntil(
        lambda: any(
            isinstance(w, FirstRunWizard) and w.isVisible() for w in QApplication.topLevelWidgets()
        )
    )
    open_wizard().reject()
    assert arun(task) is None


def test_the_language_chosen_on_the_first_page_applies_at_once(
    qtbot: QtBot, qloop: qasync.QEventLoop
) -> None:
    from PySide6.QtCore import QLocale

    from checkout_desktop.ui.i18n import Translations, choose_locale

    previous = QLocale()
    translations = Translations()
    translations.install(choose_locale("en"))
    try:
        wizard = FirstRunWizard(
            Settings(),
            secrets=SecretStore(MemoryKeyring()),
            tester=ScriptedTester([]),
            on_language=lambda locale: translations.install(choose_locale(locale)),
        )
        qtbot.addWidget(wizard)
        wizard.show()
        page = wizard.environment_page
        assert page.title() == "Environment"
        assert wizard.buttonText(QWizard.WizardButton.NextButton) == "&Next >"
        page.language.setCurrentIndex(page.language.findData("pt_BR"))
        qtbot.waitUntil(lambda: page.title() == "Ambiente", timeout=2000)
        assert wizard.settings.ui.locale == "pt_BR"
        assert wizard.windowTitle() == "Configurar o checkout-desktop"
        assert wizard.buttonText(QWizard.WizardButton.NextButton) == "&Avançar >"
        assert wizard.shop_page.title() == "Loja"
        assert page.buttons["builtin-sandbox"].text() != "Built-in sandbox (no account)"
        page.language.setCurrentIndex(page.language.findData("en"))
        qtbot.waitUntil(lambda: page.title() == "Environment", timeout=2000)
    finally:
        translations.remove()
        QLocale.setDefault(previous)


def test_the_builtin_sandbox_shows_no_label_without_a_field(
    qtbot: QtBot, qloop: qasync.QEventLoop
) -> None:
    wizard, _backend, _tester = make(Settings(), [])
    qtbot.addWidget(wizard)
    wizard.show()
    wizard.next()
    hook = wizard.webhook_page
    assert wizard.currentId() == wizard.webhook_id
    for label in (hook.tunnel_label, hook.public_url_label, hook.token_label):
        assert not label.isVisible(), label.text()
    assert hook.port_label.isVisible()
    wizard.back()
    wizard.environment_page.buttons["production"].setChecked(True)
    wizard.next()
    page = wizard.credentials_page
    page.client_id.setText("my-client")
    page.client_secret.setText("s3cretvalue")
    page.merchant_document.setText(VALID_CNPJ)
    page.sdk_token.setText("tk_sdk_value")
    wizard.next()
    assert wizard.currentId() == wizard.webhook_id
    for label in (hook.tunnel_label, hook.public_url_label, hook.token_label):
        assert label.isVisible(), label.text()


def test_the_shop_page_sets_the_name_and_a_hashed_pin(
    qtbot: QtBot, qloop: qasync.QEventLoop
) -> None:
    from checkout_desktop.ui.supervisor import verify_pin

    wizard, _backend, _tester = make(Settings(), [CheckResult("Token", True, "fetched")])
    qtbot.addWidget(wizard)
    wizard.show()
    wizard.next()
    wizard.next()
    shop = wizard.shop_page
    assert wizard.currentId() == wizard.shop_id
    assert "recommended" in shop.pin_note.text()
    shop.shop_name.setText("  Padaria   Sol ")
    shop.pin.setText("4321")
    # What the PIN will guard, all of it.
    for guarded in ("Refunds", "earlier days", "unanswered charge"):
        assert guarded in shop.pin_note.text(), (guarded, shop.pin_note.text())
    shop.pin_again.setText("4322")
    wizard.next()
    assert wizard.currentId() == wizard.shop_id
    assert "differ" in shop.error.text()
    shop.pin_again.setText("4321")
    shop.pin.setText("12")
    shop.pin_again.setText("12")
    wizard.next()
    assert wizard.currentId() == wizard.shop_id
    assert "4 to 8 digits" in shop.error.text()
    shop.pin.setText("97531")
    shop.pin_again.setText("97531")
    wizard.next()
    assert wizard.currentId() == wizard.test_id
    assert shop.pin.text() == "" and shop.pin_again.text() == ""
    qtbot.waitUntil(wizard.test_page.isComplete, timeout=5000)
    wizard.button(QWizard.WizardButton.FinishButton).click()
    result = wizard.settings
    assert result.ui.shop_name == "Padaria Sol"
    stored = result.ui.supervisor_pin_hash
    assert stored is not None and "97531" not in stored
    assert verify_pin("97531", stored)
    assert "97531" not in result.model_dump_json()


def test_a_warning_is_amber_not_green(qtbot: QtBot, qloop: qasync.QEventLoop) -> None:
    results = [
        CheckResult("Token", True, "fetched"),
        CheckResult("Listener", True, "working, with a warning (no public URL)", warning=True),
    ]
    wizard, _backend, _tester = make(Settings(), results)
    qtbot.addWidget(wizard)
    wizard.show()
    for _ in range(3):
        wizard.next()
    qtbot.waitUntil(wizard.test_page.isComplete, timeout=5000)
    items = [wizard.test_page.list.item(i) for i in range(wizard.test_page.list.count())]
    assert items[0].text().startswith("✔")
    assert items[1].text().startswith("⚠")
    assert items[0].foreground().color() != items[1].foreground().color()
    summary = wizard.test_page.summary.text()
    assert "Everything works" not in summary
    assert "warnings" in summary


def test_the_shop_page_chooses_where_sales_are_kept(qtbot: QtBot, qloop: qasync.QEventLoop) -> None:
    from checkout_desktop.store.postgres.address import StoreAddress

    wizard, backend, _tester = make(Settings(), [CheckResult("Token", True, "fetched")])
    qtbot.addWidget(wizard)
    wizard.show()
    wizard.next()
    wizard.next()
    shop = wizard.shop_page
    choice = shop.store_choice
    assert choice.local.isChecked()  # this computer, unless the shop says otherwise
    choice.shared.setChecked(True)
    wizard.next()
    assert wizard.currentId() == wizard.shop_id
    assert "server" in shop.error.text()
    choice.host.setText("db.loja.example")
    choice.database.setText("caixa")
    choice.user.setText("loja")
    choice.password.setText("senha-secreta-42")
    choice.sslmode.setCurrentIndex(choice.sslmode.findData("verify-full"))
    wizard.next()
    # The server does not answer: nothing could be tried, and it is kept only when the owner
    # presses Next again (knowing the terminal will not start until the server answers).
    qtbot.waitUntil(lambda: "will not start until" in shop.error.text(), timeout=60_000)
    assert wizard.currentId() == wizard.shop_id
    assert backend.entries == {}
    wizard.next()
    assert wizard.currentId() == wizard.test_id
    qtbot.waitUntil(wizard.test_page.isComplete, timeout=60_000)
    wizard.button(QWizard.WizardButton.FinishButton).click()
    url = wizard.settings.shared_store_url
    assert url is not None and "senha-secreta-42" not in wizard.settings.model_dump_json()
    address = StoreAddress.parse(url)
    assert (address.host, address.dbname, address.get("sslmode")) == (
        "db.loja.example",
        "caixa",
        "verify-full",
    )
    assert SecretStore(backend).store_password(address.keychain_key) is not None


def _to_shared_store(wizard: FirstRunWizard) -> Any:
    wizard.show()
    wizard.next()
    wizard.next()
    choice = wizard.shop_page.store_choice
    choice.shared.setChecked(True)
    return choice


def test_a_password_typed_into_server_is_refused_and_never_shown_or_saved(
    qtbot: QtBot, qloop: qasync.QEventLoop
) -> None:
    wizard, backend, _tester = make(Settings(), [CheckResult("Token", True, "fetched")])
    qtbot.addWidget(wizard)
    choice = _to_shared_store(wizard)
    choice.host.setText("caixa:DBPASS_SEGREDO_444@servidor-da-loja")
    choice.database.setText("loja4")
    choice.user.setText("caixa")
    wizard.next()
    shop = wizard.shop_page
    assert wizard.currentId() == wizard.shop_id
    assert "Server" in shop.error.text() and "User" in shop.error.text()
    assert "DBPASS" not in shop.error.text()
    assert wizard.settings.shared_store_url is None
    assert "DBPASS" not in wizard.settings.model_dump_json()
    assert backend.entries == {}
    # Testing the database repeats nothing of it either.
    choice.test_button.click()
    assert "DBPASS" not in choice.result.text()
    # Fixed, the message goes at once.
    choice.host.setText("servidor-da-loja")
    assert shop.error.text() == ""


def test_the_shared_database_fields_are_whole_and_apart_at_the_wizards_size(
    qtbot: QtBot, qloop: qasync.QEventLoop
) -> None:
    from PySide6.QtCore import QRect
    from PySide6.QtWidgets import QScrollArea, QWidget

    wizard, _backend, _tester = make(Settings(), [CheckResult("Token", True, "fetched")])
    qtbot.addWidget(wizard)
    choice = _to_shared_store(wizard)
    qtbot.waitExposed(wizard)
    # The shop's PC: 1366×768; the wizard fits it.
    assert wizard.width() <= 1366 and wizard.height() <= 768
    fields: list[QWidget] = [
        choice.host,
        choice.port,
        choice.database,
        choice.user,
        choice.password,
        choice.sslmode,
        choice.test_button,
    ]
    places: list[QRect] = []
    for field in fields:
        # Each one gets the height it asks for (scrolled to when the page is taller).
        assert field.height() >= field.minimumSizeHint().height(), field.objectName()
        top_left = field.mapTo(wizard.shop_page, field.rect().topLeft())
        places.append(QRect(top_left, field.size()))
    for i, place in enumerate(places):
        for other in places[i + 1 :]:
            assert not place.intersects(other)
    scroll = wizard.shop_page.findChild(QScrollArea)
    if scroll is not None:
        scroll.ensureWidgetVisible(choice.test_button)
        assert choice.test_button.visibleRegion().boundingRect().height() == (
            choice.test_button.height()
        )


def test_a_missing_field_message_goes_once_the_fields_are_filled(
    qtbot: QtBot, qloop: qasync.QEventLoop
) -> None:
    wizard, _backend, _tester = make(Settings(), [CheckResult("Token", True, "fetched")])
    qtbot.addWidget(wizard)
    choice = _to_shared_store(wizard)
    shop = wizard.shop_page
    wizard.next()
    assert "server, database, user" in shop.error.text()
    choice.host.setText("servidor-da-loja")
    assert "server" not in shop.error.text() and "database, user" in shop.error.text()
    choice.database.setText("loja4")
    choice.user.setText("caixa")
    assert shop.error.text() == ""
    # A PIN mistake is not the store's: it stays until Next is pressed again.
    shop.pin.setText("12")
    shop.pin_again.setText("12")
    wizard.next()
    pin_error = shop.error.text()
    assert pin_error != ""
    choice.host.setText("outro-servidor")
    assert shop.error.text() == pin_error


@pytest.mark.pg
def test_a_wrong_database_password_is_tried_not_kept_and_the_test_checks_the_database(
    qtbot: QtBot, qloop: qasync.QEventLoop, shop_store: str
) -> None:
    from checkout_desktop.store.postgres.address import StoreAddress
    from tests.pg_fixtures import SHOP_STORE_PASSWORD

    address = StoreAddress.parse(shop_store)
    wizard, backend, _tester = make(Settings(), [CheckResult("Token", True, "fetched")])
    qtbot.addWidget(wizard)
    choice = _to_shared_store(wizard)
    shop = wizard.shop_page
    choice.host.setText(address.host)
    choice.database.setText(address.dbname)
    choice.user.setText(address.user)
    choice.password.setText("errada-777")
    wizard.next()
    qtbot.waitUntil(lambda: "refused the login" in shop.error.text(), timeout=60_000)
    assert wizard.currentId() == wizard.shop_id
    assert "not kept" in shop.error.text() and "errada-777" not in shop.error.text()
    assert backend.entries == {}
    assert wizard.settings.shared_store_url is None

    choice.password.setText(SHOP_STORE_PASSWORD)
    wizard.next()
    qtbot.waitUntil(lambda: wizard.currentId() == wizard.test_id, timeout=60_000)
    url = wizard.settings.shared_store_url
    assert url is not None
    kept = SecretStore(backend).store_password(StoreAddress.parse(url).keychain_key)
    assert kept is not None and kept.get_secret_value() == SHOP_STORE_PASSWORD
    test = wizard.test_page
    qtbot.waitUntil(test.isComplete, timeout=60_000)
    last = test.results[-1]
    assert last.name == "Shared database" and last.ok, last.detail
    assert last.detail.startswith("Connected: PostgreSQL")

    # The test says so when the database refuses what the keychain keeps.
    SecretStore(backend).set_store_password(StoreAddress.parse(url).keychain_key, "mudou-555")
    test.run_checks()
    qtbot.waitUntil(test.isComplete, timeout=60_000)
    assert not test.results[-1].ok and "refused the login" in test.results[-1].detail
    assert "Everything works" not in test.summary.text()
