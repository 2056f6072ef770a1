"""Fuzzing in CI: random edits of saves and logs of the training battle are
each refused with `SaveError` / `ReplayError`, or load into a state that
plays 30 random actions, the invariants checked after each, without an
exception.

Two kinds of test share the edits of `tools/mutations.py`:

- hypothesis, 300 edits of each kind, its random draws shrunk on a failure;
- the sweep: 10,000 edits of saves, 10,000 of saves that have lost their
  check (hand-written positions, which only the structural and invariant
  checks guard) and 10,000 of logs, in batches of 1,000 from fixed seeds, so
  that a failure names the batch and edit that reproduce it. An edit costs
  about 0.5 ms (a save) to 2.5 ms (a log, certified by replaying its game):
  the file takes some 25 s of CPU (docs/reliability.md has the figures).

The long run (`python -m tools.fuzz --minutes N`, every shipped scenario)
is in tools/.
"""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import chance
from engine.play import ReplayError, certify, parse_log
from engine.save import SaveError, dumps, loads
from tests.conftest import eager_action
from tools.fuzz import (
    check_log_edit,
    check_log_text,
    check_save_edit,
    check_save_text,
    check_seeds,
    edited_save,
    logged_game,
)
from tools.mutations import LOG_SEEDS, SAVE_SEEDS, mutate_log

EDITS = settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
SWEEP_BATCHES = 10
SWEEP_BATCH = 1_000


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
def test_an_edited_log_is_refused_or_plays_on(training, logs, data, rng):
    lines = data.draw(st.sampled_from(logs))
    assert check_log_edit(training, lines, rng) in ("refused", "played")


@pytest.mark.slow
@pytest.mark.parametrize("batch", range(SWEEP_BATCHES))
@pytest.mark.parametrize("kind", ["save", "save without its check", "log"])
def test_ten_thousand_edits_of_each_kind(training, positions, logs, kind, batch, tmp_path):
    rng = random.Random(f"{kind} {batch}")
    outcomes: Counter[str] = Counter()
    for i in range(SWEEP_BATCH):
        if kind == "log":
            text: str | bytes = mutate_log(rng, rng.choice(logs))
        else:
            text = edited_save(rng, rng.choice(positions), keep_check=kind == "save")
        try:
            if kind == "log":
                outcome = check_log_text(training, text, rng, partial=rng.random() < 0.5)
            else:
                outcome = check_save_text(training, text, rng)
        except Exception as e:  # any exception is the finding: keep the edit that made it
            kept = tmp_path / f"edit-{i}.{'jsonl' if kind == 'log' else 'json'}"
            kept.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8", "replace"))
            pytest.fail(f"{kind} edit {i} of batch {batch} ({kept}): {type(e).__name__}: {e}")
        outcomes[outcome] += 1
    assert sum(outcomes.values()) == SWEEP_BATCH
    # Both halves of the property are exercised: edits refused, and edits played on.
    assert outcomes["refused"] > 0 and outcomes["played"] > 0, outcomes


def test_the_regression_seeds_have_their_outcomes(training, positions, logs):
    """The fixed edits of issue 30 (`tools/mutations.py`): each is refused, or
    loads, plays on and saves again, from every position of two games."""
    assert check_seeds(training, positions[:-1], logs[0]) == "held"


@pytest.mark.parametrize("seed, want", SAVE_SEEDS, ids=lambda x: getattr(x, "__name__", x))
def test_a_save_seed_is_refused_with_its_place(training, positions, seed, want):
    try:
        loads(training, seed(positions[5]))
    except SaveError as e:
        assert want == "refused" and e.path.startswith("$"), e
    else:
        assert want == "played"


@pytest.mark.parametrize("seed, want", LOG_SEEDS, ids=lambda x: getattr(x, "__name__", x))
def test_a_log_seed_is_refused_with_its_line(training, logs, seed, want):
    assert want == "refused"
    with pytest.raises(ReplayError, match=r"^edit\.jsonl:\d+: "):
        certify(training, parse_log("edit.jsonl", seed(logs[0])))
