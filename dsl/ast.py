"""Syntax tree of rule files: one dataclass per grammar rule, each with its span.

The tree says what was written and where, nothing more: names are not yet
resolved and values not yet typed (that is `compiler.check`). Spans are kept
out of equality so that two trees written differently compare by content.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field

from dsl.source import NO_SPAN, Span


def _span() -> Span:
    return field(default=NO_SPAN, compare=False, repr=False)


# ----------------------------------------------------------------- provenance


@dataclass(frozen=True, slots=True)
class Citation:
    """`§ series 12.23`: a document and one or more of its sections."""

    document: str
    sections: tuple[str, ...]
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Provenance:
    citations: tuple[Citation, ...] = ()
    provisional: str | None = None
    span: Span = _span()

    @property
    def empty(self) -> bool:
        return not self.citations and self.provisional is None


# ----------------------------------------------------------------- expressions


@dataclass(frozen=True, slots=True)
class Expr:
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Number(Expr):
    """A number as written (`0304` keeps its leading zero: it may be a hex label)."""

    text: str = ""


@dataclass(frozen=True, slots=True)
class String(Expr):
    value: str = ""


@dataclass(frozen=True, slots=True)
class Odds(Expr):
    attack: int = 1
    defend: int = 1


@dataclass(frozen=True, slots=True)
class Name(Expr):
    id: str = ""


@dataclass(frozen=True, slots=True)
class Call(Expr):
    func: str = ""
    args: tuple[Expr, ...] = ()
    keywords: tuple[tuple[str, Expr], ...] = ()


@dataclass(frozen=True, slots=True)
class Attr(Expr):
    value: Expr = field(default_factory=Expr)
    name: str = ""


@dataclass(frozen=True, slots=True)
class Index(Expr):
    value: Expr = field(default_factory=Expr)
    index: Expr = field(default_factory=Expr)


@dataclass(frozen=True, slots=True)
class Unary(Expr):
    op: str = ""  # "-" or "not"
    operand: Expr = field(default_factory=Expr)


@dataclass(frozen=True, slots=True)
class Binary(Expr):
    op: str = ""  # + - * / // == != < <= > >= and or in "not in" where
    left: Expr = field(default_factory=Expr)
    right: Expr = field(default_factory=Expr)


@dataclass(frozen=True, slots=True)
class Conditional(Expr):
    """`if test then a else b`."""

    test: Expr = field(default_factory=Expr)
    then: Expr = field(default_factory=Expr)
    orelse: Expr = field(default_factory=Expr)


@dataclass(frozen=True, slots=True)
class ListExpr(Expr):
    items: tuple[Expr, ...] = ()


# ----------------------------------------------------------------- values of generic lines


@dataclass(frozen=True, slots=True)
class Range(Expr):
    """`1..3`, `10..` (open above), `..-1` (open below); bounds as written."""

    low: str | None = None
    high: str | None = None


@dataclass(frozen=True, slots=True)
class Slash(Expr):
    """`4/2`, `R/-`, `0505/0605`: values read together, split by the schema."""

    parts: tuple[Expr, ...] = ()


@dataclass(frozen=True, slots=True)
class Dash(Expr):
    """A lone `-`: "no effect" in tables, "none" in values."""


@dataclass(frozen=True, slots=True)
class Star(Expr):
    """A lone `*`: the leader-casualty mark of the series tables."""


@dataclass(frozen=True, slots=True)
class ValueList(Expr):
    items: tuple[Expr, ...] = ()


@dataclass(frozen=True, slots=True)
class Paren(Expr):
    """`(expr)` leading a line: a value computed from the game state."""

    expr: Expr = field(default_factory=Expr)


# ----------------------------------------------------------------- statements


@dataclass(frozen=True, slots=True)
class Stmt:
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Let(Stmt):
    name: str = ""
    value: Expr = field(default_factory=Expr)


@dataclass(frozen=True, slots=True)
class Set(Stmt):
    target: Expr = field(default_factory=Expr)  # Name, Index or Attr
    value: Expr = field(default_factory=Expr)


@dataclass(frozen=True, slots=True)
class If(Stmt):
    test: Expr = field(default_factory=Expr)
    body: tuple[Stmt, ...] = ()
    orelse: tuple[Stmt, ...] = ()


@dataclass(frozen=True, slots=True)
class ForEach(Stmt):
    var: str = ""
    iterable: Expr = field(default_factory=Expr)
    chooser: Expr | None = None
    body: tuple[Stmt, ...] = ()


@dataclass(frozen=True, slots=True)
class Repeat(Stmt):
    test: Expr | None = None
    body: tuple[Stmt, ...] = ()


@dataclass(frozen=True, slots=True)
class Roll(Stmt):
    table: str = ""
    column: Expr | None = None
    modifiers: str | None = None
    into: str = ""
    total: str | None = None  # `into result, roll`: also bind the modified roll
    natural: str | None = None  # `into result, roll, face`: and the face before the modifiers


@dataclass(frozen=True, slots=True)
class Choose(Stmt):
    var: str = ""
    options: Expr = field(default_factory=Expr)
    chooser: Expr = field(default_factory=Expr)
    mode: str = ""  # "", "maybe" (the chooser may pick none) or "secretly"


@dataclass(frozen=True, slots=True)
class Reveal(Stmt):
    names: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Draw(Stmt):
    bag: str = ""
    into: str = ""


@dataclass(frozen=True, slots=True)
class Break(Stmt):
    pass


@dataclass(frozen=True, slots=True)
class Ask(Stmt):
    player: Expr = field(default_factory=Expr)
    question: str = ""
    yes: tuple[Stmt, ...] = ()
    no: tuple[Stmt, ...] = ()
    mode: str = ""  # "" or "secretly" (answered face down until `reveal into`)
    into: str = ""  # the answer's name, for `reveal` ("" for none)


@dataclass(frozen=True, slots=True)
class Apply(Stmt):
    """`apply result.defender with units: …, side: …`: run a result code's effects."""

    result: Expr = field(default_factory=Expr)
    args: tuple[Expr, ...] = ()
    keywords: tuple[tuple[str, Expr], ...] = ()


