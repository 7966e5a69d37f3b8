"""Composition root: builds the terminal on one qasync loop and runs it."""

from __future__ import annotations

import argparse
import logging
import os
import sys

from checkout_desktop.logsetup import setup_logging
from checkout_desktop.paths import app_paths
from checkout_desktop.settings import SettingsError, load_settings

logger = logging.getLogger(__name__)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--profile", metavar="NAME", help="use this environment profile instead of the saved one"
    )
    parser.add_argument(
        "--developer", action="store_true", help="allow the web view's developer tools"
    )


def run(args: argparse.Namespace) -> int:
    paths = app_paths(args.data_dir).ensure()
    setup_logging(paths.log_dir, level=logging.DEBUG if args.verbose else logging.INFO)
    try:
        settings = load_settings(paths)
        if args.profile:
            settings.active_profile = args.profile
        _ = settings.profile
    except SettingsError as exc:
        print(f"checkout-desktop: {exc}", file=sys.stderr)
        return 2
    # Chromium flags must be decided before QtWebEngine starts; as root it needs --no-sandbox.
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        flags = os.environ.get("QTWEBENGINE_CHROMIUM_FLAGS", "")
        if "--no-sandbox" not in flags:
            os.environ["QTWEBENGINE_CHROMIUM_FLAGS"] = f"{flags} --no-sandbox".strip()

    import qasync
    from PySide6.QtWidgets import QApplication

    from checkout_desktop.ui.main_window import MainWindow

    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("checkout-desktop")
    window = MainWindow(settings)
    window.show()
    loop = qasync.QEventLoop(app)
    with loop:
        loop.run_until_complete(_until_closed(app))
    return 0


async def _until_closed(app: object) -> None:
    import asyncio

    from PySide6.QtWidgets import QApplication

    assert isinstance(app, QApplication)
    closed = asyncio.get_running_loop().create_future()

    def _closed() -> None:
        if not closed.done():
            closed.set_result(None)

    app.lastWindowClosed.connect(_closed)
    await closed
