"""Which order states each counter offers, in each scenario, read from the rules.

A counter's right-click menu should hold only the marks the rules can put on
that counter in that scenario. The IR says where each per-unit state is set
(`set u.pinned = yes`), under which rule switch, and on which units: the
reading here follows every statement that sets a state to a value other
than its initial one and works out which counters it may reach.

- **Which states are marks.** A per-unit state the rules keep all game (no
  phase resets it), named (two values or more: the order) or yes/no; a
  yes/no state only when it has a marker of its own (a marker whose words are
  all in its title: `spotted` for "Spotted by Scouts") or comes from an imported library
  (the series' Pinned) and is not a procedure's working notes. Working notes
  are a state without a marker that only the procedures setting it read
  (Has fired), or that a procedure setting it also clears for every unit
  (the PIN case chosen).
- **Which counters.** The targets of a statement are read from the rules:
  a unit named (`hero.inspired`), the units a loop or a choice runs
  over (`units_of(north) where …`), narrowed by every test of a counter's
  printed values that the statement sits under (`if u.side == north and
  u.artillery`, defines included), and a procedure's unit parameter by the
  arguments of its calls. Where the rules cannot tell (a combat result's
  unit, a query of the units in a hex), any unit. A statement that reaches
  combat units and leaders alike is read as the combat units' (the units
  results fall upon): a leader or other piece is offered a state only when a
  rule or a set-up names it, or a test singles out such counters. A state
  whose marker belongs to one side is offered to that side's counters only.
- **Which scenario.** A statement patched in by a rule switch counts where
  the scenario plays that switch: turned on by the scenario, or on by
  default, or an optional rule the scenario leaves to the players. A
  scenario's set-up assignment (`hero(inspired: yes)`) gives its
  unit the state in that scenario.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import PurePosixPath

from compiler import ir

Units = frozenset[str]
Key = str | int  # a binding's name, or the depth of a `where` element
Bound = dict[Key, str]  # a binding or element → the one counter it stands for, under test
Aliases = dict[str, ir.TExpr]  # inside a define: its parameters → the caller's arguments

UNKNOWN = object()  # a value the rules decide in play, not printed on the counter
DEPTH_LIMIT = 8  # defines calling defines: deeper than this reads as unknown


@dataclass(frozen=True, slots=True)
class Setter:
    """A statement that gives a state a value other than its initial one."""

    variable: str
    container: tuple[str, str]  # ("procedure", name), ("trigger", name), ("result", name)
    rule: str  # the rule switch that patched it in ("" for always)
    targets: Units  # the counters it may reach
    by_name: bool  # a unit the rules name


@dataclass
class _Reading:
    """What a walk over the rules found: setters, clears, reads and each call's arguments."""

    setters: list[Setter] = field(default_factory=list)
    clears: set[tuple[str, tuple[str, str]]] = field(default_factory=set)
    reads: dict[str, set[tuple[str, str]]] = field(default_factory=dict)
    params: dict[tuple[str, str], Units] = field(default_factory=dict)


