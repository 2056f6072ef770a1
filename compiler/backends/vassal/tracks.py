"""The tracks board: the game-turn track, a track per scenario-set number, and the off-map boxes.

A second map beside the hex map, drawn here with Pillow: one box per turn
(the reinforcements of each turn wait in it, the boxes large enough for the
largest stack a scenario puts in one, drawn as VASSAL draws a stack), a row of numbered boxes for
each side's Army Morale (coloured by level, the level's name beneath), for
every other number a scenario starts at a value (momentum), and for victory
points; then each side's Eliminated and Captured boxes (and Exited, in a
battle whose units may leave the map by an `exit`). Each box is a named
region of the board's grid, so VASSAL reports a move as "Turn 4 → Turn 5"
or "<side> Army Morale 14 → 13". Cups and decks sit in their own boxes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from PIL import Image, ImageDraw

from compiler import ir
from compiler.backends.fonts import font
from compiler.backends.names import named, the
from compiler.backends.print_and_play.tracks import LEVEL_FILLS
from compiler.backends.vassal.sequence import text

BOX = 110  # a box holds one counter (96 px) with room around it
COUNTER = 96
# How VASSAL draws a stack that is not expanded (the maps' StackMetrics): each counter
# this many pixels right of and above the one beneath it.
STACK_SEP = (3, 5)
STACK_PAD = 7  # room kept between a stack and its box's edge
LABEL_H = 40  # a turn box's number and time, above the stack waiting in it
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
        return the(self.boxes, name)


def turn_box(n: int) -> str:
    return f"Turn {n}"


def stack_size(n: int) -> tuple[int, int]:
    """The width and height VASSAL draws a stack of `n` counters."""
    dx, dy = STACK_SEP
    return COUNTER + dx * (n - 1), COUNTER + dy * (n - 1)


def stack_point(box: Box, n: int) -> tuple[int, int]:
    """Where a stack of `n` counters goes so that VASSAL draws it in the middle of the
    box below its label: the bottom counter left of and below that middle by half the
    stack's spread (still nearest its own box's region, so its location is the box's
    name)."""
    dx, dy = STACK_SEP
    x = box.x + box.w // 2
    y = box.y + LABEL_H // 2 + box.h // 2
    return x - dx * (n - 1) // 2, y + dy * (n - 1) // 2


def waiting(rules: ir.Ruleset) -> int:
    """The most counters a scenario puts in one turn box: its reinforcements of a turn,
    and the Game Turn marker."""
    most = 0
    for sc in rules.scenarios:
        per_turn: dict[int, int] = {}
        if sc.printed_setup:
            for u in rules.units:
                if not u.setup and u.entry is not None:
                    per_turn[u.entry.turn] = per_turn.get(u.entry.turn, 0) + 1
        for e in sc.reinforcements:
            per_turn[e.turn] = per_turn.get(e.turn, 0) + len(e.units)
        most = max([most, *per_turn.values()])
    return most + 1


def track_box(track: Track, value: int) -> str:
    return f"{track.title} {value}"


def eliminated_box(side: ir.Side) -> str:
    return f"{text(side.title)}: Eliminated"


def captured_box(side: ir.Side) -> str:
    return f"{text(side.title)}: Captured"


def exited_box(side: ir.Side) -> str:
    return f"{text(side.title)}: Exited"


def pile_box(bag: ir.Bag) -> str:
    return text(bag.title)


def start_values(rules: ir.Ruleset) -> dict[tuple[str, str], list[int]]:
    """(variable, side or "") → every whole-number value a scenario starts it at."""
    out: dict[tuple[str, str], list[int]] = {}
    for sc in rules.scenarios:
        for v in sc.values:
            value = getattr(v.value, "value", None)
            if isinstance(value, int) and not isinstance(value, bool):
                out.setdefault(start_key(v), []).append(value)
    return out


def start_key(v: ir.StartValue) -> tuple[str, str]:
    """The variable a scenario sets, and the side it sets it for ("" for the whole game)."""
    return v.variable, str(getattr(v.index, "value", ""))


def tracks_of(rules: ir.Ruleset) -> list[Track]:
    """A track per number a scenario sets (per side where it is per side), then victory points."""
    variables = {v.name: v for v in rules.variables if v.type == "int"}
    out = [
        _number_track(rules, variables[name], side_name, values)
        for (name, side_name), values in start_values(rules).items()
        if name in variables
    ]
    for side in rules.sides:
        out.append(Track("vp", side.name, f"{text(side.short)} Victory Points", 0, LOWEST_TOP))
    return out


def _number_track(rules: ir.Ruleset, var: ir.Variable, side_name: str, values: list[int]) -> Track:
    """A whole number's track: from 0 to the highest of its starting values, its
    levels' bounds and `LOWEST_TOP`; named for its side when it is per side."""
    initial = var.initial if isinstance(var.initial, int) else 0
    high = max([LOWEST_TOP, *values, *_level_bounds(rules, var.name), initial])
    side = named(rules.sides, side_name)
    title = f"{text(side.short)} {text(var.title)}" if side else text(var.title)
    return Track(var.name, side_name, title, 0, high)


