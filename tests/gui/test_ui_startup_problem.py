"""A problem that stops the terminal before its window (a broken settings file, an unsafe
folder, a damaged store): said in the screen's language, with what to do."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication, QLocale
from PySide6.QtWidgets import QApplication

from checkout_desktop.paths import AppPaths, InstanceFolderError, app_paths
from checkout_desktop.settings import SettingsError, load_settings
from checkout_desktop.store.errors import StoreError
from checkout_desktop.store.sqlite import db as sqlite_db
from checkout_desktop.ui.startup_problem import install_startup_language, startup_problem_box


@pytest.fixture
def paths(tmp_path: Path, qapp: QApplication) -> Iterator[AppPaths]:
    previous = QLocale()
    yield app_paths(tmp_path / "caixa").ensure()
    QLocale.setDefault(previous)


def _settings_error(paths: AppPaths) -> SettingsError:
    paths.settings_file.write_text('{"ui": {locale: "pt_BR"}', encoding="utf-8")
    with pytest.raises(SettingsError) as caught:
        load_settings(paths)
    return caught.value


def test_a_broken_settings_file_is_said_with_what_to_do_and_its_english_kept_apart(
    paths: AppPaths,
) -> None:
    problem = _settings_error(paths)
    # The settings cannot tell the language: the system's is used, and nothing breaks.
    translations = install_startup_language(paths)
    try:
        box = startup_problem_box(problem, paths)
        said = box.informativeText()
        assert str(paths.settings_file) in said and "Move it" in said
        assert "Expecting property name" not in said
        assert "Expecting property name" in box.detailedText()
    finally:
        translations.remove()


def test_the_language_is_installed_before_the_problem_is_said(paths: AppPaths) -> None:
    paths.settings_file.write_text('{"ui": {"locale": "pt_BR"}}', encoding="utf-8")
    problem = InstanceFolderError(
        f"the folder {paths.data_dir} can be changed by other users (mode 777); make it "
        f"yours alone with `chmod 700 {paths.data_dir}` and start again"
    )
    assert QCoreApplication.translate("StartupProblem", "The terminal cannot start.") == (
        "The terminal cannot start."
    )
    translations = install_startup_language(paths)
    try:
        box = startup_problem_box(problem, paths)
        assert box.text() == "O terminal não pode iniciar."
        assert "chmod 700" in box.informativeText() and "--data-dir" in box.informativeText()
        assert box.detailedText().startswith("Detalhe técnico: the folder")
        assert "can be changed by other users" not in box.informativeText()
    finally:
        translations.remove()


def test_a_damaged_store_file_is_explained_not_just_titled(paths: AppPaths) -> None:
    paths.database_file.write_bytes(b"this is not a database, just some bytes " * 100)
    with pytest.raises(StoreError) as caught:
        sqlite_db.connect(paths.database_file)
    translations = install_startup_language(paths)
    try:
        box = startup_problem_box(caught.value, paths)
        said = box.informativeText()
        assert str(paths.database_file) in said and "Move it" in said
        assert str(caught.value) not in said
        assert str(caught.value) in box.detailedText()
    finally:
        translations.remove()
