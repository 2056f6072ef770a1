"""The engine backend: write a ruleset's IR as a Python package for `engine/`.

The package's `rules.py` holds data (units, terrain, tables, procedures as
instruction records that `engine.interpreter` runs) and every expression of
the rules as a compiled Python function named for where it comes from
(`close_combat__odds__let_odds`, `define__stack_ok`) with its rule-file
line; a body is written once, a binding or constant operand is a record of
`engine.operands`, and sets of hexes are module constants (`ZONE_*`). The
map's tables go to `board.json` beside it (`engine.board_data`). Designer
text enters the code only through `pyrepr`, names only through `pyident` or
`function_name` after the checker validated them. Output is deterministic:
the same rules give the same bytes.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined

from compiler import ir, restriction_parts
from compiler.backends.pysource import (
    pyident,
    pyrepr,
    pyrepr_wrapped,
    wrap_source,
)
from compiler.board import board_patches, build_board
from compiler.load import PROJECT_ROOT
from compiler.maps import grid_of
from compiler.terrain_changes import change_groups
from dsl.source import Span
from engine import instructions as ins
from engine.board_data import FILE as BOARD_FILE
from engine.board_data import board_text
from engine.rules import HEX_RESTRICTIONS, TerrainChangeSpec
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
# Generated lines are wrapped at this width (the artifact's test allows 200).
WIDTH = 150
COMPARE = {"==", "!=", "<", "<=", ">", ">="}
# Lists of hexes this long or longer (and every zone) are module constants, not literals.
HEX_SET_MIN = 4


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
    group: str  # the procedure (or trigger, result, ...) it belongs to: written together


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
        self.names: set[str] = set()
        self.context: tuple[str, ...] = ()
        # Hex sets the expressions name (zones, lists of hexes): constant name by
        # hexes, and whether the rules also read one as a list in id order.
        self.hex_sets: dict[frozenset[int], str] = {}
        self.hex_lists: set[str] = set()
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
        if self.board is not None:
            for name, hexes in self.board.zones.items():
                self.hex_sets.setdefault(hexes, f"ZONE_{name.upper()}")
        # Defines of one unit that read only its printed values: define name -> the
        # module constant of their value per unit, which their calls look up.
        self.unit_tables: dict[str, str] = {
            d.name: f"DEFINE__{d.name.upper()}" for d in rules.defines if per_unit(d)
        }

    # ------------------------------------------------------------ functions

    def where(self, span: Span) -> str:
        """A rule file's line, named the same from any working directory (the
        generated code, and so the rules hash, must not depend on it)."""
        return f"{stable_file_name(span.file)}:{span.line}"

    @contextmanager
    def within(self, *names: str) -> Iterator[None]:
        """Name the functions emitted meanwhile for where they come from:
        `close_combat__resolve__odds` is the `odds` of step `resolve` of `close_combat`."""
        outer = self.context
        self.context = (*outer, *names)
        try:
            yield
        finally:
            self.context = outer

    def function(self, params: str, body: list[str], span: Span, role: str) -> str:
        """A compiled function's name; a body already emitted is emitted once and
        named again (its comment names the first rule line that needed it; each
        instruction keeps its own line in `ProcedureSpec.lines`)."""
        key = (params, tuple(body))
        found = self.emitted.get(key)
        if found is not None:
            return found
        name = function_name((*self.context, role))
        if name in self.names:
            n = 2
            while f"{name}_{n}" in self.names:
                n += 1
            name = f"{name}_{n}"
        self.names.add(name)
        # Written together: a procedure's functions, or a result's or trigger's.
        kind = self.context[:1]
        group = "__".join(self.context[:2] if kind in (("result",), ("trigger",)) else kind)
        self.functions.append(_Function(name, params, body, self.where(span), group))
        self.emitted[key] = name
        return name

    def lambda_fn(self, e: ir.TExpr, role: str) -> str:
        """An expression as an operand: a binding or a constant as itself, anything
        else as a compiled function."""
        if isinstance(e, ir.Binding):
            return f"Bound({e.name!r})"
        if isinstance(e, ir.Const):
            return f"Constant({self.const(e)})"
        return self.function("s, b", [f"return {self.expr(e, Env())}"], e.span, role)

    def optional_fn(self, e: ir.TExpr | None, role: str, *context: str) -> str:
        """`lambda_fn` of an expression a declaration may leave out ("None" then)."""
        if e is None:
            return "None"
        with self.within(*context):
            return self.lambda_fn(e, role)

    def restriction(self, x: ir.Restriction) -> dict[str, object]:
        """A restriction's fields; a hex restriction's condition also in its unit's and
        its hex's parts (compiler/restriction_parts.py), asked apart by movement."""
        unit_part = hex_part = None
        if x.kind in HEX_RESTRICTIONS and x.condition is not None:
            unit_part, hex_part = restriction_parts.split(x.condition)
        return {
            "name": x.name,
            "title": x.title,
            "kind": x.kind,
            "zone": x.zone,
            "condition": self.optional_fn(x.condition, "condition", "restriction", x.name),
            "until": x.until_turn,
            "rule": x.rule,
            "value": self.optional_fn(x.value, "value", "restriction", x.name),
            "unit_part": self.optional_fn(unit_part, "unit_part", "restriction", x.name),
            "hex_part": self.optional_fn(hex_part, "hex_part", "restriction", x.name),
        }

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
            hexes = frozenset(self.hex_index[h] for h in v)
            if len(hexes) < HEX_SET_MIN and hexes not in self.hex_sets:
                return pyrepr(tuple(sorted(hexes)))
            name = f"{self.hex_set(hexes)}_LIST"
            self.hex_lists.add(name)
            return name
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

    def hex_set(self, hexes: frozenset[int]) -> str:
        """The module constant of a set of hexes: its zone's, or a new `HEXES_N`."""
        if hexes not in self.hex_sets:
            unnamed = sum(name.startswith("HEXES_") for name in self.hex_sets.values())
            self.hex_sets[hexes] = f"HEXES_{unnamed + 1}"
        return self.hex_sets[hexes]

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
            if e.define in self.unit_tables:
                return f"{self.unit_tables[e.define]}[{x(e.args[0], env)}]"
            args = "".join(f", {x(a, env)}" for a in e.args)
            return f"{define_name(e.define)}(s{args})"
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
            if e.op in ("in", "not in") and is_hexes(e.right):
                hexes = frozenset(self.hex_index[h] for h in e.right.value)
                if len(hexes) >= HEX_SET_MIN or hexes in self.hex_sets:
                    return f"({x(e.left, env)} {e.op} {self.hex_set(hexes)})"
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
        inner = e.collection
        if isinstance(inner, ir.Where) and inner.depth == e.depth and e.op in FUSED:
            # Over `X where C`: one generator over X, no tuple of the members made first.
            source, test = self.expr(inner.collection, env), self.expr(inner.condition, env)
            members = f"{v} in {source} if {test}"
            body = self.expr(e.body, env) if e.body is not None else None
            return FUSED[e.op](body, members)
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
            asm.emit(w, ins.Let, repr(st.name), self.lambda_fn(st.value, f"let_{st.name}"))
        elif isinstance(st, ir.SetVar):
            line = f"e.set_var(s, {st.name!r}, {x(st.value, env)})"
            f = self.function("s, b", [line], st.span, f"set_{st.name}")
            asm.emit(w, ins.Exec, f)
        elif isinstance(st, ir.SetVarAt):
            line = f"e.set_at(s, {st.name!r}, {x(st.index, env)}, {x(st.value, env)})"
            f = self.function("s, b", [line], st.span, f"set_{st.name}")
            asm.emit(w, ins.Exec, f)
        elif isinstance(st, ir.Effect):
            args = "".join(f", {x(a, env)}" for a in st.args)
            f = self.function("s, b", [f"e.{st.func}(s{args})"], st.span, st.func)
            asm.emit(w, ins.Exec, f)
        elif isinstance(st, ir.If):
            else_, end = asm.label(), asm.label()
            asm.emit(w, ins.JumpIfNot, self.lambda_fn(st.test, "if"), else_)
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
                asm.emit(w, ins.JumpIfNot, self.lambda_fn(st.test, "while"), end)
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
                    column = self.function("s, b", [body], st.span, f"{st.table}_column")
                operands = (table, column, pyrepr(st.modifiers), repr(st.into), pyrepr(st.total))
                asm.emit(w, ins.Roll, *operands)
        elif isinstance(st, ir.Choose):
            kind = st.elem_type if st.elem_type in ("unit", "hex") else "option"
            prompt = f"choose {st.var}"
            options = self.lambda_fn(st.options, f"{st.var}_options")
            chooser = self.lambda_fn(st.chooser, f"{st.var}_chooser")
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
            chooser = self.lambda_fn(st.chooser, f"{st.var.lstrip('_')}_chooser")
            asm.emit(w, ins.Ask, chooser, repr(st.question), repr(st.var))
            asm.emit(w, ins.JumpIfNot, f"Bound({st.var!r})", no)
            self.lower_body(st.yes, asm)
            asm.emit(w, ins.Jump, end)
            asm.mark(no)
            self.lower_body(st.no, asm)
            asm.mark(end)
        elif isinstance(st, ir.ApplyResult):
            result = self.lambda_fn(st.result, "result")
            asm.emit(w, ins.ApplyResult, result, self.args_fn(st.args, st.span, "result"))
        elif isinstance(st, ir.CallProc):
            args = self.args_fn(st.args, st.span, st.proc)
            asm.emit(w, ins.Call, repr(st.proc), args, repr(st.into))
        elif isinstance(st, ir.CallPrim):
            hooks = [f"{n!r}: {self.lambda_fn(v, f'{st.prim}_{n}')}" for n, v in st.lambdas]
            lambdas = "{" + ", ".join(hooks) + "}"
            asm.emit(w, ins.Prim, repr(st.prim), self.args_fn(st.args, st.span, st.prim), lambdas)
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
        asm.emit(w, ins.ForStart, rest, self.lambda_fn(st.iterable, f"each_{st.var}"))
        asm.mark(top)
        asm.emit(w, ins.JumpIfEmpty, rest, end)
        if st.chooser is None:
            asm.emit(w, ins.ForTake, repr(st.var), rest)
        else:
            kind = st.elem_type if st.elem_type in ("unit", "hex") else "option"
            options = f"Bound({rest})"
            chooser = self.lambda_fn(st.chooser, f"each_{st.var}_chooser")
            prompt = f"choose the next {st.var}"
            asm.emit(w, ins.Choose, repr(st.var), options, chooser, repr(kind), repr(prompt), "''")
            asm.emit(w, ins.ForDrop, repr(st.var), rest)
        asm.loop_ends.append(end)
        self.lower_body(st.body, asm)
        asm.loop_ends.pop()
        asm.emit(w, ins.Jump, top)
        asm.mark(end)

    def args_fn(self, args: tuple[tuple[str, ir.TExpr], ...], span: Span, callee: str) -> str:
        """The arguments of a call: bindings passed on as they are, else a function."""
        if all(isinstance(v, ir.Binding) for _n, v in args):
            return f"Passed({pyrepr(tuple((n, v.name) for n, v in args))})"
        items = ", ".join(f"{n!r}: {self.expr(v, Env())}" for n, v in args)
        return self.function("s, b", [f"return {{{items}}}"], span, f"{callee}_args")

    # ------------------------------------------------------------ procedures

    def procedure(self, proc: ir.Procedure, context: tuple[str, ...] = ()) -> dict[str, object]:
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
            with self.within(*(context or (proc.name, step.name))):
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
            "lines": lines_source(asm.lines),
        }

    def body_procedure(
        self,
        name: str,
        title: str,
        body: tuple[ir.TStmt, ...],
        bindings: dict[str, str],
        span: Span,
        context: tuple[str, str],
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
            ),
            context,
        )

    # ------------------------------------------------------------ the module

    def render(self) -> dict[str, str]:
        r = self.rules
        procedures = [self.procedure(p) for p in r.procedures]
        for res in r.results:
            if res.body:
                procedures.append(
                    self.body_procedure(
                        f"result:{res.name}",
                        res.title,
                        res.body,
                        res.bindings,
                        res.span,
                        ("result", res.name),
                    )
                )
        for trig in r.triggers:
            procedures.append(
                self.body_procedure(
                    f"trigger:{trig.name}",
                    trig.title,
                    trig.body,
                    trig.bindings,
                    trig.span,
                    ("trigger", trig.name),
                )
            )
        defines = []
        # The define written so, by body and parameters (by their number alone when the
        # body reads none of them: defines are called with positional arguments).
        written: dict[tuple[str | int, str], str] = {}
        named: dict[str, str] = {}  # each define written so far -> the function it is
        for d in r.defines:
            params = "s" + "".join(f", {pyident('a', p)}" for p, _t in d.params)
            body = self.expr(d.body, Env(bindings="args"))
            name = define_name(d.name)
            reads = any(re.search(rf"\b{pyident('a', p)}\b", body) for p, _t in d.params)
            signature: str | int = params if reads else len(d.params)
            # A define saying what an earlier one says is that one, named again; so is
            # one that only calls an earlier one with its own parameters, in order.
            called = d.body if isinstance(d.body, ir.DefineCall) else None
            passes_on = called is not None and [
                a.name if isinstance(a, ir.Binding) else None for a in called.args
            ] == [p for p, _t in d.params]
            if passes_on and called is not None and define_name(called.define) in named:
                named[name] = named[define_name(called.define)]
            else:
                named[name] = written.setdefault((signature, body), name)
            defines.append(
                {
                    "name": name,
                    "params": params,
                    "body": body,
                    "where": self.where(d.span),
                    "title": d.title,
                    "same_as": named[name],
                }
            )
        modifiers = []
        for ml in r.modifiers:
            items = []
            for i, m in enumerate(ml.modifiers, 1):
                with self.within("modifiers", ml.name):
                    amount = self.lambda_fn(m.amount, f"{i}_amount")
                    cond = self.optional_fn(m.condition, f"{i}_if")
                items.append((m.label, amount, cond))
            modifiers.append({"name": ml.name, "title": ml.title, "items": items})
        triggers = [
            {
                "name": t.name,
                "title": t.title,
                "event": t.event,
                "condition": self.optional_fn(t.condition, "condition", "trigger", t.name),
                "once": t.once,
                "rule": t.rule,
            }
            for t in r.triggers
        ]
        restrictions = [self.restriction(x) for x in r.restrictions]
        concealments = [
            {
                "name": c.name,
                "observer": self.sides.index(c.observer),
                "condition": self.optional_fn(c.condition, "condition", "conceal", c.name),
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
                "condition": self.optional_fn(v.condition, "condition", "victory", v.name),
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
        env.filters["pyw"] = lambda value, indent=8: pyrepr_wrapped(value, indent, WIDTH)
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
            "hex_sets": [(name, hexes) for hexes, name in self.hex_sets.items()],
            "hex_sets_by": self.hex_sets,
            "hex_lists": self.hex_lists,
            "tables": [self.table(t) for t in r.tables],
            "results": r.results,
            "defines": defines,
            "unit_tables": [
                {"table": table, "function": define_name(name)}
                for name, table in self.unit_tables.items()
            ],
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
            "terrain_changes": self.terrain_changes(),
            "board_patches": board_patches(r),
            "turn_track": {t.number: (t.label, t.data) for t in r.turn_track.turns}
            if r.turn_track
            else {},
            "levels": [
                (lv.name, lv.variable, tuple((x.name, x.low, x.high, x.data) for x in lv.levels))
                for lv in r.levels
            ],
            "sources": declaration_sources(r),
        }
        template = env.get_template("rules.py.jinja")
        rules_py = template.render({**context, "fractions": False})
        if "Fraction(" in rules_py:  # a number of the rules is a fraction: import the type
            rules_py = template.render({**context, "fractions": True})
        rules_py = wrap_source(rules_py, WIDTH)
        board = board_text(self.board) if self.board is not None else ""
        digest = hashlib.sha256(f"{rules_py}\0{board}".encode()).hexdigest()
        init_py = env.get_template("init.py.jinja").render({"rules": r, "digest": digest})
        files = {"rules.py": rules_py, "__init__.py": init_py}
        if self.board is not None:
            files[BOARD_FILE] = board
        return files

    def terrain_changes(self) -> list[TerrainChangeSpec]:
        """The map changes of the rules, each with the hexes its marker goes on."""
        r = self.rules
        if r.map is None:
            return []
        group_of = {
            i: g
            for g, members in enumerate(change_groups(r.terrain_changes, grid_of(r.map)))
            for i in members
        }
        return [
            TerrainChangeSpec(
                c.name,
                c.title,
                c.marker,
                tuple(self.hex_index[h] for h in c.hexes),
                tuple(
                    (self.hex_index[a], self.hex_index[b])
                    for a, b in sorted({*c.added, *c.removed})
                ),
                group_of[i],
            )
            for i, c in enumerate(r.terrain_changes)
        ]

    def placed(self, units: tuple[ir.PlacedUnit, ...]) -> str:
        items = []
        for pu in units:
            unit = self.units.index(pu.name)
            assigns = tuple_source(
                [f"({n!r}, {self.lambda_fn(v, f'{pu.name}_{n}')})" for n, v in pu.assigns]
            )
            items.append(tuple_source([str(unit), repr(pu.reduced), assigns]))
        return tuple_source(items)

    def scenario(self, sc: ir.Scenario) -> dict[str, object]:
        with self.within("scenario", sc.name):
            return self._scenario(sc)

    def _scenario(self, sc: ir.Scenario) -> dict[str, object]:
        values = []
        for sv in sc.values:
            index = self.optional_fn(sv.index, f"{sv.variable}_index")
            value = self.lambda_fn(sv.value, sv.variable)
            values.append(tuple_source([repr(sv.variable), index, value]))
        setup = []
        for i, entry in enumerate(sc.setup, 1):
            hexes = pyrepr(tuple(self.hex_index[h] for h in entry.hexes))
            cond = self.optional_fn(entry.condition, f"setup{i}_condition")
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
            "stacking": self.lambda_fn(sc.stacking, "stacking") if sc.stacking is not None else "",
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
        positional = [
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
        ]
        # The rest by keyword, only where it is not UnitSpec's default.
        keywords = {
            "morales": (pyrepr(u.morales), "()"),
            "rifle_strengths": (pyrepr(u.rifle_strengths), "()"),
            "formation": (pyrepr(u.formation or ""), "''"),
            "brigade": (pyrepr(u.brigade or ""), "''"),
            "nationality": (pyrepr(u.nationality or ""), "''"),
            "entry_turn": (str(entry.turn if entry else 0), "0"),
            "entry_hexes": (
                pyrepr(tuple(self.hex_index[h] for h in entry.at) if entry else ()),
                "()",
            ),
            "variable_entry": (pyrepr(bool(entry and entry.variable)), "False"),
            "commands": (self.optional_fn(u.commands, "commands", "unit", u.name), "None"),
        }
        return positional + [f"{k}={v}" for k, (v, blank) in keywords.items() if v != blank]

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


def is_hexes(e: ir.TExpr) -> bool:
    """A constant set of hexes (a zone, a list of hexes written in the rules)."""
    return isinstance(e, ir.Const) and e.type == "hexes"


def function_name(parts: tuple[str, ...]) -> str:
    """`close_combat__resolve__odds`: where a compiled function comes from, as a name."""
    name = "__".join(re.sub(r"\W+", "_", p).strip("_") for p in parts if p)
    if not name.isidentifier() or name[0].isdigit():
        raise ValueError(f"{name!r} is not an identifier")
    return name


# Aggregates over `X where C`, written as one generator (`members`: "e0 in X if C"):
# what they compute, without the tuple of the members `where` would make.
FUSED: dict[str, Callable[[str | None, str], str]] = {
    "sum": lambda body, members: f"sum({body} for {members})",
    "count": lambda body, members: (
        f"sum(1 for {members})" if body is None else f"sum(1 for {members} if {body})"
    ),
    "any": lambda body, members: (
        f"any(True for {members})" if body is None else f"any({body} for {members})"
    ),
    "all": lambda body, members: f"all({body} for {members})",
    "none": lambda body, members: f"(not any({body} for {members}))",
}


def define_name(name: str) -> str:
    """`define__may_attack`: the function of a rule file's `define may_attack`."""
    return function_name(("define", name))


# Unit values the generated code reads from the module's per-unit tables.
PRINTED_UNIT_ATTRS = frozenset({"side", "movement", "leader", "combat_unit"})


def per_unit(d: ir.Define) -> bool:
    """Whether a define of one unit reads nothing but that unit's printed values
    (`rifle_unit(u) = u.rifle == black or u.rifle == white`): it is then worked
    out once for every unit when the module is imported, and its calls look the
    value up (it reads a per-unit table with the unit, as the look-up does)."""
    if len(d.params) != 1 or d.params[0][1] != "unit":
        return False
    param = d.params[0][0]
    reads_unit = False

    def printed(e: ir.TExpr) -> bool:
        nonlocal reads_unit
        if isinstance(e, ir.Const):
            return e.type not in ELEMENT_TYPES and e.type not in ("hexes", "range")
        if isinstance(e, ir.Binding):
            return e.name == param
        if isinstance(e, ir.UnitAttr):
            reads_unit = reads_unit or isinstance(e.unit, ir.Binding)
            return (e.name in PRINTED_UNIT_ATTRS or e.name not in DIRECT_UNIT_ATTRS) and printed(
                e.unit
            )
        if isinstance(e, ir.Unary):
            return printed(e.operand)
        if isinstance(e, ir.Binary):
            plain = e.op not in ("/", "in", "not in") and e.type not in ELEMENT_TYPES
            return plain and printed(e.left) and printed(e.right)
        if isinstance(e, ir.Conditional):
            return printed(e.test) and printed(e.then) and printed(e.orelse)
        return False

    return printed(d.body) and reads_unit


def lines_source(lines: list[str]) -> str:
    """`lines_at('a.mst', (21, 22), 'b.mst', (5,))`: each instruction's rule-file line,
    its file written once per run."""
    runs: list[tuple[str, list[str]]] = []
    for where in lines:
        file, _, line = where.rpartition(":")
        if runs and runs[-1][0] == file:
            runs[-1][1].append(line)
        else:
            runs.append((file, [line]))
    parts = [f"{pyrepr(file)}, ({', '.join(ls)}{',' if len(ls) == 1 else ''})" for file, ls in runs]
    return f"lines_at({', '.join(parts)})"


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


def tuple_source(items: list[str]) -> str:
    """Python source of a tuple of already-written items."""
    return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"


def generate(rules: ir.Ruleset) -> dict[str, str]:
    """The files of the generated package, by name."""
    return Codegen(rules).render()
