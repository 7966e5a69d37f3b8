"""The customer on the charge screen: optional e-mail, recent customers by CPF, holder = customer,
and the keys that move on by themselves (installments, a whole CPF or phone, Enter to the card)."""

from __future__ import annotations

import logging
import re
from datetime import UTC, datetime

from PySide6.QtCore import QLocale, Qt
from PySide6.QtWidgets import QCheckBox, QLabel
from pytestqt.qtbot import QtBot

from checkout_desktop.charges.views import CustomerRecord
from checkout_desktop.ui.charge_form import ChargeForm, SaleDraft
from checkout_desktop.ui.i18n import Translations

logger = logging.getLogger(__name__)

MARIA = CustomerRecord(
    document_type="CPF",
    document="52998224725",
    name="Maria da Silva",
    email="maria@example.com",
    phone="11987654321",
    last_used_at=datetime(2026, 3, 1, tzinfo=UTC),
    uses=3,
)
JOAO = CustomerRecord(
    document_type="CPF",
    document="11144477735",
    name="Joao Pereira",
    email=None,
    phone=None,
    last_used_at=datetime(2026, 3, 2, tzinfo=UTC),
    uses=1,
)


def filled(form: ChargeForm, *, email: str = "") -> None:
    form.amount.set_centavos(1500)
    form.customer_name.setText("Ana Souza")
    form.customer_document.setText("390.533.447-05")
    form.customer_phone.setText("(11) 98765-4321")
    form.customer_email.setText(email)


def test_the_e_mail_is_optional_unless_the_profile_requires_it(qtbot: QtBot) -> None:
    form = ChargeForm()
    qtbot.addWidget(form)
    filled(form)
    draft = form.draft()
    assert isinstance(draft, SaleDraft) and draft.customer.email is None
    assert "email" not in draft.customer.model_dump(exclude_none=True)
    form.customer_email.setText("not-an-address")
    assert form.problems() == ["Type a valid e-mail address (name@example.com)."]
    form.customer_email.clear()
    form.set_email_required(True)
    assert form.problems() == ["Type a valid e-mail address (name@example.com)."]
    form.customer_email.setText("ana@example.com")
    draft = form.draft()
    assert isinstance(draft, SaleDraft) and draft.customer.email == "ana@example.com"


def test_the_holder_follows_the_customer_while_the_box_is_ticked(qtbot: QtBot) -> None:
    form = ChargeForm()
    qtbot.addWidget(form)
    seen: list[tuple[str, str]] = []
    form.holder_changed.connect(lambda name, document: seen.append((name, document)))
    filled(form)
    assert seen[-1] == ("Ana Souza", "39053344705")
    form.holder_is_customer.setChecked(False)
    assert seen[-1] == ("", "")
    form.customer_name.setText("Ana Maria Souza")
    assert seen[-1] == ("", "")
    form.reset()
    assert form.holder_is_customer.isChecked()


def test_a_recent_customer_is_found_by_the_first_digits_of_the_cpf(qtbot: QtBot) -> None:
    form = ChargeForm()
    qtbot.addWidget(form)
    form.set_recent_customers([JOAO, MARIA])
    assert form.customer_completer.model().rowCount() == 2
    moved: list[bool] = []
    form.to_card.connect(lambda: moved.append(True))
    form.customer_document.setText("529")
    form.customer_document.returnPressed.emit()
    assert form.customer_document.text() == "52998224725"
    assert form.customer_name.text() == "Maria da Silva"
    assert form.customer_email.text() == "maria@example.com"
    assert form.customer_phone.text() == "(11) 98765-4321"
    assert moved == [True]
    # Digits two customers share: nothing is guessed.
    form.reset()
    form.set_recent_customers(
        [
            JOAO,
            MARIA,
            MARIA.__class__(**{**MARIA.__dict__, "document": "52911111111", "name": "Outra"}),
        ]
    )
    form.customer_document.setText("529")
    form.customer_document.returnPressed.emit()
    assert form.customer_name.text() == ""
    # A known CPF typed in full fills the rest when the field is left.
    form.customer_document.setText("111.444.777-35")
    form.customer_document.editingFinished.emit()
    assert form.customer_name.text() == "Joao Pereira"
    assert form.customer_phone.text() == ""


