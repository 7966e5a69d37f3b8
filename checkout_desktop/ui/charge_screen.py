"""The charge screen: the sale form, the card page, the cards of the sale, one Charge action.

The Charge action cannot fire twice for one sale: it is disabled while a charge is in flight,
guarded by an in-flight flag (a key repeat or a double click lands on a disabled action), and
it asks the charge service whether the sale may be charged at all (an unresolved or paid
attempt blocks it) before anything is sent.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, cast

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from checkout_desktop.charges.authority import PinRefused
from checkout_desktop.charges.sale import SaleDraft
from checkout_desktop.charges.service import (
    ChargeOutcome,
    ChargeService,
    MoneyOperationError,
    MoneyOperationNotStored,
    MoneyOperationRefused,
    NotRecorded,
    SaleBusy,
    StartCheck,
    not_recorded,
)
from checkout_desktop.charges.three_ds import ThreeDsProgress
from checkout_desktop.charges.views import ChargeViews
from checkout_desktop.domain.charge_events import AttemptChanged, ChargeChanged
from checkout_desktop.domain.enums import ChargeStatus, TransactionStatus
from checkout_desktop.domain.qr import QrPhase, qr_phase
from checkout_desktop.domain.reasons import Reason, ReasonCode
from checkout_desktop.domain.records import CARD, PIX, ChargeRecord
from checkout_desktop.domain.shop_events import SharedStoreReachabilityChanged
from checkout_desktop.domain.shown_status import money_status
from checkout_desktop.domain.state import AttemptState
from checkout_desktop.domain.tenders import CardTender, PixTender, WalletTender
from checkout_desktop.domain.three_ds import AuthenticationResult, Challenge, ThreeDsPolicy
from checkout_desktop.domain.wire import ChargeAuthorizationRequest
from checkout_desktop.gateway.errors import GatewayError
from checkout_desktop.ui.adapter import QtEventAdapter
from checkout_desktop.ui.amount_edit import AmountEdit
from checkout_desktop.ui.bridge import CardToken, SdkFailure
from checkout_desktop.ui.card_page import CardPage, sdk_failure_reason
from checkout_desktop.ui.challenge_view import ChallengeView
from checkout_desktop.ui.charge_form import MIN_INSTALLMENT, ChargeForm
from checkout_desktop.ui.customer_display import CustomerView
from checkout_desktop.ui.formatting import format_money
from checkout_desktop.ui.geometry import scrollable
from checkout_desktop.ui.history_model import status_colour
from checkout_desktop.ui.labels import status_label
from checkout_desktop.ui.loop import read
from checkout_desktop.ui.money_texts import money_error_text
from checkout_desktop.ui.qr_panel import QrPanel, QrView, kind_text
from checkout_desktop.ui.reasons import error_text, reason_text
from checkout_desktop.ui.tender_bar import TenderBar

if TYPE_CHECKING:
    from checkout_desktop.store.errors import StoreError

logger = logging.getLogger(__name__)


def describe_card(card: CardTender) -> str:
    return f"{card.brand} •••• {card.last_four} — {card.holder_name}"


# A card whose line also shows the service's own words on why (a refusal).
_REFUSED_TRANSACTIONS = frozenset({TransactionStatus.DENIED, TransactionStatus.ERROR})
_ENDED_UNPAID = (QrPhase.EXPIRED, QrPhase.CANCELED, QrPhase.FAILED)
"""A QR's phases that leave its sale free: nothing was paid and it can no longer be."""

_RECEIPT_STATUSES = frozenset(
    {
        ChargeStatus.PAID,
        ChargeStatus.AUTHORIZED,
        ChargeStatus.PRE_AUTHORIZED,
        ChargeStatus.PARTIAL,
        ChargeStatus.REFUNDED,
        ChargeStatus.CHARGEBACK,
    }
)
_AUTHENTICATION_FAILED = (ReasonCode.TDS_REFUSED, ReasonCode.TDS_ENDED)
"""A card the bank's confirmation kept from being charged: by the settings (3DS could not be
done), or by how the confirmation ended (refused, cancelled, unanswered, sent elsewhere)."""


