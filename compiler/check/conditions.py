"""Declarations that are mostly a condition: restrictions, concealment, victory.

Each reads its `when` in the context the engine tests it in (`unit` and
`hex` for a hex restriction, the observed unit for concealment, …).
"""

from __future__ import annotations

from compiler import ir
from compiler.check.bounds import RESTRICTION_LIMITS, TURN, within
from compiler.check.contexts import CONTEXTS
from compiler.check.expressions import Scope
from compiler.check.forces import ForcesChecker
from compiler.check.props import Props, as_int, describe, name_of, prov_of, title_of
from compiler.check.tools import Tools
from dsl import ast
from dsl.diagnostics import (
    BAD_VALUE,
    DUPLICATE,
    MISSING,
    UNKNOWN_NAME,
    Reporter,
    did_you_mean,
    hint_note,
)

VICTORY_CHECKS = {"end_of_turn", "end_of_game"}
RESTRICTION_KINDS = {
    "no_entry",
    "no_end",
    "confined_to",
    "no_move",
    "allowance",
    "max_hexes",
    "no_arrival",
    "no_combat",
}
RESTRICTION_KEYS = RESTRICTION_KINDS | {"until"}
CONCEAL_KEYS = {"from"}
VICTORY_KEYS = {"level", "winner", "scenarios", "check"}
_ZONE_KINDS = ("no_entry", "no_end", "confined_to")
_AMOUNT_KINDS = ("allowance", "max_hexes")
_UNIT_ONLY_KINDS = ("no_move", "allowance", "max_hexes", "no_arrival")


def when(tools: Tools, p: Props, scope: Scope) -> ir.TExpr | None:
    """A declaration's one `when` condition, if it has one."""
    if len(p.when) > 1:
        tools.reporter.error(
            p.when[1].span, DUPLICATE, "one `when` per declaration; join conditions with `and`"
        )
    return tools.exprs.expr(p.when[0].test, scope, "bool") if p.when else None


def impossible(tools: Tools, d: ast.Entity, rule: str) -> ir.Impossible:
    """`impossible NAME "T" { when <condition> }`: a position no play of the
    rules reaches (enemy combat units in one hex, series 9.2). A loaded
    position where it holds is refused, and the fuzzers check play never
    reaches one."""
    p = Props(d, tools.reporter, set())
    cond = when(tools, p, Scope(CONTEXTS["impossible"].scope()))
    if cond is None:
        tools.reporter.error(d.name_span, MISSING, f"impossible {d.name!r} needs `when condition`")
        cond = ir.Const("bool", d.span, False)
    return ir.Impossible(name_of(d), title_of(d), cond, rule, prov_of(d.prov), d.span)


def conceal(tools: Tools, d: ast.Entity, rule: str, forces: ForcesChecker) -> ir.Concealment:
    """`conceal NAME "T" { from SIDE; when <condition on unit, hex> }`: the
    units that side may not examine (an exception to series 7.4)."""
    p = Props(d, tools.reporter, CONCEAL_KEYS)
    observer = forces.ref(p, "from", "side", required=True) or ""
    cond = when(tools, p, Scope(CONTEXTS["conceal"].scope()))
    return ir.Concealment(name_of(d), title_of(d), observer, cond, rule, prov_of(d.prov), d.span)


