"""What each way of winning reads, for the bots: a battle's goals.

The heuristic bot values what the rule files weigh (`bot_weights`); a new
battle's victory may rest on something no weight names — units leaving the
map, a hex no `place … victory` marks, a per-side count. So that its bots
play for it all the same, the compiler reads every way of winning — each
`victory` condition, and each trigger that calls `win(side, …)` — and
notes what it reads and in which direction:

- the sides whose exited units it counts (`exited_units(side)`), and a
  trigger on the `exited` event, which wins at once when a unit leaves;
- the hexes it names (a constant hex or set of hexes);
- the per-side variables it reads (`army_morale[side]`), each with its side.

The direction (+1: the more, the nearer that win; −1: the less; 0: not
known) is followed through comparisons (`>=` raises its left side and
lowers its right), `not`, subtraction and counts, and into the bodies of
defines, their parameters bound to the caller's arguments, so that
`wavers(s)` called with a side reads that side's army morale. Nothing here knows a
battle: the bots (engine/bots/weights.py) turn the goals into weights.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from compiler import ir

# Binary operators: the direction each operand's rise moves the result.
_DIRECTIONS: dict[str, tuple[int, int]] = {
    ">=": (1, -1),
    ">": (1, -1),
    "<=": (-1, 1),
    "<": (-1, 1),
    "and": (1, 1),
    "or": (1, 1),
    "+": (1, 1),
    "-": (1, -1),
    "*": (1, 1),
    "/": (1, -1),
}
# Aggregates whose value rises with what they gather.
_RISING = frozenset({"sum", "count", "any", "max", "min", "all"})

Env = dict[str, tuple[ir.TExpr, "Env"]]


@dataclass
class Goal:
    """One way of winning and what it reads (names as in the rule files)."""

    winner: str
    scenarios: tuple[str, ...]
    rule: str = ""  # the rule switch a winning trigger is under ("" for none)
    exits: dict[str, int] = field(default_factory=dict)  # side -> direction
    hexes: set[str] = field(default_factory=set)
    variables: dict[tuple[str, str], int] = field(default_factory=dict)  # (var, side) -> dir


def goals(rules: ir.Ruleset) -> list[Goal]:
    """Every victory condition's and every winning trigger's goal, in declaration order."""
    reader = _Reader(rules)
    out = []
    for v in rules.victories:
        goal = Goal(v.winner, v.scenarios)
        reader.read(goal, v.condition, 1, {})
        out.append(goal)
    for t in rules.triggers:
        for winner in reader.winners(t.body):
            goal = Goal(winner, (), t.rule)
            if t.condition is not None:
                reader.read(goal, t.condition, 1, {})
            if t.event == "exited":
                goal.exits[winner] = 1
            out.append(goal)
    return out


class _Reader:
    def __init__(self, rules: ir.Ruleset) -> None:
        self.sides = tuple(s.name for s in rules.sides)
        self.defines = {d.name: d for d in rules.defines}
        self.procedures = {p.name: p for p in rules.procedures}
        self.per_side = {v.name for v in rules.variables if v.scope == "side"}
        self.reading: set[str] = set()  # the defines being read

    def read(self, goal: Goal, e: Any, d: int, env: Env) -> None:
        """Note in `goal` what expression `e` reads, rising in direction `d`."""
        if not self._read_leaf(goal, e, d, env):
            self._read_parts(goal, e, d, env)

    def _read_leaf(self, goal: Goal, e: Any, d: int, env: Env) -> bool:
        """What a constant, a parameter, a define, an exit count or a per-side
        variable reads; False for any other expression."""
        if isinstance(e, ir.Const):
            goal.hexes.update(
                (e.value,) if e.type == "hex" else e.value if e.type == "hexes" else ()
            )
        elif isinstance(e, ir.Binding) and e.name in env:
            arg, outer = env[e.name]
            self.read(goal, arg, d, outer)
        elif isinstance(e, ir.DefineCall) and e.define in self.defines:
            self._read_define(goal, self.defines[e.define], e.args, d, env)
        elif isinstance(e, ir.Query) and e.func == "exited_units" and e.args:
            _note(goal.exits, self.side_of(e.args[0], env), d)
        elif isinstance(e, ir.VarAt) and e.name in self.per_side:
            side = self.side_of(e.index, env)
            _note(goal.variables, None if side is None else (e.name, side), d)
        else:
            return False
        return True

    def _read_define(
        self, goal: Goal, define: ir.Define, args: tuple[ir.TExpr, ...], d: int, env: Env
    ) -> None:
        """A define's body, its parameters bound to the caller's arguments (a
        define that calls itself is read once)."""
        if define.name in self.reading:
            return
        inner = {name: (arg, env) for (name, _), arg in zip(define.params, args, strict=False)}
        self.reading.add(define.name)
        self.read(goal, define.body, d, inner)
        self.reading.discard(define.name)

    def _read_parts(self, goal: Goal, e: Any, d: int, env: Env) -> None:
        """The expressions inside e, each in the direction it moves e."""
        if isinstance(e, ir.Binary):
            left, right = _DIRECTIONS.get(e.op, (0, 0))
            self.read(goal, e.left, d * left, env)
            self.read(goal, e.right, d * right, env)
        elif isinstance(e, ir.Unary):
            self.read(goal, e.operand, -d if e.op in ("not", "-") else d, env)
        elif isinstance(e, ir.Aggregate):
            rising = d if e.op in _RISING else -d
            self.read(goal, e.collection, rising, env)
            if e.body is not None:
                self.read(goal, e.body, rising, env)
        elif isinstance(e, ir.Conditional):
            self.read(goal, e.test, 0, env)
            self.read(goal, e.then, d, env)
            self.read(goal, e.orelse, d, env)
        else:
            for part in _parts(e):
                self.read(goal, part, d if isinstance(e, ir.Where) else 0, env)

    def side_of(self, e: Any, env: Env) -> str | None:
        """The side an expression names, where the rules fix it (None elsewhere)."""
        if isinstance(e, ir.Const) and e.type == "side":
            return e.value
        if isinstance(e, ir.Binding) and e.name in env:
            arg, outer = env[e.name]
            return self.side_of(arg, outer)
        if isinstance(e, ir.Query) and e.func == "enemy" and e.args and len(self.sides) == 2:
            side = self.side_of(e.args[0], env)
            return None if side is None else self.sides[1 - self.sides.index(side)]
        return None

    def winners(self, body: tuple[ir.TStmt, ...]) -> list[str]:
        """The sides a block's `win(side, …)` effects name, through the procedures
        it calls (each once)."""
        found: list[str] = []
        seen: set[str] = set()
        for stmt in _statements(body, self.procedures, seen):
            if isinstance(stmt, ir.Effect) and stmt.func == "win" and stmt.args:
                side = self.side_of(stmt.args[0], {})
                if side is not None and side not in found:
                    found.append(side)
        return found


def _note(out: dict[Any, int], key: Any, d: int) -> None:
    """Record a read's direction (None: a side the rules do not fix, not
    recorded); two reads that disagree leave it unknown (0)."""
    if key is not None:
        out[key] = d if out.get(key, d) == d else 0


def _parts(e: Any) -> Iterator[Any]:
    """The expressions directly inside e."""
    if not dataclasses.is_dataclass(e):
        return
    for f in dataclasses.fields(e):
        value = getattr(e, f.name)
        if isinstance(value, ir.TExpr):
            yield value
        elif isinstance(value, tuple):
            yield from (v for v in value if isinstance(v, ir.TExpr))


def _statements(
    body: tuple[ir.TStmt, ...], procedures: dict[str, ir.Procedure], seen: set[str]
) -> Iterator[ir.TStmt]:
    """Every statement of a block, nested blocks and called procedures included."""
    for stmt in body:
        yield stmt
        if isinstance(stmt, ir.CallProc) and stmt.proc in procedures and stmt.proc not in seen:
            seen.add(stmt.proc)
            for step in procedures[stmt.proc].steps:
                yield from _statements(step.body, procedures, seen)
        for f in dataclasses.fields(stmt):
            value = getattr(stmt, f.name)
            if isinstance(value, tuple) and value and isinstance(value[0], ir.TStmt):
                yield from _statements(value, procedures, seen)
