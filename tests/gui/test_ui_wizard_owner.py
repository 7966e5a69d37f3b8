"""The wizard as a new owner meets it: a shared database the terminal cannot use is never kept,
messages follow the fields, Back keeps what the keychain holds, and the database's results are
said in the owner's language with an honest end."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
from PySide6.QtCore import QLocale
from PySide6.QtWidgets import QApplication, QLabel, QWizard
from pytestqt.qtbot import QtBot

from checkout_desktop.secrets import SecretStore
from checkout_desktop.settings import Settings
from checkout_desktop.ui.i18n import Translations
from checkout_desktop.ui.wizard import CheckResult, FirstRunWizard
from tests.conftest import MemoryKeyring

VALID_CNPJ = "11.222.333/0001-81"
PT_BR = QLocale(QLocale.Language.Portuguese, QLocale.Country.Brazil)
WAIT_MS = 60_000  # a bound on a hang, never a speed claim
TRYING = ("Trying the", "Testando")
NO_SERVER = ("127.0.0.1", 1)
"""Nothing listens there: a connection is refused at once (the server "does not answer")."""


class Answers:
    def __init__(self, results: list[CheckResult]) -> None:
        self.results = results

    async def __call__(self, settings: Settings) -> list[CheckResult]:
        return self.results


def _wizard(qtbot: QtBot, settings: Settings | None = None) -> tuple[FirstRunWizard, MemoryKeyring]:
    backend = MemoryKeyring()
    wizard = FirstRunWizard(
        settings or Settings(),
        secrets=SecretStore(backend),
        tester=Answers([CheckResult("Token", True, "fetched")]),
    )
    qtbot.addWidget(wizard)
    wizard.show()
    return wizard, backend


@pytest.fixture
def translations(qapp: QApplication) -> Iterator[Translations]:
    installed = Translations()
    yield installed
    installed.remove()


def _shared(wizard: FirstRunWizard, host: str, port: int, database: str, user: str) -> None:
    wizard.next()
    wizard.next()
    assert wizard.currentId() == wizard.shop_id
    choice = wizard.shop_page.store_choice
    choice.shared.setChecked(True)
    choice.host.setText(host)
    choice.port.setValue(port)
    choice.database.setText(database)
    choice.user.setText(user)


def _next_and_wait(qtbot: QtBot, wizard: FirstRunWizard) -> str:
    """Press Next on the shop page; the page's message once the database was tried."""
    shop = wizard.shop_page
    wizard.next()
    qtbot.waitUntil(
        lambda: (
            wizard.currentId() != wizard.shop_id
            or (shop.error.text() != "" and not shop.error.text().startswith(TRYING))
        ),
        timeout=WAIT_MS,
    )
    return shop.error.text()


def _socket(url: str) -> tuple[str, int]:
    from checkout_desktop.store.postgres.address import StoreAddress

    address = StoreAddress.parse(url)
    return address.host, address.port


@pytest.mark.pg
def test_a_database_the_terminal_cannot_use_is_never_kept(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, shop_store: str, pg_url: str
) -> None:
    import psycopg

    from checkout_desktop.store.postgres.address import StoreAddress
    from tests.pg_fixtures import SHOP_STORE_PASSWORD

    # Another program's table in the shop's database, as the walkthrough's "estoque".
    with psycopg.connect(pg_url, autocommit=True) as admin:
        admin.execute("CREATE TABLE estoque_itens (id integer)")
    address = StoreAddress.parse(shop_store)
    wizard, backend = _wizard(qtbot)
    _shared(wizard, address.host, address.port, address.dbname, address.user)
    shop = wizard.shop_page
    choice = shop.store_choice
    choice.password.setText(SHOP_STORE_PASSWORD)
    for _ in range(2):
        said = _next_and_wait(qtbot, wizard)
        assert wizard.currentId() == wizard.shop_id
        assert "another program's tables" in said, said
        assert "Next again to keep" not in said and "could not be tried" not in said, said
    assert backend.entries == {}
    assert wizard.settings.shared_store_url is None

    # A database that does not exist: the same, with its own message.
    choice.database.setText("nao_existe_aqui")
    for _ in range(2):
        said = _next_and_wait(qtbot, wizard)
        assert wizard.currentId() == wizard.shop_id
        assert "no database with this name" in said, said
        assert "Next again to keep" not in said, said
    assert backend.entries == {}

    # Nothing typed in Password (the server lets this user in without one): tried all the same.
    superuser = StoreAddress.parse(pg_url)
    choice.password.clear()
    choice.user.setText(superuser.user)
    choice.database.setText("nao_existe_aqui")
    said = _next_and_wait(qtbot, wizard)
    assert wizard.currentId() == wizard.shop_id
    assert "no database with this name" in said, said
    # A database the terminal can use goes on at once.
    with psycopg.connect(pg_url, autocommit=True) as admin:
        admin.execute("DROP TABLE estoque_itens")
    choice.database.setText(superuser.dbname)
    wizard.next()
    qtbot.waitUntil(lambda: wizard.currentId() == wizard.test_id, timeout=WAIT_MS)
    assert wizard.settings.shared_store_url is not None


