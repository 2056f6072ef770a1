"""A bot's view of the game: a position consistent with its side's observation.

Bots never decide on the true state. `view_of` asks `State.observation(player)`
what the player may see and makes a position that agrees with it: a copy of
the state (which supplies, bit for bit, only what the observation shows
too) in which every part the observation leaves out or marks hidden is
overwritten by sampling (determinisation):

- units the rules conceal (the observation lists only how many stand in
  each hex) are dealt at random to those hexes, at full strength;
- choices the other side made face down and has not yet revealed (shown as
  `"hidden"`) are drawn from the options the rules offered (yes or no for a
  question answered face down), and a binding
  that names a concealed unit (a unit retreating before combat) names one
  of the unseen units instead;
- a bag whose contents the observation does not list is taken to hold what
  it held at the start;
- each value of a secret variable shown `"hidden"` is drawn from the values
  of its type other than its initial one (the observation shows the initial
  value: "hidden" says only that it is not that).

Where the rules hide nothing from the player at this point (most of a
game), the view is the copy of the state as it is, made without writing
the observation at all.

Two positions that look the same to the player give the same view for the
same generator, so a bot's decision can depend only on what it may see
(tests/engine/test_bots.py). `redeal` samples the hidden parts afresh, which is how
the search bot draws a new world for each iteration.
"""

from __future__ import annotations

import random
from typing import Any

from engine.information import sees_everything
from engine.instructions import Ask, Choose
from engine.rules import VariableSpec
from engine.state import ON_MAP, Frame, State

HIDDEN = "hidden"  # what observation() writes in place of a secret binding


def view_of(s: State, player: int, rng: random.Random) -> tuple[dict[str, Any] | None, State]:
    """The player's observation and a position sampled to agree with it.
    Where the player sees everything the view is a copy of the state and no
    observation is made (None in its place): that is most decisions, and
    the observation is a saved state, costly to write."""
    view = s.clone()
    if sees_everything(s, player):
        view.forget_node()
        return None, view
    observation = s.observation(player)
    redeal(view, observation, rng)
    return observation, view


def hides_anything(observation: dict[str, Any] | None) -> bool:
    """True when the observation keeps something from its player (None: the
    player sees everything)."""
    return observation is not None and (
        "concealed" in observation
        or any(HIDDEN in f.get("bindings", {}).values() for f in observation["stack"])
        or any(not isinstance(v, list) for v in observation["bags"].values())
        or any(_hidden_places(v) for v in observation["vars"].values())
    )


def _hidden_places(saved: Any) -> list[int]:
    """The places of a saved variable that read "hidden" ([0] for one value)."""
    if isinstance(saved, dict):
        return [i for i, v in enumerate(saved.values()) if v == HIDDEN]
    return [0] if saved == HIDDEN else []


def redeal(view: State, observation: dict[str, Any], rng: random.Random) -> None:
    """Overwrite, in place, every part of `view` the observation hides, by sampling."""
    rules = view.game.rules
    seen = observation["units"]
    unseen = [u for u, spec in enumerate(rules.units) if spec.name not in seen]
    concealed = observation.get("concealed", {})
    if concealed:
        _place_unseen(view, unseen, concealed, rng)
    for i, frame in enumerate(observation["stack"]):
        for var, value in sorted(frame.get("bindings", {}).items()):
            if value == HIDDEN:
                _redeal_binding(view, view.stack[i], var, unseen, rng)
    for name, tokens in observation["bags"].items():
        if not isinstance(tokens, list):
            view.bags[name] = rules.bags[name]
            view.drawn[name] = ()
    for var in view.game.secret_variables.values():
        places = _hidden_places(observation["vars"][var.name])
        if places:
            _redeal_variable(view, var, places, rng)
    view.forget_node()  # the pending decision is worked out again, on the view


def _place_unseen(
    view: State, unseen: list[int], concealed: dict[str, int], rng: random.Random
) -> None:
    """The unseen units, shuffled (in place), placed in the concealed slots
    (a hex's label, so many units there), at full strength."""
    slots = [
        view.game.hex_by_label[label] for label, n in sorted(concealed.items()) for _ in range(n)
    ]
    rng.shuffle(unseen)
    for u, h in zip(unseen, slots, strict=False):
        view.unit_hex[u], view.unit_loss[u], view.unit_status[u] = h, 0, ON_MAP


def _redeal_binding(view: State, f: Frame, var: str, unseen: list[int], rng: random.Random) -> None:
    """A hidden binding sampled: a face-down choice among its options, else a
    concealed unit's name (a unit retreating before combat), one of the unseen."""
    if var not in {name for name, _ in f.b.get("_secret", ())}:
        if unseen:
            f.b[var] = rng.choice(unseen)
        return
    options = _options_of(view, f.proc, f.b, var)
    # A choice whose options are gone now (a card played from a
    # hand) keeps its value: the one case the view does not
    # resample (docs/bots.md).
    if options:
        f.b[var] = rng.choice(options)


def _redeal_variable(view: State, var: VariableSpec, places: list[int], rng: random.Random) -> None:
    """A secret variable's hidden values sampled, each among the values of its
    type that are not its initial one."""
    values = [v for v in _values_of(view, var) if v != var.initial]
    if not var.scope:
        view.vars[var.name] = rng.choice(values)
        return
    row = list(view.vars[var.name])
    for i in places:
        row[i] = rng.choice(values)
    view.vars[var.name] = tuple(row)


def _values_of(s: State, var: VariableSpec) -> list[Any]:
    """Every value a secret variable may hold (the checker allows secrets only of
    types with a finite list of values)."""
    rules = s.game.rules
    typ = var.type
    if var.values:
        return list(var.values)
    finite: dict[str, list[Any]] = {
        "bool": [False, True],
        "side": list(range(len(rules.sides))),
        "unit": list(range(len(rules.units))),
        "hex": list(range(len(rules.board.labels))),
        "marker": list(s.game.tokens),
    }
    return finite[typ]


def _options_of(s: State, proc: str, bindings: dict[str, Any], var: str) -> tuple[Any, ...]:
    """What the `choose` instruction that binds `var` in `proc` offered (yes or no
    for a question answered face down)."""
    for instr in s.game.rules.procedures[proc].code:
        if isinstance(instr, Choose) and instr.var == var:
            return tuple(instr.options(s, bindings))
        if isinstance(instr, Ask) and instr.var == var:
            return (False, True)
    raise ValueError(f"no choice binds {var!r} in {proc!r}")
