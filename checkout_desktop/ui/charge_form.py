"""The sale fields of the charge screen: amount, installments, descriptor, customer and address.

The form only collects and checks what staff type; turning it into a request is the charge
service's job. Every check reuses the domain's rules, so the message a person sees here is the
one the request model would give.
"""

from __future__ import annotations

import itertools
import logging
import re

from pydantic import ValidationError
from PySide6.QtCore import QModelIndex, Qt, Signal
from PySide6.QtGui import QStandardItem, QStandardItemModel
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QCompleter,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from checkout_desktop.charges.sale import SaleDraft
from checkout_desktop.charges.views import CustomerRecord
from checkout_desktop.domain import documents
from checkout_desktop.domain.enums import DocumentType, InstallmentType
from checkout_desktop.domain.wire import BillingAddress, Customer, Phone
from checkout_desktop.settings import LARGE_AMOUNT_WARNING as DEFAULT_LARGE_AMOUNT
from checkout_desktop.ui.amount_edit import AmountEdit
from checkout_desktop.ui.form_labels import give_labels_room
from checkout_desktop.ui.formatting import format_money

logger = logging.getLogger(__name__)

MAX_INSTALLMENTS = 12
MIN_INSTALLMENT = 1
"""The smallest installment a sale is split into, in centavos (R$ 0,01).

The service's documents state no minimum (only 1 to 12 installments), so the terminal refuses
only what cannot be charged at all: an installment of R$ 0,00 (R$ 0,05 in 12x). A minimum the
acquirer sets is the service's to refuse, and the clerk reads its refusal."""
SOFT_DESCRIPTOR_MAX = 13
_DESCRIPTOR = re.compile(r"^[A-Za-z0-9 ]*$")
_EMAIL = re.compile(r"^[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\.[a-zA-Z]{2,}$")


def installment_type(installments: int) -> InstallmentType:
    """NONE for a single installment, MERCHANT (interest-free, paid by the shop) otherwise."""
    if not 1 <= installments <= MAX_INSTALLMENTS:
        raise ValueError(f"installments go from 1 to {MAX_INSTALLMENTS}, not {installments}")
    return InstallmentType.NONE if installments == 1 else InstallmentType.MERCHANT


def installment_shares(amount: int, installments: int) -> tuple[int, int]:
    """(the first installment, each of the others): the first carries the centavos that do not
    divide evenly, so the installments add up to the amount."""
    if installments < 1:
        raise ValueError(f"installments start at 1, not {installments}")
    share, left = divmod(amount, installments)
    return share + left, share


def installments_text(amount: int, installments: int) -> str:
    """How an amount splits, in figures: "3 × R$ 25,00" or "1 × R$ 33,34 + 2 × R$ 33,33"."""
    first, share = installment_shares(amount, installments)
    if first == share:
        return f"{installments} × {format_money(share)}"
    return f"1 × {format_money(first)} + {installments - 1} × {format_money(share)}"


