"""The history's timeline in plain words, with the raw detail behind a toggle."""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QLocale
from PySide6.QtWidgets import QApplication

from checkout_desktop.charges.service import ChargeService
from checkout_desktop.domain.enums import ChargeStatus
from checkout_desktop.domain.money_ops import Figures, MoneyOpKind, MoneyOpState
from checkout_desktop.domain.reasons import Reason, ReasonCode
from checkout_desktop.store.sqlite.db import transaction
from checkout_desktop.ui.history_panel import HistoryPanel
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


@dataclass
class Shop:
    history: HistoryPanel
    service: ChargeService
    conn: sqlite3.Connection
    mcid: str


@pytest.fixture
def shop(
    arun: Callable[..., Any], qtbot: Any, tmp_path: Path, translations: Translations
) -> Iterator[Shop]:
    """A panel over a real store with one approved charge made at the sandbox."""
    assert translations.install(PT_BR)
    with history_shop(arun, qtbot, tmp_path) as shop:
        service, access, conn = shop.service, shop.access, shop.conn
        history = shop.open_panel()
        token = arun(card_token(access, APPROVED))
        outcome = arun(
            service.charge(
                sale_id="sale-1", request=charge_request(token, amount=1500), tenders=visa("1111")
            )
        )
        yield Shop(history, service, conn, outcome.merchant_charge_id)


def shown_timeline(shop: Shop, qtbot: Any) -> tuple[list[str], list[str]]:
    """The timeline's sentences and status column once the panel has read every line."""
    expected = len(shop.service.store.repo.timeline(shop.mcid).items)
    assert shop.history.select_charge(shop.mcid)
    timeline = shop.history.timeline
    qtbot.waitUntil(lambda: timeline.rowCount() == expected, timeout=5000)
    rows = range(timeline.rowCount())
    said = [timeline.data(timeline.index(r, 2)) for r in rows]
    shown = [timeline.data(timeline.index(r, 3)) for r in rows]
    return said, shown


def test_the_timeline_reads_as_sentences_and_keeps_the_raw_detail_behind_a_toggle(
    shop: Shop, qtbot: Any
) -> None:
    mcid = shop.mcid
    with transaction(shop.conn):
        shop.service.store.repo.add_timeline(
            mcid,
            source="webhook",
            source_ref="webhook_event:3",
            outcome="duplicate",
            reason=Reason.of(ReasonCode.MERGE_NOTHING_NEW, current_status="PAID"),
            input_status="PAID",
            previous_status="PAID",
            new_status="PAID",
            body={"chargeStatus": "PAID", "merchantChargeId": mcid},
        )
    said, _ = shown_timeline(shop, qtbot)
    assert said[-1] == "Nada de novo: a cobrança já estava Paga."
    assert "A cobrança está Paga." in said
    for text in said:
        assert not any(mark in text for mark in ("∅", "→", "aplicada", "sem mudança")), text

    history = shop.history
    history.timeline_view.selectRow(len(said) - 1)
    plain = history.timeline_detail.toPlainText()
    assert "Notificação" in plain and "Nada de novo" in plain
    assert "chargeStatus" not in plain
    history.developer_detail.setChecked(True)
    technical = history.timeline_detail.toPlainText()
    assert '"chargeStatus": "PAID"' in technical and "notificação nº 3" in technical
    history.developer_detail.setChecked(False)
    assert history.timeline_detail.toPlainText() == plain


def test_a_refused_refund_is_not_called_refused_not_charged(shop: Shop, qtbot: Any) -> None:
    repo = shop.service.store.repo
    with transaction(shop.conn):
        op = repo.record_money_operation(
            shop.mcid, MoneyOpKind.REFUND, 500, Figures(ChargeStatus.PAID, 1500, 0)
        )
        repo.move_money_operation(
            op, MoneyOpState.REJECTED, source="reply", reason=op.reason("refused")
        )
    said, shown = shown_timeline(shop, qtbot)
    assert "Estorno de R$\xa05,00: recusado pelo serviço." in said
    assert not any("não cobrada" in text for text in (*said, *shown))


def test_a_confirmed_capture_does_not_speak_of_a_refund(shop: Shop, qtbot: Any) -> None:
    repo = shop.service.store.repo
    figures = Figures(ChargeStatus.PAID, 1500, 0)
    with transaction(shop.conn):
        op = repo.record_money_operation(shop.mcid, MoneyOpKind.CAPTURE, 1500, figures)
        repo.move_money_operation(
            op,
            MoneyOpState.CONFIRMED,
            source="reply",
            reason=op.reason("confirmed", figures.reason()),
        )
    said, _ = shown_timeline(shop, qtbot)
    capture = [text for text in said if text.startswith("Captura de R$\xa015,00: confirmad")]
    assert capture == ["Captura de R$\xa015,00: confirmado pelo serviço (Paga, R$\xa015,00)."], said
    assert not any("estornado R$\xa00,00" in text for text in said), said


def test_the_terminals_own_notes_read_in_their_own_words(shop: Shop, qtbot: Any) -> None:
    """The sandbox reads the card token under the other spelling (as the published SDK sends
    it): the charge was sent once more, and the spelling kept. Those lines say so; they are no
    "more details of the charge" with a status of "—"."""
    said, shown = shown_timeline(shop, qtbot)
    notes = [text for text in said if "token do cartão" in text]
    assert len(notes) == 2, said
    assert notes[0].startswith("O serviço não encontrou o token do cartão em temporaryCardToken")
    assert "temporatyCardToken" in notes[1]
    assert not [text for text in said if text.startswith("Chegaram mais detalhes")], said
    assert not [
        status for text, status in zip(said, shown, strict=True) if text in notes and status
    ]
