"""The terminal's main window: it composes panels and holds no business logic.

Charge, events, history and settings are tabs; the status bar, the tray notification, the
tunnel-URL notice and receipts are wired here, each delegated to the panel or module that
owns it. At start-up the window can open with the charge tab alone (`defer_panels`): the other
three panels are built by `build_panels`, once the card page is ready, or when their tab is
first chosen.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtGui import QCloseEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QMessageBox,
    QPushButton,
    QSystemTrayIcon,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from checkout_desktop.charges.service import MoneyOperationError, MoneyOperationRefused
from checkout_desktop.domain.counters import counter_of_sale
from checkout_desktop.domain.environments import profile_of
from checkout_desktop.domain.learned import LEARNED_FLAGS, LearnedFlag
from checkout_desktop.domain.reasons import ReasonCode
from checkout_desktop.domain.timestamps import utc_now
from checkout_desktop.gateway.errors import GatewayError
from checkout_desktop.ui.adapter import QtEventAdapter
from checkout_desktop.ui.charge_screen import ChargeScreen
from checkout_desktop.ui.customer_display import CustomerDisplay, CustomerView
from checkout_desktop.ui.geometry import (
    bring_to_front,
    place_beside,
    place_on_screen,
    scrollable,
)
from checkout_desktop.ui.interrupted_notice import InterruptedNotices, standing_note
from checkout_desktop.ui.labels import profile_label, status_label
from checkout_desktop.ui.listener_notice import ListenerFailureNotice
from checkout_desktop.ui.loop import read
from checkout_desktop.ui.money_texts import money_error_text
from checkout_desktop.ui.problem_banner import ProblemBanner
from checkout_desktop.ui.qr_texts import late_payment_notice, paid_off_screen_notice
from checkout_desktop.ui.qt_app import app_icon
from checkout_desktop.ui.reasons import error_text
from checkout_desktop.ui.status_bar import TerminalStatusBar
from checkout_desktop.ui.store_texts import store_failure_text

if TYPE_CHECKING:
    from checkout_desktop.charges.service import ChargeService
    from checkout_desktop.charges.views import ChargeViews
    from checkout_desktop.domain.charge_events import ChargeChanged
    from checkout_desktop.domain.events import EventBus
    from checkout_desktop.domain.inbox_events import TunnelUrlChanged, WebhookStored
    from checkout_desktop.domain.records import ChargeRecord
    from checkout_desktop.domain.shop_events import ShopSettingsChanged
    from checkout_desktop.secrets import SecretStore
    from checkout_desktop.settings import Profile, Settings
    from checkout_desktop.store.ports import EventReads
    from checkout_desktop.ui.bridge import SdkFailure
    from checkout_desktop.ui.card_page import CardPage
    from checkout_desktop.ui.challenge_view import ChallengeView
    from checkout_desktop.ui.events_panel import EventsPanel
    from checkout_desktop.ui.history_panel import HistoryPanel
    from checkout_desktop.ui.receipts import Receipt, RefundOnReceipt
    from checkout_desktop.ui.settings_panel import SettingsPanel
    from checkout_desktop.ui.wizard import ConnectionTester

# The events, history and settings panels and the receipts module are imported where they are
# first built or used (see the module docstring).

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Merchant:
    """Who the receipts name."""

    name: str
    document: str | None


def _shared(_: None) -> None:
    logger.info("the shop's PIN and name are now the same on every counter")


def _shared_learned(_: None) -> None:
    logger.info("the service's learned rule is now in the shop's store")


def _not_shared(exc: BaseException) -> None:
    # Kept in this counter's settings all the same; the next start agrees with the store.
    logger.error("the shop's shared settings could not be written to the store: %s", exc)


def merchant_of(profile: Profile, merchant_document: str | None, shop_name: str = "") -> Merchant:
    """Who the receipts name: the shop's name when set, else the environment's."""
    if shop_name.strip():
        name = shop_name.strip()
    elif profile.is_builtin_sandbox:
        name = QCoreApplication.translate("Terminal", "Test shop (built-in sandbox)")
    else:
        name = profile_label(profile)
    return Merchant(name=name, document=merchant_document or None)


class TunnelNotice(QWidget):
    """A blocking banner: the public URL changed and the merchant panel must be updated."""

    acknowledged = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("tunnelNotice")
        self.setStyleSheet("#tunnelNotice { background: #fff3cd; }")
        self.text = QLabel(self)
        self.text.setWordWrap(True)
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.button = QPushButton(self.tr("I updated the merchant panel"), self)
        layout = QHBoxLayout(self)
        layout.addWidget(self.text, 1)
        layout.addWidget(self.button)
        self._url = ""
        self.button.clicked.connect(lambda: self.acknowledged.emit(self._url))
        self.hide()

    def show_change(self, event: TunnelUrlChanged) -> None:
        self._url = event.notification_url
        self.text.setText(
            self.tr(
                "The public address changed. Until the merchant panel's notification URL is "
                "{url}, no notification reaches this terminal."
            ).format(url=event.notification_url)
        )
        self.show()


class MainWindow(QMainWindow):
    """Tabs for the four panels; the status bar; tray and receipts."""

    notified = Signal(str, str)
    """(title, message) of a status-change notification shown while minimized."""
    receipt_saved = Signal(str)
    """Path of a receipt PDF just written."""

    def __init__(
        self,
        *,
        settings: Settings,
        bus: EventBus,
        service: ChargeService,
        views: ChargeViews,
        events: EventReads,
        card_page: CardPage,
        merchant: Merchant,
        persist: Callable[[Settings], None],
        secrets: SecretStore | None,
        acknowledge_url: Callable[[str], None] | None = None,
        receipts_dir: Path | None = None,
        defer_panels: bool = False,
        connection_tester: ConnectionTester | None = None,
    ) -> None:
        super().__init__()
        environment = profile_label(settings.profile)
        self.setWindowTitle(self.tr("checkout-desktop — {env}").format(env=environment))
        self.setWindowIcon(app_icon())
        place_on_screen(self)
        self.settings = settings
        self.merchant = merchant
        self._service = service
        self._views = views
        self._acknowledge_url = acknowledge_url
        self.receipts_dir = receipts_dir
        self.adapter = QtEventAdapter(bus, self)
        self._events = events
        self._secrets = secrets
        self._persist = persist
        self._connection_tester = connection_tester

        self.charge_screen = ChargeScreen(
            service=service, views=views, card_page=card_page, adapter=self.adapter
        )
        self.charge_screen.result.receipt_html = self._receipt_html
        self._bus = bus
        # What the card form met of the card service: where it contradicts the status bar, the
        # bar looks again now rather than at its next probe (a minute away, or five).
        card_page.sdk_error.connect(self._card_service_failed)
        card_page.token_created.connect(self._card_service_answered)
        self.charge_screen.email_required_learned.connect(self._keep_email_required)
        self.charge_screen.cnpj_refused_learned.connect(self._keep_cnpj_refused)
        self.charge_screen.qr_cancel_refused_learned.connect(self._keep_qr_cancel_refused)
        self.charge_screen.form.set_large_amount_warning(settings.ui.large_amount_warning)
        self.charge_screen.form.set_phone_required(settings.profile.phone_required)
        self.charge_screen.form.set_email_required(settings.profile.customer_email_required)
        self.charge_screen.form.set_cnpj_refused(settings.profile.customer_cnpj_refused)
        self.charge_screen.qr_panel.set_cancel_offered(not settings.profile.qr_cancel_refused)
        self.charge_screen.three_ds_policy = settings.profile.three_ds_policy()
        self.charge_screen.pix_expiration_s = settings.qr.pix_expiration_s
        self.customer_display: CustomerDisplay | None = None
        self.charge_screen.customer_view_changed.connect(self._customer_view)
        self._apply_customer_display(settings)
        self.tabs = QTabWidget(self)
        self.tabs.setObjectName("mainTabs")
        self.charge_tab = self.tabs.addTab(self.charge_screen, self.tr("&Charge"))
        # Each other tab holds a host widget; its panel goes in when built.
        self._hosts: list[QVBoxLayout] = []
        tab_indexes = []
        for label in (
            self.tr("&Events"),
            self.tr("&History"),
            self.tr("&Today"),
            self.tr("&Settings"),
        ):
            host = QWidget(self.tabs)
            host_layout = QVBoxLayout(host)
            host_layout.setContentsMargins(0, 0, 0, 0)
            self._hosts.append(host_layout)
            tab_indexes.append(self.tabs.addTab(host, label))
        self.events_tab, self.history_tab, self.today_tab, self.settings_tab = tab_indexes
        self._panels_built = False

        self._close_box: QMessageBox | None = None
        self._qrs_asked = False
        """The clerk chose to close with QRs still waiting (or a shutdown asked to close)."""
        self._waiting_qrs: tuple[str, ...] = ()
        """This environment's QRs still awaiting payment, as the status bar last read them."""
        self._qr_close_box: QMessageBox | None = None
        self._cancelling_qrs = False
        """The clerk chose to cancel the QRs still waiting and close: the cancels are under way."""
        self.tunnel_notice = TunnelNotice(self)
        body = QWidget(self)
        layout = QVBoxLayout(body)
        layout.setContentsMargins(4, 4, 4, 0)
        layout.addWidget(self.tunnel_notice)
        self.problem_banner = ProblemBanner(self.adapter, card_page, self)
        self.listener_notice = ListenerFailureNotice(self.adapter, self)
        # What a terminal that stopped mid-charge (or mid-refund) left open, once asked about.
        self.interrupted_notices = InterruptedNotices(
            self.adapter, views, self, open_charge=self.show_charge
        )
        layout.addWidget(self.problem_banner)
        layout.addWidget(self.tabs, 1)
        self.setCentralWidget(body)

        self.status = TerminalStatusBar(
            self.adapter,
            environment=environment,
            # This environment's open attempts only: another's are none of this service's.
            unresolved_count=lambda: views.unresolved_count(
                profile=service.profile, excluding=self._charge_on_screen()
            ),
            awaiting_qr_count=self._awaiting_qr_count,
            show_tunnel=not settings.profile.is_builtin_sandbox,
            parent=self,
        )
        self.setStatusBar(self.status)

        self.tray: QSystemTrayIcon | None = None
        if QSystemTrayIcon.isSystemTrayAvailable():
            self.tray = QSystemTrayIcon(app_icon(), self)
            self.tray.setToolTip("checkout-desktop")
            self.tray.activated.connect(lambda _reason: self.show_normal())
            self.tray.show()

        # The charge on screen is counted once it is no longer being sent or authenticated.
        self.charge_screen.charge_finished.connect(lambda _o: self.status.refresh_attempts())
        self.adapter.webhook_stored.connect(self._on_webhook_stored)
        self.adapter.charge_changed.connect(self._on_charge_changed)
        self.adapter.tunnel_url_changed.connect(self.tunnel_notice.show_change)
        self.adapter.shop_settings_changed.connect(self._shop_settings_changed)
        self.tunnel_notice.acknowledged.connect(self._acknowledge)
        self.charge_screen.receipt_requested.connect(
            lambda mcid, as_pdf: self.receipt(mcid, as_pdf=as_pdf)
        )
        self.tabs.currentChanged.connect(self._tab_chosen)

        for key, tab in (("F5", 0), ("F6", 1), ("F7", 2), ("F8", 3), ("F9", 4)):
            QShortcut(QKeySequence(key), self, lambda tab=tab: self.tabs.setCurrentIndex(tab))
        if not defer_panels:
            self.build_panels()
        # The clerk's first keys at start are the amount's (otherwise the tab bar, first in
        # the window's focus chain, would take them).
        self.charge_screen.form.amount.setFocus()

    # -- panels -----------------------------------------------------------------------------

    @property
    def panels_built(self) -> bool:
        return self._panels_built

    def environment_label(self, profile_name: str | None) -> str:
        """A profile's name as the clerk knows it (a charge's environment in the history)."""
        if profile_name is None:
            return self.tr("unknown")
        profile = self.settings.profiles.get(profile_of(profile_name))
        if profile is None:
            return profile_name
        if profile.is_builtin_sandbox and profile_name != self._service.profile:
            # Another computer's sandbox, or one that ran before this one kept its charges.
            return self.tr("Another built-in sandbox")
        return profile_label(profile)

    def build_panels(self) -> None:
        """Build the events, history and settings panels (once; later calls do nothing)."""
        if self._panels_built:
            return
        self._panels_built = True
        from checkout_desktop.ui.day_totals import DayTotalsPanel
        from checkout_desktop.ui.events_panel import EventsPanel
        from checkout_desktop.ui.history_panel import HistoryPanel
        from checkout_desktop.ui.receipts import receipts_folder
        from checkout_desktop.ui.settings_panel import SettingsPanel

        self.events_panel: EventsPanel = EventsPanel(self._events)
        self.adapter.closed.connect(self.events_panel.model.stop)
        self.history_panel: HistoryPanel = HistoryPanel(
            service=self._service,
            views=self._views,
            adapter=self.adapter,
            pin_hash=lambda: self.settings.ui.supervisor_pin_hash,
            environment_label=self.environment_label,
            qr_cancel_offered=lambda: self.charge_screen.qr_panel.cancel_offered,
        )
        self.history_panel.qr_cancel_refused_learned.connect(self._keep_qr_cancel_refused)
        self.day_totals: DayTotalsPanel = DayTotalsPanel(
            self._views,
            profile=self._service.profile,
            adapter=self.adapter,
            report_folder=lambda: receipts_folder(self.settings.ui.receipts_folder),
        )
        self.settings_panel: SettingsPanel = SettingsPanel(
            self.settings,
            secrets=self._secrets,
            persist=self._persist,
            tester=self._connection_tester,
        )
        # The settings form is taller than a 768-line screen: it scrolls there.
        for host, panel in zip(
            self._hosts,
            (
                self.events_panel,
                self.history_panel,
                self.day_totals,
                scrollable(self.settings_panel),
            ),
            strict=True,
        ):
            host.addWidget(panel)
        self.events_panel.charge_requested.connect(self.show_charge)
        self.history_panel.events_requested.connect(self.show_events_of)
        self.history_panel.receipt_requested.connect(
            lambda mcid, as_pdf, refund: self.receipt(mcid, as_pdf=as_pdf, refund=refund)
        )
        self.settings_panel.saved.connect(self._settings_saved)

    def _tab_chosen(self, index: int) -> None:
        if index != self.charge_tab:
            self.build_panels()

    # -- navigation -------------------------------------------------------------------------

    def show_charge(self, merchant_charge_id: str) -> None:
        """Open a charge's timeline in the history tab."""
        self.build_panels()
        if self.history_panel.select_charge(merchant_charge_id):
            self.tabs.setCurrentIndex(self.history_tab)

    def show_events_of(self, merchant_charge_id: str) -> None:
        self.build_panels()
        self.events_panel.show_charge(merchant_charge_id)
        self.tabs.setCurrentIndex(self.events_tab)

    def show_normal(self) -> None:
        """Bring the window forward (from the tray or another launch), keeping it maximised."""
        bring_to_front(self)

    # -- core events ------------------------------------------------------------------------

    def _charge_on_screen(self) -> tuple[str, ...]:
        """The charge the charge screen is still sending or authenticating: its button says
        where it stands, so the status bar does not call it an unknown outcome."""
        screen = self.charge_screen
        mcid = screen.current_charge
        return (mcid,) if screen.in_flight and mcid is not None else ()

    def _on_webhook_stored(self, event: WebhookStored) -> None:
        # Not built yet: the events panel reads the store's newest page when it is.
        if self._panels_built:
            self.events_panel.notify_stored(event.event_id)

    async def _awaiting_qr_count(self) -> int:
        waiting = await self._awaiting_qrs()
        # Kept for closing: the window asks from what it last read, at once (a close that
        # waited for the store would leave a window half closed).
        self._waiting_qrs = tuple(record.merchant_charge_id for record in waiting)
        return len(waiting)

    async def _awaiting_qrs(self) -> list[ChargeRecord]:
        """This counter's QRs the customer may still pay (another counter of a shared store
        counts, cancels and announces its own)."""
        waiting = await self._views.awaiting_qrs(profile=self._service.profile, now=utc_now())
        return [record for record in waiting if self._made_here(record.sale_id)]

    def _made_here(self, sale_id: str | None) -> bool:
        """Whether this counter made the sale (its id carries the counter's; a sale id from
        before counters, or a terminal alone on its store, counts as this one's)."""
        made_at = counter_of_sale(sale_id)
        return made_at is None or self._service.counter is None or made_at == self._service.counter

    def _on_charge_changed(self, event: ChargeChanged) -> None:
        mcid = event.merchant_charge_id
        on_screen = self.charge_screen.shows_charge(mcid)
        late = late_payment_notice(mcid, event.changes)
        if late is None and not on_screen and self._made_here(event.sale_id):
            # A QR this counter left waiting (a new sale, a restart) was paid: said as a late
            # one is (another counter's QR is that counter's to tell).
            late = paid_off_screen_notice(mcid, event.changes)
        if late is not None:
            # Money came in for a QR the screen had let go: the clerk must know, whatever
            # the charge screen shows now. The status line beside its fields holds a few
            # words only: it points to where the whole of it is said.
            if on_screen:
                # Shown paid on the charge screen; the History says the rest.
                self.statusBar().showMessage(
                    self.tr("QR {id} paid after it had ended — see the History").format(id=mcid),
                    300_000,
                )
            else:
                # Not shown paid on the charge screen: a note that stays until read, and the
                # status line points to it until then.
                self._announce_qr_paid(late, self.tr("QR {id} paid — see the note").format(id=mcid))
            if self.tray is not None:
                self.tray.showMessage(
                    self.tr("A QR was paid"), late, QSystemTrayIcon.MessageIcon.Warning, 20_000
                )
        if event.status == event.previous_status or not self.isMinimized():
            return
        title = self.tr("Charge {id}").format(id=event.merchant_charge_id)
        message = self.tr("Now {status}").format(status=status_label(event.status))
        if event.previous_status:
            message = self.tr("{before} → {after}").format(
                before=status_label(event.previous_status), after=status_label(event.status)
            )
        if self.tray is not None:
            self.tray.showMessage(title, message, QSystemTrayIcon.MessageIcon.Information, 8000)
        self.notified.emit(title, message)

    def _announce_qr_paid(self, text: str, pointer: str) -> None:
        # It does not stop the sale being typed.
        note = standing_note(self, name="qrPaidNotice", title=self.tr("A QR was paid"), text=text)
        status = self.statusBar()
        status.showMessage(pointer, 300_000)

        def read_now(_result: int) -> None:
            # Read: the pointer goes (unless the status line says something else by now).
            if status.currentMessage() == pointer:
                status.clearMessage()

        note.finished.connect(read_now)
        note.show()

    def _acknowledge(self, url: str) -> None:
        if self._acknowledge_url is not None:
            try:
                self._acknowledge_url(url)
            except ValueError as exc:
                self.tunnel_notice.text.setText(str(exc))
                return
        self.tunnel_notice.hide()

    def _settings_saved(self, settings: Settings) -> None:
        previous = self.settings
        self._apply_settings(settings, previous)
        if settings.active_profile == previous.active_profile:
            for flag in LEARNED_FLAGS:
                # Learned or let go here: the shop's store tells the other counters.
                value = getattr(settings.profile, flag)
                if value != getattr(previous.profile, flag):
                    read(
                        self._service.share_learned(flag, value),
                        _shared_learned,
                        failed=_not_shared,
                    )
        # The service enforces the PIN: it learns a new one (or its removal) at once, and the
        # shop's store passes it (and the shop's name) on to the other counters; only what
        # changed here is written, never what this counter held before.
        if (settings.ui.supervisor_pin_hash, settings.ui.shop_name) != (
            previous.ui.supervisor_pin_hash,
            previous.ui.shop_name,
        ):
            read(
                self._service.share_settings(settings.ui.model_copy(), previous.ui.model_copy()),
                _shared,
                failed=_not_shared,
            )
        else:
            self._service.authority.set_pin_hash(settings.ui.supervisor_pin_hash)

    def _shop_settings_changed(self, event: ShopSettingsChanged) -> None:
        """Another counter changed the shop's PIN, name or a learned rule: this counter takes
        them now (its file, Settings' form, the charge form and the receipts), without
        writing them back to the store."""
        updated = self.settings.model_copy(deep=True)
        if event.pin_held:
            updated.ui.supervisor_pin_hash = event.pin_hash
        if event.shop_name is not None:
            updated.ui.shop_name = event.shop_name
        # The rules are the running environment's (another one chosen in Settings waits for
        # the next start, and takes its own rules from the store then).
        running = updated.profiles.get(profile_of(self._service.profile))
        if running is not None:
            for flag, value in event.learned:
                setattr(running, flag, value)
        if updated == self.settings:
            return
        logger.info("the shop's shared settings changed at another counter; taken here")
        try:
            self._persist(updated)
        except OSError:
            # Held in this run all the same; the next start reads them from the store again.
            logger.warning("could not keep the shop's shared settings in the file", exc_info=True)
        previous = self.settings
        self._apply_settings(updated, previous)
        self._service.authority.set_pin_hash(updated.ui.supervisor_pin_hash)
        if self._panels_built:
            self.settings_panel.take_kept(updated)

    def _apply_settings(self, settings: Settings, previous: Settings) -> None:
        """What this window does with settings it now holds (saved here, or taken from the
        shop's store): the charge form's rules, the QR and customer display, the receipts."""
        self.settings = settings
        self.charge_screen.form.set_large_amount_warning(settings.ui.large_amount_warning)
        if settings.active_profile == previous.active_profile:
            # Another profile takes effect at the next start, with its own rules.
            self.charge_screen.form.set_phone_required(settings.profile.phone_required)
            self.charge_screen.form.set_email_required(settings.profile.customer_email_required)
            self.charge_screen.form.set_cnpj_refused(settings.profile.customer_cnpj_refused)
            self.charge_screen.qr_panel.set_cancel_offered(not settings.profile.qr_cancel_refused)
            self.charge_screen.three_ds_policy = settings.profile.three_ds_policy()
        self.charge_screen.pix_expiration_s = settings.qr.pix_expiration_s
        self._apply_customer_display(settings)
        if settings.ui.shop_name != previous.ui.shop_name:
            # The running environment stays until a restart; only the printed name changes now.
            self.merchant = merchant_of(
                previous.profile, self.merchant.document, settings.ui.shop_name
            )

    # -- customer-facing display ---------------------------------------------------------------

    def _apply_customer_display(self, settings: Settings) -> None:
        """Open, move or close the customer's window as Settings say: it opens on a screen
        other than this window's, and only Settings (or closing the terminal) close it."""
        wanted = settings.qr.customer_display
        shop = settings.ui.shop_name or self.merchant.name
        display = self.customer_display
        if not wanted:
            if display is not None:
                display.close()
                display.deleteLater()
                self.customer_display = None
            return
        if display is None:
            display = CustomerDisplay(
                shop_name=shop, screen_name=settings.qr.customer_display_screen, shop_window=self
            )
            self.customer_display = display
        display.set_shop_name(shop)
        display.screen_name = settings.qr.customer_display_screen
        display.show_view(self.charge_screen.customer_view())
        display.place()

    def _customer_view(self, view: CustomerView) -> None:
        if self.customer_display is not None:
            self.customer_display.show_view(view)

    # -- receipts ---------------------------------------------------------------------------

    def _receipt_html(self, record: ChargeRecord) -> str:
        from checkout_desktop.ui.receipts import ReceiptCopy, render_html

        return render_html(self.build_receipt(record), copy=ReceiptCopy.CUSTOMER)

    def build_receipt(
        self, record: ChargeRecord, *, refund: RefundOnReceipt | None = None
    ) -> Receipt:
        """The sale's receipt (or, with `refund`, the receipt of that refund)."""
        from checkout_desktop.ui.receipts import receipt_for

        return receipt_for(
            record,
            merchant=self.merchant.name,
            merchant_document=self.merchant.document,
            refund=refund,
            test_mode=self.settings.profile.is_builtin_sandbox,
        )

    def receipt(
        self, merchant_charge_id: str, *, as_pdf: bool, refund: RefundOnReceipt | None = None
    ) -> None:
        """Print or save the receipt of a charge (as the store has it now)."""

        def got(record: ChargeRecord | None) -> None:
            if record is None:
                logger.error("no charge %s in the store for its receipt", merchant_charge_id)
                return
            self._print_or_save(record, as_pdf=as_pdf, refund=refund)

        def unread(exc: BaseException) -> None:
            # The clerk asked for it: told in a box, the store's own words in its details.
            said = store_failure_text(exc)
            if said is None:
                logger.error(
                    "the receipt of %s could not be read", merchant_charge_id, exc_info=exc
                )
                said = self.tr("The receipt could not be made; try again.")
            else:
                logger.warning("the receipt of %s could not be read: %s", merchant_charge_id, exc)
            box = QMessageBox(self)
            box.setObjectName("receiptUnreadable")
            box.setIcon(QMessageBox.Icon.Warning)
            box.setWindowTitle(self.tr("Receipt"))
            box.setText(said)
            box.setDetailedText(str(exc))
            box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
            box.open()

        read(self._views.charge(merchant_charge_id), got, failed=unread)

    def _print_or_save(
        self, record: ChargeRecord, *, as_pdf: bool, refund: RefundOnReceipt | None
    ) -> None:
        from checkout_desktop.ui.receipts import (
            print_with_dialog,
            receipt_file_name,
            receipts_folder,
        )

        receipt = self.build_receipt(record, refund=refund)
        if not as_pdf:
            print_with_dialog(receipt, self)
            return
        name = receipt_file_name(receipt)
        folder = self.receipts_dir or receipts_folder(self.settings.ui.receipts_folder)
        start = str(folder / name)
        from checkout_desktop.ui.file_dialogs import pdf_save_dialog

        dialog = pdf_save_dialog(self, self.tr("Save receipt"), start)
        dialog.fileSelected.connect(lambda path: self.save_receipt(receipt, Path(path)))
        dialog.open()

    def save_receipt(self, receipt: Receipt, path: Path) -> Path:
        from checkout_desktop.ui.receipts import confirm_saved, save_pdf

        try:
            written = save_pdf(receipt, path)
        except OSError as exc:
            self.statusBar().showMessage(
                self.tr("The receipt could not be saved: {why}").format(why=exc), 10000
            )
            raise
        self.statusBar().showMessage(self.tr("Receipt saved: {path}").format(path=written), 8000)
        self._remember_receipts_folder(written.parent)
        confirm_saved(written, self)
        self.receipt_saved.emit(str(written))
        return written

    def _card_service_failed(self, failure: SdkFailure) -> None:
        from checkout_desktop.doctor.probe import ServiceCallEnded

        # A card refused by the service reached it; only a network failure did not.
        self._bus.publish(ServiceCallEnded(host="sdk", reached=not failure.network))

    def _card_service_answered(self, _token: object) -> None:
        from checkout_desktop.doctor.probe import ServiceCallEnded

        self._bus.publish(ServiceCallEnded(host="sdk", reached=True))

    def _keep_email_required(self) -> None:
        """The service showed it requires the customer's e-mail: the profile keeps that."""
        self._keep_learned("customer_email_required")

    def _keep_cnpj_refused(self) -> None:
        """The service showed it refuses a CNPJ as the customer's document: the profile keeps
        that."""
        self._keep_learned("customer_cnpj_refused")

    def _keep_qr_cancel_refused(self) -> None:
        """The service showed it does not cancel an unpaid QR: the profile keeps that, and
        neither the QR screen nor the history offers a cancel again."""
        self.charge_screen.qr_panel.set_cancel_offered(False)
        self._keep_learned("qr_cancel_refused")

    def _keep_learned(self, flag: LearnedFlag) -> None:
        """Set one of the profile's flags learned from the service's refusals, and keep it
        (in this counter's file, and in the shop's store for the other counters)."""
        if getattr(self.settings.profile, flag):
            return
        read(self._service.share_learned(flag, True), _shared_learned, failed=_not_shared)
        updated = self.settings.model_copy(deep=True)
        setattr(updated.profile, flag, True)
        try:
            self._persist(updated)
        except OSError:
            # The form asks for it in this run either way; only the next start forgets.
            logger.warning("could not keep %s in the profile", flag, exc_info=True)
            return
        self._kept(updated)

    def _remember_receipts_folder(self, folder: Path) -> None:
        if self.settings.ui.receipts_folder == str(folder):
            return
        updated = self.settings.model_copy(deep=True)
        updated.ui.receipts_folder = str(folder)
        try:
            self._persist(updated)
        except OSError:
            # Only the dialog's starting folder is lost; the receipt itself was saved.
            logger.warning("could not remember the receipts folder", exc_info=True)
            return
        self._kept(updated)

    def _kept(self, updated: Settings) -> None:
        """Settings the window changed and kept itself: Settings' form takes them too."""
        self.settings = updated
        if self._panels_built:
            self.settings_panel.take_kept(updated)

    # -- window -----------------------------------------------------------------------------

    def request_close(self) -> None:
        """Close now (a shutdown asks nothing about QRs still waiting), or as soon as the
        charge in flight has its reply recorded."""
        self._qrs_asked = True
        if not self.charge_screen.in_flight:
            self.close()
            return

        def close_after(_outcome: object) -> None:
            self.charge_screen.charge_finished.disconnect(close_after)
            self.close()

        self.charge_screen.charge_finished.connect(close_after)

    def _ask_close_after_charge(self) -> None:
        """Say why the window stays open, and offer to close it once the charge is recorded."""
        if self._close_box is not None and self._close_box.isVisible():
            return
        challenge = self.charge_screen.challenge
        if challenge is not None and challenge.isVisible():
            self._ask_close_during_challenge(challenge)
            return
        box = QMessageBox(self)
        box.setObjectName("closeDuringCharge")
        box.setIcon(QMessageBox.Icon.Information)
        box.setWindowTitle(self.tr("A charge is in progress"))
        box.setText(
            self.tr(
                "A charge is in progress. The window cannot close until its reply is recorded, "
                "so the sale's result is never lost."
            )
        )
        later = box.addButton(self.tr("Close when it &ends"), QMessageBox.ButtonRole.AcceptRole)
        later.setObjectName("closeWhenDone")
        box.addButton(self.tr("&Keep it open"), QMessageBox.ButtonRole.RejectRole)
        later.clicked.connect(self.request_close)
        self._close_box = box
        box.open()

    def _ask_close_during_challenge(self, challenge: ChallengeView) -> None:
        """The customer is answering the bank: the clerk may cancel that and close (nothing is
        charged) or keep it open. The question never blocks nor covers the bank's page, and it
        goes away with the challenge (once the bank answers, the charge may move money)."""
        box = QMessageBox(self)
        box.setObjectName("closeDuringChallenge")
        box.setIcon(QMessageBox.Icon.Question)
        box.setWindowTitle(self.tr("The customer is confirming at the bank"))
        box.setText(
            self.tr(
                "The customer is still confirming the payment at the bank. Cancel the "
                "confirmation and close the window? Nothing will be charged."
            )
        )
        stop = box.addButton(
            self.tr("&Cancel the confirmation and close"), QMessageBox.ButtonRole.AcceptRole
        )
        stop.setObjectName("cancelChallengeAndClose")
        keep = box.addButton(self.tr("&Keep it open"), QMessageBox.ButtonRole.RejectRole)
        keep.setObjectName("keepOpenDuringChallenge")
        box.setDefaultButton(keep)
        stop.clicked.connect(self._cancel_challenge_and_close)
        challenge.closed.connect(box.close)
        box.setWindowModality(Qt.WindowModality.NonModal)
        # Gone once answered or once the challenge is: a later close asks afresh.
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.finished.connect(self._close_box_answered)
        self._close_box = box
        place_beside(box, challenge)
        box.show()

    def _close_box_answered(self) -> None:
        self._close_box = None

    def _cancel_challenge_and_close(self) -> None:
        challenge = self.charge_screen.challenge
        if challenge is None:
            # The bank answered meanwhile: the charge may be under way; ask as for any charge.
            self._ask_close_after_charge()
            return
        challenge.cancel()
        self.request_close()

    def _on_builtin_sandbox(self) -> bool:
        """Whether the running environment is the built-in sandbox (it stops with the terminal)."""
        profile = self.settings.profiles.get(profile_of(self._service.profile))
        return profile is not None and profile.is_builtin_sandbox

    def _close_with_qrs_text(self, waiting: tuple[str, ...], *, cancel_offered: bool) -> str:
        one = len(waiting) == 1
        charges = ", ".join(waiting[:5]) + (", …" if len(waiting) > 5 else "")
        if one:
            head = self.tr("1 QR is still awaiting payment ({charges}).").format(charges=charges)
        else:
            head = self.tr("{n} QRs are still awaiting payment ({charges}).").format(
                n=len(waiting), charges=charges
            )
        if self._on_builtin_sandbox():
            # The sandbox plays the service in this program: closed, it takes no payment.
            after = (
                self.tr(
                    "The built-in sandbox stops with the terminal: nobody can pay it while the "
                    "terminal is closed; it can be paid again once the terminal opens, until it "
                    "expires."
                )
                if one
                else self.tr(
                    "The built-in sandbox stops with the terminal: nobody can pay them while the "
                    "terminal is closed; they can be paid again once the terminal opens, until "
                    "they expire."
                )
            )
        else:
            after = (
                self.tr(
                    "It stays payable until it expires, with the terminal closed too; a payment "
                    "is announced when the terminal opens again."
                )
                if one
                else self.tr(
                    "They stay payable until they expire, with the terminal closed too; a "
                    "payment is announced when the terminal opens again."
                )
            )
        if cancel_offered:
            advice = (
                self.tr("Cancel it if the customer will not pay it.")
                if one
                else self.tr("Cancel them if the customers will not pay them.")
            )
        else:
            advice = self.tr(
                "This service does not cancel an unpaid QR; refund a payment from the History "
                "if the sale was paid another way."
            )
        return f"{head} {after}\n\n{advice}"

    def _ask_close_with_qrs(self, waiting: tuple[str, ...]) -> None:
        """The clerk closes with QRs the customer may still pay: said, and asked (cancel them
        and close, when the service cancels an unpaid QR; close anyway; keep the window)."""
        if self._qr_close_box is not None:
            return
        one = len(waiting) == 1
        cancel_offered = self.charge_screen.qr_panel.cancel_offered
        box = QMessageBox(self)
        box.setObjectName("closeQrWaiting")
        box.setIcon(QMessageBox.Icon.Warning)
        box.setWindowTitle(
            self.tr("A QR is still waiting") if one else self.tr("QRs still waiting")
        )
        box.setText(self._close_with_qrs_text(waiting, cancel_offered=cancel_offered))
        if cancel_offered:
            cancel = box.addButton(
                self.tr("&Cancel the QR and close")
                if one
                else self.tr("&Cancel the QRs and close"),
                QMessageBox.ButtonRole.AcceptRole,
            )
            cancel.setObjectName("cancelQrsAndClose")
            cancel.clicked.connect(lambda: self._cancel_qrs_and_close(waiting))
        close = box.addButton(self.tr("Close &anyway"), QMessageBox.ButtonRole.DestructiveRole)
        close.setObjectName("closeWithQrs")
        keep = box.addButton(self.tr("&Keep the window open"), QMessageBox.ButtonRole.RejectRole)
        keep.setObjectName("keepWindowOpen")
        box.setDefaultButton(keep)
        box.setEscapeButton(keep)
        close.clicked.connect(self._close_after_question)
        box.finished.connect(self._forget_qr_close_box)
        self._qr_close_box = box
        box.open()

    def _cancel_qrs_and_close(self, waiting: tuple[str, ...]) -> None:
        """Cancel each QR through the service's cancel (which refuses one paid meanwhile: a
        payment is never undone here), then close; any not cancelled keeps the window open,
        saying why."""
        if self._cancelling_qrs:
            return
        self._cancelling_qrs = True
        self.statusBar().showMessage(
            self.tr("Cancelling the QR…") if len(waiting) == 1 else self.tr("Cancelling the QRs…")
        )
        task = asyncio.ensure_future(self._cancel_qrs(waiting))
        task.add_done_callback(self._qrs_cancelled)

    async def _cancel_qrs(self, waiting: tuple[str, ...]) -> list[tuple[str, BaseException]]:
        failed: list[tuple[str, BaseException]] = []
        for mcid in waiting:
            try:
                await self._service.cancel_qr(mcid)
            except Exception as exc:  # each one is said to the clerk, the others still go
                failed.append((mcid, exc))
        with contextlib.suppress(Exception):
            # Counted again (the status bar and a later close ask from this).
            await self._awaiting_qr_count()
        return failed

    def _qrs_cancelled(self, done: asyncio.Future[list[tuple[str, BaseException]]]) -> None:
        self._cancelling_qrs = False
        self.statusBar().clearMessage()
        if done.cancelled():
            return
        failed = done.result()
        if not failed:
            logger.info("closing after the QRs still waiting were cancelled")
            self._close_after_question()
            return
        lines = []
        for mcid, exc in failed:
            if isinstance(exc, MoneyOperationRefused) and exc.why.mentions(
                ReasonCode.QR_CANCEL_REFUSED
            ):
                self._keep_qr_cancel_refused()
            if isinstance(exc, MoneyOperationError):
                why = money_error_text(exc)
            else:
                if not isinstance(exc, GatewayError | ValueError | LookupError):
                    logger.error("cancel of QR %s before closing failed", mcid, exc_info=exc)
                why = error_text(exc)
            lines.append(self.tr("QR {id}: {why}").format(id=mcid, why=why))
        box = QMessageBox(self)
        box.setObjectName("qrsNotCancelled")
        box.setIcon(QMessageBox.Icon.Warning)
        box.setWindowTitle(self.tr("Not cancelled"))
        box.setText(
            (
                self.tr("The QR was not cancelled, so the window stays open.")
                if len(failed) == 1
                else self.tr("{n} QRs were not cancelled, so the window stays open.").format(
                    n=len(failed)
                )
            )
            + "\n\n"
            + "\n".join(lines)
        )
        box.setStandardButtons(QMessageBox.StandardButton.Ok)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()

    def _forget_qr_close_box(self, _result: int) -> None:
        box, self._qr_close_box = self._qr_close_box, None
        if box is not None:
            box.deleteLater()

    def _close_after_question(self) -> None:
        self._qrs_asked = True
        self.close()

    def closeEvent(self, event: QCloseEvent) -> None:
        if self.charge_screen.in_flight:
            # The reply of an in-flight charge must be recorded; closing now would leave the
            # attempt UNKNOWN (safe, resolved at the next start, but slower for the shop).
            event.ignore()
            self._ask_close_after_charge()
            return
        if self._cancelling_qrs and not self._qrs_asked:
            # The QRs are being cancelled: the window closes once they are (or says why not).
            event.ignore()
            return
        if not self._qrs_asked and self._waiting_qrs:
            event.ignore()
            self._ask_close_with_qrs(self._waiting_qrs)
            return
        self.adapter.close()
        if self.tray is not None:
            self.tray.hide()
        if self.customer_display is not None:
            self.customer_display.close()
        super().closeEvent(event)
