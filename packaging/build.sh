#!/usr/bin/env bash
# Build the Linux bundle and smoke-test it: the one packaging command.
#
#   bash packaging/build.sh
#
# 1. scripts/setup.sh (Debian packages, .venv, the card SDK from npm) and PyInstaller into .venv
# 2. PyInstaller with packaging/checkout-desktop.spec -> packaging/dist/checkout-desktop/
#    plus the desktop entry, icons and install.sh for the tarball
# 3. checks: every binary in the bundle finds its libraries; the .desktop file validates
# 4. packaging/dist/checkout-desktop-<version>-linux-<arch>.tar.gz
# 5. runs the bundled `checkout-desktop --version`, `--help` and `--self-test` (offscreen)
# 6. prints the figures (also written to packaging/dist/build-report.txt)
# Exit status 0 only if every step and every check passed.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

say() { printf 'build: %s\n' "$*"; }
die() { printf 'build: error: %s\n' "$*" >&2; exit 1; }

started=$SECONDS
VENV="$ROOT/.venv"
PKG="$ROOT/packaging"
DIST="$PKG/dist"
WORK="$PKG/build"
BUNDLE="$DIST/checkout-desktop"
EXE="$BUNDLE/checkout-desktop"
SELF_TEST_TIMEOUT=180

