"""What a stopped terminal left open and the start-up pass could not settle yet is told as still
being asked about, followed, and told again once it settles; each outcome once."""

from __future__ import annotations

from typing import Any, cast

import pytest
from PySide6.QtWidgets import QApplication, QMessageBox, QWidget

from checkout_desktop.domain.charge_events import (
    CHARGE,
    AttemptChanged,
    Interrupted,
    MoneyOperationChanged,
    ReconciliationFinished,
)
from checkout_desktop.domain.events import EventBus
from checkout_desktop.domain.reasons import Reason, ReasonCode
from checkout_desktop.domain.state import AttemptState
from checkout_desktop.ui.adapter import QtEventAdapter
from checkout_desktop.ui.interrupted_notice import InterruptedNotices

MCID = "z3tq6-91bf0b2783aa-01"


def start_up(*items: Interrupted) -> ReconciliationFinished:
    return ReconciliationFinished(
        trigger="start-up",
        attempts_checked=len(items),
        attempts_resolved=0,
        charges_checked=0,
        charges_changed=0,
        still_unknown=tuple(i.merchant_charge_id for i in items),
        errors=(),
        interrupted=items,
    )


@pytest.fixture
def told(qapp: QApplication) -> Any:
    bus = EventBus()
    window = QWidget()
    adapter = QtEventAdapter(bus, window)
    opened: list[str] = []
    # No store read on these paths: nothing the service holds is asked about.
    InterruptedNotices(adapter, cast(Any, None), window, open_charge=opened.append)

    def texts() -> list[str]:
        QApplication.processEvents()
        return [b.text() for b in window.findChildren(QMessageBox, "interruptedNotice")]

    yield bus, texts
    window.deleteLater()


def test_a_sale_still_asked_about_is_told_again_once_it_settles(told: Any) -> None:
    bus, texts = told
    item = Interrupted(merchant_charge_id=MCID, kind=CHARGE, amount=7777, state="UNKNOWN")
    bus.publish(start_up(item))
    assert len(texts()) == 1 and "still being checked" in texts()[0], texts()
    # A later pass still asking says nothing new.
    bus.publish(start_up(item))
    assert len(texts()) == 1
    bus.publish(
        AttemptChanged(
            merchant_charge_id=MCID,
            sale_id=MCID[:-3],
            state=AttemptState.NOT_FOUND,
            reason=Reason.of(ReasonCode.RECORDED_BEFORE_SENDING),
        )
    )
    said = texts()
    assert len(said) == 2 and "was not charged: you may charge it again" in said[1], said
    # Only a sale left open before this run is followed: another moves on unsaid.
    bus.publish(
        AttemptChanged(
            merchant_charge_id="z3tq6-000000000000-01",
            sale_id="z3tq6-000000000000",
            state=AttemptState.NOT_FOUND,
            reason=Reason.of(ReasonCode.RECORDED_BEFORE_SENDING),
        )
    )
    assert len(texts()) == 2


def test_a_refund_still_asked_about_is_told_done_once_confirmed(told: Any) -> None:
    bus, texts = told
    item = Interrupted(
        merchant_charge_id=MCID, kind="refund", amount=1000, state="UNKNOWN", operation_id=7
    )
    bus.publish(start_up(item))
    assert "do not refund it again until its outcome is told" in texts()[0], texts()
    bus.publish(
        MoneyOperationChanged(
            merchant_charge_id=MCID, operation_id=7, kind="refund", amount=1000, state="CONFIRMED"
        )
    )
    said = texts()
    assert len(said) == 2 and "was made: do not refund it again" in said[1], said
