"""`muster dump`: the checked IR as JSON, for tools and for people.

Every IR dataclass becomes an object with its fields in declaration order;
typed expressions and statements carry a `node` key naming their class;
spans become "file:line:column" strings. docs/ir.md describes the shape.
"""

from __future__ import annotations

import dataclasses
import json
from fractions import Fraction
from typing import Any

from compiler import ir
from dsl.source import Span

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
