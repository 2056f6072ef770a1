"""The movement primitive: the phasing player moves units one hex at a time.

Each action steps one unit into a neighbouring hex (9.1); stepping another
unit ends the previous unit's move ("each unit must complete its movement
before any other unit may move"), and PASS ends the phase — not while a
unit that `must_move` may still move (13.1 PIN case B). The rule file
supplies the stacking limit, when a unit must stop, extra costs (8.31),
who may move strategically and (`who`) which units this phase moves, as
expressions. A step into a hex where a `no_end` restriction binds the unit
is offered only when the unit can go on from there to a hex where it may
end its move. Choosing a unit (its unit
action) starts its move as strategic movement (9.52): up to `strategic_factor`
times (the series: twice) its
allowance, every hexside crossed a road or track that carries it. A unit
standing on a hex of an `exit` of the rules, with its cost still left of
its allowance and the exit's condition holding, may leave the map instead
(its exit action): it is then exited, out of play.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from enum import Enum
from functools import lru_cache, partial
from typing import Any, ClassVar

from engine import incremental
from engine.board import DIRECTIONS, PROHIBITED, step_cost
from engine.describe import hex_label, unit_name
from engine.effects import arrived, exit_map, say
from engine.nodes import Node
from engine.primitives.base import Primitive, register
from engine.queries import units_of
from engine.restrictions import (
    UnitTests,
    allowance,
    max_hexes,
    may_bind,
    may_move,
    refused_end,
    refused_entry,
)
from engine.rules import BoardSpec, ExitSpec, Rules
from engine.state import MAX_UNITS, Frame, GameOfState, State
from engine.terrain_state import board_of
from engine.vocabulary import Lambda, primitive

# Answers a question about the position: `ask(key, compute, *args)`.
Ask = Callable[..., Any]


def _caller(s: State, frame: Frame) -> dict[str, Any]:
    """The bindings of the frame below the primitive's, which its expressions also
    read (`Primitive.call`, written out for the steps asked about most)."""
    stack = s.stack
    return stack[-2].b if stack[-1] is frame else stack[stack.index(frame) - 1].b


class Refused(Enum):
    """Why the rules refuse a unit a step: what `MoveUnits._refusal` answers (None: the
    step is legal), and what `engine/explain.py` puts in the rules' words."""

    NO_MOVE = "a no_move restriction holds the unit"
    MAX_HEXES = "the unit has moved its max_hexes"
    PROHIBITED = "off the map, or terrain or a hexside the unit may not enter"
    OFF_ROAD = "strategic movement goes along roads and tracks only (9.52)"
    ENEMY = "enemy combat units hold the hex (9.2)"
    STRATEGIC_ALLOWANCE = "beyond strategic_factor times the allowance (9.52)"
    STRATEGIC_STEP = "the rules' strategic_step refuses it"
    ALLOWANCE = "beyond the movement allowance (9.1)"
    RESTRICTED = "a no_entry or confined_to restriction"
    OVERSTACKED = "the rules' stacking limit"
    DEAD_END = "a no_end restriction, and no way on from there"
    NO_EXIT = "no exit of the rules leaves the map from the unit's hex"
    EXIT_EXCLUDED = "the exit's condition does not allow the unit"
    EXIT_COST = "leaving the map costs more MP than the unit has left"


@lru_cache(maxsize=8)
def _blockers(game: GameOfState) -> tuple[frozenset[int], ...]:
    """For each unit, the units whose hex it may not step into (9.2): enemy combat
    units; enemy leaders alone may be entered by combat units, which capture them
    (14.32, by the rules). The rules' units and sides alone: worked out once per
    game (and looked up in C), so that a step into an occupied hex is tested in
    one call."""
    units = game.rules.units
    kinds = {(x.side, x.kind != "unit") for x in units}  # (a side, and whether a leader)
    found = {kind: _enemies(units, *kind) for kind in kinds}
    return tuple(found[(x.side, x.kind != "unit")] for x in units)