def shown_form(qtbot: QtBot) -> ChargeForm:
    form = ChargeForm()
    qtbot.addWidget(form)
    form.show()
    qtbot.waitExposed(form)
    form.activateWindow()
    return form


def test_installments_typed_as_one_digit_move_on_to_the_customer(qtbot: QtBot) -> None:
    form = shown_form(qtbot)
    form.installments.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.waitUntil(form.installments.hasFocus)
    # What Tab into a spin box does (an inactive test window gets no focus-in event).
    form.installments.selectAll()
    qtbot.keyClick(form.installments, "3")
    assert form.installments.value() == 3
    qtbot.waitUntil(form.customer_document.hasFocus)
    # "1" could begin 10, 11 or 12: the field waits for the next digit.
    form.installments.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.waitUntil(form.installments.hasFocus)
    form.installments.selectAll()
    qtbot.keyClick(form.installments, "1")
    assert form.installments.value() == 1 and form.installments.hasFocus()
    qtbot.keyClick(form.installments, "2")
    assert form.installments.value() == 12
    qtbot.waitUntil(form.customer_document.hasFocus)
    # A value set by the program (or the arrows) moves nothing.
    form.installments.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.waitUntil(form.installments.hasFocus)
    form.installments.setValue(5)
    qtbot.keyClick(form.installments, Qt.Key.Key_Up)
    assert form.installments.value() == 6 and form.installments.hasFocus()


def test_the_customer_comes_first_and_enter_goes_to_the_card(qtbot: QtBot) -> None:
    form = shown_form(qtbot)
    # Tab walks the clerk's path: CPF, name, phone (required), then the optional e-mail.
    form.customer_document.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.waitUntil(form.customer_document.hasFocus)
    for expected in (form.customer_name, form.customer_phone, form.customer_email):
        qtbot.keyClick(form.focusWidget() or form, Qt.Key.Key_Tab)
        qtbot.waitUntil(expected.hasFocus)
    moved: list[bool] = []
    form.to_card.connect(lambda: moved.append(True))
    for edit in (form.customer_name, form.customer_phone, form.customer_email):
        qtbot.keyClick(edit, Qt.Key.Key_Return)
    assert moved == [True, True, True]


def type_into(qtbot: QtBot, form: ChargeForm, text: str) -> None:
    """Keys to whichever field has the focus, one at a time, as a keyboard sends them."""
    for char in text:
        qtbot.keyClick(form.focusWidget() or form, char)


def test_a_whole_cpf_moves_on_to_the_name_and_a_whole_phone_to_the_card(qtbot: QtBot) -> None:
    form = shown_form(qtbot)
    moved: list[bool] = []
    form.to_card.connect(lambda: moved.append(True))
    form.customer_document.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.waitUntil(form.customer_document.hasFocus)
    type_into(qtbot, form, "3905334470")
    assert form.customer_document.hasFocus()  # ten digits: not yet
    type_into(qtbot, form, "5")
    qtbot.waitUntil(form.customer_name.hasFocus)
    type_into(qtbot, form, "Ana Souza")
    assert form.customer_document.text() == "39053344705"
    assert form.customer_name.text() == "Ana Souza"
    qtbot.keyClick(form.customer_name, Qt.Key.Key_Tab)
    qtbot.waitUntil(form.customer_phone.hasFocus)
    type_into(qtbot, form, "1198765432")
    assert moved == []  # a mobile's tenth digit: one more to come
    type_into(qtbot, form, "1")
    assert moved == [True]
    assert form.customer_phone.text() == "(11) 98765-4321"
    form.amount.set_centavos(1500)
    draft = form.draft()
    assert isinstance(draft, SaleDraft), draft
    assert draft.customer.phone is not None and draft.customer.phone.number == "987654321"


