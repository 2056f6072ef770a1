"""A retreat's distance to its goal (series 13.21: toward a friendly map edge, or
the hexes a battle's rules name) kept per goal and hex once worked out: the same
distances as the goal's hexes gone over one by one."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.primitives import retreat
from engine.queries import board_distance

_KEPT = "distances to a retreat's goal"


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_a_goals_distance_is_to_its_nearest_hex_asked_once_or_again(training, data):
    s = training.new_initial_state()
    training.derived.pop(_KEPT, None)  # (room for this goal's)
    hexes = st.integers(0, len(training.rules.board.cube) - 1)
    goal = tuple(data.draw(st.lists(hexes, min_size=1, max_size=6, unique=True)))
    for h in data.draw(st.lists(hexes, min_size=1, max_size=8)):
        assert retreat.goal_distance(s, h, goal) == min(board_distance(s, h, g) for g in goal)
    assert goal in training.derived[_KEPT]


def test_past_the_kept_goals_a_distance_is_worked_out_as_asked(training):
    """A battle whose goals are many keeps only the first goals' distances; past
    them the retreat goes over the goal's hexes as before, with the same answer."""
    s = training.new_initial_state()
    training.derived.pop(_KEPT, None)
    n = len(training.rules.board.cube)
    goals = [(g,) for g in range(min(n, retreat._GOAL_TABLES + 1))]
    far = n - 1
    found = [retreat.goal_distance(s, far, goal) for goal in goals]
    assert found == [board_distance(s, far, goal[0]) for goal in goals]
    assert list(training.derived[_KEPT]) == goals[: retreat._GOAL_TABLES]
    training.derived.pop(_KEPT, None)
