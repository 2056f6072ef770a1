"""The map model: a networkx graph of a ruleset's map, and what the rules read from it.

One node per hex (its terrain, the map edges it lies on, places and entry
hexes), one edge per adjacent pair (the hexside: its features as written,
the combined types present, 9.4, and which hex a directional feature belongs
to). From it come movement costs (9.4, 9.51), roads for strategic movement
(9.52), ZOC projection (8.1) and the slopes and blocking hexes of line of
sight (11.4). The run-time tables (`compiler.board`), the LOS tables
(`compiler.los`), the rendered map and the `muster los`/`path` commands all
read this one model. networkx stays here, at build time.

The checks across declarations that this model depends on are in
`compiler.map_checks`, which `muster check` runs without importing networkx.
"""

from __future__ import annotations

from dataclasses import dataclass

import networkx as nx

from compiler import ir
from compiler.hexmap import Grid, opposite
from compiler.map_checks import move_classes, unit_attribute
from compiler.maps import grid_of
from engine.board import RANGE


@dataclass(frozen=True, slots=True)
class Hexside:
    """The edge between two hexes: its features and whom the directional ones belong to."""

    features: tuple[str, ...]  # as written, then the combined types present, in declaration order
    marked: dict[str, str]  # directional feature → the hex it belongs to
    moving: tuple[str, ...]  # the features whose movement costs count (9.4)


