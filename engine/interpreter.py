"""The interpreter of procedure frames: runs the game until someone must decide.

Compiled procedures are tuples of instruction records (`engine/instructions.py`),
run here by their type. The interpreter executes the top frame of the state's
stack; an instruction either completes at once (effects, jumps, calls), or
stops the run at a decision node (a player chooses) or a chance node (a die is
rolled). `apply_action` gives the node its answer and runs on. Pending events
are dispatched to triggers between instructions, in the order the triggers
were declared.
"""

from __future__ import annotations

from typing import Any

from engine import instructions as ins
from engine.describe import (
    describe_value,
    hex_label,
    marker_title,
    side_name,
    unit_name,
)
from engine.effects import determine_victory, variable_text
from engine.events import emit
from engine.firing import BRANCHING, fired
from engine.information import SecretLine
from engine.nodes import CHANCE, CONTINUE, TERMINAL, TERMINAL_NODE, Node, RulesError
from engine.primitives.base import get as primitive
from engine.sources import NOTE_START, rule_note
from engine.state import REVEALED, Frame, IllegalActionError, State, initial_value
from engine.tables import modifiers_of, roll_on_table

# Names other modules have always found here.
__all__ = [
    "CHANCE",
    "CONTINUE",
    "TERMINAL",
    "TERMINAL_NODE",
    "Node",
    "RulesError",
    "advance",
    "apply_action",
    "current_node",
    "emit",
]


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
    rules = s.game.rules
    firing = s.game.firing if s.counted else None
    s._node = None
    while not s.terminal:
        if s.events:
            _dispatch_events(s)
            continue
        if not s.stack:
            raise RulesError("the sequence of play ended without determining victory")
        frame = s.stack[-1]
        if frame.prim:
            if frame.params is None:
                frame.params = _lambdas_at(s, frame)
            try:
                node = primitive(frame.proc).run(s, frame)
            except Exception as exc:
                _note_where(s, frame, exc)
                raise
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
        pc = frame.pc
        instr = proc.code[pc]
        if firing is not None:
            firing.instruction(frame.proc, pc)
        try:
            node = _RUN[type(instr)](s, frame, instr)
        except Exception as exc:
            _note_where(s, frame, exc, pc)
            raise
        if firing is not None and instr.opcode in BRANCHING:
            firing.branch(frame.proc, pc, frame.pc == pc + 1)
        if node is not None:
            s._node = node
            return
    s._node = TERMINAL_NODE


def apply_action(s: State, action: int) -> None:
    if type(action) is not int:  # not a bool, a float or an int subclass
        raise IllegalActionError(f"an action is a Python int, not {type(action).__name__}")
    if s.terminal:
        raise IllegalActionError("the game is over")
    node = current_node(s)
    legal = [o for o, _ in node.outcomes] if node.outcomes is not None else node.actions
    if action not in legal:
        raise IllegalActionError(f"illegal action {action}; legal here: {sorted(legal)[:20]}")
    frame = s.stack[-1]
    s.automatic.clear()
    if frame.prim:
        if frame.params is None:
            frame.params = _lambdas_at(s, frame)
        try:
            primitive(frame.proc).apply(s, frame, action)
        except Exception as exc:
            _note_where(s, frame, exc)
            raise
    else:
        pc = frame.pc
        instr = s.game.rules.procedures[frame.proc].code[pc]
        try:
            _APPLY[type(instr)](s, frame, instr, action)
        except Exception as exc:
            _note_where(s, frame, exc, pc)
            raise
    s.move_number += 1
    advance(s)


def _note_where(s: State, frame: Frame, exc: BaseException, pc: int = 0) -> None:
    """Name on the error the rule behind the failing instruction (`pc` of a procedure
    frame; a primitive's is its call's), once: the innermost rule is the one to read."""
    if any(note.startswith(NOTE_START) for note in getattr(exc, "__notes__", ())):
        return
    if frame.prim:
        proc, pc = frame.b.get("site", ("", 0))
        what = f"primitive {frame.proc} called from procedure {proc}"
    else:
        proc, what = frame.proc, f"procedure {frame.proc}"
    spec = s.game.rules.procedures.get(proc)
    if spec is not None and 0 <= pc < len(spec.lines):
        exc.add_note(rule_note(spec.lines[pc], what))