def test_a_server_that_does_not_answer_may_be_kept_and_says_what_that_means(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop
) -> None:
    wizard, backend = _wizard(qtbot)
    _shared(wizard, *NO_SERVER, "loja", "caixa")
    wizard.shop_page.store_choice.password.setText("senha-do-banco-31")
    said = _next_and_wait(qtbot, wizard)
    assert wizard.currentId() == wizard.shop_id
    assert "does not answer" in said and "will not start until" in said, said
    assert backend.entries == {}
    wizard.next()
    assert wizard.currentId() == wizard.test_id
    assert len(backend.entries) == 1


def test_a_database_message_goes_once_its_fields_change(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop
) -> None:
    wizard, _backend = _wizard(qtbot)
    _shared(wizard, *NO_SERVER, "naoexiste", "caixa")
    shop = wizard.shop_page
    shop.store_choice.password.setText("senha-do-banco-31")
    said = _next_and_wait(qtbot, wizard)
    assert "does not answer" in said
    shop.store_choice.database.setText("estoque")
    assert shop.error.text() == ""
    # A PIN mistake is not the database's: it stays.
    shop.pin.setText("12")
    shop.pin_again.setText("12")
    wizard.next()
    pin_error = shop.error.text()
    assert "4 to 8 digits" in pin_error
    shop.store_choice.database.setText("loja")
    assert shop.error.text() == pin_error


def _clipped(root: QLabel | object) -> list[tuple[str, int, int]]:
    from PySide6.QtWidgets import QWidget

    assert isinstance(root, QWidget)
    return [
        (label.text()[:40], label.height(), label.heightForWidth(label.width()))
        for label in root.findChildren(QLabel)
        if label.isVisible()
        and label.wordWrap()
        and label.text()
        and label.height() < label.heightForWidth(label.width())
    ]


def test_the_shop_pages_messages_are_drawn_whole(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop
) -> None:
    wizard, _backend = _wizard(qtbot)
    _shared(wizard, *NO_SERVER, "naoexiste", "caixa")
    shop = wizard.shop_page
    choice = shop.store_choice
    shop.shop_name.setText("Padaria Sol")
    shop.pin.setText("1234")
    shop.pin_again.setText("1234")
    qtbot.waitExposed(wizard)
    content = shop.scroll_area.widget()

    def tested() -> None:
        choice.test_button.click()
        qtbot.waitUntil(lambda: choice.test_button.isEnabled(), timeout=WAIT_MS)
        qtbot.wait(50)

    tested()
    assert _clipped(content) == []
    choice.password.setText("senha-do-banco-31")
    _next_and_wait(qtbot, wizard)
    qtbot.wait(50)
    assert _clipped(content) == []
    # The page is taller than its window now: the result grows inside the scrolled page.
    tested()
    assert "does not answer" in choice.result.text()
    assert _clipped(content) == []


