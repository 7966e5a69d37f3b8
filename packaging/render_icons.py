"""Render the SVG app icon into the PNG, ICO and ICNS files the installers and bundles need."""

# Usage: python packaging/render_icons.py OUT_DIR [SVG]
# Qt (already a dependency) draws the SVG; the ICO and ICNS containers are written here, with
# PNG entries, so no image library beyond Qt is needed on any build machine.

from __future__ import annotations

import logging
import os
import struct
import sys
from pathlib import Path

logger = logging.getLogger(__name__)

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SVG = ROOT / "resources" / "icons" / "checkout-desktop.svg"
NAME = "checkout-desktop"
PNG_SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
ICO_SIZES = (16, 24, 32, 48, 64, 128, 256)
# ICNS element types holding PNG data, by pixel size (Apple's icns format).
ICNS_TYPES = (
    (16, b"icp4"),
    (32, b"icp5"),
    (64, b"icp6"),
    (128, b"ic07"),
    (256, b"ic08"),
    (512, b"ic09"),
)
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

# Qt draws text and SVG only with a GUI application alive; one is kept for the whole run.
_gui_app: list[object] = []


class IconError(RuntimeError):
    """The icon cannot be rendered; the message names the file and the problem."""


def render_png(svg: Path, size: int) -> bytes:
    """The SVG drawn on a transparent size×size square, as PNG bytes."""
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice
    from PySide6.QtGui import QGuiApplication, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    if QGuiApplication.instance() is None:
        # No window is shown, so no display is needed (build machines and CI have none).
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        _gui_app.append(QGuiApplication([sys.argv[0]]))
    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise IconError(f"{svg} is not a valid SVG image")
    image = QImage(size, size, QImage.Format.Format_ARGB32)
    image.fill(0)
    painter = QPainter(image)
    renderer.render(painter)
    painter.end()
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    if not image.save(buffer, "PNG"):
        raise IconError(f"Qt could not encode the {size} px PNG of {svg}")
    return bytes(data.data())


def ico_bytes(pngs: dict[int, bytes]) -> bytes:
    """A Windows .ico holding one PNG-compressed entry per size (Windows Vista and later)."""
    sizes = sorted(pngs)
    header = struct.pack("<HHH", 0, 1, len(sizes))
    offset = len(header) + 16 * len(sizes)
    entries = b""
    for size in sizes:
        data = pngs[size]
        # 256 is stored as 0: the field is one byte.
        entries += struct.pack("<BBBBHHII", size % 256, size % 256, 0, 0, 1, 32, len(data), offset)
        offset += len(data)
    return header + entries + b"".join(pngs[size] for size in sizes)


def icns_bytes(pngs: dict[int, bytes]) -> bytes:
    """A macOS .icns holding PNG elements."""
    body = b""
    for size, kind in ICNS_TYPES:
        data = pngs[size]
        body += kind + struct.pack(">I", 8 + len(data)) + data
    return b"icns" + struct.pack(">I", 8 + len(body)) + body


def render_all(out_dir: Path, svg: Path = DEFAULT_SVG) -> dict[str, Path]:
    """Write NAME-<size>.png for every size, NAME.ico and NAME.icns into out_dir."""
    if not svg.is_file():
        raise IconError(f"the icon {svg} does not exist")
    out_dir.mkdir(parents=True, exist_ok=True)
    pngs = {size: render_png(svg, size) for size in PNG_SIZES}
    written: dict[str, Path] = {}
    for size, data in pngs.items():
        if not data.startswith(PNG_SIGNATURE):
            raise IconError(f"the {size} px rendering of {svg} is not a PNG")
        path = out_dir / f"{NAME}-{size}.png"
        path.write_bytes(data)
        written[f"png{size}"] = path
    written["ico"] = out_dir / f"{NAME}.ico"
    written["ico"].write_bytes(ico_bytes({s: pngs[s] for s in ICO_SIZES}))
    written["icns"] = out_dir / f"{NAME}.icns"
    written["icns"].write_bytes(icns_bytes(pngs))
    return written


def main(argv: list[str]) -> int:
    if len(argv) not in (1, 2):
        print("usage: render_icons.py OUT_DIR [SVG]", file=sys.stderr)
        return 2
    try:
        written = render_all(Path(argv[0]), Path(argv[1]) if len(argv) == 2 else DEFAULT_SVG)
    except IconError as exc:
        print(f"render_icons: {exc}", file=sys.stderr)
        return 1
    print(f"render_icons: wrote {len(written)} files to {argv[0]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
