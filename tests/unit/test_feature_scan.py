"""PySide's per-import check of whether a module uses it, without reading each module's source.

Each check runs in a fresh interpreter: the hook sees only modules imported after PySide6.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path


def _run(code: str, tmp_path: Path) -> dict[str, object]:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), env.get("PYTHONPATH", "")])
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    answer: dict[str, object] = json.loads(result.stdout.strip().splitlines()[-1])
    return answer


def test_modules_are_told_apart_without_reading_their_source(tmp_path: Path) -> None:
    (tmp_path / "plain_helper.py").write_text("import json\nVALUE = json.dumps(1)\n")
    (tmp_path / "qt_helper.py").write_text(
        "from PySide6.QtCore import QObject\n\nclass Thing(QObject):\n    pass\n"
    )
    (tmp_path / "qt_module_helper.py").write_text("import PySide6.QtCore as core\n")
    answer = _run(
        """
        import json, linecache, sys
        from checkout_desktop.ui.feature_scan import make_feature_scan_cheap
        assert make_feature_scan_cheap()
        import plain_helper, qt_helper, qt_module_helper
        feature = sys.modules["shibokensupport.feature"]
        seen = feature.pyside_feature_dict
        print(json.dumps({
            "read": sorted(
                name for name in linecache.cache if name.endswith("_helper.py")
            ),
            "plain": seen.get("plain_helper"),
            "qt": seen.get("qt_helper"),
            "qt_module": seen.get("qt_module_helper"),
        }))
        """,
        tmp_path,
    )
    # PySide's own check reads each file; once the window's start replaced it, none is read.
    assert answer["read"] == []
    # The answers PySide keeps are the ones its own check gives: 0 uses PySide6, -1 does not.
    assert answer["plain"] == -1
    assert answer["qt"] == 0
    assert answer["qt_module"] == 0


def test_without_it_pysides_hook_reads_every_module_imported_after_qt(tmp_path: Path) -> None:
    # What the replacement saves: the same imports with PySide's own check read the sources.
    (tmp_path / "plain_helper.py").write_text("import json\nVALUE = json.dumps(1)\n")
    answer = _run(
        """
        import json, linecache
        import PySide6.QtCore
        import plain_helper
        print(json.dumps({
            "read": [name for name in linecache.cache if name.endswith("plain_helper.py")],
        }))
        """,
        tmp_path,
    )
    assert len(answer["read"]) == 1  # type: ignore[arg-type]
