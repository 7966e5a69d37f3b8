"""Two terminal windows on one shared PostgreSQL store: a sale charged at one counter appears in
the other's history and event list while both run, although only the first receives the
shop's notifications."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication

from checkout_desktop.domain.enums import ChargeStatus
from checkout_desktop.paths import AppPaths
from checkout_desktop.sandbox.link import start_sandbox
from checkout_desktop.store.postgres import db
from checkout_desktop.store.postgres.address import StoreAddress
from checkout_desktop.terminal import Terminal
from checkout_desktop.ui import loop
from tests.gui.test_app_e2e import close_window, open_window, run, spin_until
from tests.integration.charging_support import (
    APPROVED,
    SandboxAccess,
    card_token,
    charge_request,
    counter_on_shared_service,
    visa,
)

pytestmark = [pytest.mark.webengine, pytest.mark.pg]

HANG_S = 60.0  # a bound on a hang, never a speed claim


def _paths(root: Path) -> AppPaths:
    return AppPaths(root / "config", root / "data", root / "logs").ensure()


def test_a_sale_at_one_counter_shows_live_at_the_other(
    qapp: QApplication, tmp_path: Path, pg_url: str
) -> None:
    db.connect(StoreAddress.parse(pg_url), None).close()
    first_paths, second_paths = _paths(tmp_path / "caixa-1"), _paths(tmp_path / "caixa-2")
    link = start_sandbox(first_paths)
    terminals: list[Terminal] = []
    windows = []
    with loop.attached(qapp):
        try:
            for paths in (first_paths, second_paths):
                # One service for both counters (each computer's built-in sandbox is its own).
                terminal = run(
                    counter_on_shared_service(link, paths, pg_url, locale="en"),
                    "a terminal to start",
                    HANG_S,
                )
                terminals.append(terminal)
                windows.append(open_window(terminal.settings, terminal, load=False))
            first, second = terminals
            assert first.inbox.started and not second.inbox.started
            for window in windows:
                window.build_panels()

            access = SandboxAccess.of_info(link.info.raw)
            sale = first.service.new_sale()
            mcid = f"{sale.sale_id}-01"
            token = run(card_token(access, APPROVED), "a card token", HANG_S)
            outcome = run(
                first.service.charge(
                    sale_id=sale.sale_id,
                    request=charge_request(token, merchant_charge_id=mcid),
                    tenders=visa("1111"),
                ),
                "the charge",
                HANG_S,
            )
            assert outcome.record is not None and outcome.record.status == ChargeStatus.PAID

            def shown(window_index: int) -> bool:
                window = windows[window_index]
                history = window.history_panel.model
                row = history.row_of(mcid)
                record = None if row is None else history.record(row)
                events = window.events_panel.model
                events.flush_now()
                delivered = any(
                    (summary := events.summary(r)) is not None
                    and summary.merchant_charge_id == mcid
                    for r in range(events.rowCount())
                )
                return record is not None and record.last_webhook_at is not None and delivered

            # The second window was never refreshed by hand: only the shared store's
            # notifications could have brought the sale and its delivery into it.
            spin_until(lambda: shown(1), "the sale at the second counter", HANG_S)
            spin_until(lambda: shown(0), "the sale at the first counter", HANG_S)
            assert windows[1].history_panel.model.record(0) is not None
        finally:
            for window in windows:
                close_window(window)
            for terminal in terminals:
                run(terminal.stop(), "a terminal to stop", HANG_S)
            link.stop()
