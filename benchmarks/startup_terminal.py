"""The terminal as startup.py runs it: `checkout-desktop run` with observers that print READY.

    .venv/bin/python benchmarks/startup_terminal.py HOME

runs `checkout-desktop --data-dir HOME run --listener-port 0` through the real command-line
entry point, with observers wrapped around a few functions (nothing else changes): they record
when the sandbox, the core, the window and the card page came up, fetch the access token as
soon as the core exists, and print one line

    READY {"python": <start>, "<stage>": <time.monotonic()>, ...}

when the main window is shown, its card page is ready (page loaded, SDK loaded, bridge
connected) and the token has arrived, or a FAILED line saying why. A line (or end of file) on
stdin then closes the window, and the terminal stops as it does for a user. Kept apart from
startup.py so that the measured process imports nothing of the benchmark's own.
"""

from __future__ import annotations

import time

CHILD_STARTED = time.monotonic()

import json  # noqa: E402 - the start time is taken before anything else is imported
import logging  # noqa: E402
import sys  # noqa: E402

logger = logging.getLogger(__name__)

CHILD_LINGER_S = 60.0


def _child_app(data_dir: str) -> int:
    """Run `checkout-desktop --data-dir DIR run --listener-port 0` with the READY observers."""
    import asyncio
    import importlib.abc
    import importlib.util
    from types import ModuleType
    from typing import Any

    marks: dict[str, float] = {"python": CHILD_STARTED}
    # The window too: the terminal may have its card page and token before the window is up,
    # and a shop sees nothing until it is.
    waiting = {"page", "token", "window"}
    state: dict[str, Any] = {"page": None, "reported": False}

    from checkout_desktop import app as app_module  # noqa: F401 - its import time counts
    from checkout_desktop import cli
    from checkout_desktop.sandbox import link as sandbox_link
    from checkout_desktop.ui import launch

    marks["imports"] = time.monotonic()

    def report(line: str) -> None:
        if state["reported"]:
            return
        state["reported"] = True
        print(line, flush=True)
        page = state["page"]
        if line.startswith("FAILED") and page is not None:
            page.window().close()

    def reached(name: str) -> None:
        marks[name] = time.monotonic()
        waiting.discard(name)
        if not waiting:
            report("READY " + json.dumps(marks))

    original_launch_sandbox = sandbox_link.launch_sandbox

    def launch_sandbox(*args: Any, **kwargs: Any) -> Any:
        marks["sandbox_begin"] = time.monotonic()
        return original_launch_sandbox(*args, **kwargs)

    original_link = sandbox_link.EarlySandbox.link

    async def link(self: Any) -> Any:
        result = await original_link(self)
        marks["sandbox"] = time.monotonic()
        return result

    original_start_sandbox = sandbox_link.start_sandbox

    def start_sandbox(*args: Any, **kwargs: Any) -> Any:
        marks["sandbox_begin"] = time.monotonic()
        result = original_start_sandbox(*args, **kwargs)
        marks["sandbox"] = time.monotonic()
        return result

    def observe_terminal(terminal_module: ModuleType) -> None:
        original_terminal_start = terminal_module.Terminal.start.__func__

        async def terminal_start(cls: Any, *args: Any, **kwargs: Any) -> Any:
            marks["core_begin"] = time.monotonic()
            terminal = await original_terminal_start(cls, *args, **kwargs)
            marks["core"] = time.monotonic()

            async def fetch_token() -> None:
                try:
                    await terminal.tokens.token()
                except Exception as exc:
                    report(f"FAILED the access token was not fetched: {type(exc).__name__}: {exc}")
                    return
                reached("token")

            state["token_task"] = asyncio.ensure_future(fetch_token())
            return terminal

        terminal_module.Terminal.start = classmethod(terminal_start)

    original_open_window = launch._open_window

    def open_window(*args: Any, **kwargs: Any) -> Any:
        marks["window_begin"] = time.monotonic()
        result = original_open_window(*args, **kwargs)
        reached("window")
        return result

    def observe_qt_app(qt_app: ModuleType) -> None:
        original_create_application = qt_app.create_application

        def create_application(*args: Any, **kwargs: Any) -> Any:
            application = original_create_application(*args, **kwargs)
            marks["qapp"] = time.monotonic()
            return application

        original_build_card_page = qt_app.build_card_page

        def build_card_page(*args: Any, **kwargs: Any) -> Any:
            marks["page_begin"] = time.monotonic()
            page = original_build_card_page(*args, **kwargs)
            marks["page_built"] = time.monotonic()
            state["page"] = page
            original_load = page.load

            def load() -> None:
                marks["page_load"] = time.monotonic()
                original_load()

            page.load = load
            page.ready.connect(lambda: reached("page"))
            page.sdk_unavailable.connect(lambda reason: report(f"FAILED card page: {reason}"))

            # Close the window (the terminal then stops as a user closing it would) on a line
            # or end of file on stdin, or after CHILD_LINGER_S.
            def close() -> None:
                if state.get("closing"):
                    return
                state["closing"] = True
                loop.remove_reader(sys.stdin.fileno())
                page.window().close()

            loop = asyncio.get_running_loop()
            loop.add_reader(sys.stdin.fileno(), close)
            loop.call_later(CHILD_LINGER_S, close)
            return page

        qt_app.build_card_page = build_card_page
        qt_app.create_application = create_application

    class ObserveOnImport(importlib.abc.MetaPathFinder):
        """Adds a module's observers when the terminal itself first imports it, so that the
        observers load nothing earlier than the terminal does (ui.qt_app, and the core's
        `terminal`, which the window imports only once its card page is loading)."""

        def __init__(self) -> None:
            self.observers = {
                "checkout_desktop.ui.qt_app": observe_qt_app,
                "checkout_desktop.terminal": observe_terminal,
            }

        def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
            observe = self.observers.pop(fullname, None)
            if observe is None:
                return None
            if not self.observers:
                sys.meta_path.remove(self)
            # The other finders find it: this one now returns None for the name.
            spec = importlib.util.find_spec(fullname)
            assert spec is not None
            assert spec.loader is not None
            loader: Any = spec.loader
            original_exec = loader.exec_module

            def exec_module(module: ModuleType) -> None:
                original_exec(module)
                observe(module)

            loader.exec_module = exec_module
            return spec

    sys.meta_path.insert(0, ObserveOnImport())
    sandbox_link.launch_sandbox = launch_sandbox
    sandbox_link.EarlySandbox.link = link  # type: ignore[method-assign]
    sandbox_link.start_sandbox = start_sandbox
    launch._open_window = open_window
    code = cli.main(["--data-dir", data_dir, "run", "--listener-port", "0"])
    if not state["reported"]:
        print(f"FAILED the terminal exited (code {code}) before its card page was ready")
    return code


def main() -> int:
    if len(sys.argv) != 2:
        print("usage: startup_terminal.py HOME", file=sys.stderr)
        return 2
    return _child_app(sys.argv[1])


if __name__ == "__main__":
    raise SystemExit(main())
