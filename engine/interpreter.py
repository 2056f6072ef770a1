"""The interpreter of procedure frames: runs the game until someone must decide.

Compiled procedures are tuples of instructions `(opcode, *operands)`. The
interpreter executes the top frame of the state's stack; an instruction either
completes at once (effects, jumps, calls), or stops the run at a decision node
(a player chooses) or a chance node (a die is rolled). `apply_action` gives the
node its answer and runs on. Pending events are dispatched to triggers between
instructions, in the order the triggers were declared.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.state import Frame, IllegalActionError, State, initial_value

CHANCE = -1
TERMINAL = -4


class RulesError(Exception):
    """A rule file asked for something impossible at run time (a bug in the rules)."""


@dataclass(frozen=True, slots=True)
class Node:
    """A point where the game waits: a player's decision or a chance event.

    For a decision, `actions` are the legal action ids; for a chance node,
    `outcomes` are (outcome, probability) pairs and `player` is CHANCE.
    `prompt` says what is being decided, for the account of the game.
    """

    player: int
    actions: tuple[int, ...] = ()
    outcomes: tuple[tuple[int, float], ...] | None = None
    prompt: str = ""


TERMINAL_NODE = Node(TERMINAL)
# Returned by a primitive's `run` that did some work by itself: run me again
# (after any events its work raised have been dispatched to triggers).
CONTINUE = Node(-2)


def current_node(s: State) -> Node:
    if s.terminal:
        return TERMINAL_NODE
    if s._node is None:
        advance(s)
    assert s._node is not None
    return s._node


# ------------------------------------------------------------------ running


def advance(s: State) -> None:
    """Run until a decision, a chance event or the end of the game."""
    from engine import primitives

    rules = s.game.rules
    s._node = None
    while not s.terminal:
        if s.events:
            _dispatch_events(s)
            continue
        if not s.stack:
            raise RulesError("the sequence of play ended without determining victory")
        frame = s.stack[-1]
        if frame.prim:
            node = primitives.get(frame.proc).run(s, frame)
            if s.events or node is CONTINUE:
                continue
            if node is None:
                if s.stack and s.stack[-1] is frame:
                    s.stack.pop()
                continue
            s._node = node
            return
        proc = rules.procedures[frame.proc]
        if frame.pc >= len(proc.code):
            finish(s)
            continue
        instr = proc.code[frame.pc]
        node = _RUN[instr[0]](s, frame, instr)
        if node is not None:
            s._node = node
            return
    s._node = TERMINAL_NODE


def apply_action(s: State, action: int) -> None:
    from engine import primitives

    if type(action) is not int:  # not a bool, a float or an int subclass
        raise IllegalActionError(f"an action is a Python int, not {type(action).__name__}")
    if s.terminal:
        raise IllegalActionError("the game is over")
    node = current_node(s)
    legal = [o for o, _ in node.outcomes] if node.outcomes is not None else node.actions
    if action not in legal:
        raise IllegalActionError(f"illegal action {action}; legal here: {sorted(legal)[:20]}")
    frame = s.stack[-1]
    if frame.prim:
        primitives.get(frame.proc).apply(s, frame, action)
    else:
        instr = s.game.rules.procedures[frame.proc].code[frame.pc]
        _APPLY[instr[0]](s, frame, instr, action)
    s.move_number += 1
    advance(s)


# ------------------------------------------------------------------ events and triggers


def emit(s: State, event: str, **bindings: Any) -> None:
    """Record an event; triggers that listen to it run before play goes on."""
    if s.game.triggers_by_event.get(event):
        s.events.append((event, bindings))


def _dispatch_events(s: State) -> None:
    events, s.events = s.events, []
    frames: list[Frame] = []
    for event, bindings in events:
        for trig in s.game.triggers_by_event.get(event, ()):
            if trig.rule and not s.game.switch_on[trig.rule]:
                continue
            if trig.once and trig.name in s.fired:
                continue
            if trig.condition is not None and not trig.condition(s, bindings):
                continue
            if trig.once:
                s.fired.add(trig.name)
            frames.append(Frame(trig.procedure, 0, dict(bindings)))
    # The first trigger declared runs first: push in reverse.
    s.stack.extend(reversed(frames))


# ------------------------------------------------------------------ instructions

# Each runner takes (state, frame, instruction) and returns a Node to stop at,
# or None to continue. Runners that stop have an applier for the answer.


def _exec(s: State, f: Frame, instr: tuple) -> None:
    f.pc += 1
    instr[1](s, f.b)


def _jump(s: State, f: Frame, instr: tuple) -> None:
    f.pc = instr[1]


def _jump_if_not(s: State, f: Frame, instr: tuple) -> None:
    f.pc = f.pc + 1 if instr[1](s, f.b) else instr[2]


def _jump_unless_switch(s: State, f: Frame, instr: tuple) -> None:
    """Run a patched step only when its rule switch is on (or, for a step the
    rule replaced or disabled, only when it is off)."""
    _, rule, on, end = instr
    f.pc = f.pc + 1 if s.game.switch_on[rule] == on else end


def _side_of(s: State, frame: Frame) -> int:
    return frame.b.get("side", s.vars["phasing"])


def finish(s: State) -> None:
    """Pop the top procedure frame; hand its result to the caller's `into` binding."""
    frame = s.stack.pop()
    into = frame.b.get("_into")
    if into:
        result = s.game.rules.procedures[frame.proc].result
        s.stack[-1].b[into] = frame.b.get(result)
    emit(s, "end", procedure=frame.proc, side=_side_of(s, frame))
    if "_code" in frame.b:  # a result has been applied: with what it was applied with
        args = {name: frame.b[name] for name in frame.b.get("_args", ())}
        emit(s, "result_applied", result=frame.b["_code"], **args)


