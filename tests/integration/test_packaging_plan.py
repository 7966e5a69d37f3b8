"""The bundle plan the PyInstaller spec uses: files that exist, nothing needed left out."""

from __future__ import annotations

import ast
import importlib.util
import json
import logging
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from checkout_desktop import paths
from checkout_desktop.cli import SUBCOMMANDS

logger = logging.getLogger(__name__)

ROOT = Path(__file__).resolve().parents[2]
_PYSIDE = importlib.util.find_spec("PySide6")
assert _PYSIDE is not None and _PYSIDE.origin is not None
PYSIDE_QT = Path(_PYSIDE.origin).parent / "Qt"


def _load_plan() -> ModuleType:
    # packaging/ is deliberately not a package (it would shadow the `packaging` library).
    spec = importlib.util.spec_from_file_location("bundle_plan", ROOT / "packaging/bundle_plan.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


plan = _load_plan()


def _bundle_paths() -> dict[str, Path]:
    """Path inside the bundle → source file, for every data file the plan ships."""
    return {f"{dest}/{Path(src).name}": Path(src) for src, dest in plan.data_files(ROOT)}


def test_every_planned_data_file_exists_and_lands_under_resources() -> None:
    shipped = _bundle_paths()
    assert shipped, "the plan ships no data files"
    for inside, source in shipped.items():
        assert source.is_file(), f"{source} is planned but does not exist"
        assert inside.startswith("resources/"), inside
        # The bundle mirrors the source tree, so paths.resources_dir() finds the same layout.
        assert inside == source.relative_to(ROOT).as_posix()


def test_the_sdk_builds_land_where_paths_sdk_script_looks() -> None:
    shipped = _bundle_paths()
    for build in ("prod", "dev"):
        inside = paths.sdk_script(build).relative_to(paths.resources_dir().parent).as_posix()
        assert inside in shipped, f"the {build} SDK build {inside} is not in the bundle"


def test_the_whole_card_page_icons_and_compiled_translations_are_shipped() -> None:
    shipped = set(_bundle_paths())
    resources = ROOT / "resources"
    expected = {
        p.relative_to(ROOT).as_posix()
        for folder in ("card", "icons")
        for p in (resources / folder).rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and not p.name.startswith(".")
    }
    expected |= {p.relative_to(ROOT).as_posix() for p in (resources / "translations").glob("*.qm")}
    assert "resources/card/index.html" in expected
    assert expected <= shipped, f"not shipped: {sorted(expected - shipped)}"
    # Translation sources are for translators, not for the bundle.
    assert not [p for p in shipped if p.endswith(".ts")]


def test_a_missing_sdk_stops_the_build_with_the_command_that_installs_it(tmp_path: Path) -> None:
    for required in plan.REQUIRED_RESOURCES:
        (tmp_path / "resources" / required).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "resources" / required).write_text("x", encoding="utf-8")
    with pytest.raises(plan.BundlePlanError, match=r"npm.*scripts/setup\.sh"):
        plan.data_files(tmp_path)


def test_a_missing_card_page_stops_the_build(tmp_path: Path) -> None:
    with pytest.raises(plan.BundlePlanError, match=r"resources/card/index\.html is missing"):
        plan.data_files(tmp_path)


def test_the_spec_is_valid_python_and_builds_from_the_plan() -> None:
    # The full build is not part of the suite; this catches a broken spec without one.
    spec = (ROOT / "packaging" / "checkout-desktop.spec").read_text(encoding="utf-8")
    compile(spec, "checkout-desktop.spec", "exec")
    for use in ("plan.data_files(ROOT)", "plan.hidden_imports(ROOT)", "plan.EXCLUDED_MODULES"):
        assert use in spec
    assert "plan.without_orphans(a.binaries, plan.keep_binary" in spec
    assert "plan.filtered(a.datas, plan.keep_data)" in spec


