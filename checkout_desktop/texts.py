"""The words the command line prints, in the owner's language, without Qt below the UI.

Modules under the UI (`listen`, the inbox's and the store's commands, the errors they raise)
word their messages with `translate("Context", "English text")`, a literal call that Qt's
lupdate extracts into the same pt-BR catalogue the window uses. Until the entry point installs
a lookup (`ui/cli_language.py`, from the settings' or the system's language) the English text
is returned unchanged, so these modules never import Qt themselves.

An error a command prints to the owner, but that is also logged and shown as a technical
detail, carries `Words`: its `str()` stays English (a log is read by a technician with the
code), and the command that prints it asks for `shown(exc)`, the same sentence in the owner's
language. Its template is marked where it is written (`QT_TRANSLATE_NOOP`, which keeps the
context with the text) and filled with the same values either way; what the OS or a server
said is passed as a value, as they said it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from checkout_desktop.domain.reasons import Reason

Lookup = Callable[[str, str], "str | None"]
"""(context, English text) → the translation, or None/"" where there is none."""

_lookup: Lookup | None = None

ReasonWords = Callable[["Reason"], str]
"""A reason (`domain.reasons.Reason`) as the window words it, in the owner's language."""

_reason_words: ReasonWords | None = None


def translate(context: str, text: str) -> str:
    """`text` in the owner's language (English when no lookup is installed or it has none)."""
    if _lookup is None:
        return text
    return _lookup(context, text) or text


class Template(str):
    """An English text marked for the catalogue, that remembers its context."""

    context: str

    def __new__(cls, context: str, text: str) -> Template:
        marked = super().__new__(cls, text)
        marked.context = context
        return marked


def QT_TRANSLATE_NOOP(context: str, text: str) -> Template:
    """Marks `text` for the catalogue where it is written; `translate` it where it is shown."""
    return Template(context, text)


class Words:
    """A sentence for the owner: English as `str()` (logs, technical details), in the owner's
    language as `shown()`. Values may be `Words` themselves (a sentence inside a sentence)."""

    __slots__ = ("params", "template")

    def __init__(self, template: Template, /, **params: object) -> None:
        self.template = template
        self.params = params

    def english(self) -> str:
        return str.format(
            self.template,
            **{k: v.english() if isinstance(v, Words) else v for k, v in self.params.items()},
        )

    def shown(self) -> str:
        return translate(self.template.context, str(self.template)).format(
            **{k: v.shown() if isinstance(v, Words) else v for k, v in self.params.items()}
        )

    def __str__(self) -> str:
        return self.english()

    def __repr__(self) -> str:
        return f"Words({self.english()!r})"


class WordedError(Exception):
    """An error whose message may be `Words`: English in `str()` and the logs, the owner's
    language through `shown()`."""

    def __init__(self, message: str | Words = "", *args: object) -> None:
        super().__init__(str(message), *args)
        self.words = message if isinstance(message, Words) else None

    def shown(self) -> str:
        return self.words.shown() if self.words is not None else str(self)


def shown(exc: BaseException) -> str:
    """What a command prints for `exc`: its `Words` in the owner's language, else its text."""
    words = getattr(exc, "words", None)
    return words.shown() if isinstance(words, Words) else str(exc)


def reason_said(reason: Reason) -> str:
    """`reason` in the owner's language, worded as the window words it, when the entry point
    installed that (`use_reason_words`); else its English text."""
    if _reason_words is None:
        return reason.english()
    return _reason_words(reason)


def use_reason_words(words: ReasonWords | None) -> ReasonWords | None:
    """Install how reasons are said (None: English again); returns the one it replaces."""
    global _reason_words
    previous, _reason_words = _reason_words, words
    return previous


def use(lookup: Lookup | None) -> Lookup | None:
    """Install `lookup` (None: English again); returns the one it replaces."""
    global _lookup
    previous, _lookup = _lookup, lookup
    return previous


__all__ = [
    "QT_TRANSLATE_NOOP",
    "Lookup",
    "ReasonWords",
    "Template",
    "WordedError",
    "Words",
    "reason_said",
    "shown",
    "translate",
    "use",
    "use_reason_words",
]
