"""Saves: a state as readable JSON, and back.

Units are written by name, hexes by label and sides by name, so that a
designer (or a test) can write a position by hand: a frame's bindings are
converted with the types the compiler recorded for each procedure and the
field types each primitive declares. The same JSON, canonically serialised,
gives the state hash, which never depends on `hash()` or set order.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Collection, Iterable
from fractions import Fraction
from typing import Any

from engine import instructions as ins
from engine import primitives
from engine.errors import BadInput
from engine.interpreter import CHANCE, advance, current_node
from engine.invariants import fits, missing_bindings, var_types, violations
from engine.rules import Rules
from engine.state import STATUS_NAMES, Combat, Frame, State

FORMAT = "muster.state/1"


class SaveError(BadInput):
    """A saved position that is malformed or does not fit the game it is loaded into.

    `path` is the JSON path of the bad field (`$.units.<unit>.hex`), so a
    hand-written position can be fixed where it is wrong.
    """

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


# Integers in a save are counts, turns, indices and die rolls: anything wider
# is damage, and refusing it keeps a tampered save from making huge numbers.
INT_LIMIT = 10**9
# The deepest a save's JSON may nest: a table cell inside a per-hex variable
# is six levels down; anything far deeper is damage, refused before any
# recursive step (a check, a conversion) can overflow the stack on it.
MAX_DEPTH = 32
FRACTION = re.compile(r"-?\d{1,18}(/\d{1,18})?")


def _object(
    value: Any,
    path: str,
    allowed: Iterable[str],
    required: Iterable[str] = (),
    what: str = "field",
) -> dict[str, Any]:
    """`value` as a JSON object with only `allowed` keys and every `required` one."""
    if not isinstance(value, dict):
        raise SaveError(path, f"expected an object, not {_kind(value)}")
    allowed = set(allowed)
    for key in value:
        if key not in allowed:
            raise SaveError(f"{path}.{key}", f"unknown {what} {key!r}")
    for key in required:
        if key not in value:
            raise SaveError(f"{path}.{key}", "missing")
    return value


def check_depth(value: Any, path: str = "$", limit: int = MAX_DEPTH) -> None:
    """Raise `SaveError` at the first place `value` nests more than `limit`
    lists and objects deep. Iterative, so any depth the JSON parser accepted
    is refused here rather than overflowing a recursive walk later."""
    todo = [(value, path, 0)]
    while todo:
        item, where, depth = todo.pop()
        if depth > limit:
            raise SaveError(where, f"nested more than {limit} deep")
        if isinstance(item, dict):
            todo += ((v, f"{where}.{k}", depth + 1) for k, v in item.items())
        elif isinstance(item, list):
            todo += ((v, f"{where}[{i}]", depth + 1) for i, v in enumerate(item))


def _list(value: Any, path: str) -> list[Any]:
    if not isinstance(value, list):
        raise SaveError(path, f"expected a list, not {_kind(value)}")
    return value


def _int(value: Any, path: str, low: int = -INT_LIMIT, high: int = INT_LIMIT) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise SaveError(path, f"expected a whole number, not {_kind(value)}")
    if not low <= value <= high:
        raise SaveError(path, f"{value} is outside {low}..{high}")
    return value


def _bool(value: Any, path: str) -> bool:
    if not isinstance(value, bool):
        raise SaveError(path, f"expected true or false, not {_kind(value)}")
    return value


def _name(value: Any, path: str, known: Iterable[str], what: str) -> str:
    if not isinstance(value, str):
        raise SaveError(path, f"expected the name of a {what}, not {_kind(value)}")
    if value not in known:
        raise SaveError(path, f"{value!r} is not a known {what}")
    return value


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"{str(value).lower()}"
    if isinstance(value, int | float):
        return f"the number {value!r}"[:60]
    if isinstance(value, str):
        return f"the text {value!r}"[:60]
    return {dict: "an object", list: "a list"}.get(type(value), type(value).__name__)


# ------------------------------------------------------------------ values


def _encode(s: State, typ: str, value: Any) -> Any:
    if value is None:
        return None
    by_name = _BY_NAME.get(typ)
    if by_name is not None:
        return by_name(s.game.rules, value)
    if typ.startswith("cell:"):
        spec = _table(s, typ)
        return [
            _encode(s, "code" if k == "code" else "", v)
            for k, v in zip(spec.kinds, value, strict=True)
        ]
    scope, colon, inner = typ.partition(":")
    names = _row_names(s, scope) if colon else None
    if names is not None:
        return _row(s, inner, value, names)
    if isinstance(value, Fraction):
        return str(value)
    return _plain(value)


def _side_name(rules: Rules, side: int) -> str | None:
    return rules.sides[side].name if side >= 0 else None


def _side_names(rules: Rules, sides: tuple[int, ...]) -> list[str]:
    return [rules.sides[x].name for x in sides]


def _unit_name(rules: Rules, u: int) -> str | None:
    return rules.units[u].name if u >= 0 else None


def _unit_names(rules: Rules, units: tuple[int, ...]) -> list[str]:
    return [rules.units[u].name for u in units]


def _hex_label(rules: Rules, h: int) -> str | None:
    return rules.board.labels[h] if h >= 0 else None


def _hex_labels(rules: Rules, hexes: tuple[int, ...]) -> list[str]:
    return [rules.board.labels[h] for h in hexes]


def _result_name(rules: Rules, code: int) -> str | None:
    return rules.results[code].name if code >= 0 else None


def _by_side(rules: Rules, value: tuple[Any, ...]) -> dict[str, Any]:
    return {side.name: value[i] for i, side in enumerate(rules.sides)}


# How a value of each type written by name is saved.
_BY_NAME: dict[str, Callable[[Rules, Any], Any]] = {
    "side": _side_name,
    "sides": _side_names,
    "unit": _unit_name,
    "units": _unit_names,
    "hex": _hex_label,
    "hexes": _hex_labels,
    "code": _result_name,
    "per_side": _by_side,
}


def _row_names(s: State, scope: str) -> Collection[str] | None:
    """The names a per-side, per-unit or per-hex row is saved by, in order
    (None for any other scope)."""
    if scope == "per_side":
        return [side.name for side in s.game.rules.sides]
    if scope == "per_unit":
        return s.game.unit_by_name  # (in unit order)
    if scope == "per_hex":
        return s.game.rules.board.labels
    return None


# The types `_encode` writes by name; of any other type it gives back a bool,
# a number, a text or None unchanged (a fraction it writes as text): a row of
# those is saved in one go, not member by member (a save has a hundred units' rows).
_NAMED = frozenset({"side", "sides", "unit", "units", "hex", "hexes", "code"})
_AS_IS = frozenset({bool, int, str, type(None)})


def _row(s: State, inner: str, value: Any, names: Collection[str]) -> dict[str, Any]:
    """A per-side, per-unit or per-hex variable's row, by name."""
    if (
        inner not in _NAMED
        and not inner.startswith(("cell:", "per_"))
        and len(value) >= len(names)
        and _AS_IS.issuperset(map(type, value))
    ):
        return dict(zip(names, value, strict=False))  # (members beyond the names: left out)
    return {name: _encode(s, inner, value[i]) for i, name in enumerate(names)}


