"""What every position of a game keeps true, whatever was played or loaded.

One check serves three callers: `engine.save` refuses a save whose position
breaks any of these (so a corrupt save never crashes later, in play), the
fuzzers run it after every action, and tests use it on hand-made positions.
Each invariant is about the engine's own data — where units are, their step
losses, the types of variables and frame bindings, the stack of procedures —
never about a particular battle's rules; what the rules themselves make
impossible, they declare (`impossible`), and it is checked here too.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from engine import instructions as ins
from engine.primitives import all_primitives
from engine.rules import PUBLIC
from engine.state import NOT_ENTERED, ON_MAP, REVEALED, STATUS_NAMES, State
from engine.terrain_state import CHANGED_TERRAIN, board_of, split_entry

# `Game.new_initial_state()` starts the set-up primitive itself, from no
# procedure: it has no site.
STARTED_BY_GAME = frozenset({"setup"})


class InvariantError(AssertionError):
    """A position that no legal play could reach: the engine's data is inconsistent."""


BUILTIN_VAR_TYPES = {"turn": "int", "phasing": "side", "vp": "per_side:number"}


def var_types(s: State) -> dict[str, str]:
    """The declared type of each state variable (saves write them by it)."""
    types = dict(BUILTIN_VAR_TYPES)
    for var in s.game.rules.variables:
        types[var.name] = f"per_{var.scope}:{var.type}" if var.scope else var.type
    if s.game.rules.terrain_changes:
        types[CHANGED_TERRAIN] = "terrain_changes"
    if REVEALED in s.vars:
        types[REVEALED] = "revealed"
    return types


def violations(s: State) -> list[str]:
    """Every broken invariant of `s`, each as a short sentence (empty when sound)."""
    out: list[str] = []
    out += _unit_violations(s)
    out += _variable_violations(s)
    out += _combat_violations(s)
    out += _bag_violations(s)
    out += _stack_violations(s)
    out += _ending_violations(s)
    if not out:  # the rules' own conditions read the data checked above
        out += impossible_positions(s)
    return out


def impossible_positions(s: State) -> list[str]:
    """The battle's `impossible` positions that `s` is in, each with its citation.

    These are the rules' knowledge, not the engine's: what no play reaches
    (enemy combat units in one hex, series 9.2), so a hand-written position
    that breaks it is refused at once rather than failing later in some rule.
    """
    on = s.game.switch_on
    return [
        f"{x.title} ({x.cite})" if x.cite else x.title
        for x in s.game.rules.impossibles
        if (not x.rule or on[x.rule]) and x.condition(s, {})
    ]


def check(s: State) -> None:
    """Raise `InvariantError` naming the first broken invariant of `s`."""
    found = violations(s)
    if found:
        more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
        raise InvariantError(found[0] + more)


def fits(s: State, typ: str, value: Any) -> bool:
    """Whether `value` is a well-formed engine value of the declared type `typ`.

    Types are those the compiler records for variables and bindings
    (`docs/ir.md`); an unknown or untyped (`""`, `any`) type accepts any
    immutable value.
    """
    if typ in ("", "any"):
        return _immutable(value)
    for prefix, check_compound in _COMPOUND:
        if typ.startswith(prefix):
            return check_compound(s, typ, value)
    size = _INDEX_INTO.get(typ)
    if size is not None:
        return _index(value, size(s))
    size = _INDICES_INTO.get(typ)
    if size is not None:
        return _indices(value, size(s))
    check_one = _SCALARS.get(typ)
    if check_one is None:
        return _immutable(value)
    return check_one(s, value)


def _fits_per(s: State, typ: str, value: Any) -> bool:
    """A value per side, unit or hex (`per_unit:int`): a tuple of that many, each
    of the inner type (a number when unsaid)."""
    rules = s.game.rules
    scope, _, inner = typ.partition(":")
    size = {
        "per_side": len(rules.sides),
        "per_unit": len(rules.units),
        "per_hex": len(rules.board.labels),
    }.get(scope)
    return (
        size is not None
        and isinstance(value, tuple)
        and len(value) == size
        and all(fits(s, inner or "number", v) for v in value)
    )


