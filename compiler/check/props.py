"""Reading the lines of a generic block against the schema of its kind.

A declaration's block is a list of lines `key value…`. `Props` indexes them,
reports keys the kind does not have (with "did you mean"), keys given twice
and values of the wrong shape, and hands typed values to the checker along
with each line's provenance.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from fractions import Fraction

from compiler.ir import Cite, Prov
from dsl import ast
from dsl.diagnostics import (
    BAD_VALUE,
    DUPLICATE,
    MISSING,
    UNKNOWN_PROPERTY,
    Reporter,
    did_you_mean,
    hint_note,
)
from dsl.source import Span

# The words of a yes/no value: `true`/`false` are accepted beside `yes`/`no`
# everywhere (properties, attributes, variables, expressions); a property also
# takes `on`/`off`.
TRUE_WORDS = frozenset({"yes", "true"})
FALSE_WORDS = frozenset({"no", "false"})
BOOL_WORDS = TRUE_WORDS | FALSE_WORDS
YES = TRUE_WORDS | {"on"}
NO = FALSE_WORDS | {"off"}


def prov_of(p: ast.Provenance) -> Prov:
    return Prov(tuple(Cite(c.document, s) for c in p.citations for s in c.sections), p.provisional)


def name_of(d: ast.Entity) -> str:
    """A declaration's name ("" for the few kinds that may go without)."""
    return d.name or ""


def title_of(d: ast.Entity) -> str:
    """A declaration's title, or its name when it has none."""
    return d.title or d.name or ""


def describe(v: ast.Expr) -> str:
    """What a value looks like, for messages."""
    if isinstance(v, ast.Number):
        return f"the number {v.text}"
    if isinstance(v, ast.Name):
        return f"the name {v.id!r}"
    if isinstance(v, ast.String):
        return f"the string {v.value!r}"
    if isinstance(v, ast.Slash):
        return "a value with '/'"
    if isinstance(v, ast.Range):
        return "a range"
    return type(v).__name__.lower()