# --- 1. environment ------------------------------------------------------------------------
bash scripts/setup.sh
# Build-only tools: desktop-file-validate checks the desktop entry, binutils' strip is what
# PyInstaller strips the Linux binaries with.
build_tools=()
command -v desktop-file-validate >/dev/null 2>&1 || build_tools+=(desktop-file-utils)
command -v strip >/dev/null 2>&1 || build_tools+=(binutils)
if ((${#build_tools[@]})); then
  if [[ "$(id -u)" == 0 ]]; then SUDO=(); elif command -v sudo >/dev/null 2>&1; then SUDO=(sudo); else
    die "missing ${build_tools[*]} and not root, and sudo is not available"
  fi
  say "installing ${build_tools[*]}"
  "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
  "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    "${build_tools[@]}" >/dev/null
fi
# PyInstaller comes from the project's `package` extra; skip pip when it is already there.
if ! "$VENV/bin/python" - <<'EOF' >/dev/null 2>&1
import sys
from importlib.metadata import version
major, minor = (int(part) for part in version("pyinstaller").split(".")[:2])
sys.exit(0 if (major, minor) >= (6, 10) else 1)
EOF
then
  say "installing PyInstaller into .venv (pip install -e '.[package]')"
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -e '.[package]'
fi
version="$("$VENV/bin/python" -c 'from importlib.metadata import version; print(version("checkout-desktop"))')"
arch="$(uname -m)"
ARCHIVE="$DIST/checkout-desktop-$version-linux-$arch.tar.gz"
say "checkout-desktop $version, PyInstaller $("$VENV/bin/python" -c 'import PyInstaller; print(PyInstaller.__version__)')"

# --- 2. bundle -----------------------------------------------------------------------------
"$VENV/bin/python" "$PKG/render_icons.py" "$WORK/icons"
build_started=$SECONDS
say "PyInstaller (log: packaging/build/pyinstaller.log)"
mkdir -p "$WORK"
if ! "$VENV/bin/pyinstaller" --noconfirm --log-level WARN --distpath "$DIST" --workpath "$WORK" \
  "$PKG/checkout-desktop.spec" >"$WORK/pyinstaller.log" 2>&1; then
  tail -n 30 "$WORK/pyinstaller.log" >&2
  die "PyInstaller failed; the whole log is packaging/build/pyinstaller.log"
fi
grep '^bundle_plan:' "$WORK/pyinstaller.log" | sed 's/^/build: /' || true
pyinstaller_seconds=$((SECONDS - build_started))

# What the tarball adds around the bundle: desktop entry, icons, the per-user installer.
install -D -m 0644 "$PKG/linux/checkout-desktop.desktop" \
  "$BUNDLE/share/applications/checkout-desktop.desktop"
install -D -m 0644 "$ROOT/resources/icons/checkout-desktop.svg" \
  "$BUNDLE/share/icons/hicolor/scalable/apps/checkout-desktop.svg"
for size in 16 24 32 48 64 128 256 512; do
  install -D -m 0644 "$WORK/icons/checkout-desktop-$size.png" \
    "$BUNDLE/share/icons/hicolor/${size}x${size}/apps/checkout-desktop.png"
done
install -m 0755 "$PKG/linux/install.sh" "$BUNDLE/install.sh"

# --- 3. checks -----------------------------------------------------------------------------
failed=()
# A Qt library trimmed by mistake shows up here, at build time, rather than as a plugin that
# silently fails to load on a shop PC. The bootloader puts _internal on the library path.
missing="$(
  find "$BUNDLE" -type f \( -name '*.so*' -o -perm -u+x \) -print0 |
    while IFS= read -r -d '' file; do
      [[ "$(head -c 4 "$file" | od -An -c | tr -d ' ')" == '177ELF' ]] || continue
      LD_LIBRARY_PATH="$BUNDLE/_internal" ldd "$file" 2>/dev/null |
        awk -v f="${file#"$BUNDLE"/}" '/not found/ {print f ": " $1}'
    done
)"
if [[ -n "$missing" ]]; then
  printf '%s\n' "$missing" >&2
  failed+=("libraries missing from the bundle")
else
  say "libraries: every binary in the bundle resolves all of its links"
fi
if desktop-file-validate "$BUNDLE/share/applications/checkout-desktop.desktop"; then
  say "desktop entry: valid (desktop-file-validate)"
else
  failed+=("desktop entry does not validate")
fi

# --- 4. archive ----------------------------------------------------------------------------
archive_started=$SECONDS
rm -f "$ARCHIVE"
tar -C "$DIST" --owner=0 --group=0 --numeric-owner -czf "$ARCHIVE" checkout-desktop
archive_seconds=$((SECONDS - archive_started))

# --- 5. smoke tests of the bundle ----------------------------------------------------------
# Fresh per-user folders, so the bundle is tested like a first start on a new machine and
# nothing of this machine's own terminal is touched.
scratch="$(mktemp -d "${TMPDIR:-/tmp}/checkout-desktop-bundle.XXXXXX")"
trap 'rm -rf "$scratch"' EXIT
mkdir -m 700 "$scratch/home" "$scratch/data" "$scratch/config" "$scratch/cache" "$scratch/runtime"
run_bundle() {
  env -i PATH=/usr/bin:/bin HOME="$scratch/home" LANG=C.UTF-8 \
    XDG_DATA_HOME="$scratch/data" XDG_CONFIG_HOME="$scratch/config" \
    XDG_CACHE_HOME="$scratch/cache" XDG_RUNTIME_DIR="$scratch/runtime" \
    CHECKOUT_DESKTOP_HOME="$scratch/terminal" \
    QT_QPA_PLATFORM=offscreen QTWEBENGINE_CHROMIUM_FLAGS=--no-sandbox \
    timeout -s KILL "$SELF_TEST_TIMEOUT" "$EXE" "$@"
}

if out="$(run_bundle --version 2>&1)" && [[ "$out" == "checkout-desktop $version" ]]; then
  say "--version: $out"
else
  say "--version printed: $out"
  failed+=("--version")
fi
if out="$(run_bundle --help 2>&1)" && [[ "$out" == *"usage: checkout-desktop"* ]]; then
  say "--help: ok ($(printf '%s\n' "$out" | wc -l) lines)"
else
  printf '%s\n' "$out" >&2
  failed+=("--help")
fi

self_test="missing"
self_test_seconds="-"
if ! run_bundle run --help 2>/dev/null | grep -q -- '--self-test'; then
  say "--self-test: MISSING - this build of checkout-desktop has no --self-test option yet"
  failed+=("--self-test missing")
else
  say "--self-test (offscreen, timeout ${SELF_TEST_TIMEOUT} s)"
  self_test_started=$SECONDS
  rc=0
  run_bundle --self-test >"$scratch/self-test.log" 2>&1 || rc=$?
  self_test_seconds=$((SECONDS - self_test_started))
  sed 's/^/  | /' "$scratch/self-test.log"
  if ((rc == 0)); then
    self_test="passed"
  elif ((rc == 137)); then
    self_test="killed after ${SELF_TEST_TIMEOUT} s"
    failed+=("--self-test timeout")
  else
    self_test="failed (exit $rc)"
    failed+=("--self-test")
  fi
  say "--self-test: $self_test in ${self_test_seconds} s"
fi

# --- 6. figures ----------------------------------------------------------------------------
bundle_bytes="$(du -sb "$BUNDLE" | cut -f1)"
report="$(
  cat <<EOF
checkout-desktop $version bundle, $(date -u +%Y-%m-%dT%H:%M:%SZ), $(uname -sm)
bundle:     packaging/dist/checkout-desktop/  $(du -sh "$BUNDLE" | cut -f1) ($bundle_bytes bytes), $(find "$BUNDLE" -type f | wc -l) files
archive:    ${ARCHIVE#"$ROOT"/}  $(du -h "$ARCHIVE" | cut -f1) ($(stat -c %s "$ARCHIVE") bytes), ${archive_seconds} s to pack
build:      PyInstaller ${pyinstaller_seconds} s; whole command $((SECONDS - started)) s
self-test:  $self_test (${self_test_seconds} s)
EOF
)"
printf '%s\n' "$report" | tee "$DIST/build-report.txt" | sed 's/^/build: /'
if ((${#failed[@]})); then
  say "FAILED: ${failed[*]}"
  exit 1
fi
say "all steps passed"