def _fits_cell(s: State, typ: str, value: Any) -> bool:
    """A cell of the table's shape (`cell:TABLE`): a hand-made position may hold
    a cell the printed table lacks, to show how a rule treats it."""
    table_name = typ.partition(":")[2]
    table = next((t for t in s.game.tables if t.name == table_name), None)
    n = len(s.game.rules.results)
    return (
        table is not None
        and isinstance(value, tuple)
        and len(value) == len(table.kinds)
        and all(
            _index(v, n) if kind == "code" else _immutable(v)
            for kind, v in zip(table.kinds, value, strict=True)
        )
    )


def _index(value: Any, size: int, none_ok: bool = True) -> bool:
    return _is_int(value) and (0 <= value < size or (none_ok and value == -1))


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return _is_int(value) or isinstance(value, Fraction)


def _immutable(value: Any) -> bool:
    if value is None or isinstance(value, bool | int | str | Fraction):
        return True
    return isinstance(value, tuple) and all(_immutable(v) for v in value)


def _fits_enum(s: State, typ: str, value: Any) -> bool:
    """A value of an enumeration (`enum:NAME`): its name, or none."""
    return value is None or isinstance(value, str)


# The types made of others, by the prefix of their name.
_COMPOUND = (("per_", _fits_per), ("cell:", _fits_cell), ("enum:", _fits_enum))


def _indices(value: Any, size: int) -> bool:
    """A tuple of indices below `size` (none of them -1)."""
    return isinstance(value, tuple) and all(_index(i, size, none_ok=False) for i in value)


def _units(s: State, value: Any) -> bool:
    return _indices(value, _n_units(s))


def _hexes(s: State, value: Any) -> bool:
    return _indices(value, _n_hexes(s))


def _n_sides(s: State) -> int:
    return len(s.game.rules.sides)


def _n_units(s: State) -> int:
    return len(s.game.rules.units)


def _n_hexes(s: State) -> int:
    return len(s.game.rules.board.labels)


def _n_results(s: State) -> int:
    return len(s.game.rules.results)


def _n_combats(s: State) -> int:
    return len(s.combats)


def _n_columns(s: State) -> int:
    """The most columns of any table (1 for none)."""
    return max((len(t.columns) for t in s.game.tables), default=1)


# The types that are an index (or -1 for none), and those a tuple of indices,
# with the count of what they index.
_INDEX_INTO: dict[str, Callable[[State], int]] = {
    "side": _n_sides,
    "unit": _n_units,
    "hex": _n_hexes,
    "code": _n_results,
    "combat": _n_combats,
    "column": _n_columns,
}
_INDICES_INTO: dict[str, Callable[[State], int]] = {
    "sides": _n_sides,
    "units": _n_units,
    "hexes": _n_hexes,
    "combats": _n_combats,
}


def _terrain_changes(s: State, value: Any) -> bool:
    """The terrain changes made, each once, in declared order; one with places at
    one of them (`pontoon@0503/0603`)."""
    specs = {c.name: c for c in s.game.rules.terrain_changes}
    if not isinstance(value, tuple) or not all(isinstance(v, str) for v in value):
        return False
    made = [split_entry(v) for v in value]
    names = [n for n, _p in made]
    return all(n in specs and _placed(specs[n], p) for n, p in made) and names == [
        n for n in specs if n in names
    ]


def _placed(spec: Any, place: str) -> bool:
    """A change with places stands at one of them; one without, at none."""
    places = [label for label, _h, _s in spec.places]
    return place in places if places else not place


def _revealed(s: State, value: Any) -> bool:
    """The names of secret variables revealed, each once, in declared order."""
    names = [v.name for v in s.game.rules.variables if v.secret != PUBLIC]
    return (
        isinstance(value, tuple)
        and all(isinstance(v, str) and v in names for v in value)
        and list(value) == [n for n in names if n in value]
    )


def _int(s: State, value: Any) -> bool:
    return _is_int(value)


def _number(s: State, value: Any) -> bool:
    return _is_number(value)


def _bool(s: State, value: Any) -> bool:
    return isinstance(value, bool)


def _str(s: State, value: Any) -> bool:
    return value is None or isinstance(value, str)


