"""A unit's whole move found at once (the table's one-click move): every destination the
step actions can reach, each by a path of legal steps, at the least MP any sequence of
legal steps spends to get there; and the rule that stops a unit short of a hex out of reach."""

from __future__ import annotations

import random

import pytest

from engine import chance
from engine.los import distance
from engine.move_paths import _quiet, _steps_of, cheapest_paths, why_out_of_reach
from engine.primitives import get as primitive
from engine.state import State


def movement_positions(game, seed: int, count: int) -> list[State]:
    """Positions of a seeded random game where units are moving, some steps apart."""
    s = game.new_initial_state()
    rng = random.Random(seed)
    out: list[State] = []
    while not s.is_terminal() and len(out) < count:
        if s.is_chance_node():
            s.apply_action(chance.sample(s, seed))
            continue
        actions = s.legal_actions()
        steps = [a for a in actions if game.actions.kind_of(a) == "step"]
        if steps and rng.random() < 0.2:
            out.append(s.clone())
        pick = (
            [a for a in actions if a != 0] if len(actions) > 1 and rng.random() < 0.9 else actions
        )
        s.apply_action(rng.choice(pick))
    return out


def brute_force(s: State, u: int) -> dict[int, int]:
    """The least MP of every sequence of legal steps of unit u from s, by relaxing every
    distinct position the steps lead to (positions told apart by the whole state's hash,
    not by the search's own key) until no cost goes down: slow and obvious."""
    prim = primitive("move_units")
    board = s.game.rules.board
    player = s.current_player()
    hidden = s.concealed_from(player)
    start = s.unit_hex[u]
    best: dict[int, int] = {}
    cheapest: dict[str, int] = {s.state_hash(): 0}
    todo = [(s, 0)]
    while todo:
        here, spent = todo.pop()
        if cheapest[here.state_hash()] < spent:
            continue
        for action in _steps_of(here, u):
            d = here.game.actions.decode_step(action)[1]
            a = here.unit_hex[u]
            cost = spent + prim.cost(here, here.stack[-1], u, a, d)
            h = board.neighbors[a][d]
            if h != start and cost < best.get(h, 10**9):
                best[h] = cost
            there = here.clone()
            there.apply_action(action)
            if not _quiet(here, there, player, hidden):
                continue
            key = there.state_hash()
            if cost < cheapest.get(key, 10**9):
                cheapest[key] = cost
                todo.append((there, cost))
    return best


def check_paths(s: State, u: int) -> dict:
    paths = cheapest_paths(s, u)
    board = s.game.rules.board
    for h, p in paths.items():
        # A path of legal steps, each into the next hex, ending at its hex.
        here = s.clone()
        for action, entered in zip(p.steps, p.hexes, strict=True):
            assert action in here.legal_actions()
            here.apply_action(action)
            assert here.unit_hex[u] == entered
        assert p.hex == h == p.hexes[-1]
        assert all(
            distance(board, a, b) == 1
            for a, b in zip((s.unit_hex[u], *p.hexes[:-1]), p.hexes, strict=True)
        )
    return paths


@pytest.fixture(scope="module")
def lees_advance(monmouth_package):
    return monmouth_package.load_game({"scenario": "lees_advance"})


def agree_with_brute_force(game, seed: int, positions: int) -> int:
    """Compare the search with the brute force at some positions of a seeded game; how
    many had a move of more than one step."""
    longer = 0
    for s in movement_positions(game, seed, positions):
        mover = min(game.actions.decode_step(a)[0] for a in _steps_of_any(s))
        paths = check_paths(s, mover)
        assert {h: p.cost for h, p in paths.items()} == brute_force(s, mover)
        longer += any(len(p.steps) > 1 for p in paths.values())
    return longer


def test_every_destination_at_the_least_mp_of_any_legal_sequence(training):
    assert agree_with_brute_force(training, 1, 3) >= 2, "too few moves of several steps"


@pytest.mark.slow  # a brute force over every position of a whole move: ~10 s
def test_every_destination_in_lees_advance_at_the_least_mp(lees_advance):
    assert agree_with_brute_force(lees_advance, 2, 2) >= 1, "no move of several steps"


def _steps_of_any(s: State) -> list[int]:
    return [a for a in s.legal_actions() if s.game.actions.kind_of(a) == "step"]


def test_no_path_for_a_unit_that_may_not_step(lees_advance):
    s = movement_positions(lees_advance, 1, 1)[0]
    mover = s.game.actions.decode_step(_steps_of_any(s)[0])[0]
    side = s.game.rules.units[mover].side
    other = next(i for i, x in enumerate(s.game.rules.units) if x.side != side)
    assert cheapest_paths(s, other) == {}
    before = s.state_hash()
    cheapest_paths(s, mover)
    assert s.state_hash() == before, "the search must play on copies only"


def test_a_hex_out_of_reach_is_explained_by_the_rule_that_stops_the_unit(lees_advance):
    s = movement_positions(lees_advance, 2, 1)[0]
    u = s.game.actions.decode_step(_steps_of_any(s)[0])[0]
    paths = cheapest_paths(s, u)
    board = s.game.rules.board
    far = [
        h
        for h in range(len(board.labels))
        if h not in paths
        and distance(board, s.unit_hex[u], h) == max(len(p.steps) for p in paths.values()) + 2
    ]
    assert far
    reason = why_out_of_reach(s, u, far[0], paths)
    assert reason is not None and reason.text.startswith(f"{board.labels[far[0]]} is out of reach")
    assert reason.cite.startswith("§ "), reason
    assert why_out_of_reach(s, u, next(iter(paths)), paths) is None