class StateReading:
    """The rules' order states and the counters each may reach (see the module docstring)."""

    def __init__(self, rules: ir.Ruleset) -> None:
        self.rules = rules
        self.units = {u.name: u for u in rules.units}
        self.every: Units = frozenset(self.units)
        self.defines = {d.name: d for d in rules.defines}
        self.types = {t.name: t for t in rules.unit_types}
        self.blanks = {a.name: _blank(a.type) for a in rules.attributes}
        self.switches = {s.name: s for s in rules.switches}
        self.reading = self._read()
        self.marks = tuple(v for v in rules.variables if self._is_mark(v))

    # ------------------------------------------------------------ the marks

    def _is_mark(self, v: ir.Variable) -> bool:
        named_state = v.type.startswith("enum:") and len(v.values) > 1
        if v.scope != "unit" or v.reset is not None or not (named_state or v.type == "bool"):
            return False
        if named_state or self.marker_of(v) is not None:
            return True
        return self._imported(v) and not self._working_notes(v)

    def marker_of(self, v: ir.Variable) -> ir.Marker | None:
        """The marker the rules give a state: one whose words are all in its title."""
        title = _words(v.title)
        markers = self.rules.markers
        return next((m for m in markers if _words(m.title) and _words(m.title) <= title), None)

    def _imported(self, v: ir.Variable) -> bool:
        """Declared by an imported library (outside the battle's own folder)."""
        home = PurePosixPath(self.rules.files[0]).parent if self.rules.files else None
        return v.span is not None and PurePosixPath(v.span.file).parent != home

    def _working_notes(self, v: ir.Variable) -> bool:
        """Read only where it is set, or cleared where it is set: a procedure's notes."""
        setters = {s.container for s in self.reading.setters if s.variable == v.name}
        reads = self.reading.reads.get(v.name, set())
        cleared = any((v.name, c) in self.reading.clears for c in setters)
        return reads <= setters or cleared

    # ------------------------------------------------------------ per counter and scenario

    def offered(self, sc: ir.Scenario | None) -> dict[str, tuple[str, ...]]:
        """Each counter → the marks it may carry in scenario `sc` (None: in any scenario),
        in the rules' order of the marks."""
        given: dict[str, set[str]] = {}
        marks = {v.name: v for v in self.marks}
        for s in self.reading.setters:
            if s.variable not in marks or not self._in_play(s.rule, sc):
                continue
            combat = {u for u in s.targets if self.units[u].kind == "unit"}
            reach = s.targets if s.by_name or not combat else combat
            for u in reach:
                given.setdefault(u, set()).add(s.variable)
        for u, var in self._assigned(sc):
            if var in marks:
                given.setdefault(u, set()).add(var)
        out = {}
        for u, vs in given.items():
            kept = [v for v in self.marks if v.name in vs and self._sides_marker(v, u)]
            if kept:
                out[u] = tuple(v.name for v in kept)
        return out

    def _sides_marker(self, v: ir.Variable, unit: str) -> bool:
        marker = self.marker_of(v)
        return marker is None or not marker.side or marker.side == self.units[unit].side

    def _assigned(self, sc: ir.Scenario | None) -> Iterator[tuple[str, str]]:
        """(unit, state) for every state a set-up assigns a non-initial value."""
        initial = {v.name: v.initial for v in self.rules.variables}
        scenarios = self.rules.scenarios if sc is None else (sc,)
        for s in scenarios:
            for entry in (*s.setup, *s.reinforcements):
                for p in entry.units:
                    for var, value in p.assigns:
                        if getattr(value, "value", UNKNOWN) != initial.get(var):
                            yield p.name, var

    def _in_play(self, rule: str, sc: ir.Scenario | None) -> bool:
        return rule == "" or self._switch(rule, sc) is not False

    def _switch(self, name: str, sc: ir.Scenario | None) -> bool | None:
        """A rule switch in a scenario: on, off, or None when the players decide
        (an optional rule the scenario leaves alone, or any scenario at all)."""
        sw = self.switches.get(name)
        if sw is None or sc is None:
            return None
        if sw.part_of and self._switch(sw.part_of, sc) is False:
            return False  # (an option of a rule the scenario leaves out)
        if name in sc.rules_on:
            return True
        if name in sc.rules_off:
            return False
        return True if sw.default else (None if "optional" in sw.flags else False)

    # ------------------------------------------------------------ the walk

    def _read(self) -> _Reading:
        """Walk the rules until each procedure's unit parameters stop growing."""
        bodies = (
            *(p.steps for p in self.rules.procedures),
            *(t.body for t in (*self.rules.triggers, *self.rules.results)),
        )
        called = {c.proc for c in ir.nodes_of(bodies, ir.CallProc)}
        params: dict[tuple[str, str], Units] = {
            (p.name, name): (frozenset() if p.name in called else self.every)
            for p in self.rules.procedures
            for name, kind in p.params
            if kind in ("unit", "units")
        }
        while True:
            reading = _Reading(params=dict(params))
            self._walk_all(reading)
            if reading.params == params:
                return reading
            params = reading.params

    def _walk_all(self, reading: _Reading) -> None:
        r = self.rules
        for p in r.procedures:
            env: dict[Key, Units] = {
                name: reading.params.get((p.name, name), self.every) for name, _ in p.params
            }
            for step in p.steps:
                walk = _Walk(self, reading, ("procedure", p.name), step.rule)
                walk.block(step.body, dict(env), ())
        for t in r.triggers:
            walk = _Walk(self, reading, ("trigger", t.name), t.rule)
            walk.read(t.condition)
            guards = (t.condition,) if t.condition is not None else ()
            walk.block(t.body, {}, guards)
        for res in r.results:
            _Walk(self, reading, ("result", res.name), "").block(res.body, {}, ())
        readers: list[tuple[tuple[str, str], object]] = [
            *((("restriction", x.name), (x.condition, x.value)) for x in r.restrictions),
            *((("define", d.name), d.body) for d in r.defines),
            *((("modifier", m.name), m.modifiers) for m in r.modifiers),
            *((("victory", v.name), v.condition) for v in r.victories),
            *((("impossible", i.name), i.condition) for i in r.impossibles),
            *((("concealment", c.name), c.condition) for c in r.concealments),
        ]
        for container, value in readers:
            _Walk(self, reading, container, "").read(value)

    # ------------------------------------------------------------ a counter's printed values

    def printed(self, unit: str, name: str) -> object:
        """A value printed on (or fixed for) a counter, or UNKNOWN."""
        u = self.units.get(unit)
        if u is None:
            return UNKNOWN
        fixed = {
            "side": u.side,
            "leader": u.kind == "leader",
            "combat_unit": u.kind == "unit",
            "type": u.type,
            "nationality": u.nationality,
            "formation": u.formation,
            "brigade": u.brigade,
            "movement": u.movement,
        }
        if name in fixed:
            return fixed[name]
        if name not in self.blanks:
            return UNKNOWN
        if name in u.props:
            return u.props[name]
        own = self.types[u.type].props if u.type in self.types else {}
        return own.get(name, self.blanks[name])

    def units_of(self, side: object) -> Units:
        return frozenset(n for n, u in self.units.items() if u.side == side)


