"""Legal movement steps kept between decisions agree with a full recomputation.

`tests/conftest.py` turns `engine.incremental.CHECK` on, so every decision of
these games (and of every other test) recomputes the legal steps from
scratch and raises on a difference. These tests play every shipped scenario,
compare with states loaded from a save (which remember nothing), and show
that the check does catch a wrong remembered answer.
"""

from __future__ import annotations

import gc
import random
from collections.abc import Iterator
from dataclasses import replace

import pytest

from compiler.build import import_shipped
from engine import chance, incremental
from engine.firing import Firing
from engine.game import Game
from engine.primitives import movement
from engine.save import from_json, to_json
from engine.state import MAX_SIDES, MAX_UNITS, ON_MAP, Occupancy, State
from tests.conftest import SHIPPED_BATTLES, eager_action

# Enough actions for several movement phases of each side, not whole campaigns.
ACTIONS = 400


def shipped_scenarios() -> list[tuple[str, str | None]]:
    found: list[tuple[str, str | None]] = []
    for battle in SHIPPED_BATTLES:
        names = [sc.name for sc in import_shipped(battle).RULES.scenarios]
        found += [(battle, name) for name in names] or [(battle, None)]
    return found


def shipped_game(battle: str, scenario: str | None) -> Game:
    return import_shipped(battle).load_game({"scenario": scenario} if scenario else {})


def played(game: Game, seed: int) -> Iterator[State]:
    """The first ACTIONS actions of a seeded game of the eager bot: the state before
    each, which the caller may look at (the action is chosen once it resumes)."""
    rng = random.Random(seed)
    s = game.new_initial_state()
    while not s.is_terminal() and s.move_number < ACTIONS:
        yield s
        s.apply_action(chance.sample(s, seed) if s.is_chance_node() else eager_action(s, rng))


@pytest.mark.parametrize(("battle", "scenario"), shipped_scenarios())
def test_every_scenario_plays_with_the_check_on(battle, scenario):
    assert incremental.CHECK
    game = shipped_game(battle, scenario)
    movement_decisions = 0
    for s in played(game, seed=5):
        if not s.is_chance_node() and s.stack[-1].proc == "move_units":
            movement_decisions += 1
            if movement_decisions % 25 == 0:
                # A state loaded from its save remembers nothing: same answers.
                fresh = from_json(game, to_json(s))
                assert fresh.legal_actions() == s.legal_actions()
    assert movement_decisions > 10


def _course(game: Game, seed: int) -> tuple[list[tuple[list[int], str]], bool]:
    """The legal actions and the state's hash after each of the first ACTIONS actions
    of a seeded eager game (the hash of the position first), and whether the
    last state kept answers of its own between decisions."""
    rng = random.Random(seed)
    s = game.new_initial_state()
    seen = [([], s.state_hash())]
    while not s.is_terminal() and s.move_number < ACTIONS:
        s.apply_action(chance.sample(s, seed) if s.is_chance_node() else eager_action(s, rng))
        seen.append((s.legal_actions(), s.state_hash()))
    return seen, s._remembered is not None and s._remembered.owner is s


@pytest.mark.parametrize(("battle", "scenario"), shipped_scenarios())
def test_remembering_changes_no_game(battle, scenario, monkeypatch):
    """A seeded game played with answers kept between decisions and the same game
    worked out afresh at every decision (`MUSTER_REMEMBER=0`) pass through the
    same positions, action by action. (The check is off: what is compared is
    play as it is played.)"""
    monkeypatch.setattr(incremental, "CHECK", False)
    game = shipped_game(battle, scenario)
    kept, remembered = _course(game, seed=7)
    monkeypatch.setattr(incremental, "REMEMBER", False)
    afresh, remembered_afresh = _course(game, seed=7)
    assert remembered and not remembered_afresh  # (the two ways of play did differ)
    for i, (with_memory, without) in enumerate(zip(kept, afresh, strict=True)):
        assert with_memory == without, f"after action {i}"


