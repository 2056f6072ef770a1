"""Scenarios: set-up (fixed, chosen, reduced), player order, reinforcements, rule switches."""

from __future__ import annotations

import pytest

from compiler.build import load_game
from engine.game import ParamsError
from engine.save import to_json
from tests.conftest import RULESETS, play_out


@pytest.fixture(scope="module")
def night_march():
    return load_game(RULESETS / "training", {"scenario": "night_march"})


def test_first_scenario_is_the_default(training):
    assert training.scenario.name == "skirmish"
    assert training.first_turn == 1 and training.last_turn == 2


def test_set_up_places_units_and_asks_for_choices(night_march):
    game = night_march
    s = game.new_initial_state()
    units = to_json(s)["units"]
    assert units["red_guard"] == {"hex": "0404", "steps_lost": 1, "status": "map"}
    assert units["red_guns"]["status"] == "not_entered"
    # The first choice: Red places its light company in one of three hexes.
    assert s.current_player() == game.side_by_name["red"]
    choices = {game.rules.board.labels[a - game.actions.hex0] for a in s.legal_actions()}
    assert choices == {"0305", "0306", "0406"}
    s.apply_action(game.actions.hex(game.hex_by_label["0306"]))
    # Then Blue places two units anywhere on the east bank not held by Red,
    # but never in the marsh (0907, 0908), prohibited terrain.
    assert s.current_player() == game.side_by_name["blue"]
    rules = game.rules
    east_bank = set(rules.board.zones["east_bank"])
    marsh = {h for h in east_bank if rules.terrain[rules.board.terrain[h]].prohibited}
    assert {rules.board.labels[h] for h in marsh} == {"0907", "0908"}
    offered = {a - game.actions.hex0 for a in s.legal_actions()}
    assert offered == east_bank - marsh
    s.apply_action(s.legal_actions()[0])
    s.apply_action(s.legal_actions()[0])
    assert to_json(s)["units"]["red_light"]["hex"] == "0306"
    assert s.vars["turn"] == 2


def test_scenario_order_and_rules(night_march):
    game = night_march
    assert game.switch_on["withdrawal"] is False
    s = game.new_initial_state()
    while not any(f.prim and f.proc == "move_units" for f in s.stack):
        s.apply_action(s.legal_actions()[0])
    assert s.current_player() == game.side_by_name["blue"]  # `order 2 blue red`


def test_reinforcements_enter_on_their_turn(night_march):
    s = play_out(night_march.new_initial_state(), seed=3)
    guns = to_json(s)["units"]["red_guns"]
    assert guns["status"] in ("map", "eliminated", "captured")
    assert s.is_terminal()


def test_unknown_scenario_is_refused():
    with pytest.raises(ValueError, match="unknown scenario"):
        load_game(RULESETS / "training", {"scenario": "nowhere"})


@pytest.mark.parametrize(
    "params, words",
    [
        ({"automatic_ambush": True}, "unknown parameter 'automatic_ambush' (rule switches go"),
        ({"sceanrio": "night_march"}, "unknown parameter 'sceanrio'; known: scenario, rules"),
        ({"rules": {"automatic_ambsh": True}}, "unknown rule switch 'automatic_ambsh'; known:"),
        ({"rules": {"automatic_ambush": "false"}}, "'rules' maps rule switches to true or false"),
        ({"rules": ["automatic_ambush"]}, "'rules' maps rule switches to true or false"),
        ({"scenario": 2}, "the scenario is a name, not 2"),
    ],
)
def test_a_parameter_the_engine_would_ignore_is_refused(params, words):
    """A parameter the engine does not read would leave the game played without
    what it asked for; it is refused with the known names, by the API too."""
    from generated import newtown

    for load in (lambda: newtown.load_game(params), lambda: load_game("newtown", params)):
        with pytest.raises(ParamsError) as e:
            load()
        assert words in str(e.value)