def _lambdas_at(s: State, frame: Frame) -> dict[str, ins.Fn]:
    """The expression parameters of a primitive frame loaded from a save: those of
    the instruction that started it (its `site`, saved with the frame). A primitive
    the game starts by itself (the scenario's set-up) has none."""
    proc, pc = frame.b.get("site", ("", 0))
    if not proc:
        return {}
    instr = s.game.rules.procedures[proc].code[pc]
    assert isinstance(instr, ins.Prim)
    return dict(instr.lambdas)


# ------------------------------------------------------------------ events and triggers


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
            fired(s, "trigger", trig.name)
            frames.append(Frame(trig.procedure, 0, dict(bindings)))
    # The first trigger declared runs first: push in reverse.
    s.stack.extend(reversed(frames))


# ------------------------------------------------------------------ instructions

# Each runner takes (state, frame, instruction) and returns a Node to stop at,
# or None to continue. Runners that stop have an applier for the answer.


def _exec(s: State, f: Frame, instr: ins.Exec) -> None:
    f.pc += 1
    instr.fn(s, f.b)


def _let(s: State, f: Frame, instr: ins.Let) -> None:
    f.pc += 1
    f.b[instr.name] = instr.fn(s, f.b)


def _jump(s: State, f: Frame, instr: ins.Jump) -> None:
    f.pc = instr.target


def _jump_if_not(s: State, f: Frame, instr: ins.JumpIfNot) -> None:
    f.pc = f.pc + 1 if instr.test(s, f.b) else instr.target


def _jump_unless_switch(s: State, f: Frame, instr: ins.JumpUnlessSwitch) -> None:
    f.pc = f.pc + 1 if s.game.switch_on[instr.rule] == instr.on else instr.target


def _for_start(s: State, f: Frame, instr: ins.ForStart) -> None:
    f.pc += 1
    f.b[instr.rest] = tuple(instr.iterable(s, f.b))


def _jump_if_empty(s: State, f: Frame, instr: ins.JumpIfEmpty) -> None:
    f.pc = f.pc + 1 if f.b[instr.rest] else instr.end


def _for_take(s: State, f: Frame, instr: ins.ForTake) -> None:
    f.pc += 1
    rest = f.b[instr.rest]
    f.b[instr.var], f.b[instr.rest] = rest[0], rest[1:]


def _for_drop(s: State, f: Frame, instr: ins.ForDrop) -> None:
    f.pc += 1
    chosen = f.b[instr.var]
    f.b[instr.rest] = tuple(x for x in f.b[instr.rest] if x != chosen)


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


def _call(s: State, f: Frame, instr: ins.Call) -> None:
    f.pc += 1
    bindings = instr.args(s, f.b)
    if instr.into:
        bindings["_into"] = instr.into
    if instr.labels is not None:
        bindings.update(instr.labels(s, f.b))
    proc = s.game.rules.procedures[instr.procedure]
    for var in s.game.resets.get(proc.name, ()):
        rules = s.game.rules
        s.vars[var.name] = initial_value(
            var, len(rules.sides), len(rules.units), len(rules.board.labels)
        )
    if proc.kind == "phase":
        side = bindings.get("side", s.vars["phasing"])
        s.messages.append(f"— Turn {s.vars['turn']}, {side_name(s, side)}: {proc.title} —")
    frame = Frame(instr.procedure, 0, bindings)
    s.stack.append(frame)
    emit(s, "start", procedure=frame.proc, side=_side_of(s, frame))


def _prim(s: State, f: Frame, instr: ins.Prim) -> None:
    f.pc += 1
    frame = Frame(instr.primitive, 0, {}, prim=True)
    frame.params = dict(instr.lambdas)
    primitive(instr.primitive).start(s, frame, instr.args(s, f.b), (f.proc, f.pc - 1))
    s.stack.append(frame)


def _return(s: State, f: Frame, instr: ins.Return) -> None:
    finish(s)


def _end_phase(s: State, f: Frame, instr: ins.EndPhase) -> None:
    procedures = s.game.rules.procedures
    while s.stack:
        top = s.stack.pop()
        if not top.prim and procedures[top.proc].kind == "phase":
            return
    raise RulesError("`end phase` outside any phase")


def _end_game(s: State, f: Frame, instr: ins.EndGame) -> None:
    determine_victory(s)


def _apply_result(s: State, f: Frame, instr: ins.ApplyResult) -> None:
    """`apply code(args)`: run the procedure of the result code with those bindings."""
    f.pc += 1
    code = instr.result(s, f.b)
    if code < 0:
        return
    bindings = instr.args(s, f.b)
    result = s.game.rules.results[code]
    fired(s, "result", result.name)
    if not result.procedure:
        emit(s, "result_applied", result=code, **bindings)
        return
    labels = instr.labels(s, f.b) if instr.labels is not None else {}
    s.stack.append(
        Frame(result.procedure, 0, {**bindings, **labels, "_code": code, "_args": tuple(bindings)})
    )


