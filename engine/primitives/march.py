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
from engine.queries import units_in
from engine.restrictions import allowance, may_enter
from engine.state import ON_MAP, Frame, State
from engine.terrain_state import CHANGED_TERRAIN, board_of
from engine.vocabulary import Lambda, primitive

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
        rules = s.game.rules
        side = rules.units[u].side
        here = units_in(s, h)
        if any(rules.units[o].side != side for o in here) or not may_enter(s, u, h):
            return False
        return not self.has_lambda(s, frame, "stacking") or self.call(
            s, frame, "stacking", units=(*here, u)
        )

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
        rules = s.game.rules
        board = board_of(s)
        dist = {g: 0 for g in frame.b["toward"]}
        heap = [(0, g) for g in frame.b["toward"]]
        while heap:
            d, h = heapq.heappop(heap)
            if d > dist.get(h, 1 << 30):
                continue
            for n in board.neighbors[h]:
                if n < 0:
                    continue
                back = board.neighbors[n].index(h)
                if frame.b["along_roads"] and not board.road[n] >> back & 1:
                    continue
                cost = step_cost(rules, u, n, back, board)
                if cost == PROHIBITED:
                    continue
                if d + cost < dist.get(n, 1 << 30):
                    dist[n] = d + cost
                    heapq.heappush(heap, (d + cost, n))
        return dist

    def steps(self, s: State, frame: Frame) -> list[int]:
        rules = s.game.rules
        u = frame.b["unit"]
        here = s.unit_hex[u]
        dist = self._distances(s, frame, u)
        now = dist.get(here)
        if now is None:
            return []
        ma = allowance(s, u)
        board = board_of(s)
        out = []
        for d in range(DIRECTIONS):
            h = board.neighbors[here][d]
            cost = step_cost(rules, u, here, d, board) if h >= 0 else PROHIBITED
            if cost == PROHIBITED or dist.get(h, 1 << 30) >= now:
                continue
            if frame.b["along_roads"] and not board.road[here] >> d & 1:
                continue
            if frame.b["spent"] + cost > ma and frame.b["spent"] > 0:
                continue
            if self._enterable(s, frame, u, h):
                out.append(h)
        best = min((dist[h] for h in out), default=None)
        return [h for h in out if dist[h] == best]

    def run(self, s: State, frame: Frame) -> Node | None:
        b = frame.b
        if b["done"]:
            return None
        u = b["unit"]
        if s.unit_hex[u] in b["toward"] and b["exit"] and b["spent"] < allowance(s, u):
            say(s, f"{unit_name(s, u)} marches off the map.")
            emit(s, "left_map", unit=u, hex=s.unit_hex[u])  # the hex it left by
            remove_from_play(s, u)
            b["done"] = True
            return None
        options = self.steps(s, frame)
        if not options:
            if b["spent"] == 0 and b["capture_if_blocked"]:
                say(s, f"{unit_name(s, u)} cannot march and is captured.")
                capture(s, u)
            b["done"] = True
            return None
        if len(options) == 1:
            self._step(s, frame, options[0])
            return CONTINUE
        owner = s.game.rules.units[u].side
        space = s.game.actions
        return Node(owner, tuple(space.hex(h) for h in options), prompt=f"march {unit_name(s, u)}")

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
        if self.has_lambda(s, frame, "stop_after") and self.call(
            s, frame, "stop_after", unit=u, hex=h, **{"from": a, "to": h}
        ):
            frame.b["done"] = True


register(March())
