"""Line of sight with shapely: traces between hex centres, on demand and precomputed.

A trace is the segment from the firer's hex centre to the target's, tested
against hex polygons in the exact integer lattice of `compiler.map.hexmap`, so
shapely's predicates decide without rounding whether the segment crosses a
hex, runs along one of its sides (a spine, 11.44) or only touches a corner.
Those become the *slots* that `engine.los.judge` reads: a hex crossed, or
the two ways around a spine or a corner.

The geometry of a trace depends only on the offset between the two hexes and
on whether the firer's column is shifted, so the table the engine reads
holds one trace per offset and column parity (a template) and, per pair of
hexes within range, a code from terrain and slopes alone. Units are the
dynamic part, added at play time.
"""

from __future__ import annotations

from collections.abc import Container
from dataclasses import dataclass
from functools import cache

from shapely.geometry import LineString, Polygon

from compiler.map.hexmap import Grid, Offset
from compiler.map.model import MapModel
from engine.los import Blocks, Sight, Slope, choices, judge, paths_code
from engine.rules import LosSlot, LosTemplate

Slots = tuple[tuple[tuple[Offset, ...], ...], ...]


@cache
def _polygon(corners: tuple[tuple[int, int], ...]) -> Polygon:
    return Polygon(corners)


def hex_polygon(grid: Grid, h: Offset) -> Polygon:
    return _polygon(tuple(grid.corners(*h)))


def trace(grid: Grid, a: Offset, b: Offset) -> Slots:
    """The slots of the line from a's centre to b's, in order from a (a ≠ b).

    Hexes may lie off the map: a spine along the map edge has one side there.
    """
    (ax, ay), (bx, by) = grid.centre(*a), grid.centre(*b)
    line = LineString([(ax, ay), (bx, by)])
    box = (min(ax, bx) - 2, max(ax, bx) + 2, min(ay, by) - 1, max(ay, by) + 1)
    found: dict[float, list[tuple[Offset, ...]]] = {}
    for h in grid.within(a, grid.distance(a, b)):
        if h in (a, b) or not _in_box(grid.centre(*h), box):
            continue
        polygon = hex_polygon(grid, h)
        alternatives = _alternatives(line.relate(polygon), h)
        if alternatives:
            where = round(line.project(line.intersection(polygon).centroid), 6)
            found.setdefault(where, []).extend(alternatives)
    return tuple(tuple(sorted(set(found[k]))) for k in sorted(found))


def _in_box(centre: tuple[int, int], box: tuple[int, int, int, int]) -> bool:
    """Whether a hex centre lies near enough the trace's bounding box to meet the trace."""
    x, y = centre
    low_x, high_x, low_y, high_y = box
    return low_x <= x <= high_x and low_y <= y <= high_y


def _alternatives(relation: str, h: Offset) -> list[tuple[Offset, ...]]:
    """How a trace meets hex h, from their DE-9IM relation: the ways around it."""
    if relation[0] != "F":
        return [(h,)]  # crosses the hex
    if relation[1] == "1":
        return [(h,)]  # runs along its side: one side of a spine
    if relation[1] == "0":
        return [(h,), ()]  # touches its corner only: around it, or not
    return []


class LosModel:
    """Line of sight on a map model, answered with shapely each time it is asked."""

    def __init__(self, model: MapModel) -> None:
        self.model = model
        self.grid = model.grid

    def label(self, h: Offset) -> str | None:
        return self.grid.label(*h) if self.grid.contains(*h) else None

    def terrain_blocks(self, h: Offset) -> str:
        label = self.label(h)
        if label is None or not self.model.blocks_los(label):
            return ""
        return self.model.terrain_of(label).title

    def slope(self, p: Offset, q: Offset) -> tuple[Offset, int] | None:
        lp, lq = self.label(p), self.label(q)
        if lp is None or lq is None:
            return None
        found = self.model.slope(lp, lq)
        return None if found is None else (Grid.parse(found[0]), found[1])

    def sight(self, a: str, b: str, occupied: Container[str] = ()) -> Sight:
        """Clear or blocked, and why: hexes in the answer are (col, row) offsets."""
        ha, hb = Grid.parse(a), Grid.parse(b)
        if self.grid.distance(ha, hb) <= 1:
            return Sight(True)

        def blocks(h: Offset) -> str:
            label = self.label(h)
            return "combat units" if label in occupied else self.terrain_blocks(h)

        return judge(ha, hb, trace(self.grid, ha, hb), blocks, self.slope)


@dataclass(frozen=True, slots=True)
class LosTables:
    """The precomputed line of sight that `engine.los` reads (see `BoardSpec`)."""

    radius: int
    index: tuple[dict[Offset, int], ...]
    templates: tuple[tuple[LosTemplate, ...], ...]
    codes: tuple[tuple[int, ...], ...]


def los_tables(model: MapModel) -> LosTables:
    """Templates per column parity, and the code of every pair within the LOS range."""
    grid, radius = model.grid, model.los_range()
    los = LosModel(model)
    # Each hex and hexside is asked about by many pairs: answered once each.
    blocks, slope = cache(los.terrain_blocks), cache(los.slope)
    offsets, templates = zip(*(_templates(grid, radius, parity) for parity in (0, 1)), strict=True)
    index = tuple({off: i for i, off in enumerate(here)} for here in offsets)
    codes = []
    for col, row in grid.offsets():
        parity = 1 if grid.is_shifted(col) else 0
        pairs = zip(offsets[parity], templates[parity], strict=True)
        codes.append(tuple(_code(grid, blocks, slope, (col, row), off, t) for off, t in pairs))
    return LosTables(radius, index, tuple(templates), tuple(codes))


def _templates(
    grid: Grid, radius: int, parity: int
) -> tuple[list[Offset], tuple[LosTemplate, ...]]:
    """The offsets within range of a hex of one column parity (beyond its neighbours),
    and the trace to each with the choices it leaves."""
    origin = (grid.shifted if parity else 1 - grid.shifted, 0)
    entries: list[LosTemplate] = []
    here: list[Offset] = []
    for h in grid.within(origin, radius):
        if grid.distance(origin, h) < 2:
            continue
        slots = _relative(trace(grid, origin, h), origin)
        here.append((h[0] - origin[0], h[1] - origin[1]))
        entries.append((slots, tuple(choices(slots))))
    return here, tuple(entries)


def _code(
    grid: Grid,
    blocks: Blocks[Offset],
    slope: Slope[Offset],
    a: Offset,
    off: Offset,
    template: LosTemplate,
) -> int:
    """The code of the sight from a to the hex at offset `off` (0 off the map): the
    template's choices, kept relative to a, moved to a."""
    col, row = a
    b = (col + off[0], row + off[1])
    if not grid.contains(*b):
        return 0
    paths = [(a, *[(col + c, row + r) for c, r in middle], b) for middle in template[1]]
    return paths_code(paths, blocks, slope)


def _relative(slots: Slots, origin: Offset) -> tuple[LosSlot, ...]:
    oc, orow = origin
    return tuple(tuple(tuple((c - oc, r - orow) for c, r in alt) for alt in slot) for slot in slots)