def _marker(s: State, value: Any) -> bool:
    """A marker's name, or none ("" or None)."""
    return value in (None, "") or (isinstance(value, str) and value in s.game.tokens)


def _markers(s: State, value: Any) -> bool:
    return isinstance(value, tuple) and all(t in s.game.tokens for t in value)


def _procedure(s: State, value: Any) -> bool:
    """A procedure's name, or "" for none."""
    return isinstance(value, str) and (value == "" or value in s.game.rules.procedures)


# The other types, each with its check.
_SCALARS: dict[str, Callable[[State, Any], bool]] = {
    "terrain_changes": _terrain_changes,
    "revealed": _revealed,
    "int": _int,
    "number": _number,
    "bool": _bool,
    "str": _str,
    "marker": _marker,
    "markers": _markers,
    "procedure": _procedure,
}


# ------------------------------------------------------------------ the checks


def _unit_violations(s: State) -> list[str]:
    rules = s.game.rules
    n = len(rules.units)
    n_hexes = len(rules.board.labels)
    if not (len(s.unit_hex) == len(s.unit_loss) == len(s.unit_status) == n):
        return [f"the unit arrays do not hold one entry per unit ({n})"]
    out = []
    for u, spec in enumerate(rules.units):
        status = s.unit_status[u]
        if not _index(status, len(STATUS_NAMES), none_ok=False):
            out.append(f"unit {spec.name} has no status ({status!r})")
            continue
        out += _location_violations(s, spec.name, status, s.unit_hex[u], n_hexes)
        out += _loss_violations(spec, s.unit_loss[u])
    return out


def _location_violations(s: State, name: str, status: int, h: Any, n_hexes: int) -> list[str]:
    """A unit on the map stands in a hex it may enter; one elsewhere in none."""
    rules = s.game.rules
    if status != ON_MAP:
        if h != -1:
            return [f"unit {name} is {STATUS_NAMES[status]} yet in a hex (a unit has one location)"]
        return []
    if not _index(h, n_hexes, none_ok=False):
        return [f"unit {name} is on the map but in no hex ({h!r})"]
    if rules.terrain[board_of(s).terrain[h]].prohibited:
        return [f"unit {name} stands in prohibited terrain ({rules.board.labels[h]})"]
    return []


def _loss_violations(spec: Any, loss: Any) -> list[str]:
    """`strengths` lists the printed strengths; a unit may have a reduced side
    beyond them (a one-strength warrior reduced), never more. Not out of play
    either: a unit out of play may yet be set up."""
    steps = len(spec.strengths)
    if not _is_int(loss) or loss < 0:
        return [f"unit {spec.name} has lost {loss!r} steps"]
    if steps and loss > steps:
        return [f"unit {spec.name} has lost {loss} steps of {steps}"]
    return []


def _variable_violations(s: State) -> list[str]:
    types = var_types(s)
    out = [f"unknown variable {name!r}" for name in s.vars if name not in types]
    out += [f"variable {name!r} is missing" for name in types if name not in s.vars]
    out += _value_violations(s, types)
    return out + _turn_violations(s)


def _value_violations(s: State, types: dict[str, str]) -> list[str]:
    """Each declared variable holds a value of its type."""
    out = []
    for name, value in s.vars.items():
        typ = types.get(name)
        if typ is not None and not fits(s, typ, value):
            out.append(f"variable {name!r} holds {value!r}, not a {typ}")
    return out


def _turn_violations(s: State) -> list[str]:
    """The phasing side is a side, and the turn one of the game's."""
    out = []
    if not _index(s.vars.get("phasing"), len(s.game.rules.sides), none_ok=False):
        out.append(f"the phasing side is {s.vars.get('phasing')!r}")
    turn = s.vars.get("turn")
    # The turn after the last is where the game ends.
    last = s.game.last_turn + (1 if s.terminal else 0)
    if _is_int(turn) and not s.game.first_turn <= turn <= last:
        out.append(f"turn {turn} is outside the game's turns")
    return out


def _combat_violations(s: State) -> list[str]:
    out = []
    for i, c in enumerate(s.combats):
        out += _one_combat_violations(s, i, c)
    return out


