"""Counter faces laid out: every text box and shape with its place, before any drawing.

The layout is data so that tests can check it (text at least 6 pt, no two
text boxes overlapping) and the painter only follows it. Slots sit where
published counters put them: the colour band with the name on top, the
set-up hex or entry top left, the formation letter top right, the type
symbol in the centre, strength–morale–movement along the bottom.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from compiler import ir
from compiler.backends.fonts import fit, text_box
from compiler.backends.print_and_play.face import Box, Face, Shape, Text, ink_on, rgb, signed
from compiler.backends.print_and_play.geometry import COUNTER_PX, MIN_TEXT_PX
from compiler.backends.print_and_play.symbols import symbol_items
from compiler.check.counters import Look

S = COUNTER_PX
BAND_H = 46
STRIPE_H = 9
SLOT_BOXES: dict[str, Box] = {
    "band": (6, 2, S - 6, BAND_H - STRIPE_H),  # above the stripe, striped or not
    "top_left": (6, 50, 144, 82),  # wide enough for "T14 0101+" at 6 pt
    "top_right": (148, 50, S - 7, 82),
    "left": (6, 86, 50, 134),
    "centre": (52, 86, 136, 134),
    "right": (138, 86, S - 6, 134),
    "bottom": (4, 138, S - 4, S - 4),
}
GAP = 3  # space kept free on each side of a value that shares its slot
WHOLE: Box = (10, 10, S - 10, S - 10)
# A centre with nothing to its left or right (a piece's name) takes their width.
CENTRE_WIDE: Box = (6, 86, S - 6, 134)  # a face with nothing but its centre uses all of it
LARGEST = {"band": 32, "top_left": 30, "top_right": 32, "bottom": 44}
ANCHOR = {"top_left": "lm", "top_right": "rm"}


@dataclass(frozen=True, slots=True)
class Values:
    """What one side of a counter prints, by value name (strength, setup, rank, …)."""

    values: dict[str, object]
    boxed: set[str]


class DoesNotFit(Exception):
    """A text that cannot be printed at 6 pt in its slot; args: the text, the value's name."""


# ----------------------------------------------------------------- formatting


def field_text(field: ir.FaceField, values: dict[str, object]) -> str | None:
    """The text a field prints, or None when the counter has no such value."""
    if field.style == "text":
        return field.text
    value = values.get(field.value)
    if value is None or value is False or value == "":
        return None
    if field.style == "signed":
        return signed(value)
    if value is True:
        return None
    return str(value)


# ----------------------------------------------------------------- layout


def lay_out(look: Look, vals: Values, body: str, band: str, stripe: str, ink: str) -> Face:
    """Place the look's slots for one side of a counter; raises `DoesNotFit`."""
    items: list[Text | Shape] = []
    only_centre = _only_centre(look, band)
    for slot, fields in look.slots.items():
        if not fields or (slot == "band" and not band):
            continue
        present = [f for f in fields if _present(f, vals.values)]
        if not present:
            continue
        box = _slot_box(look, slot, fields, only_centre)
        color = ink_on(band) if slot == "band" else ink
        for field, cell in zip(present, _cells(box, len(present)), strict=True):
            items += _field_items(field, slot, cell, vals, color, body, only_centre)
    return Face(body, band, stripe, tuple(items))


def _only_centre(look: Look, band: str) -> bool:
    """A face with nothing but its centre (and a band it has no colour for): the centre
    takes the whole face, its text wrapped."""
    used = [slot for slot, fields in look.slots.items() if fields]
    return used == ["centre"] or (used == ["band", "centre"] and not band)


def _slot_box(look: Look, slot: str, fields: tuple[ir.FaceField, ...], only_centre: bool) -> Box:
    """Where a slot's values go: its own box, or for the centre the whole face
    or (text alone, nothing beside it) the width of the left and right too."""
    if slot != "centre":
        return SLOT_BOXES[slot]
    if only_centre:
        return WHOLE
    return CENTRE_WIDE if _text_alone(look, fields) else SLOT_BOXES["centre"]


def _cells(box: Box, n: int) -> list[Box]:
    """`box` split into `n` cells side by side, `GAP` free either side of each when shared."""
    width = (box[2] - box[0]) // n
    gap = GAP if n > 1 else 0
    return [
        (box[0] + i * width + gap, box[1], box[0] + (i + 1) * width - gap, box[3]) for i in range(n)
    ]


def _text_alone(look: Look, fields: tuple[ir.FaceField, ...]) -> bool:
    """A centre of text only, with the left and right slots empty."""
    beside = look.slots.get("left") or look.slots.get("right")
    return not beside and all(f.value != "symbol" and f.style in ("plain", "text") for f in fields)


def _present(field: ir.FaceField, values: dict[str, object]) -> bool:
    if field.style in ("stars", "badge"):
        return bool(values.get(field.value))
    if field.value == "symbol":
        return bool(values.get("symbol")) and values.get("symbol") != "none"
    return field_text(field, values) is not None


