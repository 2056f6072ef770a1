"""The tracks board: the game-turn track, a track per scenario-set number, and the off-map boxes.

A second map beside the hex map, drawn here with Pillow: one box per turn
(the reinforcements of each turn wait in it), a row of numbered boxes for
each side's Army Morale (coloured by level, the level's name beneath), for
every other number a scenario starts at a value (momentum), and for victory
points; then each side's Eliminated and Captured boxes. Each box is a named
region of the board's grid, so VASSAL reports a move as "Turn 4 → Turn 5"
or "<side> Army Morale 14 → 13". Cups and decks sit in their own boxes.
"""

from __future__ import annotations

from dataclasses import dataclass

from PIL import Image, ImageDraw

from compiler import ir
from compiler.backends.fonts import font
from compiler.backends.print_and_play.tracks import LEVEL_FILLS
from compiler.backends.vassal.sequence import text

BOX = 110  # a box holds one counter (96 px) with room around it
GAP = 8
MARGIN = 30
HEADING = 34
PER_ROW = 14
LOWEST_TOP = 20  # a track runs from 0 to at least this (every series track the rules start fits)
INK = "#1e1e1e"
PAPER = "#f4f0e4"


@dataclass(frozen=True, slots=True)
class Box:
    name: str  # the region's name: what VASSAL's location reports say
    label: str  # printed in the box
    x: int  # top-left
    y: int
    w: int
    h: int
    fill: str = "#ffffff"
    under: str = ""  # a level's name, at the foot of its first box

    @property
    def centre(self) -> tuple[int, int]:
        return self.x + self.w // 2, self.y + self.h // 2


@dataclass(frozen=True, slots=True)
class Track:
    """Numbered boxes for one value (a side's Army Morale); `marker` counts on it."""

    variable: str
    side: str  # "" for one value for the whole game
    title: str
    low: int
    high: int


@dataclass
class TrackBoard:
    width: int
    height: int
    headings: list[tuple[int, int, str]]
    boxes: list[Box]
    tracks: list[Track]

    def box(self, name: str) -> Box:
        return next(b for b in self.boxes if b.name == name)


def turn_box(n: int) -> str:
    return f"Turn {n}"


def track_box(track: Track, value: int) -> str:
    return f"{track.title} {value}"


def eliminated_box(side: ir.Side) -> str:
    return f"{text(side.title)}: Eliminated"


def captured_box(side: ir.Side) -> str:
    return f"{text(side.title)}: Captured"


def pile_box(bag: ir.Bag) -> str:
    return text(bag.title)


def start_values(rules: ir.Ruleset) -> dict[tuple[str, str], list[int]]:
    """(variable, side or "") → every whole-number value a scenario starts it at."""
    out: dict[tuple[str, str], list[int]] = {}
    for sc in rules.scenarios:
        for v in sc.values:
            value = getattr(v.value, "value", None)
            side = getattr(v.index, "value", "") if v.index is not None else ""
            if isinstance(value, int) and not isinstance(value, bool):
                out.setdefault((v.variable, str(side)), []).append(value)
    return out


def tracks_of(rules: ir.Ruleset) -> list[Track]:
    """A track per number a scenario sets (per side where it is per side), then victory points."""
    variables = {v.name: v for v in rules.variables}
    starts = start_values(rules)
    out = []
    for (name, side_name), values in starts.items():
        var = variables.get(name)
        if var is None or var.type != "int":
            continue
        bounds = [
            b
            for lv in rules.levels
            if lv.variable == name
            for level in lv.levels
            for b in (level.low, level.high)
            if b is not None
        ]
        high = max(
            [LOWEST_TOP, *values, *bounds, var.initial if isinstance(var.initial, int) else 0]
        )
        side = next((s for s in rules.sides if s.name == side_name), None)
        title = f"{text(side.short)} {text(var.title)}" if side else text(var.title)
        out.append(Track(name, side_name, title, 0, high))
    for side in rules.sides:
        out.append(Track("vp", side.name, f"{text(side.short)} Victory Points", 0, LOWEST_TOP))
    return out


def layout(rules: ir.Ruleset) -> TrackBoard:
    headings: list[tuple[int, int, str]] = []
    boxes: list[Box] = []
    y = MARGIN

    def row_of(items: list[tuple[str, str, str, str]], title: str) -> None:
        nonlocal y
        headings.append((MARGIN, y, title))
        y += HEADING
        for i, (name, label, fill, under) in enumerate(items):
            if i and i % PER_ROW == 0:
                y += BOX + GAP
            x = MARGIN + (i % PER_ROW) * (BOX + GAP)
            boxes.append(Box(name, label, x, y, BOX, BOX, fill, under))
        y += BOX + GAP + HEADING // 2

    if rules.turn_track is not None:
        turns = [
            (turn_box(t.number), f"{t.number}\n{text(t.label)}", "#ffffff", "")
            for t in rules.turn_track.turns
        ]
    else:
        turns = [
            (turn_box(n), str(n), "#ffffff", "") for n in range(rules.turns[0], rules.turns[1] + 1)
        ]
    row_of(turns, text(rules.turn_track.title) if rules.turn_track else "Game Turn")
    tracks = tracks_of(rules)
    for track in tracks:
        levels = next((lv for lv in rules.levels if lv.variable == track.variable), None)
        items = []
        for n in range(track.low, track.high + 1):
            fill, under = "#ffffff", ""
            if levels is not None:
                for k, level in enumerate(levels.levels):
                    if (level.low is None or level.low <= n) and (
                        level.high is None or n <= level.high
                    ):
                        fill = LEVEL_FILLS[k % len(LEVEL_FILLS)]
                        first = level.low if level.low is not None else track.low
                        under = text(level.title) if n == max(first, track.low) else ""
            items.append((track_box(track, n), str(n), fill, under))
        row_of(items, track.title)
    headings.append((MARGIN, y, "Off-map boxes"))
    y += HEADING
    x = MARGIN
    wide = 3 * BOX
    for side in rules.sides:
        for name in (eliminated_box(side), captured_box(side)):
            boxes.append(Box(name, name, x, y, wide, 2 * BOX, "#ffffff"))
            x += wide + GAP
    y += 2 * BOX + GAP + HEADING // 2
    if rules.bags:
        headings.append((MARGIN, y, "Cups and decks"))
        y += HEADING
        for i, bag in enumerate(rules.bags):
            if i and i % 6 == 0:
                y += 2 * BOX + GAP
            bx = MARGIN + (i % 6) * (2 * BOX + GAP)
            boxes.append(Box(pile_box(bag), pile_box(bag), bx, y, 2 * BOX, 2 * BOX, "#ffffff"))
        y += 2 * BOX + GAP
    width = max(b.x + b.w for b in boxes) + MARGIN
    return TrackBoard(width, y + MARGIN, headings, boxes, tracks)


def draw(board: TrackBoard) -> Image.Image:
    img = Image.new("RGB", (board.width, board.height), PAPER)
    d = ImageDraw.Draw(img)
    heading, small, under = font(22), font(15, bold=False), font(13, bold=False)
    for x, y, title in board.headings:
        d.text((x, y), title, font=heading, fill=INK)
    for b in board.boxes:
        d.rectangle((b.x, b.y, b.x + b.w - 1, b.y + b.h - 1), fill=b.fill, outline=INK, width=2)
        d.multiline_text((b.x + 6, b.y + 4), b.label, font=small, fill=INK, spacing=2)
        if b.under:
            d.text((b.x + 4, b.y + b.h - 4), b.under, font=under, fill=INK, anchor="ld")
    return img
