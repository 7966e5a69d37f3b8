"""Everything under the instance folder is owner-only while `listen` runs, and no card number
or secret reaches any file it writes, even when hostile notifications arrive."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.integration.test_listen_cli import HEADERS, TOKEN, ListenProcess, token_file

MASTERCARD = "5500000000000004"


@pytest.fixture
def listening(tmp_path: Path) -> Iterator[ListenProcess]:
    old = os.umask(0o022)  # a common umask: the terminal must not rely on a strict one
    try:
        process = ListenProcess(tmp_path / "home", ["--token-file", str(token_file(tmp_path))])
    finally:
        os.umask(old)
    yield process
    process.close()


def test_files_are_owner_only_and_hold_no_card_number_or_token(listening: ListenProcess) -> None:
    bodies = [
        {
            "type": "PAYMENT",
            "id": "h-1",
            "merchantChargeId": "o-1",
            "status": "PAID",
            "amount": 100,
            "cardNumber": MASTERCARD,
        },
        {
            "type": "NEW_KIND",
            "note": f"pan {MASTERCARD[:4]} {MASTERCARD[4:8]} {MASTERCARD[8:12]} {MASTERCARD[12:]}",
        },
    ]
    with httpx.Client(timeout=30, trust_env=False) as client:
        for body in bodies:
            response = client.post(
                listening.url,
                content=json.dumps(body).encode(),
                headers={**HEADERS, "X-Echo": TOKEN},
            )
            assert response.status_code in {200, 400}, response.text
        client.post(listening.url, content=b'{"broken": ' + MASTERCARD.encode(), headers=HEADERS)
    # While it runs: every folder 0700, every file 0600 (or stricter).
    problems = []
    for path in [listening.home, *listening.home.rglob("*")]:
        mode = stat.S_IMODE(path.lstat().st_mode)
        if mode & 0o077:
            problems.append(f"{path.relative_to(listening.home)} {mode:03o}")
    assert problems == []
    code, _ = listening.stop()
    assert code == 0
    written = b"".join(p.read_bytes() for p in listening.home.rglob("*") if p.is_file())
    assert MASTERCARD.encode() not in written
    assert TOKEN.encode() not in written
