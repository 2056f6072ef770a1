"""Pass 3: build the parts other parts refer to, kind by kind.

Sides and the forces' organisation, terrain, the map (its places and zones),
units and markers, terrain changes, counter faces, result codes, variables,
tables and tracks — each through its own checker module, each entered in the
symbol table as it is built so the next kind can name it. What is checked
against the bodies (scenarios, victories, bot weights) waits for pass 6.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Protocol

from compiler import ir
from compiler.check.collect import Declarations
from compiler.check.counters import check_counter_face
from compiler.check.expressions import Entity
from compiler.check.forces import ForcesChecker
from compiler.check.header import Header
from compiler.check.maps import check_map, grid_of
from compiler.check.props import Props, code_text, name_of, prov_of
from compiler.check.tables import check_table
from compiler.check.terrain import check_hexside, check_terrain
from compiler.check.terrain_changes import (
    check_conditions,
    check_groups,
    check_terrain_change,
)
from compiler.check.tools import Tools
from compiler.check.tracks import check_levels, check_turn_track
from compiler.check.variables import check_variable
from dsl import ast
from dsl.diagnostics import BAD_VALUE, DUPLICATE, MISSING, UNKNOWN_NAME
from engine.vocabulary import NAMED_TYPES

# Counters: combat units, leaders and non-combat pieces (a herd, a wagon train).
COUNTER_KINDS = ("unit", "leader", "piece")
RESULT_KEYS = {"code"}
_ATTRIBUTE_TYPES = {bool: "bool", int: "int", str: "str"}


@dataclass(frozen=True)
class ResultCode:
    """A result declaration's name and code, read before any body is checked."""

    decl: ast.Entity
    name: str
    code: str
    prov: ir.Prov


@dataclass
class Parts:
    """The kinds built by pass 3. `units` are not yet checked for their commands."""

    forces: ForcesChecker
    sides: tuple[ir.Side, ...] = ()
    nationalities: tuple[ir.Nationality, ...] = ()
    formations: tuple[ir.Formation, ...] = ()
    brigades: tuple[ir.Brigade, ...] = ()
    attributes: tuple[ir.Attribute, ...] = ()
    unit_types: tuple[ir.UnitType, ...] = ()
    terrain: tuple[ir.Terrain, ...] = ()
    features: tuple[ir.HexsideFeature, ...] = ()
    map: ir.Map | None = None
    units: tuple[ir.Unit, ...] = ()
    markers: tuple[ir.Marker, ...] = ()
    terrain_changes: tuple[ir.TerrainChange, ...] = ()
    counter_faces: tuple[ir.CounterFace, ...] = ()
    results: tuple[ResultCode, ...] = ()
    variables: tuple[ir.Variable, ...] = ()
    tables: tuple[ir.Table, ...] = ()
    turn_track: ir.TurnTrack | None = None
    level_tracks: tuple[ir.Levels, ...] = ()

    @property
    def side_names(self) -> list[str]:
        return [s.name for s in self.sides]


def build_kinds(tools: Tools, decls: Declarations, header: Header) -> Parts:
    """Build every kind that bodies refer to, in the order they refer to each other."""
    builder = _KindBuilder(tools, decls)
    builder.forces(header)
    builder.terrain()
    builder.map()
    builder.counters()
    builder.results()
    builder.variables_and_tables()
    builder.tracks()
    return builder.parts


