"""The layering rules, checked on the source: handlers (HTTP) -> serving (per-surface
translation, HTTP-free) -> engine (inference only).

Imports inside functions count (they run). Imports under ``if TYPE_CHECKING:`` are
annotations only: they are left out of the cycle check but count for the layering rules (an
annotation that names an upper layer is a dependency on it too).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("afm", "handlers", "serving", "engine", "modelbuilder")
FORBIDDEN = {
    "afm": {"handlers"},
    "serving": {"afm", "handlers"},
    "engine": {"afm", "handlers", "serving"},
    "modelbuilder": {"afm", "handlers", "serving"},
}
HTTP_LIBRARIES = ("starlette", "connexion", "uvicorn")


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(tree: ast.AST, type_checking: bool = False) -> list[tuple[str, list[str]]]:
    """(module, imported names) of every runtime import in ``tree`` (and, with
    ``type_checking``, of those under ``if TYPE_CHECKING:``)."""
    found: list[tuple[str, list[str]]] = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node) and not type_checking:
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            found.extend((alias.name, []) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.module, [alias.name for alias in node.names]))
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def _modules() -> dict[str, Path]:
    out = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            out[name] = path
    return out


def _graph(type_checking: bool = False) -> dict[str, dict[str, list[str]]]:
    """module -> {imported project module: names imported from it}."""
    modules = _modules()
    graph: dict[str, dict[str, list[str]]] = {}
    for name, path in modules.items():
        edges: dict[str, list[str]] = {}
        for module, names in _imports(ast.parse(path.read_text(), str(path)), type_checking):
            for candidate in [f"{module}.{n}" for n in names] + [module]:
                if candidate in modules:
                    if candidate != module:  # `from pkg import submodule`
                        edges.setdefault(candidate, [])
                    else:
                        edges.setdefault(module, []).extend(names)
                    break
        graph[name] = edges
    return graph


def _cycles(graph: dict[str, dict[str, list[str]]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def strong(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, {}):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in graph:
        if v not in index:
            strong(v)
    return found


def test_graph_sees_known_edges() -> None:
    """The walker itself works: it finds imports that certainly exist."""
    graph = _graph()
    assert "serving.prepare" in graph["handlers.chat"]
    assert "engine.types" in graph["serving.run"]
    assert "serving.model_context" not in graph["serving.chat"]  # TYPE_CHECKING only
    assert "serving.model_context" in _graph(type_checking=True)["serving.chat"]


def test_type_checking_imports_are_counted() -> None:
    tree = ast.parse("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                     "    from afm.state import AppState\n")
    assert ("afm.state", ["AppState"]) not in _imports(tree)
    assert ("afm.state", ["AppState"]) in _imports(tree, type_checking=True)


def test_no_import_cycles() -> None:
    assert _cycles(_graph()) == []


def test_cycle_detector_finds_a_cycle() -> None:
    assert _cycles({"a": {"b": []}, "b": {"c": []}, "c": {"a": []}}) == [["a", "b", "c"]]


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_layers_import_only_downwards(package: str) -> None:
    bad = [f"{src} -> {dst}" for src, edges in _graph(type_checking=True).items()
           if src.split(".")[0] == package
           for dst in edges if dst.split(".")[0] in FORBIDDEN[package]]
    assert bad == []


def test_no_private_names_across_packages() -> None:
    bad = [f"{src} imports {dst}.{name}" for src, edges in _graph().items()
           for dst, names in edges.items() if dst.split(".")[0] != src.split(".")[0]
           for name in names if name.startswith("_")]
    assert bad == []


@pytest.mark.parametrize("package", ["serving", "engine"])
def test_below_handlers_nothing_speaks_http(package: str) -> None:
    modules = _modules()
    bad = [f"{name} imports {module}" for name, path in modules.items()
           if name.split(".")[0] == package
           for module, _ in _imports(ast.parse(path.read_text()))
           if module.split(".")[0] in HTTP_LIBRARIES]
    assert bad == []


def test_handlers_are_thin() -> None:
    """Handler modules only shape HTTP; logic lives in serving."""
    long = {p.name: n for p in (ROOT / "handlers").glob("*.py")
            if (n := len(p.read_text().splitlines())) > 120}
    assert long == {}
