"""The instructions of compiled procedures: one frozen record per opcode.

The code generator writes procedures as tuples of these records
(`Exec(combat__resolve__set_odds)`, `JumpIfNot(combat__fire__if, 'if_2_else')`,
`Choose(var='target', options=…, chooser=…, kind='unit', prompt=…, mode='')`)
and the interpreter runs them by their type, reading operands by name. `Fn`
operands are compiled functions of `(state, bindings)`. The generated code
jumps to labels: a `Label('if_2_else')` pseudo-instruction marks a place and
a jump names it; `assemble` takes the labels out and gives each jump its
target's instruction index once, when the rules are loaded, so the
interpreter jumps by index. Nothing here runs anything: the records are
data, below the interpreter that gives them meaning.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import MISSING, dataclass, fields, replace
from typing import Any, ClassVar

# A compiled expression or block: called with the state and the frame's bindings.
Fn = Callable[[Any, dict[str, Any]], Any]


@dataclass(frozen=True, slots=True)
class Instruction:
    """Base of every instruction; `opcode` names it in dumps and error messages."""

    opcode: ClassVar[str] = ""
    # The operand holding a jump's target: a label's name as generated, its index once assembled.
    jumps_to: ClassVar[str] = ""


@dataclass(frozen=True, slots=True)
class Exec(Instruction):
    """Run a block of effects (`set`, `let`, an effect call) and go on."""

    opcode: ClassVar[str] = "exec"
    fn: Fn


@dataclass(frozen=True, slots=True)
class Let(Instruction):
    """Bind `name` to the value of `fn`: `let x = …` without a helper block."""

    opcode: ClassVar[str] = "let"
    name: str
    fn: Fn


@dataclass(frozen=True, slots=True)
class Jump(Instruction):
    """Go on at `target`."""

    opcode: ClassVar[str] = "jump"
    jumps_to: ClassVar[str] = "target"
    target: int  # a label's name in the generated code (see `assemble`)


@dataclass(frozen=True, slots=True)
class JumpIfNot(Instruction):
    """Go on when `test` holds, else jump to `target`."""

    opcode: ClassVar[str] = "jump_if_not"
    jumps_to: ClassVar[str] = "target"
    test: Fn
    target: int


@dataclass(frozen=True, slots=True)
class JumpUnlessSwitch(Instruction):
    """Run a patched step only when its rule switch is `on` (a step the rule replaced
    or disabled runs only when the switch is off); otherwise jump to `target`."""

    opcode: ClassVar[str] = "jump_unless_switch"
    jumps_to: ClassVar[str] = "target"
    rule: str
    on: bool
    target: int


@dataclass(frozen=True, slots=True)
class ForStart(Instruction):
    """`for each var in …`: keep the members still to visit in binding `rest`.

    A loop is ForStart, then JumpIfEmpty at its top, then ForTake (or Choose
    and ForDrop when a player picks the order), the body and a Jump back: as
    many instructions as the helper blocks they replace, so the instruction
    indices saved in older saves still point where they did."""

    opcode: ClassVar[str] = "for_start"
    rest: str
    iterable: Fn


@dataclass(frozen=True, slots=True)
class ForTake(Instruction):
    """Bind `var` to the first member of `rest` and take it out."""

    opcode: ClassVar[str] = "for_take"
    var: str
    rest: str


@dataclass(frozen=True, slots=True)
class ForDrop(Instruction):
    """After a chosen member (`for each … chosen by`): take it out of `rest`."""

    opcode: ClassVar[str] = "for_drop"
    var: str
    rest: str


@dataclass(frozen=True, slots=True)
class JumpIfEmpty(Instruction):
    """Jump to `end` when binding `rest` holds no member left to visit."""

    opcode: ClassVar[str] = "jump_if_empty"
    jumps_to: ClassVar[str] = "end"
    rest: str
    end: int


@dataclass(frozen=True, slots=True)
class Call(Instruction):
    """Run procedure `procedure` with the bindings `args` gives; its result into `into`.
    `labels` (engine/operands.py) names the number arguments a roll's modifier reads."""

    opcode: ClassVar[str] = "call"
    procedure: str
    args: Fn
    into: str | None
    labels: Fn | None = None


@dataclass(frozen=True, slots=True)
class Prim(Instruction):
    """Run primitive `primitive` with the arguments `args` gives; `lambdas` are its
    expression parameters, handed to the primitive's frame."""

    opcode: ClassVar[str] = "prim"
    primitive: str
    args: Fn
    lambdas: Mapping[str, Fn]


