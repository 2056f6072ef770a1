"""The board's tables as a data file beside a generated package (`board.json`).

What the map model derives from a battle's `map.mst` (terrain ids, hexside
features, movement costs, roads, ZOC, slopes, the line of sight table) is
written once per hex, one line each, so a one-hex map edit changes a few
lines a reviewer can read, not thousands of lines of Python literals. What
is plain hex-grid arithmetic (labels, neighbours, cube coordinates, columns,
rows, distances from the map edges) is not written at all: it is worked out
here when the package is imported, from the grid alone. The compiler writes
the file with `board_text`; a generated package reads it with `read_board`,
and both directions keep `BoardSpec` exactly as the map model built it (a
test checks the round trip on every shipped map).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from typing import Any

from engine.errors import BadInput
from engine.rules import BoardSpec

FORMAT = "muster.board/1"
FILE = "board.json"
EDGES = ("west", "east", "north", "south")
# Cube (x, y, z) steps by direction, clockwise from north (flat-topped hexes).
CUBE_DIRECTIONS = ((0, 1, -1), (1, 0, -1), (1, -1, 0), (0, -1, 1), (-1, 0, 1), (-1, 1, 0))
# What each hex's line holds, in order (the file names them too).
COLUMNS = (
    "label",
    "terrain",
    "hexsides",
    "owned",
    "move_cost",
    "road",
    "strategic",
    "zoc_out",
    "los_blocks",
    "slope_up",
    "los_codes",
)


class BoardDataError(BadInput):
    """A board file this engine cannot read (another format, or not the grid's hexes)."""


def board_text(board: BoardSpec) -> str:
    """The data file of a board: a short head, then one line per hex in id order."""
    head = {
        "format": FORMAT,
        "grid": board.grid,
        "move_classes": board.move_classes,
        "los_range": board.los_range,
        "columns": COLUMNS,
    }
    lines = [f"{json.dumps(k)}: {_json(v)}," for k, v in head.items()]
    parities = [
        _los_parity_text(i, t) for i, t in zip(board.los_index, board.los_templates, strict=True)
    ]
    lines.append('"los_templates": [\n' + ",\n".join(parities) + "\n],")
    rows = [" " + _json(_hex_row(board, h)) for h in range(len(board.labels))]
    return "{\n" + "\n".join(lines) + '\n"hexes": [\n' + ",\n".join(rows) + "\n]}\n"


def _los_parity_text(index: dict[tuple[int, int], int], templates: tuple) -> str:
    """The line of sight templates of one column parity: one line per offset from
    the firer, [[dc, dr], template], in the order `los_index` numbers them."""
    if list(index.values()) != list(range(len(templates))):
        raise ValueError("LOS templates must be numbered in order, one per offset")
    entries = [[list(offset), templates[i]] for offset, i in index.items()]
    return "[\n" + ",\n".join(" " + _json(e) for e in entries) + "\n]"


def _hex_row(board: BoardSpec, h: int) -> list[Any]:
    """What a hex's line holds, in `COLUMNS` order."""
    return [
        board.labels[h],
        board.terrain[h],
        board.hexsides[h],
        board.owned[h],
        [costs[h] for costs in board.move_cost],
        board.road[h],
        board.strategic[h],
        board.zoc_out[h],
        int(board.los_blocks[h]),
        board.slope_up[h],
        bytes(board.los_codes[h]).hex(),
    ]


def _json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def read_board(package: str, title: str, places: dict[str, int], zones: dict) -> BoardSpec:
    """The board of a generated package, from the `board.json` beside its code."""
    text = resources.files(package).joinpath(FILE).read_text(encoding="utf-8")
    return board_from_text(text, title, places, zones)


def board_from_text(
    text: str, title: str, places: dict[str, int], zones: dict[str, frozenset[int]]
) -> BoardSpec:
    """A `BoardSpec` from a board file's text and what the rules module holds itself."""
    data = json.loads(text)
    if data.get("format") != FORMAT or tuple(data.get("columns", ())) != COLUMNS:
        raise BoardDataError(f"not a {FORMAT} board file: rebuild the engine (`muster build`)")
    grid = _Grid(*data["grid"])
    rows = data["hexes"]
    if tuple(row[0] for row in rows) != grid.labels():
        raise BoardDataError("the board file's hexes are not its grid's: rebuild the engine")
    return BoardSpec(
        title=title,
        places=places,
        zones=zones,
        move_classes=tuple(data["move_classes"]),
        los_range=data["los_range"],
        **grid.tables(),
        **_hex_tables(rows, len(data["move_classes"])),
        **_los_tables(data["los_templates"]),
    )


@dataclass(frozen=True)
class _Grid:
    """The hex-grid arithmetic of a board, worked out from its grid alone."""

    first_col: int
    last_col: int
    first_row: int
    last_row: int
    shifted: int

    def offsets(self) -> list[tuple[int, int]]:
        """(column, row) of every hex, in id order."""
        rows = range(self.first_row, self.last_row + 1)
        return [(c, r) for c in range(self.first_col, self.last_col + 1) for r in rows]

    def labels(self) -> tuple[str, ...]:
        return tuple(f"{c:02d}{r:02d}" for c, r in self.offsets())

    def half(self, col: int) -> int:
        """A shifted column sits half a hex lower: its row r lines up with rows r, r+1."""
        if self.shifted == 1:
            return (col - (col & 1)) // 2
        return (col + (col & 1)) // 2

    def cube(self, col: int, row: int) -> tuple[int, int, int]:
        z = row - self.half(col)
        return (col, -col - z, z)

    def hex_at(self, col: int, row: int) -> int:
        """The id of the hex at (col, row), or -1 off the map."""
        if self.first_col <= col <= self.last_col and self.first_row <= row <= self.last_row:
            return (
                (col - self.first_col) * (self.last_row - self.first_row + 1) + row - self.first_row
            )
        return -1

    def neighbors(self, col: int, row: int) -> tuple[int, ...]:
        x, _y, z = self.cube(col, row)
        return tuple(
            self.hex_at(x + dx, z + dz + self.half(x + dx)) for dx, _dy, dz in CUBE_DIRECTIONS
        )

    def edge_distances(self, offsets: list[tuple[int, int]]) -> dict[str, tuple[int, ...]]:
        """How many hexes lie between each hex and each map edge (`EDGES` order)."""
        return {
            "west": tuple(c - self.first_col for c, _r in offsets),
            "east": tuple(self.last_col - c for c, _r in offsets),
            "north": tuple(r - self.first_row for _c, r in offsets),
            "south": tuple(self.last_row - r for _c, r in offsets),
        }

    def tables(self) -> dict[str, Any]:
        """The `BoardSpec` fields the grid alone gives."""
        offsets = self.offsets()
        return {
            "grid": (self.first_col, self.last_col, self.first_row, self.last_row, self.shifted),
            "labels": self.labels(),
            "neighbors": tuple(self.neighbors(c, r) for c, r in offsets),
            "cube": tuple(self.cube(c, r) for c, r in offsets),
            "columns": tuple(c for c, _r in offsets),
            "rows": tuple(r for _c, r in offsets),
            "edge_distance": self.edge_distances(offsets),
        }


def _hex_tables(rows: list[list[Any]], n_classes: int) -> dict[str, Any]:
    """The `BoardSpec` fields read from the hexes' lines, column by column (`COLUMNS`)."""
    column = dict(zip(COLUMNS, zip(*rows, strict=True), strict=True))
    costs = column["move_cost"]
    return {
        "terrain": column["terrain"],
        "hexsides": tuple(map(tuple, column["hexsides"])),
        "owned": tuple(map(tuple, column["owned"])),
        "move_cost": tuple(tuple(tuple(c[k]) for c in costs) for k in range(n_classes)),
        "road": column["road"],
        "strategic": column["strategic"],
        "zoc_out": column["zoc_out"],
        "los_blocks": tuple(map(bool, column["los_blocks"])),
        "slope_up": column["slope_up"],
        "los_codes": tuple(tuple(bytes.fromhex(c)) for c in column["los_codes"]),
    }


def _los_tables(parities: list[list[Any]]) -> dict[str, Any]:
    """The line of sight templates, per column parity, and their index by offset."""
    return {
        "los_index": tuple(
            {(dc, dr): i for i, ((dc, dr), _t) in enumerate(parity)} for parity in parities
        ),
        "los_templates": tuple(tuple(_tuples(t) for _o, t in p) for p in parities),
    }


def _tuples(value: Any) -> Any:
    """JSON arrays back into the nested tuples they were written from."""
    if isinstance(value, list):
        return tuple(_tuples(v) for v in value)
    return value
