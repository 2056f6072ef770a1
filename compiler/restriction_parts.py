"""A hex restriction's condition in two parts: what it asks of the unit alone,
then what it asks of the hex.

A `no_entry`, `no_end` or `confined_to` restriction is tested for every step
a unit might take, six directions at a time, and most of its condition is
usually about the unit alone: "Disrupted units may not move next to the
enemy" (§ series 13.3) is `unit.order == disrupted and …enemies next to hex…`.
The leading `and`-conditions that read neither `hex` nor the step's `from`
and `to` are the unit's part; the engine asks it once for the unit and, for
most units, the rest never. The rest (the hex's part) is the remaining
conditions in their order, so that the two parts ask what the whole asks in
the same order: the condition holds exactly when both parts do.
"""

from __future__ import annotations

from dataclasses import fields

from compiler import ir

# The bindings a hex restriction's condition has besides `unit`.
HEX_BINDINGS = frozenset({"hex", "from", "to"})


def conjuncts(e: ir.TExpr) -> list[ir.TExpr]:
    """The conditions of an `a and b and …` chain, in order (an expression that is
    not an `and` is one condition)."""
    if isinstance(e, ir.Binary) and e.op == "and":
        return [*conjuncts(e.left), *conjuncts(e.right)]
    return [e]


def reads_a_hex(e: ir.TExpr) -> bool:
    """Whether the expression names `hex`, `from` or `to` anywhere inside it."""
    if isinstance(e, ir.Binding):
        return e.name in HEX_BINDINGS
    for f in fields(e):
        value = getattr(e, f.name)
        items = value if isinstance(value, tuple) else (value,)
        if any(isinstance(item, ir.TExpr) and reads_a_hex(item) for item in items):
            return True
    return False


def _joined(parts: list[ir.TExpr]) -> ir.TExpr | None:
    """The conditions joined by `and` again, left to right (None for none)."""
    if not parts:
        return None
    joined = parts[0]
    for part in parts[1:]:
        joined = ir.Binary("bool", joined.span, "and", joined, part)
    return joined


def split(condition: ir.TExpr) -> tuple[ir.TExpr | None, ir.TExpr | None]:
    """(the unit's part, the hex's part): the longest run of leading conditions that
    read no hex, and the rest. Either may be None; the whole condition is one of
    them when it does not split."""
    parts = conjuncts(condition)
    cut = 0
    while cut < len(parts) and not reads_a_hex(parts[cut]):
        cut += 1
    if cut == len(parts):
        return condition, None
    if cut == 0:
        return None, condition
    return _joined(parts[:cut]), _joined(parts[cut:])
