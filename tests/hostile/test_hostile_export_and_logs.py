"""`events` exports every row, as strict JSON; logs survive a full disk quietly.

The export once stopped at a deeply nested quarantined body (RecursionError; later rows were
never written) and could write bare NaN/Infinity. The log handler printed a traceback per
record while the disk was full, and a rotated log was created 0644.
"""

from __future__ import annotations

import base64
import errno
import json
import logging
import re
import stat
from datetime import UTC, datetime
from pathlib import Path

import pytest

from checkout_desktop import cli
from checkout_desktop.domain.deliveries import NewEvent
from checkout_desktop.domain.enums import Verdict
from checkout_desktop.domain.reasons import Reason, ReasonCode
from checkout_desktop.logsetup import OwnerOnlyRotatingFileHandler, setup_logging
from checkout_desktop.store.sqlite import db
from checkout_desktop.store.sqlite.events import EventRepository
from tests.log_support import release_log_files  # noqa: F401 - applies to every test here

BODIES = [
    b'{"type": "PAYMENT", "id": "first"}',
    b'{"type": "X", "data": ' + b"[" * 50_000 + b"]" * 50_000 + b"}",
    b'{"type": "X", "n": ' + b"7" * 6000 + b"}",
    b'{"type": "X", "v": NaN, "w": Infinity, "z": -Infinity}',
    b'{"type": "X", "id": "\\ud800"}',
    b"\xff\xfe\x00binary",
    b'{"type": "PAYMENT", "id": "last"}',
]


def _store_with_hostile_rows(home: Path) -> None:
    (home / "data").mkdir(parents=True, mode=0o700)
    home.chmod(0o700)
    conn = db.connect(home / "data" / "checkout.sqlite3")
    try:
        repo = EventRepository(conn)
        with db.transaction(conn):
            for n, body in enumerate(BODIES):
                repo.insert(
                    NewEvent(
                        received_at=datetime(2026, 3, 1, 12, n, tzinfo=UTC),
                        verdict=Verdict.QUARANTINED,
                        body=body,
                        body_sha256=f"{n:064x}",
                        headers={},
                        reason=Reason.of(ReasonCode.INBOX_CANNOT_ACCEPT),
                    )
                )
    finally:
        conn.close()


@pytest.mark.parametrize("fmt", ["jsonl", "csv"])
def test_every_row_is_exported_and_the_raw_ones_counted(
    tmp_path: Path, fmt: str, capsys: pytest.CaptureFixture[str]
) -> None:
    home = tmp_path / "home"
    _store_with_hostile_rows(home)
    out = tmp_path / f"export.{fmt}"
    code = cli.main(["--data-dir", str(home), "events", "--format", fmt, "--output", str(out)])
    err = capsys.readouterr().err
    assert code == 0, err
    text = out.read_text(encoding="utf-8")
    if fmt == "jsonl":
        lines = text.splitlines()
        assert len(lines) == len(BODIES)

        def strict(name: str) -> None:
            raise AssertionError(f"bare {name} in the export")

        records = [json.loads(line, parse_constant=strict) for line in lines]
        assert [r["id"] for r in records] == list(range(1, len(BODIES) + 1))
        for record, body in zip(records, BODIES, strict=True):
            if record.get("unrenderable"):
                assert base64.b64decode(record["body_base64"]) == body
        assert records[-1]["body"] == {"type": "PAYMENT", "id": "last"}
    else:
        assert "last" in text
    assert f"of {len(BODIES)} deliveries could not be rendered" in err or "raw" not in err
    assert f"exported {len(BODIES)} deliveries" in err


def test_a_full_disk_gives_one_notice_not_a_traceback_per_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    setup_logging(tmp_path, console=False)
    log = logging.getLogger("checkout_desktop.test_full_disk")
    handler = next(
        h for h in logging.getLogger().handlers if isinstance(h, OwnerOnlyRotatingFileHandler)
    )
    full = True
    real_emit = logging.FileHandler.emit

    def emit(self: logging.FileHandler, record: logging.LogRecord) -> None:
        if full:
            try:
                raise OSError(errno.ENOSPC, "No space left on device")
            except OSError:
                self.handleError(record)
            return
        real_emit(self, record)

    monkeypatch.setattr(logging.FileHandler, "emit", emit)
    for n in range(500):
        log.warning("line %d", n)
    full = False
    log.warning("after the disk has room again")
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert err.count("cannot be written") == 1
    assert err.count("can be written again") == 1
    assert "after the disk has room again" in (tmp_path / "checkout-desktop.log").read_text()
    assert handler is not None


def test_rotated_logs_are_owner_only(tmp_path: Path) -> None:
    import os

    old = os.umask(0o022)
    try:
        handler = OwnerOnlyRotatingFileHandler(
            tmp_path / "checkout-desktop.log", maxBytes=200, backupCount=3, encoding="utf-8"
        )
        log = logging.getLogger("checkout_desktop.test_rotation")
        log.addHandler(handler)
        log.propagate = False
        try:
            for n in range(50):
                log.warning("line %d with some words to fill the file", n)
        finally:
            log.removeHandler(handler)
            handler.close()
    finally:
        os.umask(old)
    files = sorted(tmp_path.glob("checkout-desktop.log*"))
    assert len(files) == 4
    for path in files:
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path.name


def test_no_spelling_of_a_card_number_survives_a_forced_rotation(tmp_path: Path) -> None:
    setup_logging(tmp_path, console=False)
    handler = next(
        h for h in logging.getLogger().handlers if isinstance(h, OwnerOnlyRotatingFileHandler)
    )
    handler.maxBytes = 300
    log = logging.getLogger("checkout_desktop.test_rotation_secrets")
    number = "5500000000000004"
    spellings = [
        number,
        "5500 0000 0000 0004",
        "5500.0000.0000.0004",
        "5500/0000/0000/0004",
        "5500\u00a00000\u00a00000\u00a00004",
        "".join(chr(0xFF10 + int(c)) for c in number),
    ]
    for n in range(40):
        log.warning("line %d: %s", n, spellings[n % len(spellings)])
    handler.doRollover()
    files = sorted(tmp_path.glob("checkout-desktop.log*"))
    assert len(files) > 1
    text = "".join(p.read_text(encoding="utf-8") for p in files)
    assert "line 39" in text
    assert "[card number]" in text
    for spelling in spellings:
        assert spelling not in text, spelling
    assert "0004" not in text
    # Times and line numbers are not mistaken for card numbers.
    stamp = re.compile(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2},\d{3} WARNING .*: line \d+: ")
    assert all(stamp.match(line) for line in text.splitlines())