# -- decisions


def _choose(s: State, f: Frame, instr: ins.Choose) -> Node | None:
    var, kind, mode = instr.var, instr.kind, instr.mode
    options = tuple(instr.options(s, f.b))
    if not options and mode != "maybe":  # (the note names the rule: `_note_where`)
        raise RulesError(f"nothing to choose from for {var!r}")
    if not options:
        f.b[var] = -1
        f.pc += 1
        return None
    if len(options) == 1 and mode == "":
        f.b[var] = options[0]
        f.pc += 1
        s.automatic.append((f.proc, instr, options[0]))
        return None
    space = s.game.actions
    actions = tuple(_encode_option(space, kind, i, o) for i, o in enumerate(options))
    if mode == "maybe":
        actions = (space.PASS, *actions)
    title = s.game.rules.procedures[f.proc].title
    return Node(instr.chooser(s, f.b), actions, prompt=f"{title}: {instr.prompt}")


def _encode_option(space: Any, kind: str, i: int, value: Any) -> int:
    """Units and hexes are chosen by id; anything else by its place among the options."""
    return space.encode(kind, value) if kind in ("unit", "hex") else space.option(i)


def _decode_option(s: State, f: Frame, instr: ins.Choose, action: int) -> Any:
    kind = instr.kind
    if kind in ("unit", "hex"):
        return s.game.actions.decode(kind, action)
    return tuple(instr.options(s, f.b))[s.game.actions.option_index(action)]


def _choose_apply(s: State, f: Frame, instr: ins.Choose, action: int) -> None:
    var, chooser, kind, mode = instr.var, instr.chooser(s, f.b), instr.kind, instr.mode
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


def _reveal(s: State, f: Frame, instr: ins.Reveal) -> None:
    """Secret choices, answers and variables become known to both players; an
    answer or a variable revealed is told in the account (a chit revealed is
    told by the rules that read it)."""
    secret = f.b.get("_secret", ())
    for var, chooser in secret:
        if var in instr.names:
            asked = _ask_of(s, f.proc, var)
            if asked is not None:
                question, answer = asked.question(s, f.b), "Yes" if f.b[var] else "No"
                s.messages.append(f"{side_name(s, chooser)} reveals: {question} {answer}.")
    f.b["_secret"] = tuple(p for p in secret if p[0] not in instr.names)
    secrets = s.game.secret_variables
    for name in instr.names:
        if name in secrets and name not in s.vars[REVEALED]:
            s.vars[REVEALED] = tuple(v for v in secrets if v in (*s.vars[REVEALED], name))
            s.messages.append(f"{secrets[name].title} revealed: {_revealed_values(s, name)}.")
    f.pc += 1


def _ask_of(s: State, proc: str, var: str) -> ins.Ask | None:
    """The `ask` instruction of `proc` whose answer is `var` (None: a choice binds it)."""
    for instr in s.game.rules.procedures[proc].code:
        if isinstance(instr, ins.Ask) and instr.var == var:
            return instr
    return None


def _revealed_values(s: State, name: str) -> str:
    """A secret variable's value as revealed: its value, or each place of its row
    that does not hold the initial value ("none" when none does)."""
    var = s.game.secret_variables[name]
    value = s.vars[name]
    if not var.scope:
        return variable_text(s, name, value)
    places = [
        f"{_place_name(s, var.scope, i)} {variable_text(s, name, v)}"
        for i, v in enumerate(value)
        if v != var.initial
    ]
    return ", ".join(places) or "none"


def _place_name(s: State, scope: str, i: int) -> str:
    if scope == "side":
        return side_name(s, i)
    return hex_label(s, i) if scope == "hex" else unit_name(s, i)


def _draw(s: State, f: Frame, instr: ins.Draw) -> Node:
    """Draw a token from a bag: each token in it is equally likely."""
    bag = s.bags[instr.bag]
    if not bag:
        raise RulesError(f"bag {instr.bag!r} is empty")
    tokens = s.game.tokens
    counts: dict[int, int] = {}
    for name in bag:
        counts[tokens.index(name)] = counts.get(tokens.index(name), 0) + 1
    total = len(bag)
    return Node(
        CHANCE, outcomes=tuple((t, c / total) for t, c in sorted(counts.items())), prompt="draw"
    )