def test_play_leaves_no_reference_cycles():
    """What a decision makes (its watch, the stand-ins, their copies of the positions)
    is freed by reference counting as soon as it is done with: cycles among them
    were left to the garbage collector, which then went over them at every young
    collection."""
    game = import_shipped("monmouth").load_game({"scenario": "lees_advance"})
    s = game.new_initial_state()
    rng = random.Random(0)
    # The movement's caches keep the last games met: an earlier test's game
    # pushed out of them during this one would be that test's garbage, not
    # play's (a full suite run showed a training game and its state so).
    movement._blockers.cache_clear()
    movement._numbered.cache_clear()
    gc.collect()
    gc.disable()
    try:
        while not s.is_terminal() and s.move_number < ACTIONS:
            action = chance.sample(s, 0) if s.is_chance_node() else rng.choice(s.legal_actions())
            s.clone()
            s.apply_action(action)
        assert gc.collect() == 0
    finally:
        gc.enable()


def _at_movement(game, seed: int):
    s = game.new_initial_state()
    rng = random.Random(seed)
    while s.is_chance_node() or s.stack[-1].proc != "move_units" or s.stack[-1].b["active"] < 0:
        s.apply_action(chance.sample(s, seed) if s.is_chance_node() else eager_action(s, rng))
    return s


def test_clones_do_not_share_what_they_remember(training):
    s = _at_movement(training, 2)
    c = s.clone()
    steps = [a for a in s.legal_actions() if training.actions.kind_of(a) == "step"]
    # Move different units in the two copies, then compare each with a fresh load.
    s.apply_action(steps[0])
    c.apply_action(steps[-1])
    for state in (s, c):
        if not state.is_chance_node() and state.stack[-1].proc == "move_units":
            fresh = from_json(training, to_json(state))
            assert state.legal_actions() == fresh.legal_actions()


def test_the_check_catches_a_wrong_remembered_answer(training):
    s = _at_movement(training, 2)
    memo = next(reversed(s._remembered.by_site.values()))  # the set just asked
    assert memo.answers
    # (a unit's own question is keyed by its number, below the others' keys)
    key = next(k for k, value in memo.answers.items() if 0 <= k < MAX_UNITS and value)
    memo.answers[key] = ()  # forget the unit's steps, wrongly
    s._node = None
    with pytest.raises(incremental.IncrementalMismatch):
        s.legal_actions()


def test_a_decision_held_still_keeps_its_answers_and_then_lets_go(training, monkeypatch):
    """`held_still` works a question out over a `Fixed` position that keeps what is
    asked of it by key (worked out once), and puts back the watch it found; a game
    that counts what fires keeps nothing, so that every asking is counted."""
    s = _at_movement(training, 2)
    asked = []

    def compute(x):
        asked.append(x)
        return x * 2

    def question():
        return s._watched.kept(s, "k", compute, 21), s._watched.kept(s, "k", compute, 21)

    assert s._watched is None
    assert incremental.held_still(s, question) == (42, 42)
    assert asked == [21] and s._watched is None
    monkeypatch.setattr(training, "firing", Firing(training.rules))
    asked.clear()
    assert incremental.held_still(s, question) == (42, 42)
    assert asked == [21, 21]


