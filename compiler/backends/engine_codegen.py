"""The engine backend: write a ruleset's IR as a Python package for `engine/`.

The package holds data (units, terrain, board tables, tables) as literals and
every expression of the rules as a compiled Python function; procedures are
lowered to instruction tuples that `engine.interpreter` runs. Designer text
enters the code only through `pyrepr`, names only through `pyident` after
the checker validated them. Every function carries a comment pointing at the
rule-file line it came from. Output is deterministic: the same rules give the
same bytes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined

from compiler import ir
from compiler.backends.pysource import (
    pyident,
    pyrepr,
    pyrepr_wrapped,
    pystring_lines,
    wrap_source,
)
from compiler.board import build_board
from compiler.load import PROJECT_ROOT
from dsl.source import Span
from engine import instructions as ins
from engine.los import los_table_text
from engine.vocabulary import ELEMENT_TYPES, NAMED_TYPES

TEMPLATES = Path(__file__).with_name("templates")

DIRECT_UNIT_ATTRS = {
    "side": "UNIT_SIDE[{u}]",
    "formation": "RULES.units[{u}].formation",
    "brigade": "RULES.units[{u}].brigade",
    "nationality": "RULES.units[{u}].nationality",
    "type": "q.unit_type_name(s, {u})",
    "morale": "q.unit_morale(s, {u})",
    "rifle_strength": "q.unit_rifle_strength(s, {u})",
    "movement": "UNIT_MOVEMENT[{u}]",
    "leader": "UNIT_LEADER[{u}]",
    "combat_unit": "UNIT_COMBAT[{u}]",
    "hex": "q.hex_of(s, {u})",
    "strength": "q.unit_strength(s, {u})",
    "steps": "q.unit_steps(s, {u})",
    "reduced": "(s.unit_loss[{u}] > 0)",
    "on_map": "(s.unit_status[{u}] == 0)",
}
COMPARE = {"==", "!=", "<", "<=", ">", ">="}


@dataclass
class Env:
    """How names in an expression become Python: bindings by dict or by parameter."""

    bindings: str = "b"  # "b": b['name']; "args": a_name
    depth_base: int = 0


@dataclass
class _Function:
    name: str
    params: str
    body: list[str]
    where: str


@dataclass(frozen=True, slots=True)
class _Label:
    """A jump target, resolved to an instruction index when the procedure is done."""

    name: str


@dataclass
class _Assembler:
    """Instructions of one procedure, with labels resolved at the end.

    An instruction is an instruction record type (`engine/instructions.py`)
    and its operands, each Python source or a `_Label`; labels are never
    spliced into text, so no string can be mistaken for one.
    """

    code: list[tuple[type[ins.Instruction], tuple[str | _Label, ...]]] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    labels: dict[_Label, int] = field(default_factory=dict)
    steps: dict[str, int] = field(default_factory=dict)
    loop_ends: list[_Label] = field(default_factory=list)  # innermost last, for `break`
    _next: int = 0

    def label(self) -> _Label:
        self._next += 1
        return _Label(f"L{self._next}")

    def step_label(self, step: str) -> _Label:
        return _Label(f"step:{step}")

    def mark(self, label: _Label) -> None:
        self.labels[label] = len(self.code)

    def emit(self, where: str, kind: type[ins.Instruction], *operands: str | _Label) -> None:
        if len(operands) != len(ins.operand_names(kind)):
            raise ValueError(f"{kind.__name__} takes {ins.operand_names(kind)}, not {operands}")
        self.code.append((kind, operands))
        self.lines.append(where)

    def resolved(self) -> list[str]:
        """Each instruction as the source of its record: `JumpIfNot(f12, 7)`."""
        out = []
        for kind, operands in self.code:
            parts = [str(self.labels[p]) if isinstance(p, _Label) else p for p in operands]
            out.append(f"{kind.__name__}({', '.join(parts)})")
        return out


class Codegen:
    def __init__(self, rules: ir.Ruleset) -> None:
        self.rules = rules
        self.functions: list[_Function] = []
        self.emitted: dict[tuple[str, tuple[str, ...]], str] = {}
        self.sides = [s.name for s in rules.sides]
        self.units = [u.name for u in rules.units]
        self.terrain = [t.name for t in rules.terrain]
        self.features = [f.name for f in rules.hexside_features]
        self.tables = [t.name for t in rules.tables]
        self.results = [r.name for r in rules.results]
        self.board = build_board(rules) if rules.map else None
        self.hex_index = (
            {label: i for i, label in enumerate(self.board.labels)} if self.board else {}
        )

    # ------------------------------------------------------------ functions

    def where(self, span: Span) -> str:
        """A rule file's line, named the same from any working directory (the
        generated code, and so the rules hash, must not depend on it)."""
        return f"{stable_file_name(span.file)}:{span.line}"

    def function(self, params: str, body: list[str], span: Span) -> str:
        """A compiled function's name; a body already emitted is emitted once and
        named again (its comment names the first rule line that needed it; each
        instruction keeps its own line in `ProcedureSpec.lines`)."""
        key = (params, tuple(body))
        found = self.emitted.get(key)
        if found is not None:
            return found
        name = f"f{len(self.functions) + 1}"
        self.functions.append(_Function(name, params, body, self.where(span)))
        self.emitted[key] = name
        return name

    def lambda_fn(self, e: ir.TExpr) -> str:
        return self.function("s, b", [f"return {self.expr(e, Env())}"], e.span)

    # ------------------------------------------------------------ expressions

    def const(self, e: ir.Const) -> str:
        t, v = e.type, e.value
        if t in ("int", "bool", "str", "number", "odds"):
            return pyrepr(v)
        if t == "side":
            return str(self.sides.index(v))
        if t == "unit":
            return str(self.units.index(v))
        if t == "hex":
            return str(self.hex_index[v])
        if t == "hexes":
            return pyrepr(tuple(sorted(self.hex_index[h] for h in v)))
        if t == "terrain":
            return str(self.terrain.index(v))
        if t == "hexside":
            return str(self.features.index(v))
        if t == "table":
            return str(self.tables.index(v))
        if t == "code":
            return str(self.results.index(v))
        if t.startswith("enum:") or t in NAMED_TYPES:
            return pyrepr(v)
        if t == "none":
            return "-1"
        raise ValueError(f"no constant of type {t}")

    def expr(self, e: ir.TExpr, env: Env) -> str:
        x = self.expr
        if isinstance(e, ir.Const):
            return self.const(e)
        if isinstance(e, ir.Binding):
            if env.bindings == "args":
                return pyident("a", e.name)
            return f"b[{e.name!r}]"
        if isinstance(e, ir.Element):
            return f"e{e.depth}"
        if isinstance(e, ir.Var):
            if e.name in ("first_turn", "last_turn"):
                return f"s.game.{e.name}"
            return f"s.vars[{e.name!r}]"
        if isinstance(e, ir.VarAt):
            return f"s.vars[{e.name!r}][{x(e.index, env)}]"
        if isinstance(e, ir.Query):
            if e.func == "lookup":
                table, row = x(e.args[0], env), x(e.args[1], env)
                if e.args[1].type == "code":
                    row = f"q.result_name(s, {row})"
                if len(e.args) == 3:
                    return f"q.lookup(s, {table}, {row}, {self.column(e.args[0], e.args[2], env)})"
                return f"q.lookup(s, {table}, {row})"
            args = "".join(f", {x(a, env)}" for a in e.args)
            return f"q.{e.func}(s{args})"
        if isinstance(e, ir.DefineCall):
            args = "".join(f", {x(a, env)}" for a in e.args)
            return f"{pyident('d', e.define)}(s{args})"
        if isinstance(e, ir.UnitAttr):
            u = x(e.unit, env)
            if e.name in DIRECT_UNIT_ATTRS:
                return DIRECT_UNIT_ATTRS[e.name].format(u=u)
            return f"UNIT_PROPS[{e.name!r}][{u}]"
        if isinstance(e, ir.CellPart):
            return f"{x(e.cell, env)}[{e.index}]"
        if isinstance(e, ir.Where):
            v = f"e{e.depth}"
            return f"tuple({v} for {v} in {x(e.collection, env)} if {x(e.condition, env)})"
        if isinstance(e, ir.Aggregate):
            return self.aggregate(e, env)
        if isinstance(e, ir.Unary):
            return f"(not {x(e.operand, env)})" if e.op == "not" else f"(-{x(e.operand, env)})"
        if isinstance(e, ir.Binary):
            if e.op in ("in", "not in") and e.right.type == "range":
                test = f"q.in_range({x(e.left, env)}, {x(e.right, env)})"
                return test if e.op == "in" else f"(not {test})"
            if e.op == "/":
                return f"q.divide({x(e.left, env)}, {x(e.right, env)})"
            if e.op == "+" and e.type in ELEMENT_TYPES:
                return f"q.union({x(e.left, env)}, {x(e.right, env)})"
            return f"({x(e.left, env)} {e.op} {x(e.right, env)})"
        if isinstance(e, ir.Conditional):
            return f"({x(e.then, env)} if {x(e.test, env)} else {x(e.orelse, env)})"
        if isinstance(e, ir.ListOf):
            return pyrepr(()) if not e.items else "(" + ", ".join(x(i, env) for i in e.items) + ",)"
        raise ValueError(f"cannot compile {type(e).__name__}")

    def column(self, table: ir.TExpr, column: ir.TExpr, env: Env) -> str:
        """A column index: computed ones are indices already; keys are looked up."""
        if column.type == "column":
            return self.expr(column, env)
        return f"q.column_of(s, {self.expr(table, env)}, {self.expr(column, env)})"

    def aggregate(self, e: ir.Aggregate, env: Env) -> str:
        v = f"e{e.depth}"
        coll = self.expr(e.collection, env)
        body = self.expr(e.body, env) if e.body is not None else None
        if e.op == "sum":
            return f"sum({body} for {v} in {coll})"
        if e.op in ("max", "min"):
            return f"{e.op}(({body} for {v} in {coll}), default=0)"
        if e.op in ("highest", "lowest"):
            # The member with the greatest (least) value, the first on ties; none when empty.
            pick = "max" if e.op == "highest" else "min"
            return f"{pick}({coll}, key=lambda {v}: {body}, default=-1)"
        if e.op == "count":
            return f"len({coll})" if body is None else f"sum(1 for {v} in {coll} if {body})"
        if e.op == "any":
            return f"bool({coll})" if body is None else f"any({body} for {v} in {coll})"
        if e.op == "all":
            return f"all({body} for {v} in {coll})"
        if e.op == "none":
            return f"(not any({body} for {v} in {coll}))"
        raise ValueError(e.op)

    # ------------------------------------------------------------ statements

    def lower_body(self, stmts: tuple[ir.TStmt, ...], asm: _Assembler) -> None:
        for st in stmts:
            self.lower(st, asm)

    def lower(self, st: ir.TStmt, asm: _Assembler) -> None:
        w = self.where(st.span)
        x = self.expr
        env = Env()
        if isinstance(st, ir.Let):
            asm.emit(w, ins.Let, repr(st.name), self.lambda_fn(st.value))
        elif isinstance(st, ir.SetVar):
            line = f"e.set_var(s, {st.name!r}, {x(st.value, env)})"
            f = self.function("s, b", [line], st.span)
            asm.emit(w, ins.Exec, f)
        elif isinstance(st, ir.SetVarAt):
            line = f"e.set_at(s, {st.name!r}, {x(st.index, env)}, {x(st.value, env)})"
            f = self.function("s, b", [line], st.span)
            asm.emit(w, ins.Exec, f)
        elif isinstance(st, ir.Effect):
            args = "".join(f", {x(a, env)}" for a in st.args)
            f = self.function("s, b", [f"e.{st.func}(s{args})"], st.span)
            asm.emit(w, ins.Exec, f)
        elif isinstance(st, ir.If):
            else_, end = asm.label(), asm.label()
            asm.emit(w, ins.JumpIfNot, self.lambda_fn(st.test), else_)
            self.lower_body(st.body, asm)
            asm.emit(w, ins.Jump, end)
            asm.mark(else_)
            self.lower_body(st.orelse, asm)
            asm.mark(end)
        elif isinstance(st, ir.ForEach):
            self.lower_for(st, asm)
        elif isinstance(st, ir.Repeat):
            top, end = asm.label(), asm.label()
            asm.mark(top)
            if st.test is not None:
                asm.emit(w, ins.JumpIfNot, self.lambda_fn(st.test), end)
            asm.loop_ends.append(end)
            self.lower_body(st.body, asm)
            asm.loop_ends.pop()
            asm.emit(w, ins.Jump, top)
            asm.mark(end)
        elif isinstance(st, ir.Break):
            asm.emit(w, ins.Jump, asm.loop_ends[-1])
        elif isinstance(st, ir.Reveal):
            asm.emit(w, ins.Reveal, pyrepr(st.names))
        elif isinstance(st, ir.Draw):
            asm.emit(w, ins.Draw, repr(st.bag), repr(st.into))
        elif isinstance(st, ir.Roll):
            if not st.table:
                asm.emit(w, ins.RollDie, repr(st.into), pyrepr(st.modifiers))
            else:
                table = str(self.tables.index(st.table))
                column = "None"
                if st.column is not None:
                    const = ir.Const("table", st.span, st.table)
                    body = f"return {self.column(const, st.column, Env())}"
                    column = self.function("s, b", [body], st.span)
                operands = (table, column, pyrepr(st.modifiers), repr(st.into), pyrepr(st.total))
                asm.emit(w, ins.Roll, *operands)
        elif isinstance(st, ir.Choose):
            kind = st.elem_type if st.elem_type in ("unit", "hex") else "option"
            prompt = f"choose {st.var}"
            options, chooser = self.lambda_fn(st.options), self.lambda_fn(st.chooser)
            asm.emit(
                w,
                ins.Choose,
                repr(st.var),
                options,
                chooser,
                repr(kind),
                repr(prompt),
                repr(st.mode),
            )
        elif isinstance(st, ir.Ask):
            no, end = asm.label(), asm.label()
            asm.emit(w, ins.Ask, self.lambda_fn(st.chooser), repr(st.question), repr(st.var))
            test = self.function("s, b", [f"return b[{st.var!r}]"], st.span)
            asm.emit(w, ins.JumpIfNot, test, no)
            self.lower_body(st.yes, asm)
            asm.emit(w, ins.Jump, end)
            asm.mark(no)
            self.lower_body(st.no, asm)
            asm.mark(end)
        elif isinstance(st, ir.ApplyResult):
            asm.emit(w, ins.ApplyResult, self.lambda_fn(st.result), self.args_fn(st.args, st.span))
        elif isinstance(st, ir.CallProc):
            asm.emit(w, ins.Call, repr(st.proc), self.args_fn(st.args, st.span), repr(st.into))
        elif isinstance(st, ir.CallPrim):
            lambdas = "{" + ", ".join(f"{n!r}: {self.lambda_fn(v)}" for n, v in st.lambdas) + "}"
            asm.emit(w, ins.Prim, repr(st.prim), self.args_fn(st.args, st.span), lambdas)
        elif isinstance(st, ir.SkipTo):
            asm.emit(w, ins.Jump, asm.step_label(st.step))
        elif isinstance(st, ir.Return):
            asm.emit(w, ins.Return)
        elif isinstance(st, ir.EndPhase):
            asm.emit(w, ins.EndPhase)
        elif isinstance(st, ir.EndGame):
            asm.emit(w, ins.EndGame)
        else:
            raise ValueError(f"cannot lower {type(st).__name__}")

    def lower_for(self, st: ir.ForEach, asm: _Assembler) -> None:
        w = self.where(st.span)
        rest = repr(f"_for_{st.var}")
        top, end = asm.label(), asm.label()
        asm.emit(w, ins.ForStart, rest, self.lambda_fn(st.iterable))
        asm.mark(top)
        asm.emit(w, ins.JumpIfEmpty, rest, end)
        if st.chooser is None:
            asm.emit(w, ins.ForTake, repr(st.var), rest)
        else:
            kind = st.elem_type if st.elem_type in ("unit", "hex") else "option"
            options = self.function("s, b", [f"return b[{rest}]"], st.span)
            chooser = self.lambda_fn(st.chooser)
            prompt = f"choose the next {st.var}"
            asm.emit(w, ins.Choose, repr(st.var), options, chooser, repr(kind), repr(prompt), "''")
            asm.emit(w, ins.ForDrop, repr(st.var), rest)
        asm.loop_ends.append(end)
        self.lower_body(st.body, asm)
        asm.loop_ends.pop()
        asm.emit(w, ins.Jump, top)
        asm.mark(end)

    def args_fn(self, args: tuple[tuple[str, ir.TExpr], ...], span: Span) -> str:
        items = ", ".join(f"{n!r}: {self.expr(v, Env())}" for n, v in args)
        return self.function("s, b", [f"return {{{items}}}"], span)

    # ------------------------------------------------------------ procedures

    def procedure(self, proc: ir.Procedure) -> dict[str, object]:
        asm = _Assembler()
        for step in proc.steps:
            if step.rule == "!":
                continue
            # A step a rule replaces comes twice, each version behind its switch:
            # its name (for saves and `skip to`) is the first, which falls
            # through to the other when its switch says so.
            if step.name not in asm.steps:
                asm.steps[step.name] = len(asm.code)
                asm.mark(asm.step_label(step.name))
            end = asm.label()
            if step.rule:
                on = not step.rule.startswith("!")
                rule = step.rule.lstrip("!")
                asm.emit(self.where(step.span), ins.JumpUnlessSwitch, repr(rule), repr(on), end)
            self.lower_body(step.body, asm)
            asm.mark(end)
        return {
            "name": proc.name,
            "title": proc.title,
            "kind": proc.kind,
            "params": tuple(p for p, _t in proc.params),
            "result": proc.result[0] if proc.result else "",
            "code": asm.resolved(),
            "kinds": {kind for kind, _operands in asm.code},
            "steps": asm.steps,
            "types": dict(sorted(proc.bindings.items())),
            "lines": tuple(asm.lines),
        }

    def body_procedure(
        self,
        name: str,
        title: str,
        body: tuple[ir.TStmt, ...],
        bindings: dict[str, str],
        span: Span,
    ) -> dict[str, object]:
        step = ir.Step("do", title, body, "", ir.Prov(), span)
        return self.procedure(
            ir.Procedure(
                name,
                title,
                "procedure",
                tuple(bindings.items()),
                None,
                (step,),
                bindings,
                ir.Prov(),
                span,
            )
        )

    # ------------------------------------------------------------ the module

    def render(self) -> dict[str, str]:
        r = self.rules
        procedures = [self.procedure(p) for p in r.procedures]
        for res in r.results:
            if res.body:
                procedures.append(
                    self.body_procedure(
                        f"result:{res.name}", res.title, res.body, res.bindings, res.span
                    )
                )
        for trig in r.triggers:
            procedures.append(
                self.body_procedure(
                    f"trigger:{trig.name}", trig.title, trig.body, trig.bindings, trig.span
                )
            )
        defines = []
        for d in r.defines:
            params = "".join(f", {pyident('a', p)}" for p, _t in d.params)
            defines.append(
                {
                    "name": pyident("d", d.name),
                    "params": f"s{params}",
                    "body": self.expr(d.body, Env(bindings="args")),
                    "where": self.where(d.span),
                    "title": d.title,
                }
            )
        modifiers = []
        for ml in r.modifiers:
            items = []
            for m in ml.modifiers:
                amount = self.lambda_fn(m.amount)
                cond = self.lambda_fn(m.condition) if m.condition is not None else "None"
                items.append((m.label, amount, cond))
            modifiers.append({"name": ml.name, "title": ml.title, "items": items})
        triggers = [
            {
                "name": t.name,
                "title": t.title,
                "event": t.event,
                "condition": self.lambda_fn(t.condition) if t.condition is not None else "None",
                "once": t.once,
                "rule": t.rule,
            }
            for t in r.triggers
        ]
        restrictions = [
            {
                "name": x.name,
                "title": x.title,
                "kind": x.kind,
                "zone": x.zone,
                "condition": self.lambda_fn(x.condition) if x.condition is not None else "None",
                "until": x.until_turn,
                "rule": x.rule,
                "value": self.lambda_fn(x.value) if x.value is not None else "None",
            }
            for x in r.restrictions
        ]
        concealments = [
            {
                "name": c.name,
                "observer": self.sides.index(c.observer),
                "condition": self.lambda_fn(c.condition) if c.condition is not None else "None",
                "rule": c.rule,
            }
            for c in r.concealments
        ]
        victories = [
            {
                "name": v.name,
                "title": v.title,
                "level": v.level,
                "winner": self.sides.index(v.winner),
                "condition": self.lambda_fn(v.condition),
                "scenarios": v.scenarios,
                "check": v.check,
            }
            for v in r.victories
        ]
        scenarios = [self.scenario(sc) for sc in r.scenarios]
        victory_hexes = (
            tuple(sorted({self.hex_index[pl.hex] for pl in r.map.places if pl.victory}))
            if r.map
            else ()
        )
        bot_weights = [
            {
                "name": w.name,
                "scenarios": w.scenarios,
                "terms": w.terms,
                "variables": w.variables,
                "terrain": w.terrain,
                "objectives": tuple(
                    (self.hex_index[label], self.sides.index(side) if side else -1, 1.0)
                    for label, side in w.objectives
                    if label in self.hex_index
                ),
            }
            for w in r.bot_weights
        ]
        env = Environment(
            loader=FileSystemLoader(str(TEMPLATES)),
            undefined=StrictUndefined,
            autoescape=False,
            keep_trailing_newline=True,
            trim_blocks=True,
            lstrip_blocks=True,
        )
        env.filters["py"] = pyrepr
        env.filters["pyw"] = pyrepr_wrapped
        env.filters["los_table"] = los_table_source
        context = {
            "rules": r,
            "sides": r.sides,
            "unit_types": r.unit_types,
            "unit_side": tuple(self.sides.index(u.side) for u in r.units),
            "unit_movement": tuple(u.movement for u in r.units),
            "unit_leader": tuple(u.kind == "leader" for u in r.units),
            "unit_combat": tuple(u.kind == "unit" for u in r.units),
            "unit_specs": [self.unit_spec(u) for u in r.units],
            "unit_props": self.unit_props(),
            "hex_index": self.hex_index,
            "terrain": r.terrain,
            "features": r.hexside_features,
            "board": self.board,
            "tables": [self.table(t) for t in r.tables],
            "results": r.results,
            "defines": defines,
            "functions": self.functions,
            "procedures": procedures,
            "instructions": sorted({kind.__name__ for p in procedures for kind in p["kinds"]}),
            "modifiers": modifiers,
            "triggers": triggers,
            "restrictions": restrictions,
            "concealments": concealments,
            "victory_hexes": victory_hexes,
            "bot_weights": bot_weights,
            "victories": victories,
            "victory_levels": {lv.name: lv.utility for lv in r.victory_levels},
            "switches": r.switches,
            "variables": [self.variable(v) for v in r.variables],
            "scenarios": scenarios,
            "bags": {b.name: tuple(sorted(b.contents)) for b in r.bags},
            "bag_seen_by": {b.name: tuple(self.sides.index(x) for x in b.seen_by) for b in r.bags},
            "markers": tuple(sorted(m.name for m in r.markers)),
            "turn_track": {t.number: (t.label, t.data) for t in r.turn_track.turns}
            if r.turn_track
            else {},
            "levels": [
                (lv.name, lv.variable, tuple((x.name, x.low, x.high, x.data) for x in lv.levels))
                for lv in r.levels
            ],
            "sources": declaration_sources(r),
        }
        rules_py = wrap_source(env.get_template("rules.py.jinja").render(context))
        digest = hashlib.sha256(rules_py.encode()).hexdigest()
        init_py = env.get_template("init.py.jinja").render({"rules": r, "digest": digest})
        return {"rules.py": rules_py, "__init__.py": init_py}

    def placed(self, units: tuple[ir.PlacedUnit, ...]) -> str:
        items = []
        for pu in units:
            assigns = tuple_source([f"({n!r}, {self.lambda_fn(v)})" for n, v in pu.assigns])
            items.append(tuple_source([str(self.units.index(pu.name)), repr(pu.reduced), assigns]))
        return tuple_source(items)

    def scenario(self, sc: ir.Scenario) -> dict[str, object]:
        values = []
        for sv in sc.values:
            index = self.lambda_fn(sv.index) if sv.index is not None else "None"
            values.append(tuple_source([repr(sv.variable), index, self.lambda_fn(sv.value)]))
        setup = []
        for entry in sc.setup:
            hexes = pyrepr(tuple(self.hex_index[h] for h in entry.hexes))
            cond = self.lambda_fn(entry.condition) if entry.condition is not None else "None"
            setup.append(
                f"PlacementSpec({hexes}, {cond}, {entry.chosen!r}, {self.placed(entry.units)})"
            )
        reinforcements = [
            tuple_source(
                [
                    str(e.turn),
                    pyrepr(tuple(self.hex_index[h] for h in e.hexes)),
                    self.placed(e.units),
                ]
            )
            for e in sc.reinforcements
        ]
        return {
            "name": sc.name,
            "title": sc.title,
            "turns": sc.turns,
            "values": tuple_source(values),
            "orders": {
                t: tuple(self.sides.index(x) for x in order) for t, order in sc.orders.items()
            },
            "rules_off": sc.rules_off,
            "rules_on": sc.rules_on,
            "printed": sc.printed_setup,
            "setup": setup,
            "reinforcements": reinforcements,
            "stacking": self.lambda_fn(sc.stacking) if sc.stacking is not None else "",
        }

    def variable(self, v: ir.Variable) -> list[str]:
        initial = v.initial
        if v.type == "side" and isinstance(initial, str):
            initial = self.sides.index(initial)
        elif v.type == "unit" and isinstance(initial, str):
            initial = self.units.index(initial)
        return [
            pyrepr(v.name),
            pyrepr(v.scope),
            pyrepr(v.type),
            pyrepr(initial),
            pyrepr(v.reset or ""),
            pyrepr(v.title),
            pyrepr(v.announce),
        ]

    def unit_spec(self, u: ir.Unit) -> list[str]:
        types = [t.name for t in self.rules.unit_types]
        entry = u.entry
        return [
            pyrepr(u.name),
            pyrepr(u.title),
            pyrepr(u.short),
            str(self.sides.index(u.side)),
            pyrepr(u.kind),
            str(types.index(u.type)) if u.type is not None else "-1",
            pyrepr(u.strengths),
            str(u.movement),
            str(self.hex_index[u.setup]) if u.setup is not None else "-1",
            pyrepr(u.props),
            f"morales={pyrepr(u.morales)}",
            f"rifle_strengths={pyrepr(u.rifle_strengths)}",
            f"formation={pyrepr(u.formation or '')}",
            f"brigade={pyrepr(u.brigade or '')}",
            f"nationality={pyrepr(u.nationality or '')}",
            f"entry_turn={entry.turn if entry else 0}",
            f"entry_hexes={pyrepr(tuple(self.hex_index[h] for h in entry.at) if entry else ())}",
            f"variable_entry={pyrepr(bool(entry and entry.variable))}",
            f"commands={self.lambda_fn(u.commands) if u.commands is not None else 'None'}",
        ]

    def unit_props(self) -> dict[str, tuple[object, ...]]:
        """Every declared attribute, one value per unit: the unit's own, else its
        type's, else the attribute type's blank (no, 0, "")."""
        r = self.rules
        types = {t.name: t for t in r.unit_types}
        blank = {"bool": False, "int": 0, "str": ""}
        out = {}
        for attr in sorted(r.attributes, key=lambda a: a.name):
            values = []
            for u in r.units:
                if attr.name in u.props:
                    values.append(u.props[attr.name])
                elif u.type is not None and attr.name in types[u.type].props:
                    values.append(types[u.type].props[attr.name])
                else:
                    values.append(blank[attr.type])
            out[attr.name] = tuple(values)
        return out

    def table(self, t: ir.Table) -> dict[str, object]:
        def part(kind: str, value: object) -> object:
            if kind == "code":
                return self.results.index(value) if value is not None else -1
            return value

        rows = tuple(
            (
                row.low,
                row.high,
                row.key,
                tuple(
                    tuple(part(k, v) for k, v in zip(t.kinds, cell, strict=True))
                    for cell in row.cells
                ),
            )
            for row in t.rows
        )
        return {
            "name": t.name,
            "title": t.title,
            "row_key": t.row_key,
            "column_kind": t.column_kind,
            "columns": t.columns,
            "parts": t.parts,
            "kinds": t.kinds,
            "rows": rows,
        }


def cite_text(prov: ir.Prov) -> str:
    """Citations as a player reads them: "§ series 9.1, 9.2; battle 4.2"."""
    by_document: dict[str, list[str]] = {}
    for c in prov.cites:
        by_document.setdefault(c.document, []).append(c.section)
    if not by_document:
        return ""
    return "§ " + "; ".join(f"{doc} {', '.join(secs)}" for doc, secs in by_document.items())


def declaration_sources(r: ir.Ruleset) -> dict[str, tuple[str, str, str]]:
    """Title, citation and provisional reason of every declaration the engine may have
    to explain, keyed "kind:name" ("step:PROC:STEP", "modifier:LIST:LABEL", and
    "hook:PROC:STEP:ARG" for the define a primitive's hook calls)."""
    out: dict[str, tuple[str, str, str]] = {}

    def put(key: str, title: str, prov: ir.Prov) -> None:
        out[key] = (title, cite_text(prov), prov.provisional or "")

    defines = {d.name: d for d in r.defines}
    for kind, items in (
        ("define", r.defines),
        ("restriction", r.restrictions),
        ("terrain", r.terrain),
        ("hexside", r.hexside_features),
        ("table", r.tables),
        ("rule", r.switches),
        ("modifiers", r.modifiers),
    ):
        for x in items:
            put(f"{kind}:{x.name}", x.title, x.prov)
    for ml in r.modifiers:
        for m in ml.modifiers:
            put(f"modifier:{ml.name}:{m.label}", m.label, ml.prov.merged(m.prov))
    for p in r.procedures:
        put(f"procedure:{p.name}", p.title, p.prov)
        for st in p.steps:
            title = p.title if st.title in ("", st.name) else f"{p.title}: {st.title}"
            put(f"step:{p.name}:{st.name}", title, p.prov.merged(st.prov))
            for stmt in _statements(st.body):
                if isinstance(stmt, ir.CallPrim):
                    for arg, expr in stmt.lambdas:
                        if isinstance(expr, ir.DefineCall) and expr.define in defines:
                            d = defines[expr.define]
                            put(f"hook:{p.name}:{st.name}:{arg}", d.title, d.prov)
                elif isinstance(stmt, ir.Choose):
                    options = stmt.options
                    while isinstance(options, ir.Where):
                        options = options.collection
                    if isinstance(options, ir.DefineCall) and options.define in defines:
                        d = defines[options.define]
                        put(f"choose:{p.name}:{st.name}:{stmt.var}", d.title, d.prov)
    return dict(sorted(out.items()))


def _statements(body: tuple[ir.TStmt, ...]) -> Iterator[ir.TStmt]:
    """Every statement of a body, nested ones (in ifs, loops, asks) included."""
    for stmt in body:
        yield stmt
        for name in ("body", "orelse", "yes", "no"):
            inner = getattr(stmt, name, None)
            if isinstance(inner, tuple):
                yield from _statements(inner)


def stable_file_name(file: str) -> str:
    """A rule file's path relative to the project, or absolute outside it."""
    path = (Path.cwd() / file).resolve()
    try:
        return str(path.relative_to(PROJECT_ROOT))
    except ValueError:
        return str(path)


def los_table_source(codes: tuple[tuple[int, ...], ...], indent: int) -> str:
    """`los_table(count, width, "…")`: the LOS table in the compact form `engine.los` reads."""
    count, width, text = los_table_text(codes)
    if not text:
        return f"los_table({count}, {width}, '')"
    pad = " " * indent
    return f"los_table({count}, {width}, (\n{pystring_lines(text, indent + 4)}\n{pad}))"


def tuple_source(items: list[str]) -> str:
    """Python source of a tuple of already-written items."""
    return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"


def generate(rules: ir.Ruleset) -> dict[str, str]:
    """The files of the generated package, by name."""
    return Codegen(rules).render()
