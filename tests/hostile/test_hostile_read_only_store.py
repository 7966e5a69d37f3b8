"""A store on a read-only disk: refused in plain words with its exit code, never "listening".

Permissions do not stop root, so the store is put on a small tmpfs remounted read-only, which
stops everyone (mounting takes root; skipped where that is not allowed).
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from checkout_desktop import cli
from checkout_desktop.paths import app_paths
from checkout_desktop.store.sqlite import db
from tests.hostile.tmpfs import mount, small_tmpfs


def _listen(home: Path, tmp_path: Path) -> int:
    """`checkout-desktop listen` on `home`'s store, as a shop would start it; its exit code."""
    token = tmp_path / "token"
    token.write_text("whk_store_token_0123456789")
    token.chmod(0o600)
    return cli.main(
        [
            "--data-dir",
            str(home),
            "listen",
            "--port",
            "0",
            "--no-tunnel",
            "--token-file",
            str(token),
        ]
    )


@pytest.fixture
def read_only_home(tmp_path: Path) -> Iterator[Path]:
    with small_tmpfs(tmp_path / "disk", "8m") as disk:
        home = disk / "home"
        paths = app_paths(home).ensure()
        db.connect(paths.database_file).close()  # a good store, written while it could be
        remounted = mount("-o", "remount,ro", str(disk))
        assert remounted.returncode == 0, remounted.stderr
        yield home


def test_a_store_on_a_read_only_disk_is_refused_plainly(read_only_home: Path) -> None:
    store = app_paths(read_only_home).database_file
    before = store.read_bytes()
    with pytest.raises(db.StoreError) as caught:
        db.connect(store)
    assert isinstance(caught.value, db.StoreNotWritable | db.StoreUnavailable)
    assert "checkout.sqlite3" in str(caught.value)
    assert store.read_bytes() == before


@pytest.mark.expected_errors("the webhook listener did not start")
def test_listen_and_events_on_a_read_only_disk_exit_3(
    read_only_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = _listen(read_only_home, tmp_path)
    err = capsys.readouterr().err
    assert code == 3, err
    assert "Traceback" not in err
    assert "checkout.sqlite3" in err
    assert "another program" not in err  # not blamed on the port
    code = cli.main(["--data-dir", str(read_only_home), "events", "--format", "jsonl"])
    err = capsys.readouterr().err
    assert code in {0, 3}, err  # reading a read-only store may work; it must never crash
    assert "Traceback" not in err


def test_the_window_on_a_read_only_disk_says_so_and_exits_3(read_only_home: Path) -> None:
    import os
    import sys

    result = subprocess.run(
        [sys.executable, "-m", "checkout_desktop.cli", "--listener-port", "0"],
        env={
            **os.environ,
            "CHECKOUT_DESKTOP_HOME": str(read_only_home),
            "QT_QPA_PLATFORM": "offscreen",
        },
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    output = result.stdout + result.stderr
    # 2: the instance folder cannot be written (its lock is the first thing the window writes).
    assert result.returncode == 2, output
    assert "Traceback" not in output
    assert str(read_only_home / "data") in output


@pytest.fixture
def full_disk_home(tmp_path: Path) -> Iterator[Path]:
    with small_tmpfs(tmp_path / "full", "2m") as disk:
        home = disk / "home"
        app_paths(home).ensure()
        # Fill the disk to the last block before the store is ever created.
        with (disk / "ballast").open("wb") as ballast:
            try:
                while True:
                    ballast.write(b"\0" * 65536)
                    ballast.flush()
            except OSError:
                pass
        yield home


@pytest.mark.expected_errors("the webhook listener did not start")
def test_listen_on_a_full_disk_at_start_says_so_and_exits_3(
    full_disk_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = _listen(full_disk_home, tmp_path)
    err = capsys.readouterr().err
    assert code == 3, err
    assert "Traceback" not in err
    assert "checkout.sqlite3" in err
