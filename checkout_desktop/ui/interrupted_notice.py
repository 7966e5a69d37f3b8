"""After a terminal stopped in the middle of a charge, refund or capture (a crash, a power cut),
the next start tells the clerk what became of it, once, plainly: the sale was paid, was not
charged (charge it again), or is still being asked about (do not charge it again yet).

The start-up reconciliation names what it found left open from before this run
(`ReconciliationFinished.interrupted`: this counter's charge attempts, and the money
operations); one outcome still unknown then is followed until it settles, and told again then.
Each note stays until the clerk reads it, does not block the next sale, and opens the sale in
the History.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QObject, Qt
from PySide6.QtWidgets import QMessageBox, QWidget

from checkout_desktop.domain.money_ops import UNRESOLVED_MONEY_STATES, MoneyOpKind, MoneyOpState
from checkout_desktop.domain.shown_status import ShownStatus, shown_status
from checkout_desktop.domain.state import UNRESOLVED_ATTEMPT_STATES, AttemptState
from checkout_desktop.ui.formatting import format_money
from checkout_desktop.ui.labels import status_label
from checkout_desktop.ui.loop import read

if TYPE_CHECKING:
    from checkout_desktop.charges.views import ChargeViews
    from checkout_desktop.domain.charge_events import (
        AttemptChanged,
        Interrupted,
        MoneyOperationChanged,
        ReconciliationFinished,
    )
    from checkout_desktop.domain.records import ChargeRecord
    from checkout_desktop.ui.adapter import QtEventAdapter

logger = logging.getLogger(__name__)

_NOT_CHARGED = frozenset({AttemptState.NOT_FOUND, AttemptState.REJECTED})
_DECLINED = frozenset({ShownStatus.DENIED, ShownStatus.ERROR, ShownStatus.NOT_CHARGED})
_PAID = frozenset({ShownStatus.PAID, ShownStatus.AUTHORIZED})


def standing_note(parent: QWidget, *, name: str, title: str, text: str) -> QMessageBox:
    """A note that stays until the clerk reads it, without stopping the sale being typed: no
    modality, and it does not take the keys. Gone (deleted) once answered; the caller shows it."""
    box = QMessageBox(parent)
    box.setObjectName(name)
    box.setIcon(QMessageBox.Icon.Warning)
    box.setWindowTitle(title)
    box.setText(text)
    box.setStandardButtons(QMessageBox.StandardButton.Ok)
    box.setWindowModality(Qt.WindowModality.NonModal)
    box.setAttribute(Qt.WidgetAttribute.WA_ShowWithoutActivating)
    box.finished.connect(box.deleteLater)
    return box


def is_settled(item: Interrupted) -> bool:
    """Whether the service's answers settled the interrupted call (else it is still asked)."""
    if item.is_charge:
        return item.state not in UNRESOLVED_ATTEMPT_STATES
    return item.state not in UNRESOLVED_MONEY_STATES


def charge_text(item: Interrupted, shown: ShownStatus | None) -> str:
    """What became of an interrupted sale's charge; `shown` is its status as the History shows
    it (None when the service holds no charge)."""
    amount = format_money(item.amount)
    mcid = item.merchant_charge_id
    if not is_settled(item):
        text = QCoreApplication.translate(
            "InterruptedNotice",
            "The interrupted sale of {amount} ({id}) is still being checked with the service: "
            "do not charge it again until its outcome is told.",
        )
    elif item.state in _NOT_CHARGED:
        text = QCoreApplication.translate(
            "InterruptedNotice",
            "The interrupted sale of {amount} ({id}) was not charged: you may charge it again.",
        )
    elif item.state != AttemptState.CREATED:
        text = QCoreApplication.translate(
            "InterruptedNotice",
            "The interrupted sale of {amount} ({id}) was ended by a supervisor; see it in the "
            "History before charging it again.",
        )
    elif shown in _PAID:
        text = QCoreApplication.translate(
            "InterruptedNotice",
            "The interrupted sale of {amount} ({id}) was paid: do not charge it again.",
        )
    elif shown in _DECLINED:
        text = QCoreApplication.translate(
            "InterruptedNotice",
            "The interrupted sale of {amount} ({id}) was declined: nothing was charged; you may "
            "charge it again.",
        )
    elif shown == ShownStatus.PRE_AUTHORIZED:
        text = QCoreApplication.translate(
            "InterruptedNotice",
            "The interrupted sale of {amount} ({id}) was authorized and awaits its capture: "
            "capture it in the History; do not charge it again.",
        )
    elif shown == ShownStatus.AWAITING_PAYMENT:
        text = QCoreApplication.translate(
            "InterruptedNotice",
            "The interrupted sale of {amount} ({id}) has its QR awaiting the customer's "
            "payment: do not charge it again before the QR ends.",
        )
    else:
        return QCoreApplication.translate(
            "InterruptedNotice", "The interrupted sale of {amount} ({id}) is now: {status}."
        ).format(amount=amount, id=mcid, status=status_label(None if shown is None else shown))
    return text.format(amount=amount, id=mcid)


