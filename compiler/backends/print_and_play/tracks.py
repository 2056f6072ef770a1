"""Tracks: the Game Turn track and level tracks such as Army Morale.

The Game Turn track is a row of boxes, one per turn, with the clock time,
each per-turn value (a yes/no value such as heat is printed as a coloured
tag: HEAT) and the units due to enter that turn (reinforcements, with their
entry hexes; "roll" when the entry is rolled for). A level track is a row
of numbered boxes coloured by level, with each level's name beneath.
"""

from __future__ import annotations

from PIL import Image, ImageDraw

from compiler import ir
from compiler.backends.fonts import font
from compiler.backends.names import named
from compiler.backends.print_and_play.charts import cites, heading, range_label, words
from compiler.backends.print_and_play.grid import (
    CELL_PX,
    MARK,
    NOTE_PX,
    PAD,
    TITLE_PX,
    Cell,
    Chart,
)

TURNS_PER_ROW = 7
TAG_FILL = "#f0a35e"
LEVEL_FILLS = ("#e8b4a8", "#f1d39b", "#f4efc3", "#cfe3b6", "#acd3c5", "#b6c8e6")
BOX_PX = 76
LEVELS_PER_ROW = 20
BAND_PX = BOX_PX + NOTE_PX + 3 * PAD  # a row of boxes and the names under it


def turn_track_charts(rules: ir.Ruleset) -> list[Chart]:
    """The turn track in rows of at most seven turns, each row a chart."""
    track = rules.turn_track
    if track is None:
        return []
    keys = list(dict.fromkeys(k for t in track.turns for k in t.data))
    arriving = _arrivals(rules)
    rows = [track.turns[i : i + TURNS_PER_ROW] for i in range(0, len(track.turns), TURNS_PER_ROW)]
    return [
        Chart(
            f"{track.title}{_part(n, len(rows))}",
            (Cell("Turn"), *(Cell(str(t.number)) for t in turns)),
            _turn_rows(turns, keys, arriving),
            cites(track.prov),
        )
        for n, turns in enumerate(rows, start=1)
    ]


def _part(n: int, of: int) -> str:
    """` (2 of 3)` after the title of a track printed in several rows."""
    return f" ({n} of {of})" if of > 1 else ""


def _turn_rows(
    turns: tuple[ir.Turn, ...], keys: list[str], arriving: dict[int, list[str]]
) -> tuple[tuple[Cell, ...], ...]:
    """The clock time, a row per per-turn value, and the units entering (if any do)."""
    body = [(Cell("Time"), *(Cell(t.label, t.prov.provisional) for t in turns))]
    body += [(Cell(heading(k)), *(_turn_value(k, t) for t in turns)) for k in keys]
    if any(arriving.get(t.number) for t in turns):
        body.append((Cell("Enter"), *(Cell("\n".join(arriving.get(t.number, []))) for t in turns)))
    return tuple(body)


def _turn_value(key: str, turn: ir.Turn) -> Cell:
    """A turn's value: yes as a coloured tag (HEAT), no as nothing, a range or a word."""
    value = turn.data.get(key)
    why = turn.prov.provisional
    if value is True:
        return Cell(words(key).upper(), why, TAG_FILL)
    if value is None or value is False:
        return Cell("", None)
    if isinstance(value, tuple):
        return Cell(range_label(*value), why)
    return Cell(words(str(value)), why)


def _arrivals(rules: ir.Ruleset) -> dict[int, list[str]]:
    """Per turn, the units entering then: "Red: Guard 0101" (entry hexes joined by /)."""
    shorts = {s.name: s.short for s in rules.sides}
    out: dict[int, list[str]] = {}
    for u in rules.units:
        if u.entry is None:
            continue
        where = "/".join(u.entry.at)
        roll = " (roll)" if u.entry.variable else ""
        out.setdefault(u.entry.turn, []).append(
            f"{shorts[u.side]}: {u.short} {where}{roll}".strip()
        )
    return out