def _table(s: State, typ: str) -> Any:
    name = typ.split(":", 1)[1]
    return next(t for t in s.game.tables if t.name == name)


def _plain(value: Any) -> Any:
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    return value


def _decode(s: State, typ: str, value: Any, path: str) -> Any:
    """A saved value of type `typ` as the engine holds it; `SaveError` at `path`."""
    decoded = _convert(s, typ, value, path)
    if not fits(s, typ, decoded):
        raise SaveError(path, f"{_kind(value)} is not a value of type {typ or 'any'} here")
    return decoded


def _convert(s: State, typ: str, value: Any, path: str) -> Any:
    if typ.startswith("per_"):
        return _convert_row(s, typ, value, path)
    if typ.startswith("cell:"):
        return _convert_cell(s, typ, value, path)
    if typ in _ONE_NAMED:
        names, what = _indices(s, typ)
        return -1 if value is None else names[_name(value, path, names, what)]
    if typ in _MANY_NAMED:
        names, what = _indices(s, _MANY_NAMED[typ])
        items = _list(value, path)
        return tuple(names[_name(v, f"{path}[{i}]", names, what)] for i, v in enumerate(items))
    if typ == "number" and isinstance(value, str):
        if not FRACTION.fullmatch(value) or value.endswith("/0"):
            raise SaveError(path, f"{value!r} is not a number")
        return Fraction(value)
    return _tupled(value, path)