def _call(s: State, f: Frame, instr: tuple) -> None:
    f.pc += 1
    bindings = instr[2](s, f.b)
    if instr[3]:
        bindings["_into"] = instr[3]
    proc = s.game.rules.procedures[instr[1]]
    for var in s.game.resets.get(proc.name, ()):
        rules = s.game.rules
        s.vars[var.name] = initial_value(
            var, len(rules.sides), len(rules.units), len(rules.board.labels)
        )
    if proc.kind == "phase":
        from engine.describe import side_name

        side = bindings.get("side", s.vars["phasing"])
        s.messages.append(f"— Turn {s.vars['turn']}, {side_name(s, side)}: {proc.title} —")
    frame = Frame(instr[1], 0, bindings)
    s.stack.append(frame)
    emit(s, "start", procedure=frame.proc, side=_side_of(s, frame))


def _prim(s: State, f: Frame, instr: tuple) -> None:
    from engine import primitives

    f.pc += 1
    frame = Frame(instr[1], 0, {}, prim=True)
    primitives.get(instr[1]).start(s, frame, instr[2](s, f.b), (f.proc, f.pc - 1))
    s.stack.append(frame)


def _return(s: State, f: Frame, instr: tuple) -> None:
    finish(s)


def _end_phase(s: State, f: Frame, instr: tuple) -> None:
    procedures = s.game.rules.procedures
    while s.stack:
        top = s.stack.pop()
        if not top.prim and procedures[top.proc].kind == "phase":
            return
    raise RulesError("`end phase` outside any phase")


def _end_game(s: State, f: Frame, instr: tuple) -> None:
    from engine.effects import determine_victory

    determine_victory(s)


def _apply_result(s: State, f: Frame, instr: tuple) -> None:
    """`apply code(args)`: run the procedure of the result code with those bindings."""
    f.pc += 1
    code = instr[1](s, f.b)
    if code < 0:
        return
    bindings = instr[2](s, f.b)
    result = s.game.rules.results[code]
    if not result.procedure:
        emit(s, "result_applied", result=code, **bindings)
        return
    s.stack.append(
        Frame(result.procedure, 0, {**bindings, "_code": code, "_args": tuple(bindings)})
    )


# -- decisions


def _choose(s: State, f: Frame, instr: tuple) -> Node | None:
    _, var, options_fn, chooser_fn, kind, prompt, mode = instr
    options = tuple(options_fn(s, f.b))
    if not options and mode != "maybe":
        where = s.game.rules.procedures[f.proc].lines[f.pc]
        raise RulesError(f"nothing to choose from for {var!r} ({where})")
    if not options:
        f.b[var] = -1
        f.pc += 1
        return None
    if len(options) == 1 and mode == "":
        f.b[var] = options[0]
        f.pc += 1
        return None
    space = s.game.actions
    actions = tuple(_encode_option(space, kind, i, o) for i, o in enumerate(options))
    if mode == "maybe":
        actions = (space.PASS, *actions)
    return Node(chooser_fn(s, f.b), actions, prompt=prompt)


def _encode_option(space: Any, kind: str, i: int, value: Any) -> int:
    """Units and hexes are chosen by id; anything else by its place among the options."""
    return space.encode(kind, value) if kind in ("unit", "hex") else space.option(i)


def _decode_option(s: State, f: Frame, instr: tuple, action: int) -> Any:
    kind = instr[4]
    if kind in ("unit", "hex"):
        return s.game.actions.decode(kind, action)
    return tuple(instr[2](s, f.b))[s.game.actions.option_index(action)]


