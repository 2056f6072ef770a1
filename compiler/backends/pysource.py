"""Safe Python source for values and names: the only way designer text enters code.

`pyrepr` writes a value as a literal, and only for types whose `repr` reads
back as the same value; `pyident` makes an identifier from a name the checker
has already validated, with a prefix so it can never shadow anything.
"""

from __future__ import annotations

import io
import re
import tokenize
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


def pyrepr_wrapped(value: Any, indent: int = 8, width: int = 120) -> str:
    """`pyrepr`, with a long tuple, frozenset or dict spread over lines of at most
    `width` characters (indented by `indent`), members packed as many to a line as
    fit: map tables read as blocks, not as a line per hex or one line of 40,000
    characters."""
    text = pyrepr(value)
    if indent + len(text) <= width:
        return text
    pad = " " * (indent + 4)
    if isinstance(value, frozenset):
        return f"frozenset({pyrepr_wrapped(tuple(sorted(value)), indent, width)})"
    if isinstance(value, dict):
        items = [
            f"{pad}{pyrepr(k)}: {pyrepr_wrapped(v, indent + 4, width)}," for k, v in value.items()
        ]
        return "{\n" + "\n".join(items) + "\n" + " " * indent + "}"
    if isinstance(value, tuple | list):
        lines: list[str] = []
        line = ""
        for item in value:
            part = pyrepr_wrapped(item, indent + 4, width) + ","
            if "\n" in part or (line and len(pad) + len(line) + 1 + len(part) > width):
                if line:
                    lines.append(pad + line)
                line = part.lstrip() if "\n" not in part else ""
                if "\n" in part:
                    lines.append(pad + part)
            else:
                line = f"{line} {part}" if line else part
        if line:
            lines.append(pad + line)
        return "(\n" + "\n".join(lines) + "\n" + " " * indent + ")"
    return text


def pystring_lines(text: str, indent: int, width: int = 120) -> str:
    """A long plain-ASCII string as implicitly joined literals, one per line."""
    step = max(width - indent - 2, 16)
    pad = " " * indent
    return "\n".join(f"{pad}{pyrepr(text[i : i + step])}" for i in range(0, len(text), step))


def wrap_code(line: str, indent: int, width: int = 120) -> str:
    """A generated line of code longer than `width`, broken inside its brackets
    (after a comma, before `and`/`or`/`if`/`else`/`for`), continuation lines
    indented by `indent + 4`. Only places the tokenizer shows outside string
    literals are used, so the code means the same."""
    if indent + len(line) <= width:
        return line
    breaks: list[int] = []
    depth = 0
    try:
        for tok in tokenize.generate_tokens(io.StringIO(line).readline):
            if tok.type == tokenize.OP and tok.string in "([{":
                depth += 1
            elif tok.type == tokenize.OP and tok.string in ")]}":
                depth -= 1
            elif depth > 0 and tok.type == tokenize.OP and tok.string == ",":
                breaks.append(tok.end[1])
            elif depth > 0 and tok.type == tokenize.NAME and tok.string in _BREAK_BEFORE:
                breaks.append(tok.start[1])
    except tokenize.TokenError:
        pass  # a line of a longer bracket (its end is on a later line): breaks so far hold
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
