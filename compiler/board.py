"""Run-time board tables derived from the checked map.

The engine never sees labels or geometry at play time: hexes are integers in
label order, and this module computes what it reads instead — terrain ids,
neighbours in the six directions, hexside feature bitmasks, cube coordinates
and each hex's distance from every map edge.
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler import ir
from compiler.hexmap import Grid
from compiler.maps import grid_of

EDGES = ("west", "east", "north", "south")


@dataclass(frozen=True, slots=True)
class BoardTables:
    title: str
    labels: tuple[str, ...]
    terrain: tuple[int, ...]
    neighbors: tuple[tuple[int, ...], ...]
    hexsides: tuple[tuple[int, ...], ...]
    cube: tuple[tuple[int, int, int], ...]
    columns: tuple[int, ...]
    rows: tuple[int, ...]
    edge_distance: dict[str, tuple[int, ...]]
    places: dict[str, int]
    zones: dict[str, tuple[int, ...]]


def build_board(m: ir.Map, terrain: list[str], features: list[str]) -> BoardTables:
    grid = grid_of(m)
    offsets = sorted(grid.offsets())
    labels = tuple(Grid.label(c, r) for c, r in offsets)
    index = {label: i for i, label in enumerate(labels)}
    t_index = {name: i for i, name in enumerate(terrain)}
    f_index = {name: i for i, name in enumerate(features)}
    hex_terrain = tuple(t_index[m.terrain.get(label, m.default)] for label in labels)
    neighbors = []
    for c, r in offsets:
        row = []
        for d in range(6):
            nc, nr = grid.neighbor(c, r, d)
            row.append(index[Grid.label(nc, nr)] if grid.contains(nc, nr) else -1)
        neighbors.append(tuple(row))
    sides = [[0] * 6 for _ in labels]
    for (a, b), feats in m.hexsides.items():
        mask = 0
        for f in feats:
            mask |= 1 << f_index[f]
        ia, ib = index[a], index[b]
        da = neighbors[ia].index(ib)
        db = neighbors[ib].index(ia)
        sides[ia][da] |= mask
        sides[ib][db] |= mask
    cube = tuple(grid.to_cube(c, r) for c, r in offsets)
    edge_distance = {}
    for edge in EDGES:
        on_edge = [cube[i] for i, (c, r) in enumerate(offsets) if grid.on_edge(c, r, edge)]
        edge_distance[edge] = tuple(
            min(max(abs(x - ex), abs(y - ey), abs(z - ez)) for ex, ey, ez in on_edge)
            for x, y, z in cube
        )
    return BoardTables(
        title=m.title,
        labels=labels,
        terrain=hex_terrain,
        neighbors=tuple(neighbors),
        hexsides=tuple(tuple(s) for s in sides),
        cube=cube,
        columns=tuple(c for c, _r in offsets),
        rows=tuple(r for _c, r in offsets),
        edge_distance=edge_distance,
        places={p.name: index[p.hex] for p in m.places},
        zones={z.name: tuple(sorted(index[h] for h in z.hexes)) for z in m.zones},
    )
