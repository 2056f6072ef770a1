"""The series rules run: a small battle on them, and each litmus rule on it,
played to the end by random players; saved mid-game, loaded and played on to
the same end."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from compiler.build import load_game
from engine import chance
from engine.save import dumps, loads
from engine.state import ON_MAP
from tests.conftest import eager_action, play_out

LITMUS = Path(__file__).parent.parent / "data" / "litmus"


@pytest.fixture(scope="module")
def base():
    return load_game(LITMUS / "base.mst")


def stack_ok(game, s) -> bool:
    """Series 7.1 on every hex: six SPs of non-artillery, one artillery unit."""
    rules = game.rules
    artillery = rules.unit_props["artillery"]
    by_hex: dict[int, list[int]] = {}
    for u, h in enumerate(s.unit_hex):
        if s.unit_status[u] == ON_MAP and rules.units[u].kind == "unit":
            by_hex.setdefault(h, []).append(u)
    for units in by_hex.values():
        guns = [u for u in units if artillery[u]]
        foot = sum(rules.units[u].strengths[s.unit_loss[u]] for u in units if not artillery[u])
        if len(guns) > 1 or foot > 6:
            return False
    return True


@pytest.mark.parametrize("seed", [1, 2, 3, 5])
def test_the_series_plays_to_the_end(base, seed):
    s = base.new_initial_state()
    rng = random.Random(seed)
    while not s.is_terminal():
        if s.is_chance_node():
            s.apply_action(chance.sample(s, seed))
        else:
            assert s.legal_actions()
            s.apply_action(eager_action(s, rng))
        if not s.stack or s.stack[-1].proc == "move_units":
            continue
        # between movements, no hex is over the limit (7.1, 7.3)
        assert stack_ok(base, s), s.messages[-5:]
    assert s.vars["turn"] > 1
    assert any("Close Combat Table" in m for m in s.messages)


def test_a_game_saved_in_the_middle_plays_on_to_the_same_end(base):
    seed = 7
    s = base.new_initial_state()
    rng = random.Random(seed)
    while s.move_number < 120:
        s.apply_action(chance.sample(s, seed) if s.is_chance_node() else eager_action(s, rng))
    saved = dumps(s)
    loaded = loads(base, saved)
    assert loaded == s and dumps(loaded) == saved
    play_out(s, seed)
    play_out(loaded, seed)
    assert loaded.state_hash() == s.state_hash()


@pytest.mark.parametrize(
    "name", sorted(p.name for p in LITMUS.glob("*.mst") if p.name != "base.mst")
)
def test_each_litmus_rule_plays_to_the_end(name):
    game = load_game(LITMUS / name)
    s = play_out(game.new_initial_state(), 3)
    assert s.is_terminal()


def test_victory_points_come_in_halves(base):
    from fractions import Fraction

    from engine.effects import score

    s = base.new_initial_state()
    side = base.rules.side_index("british")
    score(s, side, Fraction(1, 2))
    assert s.vars["vp"][side] == Fraction(1, 2)
    assert s.messages[-1] == "British scores 1/2 VP (now 1/2)."
    loaded = loads(base, dumps(s))
    assert loaded.vars["vp"][side] == Fraction(1, 2) and loaded == s
    score(s, side, 3)
    assert s.messages[-1] == "British scores 3 VP (now 3 1/2)."
    score(s, side, Fraction(1, 2))
    assert s.vars["vp"][side] == 4 and type(s.vars["vp"][side]) is int


def test_a_chit_chosen_face_down_is_hidden_from_the_other_side(base):
    seed = 1
    for seed in range(1, 40):
        s = base.new_initial_state()
        rng = random.Random(seed)
        while not s.is_terminal():
            secret = [(f, p) for f in s.stack for p in f.b.get("_secret", ())]
            if secret:
                break
            s.apply_action(chance.sample(s, seed) if s.is_chance_node() else eager_action(s, rng))
        if not s.is_terminal():
            break
    [(frame, (var, chooser))] = secret
    at = s.stack.index(frame)
    own = s.observation(chooser)["stack"][at]["bindings"][var]
    other = s.observation(1 - chooser)["stack"][at]["bindings"][var]
    assert other == "hidden" and own != "hidden"
    assert s.observation(chooser) != s.observation(1 - chooser)
    loaded = loads(base, dumps(s))
    assert loaded == s and loaded.observation(1 - chooser) == s.observation(1 - chooser)


def test_leaders_alone_are_the_enemy_leaders_an_entering_unit_captures():
    """14.32: the series' `enemy_leaders_alone` reads each unit's own side."""
    from compiler.build import generate, load_generated
    from compiler.check import compile_ruleset

    rules_ir, _ = compile_ruleset(LITMUS / "base.mst")
    pkg = load_generated(generate(rules_ir), rules_ir.name)
    game = pkg.load_game()
    compiled = __import__(f"{pkg.__name__}.rules", fromlist=["define__enemy_leaders_alone"])
    s = game.new_initial_state()
    rules = game.rules
    clinton, guards = rules.unit_index("clinton"), rules.unit_index("guards")
    american = rules.side_index("american")
    here = s.unit_hex[clinton]
    assert s.unit_hex[guards] == here  # set up together
    assert compiled.define__enemy_leaders_alone(s, here, american) == ()
    s.unit_hex[guards] = game.hex_by_label["2410"]
    assert compiled.define__enemy_leaders_alone(s, here, american) == (clinton,)
    assert compiled.define__enemy_leaders_alone(s, here, rules.side_index("british")) == ()
