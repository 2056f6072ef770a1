"""Terrain and hexside declarations: the rows of the Terrain Effects Chart.

A `terrain` is what fills a hex; a `hexside` is a feature along the edge
between two hexes (a creek, a slope, fieldworks, a road crossing it). Each
declares what the series rules read from the TEC — movement cost, with
per-class costs (`move 2 artillery/3 cavalry/-`, `-` for prohibited), LOS
blocking, ZOC exceptions — and how it is drawn. Lines the map model does not
read stay as attributes for the rules (`defend_drm -1`).
"""

from __future__ import annotations

import re

from compiler import ir
from compiler.check.bounds import MOVE_COST, within
from compiler.check.props import BOOL_WORDS, TRUE_WORDS, Props, as_int, describe, prov_of
from dsl import ast
from dsl.diagnostics import BAD_VALUE, MISSING, Reporter, did_you_mean, hint_note

TERRAIN_KEYS = {"color", "pattern", "move", "blocks_los", "zoc_into", "zoc_out_of"}
HEXSIDE_KEYS = {
    "color",
    "draw",
    "move",
    "move_into",
    "move_out_of",
    "road",
    "strategic",
    "directional",
    "slope",
    "zoc",
    "zoc_into",
    "zoc_out_of",
    "replaces",
    "combines",
    "counts_as",
    "impassable",
}
# What the map renderer can draw (compiler/backends/map_render.py).
PATTERNS = ("none", "trees", "orchard", "dots", "crops", "marsh", "hatch", "buildings")
DRAW_STYLES = (
    "line",
    "stream",
    "slope",
    "road",
    "track",
    "path",
    "bridge",
    "ford",
    "fieldworks",
    "none",
)
COLOR = re.compile(r"^#[0-9a-fA-F]{6}$")


def check_terrain(d: ast.Entity, r: Reporter) -> ir.Terrain:
    p = Props(d, r, TERRAIN_KEYS, keyed_only=False)
    move = move_cost(p, "move", r, minimum=1)
    if move is None:
        r.error(d.name_span, MISSING, f"terrain {d.name!r} needs `move` (MP to enter, - if never)")
        move = ir.MoveCost(1)
    return ir.Terrain(
        name=d.ident,
        title=d.display_title,
        color=_color(p, "#cccccc"),
        pattern=_choice(p, "pattern", PATTERNS, "none"),
        move=move,
        blocks_los=p.flag("blocks_los"),
        zoc_into=p.flag("zoc_into", True),
        zoc_out_of=p.flag("zoc_out_of", True),
        props=_attributes(d, TERRAIN_KEYS, r),
        prov=prov_of(d.prov),
        span=d.span,
    )


def check_hexside(d: ast.Entity, r: Reporter) -> ir.HexsideFeature:
    """A hexside feature: what it costs to cross, whose side it is, how it is drawn."""
    p = Props(d, r, HEXSIDE_KEYS, keyed_only=False)
    road = p.flag("road")
    slope = p.flag("slope")
    directional = p.flag("directional") or slope
    move = _check_crossing(d, p, r, road)
    if not directional:
        _check_undirected(p)
    _check_strategic(p, road)
    zoc = p.flag("zoc", True)
    combines = _check_combines(p)
    unless = _check_unless(p)
    return ir.HexsideFeature(
        name=d.ident,
        title=d.display_title,
        color=_color(p, "#444444"),
        draw=_choice(p, "draw", DRAW_STYLES, "line"),
        move=move,
        move_into=move_cost(p, "move_into", r, minimum=0) or move,
        move_out_of=move_cost(p, "move_out_of", r, minimum=0) or move,
        road=road,
        strategic=p.flag("strategic"),
        directional=directional,
        slope=slope,
        zoc_into=p.flag("zoc_into", zoc),
        zoc_out_of=p.flag("zoc_out_of", zoc),
        replaces=_names(p, "replaces"),
        combines=combines,
        counts_as=_names(p, "counts_as"),
        props=_attributes(d, HEXSIDE_KEYS, r),
        prov=prov_of(d.prov),
        span=d.span,
        unless=unless,
        unless_span=p.line("impassable").span if unless else d.span,
    )


def _check_unless(p: Props) -> str:
    """`impassable unless terrain_changed(C)`: the terrain change that opens the hexside
    (checked against the declared changes with them: compiler/check/terrain_changes.py)."""
    line = p.line("impassable")
    if line is None:
        return ""
    vals = line.values[1:]
    match vals:
        case (ast.Name(id="unless"), ast.Call(func="terrain_changed", args=(ast.Name(id=name),))):
            return name
    p.error(
        line.span,
        "write `impassable unless terrain_changed(CHANGE)`: the hexside is crossed only "
        "while that terrain change is made",
    )
    return ""