def test_hidden_imports_cover_every_subcommand_module() -> None:
    modules = {module for module, _help in SUBCOMMANDS.values()}
    assert set(plan.hidden_imports(ROOT)) == modules
    for module in modules:
        assert importlib.util.find_spec(module) is not None, f"{module} does not exist"


@pytest.mark.parametrize(
    ("dest", "kept"),
    [
        ("PySide6/Qt/lib/libQt6WebEngineCore.so.6", True),
        ("PySide6/Qt/lib/libQt6WebEngineWidgets.so.6", True),
        ("PySide6/Qt/lib/libQt6PrintSupport.so.6", True),
        ("PySide6/Qt/lib/libQt6Quick.so.6", True),  # linked by WebEngineCore
        ("PySide6/Qt/lib/libQt6Pdf.so.6", False),
        ("PySide6/Qt/lib/libQt6Quick3DRuntimeRender.so.6", False),
        ("PySide6/Qt/lib/libQt6FFmpegStub-crypto.so.3", False),
        ("PySide6/Qt6Multimedia.dll", False),
        ("PySide6/Qt6WebEngineCore.dll", True),
        ("PySide6/Qt/lib/QtGraphs.framework/Versions/A/QtGraphs", False),
        ("PySide6/Qt/lib/QtWidgets.framework/Versions/A/QtWidgets", True),
        ("PySide6/QtCore.abi3.so", True),  # a Python extension module, not a Qt library
        ("PySide6/QtWebEngineCore.pyd", True),
        ("PySide6/Qt/libexec/QtWebEngineProcess", True),
        ("PySide6/Qt/plugins/platforms/libqxcb.so", True),
        ("PySide6/Qt/plugins/platforms/libqoffscreen.so", True),
        ("PySide6/Qt/plugins/platforms/libqwayland.so", False),
        ("PySide6/Qt/plugins/platforms/libqeglfs.so", False),
        ("PySide6/plugins/platforms/qwindows.dll", True),
        ("PySide6/plugins/styles/qmodernwindowsstyle.dll", True),
        ("PySide6/Qt/plugins/platforms/libqcocoa.dylib", True),
        ("PySide6/Qt/plugins/platformthemes/libqgtk3.so", False),
        ("PySide6/Qt/plugins/platformthemes/libqxdgdesktopportal.so", True),
        ("PySide6/Qt/plugins/printsupport/libcupsprintersupport.so", True),
        ("PySide6/Qt/plugins/imageformats/libqsvg.so", True),
        ("PySide6/Qt/plugins/imageformats/libqpdf.so", False),
        ("PySide6/Qt/plugins/qmltooling/libqmldbg_debugger.so", False),
        ("PySide6/Qt/plugins/position/libqtposition_geoclue2.so", False),
        ("PySide6/Qt/qml/QtQuick/Controls/libqtquickcontrols2plugin.so", False),
        ("libcups.so.2", False),  # left to the target system
        ("libstdc++.so.6", False),
        ("libgbm.so.1", False),
        ("libxcb.so.1", False),
        ("libX11.so.6", False),
        ("libxcb-icccm.so.4", True),  # only the core X libraries come from the system
        ("libX11-xcb.so.1", True),
        ("libfontconfig.so.1", False),
        ("libnss3.so", True),
        ("libpython3.11.so.1.0", True),
    ],
)
def test_keep_binary(dest: str, kept: bool) -> None:
    assert plan.keep_binary(dest) is kept


