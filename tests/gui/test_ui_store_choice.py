"""The store choice in Settings: this computer or the shop's shared database, a test that
connects to a real PostgreSQL server, the password into the keychain and never into settings,
and the screen in Portuguese."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from urllib.parse import parse_qs, urlsplit

import pytest
from PySide6.QtCore import QLocale
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from checkout_desktop.secrets import SecretStore
from checkout_desktop.settings import Settings
from checkout_desktop.store.postgres.address import StoreAddress
from checkout_desktop.ui.i18n import Translations
from checkout_desktop.ui.settings_panel import SettingsPanel
from tests.conftest import MemoryKeyring

PASSWORD = "senha-do-banco-7Qx"
PT_BR = QLocale(QLocale.Language.Portuguese, QLocale.Country.Brazil)
WAIT_MS = 60_000  # a bound on a hang, never a speed claim


@pytest.fixture
def translations(qapp: QApplication) -> Iterator[Translations]:
    previous = QLocale()
    installed = Translations()
    yield installed
    installed.remove()
    QLocale.setDefault(previous)


def _panel(qtbot: QtBot, settings: Settings) -> tuple[SettingsPanel, list[Settings], MemoryKeyring]:
    saved: list[Settings] = []
    backend = MemoryKeyring()
    panel = SettingsPanel(settings, secrets=SecretStore(backend), persist=saved.append)
    qtbot.addWidget(panel)
    panel.show()
    return panel, saved, backend


def _socket_and_database(pg_url: str) -> tuple[str, str]:
    parts = urlsplit(pg_url)
    return parse_qs(parts.query)["host"][0], parts.path.lstrip("/")


def _test(qtbot: QtBot, panel: SettingsPanel) -> str:
    choice = panel.store_choice
    choice.test_button.click()
    assert not choice.test_button.isEnabled()  # one test at a time
    qtbot.waitUntil(lambda: choice.test_button.isEnabled(), timeout=WAIT_MS)
    return choice.result.text()


@pytest.mark.pg
def test_the_shared_database_is_tested_and_kept_without_its_password(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, pg_url: str, translations: Translations
) -> None:
    assert translations.install(PT_BR)
    panel, saved, backend = _panel(qtbot, Settings())
    choice = panel.store_choice
    assert choice.local.isChecked() and choice.local.text() == "Este computador"
    assert choice.shared.text() == "Banco compartilhado da loja"
    assert not choice.fields.isVisible()

    choice.shared.setChecked(True)
    assert choice.fields.isVisible()
    # Nothing typed yet: saving says what is missing, in Portuguese, and keeps nothing.
    assert not panel.save()
    assert "servidor" in panel.message.text() and "banco" in panel.message.text()
    assert saved == []

    socket, database = _socket_and_database(pg_url)
    choice.host.setText(socket)
    choice.database.setText(database)
    choice.user.setText("postgres")
    choice.password.setText(PASSWORD)
    assert _test(qtbot, panel).startswith("Conectado: PostgreSQL")

    assert panel.save()
    url = saved[-1].shared_store_url
    assert url is not None
    assert PASSWORD not in url and PASSWORD not in saved[-1].model_dump_json()
    address = StoreAddress.parse(url)
    assert (address.dbname, address.user, address.get("sslmode")) == (
        database,
        "postgres",
        "prefer",
    )
    assert SecretStore(backend).store_password(address.keychain_key) is not None
    assert "próximo início" in panel.message.text()  # the store applies at the next start
    assert choice.password.text() == ""


@pytest.mark.pg
def test_an_unreachable_server_and_an_unknown_database_are_said_plainly(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, pg_url: str, translations: Translations
) -> None:
    assert translations.install(PT_BR)
    panel, _, _ = _panel(qtbot, Settings())
    choice = panel.store_choice
    choice.shared.setChecked(True)
    socket, _ = _socket_and_database(pg_url)
    choice.host.setText(socket + "-gone")
    choice.database.setText("loja")
    choice.user.setText("postgres")
    assert "O servidor não responde" in _test(qtbot, panel)
    choice.host.setText(socket)
    choice.database.setText("nao_existe")
    assert "não tem um banco com esse nome" in _test(qtbot, panel)


def test_the_embedded_store_is_the_default_and_stays_chosen(qtbot: QtBot) -> None:
    panel, saved, _ = _panel(qtbot, Settings())
    assert panel.save()
    assert saved[-1].shared_store_url is None
    assert panel.message.text() == "Saved."


def test_a_password_typed_into_server_is_refused_in_plain_words_and_never_repeated(
    qtbot: QtBot, qloop: asyncio.AbstractEventLoop, translations: Translations
) -> None:
    # Settings' own store choice (the wizard has its own check): the reason is the owner's
    # language, says where each part goes, and never repeats what was typed.
    assert translations.install(PT_BR)
    panel, saved, _ = _panel(qtbot, Settings())
    choice = panel.store_choice
    choice.shared.setChecked(True)
    choice.host.setText("caixa:SEGREDO_444@servidor-da-loja")
    choice.database.setText("loja")
    choice.user.setText("caixa")
    choice.test_button.click()  # refused before anything is tried
    said = choice.result.text()
    assert "Digite em Servidor só o nome ou o endereço do servidor" in said, said
    assert "SEGREDO_444" not in said
    assert not panel.save()
    assert saved == []
    shown = panel.message.text() + choice.result.text()
    assert "SEGREDO_444" not in shown
    assert "Digite em Servidor só o nome" in shown, shown
