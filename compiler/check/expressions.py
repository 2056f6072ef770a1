"""Type checking of expressions and statements: syntax tree in, typed IR out.

Names resolve in this order: the element of the innermost `where` or
aggregate (its attributes may be written bare: `units where not artillery`),
the frame's bindings, state variables, declared things (sides, terrain,
places, zones, units, tables, result codes) and parameterless definitions.
Calls resolve to definitions, aggregates or the engine's vocabulary. Every
error is reported with its span; checking goes on with an `error` type so one
mistake does not cascade into many.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, fields, is_dataclass
from fractions import Fraction
from typing import ClassVar

from compiler import ir
from compiler.check.names import IDENT
from compiler.check.props import BOOL_WORDS, TRUE_WORDS
from compiler.check.variables import enum_type
from compiler.map.hexmap import LABEL
from dsl import ast
from dsl.diagnostics import (
    BAD_HEX,
    BAD_VALUE,
    TYPE,
    UNKNOWN_NAME,
    Reporter,
    did_you_mean,
    hint_note,
)
from dsl.source import Span
from engine.vocabulary import (
    ELEMENT_TYPES,
    EVENTS,
    NAMED_TYPES,
    UNIT_ATTRIBUTES,
    VARIABLES,
    Lambda,
    Signature,
)

ERROR = "error"
NUMERIC = {"int", "number"}
AGGREGATES = {"sum", "count", "all", "any", "none", "max", "min", "highest", "lowest"}
COLLECTION_OF = {v: k for k, v in ELEMENT_TYPES.items()}
# The types that may hold `none` (no side, no unit, …).
NULLABLE = ("side", "unit", "hex", "code", "combat")
# What a table's columns are named by, as an expression type.
COLUMN_TYPES = {"odds": "odds", "number": "int", "name": "str"}
# A text with values: runs of text (braces doubled) and `{placeholders}`; a lone
# brace is a placeholder the checker refuses.
PLACEHOLDER = re.compile(r"((?:[^{}]|\{\{|\}\})+)|(\{[^{}]*\}|[{}])")


@dataclass
class Scope:
    """Names visible where an expression is written."""

    bindings: dict[str, str] = field(default_factory=dict)
    elements: list[str] = field(default_factory=list)  # element types, innermost last

    def child(self, **extra: str) -> Scope:
        return Scope({**self.bindings, **extra}, list(self.elements))


@dataclass(frozen=True, slots=True)
class Entity:
    """A declared thing an expression may name."""

    kind: str  # "side", "terrain", "hexside", "place", "zone", "unit", "table", "result", …
    type: str
    value: object


class Symbols:
    """Everything declared in a ruleset that expressions and statements refer to."""

    def __init__(self) -> None:
        self.entities: dict[str, Entity] = {}
        self.unit_attributes: dict[str, str] = dict(UNIT_ATTRIBUTES)
        self.hex_labels: set[str] = set()
        self.defines: dict[str, ast.Define] = {}
        self.define_types: dict[str, str] = {}
        self.procedures: dict[str, tuple[tuple[str, str], ...]] = {}
        self.procedure_results: dict[str, tuple[str, str]] = {}
        self.bags: dict[str, ir.Bag] = {}
        # What every result code is applied with: the parameters results declare.
        self.result_params: tuple[tuple[str, str], ...] = ()
        self.tables: dict[str, ir.Table] = {}
        self.modifiers: dict[str, tuple[tuple[str, str], ...]] = {}  # list -> params
        self.results: dict[str, str] = {}  # code -> result name
        self.variables: dict[str, ir.Variable] = {}
        self.turn_track: ir.TurnTrack | None = None
        self.terrain_attributes: dict[str, str] = {}
        self.hexside_attributes: dict[str, str] = {}
        self.levels: dict[str, ir.Levels] = {}
        self.vocabulary: dict[str, Signature] = {}
        self.check_define: Callable[[str], str] = lambda name: ERROR


class ExprChecker:
    """Checks expressions into typed IR. `_expr` looks up the check of each kind
    of expression by its node type in `_CHECKS`, and `binary` the check of each
    operator in `_OPERATORS` (both at the end of the class)."""

    def __init__(self, symbols: Symbols, reporter: Reporter) -> None:
        self.sym = symbols
        self.r = reporter
        self._temp = 0

    # ------------------------------------------------------------ helpers

    def error(self, span: Span, message: str, *notes: str) -> ir.TExpr:
        self.r.error(span, TYPE, message, *notes)
        return ir.Const(ERROR, span, None)

    def expect(self, e: ir.TExpr, expected: str | None, what: str) -> ir.TExpr:
        if expected is None or e.type == ERROR or compatible(e.type, expected):
            return e
        notes = []
        if e.type == "range":
            notes.append("a range such as 1..3 is not a value: test a value with `turn in 1..3`")
        return self.error(
            e.span, f"{what} should be {article(expected)}, not {article(e.type)}", *notes
        )

    def temp(self, prefix: str) -> str:
        self._temp += 1
        return f"_{prefix}{self._temp}"

    # ------------------------------------------------------------ expressions

    def expr(self, e: ast.Expr, scope: Scope, expected: str | None = None) -> ir.TExpr:
        out = self._expr(e, scope, expected)
        return self.expect(out, expected, "this")

    def _expr(self, e: ast.Expr, scope: Scope, expected: str | None) -> ir.TExpr:
        """The expression, typed; `expected` guides what a literal means (a hex label)."""
        check = self._CHECKS.get(type(e))
        if check is None:
            return self.error(e.span, f"{type(e).__name__.lower()} is not an expression here")
        return check(self, e, scope, expected)

    def number(self, e: ast.Number, scope: Scope, expected: str | None) -> ir.TExpr:
        if expected == "hex" and LABEL.match(e.text):
            if e.text not in self.sym.hex_labels:
                self.r.error(e.span, BAD_HEX, f"hex {e.text} is not on the map")
                return ir.Const(ERROR, e.span, None)
            return ir.Const("hex", e.span, e.text)
        if "." in e.text:
            return ir.Const("number", e.span, Fraction(e.text))
        return ir.Const("int", e.span, int(e.text))

    def string(self, e: ast.String, scope: Scope, expected: str | None) -> ir.TExpr:
        if expected == "str" and ("{" in e.value or "}" in e.value):
            return self.text(e, scope)
        return ir.Const("str", e.span, e.value)

    def text(self, e: ast.String, scope: Scope) -> ir.TExpr:
        """A text with values: `{name}` or `{name.attribute}` shows a value in
        scope; `{{` and `}}` are braces."""
        parts: list[str | ir.TExpr] = []
        for literal, placeholder in PLACEHOLDER.findall(e.value):
            if literal:
                parts.append(literal.replace("{{", "{").replace("}}", "}"))
                continue
            names = placeholder[1:-1].strip().split(".")
            if not all(IDENT.match(n) for n in names):
                self.r.error(
                    e.span,
                    BAD_VALUE,
                    f"{placeholder!r} is no value to show: "
                    "write `{name}` or `{name.attribute}`",
                    "a brace that is text is written twice: `{{` or `}}`",
                )
                continue
            node: ast.Expr = ast.Name(e.span, names[0])
            for attr in names[1:]:
                node = ast.Attr(e.span, node, attr)
            parts.append(self.expr(node, scope))
        return ir.Text("str", e.span, tuple(parts))

    def odds(self, e: ast.Odds, scope: Scope, expected: str | None) -> ir.TExpr:
        return ir.Const("odds", e.span, (e.attack, e.defend))

    def range_(self, e: ast.Range, scope: Scope, expected: str | None) -> ir.TExpr:
        """`turn in 1..2`, `roll in 5..`: bounds, either open."""
        low = int(e.low) if e.low is not None else None
        high = int(e.high) if e.high is not None else None
        return ir.Const("range", e.span, (low, high))

    def paren(self, e: ast.Paren, scope: Scope, expected: str | None) -> ir.TExpr:
        return self._expr(e.expr, scope, expected)

    def conditional(self, e: ast.Conditional, scope: Scope, expected: str | None) -> ir.TExpr:
        test = self.expr(e.test, scope, "bool")
        then = self._expr(e.then, scope, expected)
        orelse = self.expr(
            e.orelse, scope, then.type if then.type not in (ERROR, "none") else expected
        )
        typ = then.type if then.type != "none" else orelse.type
        return ir.Conditional(typ, e.span, test, then, orelse)

    def list_expr(self, e: ast.ListExpr, scope: Scope, expected: str | None) -> ir.TExpr:
        # `[0101, 0102]` where hexes are expected: hex labels, not numbers.
        inner = ELEMENT_TYPES.get(expected) if expected else None
        items = tuple(self._expr(i, scope, inner) for i in e.items)
        types = {i.type for i in items} - {ERROR}
        if len(types) > 1:
            return self.error(e.span, "a list holds values of one type")
        elem = types.pop() if types else "unit"
        return ir.ListOf(COLLECTION_OF.get(elem, f"list:{elem}"), e.span, items)

    # ------------------------------------------------------------ names

    def name(self, e: ast.Name, scope: Scope, expected: str | None = None) -> ir.TExpr:
        """A name, looked up in the order the module's docstring gives."""
        if e.id == "none" and expected in NAMED_TYPES:
            return ir.Const(expected, e.span, "")  # a unit of no brigade has the brigade ""
        for find in (self.element_name, self.bound_name, self.declared_name):
            found = find(e, scope)
            if found is not None:
                return found
        return self.unknown_name(e, scope, expected)

    def element_name(self, e: ast.Name, scope: Scope) -> ir.TExpr | None:
        """`it`, or inside `units where …` a unit's own attribute or variable, bare."""
        if not scope.elements:
            return None
        depth = len(scope.elements) - 1
        elem_type = scope.elements[-1]
        if e.id == "it":
            return ir.Element(elem_type, e.span, depth)
        if elem_type != "unit" or e.id in scope.bindings:
            return None
        element = ir.Element("unit", e.span, depth)
        var = self.sym.variables.get(e.id)
        if var is not None and var.scope == "unit":
            return ir.VarAt(var.type, e.span, e.id, element)
        if e.id in self.sym.unit_attributes:
            return ir.UnitAttr(self.sym.unit_attributes[e.id], e.span, element, e.id)
        return None

    def bound_name(self, e: ast.Name, scope: Scope) -> ir.TExpr | None:
        """A binding, one of the game's variables, or a word (`none`, `yes`, `track`)."""
        n = e.id
        if n in scope.bindings:
            return ir.Binding(scope.bindings[n], e.span, n)
        if n in VARIABLES:
            return ir.Var(VARIABLES[n][0], e.span, n)
        if n == "none":
            return ir.Const("none", e.span, None)
        if n in BOOL_WORDS:
            return ir.Const("bool", e.span, n in TRUE_WORDS)
        if n == "track" and self.sym.turn_track is not None:
            return ir.Const("track", e.span, None)
        return None

    def declared_name(self, e: ast.Name, scope: Scope) -> ir.TExpr | None:
        """A state variable, a declared thing, a definition or query without parameters."""
        n = e.id
        var = self.sym.variables.get(n)
        if var is not None:
            return self.variable(e, var)
        if n in self.sym.entities:
            ent = self.sym.entities[n]
            return ir.Const(ent.type, e.span, ent.value)
        if n in self.sym.defines and not self.sym.defines[n].params:
            return ir.DefineCall(self.sym.check_define(n), e.span, n, ())
        sig = self.sym.vocabulary.get(n)
        if sig is not None and sig.kind == "query" and not sig.params:
            return ir.Query(sig.returns, e.span, n, ())
        return None

    def variable(self, e: ast.Name, var: ir.Variable) -> ir.TExpr:
        """A state variable by its bare name: only a global one has one value."""
        n = e.id
        if var.scope:
            where = f"{n}[{var.scope}]" if var.scope in ("side", "hex") else f"unit.{n}"
            return self.error(e.span, f"{n!r} has one value per {var.scope}: write {where}")
        return ir.Var(var.type, e.span, n)

    def unknown_name(self, e: ast.Name, scope: Scope, expected: str | None) -> ir.TExpr:
        hint = did_you_mean(e.id, self.names_in_scope(scope, expected))
        self.r.error(
            e.span,
            UNKNOWN_NAME,
            f"unknown name {e.id!r}",
            *hint_note(hint),
            *self.available_note(scope),
        )
        return ir.Const(ERROR, e.span, None)

    def names_in_scope(self, scope: Scope, expected: str | None) -> dict[str, str]:
        """Every name an expression may use here, with its type; only those of
        the `expected` type when one is expected, so that "did you mean" never
        offers a side where a hex is wanted."""
        names = self.declared_names()
        if scope.elements:
            names["it"] = scope.elements[-1]
            if scope.elements[-1] == "unit":
                names |= self.sym.unit_attributes
        names |= scope.bindings
        if expected is None or expected == "any":
            return names
        return {k: t for k, t in names.items() if compatible(t, expected)}

    def declared_names(self) -> dict[str, str]:
        """The names an expression may use anywhere, with their types."""
        sym = self.sym
        names: dict[str, str] = {k: v[0] for k, v in VARIABLES.items()}
        names |= {k: v.type for k, v in sym.variables.items() if not v.scope}
        names |= {k: ent.type for k, ent in sym.entities.items()}
        names |= {k: t for k, t in sym.define_types.items() if not sym.defines[k].params}
        return names | {"yes": "bool", "no": "bool", "true": "bool", "false": "bool"}

    def available_note(self, scope: Scope) -> list[str]:
        """The names bound where the expression is written (parameters, `let`s,
        loop variables, the condition's own names such as `hex`)."""
        local = sorted(scope.bindings)
        if scope.elements:
            local.append("it")
        if not local:
            return ["no names are bound here: only declared names and the game's variables"]
        return [f"names available here: {', '.join(local)} (and every declared name)"]

    # ------------------------------------------------------------ attributes and indexes

    def attr(self, e: ast.Attr, scope: Scope, expected: str | None = None) -> ir.TExpr:
        value = self._expr(e.value, scope, None)
        if value.type == ERROR:
            return value
        if value.type == "track":
            return self.track_data(e)
        if value.type in ("terrain", "hexside"):
            return self.terrain_attr(e, value)
        if value.type.startswith("enum:") and value.type[5:] in self.sym.levels:
            return self.level_data(e, value)
        if value.type == "unit":
            return self.unit_attr(e, value)
        if value.type.startswith("cell:"):
            return self.cell_part(e, value)
        return self.error(e.span, f"{article(value.type)} has no attribute {e.name!r}")

    def unit_attr(self, e: ast.Attr, unit: ir.TExpr) -> ir.TExpr:
        """`u.strength`: a unit's attribute, or its value of a per-unit variable."""
        var = self.sym.variables.get(e.name)
        if var is not None and var.scope == "unit":
            return ir.VarAt(var.type, e.span, e.name, unit)
        if e.name not in self.sym.unit_attributes:
            hint = did_you_mean(e.name, self.sym.unit_attributes)
            return self.error(e.span, f"units have no attribute {e.name!r}", *hint_note(hint))
        return ir.UnitAttr(self.sym.unit_attributes[e.name], e.span, unit, e.name)

    def cell_part(self, e: ast.Attr, cell: ir.TExpr) -> ir.TExpr:
        """`result.retreat`: one part of a table cell."""
        table = self.sym.tables.get(cell.type.split(":", 1)[1])
        if table is None:
            return ir.Const(ERROR, e.span, None)
        if e.name not in table.parts:
            parts = ", ".join(table.parts)
            return self.error(e.span, f"cells of {table.name!r} have parts {parts}, not {e.name!r}")
        i = table.parts.index(e.name)
        return ir.CellPart(part_type(table.kinds[i]), e.span, cell, i)

    def track_data(self, e: ast.Attr) -> ir.TExpr:
        """`track.heat`: this turn's value on the turn track (no/0 where a turn is silent)."""
        track = self.sym.turn_track
        assert track is not None
        found = [t.data[e.name] for t in track.turns if e.name in t.data]
        if not found:
            keys = sorted({k for t in track.turns for k in t.data})
            hint = did_you_mean(e.name, keys)
            return self.error(
                e.span,
                f"no turn on the track gives {e.name!r}",
                *hint_note(hint),
            )
        typ = _data_type(found[0])
        if any(_data_type(v) != typ for v in found):
            return self.error(e.span, f"turns give {e.name!r} as values of different kinds")
        return ir.Query(typ, e.span, "turn_data", (ir.Const("str", e.span, e.name),))

    def terrain_attr(self, e: ast.Attr, value: ir.TExpr) -> ir.TExpr:
        """`terrain(h).defend_drm`: a value the terrain (or hexside) declaration gives."""
        attrs = (
            self.sym.terrain_attributes if value.type == "terrain" else self.sym.hexside_attributes
        )
        if e.name not in attrs:
            hint = did_you_mean(e.name, attrs)
            return self.error(
                e.span,
                f"no {value.type} declares {e.name!r}",
                *hint_note(hint),
            )
        return ir.Query(
            attrs[e.name], e.span, f"{value.type}_attr", (value, ir.Const("str", e.span, e.name))
        )

    def level_data(self, e: ast.Attr, value: ir.TExpr) -> ir.TExpr:
        levels = self.sym.levels[value.type[5:]]
        keys = set(levels.levels[0].data) if levels.levels else set()
        if e.name not in keys:
            hint = did_you_mean(e.name, keys)
            return self.error(
                e.span,
                f"{levels.name!r} levels give no {e.name!r}",
                *hint_note(hint),
            )
        typ = _data_type(levels.levels[0].data[e.name])
        return ir.Query(
            typ,
            e.span,
            "level_data",
            (ir.Const("str", e.span, levels.name), value, ir.Const("str", e.span, e.name)),
        )

    def index(self, e: ast.Index, scope: Scope, expected: str | None = None) -> ir.TExpr:
        """`army_morale[east_army]`: a per-side (or per-unit, per-hex) variable at an index."""
        name = e.value.id if isinstance(e.value, ast.Name) else None
        var = self.sym.variables.get(name) if name else None
        if var is None or not var.scope:
            return self.error(e.span, "only per-side, per-unit and per-hex variables take [index]")
        index = self.expr(e.index, scope, var.scope)
        return ir.VarAt(var.type, e.span, var.name, index)

    # ------------------------------------------------------------ operators

    def unary(self, e: ast.Unary, scope: Scope, expected: str | None = None) -> ir.TExpr:
        if e.op == "not":
            operand = self.expr(e.operand, scope, "bool")
            return ir.Unary("bool", e.span, "not", operand)
        operand = self.expr(e.operand, scope, "int")
        return ir.Unary(operand.type if operand.type != ERROR else "int", e.span, "-", operand)

    def binary(self, e: ast.Binary, scope: Scope, expected: str | None = None) -> ir.TExpr:
        check = self._OPERATORS.get(e.op, ExprChecker.arithmetic)
        return check(self, e, scope)

    def where(self, e: ast.Binary, scope: Scope) -> ir.TExpr:
        """`units where strength > 2`: the elements for which the condition holds."""
        coll = self._expr(e.left, scope, None)
        if coll.type == ERROR:
            return coll
        if coll.type not in ELEMENT_TYPES:
            return self.error(
                e.left.span, f"`where` filters a collection, not {article(coll.type)}"
            )
        cond = self.expr(e.right, self.element_scope(scope, coll.type), "bool")
        return ir.Where(coll.type, e.span, coll, len(scope.elements), cond)

    def element_scope(self, scope: Scope, collection: str) -> Scope:
        """The scope inside `where` or an aggregate: `it` is the collection's element."""
        return Scope(dict(scope.bindings), [*scope.elements, ELEMENT_TYPES[collection]])

    def logic(self, e: ast.Binary, scope: Scope) -> ir.TExpr:
        left = self.expr(e.left, scope, "bool")
        right = self.expr(e.right, scope, "bool")
        return ir.Binary("bool", e.span, e.op, left, right)

    def membership(self, e: ast.Binary, scope: Scope) -> ir.TExpr:
        """`x in collection`, `turn in 1..3` (and `not in`)."""
        right = self._expr(e.right, scope, None)
        if right.type == "range":
            left = self.expr(e.left, scope, "int")
            return ir.Binary("bool", e.span, e.op, left, right)
        elem = ELEMENT_TYPES.get(right.type)
        if right.type != ERROR and elem is None:
            return self.error(
                e.right.span,
                f"`{e.op}` needs a collection on its right, not {article(right.type)}",
            )
        left = self.expr(e.left, scope, elem)
        return ir.Binary("bool", e.span, e.op, left, right)

    def comparison(self, e: ast.Binary, scope: Scope) -> ir.TExpr:
        op = e.op
        left = self._expr(e.left, scope, None)
        right = self._expr(e.right, scope, left.type if left.type != ERROR else None)
        if "range" in (left.type, right.type):
            return self.error(
                e.span,
                f"`{op}` compares values; a range such as 1..3 is not a value",
                "test whether a value lies in a range with `in`: `turn in 1..2`",
            )
        right = self.expect(
            right, left.type if left.type not in (ERROR, "int") else None, "the right side"
        )
        wrong = self.incomparable(e, left, right)
        if wrong is not None:
            return wrong
        return ir.Binary("bool", e.span, op, left, right)

    def incomparable(self, e: ast.Binary, left: ir.TExpr, right: ir.TExpr) -> ir.TExpr | None:
        """The error of a comparison that cannot be made, if it cannot."""
        if left.type == "int" and right.type not in NUMERIC | {ERROR}:
            return self.error(e.span, f"cannot compare a number with {article(right.type)}")
        if e.op not in ("==", "!=") and left.type not in NUMERIC | {ERROR, "odds"}:
            return self.error(e.span, f"`{e.op}` compares numbers, not {article(left.type)}")
        if left.type != ERROR and same_expression(left, right):
            return self.error(
                e.span,
                "this compares a value with itself",
                "inside `where`, a name bound here (a parameter, a `let`) hides the "
                "unit's own value of that name: write `side(it)`, `it.strength`, …",
            )
        return None

    def arithmetic(self, e: ast.Binary, scope: Scope) -> ir.TExpr:
        """Arithmetic on whole numbers or halves (1/2 VP); `+` also joins two
        collections of the same kind."""
        if e.op == "+":
            left = self._expr(e.left, scope, None)
            if left.type in ELEMENT_TYPES:
                right = self.expr(e.right, scope, left.type)
                return ir.Binary(left.type, e.span, "+", left, right)
            left = self.expect(left, "number", "this")
        else:
            left = self.expr(e.left, scope, "number")
        right = self.expr(e.right, scope, "number")
        typ = "number" if "number" in (left.type, right.type) or e.op == "/" else "int"
        return ir.Binary(typ, e.span, e.op, left, right)

    # ------------------------------------------------------------ calls

    def call(self, e: ast.Call, scope: Scope, expected: str | None = None) -> ir.TExpr:
        name = e.func
        if name in self.sym.defines:
            return self.define_call(e, scope)
        if name in AGGREGATES:
            return self.aggregate(e, scope)
        if name == "lookup":
            return self.lookup(e, scope)
        if name in self.sym.levels:
            return self.level_of(e, scope)
        sig = self.sym.vocabulary.get(name)
        if sig is None:
            return self.unknown_function(e)
        if sig.kind != "query":
            return self.error(e.span, f"{name!r} changes the game; it is a statement, not a value")
        args = self.arguments(e.span, name, sig.params, e.args, e.keywords, scope)
        return ir.Query(sig.returns, e.span, name, tuple(a for _n, a in args))

    def level_of(self, e: ast.Call, scope: Scope) -> ir.TExpr:
        """`morale_level(side)`: the level a side stands at on a level track."""
        name = e.func
        if len(e.args) != 1 or e.keywords:
            return self.error(e.span, f"{name}(side) takes one side")
        side = self.expr(e.args[0], scope, "side")
        return ir.Query(f"enum:{name}", e.span, "level_of", (ir.Const("str", e.span, name), side))

    def unknown_function(self, e: ast.Call) -> ir.TExpr:
        queries = {n for n, s in self.sym.vocabulary.items() if s.kind == "query"}
        hint = did_you_mean(e.func, set(self.sym.defines) | AGGREGATES | queries)
        self.r.error(e.span, UNKNOWN_NAME, f"unknown function {e.func!r}", *hint_note(hint))
        return ir.Const(ERROR, e.span, None)

    def arguments(
        self,
        span: Span,
        name: str,
        params: tuple[tuple[str, str | Lambda], ...],
        args: tuple[ast.Expr, ...],
        keywords: tuple[tuple[str, ast.Expr], ...],
        scope: Scope,
        optional: frozenset[str] = frozenset(),
    ) -> list[tuple[str, ir.TExpr]]:
        """Match positional and keyword arguments to parameters and check each."""
        given = self.given(span, name, params, args, keywords)
        out = []
        for pname, ptype in params:
            if pname not in given:
                if pname not in optional:
                    self.error(span, f"{name} needs its {pname!r} argument")
                continue
            arg = given[pname]
            if isinstance(ptype, Lambda):
                inner = scope.child(**dict(ptype.bindings))
                out.append((pname, self.expr(arg, inner, ptype.returns)))
            else:
                out.append((pname, self.expr(arg, scope, ptype)))
        return out

    def given(
        self,
        span: Span,
        name: str,
        params: tuple[tuple[str, str | Lambda], ...],
        args: tuple[ast.Expr, ...],
        keywords: tuple[tuple[str, ast.Expr], ...],
    ) -> dict[str, ast.Expr]:
        """The argument given for each parameter, positionally or by keyword."""
        names = [p for p, _t in params]
        if len(args) > len(params):
            self.error(span, f"{name} takes {len(params)} argument(s), not {len(args)}")
        given: dict[str, ast.Expr] = dict(zip(names, args, strict=False))
        for kw, arg in keywords:
            if kw not in names:
                hint = did_you_mean(kw, names)
                self.error(arg.span, f"{name} has no parameter {kw!r}", *hint_note(hint))
            elif kw in given:
                self.error(arg.span, f"{kw!r} given twice")
            else:
                given[kw] = arg
        return given

    def lookup(self, e: ast.Call, scope: Scope) -> ir.TExpr:
        """`lookup(table, row, column)`: read a table that is not rolled on."""
        if e.keywords or len(e.args) not in (2, 3):
            return self.error(
                e.span, "lookup(table, row, column) — the column only when the table has columns"
            )
        t = e.args[0]
        table = self.sym.tables.get(t.id) if isinstance(t, ast.Name) else None
        if table is None:
            return self.error(t.span, "lookup's first argument is a table")
        row = self.expr(e.args[1], scope, _row_type(table))
        want = COLUMN_TYPES.get(table.column_kind)
        if want is None and len(e.args) == 3:
            return self.error(e.args[2].span, f"table {table.name!r} has one column")
        args = [ir.Const("table", t.span, table.name), row]
        if want is not None:
            if len(e.args) != 3:
                return self.error(e.span, f"table {table.name!r} has columns: give the column too")
            args.append(self.lookup_column(e.args[2], want, scope))
        return ir.Query(cell_type(table), e.span, "lookup", tuple(args))

    def lookup_column(self, arg: ast.Expr, want: str, scope: Scope) -> ir.TExpr:
        """The column looked up: of the table's kind, or a name (a brigade, a
        value of an enumeration) where columns are named."""
        column = self.expr(arg, scope)
        named = want == "str" and (column.type in NAMED_TYPES or column.type.startswith("enum:"))
        if column.type != "column" and not named:
            return self.expect(column, want, "the column")
        return column

    def define_call(self, e: ast.Call, scope: Scope) -> ir.TExpr:
        d = self.sym.defines[e.func]
        returns = self.sym.check_define(e.func)
        params = tuple((p.name, p.type) for p in d.params)
        args = self.arguments(e.span, e.func, params, e.args, e.keywords, scope)
        return ir.DefineCall(returns, e.span, e.func, tuple(a for _n, a in args))

    def aggregate(self, e: ast.Call, scope: Scope) -> ir.TExpr:
        """`sum`, `count`, `all`, … over a collection; the expression is read per element."""
        op = e.func
        coll = self.aggregated(e, scope)
        if coll.type == ERROR:
            return coll
        inner = self.element_scope(scope, coll.type)
        depth = len(scope.elements)
        if op in ("sum", "max", "min", "highest", "lowest"):
            return self.valued_aggregate(e, coll, inner, depth)
        body = self.expr(e.args[1], inner, "bool") if len(e.args) == 2 else None
        if body is None and op in ("all", "none"):
            return self.error(e.span, f"{op}(collection, condition) needs the condition")
        return ir.Aggregate("int" if op == "count" else "bool", e.span, op, coll, depth, body)

    def aggregated(self, e: ast.Call, scope: Scope) -> ir.TExpr:
        """The collection an aggregate runs over (an error when the call is not
        `op(collection)` or `op(collection, expression)`)."""
        if e.keywords:
            return self.error(e.span, f"{e.func} takes no keyword arguments")
        if not 1 <= len(e.args) <= 2:
            return self.error(e.span, f"{e.func} takes a collection and an optional expression")
        coll = self._expr(e.args[0], scope, None)
        if coll.type not in ELEMENT_TYPES and coll.type != ERROR:
            return self.error(
                e.args[0].span, f"{e.func} works on a collection, not {article(coll.type)}"
            )
        return coll

    def valued_aggregate(self, e: ast.Call, coll: ir.TExpr, inner: Scope, depth: int) -> ir.TExpr:
        """`sum(units, strength)` adds up (`max`, `min` likewise); `highest(units,
        strength)` ranks by the value and gives the element."""
        op = e.func
        ranks = op in ("highest", "lowest")
        if len(e.args) != 2:
            what = "the value to rank by" if ranks else "the value to add up"
            return self.error(e.span, f"{op}(collection, value) needs {what}")
        body = self.expr(e.args[1], inner, "int")
        if ranks:
            return ir.Aggregate(ELEMENT_TYPES[coll.type], e.span, op, coll, depth, body)
        typ = body.type if body.type != ERROR else "int"
        return ir.Aggregate(typ, e.span, op, coll, depth, body)

    _CHECKS: ClassVar[dict[type, Callable[..., ir.TExpr]]] = {
        ast.Number: number,
        ast.String: string,
        ast.Name: name,
        ast.Odds: odds,
        ast.Range: range_,
        ast.Paren: paren,
        ast.Call: call,
        ast.Attr: attr,
        ast.Unary: unary,
        ast.Binary: binary,
        ast.Conditional: conditional,
        ast.ListExpr: list_expr,
        ast.Index: index,
    }
    _OPERATORS: ClassVar[dict[str, Callable[..., ir.TExpr]]] = {
        "where": where,
        "and": logic,
        "or": logic,
        "in": membership,
        "not in": membership,
        "==": comparison,
        "!=": comparison,
        "<": comparison,
        "<=": comparison,
        ">": comparison,
        ">=": comparison,
    }


