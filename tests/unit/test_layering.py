"""The layer contract over the runtime import graph, no import circles, and Qt only in the GUI.

Layers, highest first; a module may import its own layer and the ones below it, never above:

    entry     app.py, cli.py           arguments and `run`: the composition root's front door
    ui        ui/                      Qt: windows, panels, the qasync loop, the window's start-up
    core      terminal.py listen.py    the headless core, assembled (composition root, no Qt),
              doctor/                  the window-less `listen` command's assembly, and the
                                       first-contact check that assembles the same parts
    charges   charges/                 the charge use case: ledger, service, reconciler
    services  gateway/ inbox/ sandbox/ HTTP client, webhook inbox, the service's simulator
    store     store/                   SQLite: schema, migrations, repositories
    support   settings secrets logsetup paths errors collector texts
                                       settings model, keychain, logging with redaction, folders,
                                       the plain start-up error, the cycle collector's settling:
                                       leaf services every layer above the domain may use
    domain    domain/, the package's __init__
                                       pure logic: wire models, money, documents, state, events

The services are peers: none imports another, but for the known exceptions listed below, which
may only shrink. Imports inside `if TYPE_CHECKING:` are not runtime imports and are not counted;
imports inside functions are. Qt (PySide6, shiboken6, qasync) is for ui/ and app.py only.
"""

from __future__ import annotations

import ast
import json
import logging
import pkgutil
import shutil
import subprocess
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import checkout_desktop

logger = logging.getLogger(__name__)

PACKAGE_DIR = Path(checkout_desktop.__file__).resolve().parent
PACKAGE = checkout_desktop.__name__
FORBIDDEN = frozenset({"PySide6", "shiboken6", "qasync"})
# The Qt side of the house: the ui package and app.py, which runs the window on ui/loop.py.
QT_PACKAGES = frozenset({"checkout_desktop.ui"})
QT_MODULES = frozenset({"checkout_desktop.app"})

LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("entry", ("app", "cli")),
    ("ui", ("ui",)),
    ("core", ("terminal", "listen", "doctor")),
    ("charges", ("charges",)),
    ("services", ("gateway", "inbox", "sandbox")),
    ("store", ("store",)),
    ("support", ("settings", "secrets", "logsetup", "paths", "errors", "collector", "texts")),
    ("domain", ("domain", "")),
)
"""Each layer's top-level parts (relative to the package; "" is the package's __init__)."""

PEER_LAYERS = frozenset({"services"})
"""Layers whose parts are independent of each other."""

KNOWN_PEER_IMPORTS: frozenset[tuple[str, str]] = frozenset()

SQLITE3_HOMES = ("store.", "sandbox.")
"""sqlite3 belongs under store/ (and the sandbox, the service's own process): no other module
imports it at run time; the rest of the package reaches the store through its ports."""

UI_STORE_READERS: frozenset[str] = frozenset()
"""Widgets read through charges/views.py and the event store's port (typed only), never a
repository: no ui module imports the store at run time."""


# ---------------------------------------------------------------------------------------------
# The checker (runs over any package folder, so that its own test can feed it a bad one)


@dataclass(frozen=True, order=True)
class Import:
    """One runtime import: `module` imports `target` at `line`."""

    module: str
    target: str
    line: int


def module_names(package_dir: Path, package: str) -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its __init__)."""
    found: dict[str, Path] = {}
    for path in sorted(package_dir.rglob("*.py")):
        parts = [package, *path.relative_to(package_dir).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


class _RuntimeImports(ast.NodeVisitor):
    """Collects import statements, nested ones too, except those only the type checker runs."""

    def __init__(self) -> None:
        self.found: list[ast.Import | ast.ImportFrom] = []

    def visit_If(self, node: ast.If) -> None:
        if _is_type_checking(node.test):
            for child in node.orelse:
                self.visit(child)
        else:
            self.generic_visit(node)

    def visit_Import(self, node: ast.Import) -> None:
        self.found.append(node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        self.found.append(node)


def runtime_imports(
    path: Path, module: str, known: Mapping[str, Path], *, is_package: bool
) -> list[Import]:
    """The imports `module` runs (absolute names; a `from X import name` that names a
    submodule counts as importing the submodule)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    visitor = _RuntimeImports()
    visitor.visit(tree)
    found: list[Import] = []
    for node in visitor.found:
        if isinstance(node, ast.Import):
            found.extend(Import(module, alias.name, node.lineno) for alias in node.names)
        else:
            if node.level:
                base = module.split(".") if is_package else module.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                source = ".".join([*base, *([node.module] if node.module else [])])
            else:
                source = node.module or ""
            for alias in node.names:
                submodule = f"{source}.{alias.name}"
                found.append(
                    Import(module, submodule if submodule in known else source, node.lineno)
                )
    return sorted(set(found))