def _check_crossing(d: ast.Entity, p: Props, r: Reporter, road: bool) -> ir.MoveCost:
    """`move`: the MP to cross the hexside (0 by default) or to follow a road (required)."""
    move = move_cost(p, "move", r, minimum=1 if road else 0)
    if move is not None:
        return move
    if road:
        r.error(d.name_span, MISSING, f"road {d.name!r} needs `move` (the MP to follow it)")
    return ir.MoveCost(1 if road else 0)


def _check_undirected(p: Props) -> None:
    """A hexside without a direction has no side to move or exert ZOC into or out of."""
    for key in ("move_into", "move_out_of", "zoc_into", "zoc_out_of"):
        if p.has(key):
            p.error(
                p.line(key).span,
                f"{key!r} is for directional hexsides",
                "add `directional` (or `slope`): the map then names the hex it belongs to first",
            )


def _check_strategic(p: Props, road: bool) -> None:
    if p.has("strategic") and not road:
        p.error(p.line("strategic").span, "only a road can carry strategic movement")


def _check_combines(p: Props) -> tuple[str, ...]:
    """`combines creek road`: the features whose meeting on one hexside this one stands for."""
    combines = _names(p, "combines")
    if p.has("combines") and len(combines) < 2:
        p.error(p.line("combines").span, "`combines` names the two or more features it stands for")
    return combines


def move_cost(p: Props, key: str, r: Reporter, minimum: int) -> ir.MoveCost | None:
    """`move 2 artillery/3 cavalry/-`: MP for all, then per movement class; `-` prohibits."""
    line = p.line(key)
    if line is None:
        return None
    vals = line.values[1:]
    usage = f"write `{key} 2`, or `{key} 2 artillery/3 cavalry/-` with costs per movement class"
    if not vals:
        r.error(line.span, BAD_VALUE, f"{key!r} needs a number of movement points", usage)
        return ir.MoveCost(minimum, (), line.span)
    default = _mp(vals[0], key, minimum, r)
    classes: list[tuple[str, int | None]] = []
    for v in vals[1:]:
        if _is_class_cost(v, dict(classes)):
            classes.append((v.parts[0].id, _mp(v.parts[1], key, minimum, r)))  # type: ignore[attr-defined]
        else:
            r.error(v.span, BAD_VALUE, f"expected class/MP such as artillery/3, not {describe(v)}")
    return ir.MoveCost(default, tuple(classes), line.span)


def _is_class_cost(v: ast.Expr, given: dict[str, int | None]) -> bool:
    """Whether a value is `class/MP` for a class not given a cost yet."""
    if not isinstance(v, ast.Slash) or len(v.parts) != 2:
        return False
    return isinstance(v.parts[0], ast.Name) and v.parts[0].id not in given


def _mp(v: ast.Expr, key: str, minimum: int, r: Reporter) -> int | None:
    if isinstance(v, ast.Dash):
        return None  # prohibited
    n = as_int(v)
    if n is None or n < minimum:
        r.error(
            v.span,
            BAD_VALUE,
            f"{key!r} takes a whole number of movement points from {minimum} up, "
            f"or - for prohibited, not {describe(v)}",
        )
        return minimum
    if not within(r, v.span, repr(key), n, MOVE_COST):
        return minimum
    return n


def _names(p: Props, key: str) -> tuple[str, ...]:
    out = []
    for v in p.values(key):
        if isinstance(v, ast.Name):
            out.append(v.id)
        else:
            p.error(v.span, f"{key!r} takes names of hexside features, not {describe(v)}")
    return tuple(out)


def _choice(p: Props, key: str, options: tuple[str, ...], default: str) -> str:
    value = p.name(key, default) or default
    if value not in options:
        hint = did_you_mean(value, set(options))
        p.error(
            p.line(key).span,
            f"unknown {key} {value!r}",
            *hint_note(hint),
            f"{key}: {', '.join(options)}",
        )
        return default
    return value


def _color(p: Props, default: str) -> str:
    value = p.str("color", default)
    if not COLOR.match(value):
        p.error(p.line("color").span, f'a colour is written "#rrggbb", not {value!r}')
        return default
    return value.lower()


def _attributes(d: ast.Entity, known: set[str], r: Reporter) -> dict[str, object]:
    """Other lines: properties the rules read (`defend_drm -1`)."""
    out: dict[str, object] = {}
    for line in d.other_lines(known):
        value = _attribute_value(line.values[1:])
        if value is None:
            r.error(line.span, BAD_VALUE, f"{line.key!r} takes a number, yes/no or a name")
        else:
            out[line.key] = value
    return out


def _attribute_value(vals: tuple[ast.Expr, ...]) -> int | bool | str | None:
    """A number, yes/no (alone: yes) or a name; None when it is none of these."""
    if not vals:
        return True
    if len(vals) != 1:
        return None
    n = as_int(vals[0])
    if n is not None:
        return n
    if isinstance(vals[0], ast.Name):
        word = vals[0].id
        return (word in TRUE_WORDS) if word in BOOL_WORDS else word
    return None
