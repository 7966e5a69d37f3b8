"""The terminal's languages: pt_BR where the system speaks Portuguese, English elsewhere.

Texts go through Qt's translation system (`tr()` / `QCoreApplication.translate`): the sources
are `resources/translations/checkout_desktop_<lang>.ts`, updated and compiled to `.qm` by
`resources/translations/build.py` (pyside6-lupdate + pyside6-lrelease); the compiled files are
committed so a fresh checkout needs no Qt tools to run in Portuguese. English is the source
language.
"""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QTranslator

from checkout_desktop.paths import AppPaths, resources_dir

logger = logging.getLogger(__name__)

TRANSLATIONS_DIR = "translations"
CATALOG = "checkout_desktop"
SUPPORTED = ("pt_BR", "en")


class TranslationError(ValueError):
    """A language that the terminal cannot show; the message lists the ones it can."""


def translations_dir() -> Path:
    return resources_dir() / TRANSLATIONS_DIR


def choose_locale(setting: str | None, system: QLocale | None = None) -> QLocale:
    """The locale to use: the setting when given, else pt_BR for any Portuguese system locale.

    Every other system locale gets English texts, with the system's own number and date
    formats (an English-speaking shop in Brazil still sees `R$`).
    """
    if setting:
        normalized = setting.replace("-", "_")
        if normalized.lower().startswith("pt"):
            return QLocale(QLocale.Language.Portuguese, QLocale.Country.Brazil)
        if normalized.lower().startswith("en"):
            base = system or QLocale.system()
            if base.language() == QLocale.Language.English:
                return base
            return QLocale(QLocale.Language.English, QLocale.Country.UnitedStates)
        raise TranslationError(
            f"the terminal speaks Brazilian Portuguese (pt_BR) and English (en), not {setting!r}"
        )
    base = system or QLocale.system()
    if base.language() == QLocale.Language.Portuguese:
        return QLocale(QLocale.Language.Portuguese, QLocale.Country.Brazil)
    if base.language() == QLocale.Language.English:
        return base
    return QLocale(QLocale.Language.English, QLocale.Country.UnitedStates)


def is_portuguese(locale: QLocale) -> bool:
    return locale.language() == QLocale.Language.Portuguese


class Translations:
    """The translators installed on the application for one locale (ours and Qt's own)."""

    def __init__(self) -> None:
        self._installed: list[QTranslator] = []
        self.locale = QLocale(QLocale.Language.English, QLocale.Country.UnitedStates)

    def install(self, locale: QLocale, directory: Path | None = None) -> bool:
        """Make `locale` the default and load its texts; False when only English is shown."""
        self.remove()
        QLocale.setDefault(locale)
        self.locale = locale
        if not is_portuguese(locale):
            return False
        app = QCoreApplication.instance()
        if app is None:
            raise TranslationError("translations are installed on a running QApplication")
        ours = QTranslator(app)
        folder = directory or translations_dir()
        if not ours.load(f"{CATALOG}_pt_BR", str(folder)):
            logger.error(
                "the Portuguese texts are missing from %s; run resources/translations/build.py",
                folder,
            )
            return False
        app.installTranslator(ours)
        self._installed.append(ours)
        # Qt's own dialogs (print, file, message box buttons) in Portuguese too.
        qt_base = QTranslator(app)
        if qt_base.load(
            locale, "qtbase", "_", QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)
        ):
            app.installTranslator(qt_base)
            self._installed.append(qt_base)
        return True

    def remove(self) -> None:
        app = QCoreApplication.instance()
        for translator in self._installed:
            if app is not None:
                app.removeTranslator(translator)
        self._installed.clear()


def install_settings_language(paths: AppPaths | None) -> Translations:
    """Install the language the window would speak, before the window exists (a start-up
    problem, a second launch that got no answer): the settings' choice when they can be read,
    else the system's."""
    from checkout_desktop.settings import load_settings

    setting: str | None = None
    if paths is not None:
        try:
            setting = load_settings(paths).ui.locale
        except Exception:  # the settings may be the very problem: the system's language then
            setting = None
    try:
        locale = choose_locale(setting)
    except TranslationError:
        locale = choose_locale(None)
    translations = Translations()
    translations.install(locale)
    return translations
