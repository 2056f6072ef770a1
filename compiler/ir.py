"""The checked intermediate representation of a ruleset.

Names are resolved, values typed and every construct carries its provenance
(citations, provisional reasons) and its span. Backends (the engine code
generator, `muster dump`, print-and-play) read only this. Frozen throughout.
"""

from __future__ import annotations

from collections.abc import Iterator
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
    """A per-side or per-unit variable: `army_morale[red]`, `u.pinned`."""

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
class Conditional(TExpr):
    test: TExpr = field(default_factory=lambda: TExpr("bool"))
    then: TExpr = field(default_factory=lambda: TExpr("int"))
    orelse: TExpr = field(default_factory=lambda: TExpr("int"))


@dataclass(frozen=True, slots=True)
class ListOf(TExpr):
    items: tuple[TExpr, ...] = ()


@dataclass(frozen=True, slots=True)
class Text(TExpr):
    """`"{u} falls back {n} hexes"`: a text with values, each shown as a
    player reads it (a unit's name, a hex's label, yes/no)."""

    parts: tuple[str | TExpr, ...] = ()


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
    total: str | None = None  # the modified roll (a die roll on no table: the natural face)
    natural: str | None = None  # a table roll's face before the modifiers


@dataclass(frozen=True, slots=True)
class Choose(TStmt):
    var: str = ""
    elem_type: str = ""
    options: TExpr = field(default_factory=lambda: TExpr("units"))
    chooser: TExpr = field(default_factory=lambda: TExpr("side"))
    mode: str = ""  # "", "maybe" (may pick none) or "secretly" (hidden until revealed)


@dataclass(frozen=True, slots=True)
class Reveal(TStmt):
    names: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Draw(TStmt):
    """Draw a token from a bag at random (a chance node)."""

    bag: str = ""
    into: str = ""


@dataclass(frozen=True, slots=True)
class Break(TStmt):
    pass


@dataclass(frozen=True, slots=True)
class Ask(TStmt):
    chooser: TExpr = field(default_factory=lambda: TExpr("side"))
    question: TExpr = field(default_factory=lambda: TExpr("str"))  # a text, `{u}` values shown
    var: str = ""
    yes: tuple[TStmt, ...] = ()
    no: tuple[TStmt, ...] = ()
    mode: str = ""  # "" or "secretly" (the other side sees that it was answered until revealed)


@dataclass(frozen=True, slots=True)
class ApplyResult(TStmt):
    result: TExpr = field(default_factory=lambda: TExpr("code"))
    args: tuple[tuple[str, TExpr], ...] = ()


@dataclass(frozen=True, slots=True)
class CallProc(TStmt):
    proc: str = ""
    args: tuple[tuple[str, TExpr], ...] = ()
    into: str | None = None  # the caller's binding that receives the procedure's result


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
    scope: str  # "" (one value), "side", "unit" or "hex"
    type: str  # int, bool, number, side, unit, hex, or enum:<name>
    values: tuple[str, ...]  # the names of an enumeration
    initial: object
    reset: str | None  # the procedure whose start resets it
    announce: bool  # the play log tells every change (Army Morale 20 → 19)
    prov: Prov
    span: Span = _span()
    secret: str = ""  # "" public, a side's name: only it reads the value, "each": its own


@dataclass(frozen=True, slots=True)
class Side:
    name: str
    title: str
    short: str
    color: str
    friendly_edge: str
    prov: Prov
    span: Span = _span()
    provs: dict[str, Prov] = field(default_factory=dict)  # each line's provenance


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
    provs: dict[str, Prov] = field(default_factory=dict)  # each line's provenance


@dataclass(frozen=True, slots=True)
class Brigade:
    """A brigade or detachment, identified by the letter printed on its counters."""

    name: str
    title: str
    side: str
    letter: str
    prov: Prov
    span: Span = _span()
    provs: dict[str, Prov] = field(default_factory=dict)  # each line's provenance


