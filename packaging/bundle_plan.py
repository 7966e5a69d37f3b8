"""What goes into the PyInstaller bundle: data files, hidden imports, and the Qt parts left out."""

# Read by checkout-desktop.spec at build time and by tests/integration/test_packaging_*.py, so the
# list the tests check is the list the build uses. It needs no PyInstaller and no Qt to import.
# This folder is deliberately not a Python package: `packaging` is also the name of a library
# that pip and pytest import, and an importable packaging/ here would shadow it.

from __future__ import annotations

import logging
import mmap
import os
import re
import struct
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

logger = logging.getLogger(__name__)

APP_NAME = "checkout-desktop"
# The distribution the bundle is built from; its metadata names the version and travels along.
DIST_NAME = "checkout-desktop"

# The published SDK builds the card page loads from the bundle (sdk_build "prod" and "dev"),
# installed by `npm ci` in scripts/setup.sh, never committed. The licence file travels with the
# minified script it belongs to; package.json records which version was shipped.
SDK_PACKAGES = ("checkout-transparent", "checkout-transparent-dev")
SDK_FILES = ("dist/pp-transparent.js", "dist/pp-transparent.js.LICENSE.txt", "package.json")

# Folders under resources/ shipped whole, and the translation files shipped from their folder.
WHOLE_RESOURCE_DIRS = ("card", "icons")
TRANSLATIONS_DIR = "translations"
TRANSLATION_GLOB = "*.qm"
# Files a bundle cannot do without (the card page; the icon the desktop entry and installers use).
REQUIRED_RESOURCES = ("card/index.html", "icons/checkout-desktop.svg")

# Editor and OS litter that must never ship even if it sits in a resource folder.
_JUNK = re.compile(r"(^|/)(\.[^/]*|__pycache__|[^/]*~|[^/]*\.(pyc|swp|orig|rej|ts))(/|$)")

# Python modules the app never imports but that PyInstaller's analysis would drag in: dev
# tools installed in the same venv, and PySide6 bindings of Qt modules the terminal does not use.
# tests/integration/test_packaging_plan.py imports every checkout_desktop module and checks that
# none of these ends up loaded, so an exclusion can never remove something the app needs.
EXCLUDED_MODULES = (
    "tkinter",
    "_tkinter",
    "IPython",
    "hypothesis",
    "pytest",
    "_pytest",
    "pytestqt",
    "pytest_asyncio",
    "mypy",
    "mypyc",
    "ruff",
    "trustme",
    "setuptools",
    "pip",
    *(
        f"PySide6.{name}"
        for name in (
            "Qt3DAnimation",
            "Qt3DCore",
            "Qt3DExtras",
            "Qt3DInput",
            "Qt3DLogic",
            "Qt3DRender",
            "QtAxContainer",
            "QtBluetooth",
            "QtCanvasPainter",
            "QtCharts",
            "QtConcurrent",
            "QtDataVisualization",
            "QtDesigner",
            "QtGraphs",
            "QtGraphsWidgets",
            "QtHelp",
            "QtHttpServer",
            "QtLocation",
            "QtMultimedia",
            "QtMultimediaWidgets",
            "QtNetworkAuth",
            "QtNfc",
            # Bindings of libraries that are shipped (QtWebEngine links them) but never called
            # from Python; PyInstaller's Qt hooks would add them.
            "QtOpenGL",
            "QtOpenGLWidgets",
            "QtPositioning",
            "QtDBus",
            "QtPdf",
            "QtPdfWidgets",
            "QtQml",
            "QtQuick",
            "QtQuick3D",
            "QtQuickControls2",
            "QtQuickTest",
            "QtQuickWidgets",
            "QtRemoteObjects",
            "QtScxml",
            "QtSensors",
            "QtSerialBus",
            "QtSerialPort",
            "QtSpatialAudio",
            "QtSql",
            "QtStateMachine",
            "QtTest",
            "QtTextToSpeech",
            "QtUiTools",
            "QtWebEngineQuick",
            "QtWebSockets",
            "QtWebView",
        )
    ),
)