def _data_type(value: object) -> str:
    """The expression type of a turn's or a level's data value."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, tuple):
        return "range"
    return "str"


def same_expression(a: object, b: object) -> bool:
    """Two expressions that are the same but for where they are written."""
    if type(a) is not type(b):
        return False
    if isinstance(a, tuple):
        return len(a) == len(b) and all(same_expression(x, y) for x, y in zip(a, b, strict=True))  # type: ignore[arg-type]
    if is_dataclass(a):
        return all(
            same_expression(getattr(a, f.name), getattr(b, f.name))
            for f in fields(a)
            if f.name != "span"
        )
    return a == b


def part_type(kind: str) -> str:
    """The expression type of a table cell part of this kind: a brigade for `kind
    brigade`, an enumeration for `kind VARIABLE`."""
    if kind in NAMED_TYPES:
        return kind
    return {"code": "code", "number": "int", "name": "str"}.get(kind) or enum_type(kind)


def _row_type(table: ir.Table) -> str:
    """What a table's rows are looked up by: a number, a result code or a name."""
    if table.row_kind == "range":
        return "int"
    return "code" if table.row_key == "result" else "str"


def cell_type(table: ir.Table) -> str:
    """What a roll on (or look-up in) the table gives: the part, or the whole cell."""
    return part_type(table.kinds[0]) if len(table.parts) == 1 else f"cell:{table.name}"


