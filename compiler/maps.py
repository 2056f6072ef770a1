"""The `map` declaration: grid, terrain of hexes, hexside features, places, zones.

The map is written compactly: a default terrain, then for each other terrain
the hexes that have it (single hexes, `a..b` runs down a column or rectangles
between corners). A hexside feature is written as hexsides `a/b`, as two runs
paired hex by hex (`0501..0508/0601..0608`: the hexsides between 0501 and
0601, 0502 and 0602, …), or — for features that are not directional — as a
path of hexes whose consecutive hexsides carry it (a road). A directional
feature (a slope, fieldworks) names first the hex it belongs to: `a/b` puts
the up-slope side of a slope in `a`.

Named places (`place`, optionally a `victory` hex), zones and entry hexes
(`entry name "A-1" hexes…`) become names the rules can use. A `line` is a
zone drawn as a line of hexes (a maneuver limit); `zone name "T" behind LINE
east` is the line and every hex on its east side: the hexes reached from the
east map edge without crossing the line.
"""

from __future__ import annotations

import itertools

from compiler import ir
from compiler.hexmap import EDGES, LABEL, Grid, run_between
from compiler.props import Props, describe, prov_of
from dsl import ast
from dsl.diagnostics import (
    BAD_HEX,
    BAD_VALUE,
    MISSING,
    UNKNOWN_PROPERTY,
    Reporter,
    did_you_mean,
    hint_note,
)

# Keys given once, and keys of lines that may repeat (as may terrain and hexside lines).
MAP_KEYS = {"columns", "rows", "shifted_columns", "default", "los_range"}
MAP_LINES = {"place", "zone", "entry", "line"}


def grid_of(m: ir.Map) -> Grid:
    return Grid(m.columns[0], m.columns[1], m.rows[0], m.rows[1], 0 if m.shifted == "even" else 1)


def hex_list(values: tuple[ast.Expr, ...], grid: Grid, reporter: Reporter) -> list[str]:
    """Hex labels from numbers and ranges, each checked against the grid."""
    out: list[str] = []
    for v in values:
        if isinstance(v, ast.Number) and LABEL.match(v.text):
            labels = [v.text]
        elif (
            isinstance(v, ast.Range)
            and v.low
            and v.high
            and LABEL.match(v.low)
            and LABEL.match(v.high)
        ):
            run = run_between(grid, v.low, v.high)
            if run is None:
                reporter.error(
                    v.span,
                    BAD_HEX,
                    f"{v.low}..{v.high}: the first hex must be north-west of the second",
                )
                continue
            labels = run
        else:
            reporter.error(
                v.span,
                BAD_HEX,
                f"expected a hex such as 0304 or a run 0304..0306, not {describe(v)}",
            )
            continue
        for label in labels:
            if not grid.contains(*Grid.parse(label)):
                reporter.error(v.span, BAD_HEX, f"hex {label} is outside the map")
            else:
                out.append(label)
    return out


