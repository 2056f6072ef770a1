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


def turn_track_charts(rules: ir.Ruleset) -> list[Chart]:
    """The turn track in rows of at most seven turns, each row a chart."""
    track = rules.turn_track
    if track is None:
        return []
    keys = list(dict.fromkeys(k for t in track.turns for k in t.data))
    arriving = _arrivals(rules)
    charts = []
    rows = [track.turns[i : i + TURNS_PER_ROW] for i in range(0, len(track.turns), TURNS_PER_ROW)]
    for n, turns in enumerate(rows, start=1):
        header = (Cell("Turn"), *(Cell(str(t.number)) for t in turns))
        body = [(Cell("Time"), *(Cell(t.label, t.prov.provisional) for t in turns))]
        for k in keys:
            cells = [Cell(heading(k))]
            for t in turns:
                value = t.data.get(k)
                why = t.prov.provisional
                if value is True:
                    cells.append(Cell(words(k).upper(), why, TAG_FILL))
                elif value is None or value is False:
                    cells.append(Cell("", None))
                elif isinstance(value, tuple):
                    cells.append(Cell(range_label(*value), why))
                else:
                    cells.append(Cell(words(str(value)), why))
            body.append(tuple(cells))
        if any(arriving.get(t.number) for t in turns):
            body.append(
                (Cell("Enter"), *(Cell("\n".join(arriving.get(t.number, []))) for t in turns))
            )
        part = f" ({n} of {len(rows)})" if len(rows) > 1 else ""
        charts.append(Chart(f"{track.title}{part}", header, tuple(body), cites(track.prov)))
    return charts


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
    per_row = 20
    numbers = list(range(lo, hi + 1))
    rows = [numbers[i : i + per_row] for i in range(0, len(numbers), per_row)]
    why = list(dict.fromkeys(v.prov.provisional for v in lv.levels if v.prov.provisional))
    band = BOX_PX + NOTE_PX + 3 * PAD
    title_h = TITLE_PX + 2 * PAD
    height = title_h + band * len(rows) + (NOTE_PX + PAD) * len(why) + PAD
    img = Image.new("RGB", (per_row * BOX_PX + 2 * PAD, height), "white")
    draw = ImageDraw.Draw(img)
    draw.text((PAD, PAD), f"{lv.title} Track", fill="#000000", font=font(TITLE_PX), anchor="lt")
    for r, row in enumerate(rows):
        y = title_h + r * band
        for i, n in enumerate(row):
            x = PAD + i * BOX_PX
            level = _level_of(lv, n)
            fill = LEVEL_FILLS[lv.levels.index(level) % len(LEVEL_FILLS)] if level else "white"
            draw.rectangle((x, y, x + BOX_PX, y + BOX_PX), fill=fill, outline="#000000", width=2)
            label = f"{n}+" if n == hi and level is not None and level.high is None else str(n)
            draw.text(
                (x + BOX_PX // 2, y + BOX_PX // 2),
                label,
                fill="#000000",
                font=font(CELL_PX),
                anchor="mm",
            )
        free_from = PAD  # a name starts right of the one before it
        for level in lv.levels:
            inside = [i for i, n in enumerate(row) if _level_of(lv, n) is level]
            if not inside:
                continue
            name = level.title
            if level.prov.provisional:
                name += f" †{why.index(level.prov.provisional) + 1}"
            left = _name_left(name, inside, free_from, img.width)
            draw.text(
                (left, y + BOX_PX + PAD), name, fill="#000000", font=font(NOTE_PX), anchor="lt"
            )
            free_from = left + _width(name) + PAD
    y = title_h + band * len(rows)
    for i, reason in enumerate(why, start=1):
        note = f"†{i} provisional, not a printed value: {reason}"
        draw.text((PAD, y), note, fill=MARK, font=font(NOTE_PX, bold=False), anchor="lt")
        y += NOTE_PX + PAD
    return img


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
    var = next((v for v in rules.variables if v.name == lv.variable), None)
    start = var.initial if var is not None else None
    starts = [
        x
        for x in (start.values() if isinstance(start, dict) else [start])
        if isinstance(x, int) and not isinstance(x, bool)
    ]
    bounds = [b for level in lv.levels for b in (level.low, level.high) if b is not None]
    known = bounds + starts or [0]
    lo = min(known) if lv.levels and lv.levels[0].low is not None else min(0, *known)
    hi = max(known) if lv.levels and lv.levels[-1].high is not None else max(known) + 2
    return lo, hi


def _level_of(lv: ir.Levels, n: int) -> ir.Level | None:
    for level in lv.levels:
        if (level.low is None or n >= level.low) and (level.high is None or n <= level.high):
            return level
    return None