def _level_bounds(rules: ir.Ruleset, variable: str) -> list[int]:
    """Every bound of the levels of a variable (Army Morale's 0, 7, 8, …)."""
    return [
        b
        for lv in rules.levels
        if lv.variable == variable
        for level in lv.levels
        for b in (level.low, level.high)
        if b is not None
    ]


Item = tuple[str, str, str, str]  # a box's name, label, fill and the level name under it


@dataclass
class _Sheet:
    """The board as it is laid out from the top down: headings, boxes, and the next free row."""

    headings: list[tuple[int, int, str]] = field(default_factory=list)
    boxes: list[Box] = field(default_factory=list)
    y: int = MARGIN

    def heading(self, title: str) -> None:
        self.headings.append((MARGIN, self.y, title))
        self.y += HEADING

    def row(self, title: str, items: list[Item], size: tuple[int, int] = (BOX, BOX)) -> None:
        """A headed row of boxes of `size`, as many to a line as `PER_ROW` boxes take."""
        self.heading(title)
        w, h = size
        per_row = max(1, PER_ROW * (BOX + GAP) // (w + GAP))
        for i, (name, label, fill, under) in enumerate(items):
            if i and i % per_row == 0:
                self.y += h + GAP
            x = MARGIN + (i % per_row) * (w + GAP)
            self.boxes.append(Box(name, label, x, self.y, w, h, fill, under))
        self.y += h + GAP + HEADING // 2


def layout(rules: ir.Ruleset) -> TrackBoard:
    """The board's rows: the turns, each track, the off-map boxes, then any cups and decks."""
    sheet = _Sheet()
    w, h = stack_size(waiting(rules))
    turn_size = (max(BOX, w + 2 * STACK_PAD), max(BOX, h + 2 * STACK_PAD + LABEL_H))
    sheet.row(_turn_title(rules), _turn_items(rules), turn_size)
    tracks = tracks_of(rules)
    for track in tracks:
        sheet.row(track.title, _track_items(rules, track))
    _off_map_boxes(sheet, rules.sides, bool(rules.exits))
    if rules.bags:
        _pile_boxes(sheet, rules.bags)
    width = max(b.x + b.w for b in sheet.boxes) + MARGIN
    return TrackBoard(width, sheet.y + MARGIN, sheet.headings, sheet.boxes, tracks)


def _turn_title(rules: ir.Ruleset) -> str:
    return text(rules.turn_track.title) if rules.turn_track else "Game Turn"


def _turn_items(rules: ir.Ruleset) -> list[Item]:
    """A box per turn: the turn track's turns with their times, else the ruleset's turns."""
    if rules.turn_track is not None:
        return [
            (turn_box(t.number), f"{t.number}\n{text(t.label)}", "#ffffff", "")
            for t in rules.turn_track.turns
        ]
    first, last = rules.turns
    return [(turn_box(n), str(n), "#ffffff", "") for n in range(first, last + 1)]


def _track_items(rules: ir.Ruleset, track: Track) -> list[Item]:
    """A box per value of the track, coloured by the variable's levels if it has any."""
    levels = next((lv for lv in rules.levels if lv.variable == track.variable), None)
    return [
        (track_box(track, n), str(n), *_level_look(levels, track, n))
        for n in range(track.low, track.high + 1)
    ]


def _level_look(levels: ir.Levels | None, track: Track, n: int) -> tuple[str, str]:
    """Box `n`'s fill and the level name under it (at the level's first box on
    the track); where levels overlap, the last one holding `n` colours it."""
    fill, under = "#ffffff", ""
    for k, level in enumerate(levels.levels if levels is not None else ()):
        if _holds(level, n):
            fill = LEVEL_FILLS[k % len(LEVEL_FILLS)]
            first = level.low if level.low is not None else track.low
            under = text(level.title) if n == max(first, track.low) else ""
    return fill, under


def _holds(level: ir.Level, n: int) -> bool:
    return (level.low is None or level.low <= n) and (level.high is None or n <= level.high)


def _off_map_boxes(sheet: _Sheet, sides: tuple[ir.Side, ...], exits: bool) -> None:
    """Each side's Eliminated and Captured boxes — and Exited, where units may leave
    the map by an `exit` — side by side in one row."""
    sheet.heading("Off-map boxes")
    x = MARGIN
    wide = (2 if exits else 3) * BOX
    for side in sides:
        names = [eliminated_box(side), captured_box(side)]
        if exits:
            names.append(exited_box(side))
        for name in names:
            sheet.boxes.append(Box(name, name, x, sheet.y, wide, 2 * BOX, "#ffffff"))
            x += wide + GAP
    sheet.y += 2 * BOX + GAP + HEADING // 2


def _pile_boxes(sheet: _Sheet, bags: tuple[ir.Bag, ...]) -> None:
    """A large box per cup or deck, six to a row."""
    sheet.heading("Cups and decks")
    for i, bag in enumerate(bags):
        if i and i % 6 == 0:
            sheet.y += 2 * BOX + GAP
        x = MARGIN + (i % 6) * (2 * BOX + GAP)
        sheet.boxes.append(Box(pile_box(bag), pile_box(bag), x, sheet.y, 2 * BOX, 2 * BOX))
    sheet.y += 2 * BOX + GAP


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