# The types saved by name, one or a list of them (of the kind named).
_ONE_NAMED = frozenset({"side", "unit", "hex", "code"})
_MANY_NAMED = {"sides": "side", "units": "unit", "hexes": "hex"}


def _indices(s: State, kind: str) -> tuple[dict[str, int], str]:
    """Each name of a side, unit, hex or result, with its index; and what to
    call the kind in an error."""
    g = s.game
    if kind == "code":
        return {r.name: i for i, r in enumerate(g.rules.results)}, "result"
    return {"side": g.side_by_name, "unit": g.unit_by_name, "hex": g.hex_by_label}[kind], kind


def _convert_row(s: State, typ: str, value: Any, path: str) -> tuple[Any, ...]:
    """A per-side, per-unit or per-hex row saved as an object with every name."""
    rules = s.game.rules
    scope, _, inner = typ.partition(":")
    names = {
        "per_side": [side.name for side in rules.sides],
        "per_unit": [u.name for u in rules.units],
        "per_hex": list(rules.board.labels),
    }.get(scope)
    if names is None:
        raise SaveError(path, f"no values of type {typ}")
    obj = _object(value, path, names, names)
    return tuple(_decode(s, inner or "number", obj[n], f"{path}.{n}") for n in names)


def _convert_cell(s: State, typ: str, value: Any, path: str) -> tuple[Any, ...]:
    """A table's cell saved as a list of its parts (a result by name)."""
    spec = _table(s, typ)
    cells = _list(value, path)
    if len(cells) != len(spec.kinds):
        raise SaveError(path, f"a cell of {spec.name} has {len(spec.kinds)} parts")
    return tuple(
        _convert(s, "code" if k == "code" else "", v, f"{path}[{i}]")
        for i, (k, v) in enumerate(zip(spec.kinds, cells, strict=True))
    )


def _tupled(value: Any, path: str) -> Any:
    if isinstance(value, list):
        return tuple(_tupled(v, f"{path}[{i}]") for i, v in enumerate(value))
    if isinstance(value, int) and not isinstance(value, bool):
        return _int(value, path)
    return value


# ------------------------------------------------------------------ frames


def _frame_types(s: State, frame: Frame) -> dict[str, str]:
    if frame.prim:
        return primitives.get(frame.proc).fields
    return s.game.rules.procedures[frame.proc].types


def _encode_frame(s: State, frame: Frame, above: Frame | None) -> dict[str, Any]:
    """A frame as saved. One that resumes at its step's start under a frame it
    did not start (a hand-written frame, loaded by its step) is saved by its
    step alone, as it was written, so that the save loads again."""
    types = _frame_types(s, frame)
    bindings = {k: _encode(s, types.get(k, ""), v) for k, v in sorted(frame.b.items())}
    if frame.prim:
        return {"primitive": frame.proc, "bindings": bindings}
    proc = s.game.rules.procedures[frame.proc]
    step = max(
        (name for name, pc in proc.steps.items() if pc <= frame.pc), key=proc.steps.get, default=""
    )
    if step and proc.steps[step] == frame.pc and above and not _started(s, frame, above):
        return {"procedure": frame.proc, "step": step, "bindings": bindings}
    return {"procedure": frame.proc, "step": step, "pc": frame.pc, "bindings": bindings}


