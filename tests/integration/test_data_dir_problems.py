"""A `--data-dir` that names a file, or a folder under one: one plain sentence and exit 2.

The terminal keeps its settings, store and logs in folders under the data folder; when the
folder itself (or a folder above it) is a file, the OS refuses with NotADirectoryError or
FileExistsError, which must not reach the owner as a traceback.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

logger = logging.getLogger(__name__)


def _console(*argv: str, **env: str) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if k not in ("LANG", "LC_ALL")}
    environment.update(env)
    environment.setdefault("LANG", "C.UTF-8")
    environment["QT_QPA_PLATFORM"] = "offscreen"
    return subprocess.run(
        [sys.executable, "-m", "checkout_desktop.cli", *argv],
        capture_output=True,
        text=True,
        env=environment,
        check=False,
        timeout=120,
    )


@pytest.mark.parametrize("where", ["the file", "under the file"])
@pytest.mark.parametrize("command", [["listen"], ["doctor"], ["run"]])
def test_a_data_folder_that_is_a_file_is_one_sentence_and_exit_2(
    tmp_path: Path, where: str, command: list[str]
) -> None:
    a_file = tmp_path / "notes.txt"
    a_file.write_text("the shop's notes\n", encoding="utf-8")
    data_dir = a_file if where == "the file" else a_file / "shop"
    result = _console("--data-dir", str(data_dir), *command)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert str(a_file) in lines[0]
    assert "is a file" in lines[0], lines[0]
    assert a_file.read_text(encoding="utf-8") == "the shop's notes\n"


def test_the_sentence_is_said_in_portuguese(tmp_path: Path) -> None:
    a_file = tmp_path / "notes.txt"
    a_file.write_text("x", encoding="utf-8")
    result = _console("--data-dir", str(a_file / "shop"), "doctor", LANG="pt_BR.UTF-8")
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert "is a file" not in result.stderr
    assert "é um arquivo" in result.stderr, result.stderr
