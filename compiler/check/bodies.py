"""Pass 6: type-check every body — expressions and statements.

Definitions, units' commands, modifier lists, results, procedures' steps,
triggers, restrictions, exits, concealment, impossible positions, scenarios,
victory conditions and bot weights, in that order (the order their errors are reported in).
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler import ir
from compiler.check.bot_weights import check_bot_weights
from compiler.check.bounds import MODIFIER, within
from compiler.check.collect import Declarations
from compiler.check.conditions import Restrictions, conceal, impossible, victory, when
from compiler.check.declare import Declared
from compiler.check.defines import check_param_types
from compiler.check.exits import check_exit
from compiler.check.expressions import Scope
from compiler.check.kinds import Parts, ResultCode
from compiler.check.patch import Procedures, Steps
from compiler.check.props import Props, as_int, describe, name_of, prov_of, title_of
from compiler.check.scenarios import ScenarioChecker
from compiler.check.statements import Context
from compiler.check.tools import Tools
from dsl import ast
from dsl.diagnostics import BAD_VALUE, UNKNOWN_NAME, did_you_mean, hint_note
from engine.vocabulary import EVENTS

TRIGGER_KEYS = {"on", "once"}


@dataclass(frozen=True)
class Bodies:
    """What pass 6 built: every declaration with a body, checked."""

    units: tuple[ir.Unit, ...]
    modifiers: tuple[ir.ModifierList, ...]
    results: tuple[ir.Result, ...]
    procedures: tuple[ir.Procedure, ...]
    triggers: tuple[ir.Trigger, ...]
    restrictions: tuple[ir.Restriction, ...]
    exits: tuple[ir.Exit, ...]
    concealments: tuple[ir.Concealment, ...]
    impossibles: tuple[ir.Impossible, ...]
    scenarios: tuple[ir.Scenario, ...]
    victories: tuple[ir.Victory, ...]
    bot_weights: tuple[ir.BotWeights, ...]


def check_bodies(
    tools: Tools, decls: Declarations, parts: Parts, procs: Procedures, declared: Declared
) -> Bodies:
    for d, _rule in decls.defines:
        declared.definitions.check(d.name)
    units = parts.forces.check_commands(parts.units)
    bodies = _BodyChecker(tools)
    modifiers = tuple(bodies.modifier_list(d) for d in decls.of("modifiers"))
    results = tuple(bodies.result(res) for res in parts.results)
    procedures = tuple(bodies.procedure(proc, steps) for proc, steps in procs.values())
    triggers = tuple(bodies.trigger(d, rule) for d, rule in decls.switched("trigger"))
    restrictions, concealments = _restrictions(tools, decls, parts)
    scenarios = _scenarios(tools, decls, parts)
    scenario_names = {sc.name for sc in scenarios}
    return Bodies(
        units,
        modifiers,
        results,
        procedures,
        triggers,
        restrictions,
        _exits(tools, decls, parts),
        concealments,
        tuple(impossible(tools, d, rule) for d, rule in decls.switched("impossible")),
        scenarios,
        _victories(tools, decls, parts, declared, scenario_names),
        _bot_weights(tools, decls, parts, scenario_names),
    )


def _restrictions(
    tools: Tools, decls: Declarations, parts: Parts
) -> tuple[tuple[ir.Restriction, ...], tuple[ir.Concealment, ...]]:
    """What units may not do (movement restrictions) and may not see (concealment)."""
    checker = Restrictions(tools)
    restrictions = tuple(checker.restriction(d, rule) for d, rule in decls.switched("restriction"))
    concealments = tuple(
        conceal(tools, d, rule, parts.forces) for d, rule in decls.switched("conceal")
    )
    return restrictions, concealments


def _exits(tools: Tools, decls: Declarations, parts: Parts) -> tuple[ir.Exit, ...]:
    """Where units may leave the map on purpose, their hexes read as a set-up's are."""
    hexes = ScenarioChecker(tools.reporter, tools.symbols, tools.exprs, parts.forces.places)
    return tuple(check_exit(tools, d, rule, parts.map, hexes) for d, rule in decls.switched("exit"))


