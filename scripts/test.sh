#!/usr/bin/env bash
# The full check: set up, lint, format check, type check, then the test suite on offscreen Qt
# with a private, unlocked gnome-keyring on a private D-Bus session (a real Secret Service).
# Extra arguments go to pytest, e.g. `bash scripts/test.sh tests/unit -k money`.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

say() { printf 'test: %s\n' "$*"; }

started=$SECONDS
bash scripts/setup.sh

VENV="$ROOT/.venv"
failed=()

# Every check runs even after an earlier one failed, so one run reports everything.
say "ruff check"
"$VENV/bin/ruff" check . || failed+=("ruff check")
say "ruff format --check"
"$VENV/bin/ruff" format --check . || failed+=("ruff format")
say "mypy"
"$VENV/bin/mypy" || failed+=("mypy")

# A fresh keyring and fresh per-user folders for every run, removed afterwards.
scratch="$(mktemp -d "${TMPDIR:-/tmp}/checkout-desktop-test.XXXXXX")"
trap 'rm -rf "$scratch"' EXIT
mkdir -m 700 "$scratch/data" "$scratch/runtime" "$scratch/config" "$scratch/cache"
export XDG_DATA_HOME="$scratch/data" XDG_RUNTIME_DIR="$scratch/runtime"
export XDG_CONFIG_HOME="$scratch/config" XDG_CACHE_HOME="$scratch/cache"
export QT_QPA_PLATFORM=offscreen
# Chromium refuses to run as root without it; CI runs as root.
export QTWEBENGINE_CHROMIUM_FLAGS=--no-sandbox
# Keychain tests must fail, not skip, when the Secret Service below did not come up.
export CHECKOUT_DESKTOP_REQUIRE_KEYCHAIN=1

# A private PostgreSQL server for the shared-store tests (socket only, in its own folder,
# run as the postgres system user when we are root). Tests that need it fail when it is not
# there; they would try to start one themselves, and report why that failed too.
pg_root="$(mktemp -d "${TMPDIR:-/tmp}/checkout-pg.XXXXXX")"
trap '"$VENV/bin/python" -m tests.pg_cluster stop "$pg_root"; rm -rf "$scratch"' EXIT
if pg_url="$("$VENV/bin/python" -m tests.pg_cluster start "$pg_root")"; then
  export CHECKOUT_DESKTOP_TEST_PG="$pg_url"
else
  say "the test PostgreSQL server did not start: the tests that need it will fail"
fi

say "pytest (private D-Bus session with an unlocked gnome-keyring)"
# timeout signals its whole process group, so a hung Qt/asyncio test cannot outlive the run.
pytest_rc=0
timeout -s KILL 1500 dbus-run-session -- bash -c '
  printf %s checkout-desktop-test | gnome-keyring-daemon --unlock --components=secrets >/dev/null
  exec "$@"
' pytest-under-dbus "$VENV/bin/pytest" "$@" || pytest_rc=$?

case "$pytest_rc" in
  0) ;;
  5) say "pytest collected no tests: that is a failure"; failed+=("pytest (no tests ran)") ;;
  137) say "pytest was killed after 1500 s"; failed+=("pytest (timeout)") ;;
  *) failed+=("pytest (exit $pytest_rc)") ;;
esac

elapsed=$((SECONDS - started))
if ((${#failed[@]})); then
  say "FAILED after ${elapsed} s: ${failed[*]}"
  exit 1
fi
say "all checks passed in ${elapsed} s"
