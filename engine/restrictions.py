"""Movement restrictions declared by the rules, read by the movement primitives
(and `no_arrival` by the reinforcement primitive).

Each restriction is active while its rule switch is on and its `until turn`
has not come (`Game.restrictions` holds those whose switch is on in the
game, so that only the turn is asked of them); its condition (over `unit`,
and `hex` for the hex kinds) decides whom and where it binds. `no_combat` is read by the designation
primitive: its condition sees a whole proposed close combat.
"""

from __future__ import annotations

from engine.firing import fired
from engine.rules import Fn, RestrictionSpec
from engine.state import State


def _switched_on(s: State, r: RestrictionSpec) -> bool:
    return not r.rule or s.game.switch_on[r.rule]


def _in_time(s: State, r: RestrictionSpec) -> bool:
    return r.until_turn is None or s.vars["turn"] < r.until_turn


def _active(s: State, r: RestrictionSpec) -> bool:
    return _switched_on(s, r) and _in_time(s, r)


def _holds(s: State, r: RestrictionSpec, bindings: dict[str, object]) -> bool:
    return r.condition is None or bool(r.condition(s, bindings))


def _binds(s: State, r: RestrictionSpec, bindings: dict[str, object]) -> bool:
    binds = _holds(s, r, bindings)
    if binds:
        fired(s, "restriction", r.name)
    return binds


# A hex restriction as `may_enter` and `may_end` test it once its unit's part holds
# for the unit: the hexes of its zone (None: no zone), its hex's part (None: it
# binds wherever its zone says), its `until turn` and its name.
HexTest = tuple[frozenset[int] | None, Fn | None, int | None, str]
# The hex restrictions that may bind one unit, by kind: no_entry, confined_to, no_end.
UnitTests = tuple[tuple[HexTest, ...], tuple[HexTest, ...], tuple[HexTest, ...]]
HEX_KINDS = ("no_entry", "confined_to", "no_end")
_NO_TESTS: UnitTests = ((), (), ())


def hex_tests(
    restrictions: dict[str, tuple[RestrictionSpec, ...]], zones: dict[str, frozenset[int]]
) -> tuple[tuple[tuple[Fn | None, HexTest], ...], ...]:
    """The `no_entry`, `confined_to` and `no_end` restrictions switched on in a game
    (`Game.restrictions`), in that order of kinds, each as its unit's part and
    its test, worked out once for the game: they are tested for every step
    considered. A restriction made without its parts tests its whole condition
    on the hex."""

    def test(r: RestrictionSpec) -> tuple[Fn | None, HexTest]:
        unit_part, hex_part = r.unit_part, r.hex_part
        if unit_part is None and hex_part is None:
            hex_part = r.condition
        return unit_part, (zones[r.zone] if r.zone else None, hex_part, r.until_turn, r.name)

    return tuple(tuple(test(r) for r in restrictions.get(kind, ())) for kind in HEX_KINDS)


def may_bind(s: State, u: int) -> UnitTests:
    """The hex restrictions that may bind unit u now, by kind (no_entry, confined_to,
    no_end): those whose unit's part holds for it. Asked once for a unit whose
    steps are worked out, rather than once per step: for most units none is left."""
    by_kind = s.game.hex_tests
    if not (by_kind[0] or by_kind[1] or by_kind[2]):
        return _NO_TESTS
    bindings = {"unit": u}
    kept: list[tuple[HexTest, ...]] = []
    for kind in by_kind:
        here: tuple[HexTest, ...] = ()
        for unit_part, test in kind:
            if unit_part is None or unit_part(s, bindings):
                here = (*here, test)
        kept.append(here)
    return kept[0], kept[1], kept[2]


def may_enter(
    s: State, u: int, h: int, origin: int | None = None, tests: UnitTests | None = None
) -> bool:
    """No `no_entry` forbids the hex and no `confined_to` keeps the unit out of it
    (`refused_entry` names the one that does)."""
    return refused_entry(s, u, h, origin, tests) is None