def _one_combat_violations(s: State, i: int, c: Any) -> list[str]:
    out = []
    if not _index(c.side, len(s.game.rules.sides), none_ok=False):
        out.append(f"combat {i} has no side ({c.side!r})")
    if not (_units(s, c.attackers) and _units(s, c.defenders)):
        out.append(f"combat {i} names units that do not exist")
    else:
        out += _waiting_violations(s, i, c)
    out += _combat_hex_violations(s, i, c)
    if not (isinstance(c.resolved, bool) and isinstance(c.diverted, bool)):
        out.append(f"combat {i}: resolved and diverted are yes or no")
    return out


def _combat_hex_violations(s: State, i: int, c: Any) -> list[str]:
    """A combat's hexes exist, and it has attackers, defenders and their hexes."""
    if not (_hexes(s, c.attack_hexes) and _hexes(s, c.defense_hexes)):
        return [f"combat {i} names hexes that do not exist"]
    if not all((c.attackers, c.defenders, c.attack_hexes, c.defense_hexes)):
        return [f"combat {i} lacks attackers, defenders or their hexes"]
    return []


def _waiting_violations(s: State, i: int, c: Any) -> list[str]:
    """A combat is designated between units on the map; they may leave it after
    (eliminated, captured, off the map), never to be still to enter."""
    waiting = [u for u in (*c.attackers, *c.defenders) if s.unit_status[u] == NOT_ENTERED]
    if not waiting:
        return []
    name = s.game.rules.units[waiting[0]].name
    return [f"combat {i} names unit {name}, which has not entered the map"]


def _bag_violations(s: State) -> list[str]:
    out = []
    bags = s.game.rules.bags
    for what, held in (("bag", s.bags), ("drawn pile", s.drawn)):
        if set(held) != set(bags):
            out.append(f"the {what}s are not the rules' bags")
        for name, tokens in held.items():
            if not isinstance(tokens, tuple) or any(t not in s.game.tokens for t in tokens):
                out.append(f"{what} {name!r} holds tokens that are no marker")
    return out


def _stack_violations(s: State) -> list[str]:
    rules = s.game.rules
    out = []
    if not s.terminal and not s.stack:
        out.append("the game is not over but no procedure runs")
    elif s.stack and (s.stack[0].prim or s.stack[0].proc != rules.start_procedure):
        out.append(f"the sequence of play ({rules.start_procedure}) is not the outermost frame")
    for depth, f in enumerate(s.stack):
        out += _frame_violations(s, depth, f)
    return out


def _frame_violations(s: State, depth: int, f: Any) -> list[str]:
    """What is wrong with the frame at `depth`: its primitive's call or its
    procedure's place, then each of its bindings."""
    where = f"frame {depth} ({f.proc})"
    if f.prim:
        prim = all_primitives().get(f.proc)
        if prim is None:
            return [f"{where}: no such primitive"]
        out = _call_violations(s, depth, f, where)
        types = prim.fields
    else:
        proc = s.game.rules.procedures.get(f.proc)
        if proc is None:
            return [f"{where}: no such procedure"]
        out = _procedure_frame_violations(s, f, proc, where)
        types = proc.types
    return out + _binding_violations(s, f, types, where)


def _call_violations(s: State, depth: int, f: Any, where: str) -> list[str]:
    """A primitive frame stands on the procedure frame whose `Prim` instruction
    started it (its `site`), unless the game itself started it."""
    site = f.b.get("site")
    if site is None and f.proc in STARTED_BY_GAME:
        return []
    if not _called_from_below(s, depth, f, site):
        return [f"{where}: not called by the frame below it"]
    return []


def _called_from_below(s: State, depth: int, f: Any, site: Any) -> bool:
    """Whether the procedure frame below `f` stands just past the `Prim`
    instruction at `site`, which starts `f`'s primitive."""
    below = s.stack[depth - 1] if depth else None
    return (
        below is not None
        and not below.prim
        and site == (below.proc, below.pc - 1)
        and _calls(s.game.rules, site, f.proc)
    )


def _procedure_frame_violations(s: State, f: Any, proc: Any, where: str) -> list[str]:
    """A procedure frame stands at one of its instructions, with its arguments,
    its loops' lists and only the bindings a path there may have set."""
    out = []
    at_instruction = _is_int(f.pc) and 0 <= f.pc <= len(proc.code)
    if not at_instruction:
        out.append(f"{where}: instruction {f.pc!r} is outside the procedure")
    out += _result_violations(s, f, where)
    out += _missing_argument_violations(s, f, proc, where)
    if at_instruction:
        out += _binding_flow_violations(s, f, proc, where)
    return out


