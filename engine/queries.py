"""Queries: side-effect-free functions of the game state that rule files call.

Every function takes the state first; compiled rule code calls them as
`q.name(s, …)`. Hexes, units and sides are integers; collections are sorted
tuples so that results never depend on set order.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from engine import restrictions
from engine.board import PROHIBITED, direction, fires_indirectly, step_cost, unit_range
from engine.firing import fired
from engine.los import sees
from engine.nodes import RulesError
from engine.state import EXITED, MAX_SIDES, NOT_ENTERED, ON_MAP, State
from engine.tables import cell_value, column_index, read_cell, row_of
from engine.terrain_state import board_of, change_index, place_of
from engine.vocabulary import query
from engine.zoc import in_zoc_of


def board_distance(s: State, a: int, b: int) -> int:
    ca, cb = s.game.rules.board.cube[a], s.game.rules.board.cube[b]
    return max(abs(ca[0] - cb[0]), abs(ca[1] - cb[1]), abs(ca[2] - cb[2]))


def units_in(s: State, h: int) -> tuple[int, ...]:
    """Units on the map in hex h, leaders included."""
    return s.units_by_hex().get(h, ())


def enemy_in(s: State, h: int, side: int) -> bool:
    """Whether hex h holds a unit or leader not of `side` (a hex no unit may enter,
    retreat into or set up in)."""
    units = s.game.rules.units
    return any(units[o].side != side for o in units_in(s, h))


def is_combat_unit(s: State, u: int) -> bool:
    return s.game.rules.units[u].kind == "unit"


def unit_strength(s: State, u: int) -> int:
    strengths = s.game.strengths[u]
    if not strengths:
        return 0
    loss = s.unit_loss[u]  # (stacking limits ask this for every step considered)
    return strengths[loss] if loss < len(strengths) else strengths[-1]


def unit_steps(s: State, u: int) -> int:
    """Steps the unit has left."""
    return max(len(s.game.rules.units[u].strengths), 1) - s.unit_loss[u]


def _step_value(values: tuple[int, ...], loss: int) -> int:
    return values[min(loss, len(values) - 1)] if values else 0


def unit_morale(s: State, u: int) -> int:
    """Printed morale of the unit's current side (15.31)."""
    return _step_value(s.game.rules.units[u].morales, s.unit_loss[u])


def unit_rifle_strength(s: State, u: int) -> int:
    """Rifle-fire strength: the second value of a musket/rifle unit, else its strength."""
    spec = s.game.rules.units[u]
    if spec.rifle_strengths:
        return _step_value(spec.rifle_strengths, s.unit_loss[u])
    return unit_strength(s, u)


def unit_type_name(s: State, u: int) -> str:
    t = s.game.rules.units[u].type
    return s.game.rules.unit_types[t].name if t >= 0 else ""


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
    return board_of(s).terrain[h]


@query(("change", "terrain_change"), returns="bool")
def terrain_changed(s: State, change: str) -> bool:
    """True when the terrain change has been made (the bridge is blown) and not undone."""
    return place_of(s, change) is not None


@query(("change", "terrain_change"), returns="places")
def places_of(s: State, change: str) -> tuple[str, ...]:
    """Where a terrain change with `one_of` may be made ("0503/0603"), to choose from."""
    spec = s.game.rules.terrain_changes[change_index(s.game.rules, change)]
    return tuple(label for label, _hexes, _sides in spec.places)


@query(("change", "terrain_change"), returns="str")
def terrain_changed_at(s: State, change: str) -> str:
    """Where a terrain change stands ("0503/0603"), or "" when it is not made."""
    return place_of(s, change) or ""


@query(("a", "hex"), ("b", "hex"), ("feature", "hexside"), returns="bool")
def hexside_has(s: State, a: int, b: int, feature: int) -> bool:
    """True when the hexside between adjacent hexes a and b has the feature."""
    board = board_of(s)
    nbrs = board.neighbors[a]
    if b not in nbrs:
        return False
    return bool(board.hexsides[a][nbrs.index(b)] >> feature & 1)


def terrain_attr(s: State, t: int, name: str) -> object:
    """A property of a terrain type (no/0 where its declaration is silent)."""
    return s.game.rules.terrain[t].props.get(name, _default_of(s, "terrain", name))


def hexside_attr(s: State, f: int, name: str) -> object:
    return s.game.rules.hexside_features[f].props.get(name, _default_of(s, "hexside", name))


def _default_of(s: State, kind: str, name: str) -> object:
    specs = s.game.rules.terrain if kind == "terrain" else s.game.rules.hexside_features
    sample = next((x.props[name] for x in specs if name in x.props), False)
    return {bool: False, int: 0, str: ""}[type(sample)]


