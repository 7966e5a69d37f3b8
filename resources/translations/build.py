"""Update the translation sources from the code and compile them (Qt's lupdate + lrelease).

    .venv/bin/python resources/translations/build.py          # update .ts, then build .qm
    .venv/bin/python resources/translations/build.py --check  # fail if a text is untranslated

The `.ts` files are the sources (edit them with Qt Linguist, `pyside6-linguist`); the `.qm`
files are what the terminal loads, and are committed so that running needs no Qt tools.
English is the source language, so only Portuguese has a catalogue.
"""

from __future__ import annotations

import argparse
import logging
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

logger = logging.getLogger(__name__)

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
UI = ROOT / "checkout_desktop" / "ui"
CATALOGS = ("checkout_desktop_pt_BR",)
# The card page (its own pt-BR/en texts in resources/card/lang) needs no Qt catalogue.
# No source line numbers in the .ts: they change with every edit of a source file, and made
# every parallel change to the code conflict in the catalogue.
LUPDATE_OPTIONS = ("-no-obsolete", "-locations", "none")
_TEXTS_IMPORT = "from checkout_desktop.texts import"
NOT_TRANSLATED = {"webview.py", "bridge.py", "card_page.py", "chromium.py", "__init__.py"}


def _tool(name: str) -> str:
    candidate = Path(sys.executable).parent / name
    if candidate.exists():
        return str(candidate)
    found = shutil.which(name)
    if found is None:
        raise SystemExit(f"{name} is not installed (it comes with PySide6)")
    return found


def sources() -> list[str]:
    """The window's modules, and every module under it that words the command line's texts
    through `checkout_desktop.texts`."""
    ui = {str(p) for p in UI.glob("*.py") if p.name not in NOT_TRANSLATED}
    worded = {
        str(p)
        for p in (ROOT / "checkout_desktop").rglob("*.py")
        if p.parent != UI and _TEXTS_IMPORT in p.read_text(encoding="utf-8")
    }
    return sorted({*ui, *worded, str(ROOT / "checkout_desktop" / "app.py")})


def untranslated(ts: Path) -> list[str]:
    tree = ET.parse(ts)  # noqa: S314 - our own file
    missing = []
    for message in tree.getroot().iter("message"):
        translation = message.find("translation")
        source = message.find("source")
        if translation is None or source is None:
            continue
        kind = translation.get("type")
        if kind in ("obsolete", "vanished"):
            continue
        if kind == "unfinished" or not (translation.text or "").strip():
            missing.append(source.text or "")
    return missing


def main() -> int:
    parser = argparse.ArgumentParser(description="update and compile the translations")
    parser.add_argument("--check", action="store_true", help="fail on untranslated texts")
    args = parser.parse_args()
    failed = False
    for catalog in CATALOGS:
        ts = HERE / f"{catalog}.ts"
        subprocess.run(
            [_tool("pyside6-lupdate"), *sources(), *LUPDATE_OPTIONS, "-ts", str(ts)], check=True
        )
        missing = untranslated(ts)
        if missing:
            print(f"{ts.name}: {len(missing)} untranslated text(s):", file=sys.stderr)
            for text in missing:
                print(f"  {text!r}", file=sys.stderr)
            failed = failed or args.check
        subprocess.run(
            [_tool("pyside6-lrelease"), str(ts), "-qm", str(HERE / f"{catalog}.qm")], check=True
        )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
