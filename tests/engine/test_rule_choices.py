"""The rules players choose, played: every shipped scenario that leaves rules to
its players keeps the engine's invariants with its optional and play-balance
rules taken up and its advanced rules left out, as the table lets players
choose them (`players_choice`)."""

from __future__ import annotations

import random

import pytest

from engine import chance
from engine.invariants import violations
from engine.rule_switches import players_choice, scenario_defaults
from engine.rules import Rules, ScenarioSpec
from tests.conftest import eager_action
from tests.engine.test_incremental import shipped_game, shipped_scenarios


def flipped(rules: Rules, scenario: ScenarioSpec | None, later_first: bool) -> dict[str, bool]:
    """Every rule the players choose, the other way from the scenario's: of two that
    exclude each other the first declared is taken up (`later_first`: the last),
    and a rule part of one left out is left out too."""
    defaults = scenario_defaults(rules, scenario)
    choice: dict[str, bool] = {}
    offered = players_choice(rules, scenario)
    for sw in reversed(offered) if later_first else offered:
        on = not defaults[sw.name]
        if on and any(choice.get(x, defaults[x]) for x in sw.excludes):
            on = False
        choice[sw.name] = on
    for sw in offered:  # (declared in order: a whole before its options)
        if sw.part_of and not choice.get(sw.part_of, defaults[sw.part_of]):
            choice[sw.name] = False
    return choice


def with_choices() -> list[tuple[str, str | None]]:
    """The shipped scenarios that leave some rule to the players."""
    return [
        (battle, scenario)
        for battle, scenario in shipped_scenarios()
        if players_choice((game := shipped_game(battle, scenario)).rules, game.scenario)
    ]


@pytest.mark.slow
@pytest.mark.parametrize("later_first", [False, True])
@pytest.mark.parametrize(("battle", "scenario"), with_choices())
def test_every_scenario_plays_within_the_invariants_with_the_players_rules(
    battle, scenario, later_first
):
    game = shipped_game(battle, scenario)
    choice = flipped(game.rules, game.scenario, later_first)
    params = {"rules": choice, **({"scenario": scenario} if scenario else {})}
    game = type(game)(game.rules, params, game.rules_hash)
    assert all(game.switch_on[name] is on for name, on in choice.items())
    rng = random.Random(7)
    s = game.new_initial_state()
    while not s.is_terminal() and s.move_number < game.max_game_length():
        s.apply_action(chance.sample(s, 7) if s.is_chance_node() else eager_action(s, rng))
        assert violations(s) == [], (s.move_number, violations(s))
    assert s.is_terminal()
