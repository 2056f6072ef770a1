"""Warnings for what is probably a slip: checked rules that are legal but odd.

`muster check` shows them and goes on; nothing here stops a build. Each
looks at the checked IR:

- a combat unit with no morale rating (every combat unit takes morale checks, series 13);
- a slope hexside whose up-slope hex is lower than the other, when the
  terrain declares an `elevation`;
- a `define` or `variable` declared in the battle's own files and never
  used anywhere (one in an imported library, the series, is not: a battle
  uses what it needs of the series);
- a victory condition that needs a turn later than the last turn of every
  scenario it applies to;
- a scenario with its own set-up and no `reinforcements`, in a battle whose
  units say `enters`: only `setup printed` reads a unit's `enters`, so those
  units would never come on.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from functools import singledispatch
from pathlib import Path

from compiler import ir
from dsl.diagnostics import (
    ENTRY_NOT_READ,
    NO_MORALE,
    SLOPE_ELEVATION,
    UNREACHABLE,
    UNUSED,
    Reporter,
)

ELEVATION = "elevation"  # the terrain key a slope's direction is checked against


def find_slips(rules: ir.Ruleset, own_folder: Path, reporter: Reporter) -> None:
    """Report every probable slip of `rules` as a warning."""
    no_morale(rules, reporter)
    slope_elevation(rules, reporter)
    unused(rules, own_folder, reporter)
    unreachable_victories(rules, reporter)
    entries_not_read(rules, reporter)


def no_morale(rules: ir.Ruleset, reporter: Reporter) -> None:
    for u in rules.units:
        if u.kind == "unit" and not u.morales:
            reporter.warning(
                u.span,
                NO_MORALE,
                f"combat unit {u.name!r} has no morale rating",
                "every combat unit takes morale checks (series 13): write `morale N`",
            )


def slope_elevation(rules: ir.Ruleset, reporter: Reporter) -> None:
    m = rules.map
    elevation = {t.name: t.props[ELEVATION] for t in rules.terrain if ELEVATION in t.props}
    slopes = {f.name for f in rules.hexside_features if f.slope}
    if m is None or not elevation or not slopes:
        return
    for up, down in _slopes(m, slopes):
        high, low = _elevation(m, elevation, up), _elevation(m, elevation, down)
        if high is not None and low is not None and high < low:
            reporter.warning(
                m.span,
                SLOPE_ELEVATION,
                f"the slope {up}/{down} puts its up-slope hex {up} (elevation {high}) "
                f"below {down} (elevation {low})",
                f"a slope is written up-slope hex first: did you mean {down}/{up}?",
            )


def _elevation(m: ir.Map, elevation: dict[str, object], hex_label: str) -> int | None:
    """The elevation of a hex's terrain, when its terrain declares a whole number."""
    height = elevation.get(m.terrain.get(hex_label, m.default))
    return height if isinstance(height, int) else None


def _slopes(m: ir.Map, slopes: set[str]) -> Iterator[tuple[str, str]]:
    """The map's slope hexsides, each as its up-slope hex and its down-slope hex."""
    for (a, b), features in m.hexsides.items():
        for name, up in features.items():
            if name in slopes and up:
                yield up, (b if up == a else a)


def unused(rules: ir.Ruleset, own_folder: Path, reporter: Reporter) -> None:
    """Defines and variables of the battle's own files that nothing reads."""
    if rules.library:
        return
    used = set(_names_used(rules))
    for decl, what in (
        *((d, "definition") for d in rules.defines),
        *((v, "variable") for v in rules.variables),
    ):
        if decl.name in used or not _in_folder(decl.span.file, own_folder):
            continue
        reporter.warning(
            decl.span,
            UNUSED,
            f"the {what} {decl.name!r} is declared and never used",
            "nothing in the rules reads it: remove it, or use it where it was meant to go",
        )


def _in_folder(file: str, folder: Path) -> bool:
    path = Path(file).resolve()
    return path == folder or folder in path.parents


def _names_used(rules: ir.Ruleset) -> Iterator[str]:
    """Every string in the rules outside the declarations' own names: a define
    is used when a `DefineCall` names it, a variable when an expression, a
    statement, a level track or a scenario's start value names it."""
    for field in dataclasses.fields(rules):
        if field.name in ("defines", "variables", "map", "files", "name", "title"):
            continue
        yield from _strings(getattr(rules, field.name))
    for d in rules.defines:
        yield from _strings(d.body)
    for v in rules.variables:
        yield from _strings(v.initial)


