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
from fractions import Fraction
from typing import Any

from engine import primitives
from engine.interpreter import advance
from engine.state import STATUS_NAMES, Combat, Frame, State

FORMAT = "muster.state/1"

BUILTIN_VAR_TYPES = {"turn": "int", "phasing": "side", "vp": "per_side:number"}


def var_types(s: State) -> dict[str, str]:
    """How each state variable is written in a save."""
    types = dict(BUILTIN_VAR_TYPES)
    for var in s.game.rules.variables:
        types[var.name] = f"per_{var.scope}:{var.type}" if var.scope else var.type
    return types


class SaveError(ValueError):
    """A saved position that does not fit the game it is loaded into."""


# ------------------------------------------------------------------ values


def _encode(s: State, typ: str, value: Any) -> Any:
    rules = s.game.rules
    if value is None:
        return None
    if typ == "side":
        return rules.sides[value].name if value >= 0 else None
    if typ == "unit":
        return rules.units[value].name if value >= 0 else None
    if typ == "units":
        return [rules.units[u].name for u in value]
    if typ == "hex":
        return rules.board.labels[value] if value >= 0 else None
    if typ == "hexes":
        return [rules.board.labels[h] for h in value]
    if typ.startswith("cell:"):
        spec = _table(s, typ)
        return [
            _encode(s, "code" if k == "code" else "", v)
            for k, v in zip(spec.kinds, value, strict=True)
        ]
    if typ == "code":
        return rules.results[value].name if value >= 0 else None
    if typ == "per_side":
        return {side.name: value[i] for i, side in enumerate(rules.sides)}
    if typ.startswith("per_side:"):
        inner = typ.split(":", 1)[1]
        return {side.name: _encode(s, inner, value[i]) for i, side in enumerate(rules.sides)}
    if typ.startswith("per_unit:"):
        inner = typ.split(":", 1)[1]
        return {u.name: _encode(s, inner, value[i]) for i, u in enumerate(rules.units)}
    if typ.startswith("per_hex:"):
        inner = typ.split(":", 1)[1]
        return {label: _encode(s, inner, value[i]) for i, label in enumerate(rules.board.labels)}
    if isinstance(value, Fraction):
        return str(value)
    return _plain(value)


def _table(s: State, typ: str) -> Any:
    name = typ.split(":", 1)[1]
    return next(t for t in s.game.tables if t.name == name)


def _plain(value: Any) -> Any:
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    return value


def _decode(s: State, typ: str, value: Any) -> Any:
    g = s.game
    rules = g.rules
    try:
        if typ == "side":
            return g.side_by_name[value] if value is not None else -1
        if typ == "unit":
            return g.unit_by_name[value] if value is not None else -1
        if typ == "units":
            return tuple(g.unit_by_name[u] for u in value)
        if typ == "hex":
            return g.hex_by_label[value] if value is not None else -1
        if typ == "hexes":
            return tuple(g.hex_by_label[h] for h in value)
        if typ.startswith("cell:"):
            spec = _table(s, typ)
            return tuple(
                _decode(s, "code" if k == "code" else "", v)
                for k, v in zip(spec.kinds, value, strict=True)
            )
        if typ == "code":
            return [r.name for r in rules.results].index(value) if value is not None else -1
        if typ == "per_side":
            return tuple(value[side.name] for side in rules.sides)
        if typ.startswith("per_side:"):
            inner = typ.split(":", 1)[1]
            return tuple(_decode(s, inner, value[side.name]) for side in rules.sides)
        if typ.startswith("per_unit:"):
            inner = typ.split(":", 1)[1]
            return tuple(_decode(s, inner, value[u.name]) for u in rules.units)
        if typ.startswith("per_hex:"):
            inner = typ.split(":", 1)[1]
            return tuple(_decode(s, inner, value[label]) for label in rules.board.labels)
        if typ == "number" and isinstance(value, str):
            return Fraction(value)
    except (KeyError, ValueError) as e:
        raise SaveError(f"{value!r} is not a known {typ}") from e
    return _tupled(value)


def _tupled(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_tupled(v) for v in value)
    return value


# ------------------------------------------------------------------ frames


def _frame_types(s: State, frame: Frame) -> dict[str, str]:
    if frame.prim:
        return primitives.get(frame.proc).fields
    return s.game.rules.procedures[frame.proc].types


def _encode_frame(s: State, frame: Frame) -> dict[str, Any]:
    types = _frame_types(s, frame)
    bindings = {k: _encode(s, types.get(k, ""), v) for k, v in sorted(frame.b.items())}
    if frame.prim:
        return {"primitive": frame.proc, "bindings": bindings}
    proc = s.game.rules.procedures[frame.proc]
    step = max(
        (name for name, pc in proc.steps.items() if pc <= frame.pc), key=proc.steps.get, default=""
    )
    return {"procedure": frame.proc, "step": step, "pc": frame.pc, "bindings": bindings}