# Qt shared libraries kept (by module name: libQt6<Name>.so.6, Qt6<Name>.dll, Qt<Name>.framework).
# Every other Qt library is dropped. The web view needs WebEngineCore/Widgets and WebChannel;
# WebEngineCore itself links Quick, Qml and Positioning (no QML runs, but the loader needs them);
# PrintSupport prints receipts; Svg draws the icon; XcbQpa/DBus/OpenGL serve the X11 platform.
# packaging/build.sh checks after the build that every kept binary still finds its libraries.
KEPT_QT_LIBRARIES = frozenset(
    {
        "Core",
        "Gui",
        "Widgets",
        "Network",
        "OpenGL",
        "OpenGLWidgets",
        "DBus",
        "Svg",
        "PrintSupport",
        "WebChannel",
        "WebEngineCore",
        "WebEngineWidgets",
        "Positioning",
        "Qml",
        "QmlMeta",
        "QmlModels",
        "QmlWorkerScript",
        "Quick",
        "QuickWidgets",
        "XcbQpa",
    }
)

# Qt plugin folders kept; the rest (QML tooling, sensors, multimedia, SQL drivers, Wayland
# compositor parts, EGL device integrations, touch input for framebuffer setups...) is dropped.
KEPT_PLUGIN_DIRS = frozenset(
    {
        "platforms",
        "platforminputcontexts",
        "platformthemes",
        "imageformats",
        "iconengines",
        "xcbglintegrations",
        "printsupport",
        "tls",
        "styles",
    }
)
# Plugins dropped inside kept folders. Platforms: X11 (xcb), Windows, Cocoa and offscreen (the
# self-test) stay; Wayland sessions run the xcb plugin through XWayland. The GTK3 theme would
# pull the whole GTK stack into the bundle; the PDF image format pulls QtPdf; the virtual
# keyboard plugin pulls QML.
_DROPPED_PLUGINS = re.compile(
    r"(^|/)plugins/("
    r"platforms/[^/]*(wayland|eglfs|linuxfb|vnc|minimal|vkkhrdisplay|direct2d)[^/]*"
    r"|platformthemes/[^/]*gtk[^/]*"
    r"|imageformats/[^/]*pdf[^/]*"
    r"|platforminputcontexts/[^/]*virtualkeyboard[^/]*"
    r")$",
    re.IGNORECASE,
)
_PLUGIN_DIR = re.compile(r"(^|/)(Qt/)?plugins/(?P<dir>[^/]+)/")

# A Qt library's module name from its bundle path on Linux, Windows or macOS. Python extension
# modules (QtCore.abi3.so, QtCore.pyd) do not match: they have a suffix between name and .so.
_QT_LIBRARY = re.compile(
    r"(^|/)(lib)?Qt6?(?P<name>[A-Za-z0-9_-]+)(\.so(\.[0-9]+)*|\.dll|\.dylib|\.framework/.*)$"
)

# Qt's own translations: only what Brazilian Portuguese and English users see. Chromium's
# locale packs are 44 MB for ~100 languages; the page needs en-US and pt-BR.
_QT_TRANSLATIONS = re.compile(r"(^|/)PySide6/(Qt/)?translations/(?P<rest>.+)$")
_KEPT_QT_TRANSLATIONS = re.compile(
    r"^(qtwebengine_locales/(en-US|pt-BR)\.pak|(qt|qtbase|qtwebengine)_(pt_BR|en)\.qm)$"
)

