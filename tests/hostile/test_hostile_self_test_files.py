"""After `checkout-desktop --self-test`, no file it left holds the card it typed or a secret.

The self-test types the sandbox's test card into the real card page, charges it and receives
its notification; its own instance folder is temporary, and the terminal's log goes to the
shop's instance folder. Both places (the temporary one through TMPDIR) are searched.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from checkout_desktop.sandbox.credentials import (
    DEFAULT_CLIENT_SECRET,
    DEFAULT_TRANSPARENT_TOKEN,
    DEFAULT_WEBHOOK_TOKEN,
)

pytestmark = [pytest.mark.webengine, pytest.mark.slow]

CARD = "4111111111111111"
SPELLINGS = (CARD, "4111 1111 1111 1111", "4111-1111-1111-1111")
SECRETS = (DEFAULT_CLIENT_SECRET, DEFAULT_TRANSPARENT_TOKEN, DEFAULT_WEBHOOK_TOKEN)


def test_the_self_test_leaves_no_card_number_or_secret_in_any_file(tmp_path: Path) -> None:
    home, scratch = tmp_path / "home", tmp_path / "tmp"
    scratch.mkdir()
    result = subprocess.run(
        [sys.executable, "-m", "checkout_desktop.cli", "--self-test"],
        env={
            **os.environ,
            "CHECKOUT_DESKTOP_HOME": str(home),
            "TMPDIR": str(scratch),
            "QT_QPA_PLATFORM": "offscreen",
        },
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "self-test PASS" in result.stdout
    files = [path for path in tmp_path.rglob("*") if path.is_file() and not path.is_symlink()]
    assert any(path.suffix == ".log" for path in files), "the run wrote no log to search"
    found = []
    for path in files:
        data = path.read_bytes()
        for needle in (*SPELLINGS, *SECRETS):
            if needle.encode() in data:
                found.append(f"{path.relative_to(tmp_path)}: {needle[:4]}…")
    assert found == []
    for stream in (result.stdout, result.stderr):
        for needle in (*SPELLINGS, *SECRETS):
            assert needle not in stream