@query(("a", "hex"), ("b", "hex"), ("feature", "hexside"), returns="bool")
def crossing_into(s: State, a: int, b: int, feature: int) -> bool:
    """True when the side a/b has the directional feature and it belongs to b:
    moving or attacking from a into b crosses it "into" (into fieldworks, 3.2)."""
    board = board_of(s)
    nbrs = board.neighbors[b]
    return a in nbrs and bool(board.owned[b][nbrs.index(a)] >> feature & 1)


@query(("u", "unit"), ("a", "hex"), ("b", "hex"), returns="int")
def move_cost(s: State, u: int, a: int, b: int) -> int:
    """MP for the unit to step from hex a into adjacent hex b: terrain, hexsides and
    roads by its movement class (9.4, 9.51); -1 where it may not (or b is not adjacent)."""
    rules = s.game.rules
    d = direction(rules.board, a, b)
    if d < 0:
        return PROHIBITED
    return step_cost(rules, u, a, d, board_of(s))


@query(("a", "hex"), ("b", "hex"), returns="bool")
def up_slope(s: State, a: int, b: int) -> bool:
    """True when crossing from a into adjacent b goes up a slope (3.2 "Up Slope")."""
    board = board_of(s)
    nbrs = board.neighbors[b]
    return a in nbrs and bool(board.slope_up[b] >> nbrs.index(a) & 1)


@query(("h", "hex"), returns="bool")
def prohibited(s: State, h: int) -> bool:
    """True when no unit may enter the hex's terrain."""
    return s.game.rules.terrain[board_of(s).terrain[h]].prohibited


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
    board = board_of(s)
    d = direction(board, a, b)
    return d >= 0 and bool(board.road[a] >> d & 1)


def occupied_hexes(s: State) -> frozenset[int]:
    """Hexes holding combat units: blocking terrain for line of sight (11.42).
    Kept on the occupancy (each line of sight traced asks it), except while a
    remembered question is worked out: that one notes the positions it reads."""
    occupancy = s.occupancy() if s._watched is None else None
    if occupancy is not None and occupancy.occupied is not None:
        return occupancy.occupied
    found = _combat_unit_hexes(s)
    if occupancy is not None:
        occupancy.occupied = found
    return found


def _combat_unit_hexes(s: State) -> frozenset[int]:
    """The hexes of the combat units on the map (leaders do not block sight)."""
    units = s.game.rules.units
    return frozenset(
        h
        for u, h in enumerate(s.unit_hex)
        if s.unit_status[u] == ON_MAP and units[u].kind == "unit"
    )


@query(("a", "hex"), ("b", "hex"), returns="bool")
def los(s: State, a: int, b: int) -> bool:
    """Clear line of sight from a to b, units included (11.4); False beyond the LOS range."""
    return sees(board_of(s), a, b, occupied_hexes(s))


@query(("u", "unit"), ("h", "hex"), returns="bool")
def can_fire_at(s: State, u: int, h: int) -> bool:
    """True when hex h is within the unit's `range` and it sees h, or needs not (indirect fire)."""
    rules = s.game.rules
    here = hex_of(s, u)
    if here < 0 or board_distance(s, here, h) > unit_range(rules, u):
        return False
    return fires_indirectly(rules, u) or los(s, here, h)


# ------------------------------------------------------------------ units


@query(("u", "unit"), returns="int")
def full_strength(s: State, u: int) -> int:
    """The strength printed on the unit's full-strength side, whatever it has lost."""
    spec = s.game.rules.units[u]
    return spec.strengths[0] if spec.strengths else 0


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
    by_side = s.game.units_by_side
    if not 0 <= side < len(by_side):
        return ()
    watch = s._watched
    if watch is None:
        occupancy = s.occupancy()
    else:  # a remembered question reads the statuses of the side's units
        watch.read_statuses(side)
        occupancy = watch.occupancy
    found = occupancy.on_map.get(side)
    if found is None:
        status = occupancy.status
        found = occupancy.on_map[side] = tuple(u for u in by_side[side] if status[u] == ON_MAP)
    return found


@query(("side", "side"), returns="units")
def exited_units(s: State, side: int) -> tuple[int, ...]:
    """Every unit and leader of a side that has left the map by an `exit` (what a
    victory condition counts: `sum(exited_units(side), strength)`)."""
    by_side = s.game.units_by_side
    if not 0 <= side < len(by_side):
        return ()
    status = s.unit_status
    return tuple(u for u in by_side[side] if status[u] == EXITED)


