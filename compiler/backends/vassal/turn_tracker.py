"""The Turn tracker's position as a command of VASSAL's: where a game or a log puts it.

The module has one TurnTracker (`buildfile._turns`): a Game Turn level counting
from the battle's first turn to its last, and under it the list of phases
(`phases`). VASSAL writes its position as a SetTurn command, both in a saved
game (restoring the tracker) and in a log (a step moving it on): `TURN` and
the tracker's id, a tab, then the tracker's state (TurnTracker, CounterTurnLevel
and ListTurnLevel of VASSAL 3.7, `getState`):

- the tracker: the level its buttons step (0, the Game Turn), `|`, the Game
  Turn level's state;
- the Game Turn level, `;`-separated: the turn, its current sub-level (0, the
  phases), whether it loops, the last turn, then the phase level's state;
- the phase level, `;`-separated: the phase's place in the list, its current
  sub-level (0: it has none), the first phase (0), and whether each phase is
  active (all are), `,`-separated.

VASSAL numbers its TurnTrackers as it builds them, from 0: the module's only
one is `TurnTracker0`.
"""

from __future__ import annotations

from compiler.backends.vassal.sequence import sequence

TRACKER = "TurnTracker0"


def set_turn(turn: int, last: int, phase: int, phases: int) -> str:
    """The command that puts the tracker on `turn` (of turns up to `last`) and on the
    phase numbered `phase` of `phases` (none when the module lists no phases)."""
    level = [turn, 0, True, last]
    if phases:
        level.append(sequence((phase, 0, 0, sequence([True] * phases, ",")), ";"))
    state = sequence((0, sequence(level, ";")), "|")
    return sequence(("TURN" + TRACKER, state), "\t")
