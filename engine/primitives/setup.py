"""The set-up primitive: owners place the units a scenario lets them choose a hex for.

"Two named generals: anywhere on the ridge"-style entries: for each
unit of each such entry, in the order the scenario lists them, its owner picks
one of the allowed hexes (a zone, a list, or the hexes meeting a condition
on the unit and the hex), never one that holds enemy units, nor one the
unit would over-stack when the scenario gives its `stacking` rule.
"""

from __future__ import annotations

from typing import Any, ClassVar

from engine.describe import hex_label, unit_name
from engine.effects import place_unit, say
from engine.nodes import Node
from engine.primitives.base import Primitive, register
from engine.queries import enemy_in, units_in
from engine.rules import PlacementSpec
from engine.state import Frame, State


class Setup(Primitive):
    name = "setup"
    # The next unit to place: index of the placement, and of the unit in it.
    fields: ClassVar[dict[str, str]] = {"entry": "int", "unit": "int"}

    def start(self, s: State, frame: Frame, args: dict[str, Any], site: tuple[str, int]) -> None:
        frame.b.update(entry=0, unit=0)
        self._settle(s, frame)

    @staticmethod
    def _placements(s: State) -> tuple[PlacementSpec, ...]:
        return s.game.scenario.setup if s.game.scenario else ()

    def _settle(self, s: State, frame: Frame) -> None:
        """Move the pointer onto the next unit of a `choose` entry (or past the end)."""
        placements = self._placements(s)
        i, j = frame.b["entry"], frame.b["unit"]
        while i < len(placements) and not (placements[i].chosen and j < len(placements[i].units)):
            i, j = i + 1, 0
        frame.b.update(entry=i, unit=j)

    def _next(self, s: State, frame: Frame) -> None:
        frame.b["unit"] += 1
        self._settle(s, frame)

    def options(self, s: State, placement: PlacementSpec, u: int) -> list[int]:
        """The hexes of the placement (any hex, when it names none) the unit may set up in."""
        hexes = placement.hexes or range(len(s.game.rules.board.labels))
        return [h for h in hexes if self._may_set_up(s, placement, u, h)]

    @staticmethod
    def _may_set_up(s: State, placement: PlacementSpec, u: int, h: int) -> bool:
        """Not prohibited terrain (TEC "-": no unit may stand there, set up or not),
        no enemy unit, the placement's condition and the scenario's stacking limit met."""
        rules = s.game.rules
        if rules.terrain[rules.board.terrain[h]].prohibited:
            return False
        if enemy_in(s, h, rules.units[u].side):
            return False
        if placement.condition is not None and not placement.condition(s, {"unit": u, "hex": h}):
            return False
        stacking = s.game.scenario.stacking
        return stacking is None or bool(stacking(s, {"units": (*units_in(s, h), u)}))

    def run(self, s: State, frame: Frame) -> Node | None:
        placements = self._placements(s)
        while frame.b["entry"] < len(placements):
            placement = placements[frame.b["entry"]]
            u = placement.units[frame.b["unit"]][0]
            options = self.options(s, placement, u)
            if len(options) > 1:
                space = s.game.actions
                side = s.game.rules.units[u].side
                return Node(
                    side, tuple(space.hex(h) for h in options), prompt=f"set up {unit_name(s, u)}"
                )
            if options:
                self._place(s, u, options[0])
            else:
                say(s, f"{unit_name(s, u)} has no hex to set up in and stays out of play.")
            self._next(s, frame)
        return None

    def apply(self, s: State, frame: Frame, action: int) -> None:
        placement = self._placements(s)[frame.b["entry"]]
        u = placement.units[frame.b["unit"]][0]
        self._place(s, u, s.game.actions.decode("hex", action))
        self._next(s, frame)

    @staticmethod
    def _place(s: State, u: int, h: int) -> None:
        place_unit(s, u, h)
        say(s, f"{unit_name(s, u)} sets up in {hex_label(s, h)}.")


register(Setup())
