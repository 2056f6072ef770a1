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
from typing import Any, ClassVar

from jinja2 import Environment, FileSystemLoader, StrictUndefined

from compiler import ir, restriction_parts
from compiler.backends.modifier_labels import ANY_RESULT, call_labels, labelled_parameters
from compiler.backends.pysource import (
    pyident,
    pyrepr,
    pyrepr_wrapped,
    record_source,
    wrap_source,
)
from compiler.check.terrain_changes import change_groups
from compiler.check.variables import EACH_SIDE as EACH_SIDE_NAME
from compiler.goals import goals as victory_goals
from compiler.load import PROJECT_ROOT
from compiler.map.board import board_patches, build_board
from dsl.source import Span
from engine import instructions as ins
from engine.board_data import FILE as BOARD_FILE
from engine.board_data import board_text
from engine.errors import BadInput
from engine.rules import EACH_SIDE, HEX_RESTRICTIONS, STEP_LABEL, TerrainChangeSpec
from engine.vocabulary import ELEMENT_TYPES, NAMED_TYPES

TEMPLATES = Path(__file__).with_name("templates")

# Queries of engine/queries.py the generated code does itself, each argument used
# once: what they return, without the Python calls (rule expressions ask them at
# every step considered).
WRITTEN_OUT = {
    "side": "UNIT_SIDE[{0}]",  # the unit's printed side, as `u.side` reads it
    "enemy": "(1 - {0})",
    "units_at": "s.units_by_hex().get({0}, ())",
    "rule_on": "s.game.switch_on[{0}]",
}
# `hex_of(u)` (and `u.hex`) written out when the unit is a name, which it reads twice.
HEX_OF = "(s.unit_hex[{0}] if s.unit_status[{0}] == ON_MAP else -1)"

DIRECT_UNIT_ATTRS = {
    "side": "UNIT_SIDE[{u}]",
    "formation": "UNITS[{u}].formation",
    "brigade": "UNITS[{u}].brigade",
    "nationality": "UNITS[{u}].nationality",
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
    "on_map": "(s.unit_status[{u}] == ON_MAP)",
}
# Generated lines are wrapped at this width (the artifact's test allows 200).
WIDTH = 150
# Labels and the instruction they mark share a line this long at most (indented by 16).
LABELS_WIDTH = WIDTH - 16
# Lists of hexes this long or longer (and every zone) are module constants, not literals.
HEX_SET_MIN = 4
# Things the rules name that the engine numbers: the prefix of their module constants
# (`UNIT__FIRST_FOOT = 0`), in the order the module writes them.
NAMED_INDEX = {
    "side": "SIDE",
    "unit": "UNIT",
    "hex": "HEX",
    "terrain": "TERRAIN",
    "hexside": "HEXSIDE",
    "table": "TABLE",
    "code": "RESULT",
}
# The module constant of "no unit, side or hex" (`none` in the rules).
NONE_INDEX = "NONE_INDEX"
# Constants written as Python literals.
PLAIN_CONSTANTS = frozenset({"int", "bool", "str", "number", "odds"})
GAME_VARIABLES = frozenset({"first_turn", "last_turn"})


@dataclass
class Env:
    """How names in an expression become Python: bindings by dict or by parameter."""

    bindings: str = "b"  # "b": b['name']; "args": a_name


@dataclass
class _Function:
    name: str
    params: str
    body: list[str]
    where: str
    group: str  # the procedure (or trigger, result, ...) it belongs to: written together
    cite: str  # the § of the rule it comes from ("" for none)


@dataclass(frozen=True, slots=True)
class _Label:
    """A jump target: written as `Label('if_2_else')` where it is marked, and by its
    name in the jumps to it (`engine.instructions.assemble` resolves them)."""

    name: str


@dataclass
class _Assembler:
    """Instructions and labels of one procedure, in order.

    An instruction is an instruction record type (`engine/instructions.py`)
    and its operands by name, each Python source or a `_Label`; labels are
    never spliced into text, so no string can be mistaken for one.
    """

    code: list[_Label | tuple[type[ins.Instruction], dict[str, str | _Label]]] = field(
        default_factory=list
    )
    lines: list[str] = field(default_factory=list)
    steps: set[str] = field(default_factory=set)
    comments: dict[_Label, str] = field(default_factory=dict)  # a step's §, by its label
    loop_ends: list[_Label] = field(default_factory=list)  # innermost last, for `break`
    counts: dict[str, int] = field(default_factory=dict)

    def labels(self, kind: str, *parts: str) -> list[_Label]:
        """New labels for the parts of one statement: `if_2_else`, `if_2_end`."""
        n = self.counts[kind] = self.counts.get(kind, 0) + 1
        return [_Label(f"{kind}_{n}_{part}") for part in parts]

    def mark(self, label: _Label, comment: str = "") -> None:
        self.code.append(label)
        if comment:
            self.comments[label] = comment

    def emit(self, where: str, record: type[ins.Instruction], /, **operands: str | _Label) -> None:
        # Every operand in order; one with a default may be left off at the end.
        names, optional = ins.operand_names(record), ins.optional_operands(record)
        given = tuple(operands)
        if given != names[: len(given)] or not set(names[len(given) :]) <= optional:
            raise ValueError(f"{record.__name__} takes {names}, not {operands}")
        self.code.append((record, operands))
        self.lines.append(where)

    def kinds(self) -> set[type[ins.Instruction]]:
        return {item[0] for item in self.code if isinstance(item, tuple)}

    def source(self) -> list[str]:
        """Each instruction as the source of its record, after the labels that mark it
        (`Label('if_2_else'), Exec(combat__fire__set_odds),`), as an assembler writes
        `label: instruction`, a step's § after it; labels that mark the end on lines of
        their own."""
        marked = {item for item in self.code if isinstance(item, _Label)}
        out: list[str] = []
        labels: list[_Label] = []
        for item in self.code:
            if isinstance(item, _Label):
                labels.append(item)
                continue
            out += self._labelled(labels, self._record(*item, marked))
            labels = []
        return out + self._labelled(labels, "")

    def _labelled(self, labels: list[_Label], record: str) -> list[str]:
        """Lines of `labels`, `record` on the last (there `wrap_source` may break
        it), each line ending with its comma, the § of a step they begin after it."""
        lines = joined([f"Label({x.name!r})" for x in labels], LABELS_WIDTH)
        if record:
            lines[-1:] = [", ".join([*lines[-1:], record])]
        comments = [self.comments[x] for x in labels if x in self.comments]
        lines = [f"{line}," for line in lines]
        if not comments:
            return lines
        comment = f"# {comments[-1]}"
        if len(lines[-1]) + 2 + len(comment) > LABELS_WIDTH:  # a line of its own, before
            return [comment, *lines]
        lines[-1] += f"  {comment}"
        return lines

    def _record(
        self, kind: type[ins.Instruction], operands: dict[str, str | _Label], marked: set[_Label]
    ) -> str:
        return record_source(
            kind.__name__, {k: self._operand(v, marked) for k, v in operands.items()}
        )

    @staticmethod
    def _operand(value: str | _Label, marked: set[_Label]) -> str:
        if not isinstance(value, _Label):
            return value
        if value not in marked:
            raise ValueError(f"a jump to {value.name}, which marks no place")
        return repr(value.name)


def secretly_bound(rules: ir.Ruleset) -> frozenset[str]:
    """The names a face-down answer binds anywhere in the rules' procedures and triggers
    (`ask secretly … into`, `choose secretly`)."""
    answers = ir.nodes_of((rules.procedures, rules.triggers), ir.Ask | ir.Choose)
    return frozenset(n.var for n in answers if n.mode == "secretly")


