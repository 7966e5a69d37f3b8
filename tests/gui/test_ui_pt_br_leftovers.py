"""Texts that stayed English in pt-BR: Qt's save dialog, stored-credential markers, status tips."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QLocale, Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QApplication,
    QFileDialog,
    QHeaderView,
    QLabel,
    QWidget,
)

from checkout_desktop.domain.events import EventBus
from checkout_desktop.domain.inbox_events import (
    ListenerState,
    ListenerStateChanged,
    TunnelState,
    TunnelStateChanged,
)
from checkout_desktop.inbox.intake import credential_marker
from checkout_desktop.ui.adapter import QtEventAdapter
from checkout_desktop.ui.events_panel import stored_header_label
from checkout_desktop.ui.file_dialogs import pdf_save_dialog
from checkout_desktop.ui.i18n import Translations
from checkout_desktop.ui.status_bar import TerminalStatusBar

logger = logging.getLogger(__name__)

PT_BR = QLocale(QLocale.Language.Portuguese, QLocale.Country.Brazil)

# What Qt's own file dialog says in English when its catalogue leaves a text out.
QT_ENGLISH = {
    "Look in:",
    "File name:",
    "File &name:",
    "Files of type:",
    "Files of &type:",
    "&Look in:",
    "Save",
    "&Save",
    "Cancel",
    "Back",
    "Forward",
    "Parent Directory",
    "Create New Folder",
    "List View",
    "Detail View",
    "Name",
    "Size",
    "Type",
    "Date Modified",
}


@pytest.fixture
def translations(qapp: QApplication) -> Iterator[Translations]:
    installed = Translations()
    assert installed.install(PT_BR)
    yield installed
    installed.remove()


def visible_texts(root: QWidget) -> list[str]:
    texts: list[str] = []
    for widget in root.findChildren(QWidget):
        if isinstance(widget, QLabel | QAbstractButton) and widget.isVisibleTo(root):
            texts.append(widget.text())
        if widget.toolTip() and widget.isVisibleTo(root):
            texts.append(widget.toolTip())
        if isinstance(widget, QHeaderView) and widget.model() is not None:
            model = widget.model()
            texts.extend(
                str(model.headerData(n, Qt.Orientation.Horizontal))
                for n in range(model.columnCount())
            )
    return [t for t in texts if t]


def test_the_save_dialog_is_portuguese_throughout(
    translations: Translations, qtbot: Any, tmp_path: Path
) -> None:
    parent = QWidget()
    qtbot.addWidget(parent)
    dialog = pdf_save_dialog(parent, "Salvar comprovante", str(tmp_path))
    # Qt's own widgets, as on a machine without a desktop's file chooser.
    dialog.setOption(QFileDialog.Option.DontUseNativeDialog, True)
    dialog.open()
    try:
        qtbot.waitUntil(dialog.isVisible, timeout=3000)
        texts = visible_texts(dialog)
        assert "Procurar em:" in texts and "Arquivos do tipo:" in texts
        left = sorted({t for t in texts if t.replace("&", "") in QT_ENGLISH or t in QT_ENGLISH})
        assert left == [], left
    finally:
        dialog.reject()


def test_a_stored_credential_marker_is_said_in_portuguese(translations: Translations) -> None:
    assert stored_header_label(credential_marker("Authorization", "abc")) == (
        "[não guardado: token sem esquema]"
    )
    assert stored_header_label(credential_marker("Authorization", "Bearer abc")) == (
        "[não guardado: esquema Bearer]"
    )
    assert stored_header_label(credential_marker("X-Token", "abc")) == "[não guardado]"
    assert stored_header_label("application/json") == "application/json"


async def _none_open() -> int:
    return 0


def test_the_status_bar_frames_foreign_detail_in_portuguese(
    translations: Translations, qtbot: Any
) -> None:
    bus = EventBus()
    adapter = QtEventAdapter(bus)
    bar = TerminalStatusBar(adapter, environment="Produção", unresolved_count=_none_open)
    qtbot.addWidget(bar)
    try:
        bar.on_listener_state(ListenerStateChanged(state=ListenerState.STARTING, url=None))
        assert bar.listener.toolTip() == "A caixa de entrada de notificações está iniciando."
        bar.on_listener_state(
            ListenerStateChanged(
                state=ListenerState.FAILED, url=None, reason="[Errno 98] address already in use"
            )
        )
        assert bar.listener.toolTip().startswith("Detalhe técnico: [Errno 98]")
        bar.on_tunnel_state(
            TunnelStateChanged(
                mode="cloudflared",
                state=TunnelState.DOWN,
                public_url=None,
                reason="cloudflared exited with code 1",
                restarts=1,
            )
        )
        assert bar.tunnel.toolTip().startswith("Detalhe técnico (do programa de túnel): ")
        bar.on_tunnel_state(
            TunnelStateChanged(
                mode="cloudflared",
                state=TunnelState.UP,
                public_url="https://a.trycloudflare.com",
                reason=None,
                restarts=1,
            )
        )
        assert bar.tunnel.toolTip() == (
            "O serviço alcança este terminal em https://a.trycloudflare.com."
        )
    finally:
        adapter.close()


def test_the_status_bar_counts_unknown_outcomes_as_a_sentence(
    translations: Translations, qtbot: Any
) -> None:
    open_now = [1]

    async def unresolved() -> int:
        return open_now[0]

    bar = TerminalStatusBar(
        QtEventAdapter(EventBus()), environment="Produção", unresolved_count=unresolved
    )
    qtbot.addWidget(bar)
    seen = {}
    for count in (1, 3, 0):
        open_now[0] = count
        bar.refresh_attempts()
        expected_start = {0: "Nenhuma", 1: "1 ", 3: "3 "}[count]
        qtbot.waitUntil(lambda start=expected_start: bar.attempts.text().startswith(start))
        seen[count] = bar.attempts.text()
    assert seen == {
        1: "1 cobrança com resultado desconhecido: em consulta",
        3: "3 cobranças com resultado desconhecido: em consulta",
        0: "Nenhuma tentativa em aberto",
    }


def test_the_inbox_health_counts_refused_deliveries_whatever_their_number(
    translations: Translations,
) -> None:
    from checkout_desktop.domain.reasons import Reason, ReasonCode
    from checkout_desktop.ui.reasons import reason_text

    for count in (1, 4):
        text = reason_text(
            Reason.of(ReasonCode.HEALTH_STORE_REFUSING, count=count, error="disco cheio")
        )
        assert text == (
            f"entregas não gravadas desde a última verificação: {count} (disco cheio)"
        ), text
