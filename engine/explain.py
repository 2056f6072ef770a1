"""Why an action is or is not legal, in the rules' own words, with their `§` citations.

A player at the table points at a hex a unit may not enter, or asks for a
combat nobody may fight, and wants to be told which rule says no. These
queries answer from the same checks the primitives make (engine/primitives/),
in the same order, and name the declaration that refuses: a restriction, a
hook the rule file passed to the primitive (`stacking: stack_ok(units)`), the
terrain, or the step of the sequence of play that offers the decision. Titles
and citations come from `rules.sources`, which the compiler fills from the
rule files. Nothing here decides legality: `State.legal_actions()` does, and
an action it offers is never explained away.

`move_options` lists the hexes a unit may enter next with their MP cost, and
`roll_preview` the column and itemised modifiers of a table roll about to be
made, each modifier with its citation.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engine.board import direction
from engine.describe import hex_label, side_name, unit_name
from engine.instructions import Choose, Roll, RollDie
from engine.interpreter import current_node
from engine.primitives import get as primitive
from engine.primitives.movement import Refused
from engine.queries import units_in
from engine.restrictions import allowance, binding, max_hexes, may_end, refused_end, refused_entry
from engine.state import ON_MAP, Frame, State
from engine.tables import column_label, itemised
from engine.terrain_state import board_of, change_index


@dataclass(frozen=True, slots=True)
class Reason:
    """What refuses an action: the refusal in words, and the rule it comes from."""

    text: str
    title: str = ""  # the title of the declaration (restriction, define, step) that says so
    cite: str = ""  # "§ series 9.2"
    provisional: str = ""  # why that declaration's value is provisional, if it is

    def formatted(self) -> Reason:
        """The text with the title put in for `{}` (a refusal that quotes its rule)."""
        text = self.text.replace("{}", self.title[:1].lower() + self.title[1:])
        return Reason(text, self.title, self.cite, self.provisional)

    def __str__(self) -> str:
        rule = " ".join(x for x in (self.title, self.cite) if x)
        return f"{self.text} ({rule})" if rule else self.text


@dataclass(frozen=True, slots=True)
class MoveOption:
    """A hex a unit may enter next: the step action and what it costs."""

    hex: int
    action: int
    cost: int  # MP for this step
    spent: int  # MP the unit has spent so far in this move
    allowance: int  # its movement allowance (twice it, moving strategically)


@dataclass(frozen=True, slots=True)
class Modifier:
    label: str
    amount: int
    cite: str
    provisional: str


@dataclass(frozen=True, slots=True)
class RollPreview:
    """A table roll about to be made: the table, its column and every modifier that applies."""

    table: str
    column: str  # "2:1", "" for a table of one column
    modifiers: tuple[Modifier, ...]
    cite: str  # the table's citation
    step: Reason  # the step of play that rolls


# ------------------------------------------------------------------ sources


def source(s: State, key: str, text: str = "") -> Reason:
    """A reason citing the declaration `key` ("restriction:NAME", "step:PROC:STEP", …)."""
    title, cite, provisional = s.game.rules.sources.get(key, ("", "", ""))
    return Reason(text or title, title, cite, provisional)


def step_of(s: State, proc: str, pc: int) -> str:
    """The step of a procedure that instruction `pc` belongs to."""
    best, start = "", -1
    for name, first in s.game.rules.procedures[proc].steps.items():
        if start < first <= pc:
            best, start = name, first
    return best


def offering_step(s: State) -> Reason:
    """The step of the sequence of play whose decision is pending."""
    for frame in reversed(s.stack):
        if not frame.prim:
            proc, pc = frame.proc, frame.pc
        elif "site" in frame.b:  # the instruction that called the primitive
            proc, pc = frame.b["site"]
        else:
            continue
        return source(s, f"step:{proc}:{step_of(s, proc, pc)}")
    return Reason("")


def _hook(s: State, frame: Frame, name: str, text: str) -> Reason:
    proc, pc = frame.b["site"]
    reason = source(s, f"hook:{proc}:{step_of(s, proc, pc)}:{name}", text)
    if reason.cite:
        return reason
    step = offering_step(s)
    return Reason(text, step.title, step.cite, step.provisional)


def _restriction(s: State, name: str | None, text: str) -> Reason:
    """A refusal by the restriction `name`, with its title and citation."""
    return source(s, f"restriction:{name}", f"{text}.")


# ------------------------------------------------------------------ movement


def _moving(s: State) -> Frame | None:
    if s.is_terminal() or not s.stack:
        return None
    frame = s.stack[-1]
    return frame if frame.prim and frame.proc == "move_units" else None


def move_options(s: State, u: int) -> list[MoveOption]:
    """The hexes unit u may enter next, from the legal step actions, with their MP cost."""
    frame = _moving(s)
    if frame is None or s.unit_status[u] != ON_MAP:
        return []
    space = s.game.actions
    legal = set(s.legal_actions())
    prim = primitive("move_units")
    spent, _hexes, strategic = prim.move_so_far(frame, u)  # type: ignore[attr-defined]
    ma = allowance(s, u) * (2 if strategic else 1)
    a = s.unit_hex[u]
    out = []
    for d, h in enumerate(s.game.rules.board.neighbors[a]):
        action = space.step(u, d)
        if h >= 0 and action in legal:
            cost = prim.cost(s, frame, u, a, d)  # type: ignore[attr-defined]
            out.append(MoveOption(h, action, cost, spent, ma))
    return out


def why_not_move(s: State, u: int, h: int) -> Reason | None:
    """Why unit u may not step into hex h now; None when the step is legal."""
    frame = _moving(s)
    if frame is None:
        return _nothing_moves(s)
    if s.unit_status[u] != ON_MAP:
        return Reason(f"{unit_name(s, u)} is not on the map.")
    a = s.unit_hex[u]
    d = direction(s.game.rules.board, a, h)
    if d >= 0 and s.game.actions.step(u, d) in s.legal_actions():
        return None
    return _phase_refusal(s, frame, u, a, h, d) or _step_refusal(s, frame, u, a, h, d)


def why_not_exit(s: State, u: int) -> Reason | None:
    """Why unit u may not leave the map now; None when it may. A refusal by an
    `exit` cites it: its condition leaves the unit out, or it costs too much."""
    frame = _moving(s)
    if frame is None:
        return _nothing_moves(s)
    if s.unit_status[u] != ON_MAP:
        return Reason(f"{unit_name(s, u)} is not on the map.")
    if s.game.actions.exit(u) in s.legal_actions():
        return None
    name, a = unit_name(s, u), s.unit_hex[u]
    step = offering_step(s)
    if s.game.rules.units[u].side != frame.b["side"]:
        text = f"{name} is not {side_name(s, frame.b['side'])}'s: only the phasing side moves."
        return Reason(text, *_parts(step))
    turn = _turn_refusal(s, frame, u, step)
    if turn is not None:
        return turn
    found = _exit_refusal(s, frame, u)
    if found is None:
        return Reason(f"{name} may not leave the map now.", *_parts(step))
    return _REFUSALS[found[0]](s, frame, u, a, a, 0)


def _exit_refusal(s: State, frame: Frame, u: int) -> tuple[Refused, str] | None:
    """What refuses unit u leaving the map now, and the exit that does (`exit_refusal`)."""
    prim = primitive("move_units")
    spent, hexes, strategic = prim.move_so_far(frame, u)  # type: ignore[attr-defined]
    return prim.exit_refusal(s, frame, u, spent, hexes, strategic)  # type: ignore[attr-defined]


def _refusing_exit(s: State, frame: Frame, u: int) -> str:
    found = _exit_refusal(s, frame, u)
    return f"exit:{found[1]}" if found is not None else ""


def _no_exit(s: State, frame: Frame, u: int, a: int, h: int, d: int) -> Reason:
    return Reason(f"No exit of the rules leaves the map from {hex_label(s, a)}.")


def _exit_excluded(s: State, frame: Frame, u: int, a: int, h: int, d: int) -> Reason:
    text = f"{unit_name(s, u)} may not leave the map at {hex_label(s, a)}: {{}} is not for it."
    return source(s, _refusing_exit(s, frame, u), text).formatted()


def _exit_cost(s: State, frame: Frame, u: int, a: int, h: int, d: int) -> Reason:
    key = _refusing_exit(s, frame, u)
    cost = next(x.cost for x in s.game.rules.exits if f"exit:{x.name}" == key)
    spent = primitive("move_units").move_so_far(frame, u)[0]  # type: ignore[attr-defined]
    text = (
        f"Leaving the map at {hex_label(s, a)} costs {cost} MP; {unit_name(s, u)} has spent "
        f"{spent} of its {allowance(s, u)} MP."
    )
    return source(s, key, text)


def units_move(s: State) -> bool:
    """Whether units are moving now (a movement decision is under way)."""
    return _moving(s) is not None


def why_unit_stays(s: State, u: int) -> Reason | None:
    """Why unit u can take no step at all now (None when it can take one): the refusal
    most of its neighbours share (its MP spent, an enemy zone of control, a result
    that holds it), as the engine explains each refused step."""
    if _moving(s) is None:
        return _nothing_moves(s)
    if s.unit_status[u] != ON_MAP:
        return Reason(f"{unit_name(s, u)} is not on the map.")
    refusals = [
        why_not_move(s, u, n) for n in s.game.rules.board.neighbors[s.unit_hex[u]] if n >= 0
    ]
    if not refusals or any(r is None for r in refusals):
        return None
    groups: dict[tuple[str, str], list[Reason]] = {}
    for r in refusals:
        assert r is not None
        groups.setdefault((r.title, r.cite), []).append(r)
    return max(groups.values(), key=len)[0]


def _nothing_moves(s: State) -> Reason:
    if s.is_terminal():
        return Reason("The game is over.")
    return Reason(
        f"No unit moves now: the decision is {current_node(s).prompt!r}.",
        *_parts(offering_step(s)),
    )


def _phase_refusal(s: State, frame: Frame, u: int, a: int, h: int, d: int) -> Reason | None:
    """What of the movement phase keeps unit u from stepping to hex h at all now: the
    phasing side's units only, one hex at a time, and only in its turn to move."""
    b = frame.b
    name = unit_name(s, u)
    step = offering_step(s)
    if s.game.rules.units[u].side != b["side"]:
        text = f"{name} is not {side_name(s, b['side'])}'s: only the phasing side moves."
        return Reason(text, *_parts(step))
    if d < 0:
        return Reason(
            f"{hex_label(s, h)} is not next to {name}'s hex {hex_label(s, a)}: "
            "a unit moves one hex at a time.",
            step.title,
            step.cite,
        )
    return _turn_refusal(s, frame, u, step)