class ResultView(QWidget):
    """A charge's outcome: status, authorization code, NSU, brand, last four; 3DS when known."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.status = QLabel(self)
        self.status.setObjectName("resultStatus")
        font = self.status.font()
        font.setPointSizeF(font.pointSizeF() * 1.8)
        font.setBold(True)
        self.status.setFont(font)
        self.message = QLabel(self)
        self.message.setObjectName("resultMessage")
        self.message.setWordWrap(True)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.charge = QLabel(self)
        self.charge.setObjectName("resultCharge")
        self.charge.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.three_ds = QLabel(self)
        self.three_ds.setObjectName("resultThreeDs")
        self.cards = QLabel(self)
        self.cards.setObjectName("resultCards")
        self.cards.setTextFormat(Qt.TextFormat.PlainText)
        self.cards.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.print_button = QPushButton(self.tr("&Print receipt"), self)
        self.print_button.setObjectName("printReceipt")
        self.pdf_button = QPushButton(self.tr("Save receipt as P&DF…"), self)
        self.pdf_button.setObjectName("saveReceipt")
        self.retry_button = QPushButton(self.tr("&Try another card"), self)
        self.retry_button.setObjectName("retrySale")
        self.capture_button = QPushButton(self.tr("&Capture now"), self)
        self.capture_button.setObjectName("captureNow")
        self.capture_button.hide()
        self.new_sale_button = QPushButton(self.tr("&New sale (F2)"), self)
        self.new_sale_button.setObjectName("newSale")
        self.amount = QLabel(self)
        self.amount.setObjectName("resultAmount")
        amount_font = self.amount.font()
        amount_font.setPointSizeF(amount_font.pointSizeF() * 1.5)
        self.amount.setFont(amount_font)
        self.preview = QTextBrowser(self)
        self.preview.setObjectName("receiptPreview")
        self.preview.setMaximumWidth(420)
        self.preview.setMinimumWidth(320)
        self.preview_title = QLabel(self.tr("Receipt"), self)
        buttons = QHBoxLayout()
        for button in (self.capture_button, self.print_button, self.pdf_button, self.retry_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        buttons.addWidget(self.new_sale_button)
        details = QVBoxLayout()
        details.addWidget(self.status)
        details.addWidget(self.amount)
        details.addSpacing(8)
        details.addWidget(self.charge)
        details.addWidget(self.cards)
        details.addWidget(self.three_ds)
        details.addSpacing(8)
        details.addWidget(self.message)
        details.addStretch(1)
        receipt = QVBoxLayout()
        receipt.addWidget(self.preview_title)
        receipt.addWidget(self.preview, 1)
        body = QHBoxLayout()
        body.addLayout(details, 1)
        body.addLayout(receipt)
        layout = QVBoxLayout(self)
        layout.addLayout(body, 1)
        layout.addLayout(buttons)
        self.record: ChargeRecord | None = None
        self.sale_amount: int | None = None
        """The sale's amount, shown when no charge record exists (a refused request)."""
        self.receipt_html: Callable[[ChargeRecord], str] | None = None
        """Renders a charge's receipt (set by the window, which knows the merchant)."""
        self._said_for: ChargeStatus | None = None
        """The status the message's words were written for (None while the outcome is unknown)."""

    def show_outcome(self, outcome: ChargeOutcome, record: ChargeRecord | None) -> None:
        self.record = record
        status = record.status if record is not None else outcome.status
        if outcome.attempt == AttemptState.UNKNOWN:
            self.status.setText(self.tr("Outcome unknown — checking"))
            self.status.setStyleSheet("color: #7a5c00;")
        elif outcome.message.code in _AUTHENTICATION_FAILED:
            # The bank's confirmation failed (refused by the bank or the settings, cancelled,
            # unanswered): nothing was charged.
            self.status.setText(self.tr("Authentication failed"))
            self.status.setStyleSheet("color: #b3261e;")
        elif outcome.attempt in (AttemptState.REJECTED, AttemptState.NOT_FOUND):
            self.status.setText(self.tr("Not charged"))
            self.status.setStyleSheet("color: #b3261e;")
        else:
            self._show_status(status if record is None else money_status(record.state))
        # An approval needs no words beyond its status; anything else says why, and a card
        # the service refused says what to do next.
        message = "" if outcome.approved else self._why_text(outcome.message)
        advice = self._refusal_advice(record)
        self.message.setText(f"{message}\n{advice}" if message and advice else message or advice)
        # What these words were written for: a later answer with another status replaces them.
        self._said_for = None if outcome.attempt == AttemptState.UNKNOWN else status
        self.charge.setText(self.tr("Charge {id}").format(id=outcome.merchant_charge_id))
        self._show_details(record)

    def _why_text(self, message: Reason) -> str:
        """A charge that was not made: what that means for the sale first, in plain words, then
        why on its own line (the service's own words stay there, as it sent them)."""
        if message.code == ReasonCode.NOT_CHARGED:
            head = self.tr("Nothing was charged; this sale can be charged again.")
        elif message.code == ReasonCode.NOT_CHARGED_NO_CHARGE:
            head = self.tr(
                "Nothing was charged (the service confirmed it has no such charge); this sale "
                "can be charged again."
            )
        elif message.code == ReasonCode.TDS_REFUSED:
            # The bank's confirmation failed and the settings refuse a card without it.
            head = self.tr("Nothing was charged; this sale can be charged again.")
            how = message.args.get("why")
            why_text = self.tr(
                "3DS authentication {why}, and the settings refuse a card without it"
            ).format(why=reason_text(how) if isinstance(how, Reason) else str(how or ""))
            return head + "\n" + self.tr("Why: {why}").format(why=why_text)
        elif message.code == ReasonCode.TDS_ENDED:
            # Refused, cancelled, unanswered or sent elsewhere: never charged without 3DS then.
            head = self.tr("Nothing was charged; this sale can be charged again.")
            how = message.args.get("why")
            why_text = self.tr("3DS authentication {why}").format(
                why=reason_text(how) if isinstance(how, Reason) else str(how or "")
            )
            return head + "\n" + self.tr("Why: {why}").format(why=why_text)
        else:
            return reason_text(message)
        why = message.args.get("error")
        if isinstance(why, Reason):
            return head + "\n" + self.tr("Why: {why}").format(why=reason_text(why))
        if isinstance(why, str) and why:
            return head + "\n" + self.tr("Why: {why}").format(why=why)
        return head

    def _refusal_advice(self, record: ChargeRecord | None) -> str:
        """What the clerk does after the service refused the card, from what its reply says as
        documented (the charge's status). The service's free text names no documented code, so
        it decides nothing here. (A card whose bank rejected its 3DS confirmation is never
        sent for authorization: that sale ends as an authentication that failed.)"""
        if record is None or record.status != ChargeStatus.DENIED:
            return ""
        return self.tr("The bank refused the card: ask for another card or another way to pay.")

    def offer_retry(self, offered: bool, *, card_refused: bool) -> None:
        """Offer the same sale again: with another card where the card was refused (denied, or
        its bank's authentication failed), as it is where the request was (the service, the
        connection, a field)."""
        self.retry_button.setVisible(offered)
        self.retry_button.setText(
            self.tr("&Try another card") if card_refused else self.tr("Charge &again")
        )

    def add_advice(self, text: str) -> None:
        """What the clerk can do about the outcome, on its own line after why."""
        said = self.message.text()
        self.message.setText(f"{said}\n{text}" if said else text)

    def show_record(self, record: ChargeRecord) -> None:
        """A later update of the charge shown (a notification, a reconciliation)."""
        self.record = record
        status = money_status(record.state)
        if status is not None:
            # A row that holds only a 3DS result (nothing charged) leaves the status the
            # outcome gave ("Authentication failed"), never a blank over it.
            self._show_status(status)
        if status is not None and status != self._said_for:
            # The words said for the status before ("checking", "held on the card") no longer
            # hold: a refused card says what to do, as its own result would have.
            self.message.setText(self._refusal_advice(record))
            self._said_for = status
        self.charge.setText(self.tr("Charge {id}").format(id=record.merchant_charge_id))
        self._show_details(record)

    def _show_status(self, status: ChargeStatus | None) -> None:
        self.status.setText(status_label(None if status is None else str(status)))
        colour = status_colour(None if status is None else str(status))
        self.status.setStyleSheet("" if colour is None else f"color: {colour.name()};")

    def _show_details(self, record: ChargeRecord | None) -> None:
        held = (
            record is not None
            and record.status == ChargeStatus.PRE_AUTHORIZED
            and qr_phase(record.state) is None
        )
        self.capture_button.setVisible(held)
        if held:
            self.message.setText(
                self.tr(
                    "Authorized: the amount is held on the card, not charged yet. Capture it "
                    "to charge it (now, or later from the history)."
                )
            )
        if record is None:
            self.cards.clear()
            self.three_ds.clear()
            self.amount.setText(format_money(self.sale_amount) if self.sale_amount else "")
            self.preview.clear()
            self.preview.hide()
            self.preview_title.hide()
            self.print_button.setEnabled(False)
            self.pdf_button.setEnabled(False)
            return
        # A row that holds only a 3DS result knows no amount: the sale's stays shown.
        amount = record.amount if record.amount is not None else self.sale_amount
        self.amount.setText(format_money(amount))
        lines = []
        for txn in record.state.transactions:
            if txn.qr_code is not None or txn.expires_at is not None:
                # A QR: its kind and amount, and a paid PIX's end-to-end id.
                line = f"{kind_text(txn.payment_type)} · {format_money(txn.amount)}"
                if txn.end_to_end_id:
                    line += " · " + self.tr("end-to-end id {id}").format(id=txn.end_to_end_id)
                lines.append(line)
                continue
            lines.append(
                self.tr("{brand} •••• {last4} · {amount} · auth {auth} · NSU {nsu}").format(
                    brand=txn.brand or "?",
                    last4=txn.last_four or "????",
                    amount=format_money(txn.amount),
                    auth=txn.authorization_code or "—",
                    nsu=txn.nsu or "—",
                )
            )
            if txn.reason and txn.status in _REFUSED_TRANSACTIONS:
                # The service's own words (unaccented, undocumented): a secondary line, said
                # to be the service's, under the card.
                lines.append("    " + self.tr("Service's reply: {words}").format(words=txn.reason))
        self.cards.setText("\n".join(lines))
        if record.three_ds_status:
            label = status_label(record.three_ds_status)
            # A result's label names 3DS itself ('3DS approved'); an unpublished one is prefixed.
            if label == record.three_ds_status:
                label = self.tr("3DS: {status}").format(status=label)
            self.three_ds.setText(label)
        else:
            self.three_ds.clear()
        # A receipt states a settled sale: none while pending, denied or failed.
        has_receipt = money_status(record.state) in _RECEIPT_STATUSES
        if qr_phase(record.state) in (QrPhase.AWAITING, QrPhase.EXPIRED, QrPhase.CANCELED):
            has_receipt = False
        self.print_button.setEnabled(has_receipt)
        self.pdf_button.setEnabled(has_receipt)
        show_preview = has_receipt and self.receipt_html is not None
        self.preview.setVisible(show_preview)
        self.preview_title.setVisible(show_preview)
        if show_preview and self.receipt_html is not None:
            self.preview.setHtml(self.receipt_html(record))


