"""Queries: side-effect-free functions of the game state that rule files call.

Every function takes the state first; compiled rule code calls them as
`q.name(s, …)`. Hexes, units and sides are integers; collections are sorted
tuples so that results never depend on set order.
"""

from __future__ import annotations

from fractions import Fraction

from engine.board import direction, fires_indirectly, unit_range
from engine.los import sees
from engine.state import ON_MAP, State
from engine.vocabulary import query
from engine.zoc import zoc_hexes


def board_distance(s: State, a: int, b: int) -> int:
    ca, cb = s.game.rules.board.cube[a], s.game.rules.board.cube[b]
    return max(abs(ca[0] - cb[0]), abs(ca[1] - cb[1]), abs(ca[2] - cb[2]))


def units_in(s: State, h: int) -> tuple[int, ...]:
    """Units on the map in hex h, leaders included."""
    return tuple(u for u, uh in enumerate(s.unit_hex) if uh == h and s.unit_status[u] == ON_MAP)


def is_combat_unit(s: State, u: int) -> bool:
    return s.game.rules.units[u].kind == "unit"


def unit_strength(s: State, u: int) -> int:
    spec = s.game.rules.units[u]
    if not spec.strengths:
        return 0
    return spec.strengths[min(s.unit_loss[u], len(spec.strengths) - 1)]


# ------------------------------------------------------------------ map


@query(("a", "hex"), ("b", "hex"), returns="bool")
def adjacent(s: State, a: int, b: int) -> bool:
    """True when hexes a and b share a hexside."""
    return b in s.game.rules.board.neighbors[a]


@query(("a", "hex"), ("b", "hex"), returns="int")
def distance(s: State, a: int, b: int) -> int:
    """Hexes from a to b, counting b but not a (11.2)."""
    return board_distance(s, a, b)


@query(("h", "hex"), returns="terrain")
def terrain(s: State, h: int) -> int:
    """The terrain type of a hex."""
    return s.game.rules.board.terrain[h]


@query(("a", "hex"), ("b", "hex"), ("feature", "hexside"), returns="bool")
def hexside_has(s: State, a: int, b: int, feature: int) -> bool:
    """True when the hexside between adjacent hexes a and b has the feature."""
    board = s.game.rules.board
    nbrs = board.neighbors[a]
    if b not in nbrs:
        return False
    return bool(board.hexsides[a][nbrs.index(b)] >> feature & 1)


@query(("h", "hex"), ("zone", "hexes"), returns="bool")
def in_zone(s: State, h: int, zone: tuple[int, ...]) -> bool:
    """True when hex h belongs to the zone (or list of hexes)."""
    return h in zone


@query(("h", "hex"), returns="int")
def hex_column(s: State, h: int) -> int:
    """The column of a hex: 21 for 2115 ("on or east of hex row 21xx": column >= 21)."""
    return s.game.rules.board.columns[h]


@query(("h", "hex"), returns="int")
def hex_row(s: State, h: int) -> int:
    """The row of a hex: 15 for 2115."""
    return s.game.rules.board.rows[h]


@query(("a", "hex"), ("b", "hex"), returns="bool")
def road_between(s: State, a: int, b: int) -> bool:
    """True when a road, track or path crosses the hexside between adjacent a and b (9.51)."""
    board = s.game.rules.board
    d = direction(board, a, b)
    return d >= 0 and bool(board.road[a] >> d & 1)


@query(("h", "hex"), ("side", "side"), returns="bool")
def in_zoc(s: State, h: int, side: int) -> bool:
    """True when hex h is in the zone of control of `side`'s combat units (8.1)."""
    return h in zoc_hexes(s, side)


def occupied_hexes(s: State) -> frozenset[int]:
    """Hexes holding combat units: blocking terrain for line of sight (11.42)."""
    units = s.game.rules.units
    return frozenset(
        h
        for u, h in enumerate(s.unit_hex)
        if s.unit_status[u] == ON_MAP and units[u].kind == "unit"
    )


@query(("a", "hex"), ("b", "hex"), returns="bool")
def los(s: State, a: int, b: int) -> bool:
    """Clear line of sight from a to b, units included (11.4); False beyond the LOS range."""
    return sees(s.game.rules.board, a, b, occupied_hexes(s))