def _enemies(units: tuple[Any, ...], side: int, leader: bool) -> frozenset[int]:
    """The units whose hex a unit of `side` may not step into: enemy units, only
    their combat units unless it is a leader."""
    return frozenset(
        o for o, x in enumerate(units) if x.side != side and (leader or x.kind == "unit")
    )


_UNKNOWN = object()  # not among the answers held (an allowance, a refusal, may be None)

# Questions are keyed by ints, which hash at once (a tuple hashes its members at
# every look-up, and a key is looked up some ten times each time it is worked
# out): the unit below `MAX_UNITS`, the kind of question above it, then the
# direction, then what else the answer depends on (the restrictions that may
# bind the unit, by their number; the allowance, and whether the unit may always
# move one hex), so that no two questions share a key. A unit's own question
# (its actions) is its number.
(
    _WHO,
    _MUST,
    _ALLOWANCE,
    _ONE_HEX,
    _STEP,
    _STRATEGIC,
    _STRATEGIC_STEP,
    _STACKING,
    _RESTRICTIONS,
    _EXIT,
) = (kind * MAX_UNITS for kind in range(1, 11))
# Whether the rules' `between_moves` is offered: a question of the side's, not a unit's.
_BETWEEN = 11 * MAX_UNITS
_DIRECTION = 16 * MAX_UNITS  # times the direction (below 8)
_BOUND = 8 * _DIRECTION  # times the number of the restrictions (`_numbered`)
_NUMBERS = 1 << 16  # (below this)
_REST = _NUMBERS * _BOUND  # times (the allowance × 2 + the one-hex minimum)
# Where `_numbered` keeps its numbers, in `Game.derived`.
_NUMBERED = "the restrictions that may bind a unit, numbered"


@lru_cache(maxsize=256)
def _numbered(game: GameOfState, tests: UnitTests) -> int:
    """The number of the restrictions that may bind a unit (`may_bind`), as first met
    in the game: a step's answer depends on them as on the allowance, and is
    kept by them rather than asking for them at every step. (Looked up in C.)"""
    numbers = game.derived.setdefault(_NUMBERED, {})
    found = numbers.setdefault(tests, len(numbers))
    if found >= _NUMBERS:
        raise OverflowError("more sets of movement restrictions than a step's key holds")
    return found


primitive(
    "move_units",
    ("side", "side"),
    ("stacking", Lambda("bool", (("units", "units"),))),
    (
        "stop_after",
        Lambda("bool", (("unit", "unit"), ("hex", "hex"), ("from", "hex"), ("to", "hex"))),
    ),
    ("extra_cost", Lambda("int", (("unit", "unit"), ("from", "hex"), ("to", "hex")))),
    ("strategic", Lambda("bool", (("unit", "unit"),))),
    (
        "strategic_step",
        Lambda("bool", (("unit", "unit"), ("hex", "hex"), ("from", "hex"), ("to", "hex"))),
    ),
    ("who", Lambda("bool", (("unit", "unit"),))),
    ("strategic_factor", Lambda("int", (("unit", "unit"),))),
    ("one_hex_minimum", Lambda("bool", (("unit", "unit"),))),
    ("must_move", Lambda("bool", (("unit", "unit"),))),
    ("between_moves", "procedure"),
    ("between_moves_when", Lambda("bool", ())),
    optional=(
        "stop_after",
        "extra_cost",
        "strategic",
        "strategic_step",
        "who",
        "strategic_factor",
        "one_hex_minimum",
        "must_move",
        "between_moves",
        "between_moves_when",
    ),
    needs=(
        ("strategic", "strategic_factor"),  # 9.52: how far a strategic move goes
        ("between_moves_when", "between_moves"),
    ),
    doc="The phasing side moves its units one hex per action until it passes.",
)