def _decode_frame(s: State, data: Any, path: str) -> Frame:
    prim = isinstance(data, dict) and "primitive" in data
    if prim:
        name, pc, types = _primitive_frame(data, path)
    else:
        name, pc, types = _procedure_frame(s, data, path)
    bindings = data.get("bindings", {})
    if not isinstance(bindings, dict):
        raise SaveError(f"{path}.bindings", f"expected an object, not {_kind(bindings)}")
    b = {k: _decode(s, types.get(k, ""), v, f"{path}.bindings.{k}") for k, v in bindings.items()}
    return Frame(name, pc, b, prim=prim)


def _primitive_frame(data: dict[str, Any], path: str) -> tuple[str, int, dict[str, str]]:
    """A primitive frame's name, pc (0) and the types of its bindings."""
    _object(data, path, ("primitive", "bindings"))
    prims = primitives.all_primitives()
    name = _name(data["primitive"], f"{path}.primitive", prims, "primitive")
    return name, 0, prims[name].fields


def _procedure_frame(s: State, data: Any, path: str) -> tuple[str, int, dict[str, str]]:
    """A procedure frame's name, pc (saved, or the start of the step it names)
    and the types of its bindings."""
    _object(data, path, ("procedure", "step", "pc", "bindings"), ("procedure",))
    procs = s.game.rules.procedures
    name = _name(data["procedure"], f"{path}.procedure", procs, "procedure")
    proc = procs[name]
    if "step" in data and data["step"] != "":
        _name(data["step"], f"{path}.step", proc.steps, f"step of {name}")
    if "pc" in data:
        pc = _int(data["pc"], f"{path}.pc", 0, len(proc.code))
    elif data.get("step"):
        pc = proc.steps[data["step"]]
    else:
        raise SaveError(path, f"a frame of {name!r} needs a pc or a known step")
    return name, pc, proc.types


# ------------------------------------------------------------------ states


def to_json(s: State) -> dict[str, Any]:
    rules = s.game.rules
    types = var_types(s)
    units = {spec.name: _unit_json(s, u) for u, spec in enumerate(rules.units)}
    combats = [_combat_json(s, c) for c in s.combats]
    return {
        "format": FORMAT,
        "ruleset": rules.name,
        "rules_hash": s.game.rules_hash,
        "switches": dict(sorted(s.game.switch_on.items())),
        "move_number": s.move_number,
        "vars": {k: _encode(s, types.get(k, ""), v) for k, v in sorted(s.vars.items())},
        "units": units,
        "combats": combats,
        "bags": {name: list(tokens) for name, tokens in sorted(s.bags.items())},
        "drawn": {name: list(tokens) for name, tokens in sorted(s.drawn.items())},
        "stack": [
            _encode_frame(s, f, s.stack[i + 1] if i + 1 < len(s.stack) else None)
            for i, f in enumerate(s.stack)
        ],
        "fired": sorted(s.fired),
        "terminal": s.terminal,
        "winner": rules.sides[s.winner].name if s.winner >= 0 else None,
        "level": s.level or None,
    }


def _unit_json(s: State, u: int) -> dict[str, Any]:
    h = s.unit_hex[u]
    out = {
        "hex": s.game.rules.board.labels[h] if h >= 0 else None,
        "steps_lost": s.unit_loss[u],
        "status": STATUS_NAMES[s.unit_status[u]],
    }
    if u in s.halted:  # (the turn of its halt; written only when halted)
        out["halted"] = s.halted[u]
    return out


def _combat_json(s: State, c: Combat) -> dict[str, Any]:
    return {
        "side": s.game.rules.sides[c.side].name,
        "attackers": _encode(s, "units", c.attackers),
        "defenders": _encode(s, "units", c.defenders),
        "attack_hexes": _encode(s, "hexes", c.attack_hexes),
        "defense_hexes": _encode(s, "hexes", c.defense_hexes),
        "resolved": c.resolved,
        "diverted": c.diverted,
    }


