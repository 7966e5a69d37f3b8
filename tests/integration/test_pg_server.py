"""The private PostgreSQL test server: it runs, listens on its socket only, and keeps commits on."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import psycopg
import pytest

from tests import pg_cluster

pytestmark = pytest.mark.pg


def test_server_answers_on_its_socket_only(pg_server: str) -> None:
    with psycopg.connect(pg_server, autocommit=True) as conn:
        listen = conn.execute("SHOW listen_addresses").fetchone()
        commit = conn.execute("SHOW synchronous_commit").fetchone()
        version = conn.execute("SHOW server_version_num").fetchone()
    assert listen == ("",)
    assert commit == ("on",)
    assert version is not None
    assert int(version[0]) >= 130000


def test_each_test_gets_its_own_empty_database(pg_server: str, pg_url: str) -> None:
    with psycopg.connect(pg_url, autocommit=True) as conn:
        name = conn.execute("SELECT current_database()").fetchone()
        tables = conn.execute(
            "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'"
        ).fetchone()
        conn.execute("CREATE TABLE scratch (x int)")
    assert name is not None
    assert name[0].startswith("t_")
    assert tables == (0,)
    with psycopg.connect(pg_server, autocommit=True) as admin:
        listed = admin.execute(
            "SELECT 1 FROM pg_database WHERE datname = %s", (name[0],)
        ).fetchone()
    assert listed == (1,)


@pytest.mark.skipif(os.geteuid() != 0, reason="the folder check concerns runs as root")
def test_a_folder_the_server_user_cannot_reach_is_a_clear_error() -> None:
    with tempfile.TemporaryDirectory() as closed:
        Path(closed).chmod(0o700)
        with pytest.raises(pg_cluster.ClusterError, match="cannot write in"):
            pg_cluster.start(Path(closed) / "cluster")
