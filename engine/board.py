"""Run-time questions about the map: costs of moving between hexes.

The compiler's map model turns terrain and hexsides into `BoardSpec` tables;
this module reads them. A road across a hexside sets the whole cost of the
step (9.51); otherwise the hex's terrain cost and the costs of the hexside's
features add up (9.4).
"""

from __future__ import annotations

from engine.rules import Rules

PROHIBITED = -1


def step_cost(rules: Rules, a: int, direction: int) -> int:
    """MP to move from hex a to its neighbour in `direction`, or PROHIBITED."""
    board = rules.board
    b = board.neighbors[a][direction]
    if b < 0:
        return PROHIBITED
    features = board.hexsides[a][direction]
    cost = rules.terrain[board.terrain[b]].move
    if cost < 0:
        return PROHIBITED
    road_cost = None
    extra = 0
    f = 0
    while features:
        if features & 1:
            spec = rules.hexside_features[f]
            if spec.move < 0:
                return PROHIBITED
            if spec.road:
                road_cost = spec.move if road_cost is None else min(road_cost, spec.move)
            else:
                extra += spec.move
        features >>= 1
        f += 1
    if road_cost is not None:
        return road_cost
    return cost + extra