def most_installments(amount: int) -> int:
    """The most installments `amount` may be split into with none under MIN_INSTALLMENT."""
    return max(1, min(MAX_INSTALLMENTS, amount // MIN_INSTALLMENT))


def _shown_document(digits: str) -> str:
    try:
        if len(digits) == 11:
            return documents.format_cpf(digits)
        if len(digits) == 14:
            return documents.format_cnpj(digits)
    except documents.DocumentError:
        pass
    return digits


def _shown_phone(digits: str) -> str:
    if len(digits) == 11:
        return f"({digits[:2]}) {digits[2:7]}-{digits[7:]}"
    if len(digits) == 10:
        return f"({digits[:2]}) {digits[2:6]}-{digits[6:]}"
    return digits


def _first_error(exc: ValidationError) -> str:
    errors = exc.errors(include_input=False, include_url=False)
    if not errors:
        return str(exc)
    message = str(errors[0]["msg"])
    return message.removeprefix("Value error, ")


class ChargeForm(QWidget):
    """The fields of one sale; `draft()` gives a SaleDraft or the list of what is wrong."""

    changed = Signal()
    holder_changed = Signal(str, str)
    """(name, document digits) the card page's holder fields take; empty when not the customer."""
    to_card = Signal()
    """Enter in the customer's fields: the sale's fields are done, the card comes next."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.amount = AmountEdit(self)
        self.amount.setObjectName("amount")
        self.amount.setAccessibleName(self.tr("Amount"))
        big = self.amount.font()
        big.setPointSizeF(big.pointSizeF() * 1.8)
        big.setBold(True)
        self.amount.setFont(big)
        self.amount.setMinimumHeight(48)
        self.amount.set_warning_limit(DEFAULT_LARGE_AMOUNT)
        self.large_amount = QLabel(self)
        self.large_amount.setObjectName("largeAmountWarning")
        self.large_amount.setWordWrap(True)
        self.large_amount.setStyleSheet("color: #8a5a00; font-weight: bold;")
        self.large_amount.setVisible(False)

        self.installments = QSpinBox(self)
        self.installments.setObjectName("installments")
        self.installments.setRange(1, MAX_INSTALLMENTS)
        self.installments.setSuffix("x")
        self.installments.setAccessibleName(self.tr("Installments"))
        self.installment_hint = QLabel(self)
        self.installment_hint.setObjectName("installmentHint")

        self.soft_descriptor = QLineEdit(self)
        self.soft_descriptor.setObjectName("softDescriptor")
        self.soft_descriptor.setMaxLength(SOFT_DESCRIPTOR_MAX)
        self.soft_descriptor.setPlaceholderText(self.tr("On the card statement (optional)"))

        self.late_capture = QCheckBox(self.tr("&Late capture (authorize now, capture later)"), self)
        self.late_capture.setObjectName("lateCapture")

        sale_box = QGroupBox(self.tr("Sale"), self)
        sale = QFormLayout(sale_box)
        sale.addRow(self.tr("&Amount"), self.amount)
        sale.addRow("", self.large_amount)
        row = QHBoxLayout()
        row.addWidget(self.installments)
        row.addWidget(self.installment_hint, 1)
        installments_label = QLabel(self.tr("&Installments"), sale_box)
        installments_label.setBuddy(self.installments)
        sale.addRow(installments_label, row)
        sale.addRow(self.tr("&Descriptor"), self.soft_descriptor)
        sale.addRow("", self.late_capture)

        self.customer_name = QLineEdit(self)
        self.customer_name.setObjectName("customerName")
        self.customer_name.setMaxLength(255)
        self.customer_email = QLineEdit(self)
        self.customer_email.setObjectName("customerEmail")
        self.customer_document = QLineEdit(self)
        self.customer_document.setObjectName("customerDocument")
        self.customer_document.setPlaceholderText(self.tr("CPF or CNPJ"))
        self.customer_phone = QLineEdit(self)
        self.customer_phone.setObjectName("customerPhone")
        self.customer_phone.setMaxLength(20)
        self.customer_phone.setPlaceholderText("(11) 98765-4321")
        self.phone_required = True
        """Whether a sale needs the customer's phone (the profile says)."""
        # Customers charged before, offered by CPF/CNPJ as it is typed (the store's recent
        # customers): picking one fills the name, e-mail and phone.
        self._recent: dict[str, CustomerRecord] = {}
        self._recent_model = QStandardItemModel(self)
        self.customer_completer = QCompleter(self._recent_model, self)
        self.customer_completer.setCompletionRole(Qt.ItemDataRole.EditRole)
        self.customer_completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.customer_document.setCompleter(self.customer_completer)
        # The index (not the text) of the chosen customer: the popup shows name and CPF.
        self.customer_completer.activated[QModelIndex].connect(  # type: ignore[index]
            self._recent_chosen
        )
        self.customer_document.editingFinished.connect(self._document_finished)
        self.holder_is_customer = QCheckBox(self.tr("Card &holder is the customer"), self)
        self.holder_is_customer.setObjectName("holderIsCustomer")
        self.holder_is_customer.setChecked(True)
        self._card_terms = True
        """Whether the card-only terms (installments, late capture, the holder, the billing
        address) apply: not while a PicPay or PIX QR is the tender."""
        self.holder_is_customer.setToolTip(
            self.tr(
                "Fill the card's holder name and CPF/CNPJ from the customer (untick when "
                "someone else's card pays)."
            )
        )
        self.email_required = False
        """Whether a sale needs the customer's e-mail (the profile says; optional otherwise)."""
        self.cnpj_refused = False
        """The service refused a CNPJ as the customer's document: a CPF is asked for."""
        self.customer_email.setPlaceholderText(self.tr("optional"))
        customer_box = QGroupBox(self.tr("Customer"), self)
        customer = QFormLayout(customer_box)
        # CPF first: a known customer's CPF fills the rest; the optional e-mail last.
        customer.addRow(self.tr("CP&F/CNPJ"), self.customer_document)
        customer.addRow(self.tr("&Name"), self.customer_name)
        customer.addRow(self.tr("&Phone"), self.customer_phone)
        customer.addRow(self.tr("&E-mail"), self.customer_email)
        customer.addRow("", self.holder_is_customer)

        self.address_box = QGroupBox(self.tr("Billing address"), self)
        self.address_box.setObjectName("billingAddress")
        self.address_box.setCheckable(True)
        self.address_box.setChecked(False)
        self.cep = QLineEdit(self)
        self.cep.setObjectName("cep")
        self.cep.setPlaceholderText("01310-100")
        self.cep.setMaxLength(9)
        self.street = QLineEdit(self)
        self.street.setObjectName("street")
        self.number = QLineEdit(self)
        self.number.setObjectName("streetNumber")
        self.number.setMaxLength(20)
        self.complement = QLineEdit(self)
        self.complement.setObjectName("complement")
        self.neighborhood = QLineEdit(self)
        self.neighborhood.setObjectName("neighborhood")
        self.city = QLineEdit(self)
        self.city.setObjectName("city")
        self.uf = QComboBox(self)
        self.uf.setObjectName("uf")
        self.uf.addItem("", "")
        for code in sorted(documents.UFS):
            self.uf.addItem(code, code)
        address = QFormLayout(self.address_box)
        address.addRow(self.tr("CEP"), self.cep)
        address.addRow(self.tr("Street"), self.street)
        number_row = QHBoxLayout()
        number_row.addWidget(self.number, 1)
        number_row.addWidget(QLabel(self.tr("Complement"), self.address_box))
        number_row.addWidget(self.complement, 2)
        address.addRow(self.tr("Number"), number_row)
        address.addRow(self.tr("Neighborhood"), self.neighborhood)
        city_row = QHBoxLayout()
        city_row.addWidget(self.city, 3)
        city_row.addWidget(QLabel(self.tr("UF"), self.address_box))
        city_row.addWidget(self.uf, 1)
        address.addRow(self.tr("City"), city_row)

        self.errors = QLabel(self)
        self.errors.setObjectName("formErrors")
        self.errors.setWordWrap(True)
        self.errors.setStyleSheet("color: #b3261e;")
        self.errors.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(sale_box)
        layout.addWidget(customer_box)
        layout.addWidget(self.address_box)
        layout.addWidget(self.errors)
        layout.addStretch(1)

        self.amount.value_changed.connect(self._update_hint)
        self.installments.valueChanged.connect(self._update_hint)
        self.amount.rejected.connect(self.errors.setText)
        self.amount.large_amount.connect(self._show_large_amount)
        # The customer and address fields: each edit is a change, and a new sale clears them.
        self._sale_texts = (
            self.customer_name,
            self.customer_email,
            self.customer_document,
            self.customer_phone,
            self.cep,
            self.street,
            self.number,
            self.complement,
            self.neighborhood,
            self.city,
        )
        for edit in (self.soft_descriptor, *self._sale_texts):
            edit.textChanged.connect(self._changed)
        self.amount.value_changed.connect(self._changed)
        self.installments.valueChanged.connect(self._changed)
        self.uf.currentIndexChanged.connect(self._changed)
        self.address_box.toggled.connect(self._changed)
        self.late_capture.toggled.connect(self._changed)
        for edit in (self.customer_name, self.customer_document):
            edit.textChanged.connect(self._emit_holder)
        self.holder_is_customer.toggled.connect(self._emit_holder)
        # Enter in a customer field: on to the card (one key, where Tab would walk through
        # the descriptor and the address first).
        self.customer_document.returnPressed.connect(self._document_entered)
        for edit in (self.customer_name, self.customer_email, self.customer_phone):
            edit.returnPressed.connect(self.to_card.emit)
        # A whole CPF and a whole phone move on by themselves, as the card page's fields do.
        self._document_may_go_on = False
        """The caret left a CPF/CNPJ after 11 digits: a digit typed next belongs to a CNPJ."""
        self.customer_document.textEdited.connect(self._document_typed)
        self.customer_name.textEdited.connect(self._name_typed)
        self.customer_name.editingFinished.connect(self._name_left)
        self.customer_phone.textEdited.connect(self._phone_typed)
        # A digit that no more installments could follow (3 of at most 12): on to the customer.
        self.installments.lineEdit().textEdited.connect(self._installments_typed)
        # The clerk's path: amount, installments, then the customer (CPF first); the rarely
        # changed descriptor after them.
        chain = (
            self.amount,
            self.installments,
            self.customer_document,
            self.customer_name,
            self.customer_phone,
            self.customer_email,
            self.holder_is_customer,
            self.soft_descriptor,
            self.late_capture,
            self.address_box,
        )
        for first, second in itertools.pairwise(chain):
            QWidget.setTabOrder(first, second)
        give_labels_room(self)
        self._update_hint()

    def set_phone_required(self, required: bool) -> None:
        """Whether a sale needs the customer's phone (the profile's setting)."""
        self.phone_required = required
        self.customer_phone.setPlaceholderText(
            "(11) 98765-4321" if required else self.tr("(11) 98765-4321 — optional")
        )
        self._changed()

    def set_email_required(self, required: bool) -> None:
        """Whether this profile's service needs the customer's e-mail (optional otherwise)."""
        self.email_required = required
        self.customer_email.setPlaceholderText("" if required else self.tr("optional"))
        self._changed()

    def set_cnpj_refused(self, refused: bool) -> None:
        """Whether this profile's service refuses a CNPJ as the customer's document."""
        self.cnpj_refused = refused
        self._changed()

    def sends_cnpj(self) -> bool:
        """Whether the customer's document typed is a valid CNPJ."""
        try:
            kind, _number = documents.validate_tax_document(self.customer_document.text())
        except documents.DocumentError:
            return False
        return kind == "CNPJ"

    def _installments_typed(self, text: str) -> None:
        digits = documents.digits_only(text)
        if digits and int(digits) * 10 > self.installments.maximum():
            self.installments.interpretText()
            self.customer_document.setFocus(Qt.FocusReason.TabFocusReason)

    # -- the customer ------------------------------------------------------------------------

    def set_recent_customers(self, customers: list[CustomerRecord]) -> None:
        """The customers offered as a CPF/CNPJ is typed, newest first."""
        self._recent = {c.document: c for c in customers}
        self._recent_model.clear()
        for record in customers:
            item = QStandardItem()
            item.setData(record.document, Qt.ItemDataRole.EditRole)
            item.setData(
                f"{_shown_document(record.document)}  {record.name}", Qt.ItemDataRole.DisplayRole
            )
            self._recent_model.appendRow(item)

    def _recent_chosen(self, index: QModelIndex) -> None:
        record = self._recent.get(str(index.data(Qt.ItemDataRole.EditRole)))
        if record is None:
            return
        self.customer_document.setText(record.document)
        self.fill_customer(record)
        self.to_card.emit()

    def _document_entered(self) -> None:
        # Enter after the first digits of one recent customer's CPF: that customer.
        typed = documents.digits_only(self.customer_document.text())
        matches = [c for d, c in self._recent.items() if typed and d.startswith(typed)]
        if len(matches) == 1 and not self.customer_name.text().strip():
            self.customer_document.setText(matches[0].document)
            self.fill_customer(matches[0])
        self.to_card.emit()

    def next_needed(self) -> QLineEdit | None:
        """The first customer field this sale still needs; None when the card comes next."""
        if not self.customer_name.text().strip():
            return self.customer_name
        if self.phone_required and not self.customer_phone.text().strip():
            return self.customer_phone
        if self.email_required and not self.customer_email.text().strip():
            return self.customer_email
        return None

    def _hide_recent(self) -> None:
        popup = self.customer_completer.popup()
        if popup is not None and popup.isVisible():
            popup.hide()

    def _move_on(self) -> None:
        self._hide_recent()
        field = self.next_needed()
        if field is None:
            self.to_card.emit()
        else:
            field.setFocus(Qt.FocusReason.TabFocusReason)

    def _document_typed(self, text: str) -> None:
        # The 11th digit of a valid CPF, typed at the end: a known customer fills the rest and
        # the card is next; a new one's name is. Anything else waits for Tab or Enter.
        self._document_may_go_on = False
        if self.customer_document.cursorPosition() != len(text):
            return
        if not documents.cpf_typed_in_full(text):
            return
        # The text stays as typed: setting it here (to show the CPF's dots) would bring the
        # recent customers' list back after this key, and an open list takes the card's keys.
        record = self._recent.get(documents.digits_only(text))
        if record is not None and not self.customer_name.text().strip():
            self.fill_customer(record)
            self._move_on()
        elif not self.customer_name.text().strip():
            self._document_may_go_on = True
            self._hide_recent()
            self.customer_name.setFocus(Qt.FocusReason.TabFocusReason)

    def _name_typed(self, text: str) -> None:
        going_on, self._document_may_go_on = self._document_may_go_on, False
        if going_on and len(text) == 1 and text.isdigit():
            # A CNPJ whose first 11 digits make a valid CPF: its 12th digit, back where it
            # belongs, and the caret with it.
            self.customer_name.clear()
            self.customer_document.setFocus(Qt.FocusReason.OtherFocusReason)
            self.customer_document.end(False)
            self.customer_document.insert(text)

    def _name_left(self) -> None:
        self._document_may_go_on = False

    def _phone_typed(self, text: str) -> None:
        if self.customer_phone.cursorPosition() == len(text) and documents.phone_typed_in_full(
            text
        ):
            # Shown as a phone is written, for the clerk to read back (no list here).
            self.customer_phone.setText(_shown_phone(documents.digits_only(text)))
            self._move_on()

    def _document_finished(self) -> None:
        # A known customer's CPF typed in full: the rest comes from the last sale.
        record = self._recent.get(documents.digits_only(self.customer_document.text()))
        if record is not None and not self.customer_name.text().strip():
            self.fill_customer(record)

    def fill_customer(self, record: CustomerRecord) -> None:
        """The name, e-mail and phone of a customer charged before (empty fields only, but the
        name)."""
        self.customer_name.setText(record.name)
        if record.email and not self.customer_email.text().strip():
            self.customer_email.setText(record.email)
        if record.phone and not self.customer_phone.text().strip():
            self.customer_phone.setText(_shown_phone(record.phone))

    def holder(self) -> tuple[str, str]:
        """What the card's holder fields take: the customer, while the box is ticked."""
        if not self.holder_is_customer.isChecked():
            return "", ""
        name = " ".join(self.customer_name.text().split())
        return name, documents.digits_only(self.customer_document.text())

    def _emit_holder(self, *_args: object) -> None:
        self.holder_changed.emit(*self.holder())

    def set_large_amount_warning(self, centavos: int | None) -> None:
        """Flag sale amounts above this (None or 0: never), from the shop's settings."""
        self.amount.set_warning_limit(centavos or None)
        self._show_large_amount(self.amount.is_large())

    def _show_large_amount(self, large: bool) -> None:
        if large:
            self.large_amount.setText(
                self.tr("Large amount: check it with the customer before charging.")
            )
        self.large_amount.setVisible(large)

    def _changed(self, *_args: object) -> None:
        self.changed.emit()

    def _update_hint(self, *_args: object) -> None:
        amount = self.amount.centavos()
        count = self.installments.value()
        if count == 1:
            self.installment_hint.setText(self.tr("single payment"))
            return
        too_many = self._too_many_installments(amount, count)
        if too_many is not None:
            self.installment_hint.setText(too_many)
            return
        # No amount yet: the count alone (a split of R$ 0,00 would say nothing true).
        split = installments_text(amount, count) if amount > 0 else f"{count}x"
        self.installment_hint.setText(self.tr("{split} (interest-free)").format(split=split))

    def _too_many_installments(self, amount: int, count: int) -> str | None:
        """Why `amount` cannot be split into `count` installments (None: it can, or no amount
        is typed yet)."""
        most = most_installments(amount)
        if amount <= 0 or count <= most:
            return None
        minimum = format_money(MIN_INSTALLMENT)
        if most == 1:
            return self.tr(
                "Installments of at least {minimum}: this amount is charged in a single payment."
            ).format(minimum=minimum)
        return self.tr(
            "Installments of at least {minimum}: this amount takes at most {n}x."
        ).format(minimum=minimum, n=most)

    def reset(self) -> None:
        """Clear everything for the next sale."""
        self.amount.clear_amount()
        self.installments.setValue(1)
        self.soft_descriptor.clear()
        self.late_capture.setChecked(False)
        for edit in self._sale_texts:
            edit.clear()
        self.uf.setCurrentIndex(0)
        self.address_box.setChecked(False)
        self.errors.clear()
        self.holder_is_customer.setChecked(True)
        self.amount.setFocus()

    def _card_only(self) -> tuple[QWidget, ...]:
        return (self.installments, self.late_capture, self.holder_is_customer, self.address_box)

    def set_card_terms(self, applies: bool) -> None:
        """Set the card-only terms aside while a QR is the tender (they neither stop nor shape
        a QR sale), keeping what was typed in them for when a card is chosen again."""
        self._card_terms = applies
        for widget in self._card_only():
            widget.setEnabled(applies and self.amount.isEnabled())
        self._changed()

    def set_enabled_for_editing(self, enabled: bool) -> None:
        """Lock the fields while a charge is in flight, so what is sent is what is shown."""
        for widget in (
            self.amount,
            self.soft_descriptor,
            self.customer_name,
            self.customer_email,
            self.customer_document,
            self.customer_phone,
        ):
            widget.setEnabled(enabled)
        for card_only in self._card_only():
            card_only.setEnabled(enabled and self._card_terms)

    # -- checking ---------------------------------------------------------------------------

    def problems(self) -> list[str]:
        """What stops this sale from being charged, in field order (empty when none)."""
        result = self.draft()
        return result if isinstance(result, list) else []

    def draft(self) -> SaleDraft | list[str]:
        problems: list[str] = []
        amount = self.amount.centavos()
        if amount <= 0:
            problems.append(self.tr("Type the amount."))
        cards = self._card_terms
        count = self.installments.value() if cards else 1
        too_many = self._too_many_installments(amount, count)
        if too_many is not None:
            problems.append(too_many)
        descriptor = self.soft_descriptor.text().strip()
        if descriptor and not _DESCRIPTOR.match(descriptor):
            problems.append(
                self.tr("The descriptor takes only letters without accents, digits and spaces.")
            )
        customer = self._customer(problems)
        address = self._address(problems) if cards and self.address_box.isChecked() else None
        if problems or customer is None:
            return problems
        return SaleDraft(
            amount=amount,
            installments=count,
            installment_type=installment_type(count),
            soft_descriptor=descriptor or None,
            late_capture=cards and self.late_capture.isChecked(),
            customer=customer,
            billing_address=address,
        )

    def _customer(self, problems: list[str]) -> Customer | None:
        name = self.customer_name.text().strip()
        email = self.customer_email.text().strip()
        document_text = self.customer_document.text().strip()
        before = len(problems)
        if not name:
            problems.append(self.tr("Type the customer's name."))
        elif any(not (c.isalnum() or c in " &") for c in name):
            problems.append(
                self.tr("The customer's name takes only letters, digits, spaces and '&'.")
            )
        if (email or self.email_required) and not _EMAIL.match(email):
            problems.append(self.tr("Type a valid e-mail address (name@example.com)."))
        kind: str | None = None
        number = ""
        try:
            kind, number = documents.validate_tax_document(document_text)
        except documents.DocumentError:
            digits = documents.digits_only(document_text)
            if not digits:
                problems.append(self.tr("Type the customer's CPF or CNPJ."))
            elif len(digits) in (11, 14):
                problems.append(
                    self.tr("The CPF/CNPJ check digits do not match; check the number.")
                )
            else:
                problems.append(
                    self.tr("A CPF has 11 digits and a CNPJ 14; this one has {n}.").format(
                        n=len(digits)
                    )
                )
        if kind == "CNPJ" and self.cnpj_refused:
            problems.append(
                self.tr(
                    "This service does not take a CNPJ as the customer's document: type the "
                    "buyer's CPF."
                )
            )
        phone = self._phone(problems)
        if len(problems) > before or kind is None:
            return None
        try:
            return Customer(
                name=name,
                email=email or None,
                documentType=DocumentType(kind),
                document=number,
                phone=phone,
            )
        except ValidationError as exc:
            problems.append(_first_error(exc))
            return None

    def _phone(self, problems: list[str]) -> Phone | None:
        text = self.customer_phone.text().strip()
        if not text:
            if self.phone_required:
                problems.append(self.tr("Type the customer's phone, e.g. (11) 98765-4321."))
            return None
        try:
            area, number = documents.validate_phone(text)
        except documents.DocumentError:
            problems.append(
                self.tr(
                    "Type the phone with its area code: (11) 98765-4321 for a mobile, "
                    "(11) 3333-4444 for a landline."
                )
            )
            return None
        kind = "MOBILE" if len(number) == 9 else "LANDLINE"
        return Phone(countryCode="55", areaCode=area, number=number, type=kind)

    def _address(self, problems: list[str]) -> BillingAddress | None:
        before = len(problems)
        cep = self.cep.text().strip()
        try:
            documents.validate_cep(cep)
        except documents.DocumentError:
            problems.append(self.tr("Type the CEP as 8 digits, e.g. 01310-100."))
        required = (
            (self.street, self.tr("street")),
            (self.number, self.tr("number")),
            (self.neighborhood, self.tr("neighborhood")),
            (self.city, self.tr("city")),
        )
        missing = [label for edit, label in required if not edit.text().strip()]
        if missing:
            problems.append(
                self.tr("The billing address needs: {fields}.").format(fields=", ".join(missing))
            )
        uf = self.uf.currentData()
        if not uf:
            problems.append(self.tr("Choose the state (UF)."))
        if len(problems) > before:
            return None
        try:
            return BillingAddress(
                street=self.street.text(),
                number=self.number.text(),
                neighborhood=self.neighborhood.text(),
                city=self.city.text(),
                state=uf,
                zipCode=cep,
                complement=self.complement.text().strip() or None,
            )
        except ValidationError as exc:
            problems.append(_first_error(exc))
            return None
