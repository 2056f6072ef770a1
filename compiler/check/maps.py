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
from collections.abc import Callable

from compiler import ir
from compiler.check.bounds import MAP_COLUMN, MAP_ROW, SIGHT, prop_int, prop_range
from compiler.check.props import Props, describe, prov_of
from compiler.map.hexmap import EDGES, LABEL, Grid, run_between
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
    return _grid(m.columns, m.rows, m.shifted)


def _grid(columns: tuple[int, int], rows: tuple[int, int], shifted: str) -> Grid:
    """The grid of these columns and rows, the even or odd columns shifted down."""
    return Grid(columns[0], columns[1], rows[0], rows[1], 0 if shifted == "even" else 1)


def hex_list(values: tuple[ast.Expr, ...], grid: Grid, reporter: Reporter) -> list[str]:
    """Hex labels from numbers and ranges, each checked against the grid."""
    out: list[str] = []
    for v in values:
        for label in _hexes_written(v, grid, reporter):
            if not grid.contains(*Grid.parse(label)):
                reporter.error(v.span, BAD_HEX, f"hex {label} is outside the map")
            else:
                out.append(label)
    return out


def _hexes_written(v: ast.Expr, grid: Grid, reporter: Reporter) -> list[str]:
    """One hex `0304` or a run `0304..0306` as its labels (not yet checked against the map)."""
    if isinstance(v, ast.Number) and LABEL.match(v.text):
        return [v.text]
    if _is_run(v):
        return _run(v, grid, reporter)
    reporter.error(
        v.span,
        BAD_HEX,
        f"expected a hex such as 0304 or a run 0304..0306, not {describe(v)}",
    )
    return []


def _is_run(v: ast.Expr) -> bool:
    """Whether a value is `a..b` between two hex labels."""
    if not isinstance(v, ast.Range) or not (v.low and v.high):
        return False
    return bool(LABEL.match(v.low) and LABEL.match(v.high))


def _run(v: ast.Range, grid: Grid, reporter: Reporter) -> list[str]:
    run = run_between(grid, v.low or "", v.high or "")
    if run is None:
        reporter.error(
            v.span,
            BAD_HEX,
            f"{v.low}..{v.high}: the first hex must be north-west of the second",
        )
        return []
    return run


def check_map(
    decl: ast.Entity,
    reporter: Reporter,
    terrain: tuple[ir.Terrain, ...],
    features: tuple[ir.HexsideFeature, ...],
) -> ir.Map | None:
    """The map: its grid from the keys given once, then what its other lines draw."""
    terrain_names = {t.name for t in terrain}
    by_name = {f.name: f for f in features}
    props = Props(decl, reporter, MAP_KEYS, keyed_only=False)
    _check_line_keys(props, MAP_KEYS | MAP_LINES | terrain_names | set(by_name), reporter)
    cols = prop_range(props, "columns", MAP_COLUMN, required=True)
    rows = prop_range(props, "rows", MAP_ROW, required=True)
    shifted = _check_shifted(decl, props)
    default = _check_default(props, terrain_names, reporter)
    los_range = _check_los_range(props)
    if cols is None or rows is None or default is None:
        return None
    grid = _grid(cols, rows, shifted)
    drawn = _MapLines(grid, reporter, prov_of(decl.prov), terrain_names, by_name)
    drawn.read(decl.body.lines)
    return ir.Map(
        title=decl.title or "Map",
        columns=cols,
        rows=rows,
        shifted=shifted,
        default=default,
        terrain=drawn.terrain_besides(default),
        hexsides=drawn.hexsides(),
        places=tuple(drawn.places),
        zones=tuple(drawn.zones),
        prov=drawn.decl_prov,
        span=decl.span,
        los_range=los_range,
    )


def _check_line_keys(props: Props, keys: set[str], reporter: Reporter) -> None:
    """Every line starts with a terrain, a hexside feature or a map key."""
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


def _check_shifted(decl: ast.Entity, props: Props) -> str:
    """`shifted_columns even|odd`: which columns stand half a hex lower."""
    shifted = props.name("shifted_columns", "even")
    if shifted not in ("even", "odd"):
        props.error(decl.span, "shifted_columns is even or odd")
        return "even"
    return shifted