@dataclass(frozen=True, slots=True)
class Return(Instruction):
    opcode: ClassVar[str] = "return"


@dataclass(frozen=True, slots=True)
class EndPhase(Instruction):
    opcode: ClassVar[str] = "end_phase"


@dataclass(frozen=True, slots=True)
class EndGame(Instruction):
    opcode: ClassVar[str] = "end_game"


@dataclass(frozen=True, slots=True)
class ApplyResult(Instruction):
    """`apply code(args)`: run the procedure of the result code `result` gives
    (`labels`: as a `Call`'s)."""

    opcode: ClassVar[str] = "apply"
    result: Fn
    args: Fn
    labels: Fn | None = None


@dataclass(frozen=True, slots=True)
class Choose(Instruction):
    """A player chooses `var` among `options`; `kind` is unit, hex or option;
    `mode` is '', 'maybe' (none may be chosen) or 'secretly'."""

    opcode: ClassVar[str] = "choose"
    var: str
    options: Fn
    chooser: Fn
    kind: str
    prompt: str
    mode: str


@dataclass(frozen=True, slots=True)
class Ask(Instruction):
    """A yes/no question to the side `chooser` gives; the answer into `var`.
    `mode` 'secretly': the other side learns that it was answered, not how."""

    opcode: ClassVar[str] = "ask"
    chooser: Fn
    question: Fn  # the question's text here (it may name the values in play)
    var: str
    mode: str = ""


@dataclass(frozen=True, slots=True)
class Roll(Instruction):
    """Roll on table number `table` (at the column `column` gives, if any), with the
    modifier lists `modifiers`; the result into `into`, the modified roll into `total`,
    the face itself (the natural roll) into `natural`, if given."""

    opcode: ClassVar[str] = "roll"
    table: int
    column: Fn | None
    modifiers: str | None
    into: str
    total: str | None
    natural: str | None = None


@dataclass(frozen=True, slots=True)
class RollDie(Instruction):
    """Roll the die on no table: the face plus the modifiers of the list named
    into `into`, the face itself (the natural roll) into `natural`, if given."""

    opcode: ClassVar[str] = "roll_die"
    into: str
    modifiers: str
    natural: str | None = None


@dataclass(frozen=True, slots=True)
class Reveal(Instruction):
    """Secret choices of these bindings become known to both players."""

    opcode: ClassVar[str] = "reveal"
    names: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Draw(Instruction):
    """Draw a marker from `bag` into binding `into` (a chance node)."""

    opcode: ClassVar[str] = "draw"
    bag: str
    into: str


INSTRUCTIONS: tuple[type[Instruction], ...] = (
    Exec,
    Let,
    Jump,
    JumpIfNot,
    JumpUnlessSwitch,
    ForStart,
    ForTake,
    ForDrop,
    JumpIfEmpty,
    Call,
    Prim,
    Return,
    EndPhase,
    EndGame,
    ApplyResult,
    Choose,
    Ask,
    Roll,
    RollDie,
    Reveal,
    Draw,
)


@dataclass(frozen=True, slots=True)
class Label:
    """A place in a procedure's code that jumps name (`step:fire`, `if_2_else`);
    not an instruction: `assemble` takes it out."""

    name: str


def operand_names(kind: type[Instruction]) -> tuple[str, ...]:
    """The operands of an instruction type, in the order the generated code gives them."""
    return tuple(f.name for f in fields(kind))


def optional_operands(kind: type[Instruction]) -> frozenset[str]:
    """The operands with a default, which the generated code may leave off."""
    return frozenset(f.name for f in fields(kind) if f.default is not MISSING)


def assemble(
    code: tuple[Instruction | Label, ...],
) -> tuple[tuple[Instruction, ...], dict[str, int], dict[int, str]]:
    """A procedure's instructions with every jump's label replaced by the index of the
    instruction the label marks; each label's index; and the label each jump named,
    by the jump's index (for dumps)."""
    labels: dict[str, int] = {}
    out: list[Instruction] = []
    for item in code:
        if isinstance(item, Label):
            labels[item.name] = len(out)
        else:
            out.append(item)
    named = {pc: getattr(i, i.jumps_to) for pc, i in enumerate(out) if i.jumps_to}
    return tuple(_resolved(i, labels) for i in out), labels, named


def _resolved(instr: Instruction, labels: dict[str, int]) -> Instruction:
    """`instr` jumping to its label's index (any other instruction as it is)."""
    if not instr.jumps_to:
        return instr
    return replace(instr, **{instr.jumps_to: labels[getattr(instr, instr.jumps_to)]})
