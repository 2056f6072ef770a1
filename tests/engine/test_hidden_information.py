"""Hidden information: a side's observation, and the actions it is offered,
show nothing the rules keep from it.

The rule files say who sees what: `seen_by` on each bag (a face-down deck,
a hand, a public cup) and `conceal` for stacks a side may not examine
(series 7.4's exceptions, Newtown 3.4). This test plays every shipped battle
and scenario by random players and, at every decision, looks for the name or
title of each marker and unit a side may not see in that side's observation
and in the strings of the actions it may take.
"""

from __future__ import annotations

import json
import random
import re

import pytest

from compiler.build import import_shipped
from engine import chance
from engine.save import to_json
from tests.conftest import eager_action

BATTLES = ("training", "monmouth", "newtown")
MOVES = 400  # per game: the opening, where hands are dealt and stacks meet


def scenarios(battle: str) -> list[str]:
    return [sc.name for sc in import_shipped(battle).load_game().rules.scenarios]


CASES = [(b, sc) for b in BATTLES for sc in scenarios(b)]


def closed_markers(s, player: int) -> set[str]:
    """Markers in a bag the rule files do not let `player` look into (and in no
    bag he may look into)."""
    seers = s.game.rules.bag_seen_by
    closed, shown = set(), set()
    for bag in s.bags:
        tokens = {*s.bags[bag], *s.drawn[bag]}
        (shown if player in seers.get(bag, (player,)) else closed).update(tokens)
    return closed - shown


def words(s, player: int) -> tuple[set[str], set[str]]:
    """The names (as the state writes them) and the names and titles (as the
    actions write them) of what `player` may not see."""
    rules = s.game.rules
    markers = closed_markers(s, player)
    units = {rules.units[u].name: rules.units[u].title for u in s.concealed_from(player)}
    visible_titles = {
        rules.units[u].title
        for u in range(len(rules.units))
        if rules.units[u].name not in units and s.unit_status[u] == 0
    }
    titles = {t for t in units.values() if t not in visible_titles}
    names = markers | set(units)
    return names, names | titles


def strings_in(value) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {x for v in value.values() for x in strings_in(v)}
    if isinstance(value, list):
        return {x for v in value for x in strings_in(v)}
    return {value} if isinstance(value, str) else set()


@pytest.mark.slow
@pytest.mark.parametrize(("battle", "scenario"), CASES)
def test_nothing_hidden_shows_in_an_observation_or_an_action(battle, scenario):
    game = import_shipped(battle).load_game({"scenario": scenario})
    checked = 0
    for seed in (1,):
        s = game.new_initial_state()
        rng = random.Random(seed)
        while not s.is_terminal() and s.move_number < MOVES:
            if s.is_chance_node():
                s.apply_action(chance.sample(s, seed))
                continue
            whole = strings_in(to_json(s))
            for player in range(len(game.rules.sides)):
                names, spoken = words(s, player)
                seen = strings_in(s.observation(player))
                leaked = names & seen
                assert not leaked, f"{battle}/{scenario} move {s.move_number}: {leaked}"
                checked += len(names & whole)  # what a careless observation would show
                if player == s.current_player() and spoken:
                    pattern = re.compile(
                        r"\b(" + "|".join(re.escape(w) for w in sorted(spoken)) + r")\b"
                    )
                    for a in s.legal_actions():
                        text = s.action_to_string(a)
                        assert not pattern.search(text), f"{battle}/{scenario}: {text!r}"
            s.apply_action(eager_action(s, rng))
    if battle == "newtown":
        assert checked > 0  # the hands and stacks were there to hide


def test_a_newtown_american_does_not_see_the_indian_hand():
    """Newtown 4.2.1: "Shuffle the decks and place them facedown"; 4.2.2: "Each
    player draws one card prior to beginning Turn 1" — the American sees that
    the Indian holds a card, not which."""
    game = import_shipped("newtown").load_game()
    rules = game.rules
    american, indian = rules.side_index("american"), rules.side_index("indian")
    s = game.new_initial_state()
    s.bags["indian_hand"] = ("chaos",)
    s.bags["american_hand"] = ("fathers_sons_and_brothers",)
    s.bags["indian_deck"] = tuple(t for t in s.bags["indian_deck"] if t != "chaos")
    theirs, ours = s.observation(american), s.observation(indian)
    assert theirs["bags"]["indian_hand"] == ["hidden"]
    assert ours["bags"]["indian_hand"] == ["chaos"]
    assert theirs["bags"]["american_hand"] == ["fathers_sons_and_brothers"]
    assert ours["bags"]["american_hand"] == ["hidden"]
    # Neither looks into a deck: its size, not its order or cards.
    assert theirs["bags"]["indian_deck"] == ["hidden"] * 11 == ours["bags"]["indian_deck"]
    assert "chaos" not in json.dumps(theirs) and "chaos" in json.dumps(ours)
    # The cup is public.
    assert theirs["bags"]["activation_cup"] == ours["bags"]["activation_cup"] != []
