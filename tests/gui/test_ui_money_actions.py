"""The history panel's refund and capture while an earlier operation is still being confirmed."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QLocale, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication

from checkout_desktop.charges.service import MoneyOperationBusy, MoneyView
from checkout_desktop.domain.enums import ChargeStatus
from checkout_desktop.domain.money_ops import Figures, MoneyOpKind, MoneyOpState
from checkout_desktop.store.sqlite.db import transaction
from checkout_desktop.ui.history_panel import MoneyActionDialog, money_error_text
from checkout_desktop.ui.i18n import Translations
from tests.gui.history_support import history_shop
from tests.integration.charging_support import (
    APPROVED,
    card_token,
    charge_request,
    visa,
)

logger = logging.getLogger(__name__)

PT_BR = QLocale(QLocale.Language.Portuguese, QLocale.Country.Brazil)


@pytest.fixture
def translations(qapp: QApplication) -> Iterator[Translations]:
    installed = Translations()
    yield installed
    installed.remove()


def test_a_pending_refund_blocks_the_next_one_with_a_plain_message(
    arun: Callable[..., Any], qtbot: Any, tmp_path: Path, translations: Translations
) -> None:
    assert translations.install(PT_BR)
    with history_shop(arun, qtbot, tmp_path) as shop:
        service, access, conn = shop.service, shop.access, shop.conn
        panel = shop.open_panel()
        token = arun(card_token(access, APPROVED))
        outcome = arun(
            service.charge(
                sale_id="sale-1", request=charge_request(token, amount=1500), tenders=visa("1111")
            )
        )
        mcid = outcome.merchant_charge_id
        # A refund of 500 whose reply was lost (as a crash leaves it), never seen at the service.
        with transaction(conn):
            op = service.store.repo.record_money_operation(
                mcid, MoneyOpKind.REFUND, 500, Figures(ChargeStatus.PAID, 1500, 0)
            )
            service.store.repo.move_money_operation(
                op, MoneyOpState.SENT, source="request", reason=op.reason("sent")
            )
        view = arun(service.money_view(mcid))
        assert isinstance(view, MoneyView) and view.busy
        assert view.refundable == 1000  # what is left once the pending refund counts as done

        assert panel.select_charge(mcid)
        assert not panel.refund_button.isEnabled()
        assert not panel.capture_button.isEnabled()
        assert panel.message.text().startswith("O estorno anterior ainda está sendo confirmado")
        panel.ask_refund()
        assert panel.dialog is None
        with pytest.raises(MoneyOperationBusy) as busy:
            arun(service.refund(mcid, 100))
        assert money_error_text(busy.value).startswith("O estorno anterior")

        # The service's figures settle it (past the grace period: not done); the panel frees it.
        service.reconciler.unknown_grace = timedelta(0)
        with qtbot.waitSignal(shop.adapters[0].money_operation_changed, timeout=5000):
            arun(service.reconcile(trigger="on demand"))
        assert service.store.repo.money_operations(mcid)[0].state == MoneyOpState.NOT_APPLIED
        assert panel.refund_button.isEnabled()
        assert "pode agir" in panel.message.text()
        panel.ask_refund()
        assert panel.dialog is not None
        assert panel.dialog.amount.centavos() == 1500
        panel.dialog.reject()
        sent = [e.reason_data for e in service.store.repo.timeline(mcid).items]
        assert sent.count(op.reason("sent")) == 1
        assert shop.sandbox.state.charges[mcid].refunded_amount == 0


def test_a_pasted_non_amount_in_the_refund_dialog_says_why_and_keeps_the_amount(
    qtbot: Any, translations: Translations
) -> None:
    assert translations.install(PT_BR)
    dialog = MoneyActionDialog(
        title="Estorno", explanation="", maximum=4000, pin_hash=None, allow_partial=True
    )
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.amount.setFocus()
    QGuiApplication.clipboard().setText("vinte")
    qtbot.keyClick(dialog.amount, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)
    assert dialog.error.text().startswith("Isso não é um valor em reais")
    assert dialog.amount.centavos() == 4000
    # Above what may be refunded: said at once, the amount kept.
    QGuiApplication.clipboard().setText("50,00")
    qtbot.keyClick(dialog.amount, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)
    assert "R$\xa040,00" in dialog.error.text()
    assert dialog.amount.centavos() == 4000
    # A good amount clears the message.
    QGuiApplication.clipboard().setText("25,00")
    qtbot.keyClick(dialog.amount, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)
    assert dialog.amount.centavos() == 2500
    assert dialog.error.text() == ""


def test_the_confirm_button_names_the_money_action_and_its_amount(
    arun: Callable[..., Any], qtbot: Any, tmp_path: Path, translations: Translations
) -> None:
    # It said "OK": a clerk confirming a refund read neither what nor how much.
    from PySide6.QtWidgets import QDialogButtonBox

    assert translations.install(PT_BR)
    with history_shop(arun, qtbot, tmp_path) as shop:
        service, access = shop.service, shop.access
        panel = shop.open_panel()
        paid, held = (
            arun(
                service.charge(
                    sale_id=f"sale-{n}",
                    request=charge_request(
                        arun(card_token(access, APPROVED)), amount=6990, late_capture=late
                    ),
                    tenders=visa("1111"),
                )
            ).merchant_charge_id
            for n, late in ((1, False), (2, True))
        )

        def confirm() -> str:
            assert panel.dialog is not None
            ok = panel.dialog.buttons.button(QDialogButtonBox.StandardButton.Ok)
            return ok.text().replace("\xa0", " ")

        assert panel.select_charge(paid)
        panel.ask_refund()
        assert confirm() == "Estornar R$ 69,90"
        # Wide enough that what is refunded reads on one line: the dialog was 265 px wide at
        # 1366×768 and broke the charge's id in two ("xhjnw-" / "badb4cecd4d5-01").
        assert panel.dialog is not None and panel.dialog.isVisible()
        label = panel.dialog.explanation
        head = label.text().split(" (")[0]
        assert head.endswith(paid), head
        assert label.width() >= label.fontMetrics().horizontalAdvance(head), (label.width(), head)
        assert panel.dialog is not None
        panel.dialog.amount.set_centavos(1000)
        assert confirm() == "Estornar R$ 10,00"
        panel.dialog.reject()

        assert panel.select_charge(held)
        panel.ask_refund()
        assert confirm() == "Cancelar a autorização de R$ 69,90"
        assert panel.dialog is not None
        panel.dialog.reject()
        panel.ask_capture()
        assert confirm() == "Capturar R$ 69,90"
        assert panel.dialog is not None
        panel.dialog.reject()
