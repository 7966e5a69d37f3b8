"""The charge screen's fields: cents-first amount entry, checks with clear messages, the PIN hash."""

from __future__ import annotations

import logging

import pytest
from PySide6.QtCore import QLocale, Qt
from PySide6.QtGui import QGuiApplication
from pytestqt.qtbot import QtBot

from checkout_desktop.domain.enums import InstallmentType
from checkout_desktop.ui.amount_edit import AmountEdit
from checkout_desktop.ui.charge_form import (
    MAX_INSTALLMENTS,
    MIN_INSTALLMENT,
    ChargeForm,
    SaleDraft,
    installment_shares,
    installment_type,
    most_installments,
)
from checkout_desktop.ui.formatting import format_money
from checkout_desktop.ui.supervisor import PinError, hash_pin, verify_pin

logger = logging.getLogger(__name__)

VALID_CPF = "529.982.247-25"
VALID_CNPJ = "11.222.333/0001-81"


@pytest.fixture(autouse=True)
def pt_br_locale() -> object:
    previous = QLocale()
    QLocale.setDefault(QLocale(QLocale.Language.Portuguese, QLocale.Country.Brazil))
    yield
    QLocale.setDefault(previous)


def test_amount_is_typed_cents_first(qtbot: QtBot) -> None:
    edit = AmountEdit()
    qtbot.addWidget(edit)
    values: list[int] = []
    edit.value_changed.connect(values.append)
    qtbot.keyClicks(edit, "12345")
    assert edit.centavos() == 12345
    assert values == [1, 12, 123, 1234, 12345]
    assert edit.text().replace("\u00a0", " ") == "R$ 123,45"
    qtbot.keyClick(edit, Qt.Key.Key_Backspace)
    assert edit.centavos() == 1234
    qtbot.keyClicks(edit, "abc,.")  # ignored: the value and text stay in step
    assert edit.centavos() == 1234
    qtbot.keyClick(edit, Qt.Key.Key_Delete)
    assert edit.centavos() == 0


def test_amount_refuses_above_the_maximum_and_bad_pastes(qtbot: QtBot) -> None:
    edit = AmountEdit()
    qtbot.addWidget(edit)
    edit.set_centavos(99_999_999_99)
    with qtbot.waitSignal(edit.rejected, timeout=1000) as blocker:
        qtbot.keyClick(edit, Qt.Key.Key_9)
    assert "largest amount" in blocker.args[0]
    assert edit.centavos() == 99_999_999_99
    QGuiApplication.clipboard().setText("1.234,56")
    edit.set_centavos(0)
    qtbot.keyClick(edit, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)
    assert edit.centavos() == 123456
    QGuiApplication.clipboard().setText("twelve")
    with qtbot.waitSignal(edit.rejected, timeout=1000) as blocker:
        qtbot.keyClick(edit, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)
    assert "not an amount" in blocker.args[0]
    assert edit.centavos() == 123456


def fill_valid(form: ChargeForm, qtbot: QtBot, *, document: str = VALID_CPF) -> None:
    qtbot.keyClicks(form.amount, "10000")
    form.customer_name.setText("Maria da Silva")
    form.customer_email.setText("maria@example.com")
    form.customer_document.setText(document)
    form.customer_phone.setText("(11) 98765-4321")


def test_a_valid_form_gives_a_sale_draft(qtbot: QtBot) -> None:
    form = ChargeForm()
    qtbot.addWidget(form)
    fill_valid(form, qtbot)
    form.installments.setValue(3)
    form.soft_descriptor.setText("LOJA CENTRO")
    draft = form.draft()
    assert isinstance(draft, SaleDraft)
    assert draft.amount == 10000
    assert draft.installments == 3
    assert draft.installment_type == InstallmentType.MERCHANT
    assert draft.customer.document == "52998224725"
    assert draft.customer.documentType == "CPF"
    assert draft.billing_address is None
    assert "2 × R$ 33,33" in form.installment_hint.text().replace("\u00a0", " ")


def test_single_installment_is_type_none() -> None:
    assert installment_type(1) == InstallmentType.NONE
    assert installment_type(12) == InstallmentType.MERCHANT
    with pytest.raises(ValueError, match="from 1 to 12"):
        installment_type(13)


