"""Every reason the core gives has a UI rendering, translated, with its arguments shown.

The test walks `ReasonCode` (no template is typed here): a code without an English text or a
UI template fails, a template that escapes Qt's translation fails (a marking translator shows
which texts went through `tr`), and a pt_BR rendering must show each argument the way the
rest of the UI shows it (statuses by their labels, amounts as money, instants by the locale).
"""

from __future__ import annotations

import logging
import re
import string
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from PySide6.QtCore import QLocale
from PySide6.QtWidgets import QApplication

from checkout_desktop.domain.enums import ChargeStatus
from checkout_desktop.domain.money_ops import MONEY_STEPS, Figures, MoneyOpKind, money_reason
from checkout_desktop.domain.reasons import (
    ENGLISH,
    Reason,
    ReasonCode,
    is_amount_arg,
    is_instant_arg,
    is_status_arg,
)
from checkout_desktop.ui.formatting import format_instant_precise, format_money
from checkout_desktop.ui.i18n import Translations
from checkout_desktop.ui.labels import status_label
from checkout_desktop.ui.reasons import error_text, reason_text, templates
from tests.gui.pseudo import MarkingTranslator, unmarked

logger = logging.getLogger(__name__)

PT_BR = QLocale(QLocale.Language.Portuguese, QLocale.Country.Brazil)
EN_US = QLocale(QLocale.Language.English, QLocale.Country.UnitedStates)
AT = datetime(2026, 3, 1, 12, 0, 5, 123000, tzinfo=UTC)


@pytest.fixture
def translations(qapp: QApplication) -> Iterator[Translations]:
    previous = QLocale()
    installed = Translations()
    yield installed
    installed.remove()
    QLocale.setDefault(previous)


def _fields(template: str) -> list[str]:
    return [name for _, name, _, _ in string.Formatter().parse(template) if name]


def _sample(name: str) -> object:
    if is_status_arg(name):
        return "PRE_AUTHORIZED"
    if is_amount_arg(name):
        return 8990
    if is_instant_arg(name):
        return AT.isoformat()
    if name in ("why", "context", "trigger", "operation", "card", "brand"):
        return Reason.of(ReasonCode.CHECK_SCHEDULED)
    if name == "cards":
        return (Reason.of(ReasonCode.CARD, brand="VISA", last_four="4242"),)
    return f"<{name}>"


def _example(code: ReasonCode) -> Reason:
    return Reason(code, {name: _sample(name) for name in _fields(ENGLISH[code])})


def _shown(name: str, value: object) -> str:
    """How an argument must appear on a pt_BR screen."""
    if isinstance(value, Reason):
        return reason_text(value)
    if isinstance(value, tuple):
        return ", ".join(reason_text(v) for v in value)
    if is_status_arg(name):
        return status_label(str(value))
    if is_amount_arg(name):
        assert isinstance(value, int)
        return format_money(value)
    if is_instant_arg(name):
        return format_instant_precise(datetime.fromisoformat(str(value)))
    return str(value)


def test_every_code_has_a_ui_template_using_only_its_arguments(qapp: QApplication) -> None:
    table = templates()
    missing = [code.name for code in ReasonCode if code not in table]
    assert not missing, f"codes without a UI template: {missing}"
    for code in ReasonCode:
        assert code in ENGLISH, f"{code.name} has no English text"
        extra = set(_fields(table[code])) - set(_fields(ENGLISH[code]))
        assert not extra, f"{code.name}'s UI template names arguments it never has: {extra}"


def test_every_template_goes_through_the_catalogue(qapp: QApplication) -> None:
    # Marked only where the pt_BR catalogue has a translation: an untranslated or
    # never-translated template comes back bare.
    with MarkingTranslator.installed(qapp):
        table = templates()
        bare = [
            code.name
            for code in ReasonCode
            if re.sub(r"\{\w*\}", "", unmarked(table[code])).strip()
        ]
    assert not bare, f"templates with no pt_BR translation: {bare}"