def test_a_phone_that_can_go_on_waits_for_enter(qtbot: QtBot) -> None:
    form = shown_form(qtbot)
    moved: list[bool] = []
    form.to_card.connect(lambda: moved.append(True))
    for typed in ("+55 11 98765-4321", "5591987654321", "011987654321"):
        form.customer_phone.clear()
        form.customer_phone.setFocus(Qt.FocusReason.TabFocusReason)
        qtbot.waitUntil(form.customer_phone.hasFocus)
        type_into(qtbot, form, typed)
        assert moved == [], typed
        assert form.customer_phone.hasFocus()
    # Editing in the middle of a number moves nothing either.
    form.customer_phone.setText("1198765432")
    form.customer_phone.setCursorPosition(2)
    qtbot.keyClick(form.customer_phone, "9")
    assert form.customer_phone.text() == "11998765432" and moved == []


def test_a_cnpj_whose_first_digits_make_a_cpf_gets_its_twelfth_digit_back(qtbot: QtBot) -> None:
    form = shown_form(qtbot)
    form.customer_document.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.waitUntil(form.customer_document.hasFocus)
    type_into(qtbot, form, "34012345010")
    qtbot.waitUntil(form.customer_name.hasFocus)
    type_into(qtbot, form, "069")
    qtbot.waitUntil(form.customer_document.hasFocus)
    assert form.customer_document.text() == "34012345010069"
    assert form.customer_name.text() == ""
    qtbot.keyClick(form.customer_document, Qt.Key.Key_Tab)
    qtbot.waitUntil(form.customer_name.hasFocus)
    # A name may begin with a digit once the CPF/CNPJ was left by the clerk's own key.
    type_into(qtbot, form, "3M")
    assert form.customer_name.text() == "3M"
    assert form.customer_document.text() == "34012345010069"


def test_a_known_customers_whole_cpf_goes_straight_to_the_card(qtbot: QtBot) -> None:
    form = shown_form(qtbot)
    form.set_recent_customers([JOAO, MARIA])
    moved: list[bool] = []
    form.to_card.connect(lambda: moved.append(True))
    form.customer_document.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.waitUntil(form.customer_document.hasFocus)
    type_into(qtbot, form, "52998224725")
    assert moved == [True]
    assert form.customer_name.text() == "Maria da Silva"
    assert form.customer_phone.text() == "(11) 98765-4321"
    assert not form.customer_completer.popup().isVisible()
    # Joao left no phone: his CPF brings the caret to the phone, which the sale needs.
    form.reset()
    form.customer_document.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.waitUntil(form.customer_document.hasFocus)
    type_into(qtbot, form, "11144477735")
    qtbot.waitUntil(form.customer_phone.hasFocus)
    assert form.customer_name.text() == "Joao Pereira"
    assert moved == [True]


def _ink_at_right_edge(label: QLabel) -> bool:
    """Whether the label's text reaches its last pixel column (a glyph cut by its edge)."""
    image = label.grab().toImage()
    background = label.palette().color(label.backgroundRole()).lightness()
    last = image.width() - 1
    return any(
        image.pixelColor(last, y).lightness() < background - 60 for y in range(image.height())
    )


def test_no_field_label_is_cut_in_portuguese(qtbot: QtBot) -> None:
    # "&Telefone": the underlined T loses its kerning with the e, and the drawn word came out
    # wider than the measured one; its last letter was cut at every screen size.
    translations = Translations()
    assert translations.install(QLocale(QLocale.Language.Portuguese, QLocale.Country.Brazil))
    try:
        form = ChargeForm()
        qtbot.addWidget(form)
        form.resize(440, 700)
        form.show()
        qtbot.waitExposed(form)
        labels = [label for label in form.findChildren(QLabel) if label.buddy() is not None]
        assert "&Telefone" in [label.text() for label in labels]
        cut = [label.text() for label in labels if _ink_at_right_edge(label)]
        assert cut == []
        # Each Alt shortcut reaches one field (Alt+T was the phone and the holder box).
        texts = [label.text() for label in labels]
        texts += [box.text() for box in form.findChildren(QCheckBox)]
        keys = [re.sub("&&", "", text).split("&")[1][0].lower() for text in texts if "&" in text]
        assert len(keys) == len(set(keys)), texts
    finally:
        translations.remove()
