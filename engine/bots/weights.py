"""The heuristic bot's weights: the one place that says what it values.

A battle tunes them in its rule files with `bot_weights` declarations
(docs/language.md, "Bot weights"); no Python is needed. The weights used
for a game are these defaults, then every declaration without `scenarios`
in declaration order, then those naming the game's scenario: each line
replaces the value before it. Objectives are the map's victory hexes
(`place … victory`) for both sides with weight 1, unless a declaration
that applies lists objectives: then exactly those.

Terms (each a number; the evaluation is a weighted sum, seen from the bot's
side):

- `strength`: each strength point on the map or still to enter, own minus
  the enemy's (steps lost and units eliminated or captured count against);
- `objective`: for each objective, weight × its pull on the side's nearest
  combat unit: 1 when it stands there, falling linearly to 0 at the map's
  breadth, so that every hex nearer counts the same (own minus enemy);
- `attack`: a combat unit's contact with enemy units next to its hex, by
  1 + log2 of the strength ratio, clipped to ±2: seek contact at even odds
  or better, neutral at 1:2, keep away from stronger stacks;
- `attack_threshold`: the odds-column margin over even odds (1:1) that a
  designated close combat must reach, DRMs of the defender's terrain
  included;
- `command`: a combat unit's hex holding (1) or next to (1/2) a friendly
  leader who may command it (14.2: his DRMs in his hex, tactics chits next
  to it); a leader's hex, per unit there he may command (up to 3), and a
  tenth of it per hex away from the nearest of them;
- `surrounded`: a combat unit in contact with no way back (every
  neighbour holds an enemy or lies in an enemy zone of control: a forced
  retreat captures it), per hex in movement, per strength point in the
  evaluation (own minus the enemy's); a leader alone within the enemy's
  reach (14.32) loses as much;
- `occupy`: a unit standing on an objective no friendly unit holds, on
  top of its pull (the scenario's victory is for occupying it);
- `victory`: the standing — the utility of the victory level the
  scenario's conditions would award if checked now (the first that holds,
  in declaration order), for the side or against it;
- `win`: a finished game, times the winner's victory-level utility;
- `exit`: for a side whose victory counts its units off the map (below),
  each strength point that has left by an `exit`, and half as much, times
  its pull, for one still on the map that an exit lets leave (own minus
  the enemy's).

`variables` weigh per-side state variables (`vp`, army morale, a battle's
sidebar VP …): own value minus the enemy's. `terrain` weighs attributes of
the terrain a unit stands in, per point (a `defend_drm -1` forest with
weight −1 is worth +1 to stand in).

Goals no weight names are read from the ways of winning themselves (the
compiler's `goals`, compiler/goals.py: each victory condition and each
trigger that calls `win`, a trigger of a rule switched off aside): a side
makes for its exits when a way of winning counts its exited units (or a
trigger wins when one leaves); a per-side
variable a condition reads that no declaration (nor the defaults) weighs
gets weight 1, signed by the way it wins (+1 for a count a side wants high,
−1 for one it wants low); where no declaration that applies lists
objectives, the hexes the conditions name are objectives too, for the side
they win for, and the exits of a side that wins by leaving are objectives
of the other (to bar them; an exit weighs 1, shared among its hexes). A
battle whose declarations weigh all of it plays as before.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from engine.game import Game
from engine.rules import GoalSpec

DEFAULT_TERMS: dict[str, float] = {
    "strength": 1.0,
    "objective": 40.0,
    "attack": 1.0,
    "attack_threshold": -1.0,
    "command": 0.5,
    "surrounded": 1.0,
    "occupy": 10.0,
    "victory": 30.0,
    "win": 100.0,
    "exit": 10.0,
}
DEFAULT_VARIABLES: dict[str, float] = {"vp": 1.0}
TERMS = frozenset(DEFAULT_TERMS)


@dataclass(frozen=True, slots=True)
class Weights:
    terms: dict[str, float]
    variables: dict[str, float]
    terrain: dict[str, float]
    objectives: tuple[tuple[int, int, float], ...] = field(default=())
    exits: frozenset[int] = frozenset()  # the sides that win by leaving the map

    def __getitem__(self, term: str) -> float:
        return self.terms[term]


def weights_for(game: Game) -> Weights:
    """The weights for this game's scenario: defaults, then the rule files'."""
    terms = dict(DEFAULT_TERMS)
    variables = dict(DEFAULT_VARIABLES)
    terrain: dict[str, float] = {}
    goals = _goals(game)
    exits = _agreed(pair for g in goals for pair in _exit_signs(g))
    exiting = frozenset(p for p, sign in exits.items() if sign > 0)
    objectives = _goal_objectives(game, goals, exiting)
    for spec in _applying(game):
        terms.update(spec.terms)
        variables.update(spec.variables)
        terrain.update(spec.terrain)
        if spec.objectives:
            objectives = spec.objectives
    for name, sign in _agreed(pair for g in goals for pair in _variable_signs(g)).items():
        variables.setdefault(name, float(sign))
    known = {v.name for v in game.rules.variables if v.scope == "side"} | {"vp"}
    variables = {name: w for name, w in variables.items() if name in known}
    return Weights(terms, variables, terrain, objectives, exiting)


def _goals(game: Game) -> list[GoalSpec]:
    """The goals of the game's scenario (and of every scenario) whose rule is on:
    a trigger of an optional rule played without wins no game."""
    scenario = game.scenario.name if game.scenario is not None else None
    return [
        g
        for g in game.rules.goals
        if (not g.scenarios or scenario in g.scenarios) and (not g.rule or game.switch_on[g.rule])
    ]


def _goal_objectives(
    game: Game, goals: list[GoalSpec], exiting: frozenset[int]
) -> tuple[tuple[int, int, float], ...]:
    """The objectives where no declaration lists them: the map's victory hexes for
    both sides, then each other hex a way of winning names, for its winner, then
    the exits the enemy wins by leaving from, for the side that must bar them
    (an exit weighs 1 in all, shared among its hexes)."""
    hexes = game.rules.victory_hexes
    named = dict.fromkeys((h, g.winner) for g in goals for h in g.hexes if h not in hexes)
    barring = [
        (h, p, 1.0 / len(x.hexes))
        for p in range(len(game.rules.sides))
        if exiting - {p}
        for x in game.rules.exits
        for h in sorted(x.hexes)
    ]
    return (
        tuple((h, -1, 1.0) for h in hexes) + tuple((h, p, 1.0) for h, p in named) + tuple(barring)
    )


def _exit_signs(goal: GoalSpec) -> list[tuple[int, int]]:
    """Each side whose exited units the goal counts: +1 when the more leave, the
    better for that side, -1 when the worse, 0 when the rules do not say."""
    return [(p, d if p == goal.winner else -d) for p, d in goal.exits]


def _variable_signs(goal: GoalSpec) -> list[tuple[str, int]]:
    """Each per-side variable the goal reads, signed as own value minus the
    enemy's is weighed: +1 when a side wants its own high."""
    return [(var, d if p == goal.winner else -d) for var, p, d in goal.variables]


def _agreed(pairs: Iterable[tuple[Any, int]]) -> dict[Any, int]:
    """Each key's sign where every goal that reads it agrees on one (a key read
    both ways, or in a way the rules do not say, is left out)."""
    signs: dict[Any, set[int]] = {}
    for key, sign in pairs:
        signs.setdefault(key, set()).add(sign)
    return {key: s.pop() for key, s in signs.items() if len(s) == 1 and 0 not in s}


def _applying(game: Game) -> list[Any]:
    """The rule files' weights for every scenario, then those for this one."""
    scenario = game.scenario.name if game.scenario is not None else None
    declared = game.rules.bot_weights
    return [w for w in declared if not w.scenarios] + [
        w for w in declared if scenario in w.scenarios
    ]