def test_cnpj_customer_and_billing_address(qtbot: QtBot) -> None:
    form = ChargeForm()
    qtbot.addWidget(form)
    fill_valid(form, qtbot, document=VALID_CNPJ)
    form.address_box.setChecked(True)
    problems = form.draft()
    assert isinstance(problems, list)
    assert any("CEP" in p for p in problems)
    assert any("street" in p for p in problems)
    assert any("UF" in p for p in problems)
    form.cep.setText("01310-100")
    form.street.setText("Avenida Paulista")
    form.number.setText("1000")
    form.neighborhood.setText("Bela Vista")
    form.city.setText("São Paulo")
    form.uf.setCurrentIndex(form.uf.findData("SP"))
    draft = form.draft()
    assert isinstance(draft, SaleDraft), draft
    assert draft.customer.documentType == "CNPJ"
    assert draft.billing_address is not None
    assert draft.billing_address.zipCode == "01310100"
    assert draft.billing_address.state == "SP"


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("customer_document", "529.982.247-24", "check digits"),
        ("customer_document", "1234", "this one has 4"),
        ("customer_document", "", "CPF or CNPJ"),
        ("customer_email", "maria@", "e-mail"),
        ("customer_name", "Maria <script>", "letters, digits"),
        ("soft_descriptor", "LOJA-Ç", "descriptor"),
        ("customer_phone", "", "customer's phone"),
        ("customer_phone", "9876-4321", "area code"),
        ("customer_phone", "(11) 8765-43210", "area code"),
    ],
)
def test_each_bad_field_gets_a_clear_message(
    qtbot: QtBot, field: str, value: str, message: str
) -> None:
    form = ChargeForm()
    qtbot.addWidget(form)
    fill_valid(form, qtbot)
    getattr(form, field).setText(value)
    problems = form.draft()
    assert isinstance(problems, list)
    assert len(problems) == 1
    assert message in problems[0]
    # The message never repeats what was typed (it may be a card number typed by mistake).
    if value:
        assert value not in problems[0]


def test_zero_amount_is_refused(qtbot: QtBot) -> None:
    form = ChargeForm()
    qtbot.addWidget(form)
    form.customer_name.setText("Maria")
    form.customer_email.setText("maria@example.com")
    form.customer_document.setText(VALID_CPF)
    form.customer_phone.setText("11 3333-4444")
    assert form.problems() == ["Type the amount."]
    form.reset()
    assert form.amount.centavos() == 0
    assert form.customer_name.text() == ""


@pytest.mark.parametrize(
    ("typed", "area", "number", "kind"),
    [
        ("(11) 98765-4321", "11", "987654321", "MOBILE"),
        ("+55 21 3333-4444", "21", "33334444", "LANDLINE"),
        ("0 31 99876 5432", "31", "998765432", "MOBILE"),
    ],
)
def test_the_phone_in_brazilian_format(
    qtbot: QtBot, typed: str, area: str, number: str, kind: str
) -> None:
    form = ChargeForm()
    qtbot.addWidget(form)
    fill_valid(form, qtbot)
    form.customer_phone.setText(typed)
    draft = form.draft()
    assert isinstance(draft, SaleDraft), draft
    phone = draft.customer.phone
    assert phone is not None
    assert (phone.countryCode, phone.areaCode, phone.number, phone.type) == (
        "55",
        area,
        number,
        kind,
    )


def test_the_phone_is_optional_when_the_profile_says_so(qtbot: QtBot) -> None:
    form = ChargeForm()
    qtbot.addWidget(form)
    fill_valid(form, qtbot)
    form.customer_phone.clear()
    assert form.problems() == ["Type the customer's phone, e.g. (11) 98765-4321."]
    form.set_phone_required(False)
    draft = form.draft()
    assert isinstance(draft, SaleDraft) and draft.customer.phone is None
    # Optional still means checked when typed.
    form.customer_phone.setText("123")
    assert len(form.problems()) == 1


def test_supervisor_pin_is_a_salted_hash() -> None:
    stored = hash_pin("4321")
    assert "4321" not in stored
    assert stored.startswith("scrypt$")
    assert stored != hash_pin("4321")  # salted
    assert verify_pin("4321", stored)
    assert not verify_pin("1234", stored)
    assert not verify_pin("43a1", stored)
    with pytest.raises(PinError, match="4 to 8 digits"):
        hash_pin("12")
    with pytest.raises(PinError, match="known format"):
        verify_pin("4321", "md5$abc")


