"""Hex geometry: `ccrr` labels, offset columns/rows and cube coordinates.

The series maps use flat-topped hexes in north–south columns: the label's
first two digits are the column ("hex row 21xx" is column 21), the last two
the row. Every other column is shifted half a hex down; which ones is a
property of the map (`shifted_columns even|odd`). Distance and neighbours
are exact integer arithmetic in cube coordinates.

Directions are numbered clockwise from north: 0 N, 1 NE, 2 SE, 3 S, 4 SW, 5 NW.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

DIRECTION_NAMES = ("N", "NE", "SE", "S", "SW", "NW")
# Cube (x, y, z) steps for flat-topped hexes, x = column, z grows southward.
CUBE_DIRECTIONS = ((0, 1, -1), (1, 0, -1), (1, -1, 0), (0, -1, 1), (-1, 0, 1), (-1, 1, 0))
LABEL = re.compile(r"^[0-9]{4}$")


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
    def parse(label: str) -> tuple[int, int]:
        """`2115` → (21, 15)."""
        if not LABEL.match(label):
            raise ValueError(f"{label!r} is not a ccrr hex label")
        return int(label[:2]), int(label[2:])

    def contains(self, col: int, row: int) -> bool:
        return self.first_col <= col <= self.last_col and self.first_row <= row <= self.last_row

    def offsets(self) -> list[tuple[int, int]]:
        """Every (col, row) of the grid, column by column."""
        return [
            (c, r)
            for c in range(self.first_col, self.last_col + 1)
            for r in range(self.first_row, self.last_row + 1)
        ]

    # ------------------------------------------------------------ cube coordinates

    def is_shifted(self, col: int) -> bool:
        return col % 2 == self.shifted

    def to_cube(self, col: int, row: int) -> tuple[int, int, int]:
        # A shifted column sits half a hex lower, so its row r lines up with
        # the unshifted columns' rows r and r+1.
        half = (col - (col & 1)) // 2 if self.shifted == 1 else (col + (col & 1)) // 2
        z = row - half
        x = col
        return (x, -x - z, z)

    def from_cube(self, cube: tuple[int, int, int]) -> tuple[int, int]:
        x, _y, z = cube
        col = x
        half = (col - (col & 1)) // 2 if self.shifted == 1 else (col + (col & 1)) // 2
        row = z + half
        return col, row

    def neighbor(self, col: int, row: int, direction: int) -> tuple[int, int]:
        x, y, z = self.to_cube(col, row)
        dx, dy, dz = CUBE_DIRECTIONS[direction]
        return self.from_cube((x + dx, y + dy, z + dz))

    def distance(self, a: tuple[int, int], b: tuple[int, int]) -> int:
        ax, ay, az = self.to_cube(*a)
        bx, by, bz = self.to_cube(*b)
        return max(abs(ax - bx), abs(ay - by), abs(az - bz))

    def direction_to(self, a: tuple[int, int], b: tuple[int, int]) -> int | None:
        """The direction from a to b when they are adjacent, else None."""
        for d in range(6):
            if self.neighbor(*a, d) == b:
                return d
        return None

    # ------------------------------------------------------------ map edges

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


def run_between(grid: Grid, a: str, b: str) -> list[str] | None:
    """Hexes of `a..b`: a run down one column, or the rectangle between two corners."""
    ca, ra = Grid.parse(a)
    cb, rb = Grid.parse(b)
    if ca > cb or ra > rb:
        return None
    return [Grid.label(c, r) for c in range(ca, cb + 1) for r in range(ra, rb + 1)]