@singledispatch
def _strings(value: object) -> Iterator[str]:
    """Every string inside a value of the IR (its spans left out)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        for field in dataclasses.fields(value):
            if field.name != "span":
                yield from _strings(getattr(value, field.name))


@_strings.register
def _(value: str) -> Iterator[str]:
    yield value


@_strings.register(tuple)
@_strings.register(list)
@_strings.register(set)
@_strings.register(frozenset)
def _(value: tuple | list | set | frozenset) -> Iterator[str]:
    for item in value:
        yield from _strings(item)


@_strings.register
def _(value: dict) -> Iterator[str]:
    for k, v in value.items():
        yield from _strings(k)
        yield from _strings(v)


def unreachable_victories(rules: ir.Ruleset, reporter: Reporter) -> None:
    for v in rules.victories:
        first = earliest_turn(v.condition)
        last = _last_turn(rules, v)
        if first is not None and first > last:
            reporter.warning(
                v.span,
                UNREACHABLE,
                f"victory {v.name!r} needs turn {first} or later, "
                f"but the game ends after turn {last}",
                "check the turn in its condition against the scenarios' `turns`",
            )


def entries_not_read(rules: ir.Ruleset, reporter: Reporter) -> None:
    """A scenario that places its own units brings on only its `reinforcements`
    (a short scenario leaves out the later arrivals on purpose): one with none
    at all, while units say `enters`, is warned with the lines to write."""
    for sc in rules.scenarios:
        if sc.printed_setup or "reinforcements" in sc.provs:
            continue
        placed = {p.name for entry in sc.setup for p in entry.units}
        waiting = [u for u in rules.units if u.entry is not None and u.name not in placed]
        if not waiting:
            continue
        lines: dict[str, list[str]] = {}
        for u in waiting:
            assert u.entry is not None
            lines.setdefault(f"{u.entry.turn} at {' '.join(u.entry.at)}", []).append(u.name)
        written = "; ".join(f"{where} {' '.join(names)}" for where, names in lines.items())
        first = waiting[0]
        verb = "comes" if len(waiting) == 1 else "come"
        reporter.warning(
            sc.span,
            ENTRY_NOT_READ,
            f"scenario {sc.name!r} sets up its own units and brings none on, so "
            f"{_listed([u.name for u in waiting])} never {verb} on: "
            "only `setup printed` reads a unit's `enters`",
            f"{first.name!r} is declared at {first.span.file}:{first.span.line}; "
            f"to bring them on, write in the scenario `reinforcements {{ {written} }}` "
            "(or `reinforcements { }` for none)",
        )


def _listed(names: list[str]) -> str:
    """Names as a sentence lists them: 'a', 'a' and 'b', 'a', 'b' and 2 more."""
    quoted = [repr(n) for n in names]
    if len(quoted) > 3:
        quoted = [*quoted[:2], f"{len(quoted) - 2} more"]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]


def _last_turn(rules: ir.Ruleset, v: ir.Victory) -> int:
    """The last turn of any scenario the victory condition applies to."""
    where = [s for s in rules.scenarios if s.name in v.scenarios] or list(rules.scenarios)
    return max([s.turns[1] for s in where] or [rules.turns[1]])


def earliest_turn(e: ir.TExpr) -> int | None:
    """The first turn on which a condition can hold, from its `turn` comparisons
    joined by `and` (None when it says nothing about the turn)."""
    if not isinstance(e, ir.Binary):
        return None
    if e.op == "and":
        found = [t for t in (earliest_turn(e.left), earliest_turn(e.right)) if t is not None]
        return max(found) if found else None
    if isinstance(e.left, ir.Var) and e.left.name == "turn":
        return _first_turn(e.op, e.right)
    return None


def _first_turn(op: str, right: ir.TExpr) -> int | None:
    """The first turn for which `turn OP right` holds (None when not a constant's)."""
    if not isinstance(right, ir.Const):
        return None
    if op == "in" and right.type == "range":
        low = right.value[0]  # type: ignore[index]
        return low if isinstance(low, int) else None
    if not isinstance(right.value, int):
        return None
    return {">=": right.value, ">": right.value + 1, "==": right.value}.get(op)