def test_portuguese_renders_each_code_with_its_arguments(translations: Translations) -> None:
    assert translations.install(PT_BR)
    table = templates()
    for code in ReasonCode:
        reason = _example(code)
        shown = reason_text(reason)
        assert "{" not in shown, (code.name, shown)
        for name in _fields(table[code]):
            expected = _shown(name, reason.args[name])
            assert expected in shown, (code.name, name, expected, shown)
        if _fields(ENGLISH[code]) or code.name.startswith(("CARD", "OP_")):
            continue
        # A reason with no argument reads differently from its English in Portuguese.
        assert shown != reason.english(), code.name


def test_nested_reasons_are_rendered_in_the_ui_language(translations: Translations) -> None:
    assert translations.install(PT_BR)
    reason = Reason.of(
        ReasonCode.WITH_CONTEXT,
        context=Reason.of(ReasonCode.ASKED_SERVICE, trigger=Reason.of(ReasonCode.TRIGGER_START_UP)),
        why=Reason.of(ReasonCode.MERGE_LATER_STAGE, status="PAID", current_status="PRE_AUTHORIZED"),
    )
    assert reason_text(reason) == (
        "na inicialização: serviço consultado: Paga vem depois de Pré-autorizada no ciclo da "
        "cobrança"
    )
    assert reason.english() == (
        "start-up: asked the service: PAID is later in the charge's life than PRE_AUTHORIZED"
    )


def test_old_rows_show_their_stored_text(translations: Translations) -> None:
    assert translations.install(PT_BR)
    assert reason_text(None, "a reason written before codes") == "a reason written before codes"
    assert reason_text(None, None) == ""


def test_exceptions_carrying_a_reason_are_rendered(translations: Translations) -> None:
    assert translations.install(PT_BR)
    error = ValueError(Reason.of(ReasonCode.NO_KNOWN_AMOUNT, charge="ch-1"))
    assert error_text(error) == "a cobrança ch-1 não tem valor conhecido; informe um"
    assert error_text(RuntimeError("plain")) == "plain"


def test_english_ui_renders_amounts_as_money(translations: Translations) -> None:
    assert not translations.install(EN_US)
    reason = Reason.of(ReasonCode.REFUND_REQUESTED, amount=2000)
    assert reason.english() == "refund of 2000 centavos requested"
    assert reason_text(reason) == f"refund of {format_money(2000)} requested"


def test_every_money_operation_step_is_shown_in_portuguese(translations: Translations) -> None:
    assert translations.install(PT_BR)
    figures = Figures(ChargeStatus.PAID, 2000, 0)
    for kind in MoneyOpKind:
        for step in MONEY_STEPS:
            reason = money_reason(kind, 2000, step, figures.reason())
            shown = reason_text(reason).replace("\u00a0", " ")
            assert "centavos" not in shown, shown
            assert format_money(2000).replace("\u00a0", " ") in shown, shown
            assert status_label("PAID") in shown, shown
    assert reason_text(money_reason(MoneyOpKind.REFUND, 500, "requested")).startswith("estorno")


def test_the_template_table_is_built_once_per_language(translations: Translations) -> None:
    # Every row of the event list asks for the table; it is built again only when the
    # installed translators change, and then shows the new language at once.
    reason = Reason.of(ReasonCode.MERGE_FIRST_STATUS, status="PAID")
    english = templates()
    assert templates() is english
    assert reason_text(reason) == "first status of the charge: Paid"
    assert translations.install(PT_BR)
    portuguese = templates()
    assert portuguese is not english
    assert portuguese[ReasonCode.MERGE_FIRST_STATUS] != english[ReasonCode.MERGE_FIRST_STATUS]
    assert reason_text(reason) != reason.english()
    assert templates() is portuguese
    assert status_label("PAID") == "Paga"
    translations.remove()
    QLocale.setDefault(EN_US)
    assert templates()[ReasonCode.MERGE_FIRST_STATUS] == english[ReasonCode.MERGE_FIRST_STATUS]
    assert reason_text(reason) == "first status of the charge: Paid"
    assert status_label("PAID") == "Paid"
