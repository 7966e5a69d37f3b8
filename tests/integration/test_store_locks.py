"""Opening the store a second time in one process keeps the first connection's SQLite locks.

POSIX drops every lock a process holds on a file as soon as the process closes *any*
descriptor of that file. Opening a second connection used to read the database's header and
tighten the -wal/-shm modes through descriptors of its own, and closing them silently released
the locks SQLite held for the first connection. Another process could then believe it was the
last user: it checkpointed, deleted the WAL and the shared-memory file (or truncated the
latter, which kills the first process with SIGBUS), and every commit the first connection made
afterwards went to a deleted WAL — acknowledged, then lost.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

# The scenario runs in a child interpreter: on the broken code it can die of SIGBUS, which must
# fail this test, not the test run.
_SCENARIO = textwrap.dedent(
    """
    import sqlite3, subprocess, sys
    from pathlib import Path
    from checkout_desktop.store.sqlite.db import connect, transaction

    path = Path(sys.argv[1])
    first = connect(path)
    with transaction(first):
        first.execute("CREATE TABLE probe (n INTEGER)")
        first.execute("INSERT INTO probe VALUES (1)")
    second = connect(path)  # the terminal opens several connections to its store
    readonly = connect(path, readonly=True)
    # Another process (a CLI command, a second tool) opens the store and goes away.
    subprocess.run(
        [sys.executable, "-c", sys.argv[2], str(path)], check=True, timeout=60
    )
    with transaction(first):
        first.execute("INSERT INTO probe VALUES (2)")
    with transaction(second):
        second.execute("INSERT INTO probe VALUES (3)")
    fresh = sqlite3.connect(path)
    print(sorted(n for (n,) in fresh.execute("SELECT n FROM probe")))
    """
)

_VISITOR = textwrap.dedent(
    """
    import sqlite3, sys
    conn = sqlite3.connect(sys.argv[1])
    conn.execute("SELECT count(*) FROM probe").fetchone()
    conn.close()
    """
)


@pytest.mark.parametrize("round_", range(3))
def test_a_second_connection_keeps_the_first_ones_commits_safe(tmp_path: Path, round_: int) -> None:
    done = subprocess.run(
        [sys.executable, "-c", _SCENARIO, str(tmp_path / "store.sqlite3"), _VISITOR],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    # Every commit made after the visitor left is in the file a new reader opens.
    assert done.stdout.strip() == "[1, 2, 3]", done.stdout