@dataclass(frozen=True, slots=True)
class CallProc(Stmt):
    proc: str = ""
    args: tuple[Expr, ...] = ()
    keywords: tuple[tuple[str, Expr], ...] = ()
    into: str | None = None


@dataclass(frozen=True, slots=True)
class SkipTo(Stmt):
    step: str = ""


@dataclass(frozen=True, slots=True)
class Return(Stmt):
    pass


@dataclass(frozen=True, slots=True)
class End(Stmt):
    what: str = ""  # "phase" or "game"


@dataclass(frozen=True, slots=True)
class Effect(Stmt):
    """A call of an engine primitive or effect: `retreat(u, 1)`, `score(red, 1)`."""

    func: str = ""
    args: tuple[Expr, ...] = ()
    keywords: tuple[tuple[str, Expr], ...] = ()


# ----------------------------------------------------------------- declarations


@dataclass(frozen=True, slots=True)
class Line:
    """One line of a generic block: values, an optional condition and sub-block."""

    values: tuple[Expr, ...]
    when: Expr | None = None
    prov: Provenance = field(default_factory=Provenance)
    block: Block | None = None
    span: Span = _span()

    @property
    def key(self) -> str | None:
        first = self.values[0] if self.values else None
        return first.id if isinstance(first, Name) else None


@dataclass(frozen=True, slots=True)
class WhenLine:
    test: Expr
    prov: Provenance = field(default_factory=Provenance)
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class DoLine:
    body: tuple[Stmt, ...]
    prov: Provenance = field(default_factory=Provenance)
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Block:
    lines: tuple[Line | WhenLine | DoLine, ...] = ()
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Decl:
    span: Span = _span()
    override: bool = False


@dataclass(frozen=True, slots=True)
class Import(Decl):
    target: str = ""
    is_path: bool = False
    prov: Provenance = field(default_factory=Provenance)


@dataclass(frozen=True, slots=True)
class Entity(Decl):
    """`kind name "Title" § … { lines }` — sides, units, terrain, tables, map, …"""

    kind: str = ""
    name: str | None = None
    params: tuple[Param, ...] = ()
    title: str | None = None
    prov: Provenance = field(default_factory=Provenance)
    body: Block = field(default_factory=Block)
    name_span: Span = _span()

    @property
    def ident(self) -> str:
        """The declared name, or "" for a declaration without one (the map)."""
        return self.name or ""

    @property
    def display_title(self) -> str:
        """The title to show: the declared title, else the name."""
        return self.title or self.name or ""

    def other_lines(self, known: Collection[str]) -> list[Line]:
        """The keyed lines beyond a kind's fixed properties `known`: its attributes."""
        return [
            line
            for line in self.body.lines
            if isinstance(line, Line) and line.key is not None and line.key not in known
        ]


@dataclass(frozen=True, slots=True)
class Param:
    name: str
    type: str
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Define(Decl):
    """`define name(params) "Title" = expr`: a named value or predicate."""

    name: str = ""
    params: tuple[Param, ...] = ()
    title: str | None = None
    prov: Provenance = field(default_factory=Provenance)
    expr: Expr = field(default_factory=Expr)


@dataclass(frozen=True, slots=True)
class Step:
    name: str
    title: str | None
    prov: Provenance
    body: tuple[Stmt, ...]
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Procedure(Decl):
    kind: str = "procedure"  # or "phase"
    name: str = ""
    params: tuple[Param, ...] = ()
    result: Param | None = None  # `-> passed: bool`: what `call … into x` receives
    title: str | None = None
    prov: Provenance = field(default_factory=Provenance)
    steps: tuple[Step, ...] = ()


@dataclass(frozen=True, slots=True)
class Patch:
    action: str  # "insert before", "insert after", "replace", "disable"
    target: str
    step: Step | None
    prov: Provenance = field(default_factory=Provenance)
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Extend(Decl):
    procedure: str = ""
    prov: Provenance = field(default_factory=Provenance)
    patches: tuple[Patch, ...] = ()


@dataclass(frozen=True, slots=True)
class ExtendList(Decl):
    """`extend modifiers morale_check_drm { … }`: lines added to another file's declaration."""

    kind: str = ""
    name: str = ""
    prov: Provenance = field(default_factory=Provenance)
    body: Block = field(default_factory=Block)


@dataclass(frozen=True, slots=True)
class Rule(Decl):
    """A switchable bundle of declarations: optional, advanced, play-balance rules."""

    name: str = ""
    title: str | None = None
    flags: tuple[str, ...] = ()
    prov: Provenance = field(default_factory=Provenance)
    decls: tuple[Decl, ...] = ()
    # The rule this one is an option within (`part_of`), and the rules never
    # played with it (`excludes`), each with where it is named.
    part_of: tuple[str, Span] | None = None
    excludes: tuple[tuple[str, Span], ...] = ()


@dataclass(frozen=True, slots=True)
class File:
    path: str
    decls: tuple[Decl, ...]


def is_word(v: Expr | None, word: str) -> bool:
    """Whether a value is the bare word `word` (`at`, `choose`, `victory`, …)."""
    return isinstance(v, Name) and v.id == word
