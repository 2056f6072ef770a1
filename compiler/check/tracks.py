"""Tracks: the game-turn track with its per-turn data, and level tracks.

    turn_track § battle III {
        turn 1 "7:00 AM"
        turn 6 "Noon" § battle 4.5 { heat yes }
        turn 8 "2:00 PM" { entry_roll 0..1 }     provisional "ranges are printed on the track"
    }

    levels army_morale_level "Army Morale" § series 16.2 {
        of army_morale
        wavering "Wavering"    1..9   { initiative_drm -1; morale_modifier -2 }
        fatigued "Fatigued"    10..14 { initiative_drm 0; morale_modifier -1 }
        high     "High Morale" 15..   { initiative_drm 1; morale_modifier 0 }
    }

A turn's data is read in rules as `track.heat` (this turn's value; a turn
that does not say has no/0). A level track names the levels of a per-side
variable: `army_morale_level(red)` is the level the red army is at,
and `army_morale_level(red).initiative_drm` one of its values.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

from compiler import ir
from compiler.check.bounds import TRACK_BOX, TURN, all_within, within
from compiler.check.props import BOOL_WORDS, TRUE_WORDS, Props, as_int, describe, prov_of
from dsl import ast
from dsl.diagnostics import BAD_VALUE, DUPLICATE, MISSING, Reporter


def _data(
    block: ast.Block | None, r: Reporter, where: str, provs: dict[str, ir.Prov] | None = None
) -> dict[str, object]:
    """`{ heat yes; entry_roll 0..1; label "x" }`: a small record of values.

    Each value's own citation or provisional mark goes into `provs` when given.
    """
    out: dict[str, object] = {}
    if block is None:
        return out
    for line in block.lines:
        if not _is_data_line(line):
            r.error(line.span, BAD_VALUE, f"{where} data is `name value` lines")
            continue
        value = _data_value(line.values[1], r, where)
        if value is None:
            continue
        if line.key in out:
            r.error(line.span, DUPLICATE, f"{line.key!r} given twice")
        out[line.key] = value
        if provs is not None:
            provs[line.key] = prov_of(line.prov)
    return out


def _is_data_line(line: ast.Line | ast.WhenLine | ast.DoLine) -> bool:
    """Whether a line is `name value`."""
    return isinstance(line, ast.Line) and line.key is not None and len(line.values) == 2


def _data_value(v: ast.Expr, r: Reporter, where: str) -> object:
    """A data value by its node type: yes/no or a name, a number, a range, a string."""
    read = _DATA_READERS.get(type(v))
    value = read(v) if read is not None else None
    if value is None:
        r.error(
            v.span,
            BAD_VALUE,
            f"{where} data takes yes/no, a number, a range, a name or a string, not {describe(v)}",
        )
    return value


def _name_value(v: ast.Name) -> bool | str:
    return v.id in TRUE_WORDS if v.id in BOOL_WORDS else v.id


def _range_value(v: ast.Range) -> tuple[int, int] | None:
    if v.low is None or v.high is None:
        return None
    return int(v.low), int(v.high)


def _string_value(v: ast.String) -> str:
    return v.value


_DATA_READERS: dict[type, Callable[..., object]] = {
    ast.Name: _name_value,
    ast.Number: as_int,
    ast.Range: _range_value,
    ast.String: _string_value,
}


def check_turn_track(d: ast.Entity, r: Reporter) -> ir.TurnTrack:
    """The turn track: turns numbered one after another, each with its data."""
    decl_prov = prov_of(d.prov)
    turns: list[ir.Turn] = []
    for line in d.body.lines:
        turn = _turn(line, r, decl_prov)
        if turn is None:
            continue
        if turns and turn.number != turns[-1].number + 1:
            r.error(
                line.span, BAD_VALUE, f"turn {turn.number} should be turn {turns[-1].number + 1}"
            )
        turns.append(turn)
    if not turns:
        r.error(d.span, MISSING, "the turn track has no turns")
    return ir.TurnTrack(d.title or "Game Turn Track", tuple(turns), decl_prov, d.span)


def _turn_label(vals: tuple[ast.Expr, ...]) -> str | None:
    """The label of `turn N "label"`, if the line is written so."""
    if len(vals) != 2 or not isinstance(vals[1], ast.String):
        return None
    return vals[1].value


def _turn(
    line: ast.Line | ast.WhenLine | ast.DoLine, r: Reporter, decl_prov: ir.Prov
) -> ir.Turn | None:
    """`turn N "label" { data }`."""
    if not isinstance(line, ast.Line) or line.key != "turn":
        r.error(line.span, BAD_VALUE, 'a turn track lists `turn N "label" { data }`')
        return None
    vals = line.values[1:]
    number = as_int(vals[0]) if vals else None
    label = _turn_label(vals)
    if number is None or label is None:
        r.error(
            line.span,
            BAD_VALUE,
            'write `turn N "label"`, then data in braces if the turn has any',
        )
        return None
    if not within(r, vals[0].span, "the turn", number, TURN):
        return None
    turn_prov = decl_prov.merged(prov_of(line.prov))
    own: dict[str, ir.Prov] = {}
    data = _data(line.block, r, "turn", own)
    provs = {key: turn_prov.merged(p) for key, p in own.items()}
    return ir.Turn(number, label, data, turn_prov, line.span, provs)


LEVELS_KEYS = {"of"}  # and a line per level


def check_levels(d: ast.Entity, r: Reporter) -> ir.Levels:
    """A level track: levels going upward without gaps, each giving the same values."""
    p = Props(d, r, LEVELS_KEYS, keyed_only=False)
    variable = p.name("of", required=True) or ""
    decl_prov = prov_of(d.prov)
    levels = [level for line in p.other if (level := _level(line, r, decl_prov)) is not None]
    _check_levels_follow(levels, r)
    _check_same_values(d, levels, r)
    return ir.Levels(d.ident, d.display_title, variable, tuple(levels), decl_prov, d.span)


def _check_levels_follow(levels: list[ir.Level], r: Reporter) -> None:
    """Each level starts one above where the level below it ends."""
    for a, b in itertools.pairwise(levels):
        if a.high is None or b.low is None or b.low != a.high + 1:
            r.error(
                b.span,
                BAD_VALUE,
                "levels go upward without gaps or overlaps: each starts one above the last",
            )


def _check_same_values(d: ast.Entity, levels: list[ir.Level], r: Reporter) -> None:
    """Every level gives values for the same names, so that the rules may read any."""
    keys = [set(level.data) for level in levels]
    if any(k != keys[0] for k in keys):
        r.error(d.span, BAD_VALUE, "every level gives the same values")


def _level(line: ast.Line, r: Reporter, decl_prov: ir.Prov) -> ir.Level | None:
    """`name "Title" low..high { values }` (or a single number)."""
    vals = line.values
    bounds = _level_bounds(vals[2]) if len(vals) == 3 else None
    if bounds is None or not isinstance(vals[0], ast.Name) or not isinstance(vals[1], ast.String):
        r.error(line.span, BAD_VALUE, 'a level is `name "Title" low..high { values }`')
        return None
    low, high = bounds
    ends = [n for n in bounds if n is not None]
    if not all_within(r, vals[2].span, "the level's box", ends, TRACK_BOX):
        return None
    return ir.Level(
        vals[0].id,
        vals[1].value,
        low,
        high,
        _data(line.block, r, "level"),
        decl_prov.merged(prov_of(line.prov)),
        line.span,
    )


def _level_bounds(v: ast.Expr) -> tuple[int | None, int | None] | None:
    """A level's range (open at either end) or single number; None when neither."""
    if isinstance(v, ast.Range):
        low = int(v.low) if v.low is not None else None
        high = int(v.high) if v.high is not None else None
        return low, high
    n = as_int(v)
    return (n, n) if n is not None else None
