"""`exit` declarations: where units may leave the map on purpose.

A battle whose units may march off the map (to safety, or as its objective)
names the hexes they leave from — hexes, places or zones with `through`, the
hexes along map edges with `edge` — the MP leaving costs (`cost`), and which
units may (`when`, over `unit`). The movement primitive then offers each such
unit standing on one of those hexes the action of exiting.
"""

from __future__ import annotations

from compiler import ir
from compiler.check.bounds import MOVEMENT, within
from compiler.check.conditions import when
from compiler.check.contexts import CONTEXTS
from compiler.check.expressions import Scope
from compiler.check.maps import grid_of
from compiler.check.props import Props, as_int, describe, name_of, prov_of, title_of
from compiler.check.scenarios import ScenarioChecker
from compiler.check.tools import Tools
from compiler.map.hexmap import EDGES
from dsl import ast
from dsl.diagnostics import BAD_VALUE, MISSING, did_you_mean, hint_note

EXIT_KEYS = {"through", "edge", "cost"}


def check_exit(
    tools: Tools, d: ast.Entity, rule: str, the_map: ir.Map | None, hexes: ScenarioChecker
) -> ir.Exit:
    """An `exit`, its hexes resolved on the map (a battle without a map has none to
    leave) and its cost a number of MP."""
    r = tools.reporter
    p = Props(d, r, EXIT_KEYS)
    if the_map is None:
        r.error(d.name_span, MISSING, f"exit {d.name!r} leaves a map, and this battle has none")
    elif not p.has("through") and not p.has("edge"):
        r.error(
            d.name_span, MISSING, f"exit {d.name!r} needs `through HEX…` or `edge EDGE…` (or both)"
        )
    edges = _edges(tools, p)
    labels: list[str] = []
    if the_map is not None:
        for v in p.values("through"):
            labels.extend(hexes.hexes(v) or ())
        grid = grid_of(the_map)
        labels.extend(
            grid.label(*o) for o in grid.offsets() if any(grid.on_edge(*o, e) for e in edges)
        )
    cond = when(tools, p, Scope(CONTEXTS["exit"].scope()))
    return ir.Exit(
        name_of(d),
        title_of(d),
        tuple(dict.fromkeys(labels)),
        edges,
        _cost(tools, p, d),
        cond,
        rule,
        prov_of(d.prov),
        d.span,
    )


def _edges(tools: Tools, p: Props) -> tuple[str, ...]:
    """`edge north east`: the map edges named (each one of `EDGES`)."""
    found = []
    for v in p.values("edge"):
        name = v.id if isinstance(v, ast.Name) else ""
        if name in EDGES:
            found.append(name)
            continue
        tools.reporter.error(
            v.span,
            BAD_VALUE,
            f"a map edge is one of {', '.join(EDGES)}, not {describe(v)}",
            *hint_note(did_you_mean(name, set(EDGES))),
        )
    return tuple(found)


def _cost(tools: Tools, p: Props, d: ast.Entity) -> int:
    """`cost N`: the MP leaving the map costs, a whole number (0 when not given)."""
    line = p.line("cost")
    if line is None:
        return 0
    vals = p.values("cost")
    n = as_int(vals[0]) if len(vals) == 1 else None
    if n is None:
        tools.reporter.error(
            line.span,
            BAD_VALUE,
            f"exit {d.name!r}: the cost is a number of MP (`cost 2`), not "
            + (describe(vals[0]) if len(vals) == 1 else f"{len(vals)} values"),
        )
        return 0
    within(tools.reporter, vals[0].span, "the cost", n, MOVEMENT)
    return n
