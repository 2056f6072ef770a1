"""Run-time board tables derived from the map model.

The engine never sees labels, graphs or geometry at play time: hexes are
integers in label order, and this module computes what it reads instead —
terrain ids, neighbours in the six directions, hexside feature bitmasks,
movement costs per movement class, roads, ZOC projection and slope masks,
cube coordinates, each hex's distance from every map edge, and the
precomputed line of sight (`compiler.los`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from compiler import ir
from compiler.hexmap import EDGES, Grid
from compiler.los import los_tables
from compiler.map_model import MapModel
from engine.board import PROHIBITED
from engine.rules import BoardSpec


def build_board(rules: ir.Ruleset, model: MapModel | None = None) -> BoardSpec:
    """The run-time tables of a ruleset's map (its model, if already built)."""
    model = model or MapModel(rules)
    grid, m = model.grid, model.map
    offsets = grid.offsets()
    labels = tuple(Grid.label(c, r) for c, r in offsets)
    index = {label: i for i, label in enumerate(labels)}
    terrain_ids = {t.name: i for i, t in enumerate(rules.terrain)}
    feature_ids = {f.name: i for i, f in enumerate(rules.hexside_features)}
    nbrs = [model.neighbors(label) for label in labels]

    def per_side(value: Callable[[str, str], Any], off_map: Any) -> tuple:
        """For each hex, the value of each of its six sides."""
        return tuple(
            tuple(off_map if b is None else value(a, b) for b in row)
            for a, row in zip(labels, nbrs, strict=True)
        )

    def mask(test: Callable[[str, str], bool]) -> tuple[int, ...]:
        """For each hex, a 6-bit mask of the sides where `test` holds."""
        return tuple(
            sum(1 << d for d, yes in enumerate(row) if yes) for row in per_side(test, False)
        )

    def mp(move_class: str) -> Callable[[str, str], int]:
        def step(a: str, b: str) -> int:
            cost = model.move_cost(a, b, move_class)
            return PROHIBITED if cost is None else cost

        return step

    def features(a: str, b: str) -> int:
        return sum(1 << feature_ids[f] for f in model.hexside(a, b).features)

    def slope_up(a: str, b: str) -> bool:
        slope = model.slope(a, b)
        return slope is not None and slope[0] == a

    tables = los_tables(model)
    return BoardSpec(
        title=m.title,
        labels=labels,
        grid=(grid.first_col, grid.last_col, grid.first_row, grid.last_row, grid.shifted),
        terrain=tuple(terrain_ids[model.terrain_of(label).name] for label in labels),
        neighbors=tuple(tuple(-1 if b is None else index[b] for b in row) for row in nbrs),
        hexsides=per_side(features, 0),
        cube=tuple(grid.to_cube(c, r) for c, r in offsets),
        columns=tuple(c for c, _r in offsets),
        rows=tuple(r for _c, r in offsets),
        edge_distance={edge: _edge_distance(grid, offsets, edge) for edge in EDGES},
        places={p.name: index[p.hex] for p in m.places},
        zones={z.name: frozenset(index[h] for h in z.hexes) for z in m.zones},
        move_classes=model.move_classes,
        move_cost=tuple(per_side(mp(k), PROHIBITED) for k in model.move_classes),
        road=mask(model.road),
        strategic=mask(model.strategic),
        zoc_out=mask(model.zoc_extends),
        los_blocks=tuple(model.blocks_los(label) for label in labels),
        slope_up=mask(slope_up),
        los_range=tables.radius,
        los_index=tables.index,
        los_templates=tables.templates,
        los_codes=tables.codes,
    )


def _edge_distance(grid: Grid, offsets: list[tuple[int, int]], edge: str) -> tuple[int, ...]:
    """Hexes from a map edge: one column or row nearer per step, so the difference."""
    far = {
        "west": lambda c, r: c - grid.first_col,
        "east": lambda c, r: grid.last_col - c,
        "north": lambda c, r: r - grid.first_row,
        "south": lambda c, r: grid.last_row - r,
    }[edge]
    return tuple(far(c, r) for c, r in offsets)