@pytest.mark.parametrize(
    ("dest", "kept"),
    [
        ("PySide6/Qt/translations/qtwebengine_locales/en-US.pak", True),
        ("PySide6/Qt/translations/qtwebengine_locales/pt-BR.pak", True),
        ("PySide6/Qt/translations/qtwebengine_locales/de.pak", False),
        ("PySide6/translations/qtwebengine_locales/pt-BR.pak", True),  # Windows layout
        ("PySide6/Qt/translations/qtbase_pt_BR.qm", True),
        ("PySide6/Qt/translations/qtbase_de.qm", False),
        ("PySide6/Qt/translations/designer_pt_BR.qm", False),
        ("PySide6/Qt/resources/qtwebengine_resources.pak", True),
        ("PySide6/Qt/resources/icudtl.dat", True),
        ("PySide6/Qt/qml/QtQuick/Controls/qmldir", False),
        ("PySide6/QtCore.pyi", False),
        ("resources/card/index.html", True),
        ("checkout_desktop-0.1.0.dist-info/METADATA", True),
        ("checkout_desktop-0.1.0.dist-info/direct_url.json", False),
        ("checkout_desktop.egg-info/PKG-INFO", False),
    ],
)
def test_keep_data(dest: str, kept: bool) -> None:
    assert plan.keep_data(dest) is kept


def test_without_orphans_drops_what_only_dropped_binaries_link() -> None:
    graph = {
        "/q/QtGui.abi3.so": ["libQt6Gui.so.6"],
        "/q/libQt6Gui.so.6": ["libglib-2.0.so.0"],
        "/q/libqgtk3.so": ["libgtk-3.so.0", "libQt6Gui.so.6"],
        "/s/libgtk-3.so.0": ["libpango-1.0.so.0", "libglib-2.0.so.0"],
        "/s/libpango-1.0.so.0": ["libglib-2.0.so.0"],
        "/s/libglib-2.0.so.0": [],
        "/s/libsoftokn3.so": [],  # loaded with dlopen: nothing links it
    }
    entries = [
        ("PySide6/QtGui.abi3.so", "/q/QtGui.abi3.so", "EXTENSION"),
        ("PySide6/Qt/lib/libQt6Gui.so.6", "/q/libQt6Gui.so.6", "BINARY"),
        ("PySide6/Qt/plugins/platformthemes/libqgtk3.so", "/q/libqgtk3.so", "BINARY"),
        ("libgtk-3.so.0", "/s/libgtk-3.so.0", "BINARY"),
        ("libpango-1.0.so.0", "/s/libpango-1.0.so.0", "BINARY"),
        ("libglib-2.0.so.0", "/s/libglib-2.0.so.0", "BINARY"),
        ("libsoftokn3.so", "/s/libsoftokn3.so", "BINARY"),
    ]
    shipped, dropped = plan.without_orphans(entries, plan.keep_binary, graph.__getitem__)
    assert {e[0] for e in dropped} == {
        "PySide6/Qt/plugins/platformthemes/libqgtk3.so",
        "libgtk-3.so.0",
        "libpango-1.0.so.0",
    }
    assert {e[0] for e in shipped} == {
        "PySide6/QtGui.abi3.so",
        "PySide6/Qt/lib/libQt6Gui.so.6",
        "libglib-2.0.so.0",  # also needed by Qt itself
        "libsoftokn3.so",
    }


def test_without_orphans_drops_what_only_build_machine_libraries_link() -> None:
    # PyInstaller leaves libxcb out (it comes with the machine's graphics stack) but collects
    # libXau, which only libxcb links; the xcb extension libraries are needed.
    graph = {
        "/q/libqxcb.so": ["libxcb-icccm.so.4", "libxcb.so.1"],
        "/s/libxcb-icccm.so.4": ["libxcb.so.1"],
        "/host/libxcb.so.1": ["libXau.so.6"],
        "/s/libXau.so.6": [],
        "/s/libpython3.11.so.1.0": [],  # loaded by the bootloader with dlopen
    }
    entries = [
        ("PySide6/Qt/plugins/platforms/libqxcb.so", "/q/libqxcb.so", "BINARY"),
        ("libxcb-icccm.so.4", "/s/libxcb-icccm.so.4", "BINARY"),
        ("libXau.so.6", "/s/libXau.so.6", "BINARY"),
        ("libpython3.11.so.1.0", "/s/libpython3.11.so.1.0", "BINARY"),
    ]
    hosts = {"libxcb.so.1": "/host/libxcb.so.1"}
    shipped, dropped = plan.without_orphans(entries, plan.keep_binary, graph.__getitem__, hosts.get)
    assert [e[0] for e in dropped] == ["libXau.so.6"]
    assert [e[0] for e in shipped] == [
        "PySide6/Qt/plugins/platforms/libqxcb.so",
        "libxcb-icccm.so.4",
        "libpython3.11.so.1.0",
    ]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads ELF files")
