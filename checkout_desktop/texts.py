"""The words the command line prints, in the owner's language, without Qt below the UI.

Modules under the UI (`listen`, the inbox's and the store's commands, the errors they raise)
word their messages with `translate("Context", "English text")`, a literal call that Qt's
lupdate extracts into the same pt-BR catalogue the window uses. Until the entry point installs
a lookup (`ui/cli_language.py`, from the settings' or the system's language) the English text
is returned unchanged, so these modules never import Qt themselves.
"""

from __future__ import annotations

from collections.abc import Callable

Lookup = Callable[[str, str], "str | None"]
"""(context, English text) → the translation, or None/"" where there is none."""

_lookup: Lookup | None = None


def translate(context: str, text: str) -> str:
    """`text` in the owner's language (English when no lookup is installed or it has none)."""
    if _lookup is None:
        return text
    return _lookup(context, text) or text


def QT_TRANSLATE_NOOP(context: str, text: str) -> str:
    """Marks `text` for the catalogue where it is written; `translate` it where it is shown."""
    return text


def use(lookup: Lookup | None) -> Lookup | None:
    """Install `lookup` (None: English again); returns the one it replaces."""
    global _lookup
    previous, _lookup = _lookup, lookup
    return previous


__all__ = ["QT_TRANSLATE_NOOP", "Lookup", "translate", "use"]
