"""Pass 4: apply `extend PROCEDURE { … }` patches to the procedures' steps.

A patch inserts a step before or after another, replaces one or disables it.
Each step keeps the rule switch it holds under: "" always, "RULE" while the
rule is on, "!RULE" while it is off, "!" never (disabled outright).
"""

from __future__ import annotations

from collections.abc import Callable

from compiler.check.collect import Declarations
from dsl import ast
from dsl.diagnostics import DUPLICATE, PATCH, Reporter, did_you_mean, hint_note
from dsl.source import Span

# A procedure's steps, each with the rule switch it holds under.
Steps = list[tuple[ast.Step, str]]
Procedures = dict[str, tuple[ast.Procedure, Steps]]


def patched_procedures(decls: Declarations, reporter: Reporter) -> Procedures:
    """Every procedure by name, with its steps once every patch is applied."""
    procs: Procedures = {}
    for proc, _rule in decls.procedures:
        _check_step_names(proc, reporter)
        procs[proc.name] = (proc, [(s, "") for s in proc.steps])
    for ext, rule in decls.extends:
        if ext.procedure not in procs:
            hint = did_you_mean(ext.procedure, set(procs))
            reporter.error(
                ext.span, PATCH, f"no procedure {ext.procedure!r} to extend", *hint_note(hint)
            )
            continue
        _proc, steps = procs[ext.procedure]
        for patch in ext.patches:
            _apply(patch, ext.procedure, steps, rule, reporter)
    return procs


def _check_step_names(proc: ast.Procedure, reporter: Reporter) -> None:
    seen: dict[str, Span] = {}
    for s in proc.steps:
        if s.name in seen:
            reporter.error(
                s.span,
                DUPLICATE,
                f"step {s.name!r} is already in {proc.name!r}",
                f"first at {seen[s.name]}",
            )
        seen[s.name] = s.span


def _apply(patch: ast.Patch, proc: str, steps: Steps, rule: str, reporter: Reporter) -> None:
    """Apply one patch to a procedure's steps, unless it names a step wrongly."""
    names = [s.name for s, _r in steps]
    if patch.target not in names:
        hint = did_you_mean(patch.target, names)
        reporter.error(
            patch.span,
            PATCH,
            f"{proc!r} has no step {patch.target!r}",
            *hint_note(hint),
            f"its steps: {', '.join(names)}",
        )
        return
    if patch.step is not None and patch.step.name in names and patch.action != "replace":
        reporter.error(
            patch.step.span, DUPLICATE, f"step {patch.step.name!r} is already in {proc!r}"
        )
        return
    action = _ACTIONS.get(patch.action)
    if action is not None:
        action(steps, names.index(patch.target), patch.step, rule)


def _insert_before(steps: Steps, i: int, step: ast.Step, rule: str) -> None:
    steps.insert(i, (step, rule))


def _insert_after(steps: Steps, i: int, step: ast.Step, rule: str) -> None:
    steps.insert(i + 1, (step, rule))


def _replace(steps: Steps, i: int, step: ast.Step, rule: str) -> None:
    old, _old_rule = steps[i]
    steps[i] = (step, rule)
    if rule:
        # A replaced step lives on when the rule is off: keep both, switched.
        steps.insert(i + 1, (old, f"!{rule}"))


def _disable(steps: Steps, i: int, _step: ast.Step | None, rule: str) -> None:
    old, _old_rule = steps[i]
    steps[i] = (old, f"!{rule}" if rule else "!")


_ACTIONS: dict[str, Callable[[Steps, int, ast.Step, str], None]] = {
    "insert before": _insert_before,
    "insert after": _insert_after,
    "replace": _replace,
    "disable": _disable,
}
