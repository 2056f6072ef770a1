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

from compiler import ir
from compiler.props import BOOL_WORDS, TRUE_WORDS, Props, as_int, describe, prov_of
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
        if not isinstance(line, ast.Line) or line.key is None or len(line.values) != 2:
            r.error(line.span, BAD_VALUE, f"{where} data is `name value` lines")
            continue
        v = line.values[1]
        value: object
        if isinstance(v, ast.Name) and v.id in BOOL_WORDS:
            value = v.id in TRUE_WORDS
        elif as_int(v) is not None:
            value = as_int(v)
        elif isinstance(v, ast.Range) and v.low is not None and v.high is not None:
            value = (int(v.low), int(v.high))
        elif isinstance(v, ast.String):
            value = v.value
        elif isinstance(v, ast.Name):
            value = v.id
        else:
            r.error(
                v.span,
                BAD_VALUE,
                f"{where} data takes yes/no, a number, a range, a name or a string, "
                f"not {describe(v)}",
            )
            continue
        if line.key in out:
            r.error(line.span, DUPLICATE, f"{line.key!r} given twice")
        out[line.key] = value
        if provs is not None:
            provs[line.key] = prov_of(line.prov)
    return out


def check_turn_track(d: ast.Entity, r: Reporter) -> ir.TurnTrack:
    decl_prov = prov_of(d.prov)
    turns: list[ir.Turn] = []
    for line in d.body.lines:
        if not isinstance(line, ast.Line) or line.key != "turn":
            r.error(line.span, BAD_VALUE, 'a turn track lists `turn N "label" { data }`')
            continue
        vals = line.values[1:]
        number = as_int(vals[0]) if vals else None
        label = vals[1].value if len(vals) == 2 and isinstance(vals[1], ast.String) else None
        if number is None or label is None:
            r.error(
                line.span,
                BAD_VALUE,
                'write `turn N "label"`, then data in braces if the turn has any',
            )
            continue
        if turns and number != turns[-1].number + 1:
            r.error(line.span, BAD_VALUE, f"turn {number} should be turn {turns[-1].number + 1}")
        turn_prov = decl_prov.merged(prov_of(line.prov))
        own: dict[str, ir.Prov] = {}
        data = _data(line.block, r, "turn", own)
        turns.append(
            ir.Turn(
                number,
                label,
                data,
                turn_prov,
                line.span,
                {key: turn_prov.merged(p) for key, p in own.items()},
            )
        )
    if not turns:
        r.error(d.span, MISSING, "the turn track has no turns")
    return ir.TurnTrack(d.title or "Game Turn Track", tuple(turns), decl_prov, d.span)


LEVELS_KEYS = {"of"}  # and a line per level


def check_levels(d: ast.Entity, r: Reporter) -> ir.Levels:
    p = Props(d, r, LEVELS_KEYS, keyed_only=False)
    variable = p.name("of", required=True) or ""
    decl_prov = prov_of(d.prov)
    levels: list[ir.Level] = []
    for line in p.other:
        vals = line.values
        ok = (
            len(vals) == 3
            and isinstance(vals[0], ast.Name)
            and isinstance(vals[1], ast.String)
            and (isinstance(vals[2], ast.Range) or as_int(vals[2]) is not None)
        )
        if not ok:
            r.error(line.span, BAD_VALUE, 'a level is `name "Title" low..high { values }`')
            continue
        v = vals[2]
        if isinstance(v, ast.Range):
            low = int(v.low) if v.low is not None else None
            high = int(v.high) if v.high is not None else None
        else:
            low = high = as_int(v)
        levels.append(
            ir.Level(
                vals[0].id,
                vals[1].value,
                low,
                high,
                _data(line.block, r, "level"),
                decl_prov.merged(prov_of(line.prov)),
                line.span,
            )
        )
    for a, b in itertools.pairwise(levels):
        if a.high is None or b.low is None or b.low != a.high + 1:
            r.error(
                b.span,
                BAD_VALUE,
                "levels go upward without gaps or overlaps: each starts one above the last",
            )
    keys = [set(level.data) for level in levels]
    if keys and any(k != keys[0] for k in keys):
        r.error(d.span, BAD_VALUE, "every level gives the same values")
    return ir.Levels(
        d.name or "", d.title or d.name or "", variable, tuple(levels), decl_prov, d.span
    )