def _missing_argument_violations(s: State, f: Any, proc: Any, where: str) -> list[str]:
    """The procedure's parameters (a result's loop variables are parameters
    too), and the lists of the loops it stands in."""
    out = []
    if f.proc not in {r.procedure for r in s.game.rules.results}:
        out += [f"{where}: argument {p!r} is missing" for p in proc.params if p not in f.b]
    out += [
        f"{where}: the list of its loop over {name[5:]!r} is missing"
        for name, first, last in _loops(proc)
        if first <= f.pc <= last and name not in f.b
    ]
    return out


def _binding_violations(s: State, f: Any, types: dict[str, str], where: str) -> list[str]:
    """Each binding of the frame holds a value of its declared type (the face-down
    choices name bindings of the frame; the call site and a result's own
    bindings are checked elsewhere)."""
    out = []
    for name, value in f.b.items():
        if (name == "site" and f.prim) or name in RESULT_BINDINGS:
            continue
        if name == SECRET:
            if not _secrets(s, f, value):
                out.append(f"{where}: the face-down choices {value!r} are not its bindings")
            continue
        if not fits(s, types.get(name, ""), value):
            out.append(f"{where}: binding {name!r} holds {value!r}, not a {types.get(name)}")
    return out


# A result's procedure runs with the result's code and the names of the
# bindings it was applied with (engine.interpreter's `apply`).
RESULT_BINDINGS = ("_code", "_args")
# Choices made face down: (variable, chooser) pairs (engine.interpreter's `choose`).
SECRET = "_secret"


def _result_violations(s: State, f: Any, where: str) -> list[str]:
    if not any(name in f.b for name in RESULT_BINDINGS):
        return []
    code, args = f.b.get("_code"), f.b.get("_args")
    out = []
    if not _index(code, len(s.game.rules.results), none_ok=False):
        out.append(f"{where}: the result applied is {code!r}")
    if not isinstance(args, tuple) or not all(isinstance(a, str) and a in f.b for a in args):
        out.append(f"{where}: the result's arguments {args!r} are not among its bindings")
    return out


def _secrets(s: State, f: Any, value: Any) -> bool:
    n = len(s.game.rules.sides)
    return isinstance(value, tuple) and all(
        isinstance(p, tuple) and len(p) == 2 and p[0] in f.b and _index(p[1], n, False)
        for p in value
    )


def _binding_flow_violations(s: State, f: Any, proc: Any, where: str) -> list[str]:
    """What no instruction before the frame's `pc` can have left in its bindings.

    A loop's list or a question's answer that no path from the procedure's
    start to `pc` sets is not there: it belongs to a later instruction (a
    frame whose `pc` was moved back). No frame stands where no path goes.
    """
    flow = binding_flow(s.game.rules, proc)
    may = flow.may[f.pc]
    if flow.must[f.pc] is None:
        return [f"{where}: no path of the procedure reaches instruction {f.pc}"]
    out = []
    for name in sorted(f.b):
        if name.startswith(COMPILED_BINDINGS) and name in flow.written and name not in may:
            out.append(f"{where}: binding {name!r} is set by no instruction before {f.pc}")
    return out


def missing_bindings(s: State, depth: int) -> list[str]:
    """Bindings the procedure frame at `depth` lacks that play would have left
    in it: every path from its procedure's start to its `pc` sets them (a
    `let`, a choice, a roll, a loop's variable after its first turn) and a
    later instruction may read them. (A frame waiting for the procedure it
    called has not yet received that call's result, `call … into`.) Asked of
    a frame saved at its `pc`; a hand-written frame that names its step gives
    the bindings it means to, as a rule-file test's `during` does."""
    f = s.stack[depth]
    flow = binding_flow(s.game.rules, s.game.rules.procedures[f.proc])
    must = flow.must[f.pc] or frozenset()
    pending = flow.call_results if depth < len(s.stack) - 1 else frozenset()
    return sorted(
        name
        for name in must & flow.live[f.pc]
        if not name.startswith("_") and name not in f.b and name not in pending
    )