class _KindBuilder:
    """Fills in `Parts` kind by kind, entering each in the symbol table."""

    def __init__(self, tools: Tools, decls: Declarations) -> None:
        self.t = tools
        self.r = tools.reporter
        self.sym = tools.symbols
        self.decls = decls
        self.parts = Parts(ForcesChecker(self.r, self.sym, tools.exprs))

    def enter(self, name: str, kind: str, typ: str, value: object) -> None:
        self.sym.entities[name] = Entity(kind, typ, value)

    def enter_each(self, kind: str, items: tuple[Named, ...]) -> None:
        """Enter declared things whose name is their value (a side, a terrain type)."""
        for item in items:
            self.enter(item.name, kind, kind, item.name)

    def forces(self, header: Header) -> None:
        """Sides, nationalities, formations, brigades, unit attributes and types."""
        p, forces, of = self.parts, self.parts.forces, self.decls.of
        p.sides = tuple(forces.side(d) for d in of("side"))
        if len(p.sides) != 2 and not header.library:
            self.r.error(
                header.decl.span,
                MISSING,
                f"a battle has two sides; this ruleset declares {len(p.sides)}",
            )
        self.enter_each("side", p.sides)
        p.nationalities = tuple(forces.nationality(d) for d in of("nationality"))
        p.formations = tuple(forces.formation(d) for d in of("formation"))
        p.brigades = tuple(forces.brigade(d) for d in of("brigade"))
        p.attributes = tuple(forces.attribute(d) for d in of("attribute"))
        p.unit_types = tuple(forces.unit_type(d) for d in of("unit_type"))
        self.enter_each("nationality", p.nationalities)
        self.enter_each("formation", p.formations)
        self.enter_each("brigade", p.brigades)
        self.enter_each("unit_type", p.unit_types)

    def terrain(self) -> None:
        """Terrain types and hexside features, and the attributes rules may read of them."""
        p = self.parts
        p.terrain = tuple(check_terrain(d, self.r) for d in self.decls.of("terrain"))
        p.features = tuple(check_hexside(d, self.r) for d in self.decls.of("hexside"))
        _note_attributes(self.sym.terrain_attributes, p.terrain)
        _note_attributes(self.sym.hexside_attributes, p.features)
        self.enter_each("terrain", p.terrain)
        self.enter_each("hexside", p.features)

    def map(self) -> None:
        """The map, its hex labels, and its places and zones as names."""
        p = self.parts
        decl = self.decls.single("map", self.r, required=False)
        if decl is not None:
            p.map = check_map(decl, self.r, p.terrain, p.features)
        if decl is None or p.map is None:
            return
        grid = grid_of(p.map)
        self.sym.hex_labels = {grid.label(c, r) for c, r in grid.offsets()}
        self.places_and_zones(p.map, decl)

    def places_and_zones(self, the_map: ir.Map, decl: ast.Entity) -> None:
        """Named places (a hex) and zones (hexes; entry zones bring reinforcements)."""
        forces = self.parts.forces
        for place in the_map.places:
            self.t.names.register(place.name, decl.span, "place")
            self.enter(place.name, "place", "hex", place.hex)
            forces.places[place.name] = place.hex
        for z in the_map.zones:
            self.t.names.register(z.name, decl.span, "zone")
            self.enter(z.name, "zone", "hexes", z.hexes)
            if z.kind == "entry":
                forces.entries[z.name] = z.hexes

    def counters(self) -> None:
        """Units (leaders, pieces), markers, terrain changes and counter faces."""
        p = self.parts
        counters = [d for kind in COUNTER_KINDS for d in self.decls.of(kind)]
        for u in counters:
            if u.name:
                self.enter(u.name, "unit", "unit", u.name)
        p.units = tuple(p.forces.unit(d) for d in counters)
        p.markers = tuple(p.forces.marker(d) for d in self.decls.of("marker"))
        self.enter_each("marker", p.markers)
        self.terrain_changes()
        self.counter_faces()

    def terrain_changes(self) -> None:
        """What an event changes on the map (a bridge burnt), checked against the map."""
        p = self.parts
        markers = {m.name for m in p.markers}
        p.terrain_changes = tuple(
            check_terrain_change(d, self.r, p.map, p.terrain, p.features, markers)
            for d in self.decls.of("terrain_change")
        )
        check_conditions(p.features, p.terrain_changes, self.r)
        if p.map is not None:
            check_groups(p.terrain_changes, p.map, p.features, self.r)
        self.enter_each("terrain_change", p.terrain_changes)

    def counter_faces(self) -> None:
        """How counters are drawn: each face names unit types and attributes."""
        p = self.parts
        unit_attrs = {a.name for a in p.attributes} | {
            k for x in (*p.unit_types, *p.units) for k in x.props
        }
        types = {t.name for t in p.unit_types}
        p.counter_faces = tuple(
            check_counter_face(d, self.r, types, unit_attrs) for d in self.decls.of("counter_face")
        )

    def results(self) -> None:
        """Result codes (one result per code) and the parameters every result takes."""
        decls = self.decls.of("result")
        self.parts.results = tuple(self.result_code(d) for d in decls)
        for res in self.parts.results:
            if res.code in self.sym.results:
                first = self.sym.results[res.code]
                self.r.error(
                    res.decl.span,
                    DUPLICATE,
                    f"result code {res.code!r} is already {first!r}",
                    f"the first {res.code!r} is the result {first!r}",
                )
            self.sym.results[res.code] = res.name
            self.enter(res.name, "result", "code", res.name)
        self.sym.result_params = self.result_params(decls)

    def result_code(self, d: ast.Entity) -> ResultCode:
        p = Props(d, self.r, RESULT_KEYS)
        v = p.values("code")
        code = code_text(v[0]) if len(v) == 1 else None
        if code is None:
            self.r.error(
                d.name_span,
                MISSING,
                f"result {d.name!r} needs `code` (as written in tables: R, 1, -, *, …)",
            )
            code = f"?{d.name}"
        return ResultCode(d, name_of(d), code, prov_of(d.prov))

    def result_params(self, decls: list[ast.Entity]) -> tuple[tuple[str, str], ...]:
        """Every result is applied the same way, so all declare the same parameters."""
        shared: tuple[tuple[str, str], ...] | None = None
        first: ast.Entity | None = None
        for d in decls:
            params = tuple((p.name, p.type) for p in d.params)
            if not params:
                continue
            if shared is None:
                shared, first = params, d
            elif params != shared:
                assert first is not None
                self.r.error(
                    d.span,
                    BAD_VALUE,
                    f"result {d.name!r} takes other parameters than {first.name!r}",
                    "every result is applied the same way: give them the same parameters",
                )
        return shared or ()

    def variables_and_tables(self) -> None:
        """Variables (an enumeration's values become names), then the tables whose
        cells may be those values; then rule switches become names too."""
        p = self.parts
        sides = p.side_names
        variables = tuple(check_variable(d, self.r, sides) for d in self.decls.of("variable"))
        for var in variables:
            self.sym.variables[var.name] = var
            for value in var.values:
                self.t.names.register(value, var.span, f"value of {var.name}")
                self.enter(value, "enum", var.type, value)
        named = self.named_values(variables)
        p.tables = tuple(
            check_table(d, self.r, self.sym.results, named) for d in self.decls.of("table")
        )
        self.enter_each("table", p.tables)
        self.sym.tables.update((table.name, table) for table in p.tables)
        self.enter_each("rule", tuple(self.decls.rules))
        p.variables = tuple(self.resolve_initial(v) for v in variables)

    def named_values(self, variables: tuple[ir.Variable, ...]) -> dict[str, tuple[str, ...]]:
        """The values a table's cells may name: a table whose cells are values of an
        enumeration says `kind VARIABLE`; one whose cells are brigades (formations,
        markers, …) `kind brigade`."""
        named: dict[str, tuple[str, ...]] = {v.name: v.values for v in variables if v.values}
        for ent in self.sym.entities.values():
            if ent.kind in NAMED_TYPES and ent.kind == ent.type:
                named[ent.kind] = (*named.get(ent.kind, ()), str(ent.value))
        return named

    def resolve_initial(self, v: ir.Variable) -> ir.Variable:
        """Initial values naming a side or unit become that name, checked."""
        if not isinstance(v.initial, tuple):
            return v
        name = v.initial[1]
        ent = self.sym.entities.get(name)
        if ent is None or ent.type != v.type:
            self.r.error(v.span, UNKNOWN_NAME, f"initial value {name!r} is not a {v.type}")
        return replace(v, initial=name)

    def tracks(self) -> None:
        """The turn track and the level tracks (each level a name of its own)."""
        p = self.parts
        decl = self.decls.single("turn_track", self.r, required=False)
        p.turn_track = check_turn_track(decl, self.r) if decl is not None else None
        self.sym.turn_track = p.turn_track
        p.level_tracks = tuple(check_levels(d, self.r) for d in self.decls.of("levels"))
        for track in p.level_tracks:
            var = self.sym.variables.get(track.variable)
            if var is None or var.scope != "side":
                self.r.error(
                    track.span,
                    UNKNOWN_NAME,
                    f"levels read a per-side variable; {track.variable!r} is not one",
                )
            self.sym.levels[track.name] = track
            for level in track.levels:
                self.t.names.register(level.name, level.span, f"level of {track.name}")
                self.enter(level.name, "enum", f"enum:{track.name}", level.name)


class Named(Protocol):
    """A declared thing: a side, a terrain type, a table, …"""

    @property
    def name(self) -> str: ...


def _note_attributes(
    attrs: dict[str, str], items: tuple[ir.Terrain, ...] | tuple[ir.HexsideFeature, ...]
) -> None:
    """The values terrain (or hexside) declarations give, and their types: what
    `terrain(h).KEY` may read."""
    for item in items:
        for key, value in item.props.items():
            attrs.setdefault(key, _ATTRIBUTE_TYPES[type(value)])