# QML files, Qt type descriptions and headers: nothing in the bundle reads them.
_DROPPED_DATA = re.compile(
    r"(^|/)PySide6/(Qt/)?(qml|metatypes|include|typesystems|glue|scripts)/"
    r"|(^|/)PySide6/[^/]*\.pyi$"
    r"|\.dist-info/direct_url\.json$"  # would record the build machine's checkout path
    # A source tree's stale setuptools metadata next to the installed .dist-info would give
    # importlib.metadata two answers for the version.
    r"|(^|/)[^/]+\.egg-info/"
)

# Linux libraries taken from the shop PC instead of copied from the build machine, because they
# must match the machine rather than the build: the graphics stack (the system's Mesa drivers,
# loaded through the system libGL that PyInstaller already leaves out, need the system's libgbm,
# libdrm, libX11/libxcb and a libstdc++/libgcc_s at least as new as their own), font
# configuration (a newer fonts.conf breaks an older fontconfig), ALSA (its config files) and
# CUPS (it talks to the local print server; without it printing to PDF still works). Every
# desktop distribution has them; packaging/README.md lists the Debian packages. What came in
# only with them (libXau, libbsd, GnuTLS behind CUPS...) goes too, through without_orphans().
_HOST_LIBRARIES = re.compile(
    r"(^|/)lib(stdc\+\+|gcc_s|gbm|drm|X11|xcb|fontconfig|freetype|asound|cups)\.so[.0-9]*$"
)


class BundlePlanError(RuntimeError):
    """The bundle cannot be planned: a file it must contain is missing; the message says how."""


def _normalized(dest: str) -> str:
    return dest.replace("\\", "/")


def qt_library_name(dest: str) -> str | None:
    """The Qt module name of a shared library's bundle path ("WebEngineCore"), else None."""
    match = _QT_LIBRARY.search(_normalized(dest))
    return match.group("name") if match else None


def keep_binary(dest: str) -> bool:
    """Whether a binary PyInstaller collected (by its path inside the bundle) is shipped."""
    path = _normalized(dest)
    if _HOST_LIBRARIES.search(path):
        return False
    plugin = _PLUGIN_DIR.search(path)
    if plugin and "PySide6/" in path:
        return plugin.group("dir") in KEPT_PLUGIN_DIRS and not _DROPPED_PLUGINS.search(path)
    if "/qml/" in f"/{path}":
        return False
    name = qt_library_name(path)
    if name is not None:
        return name in KEPT_QT_LIBRARIES
    return True


def keep_data(dest: str) -> bool:
    """Whether a data file PyInstaller collected (by its path inside the bundle) is shipped."""
    path = _normalized(dest)
    if _DROPPED_DATA.search(path):
        return False
    translation = _QT_TRANSLATIONS.search(path)
    if translation:
        return bool(_KEPT_QT_TRANSLATIONS.match(translation.group("rest")))
    # Qt frameworks on macOS carry resources as data; they follow their library's fate.
    if qt_library_name(path) is not None or _PLUGIN_DIR.search(path):
        return keep_binary(path)
    return True


def _resource_files(folder: Path, pattern: str) -> list[Path]:
    files = []
    for path in sorted(folder.glob(pattern)):
        relative = path.relative_to(folder).as_posix()
        if path.is_file() and not _JUNK.search(relative):
            files.append(path)
    return files


def data_files(root: Path) -> list[tuple[str, str]]:
    """(source file, folder inside the bundle) for every resource the bundle ships.

    Raises BundlePlanError naming the missing file and the command that provides it.
    """
    resources = root / "resources"
    for required in REQUIRED_RESOURCES:
        if not (resources / required).is_file():
            raise BundlePlanError(
                f"resources/{required} is missing from {root}; the bundle cannot be built "
                "without it"
            )
    pairs: list[tuple[str, str]] = []

    def add(source: Path) -> None:
        pairs.append((str(source), source.parent.relative_to(root).as_posix()))

    for folder in WHOLE_RESOURCE_DIRS:
        for source in _resource_files(resources / folder, "**/*"):
            add(source)
    for source in _resource_files(resources / TRANSLATIONS_DIR, TRANSLATION_GLOB):
        add(source)
    for package in SDK_PACKAGES:
        for name in SDK_FILES:
            source = resources / "sdk" / "node_modules" / package / name
            if not source.is_file():
                raise BundlePlanError(
                    f"{source.relative_to(root)} is missing: the card SDK is installed by npm at "
                    "build time; run `bash scripts/setup.sh` first"
                )
            add(source)
    return pairs