def _turn_refusal(s: State, frame: Frame, u: int, step: Reason) -> Reason | None:
    """Whether it is unit u's turn to move: this phase moves it (`who`), it has not
    completed its move, no other unit must go on first, and it was not stopped."""
    b = frame.b
    name = unit_name(s, u)
    prim = primitive("move_units")
    if prim.has_lambda(s, frame, "who") and not prim.call(s, frame, "who", unit=u):
        return _hook(s, frame, "who", f"{name} does not move in this phase.")
    if u in b["moved"] and s.halted.get(u) == s.vars["turn"]:
        return Reason(
            f"{name} was halted before this phase: it does not move in it.", step.title, step.cite
        )
    if u in b["moved"]:
        return Reason(
            f"{name} has finished its move: each unit completes its movement "
            "before any other unit moves.",
            step.title,
            step.cite,
        )
    active = b["active"]
    if active >= 0 and active != u and not may_end(s, active, s.unit_hex[active]):
        return Reason(f"{unit_name(s, active)} may not end its move where it is: it must go on.")
    if u == active and b["stop"]:
        return _hook(s, frame, "stop_after", f"{name} had to stop where it is.")
    return None


def _step_refusal(s: State, frame: Frame, u: int, a: int, h: int, d: int) -> Reason:
    """What the movement primitive's own step test refuses (`MoveUnits.step_refusal`,
    the test the legal steps are worked out with), in the rules' words."""
    refusal = primitive("move_units").step_refusal(s, frame, u, d)  # type: ignore[attr-defined]
    explained = _REFUSALS.get(refusal)
    if explained is not None:
        return explained(s, frame, u, a, h, d)
    step = offering_step(s)
    return Reason(f"{unit_name(s, u)} may not enter {hex_label(s, h)} now.", step.title, step.cite)


