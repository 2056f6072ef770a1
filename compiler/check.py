"""Check a ruleset's declarations and build the IR.

Passes: (1) gather every declaration, noting the rule switch it sits in, and
register names (one namespace: a name means one thing); (2) build the parts
that other parts refer to — sides, unit types, terrain, the map, units,
tables, result codes; (3) apply procedure patches; (4) type-check every
expression and statement. Errors are collected; `CompileError` is raised
between passes when there are any.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field, replace
from pathlib import Path

from compiler import ir
from compiler.bot_weights import check_bot_weights
from compiler.bounds import (
    COUNTERS,
    DIE_FACE,
    MODIFIER,
    RESTRICTION_LIMITS,
    TURN,
    all_within,
    prop_range,
    within,
)
from compiler.contexts import CONTEXTS
from compiler.counters import check_counter_face
from compiler.expressions import ERROR, Entity, ExprChecker, Scope, Symbols
from compiler.forces import ForcesChecker
from compiler.load import Loaded, display_name, load, resolve_ruleset
from compiler.map_checks import check_model
from compiler.maps import check_map
from compiler.props import Props, as_int, code_text, describe, prov_of
from compiler.scenarios import ScenarioChecker
from compiler.slips import find_slips
from compiler.statements import Context, StmtChecker
from compiler.tables import check_table
from compiler.terrain import check_hexside, check_terrain
from compiler.terrain_changes import check_groups, check_terrain_change
from compiler.tracks import check_levels, check_turn_track
from compiler.variables import check_variable
from dsl import ast
from dsl.diagnostics import (
    BAD_IDENT,
    BAD_VALUE,
    DUPLICATE,
    MISSING,
    PATCH,
    UNKNOWN_NAME,
    Diagnostic,
    Reporter,
    did_you_mean,
    hint_note,
)
from dsl.source import SourceFiles, Span
from engine.registered import load as load_vocabulary
from engine.vocabulary import EVENTS, NAMED_TYPES

IDENT = re.compile(r"^[a-z_][a-z0-9_]*$")
KINDS = {
    "ruleset",
    "side",
    "unit_type",
    "unit",
    "leader",
    "piece",
    "terrain",
    "hexside",
    "map",
    "table",
    "result",
    "modifiers",
    "trigger",
    "restriction",
    "conceal",
    "victory",
    "victory_level",
    "bot_weights",
    "variable",
    "nationality",
    "formation",
    "brigade",
    "marker",
    "turn_track",
    "levels",
    "counter_face",
    "scenario",
    "bag",
    "attribute",
    "terrain_change",
}
EDGES = {"west", "east", "north", "south"}
# Counters: combat units, leaders and non-combat pieces (a herd, a wagon train).
COUNTER_KINDS = ("unit", "leader", "piece")
VICTORY_CHECKS = {"end_of_turn", "end_of_game"}
RESTRICTION_KINDS = {
    "no_entry",
    "no_end",
    "confined_to",
    "no_move",
    "allowance",
    "max_hexes",
    "no_arrival",
    "no_combat",
}
RESTRICTION_KEYS = RESTRICTION_KINDS | {"until"}
RULESET_KEYS = {"source", "die", "turns", "start", "library"}
TRIGGER_KEYS = {"on", "once"}
CONCEAL_KEYS = {"from"}
VICTORY_KEYS = {"level", "winner", "scenarios", "check"}
VICTORY_LEVEL_KEYS = {"utility"}
RESULT_KEYS = {"code"}
BAG_KEYS = {"contents", "seen_by"}
DEFAULT_OFF_FLAGS = {"optional", "play_balance", "scenario"}
RULE_FLAGS = {"optional", "advanced", "play_balance", "scenario"}


@dataclass
class _Gathered:
    """Declarations of every file, in file order, each with its rule switch."""

    entities: dict[str, list[tuple[ast.Entity, str]]] = field(default_factory=dict)
    defines: list[tuple[ast.Define, str]] = field(default_factory=list)
    procedures: list[tuple[ast.Procedure, str]] = field(default_factory=list)
    extends: list[tuple[ast.Extend, str]] = field(default_factory=list)
    list_extends: list[tuple[ast.ExtendList, str]] = field(default_factory=list)
    rules: list[ast.Rule] = field(default_factory=list)


def compile_ruleset(arg: str | Path) -> tuple[ir.Ruleset, SourceFiles]:
    """Load, check and build the IR of a ruleset; raises `CompileError`."""
    rules, sources, _warnings = check_ruleset(arg)
    return rules, sources


def check_ruleset(arg: str | Path) -> tuple[ir.Ruleset, SourceFiles, list[Diagnostic]]:
    """`compile_ruleset`, with the warnings (probable slips) it found."""
    sources = SourceFiles()
    reporter = Reporter(sources)
    loaded = load(resolve_ruleset(arg), reporter)
    reporter.check()
    return compile_loaded(loaded, reporter), sources, reporter.warnings


def compile_loaded(loaded: Loaded, reporter: Reporter) -> ir.Ruleset:
    """Check files already loaded (and looked at: coverage, local charts) into the IR;
    probable slips are left in `reporter` as warnings."""
    ruleset = Checker(reporter).run(loaded.files, loaded.entry)
    reporter.check()
    assert ruleset is not None
    check_model(ruleset, reporter)
    reporter.check()
    find_slips(ruleset, loaded.entry.parent, reporter)
    return ruleset


class Checker:
    def __init__(self, reporter: Reporter) -> None:
        self.r = reporter
        self.sym = Symbols()
        self.sym.vocabulary = load_vocabulary()
        self.ec = ExprChecker(self.sym, reporter)
        self.sc = StmtChecker(self.ec)
        self.names: dict[str, tuple[Span, str]] = {}  # name → where first declared, as what
        self._define_state: dict[str, str] = {}
        self.defines_ir: dict[str, ir.Define] = {}
        self.unit_attr_spans: dict[str, Span] = {}

    # ------------------------------------------------------------ pass 1

    def gather(self, files: tuple[ast.File, ...]) -> _Gathered:
        g = _Gathered()

        declared: dict[str, tuple[list, int, str]] = {}  # name -> (its list, index, kind)

        def add(
            items: list, item: tuple, name: str | None, kind: str, span: Span, d: ast.Decl
        ) -> None:
            """Append a declaration, or (`override`) put it in place of an earlier one."""
            if d.override:
                if name is None or name not in declared:
                    self.r.error(d.span, UNKNOWN_NAME, f"nothing named {name!r} to override")
                    return
                if item[1]:
                    self.r.error(
                        d.span, BAD_VALUE, "an override applies always; it cannot sit inside a rule"
                    )
                    return
                where, index, old_kind = declared[name]
                if old_kind != kind:
                    self.r.error(
                        d.span, BAD_VALUE, f"{name!r} is a {old_kind}; an override must be one too"
                    )
                    return
                where[index] = item
                return
            items.append(item)
            if name is not None:
                declared[name] = (items, len(items) - 1, kind)
                self.register(name, span, kind)

        def visit(decls: tuple[ast.Decl, ...], rule: str) -> None:
            for d in decls:
                if isinstance(d, ast.Entity):
                    if d.kind not in KINDS:
                        hint = did_you_mean(d.kind, KINDS)
                        self.r.error(
                            d.span,
                            UNKNOWN_NAME,
                            f"unknown kind of declaration {d.kind!r}",
                            *hint_note(hint),
                        )
                        continue
                    # Attributes are read as `unit.name`: they have a namespace of their own.
                    name = d.name if d.kind != "attribute" else None
                    add(g.entities.setdefault(d.kind, []), (d, rule), name, d.kind, d.name_span, d)
                elif isinstance(d, ast.Define):
                    add(g.defines, (d, rule), d.name, "define", d.span, d)
                elif isinstance(d, ast.Procedure):
                    add(g.procedures, (d, rule), d.name, "procedure", d.span, d)
                elif isinstance(d, ast.Extend):
                    g.extends.append((d, rule))
                elif isinstance(d, ast.ExtendList):
                    g.list_extends.append((d, rule))
                elif isinstance(d, ast.Rule):
                    if rule:
                        self.r.error(d.span, BAD_VALUE, "a rule cannot sit inside another rule")
                    g.rules.append(d)
                    self.register(d.name, d.span, "rule")
                    for flag in d.flags:
                        if flag not in RULE_FLAGS:
                            self.r.error(
                                d.span,
                                BAD_VALUE,
                                f"unknown rule flag {flag!r}",
                                f"flags: {', '.join(sorted(RULE_FLAGS))}",
                            )
                    visit(d.decls, d.name)

        for f in files:
            visit(f.decls, "")
        self.extend_lists(g)
        return g

    def extend_lists(self, g: _Gathered) -> None:
        """Append each `extend KIND NAME { lines }` to its declaration.

        Inside a rule switch only modifier lines may be added; each then holds
        only while the rule is on.
        """
        for ext, rule in g.list_extends:
            items = g.entities.get(ext.kind, [])
            index = next((i for i, (d, _r) in enumerate(items) if d.name == ext.name), None)
            if index is None:
                hint = did_you_mean(ext.name, {d.name for d, _r in items if d.name})
                self.r.error(
                    ext.span,
                    UNKNOWN_NAME,
                    f"no {ext.kind} {ext.name!r} to extend",
                    *hint_note(hint),
                )
                continue
            if rule and ext.kind != "modifiers":
                self.r.error(
                    ext.span,
                    BAD_VALUE,
                    f"inside a rule only modifiers can be extended, not a {ext.kind}",
                )
                continue
            old, old_rule = items[index]
            added = []
            for line in ext.body.lines:
                if isinstance(line, ast.Line):
                    if line.prov.empty:
                        line = dataclasses.replace(line, prov=ext.prov)
                    if rule:
                        switch = ast.Call(
                            span=line.span,
                            func="rule_on",
                            args=(ast.Name(span=line.span, id=rule),),
                        )
                        test = (
                            switch
                            if line.when is None
                            else ast.Binary(span=line.span, op="and", left=switch, right=line.when)
                        )
                        line = dataclasses.replace(line, when=test)
                added.append(line)
            body = dataclasses.replace(old.body, lines=(*old.body.lines, *added))
            items[index] = (dataclasses.replace(old, body=body), old_rule)

    def register(self, name: str, span: Span, kind: str) -> None:
        """Claim a name for one declaration; a second claim is reported at the
        second, naming the first (what it is and where)."""
        if not IDENT.match(name):
            self.r.error(
                span,
                BAD_IDENT,
                f"{name!r} is not a valid name",
                "names use lower-case letters, digits and '_', and do not start with a digit",
            )
        if name in self.names:
            first, first_kind = self.names[name]
            self.r.error(
                span,
                DUPLICATE,
                f"{kind} {name!r}: the name is already declared",
                f"the first {name!r} is the {first_kind} declared at {first}",
                "give this one another name"
                + (
                    ", or write `override` before it to replace the first"
                    if kind in KINDS | {"define", "procedure"}
                    else ""
                ),
            )
            return
        self.names[name] = (span, kind)

    def header(self, g: _Gathered, entry: str) -> tuple[ast.Entity | None, tuple[int, int] | None]:
        """The ruleset declaration of the entry file; an imported library's gives
        what the entry's leaves out (the die). None missing is reported at the
        start of the entry file (`entry`, as diagnostics name it)."""
        items = [d for d, _r in g.entities.get("ruleset", [])]
        if not items:
            self.r.error(
                Span(entry, 1, 1, 1, 1),
                MISSING,
                "the ruleset has no ruleset declaration",
                'declare `ruleset NAME "Title" { … }` in this file or a file it imports',
            )
            return None, None
        files = [d.span.file for d in items]
        for d in items[1:]:
            if files.count(d.span.file) > 1:
                self.r.error(d.span, DUPLICATE, "one ruleset declaration per file")
        die = None
        for d in items[:-1]:
            line = next(
                (ln for ln in d.body.lines if isinstance(ln, ast.Line) and ln.key == "die"), None
            )
            if line is not None and len(line.values) == 2 and isinstance(line.values[1], ast.Range):
                r = line.values[1]
                if r.low is not None and r.high is not None:
                    faces = (int(r.low), int(r.high))
                    die = faces if all_within(self.r, r.span, "'die'", faces, DIE_FACE) else die
        return items[-1], die

    def one(self, g: _Gathered, kind: str, required: bool) -> ast.Entity | None:
        items = g.entities.get(kind, [])
        if len(items) > 1:
            self.r.error(items[1][0].span, DUPLICATE, f"only one {kind} declaration is allowed")
        if not items:
            if required:
                self.r.error(
                    Span("<ruleset>", 0, 0, 0, 0), MISSING, f"the ruleset has no {kind} declaration"
                )
            return None
        return items[0][0]

    # ------------------------------------------------------------ run

    def run(self, files: tuple[ast.File, ...], entry: Path) -> ir.Ruleset | None:
        g = self.gather(files)
        self.r.check()

        header, inherited_die = self.header(g, files[-1].path)
        self.r.check()
        assert header is not None
        hp = Props(header, self.r, RULESET_KEYS)
        library = hp.flag("library")
        source = None
        src_line = hp.line("source")
        if src_line is not None:
            vals = src_line.values[1:]
            if (
                len(vals) == 2
                and isinstance(vals[0], ast.Name)
                and vals[0].id == "none"
                and isinstance(vals[1], ast.String)
            ):
                source = vals[1].value
            else:
                self.r.error(
                    src_line.span,
                    BAD_VALUE,
                    'write `source none "why"` for a battle with no source document',
                )
        die = prop_range(hp, "die", DIE_FACE, required=inherited_die is None)
        die = die or inherited_die or (0, 9)
        turns = prop_range(hp, "turns", TURN, required=not library) or (1, 1)
        start = hp.name("start", "game") or "game"

        forces = ForcesChecker(self.r, self.sym, self.ec)
        sides = tuple(forces.side(d) for d, _r in g.entities.get("side", []))
        side_names = [s.name for s in sides]
        if len(sides) != 2 and not library:
            self.r.error(
                header.span, MISSING, f"a battle has two sides; this ruleset declares {len(sides)}"
            )
        for s in sides:
            self.sym.entities[s.name] = Entity("side", "side", s.name)
        nationalities = tuple(forces.nationality(d) for d, _r in g.entities.get("nationality", []))
        formations = tuple(forces.formation(d) for d, _r in g.entities.get("formation", []))
        brigades = tuple(forces.brigade(d) for d, _r in g.entities.get("brigade", []))
        attributes = tuple(forces.attribute(d) for d, _r in g.entities.get("attribute", []))
        unit_types = tuple(forces.unit_type(d) for d, _r in g.entities.get("unit_type", []))
        for kind, items in (
            ("nationality", nationalities),
            ("formation", formations),
            ("brigade", brigades),
            ("unit_type", unit_types),
        ):
            for item in items:
                self.sym.entities[item.name] = Entity(kind, kind, item.name)
        terrain = tuple(check_terrain(d, self.r) for d, _r in g.entities.get("terrain", []))
        features = tuple(check_hexside(d, self.r) for d, _r in g.entities.get("hexside", []))
        for attrs, items in (
            (self.sym.terrain_attributes, terrain),
            (self.sym.hexside_attributes, features),
        ):
            for item in items:
                for key, value in item.props.items():
                    attrs.setdefault(key, {bool: "bool", int: "int", str: "str"}[type(value)])
        for t in terrain:
            self.sym.entities[t.name] = Entity("terrain", "terrain", t.name)
        for f in features:
            self.sym.entities[f.name] = Entity("hexside", "hexside", f.name)

        map_decl = self.one(g, "map", required=False)
        the_map = None
        if map_decl is not None:
            the_map = check_map(map_decl, self.r, terrain, features)
        if the_map is not None:
            from compiler.maps import grid_of

            grid = grid_of(the_map)
            self.sym.hex_labels = {grid.label(c, r) for c, r in grid.offsets()}
            for p in the_map.places:
                self.register(p.name, map_decl.span, "place")
                self.sym.entities[p.name] = Entity("place", "hex", p.hex)
                forces.places[p.name] = p.hex
            for z in the_map.zones:
                self.register(z.name, map_decl.span, "zone")
                self.sym.entities[z.name] = Entity("zone", "hexes", z.hexes)
                if z.kind == "entry":
                    forces.entries[z.name] = z.hexes

        counters = [d for kind in COUNTER_KINDS for d, _r in g.entities.get(kind, [])]
        for u in counters:
            if u.name:
                self.sym.entities[u.name] = Entity("unit", "unit", u.name)
        units = tuple(forces.unit(d) for d in counters)
        markers = tuple(forces.marker(d) for d, _r in g.entities.get("marker", []))
        for m in markers:
            self.sym.entities[m.name] = Entity("marker", "marker", m.name)
        terrain_changes = tuple(
            check_terrain_change(d, self.r, the_map, terrain, features, {m.name for m in markers})
            for d, _r in g.entities.get("terrain_change", [])
        )
        if the_map is not None:
            check_groups(terrain_changes, the_map, self.r)
        for change in terrain_changes:
            self.sym.entities[change.name] = Entity("terrain_change", "terrain_change", change.name)
        unit_attrs = {a.name for a in attributes} | {
            k for x in (*unit_types, *units) for k in x.props
        }
        counter_faces = tuple(
            check_counter_face(d, self.r, {t.name for t in unit_types}, unit_attrs)
            for d, _r in g.entities.get("counter_face", [])
        )

        results = [self.result_header(d) for d, _r in g.entities.get("result", [])]
        for res_decl, (name, code, _prov) in zip(
            [d for d, _r in g.entities.get("result", [])], results, strict=True
        ):
            if code in self.sym.results:
                self.r.error(
                    res_decl.span,
                    DUPLICATE,
                    f"result code {code!r} is already {self.sym.results[code]!r}",
                    f"the first {code!r} is the result {self.sym.results[code]!r}",
                )
            self.sym.results[code] = name
            self.sym.entities[name] = Entity("result", "code", name)
        self.sym.result_params = self.result_params([d for d, _r in g.entities.get("result", [])])
        variables = tuple(check_variable(d, self.r) for d, _r in g.entities.get("variable", []))
        for var in variables:
            self.sym.variables[var.name] = var
            for value in var.values:
                self.register(value, var.span, f"value of {var.name}")
                self.sym.entities[value] = Entity("enum", var.type, value)
        # A table whose cells are values of an enumeration says `kind VARIABLE`;
        # one whose cells are brigades (formations, markers, …) `kind brigade`.
        named: dict[str, tuple[str, ...]] = {v.name: v.values for v in variables if v.values}
        for ent in self.sym.entities.values():
            if ent.kind in NAMED_TYPES and ent.kind == ent.type:
                named[ent.kind] = (*named.get(ent.kind, ()), str(ent.value))
        tables = tuple(
            check_table(d, self.r, self.sym.results, named) for d, _r in g.entities.get("table", [])
        )
        for t in tables:
            self.sym.entities[t.name] = Entity("table", "table", t.name)
            self.sym.tables[t.name] = t

        for rule in g.rules:
            self.sym.entities[rule.name] = Entity("rule", "rule", rule.name)
        variables = tuple(self.resolve_initial(v, side_names) for v in variables)

        track_decl = self.one(g, "turn_track", required=False)
        turn_track = check_turn_track(track_decl, self.r) if track_decl is not None else None
        self.sym.turn_track = turn_track
        level_tracks = tuple(check_levels(d, self.r) for d, _r in g.entities.get("levels", []))
        for lv in level_tracks:
            var = self.sym.variables.get(lv.variable)
            if var is None or var.scope != "side":
                self.r.error(
                    lv.span,
                    UNKNOWN_NAME,
                    f"levels read a per-side variable; {lv.variable!r} is not one",
                )
            self.sym.levels[lv.name] = lv
            for level in lv.levels:
                self.register(level.name, level.span, f"level of {lv.name}")
                self.sym.entities[level.name] = Entity("enum", f"enum:{lv.name}", level.name)

        for d, _r in g.entities.get("modifiers", []):
            self.sym.modifiers[d.name or ""] = tuple((p.name, p.type) for p in d.params)
        for d, _r in g.defines:
            self.sym.defines[d.name] = d
        self.sym.check_define = self.define
        procedures_ast = self.patched_procedures(g)
        for name, (proc, _steps) in procedures_ast.items():
            self.sym.procedures[name] = tuple((p.name, p.type) for p in proc.params)
            self.sym.entities[name] = Entity("procedure", "procedure", name)
            if proc.result is not None:
                self.sym.procedure_results[name] = (proc.result.name, proc.result.type)
        bags = tuple(self.bag(d) for d, _r in g.entities.get("bag", []))
        for bag in bags:
            self.sym.bags[bag.name] = bag
            self.sym.entities[bag.name] = Entity("bag", "bag", bag.name)

        levels = tuple(self.victory_level(d) for d, _r in g.entities.get("victory_level", []))
        for lv in levels:
            self.sym.entities[lv.name] = Entity("level", "level", lv.name)

        # pass 4: expressions and statements
        for d, _r in g.defines:
            self.define(d.name)
        units = forces.check_commands(units)
        modifiers = tuple(self.modifier_list(d) for d, _r in g.entities.get("modifiers", []))
        result_irs = tuple(
            self.result_body(d, name, code, prov)
            for (d, _r), (name, code, prov) in zip(
                g.entities.get("result", []), results, strict=True
            )
        )
        procedures = tuple(self.procedure(proc, steps) for proc, steps in procedures_ast.values())
        triggers = tuple(self.trigger(d, r) for d, r in g.entities.get("trigger", []))
        restrictions = tuple(self.restriction(d, r) for d, r in g.entities.get("restriction", []))
        concealments = tuple(self.conceal(d, r, forces) for d, r in g.entities.get("conceal", []))
        scenario_checker = ScenarioChecker(self.r, self.sym, self.ec, forces.places)
        scenario_checker.switches = {rule.name for rule in g.rules}
        scenarios = tuple(scenario_checker.scenario(d) for d, _r in g.entities.get("scenario", []))
        self.scenario_names = {sc.name for sc in scenarios}
        victories = tuple(self.victory(d, side_names) for d, _r in g.entities.get("victory", []))
        for v in victories:
            if levels and v.level not in {lv.name for lv in levels}:
                self.r.error(v.span, UNKNOWN_NAME, f"unknown victory level {v.level!r}")
        bot_weights = tuple(
            check_bot_weights(
                d,
                self.r,
                forces,
                side_names,
                {"vp"} | {v.name for v in variables if v.scope == "side"},
                {k for t in terrain for k in t.props},
                self.scenario_names,
            )
            for d, _r in g.entities.get("bot_weights", [])
        )

        switches = tuple(
            ir.Switch(
                rule.name,
                rule.title or rule.name,
                rule.flags,
                not (set(rule.flags) & DEFAULT_OFF_FLAGS),
                prov_of(rule.prov),
                rule.span,
            )
            for rule in g.rules
        )
        if start not in procedures_ast:
            self.r.error(
                header.span,
                MISSING,
                f"the ruleset has no procedure {start!r} to start the game with",
            )
        return ir.Ruleset(
            name=header.name or entry.parent.name,
            title=header.title or header.name or "",
            library=library,
            source=source,
            die=die,
            turns=turns,
            sides=sides,
            nationalities=nationalities,
            formations=formations,
            brigades=brigades,
            attributes=attributes,
            unit_types=unit_types,
            units=units,
            markers=markers,
            terrain=terrain,
            hexside_features=features,
            map=the_map,
            tables=tables,
            results=result_irs,
            modifiers=modifiers,
            defines=tuple(
                self.defines_ir[d.name] for d, _r in g.defines if d.name in self.defines_ir
            ),
            procedures=procedures,
            triggers=triggers,
            restrictions=restrictions,
            concealments=concealments,
            bot_weights=bot_weights,
            victories=victories,
            victory_levels=levels,
            switches=switches,
            variables=variables,
            turn_track=turn_track,
            levels=level_tracks,
            scenarios=scenarios,
            bags=bags,
            start=start,
            files=tuple(display_name(Path(f)) for f in self.r.sources._texts),
            prov=prov_of(header.prov),
            counter_faces=counter_faces,
            terrain_changes=terrain_changes,
        )

    def resolve_initial(self, v: ir.Variable, sides: list[str]) -> ir.Variable:
        """Initial values naming a side or unit become that name, checked."""
        if isinstance(v.initial, tuple):
            name = v.initial[1]
            ent = self.sym.entities.get(name)
            if ent is None or ent.type != v.type:
                self.r.error(v.span, UNKNOWN_NAME, f"initial value {name!r} is not a {v.type}")
            return replace(v, initial=name)
        return v

    # ------------------------------------------------------------ sides and units

    # ------------------------------------------------------------ tables and results

    def result_header(self, d: ast.Entity) -> tuple[str, str, ir.Prov]:
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
        return d.name or "", code, prov_of(d.prov)

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

    def result_body(self, d: ast.Entity, name: str, code: str, prov: ir.Prov) -> ir.Result:
        params = self.sym.result_params
        ctx = Context(f"result {name!r}", bindings=dict(params))
        scope = Scope(dict(params))
        body: tuple[ir.TStmt, ...] = ()
        for do in (line for line in d.body.lines if isinstance(line, ast.DoLine)):
            body += self.sc.block(do.body, scope, ctx)
        return ir.Result(
            name, d.title or name, code, params, body, dict(ctx.bindings), prov, d.span
        )

    # ------------------------------------------------------------ definitions and modifiers

    def define(self, name: str) -> str:
        """Check a definition once (on first use); returns its type."""
        state = self._define_state.get(name)
        if state == "checking":
            d = self.sym.defines[name]
            self.r.error(d.span, BAD_VALUE, f"definition {name!r} refers to itself")
            return ERROR
        if state is not None:
            return state
        self._define_state[name] = "checking"
        d = self.sym.defines[name]
        params = tuple((p.name, p.type) for p in d.params)
        for pname, ptype in params:
            if ptype not in _VALUE_TYPES:
                self.r.error(d.span, UNKNOWN_NAME, f"unknown type {ptype!r} of parameter {pname!r}")
        body = self.ec.expr(d.expr, Scope(dict(params)))
        self.defines_ir[name] = ir.Define(
            name, d.title or name, params, body, prov_of(d.prov), d.span
        )
        self._define_state[name] = body.type
        self.sym.define_types[name] = body.type
        return body.type

    def modifier_list(self, d: ast.Entity) -> ir.ModifierList:
        params = dict((p.name, p.type) for p in d.params)
        scope = Scope(dict(params))
        items = []
        decl_prov = prov_of(d.prov)
        for line in d.body.lines:
            if not isinstance(line, ast.Line):
                self.r.error(line.span, BAD_VALUE, 'a modifier line is `+1 "label" when condition`')
                continue
            vals = line.values
            amount_src = vals[0]
            if isinstance(amount_src, ast.Paren):
                amount = self.ec.expr(amount_src.expr, scope, "int")
            elif as_int(amount_src) is not None:
                amount = ir.Const("int", amount_src.span, as_int(amount_src))
                within(self.r, amount_src.span, "the modifier", amount.value, MODIFIER)
            else:
                self.r.error(
                    amount_src.span,
                    BAD_VALUE,
                    "a modifier starts with its amount (+1, -2 or (expression)), "
                    f"not {describe(amount_src)}",
                )
                continue
            label = ""
            if len(vals) >= 2 and isinstance(vals[1], ast.String):
                label = vals[1].value
            if len(vals) > 2 or not label:
                self.r.error(line.span, BAD_VALUE, 'a modifier is `amount "label" when condition`')
            cond = self.ec.expr(line.when, scope, "bool") if line.when is not None else None
            items.append(
                ir.Modifier(label, amount, cond, decl_prov.merged(prov_of(line.prov)), line.span)
            )
        return ir.ModifierList(
            d.name or "", d.title or d.name or "", tuple(items), decl_prov, d.span
        )

    # ------------------------------------------------------------ procedures and patches

    def patched_procedures(
        self, g: _Gathered
    ) -> dict[str, tuple[ast.Procedure, list[tuple[ast.Step, str]]]]:
        procs: dict[str, tuple[ast.Procedure, list[tuple[ast.Step, str]]]] = {}
        for proc, _rule in g.procedures:
            steps = [(s, "") for s in proc.steps]
            seen: dict[str, Span] = {}
            for s in proc.steps:
                if s.name in seen:
                    self.r.error(
                        s.span,
                        DUPLICATE,
                        f"step {s.name!r} is already in {proc.name!r}",
                        f"first at {seen[s.name]}",
                    )
                seen[s.name] = s.span
            procs[proc.name] = (proc, steps)
        for ext, rule in g.extends:
            if ext.procedure not in procs:
                hint = did_you_mean(ext.procedure, set(procs))
                self.r.error(
                    ext.span,
                    PATCH,
                    f"no procedure {ext.procedure!r} to extend",
                    *hint_note(hint),
                )
                continue
            _proc, steps = procs[ext.procedure]
            for patch in ext.patches:
                names = [s.name for s, _r in steps]
                if patch.target not in names:
                    hint = did_you_mean(patch.target, names)
                    self.r.error(
                        patch.span,
                        PATCH,
                        f"{ext.procedure!r} has no step {patch.target!r}",
                        *hint_note(hint),
                        f"its steps: {', '.join(names)}",
                    )
                    continue
                i = names.index(patch.target)
                if (
                    patch.step is not None
                    and patch.step.name in names
                    and patch.action != "replace"
                ):
                    self.r.error(
                        patch.step.span,
                        DUPLICATE,
                        f"step {patch.step.name!r} is already in {ext.procedure!r}",
                    )
                    continue
                if patch.action == "insert before":
                    steps.insert(i, (patch.step, rule))
                elif patch.action == "insert after":
                    steps.insert(i + 1, (patch.step, rule))
                elif patch.action == "replace":
                    if rule:
                        # A replaced step lives on when the rule is off: keep both, switched.
                        old, _old_rule = steps[i]
                        steps[i] = (patch.step, rule)
                        steps.insert(i + 1, (old, f"!{rule}"))
                    else:
                        steps[i] = (patch.step, rule)
                elif patch.action == "disable":
                    old, _ = steps[i]
                    steps[i] = (old, f"!{rule}" if rule else "!")
        return procs

    def bag(self, d: ast.Entity) -> ir.Bag:
        """`bag NAME "T" { contents …; seen_by SIDE… | all | none }`: an opaque
        container of markers, and who may look into it (a hand, a face-down
        deck, a public cup)."""
        p = Props(d, self.r, BAG_KEYS)
        contents = []
        for v in p.values("contents"):
            name = v.id if isinstance(v, ast.Name) else v.func if isinstance(v, ast.Call) else None
            count = 1
            if isinstance(v, ast.Call):
                count = (
                    as_int(v.args[0]) if len(v.args) == 1 and as_int(v.args[0]) is not None else 0
                )
                if count < 1:
                    self.r.error(v.span, BAD_VALUE, "write `marker(2)` for two copies of a marker")
            ent = self.sym.entities.get(name) if name else None
            if ent is None or ent.kind != "marker":
                self.r.error(v.span, UNKNOWN_NAME, f"a bag holds markers; {describe(v)} is not one")
                continue
            if not within(self.r, v.span, "the bag's counters", len(contents) + count, COUNTERS):
                break
            contents.extend([name] * count)
        if not p.has("contents"):
            self.r.error(d.name_span, MISSING, f"bag {d.name!r} needs `contents`")
        return ir.Bag(
            d.name or "",
            d.title or d.name or "",
            tuple(contents),
            prov_of(d.prov),
            d.span,
            self.bag_seen_by(d, p),
        )

    def bag_seen_by(self, d: ast.Entity, p: Props) -> tuple[str, ...]:
        """The sides that may look into a bag: `seen_by SIDE…`, `all` or `none`
        (the others see only how many markers it holds)."""
        sides = tuple(str(e.value) for e in self.sym.entities.values() if e.kind == "side")
        line = p.line("seen_by")
        if line is None:
            self.r.error(
                d.name_span,
                MISSING,
                f"bag {d.name!r} needs `seen_by`: the sides that may look into it, `all` or `none`",
            )
            return sides
        names = [v.id if isinstance(v, ast.Name) else None for v in line.values[1:]]
        if names in (["all"], ["none"]):
            return sides if names == ["all"] else ()
        seen: list[str] = []
        for v, name in zip(line.values[1:], names, strict=True):
            if name not in sides:
                hint = did_you_mean(name or "", set(sides) | {"all", "none"})
                self.r.error(
                    v.span,
                    UNKNOWN_NAME,
                    f"seen_by takes sides, `all` or `none`; {describe(v)} is not one",
                    *hint_note(hint),
                )
            elif name not in seen:
                seen.append(name)
        if not names:
            self.r.error(line.span, MISSING, "seen_by needs sides, `all` or `none`")
        return tuple(seen)

    def procedure(self, proc: ast.Procedure, steps: list[tuple[ast.Step, str]]) -> ir.Procedure:
        params = tuple((p.name, p.type) for p in proc.params)
        if proc.result is not None:
            params_and_result = (*params, (proc.result.name, proc.result.type))
        else:
            params_and_result = params
        for pname, ptype in params_and_result:
            if ptype not in _VALUE_TYPES:
                self.r.error(
                    proc.span, UNKNOWN_NAME, f"unknown type {ptype!r} of parameter {pname!r}"
                )
        ctx = Context(
            f"procedure {proc.name!r}", {s.name for s, _r in steps}, dict(params_and_result)
        )
        scope = Scope(dict(params_and_result))
        out = []
        for s, rule in steps:
            body = self.sc.block(s.body, scope, ctx) if rule != "!" else ()
            out.append(
                ir.Step(
                    s.name,
                    s.title or s.name,
                    body,
                    rule,
                    prov_of(proc.prov).merged(prov_of(s.prov)),
                    s.span,
                )
            )
        return ir.Procedure(
            proc.name,
            proc.title or proc.name,
            proc.kind,
            params,
            (proc.result.name, proc.result.type) if proc.result is not None else None,
            tuple(out),
            dict(ctx.bindings),
            prov_of(proc.prov),
            proc.span,
        )

    # ------------------------------------------------------------ triggers, restrictions, victory

    def trigger(self, d: ast.Entity, rule: str) -> ir.Trigger:
        p = Props(d, self.r, TRIGGER_KEYS)
        on = p.values("on")
        changed = len(on) == 2 and isinstance(on[0], ast.Name) and on[0].id == "changed"
        if changed:
            event, bindings = self.changed_event(on[1], p)
        else:
            event = p.name("on", required=True) or ""
            bindings = dict(EVENTS.get(event, ()))
            if event == "result_applied":
                bindings.update(self.sym.result_params)
        if event and event not in EVENTS and not changed:
            hint = did_you_mean(event, set(EVENTS))
            self.r.error(
                p.line("on").span,
                UNKNOWN_NAME,
                f"unknown event {event!r}",
                *hint_note(hint),
                f"events: {', '.join(sorted(EVENTS))}",
            )
        scope = Scope(dict(bindings))
        cond = self.when(p, scope)
        ctx = Context(f"trigger {d.name!r}", bindings=dict(bindings))
        body: tuple[ir.TStmt, ...] = ()
        for do in p.do:
            body += self.sc.block(do.body, scope, ctx)
        return ir.Trigger(
            d.name or "",
            d.title or d.name or "",
            event,
            cond,
            p.flag("once"),
            body,
            dict(ctx.bindings),
            rule,
            prov_of(d.prov),
            d.span,
        )

    def changed_event(self, v: ast.Expr, p: Props) -> tuple[str, dict[str, str]]:
        """`on changed VARIABLE`: the variable's old and new value (and its side or unit)."""
        var = self.sym.variables.get(v.id) if isinstance(v, ast.Name) else None
        if var is None:
            self.r.error(
                p.line("on").span, UNKNOWN_NAME, f"`on changed` names a variable, not {describe(v)}"
            )
            return "", {}
        bindings = {"old": var.type, "new": var.type}
        if var.scope:
            bindings[var.scope] = var.scope
        return f"changed:{var.name}", bindings

    def when(self, p: Props, scope: Scope) -> ir.TExpr | None:
        if len(p.when) > 1:
            self.r.error(
                p.when[1].span, DUPLICATE, "one `when` per declaration; join conditions with `and`"
            )
        return self.ec.expr(p.when[0].test, scope, "bool") if p.when else None

    def conceal(self, d: ast.Entity, rule: str, forces: ForcesChecker) -> ir.Concealment:
        """`conceal NAME "T" { from SIDE; when <condition on unit, hex> }`: the
        units that side may not examine (an exception to series 7.4)."""
        p = Props(d, self.r, CONCEAL_KEYS)
        observer = forces.ref(p, "from", "side", required=True) or ""
        cond = self.when(p, Scope(CONTEXTS["conceal"].scope()))
        return ir.Concealment(
            d.name or "", d.title or d.name or "", observer, cond, rule, prov_of(d.prov), d.span
        )

    def restriction(self, d: ast.Entity, rule: str) -> ir.Restriction:
        """One of the movement restrictions; its kind is its first line.

        `no_entry [ZONE]` and `no_end [ZONE]` forbid entering (or ending a move
        in) the zone's hexes — or every hex, with the condition deciding;
        `confined_to ZONE` forbids leaving the zone; `no_move` forbids moving at
        all; `allowance (EXPR)` replaces the movement allowance; `no_arrival`
        keeps a reinforcement off the map (a variable or conditional entry). `when` reads
        `unit` (and `hex` for the hex kinds); `until turn N` ends it.
        """
        p = Props(d, self.r, RESTRICTION_KEYS)
        kinds = [k for k in RESTRICTION_KINDS if p.has(k)]
        if len(kinds) != 1:
            self.r.error(
                d.name_span,
                MISSING,
                f"restriction {d.name!r} needs exactly one of "
                + ", ".join(sorted(RESTRICTION_KINDS)),
            )
        kind = kinds[0] if kinds else "no_entry"
        zone = ""
        value = None
        vals = p.values(kind)
        if kind in ("no_entry", "no_end", "confined_to"):
            if vals:
                zone = vals[0].id if isinstance(vals[0], ast.Name) else ""
                ent = self.sym.entities.get(zone)
                if len(vals) != 1 or ent is None or ent.kind != "zone":
                    self.r.error(p.line(kind).span, UNKNOWN_NAME, f"{kind} takes a zone of the map")
            elif kind == "confined_to":
                self.r.error(p.line(kind).span, MISSING, "confined_to needs the zone")
        elif kind in ("allowance", "max_hexes"):
            if len(vals) == 1 and as_int(vals[0]) is not None:
                value = ir.Const("int", vals[0].span, as_int(vals[0]))
                within(self.r, vals[0].span, repr(kind), value.value, RESTRICTION_LIMITS[kind])
            elif len(vals) == 1 and isinstance(vals[0], ast.Paren):
                value = self.ec.expr(vals[0].expr, Scope(CONTEXTS["allowance"].scope()), "int")
            else:
                self.r.error(
                    p.line(kind).span,
                    BAD_VALUE,
                    f"write `{kind} N` or `{kind} (expression)` with `unit` in scope",
                )
        elif vals:
            self.r.error(p.line(kind).span, BAD_VALUE, f"{kind} takes no value")
        until = None
        line = p.line("until")
        if line is not None:
            uv = line.values[1:]
            if (
                len(uv) == 2
                and isinstance(uv[0], ast.Name)
                and uv[0].id == "turn"
                and as_int(uv[1]) is not None
            ):
                until = as_int(uv[1])
                within(self.r, uv[1].span, "the turn", until, TURN)
            else:
                self.r.error(line.span, BAD_VALUE, "write `until turn N`")
        unit_only = kind in ("no_move", "allowance", "max_hexes", "no_arrival")
        context = CONTEXTS[
            "restriction_combat"
            if kind == "no_combat"
            else "restriction_unit"
            if unit_only
            else "restriction_end"
            if kind == "no_end"
            else "restriction"
        ]
        cond = self.when(p, Scope(context.scope()))
        return ir.Restriction(
            d.name or "",
            d.title or d.name or "",
            kind,
            zone,
            cond,
            until,
            value,
            rule,
            prov_of(d.prov),
            d.span,
        )

    def victory(self, d: ast.Entity, sides: list[str]) -> ir.Victory:
        p = Props(d, self.r, VICTORY_KEYS)
        winner = p.name("winner", required=True) or ""
        if winner and winner not in sides:
            self.r.error(
                p.line("winner").span,
                UNKNOWN_NAME,
                f"unknown side {winner!r}",
                *hint_note(did_you_mean(winner, set(sides))),
                f"the sides: {', '.join(sides)}",
            )
        cond = self.when(p, Scope(CONTEXTS["victory"].scope()))
        if cond is None:
            self.r.error(d.name_span, MISSING, f"victory {d.name!r} needs `when condition`")
            cond = ir.Const("bool", d.span, False)
        check = p.name("check", "end_of_game") or "end_of_game"
        if check not in VICTORY_CHECKS:
            self.r.error(
                p.line("check").span,
                BAD_VALUE,
                f"check is one of {', '.join(sorted(VICTORY_CHECKS))}",
            )
        scenarios = []
        for v in p.values("scenarios"):
            if isinstance(v, ast.Name) and v.id in self.scenario_names:
                scenarios.append(v.id)
            else:
                self.r.error(v.span, UNKNOWN_NAME, f"no scenario {describe(v)}")
        return ir.Victory(
            d.name or "",
            d.title or d.name or "",
            p.name("level", required=True) or "",
            winner,
            cond,
            tuple(scenarios),
            check,
            prov_of(d.prov),
            d.span,
        )

    def victory_level(self, d: ast.Entity) -> ir.VictoryLevel:
        p = Props(d, self.r, VICTORY_LEVEL_KEYS)
        u = p.number("utility")
        if u is None or not 0 < u <= 1:
            self.r.error(
                d.name_span,
                BAD_VALUE,
                "a victory level needs `utility` between 0 and 1 (the winner's return)",
            )
            u = 1
        return ir.VictoryLevel(d.name or "", d.title or d.name or "", float(u), prov_of(d.prov))


_VALUE_TYPES = {
    "marker",
    "code",
    "int",
    "bool",
    "side",
    "unit",
    "units",
    "hex",
    "hexes",
    "terrain",
    "combat",
    "combats",
    "table",
}
