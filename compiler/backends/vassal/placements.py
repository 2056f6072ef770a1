"""Where each scenario puts each unit: a hex, or the turn box it waits in.

Fixed set-up lines and printed set-ups are read from the IR. A `choose`
line lets the owner pick; the module starts the unit on the first hex the
engine would offer (the engine's own set-up options, so a condition such as
`terrain(hex) == village` is read exactly as in play) and says in the
set-up's description which hexes the owner may choose instead.
Reinforcements wait in the box of the turn they enter. The units a `conceal`
declaration keeps from a side at the start (the engine's own reading of its
condition) start masked.
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler import ir
from engine.game import Game
from engine.primitives import get
from engine.rules import PlacementSpec
from engine.state import ON_MAP, State


@dataclass(frozen=True, slots=True)
class Placement:
    unit: str
    hex: str | None  # on the map, or None for a turn box
    turn: int | None  # the turn box of a reinforcement
    reduced: bool


@dataclass(frozen=True, slots=True)
class Choice:
    """A unit set up on the first allowed hex of a choice its owner may make otherwise."""

    unit: str
    placed: str
    allowed: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class SetUp:
    scenario: ir.Scenario
    placements: tuple[Placement, ...]
    choices: tuple[Choice, ...]
    concealed: frozenset[str] = frozenset()  # units the rules keep from a side at the start


def scenario_setup(rules: ir.Ruleset, sc: ir.Scenario, game: Game) -> SetUp:
    """The scenario's starting positions; `game` is its engine, made for this scenario."""
    board = _Board(game)
    if sc.printed_setup:
        printed = _printed(rules)
        for p in printed:
            if p.hex is not None:
                board.put(p.unit, board.labels.index(p.hex))
        return SetUp(sc, printed, (), board.concealed())
    fixed = _fixed(sc, board)
    chosen, choices = _chosen(sc, game, board)
    waiting = [
        Placement(p.name, None, e.turn, p.reduced) for e in sc.reinforcements for p in e.units
    ]
    return SetUp(sc, tuple(fixed + chosen + waiting), tuple(choices), board.concealed())


def _printed(rules: ir.Ruleset) -> tuple[Placement, ...]:
    """The set-up printed on the counters: a unit's set-up hex, or its entry turn's box."""
    out = []
    for u in rules.units:
        if u.setup:
            out.append(Placement(u.name, u.setup, None, False))
        elif u.entry is not None:
            out.append(Placement(u.name, None, u.entry.turn, False))
    return tuple(out)


class _Board:
    """The engine's state as the set-up fills it, so that each choice is offered
    the hexes left open by the units placed before it."""

    def __init__(self, game: Game) -> None:
        self.index = {u.name: i for i, u in enumerate(game.rules.units)}
        self.labels = game.rules.board.labels
        self.state = State(game)
        self.setup = get("setup")

    def put(self, unit: str, hex_index: int) -> None:
        u = self.index[unit]
        self.state.unit_hex[u] = hex_index
        self.state.unit_status[u] = ON_MAP

    def concealed(self) -> frozenset[str]:
        """The units placed so far that a `conceal` declaration keeps from some side."""
        names = [u.name for u in self.state.game.rules.units]
        sides = range(len(self.state.game.rules.sides))
        return frozenset(names[u] for p in sides for u in self.state.concealed_from(p))

    def choose(self, spec: PlacementSpec, unit: str) -> Choice | None:
        """The unit put on the first hex the engine's set-up `spec` offers it
        (None, and the unit left off the map, when it offers none)."""
        options = self.setup.options(self.state, spec, self.index[unit])
        if not options:
            return None
        self.put(unit, options[0])
        allowed = tuple(self.labels[h] for h in options)
        return Choice(unit, allowed[0], allowed)


def _fixed(sc: ir.Scenario, board: _Board) -> list[Placement]:
    """The units a set-up line puts on its one hex."""
    out = []
    for entry in sc.setup:
        if entry.chosen:
            continue
        for p in entry.units:
            out.append(Placement(p.name, entry.hexes[0], None, p.reduced))
            board.put(p.name, board.labels.index(entry.hexes[0]))
    return out


def _chosen(sc: ir.Scenario, game: Game, board: _Board) -> tuple[list[Placement], list[Choice]]:
    """The units whose owner chooses their hex, each on the first the engine
    offers; a unit offered none is left out of play, as the engine leaves it."""
    specs = [p for p in game.scenario.setup if p.chosen] if game.scenario else []
    entries = [e for e in sc.setup if e.chosen]
    placed: list[Placement] = []
    choices: list[Choice] = []
    for entry, spec in zip(entries, specs, strict=True):
        for p in entry.units:
            choice = board.choose(spec, p.name)
            if choice is not None:
                placed.append(Placement(p.name, choice.placed, None, p.reduced))
                choices.append(choice)
    return placed, choices
