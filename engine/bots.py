"""Bots that play a side: each sees only what its player may see and decides."""

from __future__ import annotations

import random

from engine.state import State


class RandomBot:
    """Picks uniformly among the legal actions."""

    name = "random"

    def __init__(self, player: int, rng: random.Random) -> None:
        self.player = player
        self.rng = rng

    def step(self, s: State) -> int:
        return self.rng.choice(s.legal_actions(self.player))


BOTS = {"random": RandomBot}


def make_bot(name: str, player: int, seed: int) -> RandomBot:
    if name not in BOTS:
        raise ValueError(f"unknown bot {name!r}; known: {', '.join(sorted(BOTS))}")
    return BOTS[name](player, random.Random(f"{seed}:{player}:{name}"))
