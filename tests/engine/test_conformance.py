"""Random play of the training battle keeps the engine's promises (OpenSpiel-style)."""

from __future__ import annotations

import random

import pytest

from engine import chance
from tests.conftest import eager_action


@pytest.mark.slow
def test_random_games_keep_invariants(training):
    game = training
    lengths = []
    for seed in range(100):
        s = game.new_initial_state()
        rng = random.Random(seed)
        eager = seed % 2 == 0
        while not s.is_terminal():
            assert s.move_number <= game.max_game_length()
            if s.is_chance_node():
                outcomes = s.chance_outcomes()
                assert abs(sum(p for _o, p in outcomes) - 1.0) < 1e-9
                assert all(0 <= o < game.max_chance_outcomes() for o, _p in outcomes)
                action = chance.sample(s, seed)
                assert action in [o for o, _p in outcomes]
            else:
                legal = s.legal_actions()
                assert legal, f"seed {seed}: a non-terminal state without legal actions"
                assert len(set(legal)) == len(legal)
                assert all(0 <= a < game.num_distinct_actions() for a in legal)
                # Every legal action applies (checked on clones, all of them in a few games).
                tried = legal if seed < 10 else rng.sample(legal, min(3, len(legal)))
                for a in tried:
                    c = s.clone()
                    c.apply_action(a)
                action = eager_action(s, rng) if eager else rng.choice(legal)
            clone = s.clone()
            assert clone == s
            s.apply_action(action)
            if seed < 10:
                assert clone != s
            returns = s.returns()
            assert all(game.min_utility() <= r <= game.max_utility() for r in returns)
        assert s.move_number <= game.max_game_length()
        assert abs(sum(s.returns())) < 1e-9
        assert s.legal_actions() == []
        lengths.append(s.move_number)
    assert max(lengths) > min(lengths)  # games differ


def test_clone_is_independent(training):
    s = training.new_initial_state()
    c = s.clone()
    c.apply_action(c.legal_actions()[1])
    assert c != s
    assert s.move_number == 0