def level_track(rules: ir.Ruleset, lv: ir.Levels) -> Image.Image:
    """Numbered boxes from the lowest to the highest value, coloured by level.

    A level whose values are provisional has a dagger after its name, and
    the foot of the track says why.
    """
    lo, hi = _span(rules, lv)
    numbers = list(range(lo, hi + 1))
    rows = [numbers[i : i + LEVELS_PER_ROW] for i in range(0, len(numbers), LEVELS_PER_ROW)]
    why = list(dict.fromkeys(v.prov.provisional for v in lv.levels if v.prov.provisional))
    title_h = TITLE_PX + 2 * PAD
    height = title_h + BAND_PX * len(rows) + (NOTE_PX + PAD) * len(why) + PAD
    img = Image.new("RGB", (LEVELS_PER_ROW * BOX_PX + 2 * PAD, height), "white")
    draw = ImageDraw.Draw(img)
    draw.text((PAD, PAD), f"{lv.title} Track", fill="#000000", font=font(TITLE_PX), anchor="lt")
    for r, row in enumerate(rows):
        y = title_h + r * BAND_PX
        for i, n in enumerate(row):
            _draw_box(draw, lv, n, (PAD + i * BOX_PX, y), n == hi)
        _draw_level_names(draw, lv, row, y + BOX_PX + PAD, why, img.width)
    _draw_reasons(draw, why, title_h + BAND_PX * len(rows))
    return img


def _draw_box(
    draw: ImageDraw.ImageDraw, lv: ir.Levels, n: int, at: tuple[int, int], last: bool
) -> None:
    """Box `n` in its level's colour; the last box of an open-ended level reads `n+`."""
    x, y = at
    level = _level_of(lv, n)
    fill = LEVEL_FILLS[lv.levels.index(level) % len(LEVEL_FILLS)] if level else "white"
    draw.rectangle((x, y, x + BOX_PX, y + BOX_PX), fill=fill, outline="#000000", width=2)
    label = f"{n}+" if last and level is not None and level.high is None else str(n)
    draw.text(
        (x + BOX_PX // 2, y + BOX_PX // 2),
        label,
        fill="#000000",
        font=font(CELL_PX),
        anchor="mm",
    )


def _draw_level_names(
    draw: ImageDraw.ImageDraw, lv: ir.Levels, row: list[int], y: int, why: list[str], width: int
) -> None:
    """Each level's name under its boxes in this row, a dagger after a provisional one."""
    free_from = PAD  # a name starts right of the one before it
    for level in lv.levels:
        inside = [i for i, n in enumerate(row) if _level_of(lv, n) is level]
        if not inside:
            continue
        name = level.title
        if level.prov.provisional:
            name += f" †{why.index(level.prov.provisional) + 1}"
        left = _name_left(name, inside, free_from, width)
        draw.text((left, y), name, fill="#000000", font=font(NOTE_PX), anchor="lt")
        free_from = left + _width(name) + PAD


def _draw_reasons(draw: ImageDraw.ImageDraw, why: list[str], y: int) -> None:
    """The foot of the track: what each dagger means."""
    for i, reason in enumerate(why, start=1):
        note = f"†{i} provisional, not a printed value: {reason}"
        draw.text((PAD, y), note, fill=MARK, font=font(NOTE_PX, bold=False), anchor="lt")
        y += NOTE_PX + PAD


def _width(text: str) -> int:
    left, _top, right, _bottom = font(NOTE_PX).getbbox(text)
    return right - left


def _name_left(name: str, boxes: list[int], free_from: int, width: int) -> int:
    """Where a level's name starts: centred under its boxes, but never past the
    track's ends (a one-box level such as 0 has a name wider than its box) nor
    over the name before it."""
    centre = PAD + (boxes[0] + boxes[-1] + 1) * BOX_PX // 2
    left = centre - _width(name) // 2
    return max(free_from, min(left, width - PAD - _width(name)))


def _span(rules: ir.Ruleset, lv: ir.Levels) -> tuple[int, int]:
    """The numbers the track shows: every bound, the starting values, and a few past an open end."""
    bounds = [b for level in lv.levels for b in (level.low, level.high) if b is not None]
    known = bounds + _starts(rules, lv.variable) or [0]
    lo = min(known) if lv.levels and lv.levels[0].low is not None else min(0, *known)
    hi = max(known) if lv.levels and lv.levels[-1].high is not None else max(known) + 2
    return lo, hi


def _starts(rules: ir.Ruleset, variable: str) -> list[int]:
    """The whole numbers the variable starts at (one per side for a per-side value)."""
    var = named(rules.variables, variable)
    start = var.initial if var is not None else None
    values = start.values() if isinstance(start, dict) else [start]
    return [x for x in values if isinstance(x, int) and not isinstance(x, bool)]


def _level_of(lv: ir.Levels, n: int) -> ir.Level | None:
    for level in lv.levels:
        if (level.low is None or n >= level.low) and (level.high is None or n <= level.high):
            return level
    return None