def check_map(
    decl: ast.Entity,
    reporter: Reporter,
    terrain: tuple[ir.Terrain, ...],
    features: tuple[ir.HexsideFeature, ...],
) -> ir.Map | None:
    terrain_names = {t.name for t in terrain}
    by_name = {f.name: f for f in features}
    keys = MAP_KEYS | MAP_LINES | terrain_names | set(by_name)
    props = Props(decl, reporter, MAP_KEYS, keyed_only=False)
    for line in props.other:
        key = line.key
        if key in keys:
            continue
        hint = did_you_mean(key, keys) if key else None
        reporter.error(
            line.values[0].span,
            UNKNOWN_PROPERTY,
            "a map line starts with a terrain, a hexside feature or one of "
            + ", ".join(sorted(MAP_KEYS | MAP_LINES))
            + (f", not {key!r}" if key else ""),
            *hint_note(hint),
        )
    cols = props.range("columns", required=True)
    rows = props.range("rows", required=True)
    shifted = props.name("shifted_columns", "even")
    if shifted not in ("even", "odd"):
        props.error(decl.span, "shifted_columns is even or odd")
        shifted = "even"
    default = props.name("default", required=True)
    if default is not None and default not in terrain_names:
        reporter.error(props.line("default").span, BAD_VALUE, f"unknown terrain {default!r}")
    los_range = props.int("los_range")
    if los_range is not None and los_range < 0:
        props.error(props.line("los_range").span, "los_range is a number of hexes, 0 or more")
    if cols is None or rows is None or default is None:
        return None
    grid = Grid(cols[0], cols[1], rows[0], rows[1], 0 if shifted == "even" else 1)
    hex_terrain: dict[str, str] = {}
    sides: dict[tuple[str, str], dict[str, str]] = {}
    places: list[ir.Place] = []
    zones: list[ir.Zone] = []
    behind: list[ast.Line] = []  # zones behind a line, made once every line is known
    decl_prov = prov_of(decl.prov)
    for line in decl.body.lines:
        if not isinstance(line, ast.Line) or line.key is None:
            continue
        key = line.key
        vals = line.values[1:]
        if key in terrain_names:
            for label in hex_list(vals, grid, reporter):
                if label in hex_terrain and hex_terrain[label] != key:
                    reporter.error(
                        line.span, BAD_VALUE, f"hex {label} is already {hex_terrain[label]}"
                    )
                hex_terrain[label] = key
        elif key in by_name:
            hexside_line(line, by_name[key], grid, sides, reporter)
        elif key == "place":
            place = _place(line, grid, reporter, decl_prov)
            if place is not None:
                places.append(place)
        elif key == "zone" and _is_behind(vals):
            behind.append(line)
        elif key in ("zone", "entry", "line"):
            zone = _zone(line, key, grid, reporter, decl_prov)
            if zone is not None:
                zones.append(zone)
    lines = {z.name: z for z in zones if z.kind == "line"}
    for line in behind:
        zone = _zone_behind(line, lines, grid, reporter, decl_prov)
        if zone is not None:
            zones.append(zone)
    for label in list(hex_terrain):
        if hex_terrain[label] == default:
            del hex_terrain[label]
    return ir.Map(
        title=decl.title or "Map",
        columns=cols,
        rows=rows,
        shifted=shifted,
        default=default,
        terrain=dict(sorted(hex_terrain.items())),
        hexsides={k: dict(sorted(v.items())) for k, v in sorted(sides.items())},
        places=tuple(places),
        zones=tuple(zones),
        prov=decl_prov,
        span=decl.span,
        los_range=los_range,
    )


def hexside_line(
    line: ast.Line,
    feature: ir.HexsideFeature,
    grid: Grid,
    sides: dict[tuple[str, str], dict[str, str]],
    reporter: Reporter,
) -> None:
    key = feature.name
    if feature.combines:
        reporter.error(
            line.values[0].span,
            BAD_VALUE,
            f"{key!r} is not drawn on the map: it stands where {' and '.join(feature.combines)} "
            "meet on one hexside",
        )
        return
    vals = line.values[1:]
    pairs: list[tuple[str, str]] = []
    if vals and all(isinstance(v, ast.Slash) for v in vals):
        for v in vals:
            pairs.extend(_paired_runs(v, grid, reporter))
    elif feature.directional:
        reporter.error(
            line.span,
            BAD_VALUE,
            f"{key!r} is directional: write its hexsides a/b with the hex it belongs to first",
        )
        return
    else:
        path = hex_list(vals, grid, reporter)
        if len(path) < 2:
            reporter.error(line.span, MISSING, f"a {key} path needs at least two hexes")
        pairs = list(itertools.pairwise(path))
    for a, b in pairs:
        if grid.direction_to(Grid.parse(a), Grid.parse(b)) is None:
            reporter.error(
                line.span, BAD_HEX, f"hexes {a} and {b} are not adjacent: no hexside between them"
            )
            continue
        marked = a if feature.directional else ""
        here = sides.setdefault((min(a, b), max(a, b)), {})
        if here.get(key, marked) != marked:
            reporter.error(
                line.span,
                BAD_VALUE,
                f"the {key} between {a} and {b} already belongs to {here[key]}",
            )
        here[key] = marked


def _paired_runs(v: ast.Slash, grid: Grid, reporter: Reporter) -> list[tuple[str, str]]:
    """`a/b`, or `a..b/c..d`: the hexes of two runs paired in order."""
    if len(v.parts) != 2:
        reporter.error(v.span, BAD_HEX, "a hexside is written a/b with two adjacent hexes")
        return []
    first = hex_list((v.parts[0],), grid, reporter)
    second = hex_list((v.parts[1],), grid, reporter)
    if len(first) != len(second):
        reporter.error(
            v.span,
            BAD_HEX,
            f"the runs on either side of '/' pair hex by hex: {len(first)} and {len(second)} hexes",
        )
        return []
    return list(zip(first, second, strict=True))


