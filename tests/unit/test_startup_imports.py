"""What start-up loads before the card page and the sandbox's start: the wire models wait.

Building the service's wire models (pydantic) is ≈ 100 ms of CPU. The terminal loads them on
a worker thread while Chromium starts the card page (`ui/launch.py`), and the sandbox at its
first charge or enrollment; whatever the window's main thread or the sandbox imports before
that must not pull them in. Each check runs in a fresh interpreter, so that nothing this test
session already imported hides an import.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

HEAVY = ("checkout_desktop.domain.wire", "checkout_desktop.domain.three_ds")


def _loaded_after(
    modules: list[str], *, qt: bool = False, heavy: tuple[str, ...] = HEAVY
) -> list[str]:
    code = (
        "import importlib, json, sys\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        f"print(json.dumps(sorted(m for m in {list(heavy)!r} if m in sys.modules)))\n"
    )
    loaded: list[str] = _printed_by(code, qt=qt)
    return loaded


def _printed_by(code: str, *, qt: bool = False) -> Any:
    """The JSON that `code`, run in a fresh interpreter, prints last."""
    env = dict(os.environ)
    if qt:
        env.setdefault("QT_QPA_PLATFORM", "offscreen")
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_settings_and_the_card_page_do_not_load_the_wire_models() -> None:
    # What `checkout-desktop run` imports before it asks Chromium for the card page.
    before_card_page = [
        "checkout_desktop.app",
        "checkout_desktop.cli",
        "checkout_desktop.sandbox.link",
        "checkout_desktop.settings",
        "checkout_desktop.ui.loop",
        "checkout_desktop.ui.qt_app",
        "checkout_desktop.ui.chromium",
        "checkout_desktop.ui.card_page",
        "checkout_desktop.ui.launch",
    ]
    assert _loaded_after(before_card_page, qt=True) == []


def test_launching_the_sandbox_does_not_load_its_state_model() -> None:
    # The terminal launches the sandbox and reads its announcement (credentials included)
    # before the QApplication exists; the sandbox's own state model is the sandbox's business.
    launch = ["checkout_desktop.sandbox.link", "checkout_desktop.sandbox.process"]
    assert _loaded_after(launch, heavy=("checkout_desktop.sandbox.state",)) == []


def test_the_sandbox_starts_without_the_wire_models() -> None:
    # The modules `SandboxServer.start` imports to serve the token, the SDK and every route.
    sandbox_start = [
        "checkout_desktop.sandbox.cli",
        "checkout_desktop.sandbox.server",
        "checkout_desktop.sandbox.api",
        "checkout_desktop.sandbox.charges",
        "checkout_desktop.sandbox.sdk_backend",
        "checkout_desktop.sandbox.three_ds",
    ]
    assert _loaded_after(sandbox_start) == []


def test_the_check_sees_the_wire_models_when_a_module_loads_them() -> None:
    # The check itself can fail: the core's modules do load them.
    assert _loaded_after(["checkout_desktop.charges.service"]) == sorted(HEAVY)


def test_the_command_line_keeps_pydantic_from_searching_for_plugins() -> None:
    # The search reads every installed package's metadata at the first model (≈ 13 ms).
    code = (
        "import contextlib, importlib.metadata, json, os, sys\n"
        "os.environ.pop('PYDANTIC_DISABLE_PLUGINS', None)\n"
        "searched = []\n"
        "real = importlib.metadata.entry_points\n"
        "def counted(**kwargs):\n"
        "    searched.append(kwargs.get('group'))\n"
        "    return real(**kwargs)\n"
        "importlib.metadata.entry_points = counted\n"
        "from checkout_desktop import cli\n"
        "with contextlib.suppress(SystemExit), contextlib.redirect_stdout(sys.stderr):\n"
        "    cli.main(['--version'])\n"
        "from checkout_desktop.settings import Settings\n"
        "Settings()\n"
        "print(json.dumps([os.environ.get('PYDANTIC_DISABLE_PLUGINS'), searched]))\n"
    )
    assert _printed_by(code) == ["__all__", []]


def test_the_sandbox_is_launched_before_qt_is_imported(tmp_path: Path) -> None:
    # Importing PySide6 is ≈ 65 ms of the main thread's CPU; the built-in sandbox, a second
    # process, starts on the other core meanwhile only if it is launched first.
    code = (
        "import json, sys\n"
        "import checkout_desktop.sandbox.link as link\n"
        "seen = []\n"
        "class Launched(Exception):\n"
        "    pass\n"
        "def launch(paths):\n"
        "    seen.extend(sorted(m for m in sys.modules if m.split('.')[0] == 'PySide6'))\n"
        "    raise Launched\n"
        "link.wants_builtin_sandbox = lambda paths, profile: True\n"
        "link.launch_sandbox = launch\n"
        "from checkout_desktop import cli\n"
        "try:\n"
        f"    cli.main(['--data-dir', {str(tmp_path)!r}, 'run'])\n"
        "except Launched:\n"
        "    print(json.dumps({'launched': True, 'qt': seen}))\n"
        "else:\n"
        "    print(json.dumps({'launched': False, 'qt': seen}))\n"
    )
    assert _printed_by(code, qt=True) == {"launched": True, "qt": []}