def _field_items(
    field: ir.FaceField,
    slot: str,
    cell: Box,
    vals: Values,
    ink: str,
    body: str,
    wrap: bool,
) -> list[Text | Shape]:
    """What one value prints in its cell: stars, a badge, the type symbol, or text."""
    value = vals.values.get(field.value)
    if field.style == "stars":
        return _stars(cell, value, ink)
    if field.style == "badge":
        return _badge(cell, value, field.text)
    if field.value == "symbol" and field.style == "plain":
        return symbol_items(str(value), cell, ink, body)
    return _text_items(field, slot, cell, vals, ink, wrap)


def _stars(cell: Box, value: object, ink: str) -> list[Text | Shape]:
    """A leader's rank as stars; none for no rank."""
    n = value if isinstance(value, int) and not isinstance(value, bool) else 0
    return [Shape("stars", cell, ink, ink, str(n))] if n > 0 else []


def _text_items(
    field: ir.FaceField, slot: str, cell: Box, vals: Values, ink: str, wrap: bool
) -> list[Text | Shape]:
    """A value's text: wrapped over lines (a centre-only face), else one line as
    large as the slot allows, boxed where the look boxes it."""
    text = field_text(field, vals.values) or ""
    anchor = ANCHOR.get(slot, "mm")
    boxed = field.value in vals.boxed and field.style in ("plain", "signed")
    try:
        if wrap:
            return wrapped(text, cell, 44, ink)
        return one_line(text, cell, LARGEST.get(slot, 30), anchor, ink, boxed)
    except DoesNotFit:
        raise DoesNotFit(text, field.value or "text") from None


def one_line(
    text: str, cell: Box, largest: int, anchor: str, ink: str, boxed: bool = False
) -> list[Text | Shape]:
    """One line of text, as large as fits in `cell` (at least 6 pt)."""
    pad = 5 if boxed else 0
    w, h = cell[2] - cell[0] - 2 * pad, cell[3] - cell[1] - 2 * pad
    size = fit(text, w, h, largest, MIN_TEXT_PX)
    if not size:
        raise DoesNotFit(text)
    x = {"l": cell[0] + pad, "m": (cell[0] + cell[2]) // 2, "r": cell[2] - pad}[anchor[0]]
    at = (x, (cell[1] + cell[3]) // 2)
    box = text_box(text, size, at, anchor)
    out: list[Text | Shape] = []
    if boxed:
        out.append(
            Shape(
                "box",
                (box[0] - pad, box[1] - pad, box[2] + pad, box[3] + pad),
                "#ffffff",
                "#000000",
            )
        )
        ink = "#000000"
    out.append(Text(text, size, at, anchor, box, ink))
    return out


def wrapped(text: str, cell: Box, largest: int, ink: str, lines: int = 3) -> list[Text | Shape]:
    """Text centred in `cell` on up to `lines` lines, broken at spaces, as large as fits."""
    words = text.split()
    best: tuple[int, list[str]] = (0, [])
    for n in range(1, min(lines, max(len(words), 1)) + 1):
        rows = _balanced(words, n)
        height = (cell[3] - cell[1]) // n
        size = min(fit(row, cell[2] - cell[0], height, largest, MIN_TEXT_PX) for row in rows)
        if size > best[0]:
            best = (size, rows)
    size, rows = best
    if not size:
        raise DoesNotFit(text)
    step = round(size * 1.15)
    top = (cell[1] + cell[3]) // 2 - step * (len(rows) - 1) // 2
    out: list[Text | Shape] = []
    for i, row in enumerate(rows):
        at = ((cell[0] + cell[2]) // 2, top + i * step)
        out.append(Text(row, size, at, "mm", text_box(row, size, at), ink))
    return out


def _balanced(words: list[str], n: int) -> list[str]:
    """`words` in at most `n` lines, broken where the longest line is shortest."""
    best = [" ".join(words)]
    for breaks in itertools.combinations(range(1, len(words)), min(n, len(words)) - 1):
        bounds = (0, *breaks, len(words))
        rows = [" ".join(words[a:b]) for a, b in itertools.pairwise(bounds)]
        if max(map(len, rows)) < max(map(len, best)):
            best = rows
    return best


def _badge(cell: Box, value: object, letters: str) -> list[Text | Shape]:
    """A circled text whose value is the colour of the letters, in a circle of
    the other colour: `rifle black` is a black R in a white circle, `rifle
    white` a white R in a black circle (series 3.2, 12.23 step 3); yes is black
    letters."""
    ink = "#000000" if value is True else str(value)
    try:
        rgb(ink)
    except ValueError:
        ink = "#000000"
    fill = ink_on(ink)
    d = min(cell[2] - cell[0], cell[3] - cell[1], 44)
    cx, cy = (cell[0] + cell[2]) // 2, (cell[1] + cell[3]) // 2
    circle = (cx - d // 2, cy - d // 2, cx + d // 2, cy + d // 2)
    inner = (circle[0] + 6, circle[1] + 6, circle[2] - 6, circle[3] - 6)
    return [Shape("badge", circle, fill, "#000000"), *one_line(letters, inner, 30, "mm", ink)]
