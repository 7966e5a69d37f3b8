"""The result screen when the charge's answer comes later (a notification, a query): what it
said while waiting gives way to what the answer means, as the charge's own result would say."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pytestqt.qtbot import QtBot

from checkout_desktop.charges.outcome import ChargeOutcome
from checkout_desktop.domain.enums import ChargeStatus, PaymentType, TransactionStatus
from checkout_desktop.domain.reasons import Reason, ReasonCode
from checkout_desktop.domain.records import ChargeRecord
from checkout_desktop.domain.state import AttemptState
from checkout_desktop.ui.charge_screen import ResultView
from tests.gui.pseudo import in_portuguese
from tests.gui.record_support import one_transaction_record

MCID = "sale00000001-01"


def card_record(status: ChargeStatus, txn: TransactionStatus) -> ChargeRecord:
    return one_transaction_record(
        status=status, txn_status=txn, kind=PaymentType.CREDIT, amount=4590
    )


@pytest.fixture
def portuguese() -> Iterator[None]:
    with in_portuguese():
        yield


def unknown_outcome() -> ChargeOutcome:
    return ChargeOutcome(
        MCID,
        "sale00000001",
        AttemptState.UNKNOWN,
        None,
        Reason.of(
            ReasonCode.OUTCOME_UNKNOWN,
            error=Reason.of(ReasonCode.REPLY_TIMEOUT, operation="charge", seconds="30"),
        ),
    )


def still_checking(qtbot: QtBot) -> tuple[ResultView, str]:
    """The result screen of a charge whose reply was lost, and the words it says meanwhile."""
    view = ResultView()
    qtbot.addWidget(view)
    view.show_outcome(unknown_outcome(), None)
    assert view.status.text() == "Resultado desconhecido — consultando"
    waiting = view.message.text()
    assert waiting
    return view, waiting


def answered_at_once(qtbot: QtBot, record: ChargeRecord, message: Reason) -> ResultView:
    """The result screen of a charge whose reply said `record`'s status."""
    outcome = ChargeOutcome(
        MCID, "sale00000001", AttemptState.CREATED, record.status, message, record=record
    )
    view = ResultView()
    qtbot.addWidget(view)
    view.show_outcome(outcome, record)
    return view


def test_a_denial_found_later_says_what_to_do_instead_of_still_checking(
    qtbot: QtBot, portuguese: None
) -> None:
    view, waiting = still_checking(qtbot)

    view.show_record(card_record(ChargeStatus.DENIED, TransactionStatus.DENIED))

    assert view.status.text() == "Negada"
    said = view.message.text()
    assert waiting not in said
    assert said == "O banco recusou o cartão: peça outro cartão ou outra forma de pagamento."


def test_a_charge_found_later_in_any_other_state_drops_the_still_checking_words(
    qtbot: QtBot, portuguese: None
) -> None:
    view, waiting = still_checking(qtbot)
    view.show_record(card_record(ChargeStatus.CANCELED, TransactionStatus.CANCELED))
    assert view.status.text() == "Cancelada"
    assert waiting not in view.message.text()


def test_a_later_update_of_a_denied_result_keeps_its_why_and_advice(
    qtbot: QtBot, portuguese: None
) -> None:
    denied = card_record(ChargeStatus.DENIED, TransactionStatus.DENIED)
    view = answered_at_once(
        qtbot, denied, Reason.of(ReasonCode.SERVICE_SAID, words="Transação não autorizada")
    )
    first = view.message.text()
    assert "peça outro cartão" in first
    # The same denial told again by its notification changes nothing on the screen.
    view.show_record(denied)
    assert view.message.text() == first


def test_a_held_charge_cancelled_elsewhere_no_longer_says_to_capture_it(
    qtbot: QtBot, portuguese: None
) -> None:
    held = card_record(ChargeStatus.PRE_AUTHORIZED, TransactionStatus.PRE_AUTHORIZED)
    view = answered_at_once(
        qtbot, held, Reason.of(ReasonCode.OUTCOME_APPROVED, status="PRE_AUTHORIZED")
    )
    assert "reservado no cartão" in view.message.text()
    assert not view.capture_button.isHidden()
    view.show_record(card_record(ChargeStatus.CANCELED, TransactionStatus.CANCELED))
    assert view.status.text() == "Cancelada"
    assert view.message.text() == ""
    assert view.capture_button.isHidden()