def compatible(actual: str, expected: str) -> bool:
    """A value of type `actual` may stand where `expected` is wanted."""
    return (
        actual == expected
        or (actual, expected) in _WIDENINGS
        or actual.startswith("list:")
        or expected == "any"
    )


# Values that may stand for another type: `none` for a side (unit, hex, …),
# a marker's name for a string, a whole number for a number.
_WIDENINGS = {("none", t) for t in NULLABLE} | {("marker", "str"), ("int", "number")}


def article(typ: str) -> str:
    names = {
        "int": "a whole number",
        "number": "a number",
        "bool": "a condition (true or false)",
        "str": "a string",
        "side": "a side",
        "unit": "a unit",
        "units": "a collection of units",
        "hex": "a hex",
        "hexes": "a collection of hexes",
        "terrain": "a terrain type",
        "hexside": "a hexside feature",
        "combat": "a close combat",
        "combats": "a collection of close combats",
        "table": "a table",
        "column": "a table column",
        "code": "a result code",
        "odds": "odds",
        "none": "nothing",
    }
    if typ.startswith("cell:"):
        return f"a cell of table {typ[5:]!r}"
    if typ.startswith("enum:"):
        return f"a value of {typ[5:]!r}"
    return names.get(typ, typ)


__all__ = ["ERROR", "EVENTS", "ExprChecker", "Scope", "Symbols"]
