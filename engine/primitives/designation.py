"""The designation primitive: the attacker announces close combats one at a time.

Every combat unit of the phasing side that is adjacent to an enemy combat
unit must attack (12.12), and every enemy unit adjacent to one that may
attack must be attacked (12.13). Each combat is one defending hex against
one or more attacking hexes, or one attacking hex against several defending
hexes (12.15); all defenders in a hex are attacked together. A designation is
offered only while the remaining obligations can still all be met, so the
player can never designate into a dead end.

An action names the combat's centre hex, a 6-bit mask of the neighbours
taking part and the form (0: the centre defends, 1: the centre attacks). The
attacking hexes commit all their units that may attack.

With `diversion`, the attacker may once place the Diversion on a defending
stack (the action with an empty mask, 12.14): it is not attacked, the units
next to it must attack elsewhere, and every combat they take part in is
marked `diverted` (its odds shift one column left, by the rules).
"""

from __future__ import annotations

from typing import Any, ClassVar

from engine.board import DIRECTIONS
from engine.describe import hex_label, unit_names
from engine.effects import say
from engine.nodes import Node
from engine.primitives.base import Primitive, register
from engine.restrictions import may_designate
from engine.state import ON_MAP, Combat, Frame, State
from engine.vocabulary import Lambda, primitive

primitive(
    "designate_combats",
    ("side", "side"),
    ("may_attack", Lambda("bool", (("unit", "unit"),))),
    ("must_attack", Lambda("bool", (("unit", "unit"),))),
    ("diversion", "bool"),
    ("may_divert", Lambda("bool", (("unit", "unit"),))),
    optional=("may_attack", "must_attack", "diversion", "may_divert"),
    doc="The phasing side designates its close combats, one per action, then passes.",
)

# Beyond this many explored positions the feasibility search trusts the designation.
SEARCH_LIMIT = 20000


