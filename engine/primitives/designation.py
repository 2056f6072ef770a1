"""The designation primitive: the attacker announces close combats one at a time.

Every combat unit of the phasing side that is adjacent to an enemy combat
unit and must attack (`must_attack`; 12.12 excepts artillery and rifles) does
so, and every enemy unit adjacent to one that must attack is attacked
(12.13), as is an enemy unit the rules say `must_be_attacked` next to any
unit that may attack (13.1 PIN case A: "attack all defending units marked as
pinned"). Each combat is one defending hex against one or more attacking
hexes, or one attacking hex against several defending hexes (12.15); all
defenders in a hex are attacked together, but "attacking units stacked in a
single hex may combine in a single attack or attack different units". A
designation is offered only while the remaining obligations can still all be
met, so the player can never designate into a dead end.

An action names the combat's centre hex, a 6-bit mask of the neighbours
taking part and the form (0: the centre defends, 1: the centre attacks). The
attacking hexes commit all their uncommitted units that may attack; then,
until the next designation or the pass, the attacker may leave units of the
combat just designated out of it (a unit action each: the unit stays free,
to attack elsewhere or, when it need not attack, not at all), as long as
every attacking hex keeps a unit in the combat.

With `diversion`, the attacker may once place the Diversion on a defending
stack (the action with an empty mask, 12.14): it is not attacked, the units
next to it must attack elsewhere, and every combat they take part in is
marked `diverted` (its odds shift one column left, by the rules).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar

from engine.board import DIRECTIONS
from engine.describe import hex_label, unit_name, unit_names
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
    ("must_be_attacked", Lambda("bool", (("unit", "unit"),))),
    ("diversion", "bool"),
    ("may_divert", Lambda("bool", (("unit", "unit"),))),
    optional=("may_attack", "must_attack", "must_be_attacked", "diversion", "may_divert"),
    doc="The phasing side designates its close combats, one per action, then passes.",
)

# Beyond this many explored positions the feasibility search trusts the designation.
SEARCH_LIMIT = 20000

# A designation: (centre, mask, form, attacking hexes, defending hexes).
Designation = tuple[int, int, int, frozenset[int], frozenset[int]]


class _Position:
    """Who stands where, for one designation decision: computed once per decision.

    Units already in a combat are committed; the others that may attack are
    free. `pool` names the combat whose units may still be left out of it.
    """

    def __init__(self, s: State, frame: Frame, prim: Primitive) -> None:
        self.s = s
        rules = s.game.rules
        self.restricted = any(r.kind == "no_combat" for r in rules.restrictions)
        self.neighbors = rules.board.neighbors
        self.committed = frozenset(u for c in s.combats for u in c.attackers)
        self.hex_of: dict[int, int] = {}  # may-attack unit -> hex
        self.enemies_in: dict[int, tuple[int, ...]] = {}  # hex -> unattacked enemy units
        friends, enemies = _on_map_by_side(s, frame.b["side"])
        must_attack, may_attack_hexes = self._survey_attackers(s, frame, prim, friends)
        enemy_hexes, must_be_hexes = self._survey_enemies(s, frame, prim, enemies)
        must_attack_hexes = {self.hex_of[u] for u in must_attack}
        self.mandatory = self._must_attack_adjacent(must_attack, enemy_hexes)
        self.must_defend = self._must_be_attacked(
            must_attack_hexes, must_be_hexes, may_attack_hexes
        )
        if self.restricted:
            self._drop_obligations_no_combat_forbids()

    def _survey_attackers(
        self, s: State, frame: Frame, prim: Primitive, friends: list[int]
    ) -> tuple[list[int], set[int]]:
        """Record the friendly units that may attack (`hex_of`); return those that
        must attack (12.12) and the hexes of all that may."""
        may = prim.has_lambda(s, frame, "may_attack")
        must = prim.has_lambda(s, frame, "must_attack")
        hexes = s.unit_hex
        must_attack: list[int] = []
        for u in friends:
            if may and not prim.call(s, frame, "may_attack", unit=u):
                continue
            self.hex_of[u] = hexes[u]
            if not must or prim.call(s, frame, "must_attack", unit=u):
                must_attack.append(u)
        return must_attack, set(self.hex_of.values())

    def _survey_enemies(
        self, s: State, frame: Frame, prim: Primitive, enemies: list[int]
    ) -> tuple[set[int], set[int]]:
        """Record the enemy units not yet attacked, by hex (`enemies_in`; the
        Diversion's hex is never attacked, 12.14); return the hexes of all enemy
        units and those holding a unit that `must_be_attacked` (13.1)."""
        must_be = prim.has_lambda(s, frame, "must_be_attacked")
        attacked = {u for c in s.combats for u in c.defenders}
        diverted_hex = frame.b.get("diverted_hex", -1)
        hexes = s.unit_hex
        must_be_hexes: set[int] = set()
        for u in enemies:
            h = hexes[u]
            if u in attacked or h == diverted_hex:
                continue
            self.enemies_in[h] = (*self.enemies_in.get(h, ()), u)
            if must_be and prim.call(s, frame, "must_be_attacked", unit=u):
                must_be_hexes.add(h)
        return {hexes[u] for u in enemies}, must_be_hexes

    def _must_attack_adjacent(
        self, must_attack: list[int], enemy_hexes: set[int]
    ) -> frozenset[int]:
        """A unit that must attack and stands next to the enemy owes a combat
        (it may be committed already: left out, it owes one again)."""
        return frozenset(
            u for u in must_attack if any(n in enemy_hexes for n in self.neighbors[self.hex_of[u]])
        )

    def _must_be_attacked(
        self, must_attack_hexes: set[int], must_be_hexes: set[int], may_attack_hexes: set[int]
    ) -> frozenset[int]:
        """Enemy hexes owed an attack: next to a unit that must attack (12.13), or
        holding a unit that must be attacked next to one that may (13.1)."""
        return frozenset(
            h
            for h in self.enemies_in
            if any(n in must_attack_hexes for n in self.neighbors[h])
            or (h in must_be_hexes and any(n in may_attack_hexes for n in self.neighbors[h]))
        )

    def _drop_obligations_no_combat_forbids(self) -> None:
        """A hex a `no_combat` restriction keeps out of every combat owes none."""
        options = self.designations(self.committed, frozenset())
        self.mandatory = frozenset(
            u for u in self.mandatory if any(self.hex_of[u] in o[3] for o in options)
        )
        self.must_defend = frozenset(h for h in self.must_defend if any(h in o[4] for o in options))

    @property
    def obligations(self) -> bool:
        return bool(self.mandatory - self.committed or self.must_defend)

    def designations(self, committed: frozenset[int], used_d: frozenset[int]) -> list[Designation]:
        """The designations still possible when `committed` units are in combats
        and `used_d` hexes are attacked (each attacking hex commits its free units)."""
        free_hexes = {self.hex_of[u] for u in self.hex_of if u not in committed}
        open_d = self.enemies_in.keys() - used_d
        return self._against_one_hex(free_hexes, open_d, committed) + self._from_one_hex(
            free_hexes, open_d, committed
        )

    def ring(self, centre: int, mask: int) -> frozenset[int]:
        """The neighbours of `centre` a designation's mask names."""
        ring = self.neighbors[centre]
        return frozenset(ring[i] for i in range(DIRECTIONS) if mask >> i & 1)

    def _directions(self, centre: int, wanted: set[int]) -> list[int]:
        """The directions from `centre` whose neighbour is one of the `wanted` hexes."""
        return [i for i, n in enumerate(self.neighbors[centre]) if n in wanted]

    def _against_one_hex(
        self, free_hexes: set[int], open_d: set[int], committed: frozenset[int]
    ) -> list[Designation]:
        """One defending hex attacked from one or more hexes around it (form 0)."""
        out = []
        for d_hex in sorted(open_d):
            d_hexes = frozenset((d_hex,))
            for mask in _submasks(self._directions(d_hex, free_hexes), minimum=1):
                a_hexes = self.ring(d_hex, mask)
                if self.allowed(a_hexes, d_hexes, committed):
                    out.append((d_hex, mask, 0, a_hexes, d_hexes))
        return out

    def _from_one_hex(
        self, free_hexes: set[int], open_d: set[int], committed: frozenset[int]
    ) -> list[Designation]:
        """One attacking hex against several defending hexes around it (form 1, 12.15)."""
        out = []
        for a_hex in sorted(free_hexes):
            a_hexes = frozenset((a_hex,))
            for mask in _submasks(self._directions(a_hex, open_d), minimum=2):
                d_hexes = self.ring(a_hex, mask)
                if self.allowed(a_hexes, d_hexes, committed):
                    out.append((a_hex, mask, 1, a_hexes, d_hexes))
        return out

    def stack_units(self, hexes: frozenset[int], committed: frozenset[int]) -> tuple[int, ...]:
        """The free units of the hexes: those a designation commits."""
        return tuple(sorted(u for u, h in self.hex_of.items() if h in hexes and u not in committed))

    def defenders(self, d_hexes: Iterable[int]) -> tuple[int, ...]:
        """The unattacked enemy units of the defending hexes."""
        return tuple(sorted(u for h in d_hexes for u in self.enemies_in.get(h, ())))

    def allowed(
        self,
        a_hexes: frozenset[int],
        d_hexes: frozenset[int],
        committed: frozenset[int],
        attackers: tuple[int, ...] | None = None,
    ) -> bool:
        """No `no_combat` restriction forbids the combat these hexes would make."""
        if not self.restricted:
            return True
        if attackers is None:
            attackers = self.stack_units(a_hexes, committed)
        return may_designate(
            self.s,
            attackers,
            self.defenders(d_hexes),
            tuple(sorted(a_hexes)),
            tuple(sorted(d_hexes)),
        )

    def feasible(
        self,
        committed: frozenset[int],
        used_d: frozenset[int],
        pool: tuple[frozenset[int], frozenset[int]] | None = None,
    ) -> bool:
        """Can every remaining obligation still be met, once `committed` units are
        in combats and `used_d` hexes attacked?

        `pool` is the combat just designated, as (its attacking hexes, its
        units that may yet be left out): each of those hexes keeps one of
        them, the others may still attack elsewhere. Without `no_combat`
        restrictions this is a matching (every defending hex owed a combat
        gets a unit of its own next to it; every unit that must attack has an
        enemy hex left to attack, since combats around one defending hex may
        gather units from any hexes); with them, a search."""
        if self.restricted:
            return self._search(committed, used_d)
        pool_hexes, pool_units = pool if pool is not None else (frozenset(), frozenset())
        if not self._each_owing_unit_has_a_target(committed, used_d, pool_units):
            return False
        return _matched(self._slots(committed, used_d, pool_hexes, pool_units))

    def _each_owing_unit_has_a_target(
        self, committed: frozenset[int], used_d: frozenset[int], pool_units: frozenset[int]
    ) -> bool:
        """Every free unit that must attack still has an unattacked enemy hex next to it."""
        available = [h for h in self.enemies_in if h not in used_d]
        return all(
            any(n in available for n in self.neighbors[self.hex_of[u]])
            for u in self.mandatory
            if u not in committed and u not in pool_units
        )

    def _slots(
        self,
        committed: frozenset[int],
        used_d: frozenset[int],
        pool_hexes: frozenset[int],
        pool_units: frozenset[int],
    ) -> list[list[int]]:
        """The places a unit of its own must fill: each defending hex still owed a
        combat (any free unit next to it), and each attacking hex of the combat
        just designated (one of its units left in)."""
        free = [u for u in self.hex_of if u not in committed or u in pool_units]
        owed = [h for h in sorted(self.must_defend) if h not in used_d]
        slots = [[u for u in free if self.hex_of[u] in self.neighbors[h]] for h in owed]
        return slots + [self._kept_in(h, pool_units) for h in sorted(pool_hexes)]

    def _kept_in(self, h: int, pool_units: frozenset[int]) -> list[int]:
        """The units of an attacking hex of the combat just designated, one of which stays in it."""
        return [u for u in sorted(pool_units) if self.hex_of[u] == h]

    def may_commit(self, a_hexes: frozenset[int], d_hexes: frozenset[int]) -> bool:
        """Designating these hexes (their free units all committed, some of them
        perhaps left out afterwards) leaves every obligation still possible."""
        stack = self.stack_units(a_hexes, self.committed)
        return self.feasible(self.committed | set(stack), d_hexes, (a_hexes, frozenset(stack)))

    def _search(self, committed: frozenset[int], used_d: frozenset[int]) -> bool:
        """Depth-first, memoised: designations that commit whole stacks."""
        memo: dict[tuple[frozenset[int], frozenset[int]], bool] = {}
        budget = [SEARCH_LIMIT]

        def search(done: frozenset[int], ud: frozenset[int]) -> bool:
            key = (done, ud)
            if key in memo:
                return memo[key]
            budget[0] -= 1
            if budget[0] < 0:
                return True
            open_d = sorted(self.must_defend - ud)
            open_a = sorted(self.hex_of[u] for u in self.mandatory - done)
            if not open_d and not open_a:
                memo[key] = True
                return True
            result = False
            for _c, _m, _f, a_hexes, d_hexes in self.designations(done, ud):
                covers = (open_d and open_d[0] in d_hexes) or (not open_d and open_a[0] in a_hexes)
                if covers and search(done | set(self.stack_units(a_hexes, done)), ud | d_hexes):
                    result = True
                    break
            memo[key] = result
            return result

        return search(committed, used_d)


def _on_map_by_side(s: State, side: int) -> tuple[list[int], list[int]]:
    """The combat units on the map: the side's own, and the enemy's."""
    status, sides = s.unit_status, s.game.combat_sides
    on_map = [u for u in s.game.combat_units if status[u] == ON_MAP]
    return [u for u in on_map if sides[u] == side], [u for u in on_map if sides[u] != side]


def _may_leave_out(s: State, pos: _Position, c: Combat, u: int) -> bool:
    """Another unit of its hex stays in the combat, no `no_combat` restriction
    forbids the combat without it, and the obligations can still all be met
    with it free."""
    rest = tuple(x for x in c.attackers if x != u)
    if not any(s.unit_hex[x] == s.unit_hex[u] for x in rest):
        return False
    a_hexes = frozenset(c.attack_hexes)
    if pos.restricted and not pos.allowed(a_hexes, frozenset(c.defense_hexes), pos.committed, rest):
        return False
    return pos.feasible(pos.committed - {u}, frozenset(), (a_hexes, frozenset(rest)))


def _matched(slots: list[list[int]]) -> bool:
    """Can every slot take a unit of its own from its candidates? (augmenting paths)"""
    owner: dict[int, int] = {}
    return all(_place(slots, owner, i, set()) for i in range(len(slots)))


def _place(slots: list[list[int]], owner: dict[int, int], i: int, seen: set[int]) -> bool:
    """Give slot i a unit, moving other slots' units along an augmenting path.

    A function of the module, not one nested in `_matched` that calls itself: that
    would be a reference cycle, left to the garbage collector at every designation.
    """
    for u in slots[i]:
        if u in seen:
            continue
        seen.add(u)
        if u not in owner or _place(slots, owner, owner[u], seen):
            owner[u] = i
            return True
    return False


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
        "open_combat": "int",
    }

    def start(self, s: State, frame: Frame, args: dict[str, Any], site: tuple[str, int]) -> None:
        super().start(s, frame, args, site)
        frame.b.setdefault("diversion", False)
        frame.b.update(done=False, diverted_hex=-1, open_combat=-1)
        s.combats.clear()

    def _diversions(self, s: State, frame: Frame, pos: _Position) -> list[int]:
        """Defending stacks that may still receive the Diversion (12.14): owed an
        attack, every unit of them one `may_divert` allows, and the obligations
        still all possible with the stack left alone."""
        if not frame.b["diversion"] or frame.b["diverted_hex"] >= 0:
            return []
        out = []
        for h, units in sorted(pos.enemies_in.items()):
            if (
                h in pos.must_defend
                and self._may_divert(s, frame, units)
                and self._feasible_diverted(s, frame, h)
            ):
                out.append(h)
        return out

    def _may_divert(self, s: State, frame: Frame, units: tuple[int, ...]) -> bool:
        """Every unit of the stack is one the Diversion may fall on (`may_divert`)."""
        return all(self.holds(s, frame, "may_divert", True, unit=u) for u in units)

    def _feasible_diverted(self, s: State, frame: Frame, h: int) -> bool:
        """Whether every obligation can still be met with the Diversion on hex h."""
        frame.b["diverted_hex"] = h
        diverted = _Position(s, frame, self)
        frame.b["diverted_hex"] = -1
        return diverted.feasible(diverted.committed, frozenset())

    def _finish(self, s: State, frame: Frame) -> None:
        """Mark the combats of units next to the Diversion (12.14)."""
        d_hex = frame.b["diverted_hex"]
        if d_hex >= 0:
            near = set(s.game.rules.board.neighbors[d_hex])
            for c in s.combats:
                c.diverted = any(h in near for h in c.attack_hexes)
        frame.b["done"] = True

    def _left_out(self, s: State, frame: Frame, pos: _Position) -> list[int]:
        """Units of the combat just designated that may be left out of it (12.15:
        stacked attackers "may combine in a single attack or attack different
        units")."""
        c_index = frame.b.get("open_combat", -1)
        if c_index < 0:
            return []
        c = s.combats[c_index]
        return [u for u in c.attackers if _may_leave_out(s, pos, c, u)]

    def _legal(self, s: State, frame: Frame, pos: _Position) -> tuple[list[int], bool]:
        """The designations that keep every obligation possible, the units that may
        be left out of the combat just designated, and whether the attacker may
        pass: when nothing more is owed, or no action keeps every obligation
        possible. A stack committed whole against one of two enemy hexes must
        hold a unit back for the other (12.13): the pass waits while a unit may
        still be left out, even when no combat is left to designate."""
        space = s.game.actions
        options = pos.designations(pos.committed, frozenset())
        legal = [
            space.designate(c, m, f)
            for c, m, f, a_hexes, d_hexes in options
            if pos.may_commit(a_hexes, d_hexes)
        ]
        legal += [space.unit(u) for u in self._left_out(s, frame, pos)]
        return legal, not pos.obligations or not legal

    def run(self, s: State, frame: Frame) -> Node | None:
        if frame.b["done"]:
            return None
        pos = _Position(s, frame, self)
        legal, may_pass = self._legal(s, frame, pos)
        space = s.game.actions
        legal += [space.designate(h, 0, 0) for h in self._diversions(s, frame, pos)]
        if not legal:
            self._finish(s, frame)
            return None
        actions = ([space.PASS] if may_pass else []) + legal
        return Node(frame.b["side"], tuple(actions), prompt="designate a close combat, or pass")

    def apply(self, s: State, frame: Frame, action: int) -> None:
        space = s.game.actions
        if space.kind_of(action) == "unit":
            self._leave_out(s, frame, space.decode("unit", action))
            return
        frame.b["open_combat"] = -1
        if action == space.PASS:
            self._finish(s, frame)
            return
        centre, mask, form = space.decode_designate(action)
        if mask == 0:
            frame.b["diverted_hex"] = centre
            say(s, f"The Diversion falls on {hex_label(s, centre)}.")
            return
        self._designate(s, frame, centre, mask, form)

    def _designate(self, s: State, frame: Frame, centre: int, mask: int, form: int) -> None:
        """Open a combat: the attacking hexes' free units against every unattacked
        unit of the defending hexes (12.13, 12.15)."""
        pos = _Position(s, frame, self)
        ring, middle = pos.ring(centre, mask), frozenset((centre,))
        a_hexes, d_hexes = (ring, middle) if form == 0 else (middle, ring)
        attackers = pos.stack_units(a_hexes, pos.committed)
        defenders = pos.defenders(d_hexes)
        s.combats.append(
            Combat(
                frame.b["side"],
                attackers,
                defenders,
                tuple(sorted(a_hexes)),
                tuple(sorted(d_hexes)),
            )
        )
        frame.b["open_combat"] = len(s.combats) - 1
        say(
            s,
            f"Combat {len(s.combats)}: {unit_names(s, attackers)} attack "
            f"{unit_names(s, defenders)} in {', '.join(hex_label(s, h) for h in sorted(d_hexes))}.",
        )

    def _leave_out(self, s: State, frame: Frame, u: int) -> None:
        c = s.combats[frame.b["open_combat"]]
        c.attackers = tuple(x for x in c.attackers if x != u)
        say(s, f"{unit_name(s, u)} is left out of combat {frame.b['open_combat'] + 1}.")


register(DesignateCombats())
