"""A profile that cannot start: the dialog says why and offers the setup, or quitting."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
import qasync
from PySide6.QtWidgets import QApplication, QMessageBox, QPushButton
from pytestqt.qtbot import QtBot

from checkout_desktop.gateway.profiles import ProfileError, client_id_of, resolve_endpoints
from checkout_desktop.secrets import SecretStore
from checkout_desktop.settings import Settings
from checkout_desktop.ui.labels import profile_label
from checkout_desktop.ui.launch import ask_to_fix_profile
from tests.conftest import MemoryKeyring
from tests.gui.conftest import shown_top_level
from tests.gui.pseudo import MarkingTranslator, english_on_screen, untranslated


def _dialog() -> QMessageBox | None:
    return shown_top_level(QMessageBox, "profileCannotStart")


@pytest.mark.parametrize("choice", ["openSetup", "quit"])
def test_the_dialog_says_why_and_offers_the_setup(
    qtbot: QtBot, qloop: qasync.QEventLoop, arun: Callable[..., Any], choice: str
) -> None:
    settings = Settings(first_run_done=True, active_profile="production")
    task = asyncio.ensure_future(ask_to_fix_profile(settings, "the profile has no client id"))
    qtbot.waitUntil(lambda: _dialog() is not None, timeout=5000)
    box = _dialog()
    assert box is not None
    assert "cannot start" in box.text()
    assert box.detailedText() == "Technical detail: the profile has no client id"
    if choice == "openSetup":
        button = box.findChild(QPushButton, "openSetup")
        assert button is not None
        button.click()
        assert arun(task) is True
    else:
        box.reject()
        assert arun(task) is False


def _start_words(settings: Settings) -> str:
    """What the start says (in English, for the log) about a profile that cannot start."""
    try:
        resolve_endpoints(settings.profile)
        client_id_of(settings.profile)
    except ProfileError as exc:
        return str(exc)
    raise AssertionError("the profile can start")


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({}, "client id"),
        ({"client_id": "shop-42", "base_url": ""}, "API address"),
    ],
    ids=["no-client-id", "no-api-address"],
)
def test_in_portuguese_the_dialog_says_why_in_portuguese(
    qtbot: QtBot,
    qloop: qasync.QEventLoop,
    arun: Callable[..., Any],
    change: dict[str, str],
    named: str,
) -> None:
    settings = Settings(first_run_done=True, active_profile="production")
    settings.profiles["production"] = settings.profile.model_copy(update=change)
    # The start's own words, as the launch hands them on.
    why = _start_words(settings)
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    with MarkingTranslator.installed(app):
        task = asyncio.ensure_future(ask_to_fix_profile(settings, why))
        qtbot.waitUntil(lambda: _dialog() is not None, timeout=5000)
        box = _dialog()
        assert box is not None
        try:
            # What is missing is said in the screen's language, not only in the detail.
            assert english_on_screen(box, (profile_label(settings.profile),)) == []
            assert "⟦" in box.informativeText()
            # The start's own words stay as a technical detail, framed in Portuguese.
            # (Addresses are data already: the rest of the start's words are the detail.)
            words = [part.strip() for part in re.split(r"\S+://\S+", why)]
            assert untranslated(box.detailedText(), words) == []
        finally:
            box.reject()
        assert arun(task) is False
    english = Settings(first_run_done=True, active_profile="production")
    english.profiles["production"] = settings.profile
    task = asyncio.ensure_future(ask_to_fix_profile(english, why))
    qtbot.waitUntil(lambda: _dialog() is not None, timeout=5000)
    box = _dialog()
    assert box is not None
    try:
        assert named in box.informativeText()
        assert box.detailedText() == f"Technical detail: {why}"
    finally:
        box.reject()
    assert arun(task) is False


def _store_dialog() -> QMessageBox | None:
    return shown_top_level(QMessageBox, "storeCannotStart")


def _shop_settings(store: str) -> Settings:
    settings = Settings(first_run_done=True, active_profile="production")
    settings.profiles["production"] = settings.profile.model_copy(update={"client_id": "shop-42"})
    settings.shared_store_url = store
    return settings


@pytest.fixture
def chromium_started_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Chromium takes its flags once per process, and this test process started it with the
    card tests' SDK slot (tests/gui/card_fixtures.py): the window opened here keeps those
    instead of asking for its own, which the engine would refuse. Nothing here needs the card
    page to reach its sandbox."""
    monkeypatch.setattr(
        "checkout_desktop.ui.chromium.apply_profile_flags", lambda *args, **kwargs: []
    )