class _Position:
    """Who stands where, for one designation phase: computed once per decision."""

    def __init__(self, s: State, frame: Frame, prim: Primitive) -> None:
        self.s = s
        rules = s.game.rules
        self.restricted = any(r.kind == "no_combat" for r in rules.restrictions)
        side = frame.b["side"]
        diverted_hex = frame.b.get("diverted_hex", -1)
        may = prim.has_lambda(s, frame, "may_attack")
        must = prim.has_lambda(s, frame, "must_attack")
        self.neighbors = rules.board.neighbors
        committed = {u for c in s.combats for u in c.attackers}
        attacked = {u for c in s.combats for u in c.defenders}
        self.attackers_in: dict[int, tuple[int, ...]] = {}  # hex -> uncommitted attackers
        self.enemies_in: dict[int, tuple[int, ...]] = {}  # hex -> unattacked enemy units
        may_attack_hexes: set[int] = set()
        mandatory_units: dict[int, list[int]] = {}
        for u, spec in enumerate(rules.units):
            if s.unit_status[u] != ON_MAP or spec.kind != "unit":
                continue
            h = s.unit_hex[u]
            if spec.side == side:
                if may and not prim.call(s, frame, "may_attack", unit=u):
                    continue
                may_attack_hexes.add(h)
                if u not in committed:
                    self.attackers_in[h] = (*self.attackers_in.get(h, ()), u)
                    if not must or prim.call(s, frame, "must_attack", unit=u):
                        mandatory_units.setdefault(h, []).append(u)
            elif u not in attacked and h != diverted_hex:
                self.enemies_in[h] = (*self.enemies_in.get(h, ()), u)
        enemy_hexes = set(self.enemies_in)
        all_enemy_hexes = {
            s.unit_hex[u]
            for u, spec in enumerate(rules.units)
            if s.unit_status[u] == ON_MAP and spec.kind == "unit" and spec.side != side
        }
        self.must_attack = frozenset(
            h for h in mandatory_units if any(n in all_enemy_hexes for n in self.neighbors[h])
        )
        self.must_defend = frozenset(
            h for h in enemy_hexes if any(n in may_attack_hexes for n in self.neighbors[h])
        )
        if self.restricted:
            # A hex a `no_combat` restriction keeps out of every combat owes none.
            empty: frozenset[int] = frozenset()
            options = self.designations(empty, empty)
            self.must_attack = frozenset(
                h for h in self.must_attack if any(h in o[3] for o in options)
            )
            self.must_defend = frozenset(
                h for h in self.must_defend if any(h in o[4] for o in options)
            )

    def designations(
        self, used_a: frozenset[int], used_d: frozenset[int]
    ) -> list[tuple[int, int, int, frozenset[int], frozenset[int]]]:
        """(centre, mask, form, attacking hexes, defending hexes) still possible."""
        out = []
        for d_hex in sorted(self.enemies_in):
            if d_hex in used_d:
                continue
            dirs = [
                i
                for i, n in enumerate(self.neighbors[d_hex])
                if n >= 0 and n in self.attackers_in and n not in used_a
            ]
            for mask in _submasks(dirs, minimum=1):
                hexes = frozenset(
                    self.neighbors[d_hex][i] for i in range(DIRECTIONS) if mask >> i & 1
                )
                if self.allowed(hexes, frozenset((d_hex,))):
                    out.append((d_hex, mask, 0, hexes, frozenset((d_hex,))))
        for a_hex in sorted(self.attackers_in):
            if a_hex in used_a:
                continue
            dirs = [
                i
                for i, n in enumerate(self.neighbors[a_hex])
                if n >= 0 and n in self.enemies_in and n not in used_d
            ]
            for mask in _submasks(dirs, minimum=2):
                hexes = frozenset(
                    self.neighbors[a_hex][i] for i in range(DIRECTIONS) if mask >> i & 1
                )
                if self.allowed(frozenset((a_hex,)), hexes):
                    out.append((a_hex, mask, 1, frozenset((a_hex,)), hexes))
        return out

    def allowed(self, a_hexes: frozenset[int], d_hexes: frozenset[int]) -> bool:
        """No `no_combat` restriction forbids the combat these hexes would make."""
        if not self.restricted:
            return True
        attackers = tuple(sorted(u for h in a_hexes for u in self.attackers_in.get(h, ())))
        defenders = tuple(sorted(u for h in d_hexes for u in self.enemies_in.get(h, ())))
        return may_designate(
            self.s, attackers, defenders, tuple(sorted(a_hexes)), tuple(sorted(d_hexes))
        )

    def feasible(self, used_a: frozenset[int], used_d: frozenset[int]) -> bool:
        """Can every remaining obligation still be met? (depth-first, memoised)"""
        memo: dict[tuple[frozenset[int], frozenset[int]], bool] = {}
        budget = [SEARCH_LIMIT]

        def search(ua: frozenset[int], ud: frozenset[int]) -> bool:
            key = (ua, ud)
            if key in memo:
                return memo[key]
            budget[0] -= 1
            if budget[0] < 0:
                return True
            open_d = sorted(self.must_defend - ud)
            open_a = sorted(self.must_attack - ua)
            if not open_d and not open_a:
                memo[key] = True
                return True
            result = False
            for _c, _m, _f, a_hexes, d_hexes in self.designations(ua, ud):
                covers = (open_d and open_d[0] in d_hexes) or (not open_d and open_a[0] in a_hexes)
                if covers and search(ua | a_hexes, ud | d_hexes):
                    result = True
                    break
            memo[key] = result
            return result

        return search(used_a, used_d)


def _submasks(dirs: list[int], minimum: int) -> list[int]:
    full = 0
    for d in dirs:
        full |= 1 << d
    out = []
    sub = full
    while sub:
        if bin(sub).count("1") >= minimum:
            out.append(sub)
        sub = (sub - 1) & full
    return sorted(out)