@dataclass(frozen=True, slots=True)
class Attribute:
    """A value units, leaders or unit types may carry (`rank`, `rifle`, `artillery`)."""

    name: str
    title: str
    type: str  # bool, int or str
    values: tuple[str, ...]  # the names a `str` attribute may take ("" for any)
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
    """A counter: a combat unit (kind "unit"), a leader ("leader") or a non-combat piece ("piece").

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
    provs: dict[str, Prov] = field(default_factory=dict)  # each line's provenance


@dataclass(frozen=True, slots=True)
class FaceField:
    """One thing printed in a slot of a counter: a value, a literal text, stars or a badge."""

    value: str  # name, symbol, strength, …, or a unit attribute; "" for a literal text
    style: str  # "plain", "signed", "stars", "badge" or "text"
    text: str = ""  # the literal text, or the letters in a badge
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class CounterFace:
    """What counters of one kind show and where (`counter_face`, compiler/check/counters.py).

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
class MoveCost:
    """One movement entry of the TEC: MP for every unit, and for named movement classes.

    None means prohibited. A unit's class is its `move_class` attribute; a
    class with no entry of its own pays `default`.
    """

    default: int | None
    classes: tuple[tuple[str, int | None], ...] = ()
    span: Span = _span()

    def for_class(self, move_class: str) -> int | None:
        for name, cost in self.classes:
            if name == move_class:
                return cost
        return self.default


@dataclass(frozen=True, slots=True)
class Terrain:
    """A hex terrain type: its TEC row and how it is drawn."""

    name: str
    title: str
    color: str
    pattern: str  # drawing pattern over the colour: "none", "trees", …
    move: MoveCost  # MP to enter a hex of this terrain (9.4)
    blocks_los: bool  # 11.42
    zoc_into: bool  # a ZOC extends into a hex of this terrain (8.1)
    zoc_out_of: bool  # a ZOC extends out of it
    props: dict[str, Any]
    prov: Prov
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class HexsideFeature:
    """A hexside type: its TEC row and how it is drawn.

    A *directional* feature belongs to one of its two hexes (the up-slope hex
    of a slope, the hex behind fieldworks), written first on the map (`a/b`).
    Crossing *into* is crossing toward that hex, *out of* away from it.
    """

    name: str
    title: str
    color: str
    draw: str  # drawing style: "line", "stream", "slope", "road", …
    move: MoveCost  # extra MP to cross (9.4); the whole cost for a road (9.51)
    move_into: MoveCost  # directional features: crossing toward the marked hex
    move_out_of: MoveCost
    road: bool  # 9.51: crossing along it costs `move` whatever else is there
    strategic: bool  # 9.52: a road that carries strategic movement
    directional: bool
    slope: bool  # a slope hexside for line of sight (11.41, 11.43); directional
    zoc_into: bool  # a ZOC crosses it toward the marked hex (both ways if not directional)
    zoc_out_of: bool  # a ZOC crosses it away from the marked hex
    replaces: tuple[str, ...]  # features whose movement effects it cancels (a ford: creek)
    combines: tuple[str, ...]  # a combined type (9.4), present where all of these meet
    # Features the rules' questions find here too (hexside_has, crossing_into):
    # a battle's breastwork counts as the series' fieldworks (13.5).
    counts_as: tuple[str, ...]
    props: dict[str, Any]
    prov: Prov
    span: Span = _span()
    # `impassable unless terrain_changed(C)`: no unit crosses it until the terrain
    # change C is made (a ford usable only while the pontoon stands); "" for always.
    unless: str = ""
    unless_span: Span = _span()


@dataclass(frozen=True, slots=True)
class Place:
    name: str
    title: str
    hex: str
    prov: Prov
    victory: bool = False  # drawn as a victory hex


