"""Statements written with named parameters, bound by position on the inbox's hot path.

SQLite binds a tuple by position faster than the sqlite3 module looks each `:name` up in a
mapping (≈ 0.2 µs a parameter on the inbox's inserts, which bind 13 to 18 each per delivery).
A statement keeps its named text in the source; it is numbered once, at import, and its values
are read out of the same mapping the named form would take, in one C call.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

# A parameter is `:name` not preceded by a word character or a colon; the statements numbered
# here hold no string literal with a colon in it.
_NAMED = re.compile(r"(?<![\w:]):([A-Za-z_]\w*)")


@dataclass(frozen=True)
class Positional:
    """One statement: its text with `?N` parameters and how to read its values by name."""

    sql: str
    named: str
    """The statement as written, for a connection that binds names only."""
    names: tuple[str, ...]
    values: Callable[[Mapping[str, Any]], tuple[Any, ...]]
    """The statement's values from a mapping holding every name it uses, in parameter order
    (an `operator.itemgetter`: no Python frame per statement)."""


def positional(sql: str) -> Positional:
    """`sql` with each distinct `:name` numbered in order of first use (`?1`, `?2`, …; a name
    used twice keeps one number)."""
    names: list[str] = []

    def number(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in names:
            names.append(name)
        return f"?{names.index(name) + 1}"

    text = _NAMED.sub(number, sql)
    if not names:
        raise ValueError("a statement without named parameters needs no numbering")
    if len(names) == 1:
        (name,) = names
        return Positional(text, sql, (name,), lambda params: (params[name],))
    return Positional(text, sql, tuple(names), operator.itemgetter(*names))


__all__ = ["Positional", "positional"]
