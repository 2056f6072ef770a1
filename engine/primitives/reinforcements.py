"""The reinforcement primitive: units due this turn are placed at their entry hexes (9.61).

At the start of its side's movement phase, every unit whose turn of entry
has come (and that the rules let in: `may_enter`, for variable or conditional
entries) is placed in an entry hex — its owner choosing when there are
several — or, where the rules allow it (`may_delay`), held back for a later
turn. The entry hexes are the unit's own unless the rules compute others
(`entry_hexes`: another hex when the enemy blocks the printed one). Placement
costs no movement points (9.62) and may over-stack.
"""

from __future__ import annotations

from typing import Any, ClassVar

from engine import incremental
from engine.describe import hex_label, unit_name
from engine.effects import place_unit, say
from engine.events import emit
from engine.nodes import Node
from engine.primitives.base import Primitive, register
from engine.queries import enemy_in
from engine.restrictions import may_arrive
from engine.state import NOT_ENTERED, Frame, State
from engine.vocabulary import Lambda, primitive

primitive(
    "enter_reinforcements",
    ("side", "side"),
    ("may_enter", Lambda("bool", (("unit", "unit"),))),
    ("may_delay", "bool"),
    ("entry_hexes", Lambda("hexes", (("unit", "unit"),))),
    optional=("may_enter", "may_delay", "entry_hexes"),
    doc="Place the side's reinforcements due this turn at their entry hexes.",
)


class EnterReinforcements(Primitive):
    name = "enter_reinforcements"
    fields: ClassVar[dict[str, str]] = {"side": "side", "may_delay": "bool", "held": "units"}

    def start(self, s: State, frame: Frame, args: dict[str, Any], site: tuple[str, int]) -> None:
        super().start(s, frame, args, site)
        frame.b.setdefault("may_delay", False)
        frame.b["held"] = ()

    def due(self, s: State, frame: Frame) -> list[int]:
        """The units to enter now, in unit order. Whether the rules let a unit in
        is asked of its side's remembered answers (engine/incremental.py): the
        side's other entries change few of them (an entry hex next to the
        enemy, 9.61), and the check recomputes them."""
        waiting = self._waiting(s, frame)
        if not waiting:
            return waiting
        side = frame.b["side"]
        memo = incremental.remembered(s, (frame.b["site"], side))
        # (a unit's question is keyed by its number: these answers are the site's own)
        out = [u for u in waiting if memo.ask(s, u, self._arrives, s, frame, u)]
        if incremental.CHECK:
            self._check_remembered(s, frame, waiting, out)
        return out

    @staticmethod
    def _waiting(s: State, frame: Frame) -> list[int]:
        """The side's units not yet entered whose turn of entry has come and that
        were not held back this phase."""
        turn = s.vars["turn"]
        entries = s.game.entries
        side = frame.b["side"]
        by_side = s.game.entering_by_side
        status = s.unit_status
        held = frame.b["held"]
        return [
            u
            for u in (by_side[side] if 0 <= side < len(by_side) else ())
            if status[u] == NOT_ENTERED and entries[u][0] <= turn and u not in held
        ]

    def _check_remembered(self, s: State, frame: Frame, waiting: list[int], out: list[int]) -> None:
        """Raise when the remembered answers differ from those worked out afresh."""
        full = [u for u in waiting if self._arrives(s, frame, u)]
        if full != out:
            raise incremental.IncrementalMismatch(
                f"enter_reinforcements at move {s.move_number}: remembered {out} "
                f"differ from recomputed {full}"
            )

    def _arrives(self, s: State, frame: Frame, u: int) -> bool:
        """Whether the rules let a unit due now in: no `no_arrival`, and `may_enter`."""
        return may_arrive(s, u) and self.holds(s, frame, "may_enter", True, unit=u)

    def options(self, s: State, frame: Frame, u: int) -> list[int]:
        """Entry hexes free of enemy units: the unit's own, or those the rules compute."""
        side = s.game.rules.units[u].side
        hexes = s.game.entries[u][1]
        if self.has_lambda(s, frame, "entry_hexes"):
            hexes = tuple(sorted(self.call(s, frame, "entry_hexes", unit=u)))
        return [h for h in hexes if not enemy_in(s, h, side)]

    def run(self, s: State, frame: Frame) -> Node | None:
        for u in self.due(s, frame):
            options = self.options(s, frame, u)
            if not options:
                say(s, f"{unit_name(s, u)} finds its entry hexes held by the enemy and waits.")
                frame.b["held"] = (*frame.b["held"], u)
                continue
            if len(options) > 1 or frame.b["may_delay"]:
                return _ask_entry(s, frame, u, options)
            self._enter(s, u, options[0])
        return None

    def apply(self, s: State, frame: Frame, action: int) -> None:
        u = self.due(s, frame)[0]
        space = s.game.actions
        if action == space.PASS:
            say(s, f"{unit_name(s, u)} is held back.")
            frame.b["held"] = (*frame.b["held"], u)
            return
        self._enter(s, u, space.decode("hex", action))

    @staticmethod
    def _enter(s: State, u: int, h: int) -> None:
        place_unit(s, u, h)
        say(s, f"{unit_name(s, u)} enters at {hex_label(s, h)}.")
        emit(s, "entered_map", unit=u, hex=h)


def _ask_entry(s: State, frame: Frame, u: int, options: list[int]) -> Node:
    """The owner picks the unit's entry hex, or passes to hold it back when the
    rules allow a delay."""
    space = s.game.actions
    actions = tuple(space.hex(h) for h in options)
    if frame.b["may_delay"]:
        actions = (space.PASS, *actions)
    side = s.game.rules.units[u].side
    return Node(side, actions, prompt=f"bring on {unit_name(s, u)} (pass to delay)")


register(EnterReinforcements())
