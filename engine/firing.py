"""Firing counts: which declarations of the rules ran, for `muster soak` and coverage.

Citing a rulebook section is not obeying it; a soak of many games shows
which declarations citing it ever ran. Counting is off by default
(`Game.firing` is None) and costs one attribute test where it is off. Only
the line of play counts: a clone (a bot's look-ahead) has `counted` off. When a
`Firing` is attached to a game, the engine reports each procedure step it
enters, each modifier that changes a roll, each result applied, each table
read, each trigger that runs and each movement restriction that binds, as a
(kind, name) key: ("step", "procedure.step"), ("modifier", "list#index"),
("result", name), ("table", name), ("trigger", name), ("restriction", name).
Inside a step it counts each arm of a conditional taken — ("branch",
"procedure@index:then" or ":else", the index of the `if`'s or loop's test
among the procedure's instructions) — and each row and column of a table
read: ("table_row", "table#row"), ("table_column", "table#column").
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engine.rules import Rules
    from engine.state import State


class Firing:
    """Times each declaration fired, over every game played with this counter."""

    __slots__ = ("_step_at", "counts")

    def __init__(self, rules: Rules) -> None:
        self.counts: Counter[tuple[str, str]] = Counter()
        # procedure -> {instruction index: step name} for each step's first instruction
        self._step_at = {
            name: {pc: step for step, pc in proc.steps.items()}
            for name, proc in rules.procedures.items()
        }

    def instruction(self, proc: str, pc: int) -> None:
        """An instruction is about to run: count the step it begins, if any."""
        step = self._step_at[proc].get(pc)
        if step is not None:
            self.counts[("step", f"{proc}.{step}")] += 1
        elif pc == 0:
            self.counts[("step", f"{proc}.")] += 1  # a procedure without named steps

    def branch(self, proc: str, pc: int, taken: bool) -> None:
        """The test at instruction `pc` held (`taken`: the next instruction runs) or not."""
        self.counts[("branch", branch_name(proc, pc, taken))] += 1


# The instructions whose test chooses between two arms (engine/instructions.py).
BRANCHING = ("jump_if_not", "jump_if_empty", "jump_unless_switch")


def branch_name(proc: str, pc: int, taken: bool) -> str:
    """The key of one arm of the conditional at instruction `pc` of `proc`."""
    return f"{proc}@{pc}:{'then' if taken else 'else'}"


def fired(s: State, kind: str, name: str) -> None:
    """Count one firing of a declaration, when the game counts them."""
    firing = s.game.firing
    if firing is not None and s.counted:
        firing.counts[(kind, name)] += 1
