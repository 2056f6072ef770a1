"""Checks across declarations that the map model depends on.

What only the whole ruleset can tell: that movement classes in the TEC are
classes units move as, that features named by `replaces` and `combines`
exist, and the types of the unit attributes the map reads. They live apart
from `compiler.map_model` so that `muster check` never imports networkx.
"""

from __future__ import annotations

from compiler import ir
from dsl.diagnostics import BAD_VALUE, UNKNOWN_NAME, Reporter, did_you_mean, hint_note
from engine.board import INDIRECT_FIRE, MOVE_CLASS, RANGE


def move_classes(rules: ir.Ruleset) -> set[str]:
    """The movement classes units move as (their `move_class` attribute)."""
    return {v for v in unit_attribute(rules, MOVE_CLASS) if isinstance(v, str)}


def unit_attribute(rules: ir.Ruleset, key: str) -> list[object]:
    """Every value of a unit attribute declared on a unit type or a unit."""
    return [d.props[key] for d in (*rules.unit_types, *rules.units) if key in d.props]


def check_model(rules: ir.Ruleset, reporter: Reporter) -> None:
    """Checks across declarations that the map model depends on."""
    classes = move_classes(rules)
    features = {f.name: f for f in rules.hexside_features}
    costs = [(t.move, t.name) for t in rules.terrain]
    for f in rules.hexside_features:
        costs += [(f.move, f.name), (f.move_into, f.name), (f.move_out_of, f.name)]
    for cost, owner in costs:
        for name, _mp in cost.classes:
            if name not in classes:
                hint = did_you_mean(name, classes)
                reporter.error(
                    cost.span,
                    UNKNOWN_NAME,
                    f"{owner}: no unit moves as {name!r}",
                    *hint_note(hint),
                    f"a unit type declares its class with `{MOVE_CLASS} {name}`",
                )
    for f in rules.hexside_features:
        for name in f.replaces + f.combines:
            if name not in features or features[name].combines:
                hint = did_you_mean(name, set(features))
                reporter.error(
                    f.span,
                    UNKNOWN_NAME,
                    f"{f.name}: {name!r} is not a hexside feature written on the map",
                    *hint_note(hint),
                )
        directional = [c for c in f.combines if c in features and features[c].directional]
        if directional and not f.directional:
            reporter.error(
                f.span,
                BAD_VALUE,
                f"{f.name} combines the directional {directional[0]!r}: declare it "
                "`directional` too, with `move_into`/`move_out_of`",
            )
    attribute_types = {MOVE_CLASS: str, RANGE: int, INDIRECT_FIRE: bool}
    for decl in (*rules.unit_types, *rules.units):
        for key, typ in attribute_types.items():
            value = decl.props.get(key)
            if value is not None and (type(value) is not typ or (typ is int and value < 0)):
                what = {str: "a name", int: "a whole number, 0 or more", bool: "yes or no"}[typ]
                reporter.error(decl.span, BAD_VALUE, f"{decl.name}: {key!r} takes {what}")
