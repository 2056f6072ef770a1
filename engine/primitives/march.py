"""The march primitive: a forced move, full movement toward a goal.

Countermarches (units must move their full allowance toward their entry hex)
and herds driven along a road are forced moves: each step must bring the unit
nearer its goal — by movement cost, over the hexes it may legally enter — and
the unit goes on while it can (`along_roads`: only across road, track or
path hexsides). Its owner chooses between equally good steps.
A unit that cannot take a single step is captured if the rules say so; one
that reaches its goal with movement to spare leaves the map if they say so.
"""

from __future__ import annotations

import heapq
from typing import Any, ClassVar

from engine.board import DIRECTIONS, PROHIBITED, move_class, step_cost
from engine.describe import hex_label, unit_name
from engine.effects import arrived, capture, remove_from_play, say
from engine.events import emit
from engine.nodes import CONTINUE, Node
from engine.primitives.base import Primitive, register
from engine.queries import enemy_in, units_in
from engine.restrictions import allowance, may_enter
from engine.rules import BoardSpec
from engine.state import ON_MAP, Frame, State
from engine.terrain_state import CHANGED_TERRAIN, board_of
from engine.vocabulary import Lambda, primitive

FAR = 1 << 30  # farther than any hex the goals reach

primitive(
    "march",
    ("unit", "unit"),
    ("toward", "hexes"),
    ("stacking", Lambda("bool", (("units", "units"),))),
    (
        "stop_after",
        Lambda("bool", (("unit", "unit"), ("hex", "hex"), ("from", "hex"), ("to", "hex"))),
    ),
    ("capture_if_blocked", "bool"),
    ("exit", "bool"),
    ("along_roads", "bool"),
    optional=("stacking", "stop_after", "capture_if_blocked", "exit", "along_roads"),
    doc="Move the unit its full allowance toward the goal hexes, each step nearer.",
)


