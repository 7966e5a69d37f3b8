"""The history's capture asks for the supervisor PIN only for an earlier day's charge, and the
service itself checks the PIN it is given."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from PySide6.QtWidgets import QApplication

from checkout_desktop.charges.authority import Authority, hash_pin
from checkout_desktop.domain.enums import ChargeStatus
from checkout_desktop.domain.timestamps import utc_now
from checkout_desktop.ui.i18n import Translations
from tests.gui.history_support import history_shop
from tests.integration.charging_support import (
    APPROVED,
    card_token,
    charge_request,
    visa,
)

logger = logging.getLogger(__name__)

PIN = "2468"


@pytest.fixture
def translations(qapp: QApplication) -> Iterator[Translations]:
    installed = Translations()
    yield installed
    installed.remove()


def test_the_capture_of_an_earlier_days_charge_asks_for_the_supervisor_pin(
    arun: Callable[..., Any], qtbot: Any, tmp_path: Path, translations: Translations
) -> None:
    pin_hash = hash_pin(PIN)
    with history_shop(arun, qtbot, tmp_path, authority=Authority(pin_hash)) as shop:
        service, access, sandbox = shop.service, shop.access, shop.sandbox
        sent: list[str] = []

        async def note(request: httpx.Request) -> None:
            if request.url.path.endswith(("/refund", "/capture")):
                sent.append(request.url.path.rsplit("/", 1)[-1])

        shop.http.event_hooks["request"].append(note)
        history = shop.open_panel(lambda: pin_hash)
        token = arun(card_token(access, APPROVED))
        outcome = arun(
            service.charge(
                sale_id="sale-1",
                request=charge_request(token, amount=1500, late_capture=True),
                tenders=visa("1111"),
            )
        )
        mcid = outcome.merchant_charge_id
        assert outcome.record is not None
        assert outcome.record.status == ChargeStatus.PRE_AUTHORIZED
        assert history.select_charge(mcid)
        qtbot.waitUntil(lambda: history.capture_button.isEnabled(), timeout=5000)

        # Captured the same day: the sale going on, no PIN asked.
        history.ask_capture()
        assert history.dialog is not None and history.dialog.pin.isHidden()
        history.dialog.reject()

        # The same charge seen tomorrow: the dialog asks, and a wrong PIN sends nothing.
        service.authority = Authority(pin_hash, clock=lambda: utc_now() + timedelta(days=1))
        history.ask_capture()
        dialog = history.dialog
        assert dialog is not None and not dialog.pin.isHidden()
        dialog.pin.setText("1111")
        dialog.accept()
        assert dialog.error.text() and dialog.isVisible()
        assert sent == []

        # The right PIN is passed on to the service, which checks it again and captures.
        dialog.pin.setText(PIN)
        with qtbot.waitSignal(history.action_finished, timeout=10000):
            dialog.accept()
        assert sent == ["capture"]
        assert sandbox.state.charges[mcid].status == "PAID"