canonical = to_json

FIELDS = (
    "format",
    "check",
    "ruleset",
    "rules_hash",
    "switches",
    "move_number",
    "vars",
    "units",
    "combats",
    "bags",
    "drawn",
    "stack",
    "fired",
    "terminal",
    "winner",
    "level",
)
UNIT_FIELDS = ("hex", "steps_lost", "status", "halted")
COMBAT_FIELDS = ("side", "attackers", "defenders", "attack_hexes", "defense_hexes")


def from_json(game: Any, data: Any) -> State:
    """Load a state saved by `to_json` (or written by hand) into `game`.

    Raises only `SaveError`, for every malformed, mistyped, out-of-range or
    inconsistent save; a state it returns passes `engine.invariants.check`
    and plays on.
    """
    check_depth(data)
    _check_header(game, data)
    _check_rules(game, data)
    s = State(game)
    _load_position(s, data)
    _load_progress(s, data)
    found = violations(s)
    if found:
        raise SaveError("$", f"an impossible position: {found[0]}")
    _check_primitive_frames(s)
    if "check" in data and data["check"] != check(data):
        # Every field is well formed, yet the save is not what was written: an
        # edit the checks above cannot see (a binding taken out of a frame).
        raise SaveError(
            "$.check",
            "the save was changed after it was written; to load it as a "
            'hand-written position, remove its "check"',
        )
    if not s.terminal:
        _play_on(s)
    return s


def check(data: dict[str, Any]) -> str:
    """The hash `dumps` writes into a save, of everything else in it."""
    body = {k: v for k, v in data.items() if k != "check"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode()).hexdigest()


def _check_header(game: Any, data: Any) -> None:
    """A save is an object of known fields, a Muster state of this ruleset."""
    _object(data, "$", FIELDS, ("format", "ruleset"))
    if "check" in data and not isinstance(data["check"], str):
        raise SaveError("$.check", f"expected a hash, not {_kind(data['check'])}")
    if data["format"] != FORMAT:
        raise SaveError("$.format", f"not a Muster state ({_kind(data['format'])})")
    if data["ruleset"] != game.rules.name:
        raise SaveError("$.ruleset", f"saved for {_kind(data['ruleset'])}, not {game.rules.name!r}")


def _check_rules(game: Any, data: dict[str, Any]) -> None:
    """A save plays on only under the rules, charts and switches it was saved
    with; a hand-written position may leave these out."""
    saved_hash = data.get("rules_hash")
    if saved_hash is not None:
        if not isinstance(saved_hash, str):
            raise SaveError("$.rules_hash", f"expected a hash, not {_kind(saved_hash)}")
        if saved_hash != game.rules_hash:
            raise SaveError(
                "$.rules_hash",
                f"saved with other rules or charts (hash {saved_hash[:12]}, "
                f"these are {game.rules_hash[:12]})",
            )
    switches = _object(data.get("switches", {}), "$.switches", game.switch_on, what="rule switch")
    for name, on in switches.items():
        if game.switch_on[name] != _bool(on, f"$.switches.{name}"):
            raise SaveError(
                f"$.switches.{name}",
                f"saved with rule {name!r} {'on' if on else 'off'}: make the game with it so",
            )


def _load_position(s: State, data: dict[str, Any]) -> None:
    types = var_types(s)
    variables = _object(data.get("vars", {}), "$.vars", s.vars, what="variable")
    for name, v in variables.items():
        s.vars[name] = _decode(s, types[name], v, f"$.vars.{name}")
    _load_units(s, data)
    _load_combats(s, data)
    for field, held in (("bags", s.bags), ("drawn", s.drawn)):
        for name, tokens in _object(
            data.get(field, {}), f"$.{field}", s.game.rules.bags, what="bag"
        ).items():
            held[name] = tuple(sorted(_decode(s, "markers", tokens, f"$.{field}.{name}")))