class March(Primitive):
    name = "march"
    fields: ClassVar[dict[str, str]] = {
        "unit": "unit",
        "toward": "hexes",
        "spent": "int",
        "done": "bool",
        "capture_if_blocked": "bool",
        "exit": "bool",
        "along_roads": "bool",
    }

    def start(self, s: State, frame: Frame, args: dict[str, Any], site: tuple[str, int]) -> None:
        super().start(s, frame, args, site)
        frame.b.setdefault("capture_if_blocked", False)
        frame.b.setdefault("exit", False)
        frame.b.setdefault("along_roads", False)
        frame.b.update(spent=0, done=s.unit_status[frame.b["unit"]] != ON_MAP)

    def _enterable(self, s: State, frame: Frame, u: int, h: int) -> bool:
        """No enemy in hex h, the movement restrictions let the unit in, and the
        stacking limit holds with it there."""
        if enemy_in(s, h, s.game.rules.units[u].side) or not may_enter(s, u, h):
            return False
        return self.holds(s, frame, "stacking", True, units=(*units_in(s, h), u))

    def _distances(self, s: State, frame: Frame, u: int) -> dict[int, int]:
        """Movement cost from every hex to the nearest goal hex (Dijkstra from the goals).

        It depends on the map only (the unit's movement class, the goals,
        roads or not, the terrain changed in play), so it is worked out once
        per game and kept.
        """
        rules = s.game.rules
        key = (
            move_class(rules, u),
            tuple(frame.b["toward"]),
            bool(frame.b["along_roads"]),
            s.vars.get(CHANGED_TERRAIN),
        )
        kept = s.game.derived.setdefault("march_distances", {})
        if key not in kept:
            kept[key] = self._dijkstra(s, frame, u)
        return kept[key]

    def _dijkstra(self, s: State, frame: Frame, u: int) -> dict[int, int]:
        board = board_of(s)
        dist = {g: 0 for g in frame.b["toward"]}
        heap = [(0, g) for g in frame.b["toward"]]
        while heap:
            d, h = heapq.heappop(heap)
            if d > dist.get(h, FAR):
                continue
            for n, cost in self._steps_into(s, frame, u, h, board):
                if d + cost < dist.get(n, FAR):
                    dist[n] = d + cost
                    heapq.heappush(heap, (d + cost, n))
        return dist

    @staticmethod
    def _steps_into(
        s: State, frame: Frame, u: int, h: int, board: BoardSpec
    ) -> list[tuple[int, int]]:
        """Each neighbour from which the unit may step into hex h (by road, when
        the march keeps to roads), with the step's cost."""
        rules = s.game.rules
        roads_only = frame.b["along_roads"]
        out = []
        for n in board.neighbors[h]:
            if n < 0:
                continue
            back = board.neighbors[n].index(h)
            if roads_only and not board.road[n] >> back & 1:
                continue
            cost = step_cost(rules, u, n, back, board)
            if cost != PROHIBITED:
                out.append((n, cost))
        return out

    def steps(self, s: State, frame: Frame) -> list[int]:
        """The hexes next to the unit that bring it nearest its goal, within its
        allowance (a first step always is), that it may enter."""
        u = frame.b["unit"]
        dist = self._distances(s, frame, u)
        if s.unit_hex[u] not in dist:
            return []
        spent = frame.b["spent"]
        ma = allowance(s, u)
        out = [
            h
            for h, cost in self._nearer_steps(s, frame, u, dist)
            if (spent == 0 or spent + cost <= ma) and self._enterable(s, frame, u, h)
        ]
        best = min((dist[h] for h in out), default=None)
        return [h for h in out if dist[h] == best]

    @staticmethod
    def _nearer_steps(
        s: State, frame: Frame, u: int, dist: dict[int, int]
    ) -> list[tuple[int, int]]:
        """Each step from the unit's hex that brings it nearer its goal (by road,
        when the march keeps to roads), with the step's cost."""
        rules = s.game.rules
        board = board_of(s)
        here = s.unit_hex[u]
        now = dist[here]
        roads_only = frame.b["along_roads"]
        out = []
        for d in range(DIRECTIONS):
            h = board.neighbors[here][d]
            if h < 0 or dist.get(h, FAR) >= now:
                continue
            if roads_only and not board.road[here] >> d & 1:
                continue
            cost = step_cost(rules, u, here, d, board)
            if cost != PROHIBITED:
                out.append((h, cost))
        return out

    def run(self, s: State, frame: Frame) -> Node | None:
        b = frame.b
        if b["done"]:
            return None
        u = b["unit"]
        if self._may_march_off(s, frame, u):
            self._march_off(s, frame, u)
            return None
        options = self.steps(s, frame)
        if not options:
            self._blocked(s, frame, u)
            return None
        if len(options) == 1:
            self._step(s, frame, options[0])
            return CONTINUE
        owner = s.game.rules.units[u].side
        space = s.game.actions
        return Node(owner, tuple(space.hex(h) for h in options), prompt=f"march {unit_name(s, u)}")

    @staticmethod
    def _may_march_off(s: State, frame: Frame, u: int) -> bool:
        """A march that may exit does so from a goal hex with movement left."""
        b = frame.b
        return s.unit_hex[u] in b["toward"] and b["exit"] and b["spent"] < allowance(s, u)

    @staticmethod
    def _march_off(s: State, frame: Frame, u: int) -> None:
        """At its goal with movement left, a unit that may exit leaves the map."""
        say(s, f"{unit_name(s, u)} marches off the map.")
        emit(s, "left_map", unit=u, hex=s.unit_hex[u])  # the hex it left by
        remove_from_play(s, u)
        frame.b["done"] = True

    @staticmethod
    def _blocked(s: State, frame: Frame, u: int) -> None:
        """No step brings the unit nearer: the march ends, and a unit that could not
        take a single step is captured where the rules say so."""
        if frame.b["spent"] == 0 and frame.b["capture_if_blocked"]:
            say(s, f"{unit_name(s, u)} cannot march and is captured.")
            capture(s, u)
        frame.b["done"] = True

    def apply(self, s: State, frame: Frame, action: int) -> None:
        self._step(s, frame, s.game.actions.decode("hex", action))

    def _step(self, s: State, frame: Frame, h: int) -> None:
        rules = s.game.rules
        u = frame.b["unit"]
        a = s.unit_hex[u]
        frame.b["spent"] += step_cost(rules, u, a, rules.board.neighbors[a].index(h), board_of(s))
        s.unit_hex[u] = h
        say(s, f"{unit_name(s, u)} marches {hex_label(s, a)} → {hex_label(s, h)}.")
        arrived(s, u, a, h)
        if self.holds(s, frame, "stop_after", False, unit=u, hex=h, **{"from": a, "to": h}):
            frame.b["done"] = True


register(March())