def _restricted(s: State, kind: str, u: int, text: str, otherwise: Reason) -> Reason:
    """A refusal by the first restriction of a unit's kind that binds unit u (the one
    the movement rules obeyed), else `otherwise`."""
    r = binding(s, kind, u)
    return otherwise if r is None else _restriction(s, r.name, text)


def _no_move(s: State, frame: Frame, u: int, a: int, h: int, d: int) -> Reason:
    text = f"{unit_name(s, u)} may not move"
    return _restricted(s, "no_move", u, text, Reason(f"{text}."))


def _max_hexes(s: State, frame: Frame, u: int, a: int, h: int, d: int) -> Reason:
    limit = max_hexes(s, u)
    text = f"{unit_name(s, u)} may move at most {limit} hex{'es' if limit != 1 else ''}"
    return _restricted(s, "max_hexes", u, text, Reason(text))


def _off_road(s: State, frame: Frame, u: int, a: int, h: int, d: int) -> Reason:
    text = f"{unit_name(s, u)} moves by strategic movement: along roads and tracks only."
    return _hook(s, frame, "strategic", text)


def _enemy(s: State, frame: Frame, u: int, a: int, h: int, d: int) -> Reason:
    step = offering_step(s)
    text = f"{hex_label(s, h)} holds enemy units: no unit enters a hex of enemy combat units."
    return Reason(text, step.title, step.cite)


