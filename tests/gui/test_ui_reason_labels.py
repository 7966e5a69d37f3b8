"""Reasons the core writes (in English, as stored) are shown in the UI's language."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from PySide6.QtCore import QLocale
from PySide6.QtWidgets import QApplication

from checkout_desktop.domain.enums import ChargeStatus, ThreeDsStatus
from checkout_desktop.domain.money_ops import MONEY_STEPS, Figures, MoneyOpKind, money_reason
from checkout_desktop.domain.state import ChargeState, merge
from checkout_desktop.domain.wire import ChargeUpdate, ThreeDsUpdate
from checkout_desktop.inbox.intake import Received, classify
from checkout_desktop.store.charges import CheckPolicy
from checkout_desktop.ui.formatting import format_instant_precise, format_money
from checkout_desktop.ui.i18n import Translations
from checkout_desktop.ui.labels import reason_label, status_label

logger = logging.getLogger(__name__)

PT_BR = QLocale(QLocale.Language.Portuguese, QLocale.Country.Brazil)
EN_US = QLocale(QLocale.Language.English, QLocale.Country.UnitedStates)
T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
T1 = T0 + timedelta(minutes=5)


@pytest.fixture
def translations(qapp: QApplication) -> Iterator[Translations]:
    installed = Translations()
    yield installed
    installed.remove()


def _update(status: ChargeStatus, at: datetime, amount: int | None = 8990) -> ChargeUpdate:
    return ChargeUpdate("sale-1-a", "ch_1", status, amount, None, occurred_at=at)


def _three_ds(status: ThreeDsStatus, at: datetime, pares: str | None = None) -> ThreeDsUpdate:
    return ThreeDsUpdate("sale-1-a", "ch_1", status, pares, None, at, at)


def _core_reasons() -> list[tuple[str, list[str]]]:
    """(reason as the core writes it, the raw values its translation must show)."""
    first = merge(None, _update(ChargeStatus.PRE_AUTHORIZED, T0))
    paid = merge(first.state, _update(ChargeStatus.PAID, T1))
    again = merge(paid.state, _update(ChargeStatus.PAID, T1))
    later_same = merge(paid.state, _update(ChargeStatus.PAID, T1 + timedelta(minutes=1)))
    earlier = merge(paid.state, _update(ChargeStatus.PRE_AUTHORIZED, T1))
    older_time = merge(paid.state, _update(ChargeStatus.PAID, T0))
    no_amount = ChargeState(merchant_charge_id="sale-1-a", status=ChargeStatus.PAID, status_at=T1)
    details = merge(no_amount, _update(ChargeStatus.PAID, T1))
    denied = merge(None, _update(ChargeStatus.DENIED, T0))
    after_denied = merge(denied.state, _update(ChargeStatus.PAID, T1))
    tds = merge(paid.state, _three_ds(ThreeDsStatus.CHALLENGED, T0, "Y"))
    tds_again = merge(tds.state, _three_ds(ThreeDsStatus.CHALLENGED, T0, "Y"))
    tds_older = merge(
        merge(tds.state, _three_ds(ThreeDsStatus.APPROVED, T1)).state,
        _three_ds(ThreeDsStatus.CHALLENGED, T1),
    )
    policy = CheckPolicy()
    not_final = policy.schedule(first.state, source="reply", checks=0, now=T1)[1]
    no_status = policy.schedule(ChargeState("sale-1-a"), source="reply", checks=0, now=T1)[1]
    assert not_final is not None and no_status is not None
    reasons: list[tuple[str, list[object]]] = [
        (first.entry.reason, ["PRE_AUTHORIZED"]),
        (paid.entry.reason, ["PAID", "PRE_AUTHORIZED"]),
        (again.entry.reason, ["PAID"]),
        (f"duplicate: {again.entry.reason}", ["PAID"]),
        (later_same.entry.reason, ["PAID"]),
        (earlier.entry.reason, ["PAID", "PRE_AUTHORIZED"]),
        (f"ignored: {older_time.entry.reason}", ["PAID", T0, T1]),
        (details.entry.reason, ["PAID"]),
        (after_denied.entry.reason, ["PAID", "DENIED"]),
        (tds.entry.reason, ["Challenged"]),
        (tds_again.entry.reason, ["Challenged"]),
        (tds_older.entry.reason, ["Challenged", "Approved"]),
        (not_final, ["PRE_AUTHORIZED"]),
        (no_status, []),
    ]
    # The store's and gateway's templates need a database or a service to produce; they are
    # written out here exactly as store/charges.py and gateway/charging.py compose them.
    reasons += [
        (
            "attempt for sale S-77 recorded before sending: 8990 centavos, visa •••• 4242 in 3x",
            ["S-77", 8990, "4242"],
        ),
        ("capture of 8990 centavos requested", [8990]),
        (f"refund of 2000 centavos: {later_same.entry.reason}", [2000, "PAID"]),
        (f"start-up: asked the service: {paid.entry.reason}", ["PAID"]),
        (f"schedule ({not_final}): {again.entry.reason}", ["PAID", "PRE_AUTHORIZED"]),
        ("the service has this charge (PAID); attempt resolved", ["PAID"]),
        (f"attempt already CREATED; {first.entry.reason}", ["CREATED", "PRE_AUTHORIZED"]),
        (f"before sending: asked the service: {again.entry.reason}", ["PAID"]),
        (f"cancel of 8990 centavos: {later_same.entry.reason}", [8990, "PAID"]),
    ]
    # Every step of a money operation, as domain/money_ops.money_reason writes it.
    figures = Figures(ChargeStatus.PARTIAL, 8990, 2000)
    for kind in MoneyOpKind:
        for step in MONEY_STEPS:
            reasons.append((money_reason(kind, 2000, step), [2000]))
        reasons.append(
            (money_reason(kind, 2000, "confirmed", figures.describe()), [2000, "PARTIAL", 8990])
        )
    return [(r, [_shown(v) for v in values]) for r, values in reasons]


def _shown(value: object) -> str:
    if isinstance(value, datetime):
        return format_instant_precise(value)
    if isinstance(value, int):
        return format_money(value)
    if (isinstance(value, str) and value.isupper()) or value in ("Challenged", "Approved"):
        return status_label(str(value))
    return str(value)


def _inbox_reasons() -> list[str]:
    def received(body: bytes, content_type: str = "application/json") -> Received:
        return Received(body, {}, T0, None, content_type, "127.0.0.1")

    texts = [
        classify(received(b"{not json")).event.reason,
        classify(received(b"[1]")).event.reason,
        classify(received(b'{"type": "PAYMENT", "data": 3}')).event.reason,
        classify(received(b'{"type": "SOMETHING_NEW", "id": "e1"}')).event.reason,
    ]
    return [t for t in texts if t]


def test_portuguese_renders_every_core_template(translations: Translations) -> None:
    assert translations.install(PT_BR)
    for text, values in _core_reasons():
        shown = reason_label(text)
        assert shown != text, text
        for value in values:
            assert value.replace("\u00a0", " ") in shown.replace("\u00a0", " "), (text, shown)
    inbox = _inbox_reasons()
    assert len(inbox) == 4
    for text in inbox:
        assert reason_label(text) != text, text


def test_unknown_text_passes_through(translations: Translations) -> None:
    assert translations.install(PT_BR)
    for text in ("something the core never wrote", "PAID", "a: b: c", ""):
        assert reason_label(text) == text


def test_english_shows_the_stored_text(translations: Translations) -> None:
    assert not translations.install(EN_US)
    for text, _ in _core_reasons():
        assert reason_label(text) == text


def test_every_money_operation_step_is_shown_in_portuguese(translations: Translations) -> None:
    assert translations.install(PT_BR)
    for kind in MoneyOpKind:
        for step, phrase in MONEY_STEPS.items():
            shown = reason_label(
                money_reason(kind, 2000, step, "PAID, refunded 0 of 2000 centavos")
            )
            assert phrase not in shown, shown
            assert "centavos" not in shown, shown
            assert format_money(2000).replace("\u00a0", " ") in shown.replace("\u00a0", " ")
    assert reason_label(money_reason(MoneyOpKind.REFUND, 500, "requested")).startswith("estorno")
