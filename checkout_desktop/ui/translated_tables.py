"""Tables of translated texts built once per language rather than at every call."""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

from PySide6.QtCore import QCoreApplication

K = TypeVar("K")


class TranslatedTable(Generic[K]):
    """A table of translations (a few dozen to a few hundred `translate` calls) kept until the
    installed translators change.

    A list formats several labels and reasons per row, each from a whole table: building it
    every time cost more than the rest of the row. One `translate` of `probe` (a text of the
    table, which every catalogue translates along with the others) tells whether the
    translators changed since the table was built; then it is built again.
    """

    def __init__(self, context: str, probe: str, build: Callable[[], dict[K, str]]) -> None:
        self._context = context
        self._probe = probe
        self._build = build
        self._built: tuple[str, dict[K, str]] | None = None

    def __call__(self) -> dict[K, str]:
        probe = QCoreApplication.translate(self._context, self._probe)
        built = self._built
        if built is not None and built[0] == probe:
            return built[1]
        table = self._build()
        self._built = (probe, table)
        return table


__all__ = ["TranslatedTable"]
