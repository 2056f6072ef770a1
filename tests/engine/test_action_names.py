"""Every decision in the rulebook's words (issue 27 item 11, issue 26 item 2).

Seeded eager games of every shipped scenario, from the committed engines: at
each decision its prompt and every legal action's words are looked at, and
every line of the account. An action named "option N" (a yes/no answer or an
option of a choice that says nothing of what it picks) or by nothing at all
fails, with the prompt it answered; so does any prompt, action or account
line that shows an engine name (an identifier such as `stand_fast` or
`activation_cup`, a one-letter binding as in "the next u"), or a bare
"choose X" naming a value by its identifier.
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
ENGINE_NAME = re.compile(
    r"\boption \d+\b"  # an option by its number
    r"|\b[a-z]+_[a-z0-9_]+\b"  # an identifier: stand_fast, activation_cup
    r"|\bthe next [a-z]\b"  # a one-letter binding: "choose the next u"
    r"|^choose [a-z]+$"  # a bare "choose skirmish"
)


def unreadable_labels(battle: str, scenario: str, seed: int) -> dict[str, str]:
    """Play a seeded eager game; every prompt, action's words and account line that shows
    an engine name, each with where it was met."""
    game = importlib.import_module(f"generated.{battle}").load_game({"scenario": scenario})
    s = game.new_initial_state()
    rng = random.Random(seed)
    found: dict[str, str] = {}
    for line in s.take_messages():
        if ENGINE_NAME.search(line):
            found.setdefault(line, "the account")
    while not s.is_terminal():
        if s.is_chance_node():
            s.apply_action(chance.sample(s, seed))
        else:
            prompt = s.current_node().prompt
            if ENGINE_NAME.search(prompt):
                found.setdefault(prompt, "a prompt")
            for a in s.legal_actions():
                words = s.action_to_string(a)
                if ENGINE_NAME.search(words):
                    found.setdefault(words, f"an action of {prompt!r}")
            s.apply_action(eager_action(s, rng))
        for line in s.take_messages():
            if ENGINE_NAME.search(line):
                found.setdefault(line, "the account")
    return found


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


@pytest.mark.parametrize(("battle", "scenario"), SCENARIOS)
def test_no_prompt_action_or_account_line_shows_an_engine_name(battle, scenario):
    """(Before: tactics chits offered as "choose stand_fast", cards drawn as "Drawn from
    activation_cup: mohawk.")"""
    for seed in (1, 2):
        assert unreadable_labels(battle, scenario, seed) == {}, f"seed {seed}"


def test_the_label_check_finds_engine_names():
    for label in (
        "choose stand_fast",
        "Drawn from activation_cup: x.",
        "choose the next u",
        "option 2",
        "choose skirmish",
    ):
        assert ENGINE_NAME.search(label), label
    for label in (
        "choose Stand Fast",
        "Close Combat: choose the defender lead",
        "move 1st N.J. 3317 → 3318",
        "Drawn from the Activation Cup: Mohawk.",
    ):
        assert not ENGINE_NAME.search(label), label
