"""Pass 7: assemble the checked parts into the IR of the ruleset."""

from __future__ import annotations

from pathlib import Path

from compiler import ir
from compiler.check.bodies import Bodies
from compiler.check.collect import Declarations
from compiler.check.declare import Declared
from compiler.check.header import Header
from compiler.check.kinds import Parts
from compiler.check.patch import Procedures
from compiler.check.props import prov_of
from compiler.check.rule_switches import check_switches
from compiler.check.tools import Tools
from compiler.load import display_name
from dsl.diagnostics import MISSING


def assemble(
    tools: Tools,
    entry: Path,
    decls: Declarations,
    header: Header,
    parts: Parts,
    procs: Procedures,
    declared: Declared,
    bodies: Bodies,
) -> ir.Ruleset:
    """The ruleset's IR (`_playable`: a game can be made of it)."""
    decl = header.decl
    _playable(tools, header, procs, parts)
    return ir.Ruleset(
        name=decl.name or entry.parent.name,
        title=decl.title or decl.name or "",
        library=header.library,
        source=header.source,
        die=header.die,
        turns=header.turns,
        sides=parts.sides,
        nationalities=parts.nationalities,
        formations=parts.formations,
        brigades=parts.brigades,
        attributes=parts.attributes,
        unit_types=parts.unit_types,
        units=bodies.units,
        markers=parts.markers,
        terrain=parts.terrain,
        hexside_features=parts.features,
        map=parts.map,
        tables=parts.tables,
        results=bodies.results,
        modifiers=bodies.modifiers,
        defines=_defines(decls, declared),
        procedures=bodies.procedures,
        triggers=bodies.triggers,
        restrictions=bodies.restrictions,
        exits=bodies.exits,
        concealments=bodies.concealments,
        impossibles=bodies.impossibles,
        bot_weights=bodies.bot_weights,
        victories=bodies.victories,
        victory_levels=declared.victory_levels,
        switches=check_switches(tools.reporter, decls.rules, bodies.scenarios),
        variables=parts.variables,
        turn_track=parts.turn_track,
        levels=parts.level_tracks,
        scenarios=bodies.scenarios,
        bags=declared.bags,
        start=header.start,
        files=_files(tools),
        prov=prov_of(decl.prov),
        counter_faces=parts.counter_faces,
        terrain_changes=parts.terrain_changes,
    )


def _playable(tools: Tools, header: Header, procs: Procedures, parts: Parts) -> None:
    """The game starts with a procedure the ruleset declares, and a battle (not a
    library) is played on a map: else the build and play would fail where the
    check said ok."""
    decl = header.decl
    if header.start not in procs:
        tools.reporter.error(
            decl.span,
            MISSING,
            f"the ruleset has no procedure {header.start!r} to start the game with",
        )
    if parts.map is None and not header.library:
        tools.reporter.error(
            decl.span,
            MISSING,
            f"the battle {decl.name!r} has no map: the game is played on one",
            'declare it: `map "Title" { columns 1..10; rows 1..8; default clear }` '
            "(docs/map.md); rules for battles to import are a library: `library` in the header",
        )


def _defines(decls: Declarations, declared: Declared) -> tuple[ir.Define, ...]:
    """The checked definitions, in the order they are declared."""
    checked = declared.definitions.checked
    return tuple(checked[d.name] for d, _rule in decls.defines if d.name in checked)


def _files(tools: Tools) -> tuple[str, ...]:
    """The files the rules were read from, as shown to a reader."""
    return tuple(display_name(Path(f)) for f in tools.reporter.sources.names)