class Restrictions:
    """One of the movement restrictions; its kind is its first line.

    `no_entry [ZONE]` and `no_end [ZONE]` forbid entering (or ending a move
    in) the zone's hexes — or every hex, with the condition deciding;
    `confined_to ZONE` forbids leaving the zone; `no_move` forbids moving at
    all; `allowance (EXPR)` replaces the movement allowance; `no_arrival`
    keeps a reinforcement off the map (a variable or conditional entry). `when` reads
    `unit` (and `hex` for the hex kinds); `until turn N` ends it.
    """

    def __init__(self, tools: Tools) -> None:
        self.t = tools
        self.r = tools.reporter

    def restriction(self, d: ast.Entity, rule: str) -> ir.Restriction:
        p = Props(d, self.r, RESTRICTION_KEYS)
        kind = self.kind(d, p)
        zone = self.zone(p, kind) if kind in _ZONE_KINDS else ""
        value = self.amount(p, kind) if kind in _AMOUNT_KINDS else None
        if kind not in _ZONE_KINDS + _AMOUNT_KINDS and p.values(kind):
            self.r.error(p.line(kind).span, BAD_VALUE, f"{kind} takes no value")
        until = self.until(p)
        cond = when(self.t, p, Scope(CONTEXTS[_context(kind)].scope()))
        return ir.Restriction(
            name_of(d),
            title_of(d),
            kind,
            zone,
            cond,
            until,
            value,
            rule,
            prov_of(d.prov),
            d.span,
        )

    def kind(self, d: ast.Entity, p: Props) -> str:
        kinds = [k for k in RESTRICTION_KINDS if p.has(k)]
        if len(kinds) != 1:
            self.r.error(
                d.name_span,
                MISSING,
                f"restriction {d.name!r} needs exactly one of "
                + ", ".join(sorted(RESTRICTION_KINDS)),
            )
        return kinds[0] if kinds else "no_entry"

    def zone(self, p: Props, kind: str) -> str:
        """The zone a hex restriction names (none: every hex, the condition deciding)."""
        vals = p.values(kind)
        if not vals:
            if kind == "confined_to":
                self.r.error(p.line(kind).span, MISSING, "confined_to needs the zone")
            return ""
        zone = vals[0].id if isinstance(vals[0], ast.Name) else ""
        ent = self.t.symbols.entities.get(zone)
        if len(vals) != 1 or ent is None or ent.kind != "zone":
            self.r.error(p.line(kind).span, UNKNOWN_NAME, f"{kind} takes a zone of the map")
        return zone

    def amount(self, p: Props, kind: str) -> ir.TExpr | None:
        """`allowance N` or `allowance (expression)` (and `max_hexes` alike)."""
        vals = p.values(kind)
        if len(vals) == 1 and as_int(vals[0]) is not None:
            within(self.r, vals[0].span, repr(kind), as_int(vals[0]), RESTRICTION_LIMITS[kind])
            return ir.Const("int", vals[0].span, as_int(vals[0]))
        if len(vals) == 1 and isinstance(vals[0], ast.Paren):
            scope = Scope(CONTEXTS["allowance"].scope())
            return self.t.exprs.expr(vals[0].expr, scope, "int")
        self.r.error(
            p.line(kind).span,
            BAD_VALUE,
            f"write `{kind} N` or `{kind} (expression)` with `unit` in scope",
        )
        return None

    def until(self, p: Props) -> int | None:
        line = p.line("until")
        if line is None:
            return None
        uv = line.values[1:]
        if (
            len(uv) == 2
            and isinstance(uv[0], ast.Name)
            and uv[0].id == "turn"
            and as_int(uv[1]) is not None
        ):
            within(self.r, uv[1].span, "the turn", as_int(uv[1]), TURN)
            return as_int(uv[1])
        self.r.error(line.span, BAD_VALUE, "write `until turn N`")
        return None


def _context(kind: str) -> str:
    """The context a restriction's condition is read in."""
    if kind == "no_combat":
        return "restriction_combat"
    if kind in _UNIT_ONLY_KINDS:
        return "restriction_unit"
    if kind == "no_end":
        return "restriction_end"
    return "restriction"


def victory(tools: Tools, d: ast.Entity, sides: list[str], scenario_names: set[str]) -> ir.Victory:
    r = tools.reporter
    p = Props(d, r, VICTORY_KEYS)
    winner = _winner(p, r, sides)
    cond = when(tools, p, Scope(CONTEXTS["victory"].scope()))
    if cond is None:
        r.error(d.name_span, MISSING, f"victory {d.name!r} needs `when condition`")
        cond = ir.Const("bool", d.span, False)
    check = p.name("check", "end_of_game") or "end_of_game"
    if check not in VICTORY_CHECKS:
        r.error(
            p.line("check").span,
            BAD_VALUE,
            f"check is one of {', '.join(sorted(VICTORY_CHECKS))}",
        )
    scenarios = _scenarios(p, r, scenario_names)
    return ir.Victory(
        name_of(d),
        title_of(d),
        p.name("level", required=True) or "",
        winner,
        cond,
        scenarios,
        check,
        prov_of(d.prov),
        d.span,
    )


def _winner(p: Props, r: Reporter, sides: list[str]) -> str:
    winner = p.name("winner", required=True) or ""
    if winner and winner not in sides:
        r.error(
            p.line("winner").span,
            UNKNOWN_NAME,
            f"unknown side {winner!r}",
            *hint_note(did_you_mean(winner, set(sides))),
            f"the sides: {', '.join(sides)}",
        )
    return winner


def _scenarios(p: Props, r: Reporter, scenario_names: set[str]) -> tuple[str, ...]:
    """The scenarios a victory condition holds in (none: every scenario)."""
    scenarios = []
    for v in p.values("scenarios"):
        if isinstance(v, ast.Name) and v.id in scenario_names:
            scenarios.append(v.id)
        else:
            r.error(v.span, UNKNOWN_NAME, f"no scenario {describe(v)}")
    return tuple(scenarios)
