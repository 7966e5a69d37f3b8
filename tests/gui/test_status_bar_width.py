"""The status bar never makes the window wider than a 1024 px screen, whatever its fields say.

Each field is as long as its pt-BR text; their sum once passed 1024 px (the window opened
1063 px wide on a 1024×768 screen). The fields now elide, and the whole text is in the tooltip.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import qasync
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from checkout_desktop.domain.events import EventBus
from checkout_desktop.ui.adapter import QtEventAdapter
from checkout_desktop.ui.status_bar import TerminalStatusBar

LONG = {
    "environment": "Ambiente: Produção da Loja Centro — balcão 2",
    "service": "Serviço: formulário de cartão inacessível",
    "token": "Token: falhou (o serviço recusou as credenciais), nova tentativa em 59 s",
    "listener": "Receptor: ouvindo em https://loja-centro-balcao.exemplo.com.br/webhook",
    "tunnel": "Túnel: reiniciando (o programa do túnel terminou com erro)",
    "attempts": "Tentativas em aberto: 12",
}


async def _none_open() -> int:
    return 0


@pytest.fixture
def status(qtbot: QtBot, qloop: qasync.QEventLoop) -> Iterator[TerminalStatusBar]:
    adapter = QtEventAdapter(EventBus())
    bar = TerminalStatusBar(adapter, environment="Sandbox", unresolved_count=_none_open)
    qtbot.addWidget(bar)
    try:
        yield bar
    finally:
        adapter.close()


def test_long_field_texts_fit_a_1024_px_window(status: TerminalStatusBar, qtbot: QtBot) -> None:
    for name, text in LONG.items():
        label = getattr(status, name)
        label.setText(text)
        label.show()
    # What the row needs at least: the window can never be narrower than this.
    assert status.minimumSizeHint().width() <= 900
    status.resize(1024, status.sizeHint().height())
    status.show()
    qtbot.waitExposed(status)
    QApplication.processEvents()
    assert status.width() == 1024
    cut = [label for label in (getattr(status, n) for n in LONG) if label.is_elided()]
    assert cut, "on 1024 px the long texts are cut short"
    for label in cut:
        assert label.shown_text().endswith("…")
        if label is not status.service:  # the service field keeps its own explanation
            assert label.toolTip() == label.text()


def test_a_short_text_is_shown_whole_without_a_tooltip(
    status: TerminalStatusBar, qtbot: QtBot
) -> None:
    status.resize(1366, status.sizeHint().height())
    status.show()
    qtbot.waitExposed(status)
    status.attempts.setText("Tentativas em aberto: 0")
    QApplication.processEvents()
    assert not status.attempts.is_elided()
    assert status.attempts.shown_text() == "Tentativas em aberto: 0"
    assert status.attempts.toolTip() == ""
