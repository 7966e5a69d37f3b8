#!/usr/bin/env bash
# Set up everything checkout-desktop needs on a Debian 12 machine, idempotently:
# the Debian packages Qt/QtWebEngine and the test keychain need, the .venv with the
# package and its dev tools, and the published card SDK under resources/sdk/node_modules.
# Each step is skipped when it is already done, so a warm run takes a second or two.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

say() { printf 'setup: %s\n' "$*"; }
die() { printf 'setup: error: %s\n' "$*" >&2; exit 1; }

started=$SECONDS

# --- Debian packages -------------------------------------------------------------------
# The libraries QtWebEngine/QtGui/xcb load at run time on a minimal Debian 12 (found with
# ldd in a minbase chroot), plus Xvfb for real-window screenshots and the window-geometry tests
# (xwininfo reads a window's place; openbox is the window manager some of them run under;
# xrandr adds and removes a monitor under the customer display's tests),
# D-Bus + gnome-keyring so the test command can start a real Secret Service keychain, and
# desktop-file-utils, whose validator checks the shipped desktop entry, and PostgreSQL's server
# programs (initdb, pg_ctl), with which the test command runs a private test server for the
# shared store.
APT_PACKAGES=(
  libegl1 libgl1 libgbm1 libglib2.0-0 libfontconfig1 libfreetype6 libdbus-1-3 libnss3 libnspr4
  libasound2 libbrotli1
  libx11-6 libx11-xcb1 libxext6 libxfixes3 libxrandr2 libxtst6 libxcomposite1 libxdamage1
  libxkbfile1 libxkbcommon0 libxkbcommon-x11-0
  libxcb1 libxcb-cursor0 libxcb-icccm4 libxcb-image0 libxcb-keysyms1 libxcb-randr0
  libxcb-render0 libxcb-render-util0 libxcb-shape0 libxcb-shm0 libxcb-sync1 libxcb-util1
  libxcb-xfixes0 libxcb-xkb1 libxcb-glx0 libxcb-dri3-0
  fonts-dejavu-core ca-certificates
  xvfb xauth
  x11-utils x11-xserver-utils openbox
  dbus gnome-keyring
  desktop-file-utils
  postgresql
)
# A Debian python3 can only create a venv with python3-venv (ensurepip); other Pythons
# (pyenv, python.org builds) bring ensurepip themselves.
if ! python3 -c 'import ensurepip, venv' >/dev/null 2>&1; then
  APT_PACKAGES+=(python3-venv)
fi

missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  status="$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)"
  [[ "$status" == "install ok installed" ]] || missing+=("$pkg")
done

if ((${#missing[@]} == 0)); then
  say "Debian packages: all ${#APT_PACKAGES[@]} present"
else
  if [[ "$(id -u)" == 0 ]]; then
    SUDO=()
  elif command -v sudo >/dev/null 2>&1; then
    SUDO=(sudo)
  else
    die "missing Debian packages (${missing[*]}) and not root, and sudo is not available"
  fi
  say "Debian packages: installing ${#missing[@]} missing (${missing[*]})"
  export DEBIAN_FRONTEND=noninteractive
  "${SUDO[@]}" apt-get update -qq
  "${SUDO[@]}" apt-get install -y -qq --no-install-recommends "${APT_PACKAGES[@]}" >/dev/null
  say "Debian packages: done"
fi

# --- Python virtual environment ----------------------------------------------------------
command -v python3 >/dev/null 2>&1 || die "python3 is not installed (Python 3.11 or newer is needed)"
python3 - <<'EOF' || die "Python 3.11 or newer is needed, found $(python3 --version 2>&1)"
import sys
raise SystemExit(0 if sys.version_info >= (3, 11) else 1)
EOF

VENV="$ROOT/.venv"
STAMP="$VENV/.checkout-desktop-setup"
if [[ ! -x "$VENV/bin/python" ]] || ! "$VENV/bin/python" -c 'import sys' >/dev/null 2>&1; then
  # A venv whose base interpreter vanished is useless: rebuild it from scratch.
  rm -rf "$VENV"
  say "venv: creating .venv with $(python3 --version 2>&1)"
  python3 -m venv "$VENV"
fi

want="$(cat pyproject.toml "$VENV/pyvenv.cfg" | sha256sum | cut -d' ' -f1)"
have="$(cat "$STAMP" 2>/dev/null || true)"
# -I keeps the repo's cwd off sys.path, so this proves the editable install itself works.
if [[ "$want" == "$have" ]] && [[ -x "$VENV/bin/checkout-desktop" ]] \
  && "$VENV/bin/python" -I -c 'import checkout_desktop' >/dev/null 2>&1; then
  say "venv: package and dev tools already installed"
else
  say "venv: installing the package with its dev tools (pip install -e '.[dev]')"
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -e '.[dev]'
  printf '%s\n' "$want" >"$STAMP"
  say "venv: done"
fi

# --- published card SDK ------------------------------------------------------------------
command -v npm >/dev/null 2>&1 || die "npm is not installed (it fetches the published card SDK)"
SDK="$ROOT/resources/sdk"
SDK_STAMP="$SDK/node_modules/.checkout-desktop-setup"
[[ -f "$SDK/package-lock.json" ]] || die "resources/sdk/package-lock.json is missing"
# The lock must name no download host: .npmrc's omit-lockfile-registry-resolved keeps
# "resolved" URLs out, so installs go to whatever registry the machine is configured for.
if grep -q '"resolved"' "$SDK/package-lock.json"; then
  die "resources/sdk/package-lock.json contains \"resolved\" URLs; regenerate it with resources/sdk/.npmrc in effect"
fi
sdk_want="$(cat "$SDK/package.json" "$SDK/package-lock.json" | sha256sum | cut -d' ' -f1)"
sdk_have="$(cat "$SDK_STAMP" 2>/dev/null || true)"
if [[ "$sdk_want" == "$sdk_have" ]] \
  && [[ -f "$SDK/node_modules/checkout-transparent/package.json" ]] \
  && [[ -f "$SDK/node_modules/checkout-transparent-dev/package.json" ]]; then
  say "SDK: checkout-transparent and checkout-transparent-dev already installed"
else
  say "SDK: installing checkout-transparent and checkout-transparent-dev (npm ci)"
  # --ignore-scripts: we only ship the SDK's built files; no package code runs at install.
  (cd "$SDK" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >/dev/null)
  for pkg in checkout-transparent checkout-transparent-dev; do
    version="$(node -p "require('$SDK/node_modules/$pkg/package.json').version")"
    [[ "$version" == "1.0.3" ]] || die "$pkg installed as $version, expected 1.0.3"
  done
  printf '%s\n' "$sdk_want" >"$SDK_STAMP"
  say "SDK: done"
fi

say "ready in $((SECONDS - started)) s"
