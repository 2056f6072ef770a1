"""The map model: a networkx graph of a ruleset's map, and what the rules read from it.

One node per hex (its terrain, the map edges it lies on, places and entry
hexes), one edge per adjacent pair (the hexside: its features as written,
the combined types present, 9.4, and which hex a directional feature belongs
to). From it come movement costs (9.4, 9.51), roads for strategic movement
(9.52), ZOC projection (8.1) and the slopes and blocking hexes of line of
sight (11.4). The run-time tables (`compiler.map.board`), the LOS tables
(`compiler.map.los`), the rendered map and the `muster los`/`path` commands all
read this one model. networkx stays here, at build time.

The checks across declarations that this model depends on are in
`compiler.map.checks`, which `muster check` runs without importing networkx.
"""

from __future__ import annotations

from dataclasses import dataclass

import networkx as nx

from compiler import ir
from compiler.check.maps import grid_of
from compiler.map.checks import move_classes, unit_attribute
from compiler.map.hexmap import Grid, opposite
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
        """One node per hex, one edge per pair of adjacent hexes."""
        g = nx.Graph()
        for col, row in self.grid.offsets():
            g.add_node(self.grid.label(col, row), **self._hex_data(col, row))
        for col, row in self.grid.offsets():
            a = self.grid.label(col, row)
            for b in self._later_neighbors(col, row):
                g.add_edge(
                    a, b, side=self._hexside(self.map.hexsides.get((min(a, b), max(a, b)), {}))
                )
        return g

    def _hex_data(self, col: int, row: int) -> dict[str, object]:
        """A hex's node: its terrain, the map edges it lies on, its places and entries."""
        m = self.map
        label = self.grid.label(col, row)
        here = [p for p in m.places if p.hex == label]
        return {
            "col": col,
            "row": row,
            "terrain": m.terrain.get(label, m.default),
            "edges": self.grid.edges_of(col, row),
            "places": tuple(p.name for p in here),
            "victory": any(p.victory for p in here),
            "entries": self._entries_at(label),
        }

    def _entries_at(self, label: str) -> tuple[str, ...]:
        """The entries (where reinforcements come on) that include a hex."""
        return tuple(z.name for z in self.map.zones if z.kind == "entry" and label in z.hexes)

    def _later_neighbors(self, col: int, row: int) -> list[str]:
        """The neighbours to the NE, SE and S on the map: each pair of hexes once."""
        out = []
        for d in (1, 2, 3):
            nc, nr = self.grid.neighbor(col, row, d)
            if self.grid.contains(nc, nr):
                out.append(self.grid.label(nc, nr))
        return out

    def _hexside(self, written: dict[str, str]) -> Hexside:
        """What is on a hexside: a ford or bridge cancels the creek it replaces (and so
        any combined type the creek would be part of); a combined type stands for its
        parts (9.4)."""
        present = [f for f in self.features if f in written]
        marked = {f: h for f, h in written.items() if h}
        cancelled = self._replaced(present)
        for f in self.features.values():
            if _combines_here(f, written, cancelled):
                present.append(f.name)
                cancelled.update(f.combines)
                marked.update(_combined_owner(f, written))
        moving = tuple(f for f in present if f not in cancelled)
        return Hexside(tuple(present), marked, moving)

    def _replaced(self, present: list[str]) -> set[str]:
        """The features that those present replace (a creek under its ford)."""
        return {r for f in present for r in self.features[f].replaces}

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
        if any(self.features[f].unless for f in side.features):
            return None  # impassable until the terrain change that opens it is made
        road = self._road_cost(side, move_class)
        if road is not None:
            return road
        total = self.terrain_of(b).move.for_class(move_class)
        for name in side.moving:
            f = self.features[name]
            if f.road:
                continue  # a road this class may not follow: the ground beneath counts
            cost = self._crossing_cost(f, side, b).for_class(move_class)
            if cost is None or total is None:
                return None
            total += cost
        return total

    def _road_cost(self, side: Hexside, move_class: str) -> int | None:
        """The cheapest road along this hexside the class may follow, if any (9.51)."""
        roads = (self.features[f] for f in side.features if self.features[f].road)
        costs = [c for f in roads if (c := f.move.for_class(move_class)) is not None]
        return min(costs) if costs else None

    def _crossing_cost(self, f: ir.HexsideFeature, side: Hexside, into: str) -> ir.MoveCost:
        """A feature's cost to cross into `into`: a directional one's depends on the way."""
        if not f.directional:
            return f.move
        return f.move_into if self._crossing(f, side, into) else f.move_out_of

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
        if any(self.features[name].unless for name in side.features):
            return False  # no ZOC across a hexside no unit may cross (until it opens)
        return all(self._zoc_crosses(self.features[name], side, b) for name in side.features)

    def _zoc_crosses(self, f: ir.HexsideFeature, side: Hexside, into: str) -> bool:
        """Whether a ZOC crosses feature f into `into` (a directional one: by the way)."""
        if not f.directional or self._crossing(f, side, into):
            return f.zoc_into
        return f.zoc_out_of

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


def _combines_here(f: ir.HexsideFeature, written: dict[str, str], cancelled: set[str]) -> bool:
    """Whether a combined type stands on a hexside: all its parts are, none cancelled."""
    parts = f.combines
    return bool(parts) and all(c in written and c not in cancelled for c in parts)


def _combined_owner(f: ir.HexsideFeature, written: dict[str, str]) -> dict[str, str]:
    """A combined type belongs to the hex its first directional part belongs to."""
    owner = next((written[c] for c in f.combines if written[c]), "")
    return {f.name: owner} if owner else {}
