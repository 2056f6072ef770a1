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
from engine.rules import STEP_LABEL, Rules
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
    each with its index, its operands (a jump's target with the label it names),
    the rule-file line it came from and that line's text; the steps and other labels
    where they mark."""
    spec = rules.procedures.get(procedure)
    if spec is None:
        known = ", ".join(sorted(rules.procedures))
        raise KeyError(f"no procedure {procedure!r}; the compiled procedures are: {known}")
    marks: dict[int, list[str]] = {}
    for label, pc in spec.labels.items():
        marks.setdefault(pc, []).append(label)
    lines = [f"{spec.kind} {spec.name} {spec.title!r} ({', '.join(spec.params)})"]
    for pc, instr in enumerate(spec.code):
        assert isinstance(instr, Instruction)
        lines += [_mark(label) for label in marks.get(pc, [])]
        lines += _instruction_lines(pc, instr, spec.lines[pc], spec.jump_labels.get(pc, ""))
    lines += [_mark(label) for label in marks.get(len(spec.code), [])]
    return "\n".join(lines)


def _mark(label: str) -> str:
    """A label where it marks: `step fire:`, or `  if_2_else:`."""
    if label.startswith(STEP_LABEL):
        return f"  step {label.removeprefix(STEP_LABEL)}:"
    return f"   {label}:"


def _instruction_lines(pc: int, instr: Instruction, where: str, label: str) -> list[str]:
    """An instruction with its operands (a jump's target with the label it named) and
    rule line, and the rule line's text."""
    operands = []
    for name in operand_names(type(instr)):
        value = getattr(instr, name)
        shown = _operand(value)
        if name == instr.jumps_to:
            shown += f" ({label})"
        operands.append(f"{name}={shown}")
    out = [f"  {pc:4}  {instr.opcode}({', '.join(operands)})  # {where}"]
    text = rule_text(where)
    return [*out, f"{'':8}| {text}"] if text else out


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
