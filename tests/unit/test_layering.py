"""The layering rule: only checkout_desktop/ui/ and the composition root may touch Qt or qasync."""

from __future__ import annotations

import ast
import json
import logging
import pkgutil
import subprocess
import sys
from pathlib import Path

import checkout_desktop

logger = logging.getLogger(__name__)

PACKAGE_DIR = Path(checkout_desktop.__file__).resolve().parent
FORBIDDEN = frozenset({"PySide6", "shiboken6", "qasync"})
# The Qt side of the house: the ui package and app.py, the composition root that builds
# everything on one qasync loop.
QT_PACKAGES = frozenset({"checkout_desktop.ui"})
QT_MODULES = frozenset({"checkout_desktop.app"})


def _is_qt_side(module: str) -> bool:
    if module in QT_MODULES:
        return True
    return any(module == pkg or module.startswith(pkg + ".") for pkg in QT_PACKAGES)


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE_DIR.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _forbidden_imports(path: Path) -> list[str]:
    """Every import of a forbidden top-level package in one file, as 'line N: name'."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: list[str] = []
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        elif (
            # importlib.import_module("PySide6...") / __import__("PySide6...") with a literal
            isinstance(node, ast.Call)
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
            and (
                (isinstance(node.func, ast.Attribute) and node.func.attr == "import_module")
                or (
                    isinstance(node.func, ast.Name)
                    and node.func.id in {"import_module", "__import__"}
                )
            )
        ):
            names = [node.args[0].value]
        found.extend(
            f"line {node.lineno}: {name}" for name in names if name.split(".")[0] in FORBIDDEN
        )
    return found


def _headless_sources() -> list[Path]:
    return sorted(path for path in PACKAGE_DIR.rglob("*.py") if not _is_qt_side(_module_name(path)))


def _headless_modules() -> list[str]:
    """Every importable module outside the Qt side, found with pkgutil without importing any.

    Walking the file tree (rather than pkgutil.walk_packages) keeps the ui package unimported.
    """
    found: list[str] = []

    def walk(path: Path, prefix: str) -> None:
        for info in pkgutil.iter_modules([str(path)]):
            name = f"{prefix}.{info.name}"
            # __main__ runs the program when imported; it is covered by the AST check.
            if _is_qt_side(name) or info.name == "__main__":
                continue
            found.append(name)
            if info.ispkg:
                walk(path / info.name, name)

    found.append(checkout_desktop.__name__)
    walk(PACKAGE_DIR, checkout_desktop.__name__)
    return sorted(found)


def test_rule_check_sees_a_forbidden_import(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "import os\n"
        "from PySide6.QtCore import QObject\n"
        "import qasync as q\n"
        "import importlib\n"
        "importlib.import_module('shiboken6')\n"
        "from .ui import window\n",
        encoding="utf-8",
    )
    assert _forbidden_imports(sample) == [
        "line 2: PySide6.QtCore",
        "line 3: qasync",
        "line 5: shiboken6",
    ]


def test_headless_modules_do_not_import_qt() -> None:
    sources = _headless_sources()
    assert any(path.parent.name == "domain" for path in sources), "domain/ was not scanned"
    offenders = {
        str(path.relative_to(PACKAGE_DIR.parent)): hits
        for path in sources
        if (hits := _forbidden_imports(path))
    }
    assert not offenders, (
        "only checkout_desktop/ui/ and checkout_desktop/app.py may import "
        f"{', '.join(sorted(FORBIDDEN))}; these do: {offenders}"
    )


# Imports each module in turn and reports which one first pulled a forbidden package in.
_PROBE = """
import importlib, json, sys
forbidden = set(sys.argv[1].split(","))
report = {"pulled_in": {}, "failed": {}}
for name in sys.argv[2:]:
    try:
        importlib.import_module(name)
    except Exception as exc:
        report["failed"][name] = f"{type(exc).__name__}: {exc}"
        continue
    loaded = sorted(m for m in forbidden if m in sys.modules)
    if loaded:
        report["pulled_in"][name] = loaded
        break
print(json.dumps(report))
"""


def test_headless_modules_do_not_pull_in_qt_transitively() -> None:
    modules = _headless_modules()
    assert "checkout_desktop.domain" in modules, modules
    result = subprocess.run(
        [sys.executable, "-c", _PROBE, ",".join(sorted(FORBIDDEN)), *modules],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert not report["failed"], f"these modules fail to import: {report['failed']}"
    assert not report["pulled_in"], (
        "importing this module loads Qt/qasync, which only checkout_desktop/ui/ and "
        f"checkout_desktop/app.py may do: {report['pulled_in']}"
    )