def _title_and_rest(
    line: ast.Line, key: str, reporter: Reporter
) -> tuple[str, str, tuple[ast.Expr, ...]] | None:
    """`key name "Title" values…` → (name, title, values)."""
    vals = line.values[1:]
    if len(vals) < 2 or not isinstance(vals[0], ast.Name):
        reporter.error(line.span, BAD_VALUE, f'{key} is written `{key} name "Title" hexes…`')
        return None
    name, rest = vals[0].id, vals[1:]
    title = name
    if rest and isinstance(rest[0], ast.String):
        title, rest = rest[0].value, rest[1:]
    return name, title, rest


def _place(line: ast.Line, grid: Grid, reporter: Reporter, decl_prov: ir.Prov) -> ir.Place | None:
    parsed = _title_and_rest(line, "place", reporter)
    if parsed is None:
        return None
    name, title, rest = parsed
    victory = bool(rest) and isinstance(rest[-1], ast.Name) and rest[-1].id == "victory"
    labels = hex_list(rest[:-1] if victory else rest, grid, reporter)
    if len(labels) != 1:
        reporter.error(line.span, BAD_VALUE, f"place {name!r} is one hex (then `victory` if it is)")
        return None
    return ir.Place(name, title, labels[0], decl_prov.merged(prov_of(line.prov)), victory)


def _zone(
    line: ast.Line, key: str, grid: Grid, reporter: Reporter, decl_prov: ir.Prov
) -> ir.Zone | None:
    parsed = _title_and_rest(line, key, reporter)
    if parsed is None:
        return None
    name, title, rest = parsed
    labels = hex_list(rest, grid, reporter)
    if not labels:
        reporter.error(line.span, MISSING, f"{key} {name!r} needs hexes")
        return None
    prov = decl_prov.merged(prov_of(line.prov))
    return ir.Zone(name, title, tuple(dict.fromkeys(labels)), prov, key)


def _is_behind(vals: tuple[ast.Expr, ...]) -> bool:
    rest = vals[2:] if len(vals) > 1 and isinstance(vals[1], ast.String) else vals[1:]
    return bool(rest) and isinstance(rest[0], ast.Name) and rest[0].id == "behind"


def _zone_behind(
    line: ast.Line,
    lines: dict[str, ir.Zone],
    grid: Grid,
    reporter: Reporter,
    decl_prov: ir.Prov,
) -> ir.Zone | None:
    """`zone name "T" behind LINE EDGE…`: the line and the side of it the edges are on."""
    parsed = _title_and_rest(line, "zone", reporter)
    if parsed is None:
        return None
    name, title, rest = parsed
    args = rest[1:]
    names = [a.id for a in args if isinstance(a, ast.Name)]
    if len(args) < 2 or len(names) != len(args):
        reporter.error(line.span, BAD_VALUE, f'write `zone {name} "Title" behind LINE east`')
        return None
    limit, edges = names[0], names[1:]
    if limit not in lines:
        hint = did_you_mean(limit, set(lines))
        reporter.error(
            args[0].span,
            BAD_VALUE,
            f"{limit!r} is not a `line` of this map",
            *hint_note(hint),
        )
        return None
    for edge, arg in zip(edges, args[1:], strict=True):
        if edge not in EDGES:
            reporter.error(arg.span, BAD_VALUE, f"a map edge is one of {', '.join(EDGES)}")
            return None
    wall = set(lines[limit].hexes)
    reached = [o for o in grid.offsets() if any(grid.on_edge(*o, e) for e in edges)]
    seen = {Grid.label(*o) for o in reached} - wall
    todo = [o for o in reached if Grid.label(*o) in seen]
    while todo:
        for n in grid.neighbors(*todo.pop()):
            label = Grid.label(*n)
            if grid.contains(*n) and label not in seen and label not in wall:
                seen.add(label)
                todo.append(n)
    if len(seen) + len(wall) >= len(grid.offsets()):
        reporter.error(
            line.span,
            BAD_VALUE,
            f"line {limit!r} does not cut the map: every hex is reached from the "
            + " and ".join(edges)
            + " edge without crossing it",
        )
        return None
    hexes = tuple(sorted(seen | wall))
    return ir.Zone(name, title, hexes, decl_prov.merged(prov_of(line.prov)))


__all__ = ["check_map", "grid_of", "hex_list"]
