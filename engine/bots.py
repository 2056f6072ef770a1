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


class EagerBot(RandomBot):
    """Picks among the legal actions, rarely passing (one time in ten), so that
    units close with the enemy and fight: a scripted opponent for soaks."""

    name = "eager"

    def step(self, s: State) -> int:
        actions = s.legal_actions(self.player)
        if len(actions) > 1 and 0 in actions and self.rng.random() < 0.9:
            actions = [a for a in actions if a != 0]
        return self.rng.choice(actions)


BOTS = {"random": RandomBot, "eager": EagerBot}


def make_bot(name: str, player: int, seed: int) -> RandomBot:
    if name not in BOTS:
        raise ValueError(f"unknown bot {name!r}; known: {', '.join(sorted(BOTS))}")
    return BOTS[name](player, random.Random(f"{seed}:{player}:{name}"))
