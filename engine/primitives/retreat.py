"""The retreat primitive: a unit retreats hex by hex, its owner choosing each hex.

Every hex of a retreat is one hex farther from the start (13.24: a unit
retreating three hexes ends three hexes away). No hex may be off the map,
prohibited, enemy-occupied, over the stacking limit (7.2) or one the rules
block (`blocked`: an enemy ZOC, 13.22). Among the retreats still possible
the owner must take one that ends in a hex the rules would rather avoid
(`avoid`: next to an enemy unit, 13.21/13.24) only when no other exists, and
must step toward the friendly map edge (or the `toward` hexes) when he can
(13.21); where the rules give `also_toward` too, a step toward either goal
will do, and the owner chooses (a battle's special rule may let some units
retreat toward a second map edge as well). A unit that cannot retreat the full
distance is captured (13.23) — unless it is a full-strength two-step unit
stopped only by stacking, whose owner may instead reduce it and retreat
(13.23 exception); the rules' `step_loss` procedure then applies that
loss's other effects.

Battles loosen the restrictions for some units. Where `through` holds, a
unit that cannot retreat otherwise (and only then: while a retreat through
open hexes exists it takes one) may pass through a hex that `blocked` or the
stacking limit would close, but not stop in it: the retreat goes on to the
next hex where the unit may stop, even beyond its length, and the rules'
`on_through` procedure runs for each such hex entered (a morale check for a
ZOC crossed; it may eliminate the unit, which ends the retreat). From an `exits` hex a unit
with hexes still to go retreats off the map: it leaves play.
"""

from __future__ import annotations

from typing import Any, ClassVar

from engine.board import DIRECTIONS, PROHIBITED, step_cost
from engine.describe import hex_label, unit_name
from engine.effects import arrived, capture, lose_step, remove_from_play, say
from engine.events import emit
from engine.nodes import CONTINUE, Node
from engine.primitives.base import Primitive, register
from engine.queries import board_distance, enemy_in, units_in
from engine.state import ON_MAP, Frame, State
from engine.terrain_state import board_of
from engine.vocabulary import Lambda, primitive

primitive(
    "retreat",
    ("unit", "unit"),
    ("hexes", "int"),
    ("stacking", Lambda("bool", (("units", "units"),))),
    ("blocked", Lambda("bool", (("unit", "unit"), ("hex", "hex"), ("from", "hex"), ("to", "hex")))),
    ("avoid", Lambda("bool", (("unit", "unit"), ("hex", "hex")))),
    ("must_avoid", "bool"),
    ("toward", "hexes"),
    ("also_toward", "hexes"),
    ("two_step_exception", "bool"),
    ("step_loss", "procedure"),
    ("through", Lambda("bool", (("unit", "unit"), ("hex", "hex"), ("from", "hex"), ("to", "hex")))),
    ("on_through", "procedure"),
    ("exits", "hexes"),
    optional=(
        "stacking",
        "blocked",
        "avoid",
        "must_avoid",
        "toward",
        "also_toward",
        "two_step_exception",
        "step_loss",
        "through",
        "on_through",
        "exits",
    ),
    doc="The unit retreats the given number of hexes, its owner choosing each hex.",
)

WAITING = "asked"  # the owner is choosing between capture and the step-loss exception
OFF_MAP = -1  # a retreat that ends off the map (through an `exits` hex)


