#!/usr/bin/env bash
# Set up (idempotent) and launch the terminal; arguments go to `checkout-desktop`.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

bash scripts/setup.sh

# Chromium refuses to start as root unless its own sandbox is off; only then add the flag.
if [[ "$(id -u)" == 0 && " ${QTWEBENGINE_CHROMIUM_FLAGS:-} " != *" --no-sandbox "* ]]; then
  export QTWEBENGINE_CHROMIUM_FLAGS="${QTWEBENGINE_CHROMIUM_FLAGS:+$QTWEBENGINE_CHROMIUM_FLAGS }--no-sandbox"
fi

exec "$ROOT/.venv/bin/checkout-desktop" "$@"
