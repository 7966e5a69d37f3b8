"""Translations: pt_BR by default where the system speaks Portuguese, English otherwise."""

from __future__ import annotations

import importlib.util
import logging
import shutil
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from PySide6.QtCore import QLocale
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from checkout_desktop.paths import resources_dir
from checkout_desktop.ui.charge_form import ChargeForm
from checkout_desktop.ui.formatting import format_instant, format_money, to_qdatetime
from checkout_desktop.ui.i18n import TranslationError, Translations, choose_locale
from checkout_desktop.ui.labels import status_label

logger = logging.getLogger(__name__)

PT_BR = QLocale(QLocale.Language.Portuguese, QLocale.Country.Brazil)
PT_PT = QLocale(QLocale.Language.Portuguese, QLocale.Country.Portugal)
EN_US = QLocale(QLocale.Language.English, QLocale.Country.UnitedStates)
DE = QLocale(QLocale.Language.German, QLocale.Country.Germany)


@pytest.fixture
def translations(qapp: QApplication) -> Iterator[Translations]:
    previous = QLocale()
    installed = Translations()
    yield installed
    installed.remove()
    QLocale.setDefault(previous)


def test_locale_choice() -> None:
    assert choose_locale(None, PT_PT).name() == "pt_BR"
    assert choose_locale(None, PT_BR).name() == "pt_BR"
    assert choose_locale(None, EN_US).name() == "en_US"
    assert choose_locale(None, DE).name() == "en_US"
    assert choose_locale("pt_BR", EN_US).name() == "pt_BR"
    assert choose_locale("en", PT_BR).name() == "en_US"
    with pytest.raises(TranslationError, match="not 'fr'"):
        choose_locale("fr", EN_US)


def test_portuguese_texts_money_and_dates(qtbot: QtBot, translations: Translations) -> None:
    assert translations.install(PT_BR)
    form = ChargeForm()
    qtbot.addWidget(form)
    titles = {box.title() for box in form.findChildren(type(form.address_box))}
    assert {"Venda", "Cliente", "Endereço de cobrança"} <= titles
    assert status_label("PAID") == "Paga"
    assert format_money(123456).replace("\u00a0", " ") == "R$ 1.234,56"
    assert format_instant(datetime(2026, 3, 1, 15, 4, 5, tzinfo=UTC)).startswith("01/03/2026")


def test_english_texts_money_and_dates(qtbot: QtBot, translations: Translations) -> None:
    assert not translations.install(EN_US)
    form = ChargeForm()
    qtbot.addWidget(form)
    assert form.address_box.title() == "Billing address"
    assert status_label("PAID") == "Paid"
    assert format_money(123456) == "R$1,234.56"
    assert format_instant(datetime(2026, 3, 1, 15, 4, 5, tzinfo=UTC)).startswith("3/1/26")


def test_instants_follow_a_changed_time_zone(
    qapp: QApplication, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The machine's zone is looked up once and kept, but a new TZ is seen at the next row.
    moment = datetime(2026, 3, 1, 15, 4, 5, tzinfo=UTC)
    monkeypatch.setenv("TZ", "UTC")
    assert to_qdatetime(moment).time().toString("HH:mm") == "15:04"
    assert to_qdatetime(moment).time().toString("HH:mm") == "15:04"
    monkeypatch.setenv("TZ", "America/Sao_Paulo")
    assert to_qdatetime(moment).time().toString("HH:mm") == "12:04"
    assert format_instant(moment).endswith("12:04:05")
    monkeypatch.setenv("TZ", "Asia/Tokyo")
    assert format_instant(moment).endswith("00:04:05")


def test_every_text_in_the_code_has_a_portuguese_translation(tmp_path: Path) -> None:
    folder = resources_dir() / "translations"
    copy = tmp_path / "check.ts"
    shutil.copy(folder / "checkout_desktop_pt_BR.ts", copy)
    spec = importlib.util.spec_from_file_location("translations_build", folder / "build.py")
    assert spec is not None and spec.loader is not None
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)
    lupdate = Path(sys.executable).parent / "pyside6-lupdate"
    subprocess.run(
        [str(lupdate), *build.sources(), "-no-obsolete", "-ts", str(copy)],
        check=True,
        capture_output=True,
    )
    assert build.untranslated(copy) == []


def test_the_compiled_catalogue_is_the_one_its_source_makes(tmp_path: Path) -> None:
    """The terminal loads the `.qm`: one left behind its `.ts` (a rebuild that failed) shows
    English where the source has the translation."""
    folder = resources_dir() / "translations"
    compiled = tmp_path / "check.qm"
    lrelease = Path(sys.executable).parent / "pyside6-lrelease"
    subprocess.run(
        [str(lrelease), str(folder / "checkout_desktop_pt_BR.ts"), "-qm", str(compiled)],
        check=True,
        capture_output=True,
    )
    assert compiled.read_bytes() == (folder / "checkout_desktop_pt_BR.qm").read_bytes()


def test_money_on_a_machine_without_a_locale_reads_as_english_writes_it() -> None:
    # LANG=C (a minimal install, a service) gave "1234.56R$": the English way instead.
    from PySide6.QtCore import QLocale

    assert format_money(123456, QLocale.c()) == "R$1,234.56"
    assert format_money(500, QLocale.c()) == "R$5.00"