def test_a_qr_tender_sets_the_card_only_terms_aside_and_keeps_them(qtbot: QtBot) -> None:
    form = ChargeForm()
    qtbot.addWidget(form)
    fill_valid(form, qtbot)
    form.installments.setValue(3)
    form.late_capture.setChecked(True)
    form.address_box.setChecked(True)  # a half-typed billing address
    form.cep.setText("01310-100")
    assert isinstance(form.draft(), list)
    # PicPay or PIX: installments, late capture, the card holder and the billing address are
    # the card's; they neither stop nor shape a QR sale, and the clerk sees them set aside.
    form.set_card_terms(False)
    card_only = (form.installments, form.late_capture, form.holder_is_customer, form.address_box)
    assert not any(widget.isEnabled() for widget in card_only)
    draft = form.draft()
    assert isinstance(draft, SaleDraft), draft
    assert draft.installments == 1 and not draft.late_capture and draft.billing_address is None
    assert draft.amount == 10000 and draft.customer.name == "Maria da Silva"
    # A charge in flight and back: still set aside while the QR tender is chosen.
    form.set_enabled_for_editing(False)
    form.set_enabled_for_editing(True)
    assert not any(widget.isEnabled() for widget in card_only)
    assert form.amount.isEnabled() and form.soft_descriptor.isEnabled()
    # Back to the card: nothing typed was lost.
    form.set_card_terms(True)
    assert all(widget.isEnabled() for widget in card_only)
    assert form.installments.value() == 3 and form.late_capture.isChecked()
    assert form.cep.text() == "01310-100" and isinstance(form.draft(), list)


def _shown(label_text: str) -> str:
    return label_text.replace("\u00a0", " ")


def test_installments_that_do_not_divide_evenly_say_how_they_split(qtbot: QtBot) -> None:
    # R$ 100,00 in 3x is not 3 × R$ 33,33 (R$ 99,99): the centavo left over is on the first.
    form = ChargeForm()
    qtbot.addWidget(form)
    fill_valid(form, qtbot)
    form.installments.setValue(3)
    assert _shown(form.installment_hint.text()) == "1 × R$ 33,34 + 2 × R$ 33,33 (interest-free)"
    form.installments.setValue(4)
    assert _shown(form.installment_hint.text()) == "4 × R$ 25,00 (interest-free)"
    assert isinstance(form.draft(), SaleDraft)


def test_installments_below_the_minimum_are_refused_with_a_message(qtbot: QtBot) -> None:
    form = ChargeForm()
    qtbot.addWidget(form)
    fill_valid(form, qtbot)
    form.amount.set_centavos(1)  # R$ 0,01 in 12x would be 12 × R$ 0,00
    form.installments.setValue(12)
    hint = _shown(form.installment_hint.text())
    assert "R$ 0,00" not in hint
    assert hint == (
        f"Installments of at least {format_money(MIN_INSTALLMENT)}: this amount is charged "
        "in a single payment."
    ).replace("\u00a0", " ")
    problems = form.draft()
    assert isinstance(problems, list) and len(problems) == 1
    assert "at least" in problems[0]
    # The installments typed are kept: a larger amount makes them valid again.
    assert form.installments.value() == 12
    form.amount.set_centavos(12 * MIN_INSTALLMENT - 1)
    problems = form.draft()
    assert isinstance(problems, list)
    assert _shown(problems[0]).endswith("this amount takes at most 11x.")
    form.amount.set_centavos(12 * MIN_INSTALLMENT)
    draft = form.draft()
    assert isinstance(draft, SaleDraft) and draft.installments == 12


def test_installment_split_and_limit() -> None:
    assert installment_shares(10000, 3) == (3334, 3333)
    assert installment_shares(10000, 1) == (10000, 10000)
    assert installment_shares(100, 7) == (16, 14)
    assert MIN_INSTALLMENT >= 1
    assert most_installments(0) == 1
    assert most_installments(2 * MIN_INSTALLMENT - 1) == 1
    assert most_installments(2 * MIN_INSTALLMENT) == 2
    assert most_installments(1_000_000) == MAX_INSTALLMENTS