def test_going_back_keeps_the_secrets_the_keychain_holds(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop
) -> None:
    wizard, backend = _wizard(qtbot)
    wizard.environment_page.buttons["service-sandbox"].setChecked(True)
    wizard.next()
    page = wizard.credentials_page
    page.client_id.setText("cliente-123")
    page.client_secret.setText("s3cr3t-x")
    page.merchant_document.setText(VALID_CNPJ)
    page.sdk_token.setText("tk_sdk_value")
    wizard.next()
    assert "client secret" in page.error.text()
    page.client_secret.setText("s3cr3t_x")
    wizard.next()
    assert wizard.currentId() == wizard.webhook_id
    assert page.error.text() == ""  # the earlier mistake goes once the page is accepted
    hook = wizard.webhook_page
    hook.tunnel.setCurrentIndex(hook.tunnel.findData("manual"))
    hook.public_url.setText("https://shop.example.com/webhooks/checkout")
    hook.token.setText("whk_token_value")
    wizard.next()
    assert wizard.currentId() == wizard.shop_id
    stored = dict(backend.entries)
    assert len(stored) == 3

    wizard.back()
    assert wizard.currentId() == wizard.webhook_id
    assert hook.isComplete() and hook.token.text() == ""
    assert "keychain" in hook.token.placeholderText()
    wizard.back()
    assert wizard.currentId() == wizard.credentials_id
    assert wizard.button(QWizard.WizardButton.NextButton).isEnabled()
    for edit in (page.client_secret, page.sdk_token):
        assert edit.text() == "" and "keychain" in edit.placeholderText()
    assert page.error.text() == ""
    # Next keeps what the keychain holds; a secret typed anew replaces it.
    wizard.next()
    assert wizard.currentId() == wizard.webhook_id
    wizard.next()
    assert wizard.currentId() == wizard.shop_id
    assert backend.entries == stored
    wizard.back()
    wizard.back()
    page.client_secret.setText("novo_segredo_9")
    wizard.next()
    assert wizard.currentId() == wizard.webhook_id
    assert backend.entries[("checkout-desktop", "service-sandbox/client_secret")] == (
        "novo_segredo_9"
    )


def test_the_database_results_are_in_portuguese_with_the_detail_aside(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, translations: Translations
) -> None:
    from checkout_desktop.doctor.store_check import StoreTest
    from checkout_desktop.ui.store_choice import store_test_detail, store_test_text

    assert translations.install(PT_BR)
    foreign = StoreTest(
        ok=False,
        problem="foreign",
        detail="the database 'estoque' already holds 1 tables of another program; create an "
        "empty one and point --store at it",
    )
    said = store_test_text(foreign)
    assert said == "Este banco tem tabelas de outro programa: use um banco vazio.", said
    assert "--store" in store_test_detail(foreign)
    assert store_test_detail(foreign).startswith("Detalhe técnico: ")

    wizard, _backend = _wizard(qtbot)
    _shared(wizard, *NO_SERVER, "loja", "caixa")
    choice = wizard.shop_page.store_choice
    choice.test_button.click()
    qtbot.waitUntil(lambda: choice.test_button.isEnabled(), timeout=WAIT_MS)
    shown = choice.result.text()
    assert shown.startswith("O servidor não responde"), shown
    for english in ("Detalhe técnico", "the shared store", "Details:"):
        assert english not in shown, shown
    assert "Detalhe técnico: the shared store does not answer" in choice.result.toolTip()

    said = _next_and_wait(qtbot, wizard)
    assert "Detalhe técnico" not in said and "the shared store" not in said, said
    assert "Detalhe técnico" in wizard.shop_page.error.toolTip()
    wizard.next()
    test = wizard.test_page
    qtbot.waitUntil(test.isComplete, timeout=WAIT_MS)
    line = test.list.item(test.list.count() - 1)
    assert "O servidor não responde" in line.text() and "the shared store" not in line.text()
    assert "the shared store does not answer" in line.toolTip()


def test_a_failed_shared_database_says_the_terminal_will_not_start(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop
) -> None:
    wizard, _backend = _wizard(qtbot)
    _shared(wizard, *NO_SERVER, "loja", "caixa")
    _next_and_wait(qtbot, wizard)
    wizard.next()
    test = wizard.test_page
    assert wizard.currentId() == wizard.test_id
    qtbot.waitUntil(test.isComplete, timeout=WAIT_MS)
    summary = test.summary.text()
    assert "later in Settings" not in summary, summary
    assert "will not start" in summary, summary
