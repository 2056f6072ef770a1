"""The vocabulary the rule language can call: queries, effects and primitives.

Each function the engine offers to rule files is registered here with its
signature, so the compiler can check calls (names, arity, types) and the
engine implements exactly what the compiler allows: one list, two readers.

Types are short names: int, bool, str, side, unit, units, hex, hexes,
terrain, hexside, combat, combats, table, column, code, place, places, any. A parameter of
type `Lambda` is an expression the primitive evaluates itself, once per
candidate, with the named bindings in scope (`stacking: stack_ok(units)`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class Lambda:
    """An expression parameter, evaluated by the callee with these bindings."""

    returns: str
    bindings: tuple[tuple[str, str], ...]


@dataclass(frozen=True, slots=True)
class Signature:
    """What rule files may call by one name: its kind, parameters and result type."""

    name: str
    kind: str  # "query", "effect" or "primitive"
    params: tuple[tuple[str, str | Lambda], ...]
    returns: str
    module: str  # "q" (engine.queries) or "e" (engine.effects); "" for primitives
    doc: str
    optional: frozenset[str] = field(default=frozenset())
    # (option, needed): an optional argument that is meaningless without another,
    # checked when the rules are compiled rather than failing at play.
    needs: tuple[tuple[str, str], ...] = ()


VOCABULARY: dict[str, Signature] = {}


def _register(
    kind: str,
    module: str,
    params: tuple[tuple[str, str | Lambda], ...],
    returns: str,
    optional: tuple[str, ...] = (),
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def wrap(fn: Callable[..., Any]) -> Callable[..., Any]:
        name = fn.__name__.rstrip("_")
        VOCABULARY[name] = Signature(
            name, kind, params, returns, module, (fn.__doc__ or "").strip(), frozenset(optional)
        )
        return fn

    return wrap


def query(
    *params: tuple[str, str], returns: str
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register a side-effect-free function of the game state."""
    return _register("query", "q", params, returns)


def effect(*params: tuple[str, str], optional: tuple[str, ...] = ()) -> Callable[..., Any]:
    """Register an immediate change of the game state (no decision involved)."""
    return _register("effect", "e", params, "none", optional)


def primitive(
    name: str,
    *params: tuple[str, str | Lambda],
    optional: tuple[str, ...] = (),
    needs: tuple[tuple[str, str], ...] = (),
    doc: str = "",
) -> None:
    """Register a primitive: a step that may ask players to decide, run as its own frame."""
    VOCABULARY[name] = Signature(
        name, "primitive", params, "none", "", doc, frozenset(optional), needs
    )


# Attributes readable on units (`u.strength`, or bare `strength` inside `where`).
UNIT_ATTRIBUTES: dict[str, str] = {
    "side": "side",
    "formation": "formation",
    "brigade": "brigade",
    "nationality": "nationality",
    "type": "unit_type",
    "morale": "int",
    "rifle_strength": "int",
    "hex": "hex",
    "strength": "int",
    "movement": "int",
    "steps": "int",
    "reduced": "bool",
    "leader": "bool",
    "combat_unit": "bool",
    "on_map": "bool",
}

# State variables every ruleset has; `settable` ones may be assigned with `set`.
VARIABLES: dict[str, tuple[str, bool]] = {
    "turn": ("int", True),
    "phasing": ("side", True),
    "first_turn": ("int", False),
    "last_turn": ("int", False),
}


# Events triggers can listen to, with the bindings each gives the trigger.
EVENTS: dict[str, tuple[tuple[str, str], ...]] = {
    "entered": (("unit", "unit"), ("hex", "hex")),
    "entered_map": (("unit", "unit"), ("hex", "hex")),
    "retreated": (("unit", "unit"), ("hex", "hex")),
    "step_lost": (("unit", "unit"), ("hex", "hex")),
    "eliminated": (("unit", "unit"), ("hex", "hex"), ("steps", "int")),
    "captured": (("unit", "unit"), ("hex", "hex")),
    "left_map": (("unit", "unit"), ("hex", "hex")),
    "exited": (("unit", "unit"), ("hex", "hex")),
    "became_adjacent": (("unit", "unit"), ("hex", "hex")),
    "start": (("procedure", "procedure"), ("side", "side")),
    "end": (("procedure", "procedure"), ("side", "side")),
    # and the parameters the results are applied with (see the `result` declarations)
    "result_applied": (("result", "code"),),
}

# Types whose values are their declared names at run time (a brigade is
# "maxwell"), so they can also key a table's name columns.
NAMED_TYPES = frozenset(
    {
        "formation",
        "brigade",
        "nationality",
        "unit_type",
        "marker",
        "level",
        "bag",
        "procedure",
        "rule",
        "terrain_change",
    }
)

# Collection types and the type of their elements.
ELEMENT_TYPES: dict[str, str] = {
    "units": "unit",
    "hexes": "hex",
    "combats": "combat",
    "markers": "marker",
    "sides": "side",
    "places": "place",  # where a terrain change may be made: "0503/0603", or a hex
}