@dataclass(frozen=True, slots=True)
class Zone:
    name: str
    title: str
    hexes: tuple[str, ...]
    prov: Prov
    kind: str = "zone"  # "zone"; "entry" (where units enter, drawn with the title); "line" (dashed)


@dataclass(frozen=True, slots=True)
class Map:
    title: str
    columns: tuple[int, int]
    rows: tuple[int, int]
    shifted: str  # "even" or "odd"
    default: str
    terrain: dict[str, str]  # label -> terrain (only hexes not of the default)
    # (a, b) with a < b -> {feature: the marked hex of a directional feature, else ""}
    hexsides: dict[tuple[str, str], dict[str, str]]
    places: tuple[Place, ...]
    zones: tuple[Zone, ...]
    prov: Prov
    span: Span = _span()
    los_range: int | None = None  # precompute LOS at least this far (default: longest `range`)


@dataclass(frozen=True, slots=True)
class TerrainChange:
    """A change of the map in play — a bridge blown, a ford flooded, a village
    burnt: hexes that take another terrain and hexside features added or
    removed, made by the `change_terrain` effect and shown by a marker."""

    name: str
    title: str
    hexes: dict[str, str]  # label -> the terrain it has once changed
    added: dict[tuple[str, str], dict[str, str]]  # (a, b), a < b -> feature -> its marked hex
    removed: dict[tuple[str, str], tuple[str, ...]]  # (a, b), a < b -> features taken away
    marker: str  # the marker counter placed to show it ("" for none)
    prov: Prov
    span: Span = _span()
    # `FEATURE one_of HEXSIDES…`: the change is made at one of these places, chosen
    # in play (`change_terrain(pontoon, at: where)`); empty for a fixed change.
    places: tuple[TerrainAt, ...] = ()


@dataclass(frozen=True, slots=True)
class TerrainAt:
    """What a terrain change does at one of its candidate places (a hexside "a/b" or a hex)."""

    place: str
    hexes: dict[str, str]
    added: dict[tuple[str, str], dict[str, str]]
    removed: dict[tuple[str, str], tuple[str, ...]]


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
    params: tuple[tuple[str, str], ...]
    body: tuple[TStmt, ...]
    bindings: dict[str, str]
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
    result: tuple[str, str] | None  # (binding, type) handed back to `call … into`
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
class Impossible:
    """A position no play of the rules reaches (`impossible`): loaded positions
    where the condition holds are refused; the fuzzers check play never gets there."""

    name: str
    title: str
    condition: TExpr
    rule: str
    prov: Prov
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Concealment:
    """Units a side may not examine (series 7.4 exceptions): its observations
    show only how many units stand in their hexes."""

    name: str
    title: str
    observer: str  # the side that may not look
    condition: TExpr | None  # over `unit` and `hex`: which units it may not see
    rule: str
    prov: Prov
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Restriction:
    name: str
    title: str
    kind: str  # no_entry, no_end, confined_to, no_move, allowance, max_hexes, no_arrival
    zone: str  # "" for every hex
    condition: TExpr | None
    until_turn: int | None
    value: TExpr | None  # allowance: the movement allowance
    rule: str
    prov: Prov
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Exit:
    """`exit`: where units may leave the map on purpose, at what cost in MP, and
    which units may (the condition over `unit`). An exited unit is out of play,
    neither eliminated nor captured, and counted by `exited_units(side)`."""

    name: str
    title: str
    hexes: tuple[str, ...]  # the hexes a unit leaves the map from (an edge's hexes included)
    edges: tuple[str, ...]  # the map edges named, as written
    cost: int  # MP spent to leave the map
    condition: TExpr | None
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
    scenarios: tuple[str, ...]  # where it applies; empty: every scenario
    check: str  # "end_of_turn" (automatic victory) or "end_of_game"
    prov: Prov
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class BotWeights:
    """`bot_weights`: the heuristic bot's weights for a battle (compiler/check/bot_weights.py)."""

    name: str
    scenarios: tuple[str, ...]  # empty: every scenario
    terms: dict[str, float]
    variables: dict[str, float]  # per-side variable -> weight
    terrain: dict[str, float]  # terrain attribute -> weight per point
    objectives: tuple[tuple[str, str], ...]  # (hex label, side name or "" for both)
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
    provs: dict[str, Prov] = field(default_factory=dict)  # each value's own provenance


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
class Bag:
    """An opaque container of tokens (markers or cards) drawn at random."""

    name: str
    title: str
    contents: tuple[str, ...]  # token names, repeated for several copies
    prov: Prov
    span: Span = _span()
    seen_by: tuple[str, ...] = ()  # the sides that may look into it; the others see its size