class Codegen:
    """Writes one ruleset's engine package. Its parts, in file order: the named
    numbers of the rules' things (`named`), compiled functions (`function`),
    expressions by IR node type (`expr`, `EXPRESSIONS`), statements as
    instructions by node type (`lower`, `STATEMENTS`), procedures, the other
    declarations as records, and the module (`render`)."""

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
        self.board = build_board(rules) if rules.map else None
        self.hex_index: dict[str, int] = {}
        if self.board is not None:
            self.hex_index = {label: i for i, label in enumerate(self.board.labels)}
            for name, hexes in self.board.zones.items():
                self.hex_sets.setdefault(hexes, f"ZONE_{name.upper()}")
        self.index = self._indices()
        self.sources = declaration_sources(rules)
        # The parameters whose number a roll's modifier reads, by body (a call passing
        # one names it: modifier_labels.py).
        self.labelled = labelled_parameters(rules)
        # The named constants the code reads: name -> (kind, index).
        self.constants: dict[str, tuple[str, int]] = {}
        # Defines of one unit that read only its printed values: define name -> the
        # module constant of their value per unit, which their calls look up.
        self.unit_tables: dict[str, str] = {
            d.name: f"DEFINE__{d.name.upper()}" for d in rules.defines if per_unit(d)
        }
        # What a text with values may read that some side may not (`_text`).
        self.secret_variables = {v.name for v in rules.variables if v.secret}
        self.secretly_bound = secretly_bound(rules)

    def _indices(self) -> dict[str, dict[str, int]]:
        """The engine's number of each thing the rules name, by kind and name."""
        r = self.rules
        kinds = {
            "side": r.sides,
            "unit": r.units,
            "terrain": r.terrain,
            "hexside": r.hexside_features,
            "table": r.tables,
            "code": r.results,
        }
        out = {kind: {x.name: i for i, x in enumerate(items)} for kind, items in kinds.items()}
        out["hex"] = self.hex_index
        return out

    def named(self, kind: str, name: str) -> str:
        """The module constant of a side, unit, hex, … of the rules (`UNIT__FIRST_FOOT`),
        written once at the top of the module for the code to read by name."""
        value = self.index[kind][name]
        constant = f"{NAMED_INDEX[kind]}__{constant_name(str(name))}"
        if self.constants.setdefault(constant, (kind, value)) != (kind, value):
            raise ValueError(f"two {kind}s are both written {constant}")
        return constant

    def named_constants(self) -> list[tuple[str, str, int]]:
        """(kind, constant, index) of every named constant the code reads, kind by kind."""
        order = list(NAMED_INDEX)
        found = sorted(self.constants.items(), key=lambda c: (order.index(c[1][0]), c[1][1]))
        return [(kind, name, value) for name, (kind, value) in found]

    # ------------------------------------------------------------ functions

    def where(self, span: Span) -> str:
        """A rule file's line, named the same from any working directory (the
        generated code, and so the rules hash, must not depend on it)."""
        return f"{stable_file_name(span.file)}:{span.line}"

    def position(self, span: Span) -> str:
        """A rule file's line and column (as `where`): where an instruction's
        statement starts, which an error raised by it names."""
        return f"{self.where(span)}:{span.column}"

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
        name = self._new_name(function_name((*self.context, role)))
        # Written together: a procedure's functions, or a result's or trigger's.
        kind = self.context[:1]
        group = "__".join(self.context[:2] if kind in (("result",), ("trigger",)) else kind)
        self.functions.append(
            _Function(name, params, body, self.where(span), group, self.context_cite())
        )
        self.emitted[key] = name
        return name

    def context_cite(self) -> str:
        """The § of the declaration the code written now comes from: the step of a
        procedure, else the procedure, else the modifier list, restriction, … ("" when
        it cites none)."""
        if len(self.context) < 2:
            return ""
        outer, inner = self.context[:2]
        for key in (f"step:{outer}:{inner}", f"procedure:{outer}", f"{outer}:{inner}"):
            if self.sources.get(key, ("", ""))[1]:
                return self.sources[key][1]
        return ""

    def _new_name(self, name: str) -> str:
        """`name`, or `name_2`, `name_3`, … when it is taken."""
        n = 1
        found = name
        while found in self.names:
            n += 1
            found = f"{name}_{n}"
        self.names.add(found)
        return found

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

    def restriction(self, x: ir.Restriction) -> dict[str, str]:
        """A restriction's fields; a hex restriction's condition also in its unit's and
        its hex's parts (compiler/restriction_parts.py), asked apart by movement."""
        unit_part = hex_part = None
        if x.kind in HEX_RESTRICTIONS and x.condition is not None:
            unit_part, hex_part = restriction_parts.split(x.condition)
        fields = {
            "name": pyrepr(x.name),
            "title": pyrepr(x.title),
            "kind": pyrepr(x.kind),
            "zone": pyrepr(x.zone),
            "condition": self.optional_fn(x.condition, "condition", "restriction", x.name),
            "until_turn": pyrepr(x.until_turn),
            "rule": pyrepr(x.rule),
            "value": self.optional_fn(x.value, "value", "restriction", x.name),
            "unit_part": self.optional_fn(unit_part, "unit_part", "restriction", x.name),
            "hex_part": self.optional_fn(hex_part, "hex_part", "restriction", x.name),
        }
        return without_defaults(fields, {"value": "None", "unit_part": "None", "hex_part": "None"})

    # ------------------------------------------------------------ expressions

    def const(self, e: ir.Const) -> str:
        t, v = e.type, e.value
        if t in NAMED_INDEX:
            return self.named(t, v)
        if t == "hexes":
            return self.hexes(v)
        if t == "none":
            return NONE_INDEX
        if t in PLAIN_CONSTANTS or t.startswith("enum:") or t in NAMED_TYPES:
            return pyrepr(v)
        raise ValueError(f"no constant of type {t}")

    def hexes(self, labels: tuple[str, ...]) -> str:
        """A list of hexes the rules write: a few by name, a longer one (or a zone's)
        as the module constant of the list in id order."""
        hexes = frozenset(self.hex_index[h] for h in labels)
        if len(hexes) < HEX_SET_MIN and hexes not in self.hex_sets:
            by_id = sorted(set(labels), key=self.hex_index.__getitem__)
            return tuple_source([self.named("hex", h) for h in by_id])
        name = f"{self.hex_set(hexes)}_LIST"
        self.hex_lists.add(name)
        return name

    def hex_set(self, hexes: frozenset[int]) -> str:
        """The module constant of a set of hexes: its zone's, or a new `HEXES_N`."""
        if hexes not in self.hex_sets:
            unnamed = sum(name.startswith("HEXES_") for name in self.hex_sets.values())
            self.hex_sets[hexes] = f"HEXES_{unnamed + 1}"
        return self.hex_sets[hexes]

    def expr(self, e: ir.TExpr, env: Env) -> str:
        """An expression as Python source, by the writer of its node type."""
        write = self.EXPRESSIONS.get(type(e))
        if write is None:
            raise ValueError(f"cannot compile {type(e).__name__}")
        return write(self, e, env)

    def _const(self, e: ir.Const, env: Env) -> str:
        return self.const(e)

    def _binding(self, e: ir.Binding, env: Env) -> str:
        return pyident("a", e.name) if env.bindings == "args" else f"b[{e.name!r}]"

    def _element(self, e: ir.Element, env: Env) -> str:
        return f"e{e.depth}"

    def _var(self, e: ir.Var, env: Env) -> str:
        return f"s.game.{e.name}" if e.name in GAME_VARIABLES else f"s.vars[{e.name!r}]"

    def _var_at(self, e: ir.VarAt, env: Env) -> str:
        return f"s.vars[{e.name!r}][{self.expr(e.index, env)}]"

    def _query(self, e: ir.Query, env: Env) -> str:
        if e.func == "lookup":
            return self._lookup(e, env)
        if e.func in WRITTEN_OUT:
            return WRITTEN_OUT[e.func].format(*(self.expr(a, env) for a in e.args))
        if e.func == "hex_of":
            return self._hex_of(e.args[0], env)
        return f"q.{e.func}(s{self.arguments(e.args, env)})"

    def _lookup(self, e: ir.Query, env: Env) -> str:
        """`lookup(table, row[, column])`: a row by result code is looked up by its name."""
        table, row = self.expr(e.args[0], env), self.expr(e.args[1], env)
        if e.args[1].type == "code":
            row = f"q.result_name(s, {row})"
        if len(e.args) == 3:
            return f"q.lookup(s, {table}, {row}, {self.column(e.args[0], e.args[2], env)})"
        return f"q.lookup(s, {table}, {row})"

    def arguments(self, args: tuple[ir.TExpr, ...], env: Env) -> str:
        """`, a, b`: arguments after the state."""
        return "".join(f", {self.expr(a, env)}" for a in args)

    def _define_call(self, e: ir.DefineCall, env: Env) -> str:
        if e.define in self.unit_tables:
            return f"{self.unit_tables[e.define]}[{self.expr(e.args[0], env)}]"
        return f"{define_name(e.define)}(s{self.arguments(e.args, env)})"

    def _hex_of(self, unit: ir.TExpr, env: Env) -> str:
        """Where a unit is (`q.hex_of`), written out when the unit is a frame's name (read
        twice); in a collection's element (`it`) the call keeps the line short, which
        keeps the generated package compact (tests/backends/test_artifact.py)."""
        u = self.expr(unit, env)
        if isinstance(unit, ir.Binding):
            return HEX_OF.format(u)
        return f"q.hex_of(s, {u})"

    def _unit_attr(self, e: ir.UnitAttr, env: Env) -> str:
        if e.name == "hex":
            return self._hex_of(e.unit, env)
        u = self.expr(e.unit, env)
        if e.name in DIRECT_UNIT_ATTRS:
            return DIRECT_UNIT_ATTRS[e.name].format(u=u)
        return f"UNIT_PROPS[{e.name!r}][{u}]"

    def _cell_part(self, e: ir.CellPart, env: Env) -> str:
        return f"{self.expr(e.cell, env)}[{e.index}]"

    def _where(self, e: ir.Where, env: Env) -> str:
        v = f"e{e.depth}"
        collection, test = self.expr(e.collection, env), self.expr(e.condition, env)
        return f"tuple({v} for {v} in {collection} if {test})"

    def _unary(self, e: ir.Unary, env: Env) -> str:
        operand = self.expr(e.operand, env)
        return f"(not {operand})" if e.op == "not" else f"(-{operand})"

    def _binary(self, e: ir.Binary, env: Env) -> str:
        if e.op in ("in", "not in"):
            return self._membership(e, env)
        left, right = self.expr(e.left, env), self.expr(e.right, env)
        if e.op == "/":
            return f"q.divide({left}, {right})"
        if e.op == "+" and e.type in ELEMENT_TYPES:
            return f"q.union({left}, {right})"
        return f"({left} {e.op} {right})"

    def _membership(self, e: ir.Binary, env: Env) -> str:
        """`x in …`: in a range of numbers, in a set of hexes the module names, in a list."""
        left = self.expr(e.left, env)
        if e.right.type == "range":
            test = f"q.in_range({left}, {self.expr(e.right, env)})"
            return test if e.op == "in" else f"(not {test})"
        if is_hexes(e.right):
            hexes = frozenset(self.hex_index[h] for h in e.right.value)
            if len(hexes) >= HEX_SET_MIN or hexes in self.hex_sets:
                return f"({left} {e.op} {self.hex_set(hexes)})"
        return f"({left} {e.op} {self.expr(e.right, env)})"

    def _conditional(self, e: ir.Conditional, env: Env) -> str:
        then, test, orelse = (self.expr(x, env) for x in (e.then, e.test, e.orelse))
        return f"({then} if {test} else {orelse})"

    def _text(self, e: ir.Text, env: Env) -> str:
        """A text with values: the literal runs as Python literals, each value
        shown by its type (engine.describe.value_text). A value read from a secret
        variable or a face-down answer makes it a guarded text (`e.guarded_text`):
        the side that may not read that value reads the text without it."""
        parts = []
        guarded = False
        for p in e.parts:
            if isinstance(p, str):
                parts.append(pyrepr(p))
                continue
            shown = f"e.value_text(s, {pyrepr(p.type)}, {self.expr(p, env)})"
            variables, bindings = self.secret_reads(p, env)
            if variables or bindings:
                guarded = True
                shown = f"({shown}, {pyrepr(variables)}, {pyrepr(bindings)})"
            parts.append(shown)
        if not parts:
            return "''"
        if guarded:
            frame = "b" if env.bindings == "b" else "{}"
            return f"e.guarded_text(s, {frame}, ({', '.join(parts)},))"
        return f"''.join(({', '.join(parts)},))"

    def secret_reads(self, e: ir.TExpr, env: Env) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """The secret variables an expression reads, and the names it reads that a
        face-down answer may have bound (in a procedure's frame)."""
        variables = {
            n.name for n in ir.nodes_of(e, ir.Var | ir.VarAt) if n.name in self.secret_variables
        }
        bindings = {n.name for n in ir.nodes_of(e, ir.Binding) if n.name in self.secretly_bound}
        return tuple(sorted(variables)), tuple(sorted(bindings)) if env.bindings == "b" else ()

    def _list_of(self, e: ir.ListOf, env: Env) -> str:
        return (
            pyrepr(())
            if not e.items
            else "(" + ", ".join(self.expr(i, env) for i in e.items) + ",)"
        )

    def column(self, table: ir.TExpr, column: ir.TExpr, env: Env) -> str:
        """A column index: computed ones are indices already; keys are looked up."""
        if column.type == "column":
            return self.expr(column, env)
        return f"q.column_of(s, {self.expr(table, env)}, {self.expr(column, env)})"

    def _aggregate(self, e: ir.Aggregate, env: Env) -> str:
        inner = e.collection
        if isinstance(inner, ir.Where) and inner.depth == e.depth and e.op in FUSED:
            return self._fused(e, inner, env)
        parts = {"v": f"e{e.depth}", "coll": self.expr(e.collection, env)}
        if e.body is None and e.op in AGGREGATES_OF_MEMBERS:
            return AGGREGATES_OF_MEMBERS[e.op].format(**parts)
        if e.op not in AGGREGATES:
            raise ValueError(e.op)
        body = self.expr(e.body, env) if e.body is not None else None
        return AGGREGATES[e.op].format(body=body, **parts)

    def _fused(self, e: ir.Aggregate, inner: ir.Where, env: Env) -> str:
        """Over `X where C`: one generator over X, no tuple of the members made first."""
        source, test = self.expr(inner.collection, env), self.expr(inner.condition, env)
        members = f"e{e.depth} in {source} if {test}"
        if e.body is None and e.op in FUSED_OF_MEMBERS:
            return FUSED_OF_MEMBERS[e.op].format(members=members)
        body = self.expr(e.body, env) if e.body is not None else None
        return FUSED[e.op].format(body=body, members=members)

    EXPRESSIONS: ClassVar[dict[type, Callable[..., str]]] = {
        ir.Const: _const,
        ir.Binding: _binding,
        ir.Element: _element,
        ir.Var: _var,
        ir.VarAt: _var_at,
        ir.Query: _query,
        ir.DefineCall: _define_call,
        ir.UnitAttr: _unit_attr,
        ir.CellPart: _cell_part,
        ir.Where: _where,
        ir.Aggregate: _aggregate,
        ir.Unary: _unary,
        ir.Binary: _binary,
        ir.Conditional: _conditional,
        ir.ListOf: _list_of,
        ir.Text: _text,
    }

    # ------------------------------------------------------------ statements

    def lower_body(self, stmts: tuple[ir.TStmt, ...], asm: _Assembler) -> None:
        for st in stmts:
            self.lower(st, asm)

    def lower(self, st: ir.TStmt, asm: _Assembler) -> None:
        """A statement as instructions, by the writer of its node type."""
        write = self.STATEMENTS.get(type(st))
        if write is None:
            raise ValueError(f"cannot lower {type(st).__name__}")
        write(self, st, asm, self.position(st.span))

    def effect_fn(self, line: str, span: Span, role: str) -> str:
        """A compiled block of one effect."""
        return self.function("s, b", [line], span, role)

    def _let(self, st: ir.Let, asm: _Assembler, w: str) -> None:
        asm.emit(w, ins.Let, name=repr(st.name), fn=self.lambda_fn(st.value, f"let_{st.name}"))

    def _set_var(self, st: ir.SetVar, asm: _Assembler, w: str) -> None:
        line = f"e.set_var(s, {st.name!r}, {self.expr(st.value, Env())})"
        asm.emit(w, ins.Exec, fn=self.effect_fn(line, st.span, f"set_{st.name}"))

    def _set_var_at(self, st: ir.SetVarAt, asm: _Assembler, w: str) -> None:
        index, value = self.expr(st.index, Env()), self.expr(st.value, Env())
        line = f"e.set_at(s, {st.name!r}, {index}, {value})"
        asm.emit(w, ins.Exec, fn=self.effect_fn(line, st.span, f"set_{st.name}"))

    def _effect(self, st: ir.Effect, asm: _Assembler, w: str) -> None:
        line = f"e.{st.func}(s{self.arguments(st.args, Env())})"
        asm.emit(w, ins.Exec, fn=self.effect_fn(line, st.span, st.func))

    def _if(self, st: ir.If, asm: _Assembler, w: str) -> None:
        else_, end = asm.labels("if", "else", "end")
        asm.emit(w, ins.JumpIfNot, test=self.lambda_fn(st.test, "if"), target=else_)
        self.lower_body(st.body, asm)
        asm.emit(w, ins.Jump, target=end)
        asm.mark(else_)
        self.lower_body(st.orelse, asm)
        asm.mark(end)

    def _repeat(self, st: ir.Repeat, asm: _Assembler, w: str) -> None:
        top, end = asm.labels("repeat", "top", "end")
        asm.mark(top)
        if st.test is not None:
            asm.emit(w, ins.JumpIfNot, test=self.lambda_fn(st.test, "while"), target=end)
        self.loop_body(st.body, end, asm)
        asm.emit(w, ins.Jump, target=top)
        asm.mark(end)

    def loop_body(self, body: tuple[ir.TStmt, ...], end: _Label, asm: _Assembler) -> None:
        """A loop's body, where `break` jumps to `end`."""
        asm.loop_ends.append(end)
        self.lower_body(body, asm)
        asm.loop_ends.pop()

    def _for_each(self, st: ir.ForEach, asm: _Assembler, w: str) -> None:
        rest = repr(f"_for_{st.var}")
        top, end = asm.labels(f"for_{st.var}", "top", "end")
        asm.emit(w, ins.ForStart, rest=rest, iterable=self.lambda_fn(st.iterable, f"each_{st.var}"))
        asm.mark(top)
        asm.emit(w, ins.JumpIfEmpty, rest=rest, end=end)
        if st.chooser is None:
            asm.emit(w, ins.ForTake, var=repr(st.var), rest=rest)
        else:
            asm.emit(
                w,
                ins.Choose,
                var=repr(st.var),
                options=f"Bound({rest})",
                chooser=self.lambda_fn(st.chooser, f"each_{st.var}_chooser"),
                kind=repr(choice_kind(st.elem_type)),
                prompt=pyrepr(choice_prompt(st.var, st.elem_type, "the next")),
                mode="''",
            )
            asm.emit(w, ins.ForDrop, var=repr(st.var), rest=rest)
        self.loop_body(st.body, end, asm)
        asm.emit(w, ins.Jump, target=top)
        asm.mark(end)

    def _break(self, st: ir.Break, asm: _Assembler, w: str) -> None:
        asm.emit(w, ins.Jump, target=asm.loop_ends[-1])

    def _reveal(self, st: ir.Reveal, asm: _Assembler, w: str) -> None:
        asm.emit(w, ins.Reveal, names=pyrepr(st.names))

    def _draw(self, st: ir.Draw, asm: _Assembler, w: str) -> None:
        asm.emit(w, ins.Draw, bag=repr(st.bag), into=repr(st.into))

    def _roll(self, st: ir.Roll, asm: _Assembler, w: str) -> None:
        if not st.table:
            natural = {"natural": repr(st.total)} if st.total else {}
            asm.emit(w, ins.RollDie, into=repr(st.into), modifiers=pyrepr(st.modifiers), **natural)
            return
        column = "None"
        if st.column is not None:
            const = ir.Const("table", st.span, st.table)
            body = f"return {self.column(const, st.column, Env())}"
            column = self.function("s, b", [body], st.span, f"{st.table}_column")
        asm.emit(
            w,
            ins.Roll,
            table=self.named("table", st.table),
            column=column,
            modifiers=pyrepr(st.modifiers),
            into=repr(st.into),
            total=pyrepr(st.total),
            **({"natural": repr(st.natural)} if st.natural else {}),
        )

    def _choose(self, st: ir.Choose, asm: _Assembler, w: str) -> None:
        asm.emit(
            w,
            ins.Choose,
            var=repr(st.var),
            options=self.lambda_fn(st.options, f"{st.var}_options"),
            chooser=self.lambda_fn(st.chooser, f"{st.var}_chooser"),
            kind=repr(choice_kind(st.elem_type)),
            prompt=pyrepr(choice_prompt(st.var, st.elem_type, "the")),
            mode=repr(st.mode),
        )

    def _ask(self, st: ir.Ask, asm: _Assembler, w: str) -> None:
        no, end = asm.labels("ask", "no", "end")
        chooser = self.lambda_fn(st.chooser, f"{st.var.lstrip('_')}_chooser")
        question = self.lambda_fn(plain_text(st.question), f"{st.var.lstrip('_')}_question")
        secretly = {"mode": repr(st.mode)} if st.mode else {}
        asm.emit(w, ins.Ask, chooser=chooser, question=question, var=repr(st.var), **secretly)
        asm.emit(w, ins.JumpIfNot, test=f"Bound({st.var!r})", target=no)
        self.lower_body(st.yes, asm)
        asm.emit(w, ins.Jump, target=end)
        asm.mark(no)
        self.lower_body(st.no, asm)
        asm.mark(end)

    def _apply_result(self, st: ir.ApplyResult, asm: _Assembler, w: str) -> None:
        result = self.lambda_fn(st.result, "result")
        args = self.args_fn(st.args, st.span, "result")
        labels = self.labels(ANY_RESULT, st.args)
        asm.emit(w, ins.ApplyResult, result=result, args=args, **labels)

    def _call_proc(self, st: ir.CallProc, asm: _Assembler, w: str) -> None:
        args = self.args_fn(st.args, st.span, st.proc)
        labels = self.labels(st.proc, st.args)
        asm.emit(w, ins.Call, procedure=repr(st.proc), args=args, into=repr(st.into), **labels)

    def labels(self, callee: str, args: tuple[tuple[str, ir.TExpr], ...]) -> dict[str, str]:
        """The `labels` operand of a call whose arguments become a roll's modifiers
        (none when none do)."""
        named, passed = call_labels(self.labelled, callee, args)
        if not named and not passed:
            return {}
        return {"labels": f"Labels({pyrepr(named)}, {pyrepr(passed)})"}

    def _call_prim(self, st: ir.CallPrim, asm: _Assembler, w: str) -> None:
        hooks = [f"{n!r}: {self.lambda_fn(v, f'{st.prim}_{n}')}" for n, v in st.lambdas]
        args = self.args_fn(st.args, st.span, st.prim)
        asm.emit(
            w, ins.Prim, primitive=repr(st.prim), args=args, lambdas="{" + ", ".join(hooks) + "}"
        )

    def _skip_to(self, st: ir.SkipTo, asm: _Assembler, w: str) -> None:
        asm.emit(w, ins.Jump, target=step_label(st.step))

    def _return(self, st: ir.Return, asm: _Assembler, w: str) -> None:
        asm.emit(w, ins.Return)

    def _end_phase(self, st: ir.EndPhase, asm: _Assembler, w: str) -> None:
        asm.emit(w, ins.EndPhase)

    def _end_game(self, st: ir.EndGame, asm: _Assembler, w: str) -> None:
        asm.emit(w, ins.EndGame)

    STATEMENTS: ClassVar[dict[type, Callable[..., None]]] = {
        ir.Let: _let,
        ir.SetVar: _set_var,
        ir.SetVarAt: _set_var_at,
        ir.Effect: _effect,
        ir.If: _if,
        ir.ForEach: _for_each,
        ir.Repeat: _repeat,
        ir.Break: _break,
        ir.Reveal: _reveal,
        ir.Draw: _draw,
        ir.Roll: _roll,
        ir.Choose: _choose,
        ir.Ask: _ask,
        ir.ApplyResult: _apply_result,
        ir.CallProc: _call_proc,
        ir.CallPrim: _call_prim,
        ir.SkipTo: _skip_to,
        ir.Return: _return,
        ir.EndPhase: _end_phase,
        ir.EndGame: _end_game,
    }

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
            if step.rule != "!":
                with self.within(*(context or (proc.name, step.name))):
                    self.lower_step(step, asm)
        return {
            "name": proc.name,
            "title": proc.title,
            "kind": proc.kind,
            "params": tuple(p for p, _t in proc.params),
            "result": proc.result[0] if proc.result else "",
            "code": asm.source(),
            "kinds": asm.kinds(),
            "types": dict(sorted(proc.bindings.items())),
            "lines": lines_source(asm.lines),
        }

    def lower_step(self, step: ir.Step, asm: _Assembler) -> None:
        """A step's instructions, behind its rule switch if a rule patched it. A step a
        rule replaces comes twice, each version behind its switch: its label (for saves
        and `skip to`) marks the first, which falls through to the other when its
        switch says so."""
        if step.name not in asm.steps:
            asm.steps.add(step.name)
            asm.mark(step_label(step.name), self.context_cite())
        if not step.rule:
            self.lower_body(step.body, asm)
            return
        (end,) = asm.labels(f"{step.name}_switched", "end")
        on = not step.rule.startswith("!")
        rule = step.rule.lstrip("!")
        asm.emit(
            self.position(step.span), ins.JumpUnlessSwitch, rule=repr(rule), on=repr(on), target=end
        )
        self.lower_body(step.body, asm)
        asm.mark(end)

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

    def procedures(self) -> list[dict[str, object]]:
        """The rules' procedures, then the bodies of results and triggers as procedures."""
        r = self.rules
        out = [self.procedure(p) for p in r.procedures]
        for res in r.results:
            if res.body:
                name = f"result:{res.name}"
                context = ("result", res.name)
                out.append(
                    self.body_procedure(name, res.title, res.body, res.bindings, res.span, context)
                )
        for trig in r.triggers:
            name = f"trigger:{trig.name}"
            context = ("trigger", trig.name)
            out.append(
                self.body_procedure(name, trig.title, trig.body, trig.bindings, trig.span, context)
            )
        return out

    # ------------------------------------------------------------ declarations

    def defines(self) -> list[dict[str, str]]:
        """Each `define` as a function, or as the name of an earlier one that says the same."""
        # The define written so, by body and parameters (by their number alone when the
        # body reads none of them: defines are called with positional arguments).
        written: dict[tuple[str | int, str], str] = {}
        named: dict[str, str] = {}  # each define written so far -> the function it is
        out = []
        for d in self.rules.defines:
            params = "s" + "".join(f", {pyident('a', p)}" for p, _t in d.params)
            body = self.expr(d.body, Env(bindings="args"))
            name = define_name(d.name)
            named[name] = self._same_define(d, named) or written.setdefault(
                (define_signature(d, params, body), body), name
            )
            out.append(
                {
                    "name": name,
                    "params": params,
                    "body": body,
                    "where": self.where(d.span),
                    "title": d.title,
                    "same_as": named[name],
                    "cite": self.sources[f"define:{d.name}"][1],
                }
            )
        return out

    @staticmethod
    def _same_define(d: ir.Define, named: dict[str, str]) -> str | None:
        """The function of the earlier define that `d` only calls with its own
        parameters, in order (it is that define, named again)."""
        called = d.body if isinstance(d.body, ir.DefineCall) else None
        if called is None or define_name(called.define) not in named:
            return None
        passed = [a.name if isinstance(a, ir.Binding) else None for a in called.args]
        return named[define_name(called.define)] if passed == [p for p, _t in d.params] else None

    def modifiers(self) -> list[dict[str, object]]:
        out = []
        for ml in self.rules.modifiers:
            items = []
            for i, m in enumerate(ml.modifiers, 1):
                with self.within("modifiers", ml.name):
                    amount = self.lambda_fn(m.amount, f"{i}_amount")
                    cond = self.optional_fn(m.condition, f"{i}_if")
                items.append((m.label, amount, cond))
            out.append({"name": ml.name, "title": ml.title, "items": items})
        return out

    def triggers(self) -> list[dict[str, object]]:
        return [
            {
                "name": t.name,
                "title": t.title,
                "event": t.event,
                "condition": self.optional_fn(t.condition, "condition", "trigger", t.name),
                "once": t.once,
                "rule": t.rule,
            }
            for t in self.rules.triggers
        ]

    def concealments(self) -> list[dict[str, object]]:
        return [
            {
                "name": c.name,
                "observer": self.named("side", c.observer),
                "condition": self.optional_fn(c.condition, "condition", "conceal", c.name),
                "rule": c.rule,
            }
            for c in self.rules.concealments
        ]

    def exits(self) -> list[dict[str, object]]:
        """Where units may leave the map: each exit's hexes as a set of hex ids."""
        return [
            {
                "name": x.name,
                "title": x.title,
                "hexes": self.hex_set(frozenset(self.hex_index[h] for h in x.hexes)),
                "cost": x.cost,
                "condition": self.optional_fn(x.condition, "condition", "exit", x.name),
                "rule": x.rule,
            }
            for x in self.rules.exits
        ]

    def impossibles(self) -> list[dict[str, object]]:
        return [
            {
                "name": x.name,
                "title": x.title,
                "condition": self.optional_fn(x.condition, "condition", "impossible", x.name),
                "rule": x.rule,
                "cite": cite_text(x.prov),
            }
            for x in self.rules.impossibles
        ]

    def victories(self) -> list[dict[str, object]]:
        return [
            {
                "name": v.name,
                "title": v.title,
                "level": v.level,
                "winner": self.named("side", v.winner),
                "condition": self.optional_fn(v.condition, "condition", "victory", v.name),
                "scenarios": v.scenarios,
                "check": v.check,
            }
            for v in self.rules.victories
        ]

    def victory_hexes(self) -> tuple[int, ...]:
        r = self.rules
        if r.map is None:
            return ()
        return tuple(sorted({self.hex_index[pl.hex] for pl in r.map.places if pl.victory}))

    def goals(self) -> list[str]:
        """What each way of winning reads (compiler/goals.py), as `GoalSpec`s: only
        those that read exits, hexes or per-side variables."""
        side = self.index["side"]
        return [
            f"GoalSpec(winner={side[g.winner]}, scenarios={g.scenarios!r}, "
            f"exits={tuple((side[x], d) for x, d in sorted(g.exits.items()))!r}, "
            f"hexes={tuple(sorted(self.hex_index[h] for h in g.hexes if h in self.hex_index))!r}, "
            f"variables={tuple((v, side[x], d) for (v, x), d in sorted(g.variables.items()))!r}"
            f"{f', rule={g.rule!r}' if g.rule else ''})"
            for g in victory_goals(self.rules)
            if g.exits or g.hexes or g.variables
        ]

    def bot_weights(self) -> list[dict[str, object]]:
        return [
            {
                "name": w.name,
                "scenarios": w.scenarios,
                "terms": w.terms,
                "variables": w.variables,
                "terrain": w.terrain,
                "objectives": tuple(
                    (self.hex_index[label], self.index["side"][side] if side else -1, 1.0)
                    for label, side in w.objectives
                    if label in self.hex_index
                ),
            }
            for w in self.rules.bot_weights
        ]

    def terrain_changes(self) -> list[TerrainChangeSpec]:
        """The map changes of the rules, each with the hexes its marker goes on."""
        r = self.rules
        if r.map is None:
            return []
        group_of = {
            i: g
            for g, members in enumerate(change_groups(r.terrain_changes, r.map, r.hexside_features))
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
                tuple(
                    (
                        at.place,
                        tuple(self.hex_index[h] for h in at.hexes),
                        tuple(
                            (self.hex_index[a], self.hex_index[b])
                            for a, b in sorted({*at.added, *at.removed})
                        ),
                    )
                    for at in c.places
                ),
            )
            for i, c in enumerate(r.terrain_changes)
        ]

    def placed(self, units: tuple[ir.PlacedUnit, ...]) -> str:
        items = []
        for pu in units:
            assigns = tuple_source(
                [f"({n!r}, {self.lambda_fn(v, f'{pu.name}_{n}')})" for n, v in pu.assigns]
            )
            items.append(tuple_source([self.named("unit", pu.name), repr(pu.reduced), assigns]))
        return tuple_source(items)

    def scenario(self, sc: ir.Scenario) -> dict[str, object]:
        with self.within("scenario", sc.name):
            return {
                "name": sc.name,
                "title": sc.title,
                "turns": sc.turns,
                "values": tuple_source([self.scenario_value(sv) for sv in sc.values]),
                "orders": {
                    t: tuple(self.index["side"][x] for x in order) for t, order in sc.orders.items()
                },
                "rules_off": sc.rules_off,
                "rules_on": sc.rules_on,
                "printed": sc.printed_setup,
                "setup": [self.placement(i, entry) for i, entry in enumerate(sc.setup, 1)],
                "reinforcements": [self.reinforcement(e) for e in sc.reinforcements],
                "stacking": self.optional_fn(sc.stacking, "stacking"),
            }

    def scenario_value(self, sv: ir.StartValue) -> str:
        index = self.optional_fn(sv.index, f"{sv.variable}_index")
        value = self.lambda_fn(sv.value, sv.variable)
        return tuple_source([repr(sv.variable), index, value])

    def placement(self, i: int, entry: ir.SetupEntry) -> str:
        return record_source(
            "PlacementSpec",
            {
                "hexes": pyrepr(tuple(self.hex_index[h] for h in entry.hexes)),
                "condition": self.optional_fn(entry.condition, f"setup{i}_condition"),
                "chosen": repr(entry.chosen),
                "units": self.placed(entry.units),
            },
        )

    def reinforcement(self, e: ir.ScenarioEntry) -> str:
        hexes = pyrepr(tuple(self.hex_index[h] for h in e.hexes))
        return tuple_source([str(e.turn), hexes, self.placed(e.units)])

    def variable(self, v: ir.Variable) -> dict[str, str]:
        initial = v.initial
        if v.type in ("side", "unit") and isinstance(initial, str):
            initial = self.index[v.type][initial]
        return {
            "name": pyrepr(v.name),
            "scope": pyrepr(v.scope),
            "type": pyrepr(v.type),
            "initial": pyrepr(initial),
            "reset": pyrepr(v.reset or ""),
            "title": pyrepr(v.title),
            "announce": pyrepr(v.announce),
            **self.secret_of(v),
        }

    def secret_of(self, v: ir.Variable) -> dict[str, str]:
        """Who reads a secret variable, and an enumeration's values for the bots to
        guess among (left out for a public one, as most are)."""
        if not v.secret:
            return {}
        reader = EACH_SIDE if v.secret == EACH_SIDE_NAME else self.index["side"][v.secret]
        return {"secret": str(reader), **({"values": pyrepr(v.values)} if v.values else {})}

    def unit_spec(self, u: ir.Unit) -> dict[str, str]:
        """A unit's fields, those at `UnitSpec`'s default left out."""
        types = [t.name for t in self.rules.unit_types]
        fields = {
            "name": pyrepr(u.name),
            "title": pyrepr(u.title),
            "short": pyrepr(u.short),
            "side": self.named("side", u.side),
            "kind": pyrepr(u.kind),
            "type": str(types.index(u.type) if u.type is not None else -1),
            "strengths": pyrepr(u.strengths),
            "movement": str(u.movement),
            "setup": str(self.hex_index.get(u.setup, -1)),
            "props": pyrepr(u.props),
            "morales": pyrepr(u.morales),
            "rifle_strengths": pyrepr(u.rifle_strengths),
            "formation": pyrepr(u.formation or ""),
            "brigade": pyrepr(u.brigade or ""),
            "nationality": pyrepr(u.nationality or ""),
            **self.entry(u.entry),
            "commands": self.optional_fn(u.commands, "commands", "unit", u.name),
        }
        return without_defaults(fields, UNIT_DEFAULTS)

    def entry(self, entry: ir.Entry | None) -> dict[str, str]:
        """A reinforcement's turn and hexes of entry, and whether they may vary."""
        if entry is None:
            return {}
        return {
            "entry_turn": str(entry.turn),
            "entry_hexes": pyrepr(tuple(self.hex_index[h] for h in entry.at)),
            "variable_entry": pyrepr(bool(entry.variable)),
        }

    def attributes(self) -> dict[str, object]:
        """Every declared unit attribute with its type's blank (no, 0, ""): the value of
        a unit whose type does not give it either."""
        blank = {"bool": False, "int": 0, "str": ""}
        return {a.name: blank[a.type] for a in sorted(self.rules.attributes, key=lambda a: a.name)}

    def table(self, t: ir.Table) -> dict[str, object]:
        def part(kind: str, value: object) -> object:
            if kind == "code":
                return self.index["code"][value] if value is not None else -1
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

    # ------------------------------------------------------------ the module

    def render(self) -> dict[str, str]:
        """The files of the package: `rules.py`, `__init__.py` with the rules hash, and
        the board's tables."""
        env = template_environment()
        context = self.template_context()
        template = env.get_template("rules.py.jinja")
        rules_py = template.render({**context, "fractions": False})
        if "Fraction(" in rules_py:  # a number of the rules is a fraction: import the type
            rules_py = template.render({**context, "fractions": True})
        rules_py = wrap_source(rules_py, WIDTH)
        board = board_text(self.board) if self.board is not None else ""
        digest = hashlib.sha256(f"{rules_py}\0{board}".encode()).hexdigest()
        init_py = env.get_template("init.py.jinja").render({"rules": self.rules, "digest": digest})
        files = {"rules.py": rules_py, "__init__.py": init_py}
        if self.board is not None:
            files[BOARD_FILE] = board
        return files

    def template_context(self) -> dict[str, object]:
        """What `rules.py.jinja` writes. The parts that compile expressions come first,
        in the order their functions are written; the named constants they read last."""
        r = self.rules
        procedures = self.procedures()
        context = {
            "procedures": procedures,
            "instructions": instruction_names(procedures),
            "defines": self.defines(),
            "modifiers": self.modifiers(),
            "triggers": self.triggers(),
            "restrictions": [self.restriction(x) for x in r.restrictions],
            "exits": self.exits(),
            "concealments": self.concealments(),
            "impossibles": self.impossibles(),
            "victories": self.victories(),
            "scenarios": [self.scenario(sc) for sc in r.scenarios],
            "unit_specs": [self.unit_spec(u) for u in r.units],
            "variables": [self.variable(v) for v in r.variables],
            "bot_weights": self.bot_weights(),
            "goals": self.goals(),
            **self.data_context(),
        }
        context["constants"] = self.named_constants()
        context["hex_sets"] = [(name, hexes) for hexes, name in self.hex_sets.items()]
        return context

    def unit_table_functions(self) -> list[dict[str, str]]:
        return [
            {"table": table, "function": define_name(name)}
            for name, table in self.unit_tables.items()
        ]

    def bag_seen_by(self) -> dict[str, tuple[int, ...]]:
        """Who may look into each bag."""
        return {b.name: tuple(self.index["side"][x] for x in b.seen_by) for b in self.rules.bags}

    def data_context(self) -> dict[str, object]:
        """What the template writes as data, compiling no expression."""
        r = self.rules
        return {
            "rules": r,
            "sides": r.sides,
            "unit_types": r.unit_types,
            "attributes": self.attributes(),
            "terrain": r.terrain,
            "features": r.hexside_features,
            "board": self.board,
            "hex_sets_by": self.hex_sets,
            "hex_lists": self.hex_lists,
            "tables": [self.table(t) for t in r.tables],
            "results": r.results,
            "unit_tables": self.unit_table_functions(),
            "functions": self.functions,
            "victory_hexes": self.victory_hexes(),
            "victory_levels": {lv.name: lv.utility for lv in r.victory_levels},
            "switches": r.switches,
            "bags": {b.name: tuple(sorted(b.contents)) for b in r.bags},
            "bag_seen_by": self.bag_seen_by(),
            "markers": tuple(sorted(m.name for m in r.markers)),
            "terrain_changes": self.terrain_changes(),
            "board_patches": board_patches(r),
            "turn_track": turn_track(r),
            "levels": [(lv.name, lv.variable, lv.levels) for lv in r.levels],
            "sources": self.sources,
        }


