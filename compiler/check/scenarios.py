"""Scenarios: turns, set-up, reinforcements, starting values, player order, rules.

    scenario river_crossing "The River Crossing" § battle 6.1 {
        turns 4..7                          § battle 6.11
        army_morale west_army 20            § battle 6.14
        momentum east_army 0                § battle 6.15
        order 4 west_army east_army         § battle 6.16
        order 5 east_army west_army         § battle 6.16
        rules_not_used night_march rear_guard
        special_rules hedgerow
        setup {
            3915 dragoons_1 hussars_2
            1914 foot_3(reduced) battery_4
            3419 rangers_5 detachment_6(attached_to: rangers_5)
            choose east_ridge general_7 guard_8
            choose scouts_9 when terrain(hex) == village
        }
        reinforcements {
            5 at b general_10 grenadiers_11
        }
    }

A line whose key is a variable sets its starting value (per side: the side,
then the value). `order TURN SIDE SIDE` fixes who goes first that turn
(`order 5..8 SIDE SIDE`: every turn of the range).
`rules_not_used` switches rules off, `special_rules` switches on rules that
are otherwise off. In the set-up, a line places units in a hex, or lets their
owner `choose` a hex among a zone, a list, or those meeting a condition.
`unit(reduced)` starts a two-step unit on its reduced side; `unit(var: value)`
sets a per-unit variable (`captain(honor: yes)`). `order` may be given for
several turns (a scenario that fixes its first two turns). `setup printed` uses the
set-up hexes and entry turns printed on the counters (the campaign game).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from compiler import ir
from compiler.check.bounds import TURN, prop_range, within
from compiler.check.contexts import CONTEXTS
from compiler.check.expressions import ExprChecker, Scope, Symbols
from compiler.check.props import Props, as_int, as_range, describe, prov_of
from compiler.map.hexmap import LABEL
from dsl import ast
from dsl.diagnostics import (
    BAD_HEX,
    BAD_VALUE,
    DUPLICATE,
    MISSING,
    UNKNOWN_NAME,
    Reporter,
    did_you_mean,
    hint_note,
)
from engine.terrain_state import CHANGED_TERRAIN

# A starting value's side (for a per-side variable) and the values left to read.
_Start = tuple[ir.TExpr | None, tuple[ast.Expr, ...]]

KEYS = {"turns", "order", "rules_not_used", "special_rules", "setup", "reinforcements", "stacking"}


class ScenarioChecker:
    def __init__(
        self, reporter: Reporter, sym: Symbols, ec: ExprChecker, places: dict[str, str]
    ) -> None:
        self.r = reporter
        self.sym = sym
        self.ec = ec
        self.places = places
        self.switches: set[str] = set()

    def unit_name(self, v: ast.Expr) -> str | None:
        if isinstance(v, ast.Name):
            ent = self.sym.entities.get(v.id)
            if ent is not None and ent.kind == "unit":
                return v.id
            hint = did_you_mean(v.id, self._names_of_kind("unit"))
            self.r.error(
                v.span,
                UNKNOWN_NAME,
                f"unknown unit {v.id!r}",
                *hint_note(hint),
            )
        return None

    def _names_of_kind(self, *kinds: str) -> set[str]:
        return {n for n, e in self.sym.entities.items() if e.kind in kinds}

    def placed(self, v: ast.Expr) -> ir.PlacedUnit | None:
        """`name`, `name(reduced)` or `name(var: value, …)`."""
        if isinstance(v, ast.Name):
            name = self.unit_name(v)
            return ir.PlacedUnit(name, False, ()) if name else None
        if not isinstance(v, ast.Call):
            self.r.error(v.span, BAD_VALUE, f"expected a unit, not {describe(v)}")
            return None
        name = self.unit_name(ast.Name(span=v.span, id=v.func))
        reduced = self._placed_reduced(v)
        assigns = self._placed_values(v)
        return ir.PlacedUnit(name, reduced, assigns) if name else None

    def _placed_reduced(self, v: ast.Call) -> bool:
        """`unit(reduced)`: the unit starts on its reduced side."""
        reduced = False
        for a in v.args:
            if ast.is_word(a, "reduced"):
                reduced = True
            else:
                self.r.error(a.span, BAD_VALUE, "write `unit(reduced)` or `unit(variable: value)`")
        return reduced

    def _placed_values(self, v: ast.Call) -> tuple[tuple[str, ir.TExpr], ...]:
        """`unit(honor: yes)`: starting values of per-unit variables."""
        assigns = []
        for key, value in v.keywords:
            var = self.sym.variables.get(key)
            if var is None or var.scope != "unit":
                per_unit = {n for n, x in self.sym.variables.items() if x.scope == "unit"}
                self.r.error(
                    value.span,
                    UNKNOWN_NAME,
                    f"{key!r} is not a per-unit variable",
                    *hint_note(did_you_mean(key, per_unit)),
                )
                continue
            assigns.append((key, self.ec.expr(value, Scope(), var.type)))
        return tuple(assigns)

    def hexes(self, v: ast.Expr) -> tuple[str, ...] | None:
        """A hex, a place, a zone, or a list of them."""
        read = self._HEX_READERS.get(type(v), ScenarioChecker._not_hexes)
        return read(self, v)

    def _hex_label(self, v: ast.Number) -> tuple[str, ...] | None:
        if not LABEL.match(v.text):
            return self._not_hexes(v)
        if v.text not in self.sym.hex_labels:
            self.r.error(v.span, BAD_HEX, f"hex {v.text} is not on the map")
            return None
        return (v.text,)

    def _place_or_zone(self, v: ast.Name) -> tuple[str, ...] | None:
        ent = self.sym.entities.get(v.id)
        if ent is not None and ent.kind == "place":
            return (str(ent.value),)
        if ent is not None and ent.kind == "zone":
            return tuple(ent.value)  # type: ignore[arg-type]
        hint = did_you_mean(v.id, self._names_of_kind("place", "zone"))
        self.r.error(
            v.span,
            UNKNOWN_NAME,
            f"no place or zone {v.id!r}",
            *hint_note(hint),
        )
        return None

    def _hex_list(self, v: ast.ValueList) -> tuple[str, ...]:
        """`[a, b]`: every hex of the items, each once, in order."""
        out: list[str] = []
        for item in v.items:
            out.extend(self.hexes(item) or ())
        return tuple(dict.fromkeys(out))

    def _not_hexes(self, v: ast.Expr) -> None:
        self.r.error(
            v.span, BAD_HEX, f"expected a hex, a place, a zone or [a list], not {describe(v)}"
        )

    _HEX_READERS: ClassVar[dict[type, Callable[..., tuple[str, ...] | None]]] = {
        ast.Number: _hex_label,
        ast.Name: _place_or_zone,
        ast.ValueList: _hex_list,
    }

    def setup(self, block: ast.Block, decl_prov: ir.Prov) -> tuple[ir.SetupEntry, ...]:
        entries = []
        for line in block.lines:
            if not isinstance(line, ast.Line):
                self.r.error(
                    line.span,
                    BAD_VALUE,
                    "a set-up line is `HEX units…`, `choose WHERE units…` "
                    "or `choose units… when CONDITION`",
                )
                continue
            entries.append(self._setup_line(line, decl_prov.merged(prov_of(line.prov))))
        return tuple(entries)

    def _setup_line(self, line: ast.Line, prov: ir.Prov) -> ir.SetupEntry:
        """`HEX units…`, or `choose WHERE units…` / `choose units… when COND`."""
        chosen = ast.is_word(line.values[0], "choose")
        hexes, condition, rest = self._choice(line) if chosen else self._placement(line)
        units = tuple(u for u in (self.placed(v) for v in rest) if u is not None)
        if not rest and chosen and line.when is not None:
            self.r.error(
                line.span, MISSING, "write `choose UNITS… when CONDITION`: the units come first"
            )
        elif not rest:
            self.r.error(line.span, MISSING, "a set-up line places at least one unit")
        return ir.SetupEntry(hexes, condition, chosen, units, prov, line.span)

    def _choice(self, line: ast.Line) -> tuple[tuple[str, ...], ir.TExpr | None, list[ast.Expr]]:
        """Where a `choose` line's owner may place: its hexes or its condition, and its units."""
        rest = list(line.values[1:])
        if line.when is not None:
            scope = Scope(CONTEXTS["setup_choice"].scope())
            return (), self.ec.expr(line.when, scope, "bool"), rest
        hexes = self.hexes(rest.pop(0)) or () if rest else ()
        return hexes, None, rest

    def _placement(self, line: ast.Line) -> tuple[tuple[str, ...], ir.TExpr | None, list[ast.Expr]]:
        """`HEX units…`: the hexes the units set up in, and the units."""
        if line.when is not None:
            self.r.error(line.span, BAD_VALUE, "only `choose` lines take a condition")
        return self.hexes(line.values[0]) or (), None, list(line.values[1:])

    def reinforcements(self, block: ast.Block, decl_prov: ir.Prov) -> tuple[ir.ScenarioEntry, ...]:
        out = (self._reinforcement(line, decl_prov) for line in block.lines)
        return tuple(entry for entry in out if entry is not None)

    def _reinforcement(
        self, line: ast.Line | ast.WhenLine | ast.DoLine, decl_prov: ir.Prov
    ) -> ir.ScenarioEntry | None:
        """`TURN at HEX units…`."""
        vals = line.values if isinstance(line, ast.Line) else ()
        turn = _reinforcement_turn(vals)
        if turn is None:
            self.r.error(line.span, BAD_VALUE, "a reinforcement line is `TURN at HEX units…`")
            return None
        if not within(self.r, vals[0].span, "the turn of entry", turn, TURN):
            return None
        hexes = self.hexes(vals[2]) or ()
        units = tuple(u for u in (self.placed(v) for v in vals[3:]) if u is not None)
        return ir.ScenarioEntry(turn, hexes, units, decl_prov.merged(prov_of(line.prov)), line.span)

    def scenario(self, d: ast.Entity) -> ir.Scenario:
        """A scenario: what its lines set, checked key by key."""
        # `order` may be given for several turns: its lines are read one by one below.
        p = Props(d, self.r, KEYS - {"order"}, keyed_only=False)
        decl_prov = prov_of(d.prov)
        turns = prop_range(p, "turns", TURN, required=True) or (1, 1)
        values = self._start_values(d, decl_prov)
        orders, order_provs = self._orders(d, decl_prov)
        off = self.switch_list(p, "rules_not_used")
        on = self.switch_list(p, "special_rules")
        printed, setup = self._check_setup(d, p, decl_prov)
        reinforcements = self._check_reinforcements(p, decl_prov)
        self.check_units_once(setup, reinforcements)
        return ir.Scenario(
            name=d.ident,
            title=d.display_title,
            turns=turns,
            values=tuple(values),
            orders=orders,
            rules_off=off,
            rules_on=on,
            printed_setup=printed,
            setup=setup,
            reinforcements=reinforcements,
            stacking=self._check_stacking(p),
            provs={
                **{key: decl_prov.merged(prov_of(line.prov)) for key, line in p.lines.items()},
                **order_provs,
            },
            prov=decl_prov,
            span=d.span,
        )

    def _start_values(self, d: ast.Entity, decl_prov: ir.Prov) -> list[ir.StartValue]:
        """Lines whose key is not a scenario property: starting values of variables."""
        values: list[ir.StartValue] = []
        for line in d.body.lines:
            if not isinstance(line, ast.Line) or line.key is None or line.key in KEYS:
                continue
            self.start_value(line, values, decl_prov)
        return values

    def _orders(
        self, d: ast.Entity, decl_prov: ir.Prov
    ) -> tuple[dict[int, tuple[str, ...]], dict[str, ir.Prov]]:
        """`order TURN SIDE SIDE` (or `order FIRST..LAST SIDE SIDE`) lines: who
        goes first on the turns they name."""
        orders: dict[int, tuple[str, ...]] = {}
        order_provs: dict[str, ir.Prov] = {}
        for line in [x for x in d.body.lines if isinstance(x, ast.Line) and x.key == "order"]:
            order = self._order(line)
            if order is None:
                continue
            turns, sides = order
            for turn in turns:
                if turn in orders:
                    self.r.error(line.span, DUPLICATE, f"turn {turn}'s order is given twice")
                orders[turn] = sides
                order_provs[f"order {turn}"] = decl_prov.merged(prov_of(line.prov))
        return orders, order_provs

    def _order(self, line: ast.Line) -> tuple[range, tuple[str, ...]] | None:
        vals = line.values[1:]
        first, last = (as_range(vals[0]) if vals else None) or (None, None)
        unknown = [v for v in vals[1:] if isinstance(v, ast.Name) and not self._is_side(v.id)]
        if first is not None and unknown:
            known = sorted(n for n, e in self.sym.entities.items() if e.kind == "side")
            for v in unknown:
                self.r.error(
                    v.span,
                    UNKNOWN_NAME,
                    f"unknown side {v.id!r}",
                    *hint_note(did_you_mean(v.id, set(known))),
                    f"the sides: {', '.join(known)}",
                )
            return None
        sides = self._sides(vals[1:])
        if first is None or last is None or not sides:
            self.r.error(
                line.span,
                BAD_VALUE,
                "write `order TURN first_side second_side` (TURN may be a range, 5..8)",
            )
            return None
        if not all(within(self.r, vals[0].span, "the turn", t, TURN) for t in (first, last)):
            return None
        return range(first, last + 1), sides

    def _sides(self, vals: tuple[ast.Expr, ...]) -> tuple[str, ...]:
        """The sides named, in order; none unless every value names a side."""
        sides = tuple(v.id for v in vals if isinstance(v, ast.Name) and self._is_side(v.id))
        return sides if len(sides) == len(vals) else ()

    def _is_side(self, name: str) -> bool:
        ent = self.sym.entities.get(name, None)
        return bool(ent) and ent.kind == "side"

    def _check_setup(
        self, d: ast.Entity, p: Props, decl_prov: ir.Prov
    ) -> tuple[bool, tuple[ir.SetupEntry, ...]]:
        """`setup printed` (the hexes on the counters) or `setup { lines }`."""
        line = p.line("setup")
        if line is None:
            self.r.error(
                d.name_span,
                MISSING,
                f"scenario {d.name!r} needs `setup printed` or `setup {{ … }}`",
            )
            return False, ()
        vals = line.values[1:]
        if vals and ast.is_word(vals[0], "printed") and line.block is None:
            return True, ()
        if line.block is not None and not vals:
            return False, self.setup(line.block, decl_prov.merged(prov_of(line.prov)))
        self.r.error(line.span, BAD_VALUE, "write `setup printed` or `setup { lines }`")
        return False, ()

    def _check_reinforcements(self, p: Props, decl_prov: ir.Prov) -> tuple[ir.ScenarioEntry, ...]:
        line = p.line("reinforcements")
        if line is None:
            return ()
        if line.block is None:
            self.r.error(line.span, BAD_VALUE, "write `reinforcements { TURN at HEX units… }`")
            return ()
        return self.reinforcements(line.block, decl_prov.merged(prov_of(line.prov)))

    def _check_stacking(self, p: Props) -> ir.TExpr | None:
        """`stacking (cond)` or `stacking stack_ok(units)`: a condition on a hex's `units`."""
        line = p.line("stacking")
        if line is None:
            return None
        vals = line.values[1:]
        condition = _stacking_condition(vals)
        if condition is None:
            self.r.error(
                line.span,
                BAD_VALUE,
                "write `stacking stack_ok(units)`: a condition on the `units` a hex holds",
            )
            return None
        return self.ec.expr(condition, Scope(CONTEXTS["setup_stacking"].scope()), "bool")

    def switch_list(self, p: Props, key: str) -> tuple[str, ...]:
        out = []
        for v in p.values(key):
            if isinstance(v, ast.Name) and v.id in self.switches:
                out.append(v.id)
            else:
                hint = did_you_mean(v.id, self.switches) if isinstance(v, ast.Name) else None
                self.r.error(
                    v.span,
                    UNKNOWN_NAME,
                    f"no rule {describe(v)}",
                    *hint_note(hint),
                )
        return tuple(out)

    def start_value(self, line: ast.Line, values: list[ir.StartValue], decl_prov: ir.Prov) -> None:
        """`VARIABLE [SIDE] VALUE`: a variable's starting value in this scenario."""
        key = line.key or ""
        if key == CHANGED_TERRAIN:
            self.changed_at_start(line, values, decl_prov)
            return
        var = self.sym.variables.get(key)
        if var is None:
            hint = did_you_mean(key, set(self.sym.variables) | KEYS)
            self.r.error(
                line.values[0].span,
                UNKNOWN_NAME,
                f"a scenario has no property {key!r} and there is no variable {key!r}",
                *hint_note(hint),
            )
            return
        read = self._SCOPED_STARTS.get(var.scope, ScenarioChecker._global_start)
        start = read(self, line, key)
        if start is None:
            return
        index, vals = start
        if len(vals) != 1:
            self.r.error(line.span, BAD_VALUE, f"{key!r} takes one value")
            return
        value = self.ec.expr(vals[0], Scope(), var.type)
        values.append(
            ir.StartValue(key, index, value, decl_prov.merged(prov_of(line.prov)), line.span)
        )

    def _global_start(self, line: ast.Line, key: str) -> _Start:
        return None, line.values[1:]

    def _side_start(self, line: ast.Line, key: str) -> _Start | None:
        """A per-side variable: `army_morale west_army 20`."""
        vals = line.values[1:]
        if len(vals) != 2 or not isinstance(vals[0], ast.Name):
            self.r.error(line.span, BAD_VALUE, f"write `{key} SIDE VALUE`")
            return None
        return self.ec.expr(vals[0], Scope(), "side"), vals[1:]

    def _unit_start(self, line: ast.Line, key: str) -> None:
        self.r.error(
            line.span,
            BAD_VALUE,
            f"{key!r} is per unit: set it in the set-up, `unit({key}: value)`",
        )

    def _hex_start(self, line: ast.Line, key: str) -> None:
        self.r.error(line.span, BAD_VALUE, f"{key!r} is per hex: a scenario cannot set it")

    _SCOPED_STARTS: ClassVar[dict[str, Callable[..., _Start | None]]] = {
        "side": _side_start,
        "unit": _unit_start,
        "hex": _hex_start,
    }

    def changed_at_start(
        self, line: ast.Line, values: list[ir.StartValue], decl_prov: ir.Prov
    ) -> None:
        """`changed_terrain bridge_blown …`: terrain changes made before play begins."""
        declared = [n for n, e in self.sym.entities.items() if e.kind == "terrain_change"]
        named = {self._terrain_change_named(v, declared) for v in line.values[1:]}
        items = tuple(ir.Const("terrain_change", line.span, n) for n in declared if n in named)
        values.append(
            ir.StartValue(
                CHANGED_TERRAIN,
                None,
                ir.ListOf("terrain_changes", line.span, items),
                decl_prov.merged(prov_of(line.prov)),
                line.span,
            )
        )

    def _terrain_change_named(self, v: ast.Expr, declared: list[str]) -> str:
        name = v.id if isinstance(v, ast.Name) else ""
        if name not in declared:
            self.r.error(
                v.span,
                UNKNOWN_NAME,
                f"changed_terrain lists terrain changes; {describe(v)} is not one",
                *hint_note(did_you_mean(name, set(declared)) if name else None),
            )
        return name

    def check_units_once(
        self, setup: tuple[ir.SetupEntry, ...], reinforcements: tuple[ir.ScenarioEntry, ...]
    ) -> None:
        seen: dict[str, object] = {}
        for entry in (*setup, *reinforcements):
            for u in entry.units:
                if u.name in seen:
                    self.r.error(
                        entry.span,
                        DUPLICATE,
                        f"{u.name!r} appears twice in the scenario",
                        f"first at {seen[u.name]}",
                    )
                seen[u.name] = entry.span


def _stacking_condition(vals: tuple[ast.Expr, ...]) -> ast.Expr | None:
    """The condition of a `stacking` line: a parenthesised expression or a call."""
    if len(vals) != 1:
        return None
    if isinstance(vals[0], ast.Paren):
        return vals[0].expr
    return vals[0] if isinstance(vals[0], ast.Call) else None


def _reinforcement_turn(vals: tuple[ast.Expr, ...]) -> int | None:
    """The TURN of `TURN at HEX units…`; None when the line is not so written."""
    turn = as_int(vals[0]) if vals else None
    if turn is None or len(vals) < 4 or not ast.is_word(vals[1], "at"):
        return None
    return turn