@query(returns="units")
def all_units(s: State) -> tuple[int, ...]:
    """Every unit and leader on the map."""
    return tuple(u for u in range(len(s.game.rules.units)) if s.unit_status[u] == ON_MAP)


@query(("units", "units"), returns="hexes")
def hexes_of(s: State, units: tuple[int, ...]) -> tuple[int, ...]:
    """The hexes the units stand in."""
    return tuple(sorted({s.unit_hex[u] for u in units if s.unit_status[u] == ON_MAP}))


@query(("i", "int"), returns="side")
def side_number(s: State, i: int) -> int:
    """The side declared i-th (from 0)."""
    return i


@query(("procedure", "procedure"), returns="bool")
def during(s: State, procedure: str) -> bool:
    """Whether a procedure (a phase) is under way: some frame of the stack runs it."""
    if s._watched is not None:
        s._watched.read_stack()
    return any(f.proc == procedure and not f.prim for f in s.stack)


@query(("rule", "rule"), returns="bool")
def rule_on(s: State, rule: str) -> bool:
    """True when a rule switch is on in this game."""
    return s.game.switch_on[rule]


def result_name(s: State, code: int) -> str:
    return s.game.rules.results[code].name if code >= 0 else ""


def divide(a: int | Fraction, b: int | Fraction) -> Fraction:
    """`a / b` in rule expressions: an exact fraction (half a victory point). By zero,
    the rules' fault, said in their words (Python's own says `Fraction(1, 0)`)."""
    if b == 0:
        raise ZeroDivisionError(f"division by zero: {a} / {b}")
    return Fraction(a) / Fraction(b)


