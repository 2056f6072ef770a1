"""Import direction: each layer imports only the layers below it (DESIGN.md).

`dsl/` (the language) imports nothing of the project above it; `compiler/`
may import `dsl/` and `engine/`; `engine/` (the runtime every generated
package imports) never imports `compiler/`, `dsl/` or the compile-time
libraries. Within `engine/`, the imports made when a module loads form no
cycle. Every import counts, at the top of a module or inside a function.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.conftest import ROOT

PROJECT = ("dsl", "compiler", "engine", "generated", "rulesets")
ALLOWED = {
    "dsl": {"dsl"},
    "compiler": {"dsl", "compiler", "engine"},
    "engine": {"engine"},
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


def test_the_engine_loads_without_an_import_cycle():
    modules = {module_name(p): p for p in files("engine")}
    graph = {
        name: {m for m, _line in imports(path, top_level_only=True) if m in modules and m != name}
        for name, path in modules.items()
    }
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
        if name not in state:
            assert visit(name, []) is None


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
