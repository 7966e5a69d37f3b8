"""How a store refuses: one operation (`RepositoryError` and its kinds) or the whole store.

Every backend raises these, never its driver's exceptions, so callers handle one set.
"""

from __future__ import annotations

import logging

from checkout_desktop.domain.reasons import Reason
from checkout_desktop.errors import PlainError

logger = logging.getLogger(__name__)


class StoreError(PlainError):
    """The store cannot be used; the message says which file, why, and what to do.

    `exit_code` is what the command line exits with (documented in the README).
    """

    exit_code = 3


class SchemaTooNew(StoreError):
    pass


class ForeignStore(StoreError):
    """The file is not a checkout-desktop store (another program's database, or not one)."""


class StoreCorrupt(StoreError):
    """The store failed its integrity check."""


class StoreNotWritable(StoreError):
    """The store or its folder cannot be written (permissions, a read-only disk)."""


class StoreUnavailable(StoreError):
    """The store cannot be opened for another reason (full disk, its folder is a file)."""


class RepositoryError(RuntimeError):
    """The store refused an operation; the message says which charge and why."""


class NotInTransaction(RepositoryError):
    def __init__(self, what: str) -> None:
        super().__init__(
            f"{what} writes to the store and must run inside `with transaction(conn):` "
            "(the repository never begins or commits by itself)"
        )


class ChargeNotKnown(RepositoryError, LookupError):
    """An input names a charge the store has never seen and cannot be filed under a charge."""

    def __init__(self, why: str | Reason) -> None:
        super().__init__(str(why))
        self.reason = why if isinstance(why, Reason) else None
        """Why, for the screen, where the refusal is one a clerk can meet."""


class MoneyOperationOpen(RepositoryError):
    """A second operation for a charge while one is still unresolved (never written)."""


class ReportUnavailable(RuntimeError):
    """The store could not be read for a report."""


__all__ = [
    "ChargeNotKnown",
    "ForeignStore",
    "MoneyOperationOpen",
    "NotInTransaction",
    "ReportUnavailable",
    "RepositoryError",
    "SchemaTooNew",
    "StoreCorrupt",
    "StoreError",
    "StoreNotWritable",
    "StoreUnavailable",
]
