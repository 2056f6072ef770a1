"""Run-time board tables derived from the map model.

The engine never sees labels, graphs or geometry at play time: hexes are
integers in label order, and this module computes what it reads instead —
terrain ids, neighbours in the six directions, hexside feature bitmasks,
movement costs per movement class, roads, ZOC projection and slope masks,
cube coordinates, each hex's distance from every map edge, and the
precomputed line of sight (`compiler.los`).
"""

from __future__ import annotations

from compiler import ir
from compiler.hexmap import EDGES, Grid
from compiler.los import los_tables
from compiler.map_model import MapModel
from engine.board import PROHIBITED
from engine.rules import BoardSpec


def build_board(rules: ir.Ruleset, model: MapModel | None = None) -> BoardSpec:
    model = model or MapModel(rules)
    grid, m = model.grid, model.map
    offsets = grid.offsets()
    labels = tuple(Grid.label(c, r) for c, r in offsets)
    index = {label: i for i, label in enumerate(labels)}
    terrain_ids = {t.name: i for i, t in enumerate(rules.terrain)}
    feature_ids = {f.name: i for i, f in enumerate(rules.hexside_features)}
    nbrs = [model.neighbors(label) for label in labels]

    def per_side(value) -> tuple:
        """For each hex, the value of each of its six sides (None off the map)."""
        return tuple(
            tuple(value(a, b) if b is not None else None for b in row)
            for a, row in zip(labels, nbrs, strict=True)
        )

    def mask(test) -> tuple[int, ...]:
        return tuple(sum(1 << d for d, yes in enumerate(row) if yes) for row in per_side(test))

    def cost(a: str, b: str, move_class: str) -> int:
        c = model.move_cost(a, b, move_class)
        return PROHIBITED if c is None else c

    cube = tuple(grid.to_cube(c, r) for c, r in offsets)
    tables = los_tables(model)
    return BoardSpec(
        title=m.title,
        labels=labels,
        grid=(grid.first_col, grid.last_col, grid.first_row, grid.last_row, grid.shifted),
        terrain=tuple(terrain_ids[model.terrain_of(label).name] for label in labels),
        neighbors=tuple(tuple(index[b] if b else -1 for b in row) for row in nbrs),
        hexsides=tuple(
            tuple(
                sum(1 << feature_ids[f] for f in model.hexside(a, b).features) if b else 0
                for b in row
            )
            for a, row in zip(labels, nbrs, strict=True)
        ),
        cube=cube,
        columns=tuple(c for c, _r in offsets),
        rows=tuple(r for _c, r in offsets),
        edge_distance={edge: _edge_distance(grid, offsets, edge) for edge in EDGES},
        places={p.name: index[p.hex] for p in m.places},
        zones={z.name: frozenset(index[h] for h in z.hexes) for z in m.zones},
        move_classes=model.move_classes,
        move_cost=tuple(
            tuple(
                tuple(PROHIBITED if c is None else c for c in row)
                for row in per_side(lambda a, b, k=k: cost(a, b, k))
            )
            for k in model.move_classes
        ),
        road=mask(model.road),
        strategic=mask(model.strategic),
        zoc_out=mask(model.zoc_extends),
        los_blocks=tuple(model.blocks_los(label) for label in labels),
        slope_up=mask(lambda a, b: (s := model.slope(a, b)) is not None and s[0] == a),
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