def refused_entry(
    s: State, u: int, h: int, origin: int | None = None, tests: UnitTests | None = None
) -> str | None:
    """The name of the `no_entry` or `confined_to` restriction that keeps unit u out of
    hex h, or None when none does.

    The condition sees `unit`, `hex` (the hex entered), and the step's `from`
    (the hex left: `origin`, or where the unit stands) and `to` (= `hex`).
    `tests`: the unit's `may_bind`, when the caller has them. Asked for every
    step considered, so the tests are written out here rather than through
    `_in_time` and `_holds`: the same tests, the condition's unit part first
    (in `may_bind`), then the zone, its hex part and the turn — what is fixed
    (the map's zone) first and the turn of an `until turn` last, so that an
    answer kept between decisions depends on the turn only where the
    restriction would bind.
    """
    no_entry, confined, _ = may_bind(s, u) if tests is None else tests
    if not no_entry and not confined:
        return None
    left = s.unit_hex[u] if origin is None else origin
    bindings = {"unit": u, "hex": h, "from": left, "to": h}
    for zone, hex_part, until, name in no_entry:
        if (zone is None or h in zone) and _in_force(s, hex_part, until, bindings):
            fired(s, "restriction", name)
            return name
    for zone, hex_part, until, name in confined:
        if zone is not None and h not in zone and _in_force(s, hex_part, until, bindings):
            fired(s, "restriction", name)
            return name
    return None


def _in_force(s: State, hex_part: Fn | None, until: int | None, bindings: dict[str, int]) -> bool:
    """A hex restriction binds in a hex of its zone: its hex part holds there, and
    its `until turn` has not come."""
    return (hex_part is None or bool(hex_part(s, bindings))) and (
        until is None or s.vars["turn"] < until
    )


def may_designate(
    s: State,
    attackers: tuple[int, ...],
    defenders: tuple[int, ...],
    attack_hexes: tuple[int, ...],
    defense_hexes: tuple[int, ...],
) -> bool:
    """No `no_combat` forbids this close combat, looked at whole as it would be designated."""
    bindings = {
        "attackers": attackers,
        "defenders": defenders,
        "attack_hexes": attack_hexes,
        "defense_hexes": defense_hexes,
    }
    return not any(
        r.kind == "no_combat" and _active(s, r) and _binds(s, r, bindings)
        for r in s.game.rules.restrictions
    )


def may_end(s: State, u: int, h: int, tests: UnitTests | None = None) -> bool:
    """No `no_end` forbids ending a move in the hex (`tests`: as `may_enter`'s;
    `refused_end` names the one that does)."""
    return refused_end(s, u, h, tests) is None


def refused_end(s: State, u: int, h: int, tests: UnitTests | None = None) -> str | None:
    """The name of the `no_end` restriction that forbids unit u to end its move in hex
    h, or None (its condition sees `unit` and `hex`)."""
    for zone, hex_part, until, name in (may_bind(s, u) if tests is None else tests)[2]:
        if (zone is None or h in zone) and _in_force(s, hex_part, until, {"unit": u, "hex": h}):
            fired(s, "restriction", name)
            return name
    return None


def binding(s: State, kind: str, u: int) -> RestrictionSpec | None:
    """The first restriction of a unit's kind (`no_move`, `no_arrival`, `max_hexes`,
    `allowance`) switched on in the game, in time and binding unit u, counted as
    fired (`_in_time` and `_binds` written out: asked for every unit at every
    decision of a movement phase)."""
    for r in s.game.restrictions.get(kind, ()):
        if (r.until_turn is None or s.vars["turn"] < r.until_turn) and (
            r.condition is None or r.condition(s, {"unit": u})
        ):
            fired(s, "restriction", r.name)
            return r
    return None


def may_move(s: State, u: int) -> bool:
    """No `no_move` holds the unit in place."""
    return binding(s, "no_move", u) is None


def may_arrive(s: State, u: int) -> bool:
    """No `no_arrival` holds the reinforcement off the map this turn."""
    return binding(s, "no_arrival", u) is None


def max_hexes(s: State, u: int) -> int | None:
    """How many hexes the unit may move at most (a `max_hexes` restriction), or None."""
    r = binding(s, "max_hexes", u)
    if r is None:
        return None
    assert r.value is not None
    return int(r.value(s, {"unit": u}))


def allowance(s: State, u: int) -> int:
    """The unit's movement allowance: the first `allowance` restriction that binds, else printed."""
    r = binding(s, "allowance", u)
    if r is None:
        return s.game.rules.units[u].movement
    assert r.value is not None
    return int(r.value(s, {"unit": u}))
