"""A store that failed a read or a write, in the clerk's words.

The store's own message is English and technical (it names the database and quotes the
server): it goes in a tooltip (`show_store_failure`), never as the message. What the clerk
reads says what is wrong, that nothing was changed, and that the action works again once the
store answers (the window reads what it shows again by itself then).
"""

from __future__ import annotations

import logging

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QLabel

from checkout_desktop.charges.views import store_problem

logger = logging.getLogger(__name__)


def store_problem_text(problem: str) -> str:
    """What keeps the store from being used (`store_problem`), and that nothing was changed."""
    if problem == "unreachable":
        return QCoreApplication.translate(
            "StoreTexts",
            "The shop's shared store does not answer (the server is down, or the network is in "
            "the way), so nothing was changed. Try again once it answers.",
        )
    if problem in ("credentials", "password_missing"):
        return QCoreApplication.translate(
            "StoreTexts",
            "The shop's shared store refused this terminal's login (user or password), so "
            "nothing was changed.",
        )
    if problem == "schema_newer":
        return QCoreApplication.translate(
            "StoreTexts",
            "The shop's shared store was upgraded by a newer checkout-desktop, so nothing was "
            "changed: upgrade this terminal.",
        )
    return QCoreApplication.translate(
        "StoreTexts",
        "The store could not be used just now, so nothing was changed. Try again; if it goes "
        "on, the technical detail (hold the pointer over this text) says why.",
    )


def store_failure_text(exc: BaseException) -> str | None:
    """`exc` in the clerk's words when the store failed; None when it is not the store's."""
    problem = store_problem(exc)
    return None if problem is None else store_problem_text(problem)


def show_store_failure(label: QLabel, exc: BaseException, what: str) -> bool:
    """Say on `label` that the store failed (`exc`), its own words in the tooltip; False
    (nothing shown) when `exc` is not the store's. `what` names the read in the log."""
    text = store_failure_text(exc)
    if text is None:
        return False
    logger.warning("%s: %s", what, exc)
    label.setText(text)
    label.setToolTip(str(exc))
    return True


__all__ = ["show_store_failure", "store_failure_text", "store_problem_text"]