def _choose_apply(s: State, f: Frame, instr: tuple, action: int) -> None:
    from engine.describe import describe_value, side_name

    var, chooser, kind, mode = instr[1], instr[3](s, f.b), instr[4], instr[6]
    if action == s.game.actions.PASS:
        what = f"no {var.replace('_', ' ')}" if len(var) > 2 else "none"  # "no target", not "no u"
        s.messages.append(f"{side_name(s, chooser)} chooses {what}.")
        f.b[var] = -1
    elif mode == "secretly":
        f.b["_secret"] = (*f.b.get("_secret", ()), (var, chooser))  # hidden from the other side
        s.messages.append(f"{side_name(s, chooser)} chooses, face down.")
        f.b[var] = _decode_option(s, f, instr, action)
    else:
        value = _decode_option(s, f, instr, action)
        s.messages.append(f"{side_name(s, chooser)} chooses {describe_value(s, kind, value, var)}.")
        f.b[var] = value
    f.pc += 1


def _reveal(s: State, f: Frame, instr: tuple) -> None:
    """Secret choices become known to both players."""
    f.b["_secret"] = tuple(p for p in f.b.get("_secret", ()) if p[0] not in instr[1])
    f.pc += 1


def _draw(s: State, f: Frame, instr: tuple) -> Node:
    """Draw a token from a bag: each token in it is equally likely."""
    bag = s.bags[instr[1]]
    if not bag:
        raise RulesError(f"bag {instr[1]!r} is empty")
    tokens = s.game.tokens
    counts: dict[int, int] = {}
    for name in bag:
        counts[tokens.index(name)] = counts.get(tokens.index(name), 0) + 1
    total = len(bag)
    return Node(
        CHANCE, outcomes=tuple((t, c / total) for t, c in sorted(counts.items())), prompt="draw"
    )


def _draw_apply(s: State, f: Frame, instr: tuple, outcome: int) -> None:
    name = s.game.tokens[outcome]
    bag = list(s.bags[instr[1]])
    bag.remove(name)
    s.bags[instr[1]] = tuple(bag)
    s.drawn[instr[1]] = tuple(sorted((*s.drawn[instr[1]], name)))
    f.b[instr[2]] = name
    s.messages.append(f"Drawn from {instr[1]}: {name}.")
    f.pc += 1


def _ask(s: State, f: Frame, instr: tuple) -> Node:
    _, chooser_fn, question, _var = instr
    space = s.game.actions
    return Node(chooser_fn(s, f.b), (space.option(0), space.option(1)), prompt=question)


def _ask_apply(s: State, f: Frame, instr: tuple, action: int) -> None:
    from engine.describe import side_name

    yes = s.game.actions.option_index(action) == 1
    s.messages.append(f"{side_name(s, instr[1](s, f.b))}: {instr[2]} {'Yes' if yes else 'No'}.")
    f.b[instr[3]] = yes
    f.pc += 1


def _roll(s: State, f: Frame, instr: tuple) -> Node:
    lo, hi = s.game.rules.die
    p = 1.0 / (hi - lo + 1)
    return Node(CHANCE, outcomes=tuple((face, p) for face in range(lo, hi + 1)), prompt="die roll")


def _roll_apply(s: State, f: Frame, instr: tuple, face: int) -> None:
    from engine.tables import roll_on_table

    _, table, column_fn, modifiers, into, total = instr
    column = column_fn(s, f.b) if column_fn is not None else 0
    f.b[into], modified = roll_on_table(s, table, column, modifiers, f.b, face)
    if total:
        f.b[total] = modified
    f.pc += 1


def _roll_die(s: State, f: Frame, instr: tuple) -> Node:
    return _roll(s, f, instr)


def _roller(s: State, f: Frame) -> str:
    """Who rolls, for what: "Initiative Segment: Red Army" (the frame's side, if any)."""
    from engine.describe import side_name

    title = s.game.rules.procedures[f.proc].title
    side = f.b.get("side")
    return f"{title}: {side_name(s, side)}" if isinstance(side, int) and side >= 0 else f"{title}:"


def _roll_die_apply(s: State, f: Frame, instr: tuple, face: int) -> None:
    """A die roll on no table: the face, plus the modifiers of the list if one is named."""
    from engine.tables import modifiers_of

    _, into, modifiers = instr
    items = modifiers_of(s, modifiers, f.b) if modifiers else []
    total = face + sum(a for _label, a in items)
    drm = "".join(f", {a:+d} {label}" for label, a in items)
    rolled = f"rolled {face}{drm} = {total}." if items else f"rolled {face}."
    s.messages.append(f"{_roller(s, f)} {rolled}")
    f.b[into] = total
    f.pc += 1


_RUN = {
    "exec": _exec,
    "jump": _jump,
    "jump_if_not": _jump_if_not,
    "jump_unless_switch": _jump_unless_switch,
    "call": _call,
    "prim": _prim,
    "return": _return,
    "end_phase": _end_phase,
    "end_game": _end_game,
    "apply": _apply_result,
    "choose": _choose,
    "ask": _ask,
    "roll": _roll,
    "roll_die": _roll_die,
    "reveal": _reveal,
    "draw": _draw,
}

_APPLY = {
    "choose": _choose_apply,
    "ask": _ask_apply,
    "roll": _roll_apply,
    "roll_die": _roll_die_apply,
    "draw": _draw_apply,
}
