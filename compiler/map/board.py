"""Run-time board tables derived from the map model.

The engine never sees labels, graphs or geometry at play time: hexes are
integers in label order, and this module computes what it reads instead —
terrain ids, neighbours in the six directions, hexside feature bitmasks,
movement costs per movement class, roads, ZOC projection and slope masks,
cube coordinates, each hex's distance from every map edge, and the
precomputed line of sight (`compiler.map.los`).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from typing import Any

from compiler import ir
from compiler.check.terrain_changes import change_groups, changed_rules, options
from compiler.map.hexmap import EDGES, Grid
from compiler.map.los import los_tables
from compiler.map.model import MapModel
from engine.board import PROHIBITED
from engine.board_data import COLUMNS as BOARD_COLUMNS
from engine.rules import BoardPatch, BoardSpec
from engine.terrain_state import made_entry


def build_board(rules: ir.Ruleset, model: MapModel | None = None) -> BoardSpec:
    """The run-time tables of a ruleset's map (its model, if already built)."""
    model = model or MapModel(rules)
    grid, m = model.grid, model.map
    offsets = grid.offsets()
    labels = tuple(Grid.label(c, r) for c, r in offsets)
    index = {label: i for i, label in enumerate(labels)}
    tables = los_tables(model)
    return BoardSpec(
        title=m.title,
        labels=labels,
        grid=(grid.first_col, grid.last_col, grid.first_row, grid.last_row, grid.shifted),
        neighbors=_neighbor_ids(model, labels, index),
        **_geometry(grid, offsets),
        places={p.name: index[p.hex] for p in m.places},
        zones={z.name: frozenset(index[h] for h in z.hexes) for z in m.zones},
        move_classes=model.move_classes,
        los_range=tables.radius,
        los_index=tables.index,
        los_templates=tables.templates,
        los_codes=tables.codes,
        **terrain_tables(rules, model),
    )


def _neighbor_ids(
    model: MapModel, labels: tuple[str, ...], index: dict[str, int]
) -> tuple[tuple[int, ...], ...]:
    """Each hex's neighbours in the six directions, by id; -1 off the map."""
    nbrs = [model.neighbors(label) for label in labels]
    return tuple(tuple(-1 if b is None else index[b] for b in row) for row in nbrs)


def _geometry(grid: Grid, offsets: list[tuple[int, int]]) -> dict[str, Any]:
    """Where each hex is: its cube coordinates, column, row and distance from each edge."""
    return {
        "cube": tuple(grid.to_cube(c, r) for c, r in offsets),
        "columns": tuple(c for c, _r in offsets),
        "rows": tuple(r for _c, r in offsets),
        "edge_distance": {edge: _edge_distance(grid, offsets, edge) for edge in EDGES},
    }


# The tables of a board that read the terrain, so change when it changes in play:
# every column of a hex's line in the board file but its label and its LOS row
# (lines of sight are judged again from the changed blocking and slopes).
TERRAIN_TABLES = tuple(c for c in BOARD_COLUMNS if c not in ("label", "los_codes"))


def terrain_tables(rules: ir.Ruleset, model: MapModel) -> dict[str, tuple]:
    """The board's tables that the terrain decides (all but line of sight), per hex."""
    labels = model.labels()
    terrain_ids = {t.name: i for i, t in enumerate(rules.terrain)}
    feature_bits = _feature_bits(rules)
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
        return _union(feature_bits[f] for f in model.hexside(a, b).features)

    def owned(a: str, b: str) -> int:
        """Directional features on the side a/b that belong to hex a (written first)."""
        marked = model.hexside(a, b).marked
        return _union(feature_bits[f] for f, owner in marked.items() if owner == a)

    def slope_up(a: str, b: str) -> bool:
        slope = model.slope(a, b)
        return slope is not None and slope[0] == a

    return {
        "terrain": tuple(terrain_ids[model.terrain_of(label).name] for label in labels),
        "hexsides": per_side(features, 0),
        "owned": per_side(owned, 0),
        "move_cost": tuple(per_side(mp(k), PROHIBITED) for k in model.move_classes),
        "road": mask(model.road),
        "strategic": mask(model.strategic),
        "zoc_out": mask(model.zoc_extends),
        "los_blocks": tuple(model.blocks_los(label) for label in labels),
        "slope_up": mask(slope_up),
    }


def _feature_bits(rules: ir.Ruleset) -> dict[str, int]:
    """Each feature's bit in the engine's hexside masks, with the bits of the
    features it `counts_as`: where a breastwork stands, the rules asking about
    fieldworks (`hexside_has`, `crossing_into`) find fieldworks too."""
    ids = {f.name: i for i, f in enumerate(rules.hexside_features)}
    return {
        f.name: _union(1 << ids[name] for name in (f.name, *f.counts_as))
        for f in rules.hexside_features
    }


def _union(bits: Iterable[int]) -> int:
    mask = 0
    for bit in bits:
        mask |= bit
    return mask


def board_patches(rules: ir.Ruleset) -> dict[tuple[str, ...], BoardPatch]:
    """For each combination of the changes of one group, the board rows it alters,
    keyed by the changes made as the engine holds them (`made_entry`: a change's
    name, and where it stands if it has places).

    A group's changes touch neighbouring hexes, so a row may depend on several
    of them at once: each combination is worked out from the changed map.
    Changes of different groups never touch a row in common, so the engine
    makes them by applying each group's patch in turn (engine/terrain_state.py).
    """
    if rules.map is None or not rules.terrain_changes:
        return {}
    base = terrain_tables(rules, MapModel(rules))
    patches: dict[tuple[str, ...], BoardPatch] = {}
    changes = rules.terrain_changes
    for members in change_groups(changes, rules.map, rules.hexside_features):
        for chosen in _combinations(changes, members):
            changed = changed_rules(rules, chosen)
            tables = terrain_tables(changed, MapModel(changed))
            key = tuple(made_entry(changes[i].name, place) for i, place in chosen)
            patches[key] = _differences(base, tables)
    return patches


def _combinations(
    changes: tuple[ir.TerrainChange, ...], members: tuple[int, ...]
) -> list[tuple[tuple[int, str], ...]]:
    """Every non-empty combination of a group's changes, each made at one of its
    places, as (index, place) in declared order, the smaller first."""
    out = []
    for size in range(1, len(members) + 1):
        for chosen in itertools.combinations(members, size):
            places = itertools.product(*(options(changes[i]) for i in chosen))
            out += [tuple(zip(chosen, at, strict=True)) for at in places]
    return out


def _differences(base: dict[str, tuple], changed: dict[str, tuple]) -> BoardPatch:
    """The rows of each terrain table that differ, as (table, hex, row)."""
    out: list[tuple[str, int, Any]] = []
    for table in TERRAIN_TABLES:
        before, after = _per_hex(table, base[table]), _per_hex(table, changed[table])
        out += [(table, h, row) for h, row in enumerate(after) if row != before[h]]
    return tuple(out)


def _per_hex(table: str, rows: tuple) -> tuple:
    """A table's rows by hex: the movement costs are held per class, then per hex."""
    return tuple(zip(*rows, strict=True)) if table == "move_cost" else rows


def _edge_distance(grid: Grid, offsets: list[tuple[int, int]], edge: str) -> tuple[int, ...]:
    """Hexes from a map edge: one column or row nearer per step, so the difference."""
    far = {
        "west": lambda c, r: c - grid.first_col,
        "east": lambda c, r: grid.last_col - c,
        "north": lambda c, r: r - grid.first_row,
        "south": lambda c, r: grid.last_row - r,
    }[edge]
    return tuple(far(c, r) for c, r in offsets)
