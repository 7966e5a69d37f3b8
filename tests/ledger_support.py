"""The ledger on a SQLite repository, called synchronously: for tests that fill a store by hand.

The SQLite store's coroutines never suspend, so a ledger call on it runs to its end at once;
`run_inline` drives it without an event loop (or inside a test's running one).
"""

from __future__ import annotations

import logging
from collections.abc import Coroutine
from typing import Any, TypeVar

from checkout_desktop.charges.ledger import Ledger
from checkout_desktop.charges.reconciler import CheckPolicy
from checkout_desktop.domain.reasons import Reason
from checkout_desktop.domain.records import MergeResult
from checkout_desktop.domain.wire import ChargeUpdate, ThreeDsUpdate
from checkout_desktop.store.sqlite.charges import ChargeRepository
from checkout_desktop.store.sqlite.store import SqliteCharges

logger = logging.getLogger(__name__)

T = TypeVar("T")


def run_inline(coroutine: Coroutine[Any, Any, T]) -> T:
    """The coroutine's result, run at once; fails if it waits for anything."""
    try:
        coroutine.send(None)
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]
    coroutine.close()
    raise AssertionError("a SQLite store call suspended; it should run inline")


class SyncLedger:
    """`Ledger.apply_update` and `mark_checked` on one repository, inside its transaction."""

    def __init__(self, repo: ChargeRepository, *, policy: CheckPolicy | None = None) -> None:
        self._charges = SqliteCharges(repo)
        self._ledger = Ledger(policy=policy, clock=repo.now)

    def apply_update(self, update: ChargeUpdate | ThreeDsUpdate, **kwargs: Any) -> MergeResult:
        return run_inline(self._ledger.apply_update(self._charges, update, **kwargs))

    def mark_checked(self, merchant_charge_id: str, *, found: bool, reason: Reason) -> None:
        run_inline(
            self._ledger.mark_checked(self._charges, merchant_charge_id, found=found, reason=reason)
        )


__all__ = ["SyncLedger", "run_inline"]