def _scenarios(tools: Tools, decls: Declarations, parts: Parts) -> tuple[ir.Scenario, ...]:
    checker = ScenarioChecker(tools.reporter, tools.symbols, tools.exprs, parts.forces.places)
    checker.switches = {rule.name for rule in decls.rules}
    return tuple(checker.scenario(d) for d in decls.of("scenario"))


def _victories(
    tools: Tools, decls: Declarations, parts: Parts, declared: Declared, scenarios: set[str]
) -> tuple[ir.Victory, ...]:
    """Victory conditions, each naming a declared victory level (when there are any)."""
    sides = parts.side_names
    victories = tuple(victory(tools, d, sides, scenarios) for d in decls.of("victory"))
    levels = {level.name for level in declared.victory_levels}
    for v in victories:
        if levels and v.level not in levels:
            tools.reporter.error(v.span, UNKNOWN_NAME, f"unknown victory level {v.level!r}")
    return victories


def _bot_weights(
    tools: Tools, decls: Declarations, parts: Parts, scenarios: set[str]
) -> tuple[ir.BotWeights, ...]:
    side_variables = {"vp"} | {v.name for v in parts.variables if v.scope == "side"}
    terrain_attributes = {k for t in parts.terrain for k in t.props}
    return tuple(
        check_bot_weights(
            d,
            tools.reporter,
            parts.forces,
            parts.side_names,
            side_variables,
            terrain_attributes,
            scenarios,
        )
        for d in decls.of("bot_weights")
    )


