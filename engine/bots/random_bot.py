"""The random bot: a baseline that picks uniformly among the legal actions."""

from __future__ import annotations

import random

from engine.state import State


class RandomBot:
    """Picks uniformly among the legal actions (they are public: the rules say
    what a player may do, whatever the other side hides)."""

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