class Retreat(Primitive):
    name = "retreat"
    fields: ClassVar[dict[str, str]] = {
        "unit": "unit",
        "hexes": "int",
        "origin": "hex",
        "toward": "hexes",
        "also_toward": "hexes",
        "must_avoid": "bool",
        "two_step_exception": "bool",
        "step_loss": "procedure",
        "on_through": "procedure",
        "exits": "hexes",
        "stage": "str",
        "done": "bool",
        "came_from": "hex",
    }

    def start(self, s: State, frame: Frame, args: dict[str, Any], site: tuple[str, int]) -> None:
        super().start(s, frame, args, site)
        u = frame.b["unit"]
        for key, default in (
            ("must_avoid", False),
            ("toward", ()),
            ("also_toward", ()),
            ("two_step_exception", False),
            ("step_loss", ""),
            ("on_through", ""),
            ("exits", ()),
        ):
            frame.b.setdefault(key, default)
        frame.b.update(origin=s.unit_hex[u], stage="", done=s.unit_status[u] != ON_MAP)

    # ------------------------------------------------------------ the search

    def _open(self, s: State, frame: Frame, u: int, a: int, h: int) -> bool:
        """Neither `blocked` nor the stacking limit closes hex h to the unit stepping
        into it from hex a (`from` and `to` in the rules' conditions)."""
        if self.holds(s, frame, "blocked", False, unit=u, hex=h, **{"from": a, "to": h}):
            return False
        stack = (*(o for o in units_in(s, h) if o != u), u)
        return self.holds(s, frame, "stacking", True, units=stack)

    def _passable(self, s: State, frame: Frame, u: int, a: int, h: int) -> bool:
        """A closed hex the unit may pass through without stopping (`through`)."""
        return self.holds(s, frame, "through", False, unit=u, hex=h, **{"from": a, "to": h})

    def _may_enter(
        self, s: State, frame: Frame, u: int, a: int, h: int, step: int, through: bool = True
    ) -> bool:
        """Hex h is one hex farther from the start (13.24), holds no enemy unit, and
        is open to the unit (or, `through`, one it may pass through)."""
        if board_distance(s, frame.b["origin"], h) != step:
            return False
        if enemy_in(s, h, s.game.rules.units[u].side):
            return False
        return self._open(s, frame, u, a, h) or (through and self._passable(s, frame, u, a, h))

    def _next(self, s: State, frame: Frame, u: int, here: int, through: bool = True) -> list[int]:
        rules = s.game.rules
        board = board_of(s)
        step = board_distance(s, frame.b["origin"], here) + 1
        out = []
        for d in range(DIRECTIONS):
            h = board.neighbors[here][d]
            if (
                h >= 0
                and step_cost(rules, u, here, d, board) != PROHIBITED
                and self._may_enter(s, frame, u, here, h, step, through)
            ):
                out.append(h)
        return out

    def _finals(
        self,
        s: State,
        frame: Frame,
        u: int,
        came_from: int,
        here: int,
        left: int,
        memo: dict,
        through: bool = True,
    ) -> set[int]:
        """Hexes where a legal retreat from `here` (entered from `came_from`) with
        `left` hexes to go can end.

        A retreat ends where its length is reached in a hex the unit may stop
        in; one that reaches it in a hex it may only pass through goes on.
        OFF_MAP stands for a retreat that leaves the map through an exit hex.
        """
        key = (came_from, here, max(left, 0))
        if key in memo:
            return memo[key]
        memo[key] = set()  # no cycles: every step is one hex farther from the start
        if left > 0 and here in frame.b["exits"]:
            out = {OFF_MAP}
        elif left <= 0 and self._may_stop(s, frame, u, came_from, here):
            out = {here}
        else:
            out = set()
            for h in self._next(s, frame, u, here, through):
                out |= self._finals(s, frame, u, here, h, left - 1, memo, through)
        memo[key] = out
        return out

    def _avoided(self, s: State, frame: Frame, u: int, h: int) -> bool:
        """A retreat's end the rules would rather avoid (`avoid`: next to the enemy);
        leaving the map is never one."""
        return h != OFF_MAP and self.holds(s, frame, "avoid", False, unit=u, hex=h)

    def _goals(self, frame: Frame) -> list[tuple[int, ...]]:
        """Where the retreat may head: `toward` (() for the friendly map edge),
        and `also_toward` where the rules give a second goal."""
        also = frame.b.get("also_toward", ())
        return [frame.b["toward"], also] if also else [frame.b["toward"]]

    def _goal_distance(self, s: State, u: int, h: int, goal: tuple[int, ...]) -> int:
        if goal:
            return goal_distance(s, h, goal)
        edge = s.game.rules.sides[s.game.rules.units[u].side].friendly_edge
        table = s.game.rules.board.edge_distance.get(edge)
        return table[h] if table is not None else 0

    def _options(
        self, s: State, frame: Frame, u: int, here: int, left: int, through: bool
    ) -> dict[int, set[int]]:
        """Each next hex with the hexes a retreat through it can end in."""
        memo: dict = {}
        options = {
            h: self._finals(s, frame, u, here, h, left - 1, memo, through)
            for h in self._next(s, frame, u, here, through)
        }
        return {h: finals for h, finals in options.items() if finals}

    def candidates(self, s: State, frame: Frame) -> list[int]:
        """Legal next hexes, narrowed to the rulebook's preferences: a retreat that
        can end in a hex not to be avoided (13.21, 13.24), then a step toward the
        friendly map edge (13.21)."""
        u = frame.b["unit"]
        here = s.unit_hex[u]
        left = frame.b["hexes"] - board_distance(s, frame.b["origin"], here)
        options = self._open_or_through(s, frame, u, here, left)
        good = self._away_from_enemy(s, frame, u, options)
        if good:
            options = good
        elif frame.b["must_avoid"]:
            return []
        return self._toward_goal(s, frame, u, here, options)

    def _open_or_through(
        self, s: State, frame: Frame, u: int, here: int, left: int
    ) -> dict[int, set[int]]:
        """The retreats through open hexes; only when there is none, those passing
        through a closed hex (never a way round an open route)."""
        options = self._options(s, frame, u, here, left, through=False)
        if not options and self.has_lambda(s, frame, "through"):
            options = self._options(s, frame, u, here, left, through=True)
        return options

    def _away_from_enemy(
        self, s: State, frame: Frame, u: int, options: dict[int, set[int]]
    ) -> dict[int, set[int]]:
        """The options through which the retreat can end in a hex the rules do not
        `avoid` (13.21, 13.24: not next to an enemy unit)."""
        return {
            h: finals
            for h, finals in options.items()
            if any(not self._avoided(s, frame, u, f) for f in finals)
        }

    def _toward_goal(
        self, s: State, frame: Frame, u: int, here: int, options: dict[int, set[int]]
    ) -> list[int]:
        """The options that step nearer the friendly edge (or the `toward` hexes,
        or the `also_toward` ones), or all of them when none does."""
        goals = [(goal, self._goal_distance(s, u, here, goal)) for goal in self._goals(frame)]
        toward = [
            h
            for h in options
            if any(self._goal_distance(s, u, h, goal) < now for goal, now in goals)
        ]
        return sorted(toward or options)

    # ------------------------------------------------------------ running

    def run(self, s: State, frame: Frame) -> Node | None:
        b = frame.b
        u = b["unit"]
        if b["done"] or s.unit_status[u] != ON_MAP:
            return None
        if b["stage"] == WAITING:
            return _ask_step_loss(s, u)
        here = s.unit_hex[u]
        gone = board_distance(s, b["origin"], here)
        if gone < b["hexes"] and here in b["exits"]:
            self._retreat_off_map(s, frame, u, here)
            return None
        came_from = b.pop("came_from", -1)
        if gone >= b["hexes"] and self._may_stop(s, frame, u, came_from, here):
            b["done"] = True
            emit(s, "retreated", unit=u, hex=here)
            return None
        return self._retreat_on(s, frame, u)

    def _may_stop(self, s: State, frame: Frame, u: int, came_from: int, here: int) -> bool:
        """Having gone its length, the unit may end its retreat here: it never left
        the start (a retreat of no hexes), or the hex is open to it, entered as it
        was (a hex it may only pass through sends it on)."""
        return here == frame.b["origin"] or self._open(s, frame, u, came_from, here)

    def _retreat_off_map(self, s: State, frame: Frame, u: int, here: int) -> None:
        """From an exit hex with hexes still to go, the unit leaves play."""
        say(s, f"{unit_name(s, u)} retreats off the map.")
        remove_from_play(s, u)
        emit(s, "left_map", unit=u, hex=here)
        frame.b["done"] = True

    def _retreat_on(self, s: State, frame: Frame, u: int) -> Node | None:
        """The next hex: taken when it is the only one, else asked of the owner; a
        unit with none is captured (13.23) unless the step-loss exception may apply."""
        options = self.candidates(s, frame)
        if len(options) == 1:
            self._step(s, frame, options[0])
            return CONTINUE
        if options:
            space = s.game.actions
            owner = s.game.rules.units[u].side
            return Node(
                owner, tuple(space.hex(h) for h in options), prompt=f"retreat {unit_name(s, u)}"
            )
        if self._exception_open(s, frame):
            frame.b["stage"] = WAITING
            return CONTINUE
        say(s, f"{unit_name(s, u)} cannot retreat.")
        capture(s, u)
        frame.b["done"] = True
        return None

    def _exception_open(self, s: State, frame: Frame) -> bool:
        """13.23: a full-strength two-step unit that could retreat if reduced."""
        b = frame.b
        u = b["unit"]
        spec = s.game.rules.units[u]
        if not b["two_step_exception"] or len(spec.strengths) < 2 or s.unit_loss[u] != 0:
            return False
        if s.unit_hex[u] != b["origin"]:
            return False
        s.unit_loss[u] += 1
        try:
            return bool(self.candidates(s, frame))
        finally:
            s.unit_loss[u] -= 1

    def apply(self, s: State, frame: Frame, action: int) -> None:
        b = frame.b
        space = s.game.actions
        if b["stage"] == WAITING:
            u = b["unit"]
            b["stage"] = ""
            if space.option_index(action) == 0:
                say(s, f"{unit_name(s, u)} is captured rather than reduced.")
                capture(s, u)
                b["done"] = True
                return
            say(s, f"{unit_name(s, u)} loses a step to make room and retreats.")
            lose_step(s, u)
            if b["step_loss"]:
                self.push_procedure(s, b["step_loss"], {"unit": u})
            return
        self._step(s, frame, space.decode("hex", action))

    def _step(self, s: State, frame: Frame, h: int) -> None:
        b = frame.b
        u = b["unit"]
        before = s.unit_hex[u]
        say(s, f"{unit_name(s, u)} retreats {hex_label(s, before)} → {hex_label(s, h)}.")
        s.unit_hex[u] = h
        arrived(s, u, before, h)
        if board_distance(s, b["origin"], h) >= b["hexes"]:
            # Whether the retreat may end here depends on the step (`from`, `to`):
            # `run` judges it next, and takes this back.
            b["came_from"] = before
        if b["on_through"] and not self._open(s, frame, u, before, h):
            # Passing through a hex it could not stop in: the rules' procedure
            # (a morale check, a step lost) runs before the retreat goes on.
            self.push_procedure(s, frame.b["on_through"], {"unit": u, "hex": h})


