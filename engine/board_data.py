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
from importlib import resources
from typing import Any

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


class BoardDataError(ValueError):
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
    # The line of sight templates, per column parity: one line per offset from
    # the firer, [[dc, dr], template], in the order `los_index` numbers them.
    parities = []
    for index, templates in zip(board.los_index, board.los_templates, strict=True):
        if list(index.values()) != list(range(len(templates))):
            raise ValueError("LOS templates must be numbered in order, one per offset")
        entries = [[list(offset), templates[i]] for offset, i in index.items()]
        parities.append("[\n" + ",\n".join(" " + _json(e) for e in entries) + "\n]")
    lines.append('"los_templates": [\n' + ",\n".join(parities) + "\n],")
    rows = []
    for h, label in enumerate(board.labels):
        row = [
            label,
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
        rows.append(" " + _json(row))
    return "{\n" + "\n".join(lines) + '\n"hexes": [\n' + ",\n".join(rows) + "\n]}\n"


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
    grid = tuple(data["grid"])
    first_col, last_col, first_row, last_row, shifted = grid
    columns, rows_of = range(first_col, last_col + 1), range(first_row, last_row + 1)
    offsets = [(c, r) for c in columns for r in rows_of]
    rows = data["hexes"]
    labels = tuple(f"{c:02d}{r:02d}" for c, r in offsets)
    if tuple(row[0] for row in rows) != labels:
        raise BoardDataError("the board file's hexes are not its grid's: rebuild the engine")

    def half(col: int) -> int:
        # A shifted column sits half a hex lower: its row r lines up with rows r, r+1.
        return (col - (col & 1)) // 2 if shifted == 1 else (col + (col & 1)) // 2

    def cube(col: int, row: int) -> tuple[int, int, int]:
        z = row - half(col)
        return (col, -col - z, z)

    def hex_at(col: int, row: int) -> int:
        if first_col <= col <= last_col and first_row <= row <= last_row:
            return (col - first_col) * (last_row - first_row + 1) + row - first_row
        return -1

    def neighbors(col: int, row: int) -> tuple[int, ...]:
        x, _y, z = cube(col, row)
        return tuple(hex_at(x + dx, z + dz + half(x + dx)) for dx, _dy, dz in CUBE_DIRECTIONS)

    far = {
        "west": lambda c, r: c - first_col,
        "east": lambda c, r: last_col - c,
        "north": lambda c, r: r - first_row,
        "south": lambda c, r: last_row - r,
    }
    n_classes = len(data["move_classes"])
    return BoardSpec(
        title=title,
        labels=labels,
        grid=grid,
        terrain=tuple(row[1] for row in rows),
        neighbors=tuple(neighbors(c, r) for c, r in offsets),
        hexsides=tuple(tuple(row[2]) for row in rows),
        owned=tuple(tuple(row[3]) for row in rows),
        cube=tuple(cube(c, r) for c, r in offsets),
        columns=tuple(c for c, _r in offsets),
        rows=tuple(r for _c, r in offsets),
        edge_distance={edge: tuple(far[edge](c, r) for c, r in offsets) for edge in EDGES},
        places=places,
        zones=zones,
        move_classes=tuple(data["move_classes"]),
        move_cost=tuple(tuple(tuple(row[4][k]) for row in rows) for k in range(n_classes)),
        road=tuple(row[5] for row in rows),
        strategic=tuple(row[6] for row in rows),
        zoc_out=tuple(row[7] for row in rows),
        los_blocks=tuple(bool(row[8]) for row in rows),
        slope_up=tuple(row[9] for row in rows),
        los_range=data["los_range"],
        los_index=tuple(
            {(dc, dr): i for i, ((dc, dr), _t) in enumerate(parity)}
            for parity in data["los_templates"]
        ),
        los_templates=tuple(tuple(_tuples(t) for _o, t in p) for p in data["los_templates"]),
        los_codes=tuple(tuple(bytes.fromhex(row[10])) for row in rows),
    )


def _tuples(value: Any) -> Any:
    """JSON arrays back into the nested tuples they were written from."""
    if isinstance(value, list):
        return tuple(_tuples(v) for v in value)
    return value