class _Walk:
    """One container's statements: setters under their guards, clears, reads, calls."""

    def __init__(
        self, states: StateReading, reading: _Reading, container: tuple[str, str], rule: str
    ) -> None:
        self.s = states
        self.r = reading
        self.container = container
        self.rule = rule
        self.members: dict[Key, ir.TExpr] = {}  # a loop's variable → the collection it runs over

    def read(self, value: object) -> None:
        for v in ir.nodes_of(value, ir.VarAt):
            self.r.reads.setdefault(v.name, set()).add(self.container)

    def block(self, body: tuple[ir.TStmt, ...], env: dict[Key, Units], guards: tuple) -> None:
        for st in body:
            self.statement(st, env, guards)

    def statement(self, st: ir.TStmt, env: dict[Key, Units], guards: tuple) -> None:
        if isinstance(st, ir.SetVarAt):
            self.read((st.index, st.value))
            self._set(st, env, guards)
        elif isinstance(st, ir.If):
            self.read(st.test)
            self.block(st.body, env, (*guards, st.test))
            self.block(st.orelse, env, (*guards, ir.Unary("bool", op="not", operand=st.test)))
        elif isinstance(st, ir.ForEach):
            self.read((st.iterable, st.chooser))
            inner = {**env, st.var: self.targets(st.iterable, env)}
            self.members[st.var] = st.iterable
            self.block(st.body, inner, guards)
        elif isinstance(st, ir.Choose):
            self.read((st.options, st.chooser))
            env[st.var] = self.targets(st.options, env)
        elif isinstance(st, ir.Let):
            self.read(st.value)
            if st.value.type in ("unit", "units"):
                env[st.name] = self.targets(st.value, env)
            else:
                env.pop(st.name, None)
        elif isinstance(st, ir.Ask):
            self.read((st.chooser, st.question))
            self.block(st.yes, env, guards)
            self.block(st.no, env, guards)
        elif isinstance(st, ir.Repeat):
            self.read(st.test)
            self.block(st.body, env, guards)
        elif isinstance(st, ir.CallProc):
            self.read(st.args)
            for name, arg in st.args:
                key = (st.proc, name)
                if key in self.r.params and arg.type in ("unit", "units"):
                    self.r.params[key] = self.r.params[key] | self.targets(arg, env)
        else:
            self.read(st)

    def _set(self, st: ir.SetVarAt, env: dict[Key, Units], guards: tuple) -> None:
        var = next((v for v in self.s.rules.variables if v.name == st.name), None)
        if var is None or var.scope != "unit":
            return
        if isinstance(st.value, ir.Const) and st.value.value == var.initial:
            self.r.clears.add((st.name, self.container))
            return
        key = _key(st.index)
        candidates = self.targets(st.index, env)
        kept = frozenset(
            u
            for u in candidates
            if all(self.truth(g, {key: u} if key is not None else {}) is not False for g in guards)
        )
        by_name = isinstance(st.index, ir.Const)
        self.r.setters.append(Setter(st.name, self.container, self.rule, kept, by_name))

    # ------------------------------------------------------------ which counters an expression is

    def targets(self, e: ir.TExpr, env: dict[Key, Units]) -> Units:
        s = self.s
        if isinstance(e, ir.Const) and e.type == "unit":
            return frozenset({e.value}) if e.value in s.units else frozenset()
        if isinstance(e, ir.Binding):
            return env.get(e.name, s.every)
        if isinstance(e, ir.Element):
            return env.get(e.depth, s.every)
        if isinstance(e, ir.Query) and e.func == "units_of" and isinstance(e.args[0], ir.Const):
            return s.units_of(e.args[0].value)
        if isinstance(e, ir.Where):
            return frozenset(
                u
                for u in self.targets(e.collection, env)
                if self.truth(e.condition, {e.depth: u}) is not False
            )
        if isinstance(e, ir.Binary) and e.op == "+":
            return self.targets(e.left, env) | self.targets(e.right, env)
        if isinstance(e, ir.ListOf):
            return frozenset().union(*(self.targets(i, env) for i in e.items))
        if isinstance(e, ir.Conditional):
            return self.targets(e.then, env) | self.targets(e.orelse, env)
        return s.every

    # ------------------------------------------------------------ three-valued tests

    def truth(
        self, e: ir.TExpr, bound: Bound, depth: int = 0, aliases: Aliases | None = None
    ) -> bool | None:
        """Whether a test holds for the bound counters: True, False, or None (decided in play).
        `aliases`: inside a define, its parameters → the caller's arguments."""
        aliases = aliases or {}
        if depth > DEPTH_LIMIT:
            return None
        if isinstance(e, ir.Aggregate) and e.op in ("all", "none") and e.body is not None:
            return self._member(e, bound, depth, aliases)
        if isinstance(e, ir.Unary) and e.op == "not":
            inner = self.truth(e.operand, bound, depth, aliases)
            return None if inner is None else not inner
        if isinstance(e, ir.Binary) and e.op in ("and", "or", "==", "!="):
            return self._binary_truth(e, bound, depth, aliases)
        if isinstance(e, ir.DefineCall):
            return self._define(e, bound, depth, aliases)
        if isinstance(e, ir.Query) and e.func == "rule_on" and isinstance(e.args[0], ir.Const):
            return None
        value = self.value(e, bound)
        return value if isinstance(value, bool) else None

    def _binary_truth(
        self, e: ir.Binary, bound: Bound, depth: int, aliases: Aliases
    ) -> bool | None:
        """`and`/`or` of two tests (three-valued), or whether two printed values are equal."""
        if e.op in ("and", "or"):
            left = self.truth(e.left, bound, depth, aliases)
            right = self.truth(e.right, bound, depth, aliases)
            return _and(left, right) if e.op == "and" else _or(left, right)
        a, b = self.value(e.left, bound), self.value(e.right, bound)
        if a is UNKNOWN or b is UNKNOWN:
            return None
        return (a == b) == (e.op == "==")

    def _define(self, e: ir.DefineCall, bound: Bound, depth: int, aliases: Aliases) -> bool | None:
        d = self.s.defines.get(e.define)
        if d is None:
            return None
        inner: Bound = {}
        inner_aliases: Aliases = {}
        for (name, _kind), arg in zip(d.params, e.args, strict=False):
            unit = self._unit(arg, bound)
            if unit is not None:
                inner[name] = unit
            inner_aliases[name] = _substituted(arg, aliases)
        for key, unit in bound.items():  # the counter under test, as the loop's variable
            if key in self.members:
                inner.setdefault(key, unit)
        return self.truth(d.body, inner, depth + 1, inner_aliases)

    def _member(self, e: ir.Aggregate, bound: Bound, depth: int, aliases: Aliases) -> bool | None:
        """`all(C, test)` / `none(C, test)` where the counter under test runs over C:
        false when the test fails (`all`) or holds (`none`) for it, else decided in play."""
        collection = _substituted(e.collection, aliases)
        for key, unit in bound.items():
            if self.members.get(key) == collection:
                inner = self.truth(e.body, {e.depth: unit}, depth + 1)
                if inner is (e.op == "none"):
                    return False
        return None

    def value(self, e: ir.TExpr, bound: Bound) -> object:
        if isinstance(e, ir.Const):
            return e.value
        if isinstance(e, ir.UnitAttr):
            unit = self._unit(e.unit, bound)
            return UNKNOWN if unit is None else self.s.printed(unit, e.name)
        unit = self._unit(e, bound) if e.type == "unit" else None
        return UNKNOWN if unit is None else unit

    def _unit(self, e: ir.TExpr, bound: Bound) -> str | None:
        """The one counter an expression stands for under test, if it is one."""
        if isinstance(e, ir.Const) and e.type == "unit":
            return e.value
        key = _key(e)
        return bound.get(key) if key is not None else None


