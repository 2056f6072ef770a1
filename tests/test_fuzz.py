"""Fuzzing in CI, on a small budget: random edits of saves and logs of the
training battle are each refused with `SaveError` / `ReplayError`, or load
into a state that plays 30 random actions without an exception.

The long run (`python -m tools.fuzz --minutes N`, every shipped scenario)
is in tools/; its figures are in docs/reliability.md, with those of edits
of saves that have lost their check (hand-written positions), which only
the structural checks guard and which are not all caught (see there).
"""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import chance
from engine.save import dumps
from tests.conftest import eager_action
from tools.fuzz import check_log_edit, check_save_edit, logged_game

EDITS = settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@pytest.fixture(scope="module")
def positions(training) -> list[dict]:
    """Saves of positions all through two games: set-up, movement, combats, the end."""
    out = []
    for seed in (1, 2):
        s = training.new_initial_state()
        rng = random.Random(seed)
        while not s.is_terminal():
            out.append(json.loads(dumps(s)))
            if s.is_chance_node():
                s.apply_action(chance.sample(s, seed))
            else:
                s.apply_action(eager_action(s, rng))
        out.append(json.loads(dumps(s)))
    return out


@pytest.fixture(scope="module")
def logs(training) -> list[list[dict]]:
    return [logged_game(training, seed) for seed in (11, 12, 13)]


@EDITS
@given(st.data(), st.randoms(use_true_random=False))
def test_an_edited_save_is_refused_or_plays_on(training, positions, data, rng):
    position = data.draw(st.sampled_from(positions))
    assert check_save_edit(training, position, rng) in ("refused", "played")


@EDITS
@given(st.data(), st.randoms(use_true_random=False))
def test_an_edited_log_is_refused_or_plays_on(training, logs, tmp_path_factory, data, rng):
    lines = data.draw(st.sampled_from(logs))
    folder = str(tmp_path_factory.getbasetemp())
    assert check_log_edit(training, lines, rng, folder) in ("refused", "played")
