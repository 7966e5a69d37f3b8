"""How long `checkout-desktop doctor` takes to say that the service cannot be reached.

Three runs of the real command, each in its own process on a fresh instance folder: against a
host that accepts connections and never answers (a black-holed service: the slow case), against
a port that refuses connections (the fast case), and, as the baseline, a run that stops at its
options (process start and imports only). Goal: the silent host is reported within 10 s.
Only 127.0.0.1 is contacted.

    .venv/bin/python benchmarks/doctor_unreachable.py [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from checkout_desktop.paths import app_paths  # noqa: E402
from checkout_desktop.settings import Settings, save_settings  # noqa: E402

logger = logging.getLogger(__name__)

GOAL_S = 10.0


def _home(base_url: str) -> Path:
    home = Path(tempfile.mkdtemp(prefix="doctor-bench-"))
    paths = app_paths(str(home)).ensure()
    settings = Settings(first_run_done=True, active_profile="production")
    production = settings.profiles["production"]
    production.base_url = production.auth_url = base_url
    production.client_id = "bench-client"
    production.merchant_document = "12345678000195"
    production.sdk_backend_host = "localhost"
    settings.listener.port = 0
    save_settings(settings, paths)
    secret = home / "secret"
    secret.write_text("bench_secret_1\n")
    secret.chmod(0o600)
    return home


def _run(home: Path, *args: str) -> tuple[float, int, dict[str, object] | None]:
    env = dict(os.environ, PYTHONPATH=str(ROOT), CHECKOUT_DESKTOP_HOME=str(home))
    # No keychain daemon is needed: the secrets come from files.
    env.pop("DBUS_SESSION_BUS_ADDRESS", None)
    started = time.monotonic()
    result = subprocess.run(
        [sys.executable, "-m", "checkout_desktop.cli", "doctor", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    took = time.monotonic() - started
    report = None
    lines = result.stdout.strip().splitlines()
    if lines and lines[-1].startswith("{"):
        report = json.loads(lines[-1])
    return took, result.returncode, report


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, choices=range(1, 11), metavar="N")
    args = parser.parse_args()
    secrets = ("--language", "en", "--no-save")
    figures: dict[str, list[float]] = {"baseline": [], "refused": [], "silent": []}
    inner: list[float] = []
    with socket.socket() as silent, socket.socket() as refusing:
        silent.bind(("127.0.0.1", 0))
        silent.listen(64)  # accepts, never answers
        refusing.bind(("127.0.0.1", 0))  # bound, not listening: refuses
        for _ in range(args.runs):
            home = _home("https://localhost:1")
            took, code, _ = _run(home, "--profile", "no-such-profile")
            if code != 2:
                raise SystemExit(f"the baseline run exited {code}, not 2")
            figures["baseline"].append(took)
            for name, port in (
                ("refused", refusing.getsockname()[1]),
                ("silent", silent.getsockname()[1]),
            ):
                home = _home(f"https://localhost:{port}")
                file_args = ("--client-secret-file", str(home / "secret"))
                took, code, report = _run(home, *secrets, *file_args)
                if code != 1 or report is None:
                    raise SystemExit(f"doctor against the {name} host: exit {code}, {report}")
                figures[name].append(took)
                if name == "silent":
                    inner.append(float(report["elapsed_s"]))  # type: ignore[arg-type]
    for name, values in figures.items():
        print(f"{name:9s} median {statistics.median(values):5.2f} s  max {max(values):5.2f} s")
    print(f"silent host: checks themselves median {statistics.median(inner):.2f} s")
    worst = max(figures["silent"])
    if worst <= GOAL_S:
        print(f"goal met: an unreachable (silent) host is reported in {worst:.2f} s ≤ {GOAL_S:g} s")
    else:
        print(f"goal missed by {worst - GOAL_S:.2f} s (silent host: {worst:.2f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