def _cost_text(s: State, frame: Frame, u: int, a: int, h: int, d: int) -> str:
    """What entering hex h costs unit u, and what it has spent of its move."""
    prim = primitive("move_units")
    cost = prim.cost(s, frame, u, a, d)  # type: ignore[attr-defined]
    spent = prim.move_so_far(frame, u)[0]  # type: ignore[attr-defined]
    return f"Entering {hex_label(s, h)} costs {cost} MP; {unit_name(s, u)} has spent {spent}"


def _strategic_allowance(s: State, frame: Frame, u: int, a: int, h: int, d: int) -> Reason:
    factor = primitive("move_units").call(s, frame, "strategic_factor", unit=u)
    times = "twice" if factor == 2 else f"{factor} times"
    step = offering_step(s)
    return Reason(
        f"{_cost_text(s, frame, u, a, h, d)} of the {factor * allowance(s, u)} MP of "
        f"strategic movement ({times} its allowance).",
        step.title,
        step.cite,
    )


def _strategic_step(s: State, frame: Frame, u: int, a: int, h: int, d: int) -> Reason:
    text = f"{unit_name(s, u)} may not go on strategically there."
    return _hook(s, frame, "strategic_step", text)


def _over_allowance(s: State, frame: Frame, u: int, a: int, h: int, d: int) -> Reason:
    text = f"{_cost_text(s, frame, u, a, h, d)} of its {allowance(s, u)} MP"
    step = offering_step(s)
    return _restricted(s, "allowance", u, text, Reason(f"{text}.", step.title, step.cite))


def _no_entry(s: State, frame: Frame, u: int, a: int, h: int, d: int) -> Reason:
    text = f"{unit_name(s, u)} may not enter {hex_label(s, h)}"
    return _restriction(s, refused_entry(s, u, h, a), text)


def _overstacked(s: State, frame: Frame, u: int, a: int, h: int, d: int) -> Reason:
    text = f"{unit_name(s, u)} would overstack {hex_label(s, h)}."
    return _hook(s, frame, "stacking", text)


