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
then the value). `order TURN SIDE SIDE` fixes who goes first that turn.
`rules_not_used` switches rules off, `special_rules` switches on rules that
are otherwise off. In the set-up, a line places units in a hex, or lets their
owner `choose` a hex among a zone, a list, or those meeting a condition.
`unit(reduced)` starts a two-step unit on its reduced side; `unit(var: value)`
sets a per-unit variable (`captain(honor: yes)`). `order` may be given for
several turns (a scenario that fixes its first two turns). `setup printed` uses the
set-up hexes and entry turns printed on the counters (the campaign game).
"""

from __future__ import annotations

from compiler import ir
from compiler.contexts import CONTEXTS
from compiler.expressions import ExprChecker, Scope, Symbols
from compiler.hexmap import LABEL
from compiler.props import Props, as_int, describe, prov_of
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
            units = {n for n, e in self.sym.entities.items() if e.kind == "unit"}
            hint = did_you_mean(v.id, units)
            self.r.error(
                v.span,
                UNKNOWN_NAME,
                f"unknown unit {v.id!r}",
                *hint_note(hint),
            )
        return None

    def placed(self, v: ast.Expr) -> ir.PlacedUnit | None:
        """`name`, `name(reduced)` or `name(var: value, …)`."""
        if isinstance(v, ast.Name):
            name = self.unit_name(v)
            return ir.PlacedUnit(name, False, ()) if name else None
        if not isinstance(v, ast.Call):
            self.r.error(v.span, BAD_VALUE, f"expected a unit, not {describe(v)}")
            return None
        name = self.unit_name(ast.Name(span=v.span, id=v.func))
        reduced = False
        for a in v.args:
            if isinstance(a, ast.Name) and a.id == "reduced":
                reduced = True
            else:
                self.r.error(a.span, BAD_VALUE, "write `unit(reduced)` or `unit(variable: value)`")
        assigns = []
        for key, value in v.keywords:
            var = self.sym.variables.get(key)
            if var is None or var.scope != "unit":
                hint = did_you_mean(
                    key, {n for n, x in self.sym.variables.items() if x.scope == "unit"}
                )
                self.r.error(
                    value.span,
                    UNKNOWN_NAME,
                    f"{key!r} is not a per-unit variable",
                    *hint_note(hint),
                )
                continue
            assigns.append((key, self.ec.expr(value, Scope(), var.type)))
        return ir.PlacedUnit(name, reduced, tuple(assigns)) if name else None

    def hexes(self, v: ast.Expr) -> tuple[str, ...] | None:
        """A hex, a place, a zone, or a list of them."""
        if isinstance(v, ast.Number) and LABEL.match(v.text):
            if v.text not in self.sym.hex_labels:
                self.r.error(v.span, BAD_HEX, f"hex {v.text} is not on the map")
                return None
            return (v.text,)
        if isinstance(v, ast.Name):
            ent = self.sym.entities.get(v.id)
            if ent is not None and ent.kind == "place":
                return (str(ent.value),)
            if ent is not None and ent.kind == "zone":
                return tuple(ent.value)  # type: ignore[arg-type]
            hint = did_you_mean(
                v.id, {n for n, e in self.sym.entities.items() if e.kind in ("place", "zone")}
            )
            self.r.error(
                v.span,
                UNKNOWN_NAME,
                f"no place or zone {v.id!r}",
                *hint_note(hint),
            )
            return None
        if isinstance(v, ast.ValueList):
            out: list[str] = []
            for item in v.items:
                out.extend(self.hexes(item) or ())
            return tuple(dict.fromkeys(out))
        self.r.error(
            v.span, BAD_HEX, f"expected a hex, a place, a zone or [a list], not {describe(v)}"
        )
        return None

    def setup(self, block: ast.Block, decl_prov: ir.Prov) -> tuple[ir.SetupEntry, ...]:
        entries = []
        for line in block.lines:
            if not isinstance(line, ast.Line):
                self.r.error(
                    line.span, BAD_VALUE, "a set-up line is `HEX units…` or `choose WHERE units…`"
                )
                continue
            prov = decl_prov.merged(prov_of(line.prov))
            vals = line.values
            condition = None
            if isinstance(vals[0], ast.Name) and vals[0].id == "choose":
                rest = list(vals[1:])
                if line.when is not None:
                    hexes: tuple[str, ...] = ()
                    scope = Scope(CONTEXTS["setup_choice"].scope())
                    condition = self.ec.expr(line.when, scope, "bool")
                else:
                    hexes = self.hexes(rest.pop(0)) or () if rest else ()
                chosen = True
            else:
                if line.when is not None:
                    self.r.error(line.span, BAD_VALUE, "only `choose` lines take a condition")
                hexes = self.hexes(vals[0]) or ()
                rest = list(vals[1:])
                chosen = False
            units = tuple(u for u in (self.placed(v) for v in rest) if u is not None)
            if not rest:
                self.r.error(line.span, MISSING, "a set-up line places at least one unit")
            entries.append(ir.SetupEntry(hexes, condition, chosen, units, prov, line.span))
        return tuple(entries)

    def reinforcements(self, block: ast.Block, decl_prov: ir.Prov) -> tuple[ir.ScenarioEntry, ...]:
        out = []
        for line in block.lines:
            vals = line.values if isinstance(line, ast.Line) else ()
            turn = as_int(vals[0]) if vals else None
            if (
                turn is None
                or len(vals) < 4
                or not (isinstance(vals[1], ast.Name) and vals[1].id == "at")
            ):
                self.r.error(line.span, BAD_VALUE, "a reinforcement line is `TURN at HEX units…`")
                continue
            hexes = self.hexes(vals[2]) or ()
            units = tuple(u for u in (self.placed(v) for v in vals[3:]) if u is not None)
            out.append(
                ir.ScenarioEntry(
                    turn, hexes, units, decl_prov.merged(prov_of(line.prov)), line.span
                )
            )
        return tuple(out)

    def scenario(self, d: ast.Entity) -> ir.Scenario:
        # `order` may be given for several turns: its lines are read one by one below.
        p = Props(d, self.r, KEYS - {"order"}, keyed_only=False)
        decl_prov = prov_of(d.prov)
        turns = p.range("turns", required=True) or (1, 1)
        values: list[ir.StartValue] = []
        orders: dict[int, tuple[str, ...]] = {}
        order_provs: dict[str, ir.Prov] = {}
        for line in d.body.lines:
            if not isinstance(line, ast.Line) or line.key is None or line.key in KEYS:
                continue
            self.start_value(line, values, decl_prov)
        for line in [x for x in d.body.lines if isinstance(x, ast.Line) and x.key == "order"]:
            vals = line.values[1:]
            turn = as_int(vals[0]) if vals else None
            sides = [
                v.id
                for v in vals[1:]
                if isinstance(v, ast.Name)
                and self.sym.entities.get(v.id, None)
                and self.sym.entities[v.id].kind == "side"
            ]
            if turn is None or len(sides) != len(vals) - 1 or len(sides) < 1:
                self.r.error(line.span, BAD_VALUE, "write `order TURN first_side second_side`")
                continue
            if turn in orders:
                self.r.error(line.span, DUPLICATE, f"turn {turn}'s order is given twice")
            orders[turn] = tuple(sides)
            order_provs[f"order {turn}"] = decl_prov.merged(prov_of(line.prov))
        off = self.switch_list(p, "rules_not_used")
        on = self.switch_list(p, "special_rules")
        setup_line = p.line("setup")
        printed = False
        setup: tuple[ir.SetupEntry, ...] = ()
        if setup_line is not None:
            vals = setup_line.values[1:]
            if (
                vals
                and isinstance(vals[0], ast.Name)
                and vals[0].id == "printed"
                and setup_line.block is None
            ):
                printed = True
            elif setup_line.block is not None and not vals:
                setup = self.setup(setup_line.block, decl_prov.merged(prov_of(setup_line.prov)))
            else:
                self.r.error(
                    setup_line.span, BAD_VALUE, "write `setup printed` or `setup { lines }`"
                )
        else:
            self.r.error(
                d.name_span,
                MISSING,
                f"scenario {d.name!r} needs `setup printed` or `setup {{ … }}`",
            )
        reinf_line = p.line("reinforcements")
        reinforcements: tuple[ir.ScenarioEntry, ...] = ()
        if reinf_line is not None:
            if reinf_line.block is None:
                self.r.error(
                    reinf_line.span, BAD_VALUE, "write `reinforcements { TURN at HEX units… }`"
                )
            else:
                reinforcements = self.reinforcements(
                    reinf_line.block, decl_prov.merged(prov_of(reinf_line.prov))
                )
        self.check_units_once(setup, reinforcements)
        stacking = None
        line = p.line("stacking")
        if line is not None:
            vals = line.values[1:]
            if len(vals) == 1 and isinstance(vals[0], ast.Paren):
                scope = Scope(CONTEXTS["setup_stacking"].scope())
                stacking = self.ec.expr(vals[0].expr, scope, "bool")
            elif len(vals) == 1 and isinstance(vals[0], ast.Call):
                scope = Scope(CONTEXTS["setup_stacking"].scope())
                stacking = self.ec.expr(vals[0], scope, "bool")
            else:
                self.r.error(
                    line.span,
                    BAD_VALUE,
                    "write `stacking stack_ok(units)`: a condition on the `units` a hex holds",
                )
        return ir.Scenario(
            name=d.name or "",
            title=d.title or d.name or "",
            turns=turns,
            values=tuple(values),
            orders=orders,
            rules_off=off,
            rules_on=on,
            printed_setup=printed,
            setup=setup,
            reinforcements=reinforcements,
            stacking=stacking,
            provs={
                **{key: decl_prov.merged(prov_of(line.prov)) for key, line in p.lines.items()},
                **order_provs,
            },
            prov=decl_prov,
            span=d.span,
        )

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
        vals = line.values[1:]
        index = None
        if var.scope == "side":
            if len(vals) != 2 or not isinstance(vals[0], ast.Name):
                self.r.error(line.span, BAD_VALUE, f"write `{key} SIDE VALUE`")
                return
            index = self.ec.expr(vals[0], Scope(), "side")
            vals = vals[1:]
        elif var.scope == "unit":
            self.r.error(
                line.span,
                BAD_VALUE,
                f"{key!r} is per unit: set it in the set-up, `unit({key}: value)`",
            )
            return
        elif var.scope == "hex":
            self.r.error(line.span, BAD_VALUE, f"{key!r} is per hex: a scenario cannot set it")
            return
        if len(vals) != 1:
            self.r.error(line.span, BAD_VALUE, f"{key!r} takes one value")
            return
        value = self.ec.expr(vals[0], Scope(), var.type)
        values.append(
            ir.StartValue(key, index, value, decl_prov.merged(prov_of(line.prov)), line.span)
        )

    def changed_at_start(
        self, line: ast.Line, values: list[ir.StartValue], decl_prov: ir.Prov
    ) -> None:
        """`changed_terrain bridge_blown …`: terrain changes made before play begins."""
        declared = [n for n, e in self.sym.entities.items() if e.kind == "terrain_change"]
        named: set[str] = set()
        for v in line.values[1:]:
            name = v.id if isinstance(v, ast.Name) else ""
            if name not in declared:
                self.r.error(
                    v.span,
                    UNKNOWN_NAME,
                    f"changed_terrain lists terrain changes; {describe(v)} is not one",
                    *hint_note(did_you_mean(name, set(declared)) if name else None),
                )
            named.add(name)
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
