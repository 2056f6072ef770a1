"""Zones of control (8.1): where units project them, from the board's tables.

A unit exerts its ZOC into the adjacent hexes its hex projects into:
`board.zoc_out` already leaves out the sides where terrain or a hexside stops
it (a ZOC extends out of, but not into, forest or fieldworks), as the
ruleset's terrain declares. Which units exert a ZOC at all (Parade Order
combat units, 8.1) is the rules' to say: callers pass those units.
"""

from __future__ import annotations

from engine.rules import BoardSpec
from engine.state import ON_MAP, State
from engine.terrain_state import board_of


def projected(board: BoardSpec, h: int) -> tuple[int, ...]:
    """The hexes a unit in hex h exerts its ZOC into."""
    mask = board.zoc_out[h]
    return tuple(n for d, n in enumerate(board.neighbors[h]) if mask >> d & 1)


def zoc_hexes(s: State, units: tuple[int, ...]) -> frozenset[int]:
    """Every hex in the ZOC of these units (those on the map)."""
    board = board_of(s)
    return frozenset(
        h for u in units if s.unit_status[u] == ON_MAP for h in projected(board, s.unit_hex[u])
    )


def in_zoc_of(s: State, h: int, units: tuple[int, ...]) -> bool:
    """True when hex h lies in the ZOC of one of the units."""
    board = board_of(s)
    for u in units:
        if s.unit_status[u] != ON_MAP:
            continue
        here = s.unit_hex[u]
        nbrs = board.neighbors[here]
        if h in nbrs and board.zoc_out[here] >> nbrs.index(h) & 1:
            return True
    return False
