"""Where a unit can go from here in one move, and the cheapest legal way there.

A person at the table moves a unit with one click on its destination; the
engine still takes every step as an action of its own (the log, undo and
replays are unchanged). The paths are found by playing the steps on copies of
the state, so every rule the step actions obey — costs, zones of control,
stacking, leaving and entering enemy zones, a limit on hexes — holds on them
exactly as it does for a single step: nothing here re-states a rule.

A path only goes on past a step after which the unit may still step and
nothing happened besides the move itself: no die, no other side deciding, no
concealed unit coming to light, no account line beyond one per unit moved.
Where something does happen, the player must see it before going on, so such
a step ends the path (its hex is still a destination).
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from itertools import count

from engine.describe import hex_label, unit_name
from engine.explain import Reason, why_not_move
from engine.los import distance
from engine.primitives import get as primitive
from engine.state import ON_MAP, State

# The states a search may open: ample for the series' allowances (a few hundred
# hexes in reach), and a bound on a request's time whatever the rules say.
MAX_STATES = 1500


@dataclass(frozen=True, slots=True)
class MovePath:
    """The cheapest legal way for a unit to a hex: its step actions in order, the hexes
    it enters and the MP it spends on them."""

    hex: int
    steps: tuple[int, ...]
    hexes: tuple[int, ...]
    cost: int


def _moving(s: State) -> bool:
    return bool(s.stack) and s.stack[-1].prim and s.stack[-1].proc == "move_units"


def _steps_of(s: State, u: int) -> tuple[int, ...]:
    """The legal step actions of unit u (none unless units are moving now)."""
    if s.is_terminal() or s.is_chance_node() or not _moving(s):
        return ()
    space = s.game.actions
    return tuple(
        a for a in s.legal_actions() if space.kind_of(a) == "step" and space.decode_step(a)[0] == u
    )


def cheapest_paths(s: State, u: int) -> dict[int, MovePath]:
    """Every hex unit u can reach now by legal steps, with the cheapest path there (in MP;
    fewer steps between equal costs). Empty when u may not step now."""
    if s.unit_status[u] != ON_MAP:
        return {}
    player = s.current_player() if _steps_of(s, u) else None
    if player is None:
        return {}
    prim = primitive("move_units")
    board = s.game.rules.board
    start = s.unit_hex[u]
    hidden = s.concealed_from(player)
    best: dict[int, MovePath] = {}
    opened: set[tuple[int, tuple[int, ...]]] = set()
    tie = count()
    queue: list[tuple[int, int, int, State, tuple[int, ...], tuple[int, ...]]] = [
        (0, 0, next(tie), s, (), ())
    ]
    while queue and len(opened) < MAX_STATES:
        cost, n, _, here, steps, hexes = heapq.heappop(queue)
        options = _steps_of(here, u)
        key = (here.unit_hex[u], options)
        if key in opened:
            continue
        opened.add(key)
        a = here.unit_hex[u]
        for action in options:
            d = here.game.actions.decode_step(action)[1]
            step_cost = prim.cost(here, here.stack[-1], u, a, d)  # type: ignore[attr-defined]
            there = here.clone()
            there.apply_action(action)
            h = board.neighbors[a][d]
            path = MovePath(h, (*steps, action), (*hexes, h), cost + step_cost)
            old = best.get(h)
            if h != start and (
                old is None or (path.cost, len(path.steps)) < (old.cost, len(old.steps))
            ):
                best[h] = path
            if _quiet(here, there, player, hidden):
                heapq.heappush(queue, (path.cost, n + 1, next(tie), there, path.steps, path.hexes))
    return best


def _quiet(before: State, after: State, player: int, hidden: list[int]) -> bool:
    """True when the step did nothing but move: the same side still moves units, no
    concealed unit came to light, and the account says no more than the moves."""
    if after.is_terminal() or after.is_chance_node() or not _moving(after):
        return False
    if after.current_player() != player or after.concealed_from(player) != hidden:
        return False
    moved = sum(1 for x, y in zip(before.unit_hex, after.unit_hex, strict=True) if x != y)
    return len(after.take_messages()) <= moved


def why_out_of_reach(s: State, u: int, h: int, paths: dict[int, MovePath]) -> Reason | None:
    """Why unit u cannot get to hex h in this move (None when it can): the rule that stops
    it one hex short, from the place in its reach nearest h (its own hex included), as
    the engine explains a single refused step."""
    if h in paths:
        return None
    board = s.game.rules.board
    if s.unit_status[u] != ON_MAP or distance(board, s.unit_hex[u], h) <= 1:
        return why_not_move(s, u, h)
    ends = [MovePath(s.unit_hex[u], (), (), 0), *paths.values()]
    end = min(ends, key=lambda p: (distance(board, p.hex, h), p.cost, len(p.steps)))
    return _from(s, u, end, h)


def _from(s: State, u: int, end: MovePath, h: int) -> Reason:
    """The refusal of the next step towards h from the end of path `end`."""
    board = s.game.rules.board
    there = s.clone()
    for action in end.steps:
        there.apply_action(action)
    there.take_messages()
    towards = min(
        (n for n in board.neighbors[end.hex] if n >= 0),
        key=lambda n: (distance(board, n, h), n),
    )
    refusal = why_not_move(there, u, towards)
    where = hex_label(s, h)
    if refusal is None:  # the step is legal from there: only the search's bound stopped it
        return Reason(f"{where} is beyond what {unit_name(s, u)} can reach in one move.")
    via = f" (it can get as far as {hex_label(s, end.hex)})" if end.steps else ""
    return Reason(
        f"{where} is out of reach{via}: {refusal.text}",
        refusal.title,
        refusal.cite,
        refusal.provisional,
    )
