"""`halt(u)` given before the movement phase (tests/data/halting: a unit whose
orders are delayed is halted at the start of the next player turn): the unit
has no move in its side's movement phase of that turn, the others move, and
the halt is part of the position — saved, hashed, cloned, observed — until
that phase ends."""

from __future__ import annotations

from pathlib import Path

import pytest

from compiler.build import load_game
from engine import chance, explain
from engine.save import from_json, state_hash, to_json

HALTING = Path(__file__).parent.parent / "data" / "halting"


@pytest.fixture(scope="module")
def game():
    return load_game(HALTING)


def at_the_start_of_red_turn(game, delayed: tuple[str, ...], turn: int = 1):
    """Red's player turn about to run its `delay` step, inside the game's turns."""
    return from_json(
        game,
        {
            "format": "muster.state/1",
            "ruleset": game.rules.name,
            "vars": {
                "turn": turn,
                "delayed": {u.name: u.name in delayed for u in game.rules.units},
            },
            "units": {"red_guard": {"hex": "0304"}, "red_line": {"hex": "0306"}},
            "stack": [
                {"procedure": "game", "step": "turns"},
                {"procedure": "game_turn", "step": "first"},
                {"procedure": "player_turn", "step": "delay", "bindings": {"side": "red"}},
            ],
        },
    )


def movers(game, s) -> set[str]:
    """The units with a move among the legal actions."""
    names = {game.actions.decode_step(a)[0] for a in s.legal_actions() if a != game.actions.PASS}
    return {game.rules.units[u].name for u in names}


def to_next_turn_red_movement(game, s):
    """Play on, every side passing, to Red's movement decision of the next turn."""
    red = game.side_by_name["red"]
    turn = s.vars["turn"]
    for _ in range(200):
        if s.is_chance_node():
            s.apply_action(chance.sample(s, 1))
            continue
        frame = explain._moving(s)
        if s.vars["turn"] > turn and frame is not None and frame.b["side"] == red:
            return s
        legal = s.legal_actions()
        s.apply_action(game.actions.PASS if game.actions.PASS in legal else legal[0])
    raise AssertionError("no Red movement phase reached")


def test_a_unit_halted_before_the_movement_does_not_move(game):
    s = at_the_start_of_red_turn(game, ("red_guard",))
    assert movers(game, s) == {"red_line"}
    guard = game.unit_by_name["red_guard"]
    reason = explain.why_not_move(s, guard, game.hex_by_label["0404"])
    assert reason is not None and "halted" in reason.text


def test_without_the_halt_both_move(game):
    s = at_the_start_of_red_turn(game, ())
    assert movers(game, s) == {"red_guard", "red_line"}


def test_the_halt_is_part_of_the_position(game):
    halted = at_the_start_of_red_turn(game, ("red_guard",))
    plain = at_the_start_of_red_turn(game, ())
    assert to_json(halted)["units"]["red_guard"]["halted"] == 1
    assert "halted" not in to_json(plain)["units"]["red_guard"]
    assert state_hash(halted) != state_hash(plain)
    assert to_json(halted.clone()) == to_json(halted)
    reloaded = from_json(game, to_json(halted))
    assert reloaded == halted and movers(game, reloaded) == {"red_line"}
    blue = game.side_by_name["blue"]
    assert halted.observation(blue)["units"]["red_guard"]["halted"] == 1


def test_after_its_phase_the_unit_moves_again(game):
    s = at_the_start_of_red_turn(game, ("red_guard",))
    s.apply_action(game.actions.PASS)  # Red's movement ends
    guard = game.unit_by_name["red_guard"]
    assert guard not in s.halted
    s = to_next_turn_red_movement(game, s)
    assert s.vars["turn"] == 2
    assert movers(game, s) == {"red_guard", "red_line"}


def test_a_halt_of_an_earlier_turn_no_longer_holds(game):
    """A halt given after the unit's side has moved (here: written into turn 1's
    position, then turn 2's Red movement) lapses with its turn."""
    s = at_the_start_of_red_turn(game, (), turn=2)
    data = to_json(s)
    data["units"]["red_guard"]["halted"] = 1
    s = from_json(game, data)
    assert movers(game, s) == {"red_guard", "red_line"}