def test_elf_needed_reads_direct_links_only() -> None:
    needed = plan.elf_needed(str(PYSIDE_QT / "lib" / "libQt6WebEngineWidgets.so.6"))
    assert "libQt6WebEngineCore.so.6" in needed
    assert "libQt6Widgets.so.6" in needed
    assert plan.elf_needed(str(ROOT / "pyproject.toml")) == []


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads ELF files")
def test_kept_qt_libraries_cover_everything_the_used_modules_link() -> None:
    # Start from what ships for sure (the bindings the app imports, the web engine helper, the
    # platform plugins) and follow DT_NEEDED through Qt's own libraries.
    bindings = ("QtCore", "QtGui", "QtWidgets", "QtNetwork", "QtPrintSupport", "QtWebChannel")
    bindings += ("QtWebEngineCore", "QtWebEngineWidgets")
    roots = [
        *(next(PYSIDE_QT.parent.glob(f"{name}.*.so")) for name in bindings),
        PYSIDE_QT / "libexec" / "QtWebEngineProcess",
        PYSIDE_QT / "plugins" / "platforms" / "libqxcb.so",
        PYSIDE_QT / "plugins" / "platforms" / "libqoffscreen.so",
        PYSIDE_QT / "plugins" / "imageformats" / "libqsvg.so",
        PYSIDE_QT / "plugins" / "iconengines" / "libqsvgicon.so",
        PYSIDE_QT / "plugins" / "printsupport" / "libcupsprintersupport.so",
    ]
    seen: set[str] = set()
    stack = [str(p) for p in roots]
    while stack:
        for name in plan.elf_needed(stack.pop()):
            library = PYSIDE_QT / "lib" / name
            if name not in seen and library.is_file():
                seen.add(name)
                stack.append(str(library))
    qt_names = {plan.qt_library_name(name) for name in seen} - {None}
    assert "WebEngineCore" in qt_names
    assert qt_names <= plan.KEPT_QT_LIBRARIES, (
        f"linked but trimmed: {sorted(qt_names - plan.KEPT_QT_LIBRARIES)}"
    )


def _excluded_imports_in_source() -> list[str]:
    excluded = set(plan.EXCLUDED_MODULES)
    found = []
    for source in sorted((ROOT / "checkout_desktop").rglob("*.py")):
        tree = ast.parse(source.read_text(encoding="utf-8"), filename=str(source))
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
            for name in names:
                parts = name.split(".")
                if any(".".join(parts[:i]) in excluded for i in range(1, len(parts) + 1)):
                    found.append(f"{source.relative_to(ROOT)}:{node.lineno} imports {name}")
    return found


def test_no_app_module_imports_an_excluded_module_anywhere() -> None:
    # Also imports inside functions, which PyInstaller would otherwise follow.
    assert _excluded_imports_in_source() == []


def test_importing_every_app_module_loads_no_excluded_module() -> None:
    # Catches excluded modules pulled in indirectly, by a dependency or by a Qt binding.
    script = (
        "import importlib, pkgutil, sys, json\n"
        "import checkout_desktop\n"
        "for m in pkgutil.walk_packages(checkout_desktop.__path__, 'checkout_desktop.'):\n"
        "    if not m.name.endswith('.__main__'):\n"
        "        importlib.import_module(m.name)\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    loaded = set(json.loads(result.stdout.splitlines()[-1]))
    excluded = set(plan.EXCLUDED_MODULES)
    hits = sorted(
        name for name in loaded if any(name == ex or name.startswith(ex + ".") for ex in excluded)
    )
    assert hits == []