def _dead_end(s: State, frame: Frame, u: int, a: int, h: int, d: int) -> Reason:
    text = (
        f"{unit_name(s, u)} may not end its move in {hex_label(s, h)}, "
        "and could not go on from there"
    )
    return _restriction(s, refused_end(s, u, h), text)


def _terrain(s: State, frame: Frame, u: int, a: int, h: int, d: int) -> Reason:
    return _prohibited(s, u, a, h, d)


# Each refusal of the step test in words: (state, frame, unit, from, to, direction).
_REFUSALS: dict[Refused, Callable[[State, Frame, int, int, int, int], Reason]] = {
    Refused.NO_MOVE: _no_move,
    Refused.MAX_HEXES: _max_hexes,
    Refused.PROHIBITED: _terrain,
    Refused.OFF_ROAD: _off_road,
    Refused.ENEMY: _enemy,
    Refused.STRATEGIC_ALLOWANCE: _strategic_allowance,
    Refused.STRATEGIC_STEP: _strategic_step,
    Refused.ALLOWANCE: _over_allowance,
    Refused.RESTRICTED: _no_entry,
    Refused.OVERSTACKED: _overstacked,
    Refused.DEAD_END: _dead_end,
    Refused.NO_EXIT: _no_exit,
    Refused.EXIT_EXCLUDED: _exit_excluded,
    Refused.EXIT_COST: _exit_cost,
}


def _parts(reason: Reason) -> tuple[str, str, str]:
    return reason.title, reason.cite, reason.provisional


def _prohibited(s: State, u: int, a: int, h: int, d: int) -> Reason:
    """Which terrain or hexside feature no unit of u's kind may enter or cross."""
    rules = s.game.rules
    board = board_of(s)
    name = unit_name(s, u)
    terrain = rules.terrain[board.terrain[h]]
    if terrain.prohibited:
        return source(s, f"terrain:{terrain.name}", f"No unit may enter {terrain.title}.")
    mask = board.hexsides[a][d]
    features = [f for i, f in enumerate(rules.hexside_features) if mask >> i & 1]
    closed = [f for f in features if f.unless]
    if closed:
        f = closed[0]
        change = rules.terrain_changes[change_index(rules, f.unless)].title
        text = (
            f"{name} may not cross the {f.title} hexside unless {change[:1].lower()}{change[1:]}."
        )
        return source(s, f"hexside:{f.name}", text)
    if features:
        f = features[0]
        return source(s, f"hexside:{f.name}", f"{name} may not cross the {f.title} hexside.")
    return source(s, f"terrain:{terrain.name}", f"{name} may not enter {terrain.title}.")


# ------------------------------------------------------------------ any action


def why_not(s: State, action: int) -> Reason | None:
    """Why `action` is not legal at this node; None when it is."""
    if s.is_terminal():
        return Reason("The game is over.")
    if action in s.legal_actions():
        return None
    space = s.game.actions
    if not 0 <= action < s.game.num_distinct_actions():
        return Reason(f"{action} is not an action of this game.")
    if s.is_chance_node():
        return Reason("A die is to be rolled (or a marker drawn): no player decides now.")
    moving = _moving(s)
    if moving is not None and (action == space.PASS or space.kind_of(action) == "step"):
        return _why_not_while_moving(s, moving, action)
    if moving is not None and space.kind_of(action) == "exit":
        return why_not_exit(s, space.decode("exit", action))
    if space.kind_of(action) == "designate" and _designating(s):
        return why_not_combat(s, action)
    return _not_a_choice(s, action)


def _why_not_while_moving(s: State, frame: Frame, action: int) -> Reason | None:
    """A pass or a step refused in a movement phase: a unit that must move has yet
    to, or the step is off the map, or `why_not_move` says why."""
    if action == s.game.actions.PASS:
        return _hook(s, frame, "must_move", "A unit that must move has yet to move: no pass yet")
    u, d = s.game.actions.decode_step(action)
    h = s.game.rules.board.neighbors[s.unit_hex[u]][d] if s.unit_status[u] == ON_MAP else -1
    if h < 0:
        return Reason(f"{unit_name(s, u)} may not step off the map.")
    return why_not_move(s, u, h)