def import_graph(package_dir: Path, package: str) -> list[Import]:
    """Every runtime import of every module in the package."""
    modules = module_names(package_dir, package)
    edges: list[Import] = []
    for name, path in modules.items():
        edges.extend(runtime_imports(path, name, modules, is_package=path.name == "__init__.py"))
    return edges


def layer_of(
    module: str, package: str, layers: Sequence[tuple[str, tuple[str, ...]]] = LAYERS
) -> tuple[int, str, str] | None:
    """(rank, layer, part) of a module of the package, rank 0 the highest; None if unplaced."""
    relative = module.removeprefix(package).removeprefix(".")
    top = relative.split(".")[0] if relative else ""
    for rank, (layer, parts) in enumerate(layers):
        if top in parts:
            return rank, layer, top
    return None


def contract_violations(
    edges: Iterable[Import],
    package: str,
    *,
    layers: Sequence[tuple[str, tuple[str, ...]]] = LAYERS,
    peer_layers: frozenset[str] = PEER_LAYERS,
    known_peer_imports: frozenset[tuple[str, str]] = frozenset(),
) -> list[str]:
    """Upward imports, imports between peers, and modules no layer holds."""
    problems: set[str] = set()
    for edge in edges:
        if edge.target != package and not edge.target.startswith(package + "."):
            continue
        source = layer_of(edge.module, package, layers)
        target = layer_of(edge.target, package, layers)
        for name, place in ((edge.module, source), (edge.target, target)):
            if place is None:
                problems.add(f"{name} is in no layer")
        if source is None or target is None:
            continue
        where = f"{edge.module}:{edge.line} imports {edge.target}"
        if target[0] < source[0]:
            problems.add(f"{where}: {source[1]} may not import {target[1]}, a higher layer")
        elif (
            target[0] == source[0]
            and source[1] in peer_layers
            and source[2] != target[2]
            and (edge.module, edge.target) not in known_peer_imports
        ):
            problems.add(f"{where}: {source[2]} and {target[2]} are peers")
    return sorted(problems)