def _load_units(s: State, data: dict[str, Any]) -> None:
    """Each unit's hex, losses and status (on the map if it has a hex, else to enter)."""
    game = s.game
    units = _object(data.get("units", {}), "$.units", game.unit_by_name, what="unit")
    for name, u in units.items():
        path = f"$.units.{name}"
        _object(u, path, UNIT_FIELDS)
        i = game.unit_by_name[name]
        s.unit_hex[i] = _decode(s, "hex", u.get("hex"), f"{path}.hex")
        s.unit_loss[i] = _int(u.get("steps_lost", 0), f"{path}.steps_lost", 0, 99)
        status = u.get("status", "map" if u.get("hex") else "not_entered")
        _name(status, f"{path}.status", STATUS_NAMES, "unit status")
        s.unit_status[i] = STATUS_NAMES.index(status)
        if "halted" in u:
            s.halted[i] = _int(u["halted"], f"{path}.halted")


def _load_combats(s: State, data: dict[str, Any]) -> None:
    for n, c in enumerate(_list(data.get("combats", []), "$.combats")):
        path = f"$.combats[{n}]"
        _object(c, path, (*COMBAT_FIELDS, "resolved", "diverted"), COMBAT_FIELDS)
        s.combats.append(
            Combat(
                _decode(s, "side", c["side"], f"{path}.side"),
                _decode(s, "units", c["attackers"], f"{path}.attackers"),
                _decode(s, "units", c["defenders"], f"{path}.defenders"),
                _decode(s, "hexes", c["attack_hexes"], f"{path}.attack_hexes"),
                _decode(s, "hexes", c["defense_hexes"], f"{path}.defense_hexes"),
                _bool(c.get("resolved", False), f"{path}.resolved"),
                _bool(c.get("diverted", False), f"{path}.diverted"),
            )
        )


def _load_progress(s: State, data: dict[str, Any]) -> None:
    rules = s.game.rules
    stack = _list(data.get("stack", []), "$.stack")
    s.stack = [_decode_frame(s, f, f"$.stack[{i}]") for i, f in enumerate(stack)]
    _check_calls(s, [i for i, f in enumerate(stack) if isinstance(f, dict) and "pc" in f])
    triggers = {t.name for t in rules.triggers}
    fired = _list(data.get("fired", []), "$.fired")
    s.fired = {_name(t, f"$.fired[{i}]", triggers, "trigger") for i, t in enumerate(fired)}
    s.terminal = _bool(data.get("terminal", False), "$.terminal")
    s.winner = _decode(s, "side", data.get("winner"), "$.winner")
    level = data.get("level")
    s.level = "" if level is None else _name(level, "$.level", rules.victory_levels, "level")
    s.move_number = _int(data.get("move_number", 0), "$.move_number", 0)


def _check_calls(s: State, at_pc: list[int]) -> None:
    """A frame saved at its `pc` (as `dumps` writes it) holds the bindings
    play leaves there (`engine.invariants.missing_bindings`), and has started
    the procedure frame above it (`_started`). (A hand-written frame may name
    only its step, and the frames between it and the one above may be left
    out: it resumes at the step's start.)"""
    for depth in at_pc:
        if not s.stack[depth].prim:
            _check_bindings_at_pc(s, depth)
        if depth + 1 < len(s.stack) and not _started(s, s.stack[depth], s.stack[depth + 1]):
            below, above = s.stack[depth], s.stack[depth + 1]
            raise SaveError(
                f"$.stack[{depth}].pc",
                f"instruction {below.pc} of {below.proc} does not follow a call of "
                f"{above.proc}, the procedure above it",
            )


def _check_bindings_at_pc(s: State, depth: int) -> None:
    missing = missing_bindings(s, depth)
    if missing:
        raise SaveError(
            f"$.stack[{depth}].bindings.{missing[0]}",
            f"missing: instructions before {s.stack[depth].pc} set it and later ones read it",
        )


