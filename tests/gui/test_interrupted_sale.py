"""A counter's terminal killed in the middle of a charge, and then of a refund: the next start
tells the clerk, in pt-BR, what became of each once the start-up reconciliation has asked the
service, in a note that stays until read and opens the sale in the History; another counter's
attempt that start settles is not told here."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from PySide6.QtCore import QLocale
from PySide6.QtWidgets import QApplication, QMessageBox, QPushButton

from checkout_desktop.domain.records import CardSummary
from checkout_desktop.domain.state import AttemptState
from checkout_desktop.domain.timestamps import utc_now
from checkout_desktop.paths import AppPaths
from checkout_desktop.sandbox.link import SandboxLink, start_sandbox
from checkout_desktop.secrets import SecretStore
from checkout_desktop.settings import Settings
from checkout_desktop.store.sqlite.store import SqliteStore
from checkout_desktop.terminal import Terminal
from checkout_desktop.ui import loop
from checkout_desktop.ui.formatting import format_money
from checkout_desktop.ui.main_window import MainWindow
from tests.gui.test_app_e2e import close_window, open_window, run, spin_until
from tests.integration.charging_support import SLOW, SandboxAccess, card_token, shared_service

logger = logging.getLogger(__name__)

pytestmark = [pytest.mark.webengine, pytest.mark.slow]

CHILD = Path(__file__).parents[1] / "integration" / "interrupted_child.py"
ROOT = Path(__file__).parents[2]
PT_BR = QLocale(QLocale.Language.Portuguese, QLocale.Country.Brazil)
HANG_S = 60.0  # a bound on a hang, never a speed claim


async def service_says(access: SandboxAccess, mcid: str) -> str | None:
    """The charge's status as the service holds it, asked directly; None while it has none."""
    reply = await access.ask_charge(mcid)
    if reply.status_code != 200:
        return None
    return str(reply.json().get("chargeStatus"))