@dataclass(frozen=True, slots=True)
class PlacedUnit:
    """A unit as a scenario places it: maybe reduced, maybe with variables set."""

    name: str
    reduced: bool
    assigns: tuple[tuple[str, TExpr], ...]


@dataclass(frozen=True, slots=True)
class SetupEntry:
    """Units set up in a hex, or in a hex their owner chooses among `hexes` (or
    among the hexes meeting `condition`)."""

    hexes: tuple[str, ...]
    condition: TExpr | None
    chosen: bool
    units: tuple[PlacedUnit, ...]
    prov: Prov
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class ScenarioEntry:
    """Units a scenario brings on as reinforcements: the turn and where."""

    turn: int
    hexes: tuple[str, ...]
    units: tuple[PlacedUnit, ...]
    prov: Prov
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class StartValue:
    """A scenario's starting value of a variable (`army_morale red 20`)."""

    variable: str
    index: TExpr | None
    value: TExpr
    prov: Prov
    span: Span = _span()


@dataclass(frozen=True, slots=True)
class Scenario:
    name: str
    title: str
    turns: tuple[int, int]
    values: tuple[StartValue, ...]
    orders: dict[int, tuple[str, ...]]  # turn -> sides in the order they play
    rules_off: tuple[str, ...]
    rules_on: tuple[str, ...]
    printed_setup: bool
    setup: tuple[SetupEntry, ...]
    reinforcements: tuple[ScenarioEntry, ...]
    stacking: TExpr | None  # `units` bound: what every hex must meet after set-up
    provs: dict[str, Prov]
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
    part_of: str = ""  # the rule this one is an option within (played only with it)
    excludes: tuple[str, ...] = ()  # the rules never played with it


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
    attributes: tuple[Attribute, ...]
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
    scenarios: tuple[Scenario, ...]
    bags: tuple[Bag, ...]
    start: str
    files: tuple[str, ...]
    prov: Prov
    counter_faces: tuple[CounterFace, ...] = ()  # declared looks; see compiler/check/counters.py
    concealments: tuple[Concealment, ...] = ()
    impossibles: tuple[Impossible, ...] = ()
    bot_weights: tuple[BotWeights, ...] = ()
    terrain_changes: tuple[TerrainChange, ...] = ()
    exits: tuple[Exit, ...] = ()


def statements(body: tuple[TStmt, ...]) -> Iterator[TStmt]:
    """Every statement of a body, nested ones (in ifs, loops, asks) included."""
    for stmt in body:
        yield stmt
        for name in ("body", "orelse", "yes", "no"):
            inner = getattr(stmt, name, None)
            if isinstance(inner, tuple):
                yield from statements(inner)


def nodes_of(value: object, cls: Any) -> Iterator[Any]:
    """Every node of type `cls` (a class or a union) in a tree of IR dataclasses,
    tuples and lists; where each was written (`span`, `prov`) is not looked into."""
    if isinstance(value, cls):
        yield value
    if isinstance(value, tuple | list):
        for v in value:
            yield from nodes_of(v, cls)
    elif hasattr(value, "__dataclass_fields__"):
        for name in value.__dataclass_fields__:
            if name not in ("span", "prov", "provs"):
                yield from nodes_of(getattr(value, name), cls)