def import_circles(edges: Iterable[Import], package: str) -> list[list[str]]:
    """The package's import circles (strongly connected groups of its modules), each sorted."""
    graph: dict[str, set[str]] = {}
    for edge in edges:
        if edge.target.startswith(package + ".") or edge.target == package:
            graph.setdefault(edge.module, set()).add(edge.target)
            graph.setdefault(edge.target, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt == node:
                continue
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group: list[str] = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                circles.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(circles)


def importers_of(edges: Iterable[Import], top_level: str) -> set[str]:
    """The modules that import `top_level` (or a submodule of it) at run time."""
    return {
        edge.module
        for edge in edges
        if edge.target == top_level or edge.target.startswith(top_level + ".")
    }


def _is_qt_side(module: str) -> bool:
    if module in QT_MODULES:
        return True
    return any(module == pkg or module.startswith(pkg + ".") for pkg in QT_PACKAGES)


def qt_outside_the_gui(edges: Iterable[Import], package: str) -> list[str]:
    """Qt imports by modules other than the package's ui/ and app.py."""

    def gui(module: str) -> bool:
        return module == f"{package}.app" or (module + ".").startswith(f"{package}.ui.")

    return sorted(
        f"{edge.module}:{edge.line} imports {edge.target}"
        for edge in edges
        if edge.target.split(".")[0] in FORBIDDEN and not gui(edge.module)
    )


# ---------------------------------------------------------------------------------------------
# The checker sees what it must (a package with every kind of fault)


def _write(root: Path, files: Mapping[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def test_the_checker_reports_an_upward_import_a_circle_peers_and_qt(tmp_path: Path) -> None:
    package = tmp_path / "shop"
    _write(
        package,
        {
            "__init__.py": "",
            "domain/__init__.py": "",
            # A forbidden edge, written lazily inside a function: still a runtime import.
            "domain/money.py": "def f():\n    from shop.ui import window\n",
            # Only for the type checker: not an edge.
            "domain/state.py": (
                "from typing import TYPE_CHECKING\n"
                "if TYPE_CHECKING:\n    from shop.store import db\n"
                "else:\n    import json\n"
            ),
            "store/__init__.py": "",
            # A circle, one side through a relative import.
            "store/db.py": "from . import schema\n",
            "store/schema.py": "import shop.store.db\n",
            "gateway/__init__.py": "",
            "gateway/client.py": "from shop.inbox.listener import Listener\n",
            "inbox/__init__.py": "",
            "inbox/listener.py": "from shop.domain import money\nfrom shop import settings\n",
            "settings.py": "",
            "ui/__init__.py": "",
            "ui/window.py": "from PySide6.QtWidgets import QWidget\nfrom shop.store import db\n",
            "cli.py": "try:\n    import qasync\nexcept ImportError:\n    qasync = None\n",
            "extra.py": "from shop.domain import money\n",
        },
    )
    edges = import_graph(package, "shop")
    assert contract_violations(edges, "shop") == [
        "shop.domain.money:2 imports shop.ui.window: domain may not import ui, a higher layer",
        "shop.extra is in no layer",
        "shop.gateway.client:1 imports shop.inbox.listener: gateway and inbox are peers",
    ]
    assert contract_violations(
        edges,
        "shop",
        known_peer_imports=frozenset({("shop.gateway.client", "shop.inbox.listener")}),
    ) == [
        "shop.domain.money:2 imports shop.ui.window: domain may not import ui, a higher layer",
        "shop.extra is in no layer",
    ]
    assert import_circles(edges, "shop") == [["shop.store.db", "shop.store.schema"]]
    assert qt_outside_the_gui(edges, "shop") == ["shop.cli:2 imports qasync"]


def test_the_contract_fails_when_a_forbidden_import_is_added_to_the_real_package(
    tmp_path: Path,
) -> None:
    copy = tmp_path / PACKAGE
    shutil.copytree(PACKAGE_DIR, copy, ignore=shutil.ignore_patterns("__pycache__"))
    assert (
        contract_violations(
            import_graph(copy, PACKAGE), PACKAGE, known_peer_imports=KNOWN_PEER_IMPORTS
        )
        == []
    )
    money = copy / "domain" / "money.py"
    money.write_text(
        money.read_text(encoding="utf-8") + "\n\ndef _late() -> None:\n"
        "    from checkout_desktop.ui import labels  # noqa: F401\n",
        encoding="utf-8",
    )
    selftest = copy / "ui" / "selftest.py"
    selftest.write_text(
        selftest.read_text(encoding="utf-8") + "\nimport checkout_desktop.app  # noqa: E402\n",
        encoding="utf-8",
    )
    edges = import_graph(copy, PACKAGE)
    problems = contract_violations(edges, PACKAGE, known_peer_imports=KNOWN_PEER_IMPORTS)
    assert len(problems) == 2, problems
    assert problems[0].startswith("checkout_desktop.domain.money:")
    assert problems[0].endswith(
        "imports checkout_desktop.ui.labels: domain may not import ui, a higher layer"
    )
    assert problems[1].endswith(
        "imports checkout_desktop.app: ui may not import entry, a higher layer"
    )
    assert [f"{PACKAGE}.app", f"{PACKAGE}.ui.selftest"] in import_circles(edges, PACKAGE)


# ---------------------------------------------------------------------------------------------
# The real package keeps the contract


def _edges() -> list[Import]:
    return import_graph(PACKAGE_DIR, PACKAGE)


def test_every_module_is_in_a_layer_and_imports_only_its_own_or_lower_ones() -> None:
    edges = _edges()
    assert {edge.module for edge in edges} >= {
        f"{PACKAGE}.app",
        f"{PACKAGE}.terminal",
        f"{PACKAGE}.ui.launch",
        f"{PACKAGE}.domain.money",
    }, "the checker did not scan the package"
    problems = contract_violations(edges, PACKAGE, known_peer_imports=KNOWN_PEER_IMPORTS)
    assert not problems, "the layer contract (see this file's docstring) is broken:\n" + "\n".join(
        problems
    )


def test_the_known_peer_imports_are_still_there() -> None:
    """An exception that is gone must leave the list, so that it cannot come back unnoticed."""
    edges = {(edge.module, edge.target) for edge in _edges()}
    assert edges >= KNOWN_PEER_IMPORTS, (
        f"remove these from KNOWN_PEER_IMPORTS, they no longer exist: {KNOWN_PEER_IMPORTS - edges}"
    )


def test_there_are_no_import_circles() -> None:
    assert import_circles(_edges(), PACKAGE) == []


def test_the_gui_never_imports_the_entry_modules() -> None:
    importers = importers_of(_edges(), f"{PACKAGE}.app") | importers_of(_edges(), f"{PACKAGE}.cli")
    assert not {m for m in importers if m.startswith(f"{PACKAGE}.ui")}, importers


def sqlite3_outside_its_homes(edges: Iterable[Import], package: str) -> list[str]:
    """Modules outside store/ and sandbox/ that import sqlite3 at run time."""
    homes = tuple(f"{package}.{home}" for home in SQLITE3_HOMES)
    return sorted(
        f"{edge.module}:{edge.line} imports {edge.target}"
        for edge in edges
        if edge.target.split(".")[0] == "sqlite3" and not edge.module.startswith(homes)
    )


def test_sqlite3_only_under_the_store_and_the_sandbox() -> None:
    assert sqlite3_outside_its_homes(_edges(), PACKAGE) == []


def test_the_sqlite3_rule_fails_when_a_module_imports_it(tmp_path: Path) -> None:
    copy = tmp_path / PACKAGE
    shutil.copytree(PACKAGE_DIR, copy, ignore=shutil.ignore_patterns("__pycache__"))
    assert sqlite3_outside_its_homes(import_graph(copy, PACKAGE), PACKAGE) == []
    ledger = copy / "charges" / "ledger.py"
    ledger.write_text(
        ledger.read_text(encoding="utf-8") + "\n\ndef _peek() -> None:\n"
        "    import sqlite3  # noqa: F401\n",
        encoding="utf-8",
    )
    # Only for the type checker: not a runtime import, so still allowed.
    inbox = copy / "inbox" / "writer.py"
    inbox.write_text(
        inbox.read_text(encoding="utf-8") + "\nif TYPE_CHECKING:\n    import sqlite3\n",
        encoding="utf-8",
    )
    problems = sqlite3_outside_its_homes(import_graph(copy, PACKAGE), PACKAGE)
    assert len(problems) == 1, problems
    assert problems[0].startswith("checkout_desktop.charges.ledger:")
    assert problems[0].endswith("imports sqlite3")


def test_widgets_never_import_the_store() -> None:
    readers = {
        module
        for module in importers_of(_edges(), f"{PACKAGE}.store")
        if module.startswith(f"{PACKAGE}.ui.")
    }
    assert readers == UI_STORE_READERS, (
        "widgets read charges through checkout_desktop.charges.views and deliveries through "
        f"the store's ports, not the store itself; these import it: {sorted(readers)}"
    )


# ---------------------------------------------------------------------------------------------
# Qt only on the GUI side


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
    assert PACKAGE_DIR / "terminal.py" in sources, "the headless core was not scanned"
    offenders = {
        str(path.relative_to(PACKAGE_DIR.parent)): hits
        for path in sources
        if (hits := _forbidden_imports(path))
    }
    assert not offenders, (
        "only checkout_desktop/ui/ and checkout_desktop/app.py may import "
        f"{', '.join(sorted(FORBIDDEN))}; these do: {offenders}"
    )
    assert qt_outside_the_gui(_edges(), PACKAGE) == []


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
    assert "checkout_desktop.terminal" in modules, modules
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