def _check_default(props: Props, terrain_names: set[str], reporter: Reporter) -> str | None:
    """`default clear`: the terrain of every hex no line names."""
    default = props.name("default", required=True)
    if default is not None and default not in terrain_names:
        reporter.error(props.line("default").span, BAD_VALUE, f"unknown terrain {default!r}")
    return default


def _check_los_range(props: Props) -> int | None:
    """`los_range N`: how many hexes a line of sight reaches."""
    return prop_int(props, "los_range", SIGHT)


class _MapLines:
    """What the map's lines draw: terrain of hexes, hexside features, places and zones."""

    def __init__(
        self,
        grid: Grid,
        reporter: Reporter,
        decl_prov: ir.Prov,
        terrain_names: set[str],
        features: dict[str, ir.HexsideFeature],
    ) -> None:
        self.grid = grid
        self.r = reporter
        self.decl_prov = decl_prov
        self.terrain_names = terrain_names
        self.features = features
        self.hex_terrain: dict[str, str] = {}
        self.sides: dict[tuple[str, str], dict[str, str]] = {}
        self.places: list[ir.Place] = []
        self.zones: list[ir.Zone] = []
        self.behind: list[ast.Line] = []  # zones behind a line, made once every line is known
        self._named_lines = {
            "place": self._place_line,
            "zone": self._zone_line,
            "entry": self._zone_line,
            "line": self._zone_line,
        }

    def read(self, lines: tuple[ast.Line | ast.WhenLine | ast.DoLine, ...]) -> None:
        for line in lines:
            if isinstance(line, ast.Line) and line.key is not None:
                self._reader(line.key)(line)
        limits = {z.name: z for z in self.zones if z.kind == "line"}
        for line in self.behind:
            self._add_zone(_zone_behind(line, limits, self.grid, self.r, self.decl_prov))

    def _reader(self, key: str) -> Callable[[ast.Line], None]:
        """The reader of a line by its key; lines with an unknown key were reported."""
        if key in self.terrain_names:
            return self._terrain_line
        if key in self.features:
            return self._hexside_line
        return self._named_lines.get(key, _skip)

    def _terrain_line(self, line: ast.Line) -> None:
        """`woods 0304 0506..0509`: hexes of one terrain, each hex one terrain."""
        key = line.key or ""
        for label in hex_list(line.values[1:], self.grid, self.r):
            if label in self.hex_terrain and self.hex_terrain[label] != key:
                self.r.error(
                    line.span, BAD_VALUE, f"hex {label} is already {self.hex_terrain[label]}"
                )
            self.hex_terrain[label] = key

    def _hexside_line(self, line: ast.Line) -> None:
        hexside_line(line, self.features[line.key or ""], self.grid, self.sides, self.r)

    def _place_line(self, line: ast.Line) -> None:
        place = _place(line, self.grid, self.r, self.decl_prov)
        if place is not None:
            self.places.append(place)

    def _zone_line(self, line: ast.Line) -> None:
        key = line.key or ""
        if key == "zone" and _is_behind(line.values[1:]):
            self.behind.append(line)
            return
        self._add_zone(_zone(line, key, self.grid, self.r, self.decl_prov))

    def _add_zone(self, zone: ir.Zone | None) -> None:
        if zone is not None:
            self.zones.append(zone)

    def hexsides(self) -> dict[tuple[str, str], dict[str, str]]:
        """The features of each hexside, hexsides and features in order."""
        return {k: dict(sorted(v.items())) for k, v in sorted(self.sides.items())}

    def terrain_besides(self, default: str) -> dict[str, str]:
        """The hexes whose terrain is not the default, in label order."""
        return {h: t for h, t in sorted(self.hex_terrain.items()) if t != default}


def _skip(line: ast.Line) -> None:
    """A line whose key is no terrain, feature or map line: already reported."""


def hexside_line(
    line: ast.Line,
    feature: ir.HexsideFeature,
    grid: Grid,
    sides: dict[tuple[str, str], dict[str, str]],
    reporter: Reporter,
) -> None:
    """A line of hexsides that carry one feature, marked in `sides`."""
    key = feature.name
    if feature.combines:
        reporter.error(
            line.values[0].span,
            BAD_VALUE,
            f"{key!r} is not drawn on the map: it stands where {' and '.join(feature.combines)} "
            "meet on one hexside",
        )
        return
    pairs = _hexside_pairs(line, feature, grid, reporter)
    for a, b in pairs:
        if grid.direction_to(Grid.parse(a), Grid.parse(b)) is None:
            reporter.error(
                line.span, BAD_HEX, f"hexes {a} and {b} are not adjacent: no hexside between them"
            )
            continue
        _mark_hexside(line, feature, (a, b), sides, reporter)


