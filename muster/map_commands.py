"""What the designer's map commands print and write: `muster map`, `los` and `path`.

They answer from the same map model the engine is built from: `los` traces
with shapely on demand, `path` searches the run-time tables, `map` renders.
Bad hex labels and unit names raise BadInput with a message for the user.
"""

from __future__ import annotations

import argparse
import itertools
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

from compiler import ir
from compiler.backends.map_render import render_map
from compiler.check.terrain_changes import changed_rules, options
from compiler.map.board import build_board
from compiler.map.hexmap import LABEL, Grid, Offset
from compiler.map.los import LosModel, trace
from compiler.map.model import MapModel
from dsl.diagnostics import did_you_mean
from engine import pathing
from engine.board import MOVE_CLASS
from engine.errors import BadInput
from engine.los import explain
from engine.terrain_state import split_entry


def hex_label(model: MapModel, text: str) -> str:
    """A hex label the user typed, checked against the map."""
    grid = model.grid
    if not LABEL.match(text) or not grid.contains(*Grid.parse(text)):
        first = grid.label(grid.first_col, grid.first_row)
        last = grid.label(grid.last_col, grid.last_row)
        raise BadInput(f"{text!r} is not a hex of the map ({first}..{last})")
    return text


def hex_labels(model: MapModel, text: str | None) -> list[str]:
    """`0304,0506`: hexes separated by commas."""
    return [hex_label(model, t.strip()) for t in (text or "").split(",") if t.strip()]


def _name(model: MapModel, h: Offset) -> str:
    return Grid.label(*h) if model.grid.contains(*h) else "off-map"


def los_report(model: MapModel, a: str, b: str, units: Iterable[str] = ()) -> str:
    """Clear or blocked, why, and the hexes and hexsides the line passes."""
    occupied = set(units)
    sight = LosModel(model).sight(a, b, occupied)
    grid = model.grid
    ha, hb = Grid.parse(a), Grid.parse(b)
    lines = [f"{a} → {b}, range {grid.distance(ha, hb)}: "]
    if sight.clear:
        lines[0] += "clear"
    else:
        assert sight.blocker is not None
        lines[0] += explain(sight.blocker, lambda h: _name(model, h))
    if ha != hb:
        passes = []
        for slot in trace(grid, ha, hb):
            hexes = [_name(model, alt[0]) for alt in slot if alt]
            if len(slot) == 1:
                passes.append(hexes[0])
            elif len(hexes) == 2:
                passes.append(f"along {hexes[0]}/{hexes[1]}")
            else:
                passes.append(f"past the corner of {hexes[0]}")
        lines.append("  the line passes: " + (", ".join(passes) or "no hex between"))
    if occupied:
        lines.append("  combat units in: " + ", ".join(sorted(occupied)))
    if grid.distance(ha, hb) > model.los_range():
        reach = model.los_range()
        lines.append(f"  beyond the LOS range ({reach}): the engine's tables stop short of it")
    return "\n".join(lines)


def _unit(rules: ir.Ruleset, name: str) -> ir.Unit:
    for u in rules.units:
        if u.name == name:
            return u
    hint = did_you_mean(name, {u.name for u in rules.units})
    raise BadInput(f"no unit {name!r}" + (f"; did you mean {hint!r}?" if hint else ""))


def _move_class(rules: ir.Ruleset, unit: ir.Unit) -> str:
    types = {t.name: t for t in rules.unit_types}
    value = unit.props.get(MOVE_CLASS)
    if value is None and unit.type in types:
        value = types[unit.type].props.get(MOVE_CLASS)
    return value if isinstance(value, str) else ""


def path_report(model: MapModel, a: str, b: str, unit_name: str) -> str:
    """The cheapest path for a unit over the terrain, step by step, and its MP cost."""
    rules = model.rules
    unit = _unit(rules, unit_name)
    move_class = _move_class(rules, unit)
    board = build_board(rules, model)
    ids = {label: i for i, label in enumerate(board.labels)}
    k = board.move_classes.index(move_class) if move_class in board.move_classes else 0
    found = pathing.cheapest_path(board, ids[a], ids[b], k)
    who = f"{unit.title} ({'class ' + move_class + ', ' if move_class else ''}"
    who += f"movement {unit.movement})"
    if found is None:
        return f"{who}: no path from {a} to {b}: prohibited terrain is in the way"
    cost, path = found
    turns = "within one turn" if cost <= unit.movement else "more than one turn"
    lines = [f"{who}: {a} → {b} costs {cost} MP, {turns} (terrain only, no units or ZOCs)"]
    spent = 0
    for here, there in itertools.pairwise(path):
        step = board.move_cost[k][here][board.neighbors[here].index(there)]
        spent += step
        lines.append(f"  {board.labels[here]} → {board.labels[there]}  {step} MP  ({spent})")
    return "\n".join(lines)


def write_map_image(
    model: MapModel,
    out: Path,
    dpi: int,
    los: tuple[str, str] | None = None,
    units: Iterable[str] = (),
) -> Path:
    """Render the map to a PNG, written whole or not at all."""
    units = list(units)
    sight = None
    if los is not None:
        a, b = los
        sight = (a, b, LosModel(model).sight(a, b, set(units)))
    image, _layout = render_map(model, dpi, sight, units)
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".png", dir=out.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            image.save(f, format="PNG", dpi=(dpi, dpi))
        os.replace(tmp, out)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return out


def _map_model(ruleset: str, changed: Iterable[str] = ()):
    from compiler.check import compile_ruleset
    from compiler.map.model import MapModel

    rules = compile_ruleset(ruleset)[0]
    if rules.map is None:
        raise BadInput(f"{ruleset}: the ruleset {rules.name!r} has no map")
    return MapModel(with_changes(rules, changed))


def with_changes(rules: ir.Ruleset, changed: Iterable[str]) -> ir.Ruleset:
    """The rules with these terrain changes made (`bridge_blown`, `pontoon_laid@0505/0605`,
    as the engine's state holds them): the map, routes and sight read as in play."""
    names = [c.name for c in rules.terrain_changes]
    made: dict[int, str] = {}
    for entry in changed:
        name, place = split_entry(entry)
        if name not in names:
            hint = did_you_mean(name, names)
            raise BadInput(
                f"{name!r} is not a terrain change of {rules.name!r}"
                + (f"; did you mean {hint!r}?" if hint else "")
            )
        i = names.index(name)
        places = options(rules.terrain_changes[i])
        if place not in places:
            where = ", ".join(places) if places != ("",) else "none: write its name alone"
            raise BadInput(f"{name} is made at one of its places ({where}), not {place!r}")
        made[i] = place
    return changed_rules(rules, tuple(sorted(made.items()))) if made else rules


def cmd_map(args: argparse.Namespace) -> int:

    model = _map_model(args.ruleset, args.changed)
    los = (hex_label(model, args.los[0]), hex_label(model, args.los[1])) if args.los else None
    units = hex_labels(model, args.units)
    out = write_map_image(model, Path(args.out), args.dpi, los, units)
    print(f"map → {out}")
    return 0


def cmd_los(args: argparse.Namespace) -> int:

    model = _map_model(args.ruleset, args.changed)
    a, b = hex_label(model, args.a), hex_label(model, args.b)
    print(los_report(model, a, b, hex_labels(model, args.units)))
    return 0


def cmd_path(args: argparse.Namespace) -> int:

    model = _map_model(args.ruleset, args.changed)
    print(path_report(model, hex_label(model, args.a), hex_label(model, args.b), args.unit))
    return 0
