"""Run-time questions about the map: hex ids, rows and columns, movement costs.

The compiler's map model turns terrain and hexsides into `BoardSpec` tables;
this module only reads them. Movement costs are precomputed per movement
class, hex and direction (9.4, 9.51), so a step's cost is one tuple look-up.

The unit attributes the map reads are named here, once: a designer declares
them (`attribute move_class …`) and sets them on unit types (`move_class
artillery`, `range 4`, `indirect_fire yes`); the compiler and engine both use
these names.
"""

from __future__ import annotations

from engine.rules import BoardSpec, Rules

PROHIBITED = -1
DIRECTIONS = 6  # hexsides of a hex, clockwise from north
MOVE_CLASS = "move_class"  # which per-class column of the TEC a unit pays
RANGE = "range"  # how far a unit fires (11.2)
INDIRECT_FIRE = "indirect_fire"  # fires without line of sight (howitzers)


def hex_at(board: BoardSpec, col: int, row: int) -> int:
    """The id of the hex at (col, row), or -1 off the map."""
    first_col, last_col, first_row, last_row, _shifted = board.grid
    if first_col <= col <= last_col and first_row <= row <= last_row:
        return (col - first_col) * (last_row - first_row + 1) + row - first_row
    return -1


def parity(board: BoardSpec, h: int) -> int:
    """1 when the hex's column is one of the shifted ones, else 0."""
    return 1 if board.columns[h] % 2 == board.grid[4] else 0


def direction(board: BoardSpec, a: int, b: int) -> int:
    """The direction from a to adjacent b, or -1 when they are not adjacent."""
    nbrs = board.neighbors[a]
    return nbrs.index(b) if b in nbrs else -1


def _class_index(rules: Rules, u: int) -> int:
    values = rules.unit_props.get(MOVE_CLASS)
    name = values[u] if values is not None else ""
    classes = rules.board.move_classes
    return classes.index(name) if name in classes else 0


# Per compiled rules (by identity, the rules kept so the id stays theirs): each
# unit's movement class and cost table. A step's cost is asked for every
# direction of every unit at every decision.
_COST_TABLES: dict[int, tuple[Rules, tuple[int, ...], tuple]] = {}


def _tables(rules: Rules) -> tuple[Rules, tuple[int, ...], tuple]:
    found = _COST_TABLES.get(id(rules))
    if found is None or found[0] is not rules:
        classes = tuple(_class_index(rules, u) for u in range(len(rules.units)))
        costs = tuple(rules.board.move_cost[c] for c in classes)
        found = _COST_TABLES[id(rules)] = (rules, classes, costs)
    return found


def unit_costs(rules: Rules) -> tuple:
    """Each unit's cost table on the printed map (`[u][a][d]`, as `step_cost`)."""
    return _tables(rules)[2]


def move_class(rules: Rules, u: int) -> int:
    """The index in `board.move_classes` of the class a unit moves as (0: none)."""
    return _tables(rules)[1][u]


def step_cost(rules: Rules, u: int, a: int, d: int, board: BoardSpec | None = None) -> int:
    """MP for unit u to step from hex a in direction d, terrain only; PROHIBITED if it may not.

    `board` is the map as it stands when the rules changed its terrain in play
    (`engine.terrain_state.board_of`); the printed map's costs are kept per unit.
    """
    found = _COST_TABLES.get(id(rules))
    if found is None or found[0] is not rules:
        found = _tables(rules)
    if board is None or board is rules.board:
        return found[2][u][a][d]
    return board.move_cost[found[1][u]][a][d]


def unit_range(rules: Rules, u: int) -> int:
    values = rules.unit_props.get(RANGE)
    return values[u] if values is not None else 0


def fires_indirectly(rules: Rules, u: int) -> bool:
    values = rules.unit_props.get(INDIRECT_FIRE)
    return bool(values[u]) if values is not None else False