def union(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    """Both collections, each member once, in order."""
    return a + tuple(x for x in b if x not in a)


@query(("side", "side"), returns="side")
def enemy(s: State, side: int) -> int:
    """The other side."""
    return 1 - side


@query(("h", "hex"), ("side", "side"), returns="units")
def enemies_adjacent(s: State, h: int, side: int) -> tuple[int, ...]:
    """Combat units not of `side` in hexes adjacent to h, in unit order."""
    watch = s._watched
    if watch is None:
        occupancy = s.occupancy()
    else:
        # A remembered question: friendly units coming and going change nothing here.
        watch.read_enemies_around(h, side)
        occupancy = watch.occupancy
    key = h * MAX_SIDES + side
    found = occupancy.enemies.get(key) if 0 <= side < MAX_SIDES else None
    if found is None:
        found = _enemies_next_to(s, occupancy.index, h, side)
        if 0 <= side < len(s.game.rules.sides):  # what a patched occupancy forgets by side
            occupancy.enemies[key] = found
    return found


def _enemies_next_to(
    s: State, index: dict[int, tuple[int, ...]], h: int, side: int
) -> tuple[int, ...]:
    """Combat units not of `side` in the hexes around h, in unit order, worked out
    from the positions by hex (`enemies_adjacent` keeps the answer)."""
    combat_sides = s.game.combat_sides
    near: list[int] = []
    for n in s.game.rules.board.neighbors[h]:
        here = index.get(n)
        if here:
            near += [u for u in here if combat_sides[u] not in (None, side)]
    return tuple(sorted(near))


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


@query(("u", "unit"), returns="units")
def stacked_with(s: State, u: int) -> tuple[int, ...]:
    """The other units and leaders in the unit's hex."""
    h = s.unit_hex[u]
    return tuple(o for o in units_in(s, h) if o != u) if s.unit_status[u] == ON_MAP else ()


@query(("h", "hex"), returns="hexes")
def hexes_around(s: State, h: int) -> tuple[int, ...]:
    """The hexes adjacent to h, on the map."""
    return tuple(n for n in s.game.rules.board.neighbors[h] if n >= 0)


@query(("h", "hex"), returns="units")
def units_around(s: State, h: int) -> tuple[int, ...]:
    """Every unit and leader in the hexes adjacent to h, in unit order."""
    at = s.units_by_hex()
    return tuple(
        sorted(u for n in s.game.rules.board.neighbors[h] if n >= 0 for u in at.get(n, ()))
    )


@query(("h", "hex"), ("units", "units"), returns="bool")
def in_zoc(s: State, h: int, units: tuple[int, ...]) -> bool:
    """True when hex h lies in the zone of control of any of these units (8.1).

    Which units exert a ZOC (Parade Order combat units) is the rules' to say:
    they pass the units. A unit projects into the adjacent hexes its hex and
    hexsides let it (the board's ZOC projection masks).
    """
    if not units:  # most often (no enemy rifles next to a hex a step leaves or enters)
        return False
    return in_zoc_of(s, h, units)


# Whether a movement restriction's condition is being worked out: it may not ask
# `may_move` or `may_enter` itself, which would never end.
_ASKING: list[str] = []


def _ask_restrictions(name: str, answer: Any, *args: int) -> bool:
    if _ASKING:
        raise RulesError(
            f"{name}: a movement restriction's condition asks the movement restrictions "
            f"(through {_ASKING[0]})"
        )
    _ASKING.append(name)
    try:
        return bool(answer(*args))
    finally:
        _ASKING.pop()


@query(("u", "unit"), returns="bool")
def may_move(s: State, u: int) -> bool:
    """True when no declared `no_move` restriction holds the unit in place: what
    the movement primitives obey, asked by a rule that looks ahead (can these
    units still get away?)."""
    return _ask_restrictions("may_move", restrictions.may_move, s, u)


@query(("u", "unit"), ("h", "hex"), returns="bool")
def may_enter(s: State, u: int, h: int) -> bool:
    """True when no declared `no_entry` or `confined_to` restriction keeps the unit,
    stepping from its hex, out of hex h (terrain, enemy units and stacking are
    the rules' own tests: `move_cost`, `units_at`)."""
    return _ask_restrictions("may_enter", restrictions.may_enter, s, u, h)


@query(("leader", "unit"), ("u", "unit"), returns="bool")
def may_command(s: State, leader: int, u: int) -> bool:
    """True when the leader's own limit on whom he commands (the battle's
    `commands when`) lets him command unit u; a leader without one commands any
    friendly unit. Which leader of a hex is in command is the rules' to say."""
    spec = s.game.rules.units[leader]
    return spec.commands is None or bool(spec.commands(s, {"unit": u}))


@query(("u", "unit"), ("h", "hex"), returns="bool")
def can_reach(s: State, u: int, h: int) -> bool:
    """True when the unit stands in hex h, or can get there this movement by legal
    steps: the engine's own movement (costs, ZOC, stacking, restrictions) played
    out on copies. No while its side is not moving it now (outside a movement),
    and inside its own search: a `no_end` asking it is not applied to the search
    (the hexes reached as if it were not there)."""
    if s.unit_status[u] != ON_MAP:
        return False
    return s.unit_hex[u] == h or h in s.game.reach(s, u)


@query(("u", "unit"), ("hexes", "hexes"), returns="bool")
def can_reach_any(s: State, u: int, hexes: tuple[int, ...]) -> bool:
    """True when the unit stands in, or can get this movement to, any of the hexes
    (`can_reach`'s answer for each: "if it can reach one")."""
    if s.unit_status[u] != ON_MAP:
        return False
    if s.unit_hex[u] in hexes:
        return True
    return not s.game.reach(s, u).isdisjoint(hexes)


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


@query(("c", "combat"), returns="hexes")
def attack_hexes(s: State, c: int) -> tuple[int, ...]:
    """The hexes the combat's attackers attack from."""
    return s.combats[c].attack_hexes


@query(("c", "combat"), returns="hexes")
def defense_hexes(s: State, c: int) -> tuple[int, ...]:
    """The hexes the combat's defenders hold."""
    return s.combats[c].defense_hexes


@query(("c", "combat"), returns="bool")
def diverted(s: State, c: int) -> bool:
    """True when an attacking unit of the combat is next to the stack that
    received the phase's Diversion (12.14): its odds shift one column left."""
    return s.combats[c].diverted


@query(("c", "combat"), returns="hex")
def defender_hex(s: State, c: int) -> int:
    """The first defending hex of a combat."""
    return s.combats[c].defense_hexes[0]


@query(("table", "table"), ("attack", "int"), ("defend", "int"), returns="column")
def odds_column(s: State, table: int, attack: int, defend: int) -> int:
    """The odds column, the ratio rounded in favour of the defender (12.23 step 1).

    Odds below the first column read the first column; above the last, the last.
    """
    columns = s.game.tables[table].columns
    if defend <= 0:
        return len(columns) - 1
    ratio = Fraction(attack, defend)
    best = 0
    for i, (a, d) in enumerate(columns):
        if ratio >= Fraction(a, d):
            best = i
    return best


@query(("table", "table"), ("column", "column"), ("shift", "int"), returns="column")
def shift_column(s: State, table: int, column: int, shift: int) -> int:
    """A column shifted right (+) or left (−), held at the table's edges (12.14)."""
    last = len(s.game.tables[table].columns) - 1
    return min(max(column + shift, 0), max(last, 0))


def lookup(s: State, table: int, row: Any, column: int | None = None) -> Any:
    """The cell at a row and column (index) of a table that is read, not rolled on."""
    spec = s.game.tables[table]
    fired(s, "table", spec.name)
    return cell_value(spec, read_cell(s, spec, row_of(spec, row), column or 0))


def column_of(s: State, table: int, key: Any) -> int:
    """The column index of a column key (a number or a name)."""
    return column_index(s.game.tables[table], key)


# ------------------------------------------------------------------ scenario


@query(("turn", "int"), ("otherwise", "side"), returns="side")
def first_player(s: State, turn: int, otherwise: int) -> int:
    """The side the scenario says plays first this turn, else `otherwise`."""
    scenario = s.game.scenario
    order = scenario.orders.get(turn) if scenario is not None else None
    return order[0] if order else otherwise


@query(("turn", "int"), returns="bool")
def fixed_order(s: State, turn: int) -> bool:
    """True when the scenario fixes the player order of this turn."""
    scenario = s.game.scenario
    return scenario is not None and turn in scenario.orders


@query(("u", "unit"), returns="int")
def entry_turn(s: State, u: int) -> int:
    """The turn a reinforcement is due (0 for units that do not enter later)."""
    return s.game.entries[u][0]


@query(("side", "side"), returns="units")
def units_to_enter(s: State, side: int) -> tuple[int, ...]:
    """The side's units waiting on the game-turn track to enter the map (reinforcements
    not yet placed, whether due this turn or later)."""
    by_side = s.game.units_by_side
    if not 0 <= side < len(by_side):
        return ()
    entries, status = s.game.entries, s.unit_status
    # (the status read only of a unit with a turn of entry: a remembered question that
    # asks depends on no other)
    return tuple(u for u in by_side[side] if entries[u][0] and status[u] == NOT_ENTERED)


@query(("u", "unit"), returns="hexes")
def entry_hexes(s: State, u: int) -> tuple[int, ...]:
    """The hexes where a reinforcement enters the map (none for units that set up on it)."""
    return tuple(sorted(s.game.entries[u][1]))


@query(("u", "unit"), returns="bool")
def variable_entry(s: State, u: int) -> bool:
    """True when a die roll decides the unit's entry (a variable reinforcement, 9.61)."""
    return bool(s.game.entries[u][2])


# ------------------------------------------------------------------ bags


@query(("bag", "bag"), ("token", "marker"), returns="bool")
def in_bag(s: State, bag: str, token: str) -> bool:
    """True when the bag holds the marker."""
    return token in s.bags[bag]


@query(("bag", "bag"), returns="int")
def bag_size(s: State, bag: str) -> int:
    """How many markers the bag holds."""
    return len(s.bags[bag])


@query(("bag", "bag"), returns="markers")
def bag_contents(s: State, bag: str) -> tuple[str, ...]:
    """The markers the bag holds, one entry per copy, in order (a hand of cards)."""
    return tuple(sorted(s.bags[bag]))


# ------------------------------------------------------------------ tracks


def turn_data(s: State, key: str) -> Any:
    """This turn's value on the turn track; a turn that does not say gives no/0."""
    track = s.game.rules.turn_track
    _label, data = track.get(s.vars["turn"], ("", {}))
    if key in data:
        return data[key]
    sample = next((d[key] for _l, d in track.values() if key in d), False)
    return {bool: False, int: 0, str: "", tuple: (1, 0)}[type(sample)]


def level_of(s: State, levels: str, side: int) -> str:
    """The level a side stands at on a level track (Army Morale: high, fatigued, …)."""
    spec = s.game.rules.levels[levels]
    value = s.vars[spec.variable][side]
    for name, low, high, _data in spec.levels:
        if in_range(value, (low, high)):
            return name
    return spec.levels[0][0] if value < (spec.levels[0][1] or 0) else spec.levels[-1][0]


def level_data(s: State, levels: str, level: str, key: str) -> Any:
    for name, _low, _high, data in s.game.rules.levels[levels].levels:
        if name == level:
            return data[key]
    raise ValueError(f"no level {level!r} on {levels!r}")


def in_range(value: int, bounds: tuple[int | None, int | None]) -> bool:
    """`value in 1..3`; a bound left open (`5..`, `..-1`) is None."""
    low, high = bounds
    return (low is None or low <= value) and (high is None or value <= high)


# ------------------------------------------------------------------ score


@query(("side", "side"), returns="number")
def vp(s: State, side: int) -> int | Fraction:
    """Victory points of a side (in halves where the rules score halves)."""
    return s.vars["vp"][side]
