"""Checks across declarations that the map model depends on.

What only the whole ruleset can tell: that movement classes in the TEC are
classes units move as, that features named by `replaces`, `combines` and
`counts_as` exist, and the types of the unit attributes the map reads. They
live apart from `compiler.map.model` so that `muster check` never imports
networkx.
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
    _check_move_classes(rules, reporter)
    features = {f.name: f for f in rules.hexside_features}
    for f in rules.hexside_features:
        _check_feature_names(f, features, reporter)
        _check_combined_direction(f, features, reporter)
        _check_counts_as(f, features, reporter)
    for decl in (*rules.unit_types, *rules.units):
        _check_attribute_types(decl, reporter)


def _check_move_classes(rules: ir.Ruleset, reporter: Reporter) -> None:
    """Each class a movement cost names is one some unit moves as."""
    classes = move_classes(rules)
    for cost, owner in _movement_costs(rules):
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


def _movement_costs(rules: ir.Ruleset) -> list[tuple[ir.MoveCost, str]]:
    """Every movement cost of the TEC, with the terrain or feature it belongs to."""
    costs = [(t.move, t.name) for t in rules.terrain]
    for f in rules.hexside_features:
        costs += [(f.move, f.name), (f.move_into, f.name), (f.move_out_of, f.name)]
    return costs


def _check_feature_names(
    f: ir.HexsideFeature, features: dict[str, ir.HexsideFeature], reporter: Reporter
) -> None:
    """What a feature `replaces`, `combines` or `counts_as` is a feature written on the map."""
    for name in f.replaces + f.combines + f.counts_as:
        if name not in features or features[name].combines:
            hint = did_you_mean(name, set(features))
            reporter.error(
                f.span,
                UNKNOWN_NAME,
                f"{f.name}: {name!r} is not a hexside feature written on the map",
                *hint_note(hint),
            )


def _check_combined_direction(
    f: ir.HexsideFeature, features: dict[str, ir.HexsideFeature], reporter: Reporter
) -> None:
    """A feature that combines a directional one is directional too."""
    directional = [c for c in f.combines if c in features and features[c].directional]
    if directional and not f.directional:
        reporter.error(
            f.span,
            BAD_VALUE,
            f"{f.name} combines the directional {directional[0]!r}: declare it "
            "`directional` too, with `move_into`/`move_out_of`",
        )


def _check_counts_as(
    f: ir.HexsideFeature, features: dict[str, ir.HexsideFeature], reporter: Reporter
) -> None:
    """A feature counts as another, not as itself; as a directional one only if
    it has a side too (`crossing_into` asks whose side it is)."""
    if f.name in f.counts_as:
        reporter.error(f.span, BAD_VALUE, f"{f.name} counts as itself: name another feature")
    directional = [c for c in f.counts_as if c in features and features[c].directional]
    if directional and not f.directional:
        reporter.error(
            f.span,
            BAD_VALUE,
            f"{f.name} counts as the directional {directional[0]!r}: declare it "
            "`directional` too (the map then names the hex it belongs to first)",
        )


# The unit attributes the map model reads, with their types and what they take.
_ATTRIBUTE_TYPES = {MOVE_CLASS: str, RANGE: int, INDIRECT_FIRE: bool}
_WANTS = {str: "a name", int: "a whole number, 0 or more", bool: "yes or no"}


def _check_attribute_types(decl: ir.UnitType | ir.Unit, reporter: Reporter) -> None:
    for key, typ in _ATTRIBUTE_TYPES.items():
        value = decl.props.get(key)
        if value is not None and not _is_a(value, typ):
            reporter.error(decl.span, BAD_VALUE, f"{decl.name}: {key!r} takes {_WANTS[typ]}")


def _is_a(value: object, typ: type) -> bool:
    """Whether an attribute's value has the type (exactly: a bool is no int); ints are >= 0."""
    return type(value) is typ and not (typ is int and value < 0)  # type: ignore[operator]
