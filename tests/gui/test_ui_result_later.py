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
from checkout_desktop.domain.state import AttemptState, ChargeState, TransactionState
from checkout_desktop.domain.timestamps import utc_now
from checkout_desktop.ui.charge_screen import ResultView
from tests.gui.pseudo import in_portuguese

MCID = "sale00000001-01"


def card_record(status: ChargeStatus, txn: TransactionStatus) -> ChargeRecord:
    now = utc_now()
    state = ChargeState(
        merchant_charge_id=MCID,
        status=status,
        amount=4590,
        refunded_amount=0,
        transactions=(
            TransactionState(
                key="tx-1",
                payment_type=PaymentType.CREDIT,
                status=txn,
                amount=4590,
                created_at=now,
            ),
        ),
    )
    return ChargeRecord(
        id=1,
        merchant_charge_id=MCID,
        charge_id="ch-1",
        sale_id="sale00000001",
        status=status,
        amount=4590,
        refunded_amount=0,
        three_ds_status=None,
        state=state,
        created_at=now,
        updated_at=now,
        last_webhook_at=None,
        last_checked_at=None,
        checks=0,
        next_check_at=None,
        check_reason=None,
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


def test_a_denial_found_later_says_what_to_do_instead_of_still_checking(
    qtbot: QtBot, portuguese: None
) -> None:
    view = ResultView()
    qtbot.addWidget(view)
    view.show_outcome(unknown_outcome(), None)
    waiting = view.message.text()
    assert view.status.text() == "Resultado desconhecido — consultando"
    assert waiting

    view.show_record(card_record(ChargeStatus.DENIED, TransactionStatus.DENIED))

    assert view.status.text() == "Negada"
    said = view.message.text()
    assert waiting not in said
    assert said == "O banco recusou o cartão: peça outro cartão ou outra forma de pagamento."


def test_a_charge_found_later_in_any_other_state_drops_the_still_checking_words(
    qtbot: QtBot, portuguese: None
) -> None:
    view = ResultView()
    qtbot.addWidget(view)
    view.show_outcome(unknown_outcome(), None)
    waiting = view.message.text()
    view.show_record(card_record(ChargeStatus.CANCELED, TransactionStatus.CANCELED))
    assert view.status.text() == "Cancelada"
    assert waiting not in view.message.text()


def test_a_later_update_of_a_denied_result_keeps_its_why_and_advice(
    qtbot: QtBot, portuguese: None
) -> None:
    denied = card_record(ChargeStatus.DENIED, TransactionStatus.DENIED)
    outcome = ChargeOutcome(
        MCID,
        "sale00000001",
        AttemptState.CREATED,
        ChargeStatus.DENIED,
        Reason.of(ReasonCode.SERVICE_SAID, words="Transação não autorizada"),
        record=denied,
    )
    view = ResultView()
    qtbot.addWidget(view)
    view.show_outcome(outcome, denied)
    first = view.message.text()
    assert "peça outro cartão" in first
    # The same denial told again by its notification changes nothing on the screen.
    view.show_record(denied)
    assert view.message.text() == first


def test_a_held_charge_cancelled_elsewhere_no_longer_says_to_capture_it(
    qtbot: QtBot, portuguese: None
) -> None:
    held = card_record(ChargeStatus.PRE_AUTHORIZED, TransactionStatus.PRE_AUTHORIZED)
    outcome = ChargeOutcome(
        MCID,
        "sale00000001",
        AttemptState.CREATED,
        ChargeStatus.PRE_AUTHORIZED,
        Reason.of(ReasonCode.OUTCOME_APPROVED, status="PRE_AUTHORIZED"),
        record=held,
    )
    view = ResultView()
    qtbot.addWidget(view)
    view.show_outcome(outcome, held)
    assert "reservado no cartão" in view.message.text()
    assert not view.capture_button.isHidden()
    view.show_record(card_record(ChargeStatus.CANCELED, TransactionStatus.CANCELED))
    assert view.status.text() == "Cancelada"
    assert view.message.text() == ""
    assert view.capture_button.isHidden()