def _key(e: ir.TExpr) -> Key | None:
    if isinstance(e, ir.Binding):
        return e.name
    if isinstance(e, ir.Element):
        return e.depth
    return None


def _substituted(e: ir.TExpr, aliases: Aliases) -> ir.TExpr:
    """`e` with a define's parameters replaced by the caller's arguments."""
    if not aliases:
        return e
    if isinstance(e, ir.Binding) and e.name in aliases:
        return aliases[e.name]
    changes = {
        name: _substituted_value(getattr(e, name), aliases)
        for name in e.__dataclass_fields__
        if name != "span"
    }
    return replace(e, **changes)


def _substituted_value(value: object, aliases: Aliases) -> object:
    if isinstance(value, ir.TExpr):
        return _substituted(value, aliases)
    if isinstance(value, tuple):
        return tuple(_substituted_value(v, aliases) for v in value)
    return value


def _and(a: bool | None, b: bool | None) -> bool | None:
    if a is False or b is False:
        return False
    return True if a and b else None


def _or(a: bool | None, b: bool | None) -> bool | None:
    if a or b:
        return True
    return False if a is False and b is False else None


def _blank(kind: str) -> object:
    return {"bool": False, "int": 0}.get(kind, "")


def _words(title: str) -> frozenset[str]:
    return frozenset("".join(c if c.isalnum() else " " for c in title.lower()).split())
