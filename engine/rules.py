"""Run-time form of a compiled ruleset: the data a generated engine package supplies.

A generated package builds one `Rules` from literals and compiled functions;
the engine reads it and never parses anything. Everything here is immutable
and indexed by small integers (sides, units, hexes, terrain) so that the hot
paths of play are tuple look-ups.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from engine.instructions import Instruction, Label, assemble

Fn = Callable[..., Any]


@dataclass(frozen=True, slots=True)
class SideSpec:
    name: str
    title: str
    short: str
    color: str
    friendly_edge: str  # "west", "east", "north", "south" or ""


@dataclass(frozen=True, slots=True)
class UnitTypeSpec:
    name: str
    title: str
    props: dict[str, int | bool | str]


@dataclass(frozen=True, slots=True)
class UnitSpec:
    """A counter: a combat unit or a leader.

    Per-step tuples (`strengths`, `morales`, `rifle_strengths`) hold one value
    per step, full strength first. `props` holds the other printed values
    (close-combat DRM, rank, …).
    """

    name: str
    title: str
    short: str
    side: int
    kind: str  # "unit", "leader" or "piece" (neither: a herd, a wagon train)
    type: int  # index into Rules.unit_types, -1 for leaders
    strengths: tuple[int, ...]
    movement: int
    setup: int  # hex id, -1 when the unit does not start on the map
    props: dict[str, int | bool | str]
    morales: tuple[int, ...] = ()
    rifle_strengths: tuple[int, ...] = ()
    formation: str = ""
    brigade: str = ""
    nationality: str = ""
    entry_turn: int = 0  # 0: not a reinforcement
    entry_hexes: tuple[int, ...] = ()
    variable_entry: bool = False
    commands: Fn | None = None  # leaders: (state, {"unit": u}) -> may command u


def props_by_unit(
    units: tuple[UnitSpec, ...], unit_types: tuple[UnitTypeSpec, ...], blanks: dict[str, Any]
) -> dict[str, tuple[Any, ...]]:
    """Every declared attribute (`blanks`: each with its type's blank, in name order),
    one value per unit: the unit's own, else its type's, else the blank."""

    def value(u: UnitSpec, attr: str) -> Any:
        if attr in u.props:
            return u.props[attr]
        own = unit_types[u.type].props if u.type >= 0 else {}
        return own.get(attr, blanks[attr])

    return {attr: tuple(value(u, attr) for u in units) for attr in blanks}


@dataclass(frozen=True, slots=True)
class TerrainSpec:
    """A hex terrain type; what the rules need of it at run time is in `BoardSpec`."""

    name: str
    title: str
    color: str
    props: dict[str, int | bool | str]
    prohibited: bool = False  # no unit may enter (TEC "-")


@dataclass(frozen=True, slots=True)
class HexsideSpec:
    """A hexside feature type; its effects are compiled into `BoardSpec`'s tables."""

    name: str
    title: str
    color: str
    props: dict[str, int | bool | str]
    unless: str = ""  # impassable unless this terrain change is made


# One template entry of the line-of-sight table: for a target at offset
# (dc, dr) from a hex of one column parity, the ways the line can be traced.
# `slots` lists, in order from the firer, each place the line passes: one
# alternative (a hex it crosses) or two (the hexes on either side of a hexside
# it runs along, 11.44, or of a corner it passes through). `choices` are the
# paths that picking one alternative per slot gives, each a tuple of the
# offsets of the hexes it passes through.
LosSlot = tuple[tuple[tuple[int, int], ...], ...]
LosTemplate = tuple[tuple[LosSlot, ...], tuple[tuple[tuple[int, int], ...], ...]]


@dataclass(frozen=True, slots=True)
class BoardSpec:
    """The map as run-time tables, built by the compiler's map model.

    Hexes are ids in label order (column by column). Per hex and direction
    (0..5, clockwise from north): `neighbors` is the hex there or -1 off the
    map; `hexsides` is a bitmask of the hexside features on that side (as
    written, plus combined types); `move_cost[c]` is the MP a unit of movement
    class c pays to step there (hex and hexside costs, roads, 9.4/9.51) or -1
    where it may not. `road`, `strategic`, `zoc_out` and `slope_up` are 6-bit
    masks per hex: a road crosses that side; a road or track that carries
    strategic movement does (9.52); a ZOC extends across it from this hex
    (8.1); it is a slope whose up-slope side is this hex (11.43).

    Line of sight is precomputed up to `los_range`: `los_templates[p]` holds
    the traces from a hex of parity p (1: shifted column) to every offset
    `los_index[p]` numbers, and `los_codes[h][i]` says, for each choice of
    template entry i from hex h, 2 bits: 0 blocked by terrain or slopes,
    1 clear unless a combat unit stands in one of its hexes, 2 clear whatever
    stands there (both units up slope, 11.43 C).
    """

    title: str
    labels: tuple[str, ...]
    grid: tuple[int, int, int, int, int]  # first and last column, first and last row, shifted
    terrain: tuple[int, ...]
    neighbors: tuple[tuple[int, ...], ...]
    hexsides: tuple[tuple[int, ...], ...]
    owned: tuple[tuple[int, ...], ...]  # per side: directional features belonging to this hex
    cube: tuple[tuple[int, int, int], ...]
    columns: tuple[int, ...]
    rows: tuple[int, ...]
    edge_distance: dict[str, tuple[int, ...]]  # "west" -> hexes from that map edge, per hex
    places: dict[str, int]
    zones: dict[str, frozenset[int]]
    move_classes: tuple[str, ...]  # "" (a unit of no declared class) first
    move_cost: tuple[tuple[tuple[int, ...], ...], ...]
    road: tuple[int, ...]
    strategic: tuple[int, ...]
    zoc_out: tuple[int, ...]
    los_blocks: tuple[bool, ...]  # blocking terrain (11.42)
    slope_up: tuple[int, ...]
    los_range: int
    los_index: tuple[dict[tuple[int, int], int], ...]
    los_templates: tuple[tuple[LosTemplate, ...], ...]
    los_codes: tuple[tuple[int, ...], ...]


@dataclass(frozen=True, slots=True)
class TerrainChangeSpec:
    """A change of the map the rules may make in play (`terrain_change`).

    Its marker goes on each of the `hexes` whose terrain it changes and each of
    the `hexsides` (pairs of hexes) it changes. Changes of one `group` touch
    neighbouring hexes, so
    their effects on the board's tables combine; `Rules.board_patches` holds
    the tables' changed rows for each combination of a group's changes made.
    A change with `places` is made at one of them, chosen in play (a pontoon
    laid at one of ten crossings): each place's label, hexes and hexsides.
    """

    name: str
    title: str
    marker: str
    hexes: tuple[int, ...]
    hexsides: tuple[tuple[int, int], ...]
    group: int
    places: tuple[tuple[str, tuple[int, ...], tuple[tuple[int, int], ...]], ...] = ()


# The rows of a board's tables that a combination of terrain changes alters:
# (table, hex, the hex's row as changed); a `move_cost` row holds every class's.
BoardPatch = tuple[tuple[str, int, Any], ...]


class TableRow(NamedTuple):
    """A row of a table: `low` and `high` bound the number it is read for (None for an
    open end) or `key` names it; `cells` holds one cell per column."""

    low: int | None
    high: int | None
    key: str | None
    cells: tuple[tuple[Any, ...], ...]


@dataclass(frozen=True, slots=True)
class TableSpec:
    """A table: rows by range of a number (the modified die roll) or by name.

    `rows` holds `TableRow`s: bounds with None for an open end
    (range rows) or the row's name (name rows). Each cell is one value per
    part: result indices for code parts (-1 for none), ints or names.
    `columns` holds the column keys: odds as (attack, defend) pairs, numbers
    or names; a table without columns has one, keyed None.
    """

    name: str
    title: str
    row_key: str
    column_kind: str  # "odds", "number", "name" or "none"
    columns: tuple[Any, ...]
    parts: tuple[str, ...]
    kinds: tuple[str, ...]
    rows: tuple[TableRow, ...]


@dataclass(frozen=True, slots=True)
class ResultSpec:
    name: str
    title: str
    code: str
    procedure: str  # the procedure that applies it ("" for no effect)


@dataclass(frozen=True, slots=True)
class ModifierSpec:
    label: str
    amount: Fn  # (state, bindings) -> int
    condition: Fn | None  # (state, bindings) -> bool


@dataclass(frozen=True, slots=True)
class ModifierListSpec:
    name: str
    title: str
    modifiers: tuple[ModifierSpec, ...]


@dataclass(frozen=True, slots=True)
class ProcedureSpec:
    """A procedure as instructions for `engine.interpreter`.

    `code` is a tuple of instruction records (`engine/instructions.py`), jumps
    by index; `steps` maps each step name to the index of its first
    instruction; `labels` every place a jump names (steps as `step:NAME`),
    `jump_labels` the label each jump named, by the jump's index;
    `types` gives the type of every binding, so saves can show names instead
    of numbers. The generated code builds one with `procedure`.
    """

    name: str
    title: str
    kind: str  # "procedure" or "phase"
    params: tuple[str, ...]
    code: tuple[Instruction, ...]
    steps: dict[str, int]
    types: dict[str, str]
    lines: tuple[str, ...]  # source location of each instruction, for error messages
    result: str = ""  # the binding handed back to `call … into`
    labels: dict[str, int] = field(default_factory=dict)
    jump_labels: dict[int, str] = field(default_factory=dict)  # the label each jump named


STEP_LABEL = "step:"


def procedure(
    *,
    name: str,
    title: str,
    kind: str,
    params: tuple[str, ...],
    code: tuple[Instruction | Label, ...],
    types: dict[str, str],
    lines: tuple[str, ...],
    result: str = "",
) -> ProcedureSpec:
    """A procedure from its generated code: labels resolved to instruction indices,
    and the steps found from their labels (`step:NAME`)."""
    instructions, labels, named = assemble(code)
    steps = {k.removeprefix(STEP_LABEL): pc for k, pc in labels.items() if k.startswith(STEP_LABEL)}
    if len(lines) != len(instructions):
        raise ValueError(f"{name}: {len(instructions)} instructions, {len(lines)} rule lines")
    return ProcedureSpec(
        name, title, kind, params, instructions, steps, types, lines, result, labels, named
    )


@dataclass(frozen=True, slots=True)
class TriggerSpec:
    name: str
    title: str
    event: str
    condition: Fn | None
    once: bool
    procedure: str
    rule: str  # the rule switch it belongs to ("" for always)


@dataclass(frozen=True, slots=True)
class ConcealSpec:
    """Units a side may not examine: `condition(state, {"unit": u, "hex": h})`."""

    name: str
    observer: int
    condition: Fn | None
    rule: str


@dataclass(frozen=True, slots=True)
class ImpossibleSpec:
    """A position no play of the rules reaches: `condition(state, {})` holds there."""

    name: str
    title: str
    cite: str  # "§ series 9.2", named when a loaded position is refused
    condition: Fn
    rule: str  # the rule switch it belongs to ("" for always)


# The restrictions tested for a hex a unit enters or ends its move in.
HEX_RESTRICTIONS = frozenset({"no_entry", "no_end", "confined_to"})


@dataclass(frozen=True, slots=True)
class RestrictionSpec:
    name: str
    title: str
    kind: str  # no_entry, no_end, confined_to, no_move, allowance, max_hexes, no_arrival, no_combat
    zone: str  # "" for every hex
    condition: Fn | None
    until_turn: int | None
    rule: str
    value: Fn | None = None  # allowance: (state, {"unit": u}) -> movement allowance
    # A hex restriction's condition in two parts (compiler/restriction_parts.py): the
    # leading conditions that read no hex (`unit` alone), then the rest; the
    # condition holds when both do (a part left out holds). Made without them
    # (both None), the whole condition is the hex's part.
    unit_part: Fn | None = None
    hex_part: Fn | None = None


@dataclass(frozen=True, slots=True)
class ExitSpec:
    """Where units may leave the map on purpose (an `exit`): from `hexes`, for
    `cost` MP, the units `condition(state, {"unit": u, "hex": h})` allows."""

    name: str
    title: str
    hexes: frozenset[int]
    cost: int
    condition: Fn | None
    rule: str  # the rule switch it belongs to ("" for always)


@dataclass(frozen=True, slots=True)
class VictorySpec:
    name: str
    title: str
    level: str
    winner: int
    condition: Fn
    scenarios: tuple[str, ...] = ()  # empty: every scenario
    check: str = "end_of_game"  # or "end_of_turn"


@dataclass(frozen=True, slots=True)
class PlacementSpec:
    """Units set up together: in one hex, or each in a hex its owner chooses.

    `units` holds (unit, reduced, assigns) with assigns as (variable, value
    function) pairs; `hexes` are the allowed hexes (all hexes when empty), and
    `condition(s, {"unit": u, "hex": h})` may narrow them for the unit placed.
    """

    hexes: tuple[int, ...]
    condition: Fn | None
    chosen: bool
    units: tuple[tuple[int, bool, tuple[tuple[str, Fn], ...]], ...]


@dataclass(frozen=True, slots=True)
class ScenarioSpec:
    name: str
    title: str
    first_turn: int
    last_turn: int
    values: tuple[tuple[str, Fn | None, Fn], ...]  # variable, index function, value function
    orders: dict[int, tuple[int, ...]]
    rules_off: tuple[str, ...]
    rules_on: tuple[str, ...]
    printed_setup: bool
    setup: tuple[PlacementSpec, ...]
    reinforcements: tuple[
        tuple[int, tuple[int, ...], tuple[tuple[int, bool, tuple[tuple[str, Fn], ...]], ...]], ...
    ]
    stacking: Fn | None = None  # `stacking(s, {"units": units})`: every hex after set-up


@dataclass(frozen=True, slots=True)
class VariableSpec:
    """A state variable: one value, or one per side, or one per unit."""

    name: str
    scope: str  # "", "side", "unit" or "hex"
    type: str
    initial: Any
    reset: str  # procedure whose start resets it ("" for never)
    title: str
    announce: bool  # the play log tells every change
    secret: int = -1  # PUBLIC, a side (only it reads the value), or EACH_SIDE (each its own)
    values: tuple[str, ...] = ()  # a secret enumeration's values (the bots guess among them)


PUBLIC = -1  # a variable every side reads
EACH_SIDE = -2  # a per-side variable each side reads only its own value of


class Level(NamedTuple):
    """A band of a `LevelsSpec`: from `low` to `high` (None for an open end)."""

    name: str
    low: int | None
    high: int | None
    data: dict[str, Any]


@dataclass(frozen=True, slots=True)
class LevelsSpec:
    """Named bands of a per-side variable, from the bottom up."""

    name: str
    variable: str
    levels: tuple[Level, ...]


@dataclass(frozen=True, slots=True)
class RuleSwitchSpec:
    """A `rule` a game plays or leaves out (`engine/rule_switches.py`)."""

    name: str
    title: str
    default: bool
    flags: tuple[str, ...]
    part_of: str = ""  # the rule it is an option within: never on while that one is off
    excludes: tuple[str, ...] = ()  # the rules never on while it is


@dataclass(frozen=True, slots=True)
class BotWeightsSpec:
    """A `bot_weights` declaration: how the heuristic bot values a position.

    `terms` holds the named weights (engine/bots/weights.py lists them),
    `variables` a weight per per-side variable (own value minus the enemy's),
    `terrain` a weight per point of a terrain attribute of the hex a unit
    stands in, `objectives` (hex, side or -1 for both, weight) the hexes the
    bot makes for. `scenarios` empty: every scenario.
    """

    name: str
    scenarios: tuple[str, ...]
    terms: dict[str, float]
    variables: dict[str, float]
    terrain: dict[str, float]
    objectives: tuple[tuple[int, int, float], ...]


@dataclass(frozen=True, slots=True)
class GoalSpec:
    """What one way of winning reads (compiler/goals.py), for the bots: a victory
    condition's or a winning trigger's `winner`, in `scenarios` (empty: every
    one); the sides whose exited units it counts and the per-side variables it
    reads, each with a direction (+1: the more, the nearer that win; -1: the
    less; 0: not known); the hexes it names; the rule switch a winning trigger
    is under (a way of winning only while its rule is on)."""

    winner: int
    scenarios: tuple[str, ...]
    exits: tuple[tuple[int, int], ...]  # (side, direction)
    hexes: tuple[int, ...]
    variables: tuple[tuple[str, int, int], ...]  # (variable, side, direction)
    rule: str = ""


@dataclass(frozen=True, slots=True)
class Rules:
    name: str
    title: str
    die: tuple[int, int]
    first_turn: int
    last_turn: int
    sides: tuple[SideSpec, ...]
    unit_types: tuple[UnitTypeSpec, ...]
    units: tuple[UnitSpec, ...]
    terrain: tuple[TerrainSpec, ...]
    hexside_features: tuple[HexsideSpec, ...]
    board: BoardSpec
    tables: tuple[TableSpec, ...]
    results: tuple[ResultSpec, ...]
    modifiers: dict[str, ModifierListSpec]
    procedures: dict[str, ProcedureSpec]
    triggers: tuple[TriggerSpec, ...]
    restrictions: tuple[RestrictionSpec, ...]
    victory: tuple[VictorySpec, ...]
    victory_levels: dict[str, float]
    switches: tuple[RuleSwitchSpec, ...]
    start_procedure: str
    variables: tuple[VariableSpec, ...] = ()
    # The game-turn track: turn number -> (clock label, per-turn data).
    turn_track: dict[int, tuple[str, dict[str, Any]]] = field(default_factory=dict)
    levels: dict[str, LevelsSpec] = field(default_factory=dict)
    scenarios: tuple[ScenarioSpec, ...] = ()
    bags: dict[str, tuple[str, ...]] = field(default_factory=dict)  # bag -> tokens at the start
    markers: tuple[str, ...] = ()  # every marker, by name: what a bag may come to hold
    concealments: tuple[ConcealSpec, ...] = ()
    impossibles: tuple[ImpossibleSpec, ...] = ()
    # Who may look into each bag (a bag left out is seen by every side).
    bag_seen_by: dict[str, tuple[int, ...]] = field(default_factory=dict)
    # Every unit attribute (from the unit or its type) as one value per unit.
    unit_props: dict[str, tuple[Any, ...]] = field(default_factory=dict)
    # The map's victory hexes (`place … victory`) and the bot weights declared.
    victory_hexes: tuple[int, ...] = ()
    bot_weights: tuple[BotWeightsSpec, ...] = ()
    # "kind:name" -> (title, "§ …" citation, provisional reason) of the declarations
    # the engine explains to a player (engine/explain.py).
    sources: dict[str, tuple[str, str, str]] = field(default_factory=dict)
    # Terrain the rules may change in play, and the board rows each combination of
    # the changes of one group alters, keyed by the changes' indices (in order).
    terrain_changes: tuple[TerrainChangeSpec, ...] = ()
    board_patches: dict[tuple[str, ...], BoardPatch] = field(default_factory=dict)
    # Where units may leave the map on purpose.
    exits: tuple[ExitSpec, ...] = ()
    # What each way of winning reads, for the bots.
    goals: tuple[GoalSpec, ...] = ()

    def side_index(self, name: str) -> int:
        return next(i for i, s in enumerate(self.sides) if s.name == name)

    def unit_index(self, name: str) -> int:
        return next(i for i, u in enumerate(self.units) if u.name == name)

    def table_index(self, name: str) -> int:
        return next(i for i, t in enumerate(self.tables) if t.name == name)
