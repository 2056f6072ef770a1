"""The checked intermediate representation of a ruleset.

Names are resolved, values typed and every construct carries its provenance
(citations, provisional reasons) and its span. Backends (the engine code
generator, `muster dump`, print-and-play) read only this. Frozen throughout.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from dsl.source import NO_SPAN, Span


def _span() -> Span:
    return field(default=NO_SPAN, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Cite:
    document: str
    section: str


@dataclass(frozen=True, slots=True)
class Prov:
    """Where a value comes from: cited sections and/or why it is provisional."""

    cites: tuple[Cite, ...] = ()
    provisional: str | None = None

    def merged(self, inner: Prov) -> Prov:
        """Provenance of something declared inside this: inner marks win, cites add up."""
        return Prov(
            tuple(dict.fromkeys(self.cites + inner.cites)),
            inner.provisional if inner.provisional is not None else self.provisional,
        )


# ----------------------------------------------------------------- typed expressions


@dataclass(frozen=True, slots=True)
class TExpr:
    type: str
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Const(TExpr):
    """A constant: ints, bools, strings; entities by name (`side`, `hex` label, …)."""

    value: Any = None


@dataclass(frozen=True, slots=True)
class Binding(TExpr):
    """A name bound in the frame: a parameter, a `let`, a loop variable."""

    name: str = ""


@dataclass(frozen=True, slots=True)
class Element(TExpr):
    """The element of a collection inside `where` or an aggregate (`it`)."""

    depth: int = 0


@dataclass(frozen=True, slots=True)
class Var(TExpr):
    """A state variable: `turn`, `phasing`, …"""

    name: str = ""


@dataclass(frozen=True, slots=True)
class VarAt(TExpr):
    """A per-side or per-unit variable: `army_morale[british]`, `u.pinned`."""

    name: str = ""
    index: TExpr = field(default_factory=lambda: TExpr("side"))


@dataclass(frozen=True, slots=True)
class Query(TExpr):
    func: str = ""
    args: tuple[TExpr, ...] = ()


@dataclass(frozen=True, slots=True)
class DefineCall(TExpr):
    define: str = ""
    args: tuple[TExpr, ...] = ()


@dataclass(frozen=True, slots=True)
class UnitAttr(TExpr):
    """`u.strength`, or `strength` inside `where`: a printed or derived unit value."""

    unit: TExpr = field(default_factory=lambda: TExpr("unit"))
    name: str = ""


@dataclass(frozen=True, slots=True)
class CellPart(TExpr):
    """`result.defender`: one part of a table cell."""

    cell: TExpr = field(default_factory=lambda: TExpr("cell"))
    index: int = 0


@dataclass(frozen=True, slots=True)
class Where(TExpr):
    """`units where cond`: the elements for which cond holds."""

    collection: TExpr = field(default_factory=lambda: TExpr("units"))
    depth: int = 0
    condition: TExpr = field(default_factory=lambda: TExpr("bool"))


@dataclass(frozen=True, slots=True)
class Aggregate(TExpr):
    """sum, count, all, any, none, max, min over a collection."""

    op: str = ""
    collection: TExpr = field(default_factory=lambda: TExpr("units"))
    depth: int = 0
    body: TExpr | None = None


@dataclass(frozen=True, slots=True)
class Unary(TExpr):
    op: str = ""
    operand: TExpr = field(default_factory=lambda: TExpr("int"))


@dataclass(frozen=True, slots=True)
class Binary(TExpr):
    op: str = ""
    left: TExpr = field(default_factory=lambda: TExpr("int"))
    right: TExpr = field(default_factory=lambda: TExpr("int"))


@dataclass(frozen=True, slots=True)
class ListOf(TExpr):
    items: tuple[TExpr, ...] = ()


# ----------------------------------------------------------------- statements


@dataclass(frozen=True, slots=True)
class TStmt:
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Let(TStmt):
    name: str = ""
    value: TExpr = field(default_factory=lambda: TExpr("int"))


@dataclass(frozen=True, slots=True)
class SetVar(TStmt):
    name: str = ""
    value: TExpr = field(default_factory=lambda: TExpr("int"))


@dataclass(frozen=True, slots=True)
class SetVarAt(TStmt):
    name: str = ""
    index: TExpr = field(default_factory=lambda: TExpr("side"))
    value: TExpr = field(default_factory=lambda: TExpr("int"))


@dataclass(frozen=True, slots=True)
class If(TStmt):
    test: TExpr = field(default_factory=lambda: TExpr("bool"))
    body: tuple[TStmt, ...] = ()
    orelse: tuple[TStmt, ...] = ()


@dataclass(frozen=True, slots=True)
class ForEach(TStmt):
    var: str = ""
    elem_type: str = ""
    iterable: TExpr = field(default_factory=lambda: TExpr("units"))
    chooser: TExpr | None = None
    body: tuple[TStmt, ...] = ()


@dataclass(frozen=True, slots=True)
class Repeat(TStmt):
    test: TExpr | None = None
    body: tuple[TStmt, ...] = ()


@dataclass(frozen=True, slots=True)
class Roll(TStmt):
    table: str = ""
    column: TExpr | None = None
    modifiers: str | None = None
    into: str = ""


@dataclass(frozen=True, slots=True)
class Choose(TStmt):
    var: str = ""
    elem_type: str = ""
    options: TExpr = field(default_factory=lambda: TExpr("units"))
    chooser: TExpr = field(default_factory=lambda: TExpr("side"))


@dataclass(frozen=True, slots=True)
class Ask(TStmt):
    chooser: TExpr = field(default_factory=lambda: TExpr("side"))
    question: str = ""
    var: str = ""
    yes: tuple[TStmt, ...] = ()
    no: tuple[TStmt, ...] = ()


@dataclass(frozen=True, slots=True)
class ApplyResult(TStmt):
    result: TExpr = field(default_factory=lambda: TExpr("code"))
    units: TExpr = field(default_factory=lambda: TExpr("units"))


@dataclass(frozen=True, slots=True)
class CallProc(TStmt):
    proc: str = ""
    args: tuple[tuple[str, TExpr], ...] = ()


@dataclass(frozen=True, slots=True)
class CallPrim(TStmt):
    prim: str = ""
    args: tuple[tuple[str, TExpr], ...] = ()
    lambdas: tuple[tuple[str, TExpr], ...] = ()


@dataclass(frozen=True, slots=True)
class Effect(TStmt):
    func: str = ""
    args: tuple[TExpr, ...] = ()


@dataclass(frozen=True, slots=True)
class SkipTo(TStmt):
    step: str = ""


@dataclass(frozen=True, slots=True)
class Return(TStmt):
    pass


@dataclass(frozen=True, slots=True)
class EndPhase(TStmt):
    pass


@dataclass(frozen=True, slots=True)
class EndGame(TStmt):
    pass


# ----------------------------------------------------------------- declarations


@dataclass(frozen=True, slots=True)
class Variable:
    name: str
    title: str
    scope: str  # "" (one value), "side" or "unit"
    type: str  # int, bool, number, side, unit, hex, or enum:<name>
    values: tuple[str, ...]  # the names of an enumeration
    initial: object
    reset: str | None  # the procedure whose start resets it
    prov: Prov
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Side:
    name: str
    title: str
    short: str
    color: str
    friendly_edge: str
    prov: Prov
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Nationality:
    name: str
    title: str
    side: str
    prov: Prov
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Formation:
    """A colour band on the counters: who a unit fights with (I. Prepare for Play)."""

    name: str
    title: str
    side: str
    band: str  # colour of the band across the top
    stripe: str  # colour of the stripe in the band, "" for none
    prov: Prov
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Brigade:
    """A brigade or detachment, identified by the letter printed on its counters."""

    name: str
    title: str
    side: str
    letter: str
    prov: Prov
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class UnitType:
    name: str
    title: str
    symbol: str
    props: dict[str, Any]
    prov: Prov
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Entry:
    """Turn of entry and where: `enters 5 at a1` (hexes of named entry places)."""

    turn: int
    at: tuple[str, ...]  # hex labels
    variable: bool  # entry needs a die roll (printed in parentheses)


@dataclass(frozen=True, slots=True)
class Unit:
    """A counter: a combat unit (kind "unit") or a leader (kind "leader").

    Per-step values list the full-strength side first: `strengths` (4, 2) is a
    two-step unit. `rifle_strengths` holds the rifle-fire values of
    musket/rifle units (empty otherwise). `provs` gives the provenance of each
    property by name, so that a cited value and an invented one can be told apart.
    """

    name: str
    title: str
    short: str
    side: str
    kind: str
    type: str | None
    nationality: str | None
    formation: str | None
    brigade: str | None
    strengths: tuple[int, ...]
    rifle_strengths: tuple[int, ...]
    morales: tuple[int, ...]
    movement: int
    setup: str | None
    entry: Entry | None
    reduced_title: str
    reduced_short: str
    back: str  # for one-step units and leaders: what the back shows
    commands: TExpr | None  # leaders: which units they may command
    props: dict[str, Any]
    provs: dict[str, Prov]
    prov: Prov
    span: Span = _span()

    @property
    def steps(self) -> int:
        return max(len(self.strengths), 1)


@dataclass(frozen=True, slots=True)
class Marker:
    name: str
    title: str
    short: str
    count: int
    back: str  # name of the marker on the back, "blank", or a text
    color: str
    side: str  # "" when shared by both sides
    prov: Prov
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class FaceField:
    """One thing printed in a slot of a counter: a value, a literal text, stars or a badge."""

    value: str  # name, symbol, strength, …, or a unit attribute; "" for a literal text
    style: str  # "plain", "signed", "stars", "badge" or "text"
    text: str = ""  # the literal text, or the letters in a badge
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class CounterFace:
    """What counters of one kind show and where (`counter_face`, compiler/counters.py).

    Faces stack: the series default first, then each declared face that
    applies, each replacing the slots and colours it names.
    """

    name: str
    title: str
    counters: str  # "unit", "leader" or "marker"
    types: tuple[str, ...]  # the unit types it is for; () for every one
    slots: dict[str, tuple[FaceField, ...]]  # slot -> its fields, left to right
    boxed: tuple[tuple[str, str], ...]  # (value, attribute): boxed in white where set
    colors: dict[str, str]  # "body", "text": the colours it sets
    prov: Prov
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Terrain:
    name: str
    title: str
    color: str
    move: int | None  # None: prohibited
    props: dict[str, Any]
    prov: Prov
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class HexsideFeature:
    name: str
    title: str
    color: str
    move: int | None
    road: bool
    props: dict[str, Any]
    prov: Prov
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Place:
    name: str
    title: str
    hex: str
    prov: Prov


@dataclass(frozen=True, slots=True)
class Zone:
    name: str
    title: str
    hexes: tuple[str, ...]
    prov: Prov


@dataclass(frozen=True, slots=True)
class Map:
    title: str
    columns: tuple[int, int]
    rows: tuple[int, int]
    shifted: str  # "even" or "odd"
    default: str
    terrain: dict[str, str]  # label -> terrain (only hexes not of the default)
    hexsides: dict[tuple[str, str], tuple[str, ...]]  # (a, b) with a < b -> features
    places: tuple[Place, ...]
    zones: tuple[Zone, ...]
    prov: Prov
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class TableRow:
    low: int | None  # range rows: bounds, None for an open end
    high: int | None
    cells: tuple[tuple[object, ...], ...]  # per column, one value per part
    prov: Prov
    span: Span = _span()
    key: str | None = None  # name rows: the row's name


@dataclass(frozen=True, slots=True)
class Table:
    """A table: rows by range of a number (the die) or by name; columns by key."""

    name: str
    title: str
    row_key: str  # "die", or what the rows are looked up by
    row_kind: str  # "range" or "name"
    column_key: str  # "odds", a name, or "" for one column
    column_kind: str  # "odds", "number", "name" or "none"
    columns: tuple[object, ...]
    parts: tuple[str, ...]
    kinds: tuple[str, ...]  # per part: "code", "number" or "name"
    rows: tuple[TableRow, ...]
    prov: Prov
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Result:
    name: str
    title: str
    code: str
    body: tuple[TStmt, ...]
    prov: Prov
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Modifier:
    label: str
    amount: TExpr
    condition: TExpr | None
    prov: Prov
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class ModifierList:
    name: str
    title: str
    modifiers: tuple[Modifier, ...]
    prov: Prov
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Define:
    name: str
    title: str
    params: tuple[tuple[str, str], ...]
    body: TExpr
    prov: Prov
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Step:
    name: str
    title: str
    body: tuple[TStmt, ...]
    rule: str  # the rule switch that patched it in ("" for always)
    prov: Prov
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Procedure:
    name: str
    title: str
    kind: str  # "procedure" or "phase"
    params: tuple[tuple[str, str], ...]
    steps: tuple[Step, ...]
    bindings: dict[str, str]  # every binding and its type
    prov: Prov
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Trigger:
    name: str
    title: str
    event: str
    condition: TExpr | None
    once: bool
    body: tuple[TStmt, ...]
    bindings: dict[str, str]
    rule: str
    prov: Prov
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Restriction:
    name: str
    title: str
    kind: str
    zone: str
    condition: TExpr | None
    until_turn: int | None
    rule: str
    prov: Prov
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Victory:
    name: str
    title: str
    level: str
    winner: str
    condition: TExpr
    prov: Prov
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class VictoryLevel:
    name: str
    title: str
    utility: float
    prov: Prov


@dataclass(frozen=True, slots=True)
class Turn:
    number: int
    label: str  # the clock time printed on the track
    data: dict[str, object]  # per-turn values (heat, entry ranges, …)
    prov: Prov
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class TurnTrack:
    title: str
    turns: tuple[Turn, ...]
    prov: Prov
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Level:
    name: str
    title: str
    low: int | None
    high: int | None
    data: dict[str, object]
    prov: Prov
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Levels:
    """Named bands of a per-side variable (the Army Morale track's levels)."""

    name: str
    title: str
    variable: str
    levels: tuple[Level, ...]
    prov: Prov
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Switch:
    name: str
    title: str
    flags: tuple[str, ...]
    default: bool
    prov: Prov
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Ruleset:
    name: str
    title: str
    library: bool  # a library (the series rules) checks alone but builds no game
    source: str | None  # None, or the reason a ruleset has no source document
    die: tuple[int, int]
    turns: tuple[int, int]
    sides: tuple[Side, ...]
    nationalities: tuple[Nationality, ...]
    formations: tuple[Formation, ...]
    brigades: tuple[Brigade, ...]
    unit_types: tuple[UnitType, ...]
    units: tuple[Unit, ...]
    markers: tuple[Marker, ...]
    terrain: tuple[Terrain, ...]
    hexside_features: tuple[HexsideFeature, ...]
    map: Map | None
    tables: tuple[Table, ...]
    results: tuple[Result, ...]
    modifiers: tuple[ModifierList, ...]
    defines: tuple[Define, ...]
    procedures: tuple[Procedure, ...]
    triggers: tuple[Trigger, ...]
    restrictions: tuple[Restriction, ...]
    victories: tuple[Victory, ...]
    victory_levels: tuple[VictoryLevel, ...]
    switches: tuple[Switch, ...]
    variables: tuple[Variable, ...]
    turn_track: TurnTrack | None
    levels: tuple[Levels, ...]
    start: str
    files: tuple[str, ...]
    prov: Prov
    counter_faces: tuple[CounterFace, ...] = ()  # declared looks; see compiler/counters.py
