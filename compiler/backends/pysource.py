"""Safe Python source for values and names: the only way designer text enters code.

`pyrepr` writes a value as a literal, and only for types whose `repr` reads
back as the same value; `pyident` makes an identifier from a name the checker
has already validated, with a prefix so it can never shadow anything.
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def pyrepr(value: Any) -> str:
    if value is None or isinstance(value, bool | int | str):
        return repr(value)
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise ValueError(f"no literal for {value!r}")
        return repr(value)
    if isinstance(value, Fraction):
        return f"Fraction({value.numerator}, {value.denominator})"
    if isinstance(value, tuple | list):
        items = ", ".join(pyrepr(v) for v in value)
        return f"({items},)" if len(value) == 1 else f"({items})"
    if isinstance(value, frozenset):
        return f"frozenset({pyrepr(tuple(sorted(value)))})"
    if isinstance(value, dict):
        items = ", ".join(f"{pyrepr(k)}: {pyrepr(v)}" for k, v in value.items())
        return "{" + items + "}"
    raise TypeError(f"no safe literal for {type(value).__name__}")


def pyident(prefix: str, name: str) -> str:
    """`d_stack_ok` from `stack_ok`: the name must already be a checked identifier."""
    if not _IDENT.match(name):
        raise ValueError(f"{name!r} is not an identifier")
    return f"{prefix}_{name}"
