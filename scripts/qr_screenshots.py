"""Refresh the README's QR screenshots: the PIX panel, the customer display, a paid wallet QR.

    .venv/bin/python scripts/qr_screenshots.py [--out docs/screenshots] [--language pt_BR|en]
        [--screen 1366x768] [--suffix -1024]

Re-runs itself under `xvfb-run` (a shop screen: 1366x768x24 unless told) unless $DISPLAY is
set, starts the real terminal (sandbox process, store, gateway, inbox, window and the customer
display) in a temporary instance folder, charges a PIX sale and saves qr-panel.png and
customer-display.png while the QR waits; then the sandbox's simulated customer pays a PicPay
wallet QR: qr-paid.png and customer-display-paid.png (each name followed by --suffix when
given). Nothing touches the shop's own settings or store, and no card is typed.
"""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from pathlib import Path

# The command line, the re-run under Xvfb and the wait are the README screenshots' own.
from screenshots import run_script, wait_for


async def _shoot(out: Path, language: str, suffix: str) -> None:
    from PySide6.QtCore import QLocale
    from PySide6.QtWidgets import QApplication

    from checkout_desktop.domain.records import PIX, WALLET
    from checkout_desktop.paths import AppPaths
    from checkout_desktop.sandbox.link import start_sandbox
    from checkout_desktop.settings import Settings
    from checkout_desktop.terminal import Terminal
    from checkout_desktop.ui.card_page import SdkCredentialSource
    from checkout_desktop.ui.chromium import apply_profile_flags
    from checkout_desktop.ui.i18n import Translations, choose_locale
    from checkout_desktop.ui.main_window import MainWindow, merchant_of
    from checkout_desktop.ui.qt_app import build_card_page

    root = Path(tempfile.mkdtemp(prefix="checkout-qr-screenshots-"))
    paths = AppPaths(root / "config", root / "data", root / "logs").ensure()
    settings = Settings(first_run_done=True)
    settings.ui.locale = language
    settings.ui.shop_name = "Padaria Sol"
    settings.qr.customer_display = True
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
            merchant=merchant_of(settings.profile, terminal.merchant_document, "Padaria Sol"),
            persist=lambda _s: None,
            secrets=None,
        )
        window.show()
        window.adapter.replay(terminal.current_state())
        screen = window.charge_screen
        screen.set_payer(sandbox.pay_qr)
        display = window.customer_display
        assert display is not None
        display.resize(800, 600)

        async def sale(kind: str, amount: int) -> None:
            screen.new_sale()
            form = screen.form
            form.amount.set_centavos(amount)
            form.customer_name.setText("Maria da Silva")
            form.customer_email.setText("maria@example.com")
            form.customer_document.setText("529.982.247-25")
            form.customer_phone.setText("(11) 98765-4321")
            screen.tender_bar.choose(kind)
            done: list[object] = []
            screen.charge_finished.connect(done.append)
            screen.charge()
            await wait_for(lambda: bool(done), f"the {kind} QR")
            screen.charge_finished.disconnect(done.append)
            await asyncio.sleep(0.4)
            QApplication.processEvents()

        await sale(PIX, 4590)
        window.grab().save(str(out / f"qr-panel{suffix}.png"))
        display.grab().save(str(out / f"customer-display{suffix}.png"))

        await sale(WALLET, 2590)
        screen.qr_panel.simulate_button.click()
        await wait_for(lambda: screen.stack.currentWidget() is screen.result, "the paid wallet QR")
        await asyncio.sleep(0.4)
        QApplication.processEvents()
        window.grab().save(str(out / f"qr-paid{suffix}.png"))
        display.grab().save(str(out / f"customer-display-paid{suffix}.png"))
        for name in ("qr-panel", "customer-display", "qr-paid", "customer-display-paid"):
            print(out / f"{name}{suffix}.png")
        QLocale.setDefault(QLocale.system())
        window.request_close()
    finally:
        if terminal is not None:
            await terminal.stop()
        sandbox.stop()
        translations.remove()
        shutil.rmtree(root, ignore_errors=True)


def main() -> int:
    return run_script(__file__, __doc__, _shoot)


if __name__ == "__main__":
    raise SystemExit(main())
