"""A retreat's distance to its goal (series 13.21: toward a friendly map edge, or
the hexes a battle's rules name) read from a table kept per goal: the same
distances as the goal's hexes gone over one by one."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.primitives import retreat
from engine.queries import board_distance


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_a_goals_table_holds_the_distance_to_its_nearest_hex(training, data):
    s = training.new_initial_state()
    training.derived.pop("distances to a retreat's goal", None)  # (room for this goal's)
    hexes = st.integers(0, len(training.rules.board.cube) - 1)
    goal = tuple(data.draw(st.lists(hexes, min_size=1, max_size=6, unique=True)))
    table = retreat._distances_to(s, goal)
    assert table is not None and table is retreat._distances_to(s, goal)
    h = data.draw(hexes)
    assert table[h] == min(board_distance(s, h, g) for g in goal)


def test_past_the_kept_goals_a_distance_is_worked_out_as_asked(training):
    """A battle whose goals are many keeps only the first tables; past them the
    retreat goes over the goal's hexes as before."""
    s = training.new_initial_state()
    training.derived.pop("distances to a retreat's goal", None)
    n = len(training.rules.board.cube)
    goals = [(g,) for g in range(min(n, retreat._GOAL_TABLES + 1))]
    tables = [retreat._distances_to(s, goal) for goal in goals]
    assert all(t is not None for t in tables[: retreat._GOAL_TABLES])
    assert tables[retreat._GOAL_TABLES :] == [None] * (len(goals) - retreat._GOAL_TABLES)
    training.derived.pop("distances to a retreat's goal", None)