def _ask_step_loss(s: State, u: int) -> Node:
    """The owner chooses between capture and the step-loss exception (13.23)."""
    space = s.game.actions
    prompt = "lose a step to make room and retreat (else be captured)?"
    return Node(s.game.rules.units[u].side, (space.option(0), space.option(1)), prompt=prompt)


# A retreat's goals are few in a game (a map edge, a town): for up to this many
# goals each hex's distance to the goal is kept once worked out, rather than the
# goal's hexes gone over at every hex a retreat considers.
_GOAL_TABLES = 32
_NOT_YET = -1  # (a distance not worked out yet)


def goal_distance(s: State, h: int, goal: tuple[int, ...]) -> int:
    """Hex h's distance to the nearest hex of `goal`. Kept per goal and hex as
    asked (a retreat considers a few hexes near it; a table of the whole map
    made at once cost more than the game's retreats ever ask)."""
    tables = s.game.derived.setdefault("distances to a retreat's goal", {})
    table = tables.get(goal)
    if table is None:
        if len(tables) >= _GOAL_TABLES:
            return min(board_distance(s, h, g) for g in goal)
        table = tables[goal] = [_NOT_YET] * len(s.game.rules.board.cube)
    found = table[h]
    if found == _NOT_YET:
        found = table[h] = min(board_distance(s, h, g) for g in goal)
    return found


register(Retreat())
