"""Tampered settings and instance folders: plain messages that name the file, nothing hangs.

A FIFO as settings.json hung start-up, very deep nesting and a huge integer gave tracebacks
(the latter without naming the file), and an instance folder others could write to was used.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from checkout_desktop import cli
from checkout_desktop.paths import InstanceFolderError, app_paths
from checkout_desktop.settings import MAX_SETTINGS_BYTES, SettingsError, load_settings
from tests.log_support import release_log_files  # noqa: F401 - applies to every test here

ROOT = Path(__file__).resolve().parents[2]


def _home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    (home / "config").mkdir(parents=True, mode=0o700)
    home.chmod(0o700)
    return home


def test_a_fifo_is_refused_without_waiting(tmp_path: Path) -> None:
    home = _home(tmp_path)
    os.mkfifo(home / "config" / "settings.json")
    # In a child process, so a regression hangs the child (and is killed), not the suite.
    result = subprocess.run(
        [sys.executable, "-m", "checkout_desktop.cli", "--data-dir", str(home), "events"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    # `events` does not read settings; `listen` does: check both paths.
    assert "Traceback" not in result.stderr
    with pytest.raises(SettingsError, match=r"settings\.json is not a regular file"):
        load_settings(app_paths(home))


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        (b'{"ui": ' * 5000 + b"1" + b"}" * 5000, "levels deep"),
        (b'{"reconcile_interval_s": ' + b"9" * 5000 + b"}", "settings.json"),
        (b'{"listener": {"port": ' + b"9" * 5000 + b"}}", "settings.json"),
        (b"\xff\xfe{}", "not UTF-8"),
        (b" " * (MAX_SETTINGS_BYTES + 10), "larger than settings can be"),
    ],
)
def test_hostile_settings_name_the_file(tmp_path: Path, content: bytes, needle: str) -> None:
    home = _home(tmp_path)
    target = home / "config" / "settings.json"
    target.write_bytes(content)
    with pytest.raises(SettingsError) as caught:
        load_settings(app_paths(home))
    message = str(caught.value)
    assert needle in message
    assert str(target) in message
    assert len(message) < 1000


def test_listen_reports_a_broken_settings_file_plainly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = _home(tmp_path)
    (home / "config" / "settings.json").write_bytes(b"[" * 100_000)
    code = cli.main(["--data-dir", str(home), "listen", "--port", "0", "--no-tunnel"])
    err = capsys.readouterr().err
    assert code == 2
    assert "settings.json" in err and "Traceback" not in err


def test_a_group_writable_instance_folder_is_refused_with_how_to_fix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = _home(tmp_path)
    (home / "data").mkdir(mode=0o700)
    (home / "data").chmod(0o777)
    with pytest.raises(InstanceFolderError, match="chmod 700"):
        app_paths(home).ensure()
    code = cli.main(["--data-dir", str(home), "listen", "--port", "0", "--no-tunnel"])
    err = capsys.readouterr().err
    assert code == 2
    assert "chmod 700" in err and "Traceback" not in err


def test_readable_folders_of_ours_are_tightened(tmp_path: Path) -> None:
    home = _home(tmp_path)
    for name in ("data", "logs"):
        (home / name).mkdir(mode=0o700)
        (home / name).chmod(0o755)
    app_paths(home).ensure()
    for name in ("config", "data", "logs"):
        assert stat.S_IMODE((home / name).stat().st_mode) == 0o700, name


def test_existing_files_of_ours_are_tightened_at_start(tmp_path: Path) -> None:
    import sqlite3

    from checkout_desktop.logsetup import setup_logging
    from checkout_desktop.store.sqlite import db

    home = _home(tmp_path)
    paths = app_paths(home).ensure()
    raw = sqlite3.connect(paths.database_file)
    raw.close()
    paths.database_file.chmod(0o644)
    log = paths.log_dir / "checkout-desktop.log.1"
    log.write_text("an old rotated log\n")
    log.chmod(0o644)
    db.connect(paths.database_file).close()
    setup_logging(paths.log_dir, console=False)
    assert stat.S_IMODE(paths.database_file.stat().st_mode) == 0o600
    assert stat.S_IMODE(log.stat().st_mode) == 0o600
