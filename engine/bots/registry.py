"""The bots by name, and the `--bots heuristic,mcts:200` notation.

A bot spec is a registered name, and for a bot that takes one a budget after
a colon. Each bot gets its own generator, seeded from the game's seed, its
player and its spec, so a game replays from its seed whoever plays it.
"""

from __future__ import annotations

import random
from typing import Any, Protocol

from engine.bots.heuristic import HeuristicBot
from engine.bots.mcts import MctsBot
from engine.bots.random_bot import EagerBot, RandomBot
from engine.errors import BadInput
from engine.state import State


class Bot(Protocol):
    name: str

    def step(self, s: State) -> int: ...


# Name -> class: `cls(player, rng)` makes one; a class with `parse_budget`
# also takes a budget after a colon (`mcts:200`), passed on as
# `cls(player, rng, *cls.parse_budget(budget))`. To add a bot, add its class.
BOTS: dict[str, Any] = {
    "random": RandomBot,
    "eager": EagerBot,
    "heuristic": HeuristicBot,
    "mcts": MctsBot,
}


class BotSpecError(BadInput):
    """A bot spec that names no bot, or gives a budget the bot cannot take."""


def check_spec(spec: str) -> None:
    """Raise `BotSpecError` unless `spec` names a bot (with a budget it takes)."""
    name, _, budget = spec.partition(":")
    if name not in BOTS:
        raise BotSpecError(f"unknown bot {spec!r}; known: {', '.join(BOTS)}")
    if hasattr(BOTS[name], "parse_budget"):
        try:
            BOTS[name].parse_budget(budget)
        except ValueError as e:
            raise BotSpecError(str(e)) from None
    elif budget:
        raise BotSpecError(f"bot {name!r} takes no budget (got {spec!r})")


def parse_bots(text: str, sides: int) -> list[str]:
    """`"heuristic,mcts:200"` → one checked spec per side."""
    specs = [part.strip() for part in text.split(",")]
    if len(specs) != sides:
        raise BotSpecError(f"--bots needs {sides} bots, one per side (got {text!r})")
    for spec in specs:
        check_spec(spec)
    return specs


def make_bot(spec: str, player: int, seed: int) -> Bot:
    """A bot for `player` with its own generator, seeded from seed, player and spec."""
    check_spec(spec)
    name, _, budget = spec.partition(":")
    cls = BOTS[name]
    rng = random.Random(f"{seed}:{player}:{spec}")
    if hasattr(cls, "parse_budget"):
        return cls(player, rng, *cls.parse_budget(budget))
    return cls(player, rng)
