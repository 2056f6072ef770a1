"""Pass 5: declare what bodies call and draw from, before any body is checked.

Modifier lists' parameters, definitions (checked on first use), procedures'
signatures, bags of markers and victory levels.
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler import ir
from compiler.check.bounds import COUNTERS, within
from compiler.check.collect import Declarations
from compiler.check.defines import Definitions
from compiler.check.expressions import Entity
from compiler.check.patch import Procedures
from compiler.check.props import Props, as_int, describe, name_of, prov_of, title_of
from compiler.check.tools import Tools
from dsl import ast
from dsl.diagnostics import BAD_VALUE, MISSING, UNKNOWN_NAME, did_you_mean, hint_note

BAG_KEYS = {"contents", "seen_by"}
VICTORY_LEVEL_KEYS = {"utility"}


@dataclass(frozen=True)
class Declared:
    """What pass 5 built: the definitions' checker, the bags and the victory levels."""

    definitions: Definitions
    bags: tuple[ir.Bag, ...]
    victory_levels: tuple[ir.VictoryLevel, ...]


def declare(tools: Tools, decls: Declarations, procedures: Procedures) -> Declared:
    definitions = _declare_callables(tools, decls, procedures)
    sym = tools.symbols
    bags = tuple(_Bags(tools).bag(d) for d in decls.of("bag"))
    for bag in bags:
        sym.bags[bag.name] = bag
        sym.entities[bag.name] = Entity("bag", "bag", bag.name)
    levels = tuple(victory_level(tools, d) for d in decls.of("victory_level"))
    for level in levels:
        sym.entities[level.name] = Entity("level", "level", level.name)
    return Declared(definitions, bags, levels)


def _declare_callables(tools: Tools, decls: Declarations, procedures: Procedures) -> Definitions:
    """Modifier lists, definitions and procedures, by what they take (and give)."""
    sym = tools.symbols
    for d in decls.of("modifiers"):
        sym.modifiers[name_of(d)] = _params(d.params)
    for d, _rule in decls.defines:
        sym.defines[d.name] = d
    definitions = Definitions(tools)
    sym.check_define = definitions.check
    for name, (proc, _steps) in procedures.items():
        sym.procedures[name] = _params(proc.params)
        sym.entities[name] = Entity("procedure", "procedure", name)
        if proc.result is not None:
            sym.procedure_results[name] = (proc.result.name, proc.result.type)
    return definitions


def _params(params: tuple[ast.Param, ...]) -> tuple[tuple[str, str], ...]:
    return tuple((p.name, p.type) for p in params)


class _Bags:
    """`bag NAME "T" { contents …; seen_by SIDE… | all | none }`: an opaque
    container of markers, and who may look into it (a hand, a face-down
    deck, a public cup)."""

    def __init__(self, tools: Tools) -> None:
        self.r = tools.reporter
        self.sym = tools.symbols

    def bag(self, d: ast.Entity) -> ir.Bag:
        p = Props(d, self.r, BAG_KEYS)
        contents: list[str] = []
        for v in p.values("contents"):
            contents.extend(self.counted(contents, v))
        if not p.has("contents"):
            self.r.error(d.name_span, MISSING, f"bag {d.name!r} needs `contents`")
        return ir.Bag(
            name_of(d),
            title_of(d),
            tuple(contents),
            prov_of(d.prov),
            d.span,
            self.seen_by(d, p),
        )

    def counted(self, contents: list[str], v: ast.Expr) -> list[str]:
        """The markers `v` adds, while the bag's counters stay a counter mix's."""
        more = self.markers(v)
        return (
            more
            if within(self.r, v.span, "the bag's counters", len(contents) + len(more), COUNTERS)
            else []
        )

    def markers(self, v: ast.Expr) -> list[str]:
        """`marker` for one copy of a marker, `marker(2)` for two."""
        name = v.id if isinstance(v, ast.Name) else v.func if isinstance(v, ast.Call) else None
        count = self.copies(v) if isinstance(v, ast.Call) else 1
        ent = self.sym.entities.get(name) if name else None
        if ent is None or ent.kind != "marker":
            self.r.error(v.span, UNKNOWN_NAME, f"a bag holds markers; {describe(v)} is not one")
            return []
        return [name] * count

    def copies(self, v: ast.Call) -> int:
        count = as_int(v.args[0]) if len(v.args) == 1 else None
        if count is not None and count > COUNTERS.high:
            within(self.r, v.span, "the bag's counters", count, COUNTERS)
            return 0
        if count is None or count < 1:
            self.r.error(v.span, BAD_VALUE, "write `marker(2)` for two copies of a marker")
            return 0
        return count

    def seen_by(self, d: ast.Entity, p: Props) -> tuple[str, ...]:
        """The sides that may look into a bag: `seen_by SIDE…`, `all` or `none`
        (the others see only how many markers it holds)."""
        sides = tuple(str(e.value) for e in self.sym.entities.values() if e.kind == "side")
        line = p.line("seen_by")
        if line is None:
            self.r.error(
                d.name_span,
                MISSING,
                f"bag {d.name!r} needs `seen_by`: the sides that may look into it, `all` or `none`",
            )
            return sides
        names = [v.id if isinstance(v, ast.Name) else None for v in line.values[1:]]
        if names in (["all"], ["none"]):
            return sides if names == ["all"] else ()
        if not names:
            self.r.error(line.span, MISSING, "seen_by needs sides, `all` or `none`")
        return self.named_sides(line, names, sides)

    def named_sides(
        self, line: ast.Line, names: list[str | None], sides: tuple[str, ...]
    ) -> tuple[str, ...]:
        """The sides `seen_by` names, each once; anything else is an error."""
        seen: list[str] = []
        for v, name in zip(line.values[1:], names, strict=True):
            if name not in sides:
                hint = did_you_mean(name or "", set(sides) | {"all", "none"})
                self.r.error(
                    v.span,
                    UNKNOWN_NAME,
                    f"seen_by takes sides, `all` or `none`; {describe(v)} is not one",
                    *hint_note(hint),
                )
            elif name not in seen:
                seen.append(name)
        return tuple(seen)


def victory_level(tools: Tools, d: ast.Entity) -> ir.VictoryLevel:
    p = Props(d, tools.reporter, VICTORY_LEVEL_KEYS)
    u = p.number("utility")
    if u is None or not 0 < u <= 1:
        tools.reporter.error(
            d.name_span,
            BAD_VALUE,
            "a victory level needs `utility` between 0 and 1 (the winner's return)",
        )
        u = 1
    return ir.VictoryLevel(name_of(d), title_of(d), float(u), prov_of(d.prov))
