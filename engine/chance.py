"""Chance outcomes drawn outside the state, keyed by seed and move number.

The state holds no random generator: a sampler picks each outcome from the
chance node's exact probabilities, so the same seed replays the same game and
search can reason over the probabilities instead.
"""

from __future__ import annotations

import hashlib
import random

from engine.state import State


def rng_for(seed: int, move_number: int, salt: str = "chance") -> random.Random:
    digest = hashlib.sha256(f"{salt}:{seed}:{move_number}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def sample(s: State, seed: int) -> int:
    """The outcome of the current chance node for this seed."""
    outcomes = s.chance_outcomes()
    rng = rng_for(seed, s.move_number)
    r = rng.random()
    acc = 0.0
    for outcome, p in outcomes:
        acc += p
        if r < acc:
            return outcome
    return outcomes[-1][0]
