"""The retreat primitive: a unit retreats hex by hex, its owner choosing each hex.

Each hex must be farther from the starting hex than the last (13.24), and
may not be off the map, enemy-occupied, in an enemy zone of control, in
prohibited terrain or over the stacking limit (13.22). Among the legal hexes
the owner must prefer one not adjacent to an enemy unit, then one nearer the
side's friendly map edge (13.21). A unit that cannot retreat the full
distance is captured (13.23).
"""

from __future__ import annotations

from typing import Any, ClassVar

from engine.board import PROHIBITED, step_cost
from engine.describe import hex_label, unit_name
from engine.effects import capture, say
from engine.game import DIRECTIONS
from engine.interpreter import Node, emit
from engine.primitives import Primitive, register
from engine.queries import board_distance, units_in
from engine.state import ON_MAP, Frame, State
from engine.vocabulary import Lambda, primitive
from engine.zoc import zoc_hexes

primitive(
    "retreat",
    ("unit", "unit"),
    ("hexes", "int"),
    ("stacking", Lambda("bool", (("units", "units"),))),
    optional=("stacking",),
    doc="The unit retreats the given number of hexes, its owner choosing each hex.",
)


def edge_distance(s: State, h: int, edge: str) -> int:
    """How far hex h is from a map edge, in hexes (0 on the edge; 0 for no edge)."""
    table = s.game.rules.board.edge_distance.get(edge)
    return table[h] if table is not None else 0


class Retreat(Primitive):
    name = "retreat"
    fields: ClassVar[dict[str, str]] = {
        "unit": "unit",
        "hexes": "int",
        "origin": "hex",
        "done": "bool",
    }

    def start(self, s: State, frame: Frame, args: dict[str, Any], site: tuple[str, int]) -> None:
        super().start(s, frame, args, site)
        u = frame.b["unit"]
        frame.b["origin"] = s.unit_hex[u]
        frame.b["done"] = s.unit_status[u] != ON_MAP

    def candidates(self, s: State, frame: Frame) -> list[int]:
        """Legal next hexes, already narrowed to the rulebook's priorities."""
        rules = s.game.rules
        b = frame.b
        u = b["unit"]
        here = s.unit_hex[u]
        side = rules.units[u].side
        step_no = board_distance(s, b["origin"], here)
        stacking = self.has_lambda(s, frame, "stacking")
        legal = []
        enemy_zoc = zoc_hexes(s, 1 - side)
        for d in range(DIRECTIONS):
            h = rules.board.neighbors[here][d]
            if h < 0 or step_cost(rules, u, here, d) == PROHIBITED:
                continue
            if board_distance(s, b["origin"], h) != step_no + 1:
                continue
            occupants = units_in(s, h)
            if any(rules.units[o].side != side for o in occupants):
                continue
            if h in enemy_zoc:  # nor may the last hex be in an enemy ZOC (13.22)
                continue
            if stacking and not self.call(s, frame, "stacking", units=(*occupants, u)):
                continue
            legal.append(h)
        if not legal:
            return legal
        edge = rules.sides[side].friendly_edge
        now = edge_distance(s, here, edge)
        toward = [h for h in legal if edge_distance(s, h, edge) < now]
        return toward or legal

    def run(self, s: State, frame: Frame) -> Node | None:
        b = frame.b
        if b["done"]:
            return None
        u = b["unit"]
        if board_distance(s, b["origin"], s.unit_hex[u]) >= b["hexes"]:
            b["done"] = True
            emit(s, "retreated", unit=u, hex=s.unit_hex[u])
            return None
        options = self.candidates(s, frame)
        if not options:
            say(s, f"{unit_name(s, u)} cannot retreat.")
            capture(s, u)
            b["done"] = True
            return None
        if len(options) == 1:
            self._step(s, frame, options[0])
            return self.run(s, frame)
        space = s.game.actions
        owner = s.game.rules.units[u].side
        return Node(
            owner, tuple(space.hex(h) for h in options), prompt=f"retreat {unit_name(s, u)}"
        )

    def apply(self, s: State, frame: Frame, action: int) -> None:
        self._step(s, frame, s.game.actions.decode("hex", action))

    def _step(self, s: State, frame: Frame, h: int) -> None:
        u = frame.b["unit"]
        say(s, f"{unit_name(s, u)} retreats {hex_label(s, s.unit_hex[u])} → {hex_label(s, h)}.")
        s.unit_hex[u] = h
        emit(s, "entered", unit=u, hex=h)


register(Retreat())
