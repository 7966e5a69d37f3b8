"""Two terminal windows on one shared PostgreSQL store: a sale charged at one counter appears in
the other's history and event list while both run, although only the first receives the
shop's notifications."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QApplication, QWidget

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
    sell_by_card,
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


def _two_counters(
    qapp: QApplication, tmp_path: Path, pg_url: str
) -> tuple[Any, list[Terminal], list[Any]]:
    db.connect(StoreAddress.parse(pg_url), None).close()
    link = start_sandbox(_paths(tmp_path / "caixa-1"))
    terminals: list[Terminal] = []
    windows: list[Any] = []
    for name in ("caixa-1", "caixa-2"):
        terminal = run(
            counter_on_shared_service(link, _paths(tmp_path / name), pg_url, locale="en"),
            "a terminal to start",
            HANG_S,
        )
        terminals.append(terminal)
        windows.append(open_window(terminal.settings, terminal, load=False))
    return link, terminals, windows


def _close(link: Any, terminals: list[Terminal], windows: list[Any]) -> None:
    for window in windows:
        close_window(window)
    for terminal in terminals:
        run(terminal.stop(), "a terminal to stop", HANG_S)
    link.stop()


def test_the_counter_without_the_inbox_says_who_holds_it_and_takes_it_over(
    qapp: QApplication, tmp_path: Path, pg_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="checkout_desktop.terminal")
    with loop.attached(qapp):
        link, terminals, windows = _two_counters(qapp, tmp_path, pg_url)
        try:
            first, second = terminals
            assert first.inbox.started and not second.inbox.started
            holder = first.counter
            assert holder is not None
            status = windows[1].status
            # Not "starting" forever: the holder, its computer's time of taking it, and where
            # the notifications go.
            spin_until(
                lambda: holder in status.listener.text(), "the holder in the status bar", HANG_S
            )
            assert status.listener.text().startswith(f"Inbox: at counter {holder} (since ")
            tip = status.listener.toolTip()
            assert f"counter {holder} on computer" in tip and "shared store" in tip, tip
            assert any(
                "held by counter" in r.getMessage() and holder in r.getMessage()
                for r in caplog.records
            ), [r.getMessage() for r in caplog.records]
            # The first counter's own bar shows its listener, not a holder line.
            assert "at counter" not in windows[0].status.listener.text()

            close_window(windows.pop(0))
            run(first.stop(), "the first counter to stop", HANG_S)
            terminals.remove(first)
            spin_until(lambda: second.inbox.started, "the second counter's takeover", HANG_S)
            # Then the field is this counter's own listener again.
            spin_until(
                lambda: status.listener.text().startswith(("Listener: on ", "Inbox: healthy")),
                "the second counter's own listener in its status bar",
                HANG_S,
            )
        finally:
            _close(link, terminals, windows)


def test_another_counters_settled_sale_leaves_no_open_attempt_in_the_status_bar(
    qapp: QApplication, tmp_path: Path, pg_url: str
) -> None:
    with loop.attached(qapp):
        link, terminals, windows = _two_counters(qapp, tmp_path, pg_url)
        try:
            first, second = terminals
            status = windows[1].status
            access = SandboxAccess.of_info(link.info.raw)
            # The service answers after a second: the second counter surely hears of the
            # attempt while it is still open, and of its charge once it is paid.
            response = run(_set_faults(link, {"latency_s": 1.0}), "the sandbox's latency", HANG_S)
            assert response == 200
            seen: set[str] = set()
            for _sale in range(2):
                sale = asyncio.ensure_future(sell_by_card(first.service, access))

                def sold(sale: asyncio.Future[Any] = sale) -> bool:
                    seen.add(status.attempts.text())
                    return sale.done()

                spin_until(sold, "a sale", HANG_S)
                outcome = sale.result()
                assert outcome.record is not None
                assert outcome.record.status == ChargeStatus.PAID
            # The second counter did hear of an attempt while it was open.
            assert "1 charge with unknown outcome: being checked" in seen, seen
            assert run(second.views.unresolved_count(), "the count", HANG_S) == 0
            spin_until(
                lambda: status.attempts.text() == "No open attempts",
                f"the second counter's true count (it shows {status.attempts.text()!r}, "
                f"after {sorted(seen)})",
                10.0,
            )
        finally:
            _close(link, terminals, windows)


async def _set_faults(link: Any, faults: dict[str, Any]) -> int:
    import httpx

    async with httpx.AsyncClient(timeout=10.0, trust_env=False) as http:
        response = await http.patch(
            f"{link.info.base_url}/_sandbox/faults",
            json=faults,
            headers={"X-Sandbox-Admin-Token": link.info.admin_token},
        )
    return response.status_code


def test_a_counter_counts_asks_about_and_tells_only_its_own_waiting_qrs(
    qapp: QApplication, tmp_path: Path, pg_url: str
) -> None:
    """On a shared store a QR another counter left waiting is that counter's: this counter's
    status bar does not count it, closing here neither asks about it nor offers to cancel it,
    and its payment is not announced here as a QR this counter let go."""
    from checkout_desktop.domain.records import PIX
    from tests.integration.qr_support import pay, qr_request, qr_tenders

    with loop.attached(qapp):
        link, terminals, windows = _two_counters(qapp, tmp_path, pg_url)
        try:
            second = terminals[1]
            sale = second.service.new_sale()
            mcid = f"{sale.sale_id}-01"
            outcome = run(
                second.service.charge(
                    sale_id=sale.sale_id,
                    request=qr_request(PIX, merchant_charge_id=mcid),
                    tenders=qr_tenders(PIX),
                ),
                "the second counter's QR",
                HANG_S,
            )
            assert outcome.awaiting_payment
            # The second counter counts it; the first does not.
            spin_until(
                lambda: "1 QR awaiting payment" in windows[1].status.attempts.text(),
                "the second counter to count its QR",
                HANG_S,
            )
            windows[0].status.refresh_attempts()
            spin_until(
                lambda: "QR" not in windows[0].status.attempts.text(),
                "the first counter's count",
                HANG_S,
            )
            assert windows[0]._waiting_qrs == ()
            # Paid: nothing at the first counter calls it a QR this counter let go.
            run(pay(link.info.base_url, link.info.admin_token, mcid), "the payment", HANG_S)
            spin_until(
                lambda: "QR" not in windows[1].status.attempts.text(),
                "the second counter to see it paid",
                HANG_S,
            )
            assert "see the note" not in windows[0].statusBar().currentMessage()
            assert windows[0].findChild(QWidget, "qrPaidNotice") is None
        finally:
            _close(link, terminals, windows)