@query(("u", "unit"), ("h", "hex"), returns="bool")
def can_fire_at(s: State, u: int, h: int) -> bool:
    """True when hex h is within the unit's `range` and it sees h, or needs not (indirect fire)."""
    rules = s.game.rules
    here = hex_of(s, u)
    if here < 0 or board_distance(s, here, h) > unit_range(rules, u):
        return False
    return fires_indirectly(rules, u) or los(s, here, h)


# ------------------------------------------------------------------ units


@query(("u", "unit"), returns="side")
def side(s: State, u: int) -> int:
    """The side a unit belongs to."""
    return s.game.rules.units[u].side


@query(("u", "unit"), returns="hex")
def hex_of(s: State, u: int) -> int:
    """The hex a unit is in (-1 when it is not on the map)."""
    return s.unit_hex[u] if s.unit_status[u] == ON_MAP else -1


@query(("h", "hex"), returns="units")
def units_at(s: State, h: int) -> tuple[int, ...]:
    """Every unit and leader in a hex."""
    return units_in(s, h)


@query(("side", "side"), returns="units")
def units_of(s: State, side: int) -> tuple[int, ...]:
    """Every unit and leader of a side on the map."""
    units = s.game.rules.units
    return tuple(
        u for u in range(len(units)) if units[u].side == side and s.unit_status[u] == ON_MAP
    )


@query(("side", "side"), returns="side")
def enemy(s: State, side: int) -> int:
    """The other side."""
    return 1 - side


@query(("h", "hex"), ("side", "side"), returns="units")
def enemies_adjacent(s: State, h: int, side: int) -> tuple[int, ...]:
    """Combat units not of `side` in hexes adjacent to h."""
    rules = s.game.rules
    nbrs = set(rules.board.neighbors[h])
    return tuple(
        u
        for u, uh in enumerate(s.unit_hex)
        if uh in nbrs
        and s.unit_status[u] == ON_MAP
        and rules.units[u].side != side
        and rules.units[u].kind == "unit"
    )


@query(("units", "units"), returns="units")
def leaders_with(s: State, units: tuple[int, ...]) -> tuple[int, ...]:
    """Leaders of the same side stacked in a hex with any of the units."""
    rules = s.game.rules
    hexes = {s.unit_hex[u] for u in units if s.unit_status[u] == ON_MAP}
    sides = {rules.units[u].side for u in units}
    return tuple(
        u
        for u, uh in enumerate(s.unit_hex)
        if uh in hexes
        and s.unit_status[u] == ON_MAP
        and rules.units[u].kind == "leader"
        and rules.units[u].side in sides
    )


# ------------------------------------------------------------------ close combat


@query(returns="combats")
def combats(s: State) -> tuple[int, ...]:
    """The close combats designated this phase and not yet resolved."""
    return tuple(i for i, c in enumerate(s.combats) if not c.resolved)


@query(("c", "combat"), returns="units")
def attackers(s: State, c: int) -> tuple[int, ...]:
    """The attacking units of a combat still on the map."""
    return tuple(u for u in s.combats[c].attackers if s.unit_status[u] == ON_MAP)


@query(("c", "combat"), returns="units")
def defenders(s: State, c: int) -> tuple[int, ...]:
    """The defending units of a combat still on the map."""
    return tuple(u for u in s.combats[c].defenders if s.unit_status[u] == ON_MAP)


@query(("c", "combat"), returns="side")
def attacking_side(s: State, c: int) -> int:
    """The side that designated the combat."""
    return s.combats[c].side


@query(("c", "combat"), returns="side")
def defending_side(s: State, c: int) -> int:
    """The side attacked in the combat."""
    return 1 - s.combats[c].side


@query(("c", "combat"), returns="hex")
def defender_hex(s: State, c: int) -> int:
    """The first defending hex of a combat."""
    return s.combats[c].defense_hexes[0]


@query(("table", "table"), ("attack", "int"), ("defend", "int"), returns="column")
def odds_column(s: State, table: int, attack: int, defend: int) -> int:
    """The odds column, the ratio rounded in favour of the defender (12.23 step 1).

    Odds below the first column read the first column; above the last, the last.
    """
    columns = s.game.rules.tables[table].columns
    if defend <= 0:
        return len(columns) - 1
    ratio = Fraction(attack, defend)
    best = 0
    for i, (a, d) in enumerate(columns):
        if ratio >= Fraction(a, d):
            best = i
    return best


# ------------------------------------------------------------------ score


@query(("side", "side"), returns="int")
def vp(s: State, side: int) -> int:
    """Victory points of a side."""
    return s.vars["vp"][side]
