"""Where the game waits: decision and chance nodes, and the error of impossible rules.

The lowest layer of the run time with `state.py`: primitives return these,
the interpreter stops at them, `State` reports them.
"""

from __future__ import annotations

from dataclasses import dataclass

CHANCE = -1
TERMINAL = -4


class RulesError(Exception):
    """A rule file asked for something impossible at run time (a bug in the rules)."""


# The errors a rule itself raises when it asks the impossible at run time: an
# empty choice (RulesError), a lookup off a table (ValueError), a division by
# zero. Only with the engine's note naming the rule (`engine.sources.rule_note_of`)
# are they the rules' fault; without it, a failure is Muster's own.
RULE_FAULTS = (RulesError, ValueError, ArithmeticError)


@dataclass(frozen=True, slots=True)
class Node:
    """A point where the game waits: a player's decision or a chance event.

    For a decision, `actions` are the legal action ids; for a chance node,
    `outcomes` are (outcome, probability) pairs and `player` is CHANCE.
    `prompt` says what is being decided, for the account of the game.
    """

    player: int
    actions: tuple[int, ...] = ()
    outcomes: tuple[tuple[int, float], ...] | None = None
    prompt: str = ""


TERMINAL_NODE = Node(TERMINAL)
# Returned by a primitive's `run` that did some work by itself: run me again
# (after any events its work raised have been dispatched to triggers).
CONTINUE = Node(-2)