class ChargeScreen(QWidget):
    """One sale at a time; composes the form, the card page and the result view."""

    charge_started = Signal(str)
    """merchantChargeId of a charge request about to be sent."""
    charge_finished = Signal(object)
    """The ChargeOutcome of the request (its status may still change later)."""
    flight_status = Signal(str)
    """The one status shown while a charge runs, each time it changes."""
    receipt_requested = Signal(str, bool)
    """(merchantChargeId, as_pdf): the main window prints or saves the receipt."""
    customer_view_changed = Signal(object)
    """What the customer-facing display shows now (a CustomerView)."""
    email_required_learned = Signal()
    """The service refused a sale for want of the customer's e-mail (the profile keeps it)."""
    cnpj_refused_learned = Signal()
    """The service refused a company customer's CNPJ (the profile keeps it)."""
    qr_cancel_refused_learned = Signal()
    """The service refused to cancel an unpaid QR (the profile keeps it)."""

    def __init__(
        self,
        *,
        service: ChargeService,
        views: ChargeViews,
        card_page: CardPage,
        adapter: QtEventAdapter,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._service = service
        self._views = views
        self.card_page = card_page
        self.sale = service.new_sale()
        self._check = StartCheck(True)
        """Whether the sale may be charged, as last read."""
        self._unchecked: Reason | None = None
        self._reads_forgotten = False
        """Why the store could not say whether the sale may be charged (it does not answer),
        until it says again; shown beside Charge once the clerk tries."""
        self._store_down = False
        """The shop's shared store was last said not to answer (its watch's event)."""
        self._pending_amount: int | None = None
        self._charge_after_token = False
        self._in_flight = False
        self._task: asyncio.Future[ChargeOutcome] | None = None
        self.current_charge: str | None = None
        self._qr_note: tuple[str, str] | None = None
        """(charge, text): why a cancel of a QR found paid was not done; the result keeps
        saying it over the charge's later updates (a late notification)."""
        self.last_outcome: ChargeOutcome | None = None
        # Field problems are listed only once staff have tried to charge, not while typing.
        self._attempted_check = False
        # Whether the clerk tried to charge this sale while a new charge was refused.
        self._busy_tried = False
        self._capturing = False
        self.capture_box: QMessageBox | None = None
        self.three_ds_policy = ThreeDsPolicy()
        """The profile's 3DS policy (set by the window from the settings)."""
        self._three_ds_stage: str | None = None
        self.challenge: ChallengeView | None = None
        """The bank's challenge while the customer answers it."""

        self.form = ChargeForm(self)
        self.offer_recent_customers()

        self.card_list = QListWidget(self)
        self.card_list.setObjectName("saleCards")
        self.card_list.hide()
        self.next_card_amount = AmountEdit(self)
        self.next_card_amount.setObjectName("nextCardAmount")
        self.next_card_amount.setToolTip(
            self.tr("The part of the sale the next card pays (split a sale across cards)")
        )
        self._refused_note: str | None = None
        """The note on a key the next card's amount refused, while it is the news."""
        self.remove_card_button = QPushButton(self.tr("&Remove card"), self)
        self.remove_card_button.setObjectName("removeCard")
        self.card_state = QLabel(self)
        self.card_state.setObjectName("cardState")
        self.card_state.setWordWrap(True)
        cards_box = QGroupBox(self.tr("Cards"), self)
        self.cards_box = cards_box
        cards_layout = QVBoxLayout(cards_box)
        cards_layout.addWidget(self.card_page, 1)
        cards_layout.addWidget(self.card_state)
        # The next card's amount and Remove card share one row: on a 768-line screen every line
        # taken here is taken from the card form above, whose own button must stay in view.
        split_row = QHBoxLayout()
        next_label = QLabel(self.tr("Amount on the next card"), cards_box)
        next_label.setBuddy(self.next_card_amount)
        split_row.addWidget(next_label)
        split_row.addWidget(self.next_card_amount)
        split_row.addStretch(1)
        split_row.addWidget(self.remove_card_button)
        cards_layout.addLayout(split_row)
        cards_layout.addWidget(self.card_list)

        self.charge_button = QPushButton(self)
        self.charge_button.setObjectName("chargeButton")
        self.charge_button.setDefault(True)
        big = self.charge_button.font()
        big.setPointSizeF(big.pointSizeF() * 1.4)
        big.setBold(True)
        self.charge_button.setFont(big)
        self.charge_button.setMinimumHeight(52)
        self.blocked = QLabel(self)
        self.blocked.setObjectName("chargeBlocked")
        self.blocked.setWordWrap(True)
        self.blocked.setStyleSheet("color: #7a5c00;")

        # Wallet and PIX: one QR for the whole sale instead of cards (F5, F6, F7).
        self.tender_bar = TenderBar(self, shortcuts_on=self)
        self.tender_bar.setObjectName("tenderBar")
        self.qr_hint = QLabel(self)
        self.qr_hint.setObjectName("qrHint")
        self.qr_hint.setWordWrap(True)
        self.qr_hint.hide()
        self.qr_panel = QrPanel(self)
        self.pix_expiration_s = 600
        """How long a PIX QR may be paid (Settings)."""
        self._payer: Callable[[str], Awaitable[object]] | None = None
        self._last_customer_view: CustomerView | None = None
        self._new_sale_after_cancel: str | None = None
        """The QR whose cancel the clerk asked for before the next sale: the sale starts once
        the QR is seen ended (never while it may still be paid)."""
        self.new_sale_box: QMessageBox | None = None

        entry = QWidget(self)
        entry_layout = QHBoxLayout(entry)
        entry_layout.setContentsMargins(0, 0, 0, 0)
        left = QVBoxLayout()
        # On a 768-line screen the sale's fields scroll; the Charge button stays in view.
        left.addWidget(scrollable(self.form, entry, keep_width=True), 1)
        entry_layout.addLayout(left, 2)
        right = QVBoxLayout()
        right.addWidget(self.tender_bar)
        right.addWidget(self.qr_hint, 1)
        right.addWidget(cards_box, 1)
        right.addWidget(self.blocked)
        right.addWidget(self.charge_button)
        entry_layout.addLayout(right, 3)

        self.result = ResultView(self)
        self.stack = QStackedWidget(self)
        self.stack.addWidget(entry)
        self.stack.addWidget(self.result)
        self.stack.addWidget(self.qr_panel)
        splitter = QSplitter(self)
        splitter.addWidget(self.stack)
        layout = QVBoxLayout(self)
        layout.addWidget(splitter)

        self.charge_button.clicked.connect(self.charge)
        self.remove_card_button.clicked.connect(self.remove_selected_card)
        self.result.new_sale_button.clicked.connect(self.request_new_sale)
        self.result.retry_button.clicked.connect(self.retry_sale)
        self.result.capture_button.clicked.connect(self.capture_now)
        self.result.print_button.clicked.connect(lambda: self._receipt(as_pdf=False))
        self.result.pdf_button.clicked.connect(lambda: self._receipt(as_pdf=True))
        self.form.changed.connect(self.update_state)
        self.next_card_amount.rejected.connect(self._next_card_refused)
        self.next_card_amount.value_changed.connect(self._next_card_changed)
        self.form.holder_changed.connect(self.card_page.fill_holder)
        self.form.to_card.connect(self._on_to_card)
        self.card_page.token_created.connect(self._on_token)
        self.card_page.sdk_error.connect(self._on_sdk_error)
        self.card_page.submit_refused.connect(self._on_submit_refused)
        self.card_page.ready.connect(self._on_card_ready)
        self.card_page.sdk_unavailable.connect(self._on_card_unavailable)
        self.card_page.credentials_error.connect(self._on_card_unavailable)
        self.tender_bar.changed.connect(self._on_tender)
        self.qr_panel.cancel_requested.connect(self._cancel_qr)
        self.qr_panel.simulate_requested.connect(self._simulate_payment)
        self.qr_panel.new_qr_requested.connect(self.charge)
        self.qr_panel.new_sale_requested.connect(self.request_new_sale)
        self.qr_panel.back_to_sale_requested.connect(self.back_to_sale)
        self.qr_panel.cancel_ended.connect(self._qr_cancel_ended)
        self.qr_panel.receipt_requested.connect(self._show_paid_qr)
        adapter.charge_changed.connect(self._on_charge_changed)
        adapter.attempt_changed.connect(self._on_attempt_changed)
        adapter.shared_store_reachability_changed.connect(self._on_store_reachability)
        # The store closes after the window: the reads it then fails are nobody's news.
        adapter.closed.connect(self._forget_reads)

        # A focused button takes Enter as well as Space (outside a dialog Qt's buttons take
        # Space only): the clerk's Enter on "New sale (F2)" starts the next sale.
        for button in self.findChildren(QPushButton):
            button.setAutoDefault(True)
        QShortcut(QKeySequence("Ctrl+Return"), self, self.charge)
        QShortcut(QKeySequence("Ctrl+Enter"), self, self.charge)
        QShortcut(QKeySequence(Qt.Key.Key_F2), self, self.request_new_sale)
        self.setTabOrder(self.form.amount, self.form.installments)
        # The card page may have become ready before this screen was built (it loads early).
        self._show_card_hint()
        self.update_state()

    # -- sale state -------------------------------------------------------------------------

    @property
    def sale_id(self) -> str:
        return self.sale.sale_id

    @property
    def cards(self) -> list[CardTender]:
        return self.sale.cards

    @property
    def in_flight(self) -> bool:
        return self._in_flight

    def covered(self) -> int:
        return self.sale.covered()

    def remaining(self) -> int:
        return self.sale.remaining(self.form.amount.centavos())

    def update_state(self) -> None:
        """Recompute what the Charge action says and whether it may be pressed.

        Whether the sale may be charged is read from the store; a store that must wait
        (a network database) shows the last answer until the new one comes."""
        sale = self.sale_id

        def checked(check: StartCheck) -> None:
            if sale == self.sale_id:
                self._check = check
                self._unchecked = None
                self._render_state()

        def failed(exc: BaseException) -> None:
            # The last answer stands (a new sale starts with none); Charge asks again.
            if sale == self.sale_id and not self._reads_forgotten:
                self._unchecked = self._unchecked_reason(exc)
                self._render_state()

        if self._store_down:
            # Known down: asking would only wait for the store's timeout to say so.
            self._unchecked = Reason.of(ReasonCode.STORE_UNREACHABLE)
            self._render_state()
            return
        if read(self._views.can_start_charge(sale), checked, failed=failed) is not None:
            self._render_state()

    def _unchecked_reason(self, exc: BaseException) -> Reason:
        """Why a sale could not be checked: the store's own problem (it does not answer, the
        login is refused), as a charge refused for it says."""
        if getattr(exc, "problem", None) is None and not isinstance(exc, OSError):
            logger.error("the sale could not be checked", exc_info=exc)
            return Reason.of(ReasonCode.INTERNAL_ERROR, kind=type(exc).__name__)
        logger.warning("the sale could not be checked: %s", exc)
        return not_recorded(cast("StoreError", exc)).reason

    def _forget_reads(self) -> None:
        self._reads_forgotten = True

    def _on_store_reachability(self, event: SharedStoreReachabilityChanged) -> None:
        self._store_down = not event.reachable
        if event.reachable and not self._in_flight:
            # Charge is usable again at once, its reasons read anew.
            self.update_state()
        if event.reachable and (view := self.waiting_qr()) is not None:
            # Its payment may have been notified, and refused, while the store was down: the
            # service is asked now rather than near the QR's expiry.
            self._ask_about_qr(view.merchant_charge_id)

    def _ask_about_qr(self, mcid: str) -> None:
        """Ask the service how the QR on screen stands (a query: nothing is charged)."""
        task = asyncio.ensure_future(self._service.refresh(mcid))

        def finished(done: asyncio.Future[ChargeRecord]) -> None:
            if done.cancelled() or self._reads_forgotten:
                return
            exc = done.exception()
            if exc is not None:
                # The reconciler asks again later; the panel keeps what it shows.
                logger.warning("QR %s could not be asked about: %s", mcid, exc)
                return
            record = done.result()
            if mcid == self.current_charge and self.stack.currentWidget() is self.qr_panel:
                self._show_qr(record)

        task.add_done_callback(finished)

    def _render_state(self) -> None:
        amount = self.form.amount.centavos()
        remaining = self.remaining()
        self.next_card_amount.set_maximum(remaining)
        if not self._in_flight and self._pending_amount is None:
            self.next_card_amount.set_centavos(remaining)
        if self._in_flight:
            text = self._flight_text()
            if text != self.charge_button.text():
                self.charge_button.setText(text)
                self.flight_status.emit(text)
        else:
            self.charge_button.setText(
                self.tr("C&harge {amount}").format(amount=format_money(amount))
            )
        problems = self.form.problems()
        check = self._check
        qr = self.tender_bar.kind != CARD
        over = not qr and self.covered() > amount
        card_form_missing = not qr and remaining > 0 and not self.card_page.sdk_ready
        thin_card = self._thin_card(remaining) if not qr else None
        self.form.errors.setText("\n".join(problems) if self._attempted_check else "")
        # Why Charge is greyed, beside it. Why a new charge is refused is said only once the
        # clerk tries one: while this sale's own charge runs, or after it was paid, the refusal
        # is expected and is no alarm. Cards above the amount are said at once: the clerk made
        # them so and the button greys with no other sign. The form's own problems are listed
        # in the form, once the clerk tries.
        reasons = []
        if self._unchecked is not None and self._attempted_check:
            reasons.append(reason_text(self._unchecked))
        elif not check and self._busy_tried and check.reason is not None:
            reasons.append(reason_text(check.reason))
        if over:
            reasons.append(self.tr("The cards add up to more than the sale."))
        if thin_card is not None:
            reasons.append(thin_card)
        if card_form_missing and self._attempted_check:
            reasons.append(self.tr("The card form is not ready yet."))
        self.blocked.setText("\n".join(reasons))
        enabled = (
            not self._in_flight
            and bool(check)
            and amount > 0
            and not over
            and not card_form_missing
            and thin_card is None
        )
        self.tender_bar.setEnabled(not self._in_flight)
        self.charge_button.setEnabled(enabled)
        self.remove_card_button.setEnabled(not self._in_flight and bool(self.sale.cards))
        self.form.set_enabled_for_editing(not self._in_flight)
        self._emit_customer_view()

    def _thin_card(self, remaining: int) -> str | None:
        """Why a card of a split sale cannot pay its part in the sale's installments (None: every
        card, and the rest left for the next one, can). Each card is split into the installments
        chosen; the sale's amount alone is checked by the form."""
        count = self.form.installments.value()
        if count == 1 or not self.sale.cards:
            return None
        least = count * MIN_INSTALLMENT
        parts = [card.amount for card in self.sale.cards]
        if remaining > 0:
            parts.append(remaining)
        if all(part >= least for part in parts):
            return None
        return self.tr("In {n}x each card must pay at least {amount}.").format(
            n=count, amount=format_money(least)
        )

    def _render_cards(self) -> None:
        self.card_list.clear()
        cards = self.sale.cards
        for card in cards:
            QListWidgetItem(f"{describe_card(card)} · {format_money(card.amount)}", self.card_list)
        if cards:
            # As tall as its cards (up to three, then it scrolls): the card form above keeps
            # the rest of the height.
            rows = min(len(cards), 3) * self.card_list.sizeHintForRow(0)
            self.card_list.setFixedHeight(rows + 2 * self.card_list.frameWidth())
        self.card_list.setVisible(bool(cards))

    def add_card(self) -> None:
        """Tokenize what is typed in the card form for the amount of the next card."""
        amount = self.next_card_amount.centavos() or self.remaining()
        if amount <= 0:
            return
        if amount > self.remaining():
            self.card_state.setText(
                self.tr("The next card can pay at most {amount}.").format(
                    amount=format_money(self.remaining())
                )
            )
            return
        self._pending_amount = amount
        self.card_state.setText(self.tr("Checking the card…"))
        self.card_page.submit()

    def remove_selected_card(self) -> None:
        row = self.card_list.currentRow()
        if row < 0:
            row = len(self.sale.cards) - 1
        if 0 <= row < len(self.sale.cards):
            card = self.sale.cards[row]
            self.sale.remove(row)
            self._render_cards()
            if self.sale.cards:
                self.card_state.setText(
                    self.tr("{brand} •••• {last4} removed.").format(
                        brand=card.brand, last4=card.last_four
                    )
                )
            else:
                # No card left: the note on the last one added goes, the hint comes back.
                self._show_card_hint()
            self.update_state()

    def _next_card_refused(self, why: str) -> None:
        # Beside the field: the clerk sees why the key did nothing.
        self._refused_note = why
        self.card_state.setText(why)

    def _next_card_changed(self, _value: object) -> None:
        # A key taken again: the refusal is no longer the news, the hint comes back.
        if self._refused_note is not None and self.card_state.text() == self._refused_note:
            self._show_card_hint()
        self._refused_note = None

    def _on_token(self, token: CardToken) -> None:
        # The page's own button tokenizes too: then the amount field says what this card pays.
        typed = min(self.next_card_amount.centavos(), self.remaining())
        amount = self._pending_amount if self._pending_amount is not None else typed
        if amount <= 0:
            amount = self.remaining()
        self._pending_amount = None
        if amount <= 0:
            logger.warning("a card token arrived with nothing left to pay; it is not used")
            self.card_state.setText(self.tr("The sale is already covered by the cards above."))
            self._charge_after_token = False
            self.update_state()
            return
        self.sale.add(
            CardTender(
                token=token.token,
                brand=token.brand.value,
                last_four=token.last_four,
                holder_name=token.holder_name,
                amount=amount,
            )
        )
        self._render_cards()
        self.card_state.setText(
            self.tr("{brand} •••• {last4} added.").format(
                brand=token.brand.value, last4=token.last_four
            )
        )
        self.update_state()
        if self._charge_after_token:
            self._charge_after_token = False
            if self.remaining() == 0:
                self.charge()

    def _on_sdk_error(self, failure: SdkFailure) -> None:
        self._pending_amount = None
        self._charge_after_token = False
        # The service's own words are shown on the card page, next to the field they concern.
        messages = "; ".join(entry.message for entry in failure.errors) or failure.stage
        logger.info("the card was not accepted (%s): %s", failure.stage, messages)
        self.card_state.setText(
            self.tr("The card was not accepted: {why}").format(
                why=reason_text(sdk_failure_reason(failure))
            )
        )
        self.update_state()

    def _on_submit_refused(self, step: str) -> None:
        """The card form ended a submit itself: no token comes of it, nothing was charged."""
        if step == "busy":
            # A card is being read already; that reading ends in a token or a failure.
            logger.info("the card form is still reading the card")
            return
        armed = self._drop_pending_card()
        logger.info(
            "the card form refused the card (%s)%s",
            step,
            "; the charge waiting for it was dropped" if armed else "",
        )
        if step == "sdk":
            text = self.tr("The card form is not ready yet.")
        elif step in ("fields", "brand"):
            text = self.tr("Correct the fields marked in the card form.")
        else:
            why = ReasonCode.SDK_CREDENTIALS if step == "credentials" else ReasonCode.SDK_TOKEN
            text = self.tr("The card was not accepted: {why}").format(
                why=reason_text(Reason.of(why))
            )
        if armed:
            # Charge was pressed for this card: it will not go through by itself later.
            text += " " + self.tr("Nothing was charged; press Charge again once the card is right.")
        self.card_state.setText(text)
        self.update_state()

    def _drop_pending_card(self) -> bool:
        """Forget the card being read: its amount, and a charge waiting for it (said if so)."""
        armed = self._charge_after_token
        self._pending_amount = None
        self._charge_after_token = False
        return armed

    def _on_card_ready(self) -> None:
        # A (re)loaded page starts empty: a card it was reading is gone, and with it any charge
        # waiting for that card.
        self._drop_pending_card()
        # It takes the holder again.
        self.card_page.fill_holder(*self.form.holder())
        self._show_card_hint()
        self.update_state()

    def _show_card_hint(self) -> None:
        if not self.card_page.sdk_ready:
            self.card_state.setText(self.tr("Loading the card form…"))
            return
        self.card_state.setText(
            self.tr(
                "Type the card, then Charge (Ctrl+Enter). To split the sale, set the amount on "
                "this card and add it with the card form's button first."
            )
        )

    def _on_card_unavailable(self, reason: Reason) -> None:
        # The card being read (if any) gives no token: Charge must be pressed again.
        self._drop_pending_card()
        self.card_state.setText(
            self.tr("The card form is unavailable: {why}").format(why=reason_text(reason))
        )
        self.update_state()

    # -- charging ---------------------------------------------------------------------------

    def charge(self) -> None:
        """The single Charge action."""
        if self._in_flight:
            return
        sale = self.sale_id
        if self._store_down:
            # Known down (its watch said so): refused at once, nothing asked and nothing sent;
            # Charge works again once the store answers.
            self._unchecked = Reason.of(ReasonCode.STORE_UNREACHABLE)
            self._attempted_check = True
            self._render_state()
            return
        read(
            self._views.can_start_charge(sale),
            lambda check: self._charge_checked(sale, check),
            failed=lambda exc: self._charge_unchecked(sale, exc),
        )

    def _charge_unchecked(self, sale: str, exc: BaseException) -> None:
        """The store did not answer whether the sale may be charged: nothing is sent, and the
        clerk is told why beside Charge (which stays usable: pressing it asks again)."""
        if sale != self.sale_id or self._in_flight or self._reads_forgotten:
            return
        self._unchecked = self._unchecked_reason(exc)
        self._attempted_check = True
        self._render_state()

    def _charge_checked(self, sale: str, check: StartCheck) -> None:
        if sale != self.sale_id or self._in_flight:
            return
        self._check = check
        self._unchecked = None
        # The button may be disabled, but Ctrl+Enter (or a stale click) still deserves an answer:
        # from now on the reasons are shown.
        self._attempted_check = True
        if not check:
            self._busy_tried = True
            self.update_state()
            return
        self.update_state()
        if not self.charge_button.isEnabled():
            return
        draft = self.form.draft()
        if isinstance(draft, list):
            self.update_state()
            self.form.errors.setText("\n".join(draft))
            return
        if self.tender_bar.kind != CARD:
            self._start_qr(draft)
            return
        if self.remaining() > 0:
            # No card (or not enough) yet: tokenize the typed card for the rest, then charge.
            self._charge_after_token = True
            self.add_card()
            return
        # The sale was checked above in this same call (and the service refuses a busy sale
        # again, durably, when the charge is recorded).
        self._start(draft)

    def _start(self, draft: SaleDraft) -> None:
        attempt = self.sale.next_attempt(draft)
        mcid = attempt.merchant_charge_id
        policy = self.three_ds_policy
        # 3DS authenticates a card: a wallet or PIX QR never goes through it.
        card = attempt.request if isinstance(attempt.request, ChargeAuthorizationRequest) else None
        three_ds = card is not None and policy.applies(card.total_amount, len(attempt.tenders))
        self._in_flight = True
        self.current_charge = mcid
        # The first status shown says what happens first: authentication, or the charge.
        self._three_ds_stage = "authenticating" if three_ds else None
        self.update_state()
        self.charge_started.emit(mcid)
        if card is not None and three_ds:
            self._task = asyncio.ensure_future(
                self._service.three_ds.charge(
                    sale_id=attempt.sale_id,
                    request=card,
                    tenders=list(attempt.tenders),
                    browser=self.card_page.browser_info(),
                    fallback=policy.fallback,
                    on_progress=self._on_three_ds,
                )
            )
        else:
            self._task = asyncio.ensure_future(
                self._service.charge(
                    sale_id=attempt.sale_id, request=attempt.request, tenders=attempt.tenders
                )
            )
        self._task.add_done_callback(self._finished)

    def _flight_text(self) -> str:
        """The one status shown while a charge runs (3DS stages first, then charging)."""
        if self._three_ds_stage == "authenticating":
            return self.tr("Authenticating…")
        if self._three_ds_stage == "challenge":
            return self.tr("Waiting for the customer at the bank…")
        return self.tr("Charging…")

    def _on_three_ds(self, progress: ThreeDsProgress) -> None:
        if progress.merchant_charge_id != self.current_charge:
            return
        self._three_ds_stage = progress.stage
        if progress.stage == "challenge" and progress.challenge is not None:
            self._show_challenge(progress.challenge)
        else:
            self._close_challenge()
        self._render_state()

    def _show_challenge(self, challenge: Challenge) -> None:
        self._close_challenge()
        view = ChallengeView(challenge, self)
        view.cancelled.connect(self._service.three_ds.cancel_challenge)
        # Closed by the clerk: forgotten at once, so nothing later touches a deleted view.
        view.cancelled.connect(self._forget_challenge)
        # The bank's page tried to send the customer elsewhere: ended, never charged.
        view.navigated_away.connect(self._challenge_left)
        self.challenge = view
        view.start()

    def _challenge_left(self, mcid: str) -> None:
        self._service.three_ds.end_challenge(mcid, AuthenticationResult.NAVIGATION_REFUSED)
        self._forget_challenge()

    def _forget_challenge(self, _mcid: str = "") -> None:
        self.challenge = None

    def _close_challenge(self) -> None:
        view, self.challenge = self.challenge, None
        if view is not None:
            view.close_view()

    def _finished(self, task: asyncio.Future[ChargeOutcome]) -> None:
        self._in_flight = False
        self._three_ds_stage = None
        self._close_challenge()
        # A temporary card token is single use: whatever happened, these cards are spent.
        self.sale.clear()
        self._render_cards()
        if task.cancelled():
            self.update_state()
            return
        exc = task.exception()
        if exc is not None:
            mcid = self.current_charge or ""
            if isinstance(exc, SaleBusy | NotRecorded):
                message = exc.reason
            elif isinstance(exc, GatewayError):
                message = Reason.of(ReasonCode.NOT_CHARGED, error=exc.reason)
            else:
                logger.error("the charge failed unexpectedly", exc_info=exc)
                message = Reason.of(ReasonCode.INTERNAL_ERROR, kind=type(exc).__name__)
            outcome = ChargeOutcome(mcid, self.sale_id, AttemptState.REJECTED, None, message)
        else:
            outcome = task.result()
        self.last_outcome = outcome
        record = outcome.record
        if not self.form.email_required and outcome.message.mentions(
            ReasonCode.CUSTOMER_EMAIL_REQUIRED
        ):
            # From now on the form asks for it before the sale goes out, not after a refusal.
            self.form.set_email_required(True)
            self.email_required_learned.emit()
        cnpj_refused = self.form.sends_cnpj() and outcome.message.mentions(
            ReasonCode.CUSTOMER_DOCUMENT_REFUSED
        )
        if cnpj_refused and not self.form.cnpj_refused:
            # From now on the form asks for a CPF before the sale goes out.
            self.form.set_cnpj_refused(True)
            self.cnpj_refused_learned.emit()
        self.result.sale_amount = self.form.amount.centavos()
        if record is not None and qr_phase(record.state) is not None:
            self._show_qr(record)
            self.update_state()
            self.charge_finished.emit(outcome)
            return
        self.result.show_outcome(outcome, record)
        if outcome.message.mentions(ReasonCode.TDS_NEEDS_CARD_DATA):
            self.result.add_advice(
                self.tr(
                    "Every card would fail the same way: turn 3DS off, or let a card be charged "
                    "without it, in Settings."
                )
            )
        if cnpj_refused:
            self.result.add_advice(
                self.tr(
                    "This service does not take a CNPJ as the customer's document: charge again "
                    "with the buyer's CPF."
                )
            )
        denied = record is not None and record.status in (ChargeStatus.DENIED, ChargeStatus.ERROR)
        retry = outcome.attempt in (AttemptState.REJECTED, AttemptState.NOT_FOUND) or denied
        self.result.offer_retry(
            retry,
            card_refused=denied or any(outcome.message.mentions(c) for c in _AUTHENTICATION_FAILED),
        )
        self.stack.setCurrentWidget(self.result)
        self.result.new_sale_button.setFocus()
        self.update_state()
        self.charge_finished.emit(outcome)

    def _on_charge_changed(self, event: ChargeChanged) -> None:
        if event.merchant_charge_id != self.current_charge or self._in_flight:
            self.update_state()
            return
        mcid = event.merchant_charge_id

        def show(record: ChargeRecord | None) -> None:
            if (
                record is not None
                and mcid == self.current_charge
                and qr_phase(record.state) is not None
                and self.stack.currentWidget() in (self.result, self.qr_panel)
            ):
                self._show_qr(record)
            elif (
                record is not None
                and mcid == self.current_charge
                and self.stack.currentWidget() is self.result
            ):
                self.result.show_record(record)
                if record.status is not None:
                    # Without a charge status (a 3DS result alone) the offer stays as it was.
                    retry = record.status in (ChargeStatus.DENIED, ChargeStatus.ERROR)
                    self.result.offer_retry(retry, card_refused=True)
            self.update_state()

        read(self._views.charge(mcid), show)

    def _on_attempt_changed(self, event: AttemptChanged) -> None:
        if event.sale_id == self.sale_id:
            self.update_state()

    def capture_now(self) -> None:
        """Capture the pre-authorized charge on the result screen, after the clerk confirms."""
        record = self.result.record
        if record is None or record.status != ChargeStatus.PRE_AUTHORIZED or self._capturing:
            return
        box = QMessageBox(self)
        box.setObjectName("confirmCapture")
        box.setIcon(QMessageBox.Icon.Question)
        box.setWindowTitle(self.tr("Capture"))
        box.setText(
            self.tr("Charge {amount} to the card now?").format(amount=format_money(record.amount))
        )
        box.setStandardButtons(QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No)
        # The button says what it does and how much, as the History's capture does.
        box.button(QMessageBox.StandardButton.Yes).setText(
            self.tr("Capture {amount}").format(amount=format_money(record.amount))
        )
        mcid = record.merchant_charge_id
        box.accepted.connect(lambda: self._capture(mcid))
        self.capture_box = box
        box.open()

    def _capture(self, mcid: str) -> None:
        self._capturing = True
        self.result.capture_button.setEnabled(False)
        self.result.message.setText(self.tr("Capturing…"))
        task = asyncio.ensure_future(self._service.capture(mcid))

        def finished(done: asyncio.Future[ChargeRecord]) -> None:
            self._capturing = False
            self.result.capture_button.setEnabled(True)
            if done.cancelled():
                return
            exc = done.exception()

            def show(latest: ChargeRecord | None) -> None:
                if latest is not None and self.current_charge == mcid:
                    self.result.show_record(latest)
                # The store's own words (English, naming the database) only in the tooltip.
                self.result.message.setToolTip(
                    str(exc) if isinstance(exc, MoneyOperationNotStored) else ""
                )
                if isinstance(exc, MoneyOperationError):
                    self.result.message.setText(money_error_text(exc))
                elif exc is not None:
                    if not isinstance(exc, GatewayError):
                        logger.error("capture of %s failed", mcid, exc_info=exc)
                    self.result.message.setText(
                        self.tr("The capture failed: {why}").format(why=error_text(exc))
                    )

            def unread(failure: BaseException) -> None:
                # The charge as the store has it now could not be read: what the capture came
                # to is said all the same, over the charge as last shown.
                logger.warning("the captured charge %s could not be read: %s", mcid, failure)
                show(None)
                if exc is None and self.current_charge == mcid:
                    self.result.message.setText(
                        self.tr(
                            "Captured. The store does not answer just now, so this screen "
                            "still shows the charge as it was; the history shows it once the "
                            "store answers."
                        )
                    )

            read(self._views.charge(mcid), show, failed=unread)

        task.add_done_callback(finished)

    def retry_sale(self) -> None:
        """Back to the same sale (after a denial or a refusal): same amount, new card."""
        self.sale.clear()
        self._render_cards()
        self.card_page.clear()
        # The cards of the refused request were spent with it: the hint, not "… added".
        self._show_card_hint()
        self.stack.setCurrentIndex(0)
        self.update_state()
        self.card_page.setFocus()

    def offer_recent_customers(self) -> None:
        """The customers the CPF/CNPJ field offers, as the store has them now."""
        # Only this environment's: a sandbox's test customers are not offered at a real sale.
        read(
            self._views.recent_customers(profile=self._service.profile),
            self.form.set_recent_customers,
        )

    def waiting_qr(self) -> QrView | None:
        """The QR on screen while the customer may still pay it, else None."""
        view = self.qr_panel.view
        if (
            self.stack.currentWidget() is self.qr_panel
            and view is not None
            and view.phase == QrPhase.AWAITING
        ):
            return view
        return None

    def shows_charge(self, merchant_charge_id: str) -> bool:
        """Whether the charge is the one on screen (its QR or its result)."""
        return self.current_charge == merchant_charge_id and self.stack.currentWidget() in (
            self.qr_panel,
            self.result,
        )

    def request_new_sale(self) -> None:
        """The clerk's New sale (F2 and its buttons): while the QR on screen may still be paid,
        asks first what becomes of it (a customer who then pays by card or cash could pay the
        QR as well)."""
        if self._in_flight:
            return
        view = self.waiting_qr()
        if view is None:
            self.new_sale()
            return
        if self.new_sale_box is not None:
            return
        box = QMessageBox(self)
        box.setObjectName("newSaleQrWaiting")
        box.setIcon(QMessageBox.Icon.Question)
        box.setWindowTitle(self.tr("A QR is still waiting"))
        head = self.tr(
            "The {kind} QR of {amount} is still waiting for the customer's payment."
        ).format(kind=kind_text(view.kind), amount=format_money(view.amount))
        keep = box.addButton(self.tr("&Keep the QR on screen"), QMessageBox.ButtonRole.RejectRole)
        keep.setObjectName("keepQr")
        mcid = view.merchant_charge_id
        if self.qr_panel.cancel_offered:
            box.setText(
                head
                + "\n\n"
                + self.tr("Cancel it before the next sale, so that it cannot be paid as well.")
            )
            go = box.addButton(
                self.tr("&Cancel the QR and start a new sale"), QMessageBox.ButtonRole.AcceptRole
            )
            go.setObjectName("cancelQrNewSale")
            go.clicked.connect(lambda: self._cancel_then_new_sale(mcid))
        else:
            box.setText(head + "\n\n" + self.left_payable_text(view))
            go = box.addButton(self.tr("&Start the new sale"), QMessageBox.ButtonRole.AcceptRole)
            go.setObjectName("newSaleLeaveQr")
            go.clicked.connect(lambda: self._new_sale_leaving(mcid))
        box.setDefaultButton(go)
        box.setEscapeButton(keep)
        box.finished.connect(self._forget_new_sale_box)
        self.new_sale_box = box
        box.open()

    def _forget_new_sale_box(self, _result: int) -> None:
        box, self.new_sale_box = self.new_sale_box, None
        if box is not None:
            box.deleteLater()

    def left_payable_text(self, view: QrView) -> str:
        """What becomes of a QR the service will not cancel, once the screen moves on."""
        if view.expires_at is None:
            return self.tr(
                "This service does not cancel an unpaid QR: it stays payable until it expires. "
                "If the customer pays it, the payment will be announced here; refund it from "
                "the History if the sale was paid another way."
            )
        return self.tr(
            "This service does not cancel an unpaid QR: it stays payable until it expires at "
            "{time}. If the customer pays it, the payment will be announced here; refund it "
            "from the History if the sale was paid another way."
        ).format(time=view.expires_at.astimezone().strftime("%H:%M"))

    def _new_sale_leaving(self, mcid: str) -> None:
        logger.info("new sale while QR %s stays payable until it expires", mcid)
        self.new_sale()

    def _cancel_then_new_sale(self, mcid: str) -> None:
        view = self.waiting_qr()
        if view is None or view.merchant_charge_id != mcid:
            # It ended meanwhile (paid, expired): the screen shows how; the clerk decides again.
            return
        self._new_sale_after_cancel = mcid
        self.qr_panel.request_cancel()

    def _qr_cancel_ended(self, mcid: str) -> None:
        """A cancel's answer is in: the next sale starts if the QR ended, else the QR stays on
        screen with why (refused, or the service could not be reached)."""
        if self._new_sale_after_cancel != mcid:
            return

        def check(record: ChargeRecord | None) -> None:
            if self._new_sale_after_cancel != mcid:
                return
            if record is not None and qr_phase(record.state) in _ENDED_UNPAID:
                self._new_sale_after_cancel = None
                self.new_sale()
            elif record is None or qr_phase(record.state) == QrPhase.AWAITING:
                self._new_sale_after_cancel = None

        read(self._views.charge(mcid), check)

    def back_to_sale(self) -> None:
        """From a QR that ended unpaid back to its sale, as typed: another QR, a card or cash."""
        view = self.qr_panel.view
        if self._in_flight or view is None or view.phase not in _ENDED_UNPAID:
            return
        self.sale.clear()
        self._render_cards()
        self.stack.setCurrentIndex(0)
        self.update_state()
        self._focus_next()

    def _on_to_card(self) -> None:
        """The customer's fields are done: the card form next, or Charge for a QR."""
        if self.tender_bar.kind == CARD:
            self.card_page.focus_number()
        else:
            self._focus_next()

    def _focus_next(self) -> None:
        """The focus on the first field the sale still needs, else on Charge."""
        field = self.form.next_needed()
        if field is not None:
            field.setFocus(Qt.FocusReason.TabFocusReason)
        elif self.charge_button.isEnabled():
            self.charge_button.setFocus(Qt.FocusReason.TabFocusReason)
        else:
            self.form.amount.setFocus(Qt.FocusReason.TabFocusReason)

    def new_sale(self) -> None:
        """Start the next sale at once (refused while a charge is in flight); the clerk's keys
        go through `request_new_sale`, which asks first about a QR still waiting."""
        if self._in_flight:
            return
        self._new_sale_after_cancel = None
        self.sale = self._service.new_sale()
        # Nothing is known of the new sale yet: no reason left over from the last one.
        self._check = StartCheck(True)
        self._unchecked = None
        self._attempted_check = False
        self._busy_tried = False
        self.blocked.clear()
        self.sale.clear()
        self._pending_amount = None
        self._charge_after_token = False
        self.current_charge = None
        self.last_outcome = None
        self._render_cards()
        self.card_page.clear()
        self._show_card_hint()
        self.qr_panel.clear()
        self.form.reset()
        self.offer_recent_customers()
        self.stack.setCurrentIndex(0)
        self.update_state()
        self.form.amount.setFocus()

    # -- wallet and PIX ----------------------------------------------------------------------

    def set_payer(self, payer: Callable[[str], Awaitable[object]] | None) -> None:
        """In the sandbox: what plays the customer paying a QR (the training button)."""
        self._payer = payer
        self.qr_panel.simulation_available = payer is not None

    def _on_tender(self, kind: str) -> None:
        qr = kind != CARD
        view = self.qr_panel.view
        if (
            self.stack.currentWidget() is self.qr_panel
            and view is not None
            and view.phase in _ENDED_UNPAID
        ):
            # The QR ended unpaid: another tender chosen goes back to the sale, as typed.
            self.stack.setCurrentIndex(0)
        focused = self.focusWidget()
        card_focused = focused is not None and self.cards_box.isAncestorOf(focused)
        if qr and self.sale.cards:
            # One QR pays the whole sale alone; the cards added are not used.
            self.sale.clear()
            self._render_cards()
        self.cards_box.setVisible(not qr)
        self.form.set_card_terms(not qr)
        self.qr_hint.setVisible(qr)
        if kind == PIX:
            self.qr_hint.setText(
                self.tr(
                    "PIX: Charge shows a QR for the whole amount. The customer pays it in any "
                    "bank's app within {minutes} minutes."
                ).format(minutes=self.pix_expiration_s // 60)
            )
        elif qr:
            self.qr_hint.setText(
                self.tr(
                    "PicPay: Charge shows a QR for the whole amount. The customer pays it in "
                    "the PicPay app."
                )
            )
        self.update_state()
        if qr and (card_focused or (self.stack.currentIndex() == 0 and not self._focus_shown())):
            # The card form hides: the focus comes back to the sale, not to the tab bar.
            self._focus_next()

    def _focus_shown(self) -> bool:
        focused = self.focusWidget()
        return focused is not None and focused.isVisible() and self.isAncestorOf(focused)

    def _start_qr(self, draft: SaleDraft) -> None:
        self.sale.clear()
        if self.tender_bar.kind == PIX:
            self.sale.add(PixTender(draft.amount, self.pix_expiration_s))
        else:
            self.sale.add(WalletTender(draft.amount))
        self._start(draft)

    def _show_qr(self, record: ChargeRecord) -> None:
        """A QR charge on screen: the panel while it waits (or ended unpaid), the result with
        its receipt once paid."""
        view = self.qr_panel.show_record(record)
        if view is None:
            return
        if self.qr_panel.cancelling and view.phase in (QrPhase.PAID, QrPhase.PARTIALLY_REFUNDED):
            # Paid while the clerk's cancel is still out: the panel says "Paid" at once, and
            # the cancel's answer (nothing cancelled, and why) brings the paid result, never a
            # bare one first.
            self._emit_customer_view()
            return
        if self._new_sale_after_cancel == view.merchant_charge_id:
            if view.phase in _ENDED_UNPAID:
                # Cancelled as the clerk asked before the next sale: that sale starts now.
                self._new_sale_after_cancel = None
                self.new_sale()
                return
            if view.phase != QrPhase.AWAITING:
                # Paid meanwhile: the screen says so, and no new sale starts over it.
                self._new_sale_after_cancel = None
        if view.phase in (QrPhase.PAID, QrPhase.PARTIALLY_REFUNDED, QrPhase.REFUNDED):
            self.result.show_record(record)
            self.result.retry_button.setVisible(False)
            note = self._qr_note
            if (
                note is not None
                and note[0] == record.merchant_charge_id
                and note[1] not in self.result.message.text()
            ):
                self.result.add_advice(note[1])
            self.stack.setCurrentWidget(self.result)
        else:
            self.stack.setCurrentWidget(self.qr_panel)
        self._emit_customer_view()

    def _show_paid_qr(self) -> None:
        mcid = self.current_charge
        if mcid is None:
            return

        def show(record: ChargeRecord | None) -> None:
            if record is not None:
                self._show_qr(record)

        read(self._views.charge(mcid), show)

    def _cancel_qr(self, mcid: str) -> None:
        """Cancel an unpaid QR (no PIN: it moves no money). One the service shows paid by
        now is not cancelled: the paid result is shown, saying so."""
        task = asyncio.ensure_future(self._service.cancel_qr(mcid))

        def finished(done: asyncio.Future[ChargeRecord]) -> None:
            self.qr_panel.cancel_finished()
            if done.cancelled():
                return
            exc = done.exception()

            def show(latest: ChargeRecord | None) -> None:
                if isinstance(exc, MoneyOperationRefused) and exc.why.mentions(
                    ReasonCode.QR_CANCEL_REFUSED
                ):
                    # The service only lets an unpaid QR expire: cancel is offered no more.
                    was_offered = self.qr_panel.cancel_offered
                    self.qr_panel.set_cancel_offered(False)
                    if was_offered:
                        self.qr_cancel_refused_learned.emit()
                if (
                    isinstance(exc, MoneyOperationRefused)
                    and exc.figures is not None
                    and not exc.figures.awaiting
                ):
                    # Paid (or ended) before the cancel: nothing was sent; the result says why.
                    self._qr_note = (mcid, money_error_text(exc))
                if latest is not None and self.current_charge == mcid:
                    self._show_qr(latest)
                if isinstance(exc, MoneyOperationError):
                    self.qr_panel.set_note(money_error_text(exc))
                elif exc is not None:
                    if not isinstance(exc, GatewayError | ValueError | LookupError | PinRefused):
                        logger.error("cancel of QR %s failed", mcid, exc_info=exc)
                    self.qr_panel.set_note(
                        self.tr("The QR was not cancelled: {why}").format(why=error_text(exc))
                    )

            read(self._views.charge(mcid), show)

        task.add_done_callback(finished)

    def _simulate_payment(self, mcid: str) -> None:
        payer = self._payer
        if payer is None:
            return
        task = asyncio.ensure_future(payer(mcid))

        def finished(done: asyncio.Future[object]) -> None:
            if done.cancelled():
                return
            exc = done.exception()
            if exc is not None:
                logger.info("the simulated payment of %s failed: %s", mcid, exc)
                self.qr_panel.set_note(
                    self.tr("The simulated payment failed: {why}").format(why=error_text(exc))
                )

        task.add_done_callback(finished)

    def customer_view(self) -> CustomerView:
        """What the customer-facing display should show now."""
        amount = self.form.amount.centavos() or None
        page = self.stack.currentWidget()
        if page is self.qr_panel and self.qr_panel.view is not None:
            return CustomerView("qr", self.qr_panel.view.amount, self.qr_panel.view)
        if page is self.result:
            record = self.result.record
            if record is not None and money_status(record.state) in (
                ChargeStatus.PAID,
                ChargeStatus.PRE_AUTHORIZED,
                ChargeStatus.AUTHORIZED,
            ):
                if qr_phase(record.state) is not None and self.qr_panel.view is not None:
                    return CustomerView("qr", record.amount, self.qr_panel.view)
                return CustomerView("paid", record.amount)
            return CustomerView("not_paid", amount)
        if self._in_flight:
            return CustomerView("charging", amount)
        if amount is None:
            return CustomerView("idle")
        if self.tender_bar.kind == CARD:
            return CustomerView("card", amount)
        return CustomerView("entering", amount)

    def _emit_customer_view(self) -> None:
        view = self.customer_view()
        if view != self._last_customer_view:
            self._last_customer_view = view
            self.customer_view_changed.emit(view)

    def _receipt(self, *, as_pdf: bool) -> None:
        if self.current_charge:
            self.receipt_requested.emit(self.current_charge, as_pdf)
