"""`muster dump`: the checked IR as JSON, for tools and for people.

Every IR dataclass becomes an object with its fields in declaration order;
typed expressions and statements carry a `node` key naming their class;
spans become "file:line:column" strings. docs/ir.md describes the shape.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from fractions import Fraction
from typing import Any

from compiler import ir
from dsl.source import Span
from engine.instructions import Instruction, operand_names
from engine.rules import Rules
from engine.sources import rule_text

NODE_BASES = (ir.TExpr, ir.TStmt)


def to_data(value: Any) -> Any:
    if isinstance(value, Span):
        return f"{value.file}:{value.line}:{value.column}" if value.line else None
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out: dict[str, Any] = {}
        if isinstance(value, NODE_BASES):
            out["node"] = type(value).__name__
        for f in dataclasses.fields(value):
            out[f.name] = to_data(getattr(value, f.name))
        return out
    if isinstance(value, dict):
        return {_key(k): to_data(v) for k, v in value.items()}
    if isinstance(value, tuple | list):
        return [to_data(v) for v in value]
    if isinstance(value, Fraction):
        return str(value)
    return value


def _key(k: Any) -> str:
    if isinstance(k, tuple):
        return "/".join(str(x) for x in k)
    return str(k)


def dump(rules: ir.Ruleset) -> str:
    return json.dumps(to_data(rules), indent=1, ensure_ascii=False)


def _operand(value: Any) -> str:
    """An operand in a dump: a compiled function by its name, a value as written."""
    if callable(value):
        return getattr(value, "__name__", repr(value))
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_operand(v)}" for k, v in value.items()) + "}"
    return repr(value)


def dump_code(rules: Rules, procedure: str) -> str:
    """`muster dump --code PROCEDURE`: a compiled procedure's instructions, one a line,
    each with its index, its operands, the rule-file line it came from and that
    line's text; the names of the steps where they begin."""
    spec = rules.procedures.get(procedure)
    if spec is None:
        known = ", ".join(sorted(rules.procedures))
        raise KeyError(f"no procedure {procedure!r}; the compiled procedures are: {known}")
    starts = {pc: name for name, pc in spec.steps.items()}
    lines = [f"{spec.kind} {spec.name} {spec.title!r} ({', '.join(spec.params)})"]
    for pc, instr in enumerate(spec.code):
        assert isinstance(instr, Instruction)
        if pc in starts:
            lines.append(f"  step {starts[pc]}:")
        operands = ", ".join(
            f"{name}={_operand(getattr(instr, name))}" for name in operand_names(type(instr))
        )
        where = spec.lines[pc]
        lines.append(f"  {pc:4}  {instr.opcode}({operands})  # {where}")
        text = rule_text(where)
        if text:
            lines.append(f"{'':8}| {text}")
    return "\n".join(lines)


def cmd_dump(args: argparse.Namespace) -> int:
    from compiler.backends.engine_codegen import generate
    from compiler.build import load_generated
    from compiler.check import compile_ruleset

    rules, _ = compile_ruleset(args.ruleset)
    if args.code is None:
        print(dump(rules))
        return 0
    compiled = load_generated(generate(rules), rules.name).RULES
    try:
        print(dump_code(compiled, args.code))
    except KeyError as e:
        print(f"muster dump: {e.args[0]}", file=sys.stderr)
        return 2
    return 0