async def killed_when(
    access: SandboxAccess, job: dict[str, object], status: str, *, mcid: str | None = None
) -> str:
    """Run the counter's core in a child until the service shows `status` for the charge, then
    SIGKILL it (the reply is still held by the sandbox). Returns the charge's id."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        str(CHILD),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        env=env,
        cwd=str(ROOT),
    )
    assert child.stdin is not None and child.stdout is not None
    child.stdin.write((json.dumps(job) + "\n").encode())
    await child.stdin.drain()
    try:
        line = (await asyncio.wait_for(child.stdout.readline(), HANG_S)).decode().strip()
        assert line.startswith(("SALE ", "SENDING")), line
        if line.startswith("SALE "):
            mcid = line.split()[1]
        assert mcid is not None
        for _ in range(400):
            if await service_says(access, mcid) == status:
                break
            await asyncio.sleep(0.05)
        else:
            pytest.fail(f"the service never showed {mcid} {status}")
    finally:
        if child.returncode is None:
            child.send_signal(signal.SIGKILL)
        await child.wait()
    assert child.returncode == -signal.SIGKILL
    return mcid


def another_counters_open_attempt(paths: AppPaths, profile: str) -> str:
    """An attempt of another counter left open 20 minutes ago (that counter is gone): this
    counter's start asks about it, past its grace, and settles it; it is not this clerk's."""
    store = SqliteStore.open(paths.database_file, clock=lambda: utc_now() - timedelta(minutes=20))

    async def record() -> None:
        async with store.unit_of_work() as uow:
            await uow.charges.record_attempt(
                merchant_charge_id="outro-0123456789ab-01",
                sale_id="outro-0123456789ab",
                profile=profile,
                amount=4242,
                tenders=[CardSummary("VISA", "1111")],
                late_capture=False,
            )
        await store.close()

    run(record(), "another counter's attempt")
    return "outro-0123456789ab-01"


def notes(window: MainWindow) -> list[QMessageBox]:
    return [b for b in window.findChildren(QMessageBox, "interruptedNotice") if b.isVisible()]


def restart(
    settings: Settings, paths: AppPaths, link: SandboxLink, secrets: SecretStore
) -> Terminal:
    """The counter's core starts again as the launcher starts it: the inbox and the reconciler
    (whose first pass asks about what was left open) only once the window is built."""
    terminal = run(
        Terminal.start(
            settings,
            paths,
            secrets=secrets,
            sandbox=link,
            listener_port=0,
            defer_inbox=True,
        ),
        "the terminal to start again",
        HANG_S,
    )
    return terminal


def test_a_sale_and_a_refund_cut_by_a_crash_are_told_at_the_next_start(
    qapp: QApplication, tmp_path: Path, pt_br: None
) -> None:
    root = tmp_path / "caixa"
    paths = AppPaths(root / "config", root / "data", root / "logs").ensure()
    # The slow card's reply and the refund's come long after the child is killed.
    link = start_sandbox(
        paths, extra_args=("--slow-card-delay", "30", "--fault", "money-reply-delay=30")
    )
    access = SandboxAccess.of_info(link.info.raw)
    settings, secrets = shared_service(link.info)
    job: dict[str, object] = {"root": str(root), "info": link.info.raw}
    windows: list[MainWindow] = []
    terminal: Terminal | None = None
    with loop.attached(qapp):
        try:
            token = run(card_token(access, SLOW), "a card token", HANG_S)
            mcid = run(
                killed_when(
                    access, {**job, "action": "charge", "card_token": token, "amount": 7777}, "PAID"
                ),
                "the charge to reach the service",
                HANG_S,
            )
            other = another_counters_open_attempt(paths, settings.profile.name)

            terminal = restart(settings, paths, link, secrets)
            window = open_window(settings, terminal, load=False)
            windows.append(window)
            run(terminal.start_inbox(), "the inbox and the reconciler", HANG_S)
            spin_until(lambda: bool(notes(window)), "the note on the interrupted sale", HANG_S)
            (note,) = notes(window)
            amount = format_money(7777)  # the locale's spaces
            assert amount.replace("\N{NO-BREAK SPACE}", " ") == "R$ 77,77"
            assert (
                note.text()
                == f"A venda interrompida de {amount} ({mcid}) foi paga: não cobre de novo."
            ), note.text()
            # Another counter's attempt was settled by this start, and is not this clerk's.
            repo = terminal.service.store.repo
            other_attempt = repo.attempt(other)
            assert other_attempt is not None and other_attempt.state == AttemptState.NOT_FOUND
            # It stays until read, without blocking the next sale; it opens the sale.
            assert not note.isModal()
            opener = note.findChild(QPushButton, "openInterrupted")
            assert opener is not None and opener.text().replace("&", "") == "Abrir no Histórico"
            opener.click()
            spin_until(lambda: window.tabs.currentIndex() == window.history_tab, "the History")
            spin_until(
                lambda: (
                    (selected := window.history_panel.selected()) is not None
                    and selected.merchant_charge_id == mcid
                ),
                "the sale selected in the History",
            )
            # Opened is read: the note is gone.
            spin_until(lambda: not notes(window), "the note to close")
            # Told once: a later pass says nothing again.
            run(terminal.service.reconcile(trigger="on demand"), "a pass on demand", HANG_S)
            QApplication.processEvents()
            assert notes(window) == []
            close_window(windows.pop())
            run(terminal.stop(), "the terminal to stop", HANG_S)
            terminal = None

            # The counter is killed again, in the middle of a full refund of that sale.
            run(
                killed_when(
                    access,
                    {**job, "action": "refund", "merchant_charge_id": mcid},
                    "REFUNDED",
                    mcid=mcid,
                ),
                "the refund to reach the service",
                HANG_S,
            )
            terminal = restart(settings, paths, link, secrets)
            window = open_window(settings, terminal, load=False)
            windows.append(window)
            run(terminal.start_inbox(), "the inbox and the reconciler", HANG_S)
            spin_until(lambda: bool(notes(window)), "the note on the interrupted refund", HANG_S)
            (note,) = notes(window)
            assert note.text() == (
                f"O estorno interrompido de {amount} da venda {mcid} foi feito: não estorne de "
                "novo."
            ), note.text()
        finally:
            for window in windows:
                close_window(window)
            if terminal is not None:
                run(terminal.stop(), "the terminal to stop", HANG_S)
            link.stop()
