"""The command line's language: the settings' when they can be read, else the system's.

`install` runs before the command line is parsed, so argparse's own words ("usage:", its
errors), every command's help and the messages the commands print come out in pt-BR from the
same catalogue the window and the doctor use. Only QtCore's QTranslator is loaded, and only
when the language is Portuguese: an English `--help` imports no Qt at all.

argparse words its usage, group titles and errors through gettext's `_()` and `ngettext()`,
bound in its module when it is imported; `install` points those two names at the catalogue
(context "argparse", texts listed in `ARGPARSE_TEXTS`) and `remove` restores them.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from checkout_desktop import texts
from checkout_desktop.texts import QT_TRANSLATE_NOOP

if TYPE_CHECKING:
    from PySide6.QtCore import QCoreApplication, QTranslator

    from checkout_desktop.domain.reasons import Reason

_SETTINGS_LIMIT = 1 << 20
_LANGUAGE_VARIABLES = ("LC_ALL", "LC_MESSAGES", "LANG")
"""POSIX order: the first one set decides the language of messages."""

_ARGPARSE_GETTEXT: tuple[Callable[[str], str], Callable[[str, str, int], str]] = (
    argparse._,  # type: ignore[attr-defined]  # argparse's own words; see the module doc
    argparse.ngettext,  # type: ignore[attr-defined]
)


ARGPARSE_TEXTS = (
    QT_TRANSLATE_NOOP("argparse", "usage: "),
    QT_TRANSLATE_NOOP("argparse", "positional arguments"),
    QT_TRANSLATE_NOOP("argparse", "options"),
    QT_TRANSLATE_NOOP("argparse", "show this help message and exit"),
    QT_TRANSLATE_NOOP("argparse", "%(prog)s: error: %(message)s\n"),
    QT_TRANSLATE_NOOP("argparse", "argument %(argument_name)s: %(message)s"),
    QT_TRANSLATE_NOOP("argparse", "invalid choice: %(value)r (choose from %(choices)s)"),
    QT_TRANSLATE_NOOP("argparse", "invalid %(type)s value: %(value)r"),
    QT_TRANSLATE_NOOP("argparse", "the following arguments are required: %s"),
    QT_TRANSLATE_NOOP("argparse", "unrecognized arguments: %s"),
    QT_TRANSLATE_NOOP("argparse", "expected one argument"),
    QT_TRANSLATE_NOOP("argparse", "expected at most one argument"),
    QT_TRANSLATE_NOOP("argparse", "expected at least one argument"),
    QT_TRANSLATE_NOOP("argparse", "expected %s argument"),
    QT_TRANSLATE_NOOP("argparse", "expected %s arguments"),
    QT_TRANSLATE_NOOP("argparse", "ambiguous option: %(option)s could match %(matches)s"),
    QT_TRANSLATE_NOOP("argparse", "not allowed with argument %s"),
    QT_TRANSLATE_NOOP("argparse", "one of the arguments %s is required"),
    QT_TRANSLATE_NOOP("argparse", "ignored explicit argument %r"),
    QT_TRANSLATE_NOOP("argparse", "unknown parser %(parser_name)r (choices: %(choices)s)"),
    QT_TRANSLATE_NOOP("argparse", "can't open '%(filename)s': %(error)s"),
)
"""argparse's words a user can meet (its programming errors stay English)."""


def settings_language(data_dir: str | None, environ: Mapping[str, str] = os.environ) -> str | None:
    """The language saved in the settings (`ui.locale`), or None when unset or unreadable.

    Read without the settings model (pydantic would cost a plain `--help` a tenth of a second);
    anything unexpected means "not set": the command itself reports a broken settings file.
    """
    try:
        from checkout_desktop.paths import HOME_ENV, app_paths, read_regular_file

        home = data_dir if data_dir is not None else environ.get(HOME_ENV)
        target = app_paths(home).settings_file
        # Never a FIFO or a device: the command must not wait for one before saying anything.
        raw = json.loads(read_regular_file(target, _SETTINGS_LIMIT)[:_SETTINGS_LIMIT])
        locale = raw["ui"]["locale"]
    except Exception:
        return None
    return locale if isinstance(locale, str) and locale.strip() else None


