"""Reasons are data: every code has English, arguments survive the store, nesting renders."""

from __future__ import annotations

import logging
import string

import pytest

from checkout_desktop.domain.reasons import (
    ENGLISH,
    Reason,
    ReasonCode,
    operation_reason,
    trigger_reason,
)

logger = logging.getLogger(__name__)


def _fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


@pytest.mark.parametrize("code", list(ReasonCode))
def test_every_code_has_an_english_template(code: ReasonCode) -> None:
    assert code in ENGLISH, f"{code.name} has no English text"
    args = {name: "x" for name in _fields(ENGLISH[code])}
    text = Reason(code, args).english()
    assert text and "{" not in text


def test_codes_are_unique_values() -> None:
    values = [code.value for code in ReasonCode]
    assert len(values) == len(set(values))


def test_nested_reasons_round_trip_through_json() -> None:
    card = Reason.of(
        ReasonCode.CARD_INSTALLMENTS,
        card=Reason.of(ReasonCode.CARD, brand="VISA", last_four="4242"),
        installments=3,
    )
    reason = Reason.of(
        ReasonCode.WITH_CONTEXT,
        context=trigger_reason("start-up"),
        why=Reason.of(ReasonCode.ATTEMPT_RECORDED, sale="S-1", amount=8990, cards=(card, card)),
    )
    stored = Reason.from_stored(reason.code.value, reason.args_json())
    assert stored == reason
    assert stored is not None and stored.english() == (
        "start-up: attempt for sale S-1 recorded before sending: 8990 centavos, "
        "VISA •••• 4242 in 3x, VISA •••• 4242 in 3x"
    )


def test_a_missing_status_reads_no_status_in_english() -> None:
    reason = Reason.of(ReasonCode.MERGE_NOTHING_NEW, current_status=None)
    assert reason.english() == "already no status; nothing new"


def test_old_rows_and_unknown_codes_have_no_reason() -> None:
    assert Reason.from_stored(None, None) is None
    assert Reason.from_stored("", "{}") is None
    # A code written by a newer version (or damaged): the stored text is shown instead.
    assert Reason.from_stored("no.such.code", "{}") is None
    assert Reason.from_stored(ReasonCode.CHECK_SCHEDULED.value, "not json") is None


def test_operations_and_triggers_are_codes() -> None:
    for operation in (
        "token request",
        "charge request",
        "charge authorization",
        "charge query",
        "charge capture",
        "charge refund",
    ):
        assert operation_reason(operation).english() == operation
    for trigger in ("right after sending", "start-up", "on demand", "schedule"):
        assert trigger_reason(trigger).english() == trigger
