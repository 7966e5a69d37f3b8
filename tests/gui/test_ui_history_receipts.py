"""Receipts reprinted from the history: the sale's or one refund's, as the store recorded them."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu

from checkout_desktop.charges.service import ChargeService
from checkout_desktop.ui.formatting import format_money
from checkout_desktop.ui.history_panel import HistoryPanel
from checkout_desktop.ui.receipts import (
    ReceiptKind,
    RefundOnReceipt,
    receipt_for,
    render_html,
)
from tests.gui.history_support import history_shop
from tests.integration.charging_support import (
    APPROVED,
    SandboxAccess,
    card_token,
    charge_request,
    visa,
)

logger = logging.getLogger(__name__)

Requested = tuple[str, bool, object]


def entries(menu: QMenu, prefix: str = "") -> dict[str, QAction]:
    """Every action the clerk can pick in `menu`, a submenu's as "its title / the action"."""
    found: dict[str, QAction] = {}
    for action in menu.actions():
        sub = action.menu()
        if isinstance(sub, QMenu):
            found.update(entries(sub, f"{prefix}{sub.title()} / "))
        elif not action.isSeparator() and action.isVisible():
            found[prefix + action.text()] = action
    return found


def sell(arun: Callable[..., Any], service: ChargeService, access: SandboxAccess, n: int) -> str:
    token = arun(card_token(access, APPROVED))
    outcome = arun(
        service.charge(
            sale_id=f"sale-{n}",
            request=charge_request(token, amount=4000),
            tenders=visa("1111"),
        )
    )
    mcid: str = outcome.merchant_charge_id
    return mcid


def picked(panel: HistoryPanel, wanted: str, *, pdf: bool = True) -> Requested:
    """Pick the receipt menu entry whose text holds `wanted`; what the panel asked for."""
    asked: list[Requested] = []
    panel.receipt_requested.connect(lambda mcid, as_pdf, what: asked.append((mcid, as_pdf, what)))
    menu = panel.receipt_button.menu()
    assert isinstance(menu, QMenu)
    kind = "PDF" if pdf else "Print"
    matching = [a for text, a in entries(menu).items() if wanted in text and kind in text]
    assert len(matching) == 1, (wanted, list(entries(menu)))
    matching[0].trigger()
    assert len(asked) == 1
    return asked[0]


def test_a_refund_receipt_reprinted_from_the_history_shows_that_refund_and_the_sale_one_too(
    arun: Callable[..., Any], qtbot: Any, tmp_path: Path
) -> None:
    with history_shop(arun, qtbot, tmp_path) as shop:
        service, access, open_panel = shop.service, shop.access, shop.open_panel
        panel = open_panel()
        first, other = sell(arun, service, access, 1), sell(arun, service, access, 2)
        arun(service.refund(first, 1500))

        # A partly refunded sale: its sale receipt can still be had, and says what went back.
        assert panel.select_charge(first)
        mcid, as_pdf, what = picked(panel, "sale receipt")
        assert (mcid, as_pdf, what) == (first, True, None)
        record = arun(service.store.charges.charge(first))
        sale = render_html(receipt_for(record, merchant="Loja", merchant_document=None))
        assert "SALE RECEIPT" in sale
        assert "Partially refunded" in sale
        assert "Refunded so far" in sale and format_money(1500) in sale

        arun(service.refund(first, 2500))
        arun(service.refund(other, 4000))

        def refund_receipt(panel: HistoryPanel, wanted: str) -> str:
            mcid, _as_pdf, refund = picked(panel, wanted)
            assert mcid == first and isinstance(refund, RefundOnReceipt)
            record = arun(service.store.charges.charge(first))
            receipt = receipt_for(record, merchant="Loja", merchant_document=None, refund=refund)
            assert receipt.kind == ReceiptKind.REFUND
            return render_html(receipt).replace("\u00a0", " ")

        def row(label: str, value: int) -> str:
            return f'{label}</td><td align="right"><b>{format_money(value)}</b>'

        # The other charge was refunded last; the first one's receipt is still of its own
        # latest refund, not of what went back in total.
        assert panel.select_charge(first)
        latest = refund_receipt(panel, f"Refund of {format_money(2500)}")
        assert row("Refunded now", 2500) in latest
        assert row("Refunded in total", 4000) in latest
        # The earlier refund's receipt too, with the total as it stood then.
        earlier = refund_receipt(panel, f"Refund of {format_money(1500)}")
        assert row("Refunded now", 1500) in earlier
        assert row("Refunded in total", 1500) in earlier

        # The terminal started again knows the same from its store.
        again = open_panel()
        assert again.select_charge(first)
        assert row("Refunded now", 2500) in refund_receipt(again, f"Refund of {format_money(2500)}")
        assert picked(again, "sale receipt", pdf=False) == (first, False, None)