def _decode_frame(s: State, data: dict[str, Any]) -> Frame:
    if "primitive" in data:
        name = data["primitive"]
        try:
            prim = primitives.get(name)
        except KeyError as e:
            raise SaveError(f"unknown primitive {name!r}") from e
        types = prim.fields
        b = {k: _decode(s, types.get(k, ""), v) for k, v in data.get("bindings", {}).items()}
        return Frame(name, 0, b, prim=True)
    name = data["procedure"]
    if name not in s.game.rules.procedures:
        raise SaveError(f"unknown procedure {name!r}")
    proc = s.game.rules.procedures[name]
    if "pc" in data:
        pc = int(data["pc"])
    elif data.get("step") in proc.steps:
        pc = proc.steps[data["step"]]
    else:
        raise SaveError(f"frame of {name!r} needs a pc or a known step")
    b = {k: _decode(s, proc.types.get(k, ""), v) for k, v in data.get("bindings", {}).items()}
    return Frame(name, pc, b)


# ------------------------------------------------------------------ states


def to_json(s: State) -> dict[str, Any]:
    rules = s.game.rules
    types = var_types(s)
    units = {}
    for u, spec in enumerate(rules.units):
        units[spec.name] = {
            "hex": rules.board.labels[s.unit_hex[u]] if s.unit_hex[u] >= 0 else None,
            "steps_lost": s.unit_loss[u],
            "status": STATUS_NAMES[s.unit_status[u]],
        }
    combats = [
        {
            "side": rules.sides[c.side].name,
            "attackers": _encode(s, "units", c.attackers),
            "defenders": _encode(s, "units", c.defenders),
            "attack_hexes": _encode(s, "hexes", c.attack_hexes),
            "defense_hexes": _encode(s, "hexes", c.defense_hexes),
            "resolved": c.resolved,
            "diverted": c.diverted,
        }
        for c in s.combats
    ]
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
        "stack": [_encode_frame(s, f) for f in s.stack],
        "fired": sorted(s.fired),
        "terminal": s.terminal,
        "winner": rules.sides[s.winner].name if s.winner >= 0 else None,
        "level": s.level or None,
    }


canonical = to_json


def from_json(game: Any, data: dict[str, Any]) -> State:
    """Load a state saved by `to_json` (or written by hand) into `game`."""
    if data.get("format") != FORMAT:
        raise SaveError(f"not a Muster state (format {data.get('format')!r})")
    if data.get("ruleset") != game.rules.name:
        raise SaveError(f"saved for ruleset {data.get('ruleset')!r}, not {game.rules.name!r}")
    # A hand-written position may leave these out; a saved one plays on only
    # under the rules, charts and switches it was saved with.
    saved_hash = data.get("rules_hash")
    if saved_hash is not None and saved_hash != game.rules_hash:
        raise SaveError(
            f"saved with other rules or charts (hash {str(saved_hash)[:12]}, "
            f"these are {game.rules_hash[:12]})"
        )
    for name, on in data.get("switches", {}).items():
        if game.switch_on.get(name) != on:
            raise SaveError(
                f"saved with rule {name!r} {'on' if on else 'off'}: make the game with it so"
            )
    s = State(game)
    types = var_types(s)
    for name, v in data.get("vars", {}).items():
        if name not in s.vars:
            raise SaveError(f"unknown variable {name!r}")
        s.vars[name] = _decode(s, types.get(name, ""), v)
    for name, u in data.get("units", {}).items():
        if name not in game.unit_by_name:
            raise SaveError(f"unknown unit {name!r}")
        i = game.unit_by_name[name]
        s.unit_hex[i] = _decode(s, "hex", u.get("hex"))
        s.unit_loss[i] = int(u.get("steps_lost", 0))
        status = u.get("status", "map" if u.get("hex") else "not_entered")
        if status not in STATUS_NAMES:
            raise SaveError(f"unknown status {status!r} of {name!r}")
        s.unit_status[i] = STATUS_NAMES.index(status)
    for c in data.get("combats", []):
        s.combats.append(
            Combat(
                _decode(s, "side", c["side"]),
                _decode(s, "units", c["attackers"]),
                _decode(s, "units", c["defenders"]),
                _decode(s, "hexes", c["attack_hexes"]),
                _decode(s, "hexes", c["defense_hexes"]),
                bool(c.get("resolved", False)),
                bool(c.get("diverted", False)),
            )
        )
    for name, tokens in data.get("bags", {}).items():
        if name not in s.bags:
            raise SaveError(f"unknown bag {name!r}")
        s.bags[name] = tuple(sorted(tokens))
    for name, tokens in data.get("drawn", {}).items():
        if name not in s.drawn:
            raise SaveError(f"unknown bag {name!r}")
        s.drawn[name] = tuple(sorted(tokens))
    s.stack = [_decode_frame(s, f) for f in data.get("stack", [])]
    s.fired = set(data.get("fired", []))
    s.terminal = bool(data.get("terminal", False))
    s.winner = _decode(s, "side", data.get("winner"))
    s.level = data.get("level") or ""
    s.move_number = int(data.get("move_number", 0))
    if not s.terminal:
        advance(s)
        s.messages.clear()
    return s


def dumps(s: State) -> str:
    return json.dumps(to_json(s), indent=2, ensure_ascii=False)


def loads(game: Any, text: str) -> State:
    return from_json(game, json.loads(text))


def state_hash(s: State) -> str:
    text = json.dumps(to_json(s), sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode()).hexdigest()
