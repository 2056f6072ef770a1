"""The `map` declaration: grid, terrain of hexes, hexside features, places, zones.

The map is written compactly: a default terrain, then for each other terrain
the hexes that have it (single hexes, `a..b` runs down a column or rectangles
between corners), and for each hexside feature either explicit hexsides
`a/b` or a path of hexes whose consecutive hexsides carry it (roads).
"""

from __future__ import annotations

import itertools

from compiler import ir
from compiler.hexmap import LABEL, Grid, run_between
from compiler.props import Props, as_int, describe, prov_of
from dsl import ast
from dsl.diagnostics import BAD_HEX, BAD_VALUE, MISSING, UNKNOWN_PROPERTY, Reporter, did_you_mean

MAP_KEYS = {"columns", "rows", "shifted_columns", "default", "place", "zone"}


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
    terrain: set[str],
    hexsides: set[str],
) -> ir.Map | None:
    props = Props(decl, reporter, MAP_KEYS | terrain | hexsides, keyed_only=False)
    for line in props.other:
        key = line.key
        hint = did_you_mean(key, MAP_KEYS | terrain | hexsides) if key else None
        reporter.error(
            line.values[0].span,
            UNKNOWN_PROPERTY,
            "a map line starts with a terrain, a hexside feature or one of "
            + ", ".join(sorted(MAP_KEYS))
            + (f", not {key!r}" if key else ""),
            *([f"did you mean {hint!r}?"] if hint else []),
        )
    cols = props.range("columns", required=True)
    rows = props.range("rows", required=True)
    shifted = props.name("shifted_columns", "even")
    if shifted not in ("even", "odd"):
        props.error(decl.span, "shifted_columns is even or odd")
        shifted = "even"
    default = props.name("default", required=True)
    if default is not None and default not in terrain:
        reporter.error(props.line("default").span, BAD_VALUE, f"unknown terrain {default!r}")
    if cols is None or rows is None or default is None:
        return None
    grid = Grid(cols[0], cols[1], rows[0], rows[1], 0 if shifted == "even" else 1)
    hex_terrain: dict[str, str] = {}
    sides: dict[tuple[str, str], list[str]] = {}
    places: list[ir.Place] = []
    zones: list[ir.Zone] = []
    decl_prov = prov_of(decl.prov)
    for line in decl.body.lines:
        if not isinstance(line, ast.Line) or line.key is None:
            continue
        key = line.key
        vals = line.values[1:]
        if key in terrain:
            for label in hex_list(vals, grid, reporter):
                if label in hex_terrain and hex_terrain[label] != key:
                    reporter.error(
                        line.span, BAD_VALUE, f"hex {label} is already {hex_terrain[label]}"
                    )
                hex_terrain[label] = key
        elif key in hexsides:
            _hexside_line(line, key, grid, sides, reporter)
        elif key in ("place", "zone"):
            item = _named_area(line, key, grid, reporter, decl_prov)
            if isinstance(item, ir.Place):
                places.append(item)
            elif isinstance(item, ir.Zone):
                zones.append(item)
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
        hexsides={k: tuple(v) for k, v in sorted(sides.items())},
        places=tuple(places),
        zones=tuple(zones),
        prov=decl_prov,
        span=decl.span,
    )


def _hexside_line(line: ast.Line, key: str, grid: Grid, sides: dict, reporter: Reporter) -> None:
    vals = line.values[1:]
    pairs: list[tuple[str, str]] = []
    if vals and all(isinstance(v, ast.Slash) for v in vals):
        for v in vals:
            labels = hex_list(v.parts, grid, reporter) if len(v.parts) == 2 else []
            if len(labels) != 2:
                reporter.error(v.span, BAD_HEX, "a hexside is written a/b with two adjacent hexes")
                continue
            pairs.append((labels[0], labels[1]))
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
        k = (min(a, b), max(a, b))
        if key not in sides.setdefault(k, []):
            sides[k].append(key)


def _named_area(line: ast.Line, key: str, grid: Grid, reporter: Reporter, decl_prov: ir.Prov):
    vals = line.values[1:]
    if len(vals) < 2 or not isinstance(vals[0], ast.Name):
        reporter.error(line.span, BAD_VALUE, f'{key} is written `{key} name "Title" hexes…`')
        return None
    name = vals[0].id
    rest = vals[1:]
    title = name
    if rest and isinstance(rest[0], ast.String):
        title = rest[0].value
        rest = rest[1:]
    labels = hex_list(rest, grid, reporter)
    prov = decl_prov.merged(prov_of(line.prov))
    if key == "place":
        if len(labels) != 1:
            reporter.error(line.span, BAD_VALUE, f"place {name!r} is one hex")
            return None
        return ir.Place(name, title, labels[0], prov)
    if not labels:
        reporter.error(line.span, MISSING, f"zone {name!r} needs hexes")
        return None
    return ir.Zone(name, title, tuple(dict.fromkeys(labels)), prov)


__all__ = ["as_int", "check_map", "grid_of", "hex_list"]
