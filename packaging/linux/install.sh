#!/usr/bin/env bash
# Install (or remove) the unpacked checkout-desktop bundle so it starts from the desktop menu.
#
#   ./install.sh                  for this user, under ~/.local (as root: under /usr/local)
#   ./install.sh --prefix DIR     under DIR (DIR/lib/checkout-desktop, DIR/bin, DIR/share)
#   ./install.sh --uninstall      remove what an earlier run installed under the same prefix
#
# It copies this folder to PREFIX/lib/checkout-desktop, links PREFIX/bin/checkout-desktop, and
# installs the desktop entry (with the absolute program path) and the icons. Nothing else on
# the machine is touched; the terminal's own data (settings, database, keychain entries) stays.
set -euo pipefail

NAME=checkout-desktop
SOURCE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

say() { printf 'install: %s\n' "$*"; }
die() { printf 'install: error: %s\n' "$*" >&2; exit 1; }
usage() { sed -n '3,7s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"; }

if [[ "$(id -u)" == 0 ]]; then prefix=/usr/local; else prefix="${HOME:?HOME is not set}/.local"; fi
action=install
while (($#)); do
  case "$1" in
    --prefix)
      (($# >= 2)) || die "--prefix needs a folder"
      prefix="$2"
      shift 2
      ;;
    --prefix=*) prefix="${1#--prefix=}"; shift ;;
    --uninstall) action=uninstall; shift ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; die "unknown argument: $1" ;;
  esac
done
[[ -n "$prefix" ]] || die "--prefix must not be empty"
[[ "$prefix" == /* ]] || prefix="$PWD/$prefix"
# The desktop entry's Exec key cannot carry these characters without escaping rules that
# desktop environments apply inconsistently.
case "$prefix" in
  *'"'* | *'`'* | *'$'* | *'\'* | *'%'* | *$'\n'*)
    die "the prefix must not contain \" \` \$ \\ % or a line break: $prefix" ;;
esac

APP_DIR="$prefix/lib/$NAME"
BIN_LINK="$prefix/bin/$NAME"
DESKTOP_FILE="$prefix/share/applications/$NAME.desktop"
ICONS="$prefix/share/icons/hicolor"

is_our_bundle() { [[ -x "$1/$NAME" && -d "$1/_internal" ]]; }

refresh_caches() {
  # Menus pick the entry up without these on most desktops; they only speed things up.
  if command -v update-desktop-database >/dev/null 2>&1; then
    update-desktop-database -q "$prefix/share/applications" 2>/dev/null || true
  fi
  if command -v gtk-update-icon-cache >/dev/null 2>&1 && [[ -f "$ICONS/index.theme" ]]; then
    gtk-update-icon-cache -q -t "$ICONS" 2>/dev/null || true
  fi
}

remove_icons() {
  rm -f "$ICONS/scalable/apps/$NAME.svg"
  local size
  for size in 16 24 32 48 64 128 256 512; do
    rm -f "$ICONS/${size}x${size}/apps/$NAME.png"
  done
}

if [[ "$action" == uninstall ]]; then
  if [[ -e "$APP_DIR" ]]; then
    is_our_bundle "$APP_DIR" || die "$APP_DIR is not a checkout-desktop bundle; not removing it"
    rm -rf "$APP_DIR"
  fi
  if [[ -L "$BIN_LINK" && "$(readlink "$BIN_LINK")" == "$APP_DIR/$NAME" ]]; then
    rm -f "$BIN_LINK"
  fi
  rm -f "$DESKTOP_FILE"
  remove_icons
  refresh_caches
  say "removed checkout-desktop from $prefix (its settings and data were left in place)"
  exit 0
fi

is_our_bundle "$SOURCE" || die "run install.sh from the unpacked checkout-desktop folder"
[[ "$SOURCE" != "$APP_DIR" ]] || die "this bundle is already the installed copy in $APP_DIR"
if [[ -e "$APP_DIR" ]] && ! is_our_bundle "$APP_DIR"; then
  die "$APP_DIR exists and is not a checkout-desktop bundle; not replacing it"
fi

mkdir -p "$prefix/lib" "$prefix/bin" "$prefix/share/applications"
# Copy next to the old version, then swap, so a failed copy leaves the old install working.
staging="$(mktemp -d "$prefix/lib/.$NAME.XXXXXX")"
trap 'rm -rf "$staging"' EXIT
cp -a "$SOURCE/." "$staging/"
rm -rf "$staging/share" "$staging/install.sh"
chmod 755 "$staging"
if [[ -e "$APP_DIR" ]]; then rm -rf "$APP_DIR"; fi
mv "$staging" "$APP_DIR"
trap - EXIT
ln -sfn "$APP_DIR/$NAME" "$BIN_LINK"

remove_icons
(cd "$SOURCE/share/icons/hicolor" && find . -type f -name "$NAME.*") |
  while IFS= read -r icon; do
    install -D -m 0644 "$SOURCE/share/icons/hicolor/$icon" "$ICONS/$icon"
  done
# The menu may not have PREFIX/bin on its PATH, so the entry names the program by full path.
sed -e "s|^Exec=$NAME\$|Exec=\"$APP_DIR/$NAME\"|" -e "s|^TryExec=$NAME\$|TryExec=$APP_DIR/$NAME|" \
  "$SOURCE/share/applications/$NAME.desktop" >"$DESKTOP_FILE.tmp"
chmod 0644 "$DESKTOP_FILE.tmp"
mv "$DESKTOP_FILE.tmp" "$DESKTOP_FILE"
refresh_caches

say "installed checkout-desktop into $APP_DIR"
say "menu entry: $DESKTOP_FILE; command: $BIN_LINK"
