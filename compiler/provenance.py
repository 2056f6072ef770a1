"""Provenance: where each value of a ruleset comes from.

Three questions, asked of the syntax tree (literals as written) or the IR:
which number literals are neither cited nor marked provisional (a value
nobody vouches for), which values are provisional and why, and which
sections of a document the rule files cite.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass
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


def _literals(node: Any) -> Iterator[Literal]:
    """Every number, range bound and odds written inside a syntax-tree node."""
    if isinstance(node, ast.Number):
        yield Literal(node.text, node.span)
    elif isinstance(node, ast.Range):
        for bound in (node.low, node.high):
            if bound is not None:
                yield Literal(bound, node.span)
    elif isinstance(node, ast.Odds):
        yield Literal(f"{node.attack}:{node.defend}", node.span)
    elif isinstance(node, ast.Provenance | ast.Citation):
        return
    elif dataclasses.is_dataclass(node):
        for f in dataclasses.fields(node):
            yield from _literals(getattr(node, f.name))
    elif isinstance(node, tuple | list):
        for item in node:
            yield from _literals(item)


def _owned(node: Any, vouched: bool) -> Iterator[tuple[Literal, bool]]:
    """Literals with whether an enclosing declaration, line, step or row vouches for them."""
    prov = getattr(node, "prov", None)
    if isinstance(prov, ast.Provenance) and _vouched(prov):
        vouched = True
    if isinstance(node, ast.Rule):
        for d in node.decls:
            yield from _owned(d, vouched)
        return
    if isinstance(node, ast.Entity):
        for line in node.body.lines:
            yield from _owned(line, vouched)
        return
    if isinstance(node, ast.Line):
        for lit in _literals((node.values, node.when)):
            yield lit, vouched
        if node.block is not None:
            for sub in node.block.lines:
                yield from _owned(sub, vouched)
        return
    if isinstance(node, ast.Procedure):
        for step in node.steps:
            yield from _owned(step, vouched)
        return
    if isinstance(node, ast.Extend):
        for patch in node.patches:
            yield from _owned(patch, vouched)
        return
    if isinstance(node, ast.Patch):
        if node.step is not None:
            yield from _owned(node.step, vouched)
        return
    for lit in _literals(node):
        yield lit, vouched


def _no_source(files: tuple[ast.File, ...]) -> bool:
    """A ruleset that declares it has no source document vouches for itself."""
    for f in files:
        for d in f.decls:
            if isinstance(d, ast.Entity) and d.kind == "ruleset":
                for line in d.body.lines:
                    if isinstance(line, ast.Line) and line.key == "source":
                        return True
    return False


def unvouched_literals(files: tuple[ast.File, ...]) -> list[Literal]:
    """Number literals that no citation or provisional mark covers."""
    if _no_source(files):
        return []
    out = []
    for f in files:
        for d in f.decls:
            if isinstance(d, ast.Import):
                continue
            for lit, vouched in _owned(d, False):
                if not vouched:
                    out.append(lit)
    return out


@dataclass(frozen=True, slots=True)
class ProvisionalValue:
    where: str  # file:line
    what: str  # the declaration (and property) that holds it
    reason: str


def provisional_values(rules: ir.Ruleset) -> list[ProvisionalValue]:
    """Every value marked provisional, once where the mark is made."""
    out: list[ProvisionalValue] = []

    def name_of(node: Any) -> str:
        kind = type(node).__name__.lower()
        name = getattr(node, "name", None) or getattr(node, "title", None) or ""
        return f"{kind} {name}".strip()

    def walk(node: Any, inherited: str | None, label: str) -> None:
        prov = getattr(node, "prov", None)
        here = label
        if dataclasses.is_dataclass(node) and not isinstance(node, type) and hasattr(node, "name"):
            here = name_of(node) if not label else f"{label} › {name_of(node)}"
        if isinstance(prov, ir.Prov) and prov.provisional and prov.provisional != inherited:
            span = getattr(node, "span", None)
            where = f"{span.file}:{span.line}" if span is not None and span.line else "?"
            out.append(ProvisionalValue(where, here or name_of(node), prov.provisional))
            inherited = prov.provisional
        elif isinstance(prov, ir.Prov):
            inherited = prov.provisional
        provs = getattr(node, "provs", None)
        if isinstance(provs, dict):
            span = getattr(node, "span", None)
            for key, p in provs.items():
                if p.provisional and p.provisional != inherited:
                    where = f"{span.file}:{span.line}" if span is not None and span.line else "?"
                    out.append(ProvisionalValue(where, f"{here}: {key}", p.provisional))
        if dataclasses.is_dataclass(node) and not isinstance(node, type):
            for f in dataclasses.fields(node):
                if f.name in ("prov", "provs"):
                    continue
                walk(getattr(node, f.name), inherited, here)
        elif isinstance(node, tuple | list):
            for item in node:
                walk(item, inherited, label)

    walk(rules, None, "")
    return out


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