# Bindings the compiler makes for a loop's list and a question's answer: only
# their own instructions set them, never a call's arguments or an event.
COMPILED_BINDINGS = ("_for_", "_ask")


@dataclass(frozen=True, slots=True)
class BindingFlow:
    """For each instruction of a procedure (and its end): the bindings every
    path from the start sets before it (`must`; None where none reaches it),
    those some path sets (`may`) and those some path from it may read before
    setting them again (`live`); every binding an instruction sets, and the
    bindings that receive a called procedure's result."""

    must: tuple[frozenset[str] | None, ...]
    may: tuple[frozenset[str], ...]
    live: tuple[frozenset[str], ...]
    written: frozenset[str]
    call_results: frozenset[str]


_FLOWS: dict[int, tuple[Any, BindingFlow]] = {}


def binding_flow(rules: Any, proc: Any) -> BindingFlow:
    """The binding flow of a procedure of `rules`, worked out once per procedure."""
    known = _FLOWS.get(id(proc))
    if known is not None and known[0] is proc:
        return known[1]
    flow = _work_out_flow(rules, proc.code)
    _FLOWS[id(proc)] = (proc, flow)
    return flow


def _work_out_flow(rules: Any, code: tuple[Any, ...]) -> BindingFlow:
    must, may = _reaching_bindings(code)
    live = _live_bindings(rules, code)
    written = frozenset().union(*(_sets(instr) for instr in code))
    results = frozenset(i.into for i in code if isinstance(i, ins.Call) and i.into)
    return BindingFlow(tuple(must), tuple(may), tuple(live), written, results)


def _reaching_bindings(
    code: tuple[Any, ...],
) -> tuple[list[frozenset[str] | None], list[frozenset[str]]]:
    """Forwards from the start: the bindings every path sets before each
    instruction (None where no path reaches it) and those some path sets."""
    n = len(code)
    must: list[frozenset[str] | None] = [None] * (n + 1)
    may: list[frozenset[str]] = [frozenset()] * (n + 1)
    must[0] = frozenset()
    work = [0]
    while work:
        pc = work.pop()
        if pc >= n:
            continue
        here, maybe = must[pc], may[pc]
        assert here is not None
        sets = _sets(code[pc])
        after, maybe_after = here | sets, maybe | sets
        for nxt in _successors(code[pc], pc):
            old = must[nxt]
            new = after if old is None else old & after
            new_may = may[nxt] | maybe_after
            if new != old or new_may != may[nxt]:
                must[nxt], may[nxt] = new, new_may
                work.append(nxt)
    return must, may


def _live_bindings(rules: Any, code: tuple[Any, ...]) -> list[frozenset[str]]:
    """Backwards to a fixed point (loops carry what they read round): the
    bindings some path from each instruction may read before setting them."""
    n = len(code)
    live: list[frozenset[str]] = [frozenset()] * (n + 1)
    reads = [_reads(rules, instr) for instr in code]
    changed = True
    while changed:
        changed = False
        for pc in range(n - 1, -1, -1):
            after = frozenset().union(*(live[nxt] for nxt in _successors(code[pc], pc)))
            new = reads[pc] | (after - _sets(code[pc]))
            if new != live[pc]:
                live[pc], changed = new, True
    return live


def _reads(rules: Any, instr: Any) -> frozenset[str]:
    """The bindings an instruction may read: the names its compiled functions
    (and those of the modifiers of a roll) hold as constants (`b['odds']`; a
    name that is only text is counted too, which asks no more of a position
    than play leaves in it) and the loop bindings it works on."""
    names: set[str] = set()
    for fn in _functions(rules, instr):
        if callable(fn) and hasattr(fn, "__code__"):
            names |= _constants(fn.__code__)
    names.update(getattr(instr, f) for f in _LOOP_READS.get(type(instr), ()))
    return frozenset(names)


# The fields naming the loop bindings each kind of loop instruction works on.
_LOOP_READS: dict[type, tuple[str, ...]] = {
    ins.JumpIfEmpty: ("rest",),
    ins.ForTake: ("rest",),
    ins.ForDrop: ("var", "rest"),
}


