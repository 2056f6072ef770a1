"""Cheapest moves over the board's tables: reachable hexes, paths, strategic movement.

Searches run on integer hex ids with the precomputed step costs of one
movement class. Reachable hexes use a bucket queue (costs are small whole
numbers and a turn's allowance is short); the cheapest path over any
distance uses a heap. A unit may always move one hex when nothing prohibits
it (9.1), must stop on entering a hex in `stop` (an enemy ZOC, 8.31) and
never enters a hex in `closed` (enemy units, 9.2); `extra` adds MP per step
(ZOC costs, 8.31).
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterator
from collections.abc import Set as AbstractSet

from engine.rules import BoardSpec

NOTHING: frozenset[int] = frozenset()
ALL_SIDES = 0b111111
# The directions a 6-bit mask allows, for every mask.
SIDES = tuple(tuple(d for d in range(6) if mask >> d & 1) for mask in range(64))
BIG = 1 << 30


def reachable(
    board: BoardSpec,
    start: int,
    allowance: int,
    move_class: int = 0,
    closed: AbstractSet[int] = NOTHING,
    stop: AbstractSet[int] = NOTHING,
    extra: Callable[[int, int], int] | None = None,
    only: tuple[int, ...] | None = None,
) -> dict[int, int]:
    """Every hex a unit can reach this turn, with the MP it costs (the start at 0).

    `only` limits each hex's exits to the sides its 6-bit mask allows.
    """
    costs = board.move_cost[move_class]
    best = {start: 0}
    buckets: list[list[int]] = [[start]]  # the hexes reached for each MP spent
    spent = 0
    while spent < len(buckets):
        for h in buckets[spent]:
            if best[h] != spent or (h != start and h in stop):
                continue  # reached for less since, or a stop
            for n, step in _exits(board, costs[h], h, closed, extra, only):
                total = spent + step
                if total > allowance:
                    if h == start and n not in best:
                        best[n] = total  # one hex, however dear (9.1)
                elif total < best.get(n, BIG):
                    best[n] = total
                    buckets.extend([] for _ in range(total + 1 - len(buckets)))
                    buckets[total].append(n)
        spent += 1
    return best


def _exits(
    board: BoardSpec,
    row: tuple[int, ...],
    h: int,
    closed: AbstractSet[int],
    extra: Callable[[int, int], int] | None,
    only: tuple[int, ...] | None,
) -> Iterator[tuple[int, int]]:
    """The hexes a unit in hex h may step into (not prohibited, not `closed`, by the
    sides `only` allows), each with the MP the step costs (`row`: hex h's costs)."""
    around = board.neighbors[h]
    for d in SIDES[ALL_SIDES if only is None else only[h]]:
        n = around[d]
        if row[d] >= 0 and n not in closed:
            yield n, row[d] if extra is None else row[d] + extra(h, n)


def strategic_reachable(
    board: BoardSpec,
    start: int,
    allowance: int,
    move_class: int = 0,
    near_enemy: AbstractSet[int] = NOTHING,
) -> dict[int, int]:
    """Hexes reachable by strategic movement (9.52): twice the allowance, every hexside
    crossed along a road or track, never beginning in or entering a hex in `near_enemy`
    (hexes adjacent to enemy units)."""
    if start in near_enemy:
        return {start: 0}
    found = reachable(
        board, start, 2 * allowance, move_class, closed=near_enemy, only=board.strategic
    )
    # Strategic movement has no one-hex minimum: drop a first step beyond the allowance.
    return {h: c for h, c in found.items() if c <= 2 * allowance}


def cheapest_path(
    board: BoardSpec,
    start: int,
    goal: int,
    move_class: int = 0,
    closed: AbstractSet[int] = NOTHING,
) -> tuple[int, list[int]] | None:
    """The cheapest path from start to goal over any number of turns, and its MP cost."""
    costs = board.move_cost[move_class]
    best = {start: 0}
    came: dict[int, int] = {}
    heap = [(0, start)]
    while heap:
        spent, h = heapq.heappop(heap)
        if h == goal:
            return spent, _path_back(came, start, goal)
        if spent > best[h]:
            continue
        for d, n in enumerate(board.neighbors[h]):
            step = costs[h][d]
            if step >= 0 and n not in closed and spent + step < best.get(n, BIG):
                best[n] = spent + step
                came[n] = h
                heapq.heappush(heap, (spent + step, n))
    return None


def _path_back(came: dict[int, int], start: int, goal: int) -> list[int]:
    """The path from start to goal, following back the hex each was entered from."""
    path = [goal]
    while path[-1] != start:
        path.append(came[path[-1]])
    return path[::-1]