class _BodyChecker:
    """Checks the declarations whose bodies are statements or modifier lines."""

    def __init__(self, tools: Tools) -> None:
        self.t = tools
        self.r = tools.reporter
        self.sym = tools.symbols
        self.ec = tools.exprs
        self.sc = tools.stmts

    def modifier_list(self, d: ast.Entity) -> ir.ModifierList:
        scope = Scope({p.name: p.type for p in d.params})
        decl_prov = prov_of(d.prov)
        items = []
        for line in d.body.lines:
            if not isinstance(line, ast.Line):
                self.r.error(line.span, BAD_VALUE, 'a modifier line is `+1 "label" when condition`')
                continue
            modifier = self.modifier(line, scope, decl_prov)
            if modifier is not None:
                items.append(modifier)
        return ir.ModifierList(name_of(d), title_of(d), tuple(items), decl_prov, d.span)

    def modifier(self, line: ast.Line, scope: Scope, decl_prov: ir.Prov) -> ir.Modifier | None:
        """`+1 "label" when condition`, or `(expression) "label" …`."""
        vals = line.values
        amount = self.modifier_amount(vals[0], scope)
        if amount is None:
            return None
        label = vals[1].value if len(vals) >= 2 and isinstance(vals[1], ast.String) else ""
        if len(vals) > 2 or not label:
            self.r.error(line.span, BAD_VALUE, 'a modifier is `amount "label" when condition`')
        cond = self.ec.expr(line.when, scope, "bool") if line.when is not None else None
        return ir.Modifier(label, amount, cond, decl_prov.merged(prov_of(line.prov)), line.span)

    def modifier_amount(self, v: ast.Expr, scope: Scope) -> ir.TExpr | None:
        if isinstance(v, ast.Paren):
            return self.ec.expr(v.expr, scope, "int")
        if as_int(v) is not None:
            within(self.r, v.span, "the modifier", as_int(v), MODIFIER)
            return ir.Const("int", v.span, as_int(v))
        self.r.error(
            v.span,
            BAD_VALUE,
            f"a modifier starts with its amount (+1, -2 or (expression)), not {describe(v)}",
        )
        return None

    def result(self, res: ResultCode) -> ir.Result:
        params = self.sym.result_params
        ctx = Context(f"result {res.name!r}", bindings=dict(params))
        scope = Scope(dict(params))
        body: tuple[ir.TStmt, ...] = ()
        for do in (line for line in res.decl.body.lines if isinstance(line, ast.DoLine)):
            body += self.sc.block(do.body, scope, ctx)
        return ir.Result(
            res.name,
            res.decl.title or res.name,
            res.code,
            params,
            body,
            dict(ctx.bindings),
            res.prov,
            res.decl.span,
        )

    def procedure(self, proc: ast.Procedure, steps: Steps) -> ir.Procedure:
        params = tuple((p.name, p.type) for p in proc.params)
        result = (proc.result.name, proc.result.type) if proc.result is not None else None
        params_and_result = (*params, result) if result is not None else params
        check_param_types(self.r, proc.span, params_and_result)
        ctx = Context(
            f"procedure {proc.name!r}", {s.name for s, _r in steps}, dict(params_and_result)
        )
        scope = Scope(dict(params_and_result))
        out = tuple(self.step(proc, s, rule, scope, ctx) for s, rule in steps)
        return ir.Procedure(
            proc.name,
            proc.title or proc.name,
            proc.kind,
            params,
            result,
            out,
            dict(ctx.bindings),
            prov_of(proc.prov),
            proc.span,
        )

    def step(
        self, proc: ast.Procedure, s: ast.Step, rule: str, scope: Scope, ctx: Context
    ) -> ir.Step:
        """A step's body; one disabled outright ("!") is not checked and does nothing."""
        body = self.sc.block(s.body, scope, ctx) if rule != "!" else ()
        prov = prov_of(proc.prov).merged(prov_of(s.prov))
        return ir.Step(s.name, s.title or s.name, body, rule, prov, s.span)

    def trigger(self, d: ast.Entity, rule: str) -> ir.Trigger:
        p = Props(d, self.r, TRIGGER_KEYS)
        event, bindings = self.event(p)
        scope = Scope(dict(bindings))
        cond = when(self.t, p, scope)
        ctx = Context(f"trigger {d.name!r}", bindings=dict(bindings))
        body: tuple[ir.TStmt, ...] = ()
        for do in p.do:
            body += self.sc.block(do.body, scope, ctx)
        return ir.Trigger(
            name_of(d),
            title_of(d),
            event,
            cond,
            p.flag("once"),
            body,
            dict(ctx.bindings),
            rule,
            prov_of(d.prov),
            d.span,
        )

    def event(self, p: Props) -> tuple[str, dict[str, str]]:
        """The event a trigger fires on, and the names it binds."""
        on = p.values("on")
        if len(on) == 2 and isinstance(on[0], ast.Name) and on[0].id == "changed":
            return self.changed_event(on[1], p)
        event = p.name("on", required=True) or ""
        bindings = dict(EVENTS.get(event, ()))
        if event == "result_applied":
            bindings.update(self.sym.result_params)
        if event and event not in EVENTS:
            hint = did_you_mean(event, set(EVENTS))
            self.r.error(
                p.line("on").span,
                UNKNOWN_NAME,
                f"unknown event {event!r}",
                *hint_note(hint),
                f"events: {', '.join(sorted(EVENTS))}",
            )
        return event, bindings

    def changed_event(self, v: ast.Expr, p: Props) -> tuple[str, dict[str, str]]:
        """`on changed VARIABLE`: the variable's old and new value (and its side or unit)."""
        var = self.sym.variables.get(v.id) if isinstance(v, ast.Name) else None
        if var is None:
            self.r.error(
                p.line("on").span, UNKNOWN_NAME, f"`on changed` names a variable, not {describe(v)}"
            )
            return "", {}
        bindings = {"old": var.type, "new": var.type}
        if var.scope:
            bindings[var.scope] = var.scope
        return f"changed:{var.name}", bindings
