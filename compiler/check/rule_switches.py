"""Rule switches: each `rule`'s default, and how rules stand to one another.

A rule may be an option within another (`part_of`: an optional way of
playing an optional rule, played only with it) and may exclude others
(`excludes`: two play-balance options that tilt the game opposite ways).
The checks here keep every game a scenario starts consistent with both:
what the players then choose is checked by the engine (`engine/game.py`).
"""

from __future__ import annotations

from compiler import ir
from compiler.check.props import prov_of
from dsl import ast
from dsl.diagnostics import BAD_VALUE, UNKNOWN_NAME, Reporter, did_you_mean, hint_note
from dsl.source import Span

# Rule switches with one of these flags start off.
DEFAULT_OFF_FLAGS = {"optional", "play_balance", "scenario"}


def check_switches(
    reporter: Reporter, rules: list[ast.Rule], scenarios: tuple[ir.Scenario, ...]
) -> tuple[ir.Switch, ...]:
    """The rule switches, in the order declared, their relations checked: each names
    another rule, no rule is part of itself, and no scenario starts a game that
    plays a rule without the rule it is part of, or two rules that exclude each
    other."""
    known = {rule.name for rule in rules}
    for rule in rules:
        for name, span in _relations(rule):
            _named_rule(reporter, rule, name, span, known)
    parent = {
        r.name: r.part_of[0]
        for r in rules
        if r.part_of and r.part_of[0] in known and r.part_of[0] != r.name
    }
    for rule in rules:
        if rule.part_of and _in_a_circle(rule.name, parent):
            reporter.error(
                rule.part_of[1],
                BAD_VALUE,
                f"rule {rule.name!r} is part of itself through `part_of`",
                "a chain of `part_of` ends at a rule that is part of none",
            )
    excluded: dict[str, set[str]] = {rule.name: set() for rule in rules}
    for rule in rules:
        for name, _span in rule.excludes:
            if name in known and name != rule.name:
                excluded[rule.name].add(name)
                excluded[name].add(rule.name)
    switches = tuple(_switch(rule, parent, excluded) for rule in rules)
    for scenario in scenarios:
        _consistent(reporter, switches, scenario)
    return switches


def _relations(rule: ast.Rule) -> list[tuple[str, Span]]:
    return [*([rule.part_of] if rule.part_of else []), *rule.excludes]


def _named_rule(reporter: Reporter, rule: ast.Rule, name: str, span: Span, known: set[str]) -> None:
    if name not in known:
        hint = hint_note(did_you_mean(name, known))
        reporter.error(span, UNKNOWN_NAME, f"no rule {name!r}", *hint)
    elif name == rule.name:
        reporter.error(span, BAD_VALUE, f"rule {name!r} names itself")


def _in_a_circle(name: str, parent: dict[str, str]) -> bool:
    seen = {name}
    while name in parent:
        name = parent[name]
        if name in seen:
            return True
        seen.add(name)
    return False


def _switch(rule: ast.Rule, parent: dict[str, str], excluded: dict[str, set[str]]) -> ir.Switch:
    """A rule switch, on at the start unless a flag says it starts off."""
    return ir.Switch(
        rule.name,
        rule.title or rule.name,
        rule.flags,
        not (set(rule.flags) & DEFAULT_OFF_FLAGS),
        prov_of(rule.prov),
        rule.span,
        part_of=parent.get(rule.name, ""),
        excludes=tuple(sorted(excluded[rule.name])),
    )


def _consistent(reporter: Reporter, switches: tuple[ir.Switch, ...], sc: ir.Scenario) -> None:
    """The scenario's game starts with no rule on whose whole is off, and no two
    rules on that exclude each other."""
    on = {sw.name: sw.default for sw in switches}
    on.update(dict.fromkeys(sc.rules_off, False))
    on.update(dict.fromkeys(sc.rules_on, True))
    for sw in switches:
        if not on[sw.name]:
            continue
        if sw.part_of and not on[sw.part_of]:
            reporter.error(
                sc.span,
                BAD_VALUE,
                f"scenario {sc.name!r} plays rule {sw.name!r} without {sw.part_of!r}, "
                "which it is part of",
                f"play {sw.part_of!r} too (`special_rules`), or leave {sw.name!r} out",
            )
        for other in sw.excludes:
            if on[other] and sw.name < other:
                reporter.error(
                    sc.span,
                    BAD_VALUE,
                    f"scenario {sc.name!r} plays rules {sw.name!r} and {other!r}, "
                    "which exclude each other",
                    "leave one of them out (`rules_not_used`)",
                )