# UnitSpec's defaults, as written: a unit's fields at these are left out.
UNIT_DEFAULTS = {
    "morales": "()",
    "rifle_strengths": "()",
    "formation": "''",
    "brigade": "''",
    "nationality": "''",
    "entry_turn": "0",
    "entry_hexes": "()",
    "variable_entry": "False",
    "commands": "None",
}


def instruction_names(procedures: list[dict[str, Any]]) -> list[str]:
    """The instruction records the procedures use, and `Label`: what the module imports."""
    return sorted({"Label", *(kind.__name__ for p in procedures for kind in p["kinds"])})


def without_defaults(fields: dict[str, str], defaults: dict[str, str]) -> dict[str, str]:
    """A record's fields, those written as their default left out."""
    return {k: v for k, v in fields.items() if defaults.get(k) != v}


def joined(parts: list[str], width: int) -> list[str]:
    """`parts` joined by commas, as many to a line as fit in `width`."""
    lines: list[str] = []
    for part in parts:
        if lines and len(lines[-1]) + 2 + len(part) <= width:
            lines[-1] = f"{lines[-1]}, {part}"
        else:
            lines.append(part)
    return lines


def constant_name(name: str) -> str:
    """`FIRST_FOOT` from `first_foot`: a name of the rules as a constant's."""
    return re.sub(r"\W+", "_", name).strip("_").upper()