def _not_a_choice(s: State, action: int) -> Reason:
    """An action the decision pending does not offer: the choice's own words when
    the rules name what may be chosen, else the step that offers the decision."""
    frame = s.stack[-1]
    if not frame.prim:
        instr = s.game.rules.procedures[frame.proc].code[frame.pc]
        if isinstance(instr, Choose):
            key = f"choose:{frame.proc}:{step_of(s, frame.proc, frame.pc)}:{instr.var}"
            if key in s.game.rules.sources:
                what = _named(s, action)
                return source(s, key, f"{what} is not among the choices: {{}}.").formatted()
    prompt = current_node(s).prompt
    return Reason(
        f"That is not one of the choices offered now ({prompt}).", *_parts(offering_step(s))
    )


def _named(s: State, action: int) -> str:
    """A unit or hex action by its name (for a refusal), else the action's number."""
    space = s.game.actions
    kind = space.kind_of(action)
    if kind == "unit":
        return unit_name(s, space.decode("unit", action))
    if kind == "hex":
        return hex_label(s, space.decode("hex", action))
    return f"Action {action}"


# ------------------------------------------------------------------ combat


def _designating(s: State) -> bool:
    return bool(s.stack) and s.stack[-1].prim and s.stack[-1].proc == "designate_combats"


def why_not_combat(s: State, action: int) -> Reason | None:
    """Why a close combat designation is refused; None when it is legal."""
    if action in s.legal_actions():
        return None
    frame = s.stack[-1]
    side = frame.b["side"]
    attack, defend = _designated_hexes(s, action)
    step = offering_step(s)
    if any(h < 0 for h in (*attack, *defend)):
        return Reason("A combat's hexes must all be on the map.", *_parts(step))
    committed = {u for c in s.combats for u in c.attackers}
    attacked = {u for c in s.combats for u in c.defenders}
    for h in attack:
        refused = _attack_refusal(s, frame, side, h, committed, step)
        if refused is not None:
            return refused
    for h in defend:
        refused = _defence_refusal(s, side, h, attacked, step)
        if refused is not None:
            return refused
    return Reason(
        "That designation would leave a unit that must attack, or an enemy unit that must be "
        "attacked, with no combat left to join.",
        *_parts(step),
    )


def why_not_attacked(s: State, h: int) -> Reason | None:
    """Why no close combat against hex h can be designated now (None: one can, a legal
    designation attacks it): no designation under way, nothing there to attack, no unit
    of the side next to it, or the rule that keeps those next to it from attacking."""
    if not _designating(s):
        return _nothing_designated(s)
    space = s.game.actions
    legal = [a for a in s.legal_actions() if space.kind_of(a) == "designate"]
    if any(h in _designated_hexes(s, a)[1] for a in legal):
        return None
    frame = s.stack[-1]
    side = frame.b["side"]
    step = offering_step(s)
    attacked = {u for c in s.combats for u in c.defenders}
    refused = _defence_refusal(s, side, h, attacked, step)
    if refused is not None:
        return refused
    committed = {u for c in s.combats for u in c.attackers}
    units = s.game.rules.units
    around = [n for n in s.game.rules.board.neighbors[h] if n >= 0]
    beside = [n for n in around if any(units[u].side == side for u in units_in(s, n))]
    for n in beside:
        refused = _attack_refusal(s, frame, side, n, committed, step)
        if refused is not None:
            return refused
    if not beside:
        where, whose = hex_label(s, h), side_name(s, side)
        text = f"No unit of {whose} is next to {where}: units attack the hexes beside them."
        return Reason(text, *_parts(step))
    return Reason(
        f"No designation against {hex_label(s, h)} leaves every unit that must attack, and every "
        "enemy unit that must be attacked, a combat to join.",
        *_parts(step),
    )


def _nothing_designated(s: State) -> Reason:
    if s.is_terminal():
        return Reason("The game is over.")
    return Reason(
        f"No close combat is designated now: the decision is {current_node(s).prompt!r}.",
        *_parts(offering_step(s)),
    )


