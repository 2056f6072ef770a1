"""Import direction: each layer imports only the layers below it (DESIGN.md).

`dsl/` (the language) imports nothing of the project above it; `compiler/`
may import `dsl/` and `engine/`; `engine/` (the runtime every generated
package imports) never imports `compiler/`, `dsl/` or the compile-time
libraries; `table/` sits on the compiler and the engine; `muster/` (the
commands) is on top and nothing imports it. No two modules of the tree
import each other, directly or round a circle, counting every import: at the
top of a module, inside a function or under `TYPE_CHECKING`.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.conftest import ROOT

PROJECT = ("dsl", "compiler", "engine", "generated", "rulesets", "table", "muster")
ALLOWED = {
    "dsl": {"dsl"},
    "compiler": {"dsl", "compiler", "engine"},
    "engine": {"engine"},
    "table": {"dsl", "compiler", "engine", "generated", "table"},
    "muster": {"dsl", "compiler", "engine", "generated", "table", "muster"},
}
COMPILE_TIME = {"lark", "jinja2", "networkx", "shapely", "PIL", "pypdfium2"}


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path, top_level_only: bool = False) -> list[tuple[str, int]]:
    """(module imported, line) for every import in the file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    nodes = tree.body if top_level_only else list(ast.walk(tree))
    found = []
    for node in nodes:
        if isinstance(node, ast.Import):
            found += [(a.name, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join([*package[: len(package) - node.level + 1], base]).strip(".")
            found.append((base, node.lineno))
            # `from engine import primitives` imports the module engine.primitives.
            found += [(f"{base}.{a.name}", node.lineno) for a in node.names]
    return found


def files(layer: str) -> list[Path]:
    return sorted((ROOT / layer).rglob("*.py"))


@pytest.mark.parametrize("layer", sorted(ALLOWED))
def test_each_layer_imports_only_the_layers_below(layer):
    wrong = []
    for path in files(layer):
        for name, line in imports(path):
            top = name.split(".")[0]
            if top in PROJECT and top not in ALLOWED[layer]:
                wrong.append(f"{path.relative_to(ROOT)}:{line} imports {name}")
            if layer == "engine" and top in COMPILE_TIME:
                wrong.append(f"{path.relative_to(ROOT)}:{line} imports {name} (compile time only)")
    assert wrong == []


def import_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One circle of imports in the graph (module -> modules it imports), or None."""
    state: dict[str, int] = {}  # 1: on the path being explored, 2: done

    def visit(name: str, path: list[str]) -> list[str] | None:
        state[name] = 1
        for other in sorted(graph[name]):
            if state.get(other) == 1:
                return [*path, name, other]
            if other not in state and (cycle := visit(other, [*path, name])):
                return cycle
        state[name] = 2
        return None

    for name in sorted(graph):
        if name not in state and (cycle := visit(name, [])):
            return cycle
    return None


def test_the_engine_loads_without_an_import_cycle():
    modules = {module_name(p): p for p in files("engine")}
    graph = {
        name: {m for m, _line in imports(path, top_level_only=True) if m in modules and m != name}
        for name, path in modules.items()
    }
    assert import_cycle(graph) is None


def test_no_import_cycle_in_the_tree_type_only_ones_included():
    """A circle through `TYPE_CHECKING` or a function's own import is still a
    circle for the reader: module A cannot be understood without B, nor B
    without A."""
    modules = {module_name(p): p for layer in ALLOWED for p in files(layer)}
    graph = {
        name: {m for m, _line in imports(path) if m in modules and m != name}
        for name, path in modules.items()
    }
    assert import_cycle(graph) is None


# Imports inside functions the engine still has, each a documented lazy
# optional dependency: none. (`State` reaches the interpreter, saves and
# descriptions through its `Game`; the whole vocabulary is `engine.registered`.)
LAZY: set[str] = set()


def test_no_engine_module_imports_inside_a_function():
    found = []
    for path in files("engine"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        top = {id(node) for node in tree.body}
        type_checking = {
            id(inner)
            for node in tree.body
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
            for inner in ast.walk(node)
        }
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Import | ast.ImportFrom)
                and id(node) not in top | type_checking
            ):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert sorted({f.rsplit(":", 1)[0] for f in found}) == sorted(LAZY), found