def subcommand_modules(root: Path) -> list[str]:
    """The modules cli.SUBCOMMANDS imports by name, which PyInstaller cannot see by itself."""
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    from checkout_desktop.cli import SUBCOMMANDS

    return sorted({module for module, _help in SUBCOMMANDS.values()})


def bundle_version() -> str:
    """The version of the installed checkout-desktop distribution the bundle is built from."""
    from importlib import metadata

    try:
        return metadata.version(DIST_NAME)
    except metadata.PackageNotFoundError:
        raise BundlePlanError(
            f"the {DIST_NAME} distribution is not installed in this Python; run "
            "`bash scripts/setup.sh` (it installs the package into .venv) and build with .venv"
        ) from None


def hidden_imports(root: Path) -> list[str]:
    """Modules to bundle that no import statement names: the subcommands."""
    return subcommand_modules(root)


Entry = tuple[str, str, str]  # a PyInstaller TOC entry: (path in bundle, source file, kind)


def filtered(entries: Iterable[Entry], keep: Callable[[str], bool]) -> list[Entry]:
    """PyInstaller TOC entries for which keep(path in bundle) is true."""
    return [entry for entry in entries if keep(entry[0])]


def without_orphans(
    binaries: Iterable[Entry],
    keep: Callable[[str], bool],
    links_of: Callable[[str], Iterable[str]],
    resolve: Callable[[str], str | None] = lambda _name: None,
) -> tuple[list[Entry], list[Entry]]:
    """Split binaries into (shipped, dropped): keep() decides, and libraries that were collected
    only because a dropped binary links them (the GTK stack behind the GTK3 theme plugin, for
    instance) go too.

    links_of(file) names the libraries a binary links directly (DT_NEEDED on Linux, imports on
    Windows, load commands on macOS). resolve(name) finds a linked library that is not in the
    list on the build machine (PyInstaller leaves out libxcb and libGL, for instance): such a
    library counts as dropped, so what only it links (libXau behind libxcb) is dropped too.

    Every binary that nothing links (Python extension modules, plugins, QtWebEngineProcess, the
    Python library, modules loaded with dlopen such as NSS's) is a root. Shipped is what the
    kept roots reach without passing through a dropped binary.
    """
    entries = list(binaries)
    by_name: dict[str, set[str]] = {}
    files: dict[str, str] = {}
    for index, (dest, source, _kind) in enumerate(entries):
        node = f"entry:{index}"
        files[node] = source
        for path in (dest, source, _real(source)):
            by_name.setdefault(_library_key(path), set()).add(node)
    memo: dict[str, set[str]] = {}

    def links(node: str) -> set[str]:
        if node not in memo:
            targets: set[str] = set()
            for name in links_of(files[node]):
                found = by_name.get(_library_key(name))
                if found:
                    targets |= found
                    continue
                path = resolve(name)
                if path:
                    host = f"host:{_real(path)}"
                    files.setdefault(host, path)
                    targets.add(host)
            memo[node] = targets - {node}
        return memo[node]

    entry_nodes = [f"entry:{index}" for index in range(len(entries))]
    # Explore the whole graph once, build-machine libraries included.
    linked_by_anything: set[str] = set()
    explored: set[str] = set()
    stack = list(entry_nodes)
    while stack:
        node = stack.pop()
        if node in explored:
            continue
        explored.add(node)
        for target in links(node):
            linked_by_anything.add(target)
            stack.append(target)
    refused = {f"entry:{i}" for i, entry in enumerate(entries) if not keep(entry[0])}
    refused |= {node for node in explored if node.startswith("host:")}
    roots = [node for node in entry_nodes if node not in linked_by_anything | refused]
    needed = set(roots)
    stack = list(roots)
    while stack:
        for target in links(stack.pop()):
            if target not in needed and target not in refused:
                needed.add(target)
                stack.append(target)
    shipped = [entry for node, entry in zip(entry_nodes, entries, strict=True) if node in needed]
    dropped = [
        entry for node, entry in zip(entry_nodes, entries, strict=True) if node not in needed
    ]
    return shipped, dropped