def _draw_apply(s: State, f: Frame, instr: ins.Draw, outcome: int) -> None:
    name = s.game.tokens[outcome]
    bag = list(s.bags[instr.bag])
    bag.remove(name)
    s.bags[instr.bag] = tuple(bag)
    s.drawn[instr.bag] = tuple(sorted((*s.drawn[instr.bag], name)))
    f.b[instr.into] = name
    s.messages.append(f"Drawn from {marker_title(s, instr.bag, 'bag')}: {marker_title(s, name)}.")
    f.pc += 1


def _ask(s: State, f: Frame, instr: ins.Ask) -> Node:
    space = s.game.actions
    prompt = instr.question(s, f.b)
    return Node(instr.chooser(s, f.b), (space.option(0), space.option(1)), prompt=prompt)


def _ask_apply(s: State, f: Frame, instr: ins.Ask, action: int) -> None:
    yes = s.game.actions.option_index(action) == 1
    chooser = instr.chooser(s, f.b)
    who, question = side_name(s, chooser), instr.question(s, f.b)
    line = f"{who}: {question} {'Yes' if yes else 'No'}."
    if instr.mode == "secretly":
        f.b["_secret"] = (*f.b.get("_secret", ()), (instr.var, chooser))  # the other side's: hidden
        line = SecretLine(line, chooser, f"{who}: {question} Answered face down.")
    s.messages.append(line)
    f.b[instr.var] = yes
    f.pc += 1


def _roll(s: State, f: Frame, instr: ins.Roll | ins.RollDie) -> Node:
    lo, hi = s.game.rules.die
    p = 1.0 / (hi - lo + 1)
    return Node(CHANCE, outcomes=tuple((face, p) for face in range(lo, hi + 1)), prompt="die roll")


def _roll_apply(s: State, f: Frame, instr: ins.Roll, face: int) -> None:
    column = instr.column(s, f.b) if instr.column is not None else 0
    f.b[instr.into], modified = roll_on_table(s, instr.table, column, instr.modifiers, f.b, face)
    if instr.total:
        f.b[instr.total] = modified
    if instr.natural:
        f.b[instr.natural] = face
    f.pc += 1


def _roller(s: State, f: Frame) -> str:
    """Who rolls, for what: "Initiative Segment: Red Army" (the frame's side, if any)."""
    title = s.game.rules.procedures[f.proc].title
    side = f.b.get("side")
    return f"{title}: {side_name(s, side)}" if isinstance(side, int) and side >= 0 else f"{title}:"


def _roll_die_apply(s: State, f: Frame, instr: ins.RollDie, face: int) -> None:
    """A die roll on no table: the face, plus the modifiers of the list if one is named."""
    into, modifiers = instr.into, instr.modifiers
    items = modifiers_of(s, modifiers, f.b) if modifiers else []
    total = face + sum(a for _label, a in items)
    drm = "".join(f", {a:+d} {label}" for label, a in items)
    rolled = f"rolled {face}{drm} = {total}." if items else f"rolled {face}."
    s.messages.append(f"{_roller(s, f)} {rolled}")
    f.b[into] = total
    if instr.natural:
        f.b[instr.natural] = face
    f.pc += 1


_RUN: dict[type, Any] = {
    ins.Exec: _exec,
    ins.Let: _let,
    ins.Jump: _jump,
    ins.JumpIfNot: _jump_if_not,
    ins.JumpUnlessSwitch: _jump_unless_switch,
    ins.ForStart: _for_start,
    ins.JumpIfEmpty: _jump_if_empty,
    ins.ForTake: _for_take,
    ins.ForDrop: _for_drop,
    ins.Call: _call,
    ins.Prim: _prim,
    ins.Return: _return,
    ins.EndPhase: _end_phase,
    ins.EndGame: _end_game,
    ins.ApplyResult: _apply_result,
    ins.Choose: _choose,
    ins.Ask: _ask,
    ins.Roll: _roll,
    ins.RollDie: _roll,
    ins.Reveal: _reveal,
    ins.Draw: _draw,
}
assert set(_RUN) == set(ins.INSTRUCTIONS), "every instruction has a runner"

_APPLY: dict[type, Any] = {
    ins.Choose: _choose_apply,
    ins.Ask: _ask_apply,
    ins.Roll: _roll_apply,
    ins.RollDie: _roll_die_apply,
    ins.Draw: _draw_apply,
}