def test_rules_beyond_what_the_keys_hold_are_refused(training):
    """Answers are kept by int keys that hold a side below `MAX_SIDES` and a unit below
    `MAX_UNITS`: a game of more is refused when it is made, never played with
    answers mixed up."""
    rules = training.rules
    Game = type(training)
    with pytest.raises(ValueError, match=f"at most {MAX_SIDES} sides"):
        Game(replace(rules, sides=rules.sides * (MAX_SIDES // len(rules.sides) + 1)))
    with pytest.raises(ValueError, match=f"and {MAX_UNITS} units"):
        Game(replace(rules, units=rules.units * (MAX_UNITS // len(rules.units) + 1)))
    Game(rules)  # (the shipped sizes: made)


def test_an_answer_is_forgotten_only_when_what_it_read_changes(training):
    """Item by item: a member of a per-side variable, a unit's hex, the caller's bindings."""
    s = _at_movement(training, 2)
    computed: list[str] = []

    def first_side_vp() -> int:
        computed.append("vp")
        return s.vars["vp"][0]

    def hex_of_unit_0() -> int:
        computed.append("hex")
        return s.unit_hex[0]

    memo = incremental.remembered(s, "test")
    assert memo.ask(s, "vp", first_side_vp) == s.vars["vp"][0]
    memo.ask(s, "hex", hex_of_unit_0)
    assert computed == ["vp", "hex"]
    # The other side's VP change: neither answer read them.
    s.vars["vp"] = (s.vars["vp"][0], s.vars["vp"][1] + 1)
    memo = incremental.remembered(s, "test")
    assert memo.ask(s, "vp", first_side_vp) == s.vars["vp"][0]
    memo.ask(s, "hex", hex_of_unit_0)
    assert computed == ["vp", "hex"]
    # The first side's VP change: only the answer that read them is worked out again.
    s.vars["vp"] = (s.vars["vp"][0] + 1, s.vars["vp"][1])
    memo = incremental.remembered(s, "test")
    assert memo.ask(s, "vp", first_side_vp) == s.vars["vp"][0]
    memo.ask(s, "hex", hex_of_unit_0)
    assert computed == ["vp", "hex", "vp"]
    # A question may not change the state it is asked about.
    with pytest.raises(RuntimeError):
        memo.ask(s, "move", lambda: s.unit_hex.__setitem__(0, 0))


def test_the_unit_said_to_have_stepped_is_checked_not_trusted(training):
    """A step names the unit it moved (`State._stepped`) so that the next occupancy
    need not look for who moved; when another unit moved too, or none, the
    occupancy finds the units that did, and its index is the one built afresh."""
    s = training.new_initial_state()
    on_map = [u for u, status in enumerate(s.unit_status) if status == ON_MAP]
    a, b = on_map[0], on_map[-1]
    free = [h for h in range(len(training.rules.board.labels)) if h not in s.unit_hex][:2]
    for moved, said in (((a,), a), ((a, b), a), ((b,), a), ((), a)):
        before = s.occupancy()
        for u, h in zip(moved, free, strict=False):
            s.unit_hex[u] = h
        s._stepped = said
        occupancy = s.occupancy()
        assert occupancy.index == Occupancy(s.unit_hex, s.unit_status).index
        if moved:
            assert occupancy.moved == moved and occupancy is not before
        else:
            assert occupancy is before
        s._stepped = -1
        for u in moved:
            s.unit_hex[u] = before.hexes[u]
        s.occupancy()


@pytest.mark.parametrize(("battle", "scenario"), shipped_scenarios())
def test_the_patched_occupancy_is_the_one_built_afresh(battle, scenario):
    """The occupancy after each action, patched from the previous one, holds the
    index, the `enemies_adjacent`, `units_of` and `occupied_hexes` answers that one
    built from the positions alone gives (a unit's own side's answers next to
    it are kept when it steps)."""
    game = shipped_game(battle, scenario)
    kept = 0
    for s in played(game, seed=3):
        occupancy = s.occupancy()
        fresh = Occupancy(s.unit_hex, s.unit_status)
        assert occupancy.index == fresh.index
        for key, found in occupancy.enemies.items():
            h, side = divmod(key, MAX_SIDES)
            near = (
                u
                for n in game.rules.board.neighbors[h]
                for u in fresh.index.get(n, ())
                if game.combat_sides[u] not in (None, side)
            )
            assert found == tuple(sorted(near))
            kept += 1
        for side, found in occupancy.on_map.items():
            assert found == tuple(u for u in game.units_by_side[side] if s.unit_status[u] == ON_MAP)
        if occupancy.occupied is not None:
            assert occupancy.occupied == {
                h
                for h, us in fresh.index.items()
                if any(game.combat_sides[u] is not None for u in us)
            }
    assert kept > 0
