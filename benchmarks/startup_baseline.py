"""Start-up baseline: a bare QWebEngineView page that connects a QWebChannel object, then waits.

What startup.py compares the terminal against: the least any QtWebEngine + QWebChannel app
can do — create the QApplication, one view, one channel object, load a small local page that
loads qwebchannel.js and calls the object once. When that call arrives it prints

    READY {"ready": <time.monotonic() of the call>, "python": <time.monotonic() at start>}

and then waits for a line on stdin (or 60 s) before closing, so the caller can measure the
process tree's memory while it is up. Nothing leaves the machine: the page is inline and the
script comes from Qt's own resources.

    QT_QPA_PLATFORM=offscreen .venv/bin/python benchmarks/startup_baseline.py
"""

from __future__ import annotations

import time

STARTED = time.monotonic()

import json  # noqa: E402 - the start time is taken before anything else is imported
import logging  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402

logger = logging.getLogger(__name__)

LINGER_S = 60.0

PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>baseline</title>
<script src="qrc:///qtwebchannel/qwebchannel.js"></script></head>
<body><form><input id="a" autocomplete="off"><input id="b" autocomplete="off"></form>
<script>
new QWebChannel(qt.webChannelTransport, function (channel) {
  channel.objects.bridge.ready("connected");
});
</script></body></html>
"""


def main() -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        # Chromium refuses to run as root with its sandbox on (the terminal does the same).
        flags = os.environ.get("QTWEBENGINE_CHROMIUM_FLAGS", "")
        if "--no-sandbox" not in flags.split():
            os.environ["QTWEBENGINE_CHROMIUM_FLAGS"] = (flags + " --no-sandbox").strip()
    from PySide6.QtCore import QObject, QSocketNotifier, Qt, QTimer, QUrl, Slot
    from PySide6.QtWebChannel import QWebChannel
    from PySide6.QtWebEngineWidgets import QWebEngineView
    from PySide6.QtWidgets import QApplication

    QApplication.setAttribute(Qt.ApplicationAttribute.AA_ShareOpenGLContexts)
    app = QApplication(sys.argv[:1])

    class Bridge(QObject):
        @Slot(str)
        def ready(self, message: str) -> None:
            if message != "connected":
                print(f"FAILED the page said {message!r}", flush=True)
                app.exit(1)
                return
            marks = {"python": STARTED, "ready": time.monotonic()}
            print("READY " + json.dumps(marks), flush=True)

    bridge = Bridge()
    view = QWebEngineView()
    channel = QWebChannel(view.page())
    channel.registerObject("bridge", bridge)
    view.page().setWebChannel(channel)
    view.resize(480, 640)
    view.show()
    view.setHtml(PAGE, QUrl("qrc:///baseline/"))

    # Close on a line (or end of file) on stdin, or after LINGER_S.
    notifier = QSocketNotifier(sys.stdin.fileno(), QSocketNotifier.Type.Read)
    notifier.activated.connect(lambda *_: app.quit())
    QTimer.singleShot(int(LINGER_S * 1000), app.quit)
    code = app.exec()
    notifier.setEnabled(False)
    view.close()
    del view
    return code


if __name__ == "__main__":
    raise SystemExit(main())
