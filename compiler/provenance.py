"""Provenance: where each value of a ruleset comes from.

Three questions, asked of the syntax tree (literals as written) or the IR:
which number literals are neither cited nor marked provisional (a value
nobody vouches for), which values are provisional and why, and which
sections of a document the rule files cite.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import singledispatch
from operator import attrgetter
from typing import Any

from compiler import ir
from dsl import ast
from dsl.source import Span


@dataclass(frozen=True, slots=True)
class Literal:
    """A number as written in a rule file."""

    text: str
    span: Span


def _vouched(prov: ast.Provenance) -> bool:
    return bool(prov.citations) or prov.provisional is not None


@singledispatch
def _literals(node: Any) -> Iterator[Literal]:
    """Every number, range bound and odds written inside a syntax-tree node."""
    if dataclasses.is_dataclass(node):
        for f in dataclasses.fields(node):
            yield from _literals(getattr(node, f.name))


@_literals.register
def _(node: ast.Number) -> Iterator[Literal]:
    yield Literal(node.text, node.span)


@_literals.register
def _(node: ast.Range) -> Iterator[Literal]:
    for bound in (node.low, node.high):
        if bound is not None:
            yield Literal(bound, node.span)


@_literals.register
def _(node: ast.Odds) -> Iterator[Literal]:
    yield Literal(f"{node.attack}:{node.defend}", node.span)


@_literals.register(ast.Provenance)
@_literals.register(ast.Citation)
def _(node: ast.Provenance | ast.Citation) -> Iterator[Literal]:
    """A citation's section numbers are not values of the rules."""
    yield from ()


@_literals.register(tuple)
@_literals.register(list)
def _(node: tuple | list) -> Iterator[Literal]:
    for item in node:
        yield from _literals(item)


def _owned(node: Any, vouched: bool) -> Iterator[tuple[Literal, bool]]:
    """Literals with whether an enclosing declaration, line, step or row vouches for them."""
    prov = getattr(node, "prov", None)
    if isinstance(prov, ast.Provenance) and _vouched(prov):
        vouched = True
    parts = _VOUCHING_PARTS.get(type(node))
    if parts is None:
        for lit in _literals(node):
            yield lit, vouched
        return
    if isinstance(node, ast.Line):
        for lit in _literals((node.values, node.when)):
            yield lit, vouched
    for part in parts(node):
        yield from _owned(part, vouched)


def _line_block(line: ast.Line) -> tuple[Any, ...]:
    return line.block.lines if line.block is not None else ()


def _patch_step(patch: ast.Patch) -> tuple[Any, ...]:
    return (patch.step,) if patch.step is not None else ()


# The parts of a node that may carry a provenance of their own, by the node's type.
_VOUCHING_PARTS: dict[type, Callable[[Any], tuple[Any, ...]]] = {
    ast.Rule: attrgetter("decls"),
    ast.Entity: attrgetter("body.lines"),
    ast.Line: _line_block,
    ast.Procedure: attrgetter("steps"),
    ast.Extend: attrgetter("patches"),
    ast.Patch: _patch_step,
}


def _no_source(files: tuple[ast.File, ...]) -> bool:
    """A ruleset that declares it has no source document vouches for itself."""
    return any(
        isinstance(line, ast.Line) and line.key == "source"
        for d in _declarations(files)
        if isinstance(d, ast.Entity) and d.kind == "ruleset"
        for line in d.body.lines
    )


def _declarations(files: tuple[ast.File, ...]) -> Iterator[ast.Decl]:
    for f in files:
        yield from f.decls


def unvouched_literals(files: tuple[ast.File, ...]) -> list[Literal]:
    """Number literals that no citation or provisional mark covers."""
    if _no_source(files):
        return []
    return [
        lit
        for d in _declarations(files)
        if not isinstance(d, ast.Import)
        for lit, vouched in _owned(d, False)
        if not vouched
    ]


@dataclass(frozen=True, slots=True)
class ProvisionalValue:
    where: str  # file:line
    what: str  # the declaration (and property) that holds it
    reason: str


def provisional_values(rules: ir.Ruleset) -> list[ProvisionalValue]:
    """Every value marked provisional, once where the mark is made."""
    walk = _ProvisionalWalk()
    walk.visit(rules, None, "")
    return walk.found


def _name_of(node: Any) -> str:
    kind = type(node).__name__.lower()
    name = getattr(node, "name", None) or getattr(node, "title", None) or ""
    return f"{kind} {name}".strip()


def _where(node: Any) -> str:
    span = getattr(node, "span", None)
    return f"{span.file}:{span.line}" if span is not None and span.line else "?"


def _is_record(node: Any) -> bool:
    """A dataclass instance (not a dataclass itself)."""
    return dataclasses.is_dataclass(node) and not isinstance(node, type)


class _ProvisionalWalk:
    """Walks the IR, noting each provisional mark where it is made (not again
    in every part that inherits it)."""

    def __init__(self) -> None:
        self.found: list[ProvisionalValue] = []

    def visit(self, node: Any, inherited: str | None, label: str) -> None:
        if isinstance(node, tuple | list):
            for item in node:
                self.visit(item, inherited, label)
            return
        if not _is_record(node):
            return
        here = label
        if hasattr(node, "name"):
            here = _name_of(node) if not label else f"{label} › {_name_of(node)}"
        inherited = self.marked(node, inherited, here)
        for f in dataclasses.fields(node):
            if f.name not in ("prov", "provs"):
                self.visit(getattr(node, f.name), inherited, here)

    def marked(self, node: Any, inherited: str | None, here: str) -> str | None:
        """Note the node's own provisional marks; returns the mark its parts inherit."""
        prov = getattr(node, "prov", None)
        if isinstance(prov, ir.Prov):
            if prov.provisional and prov.provisional != inherited:
                self.note(node, here or _name_of(node), prov.provisional)
            inherited = prov.provisional
        provs = getattr(node, "provs", None)
        if isinstance(provs, dict):
            self.marked_lines(node, provs, inherited, here)
        return inherited

    def marked_lines(
        self, node: Any, provs: dict[str, ir.Prov], inherited: str | None, here: str
    ) -> None:
        """The marks on a declaration's lines (`strength 4 ? "printed on the counter"`)."""
        for key, p in provs.items():
            if p.provisional and p.provisional != inherited:
                self.note(node, f"{here}: {key}", p.provisional)

    def note(self, node: Any, what: str, reason: str) -> None:
        self.found.append(ProvisionalValue(_where(node), what, reason))


def citations(files: tuple[ast.File, ...]) -> dict[str, dict[str, list[Span]]]:
    """document -> section -> where it is cited, from every citation in the files."""
    out: dict[str, dict[str, list[Span]]] = {}

    def walk(node: Any) -> None:
        if isinstance(node, ast.Citation):
            for section in node.sections:
                out.setdefault(node.document, {}).setdefault(section, []).append(node.span)
        elif dataclasses.is_dataclass(node) and not isinstance(node, type):
            for f in dataclasses.fields(node):
                walk(getattr(node, f.name))
        elif isinstance(node, tuple | list):
            for item in node:
                walk(item)

    for f in files:
        walk(f)
    return out
