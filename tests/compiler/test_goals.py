"""The goals the compiler reads from each way of winning (compiler/goals.py):
exits counted, hexes named and per-side variables read, each in its direction,
through defines and their parameters and through winning triggers."""

from __future__ import annotations

from pathlib import Path

import pytest

from compiler.check import compile_ruleset
from compiler.goals import Goal, goals
from tests.conftest import compiled

DESIGNER = Path(__file__).parents[1] / "data" / "designer"


def _goals(battle: str | Path) -> list[Goal]:
    rules, _sources = compile_ruleset(battle)
    return goals(rules)


@pytest.fixture(scope="module")
def monmouth_goals() -> list[Goal]:
    return goals(compiled("monmouth")[0])


def test_a_victory_that_counts_exited_units_makes_them_a_goal():
    """The Escape: `blue_sp_exited >= 3` (a define over `exited_units(blue)`) and
    the trigger that wins at 6 count Blue's exits, the more the better; Red's
    `when yes` reads nothing."""
    found = _goals(DESIGNER / "the_escape")
    assert [(g.winner, g.exits) for g in found] == [
        ("blue", {"blue": 1}),
        ("red", {}),
        ("blue", {"blue": 1}),
    ]


def test_a_trigger_on_a_unit_leaving_that_wins_is_an_exit_goal():
    """The Crossing: the lights leaving by the east road win at once (a trigger
    on `exited` calling `win(british, …)`); holding the crossroads names its hex."""
    found = _goals(DESIGNER / "the_crossing")
    assert ("british", {"british": 1}) in [(g.winner, g.exits) for g in found]
    assert [g.hexes for g in found if g.winner == "british" and not g.exits] == [{"0803"}]


def test_a_hex_a_victory_names_is_its_winners_goal():
    """The Ambush: Red wins by a unit on 0504, which no `place … victory` marks."""
    found = _goals(DESIGNER / "the_ambush")
    assert [(g.winner, g.hexes) for g in found] == [("red", {"0504"}), ("blue", set())]


def test_a_variable_read_below_a_bound_is_wanted_low():
    """Newtown: an army demoralised at `army_morale[side] <= 0` is the other
    side's win, so the winner wants that morale low (-1)."""
    found = _goals("newtown")
    morale = [(g.winner, g.variables) for g in found if g.variables]
    assert morale == [
        ("indian", {("army_morale", "american"): -1}),
        ("american", {("army_morale", "indian"): -1}),
    ]


def test_a_define_with_a_side_parameter_reads_that_sides_variables(monmouth_goals):
    """Monmouth: `margin(british) >= 3` reads, through the define's parameter and
    its subtraction, the British sidebar VP rising and the American falling."""
    marginal = [
        g.variables
        for g in monmouth_goals
        if g.winner == "british" and g.scenarios == ("campaign",) and g.variables
    ]
    assert marginal == [{("sidebar_vp", "british"): 1, ("sidebar_vp", "american"): -1}]


def test_a_trigger_whose_winner_the_rules_do_not_fix_is_no_goal(monmouth_goals):
    """The series' demoralisation trigger wins for `enemy(side)` of its event's
    side: no side is named, so it gives no goal (the victory conditions do)."""
    assert all(g.scenarios for g in monmouth_goals)
