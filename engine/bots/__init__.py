"""Bots that play a side, each deciding only from its side's observation.

`random` (uniform, a baseline), `heuristic` (engine/bots/heuristic.py) and
`mcts` (engine/bots/mcts.py), made by name through the registry
(engine/bots/registry.py): `make_bot("mcts:200", player, seed)`.
"""

from engine.bots.registry import BOTS, Bot, BotSpecError, check_spec, make_bot, parse_bots

__all__ = ["BOTS", "Bot", "BotSpecError", "check_spec", "make_bot", "parse_bots"]
