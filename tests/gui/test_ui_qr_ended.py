"""The QR panel once its QR ended unpaid, and its keys: the QR is no longer drawn to be scanned,
the way back to the sale is offered, and Cancel QR has a key of its own (in pt-BR too)."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest
from PySide6.QtCore import QCoreApplication, QLocale
from PySide6.QtGui import QKeySequence
from pytestqt.qtbot import QtBot

from checkout_desktop.domain.qr import QrPhase
from checkout_desktop.sandbox.qr import qr_image
from checkout_desktop.ui.i18n import Translations
from checkout_desktop.ui.qr_panel import QrPanel
from tests.gui.test_ui_qr_panel import CODE, record

logger = logging.getLogger(__name__)


def drawn(panel: QrPanel) -> bool:
    pixmap = panel.image.pixmap()
    return pixmap is not None and not pixmap.isNull()


@pytest.mark.parametrize(
    ("txn_status", "said"), [("EXPIRED", "Expired"), ("CANCELED", "Cancelled")]
)
def test_an_ended_qr_is_no_longer_drawn_to_be_scanned(
    qtbot: QtBot, txn_status: str, said: str
) -> None:
    panel = QrPanel()
    qtbot.addWidget(panel)
    panel.show_record(record(image=qr_image(CODE, data_uri=False)))
    assert drawn(panel)
    panel.show_record(record(status="CANCELED", txn_status=txn_status))
    assert not drawn(panel)
    assert panel.image.text() == said


def test_a_qr_paid_after_it_ended_is_drawn_again_for_the_customer_to_see(qtbot: QtBot) -> None:
    panel = QrPanel()
    qtbot.addWidget(panel)
    panel.show_record(record(image=qr_image(CODE, data_uri=False)))
    panel.show_record(record(status="CANCELED", txn_status="CANCELED"))
    view = panel.show_record(record(status="PAID", txn_status="PAID"))
    assert view is not None and view.phase == QrPhase.PAID
    assert drawn(panel)


def test_an_ended_qr_offers_the_way_back_to_the_sale(qtbot: QtBot) -> None:
    panel = QrPanel()
    qtbot.addWidget(panel)
    back: list[bool] = []
    panel.back_to_sale_requested.connect(lambda: back.append(True))
    panel.show_record(record())
    assert panel.back_button.isHidden()
    panel.show_record(record(status="CANCELED", txn_status="EXPIRED"))
    assert not panel.back_button.isHidden()
    # Its words point to it, not to a card the screen offers no way to.
    assert panel.back_button.text().replace("&", "").lower() in panel.detail.text().lower()
    panel.back_button.click()
    assert back == [True]


@pytest.fixture(params=["en", "pt_BR"])
def language(request: pytest.FixtureRequest) -> Iterator[str]:
    if request.param == "en":
        yield "en"
        return
    translations = Translations()
    assert translations.install(QLocale(QLocale.Language.Portuguese, QLocale.Country.Brazil))
    try:
        yield request.param
    finally:
        translations.remove()


def test_cancel_qr_has_a_key_no_tab_or_other_button_takes(qtbot: QtBot, language: str) -> None:
    panel = QrPanel()
    qtbot.addWidget(panel)
    panel.show_record(record())
    key = QKeySequence.mnemonic(panel.cancel_button.text())
    assert not key.isEmpty()
    tabs = [
        QCoreApplication.translate("MainWindow", label)
        for label in ("&Charge", "&Events", "&History", "&Today", "&Settings")
    ]
    shown = [
        button.text()
        for button in (panel.copy_button, panel.new_sale_button)
        if not button.isHidden()
    ]
    others = [QKeySequence.mnemonic(text) for text in tabs + shown]
    assert key not in others, (panel.cancel_button.text(), tabs, shown)
