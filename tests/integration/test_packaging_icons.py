"""render_icons.py turns the SVG icon into well-formed PNG, ICO and ICNS files."""

from __future__ import annotations

import logging
import struct
import subprocess
import sys
from pathlib import Path

logger = logging.getLogger(__name__)

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "packaging" / "render_icons.py"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _png_size(data: bytes) -> tuple[int, int]:
    assert data.startswith(PNG_SIGNATURE)
    assert data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def _render(out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    # In a child process: the renderer starts a QGuiApplication, and this test process may
    # later need a QApplication for the GUI tests.
    return subprocess.run(
        [sys.executable, str(SCRIPT), str(out), *extra],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={"QT_QPA_PLATFORM": "offscreen", "PATH": "/usr/bin:/bin"},
    )


def test_renders_pngs_and_ico_and_icns_with_every_size(tmp_path: Path) -> None:
    result = _render(tmp_path)
    assert result.returncode == 0, result.stderr

    for size in (16, 24, 32, 48, 64, 128, 256, 512):
        png = (tmp_path / f"checkout-desktop-{size}.png").read_bytes()
        assert _png_size(png) == (size, size)

    ico = (tmp_path / "checkout-desktop.ico").read_bytes()
    reserved, kind, count = struct.unpack_from("<HHH", ico)
    assert (reserved, kind, count) == (0, 1, 7)
    sizes = []
    for index in range(count):
        width, height, _colors, _res, planes, bits, length, offset = struct.unpack_from(
            "<BBBBHHII", ico, 6 + 16 * index
        )
        assert (planes, bits) == (1, 32)
        real = _png_size(ico[offset : offset + length])
        assert real == (width or 256, height or 256)
        sizes.append(real[0])
    assert sizes == [16, 24, 32, 48, 64, 128, 256]

    icns = (tmp_path / "checkout-desktop.icns").read_bytes()
    assert icns[:4] == b"icns" and struct.unpack_from(">I", icns, 4)[0] == len(icns)
    position, found = 8, {}
    while position < len(icns):
        kind_bytes, length = (
            icns[position : position + 4],
            struct.unpack_from(">I", icns, position + 4)[0],
        )
        found[kind_bytes] = _png_size(icns[position + 8 : position + length])[0]
        position += length
    assert found == {
        b"icp4": 16,
        b"icp5": 32,
        b"icp6": 64,
        b"ic07": 128,
        b"ic08": 256,
        b"ic09": 512,
    }


def test_a_broken_svg_is_reported_not_rendered(tmp_path: Path) -> None:
    broken = tmp_path / "broken.svg"
    broken.write_text("<svg", encoding="utf-8")
    result = _render(tmp_path / "out", str(broken))
    assert result.returncode == 1
    assert f"{broken} is not a valid SVG image" in result.stderr
    assert not list((tmp_path / "out").glob("*.ico"))


def test_a_missing_svg_is_reported(tmp_path: Path) -> None:
    result = _render(tmp_path / "out", str(tmp_path / "nope.svg"))
    assert result.returncode == 1
    assert "does not exist" in result.stderr
