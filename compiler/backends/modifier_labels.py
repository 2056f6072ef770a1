"""Which number arguments of a call end up as a modifier of a roll, so that the
account names each by what the caller wrote.

A modifier list may take a number from its caller: the series' morale check adds
`(drm) "Other modifiers of this check"`, and a battle calls
`morale_check(u, evasion_drm(hex, side))`. Itemised under the entry's own label,
the account would not say which modifier it is. The calls that hand such a
number on (to the procedure that rolls, or through others that pass it along as
a parameter of their own) carry the `define` the caller named it with
(`engine.operands.Labels`), and the roll itemises the modifier by the define's
title.
"""

from __future__ import annotations

from collections.abc import Iterator

from compiler import ir

# A body of statements that may call: its name as the engine knows it, its
# parameters and its statements.
Body = tuple[str, frozenset[str], tuple[ir.TStmt, ...]]

# The procedures of result codes, as `apply` reaches them: any of them.
ANY_RESULT = "result:*"


def bodies(r: ir.Ruleset) -> Iterator[Body]:
    """Every body whose calls may hand on a number: procedures, results, triggers."""
    for p in r.procedures:
        body = tuple(stmt for step in p.steps for stmt in step.body)
        yield p.name, frozenset(n for n, _t in p.params), body
    for res in r.results:
        yield f"result:{res.name}", frozenset(n for n, _t in res.params), res.body
    for trig in r.triggers:
        yield f"trigger:{trig.name}", frozenset(), trig.body


def labelled_parameters(r: ir.Ruleset) -> dict[str, frozenset[str]]:
    """Body name -> its parameters whose value becomes a modifier of a roll: read bare
    by an entry of a list the body rolls with, or passed bare as such a parameter
    of a body it calls (`ANY_RESULT`: those of any result's procedure)."""
    read = {
        ml.name: {m.amount.name for m in ml.modifiers if isinstance(m.amount, ir.Binding)}
        for ml in r.modifiers
    }
    all_bodies = list(bodies(r))
    found = {name: _rolled(params, body, read) for name, params, body in all_bodies}
    while _spread(all_bodies, found):
        pass
    return {name: frozenset(ps) for name, ps in found.items() if ps}


def _rolled(
    params: frozenset[str], body: tuple[ir.TStmt, ...], read: dict[str, set[str]]
) -> set[str]:
    """The body's parameters that an entry of a list it rolls with reads bare."""
    out: set[str] = set()
    for stmt in ir.statements(body):
        if isinstance(stmt, ir.Roll) and stmt.modifiers:
            out |= read.get(stmt.modifiers, set()) & params
    return out


def _spread(all_bodies: list[Body], found: dict[str, set[str]]) -> bool:
    """One round: a parameter passed bare as a labelled one of a body called is
    labelled too. Whether the round found any."""
    found[ANY_RESULT] = {p for n, ps in found.items() if n.startswith("result:") for p in ps}
    changed = False
    for name, params, body in all_bodies:
        for stmt in ir.statements(body):
            for arg in _handed_on(stmt, found):
                if isinstance(arg, ir.Binding) and arg.name in params - found[name]:
                    found[name].add(arg.name)
                    changed = True
    return changed


def _handed_on(stmt: ir.TStmt, found: dict[str, set[str]]) -> Iterator[ir.TExpr]:
    """The arguments of a call or `apply` that become a modifier in the body called."""
    if isinstance(stmt, ir.CallProc):
        wanted = found.get(stmt.proc, set())
    elif isinstance(stmt, ir.ApplyResult):
        wanted = found.get(ANY_RESULT, set())
    else:
        return
    for param, arg in stmt.args:
        if param in wanted:
            yield arg


def call_labels(
    labelled: dict[str, frozenset[str]], callee: str, args: tuple[tuple[str, ir.TExpr], ...]
) -> tuple[tuple[tuple[str, str], ...], tuple[tuple[str, str], ...]]:
    """A call's (parameter, define) pairs — an argument that calls a define — and
    (parameter, binding) pairs — one that passes a binding on, whose name goes
    along if it has one; both empty when no argument becomes a modifier."""
    wanted = labelled.get(callee, frozenset())
    named = tuple((p, a.define) for p, a in args if p in wanted and isinstance(a, ir.DefineCall))
    passed = tuple((p, a.name) for p, a in args if p in wanted and isinstance(a, ir.Binding))
    return named, passed