def step_label(step: str) -> _Label:
    """The label of a step's first instruction (`engine.rules.procedure` finds steps by it)."""
    return _Label(f"{STEP_LABEL}{step}")


def choice_kind(elem_type: str) -> str:
    """What a player chooses among: units, hexes, or options by their number."""
    return elem_type if elem_type in ("unit", "hex") else "option"


def define_signature(d: ir.Define, params: str, body: str) -> str | int:
    """A define's parameters as they matter to its body: written out when the body reads
    them, else their number alone (defines are called with positional arguments)."""
    reads = any(re.search(rf"\b{pyident('a', p)}\b", body) for p, _t in d.params)
    return params if reads else len(d.params)


def turn_track(r: ir.Ruleset) -> dict[int, tuple[str, dict[str, object]]]:
    """Turn number -> (clock label, per-turn data)."""
    return {t.number: (t.label, t.data) for t in r.turn_track.turns} if r.turn_track else {}


def template_environment() -> Environment:
    env = Environment(
        loader=FileSystemLoader(str(TEMPLATES)),
        undefined=StrictUndefined,
        autoescape=False,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["py"] = pyrepr
    env.filters["pyw"] = wrapped_literal
    env.filters["record"] = record_source
    return env


def wrapped_literal(value: object, indent: int = 8, packed: bool = False) -> str:
    """A long literal spread over lines of the module's width (a dict's items as many
    to a line as fit when `packed`)."""
    return pyrepr_wrapped(value, indent, WIDTH, packed)


def is_hexes(e: ir.TExpr) -> bool:
    """A constant set of hexes (a zone, a list of hexes written in the rules)."""
    return isinstance(e, ir.Const) and e.type == "hexes"


def function_name(parts: tuple[str, ...]) -> str:
    """`close_combat__resolve__odds`: where a compiled function comes from, as a name."""
    name = "__".join(re.sub(r"\W+", "_", p).strip("_") for p in parts if p)
    if not name.isidentifier() or name[0].isdigit():
        raise ValueError(f"{name!r} is not an identifier")
    return name


# Aggregates over a collection: what they compute, by operation (`v` the member,
# `coll` the collection, `body` the value of a member); the members themselves
# when there is no body.
AGGREGATES = {
    "sum": "sum({body} for {v} in {coll})",
    "max": "max(({body} for {v} in {coll}), default=0)",
    "min": "min(({body} for {v} in {coll}), default=0)",
    # The member with the greatest (least) value, the first on ties; none when empty.
    "highest": "max({coll}, key=lambda {v}: {body}, default=NONE_INDEX)",
    "lowest": "min({coll}, key=lambda {v}: {body}, default=NONE_INDEX)",
    "count": "sum(1 for {v} in {coll} if {body})",
    "any": "any({body} for {v} in {coll})",
    "all": "all({body} for {v} in {coll})",
    "none": "(not any({body} for {v} in {coll}))",
}
AGGREGATES_OF_MEMBERS = {"count": "len({coll})", "any": "bool({coll})"}
# Aggregates over `X where C`, written as one generator (`members`: "e0 in X if C"):
# what they compute, without the tuple of the members `where` would make.
FUSED = {
    "sum": "sum({body} for {members})",
    "count": "sum(1 for {members} if {body})",
    "any": "any({body} for {members})",
    "all": "all({body} for {members})",
    "none": "(not any({body} for {members}))",
}
FUSED_OF_MEMBERS = {"count": "sum(1 for {members})", "any": "any(True for {members})"}


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
    printed = _PrintedValues(d.params[0][0])
    return printed(d.body) and printed.reads_unit


class _PrintedValues:
    """Whether an expression reads nothing but the printed values of the unit
    `param` names (and constants), by node type; `reads_unit` once it read one."""

    def __init__(self, param: str) -> None:
        self.param = param
        self.reads_unit = False

    def __call__(self, e: ir.TExpr) -> bool:
        test = self.NODES.get(type(e))
        return test is not None and test(self, e)

    def _const(self, e: ir.Const) -> bool:
        return e.type not in ELEMENT_TYPES and e.type not in ("hexes", "range")

    def _binding(self, e: ir.Binding) -> bool:
        return e.name == self.param

    def _unit_attr(self, e: ir.UnitAttr) -> bool:
        self.reads_unit = self.reads_unit or isinstance(e.unit, ir.Binding)
        printed = e.name in PRINTED_UNIT_ATTRS or e.name not in DIRECT_UNIT_ATTRS
        return printed and self(e.unit)

    def _unary(self, e: ir.Unary) -> bool:
        return self(e.operand)

    def _binary(self, e: ir.Binary) -> bool:
        plain = e.op not in ("/", "in", "not in") and e.type not in ELEMENT_TYPES
        return plain and self(e.left) and self(e.right)

    def _conditional(self, e: ir.Conditional) -> bool:
        return self(e.test) and self(e.then) and self(e.orelse)

    NODES: ClassVar[dict[type, Callable[..., bool]]] = {
        ir.Const: _const,
        ir.Binding: _binding,
        ir.UnitAttr: _unit_attr,
        ir.Unary: _unary,
        ir.Binary: _binary,
        ir.Conditional: _conditional,
    }


def lines_source(lines: list[str]) -> str:
    """`lines_at('a.mst', (21, 22), (5, 9), 'b.mst', (5,), (1,))`: each instruction's
    rule-file line and column ("a.mst:21:5"), its file written once per run."""
    runs: list[tuple[str, list[str], list[str]]] = []
    for where in lines:
        rest, _, column = where.rpartition(":")
        file, _, line = rest.rpartition(":")
        if runs and runs[-1][0] == file:
            runs[-1][1].append(line)
            runs[-1][2].append(column)
        else:
            runs.append((file, [line], [column]))
    parts = [f"{pyrepr(file)}, {_ints(ls)}, {_ints(cs)}" for file, ls, cs in runs]
    return f"lines_at({', '.join(parts)})"


def _ints(numbers: list[str]) -> str:
    """A tuple of numbers as Python source: `(21, 22)`, `(5,)`."""
    return f"({', '.join(numbers)}{',' if len(numbers) == 1 else ''})"


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
    out = {
        key: (title, cite_text(prov), prov.provisional or "")
        for key, title, prov in _declarations(r)
    }
    return dict(sorted(out.items()))


def _named_in_play(r: ir.Ruleset) -> list[ir.Marker]:
    """The markers play names in words (`engine.describe.marker_title`): those a bag
    holds (drawn: cards, activation markers) and those the rules cite (chosen: tactics
    chits); another reads as its name ("vp marker")."""
    held = {name for bag in r.bags for name in bag.contents}
    return [m for m in r.markers if m.name in held or m.prov.cites]


def _declarations(r: ir.Ruleset) -> Iterator[tuple[str, str, ir.Prov]]:
    """(key, title, provenance) of each declaration a player may ask about, a later one
    of the same key replacing an earlier."""
    for kind, items in (
        ("define", r.defines),
        ("restriction", r.restrictions),
        ("exit", r.exits),
        ("terrain", r.terrain),
        ("hexside", r.hexside_features),
        ("table", r.tables),
        ("rule", r.switches),
        ("modifiers", r.modifiers),
        ("marker", _named_in_play(r)),
        ("bag", r.bags),
        ("brigade", r.brigades),
    ):
        for x in items:
            yield f"{kind}:{x.name}", x.title, x.prov
    for ml in r.modifiers:
        for m in ml.modifiers:
            yield f"modifier:{ml.name}:{m.label}", m.label, ml.prov.merged(m.prov)
    defines = {d.name: d for d in r.defines}
    for p in r.procedures:
        yield f"procedure:{p.name}", p.title, p.prov
        for st in p.steps:
            yield from _step_declarations(p, st, defines)


def _step_declarations(
    p: ir.Procedure, st: ir.Step, defines: dict[str, ir.Define]
) -> Iterator[tuple[str, str, ir.Prov]]:
    """A step, and the defines its statements hand the engine to explain."""
    title = p.title if st.title in ("", st.name) else f"{p.title}: {st.title}"
    yield f"step:{p.name}:{st.name}", title, p.prov.merged(st.prov)
    for stmt in ir.statements(st.body):
        for kind, name, define in _defines_handed_on(stmt):
            if define in defines:
                d = defines[define]
                yield f"{kind}:{p.name}:{st.name}:{name}", d.title, d.prov


def _defines_handed_on(stmt: ir.TStmt) -> Iterator[tuple[str, str, str]]:
    """(kind, name, define) of the defines a statement hands on: a primitive's hooks
    ("hook", the hook's name), the options of a choice ("choose", its variable)."""
    if isinstance(stmt, ir.CallPrim):
        for arg, expr in stmt.lambdas:
            if isinstance(expr, ir.DefineCall):
                yield "hook", arg, expr.define
    elif isinstance(stmt, ir.Choose):
        options = stmt.options
        while isinstance(options, ir.Where):
            options = options.collection
        if isinstance(options, ir.DefineCall):
            yield "choose", stmt.var, options.define


def stable_file_name(file: str) -> str:
    """A rule file's path relative to the project, or absolute outside it."""
    path = (Path.cwd() / file).resolve()
    try:
        return str(path.relative_to(PROJECT_ROOT))
    except ValueError:
        return str(path)


def plain_text(e: ir.TExpr) -> ir.TExpr:
    """A text that shows no value as the constant it is (an `ask` question without
    `{…}` is a `Constant`, not a function called at every decision)."""
    if isinstance(e, ir.Text) and all(isinstance(p, str) for p in e.parts):
        return ir.Const("str", e.span, "".join(p for p in e.parts if isinstance(p, str)))
    return e


def choice_prompt(var: str, elem_type: str, which: str) -> str:
    """A choice's prompt in words: "choose the next unit", "choose the defender
    lead" (the engine puts the procedure's title before it). A name that is no
    noun (`u`, `taken`, `into`) says what is chosen by its type instead. (No
    "?": that marks a yes/no question.)"""
    words = var.split("_")
    noun = " ".join(words) if words[-1] in CHOICE_NOUNS else elem_type.replace("_", " ")
    return f"choose {which} {noun}"


# The last words of a choice's name that make it a noun a player reads as is
# ("defender lead", "target hex"); any other name is shown by its type.
CHOICE_NOUNS = frozenset(
    {
        "attacker",
        "card",
        "casualty",
        "chit",
        "combat",
        "commander",
        "defender",
        "follower",
        "hex",
        "lead",
        "leader",
        "marker",
        "parent",
        "side",
        "target",
        "unit",
    }
)


def tuple_source(items: list[str]) -> str:
    """Python source of a tuple of already-written items."""
    return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"


class LibraryRefused(BadInput):
    """A library ruleset (`library` in its header) has no sides, map or
    scenario of its own: there is no game to generate from it."""


def generate(rules: ir.Ruleset) -> dict[str, str]:
    """The files of the generated package, by name."""
    if rules.library:
        where = rules.files[0] if rules.files else rules.name
        raise LibraryRefused(
            f"{where}: {rules.name!r} is a library (`library` in its ruleset header): "
            "it plays nothing by itself; build, play or test a battle that imports it"
        )
    return Codegen(rules).render()