def operation_text(item: Interrupted) -> str:
    """What became of an interrupted refund, capture or cancel."""
    amount = format_money(item.amount)
    mcid = item.merchant_charge_id
    settled = is_settled(item)
    done = item.state == MoneyOpState.CONFIRMED
    if item.kind == MoneyOpKind.CAPTURE:
        if not settled:
            text = QCoreApplication.translate(
                "InterruptedNotice",
                "The interrupted capture of {amount} of sale {id} is still being checked with "
                "the service: do not capture it again until its outcome is told.",
            )
        elif done:
            text = QCoreApplication.translate(
                "InterruptedNotice",
                "The interrupted capture of {amount} of sale {id} was made: the sale is paid.",
            )
        else:
            text = QCoreApplication.translate(
                "InterruptedNotice",
                "The interrupted capture of {amount} of sale {id} was not made: you may capture "
                "it again in the History.",
            )
    elif item.kind == MoneyOpKind.CANCEL:
        if not settled:
            text = QCoreApplication.translate(
                "InterruptedNotice",
                "The interrupted cancellation of {amount} of sale {id} is still being checked "
                "with the service: do not cancel it again until its outcome is told.",
            )
        elif done:
            text = QCoreApplication.translate(
                "InterruptedNotice",
                "The interrupted cancellation of {amount} of sale {id} was made: nothing was "
                "charged.",
            )
        else:
            text = QCoreApplication.translate(
                "InterruptedNotice",
                "The interrupted cancellation of {amount} of sale {id} was not made: you may "
                "cancel it again in the History.",
            )
    elif not settled:
        text = QCoreApplication.translate(
            "InterruptedNotice",
            "The interrupted refund of {amount} of sale {id} is still being checked with the "
            "service: do not refund it again until its outcome is told.",
        )
    elif done:
        text = QCoreApplication.translate(
            "InterruptedNotice",
            "The interrupted refund of {amount} of sale {id} was made: do not refund it again.",
        )
    else:
        text = QCoreApplication.translate(
            "InterruptedNotice",
            "The interrupted refund of {amount} of sale {id} was not made: you may refund it "
            "again in the History.",
        )
    return text.format(amount=amount, id=mcid)


class InterruptedNotices(QObject):
    """Tells the clerk, in notes over `window`, what became of what a stopped terminal left
    open: once the start-up reconciliation has asked, and again when one still being asked
    about settles. `open_charge` opens a sale in the History."""

    def __init__(
        self,
        adapter: QtEventAdapter,
        views: ChargeViews,
        window: QWidget,
        open_charge: Callable[[str], None],
    ) -> None:
        super().__init__(window)
        self._window = window
        self._views = views
        self._open_charge = open_charge
        self._following: dict[tuple[str, int | None], Interrupted] = {}
        """Interrupted calls still being asked about, by (charge, operation id)."""
        self._told: set[tuple[str, int | None, str]] = set()
        self.boxes: list[QMessageBox] = []
        adapter.reconciliation_finished.connect(self._reconciled)
        adapter.attempt_changed.connect(self._attempt_changed)
        adapter.money_operation_changed.connect(self._operation_changed)

    def _reconciled(self, event: ReconciliationFinished) -> None:
        for item in event.interrupted:
            self._tell(item)

    def _attempt_changed(self, event: AttemptChanged) -> None:
        item = self._following.get((event.merchant_charge_id, None))
        if item is None or event.state in UNRESOLVED_ATTEMPT_STATES:
            return
        self._tell(replace(item, state=str(event.state)))

    def _operation_changed(self, event: MoneyOperationChanged) -> None:
        item = self._following.get((event.merchant_charge_id, event.operation_id))
        if item is None or event.state in UNRESOLVED_MONEY_STATES:
            return
        self._tell(replace(item, state=event.state))

    def _tell(self, item: Interrupted) -> None:
        key = (item.merchant_charge_id, item.operation_id)
        settled = is_settled(item)
        told = (*key, "settled" if settled else "asking")
        if told in self._told:
            return
        self._told.add(told)
        if settled:
            self._following.pop(key, None)
        else:
            self._following[key] = item
        if not item.is_charge:
            self._show(item, operation_text(item))
            return
        if item.state != AttemptState.CREATED:
            self._show(item, charge_text(item, None))
            return

        def got(record: ChargeRecord | None) -> None:
            if record is None:
                unread(LookupError(item.merchant_charge_id))
                return
            self._show(item, charge_text(item, shown_status(record.state, AttemptState.CREATED)))

        def unread(exc: BaseException) -> None:
            # The store did not answer: the service's status, as the start-up pass heard it.
            logger.warning("charge %s could not be read: %s", item.merchant_charge_id, exc)
            shown = None if item.status is None else ShownStatus(item.status)
            self._show(item, charge_text(item, shown))

        read(self._views.charge(item.merchant_charge_id), got, failed=unread)

    def _show(self, item: Interrupted, text: str) -> None:
        logger.info("told the clerk about interrupted %s %s", item.kind, item.merchant_charge_id)
        box = standing_note(
            self._window,
            name="interruptedNotice",
            title=QCoreApplication.translate(
                "InterruptedNotice", "The terminal stopped in the middle of an operation"
            ),
            text=text,
        )
        history = box.addButton(
            QCoreApplication.translate("InterruptedNotice", "Open in the &History"),
            QMessageBox.ButtonRole.ActionRole,
        )
        history.setObjectName("openInterrupted")
        mcid = item.merchant_charge_id
        history.clicked.connect(lambda: self._open_charge(mcid))
        box.show()
        self.boxes = [b for b in self.boxes if _alive(b)]
        self.boxes.append(box)


def _alive(box: QMessageBox) -> bool:
    try:
        return box.isVisible()
    except RuntimeError:
        return False


__all__ = [
    "InterruptedNotices",
    "charge_text",
    "is_settled",
    "operation_text",
    "standing_note",
]