class DesignateCombats(Primitive):
    name = "designate_combats"
    fields: ClassVar[dict[str, str]] = {
        "side": "side",
        "done": "bool",
        "diversion": "bool",
        "diverted_hex": "hex",
    }

    def start(self, s: State, frame: Frame, args: dict[str, Any], site: tuple[str, int]) -> None:
        super().start(s, frame, args, site)
        frame.b.setdefault("diversion", False)
        frame.b.update(done=False, diverted_hex=-1)
        s.combats.clear()

    def _diversions(self, s: State, frame: Frame, pos: _Position) -> list[int]:
        """Defending stacks that may still receive the Diversion (12.14)."""
        if not frame.b["diversion"] or frame.b["diverted_hex"] >= 0:
            return []
        out = []
        for h, units in sorted(pos.enemies_in.items()):
            if h not in pos.must_defend:
                continue
            if self.has_lambda(s, frame, "may_divert") and not all(
                self.call(s, frame, "may_divert", unit=u) for u in units
            ):
                continue
            frame.b["diverted_hex"] = h
            feasible = _Position(s, frame, self).feasible(frozenset(), frozenset())
            frame.b["diverted_hex"] = -1
            if feasible:
                out.append(h)
        return out

    def _finish(self, s: State, frame: Frame) -> None:
        """Mark the combats of units next to the Diversion (12.14)."""
        d_hex = frame.b["diverted_hex"]
        if d_hex >= 0:
            near = set(s.game.rules.board.neighbors[d_hex])
            for c in s.combats:
                c.diverted = any(h in near for h in c.attack_hexes)
        frame.b["done"] = True

    def _legal(self, s: State, frame: Frame) -> tuple[list[int], bool]:
        pos = _Position(s, frame, self)
        space = s.game.actions
        empty: frozenset[int] = frozenset()
        options = pos.designations(empty, empty)
        legal = [
            space.designate(c, m, f)
            for c, m, f, a_hexes, d_hexes in options
            if pos.feasible(a_hexes, d_hexes)
        ]
        obligations = bool(pos.must_attack or pos.must_defend)
        may_pass = not obligations or (not legal and bool(options))
        if not legal and not may_pass:
            legal = [space.designate(c, m, f) for c, m, f, _a, _d in options]
        return legal, may_pass or not options

    def run(self, s: State, frame: Frame) -> Node | None:
        if frame.b["done"]:
            return None
        legal, may_pass = self._legal(s, frame)
        space = s.game.actions
        legal += [
            space.designate(h, 0, 0) for h in self._diversions(s, frame, _Position(s, frame, self))
        ]
        if not legal:
            self._finish(s, frame)
            return None
        actions = ([space.PASS] if may_pass else []) + legal
        return Node(frame.b["side"], tuple(actions), prompt="designate a close combat, or pass")

    def apply(self, s: State, frame: Frame, action: int) -> None:
        space = s.game.actions
        if action == space.PASS:
            self._finish(s, frame)
            return
        centre, mask, form = space.decode_designate(action)
        if mask == 0:
            frame.b["diverted_hex"] = centre
            say(s, f"The Diversion falls on {hex_label(s, centre)}.")
            return
        pos = _Position(s, frame, self)
        ring = [s.game.rules.board.neighbors[centre][i] for i in range(DIRECTIONS) if mask >> i & 1]
        a_hexes, d_hexes = (ring, [centre]) if form == 0 else ([centre], ring)
        attackers = tuple(sorted(u for h in a_hexes for u in pos.attackers_in.get(h, ())))
        defenders = tuple(sorted(u for h in d_hexes for u in pos.enemies_in.get(h, ())))
        s.combats.append(
            Combat(
                frame.b["side"],
                attackers,
                defenders,
                tuple(sorted(a_hexes)),
                tuple(sorted(d_hexes)),
            )
        )
        say(
            s,
            f"Combat {len(s.combats)}: {unit_names(s, attackers)} attack "
            f"{unit_names(s, defenders)} in {', '.join(hex_label(s, h) for h in sorted(d_hexes))}.",
        )


register(DesignateCombats())
