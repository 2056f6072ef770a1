"""Terrain and hexside declarations: the rows of the Terrain Effects Chart.

A `terrain` is what fills a hex; a `hexside` is a feature along the edge
between two hexes (a creek, a road crossing it). Each declares its movement
cost (`move -` for prohibited) and any other properties the rules read.
"""

from __future__ import annotations

from compiler import ir
from compiler.props import Props, as_int, prov_of
from dsl import ast
from dsl.diagnostics import BAD_VALUE, Reporter


def check_terrain(d: ast.Entity, r: Reporter) -> ir.Terrain:
    known = {"color", "move"}
    p = Props(d, r, known, keyed_only=False)
    return ir.Terrain(
        d.name or "",
        d.title or d.name or "",
        p.str("color", "#cccccc"),
        _move(p, r),
        _attributes(d, known, r),
        prov_of(d.prov),
        d.span,
    )


def check_hexside(d: ast.Entity, r: Reporter) -> ir.HexsideFeature:
    known = {"color", "move", "road"}
    p = Props(d, r, known, keyed_only=False)
    return ir.HexsideFeature(
        d.name or "",
        d.title or d.name or "",
        p.str("color", "#444444"),
        _move(p, r),
        p.flag("road"),
        _attributes(d, known, r),
        prov_of(d.prov),
        d.span,
    )


def _attributes(d: ast.Entity, known: set[str], r: Reporter) -> dict[str, object]:
    """Other lines: properties the rules read (`defend_drm -1`, `blocks_los`)."""
    out: dict[str, object] = {}
    for line in d.body.lines:
        if not isinstance(line, ast.Line) or line.key is None or line.key in known:
            continue
        vals = line.values[1:]
        if len(vals) == 1 and as_int(vals[0]) is not None:
            out[line.key] = as_int(vals[0])
        elif not vals:
            out[line.key] = True
        elif len(vals) == 1 and isinstance(vals[0], ast.Name):
            word = vals[0].id
            out[line.key] = (word == "yes") if word in ("yes", "no") else word
        else:
            r.error(line.span, BAD_VALUE, f"{line.key!r} takes a number, yes/no or a name")
    return out


def _move(p: Props, r: Reporter) -> int | None:
    line = p.line("move")
    if line is None:
        return 0
    vals = line.values[1:]
    if len(vals) == 1 and isinstance(vals[0], ast.Dash):
        return None  # prohibited
    n = as_int(vals[0]) if len(vals) == 1 else None
    if n is None or n < 0:
        r.error(line.span, BAD_VALUE, "move takes a number of movement points, or - for prohibited")
        return 0
    return n
