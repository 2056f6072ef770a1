"""The forces: sides, nationalities, formations, brigades, unit types, units, leaders, markers.

    unit first_foot "1st Foot" § battle 6.12 {
        side red
        formation line_army          # the colour band
        brigade smith                # the letter on the counter
        type infantry
        strength 4 / 2               provisional "counter values are not in the rulebook"
        morale 1 / 0                 provisional "…"
        movement 4                   provisional "…"
        setup 2513
    }

Per-step values are written full strength first (`strength 4 / 2`: two
steps). Musket/rifle units give their rifle-fire values as `rifle_strength`.
A unit whose reverse has another name says `reduced "Olney"`. One-step units
and leaders declare what their back shows (`back blank`). Any other line is a
unit attribute the rules may read (`rifle black`, `rear_guard yes`).

A `piece` is a counter that is neither a combat unit nor a leader — a
driven herd, a wagon train: it has a side, a movement allowance and a set-up
or entry, no strength; it is never attacked and never commands.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import ClassVar

from compiler import ir
from compiler.check.bounds import (
    ATTRIBUTES,
    COUNTERS,
    MORALE,
    MOVEMENT,
    STRENGTH,
    TURN,
    Bound,
    all_within,
    prop_int,
    value_span,
    within,
)
from compiler.check.contexts import CONTEXTS
from compiler.check.expressions import ExprChecker, Scope, Symbols
from compiler.check.props import BOOL_WORDS, TRUE_WORDS, Props, as_int, describe, prov_of
from compiler.map.hexmap import LABEL
from dsl import ast
from dsl.diagnostics import (
    BAD_HEX,
    BAD_VALUE,
    DUPLICATE,
    MISSING,
    UNKNOWN_NAME,
    UNKNOWN_PROPERTY,
    Reporter,
    did_you_mean,
    hint_note,
)

EDGES = {"west", "east", "north", "south"}
ATTRIBUTE_TYPES = {"bool": "bool", "int": "int", "name": "str"}
UNIT_KEYS = {
    "side",
    "nationality",
    "formation",
    "brigade",
    "type",
    "short",
    "strength",
    "rifle_strength",
    "morale",
    "movement",
    "setup",
    "enters",
    "reduced",
    "reduced_short",
    "back",
}
# A piece is a counter that is neither a combat unit nor a leader (a herd, a
# wagon train): it has no strength and takes no part in combat.
PIECE_KEYS = {
    "side",
    "nationality",
    "formation",
    "short",
    "movement",
    "setup",
    "enters",
    "back",
}
LEADER_KEYS = PIECE_KEYS | {"commands"}
SIDE_KEYS = {"short", "color", "friendly_edge"}
NATIONALITY_KEYS = {"side"}
FORMATION_KEYS = {"side", "band", "stripe"}
BRIGADE_KEYS = {"side", "letter"}
UNIT_TYPE_KEYS = {"symbol"}  # and the declared attributes
MARKER_KEYS = {"short", "count", "back", "color", "side"}
ATTRIBUTE_KEYS = {"type", "values"}
COUNTER_KEYS = {"unit": UNIT_KEYS, "leader": LEADER_KEYS, "piece": PIECE_KEYS}
ATTRIBUTE_WANTS = {"bool": "yes or no", "int": "a whole number", "str": "a name"}


class ForcesChecker:
    def __init__(self, reporter: Reporter, sym: Symbols, ec: ExprChecker) -> None:
        self.r = reporter
        self.sym = sym
        self.ec = ec
        self.sides: set[str] = set()
        self.names: dict[str, set[str]] = {}
        self.places: dict[str, str] = {}  # named place -> hex label
        self.entries: dict[str, tuple[str, ...]] = {}  # entry (A-1, B…) -> its hexes
        self.declared_attributes: dict[str, tuple[str, tuple[str, ...]]] = {}
        # Leaders' `commands when` conditions, checked once every name is known
        # (they may call definitions that read variables declared later).
        self.commands: dict[str, ast.Expr] = {}

    # ------------------------------------------------------------ helpers

    @staticmethod
    def line_provs(d: ast.Entity, p: Props) -> dict[str, ir.Prov]:
        """Each property line's provenance (a cited declaration with an invented value)."""
        return {key: prov_of(d.prov).merged(prov_of(line.prov)) for key, line in p.lines.items()}

    def ref(self, p: Props, key: str, kind: str, required: bool = False) -> str | None:
        """A property naming a declared thing of one kind (a side, a formation, …)."""
        name = p.name(key, required=required)
        if name is None:
            return None
        known = self.sides if kind == "side" else self.names.get(kind, set())
        if name not in known:
            hint = did_you_mean(name, known)
            self.r.error(
                p.line(key).span,
                UNKNOWN_NAME,
                f"unknown {kind} {name!r}",
                *hint_note(hint),
            )
        return name

    def per_step(self, p: Props, key: str, bound: Bound) -> tuple[int, ...]:
        """`4 / 2` (full, reduced) or `4`: one whole number per step, each in `bound`."""
        line = p.line(key)
        if line is None:
            return ()
        nums = _per_step_numbers(line.values[1:])
        if nums is None:
            self.r.error(
                line.span,
                BAD_VALUE,
                f"{key} is a number per step, full strength first: `{key} 4 / 2`",
            )
            return ()
        if not all_within(self.r, value_span(p, key), repr(key), nums, bound):
            return ()
        return nums

    def hexes_of(self, v: ast.Expr) -> tuple[str, ...]:
        """A hex label, a named place, or an entry (its hexes); reported when none."""
        if isinstance(v, ast.Number) and LABEL.match(v.text):
            return self._hex_on_map(v)
        if isinstance(v, ast.Name):
            return self._place_or_entry(v)
        self.r.error(
            v.span, BAD_VALUE, f"expected a hex such as 0304 or a place name, not {describe(v)}"
        )
        return ()

    def _hex_on_map(self, v: ast.Number) -> tuple[str, ...]:
        if self.sym.hex_labels and v.text not in self.sym.hex_labels:
            self.r.error(v.span, BAD_HEX, f"hex {v.text} is not on the map")
            return ()
        return (v.text,)

    def _place_or_entry(self, v: ast.Name) -> tuple[str, ...]:
        """A named place's hex or an entry's hexes (checked once the map is known)."""
        if v.id in self.places:
            return (self.places[v.id],)
        if v.id in self.entries:
            return self.entries[v.id]
        if self.sym.hex_labels:
            hint = did_you_mean(v.id, set(self.places) | set(self.entries))
            self.r.error(
                v.span,
                UNKNOWN_NAME,
                f"no place or entry {v.id!r} on the map",
                *hint_note(hint),
            )
        return ()

    def attribute(self, d: ast.Entity) -> ir.Attribute:
        """`attribute rifle "Rifle" { type name; values black white }`: a value units may carry."""
        p = Props(d, self.r, ATTRIBUTE_KEYS)
        typ = self._check_attribute_type(p)
        values = self._check_attribute_values(p, typ)
        name = d.ident
        if name in self.declared_attributes:
            self.r.error(d.name_span, DUPLICATE, f"attribute {name!r} is already declared")
        self.declared_attributes[name] = (ATTRIBUTE_TYPES[typ], values)
        self.sym.unit_attributes[name] = ATTRIBUTE_TYPES[typ]
        return ir.Attribute(
            name, d.title or name, ATTRIBUTE_TYPES[typ], values, prov_of(d.prov), d.span
        )

    def _check_attribute_type(self, p: Props) -> str:
        """`type bool|int|name` (bool by default)."""
        typ = p.name("type", "bool") or "bool"
        if typ not in ATTRIBUTE_TYPES:
            self.r.error(
                p.line("type").span,
                BAD_VALUE,
                f"type is one of {', '.join(sorted(ATTRIBUTE_TYPES))}",
            )
            return "bool"
        return typ

    def _check_attribute_values(self, p: Props, typ: str) -> tuple[str, ...]:
        """`values black white`: the names a `type name` attribute may take."""
        values = tuple(v.id for v in p.values("values") if isinstance(v, ast.Name))
        if values and typ != "name":
            self.r.error(
                p.line("values").span, BAD_VALUE, "only a `type name` attribute lists its values"
            )
        return values

    def attributes(self, d: ast.Entity, known: set[str]) -> dict[str, object]:
        """Lines beyond a kind's fixed properties: declared attributes the rules read."""
        out: dict[str, object] = {}
        for line in d.other_lines(known):
            if line.key not in self.declared_attributes:
                self._undeclared(d, line, known)
                continue
            value = self.attribute_value(line, *self.declared_attributes[line.key])
            if value is not None:
                out[line.key] = value
        return out

    def _undeclared(self, d: ast.Entity, line: ast.Line, known: set[str]) -> None:
        key = line.key
        hint = did_you_mean(key or "", set(self.declared_attributes) | known)
        self.r.error(
            line.values[0].span,
            UNKNOWN_PROPERTY,
            f"{d.kind} has no property {key!r} and no attribute {key!r} is declared",
            *hint_note(hint),
            f'declare it: attribute {key} "Title" {{ type bool|int|name }}',
        )

    def attribute_value(self, line: ast.Line, typ: str, values: tuple[str, ...]) -> object:
        """A unit's value for a declared attribute, read by the attribute's type."""
        value = self._ATTRIBUTE_READERS[typ](self, line, values)
        if value is None:
            self.r.error(
                line.span, BAD_VALUE, f"attribute {line.key!r} takes {ATTRIBUTE_WANTS[typ]}"
            )
        return value

    def _bool_attribute(self, line: ast.Line, values: tuple[str, ...]) -> bool | None:
        """`rear_guard` alone is yes; `rear_guard yes|no` says it."""
        vals = line.values[1:]
        if not vals:
            return True
        if len(vals) == 1 and isinstance(vals[0], ast.Name) and vals[0].id in BOOL_WORDS:
            return vals[0].id in TRUE_WORDS
        return None

    def _int_attribute(self, line: ast.Line, values: tuple[str, ...]) -> int | None:
        """A whole number; one the engine reads by name (`range`) is held to its bound."""
        vals = line.values[1:]
        n = as_int(vals[0]) if len(vals) == 1 else None
        if n is not None and line.key in ATTRIBUTES:
            within(self.r, vals[0].span, repr(line.key), n, ATTRIBUTES[line.key])
        return n

    def _name_attribute(self, line: ast.Line, values: tuple[str, ...]) -> str | None:
        """A name, one of the attribute's listed values when it lists them."""
        vals = line.values[1:]
        if len(vals) != 1 or not isinstance(vals[0], ast.Name):
            return None
        if values and vals[0].id not in values:
            self.r.error(vals[0].span, BAD_VALUE, f"{line.key} is one of {', '.join(values)}")
        return vals[0].id

    _ATTRIBUTE_READERS: ClassVar[dict[str, Callable[..., object]]] = {
        "bool": _bool_attribute,
        "int": _int_attribute,
        "str": _name_attribute,
    }

    # ------------------------------------------------------------ declarations

    def side(self, d: ast.Entity) -> ir.Side:
        p = Props(d, self.r, SIDE_KEYS)
        edge = p.name("friendly_edge", "") or ""
        if edge and edge not in EDGES:
            self.r.error(
                p.line("friendly_edge").span,
                BAD_VALUE,
                f"friendly_edge is one of {', '.join(sorted(EDGES))}",
            )
        self.sides.add(d.ident)
        return ir.Side(
            d.ident,
            d.display_title,
            p.str("short", d.title or ""),
            p.str("color", "#888888"),
            edge,
            prov_of(d.prov),
            d.span,
            self.line_provs(d, p),
        )

    def nationality(self, d: ast.Entity) -> ir.Nationality:
        p = Props(d, self.r, NATIONALITY_KEYS)
        side = self.ref(p, "side", "side", required=True) or ""
        self.names.setdefault("nationality", set()).add(d.ident)
        return ir.Nationality(d.ident, d.display_title, side, prov_of(d.prov), d.span)

    def formation(self, d: ast.Entity) -> ir.Formation:
        p = Props(d, self.r, FORMATION_KEYS)
        side = self.ref(p, "side", "side", required=True) or ""
        band = p.str("band")
        if not band:
            self.r.error(d.name_span, MISSING, f"formation {d.name!r} needs its `band` colour")
        self.names.setdefault("formation", set()).add(d.ident)
        return ir.Formation(
            d.ident,
            d.display_title,
            side,
            band,
            p.str("stripe"),
            prov_of(d.prov),
            d.span,
            self.line_provs(d, p),
        )

    def brigade(self, d: ast.Entity) -> ir.Brigade:
        p = Props(d, self.r, BRIGADE_KEYS)
        side = self.ref(p, "side", "side", required=True) or ""
        letter = p.name("letter", required=True) or ""
        self.names.setdefault("brigade", set()).add(d.ident)
        return ir.Brigade(
            d.ident,
            d.display_title,
            side,
            letter,
            prov_of(d.prov),
            d.span,
            self.line_provs(d, p),
        )

    def unit_type(self, d: ast.Entity) -> ir.UnitType:
        known = UNIT_TYPE_KEYS
        p = Props(d, self.r, known, keyed_only=False)
        props = self.attributes(d, known)
        self.names.setdefault("unit type", set()).add(d.ident)
        return ir.UnitType(
            d.ident,
            d.display_title,
            p.name("symbol", "infantry") or "infantry",
            props,
            prov_of(d.prov),
            d.span,
        )

    def marker(self, d: ast.Entity) -> ir.Marker:
        p = Props(d, self.r, MARKER_KEYS)
        count = prop_int(p, "count", COUNTERS, required=True) or 0
        side = self.ref(p, "side", "side") or ""
        back = self.back(p)
        return ir.Marker(
            d.ident,
            d.display_title,
            p.str("short", d.title or ""),
            count,
            back,
            p.str("color", "#dddddd"),
            side,
            prov_of(d.prov),
            d.span,
            self.line_provs(d, p),
        )

    def back(self, p: Props) -> str:
        """`back blank`, `back other_marker` or `back "text"`."""
        line = p.line("back")
        if line is None:
            return ""
        vals = line.values[1:]
        back = _name_or_text(vals[0]) if len(vals) == 1 else None
        if back is None:
            self.r.error(line.span, BAD_VALUE, 'back is `blank`, a name, or a "text"')
            return ""
        return back

    def unit(self, d: ast.Entity) -> ir.Unit:
        """A combat unit (`unit`), a leader (`leader`) or a non-combat piece (`piece`)."""
        leader = d.kind in ("leader", "piece")
        known = COUNTER_KEYS.get(d.kind, UNIT_KEYS)
        p = Props(d, self.r, known, keyed_only=False)
        props = self.attributes(d, known)
        side = self.ref(p, "side", "side", required=True) or ""
        utype = None if leader else self.ref(p, "type", "unit type", required=True)
        strengths = () if leader else self._check_strength(d, p)
        rifle = self.per_step(p, "rifle_strength", STRENGTH)
        morales = self.per_step(p, "morale", MORALE)
        self._check_steps_match(p, strengths, {"rifle_strength": rifle, "morale": morales})
        movement = prop_int(p, "movement", MOVEMENT, required=True) or 0
        setup = self._check_setup(p)
        entry = self.entry(p)
        self._check_setup_or_entry(p, setup, entry)
        reduced = self._check_reduced(p, strengths)
        back = self.back(p)
        self._check_commands_line(d, p)
        provs = self._unit_provs(d, p, known)
        self.names.setdefault("unit", set()).add(d.ident)
        return ir.Unit(
            name=d.ident,
            title=d.display_title,
            short=p.str("short", d.display_title),
            side=side,
            kind=d.kind if leader else "unit",
            type=utype,
            nationality=self.ref(p, "nationality", "nationality"),
            formation=self.ref(p, "formation", "formation"),
            brigade=None if leader else self.ref(p, "brigade", "brigade"),
            strengths=strengths,
            rifle_strengths=rifle,
            morales=morales,
            movement=movement,
            setup=setup,
            entry=entry,
            reduced_title=reduced,
            reduced_short=p.str("reduced_short", reduced),
            back=back,
            commands=None,
            props=props,
            provs=provs,
            prov=prov_of(d.prov),
            span=d.span,
        )

    def _check_strength(self, d: ast.Entity, p: Props) -> tuple[int, ...]:
        """A combat unit's strength per step; the one property it cannot do without."""
        strengths = self.per_step(p, "strength", STRENGTH)
        if not strengths and not p.has("strength"):
            self.r.error(d.name_span, MISSING, f"unit {d.name!r} needs 'strength'")
        return strengths

    def _check_steps_match(
        self, p: Props, strengths: tuple[int, ...], others: dict[str, tuple[int, ...]]
    ) -> None:
        """Rifle strength and morale, when given, have a value for every step."""
        for key, values in others.items():
            if values and strengths and len(values) != len(strengths):
                self.r.error(
                    p.line(key).span,
                    BAD_VALUE,
                    f"{key} needs one value per step ({len(strengths)})",
                )

    def _check_setup(self, p: Props) -> str | None:
        """`setup 2513` or `setup some_place`: the one hex the unit starts on."""
        if not p.has("setup"):
            return None
        vals = p.values("setup")
        hexes = self.hexes_of(vals[0]) if len(vals) == 1 else ()
        if len(vals) != 1 or len(hexes) > 1:
            self.r.error(p.line("setup").span, BAD_VALUE, "setup takes one hex")
        return hexes[0] if len(hexes) == 1 else None

    def _check_setup_or_entry(self, p: Props, setup: str | None, entry: ir.Entry | None) -> None:
        if setup is not None and entry is not None:
            self.r.error(
                p.line("enters").span,
                BAD_VALUE,
                "a unit either sets up on the map or enters later, not both",
            )

    def _check_reduced(self, p: Props, strengths: tuple[int, ...]) -> str:
        """`reduced "Olney"`: the name on the back, which only a two-step unit has."""
        reduced = p.str("reduced")
        if reduced and len(strengths) < 2:
            self.r.error(
                p.line("reduced").span, BAD_VALUE, "only a two-step unit has a reduced side to name"
            )
        return reduced

    def _check_commands_line(self, d: ast.Entity, p: Props) -> None:
        """`commands when <condition>`: kept for pass 4, when every name is known."""
        line = p.line("commands")
        if line is None:
            return
        if line.when is None or len(line.values) != 1:
            self.r.error(line.span, BAD_VALUE, "write `commands when <condition on unit>`")
        else:
            self.commands[d.ident] = line.when

    def _unit_provs(self, d: ast.Entity, p: Props, known: set[str]) -> dict[str, ir.Prov]:
        """The provenance of every line: the kind's properties and the attributes."""
        provs = self.line_provs(d, p)
        for line in d.other_lines(known):
            provs[line.key or ""] = prov_of(d.prov).merged(prov_of(line.prov))
        return provs

    def check_commands(self, units: tuple[ir.Unit, ...]) -> tuple[ir.Unit, ...]:
        """Type-check the leaders' `commands when` conditions (pass 4)."""
        out = []
        for u in units:
            when = self.commands.get(u.name)
            if when is not None:
                u = dataclasses.replace(
                    u, commands=self.ec.expr(when, Scope(CONTEXTS["commands"].scope()), "bool")
                )
            out.append(u)
        return tuple(out)

    def entry(self, p: Props) -> ir.Entry | None:
        """`enters 5 at a1 a2`, with `variable` when a die roll decides (4.13)."""
        line = p.line("enters")
        if line is None:
            return None
        words = _entry_words(line.values[1:])
        if words is None:
            self.r.error(
                line.span,
                BAD_VALUE,
                "write `enters TURN at HEX…` (hexes or entry places), "
                "then `variable` if rolled for",
            )
            return None
        turn, places, variable = words
        if not within(self.r, line.values[1].span, "the turn of entry", turn, TURN):
            return None
        hexes = tuple(h for v in places for h in self.hexes_of(v))
        return ir.Entry(turn, hexes, variable)


def _per_step_numbers(vals: tuple[ast.Expr, ...]) -> tuple[int, ...] | None:
    """`4 / 2` or `4` as its whole numbers, full strength first; None when malformed."""
    if len(vals) != 1:
        return None
    parts = vals[0].parts if isinstance(vals[0], ast.Slash) else vals
    nums = [as_int(v) for v in parts]
    if not nums or None in nums:
        return None
    return tuple(n for n in nums if n is not None)


def _entry_words(
    vals: tuple[ast.Expr, ...],
) -> tuple[int, tuple[ast.Expr, ...], bool] | None:
    """`TURN at PLACES… [variable]` as (turn, places, variable); None when not so written."""
    variable = bool(vals) and ast.is_word(vals[-1], "variable")
    if variable:
        vals = vals[:-1]
    turn = as_int(vals[0]) if vals else None
    if turn is None or len(vals) < 3 or not ast.is_word(vals[1], "at"):
        return None
    return turn, vals[2:], variable


def _name_or_text(v: ast.Expr) -> str | None:
    if isinstance(v, ast.Name):
        return v.id
    return v.value if isinstance(v, ast.String) else None
