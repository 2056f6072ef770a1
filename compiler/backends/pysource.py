"""Safe Python source for values and names: the only way designer text enters code.

`pyrepr` writes a value as a literal, and only for types whose `repr` reads
back as the same value; `pyident` makes an identifier from a name the checker
has already validated, with a prefix so it can never shadow anything.
"""

from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any

_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def pyrepr(value: Any) -> str:
    if value is None or isinstance(value, bool | int | str):
        return repr(value)
    for kind, write in _LITERALS:
        if isinstance(value, kind):
            return write(value)
    raise TypeError(f"no safe literal for {type(value).__name__}")


def _float(value: float) -> str:
    if value != value or value in (float("inf"), float("-inf")):
        raise ValueError(f"no literal for {value!r}")
    return repr(value)


def _fraction(value: Fraction) -> str:
    return f"Fraction({value.numerator}, {value.denominator})"


def _sequence(value: tuple[Any, ...] | list[Any]) -> str:
    items = ", ".join(pyrepr(v) for v in value)
    return f"({items},)" if len(value) == 1 else f"({items})"


def _frozenset(value: frozenset[Any]) -> str:
    return f"frozenset({pyrepr(tuple(sorted(value)))})"


def _dict(value: dict[Any, Any]) -> str:
    return "{" + ", ".join(f"{pyrepr(k)}: {pyrepr(v)}" for k, v in value.items()) + "}"


# The literal of each other type `pyrepr` writes (a value is written by the first that it is).
_LITERALS: tuple[tuple[type, Callable[[Any], str]], ...] = (
    (float, _float),
    (Fraction, _fraction),
    (tuple, _sequence),
    (list, _sequence),
    (frozenset, _frozenset),
    (dict, _dict),
)


def pyrepr_wrapped(value: Any, indent: int = 8, width: int = 120, packed: bool = False) -> str:
    """`pyrepr`, with a long tuple, frozenset or dict spread over lines of at most
    `width` characters (indented by `indent`), members packed as many to a line as
    fit (a dict's items one a line unless `packed`): map tables read as blocks, not
    as a line per hex or one line of 40,000 characters."""
    text = pyrepr(value)
    if indent + len(text) <= width:
        return text
    pad = " " * (indent + 4)
    if isinstance(value, frozenset):
        return f"frozenset({pyrepr_wrapped(tuple(sorted(value)), indent, width)})"
    if isinstance(value, dict):
        items = [f"{pyrepr(k)}: {pyrepr_wrapped(v, indent + 4, width)}," for k, v in value.items()]
        lines = _packed(items, pad, width) if packed else [pad + item for item in items]
        return "{\n" + "\n".join(lines) + "\n" + " " * indent + "}"
    if isinstance(value, tuple | list):
        items = [pyrepr_wrapped(item, indent + 4, width) + "," for item in value]
        return "(\n" + "\n".join(_packed(items, pad, width)) + "\n" + " " * indent + ")"
    return text


def _packed(parts: list[str], pad: str, width: int) -> list[str]:
    """Lines of `parts` after `pad`, as many to a line as fit; a part of several
    lines on lines of its own."""
    lines: list[str] = []
    line = ""
    for part in parts:
        if "\n" in part or (line and len(pad) + len(line) + 1 + len(part) > width):
            if line:
                lines.append(pad + line)
            line = ""
            if "\n" in part:
                lines.append(pad + part)
                continue
        line = f"{line} {part}" if line else part
    if line:
        lines.append(pad + line)
    return lines


def pystring_lines(text: str, indent: int, width: int = 120) -> str:
    """A long plain-ASCII string as implicitly joined literals, one per line."""
    step = max(width - indent - 2, 16)
    pad = " " * indent
    return "\n".join(f"{pad}{pyrepr(text[i : i + step])}" for i in range(0, len(text), step))


def wrap_code(line: str, indent: int, width: int = 120) -> str:
    """A generated line of code longer than `width`, broken inside its brackets
    (after a comma, before `and`/`or`/`if`/`else`/`for`), continuation lines
    indented by `indent + 4`. Only places the tokenizer shows outside string
    literals are used, so the code means the same. A comment after the code is
    no reason to break it."""
    if indent + len(line) <= width:
        return line
    breaks, code_end = _break_points(line)
    if indent + code_end <= width:
        return line
    pieces: list[str] = []
    start = 0
    last = 0
    limit = width - indent
    for cut in [*breaks, len(line)]:
        if cut - start > limit and last > start:
            pieces.append(line[start:last].rstrip())
            start = last
            limit = width - indent - 4
        last = cut
    pieces.append(line[start:].strip())
    pad = "\n" + " " * (indent + 4)
    return pieces[0] + "".join(pad + p.strip() for p in pieces[1:])


def _break_points(line: str) -> tuple[list[int], int]:
    """Where a line may be broken (inside brackets, after a comma or before a
    keyword), and where its code ends (its comment begins)."""
    breaks: list[int] = []
    depth = 0
    code_end = len(line)
    try:
        for tok in tokenize.generate_tokens(io.StringIO(line).readline):
            if tok.type == tokenize.COMMENT:
                code_end = len(line[: tok.start[1]].rstrip())
            depth += _DEPTH.get(tok.string, 0) if tok.type == tokenize.OP else 0
            at = _break_point(tok)
            if depth > 0 and at is not None:
                breaks.append(at)
    except tokenize.TokenError:
        pass  # a line of a longer bracket (its end is on a later line): breaks so far hold
    return breaks, code_end


def _break_point(tok: tokenize.TokenInfo) -> int | None:
    """The column a line may be broken at around this token: after a comma, before
    `and`, `or`, `if`, `else`, `for`; None elsewhere."""
    if tok.type == tokenize.OP and tok.string == ",":
        return tok.end[1]
    if tok.type == tokenize.NAME and tok.string in _BREAK_BEFORE:
        return tok.start[1]
    return None


_DEPTH = {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}
_BREAK_BEFORE = frozenset({"and", "or", "if", "else", "for"})


def wrap_source(source: str, width: int = 120) -> str:
    """Every line of generated source wrapped by `wrap_code` at its own indentation."""
    out = []
    for line in source.split("\n"):
        body = line.lstrip(" ")
        out.append(line[: len(line) - len(body)] + wrap_code(body, len(line) - len(body), width))
    return "\n".join(out)


def pyident(prefix: str, name: str) -> str:
    """`a_units` from `units`: the name must already be a checked identifier."""
    if not _IDENT.match(name):
        raise ValueError(f"{name!r} is not an identifier")
    return f"{prefix}_{name}"


def record_source(kind: str, fields: Mapping[str, str]) -> str:
    """`Kind(a, b)`, or `Kind(a=…, b=…, c=…)` past two fields: a record whose fields
    are already written as source, by keyword where their places would not say
    which is which."""
    if len(fields) <= 2:
        return f"{kind}({', '.join(fields.values())})"
    return f"{kind}({', '.join(f'{k}={v}' for k, v in fields.items())})"
