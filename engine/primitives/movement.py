"""The movement primitive: the phasing player moves units one hex at a time.

Each action steps one unit into a neighbouring hex (9.1); stepping another
unit ends the previous unit's move ("each unit must complete its movement
before any other unit may move"), and PASS ends the phase. The rule file
supplies the stacking limit and when a unit must stop, as expressions.
"""

from __future__ import annotations

from typing import Any, ClassVar

from engine.board import PROHIBITED, step_cost
from engine.describe import hex_label, unit_name
from engine.effects import say
from engine.game import DIRECTIONS
from engine.interpreter import Node, emit
from engine.primitives import Primitive, register
from engine.queries import units_in
from engine.state import ON_MAP, Frame, State
from engine.vocabulary import Lambda, primitive
from engine.zoc import zoc_costs, zoc_step_cost

primitive(
    "move_units",
    ("side", "side"),
    ("stacking", Lambda("bool", (("units", "units"),))),
    ("stop_after", Lambda("bool", (("unit", "unit"), ("hex", "hex")))),
    optional=("stop_after",),
    doc="The phasing side moves its units one hex per action until it passes.",
)


def restricted(s: State, u: int, h: int) -> bool:
    """True when an active no-entry restriction forbids unit u to enter hex h."""
    rules = s.game.rules
    turn = s.vars["turn"]
    for r in rules.restrictions:
        if r.kind != "no_entry" or (r.rule and not s.game.switch_on[r.rule]):
            continue
        if r.until_turn is not None and turn >= r.until_turn:
            continue
        if h not in rules.board.zones[r.zone]:
            continue
        if r.condition is None or r.condition(s, {"unit": u, "hex": h}):
            return True
    return False


class MoveUnits(Primitive):
    name = "move_units"
    fields: ClassVar[dict[str, str]] = {
        "side": "side",
        "active": "unit",
        "spent": "int",
        "moved": "units",
        "stop": "bool",
        "done": "bool",
    }

    def start(self, s: State, frame: Frame, args: dict[str, Any], site: tuple[str, int]) -> None:
        super().start(s, frame, args, site)
        frame.b.update(active=-1, spent=0, moved=(), stop=False)

    def _can_step(
        self, s: State, frame: Frame, u: int, d: int, spent: int, zoc: dict[int, int]
    ) -> bool:
        rules = s.game.rules
        a = s.unit_hex[u]
        b = rules.board.neighbors[a][d]
        if b < 0:
            return False
        cost = step_cost(rules, u, a, d)
        if cost == PROHIBITED:
            return False
        cost += zoc_step_cost(zoc, a, b)  # 8.31
        ma = rules.units[u].movement
        if spent + cost > ma and spent > 0:  # a unit may always move one hex (9.1)
            return False
        if ma <= 0:
            return False
        side = rules.units[u].side
        here = units_in(s, b)
        if any(rules.units[o].side != side for o in here):
            return False
        if restricted(s, u, b):
            return False
        return self.call(s, frame, "stacking", units=(*here, u))

    def run(self, s: State, frame: Frame) -> Node | None:
        b = frame.b
        if b.get("done"):
            return None
        space = s.game.actions
        actions = [space.PASS]
        rules = s.game.rules
        zoc = zoc_costs(s, 1 - b["side"])
        for u in range(len(rules.units)):
            if rules.units[u].side != b["side"] or s.unit_status[u] != ON_MAP:
                continue
            if u == b["active"]:
                if b["stop"]:
                    continue
                spent = b["spent"]
            elif u in b["moved"]:
                continue
            else:
                spent = 0
            for d in range(DIRECTIONS):
                if self._can_step(s, frame, u, d, spent, zoc):
                    actions.append(space.step(u, d))
        return Node(b["side"], tuple(actions), prompt="move a unit one hex, or pass")

    def apply(self, s: State, frame: Frame, action: int) -> None:
        b = frame.b
        space = s.game.actions
        if action == space.PASS:
            if b["active"] >= 0:
                b["moved"] = (*b["moved"], b["active"])
            b["active"] = -1
            b["done"] = True
            return
        u, d = space.decode_step(action)
        if u != b["active"]:
            if b["active"] >= 0:
                b["moved"] = (*b["moved"], b["active"])
            b.update(active=u, spent=0, stop=False)
        rules = s.game.rules
        a = s.unit_hex[u]
        h = rules.board.neighbors[a][d]
        zoc = zoc_costs(s, 1 - rules.units[u].side)
        b["spent"] += step_cost(rules, u, a, d) + zoc_step_cost(zoc, a, h)
        s.unit_hex[u] = h
        say(s, f"{unit_name(s, u)} moves {hex_label(s, a)} → {hex_label(s, h)}.")
        if self.has_lambda(s, frame, "stop_after") and self.call(
            s, frame, "stop_after", unit=u, hex=h
        ):
            b["stop"] = True
        emit(s, "entered", unit=u, hex=h)


register(MoveUnits())