class MapModel:
    """A ruleset's map as a graph of hex labels, with the TEC to read it by."""

    def __init__(self, rules: ir.Ruleset) -> None:
        if rules.map is None:
            raise ValueError(f"the ruleset {rules.name!r} has no map")
        self.rules = rules
        self.map = rules.map
        self.grid: Grid = grid_of(rules.map)
        self.terrain = {t.name: t for t in rules.terrain}
        self.features = {f.name: f for f in rules.hexside_features}
        self.move_classes = ("", *sorted(move_classes(rules)))
        self.graph = self._build()

    # ------------------------------------------------------------ the graph

    def _build(self) -> nx.Graph:
        g = nx.Graph()
        grid, m = self.grid, self.map
        for col, row in grid.offsets():
            label = grid.label(col, row)
            here = [p for p in m.places if p.hex == label]
            g.add_node(
                label,
                col=col,
                row=row,
                terrain=m.terrain.get(label, m.default),
                edges=grid.edges_of(col, row),
                places=tuple(p.name for p in here),
                victory=any(p.victory for p in here),
                entries=tuple(z.name for z in m.zones if z.kind == "entry" and label in z.hexes),
            )
        for col, row in grid.offsets():
            a = grid.label(col, row)
            for d in (1, 2, 3):  # NE, SE, S: each pair once
                nc, nr = grid.neighbor(col, row, d)
                if grid.contains(nc, nr):
                    b = grid.label(nc, nr)
                    g.add_edge(a, b, side=self._hexside(m.hexsides.get((min(a, b), max(a, b)), {})))
        return g

    def _hexside(self, written: dict[str, str]) -> Hexside:
        """What is on a hexside: a ford or bridge cancels the creek it replaces (and so
        any combined type the creek would be part of); a combined type stands for its
        parts (9.4)."""
        present = [f for f in self.features if f in written]
        marked = {f: h for f, h in written.items() if h}
        cancelled = {r for f in present for r in self.features[f].replaces}
        for f in self.features.values():
            parts = f.combines
            if parts and all(c in written and c not in cancelled for c in parts):
                present.append(f.name)
                cancelled.update(parts)
                owner = next((written[c] for c in parts if written[c]), "")
                if owner:
                    marked[f.name] = owner
        moving = tuple(f for f in present if f not in cancelled)
        return Hexside(tuple(present), marked, moving)

    # ------------------------------------------------------------ hexes

    def labels(self) -> list[str]:
        """Every hex label in id order (column by column)."""
        return [self.grid.label(c, r) for c, r in self.grid.offsets()]

    def terrain_of(self, label: str) -> ir.Terrain:
        return self.terrain[self.graph.nodes[label]["terrain"]]

    def hexside(self, a: str, b: str) -> Hexside:
        return self.graph.edges[a, b]["side"]

    def direction(self, a: str, b: str) -> int:
        d = self.grid.direction_to(Grid.parse(a), Grid.parse(b))
        if d is None:
            raise ValueError(f"hexes {a} and {b} are not adjacent")
        return d

    def neighbors(self, label: str) -> list[str | None]:
        """The neighbours by direction, None off the map."""
        grid = self.grid
        out: list[str | None] = []
        for c, r in grid.neighbors(*Grid.parse(label)):
            out.append(grid.label(c, r) if grid.contains(c, r) else None)
        return out

    # ------------------------------------------------------------ movement (9.4, 9.5)

    def _crossing(self, f: ir.HexsideFeature, side: Hexside, into: str) -> bool:
        """True when stepping into `into` crosses directional feature f toward its hex."""
        return side.marked.get(f.name) == into

    def move_cost(self, a: str, b: str, move_class: str = "") -> int | None:
        """MP to step from a to adjacent b, or None where the class may not.

        Along a road the road's cost is all (9.51); otherwise the hex entered
        and every hexside feature add up (9.4), a combined type standing in
        for its parts and a ford or bridge for the creek it replaces.
        """
        side = self.hexside(a, b)
        roads = [
            self.features[f].move.for_class(move_class)
            for f in side.features
            if self.features[f].road
        ]
        if any(c is not None for c in roads):
            return min(c for c in roads if c is not None)
        total = self.terrain_of(b).move.for_class(move_class)
        for name in side.moving:
            f = self.features[name]
            if f.road:
                continue  # a road this class may not follow: the ground beneath counts
            move = f.move
            if f.directional:
                move = f.move_into if self._crossing(f, side, b) else f.move_out_of
            cost = move.for_class(move_class)
            if cost is None or total is None:
                return None
            total += cost
        return total

    def road(self, a: str, b: str) -> bool:
        return any(self.features[f].road for f in self.hexside(a, b).features)

    def strategic(self, a: str, b: str) -> bool:
        """A road or track that carries strategic movement crosses this hexside (9.52)."""
        return any(self.features[f].strategic for f in self.hexside(a, b).features)

    def movement_digraph(self, move_class: str = "") -> nx.DiGraph:
        """Both directions of every hexside a class may cross, weighted by MP."""
        g = nx.DiGraph()
        g.add_nodes_from(self.graph.nodes)
        for a, b in self.graph.edges:
            for x, y in ((a, b), (b, a)):
                cost = self.move_cost(x, y, move_class)
                if cost is not None:
                    g.add_edge(x, y, weight=cost)
        return g

    # ------------------------------------------------------------ zones of control (8.1)

    def zoc_extends(self, a: str, b: str) -> bool:
        """A ZOC from a unit in a extends into adjacent b.

        Terrain and hexside declarations say where it does not: into forest,
        into (but out of) fieldworks, and so on.
        """
        if not (self.terrain_of(a).zoc_out_of and self.terrain_of(b).zoc_into):
            return False
        side = self.hexside(a, b)
        for name in side.features:
            f = self.features[name]
            allowed = (
                f.zoc_into if not f.directional or self._crossing(f, side, b) else f.zoc_out_of
            )
            if not allowed:
                return False
        return True

    # ------------------------------------------------------------ line of sight (11.4)

    def blocks_los(self, label: str) -> bool:
        return self.terrain_of(label).blocks_los

    def slope(self, a: str, b: str) -> tuple[str, int] | None:
        """(up-slope hex, direction from the low hex to it) when a|b is a slope hexside."""
        side = self.hexside(a, b)
        for name in side.features:
            if self.features[name].slope and name in side.marked:
                up = side.marked[name]
                d = self.direction(a, b)
                return up, (d if up == b else opposite(d))
        return None

    def los_range(self) -> int:
        """How far LOS is precomputed: the map's `los_range`, or the longest unit range."""
        ranges = [v for v in unit_attribute(self.rules, RANGE) if isinstance(v, int)]
        return max([self.map.los_range or 0, *ranges])