def _functions(rules: Any, instr: Any) -> list[Any]:
    """An instruction's operands (each value of a dict of them), and the
    conditions and amounts of a roll's modifiers."""
    fns: list[Any] = []
    for operand in (getattr(instr, name) for name in ins.operand_names(type(instr))):
        fns += operand.values() if isinstance(operand, dict) else [operand]
    if isinstance(instr, ins.Roll | ins.RollDie) and instr.modifiers:
        for m in rules.modifiers[instr.modifiers].modifiers:
            fns += [m.condition, m.amount]
    return fns


def _constants(code: Any) -> set[str]:
    out = set()
    for c in code.co_consts:
        if isinstance(c, str):
            out.add(c)
        elif hasattr(c, "co_consts"):
            out |= _constants(c)
    return out


# The fields naming the bindings each kind of instruction sets in its own frame
# (a roll's total and a call's result only when it has one).
_SETTING_FIELDS: dict[type, tuple[str, ...]] = {
    ins.Let: ("name",),
    ins.ForStart: ("rest",),
    ins.ForTake: ("var",),
    ins.Choose: ("var",),
    ins.Ask: ("var",),
    ins.Roll: ("into", "total", "natural"),
    ins.RollDie: ("into", "natural"),
    ins.Draw: ("into",),
    ins.Call: ("into",),
}


def _sets(instr: Any) -> frozenset[str]:
    """The bindings an instruction sets in its own frame."""
    fields = _SETTING_FIELDS.get(type(instr), ())
    return frozenset(name for name in (getattr(instr, f) for f in fields) if name)


# How each kind of instruction that does not simply go on to the next one
# ends: whether it may go on to the next, and the field naming where it jumps
# (None: nowhere, it leaves the procedure).
_BRANCHES: dict[type, tuple[bool, str | None]] = {
    ins.Jump: (False, "target"),
    ins.JumpIfNot: (True, "target"),
    ins.JumpUnlessSwitch: (True, "target"),
    ins.JumpIfEmpty: (True, "end"),
    ins.Return: (False, None),
    ins.EndPhase: (False, None),
    ins.EndGame: (False, None),
}


def _successors(instr: Any, pc: int) -> tuple[int, ...]:
    """The instructions that may run after the one at `pc` (the end of the
    procedure is `len(code)`)."""
    goes_on, jump = _BRANCHES.get(type(instr), (True, None))
    after = (pc + 1,) if goes_on else ()
    return (*after, getattr(instr, jump)) if jump else after


def _loops(proc: Any) -> list[tuple[str, int, int]]:
    """Each `for each` loop of a procedure as (the binding holding what is
    left to visit, its first and last instruction): from the loop's test
    (`JumpIfEmpty`) to the jump back before its end."""
    return [
        (instr.rest, first, instr.end - 1)
        for first, instr in enumerate(proc.code)
        if isinstance(instr, ins.JumpIfEmpty)
    ]


def _calls(rules: Any, site: Any, prim: str) -> bool:
    proc, pc = site
    code = rules.procedures[proc].code
    return (
        _is_int(pc)
        and 0 <= pc < len(code)
        and isinstance(code[pc], ins.Prim)
        and code[pc].primitive == prim
    )


def _ending_violations(s: State) -> list[str]:
    out = []
    if not _is_int(s.move_number) or s.move_number < 0:
        out.append(f"move number {s.move_number!r}")
    if not isinstance(s.terminal, bool):
        out.append("terminal is yes or no")
    out += _victory_violations(s)
    unknown = s.fired - {t.name for t in s.game.rules.triggers}
    if unknown:
        out.append(f"unknown triggers fired: {sorted(unknown)}")
    return out


def _victory_violations(s: State) -> list[str]:
    """The winner is a side (or none), only of a game over, at a level the rules name."""
    out = []
    if not _index(s.winner, len(s.game.rules.sides)):
        out.append(f"the winner is no side ({s.winner!r})")
    elif s.winner >= 0 and not s.terminal:
        out.append("a side has won but the game goes on")
    if s.level and s.level not in s.game.rules.victory_levels:
        out.append(f"unknown victory level {s.level!r}")
    return out
