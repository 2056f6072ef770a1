"""The board's HexGrid: grid parameters that put every `ccrr` hex where the renderer drew it.

VASSAL's `HexGrid sideways="false"` has flat-topped hexes in columns `dx`
apart, centres `dy` apart down a column, and every odd grid column (counted
from 0) half a hex lower. `HexGridNumbering` names grid column i `hOff + i`
and grid row j `vOff + j`, two digits each, column first: the rulebook's
`ccrr`. A map whose even columns sit lower starts numbering at 1; one whose
odd columns sit lower starts at 0, with the grid's first column one column
left of the map (FORMAT.md, "Hex grid with xxyy numbering").

`x0` and `y0` are whole pixels in VASSAL; the half pixel lost in rounding is
the only difference between the grid and the drawing (a test holds it under
1 px in every corner and the middle of each map).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from compiler.backends.map_render import MapRenderer
from compiler.map.hexmap import Grid


@dataclass(frozen=True, slots=True)
class HexGridGeometry:
    x0: int
    y0: int
    dx: float
    dy: float
    h_off: int  # the number of grid column 0
    v_off: int  # the number of grid row 0

    def centre(self, label: str) -> tuple[float, float]:
        """The pixel centre of hex `ccrr` as VASSAL computes it from these parameters."""
        col, row = Grid.parse(label)
        i, j = col - self.h_off, row - self.v_off
        return self.x0 + i * self.dx, self.y0 + j * self.dy + (self.dy / 2 if i % 2 else 0.0)

    def point(self, label: str) -> tuple[int, int]:
        """The whole-pixel point VASSAL snaps a piece in hex `ccrr` to (it truncates, as Java's
        int casts do), so a counter dropped on a set-up stack joins it."""
        col, row = Grid.parse(label)
        i, j = col - self.h_off, row - self.v_off
        x = int(self.dx * i + self.x0)
        y = (
            int(self.dy * j + self.y0)
            if i % 2 == 0
            else int(self.dy * j + int(self.dy / 2) + self.y0)
        )
        return x, y


def grid_of(renderer: MapRenderer) -> HexGridGeometry:
    """The grid parameters matching the renderer's drawing of its map."""
    grid = renderer.grid
    # Even columns shifted down (shifted == 0): numbering from 1 makes the
    # shifted columns the odd grid columns; odd columns shifted: from 0.
    h_off = 1 if grid.shifted == 0 else 0
    v_off = grid.first_row
    r = renderer.radius
    dx, dy = 1.5 * r, math.sqrt(3) * r
    col, row = grid.first_col, grid.first_row
    cx, cy = renderer.centre(Grid.label(col, row))
    i = col - h_off
    x0 = cx - i * dx
    y0 = cy - (row - v_off) * dy - (dy / 2 if i % 2 else 0.0)
    return HexGridGeometry(round(x0), round(y0), dx, dy, h_off, v_off)
