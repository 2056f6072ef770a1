"""Cheapest moves over the board's tables: reachable hexes, paths, strategic movement.

Dijkstra on integer hex ids with the precomputed step costs of one movement
class. A unit may always move one hex when nothing prohibits it (9.1), must
stop on entering a hex in `stop` (an enemy ZOC, 8.31) and never enters a hex
in `closed` (enemy units, 9.2). `extra` adds MP per step (ZOC costs, 8.31).
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Container

from engine.rules import BoardSpec

NOTHING: frozenset[int] = frozenset()


def _search(
    board: BoardSpec,
    start: int,
    budget: int,
    move_class: int,
    closed: Container[int],
    stop: Container[int],
    extra: Callable[[int, int], int] | None,
    only: tuple[int, ...] | None,
    goal: int = -1,
) -> tuple[dict[int, int], dict[int, int]]:
    """Costs and predecessors of every hex reachable within `budget` MP."""
    costs = board.move_cost[move_class]
    best = {start: 0}
    came: dict[int, int] = {}
    heap = [(0, start)]
    while heap:
        spent, h = heapq.heappop(heap)
        if spent > best[h] or h == goal:
            continue
        if h != start and h in stop:
            continue
        allowed = 0b111111 if only is None else only[h]
        for d, n in enumerate(board.neighbors[h]):
            step = costs[h][d]
            if step < 0 or not allowed >> d & 1 or n in closed:
                continue
            step += extra(h, n) if extra is not None else 0
            total = spent + step
            if total > budget and h != start:
                continue
            if total < best.get(n, total + 1):
                best[n] = total
                came[n] = h
                heapq.heappush(heap, (total, n))
    return best, came


def reachable(
    board: BoardSpec,
    start: int,
    allowance: int,
    move_class: int = 0,
    closed: Container[int] = NOTHING,
    stop: Container[int] = NOTHING,
    extra: Callable[[int, int], int] | None = None,
) -> dict[int, int]:
    """Every hex a unit can reach this turn, with the MP it costs (the start at 0)."""
    return _search(board, start, allowance, move_class, closed, stop, extra, None)[0]


def strategic_reachable(
    board: BoardSpec,
    start: int,
    allowance: int,
    move_class: int = 0,
    near_enemy: Container[int] = NOTHING,
) -> dict[int, int]:
    """Hexes reachable by strategic movement (9.52): twice the allowance, every hexside
    crossed along a road or track, never beginning in or entering a hex in `near_enemy`
    (hexes adjacent to enemy units)."""
    if start in near_enemy:
        return {start: 0}
    found = _search(
        board, start, 2 * allowance, move_class, near_enemy, NOTHING, None, board.strategic
    )[0]
    # Strategic movement has no one-hex minimum: drop a first step beyond the allowance.
    return {h: c for h, c in found.items() if c <= 2 * allowance}


def cheapest_path(
    board: BoardSpec,
    start: int,
    goal: int,
    move_class: int = 0,
    closed: Container[int] = NOTHING,
) -> tuple[int, list[int]] | None:
    """The cheapest path from start to goal over any number of turns, and its MP cost."""
    best, came = _search(board, start, 1 << 30, move_class, closed, NOTHING, None, None, goal)
    if goal not in best:
        return None
    path = [goal]
    while path[-1] != start:
        path.append(came[path[-1]])
    return best[goal], path[::-1]