def _designated_hexes(s: State, action: int) -> tuple[list[int], list[int]]:
    """The attackers' and the defenders' hexes of a designation: the centre hex
    and the hexes of the ring around it its mask picks (-1: off the map), the
    ring attacking the centre or the centre attacking the ring."""
    centre, mask, form = s.game.actions.decode_designate(action)
    around = s.game.rules.board.neighbors[centre]
    ring = [around[i] for i in range(6) if mask >> i & 1]
    return (ring, [centre]) if form == 0 else ([centre], ring)


def _attack_refusal(
    s: State, frame: Frame, side: int, h: int, committed: set[int], step: Reason
) -> Reason | None:
    """Why the side's units in hex h may not attack: none there, the rules' `may_attack`
    lets none of them, or all of them are in a combat already (each attacks once)."""
    units = s.game.rules.units
    mine = [u for u in units_in(s, h) if units[u].kind == "unit" and units[u].side == side]
    if not mine:
        return Reason(f"{hex_label(s, h)} holds no attacking unit of the side.", *_parts(step))
    if not _may_attack(s, frame, mine):
        names = ", ".join(unit_name(s, u) for u in mine)
        return _hook(s, frame, "may_attack", f"{names} may not attack")
    if all(u in committed for u in mine):
        return Reason(
            f"The units in {hex_label(s, h)} are already in a combat: each unit attacks once.",
            *_parts(step),
        )
    return None


def _may_attack(s: State, frame: Frame, units: list[int]) -> bool:
    """Whether the rules' `may_attack` (if they pass one) lets one of these units attack."""
    prim = primitive("designate_combats")
    return not prim.has_lambda(s, frame, "may_attack") or any(
        prim.call(s, frame, "may_attack", unit=u) for u in units
    )


def _defence_refusal(
    s: State, side: int, h: int, attacked: set[int], step: Reason
) -> Reason | None:
    """Why hex h may not be attacked: no enemy combat unit there, or all of them
    attacked already."""
    units = s.game.rules.units
    enemies = [u for u in units_in(s, h) if units[u].kind == "unit" and units[u].side != side]
    if not enemies:
        return Reason(f"{hex_label(s, h)} holds no enemy combat unit.", *_parts(step))
    if all(u in attacked for u in enemies):
        return Reason(f"{hex_label(s, h)} is already attacked.", *_parts(step))
    return None


def roll_preview(s: State) -> RollPreview | None:
    """At a chance node rolling on a table: its column and every modifier, with citations."""
    if s.is_terminal() or not s.is_chance_node():
        return None
    frame = s.stack[-1]
    if frame.prim:
        return None
    instr = s.game.rules.procedures[frame.proc].code[frame.pc]
    if isinstance(instr, Roll):
        return _table_preview(s, instr, frame.b)
    if isinstance(instr, RollDie) and instr.modifiers:
        items = _modifiers(s, instr.modifiers, frame.b)
        return RollPreview("Die roll", "", items, "", offering_step(s))
    return None


def _table_preview(s: State, instr: Roll, bindings: dict[str, Any]) -> RollPreview:
    """A roll on a table: the column the roll reads and its modifiers."""
    spec = s.game.tables[instr.table]
    column = instr.column(s, bindings) if instr.column is not None else 0
    items = _modifiers(s, instr.modifiers, bindings) if instr.modifiers else ()
    cite = s.game.rules.sources.get(f"table:{spec.name}", ("", "", ""))[1]
    label = column_label(spec, column).removeprefix(" at ")
    return RollPreview(spec.title, label, items, cite, offering_step(s))


def _modifiers(s: State, name: str, bindings: dict[str, Any]) -> tuple[Modifier, ...]:
    out = []
    for label, amount, key in itemised(s, name, bindings):
        _title, cite, provisional = s.game.rules.sources.get(key, ("", "", ""))
        out.append(Modifier(label, amount, cite, provisional))
    return tuple(out)
