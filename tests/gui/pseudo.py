"""Pseudo-translation for tests: every text the pt_BR catalogue translates comes back marked.

`MarkingTranslator` wraps the real pt_BR catalogues (ours and Qt's own) and returns each
translation with its words inside ⟦…⟧ — only the words: a `{placeholder}` stays outside, so
what a template is filled with is checked on its own. A text that did not pass through Qt's
translation, or that the catalogue does not translate, comes back bare.

`visible_texts` reads what a window shows (labels, buttons, tabs, group titles, table and list
cells and headers, the status bar, text panes); `untranslated` keeps the words of those texts
that are neither marked nor data, by one rule (a word being what lies between spaces):

    after removing the marked parts, a word with two or more letters in a row is data only
    when it holds a digit (ids, amounts, times, NSU, references), is part of an address (a URL
    or an e-mail), or is one of the values the test itself typed or the service sent (customer
    name, card brands, authorization codes, the merchant's name, the service's own words).

A pane that shows a delivery exactly as it was received (`VERBATIM`) is data as a whole.
"""

from __future__ import annotations

import contextlib
import logging
import re
from collections.abc import Iterable, Iterator

from PySide6.QtCore import QAbstractItemModel, QLibraryInfo, QLocale, QModelIndex, Qt, QTranslator
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QApplication,
    QComboBox,
    QGroupBox,
    QLabel,
    QLineEdit,
    QListWidget,
    QMainWindow,
    QPlainTextEdit,
    QStatusBar,
    QTabBar,
    QTextEdit,
    QWidget,
)

from checkout_desktop.ui.i18n import CATALOG, translations_dir

logger = logging.getLogger(__name__)

OPEN, CLOSE = "⟦", "⟧"
_MARKED = re.compile(r"⟦[^⟦⟧]*⟧")
_PLACEHOLDER = re.compile(r"(\{[A-Za-z_]*\})")
_ADDRESS = re.compile(r"[A-Za-z][\w+.-]*://[^\s⟦⟧]+|[\w.+-]+@[\w-]+\.[\w.-]+")
_LETTERS = re.compile(r"[^\W\d_]{2,}")
PT_BR = QLocale(QLocale.Language.Portuguese, QLocale.Country.Brazil)


class MarkingTranslator(QTranslator):
    """Qt's translation, marked: ⟦translation⟧ where pt_BR has one, nothing otherwise."""

    def __init__(self, inner: Iterable[QTranslator]) -> None:
        super().__init__()
        self._inner = list(inner)

    def translate(
        self,
        context: str,
        source_text: str,
        disambiguation: str | None = None,
        n: int = -1,
    ) -> str | None:
        for translator in self._inner:
            found = translator.translate(context, source_text, disambiguation, n)
            if found:
                return mark(found)
        return None  # null: Qt shows the source text, unmarked

    def isEmpty(self) -> bool:
        return False

    @classmethod
    @contextlib.contextmanager
    def installed(cls, app: QApplication) -> Iterator[MarkingTranslator]:
        """The marking translator on `app` (pt_BR number and date formats) for a block."""
        ours = QTranslator()
        if not ours.load(f"{CATALOG}_pt_BR", str(translations_dir())):
            raise AssertionError(
                "the pt_BR catalogue is missing; run resources/translations/build.py"
            )
        qt_base = QTranslator()
        qt_base.load(
            PT_BR, "qtbase", "_", QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)
        )
        marking = cls([ours, qt_base])
        previous = QLocale()
        QLocale.setDefault(PT_BR)
        app.installTranslator(marking)
        try:
            yield marking
        finally:
            app.removeTranslator(marking)
            QLocale.setDefault(previous)


def mark(text: str) -> str:
    """`text` with each run of words between placeholders marked."""
    return "".join(
        part if _PLACEHOLDER.fullmatch(part) or not part.strip() else f"{OPEN}{part}{CLOSE}"
        for part in _PLACEHOLDER.split(text)
    )


def unmarked(text: str) -> str:
    """What is left of `text` once every marked part (nested ones too) is taken out."""
    previous = None
    while previous != text:
        previous, text = text, _MARKED.sub(" ", text)
    return text