def wants_portuguese(setting: str | None, environ: Mapping[str, str] = os.environ) -> bool:
    """pt-BR when the setting says Portuguese, or (no usable setting) the system speaks it."""
    if setting:
        normalized = setting.strip().lower()
        if normalized.startswith("pt"):
            return True
        if normalized.startswith("en"):
            return False
    for name in _LANGUAGE_VARIABLES:
        value = environ.get(name, "")
        if value:
            return value.lower().startswith("pt")
    if sys.platform.startswith(("win", "darwin")):
        # No locale variables there: ask the system, as the window does.
        from PySide6.QtCore import QLocale

        return QLocale.system().language() == QLocale.Language.Portuguese
    return False


def catalogue() -> QTranslator | None:
    """The pt-BR catalogue, or None when it is missing (the words then stay English)."""
    from PySide6.QtCore import QTranslator

    from checkout_desktop.ui.i18n import CATALOG, translations_dir

    translator = QTranslator()
    if not translator.load(f"{CATALOG}_pt_BR", str(translations_dir())):
        return None
    return translator


def install(data_dir: str | None, environ: Mapping[str, str] = os.environ) -> bool:
    """Speak pt-BR on the command line when the owner's language is Portuguese; True if so."""
    if not wants_portuguese(settings_language(data_dir, environ), environ):
        return False
    translator = catalogue()
    if translator is None:
        return False
    use_translator(translator)
    return True


def use_translator(translator: QTranslator) -> None:
    """Word the command line and argparse through `translator`."""

    def lookup(context: str, text: str) -> str | None:
        return translator.translate(context, text)

    def gettext(message: str) -> str:
        # argparse passes None for a missing subparsers description.
        return texts.translate("argparse", message) if message else message

    def ngettext(singular: str, plural: str, n: int) -> str:
        return texts.translate("argparse", singular if n == 1 else plural)

    texts.use(lookup)
    texts.use_reason_words(_ReasonWords(translator))
    argparse._ = gettext  # type: ignore[attr-defined]
    argparse.ngettext = ngettext  # type: ignore[attr-defined]
    # Held so the translator lives as long as the lookup does.
    lookup.translator = translator  # type: ignore[attr-defined]


class _ReasonWords:
    """Reasons worded by `ui/reasons.py`, the window's own templates, through `translator`.

    Those templates go through QCoreApplication.translate, which asks the translators installed
    on the application object: a command without one (`listen`) gets a bare QCoreApplication
    (no window, no event loop), made only when a reason is first said. Loaded lazily, so a
    command that says none imports no more of Qt than before.
    """

    def __init__(self, translator: QTranslator) -> None:
        self.translator = translator
        self.application: QCoreApplication | None = None
        self.installed = False

    def __call__(self, reason: Reason) -> str:
        from PySide6.QtCore import QCoreApplication

        from checkout_desktop.ui.reasons import reason_text

        if not self.installed:
            if QCoreApplication.instance() is None:
                self.application = QCoreApplication(["checkout-desktop"])
            self.installed = QCoreApplication.installTranslator(self.translator)
        return reason_text(reason)

    def remove(self) -> None:
        if self.installed:
            from PySide6.QtCore import QCoreApplication

            QCoreApplication.removeTranslator(self.translator)
            self.installed = False


def remove() -> None:
    """English again (tests)."""
    texts.use(None)
    words = texts.use_reason_words(None)
    if isinstance(words, _ReasonWords):
        words.remove()
    argparse._, argparse.ngettext = _ARGPARSE_GETTEXT  # type: ignore[attr-defined]


__all__ = [
    "ARGPARSE_TEXTS",
    "catalogue",
    "install",
    "remove",
    "settings_language",
    "use_translator",
    "wants_portuguese",
]
