"""`checkout-desktop events`: JSON Lines and CSV exports of a real store, never a credential."""

from __future__ import annotations

import csv
import io
import json
import logging
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from checkout_desktop import cli
from checkout_desktop.domain.deliveries import NewEvent
from checkout_desktop.domain.enums import Verdict
from checkout_desktop.inbox.cli_events import _whole_file
from checkout_desktop.inbox.export import ExportError, parse_when
from checkout_desktop.inbox.intake import body_digest
from checkout_desktop.paths import app_paths
from checkout_desktop.store.sqlite import db
from checkout_desktop.store.sqlite.events import EventRepository
from tests.log_support import release_log_files  # noqa: F401 - applies to every test here

logger = logging.getLogger(__name__)

NOW = datetime.now(UTC).replace(microsecond=0)
SECRET = "whk_export_secret_value_123"


def event(
    age: timedelta, body: bytes, verdict: Verdict = Verdict.ACCEPTED, **fields: str
) -> NewEvent:
    return NewEvent(
        received_at=NOW - age,
        verdict=verdict,
        body=body,
        body_sha256=body_digest(body),
        headers={"Authorization": "[not stored: bare token]", "event-type": "X"},
        **fields,
    )


@pytest.fixture
def store(checkout_home: Path) -> Path:
    path = app_paths().ensure().database_file
    conn = db.connect(path)
    repo = EventRepository(conn)
    with db.transaction(conn):
        repo.insert(
            event(
                timedelta(days=3),
                b'{"type": "PAYMENT", "status": "PAID"}',
                merchant_charge_id="order-1",
                status="PAID",
                event_type="TransactionUpdateMessage",
            )
        )
        repo.insert(
            event(
                timedelta(hours=2),
                b'{"type": "PAYMENT", "status": "DENIED", "name": "=HYPERLINK(1)"}',
                merchant_charge_id="=cmd|' /C calc'!A0",
                status="DENIED",
            )
        )
        repo.insert(event(timedelta(minutes=5), b"\xff\xfe<not json>", Verdict.QUARANTINED))
        # A row written with a raw credential (not by the inbox): the export still masks it.
        raw = event(timedelta(minutes=1), b"<xml/>", Verdict.QUARANTINED)
        repo.insert(NewEvent(**{**raw.__dict__, "headers": {"authorization": f"Bearer {SECRET}"}}))
    conn.close()
    return path


def export(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = cli.main(["events", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_jsonl_export_of_everything(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = export(capsys)
    assert code == 0, err
    records = [json.loads(line) for line in out.splitlines()]
    assert [r["id"] for r in records] == [1, 2, 3, 4]
    assert records[0]["body"] == {"type": "PAYMENT", "status": "PAID"}
    assert records[0]["headers"]["Authorization"] == "[not stored: bare token]"
    assert records[2]["verdict"] == "quarantined"
    assert records[2]["body_base64"] == "//48bm90IGpzb24+"
    assert records[3]["body_text"] == "<xml/>"
    assert records[3]["headers"]["authorization"] == "[not stored: Bearer scheme]"
    assert SECRET not in out


def test_since_filter_and_csv(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = export(capsys, "--since", "1d", "--format", "csv")
    assert code == 0, err
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [r["id"] for r in rows] == ["2", "3", "4"]
    # Cells a spreadsheet would run as formulas are neutralised.
    assert rows[0]["merchant_charge_id"] == "'=cmd|' /C calc'!A0"
    assert rows[0]["status"] == "DENIED"
    assert json.loads(rows[0]["body"])["name"] == "=HYPERLINK(1)"
    assert SECRET not in out


def test_filters_and_output_file(
    store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "export.jsonl"
    code, out, err = export(
        capsys, "--verdict", "accepted", "--status", "PAID", "--output", str(target)
    )
    assert code == 0, err
    assert out == ""
    assert "exported 1 deliveries" in err
    (line,) = target.read_text(encoding="utf-8").splitlines()
    assert json.loads(line)["merchant_charge_id"] == "order-1"
    assert target.stat().st_mode & 0o077 == 0
    code, out, _ = export(capsys, "--until", (NOW - timedelta(days=1)).isoformat())
    assert [json.loads(x)["id"] for x in out.splitlines()] == [1]
    code, out, _ = export(capsys, "--search", "not json")
    assert [json.loads(x)["id"] for x in out.splitlines()] == [3]


def test_no_store_and_bad_time_are_clear_errors(
    checkout_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = export(capsys)
    assert code == 1
    assert "no store at" in err
    code, _, err = export(capsys, "--since", "last tuesday")
    assert code == 2
    assert "'last tuesday' is not a time" in err


def test_parse_when() -> None:
    now = datetime(2026, 3, 1, 12, tzinfo=UTC)
    assert parse_when("90m", now=now) == now - timedelta(minutes=90)
    assert parse_when("2w", now=now) == now - timedelta(weeks=2)
    assert parse_when("2026-02-01") == datetime(2026, 2, 1, tzinfo=UTC)
    assert parse_when("2026-02-01T09:00:00-03:00") == datetime(2026, 2, 1, 12, tzinfo=UTC)
    with pytest.raises(ExportError, match="ISO 8601"):
        parse_when("yesterday")


def test_an_export_never_writes_over_the_store_or_half_a_file(
    store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Pointing --output at the shop's own database (or its journal) is refused: the store and
    # its history stay whole.
    before = store.read_bytes()
    for target in (store, store.with_name(store.name + "-wal")):
        code, out, err = export(capsys, "--output", str(target))
        assert code == 2, err
        assert "store" in err and str(target) in err, err
        assert out == ""
    assert store.read_bytes() == before
    code, out, err = export(capsys)
    assert code == 0 and len(out.splitlines()) == 4, err
    # Any other file is replaced only by a whole export: one that fails leaves it as it was.
    kept = tmp_path / "previous.jsonl"
    kept.write_text("the previous export\n", encoding="utf-8")
    code, _, err = export(capsys, "--output", str(kept))
    assert code == 0, err
    assert len(kept.read_text(encoding="utf-8").splitlines()) == 4
    assert kept.stat().st_mode & 0o077 == 0
    whole = kept.read_text(encoding="utf-8")
    store.write_bytes(b"SQLite format 3\x00" + b"\x00" * 200)  # a store that cannot be read
    code, _, err = export(capsys, "--output", str(kept))
    assert code != 0 and "not an SQLite database" in err, err
    assert kept.read_text(encoding="utf-8") == whole

    # An export cut short half-way (a read that fails, a full disk) leaves it whole too.
    def cut_short() -> None:
        with _whole_file(kept) as out:
            out.write('{"half": ')
            raise OSError("no space left on device")

    with pytest.raises(OSError, match="no space left"):
        cut_short()
    assert kept.read_text(encoding="utf-8") == whole
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("previous")) == [
        "previous.jsonl"
    ]