def untranslated(text: str, data: Iterable[str] = ()) -> list[str]:
    """The words of `text` that are neither marked nor data (see the module's rule)."""
    rest = _ADDRESS.sub(" ", unmarked(text))
    for value in sorted(data, key=len, reverse=True):
        if value:
            # Whole words only: the state "SE" is data, the "SE" in "SENT" is not.
            rest = re.sub(rf"(?<!\w){re.escape(value)}(?!\w)", " ", rest)
    return [
        w
        for w in rest.split()
        if _LETTERS.search(w) is not None and not any(c.isdigit() for c in w)
    ]


def _model_texts(view: QAbstractItemView) -> Iterator[str]:
    model: QAbstractItemModel | None = view.model()
    if model is None:
        return
    display = Qt.ItemDataRole.DisplayRole
    for section in range(model.columnCount()):
        if not getattr(view, "isColumnHidden", lambda _c: False)(section):
            header = model.headerData(section, Qt.Orientation.Horizontal, display)
            if header:
                yield str(header)
    for row in range(min(model.rowCount(), 200)):
        for column in range(model.columnCount()):
            if getattr(view, "isColumnHidden", lambda _c: False)(column):
                continue
            value = model.data(model.index(row, column, QModelIndex()), display)
            if value not in (None, ""):
                yield str(value)


def _widget_texts(widget: QWidget) -> Iterator[str]:
    if isinstance(widget, QLabel | QAbstractButton):
        yield widget.text()
    elif isinstance(widget, QGroupBox):
        yield widget.title()
    elif isinstance(widget, QTabBar):
        yield from (widget.tabText(i) for i in range(widget.count()))
    elif isinstance(widget, QLineEdit):
        yield widget.placeholderText()
    elif isinstance(widget, QComboBox):
        yield from (widget.itemText(i) for i in range(widget.count()))
    elif isinstance(widget, QListWidget):
        yield from (widget.item(i).text() for i in range(widget.count()))
    elif isinstance(widget, QAbstractItemView):
        yield from _model_texts(widget)
    elif isinstance(widget, QStatusBar):
        yield widget.currentMessage()
    elif isinstance(widget, QPlainTextEdit | QTextEdit):
        yield widget.toPlainText()


def visible_texts(root: QWidget) -> list[tuple[str, str]]:
    """(where, text) for every non-empty text shown in `root` and its visible children."""
    found: list[tuple[str, str]] = []
    widgets = [root, *root.findChildren(QWidget)]
    if isinstance(root, QMainWindow):
        found.append(("window title", root.windowTitle()))
    for widget in widgets:
        if not widget.isVisible():
            continue
        where = widget.objectName() or type(widget).__name__
        for text in _widget_texts(widget):
            for line in (text or "").splitlines():
                if line.strip():
                    found.append((where, line))
    return found


VERBATIM = frozenset({"eventRaw"})
"""Panes that show a delivery exactly as it was received (its headers and body): data."""


def english_on_screen(root: QWidget, data: Iterable[str] = ()) -> list[str]:
    """Each visible line with words that escaped translation, with where it is."""
    values = list(data)
    problems = []
    for where, line in visible_texts(root):
        if where in VERBATIM:
            continue
        if line.lstrip().startswith(("{", "}", "[", "]", '"')):
            continue  # a raw JSON body, shown as received (developer detail)
        words = untranslated(line, values)
        if words:
            problems.append(f"{where}: {line!r} ({', '.join(words)})")
    return problems


@contextlib.contextmanager
def in_portuguese() -> Iterator[None]:
    """The terminal's pt_BR catalogue (and Qt's own) installed for a block, as a shop in Brazil
    runs it; the default locale and the translators as they were afterwards."""
    from checkout_desktop.ui.i18n import Translations

    previous = QLocale()
    installed = Translations()
    if not installed.install(PT_BR):
        raise AssertionError("the pt_BR catalogue is missing; run resources/translations/build.py")
    try:
        yield
    finally:
        installed.remove()
        QLocale.setDefault(previous)


__all__ = [
    "MarkingTranslator",
    "english_on_screen",
    "in_portuguese",
    "unmarked",
    "untranslated",
    "visible_texts",
]
