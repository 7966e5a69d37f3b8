"""A private PostgreSQL cluster for the tests: initdb + pg_ctl in a temporary folder, socket only.

Used two ways: `scripts/test.sh` runs `python -m tests.pg_cluster start FOLDER` before pytest
(and `stop FOLDER` after) and exports the printed address as CHECKOUT_DESKTOP_TEST_PG; when
that variable is not set (a plain pytest run), the `pg_server` fixture in `tests/conftest.py`
starts one cluster for the session through `start()` below.

PostgreSQL refuses to run as root, so as root every server program runs as the `postgres`
system user (Debian's `postgresql` package creates it) in a folder that user owns. The server
listens on a Unix socket in that folder only (no TCP port), so parallel runs never collide.
"""

from __future__ import annotations

import argparse
import os
import pwd
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

TEST_PG_ENV = "CHECKOUT_DESKTOP_TEST_PG"
"""The address of a running test server (a libpq URL with the socket folder as host)."""
SERVER_USER = "postgres"
START_TIMEOUT_S = 60


class ClusterError(RuntimeError):
    """The test cluster could not be started; the message says why and what to install."""


@dataclass(frozen=True)
class Cluster:
    root: Path
    """The folder holding the data directory, the socket and the log."""
    url: str
    seconds: float
    """How long initdb + start took."""

    @property
    def data(self) -> Path:
        return self.root / "db"

    @property
    def log(self) -> Path:
        return self.root / "server.log"


def bin_dir() -> Path:
    """The folder of initdb/pg_ctl: pg_config's answer, or Debian's newest versioned folder."""
    pg_config = shutil.which("pg_config")
    if pg_config is not None:
        found = subprocess.run(
            [pg_config, "--bindir"], capture_output=True, text=True, check=False
        ).stdout.strip()
        if found and (Path(found) / "initdb").exists():
            return Path(found)
    versions = sorted(
        Path("/usr/lib/postgresql").glob("*/bin/initdb"),
        key=lambda p: int(p.parent.parent.name) if p.parent.parent.name.isdigit() else 0,
    )
    if versions:
        return versions[-1].parent
    on_path = shutil.which("initdb")
    if on_path is not None:
        return Path(on_path).parent
    raise ClusterError(
        "PostgreSQL's server programs (initdb, pg_ctl) are not installed; on Debian run "
        "`apt-get install postgresql` (scripts/setup.sh does it)"
    )


def _as_server_user() -> list[str]:
    """The prefix that runs a command as the user the server may run as."""
    if os.geteuid() != 0:
        return []
    try:
        pwd.getpwnam(SERVER_USER)
    except KeyError:
        raise ClusterError(
            f"running as root, and there is no {SERVER_USER!r} system user to run PostgreSQL "
            "as (Debian's postgresql package creates it)"
        ) from None
    return ["runuser", "-u", SERVER_USER, "--"]


def _run(command: list[str], what: str) -> None:
    done = subprocess.run(
        command, capture_output=True, text=True, check=False, timeout=START_TIMEOUT_S
    )
    if done.returncode != 0:
        output = (done.stderr or done.stdout).strip()[-2000:]
        raise ClusterError(f"{what} failed (exit {done.returncode}): {output}")


def url_for(root: Path, dbname: str = "postgres") -> str:
    return f"postgresql:///{dbname}?host={quote(str(root), safe='')}&user={SERVER_USER}"


def start(root: Path) -> Cluster:
    """initdb + pg_ctl start in `root` (created, or an empty folder); returns its address."""
    began = time.monotonic()
    binaries = bin_dir()
    prefix = _as_server_user()
    root.mkdir(parents=True, exist_ok=True)
    if prefix:
        entry = pwd.getpwnam(SERVER_USER)
        os.chown(root, entry.pw_uid, entry.pw_gid)
        # Every folder above must let the server user through (pytest's own temporary
        # folders are root-only): ask it directly rather than reason about modes.
        reachable = subprocess.run([*prefix, "test", "-w", str(root)], check=False)
        if reachable.returncode != 0:
            raise ClusterError(
                f"the {SERVER_USER} user cannot write in {root} (a folder above it is closed "
                "to other users); put the cluster under /tmp"
            )
    root.chmod(0o700)
    cluster = Cluster(root=root, url=url_for(root), seconds=0.0)
    _run(
        [
            *prefix,
            str(binaries / "initdb"),
            "-D",
            str(cluster.data),
            "-A",
            "trust",
            "-U",
            SERVER_USER,
            "--no-sync",
            "-E",
            "UTF8",
            "--locale=C.UTF-8",
        ],
        "initdb",
    )
    # The superuser logs in over the socket without a password (the fixtures create and drop
    # databases as it); every other role must give its password, so the store's login with a
    # password from the keychain, and the refusal of a wrong one, are really tested.
    hba = cluster.data / "pg_hba.conf"
    hba.write_text(
        f"local all {SERVER_USER} trust\nlocal all all scram-sha-256\n", encoding="ascii"
    )
    if prefix:
        entry = pwd.getpwnam(SERVER_USER)
        os.chown(hba, entry.pw_uid, entry.pw_gid)
    options = " ".join(
        [
            f"-k {root}",
            "-c listen_addresses=''",
            # A test server on a busy 2-core machine: nothing in the tests depends on the
            # disk surviving a power cut, which is all fsync buys. synchronous_commit stays
            # on (the store asks for it), so commits still wait for the WAL write.
            "-c fsync=off",
            "-c full_page_writes=off",
            "-c max_connections=200",
            "-c shared_buffers=64MB",
        ]
    )
    _run(
        [
            *prefix,
            str(binaries / "pg_ctl"),
            "-D",
            str(cluster.data),
            "-o",
            options,
            "-l",
            str(cluster.log),
            "-w",
            "-t",
            str(START_TIMEOUT_S),
            "start",
        ],
        "pg_ctl start",
    )
    return Cluster(root=root, url=cluster.url, seconds=time.monotonic() - began)


def stop(root: Path) -> None:
    """Stop the cluster in `root` (fast shutdown) and remove the folder."""
    data = root / "db"
    if (data / "postmaster.pid").exists():
        pg_ctl = str(bin_dir() / "pg_ctl")
        subprocess.run(
            [*_as_server_user(), pg_ctl, "-D", str(data), "-m", "fast", "-w", "stop"],
            capture_output=True,
            check=False,
            timeout=START_TIMEOUT_S,
        )
    shutil.rmtree(root, ignore_errors=True)


def restart(root: Path) -> None:
    """Restart the cluster in `root` (fast shutdown, same options): every open connection is
    dropped, as when the shop's server restarts under the counters."""
    _run(
        [
            *_as_server_user(),
            str(bin_dir() / "pg_ctl"),
            "-D",
            str(root / "db"),
            "-l",
            str(root / "server.log"),
            "-m",
            "fast",
            "-w",
            "-t",
            str(START_TIMEOUT_S),
            "restart",
        ],
        "pg_ctl restart",
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=("start", "stop"))
    parser.add_argument("folder", type=Path)
    args = parser.parse_args(argv)
    if args.action == "stop":
        stop(args.folder)
        return 0
    try:
        cluster = start(args.folder)
    except (ClusterError, OSError, subprocess.TimeoutExpired) as exc:
        print(f"pg_cluster: {exc}", file=sys.stderr)
        return 1
    print(f"pg_cluster: started in {cluster.seconds:.1f} s", file=sys.stderr)
    print(cluster.url)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