class MoveUnits(Primitive):
    name = "move_units"
    fields: ClassVar[dict[str, str]] = {
        "side": "side",
        "active": "unit",
        "spent": "int",
        "hexes": "int",
        "strategic": "bool",
        "moved": "units",
        "stop": "bool",
        "done": "bool",
        "between_moves": "procedure",
    }

    def start(self, s: State, frame: Frame, args: dict[str, Any], site: tuple[str, int]) -> None:
        super().start(s, frame, args, site)
        frame.b.setdefault("between_moves", "")
        frame.b.update(
            active=-1,
            spent=0,
            hexes=0,
            strategic=False,
            moved=_halted(s, frame.b["side"]),
            stop=False,
        )

    def cost(self, s: State, frame: Frame, u: int, a: int, d: int) -> int:
        """MP to step from hex a in direction d: terrain, plus what the rules add (8.31)."""
        return self._plus_extra(s, frame, u, a, d, step_cost(s.game.rules, u, a, d, board_of(s)))

    def _plus_extra(self, s: State, frame: Frame, u: int, a: int, d: int, terrain: int) -> int:
        """The step's cost given its terrain's: what the rules add (8.31) added."""
        if terrain == PROHIBITED:
            return terrain
        extra = frame.params.get("extra_cost")  # type: ignore[union-attr]
        if extra is None:
            return terrain
        b = s.game.rules.board.neighbors[a][d]
        return terrain + int(extra(s, {**_caller(s, frame), "unit": u, "from": a, "to": b}))

    def _refusal(
        self,
        s: State,
        frame: Frame,
        u: int,
        d: int,
        spent: int,
        ma: int,
        strategic: bool,
        one_hex: bool,
        tests: UnitTests,
        at: int | None = None,
        hexes: int = 0,
        tried: dict[tuple[int, int], tuple[int, int]] | None = None,
    ) -> Refused | None:
        """What refuses unit u, having spent `spent` of allowance `ma` over `hexes`
        hexes, a step in direction d; None when the step is legal. (`one_hex`:
        whether it may always move one hex; `tests`: the restrictions that may
        bind it, `may_bind`; `at`: the hex it steps from, if not where it stands
        — a step looked ahead.)

        Every legal step is found here: the cheap tests (the map, enemy units)
        come first, and it calls out only for what is seldom the case.
        """
        game = s.game
        position = s._watched  # (the decision's: `run`, `step_refusal`)
        board = position.board
        a = s.unit_hex[u] if at is None else at
        b = board.neighbors[a][d]
        if board is game.rules.board:  # (`step_cost`, on the printed map)
            terrain = game.step_costs[u][a][d]
        else:
            terrain = step_cost(game.rules, u, a, d, board)
        if b < 0 or terrain == PROHIBITED:
            return Refused.PROHIBITED
        here = position.index.get(b, ())  # (most hexes stepped into are empty)
        if here and not _blockers(game)[u].isdisjoint(here):
            return Refused.ENEMY
        if strategic:
            refusal = self._strategic_refusal(s, frame, u, a, b, d, terrain, spent, ma)
            if refusal is not None:
                return refusal
        elif ma <= 0 or (
            (spent > 0 or not one_hex) and spent + self._plus_extra(s, frame, u, a, d, terrain) > ma
        ):
            return Refused.ALLOWANCE  # the first hex costs what it may: one hex always (9.1)
        no_entry, confined, no_end = tests  # (most often none: no call to test them)
        if (no_entry or confined) and refused_entry(s, u, b, a, tests) is not None:
            return Refused.RESTRICTED
        if here:
            within = self._within(s, frame, here, u)
        else:  # (the unit alone: a question of its own, asked once for the unit)
            within = position.kept(s, u + _STACKING, self._within, s, frame, (), u)
        if not within:
            return Refused.OVERSTACKED
        if no_end:
            return self._end_refusal(
                s, frame, u, a, b, d, tests, spent, hexes, ma, strategic, tried
            )
        return None

    def _strategic_refusal(
        self,
        s: State,
        frame: Frame,
        u: int,
        a: int,
        b: int,
        d: int,
        terrain: int,
        spent: int,
        ma: int,
    ) -> Refused | None:
        """9.52: along roads and tracks only, up to `strategic_factor` times the
        allowance (the series says twice), no one-hex minimum, and where the
        rules' `strategic_step` lets it go on."""
        if not s._watched.board.strategic[a] >> d & 1:
            return Refused.OFF_ROAD
        factor = self.call(s, frame, "strategic_factor", unit=u)
        if spent + self._plus_extra(s, frame, u, a, d, terrain) > factor * ma:
            return Refused.STRATEGIC_ALLOWANCE
        if "strategic_step" in frame.params and not self.call(  # type: ignore[operator]
            s, frame, "strategic_step", unit=u, hex=b, **{"from": a, "to": b}
        ):
            return Refused.STRATEGIC_STEP
        return None

    def _end_refusal(
        self,
        s: State,
        frame: Frame,
        u: int,
        a: int,
        b: int,
        d: int,
        tests: UnitTests,
        spent: int,
        hexes: int,
        ma: int,
        strategic: bool,
        tried: dict[tuple[int, int], tuple[int, int]] | None,
    ) -> Refused | None:
        """A step into a hex where a `no_end` forbids unit u to end its move is legal
        only if it may go on from there to a hex where it may: "may not end its
        move there" is then kept, not found broken when the unit has to stop."""
        if refused_end(s, u, b, tests) is None:
            return None
        spent += self.cost(s, frame, u, a, d)  # (seldom: worked out again)
        tried = {} if tried is None else tried
        if self._goes_on(s, frame, u, a, b, spent, hexes + 1, ma, strategic, tests, tried):
            return None
        return Refused.DEAD_END

    def step_refusal(self, s: State, frame: Frame, u: int, d: int) -> Refused | None:
        """What refuses unit u the step in direction d in this phase now (the unit's
        own refusal first: `unit_refusal`); None when the rules allow it. The same
        tests the legal steps are worked out with, for `engine/explain.py`."""
        spent, hexes, strategic = self.move_so_far(frame, u)
        refusal = self.unit_refusal(s, u, hexes)
        if refusal is not None:
            return refusal
        ma = allowance(s, u)
        one_hex = spent > 0 or strategic or self._one_hex(s, frame, u)
        tests = may_bind(s, u)
        refuse = self._refusal
        return incremental.held_still(
            s, refuse, s, frame, u, d, spent, ma, strategic, one_hex, tests, None, hexes
        )

    @staticmethod
    def move_so_far(frame: Frame, u: int) -> tuple[int, int, bool]:
        """The MP unit u has spent and the hexes it has moved in this phase, and whether
        it moves strategically: nothing yet, unless it is the unit moving now."""
        b = frame.b
        if b["active"] != u:
            return 0, 0, False
        return b["spent"], b["hexes"], bool(b["strategic"])

    @staticmethod
    def unit_refusal(s: State, u: int, hexes: int) -> Refused | None:
        """What holds unit u, having moved `hexes` hexes, where it stands: a `no_move`
        before it moves, or its `max_hexes` reached; None when it may step on."""
        if hexes == 0 and not may_move(s, u):
            return Refused.NO_MOVE
        limit = max_hexes(s, u)
        if limit is not None and hexes >= limit:
            return Refused.MAX_HEXES
        return None

    @staticmethod
    def _within(s: State, frame: Frame, here: tuple[int, ...], u: int) -> bool:
        """Whether unit u may stand with the units `here` (the rules' stacking limit)."""
        params = frame.params
        assert params is not None
        together = here if u in here else (*here, u)
        return bool(params["stacking"](s, {**_caller(s, frame), "units": together}))

    def _goes_on(
        self,
        s: State,
        frame: Frame,
        u: int,
        a: int,
        b: int,
        spent: int,
        hexes: int,
        ma: int,
        strategic: bool,
        tests: UnitTests,
        tried: dict[tuple[int, int], tuple[int, int]],
    ) -> bool:
        """Having stepped from a into b, where it may not end its move, may unit u go
        on to a hex where it may? Not if it must stop in b (`stop_after`), has
        moved its `max_hexes`, or every way on is closed.

        `tried` holds the steps (a, b) this search has already followed in vain,
        with the MP and hexes spent: the same step again with no fewer spent
        can do no better, so the search follows each step a few times at most.
        """
        if _tried_for_less(tried, a, b, spent, hexes):
            return False
        tried[(a, b)] = (spent, hexes)
        if self.has_lambda(s, frame, "stop_after") and self.call(
            s, frame, "stop_after", unit=u, hex=b, **{"from": a, "to": b}
        ):
            return False
        if self.unit_refusal(s, u, hexes) is not None:  # (its max_hexes: it has moved)
            return False
        return any(
            self._refusal(s, frame, u, d, spent, ma, strategic, True, tests, b, hexes, tried)
            is None
            for d in range(DIRECTIONS)
        )

    def _steps(
        self, s: State, frame: Frame, u: int, spent: int, hexes: int, strategic: bool = False
    ) -> list[int]:
        """The legal steps of unit u, having moved `hexes` hexes for `spent` MP."""
        if self.unit_refusal(s, u, hexes) is not None:
            return []
        ma = allowance(s, u)
        one_hex = spent > 0 or strategic or self._one_hex(s, frame, u)  # (read only if not)
        tests = may_bind(s, u)
        first = s.game.actions.step(u, 0)
        refuse = self._refusal
        return [
            first + d
            for d in range(DIRECTIONS)
            if refuse(s, frame, u, d, spent, ma, strategic, one_hex, tests, None, hexes) is None
        ]

    def _exit(
        self,
        s: State,
        frame: Frame,
        u: int,
        spent: int = 0,
        hexes: int = 0,
        strategic: bool = False,
    ) -> tuple[int, ...]:
        """Unit u's action of leaving the map, when an `exit` of the rules lets it."""
        if not s.game.rules.exits:
            return ()
        if self.exit_refusal(s, frame, u, spent, hexes, strategic) is not None:
            return ()
        return (s.game.actions.exit(u),)

    def exit_refusal(
        self,
        s: State,
        frame: Frame,
        u: int,
        spent: int = 0,
        hexes: int = 0,
        strategic: bool = False,
    ) -> tuple[Refused, str] | None:
        """What refuses unit u, having spent `spent` MP over `hexes` hexes, leaving the
        map from where it stands, and the exit that refuses it ("" for none); None
        when an exit lets it. Where several exits leave from its hex, one that
        lets it will do; else the first one's refusal is given."""
        refusal = self.unit_refusal(s, u, hexes)
        if refusal is not None:
            return refusal, ""
        h = s.unit_hex[u]
        first: tuple[Refused, str] | None = None
        for x in s.game.rules.exits:
            if h not in x.hexes or (x.rule and not s.game.switch_on[x.rule]):
                continue
            refused = self._exit_refused_by(s, frame, x, u, h, spent, strategic)
            if refused is None:
                return None
            first = first or (refused, x.name)
        return first or (Refused.NO_EXIT, "")

    def _exit_refused_by(
        self, s: State, frame: Frame, x: ExitSpec, u: int, h: int, spent: int, strategic: bool
    ) -> Refused | None:
        """Whether exit x lets unit u leave from hex h: its condition allows the unit,
        and its cost is within what the unit has left of its allowance (of
        `strategic_factor` times it, moving strategically)."""
        if x.condition is not None and not x.condition(s, {"unit": u, "hex": h}):
            return Refused.EXIT_EXCLUDED
        limit = allowance(s, u)
        if strategic:
            limit *= int(self.call(s, frame, "strategic_factor", unit=u))
        if spent + x.cost > limit:
            return Refused.EXIT_COST
        return None

    def _one_hex(self, s: State, frame: Frame, u: int) -> bool:
        """Whether the unit may always move one hex (9.1's exception; the rules
        say so with `one_hex_minimum`, and without it every unit may)."""
        return not self.has_lambda(s, frame, "one_hex_minimum") or bool(
            self.call(s, frame, "one_hex_minimum", unit=u)
        )

    def _choices(
        self, s: State, frame: Frame, own: list[int], ask: Ask, known: dict[Hashable, Any]
    ) -> list[int]:
        """PASS and every unit's legal steps (and strategic starts), in unit order;
        `own`: the steps of the unit moving now. PASS is not offered while a unit
        that must move (`must_move`) has yet to move and may; the option of the
        rules' `between_moves` procedure comes last, when `_between_moves` holds.

        `ask(key, compute, *args)` answers the questions that depend on the
        position only (`compute(*args)`), which may be kept between decisions;
        `known` holds the answers kept now (looked in first: most units'
        actions are known, at most decisions).
        """
        b = frame.b
        active = b["active"]
        moved = frozenset(b["moved"])  # (asked of every unit: most have moved, late on)
        who = self.has_lambda(s, frame, "who")
        must = self.has_lambda(s, frame, "must_move")
        held = False
        actions = [s.game.actions.PASS]
        for u in units_of(s, b["side"]):  # (kept while no unit enters or leaves the map)
            if who and not ask(u + _WHO, self._who, s, frame, u):
                continue  # this phase moves other units (an activation, 5.2.2)
            if u == active:
                actions.extend(own)
            elif u not in moved:
                # A unit's actions are asked by its number alone (the most asked question).
                found = known.get(u)
                fresh = ask(u, self._fresh, s, frame, u, ask, known) if found is None else found
                actions.extend(fresh)
                if fresh and must and not held:
                    key = u + _MUST
                    found = known.get(key)
                    held = ask(key, self._must, s, frame, u) if found is None else found
        if b["between_moves"]:
            between = known.get(_BETWEEN)
            if between is None:
                between = ask(_BETWEEN, self._between_moves, s, frame)
            if between:
                actions.append(s.game.actions.option(0))
        return actions[1:] if held else actions

    def _must(self, s: State, frame: Frame, u: int) -> bool:
        return bool(self.call(s, frame, "must_move", unit=u))

    def _who(self, s: State, frame: Frame, u: int) -> bool:
        return bool(self.call(s, frame, "who", unit=u))

    def _fresh(
        self, s: State, frame: Frame, u: int, ask: Ask, known: dict[Hashable, Any]
    ) -> tuple[int, ...]:
        """The actions of a unit yet to move: its steps, and its unit action if it may
        start a strategic move (`_strategic` and `_strategic_start`), one question per
        direction (a unit stepping next to it changes the answers of the directions
        that look at its hexes).

        An answer to one of these questions (the allowance, a direction, …) still
        held is looked up in `known` rather than asked: only this unit's question
        asks it, so that it was asked for this one is noted already (when the unit
        is worked out again, most of them are).
        """
        key = u + _ALLOWANCE
        ma = known.get(key, _UNKNOWN)
        if ma is _UNKNOWN:
            ma = ask(key, self._allowance_at_start, s, u)
        if ma is None:
            return ()
        key = u + _ONE_HEX
        one_hex = known.get(key)
        if one_hex is None:
            one_hex = ask(key, self._one_hex, s, frame, u)
        key = u + _RESTRICTIONS
        tests = known.get(key)
        if tests is None:
            tests = ask(key, may_bind, s, u)
        bound = _numbered(s.game, tests) * _BOUND
        plain, roads = self._on_the_map(s, u)
        refuse = self._refusal
        first = s.game.actions.step(u, 0)
        steps = []
        base = u + _STEP + bound + (ma * 2 + one_hex) * _REST
        for d in plain:
            key = base + d * _DIRECTION
            refusal = known.get(key, _UNKNOWN)
            if refusal is _UNKNOWN:
                refusal = ask(key, refuse, s, frame, u, d, 0, ma, False, one_hex, tests)
            if refusal is None:
                steps.append(first + d)
        if s.game.rules.exits:
            key = u + _EXIT
            found = known.get(key)
            steps.extend(ask(key, self._exit, s, frame, u) if found is None else found)
        if "strategic" not in frame.params:  # type: ignore[operator]
            return tuple(steps)
        key = u + _STRATEGIC
        strategic = known.get(key)
        if strategic is None:
            strategic = ask(key, self._strategic, s, frame, u)
        if strategic and self._strategic_start(
            s, frame, u, ma, tests, u + _STRATEGIC_STEP + bound, roads, ask, known
        ):
            steps.append(s.game.actions.unit(u))
        return tuple(steps)

    def _strategic_start(
        self,
        s: State,
        frame: Frame,
        u: int,
        ma: int,
        tests: UnitTests,
        first_steps: int,
        roads: tuple[int, ...],
        ask: Ask,
        known: dict[Hashable, Any],
    ) -> bool:
        """Whether a unit the rules let move strategically may start its strategic move
        (9.52): it may take a first step along a road or track (`first_steps`: the
        key of those questions but for the allowance and the direction)."""
        base = first_steps + ma * 2 * _REST
        for d in roads:
            key = base + d * _DIRECTION
            refusal = known.get(key, _UNKNOWN)
            if refusal is _UNKNOWN:
                refusal = ask(key, self._refusal, s, frame, u, d, 0, ma, True, True, tests)
            if refusal is None:
                return True
        return False

    @staticmethod
    def _on_the_map(s: State, u: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """`_open_directions` of unit u where it stands: the map's alone, worked out
        once per game for each board, unit and hex (by `hex * MAX_UNITS + unit`, for
        each board)."""
        board = board_of(s)
        a = s.unit_hex[u]
        derived = s.game.derived
        key = ("directions on the map", id(board))
        known = derived.get(key)
        if known is None:
            known = derived[key] = {}
        key = a * MAX_UNITS + u
        found = known.get(key)
        if found is None:
            found = known[key] = _open_directions(s.game.rules, board, u, a)
        return found

    def _strategic(self, s: State, frame: Frame, u: int) -> bool:
        return bool(self.call(s, frame, "strategic", unit=u))

    def _allowance_at_start(self, s: State, u: int) -> int | None:
        """The allowance of a unit yet to move, or None when it may not move at all."""
        return None if self.unit_refusal(s, u, 0) is not None else allowance(s, u)

    def run(self, s: State, frame: Frame) -> Node | None:
        if frame.b.get("done"):
            return None
        return incremental.held_still(s, self._decision, s, frame)

    def _decision(self, s: State, frame: Frame) -> Node:
        b = frame.b
        active = b["active"]
        own: list[int] = []
        if active >= 0 and not b["stop"]:
            own = self._steps(s, frame, active, b["spent"], b["hexes"], b["strategic"])
            own.extend(self._exit(s, frame, active, b["spent"], b["hexes"], b["strategic"]))
            if own and refused_end(s, active, s.unit_hex[active]) is not None:
                # The unit may not end its move here: it must go on (9.2).
                return Node(b["side"], tuple(own), prompt="the unit must move on")
        actions = incremental.answered(
            s, (b["site"], b["side"]), partial(self._choices, s, frame, own), "move_units"
        )
        if actions[0] != s.game.actions.PASS:
            return Node(b["side"], tuple(actions), prompt="move a unit one hex (a unit must move)")
        return Node(b["side"], tuple(actions), prompt="move a unit one hex, or pass")

    def _between_moves(self, s: State, frame: Frame) -> bool:
        """Whether the rules' `between_moves` procedure is offered now (a battle
        whose reinforcements "can enter play at any time during a player's
        movement"): whenever `between_moves_when` holds, if it is given."""
        if not frame.b["between_moves"]:
            return False
        return self.holds(s, frame, "between_moves_when", True)

    def apply(self, s: State, frame: Frame, action: int) -> None:
        b = frame.b
        space = s.game.actions
        if action == space.PASS:
            _end_move(b)
            b["done"] = True
            for u in b["moved"]:  # (their halts have held for this phase)
                s.halted.pop(u, None)
        elif space.kind_of(action) == "option":
            # The unit moving now has completed its move; the rules' procedure
            # runs, then the movement goes on.
            _end_move(b)
            self.push_procedure(s, b["between_moves"], {"side": b["side"]})
        elif space.kind_of(action) == "exit":
            u = space.decode("exit", action)
            if u != b["active"]:
                _end_move(b)
                b["active"] = u
            _end_move(b)
            exit_map(s, u)
        elif space.kind_of(action) == "unit":
            u = space.decode("unit", action)
            _end_move(b)
            b.update(active=u, spent=0, hexes=0, stop=False, strategic=True)
            say(s, f"{unit_name(s, u)} moves by strategic movement.")
        else:
            u, d = space.decode_step(action)
            if u != b["active"]:  # (the unit moving before it has completed its move)
                _end_move(b)
                b.update(active=u, spent=0, hexes=0, stop=False, strategic=False)
            self._step(s, frame, u, d)

    def _step(self, s: State, frame: Frame, u: int, d: int) -> None:
        """Unit u steps into the next hex in direction d, paying its cost; it stops
        there when the rules say so (`stop_after`)."""
        b = frame.b
        a = s.unit_hex[u]
        h = s.game.rules.board.neighbors[a][d]
        b["spent"] += self.cost(s, frame, u, a, d)
        b["hexes"] += 1
        s.unit_hex[u] = h
        s._stepped = u  # (what the next occupancy checks first)
        say(s, f"{unit_name(s, u)} moves {hex_label(s, a)} → {hex_label(s, h)}.")
        arrived(s, u, a, h)
        if self.has_lambda(s, frame, "stop_after") and self.call(
            s, frame, "stop_after", unit=u, hex=h, **{"from": a, "to": h}
        ):
            b["stop"] = True


def _tried_for_less(
    tried: dict[tuple[int, int], tuple[int, int]], a: int, b: int, spent: int, hexes: int
) -> bool:
    """Whether the search already followed the step from a into b in vain having
    spent no more MP and moved no more hexes: it can do no better now."""
    before = tried.get((a, b))
    return before is not None and before[0] <= spent and before[1] <= hexes


def _open_directions(
    rules: Rules, board: BoardSpec, u: int, a: int
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The directions in which the map lets unit u step at all from hex a (a hex
    there, its terrain and hexside not prohibited), and of those the ones along a
    road or track (for a strategic move): what `_refusal` tests first, without a
    question asked for the others."""
    plain = tuple(
        d
        for d, b in enumerate(board.neighbors[a])
        if b >= 0 and step_cost(rules, u, a, d, board) != PROHIBITED
    )
    roads = board.strategic[a]
    return plain, tuple(d for d in plain if roads >> d & 1)


def _halted(s: State, side: int) -> tuple[int, ...]:
    """The side's units halted (`halt`) before this movement phase in this turn:
    they have finished their move before it starts. A halt of an earlier turn
    no longer holds (the unit was to move no further that turn)."""
    turn = s.vars["turn"]
    s.halted = {u: t for u, t in s.halted.items() if t == turn}
    units = s.game.rules.units
    return tuple(sorted(u for u in s.halted if units[u].side == side))


def _end_move(b: dict[str, Any]) -> None:
    """The unit moving now has completed its move: no unit moves until another starts."""
    if b["active"] >= 0:
        b["moved"] = (*b["moved"], b["active"])
    b["active"] = -1


register(MoveUnits())
