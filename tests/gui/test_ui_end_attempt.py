"""A supervisor ends, from the history, a charge whose outcome the service's answers never settle."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QLocale
from PySide6.QtWidgets import QApplication, QDialogButtonBox

from checkout_desktop.domain.reasons import ReasonCode
from checkout_desktop.domain.state import AttemptState
from checkout_desktop.store.sqlite.db import transaction
from checkout_desktop.ui.i18n import Translations
from checkout_desktop.ui.supervisor import hash_pin
from tests.gui.history_support import history_shop
from tests.integration.charging_support import new_charge_id, visa

logger = logging.getLogger(__name__)

PT_BR = QLocale(QLocale.Language.Portuguese, QLocale.Country.Brazil)
PIN = "2468"


@pytest.fixture
def translations(qapp: QApplication) -> Iterator[Translations]:
    installed = Translations()
    yield installed
    installed.remove()


def test_a_supervisor_ends_an_unresolved_charge_from_the_history(
    arun: Callable[..., Any], qtbot: Any, tmp_path: Path, translations: Translations
) -> None:
    assert translations.install(PT_BR)
    with history_shop(arun, qtbot, tmp_path) as shop:
        service, conn = shop.service, shop.conn
        pin: list[str | None] = [None]
        panel = shop.open_panel(lambda: pin[0])
        panel.show()
        assert panel.unresolved.isHidden()
        # A charge recorded, then the terminal lost track of it: the service has none yet,
        # and within the grace period that proves nothing.
        mcid = new_charge_id()
        with transaction(conn):
            service.store.repo.record_attempt(
                merchant_charge_id=mcid,
                sale_id="sale-stuck",
                profile="builtin-sandbox",
                amount=3100,
                tenders=visa("4242"),
                late_capture=False,
            )
        panel.refresh_unresolved()
        assert panel.unresolved.isVisible() and panel.unresolved.count() == 1
        assert mcid in panel.unresolved.itemText(0)

        # Without a supervisor PIN nobody can end it.
        panel.ask_end()
        assert panel.end_dialog is None
        assert "PIN de supervisor" in panel.message.text()

        pin[0] = hash_pin(PIN)
        panel.ask_end()
        qtbot.waitUntil(lambda: panel.end_dialog is not None, timeout=5000)
        dialog = panel.end_dialog
        assert dialog is not None
        # What is known: the charge, its sale, the amount, the card, the last answer.
        known = dialog.known.text()
        for part in (mcid, "sale-stuck", "31,00", "4242", "ainda pode aparecer"):
            assert part in known, part
        ok = dialog.buttons.button(QDialogButtonBox.StandardButton.Ok)
        assert ok.text() == "Encerrar a cobrança"
        # The example of a reason reads whole in its empty field (it was cut at ≈ 240 px).
        assert dialog.isVisible()
        example = dialog.why.placeholderText()
        assert example.startswith("ex.:"), example
        room = dialog.why.width() - 12  # the frame's and text margins' few pixels
        assert room >= dialog.why.fontMetrics().horizontalAdvance(example), (room, example)
        dialog.buttons.accepted.emit()
        assert dialog.error.text() == "Digite quem está encerrando."
        dialog.supervisor.setText("Ana Lima")
        dialog.why.setText("conferido no painel: não existe")
        dialog.pin.setText("1111")
        dialog.buttons.accepted.emit()
        assert dialog.error.text() == "PIN do supervisor incorreto."
        assert dialog.pin_failures == 1
        assert service.store.repo.attempt(mcid).state == AttemptState.UNKNOWN  # type: ignore[union-attr]
        dialog.pin.setText(PIN)
        dialog.buttons.accepted.emit()
        qtbot.waitUntil(
            lambda: service.store.repo.attempt(mcid).state == AttemptState.ENDED,  # type: ignore[union-attr]
            timeout=5000,
        )
        qtbot.waitUntil(lambda: "encerrada" in panel.message.text(), timeout=5000)
        assert panel.unresolved.isHidden()
        assert arun(service.can_start_charge("sale-stuck"))
        last = service.store.repo.timeline(mcid).items[-1]
        assert last.reason_data is not None
        assert last.reason_data.code == ReasonCode.ENDED_BY_SUPERVISOR
        assert last.reason_data.args["supervisor"] == "Ana Lima"
        assert mcid not in shop.sandbox.state.charges


@pytest.mark.expected_errors("the unresolved charge could not be read")
def test_ending_says_when_the_store_cannot_read_the_charge_and_can_be_asked_again(
    arun: Callable[..., Any], qtbot: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from checkout_desktop.store.errors import StoreUnavailable

    with history_shop(arun, qtbot, tmp_path) as shop:
        service, conn = shop.service, shop.conn
        panel = shop.open_panel(lambda: hash_pin(PIN))
        panel.show()
        mcid = new_charge_id()
        with transaction(conn):
            service.store.repo.record_attempt(
                merchant_charge_id=mcid,
                sale_id="sale-stuck",
                profile="builtin-sandbox",
                amount=3100,
                tenders=visa("4242"),
                late_capture=False,
            )
        panel.refresh_unresolved()
        # The service is asked, then the store fails the read of the charge for the dialog
        # (its disk, say): the clerk reads why, and End works again.
        views = panel._views
        reading = views.attempt

        async def unreadable(merchant_charge_id: str) -> Any:
            raise StoreUnavailable("disk I/O error while reading s.sqlite3")

        monkeypatch.setattr(views, "attempt", unreadable)
        panel.ask_end()
        qtbot.waitUntil(lambda: "Asking" not in panel.message.text(), timeout=5000)
        said = panel.message.text()
        assert "store could not be used" in said and "nothing was changed" in said, said
        assert "disk I/O" not in said and "disk I/O" in panel.message.toolTip()
        assert panel.end_dialog is None
        assert panel.end_button.isEnabled()

        monkeypatch.setattr(views, "attempt", reading)
        panel.ask_end()
        qtbot.waitUntil(lambda: panel.end_dialog is not None, timeout=5000)
        assert panel.message.toolTip() == ""
