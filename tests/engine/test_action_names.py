"""Every action of every decision is named by what it chooses (issue 27, item 11).

Seeded eager games of every shipped scenario, from the committed engines: at
each decision every legal action's words are looked at. An action named
"option N" (a yes/no answer or an option of a choice that says nothing of
what it picks) or by nothing at all fails, with the prompt it answered.
"""

from __future__ import annotations

import importlib
import random
import re

import pytest

from engine import chance
from tests.conftest import eager_action

SCENARIOS = [
    (battle, scenario)
    for battle, scenarios in (
        ("training", ("skirmish", "night_march")),
        ("newtown", ("campaign", "historical")),
        ("monmouth", ("campaign", "lees_advance", "holding_action", "washingtons_stand")),
    )
    for scenario in scenarios
]
NAMELESS = re.compile(r"^(option \d+)?$")


def nameless_actions(battle: str, scenario: str, seed: int) -> dict[str, str]:
    """Play a seeded eager game; the nameless action words met, each with its prompt."""
    game = importlib.import_module(f"generated.{battle}").load_game({"scenario": scenario})
    s = game.new_initial_state()
    rng = random.Random(seed)
    found: dict[str, str] = {}
    while not s.is_terminal():
        if s.is_chance_node():
            s.apply_action(chance.sample(s, seed))
            continue
        for a in s.legal_actions():
            words = s.action_to_string(a)
            if NAMELESS.match(words):
                found.setdefault(words, s.current_node().prompt)
        s.apply_action(eager_action(s, rng))
    return found


@pytest.mark.parametrize(("battle", "scenario"), SCENARIOS)
def test_every_action_of_a_seeded_game_names_what_it_chooses(battle, scenario):
    """(Seed 3 of Washington's Stand meets the Hessian Grenadiers' question,
    answered "option 0 / option 1" before.)"""
    for seed in (1, 2, 3):
        assert nameless_actions(battle, scenario, seed) == {}, f"seed {seed}"