def _library_key(path: str) -> str:
    # Windows compares DLL names without case; elsewhere the base name is what the loader uses.
    name = _normalized(path).rsplit("/", 1)[-1]
    return name.lower() if name.lower().endswith(".dll") else name


_PT_LOAD = 1
_PT_DYNAMIC = 2
_DT_NEEDED = 1
_DT_STRTAB = 5


def elf_needed(path: str) -> list[str]:
    """The DT_NEEDED entries of an ELF file: the libraries it links directly ([] if not ELF).

    `ldd` would list the whole transitive closure, which hides which library pulled which.
    """
    with open(path, "rb") as handle:
        if os.fstat(handle.fileno()).st_size < 0x40:
            return []
        # Mapped, not read: QtWebEngineCore alone is ~200 MB and only a few pages are needed.
        with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data:
            return _needed_from(data)


def _needed_from(data: mmap.mmap) -> list[str]:
    if data[:4] != b"\x7fELF" or data[4] not in (1, 2) or data[5] not in (1, 2):
        return []
    wide = data[4] == 2
    order = "<" if data[5] == 1 else ">"
    if wide:
        phoff, phentsize, phnum = (
            struct.unpack_from(order + "Q", data, 0x20)[0],
            *struct.unpack_from(order + "HH", data, 0x36),
        )
        phdr, dyn = order + "IIQQQQQQ", order + "qQ"
    else:
        phoff, phentsize, phnum = (
            struct.unpack_from(order + "I", data, 0x1C)[0],
            *struct.unpack_from(order + "HH", data, 0x2A),
        )
        phdr, dyn = order + "IIIIIIII", order + "iI"
    loads: list[tuple[int, int, int]] = []  # (vaddr, file offset, file size)
    dynamic: tuple[int, int] | None = None  # (file offset, size)
    for number in range(phnum):
        fields = struct.unpack_from(phdr, data, phoff + number * phentsize)
        if wide:
            p_type, _flags, offset, vaddr, _paddr, filesz = fields[:6]
        else:
            p_type, offset, vaddr, _paddr, filesz = fields[:5]
        if p_type == _PT_LOAD:
            loads.append((vaddr, offset, filesz))
        elif p_type == _PT_DYNAMIC:
            dynamic = (offset, filesz)
    if dynamic is None:
        return []
    needed_offsets: list[int] = []
    strtab_vaddr = None
    step = struct.calcsize(dyn)
    for position in range(dynamic[0], dynamic[0] + dynamic[1] - step + 1, step):
        tag, value = struct.unpack_from(dyn, data, position)
        if tag == 0:
            break
        if tag == _DT_NEEDED:
            needed_offsets.append(value)
        elif tag == _DT_STRTAB:
            strtab_vaddr = value
    if strtab_vaddr is None:
        return []
    strtab = next(
        (
            off + strtab_vaddr - vaddr
            for vaddr, off, size in loads
            if vaddr <= strtab_vaddr < vaddr + size
        ),
        None,
    )
    if strtab is None:
        return []
    names = []
    for offset in needed_offsets:
        start = strtab + offset
        names.append(data[start : data.find(b"\0", start)].decode("utf-8", "replace"))
    return names


def _real(path: str) -> str:
    return os.path.realpath(path)
