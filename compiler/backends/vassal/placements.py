"""Where each scenario puts each unit: a hex, or the turn box it waits in.

Fixed set-up lines and printed set-ups are read from the IR. A `choose`
line lets the owner pick; the module starts the unit on the first hex the
engine would offer (the engine's own set-up options, so a condition such as
`terrain(hex) == village` is read exactly as in play) and says in the
set-up's description which hexes the owner may choose instead.
Reinforcements wait in the box of the turn they enter.
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler import ir
from engine.game import Game
from engine.primitives import get
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


def scenario_setup(rules: ir.Ruleset, sc: ir.Scenario, game: Game) -> SetUp:
    """The scenario's starting positions; `game` is its engine, made for this scenario."""
    if sc.printed_setup:
        out = []
        for u in rules.units:
            if u.setup:
                out.append(Placement(u.name, u.setup, None, False))
            elif u.entry is not None:
                out.append(Placement(u.name, None, u.entry.turn, False))
        return SetUp(sc, tuple(out), ())
    index = {u.name: i for i, u in enumerate(game.rules.units)}
    labels = game.rules.board.labels
    s = State(game)
    fixed: list[Placement] = []
    for entry in sc.setup:
        if not entry.chosen:
            for p in entry.units:
                fixed.append(Placement(p.name, entry.hexes[0], None, p.reduced))
                s.unit_hex[index[p.name]] = labels.index(entry.hexes[0])
                s.unit_status[index[p.name]] = ON_MAP
    chosen: list[Placement] = []
    choices: list[Choice] = []
    setup = get("setup")
    specs = [p for p in game.scenario.setup if p.chosen] if game.scenario else []
    for entry, spec in zip([e for e in sc.setup if e.chosen], specs, strict=True):
        for p in entry.units:
            u = index[p.name]
            options = setup.options(s, spec, u)
            if not options:
                continue  # the engine leaves it out of play too
            s.unit_hex[u] = options[0]
            s.unit_status[u] = ON_MAP
            allowed = tuple(labels[h] for h in options)
            chosen.append(Placement(p.name, allowed[0], None, p.reduced))
            choices.append(Choice(p.name, allowed[0], allowed))
    waiting = [
        Placement(p.name, None, e.turn, p.reduced) for e in sc.reinforcements for p in e.units
    ]
    return SetUp(sc, tuple(fixed + chosen + waiting), tuple(choices))
