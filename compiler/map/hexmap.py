"""Hex geometry: `ccrr` labels, offset columns/rows, cube and lattice coordinates.

The series maps use flat-topped hexes in north–south columns: the label's
first two digits are the column ("hex row 21xx" is column 21), the last two
the row. Every other column is shifted half a hex down; which ones is a
property of the map (`shifted_columns even|odd`).

Everything here is exact integer arithmetic:

- *cube* coordinates (x, y, z), x + y + z = 0, for distance and neighbours;
- *lattice* coordinates for drawing and line of sight: the plane scaled by
  half a hex's corner radius across and half its height down, so that every
  hex centre and every hex corner has integer coordinates. A hex's centre is
  (3·col, 2·row + shift) and its corners are the centre plus (±2, 0) and
  (±1, ±1). The scaling is affine, so whether a line crosses a hex, touches a
  corner or runs along a hexside is the same as on the printed map; only
  lengths and angles differ, and `PIXEL_SCALE` undoes them for drawing.

Directions are numbered clockwise from north: 0 N, 1 NE, 2 SE, 3 S, 4 SW, 5 NW.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass

DIRECTION_NAMES = ("N", "NE", "SE", "S", "SW", "NW")
# Cube (x, y, z) steps for flat-topped hexes, x = column, z grows southward.
CUBE_DIRECTIONS = ((0, 1, -1), (1, 0, -1), (1, -1, 0), (0, -1, 1), (-1, 0, 1), (-1, 1, 0))
LABEL = re.compile(r"^[0-9]{4}$")
# A hex's corners relative to its centre in lattice coordinates, clockwise
# from the east corner (y grows southward). The hexside in direction d joins
# corners (d + 4) % 6 and (d + 5) % 6.
CORNERS = ((2, 0), (1, 1), (-1, 1), (-2, 0), (-1, -1), (1, -1))
# Lattice units → real lengths for a hex of corner radius 1: x × 1/2, y × √3/2.
PIXEL_SCALE = (0.5, math.sqrt(3) / 2)
EDGES = ("west", "east", "north", "south")

Offset = tuple[int, int]
Point = tuple[int, int]


def opposite(direction: int) -> int:
    return (direction + 3) % 6


@dataclass(frozen=True, slots=True)
class Grid:
    """A rectangular grid of columns × rows with one column parity shifted down."""

    first_col: int
    last_col: int
    first_row: int
    last_row: int
    shifted: int  # 0: even columns shifted down half a hex, 1: odd columns

    # ------------------------------------------------------------ labels

    @staticmethod
    def label(col: int, row: int) -> str:
        return f"{col:02d}{row:02d}"

    @staticmethod
    def parse(label: str) -> Offset:
        """`2115` → (21, 15)."""
        if not LABEL.match(label):
            raise ValueError(f"{label!r} is not a ccrr hex label")
        return int(label[:2]), int(label[2:])

    def contains(self, col: int, row: int) -> bool:
        return self.first_col <= col <= self.last_col and self.first_row <= row <= self.last_row

    def offsets(self) -> list[Offset]:
        """Every (col, row) of the grid, column by column: the order of hex ids."""
        return [
            (c, r)
            for c in range(self.first_col, self.last_col + 1)
            for r in range(self.first_row, self.last_row + 1)
        ]

    @property
    def n_rows(self) -> int:
        return self.last_row - self.first_row + 1

    # ------------------------------------------------------------ cube coordinates

    def is_shifted(self, col: int) -> bool:
        return col % 2 == self.shifted

    def _half(self, col: int) -> int:
        # A shifted column sits half a hex lower, so its row r lines up with
        # the unshifted columns' rows r and r+1.
        return (col - (col & 1)) // 2 if self.shifted == 1 else (col + (col & 1)) // 2

    def to_cube(self, col: int, row: int) -> tuple[int, int, int]:
        z = row - self._half(col)
        return (col, -col - z, z)

    def from_cube(self, cube: tuple[int, int, int]) -> Offset:
        x, _y, z = cube
        return x, z + self._half(x)

    def neighbor(self, col: int, row: int, direction: int) -> Offset:
        x, y, z = self.to_cube(col, row)
        dx, dy, dz = CUBE_DIRECTIONS[direction]
        return self.from_cube((x + dx, y + dy, z + dz))

    def neighbors(self, col: int, row: int) -> list[Offset]:
        """The six neighbours, by direction, on the map or not."""
        return [self.neighbor(col, row, d) for d in range(6)]

    def distance(self, a: Offset, b: Offset) -> int:
        ax, ay, az = self.to_cube(*a)
        bx, by, bz = self.to_cube(*b)
        return max(abs(ax - bx), abs(ay - by), abs(az - bz))

    def direction_to(self, a: Offset, b: Offset) -> int | None:
        """The direction from a to b when they are adjacent, else None."""
        for d in range(6):
            if self.neighbor(*a, d) == b:
                return d
        return None

    def within(self, centre: Offset, radius: int) -> Iterator[Offset]:
        """Every hex (on the map or not) at distance ≤ radius, in cube order."""
        x, y, z = self.to_cube(*centre)
        for dx in range(-radius, radius + 1):
            for dz in range(max(-radius, -dx - radius), min(radius, -dx + radius) + 1):
                yield self.from_cube((x + dx, y - dx - dz, z + dz))

    # ------------------------------------------------------------ lattice coordinates

    def centre(self, col: int, row: int) -> Point:
        """The hex centre in lattice coordinates (integers; see the module docstring)."""
        return 3 * col, 2 * row + (1 if self.is_shifted(col) else 0)

    def at_centre(self, point: Point) -> Offset:
        """The hex whose centre is this lattice point (the inverse of `centre`)."""
        x, y = point
        col = x // 3
        return col, (y - (1 if self.is_shifted(col) else 0)) // 2

    def corners(self, col: int, row: int) -> list[Point]:
        cx, cy = self.centre(col, row)
        return [(cx + dx, cy + dy) for dx, dy in CORNERS]

    def hexside_ends(self, col: int, row: int, direction: int) -> tuple[Point, Point]:
        """The two corners of the hexside between a hex and its neighbour in `direction`."""
        cx, cy = self.centre(col, row)
        (ax, ay), (bx, by) = CORNERS[(direction + 4) % 6], CORNERS[(direction + 5) % 6]
        return (cx + ax, cy + ay), (cx + bx, cy + by)

    # ------------------------------------------------------------ map edges and hex rows

    def on_edge(self, col: int, row: int, edge: str) -> bool:
        if edge == "west":
            return col == self.first_col
        if edge == "east":
            return col == self.last_col
        if edge == "north":
            return row == self.first_row
        if edge == "south":
            return row == self.last_row
        raise ValueError(f"unknown map edge {edge!r}")

    def edges_of(self, col: int, row: int) -> tuple[str, ...]:
        """The map edges a hex lies on, in EDGES order."""
        return tuple(e for e in EDGES if self.on_edge(col, row, e))


def run_between(grid: Grid, a: str, b: str) -> list[str] | None:
    """Hexes of `a..b`: a run down one column, or the rectangle between two corners."""
    ca, ra = Grid.parse(a)
    cb, rb = Grid.parse(b)
    if ca > cb or ra > rb:
        return None
    return [Grid.label(c, r) for c in range(ca, cb + 1) for r in range(ra, rb + 1)]
