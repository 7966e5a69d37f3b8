"""Refresh the README screenshots: the app under Xvfb against the built-in sandbox.

    .venv/bin/python scripts/screenshots.py [--out docs/screenshots] [--language pt_BR|en]
        [--screen 1366x768] [--suffix -1024]

Re-runs itself under `xvfb-run` (a shop screen: 1366x768x24 unless told) unless $DISPLAY is
already set, places the window as on a shop PC (`ui/geometry.py`), starts the real
terminal (sandbox process, store, gateway, inbox, window) in a temporary instance folder, types
a sale and a sandbox test card, charges it, waits for its notification, and saves
charge-screen.png, charge-result.png, event-list.png, timeline.png and today.png (each name
followed by --suffix when given). Nothing touches the shop's own settings or
store. Like `--self-test`, it types the sandbox's public test card into the card page through
the self-test's JavaScript snippet: the number never passes through this script's Python code.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCREEN = "1366x768"

logger = logging.getLogger("screenshots")


def _under_xvfb(script: str, argv: list[str], screen: str) -> int:
    name = Path(script).stem
    if shutil.which("xvfb-run") is None:
        print(f"{name}: xvfb-run is missing (Debian: apt-get install xvfb xauth)", file=sys.stderr)
        return 2
    env = dict(os.environ, CHECKOUT_SCREENSHOTS_CHILD="1")
    env.pop("QT_QPA_PLATFORM", None)
    command = ["xvfb-run", "-a", "-s", f"-screen 0 {screen}x24", sys.executable, script, *argv]
    return subprocess.run(command, env=env, check=False).returncode


async def wait_for(predicate: object, what: str, limit_s: float = 30.0) -> None:
    """Let the loop run until `predicate()` holds; RuntimeError after `limit_s`."""
    deadline = time.monotonic() + limit_s
    while not predicate():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out waiting for {what}")
        await asyncio.sleep(0.05)


async def _shoot(out: Path, language: str, suffix: str) -> None:
    from PySide6.QtCore import QLocale
    from PySide6.QtWidgets import QApplication

    from checkout_desktop.doctor.probe import probe_for
    from checkout_desktop.paths import AppPaths
    from checkout_desktop.sandbox.link import start_sandbox
    from checkout_desktop.settings import Settings
    from checkout_desktop.terminal import Terminal
    from checkout_desktop.ui.card_page import SdkCredentialSource
    from checkout_desktop.ui.chromium import apply_profile_flags
    from checkout_desktop.ui.i18n import Translations, choose_locale
    from checkout_desktop.ui.main_window import MainWindow, merchant_of
    from checkout_desktop.ui.qt_app import build_card_page
    from checkout_desktop.ui.selftest import TEST_CARD_FILL_SCRIPT

    root = Path(tempfile.mkdtemp(prefix="checkout-screenshots-"))
    paths = AppPaths(root / "config", root / "data", root / "logs").ensure()
    settings = Settings(first_run_done=True)
    settings.ui.locale = language
    translations = Translations()
    translations.install(choose_locale(language))
    sandbox = start_sandbox(paths)
    terminal = None
    try:
        apply_profile_flags(settings, sandbox.sdk_endpoint)
        terminal = await Terminal.start(settings, paths, sandbox=sandbox, listener_port=0)
        card_page = build_card_page(
            settings, SdkCredentialSource(terminal.merchant_document, terminal.credentials)
        )
        window = MainWindow(
            settings=settings,
            bus=terminal.bus,
            service=terminal.service,
            views=terminal.views,
            events=terminal.events,
            card_page=card_page,
            merchant=merchant_of(settings.profile, terminal.merchant_document),
            persist=lambda _s: None,
            secrets=None,
        )
        window.show()
        window.adapter.replay(terminal.current_state())
        # The status bar's service and card-form hosts, checked as the real start does.
        probe = probe_for(
            settings.profile, terminal.bus, base_url=sandbox.info.api_url, sandbox=sandbox
        )
        probe.start()
        card_page.load()
        await wait_for(lambda: card_page.sdk_ready, "the card page")
        screen = window.charge_screen
        form = screen.form
        form.amount.set_centavos(25990)
        form.installments.setValue(3)
        form.soft_descriptor.setText("PADARIA SOL")
        form.customer_name.setText("Maria da Silva")
        form.customer_email.setText("maria@example.com")
        form.customer_document.setText("529.982.247-25")
        form.customer_phone.setText("(11) 98765-4321")
        filled: list[object] = []
        card_page.page.runJavaScript(TEST_CARD_FILL_SCRIPT, 0, filled.append)
        await wait_for(lambda: bool(filled), "the card form to be filled")
        # The self-test's snippet types its own holder: on the counter it is the customer.
        card_page.fill_holder(*form.holder())
        await asyncio.sleep(0.6)  # the brand badge and field checks render
        QApplication.processEvents()
        window.grab().save(str(out / f"charge-screen{suffix}.png"))

        done: list[object] = []
        screen.charge_finished.connect(done.append)
        screen.charge()
        await wait_for(lambda: bool(done), "the charge")
        mcid = screen.current_charge
        assert mcid is not None
        await wait_for(
            lambda: window.events_panel.model.rowCount() >= 1, "the charge's notification"
        )
        await asyncio.sleep(0.3)
        window.grab().save(str(out / f"charge-result{suffix}.png"))

        # A second sale authorized now and captured later, then partly refunded: a timeline
        # with every kind of input, and more rows in the event list.
        screen.new_sale()
        form.amount.set_centavos(8990)
        form.late_capture.setChecked(True)
        form.customer_name.setText("João Pereira")
        form.customer_email.setText("joao@example.com")
        form.customer_document.setText("111.444.777-35")
        form.customer_phone.setText("(21) 99876-5432")
        await wait_for(lambda: card_page.sdk_ready, "the card page")
        filled.clear()
        card_page.page.runJavaScript(TEST_CARD_FILL_SCRIPT, 0, filled.append)
        await wait_for(lambda: bool(filled), "the card form to be filled")
        done.clear()
        screen.charge()
        await wait_for(lambda: bool(done), "the second charge")
        second = screen.current_charge
        assert second is not None
        await terminal.service.capture(second)
        await terminal.service.refund(second, 2000)
        repo = terminal.service.store.repo

        def refunded() -> bool:
            record = repo.charge(second)
            return record is not None and record.refunded_amount == 2000

        await wait_for(refunded, "the refund")
        await wait_for(lambda: window.events_panel.model.rowCount() >= 3, "the notifications")
        await asyncio.sleep(0.5)

        window.tabs.setCurrentIndex(window.events_tab)
        panel = window.events_panel
        for row in range(panel.model.rowCount()):
            summary = panel.model.summary(row)
            if summary is not None and summary.merchant_charge_id == mcid:
                panel.table.selectRow(row)
                break
        await asyncio.sleep(0.3)
        window.grab().save(str(out / f"event-list{suffix}.png"))

        window.show_charge(second)
        history = window.history_panel
        # The capture's reply: the line that moved the charge from pre-authorized to paid.
        rows = history.timeline.records()
        capture = next(
            (n for n, r in enumerate(rows) if r.source == "reply" and r.new_status == "PAID"),
            len(rows) - 1,
        )
        history.timeline_view.selectRow(capture)
        await asyncio.sleep(0.3)
        window.grab().save(str(out / f"timeline{suffix}.png"))
        window.tabs.setCurrentIndex(window.today_tab)
        await asyncio.sleep(0.8)  # the figures refresh after the last changes
        window.day_totals.refresh()
        QApplication.processEvents()
        window.grab().save(str(out / f"today{suffix}.png"))
        for name in ("charge-screen", "charge-result", "event-list", "timeline", "today"):
            print(out / f"{name}{suffix}.png")
        QLocale.setDefault(QLocale.system())
        await probe.stop()
        window.close()
    finally:
        if terminal is not None:
            await terminal.stop()
        sandbox.stop()
        translations.remove()
        shutil.rmtree(root, ignore_errors=True)


Shoot = Callable[[Path, str, str], Awaitable[None]]
"""A script's pictures: (the output folder, the language, the name suffix)."""


def run_script(script: str, doc: str | None, shoot: Shoot) -> int:
    """The command line every screenshot script shares: its options, the re-run under Xvfb
    when there is no display, and `shoot` on the terminal's loop."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0] if doc else None)
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    parser.add_argument("--language", choices=("pt_BR", "en"), default="pt_BR")
    parser.add_argument("--screen", default=SCREEN, help="the Xvfb screen, WIDTHxHEIGHT")
    parser.add_argument("--suffix", default="", help="added to each picture's name")
    args = parser.parse_args()
    if os.environ.get("CHECKOUT_SCREENSHOTS_CHILD") != "1" and not os.environ.get("DISPLAY"):
        return _under_xvfb(script, sys.argv[1:], args.screen)
    logging.basicConfig(level=logging.WARNING)
    from checkout_desktop.ui import loop

    args.out.mkdir(parents=True, exist_ok=True)
    loop.run(shoot(args.out.resolve(), args.language, args.suffix))
    return 0


def main() -> int:
    return run_script(__file__, __doc__, _shoot)


if __name__ == "__main__":
    sys.exit(main())
