"""Zones of control (8.1) and their cost to movement (8.31), from the board's tables.

Combat units exert a ZOC into the adjacent hexes their hex projects into:
`board.zoc_out` already leaves out the sides where terrain or a hexside
stops it (a ZOC extends out of, but not into, forest or fieldworks), as the
ruleset's terrain declares. Which units lose their ZOC (disrupted, shattered)
is not yet part of the state; every combat unit on the map exerts one.
"""

from __future__ import annotations

from engine.board import ZOC_COST
from engine.rules import BoardSpec
from engine.state import ON_MAP, State


def projected(board: BoardSpec, h: int) -> tuple[int, ...]:
    """The hexes a unit in hex h exerts its ZOC into."""
    mask = board.zoc_out[h]
    return tuple(n for d, n in enumerate(board.neighbors[h]) if mask >> d & 1)


def _exerting(s: State, side: int) -> list[int]:
    rules = s.game.rules
    return [
        u
        for u, spec in enumerate(rules.units)
        if spec.side == side and spec.kind == "unit" and s.unit_status[u] == ON_MAP
    ]


def zoc_hexes(s: State, side: int) -> frozenset[int]:
    """Every hex in the ZOC of `side`'s combat units."""
    board = s.game.rules.board
    return frozenset(h for u in _exerting(s, side) for h in projected(board, s.unit_hex[u]))


def zoc_costs(s: State, side: int) -> dict[int, int]:
    """Hex → extra MP to enter or leave it, from `side`'s units with a `zoc_cost` (8.31)."""
    rules = s.game.rules
    costs = rules.unit_props.get(ZOC_COST)
    out: dict[int, int] = {}
    if costs is None:
        return out
    for u in _exerting(s, side):
        if costs[u] > 0:
            for h in projected(rules.board, s.unit_hex[u]):
                out[h] = max(out.get(h, 0), costs[u])
    return out


def zoc_step_cost(costs: dict[int, int], a: int, b: int) -> int:
    """Extra MP for a step from a to b: entering or leaving such a ZOC costs its amount once."""
    return max(costs.get(a, 0), costs.get(b, 0))