def _hexside_pairs(
    line: ast.Line, feature: ir.HexsideFeature, grid: Grid, reporter: Reporter
) -> list[tuple[str, str]]:
    """The hex pairs a line names: hexsides `a/b`, or a path of hexes (a road)."""
    key = feature.name
    vals = line.values[1:]
    if _all_hexsides(vals):
        return [pair for v in vals for pair in _paired_runs(v, grid, reporter)]
    if feature.directional:
        reporter.error(
            line.span,
            BAD_VALUE,
            f"{key!r} is directional: write its hexsides a/b with the hex it belongs to first",
        )
        return []
    path = hex_list(vals, grid, reporter)
    if len(path) < 2:
        reporter.error(line.span, MISSING, f"a {key} path needs at least two hexes")
    return list(itertools.pairwise(path))


def _all_hexsides(vals: tuple[ast.Expr, ...]) -> bool:
    """Whether a line lists hexsides `a/b` (else it is a path of hexes)."""
    return bool(vals) and all(isinstance(v, ast.Slash) for v in vals)


def _mark_hexside(
    line: ast.Line,
    feature: ir.HexsideFeature,
    pair: tuple[str, str],
    sides: dict[tuple[str, str], dict[str, str]],
    reporter: Reporter,
) -> None:
    """Mark a hexside with a feature (a directional one with the hex it belongs to)."""
    a, b = pair
    key = feature.name
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
    victory = bool(rest) and ast.is_word(rest[-1], "victory")
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
    return bool(rest) and ast.is_word(rest[0], "behind")


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
    if len(args) < 2 or not all(isinstance(a, ast.Name) for a in args):
        reporter.error(line.span, BAD_VALUE, f'write `zone {name} "Title" behind LINE east`')
        return None
    limit, edges = args[0].id, [a.id for a in args[1:]]  # type: ignore[attr-defined]
    if not _is_limit(args[0], lines, reporter) or not _are_edges(args[1:], reporter):
        return None
    wall = set(lines[limit].hexes)
    seen = _reached_from(grid, edges, wall)
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


def _is_limit(arg: ast.Name, lines: dict[str, ir.Zone], reporter: Reporter) -> bool:
    """Whether a zone's limit names a `line` of the map."""
    if arg.id in lines:
        return True
    hint = did_you_mean(arg.id, set(lines))
    reporter.error(
        arg.span,
        BAD_VALUE,
        f"{arg.id!r} is not a `line` of this map",
        *hint_note(hint),
    )
    return False


def _are_edges(args: tuple[ast.Expr, ...], reporter: Reporter) -> bool:
    """Whether the names after a zone's limit are map edges (the first that is not is reported)."""
    for arg in args:
        if not isinstance(arg, ast.Name) or arg.id not in EDGES:
            reporter.error(arg.span, BAD_VALUE, f"a map edge is one of {', '.join(EDGES)}")
            return False
    return True


def _reached_from(grid: Grid, edges: list[str], wall: set[str]) -> set[str]:
    """The hexes reached from the map edges without crossing the wall."""
    reached = _on_edges(grid, edges)
    seen = {Grid.label(*o) for o in reached} - wall
    todo = [o for o in reached if Grid.label(*o) in seen]
    while todo:
        for n in grid.neighbors(*todo.pop()):
            label = Grid.label(*n)
            if _may_spread(grid, n, label, seen, wall):
                seen.add(label)
                todo.append(n)
    return seen


def _on_edges(grid: Grid, edges: list[str]) -> list[tuple[int, int]]:
    """The hexes along any of these map edges."""
    return [o for o in grid.offsets() if any(grid.on_edge(*o, e) for e in edges)]


def _may_spread(grid: Grid, h: tuple[int, int], label: str, seen: set[str], wall: set[str]) -> bool:
    """Whether the flood reaches a hex it has not yet: on the map and not the wall."""
    return grid.contains(*h) and label not in seen and label not in wall


__all__ = ["check_map", "grid_of", "hex_list"]