class Props:
    """The lines of one declaration's block, keyed by their first name."""

    def __init__(
        self,
        decl: ast.Entity,
        reporter: Reporter,
        known: Iterable[str],
        keyed_only: bool = True,
    ) -> None:
        self.decl = decl
        self.r = reporter
        self.known = set(known)
        self.lines: dict[str, ast.Line] = {}
        self.other: list[ast.Line] = []  # lines whose first value is not a known key
        self.when: list[ast.WhenLine] = []
        self.do: list[ast.DoLine] = []
        for line in decl.body.lines:
            if isinstance(line, ast.WhenLine):
                self.when.append(line)
            elif isinstance(line, ast.DoLine):
                self.do.append(line)
            else:
                self._add(line, keyed_only)

    def _add(self, line: ast.Line, keyed_only: bool) -> None:
        """File a `key value…` line under its key; a key given twice is an error."""
        key = line.key
        if key is None or key not in self.known:
            if keyed_only:
                self._unknown(line)
            else:
                self.other.append(line)
            return
        if key in self.lines:
            first = self.lines[key].span
            self.r.error(line.span, DUPLICATE, f"{key!r} given twice", f"first given at {first}")
            return
        self.lines[key] = line

    def _unknown(self, line: ast.Line) -> None:
        key = line.key
        kind = self.decl.kind
        if key is None:
            self.r.error(
                line.span,
                UNKNOWN_PROPERTY,
                f"a {kind} line starts with a property name, not {describe(line.values[0])}",
                f"properties of {kind}: {', '.join(sorted(self.known))}",
            )
            return
        hint = did_you_mean(key, self.known)
        notes = hint_note(hint)
        notes.append(f"properties of {kind}: {', '.join(sorted(self.known))}")
        self.r.error(
            line.values[0].span, UNKNOWN_PROPERTY, f"{kind} has no property {key!r}", *notes
        )

    # ------------------------------------------------------------ access

    def has(self, key: str) -> bool:
        return key in self.lines

    def line(self, key: str) -> ast.Line | None:
        return self.lines.get(key)

    def prov(self, key: str) -> Prov:
        line = self.lines.get(key)
        return prov_of(line.prov) if line is not None else Prov()

    def values(self, key: str) -> tuple[ast.Expr, ...]:
        line = self.lines.get(key)
        return line.values[1:] if line is not None else ()

    def _one(self, key: str, required: bool) -> ast.Expr | None:
        line = self.lines.get(key)
        if line is None:
            if required:
                self.r.error(
                    self.decl.name_span, MISSING, f"{self.decl.kind} {self.label} needs {key!r}"
                )
            return None
        vals = line.values[1:]
        if len(vals) != 1:
            self.r.error(line.span, BAD_VALUE, f"{key!r} takes one value, not {len(vals)}")
            return None
        return vals[0]

    @property
    def label(self) -> str:
        return repr(self.decl.name) if self.decl.name else ""

    def error(self, span: Span, message: str, *notes: str) -> None:
        self.r.error(span, BAD_VALUE, message, *notes)

    def int(self, key: str, default: int | None = None, required: bool = False) -> int | None:
        v = self._one(key, required)
        if v is None:
            return default
        n = as_int(v)
        if n is None:
            self.error(v.span, f"{key!r} takes a whole number, not {describe(v)}")
            return default
        return n

    def number(self, key: str, default: Fraction | None = None) -> Fraction | None:
        v = self._one(key, False)
        if v is None:
            return default
        if isinstance(v, ast.Number):
            return Fraction(v.text)
        if isinstance(v, ast.Slash) and len(v.parts) == 2:
            a, b = as_int(v.parts[0]), as_int(v.parts[1])
            if a is not None and b:
                return Fraction(a, b)
        self.error(v.span, f"{key!r} takes a number such as 1, 1.5 or 1/2, not {describe(v)}")
        return default

    def str(self, key: str, default: str = "") -> str:
        v = self._one(key, False)
        if v is None:
            return default
        if isinstance(v, ast.String):
            if any(unicodedata.category(ch) in ("Cc", "Cs") for ch in v.value):
                # Counters, charts and the VASSAL module print these on one line.
                self.error(v.span, f"{key!r} is one line of text: no line breaks or tabs")
                return default
            return v.value
        self.error(v.span, f'{key!r} takes a "quoted string", not {describe(v)}')
        return default

    def name(self, key: str, default: str | None = None, required: bool = False) -> str | None:
        v = self._one(key, required)
        if v is None:
            return default
        if isinstance(v, ast.Name):
            return v.id
        self.error(v.span, f"{key!r} takes a name, not {describe(v)}")
        return default

    def flag(self, key: str, default: bool = False) -> bool:
        """`key` alone means yes; `key yes|no` says it."""
        line = self.lines.get(key)
        if line is None:
            return default
        vals = line.values[1:]
        if not vals:
            return True
        v = vals[0]
        if len(vals) == 1 and isinstance(v, ast.Name) and v.id in YES | NO:
            return v.id in YES
        self.error(line.span, f"{key!r} takes yes or no")
        return default

    def range(self, key: str, required: bool = False) -> tuple[int, int] | None:
        v = self._one(key, required)
        if v is None:
            return None
        found = as_range(v)
        if found is None:
            self.error(v.span, f"{key!r} takes a range such as 1..10")
        return found


def as_range(v: ast.Expr) -> tuple[int, int] | None:
    """A closed range, low not above high (`1..10`), or one number as a range of one."""
    if isinstance(v, ast.Range) and v.low is not None and v.high is not None:
        low, high = int(v.low), int(v.high)
        return (low, high) if low <= high else None
    n = as_int(v)
    return (n, n) if n is not None else None


def as_int(v: ast.Expr) -> int | None:
    if isinstance(v, ast.Number) and "." not in v.text:
        return int(v.text)
    return None


def code_text(v: ast.Expr) -> str | None:
    """A result code as written in a table cell: `R`, `1`, `-`, `*`, `PIN`."""
    if isinstance(v, ast.Name):
        return v.id
    if isinstance(v, ast.Number):
        return v.text
    if isinstance(v, ast.Dash):
        return "-"
    if isinstance(v, ast.Star):
        return "*"
    return None