def _started(s: State, below: Frame, above: Frame) -> bool:
    """Whether the instruction before `below`'s pc calls `above`'s procedure,
    or applies the result it is the procedure of; a primitive's frame, or a
    procedure a trigger starts, needs no such call."""
    rules = s.game.rules
    if below.prim or above.prim or above.proc in {t.procedure for t in rules.triggers}:
        return True
    code = rules.procedures[below.proc].code
    before = code[below.pc - 1] if below.pc > 0 else None
    called = isinstance(before, ins.Call) and before.procedure == above.proc
    applied = isinstance(before, ins.ApplyResult) and above.proc in {
        r.procedure for r in rules.results
    }
    return called or applied


def _check_primitive_frames(s: State) -> None:
    """A primitive's frame holds every binding its start gives it: started
    again on a copy from the same call, it must bind nothing the save lacks."""
    for depth, f in enumerate(s.stack):
        site = f.b.get("site")
        if not f.prim or site is None:
            continue
        path = f"$.stack[{depth}]"
        try:
            proc, pc = site
            instr = s.game.rules.procedures[proc].code[pc]
            assert isinstance(instr, ins.Prim)
            fresh = Frame(f.proc, 0, {}, prim=True)
            fresh.params = dict(instr.lambdas)
            primitives.get(f.proc).start(
                s.clone(), fresh, instr.args(s, s.stack[depth - 1].b), site
            )
        except Exception as e:
            raise SaveError(path, f"the frame's call does not run ({type(e).__name__})") from e
        missing = sorted(set(fresh.b) - set(f.b))
        if missing:
            raise SaveError(f"{path}.bindings.{missing[0]}", "missing")


def _play_on(s: State) -> None:
    """Run the loaded position up to its next decision, as play would.

    The checks above cover the engine's data; what a procedure's own
    instructions make of the bindings shows only when they run. A position
    they cannot run is not a position of this game, so it is refused here
    rather than crashing later in play.
    """
    try:
        advance(s)
        s.legal_actions()
        found = violations(s)
        if not s.terminal:
            found += _next_node_violations(s)
    except RecursionError as e:
        raise SaveError(
            "$.stack", "the position does not play on: it never reaches a decision"
        ) from e
    except Exception as e:
        # The rule the engine was running when it failed (`interpreter._note_where`).
        where = "".join(f"; {n.splitlines()[0].rstrip(':')}" for n in getattr(e, "__notes__", ()))
        raise SaveError(
            "$.stack", f"the position does not play on ({type(e).__name__}: {e}{where})"[:400]
        ) from e
    if found:
        raise SaveError("$.stack", f"the position plays into an impossible one: {found[0]}")
    s.messages.clear()


def _next_node_violations(s: State) -> list[str]:
    """The node the position waits at is a chance node with outcomes, or a
    decision of one of the sides."""
    node = current_node(s)
    if (node.player == CHANCE) != (node.outcomes is not None) or not (
        node.player == CHANCE or 0 <= node.player < len(s.game.rules.sides)
    ):
        return [f"the next decision falls to no side (player {node.player})"]
    return []


def dumps(s: State) -> str:
    """A save's text: the state's JSON and, as `check`, a hash of it that
    shows any later change (a hand-written position may leave it out)."""
    data = to_json(s)
    return json.dumps({**data, "check": check(data)}, indent=2, ensure_ascii=False)


def loads(game: Any, text: str | bytes) -> State:
    """A state from a save's text; raises only `SaveError`."""
    try:
        data = json.loads(text)
    except RecursionError as e:
        raise SaveError("$", "not JSON (nested too deeply)") from e
    except (ValueError, TypeError) as e:  # JSONDecodeError, bad UTF-8, a 5,000-digit number
        raise SaveError("$", f"not JSON ({e})"[:200]) from e
    return from_json(game, data)


def state_hash(s: State) -> str:
    text = json.dumps(to_json(s), sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode()).hexdigest()