@pytest.mark.pg
@pytest.mark.expected_errors("the shared store cannot be used")
@pytest.mark.parametrize("case", ["wrong-password", "server-down"])
def test_a_shared_store_that_refuses_or_is_down_is_named_and_ends_with_exit_3(
    chromium_started_once: None,
    qtbot: QtBot,
    qloop: qasync.QEventLoop,
    arun: Callable[..., Any],
    shop_store: str,
    memory_keyring: MemoryKeyring,
    tmp_path: Path,
    case: str,
) -> None:
    from pydantic import SecretStr

    from checkout_desktop.paths import app_paths
    from checkout_desktop.store.postgres import db
    from checkout_desktop.store.postgres.address import StoreAddress
    from checkout_desktop.ui.launch import run_window

    store = shop_store
    if case == "server-down":
        address = StoreAddress.parse(store)
        store = store.replace(quote(address.host, safe=""), quote(address.host + "-gone", safe=""))
    db.save_password(
        StoreAddress.parse(store), SecretStr("errada-123"), SecretStore(memory_keyring)
    )
    paths = app_paths(tmp_path / "caixa").ensure()
    task = asyncio.ensure_future(run_window(_shop_settings(store), paths))
    qtbot.waitUntil(lambda: _store_dialog() is not None or task.done(), timeout=30_000)
    assert not task.done(), "the terminal ended without saying why"
    box = _store_dialog()
    assert box is not None
    try:
        assert "shared database" in box.text()
        said = box.informativeText()
        if case == "wrong-password":
            assert "refused the login" in said
            assert "store password" in said and StoreAddress.parse(store).url() in said
        else:
            assert "does not answer" in said
        # Not blamed on the environment, and never the password.
        assert "environment" not in box.text() + said
        assert "errada-123" not in said + box.detailedText()
        assert box.findChild(QPushButton, "openSetup") is not None
    finally:
        box.reject()
    assert arun(task, timeout=10_000) == 3


@pytest.mark.expected_errors("the built-in sandbox cannot start")
def test_a_built_in_sandbox_that_does_not_start_is_said_in_a_dialog_not_only_on_a_console(
    qtbot: QtBot,
    qloop: qasync.QEventLoop,
    arun: Callable[..., Any],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Launched from the desktop's menu there is no console: a start that fails on the training
    # sandbox says so in a window, with what to do, and the terminal then ends (exit 1).
    from checkout_desktop.paths import app_paths
    from checkout_desktop.sandbox.link import SandboxLinkError
    from checkout_desktop.ui.launch import run_window

    def fails(*args: object, **kwargs: object) -> object:
        raise SandboxLinkError("the sandbox process ended before it announced itself")

    monkeypatch.setattr("checkout_desktop.sandbox.link.start_sandbox", fails)
    paths = app_paths(tmp_path / "caixa").ensure()
    task = asyncio.ensure_future(run_window(Settings(first_run_done=True), paths))

    def shown() -> QMessageBox | None:
        return shown_top_level(QMessageBox, "startupProblem")

    qtbot.waitUntil(lambda: shown() is not None or task.done(), timeout=30_000)
    assert not task.done(), "the terminal ended without a window saying why"
    box = shown()
    assert box is not None
    assert box.text() == "The terminal cannot start."
    assert "built-in sandbox" in box.informativeText()
    assert "announced itself" in box.detailedText()
    box.accept()
    assert arun(task, timeout=10_000) == 1
